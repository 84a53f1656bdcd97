// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: one connection's sending half (scoreboard, RTT, load
 * balancing and congestion control, with every LB and CC of algo.c's
 * registry) against a real receiving half (sack.c), over a network the
 * fuzzer runs: it delivers, drops, duplicates, reorders, CE-marks and
 * trims packets, advances the clock, fires the timer, changes parameters
 * and forges SACKs and NACKs.
 *
 * The sender is driven the way tx.c drives the core (mpdt_conn_push,
 * mpdt_tx_on_sack, mpdt_tx_on_nack, on_rto, send_probe, the timer), the
 * receiver the way rx.c does, and every packet crosses the wire encoder
 * and decoder.  After each step:
 *  - una <= high_rcvd <= nxt, nxt - una <= window, the packet at una
 *    unacknowledged, every state in [una, nxt) valid;
 *  - lost_pending is the number of LOST packets in [una, nxt), and one
 *    of them is found by mpdt_sb_next_lost() when any is pending;
 *    bytes_claimed covers at least their bytes;
 *  - inflight does not underflow: bytes_sent >= bytes_recvd + claimed;
 *  - cwnd in [mss, the CC's largest window];
 *  - every EV chosen below the policy's entropies, every flowlet's
 *    previous PSN not after the packet's own;
 *  - no push sends more than two windows, no SACK acknowledges more than
 *    a window, no packet is acknowledged twice (its message's count);
 *  - the receiver: EPSN monotonic, ooo_count = the bits set.
 * At the end the network turns perfect: every message must then be
 * acknowledged within a bounded number of timer rounds (unless a forged
 * SACK lied about what arrived, or the peer may legitimately fail).
 */
#include "fuzz.h"

#define WINDOW_MAX	65536U
#define MAX_STEPS	2048U
#define MAX_MSGS	32U
#define MAX_PKTS	4096U	/* packets of all messages of one input */
#define NET_MAX		8192U	/* packets in flight each way */
#define DRAIN_ROUNDS	256U
#define NSEC_PER_USEC	1000ULL

static struct mpdt_sb_pkt sb_ring[WINDOW_MAX];
static u64 rx_bits[WINDOW_MAX / 64];

struct fz_msg {
	u32 len, mss, npkts, sent, acked;
	u64 first_tx_ns;
};

/* A packet on the wire: its encoded header and UDP payload length. */
struct fz_wire {
	u8 hdr[MPDT_MAX_HLEN];
	u32 len;
};

/* Packets in flight one way: a ring of n from head, oldest first. */
struct fz_net {
	struct fz_wire *pkt;
	u32 head, n;
};

static struct fz_wire net_bufs[2][NET_MAX];

static struct conn {
	struct mpdt_params p;		/* the netns parameters, live */
	u64 now;
	/* Sending half. */
	bool created, active;
	u32 nonce;
	struct mpdt_sb sb;
	struct mpdt_rtt rtt;
	struct mpdt_lb lb;
	struct mpdt_cc cc;
	const struct mpdt_lb_ops *lb_ops;
	const struct mpdt_cc_ops *cc_ops;
	u64 cwnd_max;
	u64 pause_until;
	struct fz_msg *msgs[MAX_MSGS];
	u32 nmsgs, pkts_queued, msgs_done;
	/* Receiving half of the peer. */
	struct mpdt_rx rx;
	u32 rx_nonce;
	bool rx_active;
	/* The network, each way. */
	struct fz_net to_rx, to_tx;
	u32 snap_epsn, snap_nonce;	/* the receiver at the last check */
	/* Per step. */
	u32 acked_calls;
	bool forged;		/* a forged SACK was accepted */
	bool draining;
	u32 drain_rtos;
} c;

static u64 us_ns(u32 us)
{
	return (u64)us * NSEC_PER_USEC;
}

/* ---- the wire ---- */

static struct fz_wire *net_at(struct fz_net *net, u32 i)
{
	return &net->pkt[(net->head + i) % NET_MAX];
}

static void net_put(struct fz_net *net, const struct mpdt_pkt *pkt, u32 plen)
{
	struct fz_wire *w;

	/* A full queue drops its oldest packet. */
	if (net->n == NET_MAX) {
		net->head = (net->head + 1) % NET_MAX;
		net->n--;
	}
	w = net_at(net, net->n++);
	memset(w, 0, sizeof(*w));
	w->len = mpdt_wire_encode(pkt, w->hdr) + plen;
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

/* input.c: decode; every packet we encoded must decode. */
static void wire_decode(const struct fz_wire *w, struct mpdt_pkt *pkt)
{
	enum mpdt_wire_err err;

	memset(pkt, 0, sizeof(*pkt));
	err = mpdt_wire_decode(w->hdr, w->len, pkt);
	FZ_ASSERT(err == MPDT_WIRE_OK, "an encoded packet decodes with %d",
		  err);
}

static void common(struct mpdt_pkt *pkt, u8 type, u16 flags, u32 nonce,
		   u16 ev)
{
	pkt->hdr.version = MPDT_VERSION;
	pkt->hdr.type = type;
	pkt->hdr.flags = flags;
	pkt->hdr.src_port = 1000;
	pkt->hdr.dst_port = 2000;
	pkt->hdr.nonce = nonce;
	pkt->hdr.ev = ev;
}

/* ---- the sending half (tx.c) ---- */

static u64 base_rtt_ns(void)
{
	return max(us_ns(c.p.base_rtt_us), c.rtt.min_rtt);
}

static u64 conn_rto(void)
{
	return mpdt_rtt_rto(&c.rtt, us_ns(c.p.rto_min_us),
			    us_ns(c.p.rto_max_us));
}

static struct fz_msg *tx_next(void)
{
	u32 i;

	for (i = 0; i < c.nmsgs; i++)
		if (c.msgs[i]->sent < c.msgs[i]->npkts)
			return c.msgs[i];
	return NULL;
}

static bool cwnd_allows(u32 len)
{
	u64 inflight = mpdt_sb_inflight(&c.sb);

	return !inflight || inflight + len <= c.cc.cwnd;
}

static bool window_starves_acks(u32 len)
{
	return c.cc.cwnd < 2 * c.p.ack_bytes &&
	       mpdt_sb_inflight(&c.sb) + len >= c.cc.cwnd;
}

static u16 choose_ev(u32 psn, bool resend, struct mpdt_lb_ctx *ctx)
{
	u16 ev;

	*ctx = (struct mpdt_lb_ctx) {
		.now = c.now,
		.psn = psn,
		.cwnd_pkts = max(1U, c.cc.cwnd / c.cc.mss),
		.bdp_pkts = max((u64)1, mpdt_bdp(&c.p) / c.cc.mss),
		.rtt_ns = c.rtt.samples ? c.rtt.srtt : base_rtt_ns(),
		.resend = resend,
	};
	ev = c.lb.ops->choose_ev(&c.lb, ctx);
	FZ_ASSERT(ev < c.lb.entropies, "%s chose EV %u of %u", c.lb.ops->name,
		  ev, c.lb.entropies);
	if (ctx->in_flowlet)
		FZ_ASSERT(!resend && !psn_after(ctx->flowlet_prev, psn),
			  "%s: flowlet prev %u for PSN %u", c.lb.ops->name,
			  ctx->flowlet_prev, psn);
	return ev;
}

static void send_data(u32 psn, u16 flags, u32 prev)
{
	const struct mpdt_sb_pkt *sp = mpdt_sb_at(&c.sb, psn);
	const struct fz_msg *m = sp->owner;
	struct mpdt_pkt pkt = {};

	common(&pkt, MPDT_T_DATA, flags, c.nonce, sp->ev);
	pkt.data.psn = psn;
	pkt.data.msg_id = 1;
	pkt.data.offset = sp->offset;
	pkt.data.msg_len = m->len;
	pkt.data.ts = c.now;
	pkt.data.payload_len = sp->len;
	pkt.data.prev_psn = prev;
	FZ_TRACE("  tx DATA psn %u len %u ev %u flags %#x prev %u", psn,
		 sp->len, sp->ev, flags, prev);
	net_put(&c.to_rx, &pkt, sp->len);
}

static bool resend_one(void)
{
	struct mpdt_sb_pkt *pkt;
	struct mpdt_lb_ctx ctx;
	u32 psn;

	if (!mpdt_sb_next_lost(&c.sb, &psn))
		return false;
	FZ_ASSERT(mpdt_sb_tracked(&c.sb, psn) &&
		  mpdt_sb_at(&c.sb, psn)->state == MPDT_SB_LOST,
		  "next_lost gave PSN %u", psn);
	pkt = mpdt_sb_at(&c.sb, psn);
	if (!cwnd_allows(pkt->len))
		return false;
	mpdt_sb_resent(&c.sb, psn, choose_ev(psn, true, &ctx), c.now);
	send_data(psn, MPDT_F_RETX | MPDT_F_AR, psn);
	return true;
}

static bool send_new(void)
{
	struct fz_msg *m = tx_next();
	struct mpdt_lb_ctx ctx;
	u32 off, len, psn;
	u16 flags = 0, ev;

	if (!m || !mpdt_sb_window_open(&c.sb))
		return false;
	off = m->sent * m->mss;
	len = min(m->mss, m->len - off);
	if (!cwnd_allows(len))
		return false;
	ev = choose_ev(c.sb.nxt, false, &ctx);
	psn = mpdt_sb_record(&c.sb, m, off, len, ev, c.now);
	if (!m->sent)
		m->first_tx_ns = c.now;
	m->sent++;
	if (!tx_next() || window_starves_acks(len))
		flags |= MPDT_F_AR;
	if (ctx.in_flowlet)
		flags |= MPDT_F_FLOWLET;
	send_data(psn, flags, ctx.in_flowlet ? ctx.flowlet_prev : psn - 1);
	return true;
}

static void push(void)
{
	u32 n = 0;

	if (!c.active || c.now < c.pause_until)
		return;
	while (resend_one() || send_new())
		FZ_ASSERT(++n <= 2 * c.sb.window, "%u packets sent in a row", n);
}

static void msg_done(struct fz_msg *m)
{
	u32 i;

	for (i = 0; i < c.nmsgs && c.msgs[i] != m; i++)
		;
	FZ_ASSERT(i < c.nmsgs, "completed message not queued");
	memmove(&c.msgs[i], &c.msgs[i + 1],
		(c.nmsgs - i - 1) * sizeof(c.msgs[0]));
	c.nmsgs--;
	c.msgs_done++;
	if (c.cc.ops->on_message_done)
		c.cc.ops->on_message_done(&c.cc, m->len,
					  c.now - m->first_tx_ns, c.now);
	free(m);
}

struct walk {
	struct fz_msg *done[MAX_MSGS];
	u32 ndone;
	u16 acked_count;
	u16 acked_evs[MPDT_LB_ACKED_MAX];
};

static void tx_acked(void *ctx, struct mpdt_sb_pkt *pkt)
{
	struct walk *walk = ctx;
	struct fz_msg *m = pkt->owner;

	FZ_ASSERT(m && m->acked < m->sent, "packet acknowledged twice");
	FZ_ASSERT(++c.acked_calls <= c.sb.window, "one SACK acked %u packets",
		  c.acked_calls);
	if (walk->acked_count < MPDT_LB_ACKED_MAX)
		walk->acked_evs[walk->acked_count++] = pkt->ev;
	if (++m->acked == m->npkts)
		walk->done[walk->ndone++] = m;
}

static void report_timeouts(void)
{
	u64 recent = c.now - min(c.now, c.rtt.srtt + c.rtt.srtt / 2);
	u32 psn, n = 0;

	if (!c.lb.ops->on_loss)
		return;
	for (psn = c.sb.una; psn != c.sb.nxt; psn++) {
		struct mpdt_sb_pkt *pkt = mpdt_sb_at(&c.sb, psn);

		FZ_ASSERT(++n <= c.sb.window, "una..nxt longer than the window");
		if (pkt->state == MPDT_SB_LOST && pkt->sent_ns <= recent)
			c.lb.ops->on_loss(&c.lb, pkt->ev, false, c.now);
	}
}

/* @forged: no receiver built it; if accepted, it may have lied. */
static void tx_on_sack(const struct mpdt_pkt *pkt, bool ce, bool forged)
{
	const struct mpdt_sack *s = &pkt->sack;
	struct mpdt_cc_ack sig = { .now = c.now };
	struct walk walk = {};
	u64 before[__MPDT_RETX_MAX];
	enum mpdt_sb_verdict verdict;
	struct mpdt_sb_ack ack;
	u32 cwnd_pkts, i;

	if (!c.active || pkt->hdr.nonce != c.nonce)
		return;
	memcpy(before, c.sb.retx, sizeof(before));
	cwnd_pkts = c.lb.ops->flowlets ? ~0U : max(1U, c.cc.cwnd / c.cc.mss);
	sig.probe = pkt->hdr.flags & MPDT_F_PROBE_ACK;
	c.acked_calls = 0;
	FZ_TRACE("  SACK%s epsn %u base %u bitmap %#llx recv %llu ooo %u ce %u%s",
		 forged ? " (forged)" : "", s->epsn, s->sack_base,
		 (unsigned long long)s->bitmap,
		 (unsigned long long)s->recv_bytes, s->ooo_count, s->ce_count,
		 sig.probe ? " probe-ack" : "");
	verdict = mpdt_sb_on_sack(&c.sb, s, sig.probe, cwnd_pkts,
				  base_rtt_ns(), c.now, tx_acked, &walk, &ack);
	FZ_TRACE("   -> %s acked %u lost %u; una %u nxt %u sent %llu recvd %llu claimed %llu",
		 verdict == MPDT_SB_OK ? "ok" : "bogus", ack.acked_pkts,
		 ack.lost, c.sb.una, c.sb.nxt,
		 (unsigned long long)c.sb.bytes_sent,
		 (unsigned long long)c.sb.bytes_recvd,
		 (unsigned long long)c.sb.bytes_claimed);
	FZ_ASSERT(ack.acked_pkts == c.acked_calls, "acked_pkts %u, %u calls",
		  ack.acked_pkts, c.acked_calls);
	if (verdict == MPDT_SB_OK && mpdt_rtt_sample(&c.rtt, s->echo_ts, c.now))
		sig.rtt_ns = c.rtt.latest;
	for (i = 0; i < walk.ndone; i++)
		msg_done(walk.done[i]);
	if (verdict != MPDT_SB_OK)
		return;
	c.forged |= forged;
	if (c.lb.ops->on_ack) {
		struct mpdt_lb_ack la = {
			.now = c.now,
			.rtt_ns = sig.rtt_ns,
			.ev = pkt->hdr.ev,
			.ce_count = s->ce_count,
			.ce = ce,
			.acked_count = walk.acked_count,
			.acked_evs = walk.acked_evs,
		};

		c.lb.ops->on_ack(&c.lb, &la);
	}
	if (c.sb.retx[MPDT_RETX_PROBE] != before[MPDT_RETX_PROBE] ||
	    c.sb.retx[MPDT_RETX_OOO] != before[MPDT_RETX_OOO])
		report_timeouts();
	if (c.cc.ops->on_ack) {
		sig.acked_bytes = ack.acked_bytes;
		sig.inflight = mpdt_sb_inflight(&c.sb);
		sig.ce_count = s->ce_count;
		sig.ce = ce;
		c.cc.ops->on_ack(&c.cc, &sig);
	}
	push();
}

static void tx_on_nack(const struct mpdt_pkt *pkt)
{
	const struct mpdt_nack *n = &pkt->nack;

	if (!c.active || pkt->hdr.nonce != c.nonce ||
	    !mpdt_sb_tracked(&c.sb, n->psn))
		return;
	FZ_TRACE("  NACK psn %u code %u", n->psn, n->code);
	mpdt_sb_on_nack(&c.sb, n->psn);
	if (n->code == MPDT_NACK_NO_BUFFER) {
		c.pause_until = c.now + conn_rto();
		mpdt_sb_peer_alive(&c.sb, c.pause_until);
	}
	if (c.lb.ops->on_nack)
		c.lb.ops->on_nack(&c.lb, pkt->hdr.ev, n->code, c.now);
	if (c.cc.ops->on_nack)
		c.cc.ops->on_nack(&c.cc, n->code, c.now);
	push();
}

/* conn.c mpdt_conn_fail(): the messages go, the half stops. */
static void conn_fail(void)
{
	u32 i;

	c.active = false;
	for (i = 0; i < c.nmsgs; i++)
		free(c.msgs[i]);
	c.nmsgs = 0;
}

static void on_rto(void)
{
	FZ_TRACE("  RTO at %llu", (unsigned long long)c.now);
	mpdt_sb_on_rto(&c.sb, c.now);
	c.drain_rtos += c.draining;
	if (c.sb.stalled_rtos > c.p.max_retries) {
		/* On a perfect network the first RTO's resends are acked:
		 * a second RTO with nothing acked fails a peer that answers.
		 */
		FZ_ASSERT(c.forged || c.drain_rtos < 2 || c.sb.stalled_rtos < 2,
			  "peer failed on a perfect network: una %u nxt %u "
			  "lost %u scan %u, peer EPSN %u", c.sb.una, c.sb.nxt,
			  c.sb.lost_pending, c.sb.lost_scan, c.rx.epsn);
		conn_fail();
		return;
	}
	if (c.lb.ops->on_loss && c.sb.una != c.sb.nxt)
		c.lb.ops->on_loss(&c.lb, mpdt_sb_at(&c.sb, c.sb.una)->ev, true,
				  c.now);
	if (c.cc.ops->on_timeout)
		c.cc.ops->on_timeout(&c.cc, c.now);
}

static u64 probe_interval(void)
{
	return (c.p.probe_mult * base_rtt_ns()) << min(c.sb.rto_backoff, 10U);
}

static void send_probe(void)
{
	struct mpdt_pkt pkt = {};
	struct mpdt_lb_ctx ctx;

	FZ_TRACE("  PROBE at %llu", (unsigned long long)c.now);
	mpdt_sb_on_probe_sent(&c.sb, c.now);
	common(&pkt, MPDT_T_PROBE, 0, c.nonce, choose_ev(c.sb.una, true, &ctx));
	pkt.probe.sack_base = c.sb.una;
	pkt.probe.ts = c.now;
	net_put(&c.to_rx, &pkt, 0);
}

static u64 earliest(u64 a, u64 b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/* mpdt_conn_arm_timer(): when the timer would fire; 0 if not armed. */
static u64 timer_when(void)
{
	u64 when;

	if (!c.active)
		return 0;
	when = mpdt_sb_rto_deadline(&c.sb, conn_rto(), us_ns(c.p.rto_max_us));
	when = earliest(when, mpdt_sb_probe_deadline(&c.sb, probe_interval()));
	if (c.pause_until > c.now && (tx_next() || c.sb.lost_pending))
		when = earliest(when, c.pause_until);
	return when;
}

/* The hrtimer fires when it is due (@wait: the clock moves there), or
 * early (it may: it then finds nothing due).
 */
static void timer(bool wait, bool late)
{
	u64 when = timer_when(), rto, probe;

	if (!when)
		return;
	if (wait)
		c.now = max(c.now, when);
	/* A pause (NO_BUFFER) outlasts many probe intervals: in the drain
	 * the timer may fire late, at its end.
	 */
	if (late)
		c.now = max(c.now, c.pause_until);
	rto = mpdt_sb_rto_deadline(&c.sb, conn_rto(), us_ns(c.p.rto_max_us));
	probe = mpdt_sb_probe_deadline(&c.sb, probe_interval());
	FZ_TRACE(" hrtimer at %llu: rto %llu probe %llu pause %llu",
		 (unsigned long long)c.now, (unsigned long long)rto,
		 (unsigned long long)probe, (unsigned long long)c.pause_until);
	if (rto && c.now >= rto)
		on_rto();
	else if (probe && c.now >= probe)
		send_probe();
	push();
}

/* conn.c tx_reset(): a new incarnation of the sending half. */
static void tx_reset(void)
{
	struct mpdt_strack_consts sk;
	struct mpdt_smartt_consts mk;
	const char *name;

	c.nonce++;
	c.active = true;
	c.pause_until = 0;
	mpdt_sb_init(&c.sb, sb_ring, c.rx.window, c.now);
	mpdt_rtt_init(&c.rtt);
	c.cc.mss = c.p.payload;
	if (c.lb.priv)
		memset(c.lb.priv, 0, c.lb.priv_len);
	if (c.cc.priv)
		memset(c.cc.priv, 0, c.cc.ops->priv_size);
	c.lb.ops->init(&c.lb, &c.p, c.nonce * 0x9e3779b97f4a7c15ULL);
	c.cc.ops->init(&c.cc, &c.p);

	/* The CC's largest window, from the parameters of this moment. */
	name = c.cc.ops->name;
	c.cwnd_max = 0x7fffffff;
	if (!strcmp(name, "fixed")) {
		c.cwnd_max = c.cc.cwnd;
	} else if (!strcmp(name, "strack")) {
		mpdt_strack_consts(&c.p, c.cc.mss, &sk);
		c.cwnd_max = sk.max_cwnd;
	} else if (!strcmp(name, "smartt")) {
		mpdt_smartt_consts(&c.p, c.cc.mss, &mk);
		c.cwnd_max = mk.max_cwnd;
	} else if (!strcmp(name, "mcc")) {
		c.cwnd_max = mpdt_cc_max_cwnd(&c.p, c.p.mcc_max_cwnd_pct,
					      c.cc.mss);
	}
}

/* conn.c mpdt_conn_create() (both halves' state, sized now) and
 * queue_locked(): queue a message, start an incarnation if needed.
 */
static void queue_msg(u32 len)
{
	struct fz_msg *m;

	if (!c.created) {
		c.created = true;
		c.lb.ops = c.lb_ops;
		c.lb.entropies = c.p.entropies;
		c.lb.priv_len = c.lb_ops->priv_size ?
				c.lb_ops->priv_size(&c.p) : 0;
		c.lb.priv = c.lb.priv_len ? calloc(1, c.lb.priv_len) : NULL;
		c.cc.ops = c.cc_ops;
		c.cc.priv = c.cc_ops->priv_size ?
			    calloc(1, c.cc_ops->priv_size) : NULL;
		mpdt_rx_init(&c.rx, rx_bits, c.p.rx_window);
	}
	if (c.nmsgs == MAX_MSGS)
		return;
	m = calloc(1, sizeof(*m));
	m->len = len;
	m->mss = c.p.payload;
	m->npkts = max(1U, DIV_ROUND_UP(len, m->mss));
	if (c.pkts_queued + m->npkts > MAX_PKTS) {
		free(m);
		return;
	}
	c.pkts_queued += m->npkts;
	FZ_TRACE("queue message of %u bytes", len);
	if (!c.active)
		tx_reset();
	c.msgs[c.nmsgs++] = m;
	push();
}

/* ---- the receiving half (rx.c) ---- */

static bool rx_adopt_nonce(u32 nonce)
{
	if (c.rx_active && nonce == c.rx_nonce)
		return true;
	/* An older incarnation's packet: the real one refuses the one it
	 * replaced; here every older one is refused.
	 */
	if (c.rx_active && psn_before(nonce, c.rx_nonce))
		return false;
	if (c.rx_active)
		mpdt_rx_init(&c.rx, rx_bits, c.rx.window);
	c.rx_nonce = nonce;
	c.rx_active = true;
	return true;
}

/* EPSN monotonic within an incarnation, ooo_count the bits set. */
FZ_NOCOV static void rx_check(void)
{
	u32 i, bits = 0;

	if (!c.created)
		return;
	if (c.snap_nonce == c.rx_nonce)
		FZ_ASSERT(!psn_before(c.rx.epsn, c.snap_epsn) &&
			  c.rx.epsn - c.snap_epsn <= c.rx.window,
			  "EPSN %u -> %u", c.snap_epsn, c.rx.epsn);
	c.snap_epsn = c.rx.epsn;
	c.snap_nonce = c.rx_nonce;
	for (i = 0; i < c.rx.window / 64; i++)
		bits += __builtin_popcountll(c.rx.bits[i]);
	FZ_ASSERT(c.rx.ooo_count == bits, "ooo_count %u, %u bits",
		  c.rx.ooo_count, bits);
}

static void send_sack(const u32 *probe_base, u64 echo_ts, u16 ev, u16 flags)
{
	struct mpdt_pkt pkt = {};

	common(&pkt, MPDT_T_SACK, flags, c.rx_nonce, ev);
	mpdt_rx_build_sack(&c.rx, probe_base, &pkt.sack);
	pkt.sack.echo_ts = echo_ts;
	net_put(&c.to_tx, &pkt, 0);
}

static void send_nack(u32 psn, u8 code, u64 echo_ts, u16 ev, u16 flags)
{
	struct mpdt_pkt pkt = {};

	common(&pkt, MPDT_T_NACK, flags, c.rx_nonce, ev);
	pkt.nack.psn = psn;
	pkt.nack.code = code;
	pkt.nack.epsn = c.rx.epsn;
	pkt.nack.echo_ts = echo_ts;
	net_put(&c.to_tx, &pkt, 0);
}

/* mpdt_rx_on_data(); @nobuf: the receiver has no memory for it. */
static void rx_on_data(const struct mpdt_pkt *pkt, bool ce, bool nobuf)
{
	const struct mpdt_ack_policy pol = {
		.coalesce_bytes = c.p.ack_bytes,
		.on_epsn = c.p.ack_on_epsn,
		.on_ce = c.p.ack_on_ce,
	};
	const struct mpdt_data *d = &pkt->data;
	struct mpdt_rx_arrival a = {
		.ce = ce,
		.ack_request = pkt->hdr.flags & MPDT_F_AR,
		.retransmission = pkt->hdr.flags & MPDT_F_RETX,
	};
	if (!rx_adopt_nonce(pkt->hdr.nonce))
		return;
	a.verdict = mpdt_rx_check(&c.rx, d->psn);
	if (a.verdict == MPDT_RX_OUT_OF_WINDOW)
		return;
	if (a.verdict == MPDT_RX_NEW) {
		if (d->prev_psn != d->psn &&
		    mpdt_rx_check(&c.rx, d->prev_psn) == MPDT_RX_NEW &&
		    (pkt->hdr.flags & MPDT_F_FLOWLET))
			send_nack(d->prev_psn, MPDT_NACK_FLOWLET_GAP, d->ts,
				  pkt->hdr.ev, 0);
		if (pkt->hdr.flags & MPDT_F_TRIMMED || nobuf) {
			send_nack(d->psn, nobuf ? MPDT_NACK_NO_BUFFER :
				  MPDT_NACK_TRIMMED, d->ts, pkt->hdr.ev,
				  ce ? MPDT_F_CE : 0);
			return;
		}
		a.filled_hole = mpdt_rx_mark(&c.rx, d->psn, d->payload_len,
					     a.ce);
	}
	if (mpdt_rx_ack_due(&c.rx, &pol, &a))
		send_sack(NULL, d->ts, pkt->hdr.ev, ce ? MPDT_F_CE : 0);
}

static void rx_on_probe(const struct mpdt_pkt *pkt)
{
	if (!rx_adopt_nonce(pkt->hdr.nonce))
		return;
	send_sack(&pkt->probe.sack_base, pkt->probe.ts, pkt->hdr.ev,
		  MPDT_F_PROBE_ACK);
}

/* ---- the network ---- */

/* Packet @i towards the receiver arrives (or a copy of it, @dup). */
static void deliver_to_rx(u32 i, u8 how)
{
	struct fz_wire w;
	struct mpdt_pkt pkt;
	u32 plen;

	if (how & 1)
		w = *net_at(&c.to_rx, i);
	else
		net_take(&c.to_rx, i, &w);
	wire_decode(&w, &pkt);
	FZ_TRACE("deliver %s psn %u to rx%s%s%s%s (EPSN %u)",
		 pkt.hdr.type == MPDT_T_PROBE ? "PROBE" : "DATA",
		 pkt.hdr.type == MPDT_T_PROBE ? pkt.probe.sack_base :
		 pkt.data.psn, how & 1 ? " dup" : "", how & 2 ? " trimmed" : "",
		 how & 4 ? " ce" : "", how & 8 ? " nobuf" : "", c.rx.epsn);
	if (pkt.hdr.type == MPDT_T_PROBE) {
		rx_on_probe(&pkt);
		return;
	}
	FZ_ASSERT(pkt.hdr.type == MPDT_T_DATA, "type %u", pkt.hdr.type);
	if (how & 2) {
		/* A trimming switch: flag set, payload (partly) cut. */
		pkt.hdr.flags |= MPDT_F_TRIMMED;
		plen = pkt.data.payload_len;
		w.hdr[3] |= MPDT_F_TRIMMED;
		w.len = MPDT_DATA_HLEN + plen / 2;
		wire_decode(&w, &pkt);
	}
	rx_on_data(&pkt, how & 4, how & 8);
	rx_check();
}

static void deliver_to_tx(u32 i, u8 how)
{
	struct fz_wire w;
	struct mpdt_pkt pkt;

	if (how & 1)
		w = *net_at(&c.to_tx, i);
	else
		net_take(&c.to_tx, i, &w);
	wire_decode(&w, &pkt);
	FZ_TRACE("deliver %s to tx%s", pkt.hdr.type == MPDT_T_SACK ? "SACK" :
		 "NACK", how & 1 ? " dup" : "");
	if (pkt.hdr.type == MPDT_T_SACK)
		tx_on_sack(&pkt, pkt.hdr.flags & MPDT_F_CE, false);
	else
		tx_on_nack(&pkt);
}

/* A SACK nobody's receiver built: plausible (near the state) or raw. */
static void forge_sack(struct fz_in *in)
{
	struct mpdt_pkt pkt = {};
	struct mpdt_sack *s = &pkt.sack;
	u8 how = fz_u8(in);
	u32 una = c.sb.una;

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
		s->epsn = c.sb.nxt - fz_u8(in) % 16;
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
		s->sack_base = c.sb.nxt + 0x80000000U - fz_u8(in);
		break;
	default:
		s->sack_base = fz_u32(in);
	}
	s->bitmap = how & 0x10 ? fz_u64(in) : fz_u8(in);
	s->recv_bytes = how & 0x20 ? fz_u64(in) : c.sb.bytes_recvd + fz_u16(in);
	s->echo_ts = fz_u8(in) & 1 ? fz_u64(in) : c.now - fz_u16(in) * 1000ULL;
	s->ooo_count = fz_u8(in) & 1 ? fz_u32(in) : fz_u8(in);
	s->ce_count = fz_u8(in);
	tx_on_sack(&pkt, s->ce_count & 1, true);
}

static void forge_nack(struct fz_in *in)
{
	struct mpdt_pkt pkt = {};
	u8 how = fz_u8(in);

	common(&pkt, MPDT_T_NACK, 0, c.nonce, fz_u16(in));
	pkt.nack.psn = how & 1 ? fz_u32(in) : c.sb.una + fz_u8(in);
	pkt.nack.code = 1 + (how >> 1) % 3;
	pkt.nack.epsn = fz_u32(in);
	pkt.nack.echo_ts = c.now - fz_u16(in);
	tx_on_nack(&pkt);
}

/* ---- invariants ---- */

FZ_NOCOV static void check_sender(void)
{
	const struct mpdt_sb *sb = &c.sb;
	u32 psn, lost = 0, n = 0;
	u64 claimed = 0;
	struct mpdt_sb copy;

	if (!c.created || !c.active)
		return;
	FZ_ASSERT(sb->nxt - sb->una <= sb->window, "una %u nxt %u", sb->una,
		  sb->nxt);
	FZ_ASSERT(sb->high_rcvd - sb->una <= sb->nxt - sb->una,
		  "high_rcvd %u outside una %u .. nxt %u", sb->high_rcvd,
		  sb->una, sb->nxt);
	for (psn = sb->una; psn != sb->nxt; psn++, n++) {
		const struct mpdt_sb_pkt *p = &sb->ring[psn & (sb->window - 1)];

		FZ_ASSERT(p->state >= MPDT_SB_INFLIGHT &&
			  p->state <= MPDT_SB_LOST, "PSN %u state %u", psn,
			  p->state);
		if (p->state == MPDT_SB_LOST) {
			lost++;
			claimed += p->len;
		}
	}
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
	/* Known: a loss declared for a packet whose bytes the peer already
	 * reported in recv_bytes (outside the SACK's bitmap segment) claims
	 * them twice.
	 */
	FZ_ASSERT(FZ_KNOWN_ISSUE("inflight-double-claim") ||
		  sb->bytes_sent >= sb->bytes_recvd + sb->bytes_claimed,
		  "inflight underflows: sent %llu < recvd %llu + claimed %llu",
		  (unsigned long long)sb->bytes_sent,
		  (unsigned long long)sb->bytes_recvd,
		  (unsigned long long)sb->bytes_claimed);
	if (lost) {
		copy = *sb;
		FZ_ASSERT(mpdt_sb_next_lost(&copy, &psn),
			  "%u LOST but next_lost finds none (scan %u, una %u)",
			  lost, sb->lost_scan, sb->una);
	}
	FZ_ASSERT(c.cc.cwnd >= c.cc.mss && c.cc.cwnd <= c.cwnd_max,
		  "%s cwnd %u outside [%u, %llu]", c.cc.ops->name, c.cc.cwnd,
		  c.cc.mss, (unsigned long long)c.cwnd_max);
}

/* ---- the run ---- */

/* Is everything queued acknowledged? */
static bool all_done(void)
{
	return !c.created || !c.active || !c.nmsgs;
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
		for (hops = 0; c.to_rx.n || c.to_tx.n; hops++) {
			FZ_ASSERT(hops < 64 * MAX_PKTS, "no quiescence");
			if (c.to_rx.n)
				deliver_to_rx(0, 0);
			else
				deliver_to_tx(0, 0);
			if (!(hops % 64))
				check_sender();
		}
		if (all_done())
			break;
		timer(true, true);
		check_sender();
		rx_check();
	}
	if (!c.created || c.forged || !c.active)
		return;
	FZ_ASSERT(all_done(), "%u messages not acknowledged after %u rounds: "
		  "una %u nxt %u lost %u scan %u, peer EPSN %u",
		  c.nmsgs, round, c.sb.una, c.sb.nxt, c.sb.lost_pending,
		  c.sb.lost_scan, c.rx.epsn);
}

static void cleanup(void)
{
	u32 i;

	for (i = 0; i < c.nmsgs; i++)
		free(c.msgs[i]);
	free(c.lb.priv);
	free(c.cc.priv);
}

static u32 algo_count(bool lb)
{
	u32 n = 0;

	while (lb ? !!mpdt_lb_at(n) : !!mpdt_cc_at(n))
		n++;
	return n;
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
	c.p = fuzz_default_params;
	if (fz_u8(&in) & 1)
		fz_params(&in, &fuzz_default_params, &c.p);
	c.now = 1000000000ULL + fz_u32(&in);
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
			timer(op & 0x80, false);
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
			/* netlink param-set: the live parameters change;
			 * what was sized at creation stays (rx_window).
			 */
			fz_params(&in, &c.p, &c.p);
			FZ_TRACE("params changed");
			break;
		}
		check_sender();
		rx_check();
	}
	drain();
	cleanup();
	return 0;
}
