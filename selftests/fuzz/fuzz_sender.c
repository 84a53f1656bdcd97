// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: two connection engines (engine.c), a sender and a
 * receiver, driven through the engine API only (mpdt_eng_send(),
 * mpdt_eng_on_packet(), mpdt_eng_on_timer(), ...), with every LB and CC of
 * algo.c's registry, over a network the fuzzer runs: it delivers, drops,
 * duplicates, reorders, CE-marks and trims packets, advances the clock,
 * fires the timer (when due, or early), changes parameters, forges SACKs
 * and NACKs, makes the receiving glue run out of memory, runs the
 * receiver's garbage collection (mpdt_eng_rx_expire()), closes the
 * receiving socket (time-wait, gone, or its receiving half only) and
 * opens a new one, and closes the sending socket (which still delivers
 * what it holds).  Every packet
 * crosses mpdt_wire_encode() and mpdt_wire_decode(); a packet older than
 * the quiet time is gone from the network (the protocol's assumption).
 * The harness is only the glue: it owns the messages, the receive slots
 * and the timer, and acts on the engines' ops.
 *
 * Checked as the engines act:
 *  - every DATA: its message queued and not released, its id, length,
 *    offset and size on the message's grid, the scoreboard's record of it,
 *    the EV below the policy's entropies, a flowlet's previous PSN not
 *    after the packet's own, a resend's equal to it; every PROBE asks for
 *    una's segment; SACKs and NACKs carry the receiver's EPSN and nonce;
 *  - no engine call sends more than two windows of DATA, no SACK
 *    acknowledges more than a window of packets;
 *  - the receiver places only bytes of the message they belong to, at the
 *    offset they were sent from, each segment once; delivers a message
 *    only whole, and each at most once per receiving socket; it never
 *    sees a message the sender did not send, an overlap or a mismatch;
 *  - tx_release once per message; a message released as acknowledged was
 *    delivered (unless a forged SACK was accepted, or a new receiving
 *    socket took over mid-incarnation); tx_room after acknowledgements;
 *    failed only with every message released.
 * After each step:
 *  - una <= high_rcvd <= nxt, nxt - una <= window, the packet at una
 *    unacknowledged, every state in [una, nxt) valid;
 *  - lost_pending is the number of LOST packets in [una, nxt), and the
 *    lowest of them is what mpdt_sb_next_lost() finds (unless an RTO
 *    being verified holds them back); bytes_claimed covers their bytes;
 *  - inflight does not underflow: bytes_sent >= bytes_recvd + claimed;
 *  - cwnd in [mss, the CC's largest window];
 *  - the messages' sent and acked counts add up to nxt and to the PSNs
 *    acknowledged, tx_next is the first message with unsent packets;
 *    every loss the scoreboard declared was counted once, by cause;
 *  - an active sender holding messages has its timer armed;
 *    mpdt_eng_holds_nothing() agrees with the glue, at both ends;
 *  - the receiver: EPSN monotonic, ooo_count = the bits set, rx_partial
 *    the messages being assembled.
 * At the end the network turns perfect: every message must then be
 * acknowledged within a bounded number of timer rounds, unless a forged
 * SACK was accepted, the receiver refused the incarnation (stale nonce,
 * closed socket), or a new receiving socket took over; then every
 * message must have been released exactly once.
 */
#include "fuzz.h"
#include "engine.h"

#define WINDOW_MAX	8192U	/* larger rx_window: clamped, see below */
#define MAX_STEPS	2048U
#define MAX_QUEUED	32U	/* messages the sender holds at once */
#define MAX_MSGS	512U	/* messages of one input */
#define MAX_PKTS	4096U	/* packets of all messages of one input */
#define SEG_WORDS	256U	/* mpdt_reasm_words() of 65535 * 16 bytes */
#define RX_SLOTS	64U	/* messages being assembled */
#define NET_MAX		8192U	/* packets in flight each way */
#define DRAIN_ROUNDS	256U
#define DRAIN_EXCUSED	4U	/* rounds when completion is not required */

/* Faults of the receiving glue for one packet (the deliver op's bits). */
#define FAULT_ADMIT	0x08	/* no memory for a new message */
#define FAULT_PROTO	0x10	/* the payload cannot be copied */
#define FAULT_PLACE	0x20	/* no page for the payload */

/* A message being sent; @tag stands for its bytes. */
struct fz_msg {
	struct mpdt_eng_txmsg tx;
	u32 tag;
	bool released, acked, delivered;
	u32 rx_gen;			/* the receiving socket it reached */
};

/* A packet on the wire: its encoded header, UDP payload length, when it
 * was sent and, for DATA, whose bytes it carries from where.
 */
struct fz_wire {
	u8 hdr[MPDT_MAX_HLEN];
	u32 len;
	u32 tag, src_off;
	u64 sent_ns;
};

/* Packets in flight one way: a ring of n from head, oldest first. */
struct fz_net {
	struct fz_wire *pkt;
	u32 head, n;
};

/* What the receiving glue gets for a DATA's payload (input.c's skb). */
struct fz_payload {
	u32 tag, src_off, avail;
};

/* A message being assembled, and which of its packets were placed. */
struct fz_slot {
	struct mpdt_reasm ra;
	u64 segs[SEG_WORDS];
	u64 placed[MAX_PKTS / 64];
	u32 nplaced;
	bool used;
};

static struct mpdt_sb_pkt sb_ring[WINDOW_MAX];
static u64 tx_bits[WINDOW_MAX / 64], rx_bits[WINDOW_MAX / 64];
static struct fz_wire net_bufs[2][NET_MAX];
static struct fz_msg msgs[MAX_MSGS];
static struct fz_slot slots[RX_SLOTS];

static struct conn {
	struct mpdt_params p;		/* the netns parameters, live */
	u64 now;
	bool created;
	struct mpdt_eng tx, rx;		/* the sender's, the receiver's */
	u64 stats[2][__MPDT_STAT_MAX];	/* counted by each */
	const struct mpdt_lb_ops *lb_ops;
	const struct mpdt_cc_ops *cc_ops;
	/* The sender's incarnation. */
	u32 nonce;
	u64 retx_base[__MPDT_RETX_MAX];	/* loss counts at its start */
	u32 sent_done, acked_done;	/* packets of its acked messages */
	bool excused;	/* a forged SACK was accepted, or a new receiver */
	bool refused;	/* the receiver refused one of its packets */
	bool room_due;	/* messages acked, tx_room not called yet */
	/* The messages. */
	u32 nmsgs, nqueued, pkts_queued;
	/* The sender's timer (conn.c's hrtimer). */
	bool armed;
	u64 timer_at;
	/* The receiving socket. */
	bool rx_gone;			/* closed without time-wait */
	u32 held;			/* new DATA since the last flush */
	u32 rx_gen;			/* sockets opened */
	u32 rx_epoch;			/* rx_forget() calls */
	u8 slot_of[MAX_MSGS];		/* message id -> slot + 1 */
	u32 slots_used;
	u8 fault;			/* FAULT_* for this packet */
	u32 snap_epsn, snap_nonce, snap_epoch, snap_gen;
	/* Ever in this input. */
	bool forged_ever, reopened_ever;
	/* The network, each way. */
	struct fz_net to_rx, to_tx;
	/* Per engine call, and the end. */
	u32 burst;
	bool draining, tearing;
	u32 drain_rtos;
} c;

static bool is_tx(const struct mpdt_eng *e)
{
	return e == &c.tx;
}

static struct fz_msg *fz_msg_of(const struct mpdt_eng_txmsg *m)
{
	struct fz_msg *r = container_of(m, struct fz_msg, tx);

	FZ_ASSERT(m && r >= msgs && r < msgs + c.nmsgs,
		  "a message the glue never queued");
	return r;
}

/* The receiver's refusals for good: of a stale nonce, or as no socket.
 * A new nonce it refuses is challenged, and proves itself.
 */
static u64 rx_refusals(void)
{
	const u64 *s = c.stats[1];

	return s[MPDT_STAT_DROP_STALE_NONCE] + s[MPDT_STAT_DROP_NO_SOCKET];
}

/* Packets of the current incarnation the sender's messages acknowledged. */
static u32 tx_acked_total(void)
{
	const struct list_head *n;
	u32 acked = c.acked_done;

	for (n = c.tx.tx_msgs.next; n != &c.tx.tx_msgs; n = n->next)
		acked += list_entry(n, struct mpdt_eng_txmsg, node)->acked;
	return acked;
}

FZ_NOCOV static void check_epsn(void);

/* ---- the wire ---- */

static struct fz_wire *net_at(struct fz_net *net, u32 i)
{
	return &net->pkt[(net->head + i) % NET_MAX];
}

static struct fz_wire *net_put(struct fz_net *net)
{
	/* A full queue drops its oldest packet. */
	if (net->n == NET_MAX) {
		net->head = (net->head + 1) % NET_MAX;
		net->n--;
	}
	return net_at(net, net->n++);
}

/* Take packet @i (the oldest is 0) off the wire; the oldest takes its
 * place (the network reorders anyway), so 0 stays first in, first out.
 */
static void net_take(struct fz_net *net, u32 i, struct fz_wire *w)
{
	*w = *net_at(net, i);
	if (i)
		*net_at(net, i) = *net_at(net, 0);
	net->head = (net->head + 1) % NET_MAX;
	net->n--;
}

/* Packet @i arrives (@how & 1: a copy of it) unless it outlived the
 * network's packet lifetime, the quiet time: an incarnation replaced that
 * long ago may be adopted again, and its duplicates delivered again.
 */
static bool net_get(struct fz_net *net, u32 i, u8 how, struct fz_wire *w)
{
	bool alive = c.now - net_at(net, i)->sent_ns <=
		     mpdt_eng_quiet_ns(&c.p);

	if ((how & 1) && alive)
		*w = *net_at(net, i);
	else
		net_take(net, i, w);
	if (!alive)
		FZ_TRACE("  (expired on the wire)");
	return alive;
}

/* input.c: decode; every packet we encoded must decode. */
static void wire_decode(const struct fz_wire *w, struct mpdt_pkt *pkt)
{
	enum mpdt_wire_err err;

	memset(pkt, 0, sizeof(*pkt));
	err = mpdt_wire_decode(w->hdr, w->len, pkt);
	FZ_ASSERT(err == MPDT_WIRE_OK, "an encoded packet decodes with %d",
		  err);
}

/* output.c: the ports, then the encoder. */
static struct fz_wire *wire_send(struct fz_net *net, struct mpdt_pkt *pkt,
				 bool to_rx)
{
	struct fz_wire *w = net_put(net);

	pkt->hdr.version = MPDT_VERSION;
	pkt->hdr.src_port = to_rx ? 1000 : 2000;
	pkt->hdr.dst_port = to_rx ? 2000 : 1000;
	w->len = mpdt_wire_encode(pkt, w->hdr);
	w->tag = 0;
	w->src_off = 0;
	w->sent_ns = c.now;
	return w;
}

/* ---- the engines' ops: the sending half ---- */

static void check_data(const struct mpdt_pkt *pkt,
		       const struct mpdt_eng_txmsg *m)
{
	const struct mpdt_data *d = &pkt->data;
	const struct mpdt_sb *sb = &c.tx.sb;
	const struct mpdt_sb_pkt *sp = mpdt_sb_at(sb, d->psn);
	struct fz_msg *r = fz_msg_of(m);
	u16 flags = pkt->hdr.flags;

	FZ_ASSERT(!r->released && m->id == d->msg_id && m->len == d->msg_len,
		  "DATA of message %u (len %u) as id %u len %u", m->id,
		  m->len, d->msg_id, d->msg_len);
	FZ_ASSERT(d->offset % m->mss == 0 &&
		  d->payload_len == min(m->mss, m->len - d->offset) &&
		  d->offset / m->mss < m->sent,
		  "message %u: %u bytes at %u, mss %u len %u sent %u", m->id,
		  d->payload_len, d->offset, m->mss, m->len, m->sent);
	FZ_ASSERT(mpdt_sb_tracked(sb, d->psn) && sp->owner == m &&
		  sp->offset == d->offset && sp->len == d->payload_len &&
		  sp->state == MPDT_SB_INFLIGHT && sp->sent_ns == c.now &&
		  d->ts == c.now && sp->ev == pkt->hdr.ev,
		  "PSN %u is not the scoreboard's (una %u nxt %u)", d->psn,
		  sb->una, sb->nxt);
	FZ_ASSERT(++c.burst <= 2 * sb->window, "%u packets sent in a row",
		  c.burst);
	if (flags & MPDT_F_RETX) {
		FZ_ASSERT(d->prev_psn == d->psn && (flags & MPDT_F_AR) &&
			  !(flags & MPDT_F_FLOWLET),
			  "resend of %u: prev %u flags %#x", d->psn,
			  d->prev_psn, flags);
		return;
	}
	FZ_ASSERT(d->psn == sb->nxt - 1, "new PSN %u, nxt %u", d->psn,
		  sb->nxt);
	if (flags & MPDT_F_FLOWLET)
		FZ_ASSERT(!psn_after(d->prev_psn, d->psn),
			  "%s: flowlet prev %u for PSN %u", c.lb_ops->name,
			  d->prev_psn, d->psn);
	else
		FZ_ASSERT(d->prev_psn == d->psn - 1, "prev %u for PSN %u",
			  d->prev_psn, d->psn);
}

static void check_tx_pkt(const struct mpdt_pkt *pkt,
			 const struct mpdt_eng_txmsg *m)
{
	FZ_ASSERT(c.tx.state == MPDT_ENG_ACTIVE && pkt->hdr.nonce == c.nonce,
		  "sent with nonce %u in state %d", pkt->hdr.nonce,
		  c.tx.state);
	FZ_ASSERT(pkt->hdr.ev < c.tx.lb.entropies, "%s chose EV %u of %u",
		  c.lb_ops->name, pkt->hdr.ev, c.tx.lb.entropies);
	if (pkt->hdr.type == MPDT_T_DATA) {
		check_data(pkt, m);
		return;
	}
	FZ_ASSERT(pkt->hdr.type == MPDT_T_PROBE && !m &&
		  pkt->probe.sack_base == c.tx.sb.una &&
		  pkt->probe.ts == c.now,
		  "sender sent type %u base %u", pkt->hdr.type,
		  pkt->probe.sack_base);
}

/* The challenges' cookie (engine.h): keyed by the receiving socket. */
static u64 op_cookie(struct mpdt_eng *e, u32 nonce, u32 replaced, u32 epoch)
{
	u64 z = (c.rx_gen + 1) * 0x9e3779b97f4a7c15ULL ^
		((u64)nonce << 32 | epoch) ^ (u64)replaced << 17;

	FZ_ASSERT(!is_tx(e), "the sender challenges");
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void check_rx_pkt(const struct mpdt_pkt *pkt,
			 const struct mpdt_eng_txmsg *m)
{
	u32 epsn = pkt->hdr.type == MPDT_T_SACK ? pkt->sack.epsn :
		   pkt->nack.epsn;

	FZ_ASSERT(!m && (pkt->hdr.type == MPDT_T_SACK ||
			 pkt->hdr.type == MPDT_T_NACK),
		  "receiver sent type %u", pkt->hdr.type);
	/* A challenge answers a nonce the receiver refused as new. */
	if (pkt->hdr.type == MPDT_T_NACK &&
	    pkt->nack.code == MPDT_NACK_CHALLENGE) {
		FZ_ASSERT(!epsn && pkt->hdr.nonce != c.rx.rx_nonce &&
			  pkt->nack.cookie ==
			  op_cookie(&c.rx, pkt->hdr.nonce, c.rx.rx_nonce,
				    c.now >> MPDT_COOKIE_EPOCH_SHIFT),
			  "challenge of nonce %u epsn %u", pkt->hdr.nonce,
			  epsn);
		return;
	}
	FZ_ASSERT(pkt->hdr.nonce == c.rx.rx_nonce && epsn == c.rx.rx.epsn,
		  "answer with nonce %u EPSN %u, receiver's %u and %u",
		  pkt->hdr.nonce, epsn, c.rx.rx_nonce, c.rx.rx.epsn);
}

static void op_xmit(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		    const struct mpdt_eng_txmsg *m)
{
	struct mpdt_pkt h = *pkt;
	struct fz_wire *w;

	FZ_ASSERT(e->now == c.now, "engine time %llu, now %llu",
		  (unsigned long long)e->now, (unsigned long long)c.now);
	if (!is_tx(e)) {
		check_rx_pkt(pkt, m);
		FZ_TRACE("  rx sends %s epsn %u", pkt->hdr.type == MPDT_T_SACK ?
			 "SACK" : "NACK", pkt->sack.epsn);
		wire_send(&c.to_tx, &h, false);
		return;
	}
	check_tx_pkt(pkt, m);
	w = wire_send(&c.to_rx, &h, true);
	c.held += pkt->hdr.type == MPDT_T_DATA &&
		  !(pkt->hdr.flags & MPDT_F_RETX);
	if (pkt->hdr.type != MPDT_T_DATA) {
		FZ_TRACE("  tx PROBE base %u ev %u", pkt->probe.sack_base,
			 pkt->hdr.ev);
		return;
	}
	FZ_TRACE("  tx DATA psn %u msg %u off %u len %u ev %u flags %#x prev %u",
		 pkt->data.psn, pkt->data.msg_id, pkt->data.offset,
		 pkt->data.payload_len, pkt->hdr.ev, pkt->hdr.flags,
		 pkt->data.prev_psn);
	w->len += pkt->data.payload_len;
	w->tag = fz_msg_of(m)->tag;
	w->src_off = pkt->data.offset;
}

/* tx.c: a timer already set to fire no later is left alone. */
static void op_arm_timer(struct mpdt_eng *e, u64 when)
{
	FZ_ASSERT(is_tx(e) && when, "receiver arms its timer, or for 0");
	if (c.armed && c.timer_at <= when)
		return;
	c.armed = true;
	c.timer_at = when;
}

static void op_count(struct mpdt_eng *e, enum mpdt_stat s, u64 n)
{
	FZ_ASSERT(s > MPDT_STAT_PAD && s < __MPDT_STAT_MAX && n, "stat %d",
		  s);
	c.stats[!is_tx(e)][s] += n;
	if (is_tx(e)) {
		c.drain_rtos += c.draining && s == MPDT_STAT_RTO;
		return;
	}
	/* An honest sender's packets never overlap, nor change length. */
	FZ_ASSERT(s != MPDT_STAT_DROP_OVERLAP && s != MPDT_STAT_DROP_MSG_MISMATCH,
		  "receiver dropped a DATA: stat %d", s);
	FZ_ASSERT(s != MPDT_STAT_DROP_OUT_OF_WINDOW || c.forged_ever ||
		  c.reopened_ever, "DATA out of the receiver's window");
}

static void op_tx_release(struct mpdt_eng *e, struct mpdt_eng_txmsg *m)
{
	struct fz_msg *r = fz_msg_of(m);

	FZ_ASSERT(is_tx(e) && !r->released, "message %u released twice",
		  m->id);
	r->released = true;
	c.nqueued--;
	/* Acknowledged, unless the peer failed or the connection goes. */
	r->acked = e->state == MPDT_ENG_ACTIVE && !c.tearing;
	FZ_TRACE("  release message %u%s", m->id, r->acked ? ", acked" : "");
	if (!r->acked)
		return;
	FZ_ASSERT(m->sent == m->npkts && m->acked == m->npkts,
		  "message %u done with %u of %u sent, %u acked", m->id,
		  m->sent, m->npkts, m->acked);
	FZ_ASSERT(r->delivered || c.excused,
		  "message %u acknowledged, never delivered", m->id);
	c.sent_done += m->npkts;
	c.acked_done += m->npkts;
	c.room_due = true;
}

static void op_tx_room(struct mpdt_eng *e)
{
	FZ_ASSERT(is_tx(e) && c.room_due, "tx_room with nothing acked");
	c.room_due = false;
}

static void op_failed(struct mpdt_eng *e)
{
	FZ_ASSERT(is_tx(e) && e->state == MPDT_ENG_FAILED &&
		  list_empty(&e->tx_msgs) && !e->msgs_inflight,
		  "failed holding messages");
	FZ_TRACE("  peer failed");
	c.armed = false;	/* hrtimer_try_to_cancel() */
	/* On a perfect network the first RTO's resends are acked: a second
	 * RTO with nothing acked fails a peer that answers.
	 */
	FZ_ASSERT(!c.draining || c.excused || c.refused || c.drain_rtos < 2 ||
		  e->sb.stalled_rtos < 2,
		  "peer failed on a perfect network: una %u nxt %u lost %u "
		  "scan %u, peer EPSN %u", e->sb.una, e->sb.nxt,
		  e->sb.lost_pending, e->sb.lost_scan, c.rx.rx.epsn);
}

/* ---- the engines' ops: the receiving half ---- */

static struct mpdt_reasm *op_rx_find(struct mpdt_eng *e, u32 id)
{
	FZ_ASSERT(!is_tx(e), "the sender assembles a message");
	if (id >= MAX_MSGS || !c.slot_of[id])
		return NULL;
	return &slots[c.slot_of[id] - 1].ra;
}

static struct mpdt_reasm *op_rx_admit(struct mpdt_eng *e,
				      const struct mpdt_data *d)
{
	const struct fz_msg *r;
	struct fz_slot *s;
	u32 i;

	FZ_ASSERT(!is_tx(e) && d->msg_id < c.nmsgs &&
		  msgs[d->msg_id].tx.len == d->msg_len &&
		  !c.slot_of[d->msg_id] &&
		  mpdt_reasm_words(d->msg_len) <= SEG_WORDS,
		  "admitting message %u of %u bytes", d->msg_id, d->msg_len);
	r = &msgs[d->msg_id];
	if (c.fault & FAULT_ADMIT)
		return NULL;
	for (i = 0; i < RX_SLOTS && slots[i].used; i++)
		;
	/* The sender holds at most MAX_QUEUED messages, so only a lying SACK
	 * (which released messages the receiver is still assembling) fills
	 * every slot.  Those partial messages wait for the expiry timer;
	 * until then the receive buffer is full (rx.c rxmsg_room()).
	 */
	if (i == RX_SLOTS) {
		FZ_ASSERT(c.forged_ever, "%u messages being assembled", i);
		return NULL;
	}
	s = &slots[i];
	mpdt_reasm_init(&s->ra, d->msg_id, d->msg_len, s->segs);
	memset(s->segs, 0, mpdt_reasm_words(d->msg_len) * sizeof(u64));
	memset(s->placed, 0, DIV_ROUND_UP(r->tx.npkts, 64) * sizeof(u64));
	s->nplaced = 0;
	s->used = true;
	c.slot_of[d->msg_id] = i + 1;
	c.slots_used++;
	return &s->ra;
}

/* rx.c: copy the payload, or say why not. */
static int op_rx_place(struct mpdt_eng *e, struct mpdt_reasm *ra,
		       const struct mpdt_data *d, const void *payload)
{
	struct fz_slot *s = container_of(ra, struct fz_slot, ra);
	const struct fz_payload *pl = payload;
	const struct fz_msg *r = &msgs[ra->id];
	u32 i;

	FZ_ASSERT(!is_tx(e) && s->used && ra->id == d->msg_id &&
		  ra->len == d->msg_len, "placing message %u into %u",
		  d->msg_id, ra->id);
	if (pl->avail < d->payload_len || (c.fault & FAULT_PROTO))
		return -EPROTO;
	if (c.fault & FAULT_PLACE)
		return -ENOBUFS;
	FZ_ASSERT(pl->tag == r->tag && pl->src_off == d->offset,
		  "message %u at %u: bytes of tag %#x from %u", ra->id,
		  d->offset, pl->tag, pl->src_off);
	i = d->offset / r->tx.mss;
	FZ_ASSERT(d->offset % r->tx.mss == 0 && i < r->tx.npkts &&
		  d->payload_len == min(r->tx.mss, r->tx.len - d->offset),
		  "message %u: %u bytes at %u placed", ra->id, d->payload_len,
		  d->offset);
	FZ_ASSERT(!(s->placed[i / 64] & BIT_ULL(i % 64)),
		  "message %u: bytes at %u placed twice", ra->id, d->offset);
	s->placed[i / 64] |= BIT_ULL(i % 64);
	s->nplaced++;
	return 0;
}

static void slot_free(struct fz_slot *s)
{
	c.slot_of[s->ra.id] = 0;
	s->used = false;
	c.slots_used--;
}

static void op_rx_deliver(struct mpdt_eng *e, struct mpdt_reasm *ra)
{
	struct fz_slot *s = container_of(ra, struct fz_slot, ra);
	struct fz_msg *r = &msgs[ra->id];

	FZ_ASSERT(!is_tx(e) && s->used && ra->rcvd == ra->len &&
		  s->nplaced == r->tx.npkts,
		  "message %u delivered with %u of %u packets", ra->id,
		  s->nplaced, r->tx.npkts);
	FZ_ASSERT(!r->delivered || r->rx_gen != c.rx_gen,
		  "message %u delivered twice", ra->id);
	FZ_TRACE("  deliver message %u", ra->id);
	r->delivered = true;
	r->rx_gen = c.rx_gen;
	slot_free(s);
}

static void op_rx_forget(struct mpdt_eng *e)
{
	u32 i;

	if (is_tx(e))
		return;
	c.rx_epoch++;
	for (i = 0; i < RX_SLOTS; i++)
		if (slots[i].used)
			slot_free(&slots[i]);
}

/* A burst ends: the glue sends what it held. */
static void op_flush(struct mpdt_eng *e)
{
	FZ_ASSERT(is_tx(e), "the receiver flushes DATA");
	c.held = 0;
}

static const struct mpdt_eng_ops fz_ops = {
	.xmit		= op_xmit,
	.flush		= op_flush,
	.arm_timer	= op_arm_timer,
	.count		= op_count,
	.tx_release	= op_tx_release,
	.tx_room	= op_tx_room,
	.failed		= op_failed,
	.rx_find	= op_rx_find,
	.rx_admit	= op_rx_admit,
	.rx_place	= op_rx_place,
	.rx_deliver	= op_rx_deliver,
	.rx_forget	= op_rx_forget,
	.cookie		= op_cookie,
};

/* ---- the glue: connections, messages, the timer ---- */

/* conn.c mpdt_conn_create(): the receiving half sized now.  The
 * receiver's engine never sends a message: no policy, no CC.
 */
static void rx_open(void)
{
	memset(&c.rx, 0, sizeof(c.rx));
	mpdt_eng_init(&c.rx, &fz_ops, &c.p, rx_bits, c.p.rx_window, c.now);
	c.rx_gen++;
	c.rx_gone = false;
}

static void create(void)
{
	struct mpdt_lb *lb = &c.tx.lb;
	struct mpdt_cc *cc = &c.tx.cc;

	c.created = true;
	mpdt_eng_init(&c.tx, &fz_ops, &c.p, tx_bits, c.p.rx_window, c.now);
	lb->ops = c.lb_ops;
	lb->entropies = c.p.entropies;
	lb->priv_len = c.lb_ops->priv_size ? c.lb_ops->priv_size(&c.p) : 0;
	lb->priv = lb->priv_len ? calloc(1, lb->priv_len) : NULL;
	cc->ops = c.cc_ops;
	cc->priv = c.cc_ops->priv_size ? calloc(1, c.cc_ops->priv_size) : NULL;
	rx_open();
}

/* tx.c tx_start(): a new incarnation of the sending half. */
static void start(void)
{
	c.nonce++;
	FZ_TRACE("  new incarnation %u", c.nonce);
	mpdt_eng_start(&c.tx, sb_ring, c.nonce,
		       c.nonce * 0x9e3779b97f4a7c15ULL, c.now);
	memcpy(c.retx_base, &c.stats[0][MPDT_STAT_RETX_OOO],
	       sizeof(c.retx_base));
	c.sent_done = 0;
	c.acked_done = 0;
	c.excused = false;
	c.refused = false;
}

/* The CC's largest window, from the parameters the engine last scaled it
 * with (eng->eff: configured, or the measured path).
 */
static u64 cwnd_max(void)
{
	const struct mpdt_params *p = &c.tx.eff;
	const char *name = c.cc_ops->name;
	struct mpdt_strack_consts sk;
	struct mpdt_smartt_consts mk;
	u32 mss = c.tx.cc.mss;

	if (!strcmp(name, "fixed"))
		return clamp(p->fixed_cwnd ? p->fixed_cwnd : mpdt_bdp(p),
			     (u64)mss, 0x7fffffffULL);
	if (!strcmp(name, "strack")) {
		mpdt_strack_consts(p, mss, &sk);
		return sk.max_cwnd;
	}
	if (!strcmp(name, "smartt")) {
		mpdt_smartt_consts(p, mss, &mk);
		return mk.max_cwnd;
	}
	if (!strcmp(name, "mcc"))
		return mpdt_cc_max_cwnd(p, p->mcc_max_cwnd_pct, mss);
	return 0x7fffffff;
}

/* socket.c and tx.c: queue a message, start an incarnation if needed.
 * The engine cuts it with the incarnation's payload size.
 */
static void queue_msg(u32 len)
{
	bool fresh;
	struct fz_msg *r;
	u32 mss, npkts;

	if (!c.created)
		create();
	if (c.tx.rx_closed)
		return;
	fresh = mpdt_eng_needs_start(&c.tx, c.now);
	mss = fresh ? c.p.payload : c.tx.cc.mss;
	npkts = max(1U, DIV_ROUND_UP(len, mss));
	if (c.nqueued == MAX_QUEUED || c.nmsgs == MAX_MSGS ||
	    c.pkts_queued + npkts > MAX_PKTS)
		return;
	c.pkts_queued += npkts;
	r = &msgs[c.nmsgs++];
	memset(r, 0, sizeof(*r));
	r->tx.len = len;
	r->tag = c.nmsgs * 0x9e3779b1U;
	c.nqueued++;
	FZ_TRACE("queue message %u of %u bytes, %u packets of %u",
		 c.nmsgs - 1, len, npkts, mss);
	if (fresh)
		start();
	c.burst = 0;
	mpdt_eng_send(&c.tx, &r->tx, c.now);
	FZ_ASSERT(r->tx.id == c.nmsgs - 1 && r->tx.mss == mss &&
		  r->tx.npkts == npkts, "message %u: id %u, %u packets of %u",
		  c.nmsgs - 1, r->tx.id, r->tx.npkts, r->tx.mss);
}

/* The hrtimer fires when it is due (@wait: the clock moves there), or
 * early (it may: the engine then finds nothing due).  A pause (NO_BUFFER)
 * outlasts many probe intervals: in the drain the timer may fire late,
 * at its end.
 */
static void fire_timer(bool wait)
{
	if (!c.armed)
		return;
	if (wait)
		c.now = max(c.now, c.timer_at);
	if (c.draining)
		c.now = max(c.now, c.tx.pause_until);
	FZ_TRACE(" hrtimer at %llu (armed for %llu)",
		 (unsigned long long)c.now, (unsigned long long)c.timer_at);
	c.armed = false;
	c.burst = 0;
	mpdt_eng_on_timer(&c.tx, c.now);
}

/* ---- the network ---- */

/* Packet @i towards the receiver arrives: @how & 1 a copy of it, 2
 * trimmed, 4 CE-marked, FAULT_* what the receiving glue fails at.
 */
static void deliver_to_rx(u32 i, u8 how)
{
	struct fz_payload pl;
	struct fz_wire w;
	struct mpdt_pkt pkt;
	u64 refused = rx_refusals();

	if (!net_get(&c.to_rx, i, how, &w))
		return;
	wire_decode(&w, &pkt);
	if (pkt.hdr.type == MPDT_T_DATA && (how & 2)) {
		/* A trimming switch: flag set, payload (partly) cut. */
		w.hdr[3] |= MPDT_F_TRIMMED;
		w.len = MPDT_DATA_HLEN + pkt.data.payload_len / 2;
		wire_decode(&w, &pkt);
	}
	FZ_TRACE("deliver %s psn %u nonce %u to rx%s%s%s fault %#x (EPSN %u)",
		 pkt.hdr.type == MPDT_T_PROBE ? "PROBE" : "DATA",
		 pkt.hdr.type == MPDT_T_PROBE ? pkt.probe.sack_base :
		 pkt.data.psn, pkt.hdr.nonce, how & 1 ? " dup" : "",
		 how & 2 ? " trimmed" : "", how & 4 ? " ce" : "",
		 how & (FAULT_ADMIT | FAULT_PROTO | FAULT_PLACE), c.rx.rx.epsn);
	if (c.rx_gone) {
		refused++;	/* no socket */
	} else {
		pl = (struct fz_payload){ w.tag, w.src_off, pkt.payload_avail };
		c.fault = how & (FAULT_ADMIT | FAULT_PROTO | FAULT_PLACE);
		mpdt_eng_on_packet(&c.rx, &pkt, how & 4, &pl, c.now);
		c.fault = 0;
		check_epsn();
	}
	if (rx_refusals() != refused && pkt.hdr.nonce == c.nonce &&
	    c.tx.state == MPDT_ENG_ACTIVE)
		c.refused = true;
}

/* A SACK or NACK arrives at the sender; @forged: no receiver built it. */
static void tx_receives(struct mpdt_pkt *pkt, bool ce, bool forged)
{
	const struct mpdt_sb *sb = &c.tx.sb;
	const struct mpdt_sack *s = &pkt->sack;
	bool current = c.tx.state == MPDT_ENG_ACTIVE &&
		       pkt->hdr.nonce == c.nonce;
	u64 sacks = c.tx.sacks_rcvd;
	u32 acked = current ? tx_acked_total() : 0;
	bool lie;

	if (pkt->hdr.type == MPDT_T_SACK) {
		FZ_TRACE("  SACK%s nonce %u epsn %u base %u bitmap %#llx "
			 "recv %llu ooo %u ce %u flags %#x",
			 forged ? " (forged)" : "", pkt->hdr.nonce, s->epsn,
			 s->sack_base, (unsigned long long)s->bitmap,
			 (unsigned long long)s->recv_bytes, s->ooo_count,
			 s->ce_count, pkt->hdr.flags);
		/* The receiver's SACKs make sense, unless a window late. */
		FZ_ASSERT(forged || !current || mpdt_sb_sack_is_sane(sb, s) ||
			  psn_before(s->epsn, sb->una - sb->window),
			  "the receiver's SACK is bogus: una %u nxt %u sent %llu",
			  sb->una, sb->nxt,
			  (unsigned long long)sb->bytes_sent);
	} else {
		FZ_TRACE("  NACK%s psn %u code %u", forged ? " (forged)" : "",
			 pkt->nack.psn, pkt->nack.code);
	}
	/* A forged SACK the engine takes may lie about what arrived. */
	lie = forged && pkt->hdr.type == MPDT_T_SACK && current &&
	      mpdt_sb_sack_is_sane(sb, s);
	if (lie) {
		c.excused = true;
		c.forged_ever = true;
	}
	c.burst = 0;
	mpdt_eng_on_packet(&c.tx, pkt, ce, NULL, c.now);
	FZ_TRACE("   -> una %u nxt %u lost %u sent %llu recvd %llu claimed %llu cwnd %u",
		 sb->una, sb->nxt, sb->lost_pending,
		 (unsigned long long)sb->bytes_sent,
		 (unsigned long long)sb->bytes_recvd,
		 (unsigned long long)sb->bytes_claimed, c.tx.cc.cwnd);
	FZ_ASSERT(!c.room_due, "messages acked, no tx_room");
	FZ_ASSERT(!forged || pkt->hdr.type != MPDT_T_SACK ||
		  lie == (c.tx.sacks_rcvd != sacks),
		  "forged SACK taken %d, expected %d",
		  c.tx.sacks_rcvd != sacks, lie);
	if (current && c.tx.state == MPDT_ENG_ACTIVE)
		FZ_ASSERT(tx_acked_total() - acked <= sb->window,
			  "one SACK acked %u packets", tx_acked_total() - acked);
}

static void deliver_to_tx(u32 i, u8 how)
{
	struct fz_wire w;
	struct mpdt_pkt pkt;

	if (!net_get(&c.to_tx, i, how, &w))
		return;
	wire_decode(&w, &pkt);
	tx_receives(&pkt, how & 4, false);
}

static void common(struct mpdt_pkt *pkt, u8 type, u16 flags, u32 nonce,
		   u16 ev)
{
	pkt->hdr.version = MPDT_VERSION;
	pkt->hdr.type = type;
	pkt->hdr.flags = flags;
	pkt->hdr.src_port = 2000;
	pkt->hdr.dst_port = 1000;
	pkt->hdr.nonce = nonce;
	pkt->hdr.ev = ev;
}

/* A forged packet crosses the wire too. */
static void forged_arrives(struct mpdt_pkt *pkt, bool ce)
{
	struct fz_wire w;

	w.len = mpdt_wire_encode(pkt, w.hdr);
	wire_decode(&w, pkt);
	tx_receives(pkt, ce, true);
}

/* A SACK nobody's receiver built: plausible (near the state) or raw. */
static void forge_sack(struct fz_in *in)
{
	struct mpdt_pkt pkt = {};
	struct mpdt_sack *s = &pkt.sack;
	u8 how = fz_u8(in);
	u32 una = c.tx.sb.una, nxt = c.tx.sb.nxt;

	common(&pkt, MPDT_T_SACK, how & 0x80 ? MPDT_F_PROBE_ACK : 0,
	       how & 0x40 ? fz_u32(in) : c.nonce, fz_u16(in));
	/* EPSN near una, near nxt, or anywhere; the base a segment or a
	 * PSN after it, half the PSN space away, or anywhere.
	 */
	switch (how & 3) {
	case 0:
		s->epsn = una + fz_u8(in) % 128;
		break;
	case 1:
		s->epsn = nxt - fz_u8(in) % 16;
		break;
	default:
		s->epsn = fz_u32(in);
	}
	switch (how >> 2 & 3) {
	case 0:
		s->sack_base = s->epsn + (fz_u8(in) & 0x3f) * 64;
		break;
	case 1:
		s->sack_base = s->epsn + fz_u8(in);
		break;
	case 2:
		s->sack_base = nxt + 0x80000000U - fz_u8(in);
		break;
	default:
		s->sack_base = fz_u32(in);
	}
	s->bitmap = how & 0x10 ? fz_u64(in) : fz_u8(in);
	s->recv_bytes = how & 0x20 ? fz_u64(in) :
			c.tx.sb.bytes_recvd + fz_u16(in);
	s->echo_ts = fz_u8(in) & 1 ? fz_u64(in) : c.now - fz_u16(in) * 1000ULL;
	s->ooo_count = fz_u8(in) & 1 ? fz_u32(in) : fz_u8(in);
	s->ce_count = fz_u8(in);
	if (s->ce_count & 1)
		pkt.hdr.flags |= MPDT_F_CE;
	forged_arrives(&pkt, s->ce_count & 2);
}

static void forge_nack(struct fz_in *in)
{
	struct mpdt_pkt pkt = {};
	u8 how = fz_u8(in);

	common(&pkt, MPDT_T_NACK, how & 0x10 ? MPDT_F_CE : 0,
	       how & 0x20 ? fz_u32(in) : c.nonce, fz_u16(in));
	pkt.nack.psn = how & 1 ? fz_u32(in) : c.tx.sb.una + fz_u8(in);
	pkt.nack.code = 1 + (how >> 1) % 3;
	pkt.nack.epsn = fz_u32(in);
	pkt.nack.echo_ts = c.now - fz_u16(in);
	forged_arrives(&pkt, false);
}

/* ---- the receiving socket ---- */

/* conn.c mpdt_conn_gc(): partial messages of a silent sender go. */
static void rx_gc(void)
{
	if (c.rx_gone)
		return;
	if (mpdt_eng_rx_expire(&c.rx, c.now))
		FZ_TRACE("  receiver expired incarnation %u", c.rx.rx_nonce);
}

/* close.c: close() enters time-wait if the peer may still wait for a
 * SACK, else the connection goes with the socket.  @draining: the socket
 * still had messages to deliver (it sends none here, but the engine
 * cannot tell): its receiving half closes, the connection stays.
 */
static void rx_close(bool draining)
{
	if (c.rx_gone || c.rx.rx_closed)
		return;
	if (draining) {
		FZ_TRACE("receiver closes: its receiving half");
		mpdt_eng_close_rx(&c.rx);
	} else if (mpdt_eng_peer_may_wait(&c.rx, c.now)) {
		FZ_TRACE("receiver closes: time-wait");
		mpdt_eng_time_wait(&c.rx);
	} else {
		FZ_TRACE("receiver closes");
		mpdt_eng_release(&c.rx);
		c.rx_gone = true;
	}
	FZ_ASSERT(!c.slots_used, "closed holding %u messages", c.slots_used);
}

/* A new socket binds the port: a fresh connection, which adopts whatever
 * incarnation it hears first, mid-stream.
 */
static void rx_reopen(void)
{
	if (!c.rx_gone && !c.rx.rx_closed)
		return;
	FZ_TRACE("receiver reopens");
	if (!c.rx_gone)
		mpdt_eng_release(&c.rx);
	rx_open();
	c.excused = true;
	c.reopened_ever = true;
}

/* The sending socket closes: its messages are still delivered, in the
 * background; no more come.
 */
static void tx_close(void)
{
	if (c.tx.rx_closed)
		return;
	FZ_TRACE("sender closes");
	mpdt_eng_close_rx(&c.tx);
}

/* ---- invariants ---- */

/* The messages' counts against the scoreboard's; returns the packets
 * they say were acknowledged in this incarnation.
 */
FZ_NOCOV static u32 check_msgs(void)
{
	const struct mpdt_eng_txmsg *m;
	const struct list_head *n;
	u32 count = 0, sent = c.sent_done, acked = c.acked_done;
	bool past_next = false;

	for (n = c.tx.tx_msgs.next; n != &c.tx.tx_msgs; n = n->next) {
		m = list_entry(n, struct mpdt_eng_txmsg, node);
		FZ_ASSERT(!fz_msg_of(m)->released && m->acked <= m->sent &&
			  m->sent <= m->npkts && m->acked < m->npkts,
			  "message %u: %u of %u sent, %u acked", m->id,
			  m->sent, m->npkts, m->acked);
		/* Sent whole before tx_next, not at all after it. */
		if (m == c.tx.tx_next) {
			past_next = true;
			FZ_ASSERT(m->sent < m->npkts, "tx_next %u all sent",
				  m->id);
		} else {
			FZ_ASSERT(past_next ? !m->sent : m->sent == m->npkts,
				  "message %u: %u of %u sent, before tx_next %d",
				  m->id, m->sent, m->npkts, !past_next);
		}
		count++;
		sent += m->sent;
		acked += m->acked;
	}
	FZ_ASSERT(count == c.nqueued && count == c.tx.msgs_inflight &&
		  (past_next || !c.tx.tx_next),
		  "%u messages queued, %u glue, %u engine", count, c.nqueued,
		  c.tx.msgs_inflight);
	if (c.tx.state == MPDT_ENG_ACTIVE && count)
		FZ_ASSERT(c.armed, "messages queued, no timer armed");
	if (c.tx.state == MPDT_ENG_ACTIVE)
		FZ_ASSERT(sent == c.tx.sb.nxt,
			  "messages sent %u packets, nxt %u", sent,
			  c.tx.sb.nxt);
	return acked;
}

FZ_NOCOV static void check_sender(void)
{
	const struct mpdt_sb *sb = &c.tx.sb;
	u32 psn, lost = 0, first = 0, acked = 0, msgs_acked, i;
	u64 claimed = 0, max;
	struct mpdt_sb copy;

	msgs_acked = check_msgs();
	if (c.tx.state != MPDT_ENG_ACTIVE)
		return;
	FZ_ASSERT(sb->nxt - sb->una <= sb->window, "una %u nxt %u", sb->una,
		  sb->nxt);
	FZ_ASSERT(sb->high_rcvd - sb->una <= sb->nxt - sb->una,
		  "high_rcvd %u outside una %u .. nxt %u", sb->high_rcvd,
		  sb->una, sb->nxt);
	for (psn = sb->una; psn != sb->nxt; psn++) {
		const struct mpdt_sb_pkt *p = &sb->ring[psn & (sb->window - 1)];

		FZ_ASSERT(p->state >= MPDT_SB_INFLIGHT &&
			  p->state <= MPDT_SB_LOST, "PSN %u state %u", psn,
			  p->state);
		if (p->state == MPDT_SB_LOST) {
			if (!lost++)
				first = psn;
			claimed += p->len;
		}
		acked += p->state == MPDT_SB_ACKED;
	}
	FZ_ASSERT(msgs_acked == sb->una + acked,
		  "messages acked %u packets, una %u + %u", msgs_acked,
		  sb->una, acked);
	FZ_ASSERT(sb->una == sb->nxt ||
		  mpdt_sb_at(sb, sb->una)->state != MPDT_SB_ACKED,
		  "una %u is acknowledged", sb->una);
	FZ_ASSERT(sb->lost_pending == lost, "lost_pending %u, %u LOST",
		  sb->lost_pending, lost);
	/* A resend keeps its claim (eq. 2 counts the transmission again);
	 * only a lost packet acknowledged after all gives it back.
	 */
	FZ_ASSERT(sb->bytes_claimed >= claimed, "bytes_claimed %llu < %llu",
		  (unsigned long long)sb->bytes_claimed,
		  (unsigned long long)claimed);
	/* Double claims (see mpdt_sb_inflight()) exceed sent by at most the
	 * bytes of the LOST packets, which their resends give back.  A forged
	 * SACK that lied about Received Bytes can do more.
	 */
	FZ_ASSERT(c.forged_ever ||
		  sb->bytes_sent + claimed >= sb->bytes_recvd + sb->bytes_claimed,
		  "claims beyond the LOST bytes: sent %llu + LOST %llu < recvd %llu + claimed %llu",
		  (unsigned long long)sb->bytes_sent,
		  (unsigned long long)claimed,
		  (unsigned long long)sb->bytes_recvd,
		  (unsigned long long)sb->bytes_claimed);
	/* The lowest LOST packet is the next resent, unless an RTO being
	 * verified holds its losses back after the first resend.
	 */
	copy = *sb;
	if (mpdt_sb_next_lost(&copy, &psn))
		FZ_ASSERT(lost && psn == first,
			  "next_lost gave PSN %u, lowest LOST %u (una %u scan %u)",
			  psn, first, sb->una, sb->lost_scan);
	else
		FZ_ASSERT(!lost || (sb->rto_verify && sb->rto_resent),
			  "%u LOST but next_lost finds none (scan %u, una %u)",
			  lost, sb->lost_scan, sb->una);
	/* Every loss declared was counted once, by its cause. */
	for (i = 0; i < __MPDT_RETX_MAX; i++)
		FZ_ASSERT(c.stats[0][MPDT_STAT_RETX_OOO + i] - c.retx_base[i] ==
			  sb->retx[i], "cause %u: %llu losses counted, %llu declared",
			  i, (unsigned long long)(c.stats[0][MPDT_STAT_RETX_OOO + i] -
						 c.retx_base[i]),
			  (unsigned long long)sb->retx[i]);
	max = cwnd_max();
	FZ_ASSERT(c.tx.cc.cwnd >= c.tx.cc.mss && c.tx.cc.cwnd <= max,
		  "%s cwnd %u outside [%u, %llu]", c.cc_ops->name,
		  c.tx.cc.cwnd, c.tx.cc.mss, (unsigned long long)max);
}

/* EPSN monotonic while the receiver keeps an incarnation: after each
 * packet it takes.
 */
FZ_NOCOV static void check_epsn(void)
{
	const struct mpdt_rx *rx = &c.rx.rx;

	if (c.snap_nonce == c.rx.rx_nonce && c.snap_epoch == c.rx_epoch &&
	    c.snap_gen == c.rx_gen)
		FZ_ASSERT(!psn_before(rx->epsn, c.snap_epsn) &&
			  rx->epsn - c.snap_epsn <= rx->window,
			  "EPSN %u -> %u", c.snap_epsn, rx->epsn);
	c.snap_epsn = rx->epsn;
	c.snap_nonce = c.rx.rx_nonce;
	c.snap_epoch = c.rx_epoch;
	c.snap_gen = c.rx_gen;
}

/* ooo_count the bits set, rx_partial the slots in use. */
FZ_NOCOV static void check_receiver(void)
{
	const struct mpdt_rx *rx = &c.rx.rx;
	u32 i, bits = 0;

	if (c.rx_gone)
		return;
	FZ_ASSERT(c.rx.rx_partial == c.slots_used,
		  "rx_partial %u, %u messages being assembled",
		  c.rx.rx_partial, c.slots_used);
	for (i = 0; i < rx->window / 64; i++)
		bits += __builtin_popcountll(rx->bits[i]);
	FZ_ASSERT(rx->ooo_count == bits, "ooo_count %u, %u bits",
		  rx->ooo_count, bits);
}

FZ_NOCOV static void check(void)
{
	FZ_ASSERT(!c.held, "%u DATA held after the engine returned", c.held);
	if (!c.created)
		return;
	check_sender();
	check_receiver();
	FZ_ASSERT(mpdt_eng_holds_nothing(&c.tx) == !c.nqueued &&
		  mpdt_eng_holds_nothing(&c.rx) == !c.slots_used,
		  "holds_nothing with %u queued, %u assembled", c.nqueued,
		  c.slots_used);
}

/* ---- the run ---- */

/* Is everything queued acknowledged (or released by a failure)? */
static bool all_done(void)
{
	return !c.created || c.tx.state != MPDT_ENG_ACTIVE ||
	       list_empty(&c.tx.tx_msgs);
}

/* A perfect network from now on: everything arrives, in order, at once;
 * time moves only to the next timer.  Liveness: every message completes
 * within a bounded number of timer rounds.
 */
static void drain(void)
{
	u32 round, hops;

	c.draining = true;
	FZ_TRACE("drain");
	for (round = 0; round < DRAIN_ROUNDS && !all_done(); round++) {
		/* Nothing to prove: a few rounds toward the failure. */
		if ((c.excused || c.refused) && round >= DRAIN_EXCUSED)
			break;
		for (hops = 0; c.to_rx.n || c.to_tx.n; hops++) {
			FZ_ASSERT(hops < 64 * MAX_PKTS, "no quiescence");
			if (c.to_rx.n)
				deliver_to_rx(0, 0);
			else
				deliver_to_tx(0, 0);
			if (!(hops % 64))
				check();
		}
		check();
		if (all_done())
			break;
		rx_gc();
		fire_timer(true);
		check();
	}
	if (!c.created || c.excused || c.refused)
		return;
	FZ_ASSERT(all_done(), "%u messages not acknowledged after %u rounds: "
		  "una %u nxt %u lost %u scan %u, peer EPSN %u",
		  c.nqueued, round, c.tx.sb.una, c.tx.sb.nxt,
		  c.tx.sb.lost_pending, c.tx.sb.lost_scan, c.rx.rx.epsn);
}

/* mpdt_conn_destroy(), both ends: every message released, once. */
static void teardown(void)
{
	u32 i;

	if (!c.created)
		return;
	c.tearing = true;
	mpdt_eng_release(&c.tx);
	mpdt_eng_release(&c.rx);
	for (i = 0; i < c.nmsgs; i++)
		FZ_ASSERT(msgs[i].released, "message %u never released", i);
	FZ_ASSERT(!c.nqueued && !c.slots_used, "%u queued, %u assembled",
		  c.nqueued, c.slots_used);
	free(c.tx.lb.priv);
	free(c.tx.cc.priv);
}

static u32 algo_count(bool lb)
{
	u32 n = 0;

	while (lb ? !!mpdt_lb_at(n) : !!mpdt_cc_at(n))
		n++;
	return n;
}

/* A parameter set from the fuzzer.  A window beyond WINDOW_MAX behaves
 * like it for the MAX_PKTS packets of an input (the ring never wraps),
 * and would only cost a larger ring to clear at each start.
 */
static void set_params(struct fz_in *in, const struct mpdt_params *base)
{
	struct mpdt_params t;

	fz_params(in, base, &t);
	t.rx_window = min(t.rx_window, WINDOW_MAX);
	c.p = mpdt_params_invalid(&t) ? *base : t;
}

/* Everything the ends do besides sending and receiving. */
static void end_op(u8 arg, struct fz_in *in)
{
	switch (arg % 32) {
	case 0 ... 25:
		/* netlink param-set: the live parameters change; what was
		 * sized at creation stays (rx_window, the policy's state).
		 */
		set_params(in, &c.p);
		FZ_TRACE("params changed");
		break;
	case 26 ... 27:
		rx_gc();
		break;
	case 28 ... 29:
		rx_close(arg % 32 == 29);
		break;
	case 30:
		rx_reopen();
		break;
	case 31:
		tx_close();
		break;
	}
}

int FUZZ_ENTRY(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	u32 steps, len;
	u8 op, arg;

	memset(&c, 0, sizeof(c));
	c.to_rx.pkt = net_bufs[0];
	c.to_tx.pkt = net_bufs[1];
	arg = fz_u8(&in);
	c.lb_ops = mpdt_lb_at(arg % algo_count(true));
	c.cc_ops = mpdt_cc_at(arg / 16 % algo_count(false));
	c.p = mpdt_module_defaults;
	if (fz_u8(&in) & 1)
		set_params(&in, &mpdt_module_defaults);
	c.now = 1000000000ULL + fz_u32(&in);
	c.nonce = fz_u32(&in);
	FZ_TRACE("lb %s cc %s window %u payload %u", c.lb_ops->name,
		 c.cc_ops->name, c.p.rx_window, c.p.payload);

	for (steps = 0; steps < MAX_STEPS && !fz_done(&in); steps++) {
		op = fz_u8(&in);
		arg = fz_u8(&in);
		switch (op % 16) {
		case 0:
		case 1:
			len = op & 0x80 ? fz_u16(&in) * (arg % 16 + 1) : arg * 97;
			queue_msg(len);
			break;
		case 2 ... 5:	/* a packet arrives at the receiver */
			if (c.to_rx.n)
				deliver_to_rx(fz_u8(&in) % c.to_rx.n, arg);
			break;
		case 6:		/* ... or is lost */
			FZ_TRACE("drop a packet to rx");
			if (c.to_rx.n)
				net_take(&c.to_rx, arg % c.to_rx.n,
					 &(struct fz_wire){});
			break;
		case 7 ... 9:	/* a SACK or NACK arrives at the sender */
			if (c.to_tx.n)
				deliver_to_tx(fz_u8(&in) % c.to_tx.n, arg);
			break;
		case 10:	/* ... or is lost */
			FZ_TRACE("drop a packet to tx");
			if (c.to_tx.n)
				net_take(&c.to_tx, arg % c.to_tx.n,
					 &(struct fz_wire){});
			break;
		case 11:
			c.now += op & 0x80 ? arg * 1000000ULL : arg * 1000ULL;
			FZ_TRACE("time %llu", (unsigned long long)c.now);
			break;
		case 12:
			FZ_TRACE("timer%s", op & 0x80 ? ", waited for" : "");
			fire_timer(op & 0x80);
			break;
		case 13:
			if (c.created)
				forge_sack(&in);
			break;
		case 14:
			if (c.created)
				forge_nack(&in);
			break;
		case 15:
			if (c.created)
				end_op(arg, &in);
			else
				set_params(&in, &c.p);
			break;
		}
		check();
	}
	drain();
	teardown();
	return 0;
}
