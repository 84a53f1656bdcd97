// SPDX-License-Identifier: GPL-2.0
/*
 * The sending half of a connection: queueing messages, clocking packets
 * out under the congestion window, and reacting to SACKs, NACKs, probes
 * and timeouts (STrack §3.3.2; Algo 1 for the order of the steps).
 * Everything here runs under msk->lock.
 */
#include <linux/slab.h>

#include "protocol.h"

static const enum mpdt_stat retx_stat[__MPDT_RETX_MAX] = {
	[MPDT_RETX_OOO]		= MPDT_STAT_RETX_OOO,
	[MPDT_RETX_PROBE]	= MPDT_STAT_RETX_PROBE,
	[MPDT_RETX_RTO]		= MPDT_STAT_RETX_RTO,
	[MPDT_RETX_NACK]	= MPDT_STAT_RETX_NACK,
};

static u64 us_to_ns(u32 us)
{
	return (u64)us * NSEC_PER_USEC;
}

/* The larger of the configured and the measured base RTT: an emulated
 * or virtualized path can be slower than the fabric it stands for, and
 * probing faster than the path can answer only adds load.
 */
static u64 base_rtt_ns(const struct mpdt_conn *c)
{
	return max(us_to_ns(c->msk->mn->params.base_rtt_us), c->rtt.min_rtt);
}

u64 mpdt_conn_rto(const struct mpdt_conn *c)
{
	const struct mpdt_params *p = &c->msk->mn->params;

	return mpdt_rtt_rto(&c->rtt, us_to_ns(p->rto_min_us),
			    us_to_ns(p->rto_max_us));
}

/* Loss declarations since @before, into the netns counters by cause. */
static void account_losses(struct mpdt_conn *c, const u64 *before)
{
	int i;

	for (i = 0; i < __MPDT_RETX_MAX; i++)
		if (c->sb.retx[i] != before[i])
			mpdt_stat_add(c->msk->mn, retx_stat[i],
				      c->sb.retx[i] - before[i]);
}

void mpdt_conn_queue_msg(struct mpdt_conn *c, struct mpdt_txmsg *m)
{
	m->id = c->next_msg_id++;
	m->start_ns = mpdt_now();
	list_add_tail(&m->node, &c->tx_msgs);
	if (!c->tx_next)
		c->tx_next = m;
	c->msgs_sent++;
	c->msgs_inflight++;
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_MSG_TX);
}

static bool cwnd_allows(const struct mpdt_conn *c, u32 len)
{
	u64 inflight = mpdt_sb_inflight(&c->sb);

	/* One packet may always go, or a tiny window would stall. */
	return !inflight || inflight + len <= c->cc.cwnd;
}

/* With a window below two coalescing thresholds the receiver might never
 * reach one: the last packet that fits asks for the SACK itself.
 */
static bool window_starves_acks(const struct mpdt_conn *c, u32 len)
{
	return c->cc.cwnd < 2 * c->msk->mn->params.ack_bytes &&
	       mpdt_sb_inflight(&c->sb) + len >= c->cc.cwnd;
}

/* The policy's entropy for @psn; @ctx says whether it joins a flowlet. */
static u16 choose_ev(struct mpdt_conn *c, u64 now, u32 psn, bool resend,
		     struct mpdt_lb_ctx *ctx)
{
	const struct mpdt_params *p = &c->msk->mn->params;

	*ctx = (struct mpdt_lb_ctx) {
		.now = now,
		.psn = psn,
		.cwnd_pkts = max(1U, c->cc.cwnd / c->cc.mss),
		.bdp_pkts = max_t(u32, 1, div_u64(mpdt_bdp(p), c->cc.mss)),
		.rtt_ns = c->rtt.samples ? c->rtt.srtt : base_rtt_ns(c),
		.resend = resend,
	};
	return c->lb.ops->choose_ev(&c->lb, ctx);
}

static bool resend_one(struct mpdt_conn *c, u64 now)
{
	struct mpdt_sb_pkt *pkt;
	struct mpdt_lb_ctx ctx;
	u32 psn;

	if (!mpdt_sb_next_lost(&c->sb, &psn))
		return false;
	pkt = mpdt_sb_at(&c->sb, psn);
	if (!cwnd_allows(c, pkt->len))
		return false;
	/* The resend takes the policy's current choice, not the lost path;
	 * it belongs to no in-order stream.
	 */
	mpdt_sb_resent(&c->sb, psn, choose_ev(c, now, psn, true, &ctx), now);
	mpdt_send_data(c, psn, MPDT_F_RETX | MPDT_F_AR, psn);
	return true;
}

static bool send_new(struct mpdt_conn *c, u64 now)
{
	struct mpdt_txmsg *m = c->tx_next;
	struct mpdt_lb_ctx ctx;
	u32 off, len, psn;
	u16 flags = 0, ev;

	if (!m || !mpdt_sb_window_open(&c->sb))
		return false;
	off = m->sent * m->mss;
	len = min(m->mss, m->len - off);
	if (!cwnd_allows(c, len))
		return false;
	ev = choose_ev(c, now, c->sb.nxt, false, &ctx);
	psn = mpdt_sb_record(&c->sb, m, off, len, ev, now);
	if (!m->sent)
		m->first_tx_ns = now;
	if (++m->sent == m->npkts)
		c->tx_next = list_is_last(&m->node, &c->tx_msgs) ? NULL :
			     list_next_entry(m, node);
	/* Ask for a SACK when nothing more is queued instead of waiting for
	 * the coalescing threshold or a probe.
	 */
	if (!c->tx_next || window_starves_acks(c, len))
		flags |= MPDT_F_AR;
	if (ctx.in_flowlet)
		flags |= MPDT_F_FLOWLET;
	mpdt_send_data(c, psn, flags,
		       ctx.in_flowlet ? ctx.flowlet_prev : psn - 1);
	return true;
}

/* Send what the window allows: repairs first, then new packets. */
void mpdt_conn_push(struct mpdt_conn *c)
{
	u64 now = mpdt_now();

	if (c->state == MPDT_CONN_ACTIVE && c->sb_ring &&
	    now >= c->pause_until) {
		while (resend_one(c, now) || send_new(c, now))
			;
	}
	mpdt_conn_arm_timer(c);
}

/* MCC (§3) judges the network by a message's delay: from its first
 * packet on the wire, not from sendmsg(), so time spent queued behind
 * earlier messages on this host is not taken for congestion.
 */
static void tx_msg_done(struct mpdt_conn *c, struct mpdt_txmsg *m, u64 now)
{
	list_del(&m->node);
	c->msgs_acked++;
	c->msgs_inflight--;
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_MSG_ACKED);
	if (c->cc.ops->on_message_done)
		c->cc.ops->on_message_done(&c->cc, m->len,
					   now - m->first_tx_ns, now);
	mpdt_txmsg_free(c->msk, m);
}

/* One SACK's newly acknowledged packets, as tx_acked() sees them. */
struct tx_sack_walk {
	struct mpdt_conn *conn;
	struct list_head done;		/* messages now wholly acknowledged */
	u16 acked_count;
	u16 acked_evs[MPDT_LB_ACKED_MAX];
};

static void tx_acked(void *ctx, struct mpdt_sb_pkt *pkt)
{
	struct tx_sack_walk *walk = ctx;
	struct mpdt_txmsg *m = pkt->owner;

	if (walk->acked_count < MPDT_LB_ACKED_MAX)
		walk->acked_evs[walk->acked_count++] = pkt->ev;
	if (++m->acked == m->npkts)
		list_move_tail(&m->node, &walk->done);
}

/* After the SACK's RTT sample, so that MCC's sampled packet delay
 * includes the SACK that completes the message.
 */
static void tx_complete_msgs(struct tx_sack_walk *walk, u64 now)
{
	struct mpdt_txmsg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &walk->done, node)
		tx_msg_done(walk->conn, m, now);
}

/* After a probe or the OOO count declared losses: the entropy of each
 * lost packet (waiting to be resent) goes to the policy.  The OOO rule
 * sweeps wide (§3.3.2): everything unacked below the highest PSN
 * received, which takes in packets still queued on slower, healthy paths.
 * Only a packet unacked for well over a smoothed RTT (1.5 x) is evidence
 * against its path; reporting the others would penalise the healthy paths
 * along with a dead one, and a policy that finds every path penalised
 * falls back to the least penalised: the dead one.
 */
static void report_timeouts(struct mpdt_conn *c, u64 now)
{
	u64 recent = now - min(now, c->rtt.srtt + c->rtt.srtt / 2);
	u32 psn;

	if (!c->lb.ops->on_loss)
		return;
	for (psn = c->sb.una; psn != c->sb.nxt; psn++) {
		struct mpdt_sb_pkt *pkt = mpdt_sb_at(&c->sb, psn);

		if (pkt->state == MPDT_SB_LOST && pkt->sent_ns <= recent)
			c->lb.ops->on_loss(&c->lb, pkt->ev, false, now);
	}
}

static bool tx_incarnation_ok(struct mpdt_conn *c, u32 nonce)
{
	if (c->sb_ring && c->state == MPDT_CONN_ACTIVE && nonce == c->nonce)
		return true;
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_STALE_NONCE);
	return false;
}

void mpdt_tx_on_sack(struct mpdt_conn *c, const struct mpdt_pkt *pkt,
		     bool ce)
{
	const struct mpdt_sack *s = &pkt->sack;
	u64 before[__MPDT_RETX_MAX], now = mpdt_now();
	u32 msgs = c->msgs_acked;
	struct mpdt_cc_ack sig = { .now = now };
	struct tx_sack_walk walk = { .conn = c };
	enum mpdt_sb_verdict verdict;
	struct mpdt_sb_ack ack;
	u32 cwnd_pkts;

	if (!tx_incarnation_ok(c, pkt->hdr.nonce))
		return;
	INIT_LIST_HEAD(&walk.done);
	memcpy(before, c->sb.retx, sizeof(before));
	/* Between flowlets out of order is normal: the receiver reports
	 * the gaps that matter (inside a flowlet) with NACKs instead.
	 */
	cwnd_pkts = c->lb.ops->flowlets ? U32_MAX :
		    max(1U, c->cc.cwnd / c->cc.mss);
	sig.probe = pkt->hdr.flags & MPDT_F_PROBE_ACK;
	verdict = mpdt_sb_on_sack(&c->sb, s, sig.probe, cwnd_pkts,
				  base_rtt_ns(c), now, tx_acked, &walk, &ack);
	if (verdict == MPDT_SB_OK && mpdt_rtt_sample(&c->rtt, s->echo_ts, now))
		sig.rtt_ns = c->rtt.latest;
	tx_complete_msgs(&walk, now);
	if (verdict != MPDT_SB_OK) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_BOGUS_ACK);
		return;
	}
	c->sacks_rcvd++;
	account_losses(c, before);

	if (c->lb.ops->on_ack) {
		struct mpdt_lb_ack la = {
			.now = now,
			.rtt_ns = sig.rtt_ns,
			.ev = pkt->hdr.ev,
			.ce_count = s->ce_count,
			.ce = ce,
			.acked_count = walk.acked_count,
			.acked_evs = walk.acked_evs,
		};

		c->lb.ops->on_ack(&c->lb, &la);
	}
	/* Losses the probe or the out-of-order count declared are path
	 * signals as much as an RTO's: the policy hears of each one.
	 */
	if (c->sb.retx[MPDT_RETX_PROBE] != before[MPDT_RETX_PROBE] ||
	    c->sb.retx[MPDT_RETX_OOO] != before[MPDT_RETX_OOO])
		report_timeouts(c, now);
	if (c->cc.ops->on_ack) {
		sig.acked_bytes = ack.acked_bytes;
		sig.inflight = mpdt_sb_inflight(&c->sb);
		sig.ce_count = s->ce_count;
		sig.ce = ce;
		c->cc.ops->on_ack(&c->cc, &sig);
	}
	if (c->msgs_acked != msgs)
		mpdt_sock_wake_writers(c->msk);
	mpdt_conn_push(c);
}

void mpdt_tx_on_nack(struct mpdt_conn *c, const struct mpdt_pkt *pkt)
{
	const struct mpdt_nack *n = &pkt->nack;
	u64 now = mpdt_now();

	if (!tx_incarnation_ok(c, pkt->hdr.nonce))
		return;
	if (!mpdt_sb_tracked(&c->sb, n->psn)) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_BOGUS_ACK);
		return;
	}
	c->nacks_rcvd++;
	/* Already lost or acked: only the NO_BUFFER pause still applies. */
	if (mpdt_sb_on_nack(&c->sb, n->psn))
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_RETX_NACK);
	/* A full receiver needs time, not an immediate resend; it is alive,
	 * so waiting for its reader does not count toward failing it.
	 */
	if (n->code == MPDT_NACK_NO_BUFFER) {
		c->pause_until = now + mpdt_conn_rto(c);
		/* The RTO clock restarts when the pause ends, not before. */
		mpdt_sb_peer_alive(&c->sb, c->pause_until);
	}
	if (c->lb.ops->on_nack)
		c->lb.ops->on_nack(&c->lb, pkt->hdr.ev, n->code, now);
	if (c->cc.ops->on_nack)
		c->cc.ops->on_nack(&c->cc, n->code, now);
	mpdt_conn_push(c);
}

/* Timeout-based detection (§3.3.2).  Too many in a row with nothing
 * acknowledged in between fail the peer; RTOs while SACKs still bring
 * news are congestion, and the backoff alone deals with them.
 */
static void on_rto(struct mpdt_conn *c, u64 now)
{
	const struct mpdt_params *p = &c->msk->mn->params;
	u64 before[__MPDT_RETX_MAX];

	memcpy(before, c->sb.retx, sizeof(before));
	mpdt_sb_on_rto(&c->sb, now);
	c->rtos++;
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_RTO);
	account_losses(c, before);
	if (c->sb.stalled_rtos > p->max_retries) {
		mpdt_conn_fail(c);
		return;
	}
	/* An RTO declares the whole window lost, but only the oldest packet
	 * has certainly overstayed: its path is the one to blame.
	 */
	if (c->lb.ops->on_loss && c->sb.una != c->sb.nxt)
		c->lb.ops->on_loss(&c->lb, mpdt_sb_at(&c->sb, c->sb.una)->ev,
				   true, now);
	if (c->cc.ops->on_timeout)
		c->cc.ops->on_timeout(&c->cc, now);
}

/* §3.3.2 probes every n base RTTs; after timeouts the probes back off
 * with the RTO, so a dead peer is not probed thousands of times.
 */
static u64 probe_interval(const struct mpdt_conn *c)
{
	return (c->msk->mn->params.probe_mult * base_rtt_ns(c)) <<
	       min(c->sb.rto_backoff, 10U);
}

static void send_probe(struct mpdt_conn *c, u64 now)
{
	mpdt_sb_on_probe_sent(&c->sb, now);
	c->probes++;
	struct mpdt_lb_ctx ctx;

	mpdt_send_probe(c, choose_ev(c, now, c->sb.una, true, &ctx), now);
}

static u64 earliest(u64 a, u64 b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/* Deadlines mostly move later (every SACK pushes the probe and RTO out), and
 * reprogramming the clock event device on every SACK is costly.  So a timer
 * already set to fire no later than needed is left alone: it fires early,
 * finds nothing due, and is set again.
 */
void mpdt_conn_arm_timer(struct mpdt_conn *c)
{
	const struct mpdt_params *p = &c->msk->mn->params;
	u64 when = 0;

	if (c->state == MPDT_CONN_ACTIVE && c->sb_ring) {
		when = mpdt_sb_rto_deadline(&c->sb, mpdt_conn_rto(c),
					    us_to_ns(p->rto_max_us));
		when = earliest(when, mpdt_sb_probe_deadline(&c->sb,
							     probe_interval(c)));
		if (c->pause_until > mpdt_now() &&
		    (c->tx_next || c->sb.lost_pending))
			when = earliest(when, c->pause_until);
	}
	if (!when)
		return;
	if (hrtimer_is_queued(&c->timer) &&
	    ktime_to_ns(hrtimer_get_expires(&c->timer)) <= when)
		return;
	hrtimer_start(&c->timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

enum hrtimer_restart mpdt_conn_timer(struct hrtimer *t)
{
	struct mpdt_conn *c = container_of(t, struct mpdt_conn, timer);
	const struct mpdt_params *p = &c->msk->mn->params;
	struct mpdt_sock *msk = c->msk;
	u64 now, rto, probe;

	spin_lock(&msk->lock);
	if (msk->closing || msk->time_wait || c->state != MPDT_CONN_ACTIVE ||
	    !c->sb_ring)
		goto out;
	now = mpdt_now();
	rto = mpdt_sb_rto_deadline(&c->sb, mpdt_conn_rto(c),
				   us_to_ns(p->rto_max_us));
	probe = mpdt_sb_probe_deadline(&c->sb, probe_interval(c));
	if (rto && now >= rto)
		on_rto(c, now);
	else if (probe && now >= probe)
		send_probe(c, now);
	if (c->state == MPDT_CONN_ACTIVE)
		mpdt_conn_push(c);
out:
	spin_unlock(&msk->lock);
	return HRTIMER_NORESTART;
}
