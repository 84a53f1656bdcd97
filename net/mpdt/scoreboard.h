/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sender side of STrack reliability (§3.3.2): which PSNs are in flight,
 * acknowledged or lost, the inflight byte count of eq. (1)-(2), and the
 * three loss detectors (OOO count, probe, RTO).  Pure core: time is passed
 * in, timers are the glue's job (it asks for the deadlines).
 */
#ifndef _MPDT_SCOREBOARD_H
#define _MPDT_SCOREBOARD_H

#include "core.h"
#include "wire.h"
#include <linux/mpdt.h>

enum mpdt_sb_state {
	MPDT_SB_INFLIGHT = 1,
	MPDT_SB_ACKED,
	MPDT_SB_LOST,		/* declared lost, waiting to be resent */
};

struct mpdt_sb_pkt {
	void *owner;		/* the glue's message */
	u64 sent_ns;		/* latest transmission */
	u32 offset;		/* within the message */
	u16 len;		/* payload bytes */
	u16 ev;			/* entropy of the latest transmission */
	u8 state;		/* enum mpdt_sb_state */
	u8 transmissions;
	bool rto_lost;		/* LOST by the latest RTO, not resent */
};

/* A packet at @psn was just declared lost by detector @cause; each loss
 * is reported once, when it is declared.
 */
typedef void (*mpdt_sb_lost_fn)(void *ctx, u32 psn,
				const struct mpdt_sb_pkt *pkt,
				enum mpdt_retx_cause cause);

/* STrack §3.3.2: the OOO threshold never goes below this many packets. */
#define MPDT_OOO_MIN_THRESHOLD	5

struct mpdt_sb {
	struct mpdt_sb_pkt *ring;	/* indexed by psn % window */
	u32 window;			/* pow2 */
	u32 una;			/* lowest unacknowledged PSN */
	u32 nxt;			/* next new PSN */
	u32 high_rcvd;			/* one past highest PSN known received */
	u32 lost_pending;		/* LOST, not yet resent */
	u32 lost_scan;			/* in [una, nxt]; none LOST before */

	/* Eq. (1)-(2): inflight = sent - recvd - claimed_retransmit. */
	u64 bytes_sent;
	u64 bytes_recvd;
	u64 bytes_claimed;

	/* When the OOO detector looks again at a packet it found missing but
	 * too young to call lost; 0 if none (RACK's reorder timer).
	 */
	u64 reorder_due_ns;
	/* What the OOO detector's walks have seen (declare_aged()): every
	 * INFLIGHT packet in [una, ooo_walked), and every one beyond too if
	 * ooo_walked_all, was sent at ooo_young_ns or later.  Until that
	 * has aged a SACK walks only what no walk has seen yet.
	 */
	u32 ooo_walked;			/* in [una, nxt] */
	bool ooo_walked_all;
	u64 ooo_young_ns;		/* U64_MAX: none seen */

	u64 last_sack_ns;
	u64 rto_start_ns;		/* last EPSN advance */
	u32 rto_backoff;		/* consecutive RTOs */
	u32 stalled_rtos;		/* ... with nothing newly acked */
	/* After an RTO only the oldest packet is resent until a SACK tells
	 * whether the timeout was spurious (below).
	 */
	bool rto_verify;
	u32 rto_resent;			/* resends since that RTO */
	u64 rto_at_ns;
	u64 rto_undone;			/* spurious RTOs detected */

	bool probe_out;
	bool sack_since_probe;
	u64 probe_sent_ns;
#define MPDT_SB_PROBE_ROUNDS		3
	/* Probes that declared losses since something was acknowledged. */
	u8 probe_rounds;
#define MPDT_SB_PROBE_BACKOFF_MAX	32
	/* Probes answered in a row with nothing newly acknowledged: each
	 * doubles the probe interval (the engine's, up to rto-max), as
	 * TCP's keepalive and persist probes back off, until something is
	 * acknowledged.
	 */
	u8 probe_backoff;

	u64 retx[__MPDT_RETX_MAX];	/* packets declared lost, by cause */
	mpdt_sb_lost_fn lost;		/* optional */
	void *lost_ctx;
};

/* Effect of one SACK, for congestion control and the glue. */
struct mpdt_sb_ack {
	u32 acked_pkts;
	u64 acked_bytes;		/* growth of the peer's recv_bytes */
	u32 lost;			/* newly declared lost */
	bool epsn_advanced;
	bool rto_undone;		/* the latest RTO was spurious */
};

enum mpdt_sb_verdict {
	MPDT_SB_OK,
	MPDT_SB_BOGUS,			/* acknowledges PSNs never sent */
};

typedef void (*mpdt_sb_acked_fn)(void *ctx, struct mpdt_sb_pkt *pkt);

/* The times a SACK is judged by, in ns on the caller's clock. */
struct mpdt_sb_clock {
	u64 now;
	u64 base_rtt_ns;		/* a probe's answer is fast below 2x */
	u64 srtt_ns;			/* the OOO detector's reorder window */
};

void mpdt_sb_init(struct mpdt_sb *sb, struct mpdt_sb_pkt *ring, u32 window,
		  u64 now);
/* After mpdt_sb_init(): report every loss to @fn as it is declared. */
static inline void mpdt_sb_report_losses(struct mpdt_sb *sb,
					 mpdt_sb_lost_fn fn, void *ctx)
{
	sb->lost = fn;
	sb->lost_ctx = ctx;
}

static inline bool mpdt_sb_idle(const struct mpdt_sb *sb)
{
	return sb->una == sb->nxt;
}

static inline bool mpdt_sb_window_open(const struct mpdt_sb *sb)
{
	return sb->nxt - sb->una < sb->window;
}

u64 mpdt_sb_inflight(const struct mpdt_sb *sb);
struct mpdt_sb_pkt *mpdt_sb_at(const struct mpdt_sb *sb, u32 psn);
u32 mpdt_sb_record(struct mpdt_sb *sb, void *owner, u32 offset, u16 len,
		   u16 ev, u64 now);
/* The lowest LOST PSN, or false if none. */
bool mpdt_sb_next_lost(struct mpdt_sb *sb, u32 *psn);
void mpdt_sb_resent(struct mpdt_sb *sb, u32 psn, u16 ev, u64 now);
/* Everything @s names lies where the sender has been. */
bool mpdt_sb_sack_is_sane(const struct mpdt_sb *sb, const struct mpdt_sack *s);
/* @ooo_threshold: the congestion window in packets (§3.3.2). */
enum mpdt_sb_verdict mpdt_sb_on_sack(struct mpdt_sb *sb,
				     const struct mpdt_sack *s, bool probe_ack,
				     u32 ooo_threshold,
				     const struct mpdt_sb_clock *clock,
				     mpdt_sb_acked_fn acked, void *ctx,
				     struct mpdt_sb_ack *out);
static inline bool mpdt_sb_tracked(const struct mpdt_sb *sb, u32 psn)
{
	return psn - sb->una < sb->nxt - sb->una;
}

bool mpdt_sb_on_nack(struct mpdt_sb *sb, u32 psn);
void mpdt_sb_on_probe_sent(struct mpdt_sb *sb, u64 now);
/* The peer answered (e.g. NO_BUFFER): it is alive, restart the RTO. */
void mpdt_sb_peer_alive(struct mpdt_sb *sb, u64 now);
u32 mpdt_sb_on_rto(struct mpdt_sb *sb, u64 now);
/* At mpdt_sb_reorder_deadline(): the packets found missing are old
 * enough now; returns how many were declared lost.
 */
u32 mpdt_sb_on_reorder_timer(struct mpdt_sb *sb,
			     const struct mpdt_sb_clock *clock);
/* Deadlines in ns on the caller's clock; 0 when nothing is unacked. */
u64 mpdt_sb_probe_deadline(const struct mpdt_sb *sb, u64 interval_ns);
u64 mpdt_sb_reorder_deadline(const struct mpdt_sb *sb);
u64 mpdt_sb_rto_deadline(const struct mpdt_sb *sb, u64 rto_ns,
			 u64 rto_max_ns);

#endif /* _MPDT_SCOREBOARD_H */
