/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection engine: every protocol decision of one connection (one
 * peer of one socket), without I/O.  The glue feeds it decoded packets,
 * timer expiries and messages to send, each with the current time, and
 * the engine answers with actions through struct mpdt_eng_ops: transmit
 * a packet, deliver or release a message, fail the connection, arm the
 * timer.  Pure core: it compiles unchanged in the module, in the unit
 * tests and in the simulator, and holds no lock, skb, page or clock.
 *
 * The sending half runs our incarnation (nonce, PSNs from 0, STrack
 * §3.3.2 scoreboard, RTT, load balancing and congestion control); the
 * receiving half tracks the peer's incarnation (§3.3.1 bitmap, message
 * assembly, coalesced SACKs).
 */
#ifndef _MPDT_ENGINE_H
#define _MPDT_ENGINE_H

#include "core.h"
#include "cc.h"
#include "lb.h"
#include "pacing.h"
#include "params.h"
#include "path.h"
#include "reasm.h"
#include "rtt.h"
#include "sack.h"
#include "scoreboard.h"
#include "wire.h"
#include <linux/mpdt.h>

/* The one state of a connection. */
enum mpdt_eng_state {
	MPDT_ENG_LISTEN,	/* no sending incarnation yet: receives only */
	MPDT_ENG_ACTIVE,	/* our incarnation is running */
	MPDT_ENG_FAILED,	/* the peer stopped answering; the next
				 * message starts a new incarnation
				 */
	MPDT_ENG_TIME_WAIT,	/* the socket closed: answers duplicates */
};

/* A message being sent; the glue embeds it next to the bytes. */
struct mpdt_eng_txmsg {
	struct list_head node;		/* eng->tx_msgs, in send order */
	u32 id;
	u32 len;
	u32 mss;			/* payload per packet */
	u32 npkts;
	u32 sent;			/* packets handed out (first time) */
	u32 acked;
	/* Bytes not yet in place: the glue copies a long message in while
	 * its first pieces go (mpdt_eng_msg_ready()); 0: all of them.
	 */
	u32 missing;
	u64 first_tx_ns;		/* its first packet went out */
	/* Longer than cc.chunk when it was queued: it is timed for the
	 * congestion control in chunks of chunk_pkts packets, the first
	 * numbered chunk_seq (struct mpdt_eng_chunk); 0: whole.
	 */
	u32 chunk_pkts;
	u32 chunk_seq;
};

/* A chunk of a message being timed, from its first packet on the wire to
 * its last acknowledgment (cc.chunk).  Slots are taken by chunk number:
 * a window of more chunks than slots leaves the rest untimed.
 */
struct mpdt_eng_chunk {
	u32 seq;
	u32 left;			/* packets unacked; 0: slot free */
	u32 bytes;
	u64 first_tx_ns;
};

#define MPDT_ENG_CHUNKS	16
/* A peer's messages being assembled at once, whatever their size: the
 * glue's table of them (keyed by Message ID, which the peer picks) stays
 * short.  An honest peer has more only with more small multi-packet
 * messages in flight than this, and then waits out a NO_BUFFER NACK.
 */
#define MPDT_ENG_RX_PARTIAL_MAX	512

struct mpdt_eng;

/* The actions: how the engine has the glue act on the world. */
struct mpdt_eng_ops {
	/* Send @pkt: type, flags, nonce, EV and body are filled in, the
	 * glue adds the ports.  DATA carries payload_len bytes of @m from
	 * data.offset; @m is NULL for the other types.  The glue may hold
	 * the new DATA packets of a burst (one EV) to send them as one skb,
	 * in order, until flush().
	 */
	void (*xmit)(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		     const struct mpdt_eng_txmsg *m);
	/* A burst ended: send what xmit() held.  Nothing is held between
	 * the engine's calls.
	 */
	void (*flush)(struct mpdt_eng *e);
	/* Whether the socket's packets still in this host's queues are
	 * within @limit bytes; if not, run mpdt_eng_on_timer() once they
	 * are.  NULL: no queue of the host's own to mind (the model).
	 */
	bool (*host_room)(struct mpdt_eng *e, u32 limit);
	/* Whether none of the socket's packets is in this host's queues;
	 * if some are, run mpdt_eng_on_timer() once the last has left.
	 * NULL: as for host_room, none to mind.
	 */
	bool (*host_drained)(struct mpdt_eng *e);
	/* Whether the connection's packets are to leave at departure times
	 * (pacing.h: the socket asked for a rate, and the fq qdisc, which
	 * holds packets to their times, paces it), and then at most at
	 * what rate, bytes/s.  NULL: never.
	 */
	bool (*paced)(struct mpdt_eng *e, u64 *max_rate);
	/* Run mpdt_eng_on_timer() at @when (ns) or earlier. */
	void (*arm_timer)(struct mpdt_eng *e, u64 when);
	void (*count)(struct mpdt_eng *e, enum mpdt_stat s, u64 n);
	/* Sending half: @m is off the queue, acknowledged or dropped. */
	void (*tx_release)(struct mpdt_eng *e, struct mpdt_eng_txmsg *m);
	/* Messages were acknowledged: room to queue more. */
	void (*tx_room)(struct mpdt_eng *e);
	/* The peer stopped answering; every message was released. */
	void (*failed)(struct mpdt_eng *e);
	/* Receiving half: the message @id being assembled, or NULL. */
	struct mpdt_reasm *(*rx_find)(struct mpdt_eng *e, u32 id);
	/* Room for a new message like @d's, or NULL (counted why). */
	struct mpdt_reasm *(*rx_admit)(struct mpdt_eng *e,
				       const struct mpdt_data *d);
	/* Store @d's payload (@payload is the glue's): 0, -ENOBUFS, or
	 * -EPROTO if the packet holds fewer bytes than it says.
	 */
	int (*rx_place)(struct mpdt_eng *e, struct mpdt_reasm *ra,
			const struct mpdt_data *d, const void *payload);
	/* @ra is complete: hand it to the application. */
	void (*rx_deliver)(struct mpdt_eng *e, struct mpdt_reasm *ra);
	/* Drop every message being assembled. */
	void (*rx_forget)(struct mpdt_eng *e);
	/* Bytes of new message rx_admit() would take from the peer now,
	 * for its SACKs.  NULL: the SACKs do not say.
	 */
	u32 (*rx_room)(struct mpdt_eng *e);
	/* The cookie that proves incarnation @nonce of the peer receives at
	 * the peer's address, to replace incarnation @replaced, for @epoch
	 * (wire-format.rst 5.1): a keyed hash nobody off the path can
	 * compute.  NULL: new nonces are refused without a challenge (the
	 * model).
	 */
	u64 (*cookie)(struct mpdt_eng *e, u32 nonce, u32 replaced, u32 epoch);
};

struct mpdt_eng {
	const struct mpdt_eng_ops *ops;
	const struct mpdt_params *params;	/* the netns's, read live */
	enum mpdt_eng_state state;
	u64 now;			/* of the input being handled */

	/* Sending half: our incarnation @nonce, PSNs from 0. */
	u32 nonce;
	u32 next_msg_id;
	struct list_head tx_msgs;	/* not yet fully acknowledged */
	struct mpdt_eng_txmsg *tx_next;	/* first with unsent packets */
	struct mpdt_sb sb;		/* sb.ring NULL until the first send */
	struct mpdt_rtt rtt;
	struct mpdt_path path;
	struct mpdt_pacing pacing;
	/* The netns's parameters with the path's base RTT and BDP (link
	 * speed) for those configured 0, measured (path.h): what the load
	 * balancer and the congestion control were last scaled with.  Taken
	 * again when a measurement moves either by more than an eighth.  Its
	 * burst_pkts is 1 where the CCs' largest window must not hold three
	 * bursts (path_refresh()).
	 */
	struct mpdt_params eff;
	struct mpdt_lb lb;
	struct mpdt_cc cc;
	/* The receiver said NO_BUFFER, or that it lacked @peer_room for the
	 * next message: nothing goes before @pause_until, then one packet
	 * at a time (@test_psn, once @test_out) until it takes one
	 * (test_room()).  @peer_room: bytes of new message it had room for,
	 * by its latest SACK, less the messages started since; U32_MAX if
	 * it does not say.
	 */
	bool peer_full;
	bool test_out;
	u32 test_psn;
	u64 pause_until;
	u32 peer_room;
	u64 heard_ns;			/* latest packet of the peer's incarnation */
	u16 last_ev;
	/* The burst being sent: its EV serves @burst_left more new packets
	 * (the LB chose once for all); @burst_flowlet: on a flowlet;
	 * @burst_at: its departure time, 0 if unpaced.
	 */
	u32 burst_left;
	u16 burst_ev;
	bool burst_flowlet;
	u64 burst_at;
	/* The departure time (pacing.h) of the DATA or PROBE being sent,
	 * which the glue stamps its skb with; 0: unpaced, as soon as it can.
	 */
	u64 tx_at;
	bool host_full;			/* this push: host_room() said no */
	u64 probe_held;			/* the due time of a probe that waits */
	u64 cookie_sent_ns;		/* when we last returned a cookie */
	u32 chunk_seq;			/* the next chunk's number */
	struct mpdt_eng_chunk chunks[MPDT_ENG_CHUNKS];

	/* Receiving half: the peer's incarnation and PSN bitmap. */
	bool rx_active;
	bool rx_had_prev;
	u32 rx_nonce;
	u32 rx_prev_nonce;		/* replaced incarnation, refused */
	u64 rx_heard_ns;		/* latest DATA/PROBE of rx_nonce */
	u32 rx_partial;			/* messages being assembled */
	bool rx_closed;			/* nobody reads: duplicates only */
	struct mpdt_rx rx;
	/* A burst's packets in (mpdt_eng_hold_acks()): a SACK that came
	 * due (@due) waits for its last, with what it echoes.
	 */
	struct {
		bool held, due;
		u16 ev, flags;
		u64 echo_ts;
	} ack_wait;

	/* Reported by MPDT_INFO. */
	u64 probes, rtos;
	u64 sacks_rcvd, sacks_sent, nacks_rcvd, nacks_sent;
	u64 msgs_sent, msgs_acked, msgs_rcvd;
	u32 msgs_inflight;
};

/* @rx_bits holds params->rx_window bits; @lb and @cc are set up (ops,
 * priv) by the caller, initialized by mpdt_eng_start().
 */
void mpdt_eng_init(struct mpdt_eng *e, const struct mpdt_eng_ops *ops,
		   const struct mpdt_params *p, u64 *rx_bits, u32 window,
		   u64 now);
/* True if the next message must start a new sending incarnation: the
 * first one, after a failure, or after the quiet time with nothing
 * queued (mpdt_eng_start()).
 */
bool mpdt_eng_needs_start(const struct mpdt_eng *e, u64 now);
/* Start a new sending incarnation with @nonce, a scoreboard @ring of
 * rx.window entries and @seed for the load balancer.
 */
void mpdt_eng_start(struct mpdt_eng *e, struct mpdt_sb_pkt *ring, u32 nonce,
		    u64 seed, u64 now);
/* Queue @m (its len set) and send what the window allows; its packets
 * carry m->mss bytes of payload, if the glue cut it already (txmsg.c),
 * else the incarnation's payload size.  With m->missing set, only the
 * packets before the missing bytes may go until mpdt_eng_msg_ready().
 */
void mpdt_eng_send(struct mpdt_eng *e, struct mpdt_eng_txmsg *m, u64 now);
/* A message longer than this is worth copying in while it goes. */
#define MPDT_ENG_PIECE_BYTES	65536
/* How many packets of queued message @m the glue puts in place at once
 * when it copies the message in while it goes.
 */
u32 mpdt_eng_piece_pkts(const struct mpdt_eng *e,
			const struct mpdt_eng_txmsg *m);
/* @bytes more of @m, from where its missing bytes start, are in place
 * (a whole piece, or the rest): send what the window allows.
 */
void mpdt_eng_msg_ready(struct mpdt_eng *e, struct mpdt_eng_txmsg *m,
			u32 bytes, u64 now);
/* A decoded packet from the peer; @ce: the outer IP header had CE;
 * @payload: the glue's handle on DATA bytes, passed to rx_place().
 * True if it belonged to an incarnation taken for the peer's (heard_ns).
 */
bool mpdt_eng_on_packet(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
			bool ce, const void *payload, u64 now);
/* The packets up to mpdt_eng_release_acks() came in together, in one
 * burst: what they make due is acknowledged once, after the last.
 */
void mpdt_eng_hold_acks(struct mpdt_eng *e);
void mpdt_eng_release_acks(struct mpdt_eng *e);
/* The timer armed through ops->arm_timer fired (possibly early). */
void mpdt_eng_on_timer(struct mpdt_eng *e, u64 now);
/* The connection goes: release every message, sent or being assembled. */
void mpdt_eng_release(struct mpdt_eng *e);
/* The socket closed but still delivers what it sent: the receiving half
 * drops its partial messages and only answers duplicates and probes.
 */
void mpdt_eng_close_rx(struct mpdt_eng *e);
/* The socket closed and sends no more: release every message, answer
 * duplicates and probes only.
 */
void mpdt_eng_time_wait(struct mpdt_eng *e);
/* Forget the peer's incarnation if it has been silent for longer than a
 * sender can retry; returns true if it did (its messages are dropped).
 */
bool mpdt_eng_rx_expire(struct mpdt_eng *e, u64 now);
/* Bytes a partial message of this incarnation is behind its whole length
 * per reassembly time, from a quiet time after its admission; 0 when on
 * time.
 */
u32 mpdt_eng_rx_lag(const struct mpdt_eng *e, const struct mpdt_reasm *ra,
		    u64 now);
/* Drop the incarnation's partial messages to make room, and retire it. */
void mpdt_eng_rx_evict(struct mpdt_eng *e);
/* The peer may still wait for our last SACK. */
bool mpdt_eng_peer_may_wait(const struct mpdt_eng *e, u64 now);
/* No message queued or being assembled: nothing to lose. */
bool mpdt_eng_holds_nothing(const struct mpdt_eng *e);
/* Never carried data either way (what a stranger's PROBE creates). */
bool mpdt_eng_embryonic(const struct mpdt_eng *e);
u64 mpdt_eng_rto(const struct mpdt_eng *e);
/* A challenge's cookie is good in the epoch (the receiver's clock, ns,
 * shifted right by this) it was made in and the next: 2.1 s to 4.3 s,
 * for a round trip (wire-format.rst 5.1).
 */
#define MPDT_COOKIE_EPOCH_SHIFT	31

/* The quiet time (wire-format.rst §5): an incarnation quiet this long has
 * no live sender behind it.
 */
u64 mpdt_eng_quiet_ns(const struct mpdt_params *p);
/* How long a partial message outlives its silent sender: longer than the
 * sender can keep retrying.
 */
u64 mpdt_eng_reassembly_ns(const struct mpdt_params *p);

#endif /* _MPDT_ENGINE_H */
