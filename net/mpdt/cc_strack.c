// SPDX-License-Identifier: GPL-2.0
/*
 * "strack": STrack's congestion control (strack.txt §2.2.2, §3.2,
 * Algo 1, 3 and 4, Table 1).  One window for all paths, driven by the
 * RTT: ECN alone only moves traffic to other paths (the "bitmap" load
 * balancer), the window is cut when the queuing delay says most paths are
 * congested.  Pure core.
 *
 * How MPDT reads the pseudocode where it is terse:
 * - Algo 3 writes the increases per ACK as "cwnd += x / cwnd" with cwnd
 *   in packets; a coalesced SACK acknowledging A bytes counts as A / MTU
 *   such ACKs, so in bytes the increase is x * A / cwnd: x per window.
 * - alpha (Table 1) is in bytes per unit of delay: 4 * MTU * bdp_sf per
 *   base RTT below the target, without Table 1's delay_sf (see
 *   mpdt_strack_consts()).
 * - achievedBDP == 0 means "not measured yet" (Algo 1 line 13 tests it
 *   so); line 11 only uses a measured one.
 * - avg_delay starts at the first sample rather than at 0.
 * - No reaction to NACKs or timeouts: STrack assumes silent drops (§2.2.2)
 *   and reacts to the RTT of what still arrives.
 * - Line 14 leaves the bursts' budget (cc.h) on a path that never marked
 *   ECN: there the delay it reads is the bursts' own (strack_decrease()).
 */
#include "cc.h"

#define STRACK_PPM	1000000ULL

struct strack {
	struct mpdt_strack_consts k;
	u64 base_rtt;		/* ns; Algo 1 lines 7-9 lower it to samples */
	u64 avg_delay;		/* ns; Algo 3 line 4 */
	u64 last_decrease;	/* ns; Algo 3 line 2 */
	u64 last_selfai;	/* ns; Algo 3 line 3 */
	u64 rx_count;		/* Algo 4: bytes since rxcount_clear_ts */
	u64 rxcount_clear_ts;	/* 0 until the first SACK */
	u64 achieved_bdp;	/* bytes; 0 until one window was measured */
	u32 ewma_pm, gamma_pm, floor_pm, achieved_div;
	bool have_avg;		/* avg_delay holds a sample */
};

/* Table 1 at any network.  Its values were tuned at 100 Gbit/s and 12 us
 * (a BDP of B0 = 150000 bytes) and are scaled by bdp_sf = BDP / B0 and
 * delay_sf = base_rtt / 12 us "to adapt to various network speeds and
 * network latency" (§3.2).  What has to carry over is how the window
 * moves in units of this network's BDP and base RTT.  MTU is the 4 KiB
 * Table 1 was tuned with (§4; MPDT_CC_REF_MTU), not the connection's MSS:
 * with an MSS of 1400 each increase would be a third of the share of the
 * BDP the authors tuned, and in the ns-3 model's 128-host permutation
 * (Documentation/sim.rst) the flows the start-up's queues cut took three
 * times as long to grow back (max FCT 2.27x ideal against 1.96x).  At
 * the reference point:
 * - line 6 adds beta per window of ACKs (about an RTT):
 *   beta / BDP = 5 * MTU / B0;
 * - line 8 adds alpha * (target_Qdelay - delay) per window; per base RTT
 *   of delay below the target that is alpha * base_rtt / BDP =
 *   4 * MTU / B0 of the BDP (the whole increase at no delay, the target
 *   being the base RTT);
 * - line 19 adds eta per base RTT: eta / BDP = 0.15 * MTU / B0;
 * - line 14 cuts by gamma * (avg_delay - target) / avg_delay, a ratio of
 *   delays; target_Qdelay (the base RTT unless set) and target_Qhigh
 *   (3 x target) are multiples of the base RTT, and line 10 compares
 *   achievedBDP with a share of max_cwnd, itself a share of the BDP: all
 *   without units already.  ewma stays a weight per RTT sample: how many
 *   samples an RTT brings depends on packets per BDP and on SACK
 *   coalescing, which Table 1 does not scale by.
 * bdp_sf alone keeps beta and eta so.  Table 1's alpha, 4 * bdp_sf *
 * delay_sf * MTU / base_rtt, does not: delay_sf cancels the division, and
 * the increase per base RTT, alpha * base_rtt = 4 * MTU * bdp_sf *
 * delay_sf, is delay_sf times the reference's share of the BDP.  At
 * 10 Mbit/s x 10 ms delay_sf is 833, 91 BDPs per RTT:
 * one SACK below the target fills the window to its maximum, the queue
 * that builds cuts it, and the window goes on and off.  MPDT leaves
 * delay_sf out: alpha = 4 * MTU * bdp_sf / base_rtt, Table 1's value at
 * the reference (delay_sf = 1) and the same share of the BDP per base RTT
 * at any link speed and base RTT.
 *
 * Each constant is the floor of its exact value (a floor of a floor by
 * an integer is one floor): beta, eta and alpha are below theirs by less
 * than a byte, a byte and a millionth of a byte per ns.
 */
void mpdt_strack_consts(const struct mpdt_params *p, u32 mss,
			struct mpdt_strack_consts *k)
{
	u64 base_rtt = p->base_rtt_us * MPDT_NSEC_PER_USEC;
	u64 a;

	k->target_ns = p->strack_target_qdelay_us ?
		       p->strack_target_qdelay_us * MPDT_NSEC_PER_USEC :
		       base_rtt;
	k->qhigh_ns = mpdt_mul_div(k->target_ns, p->strack_qhigh_pct, 100);
	k->max_cwnd = mpdt_cc_max_cwnd(p, p->strack_max_cwnd_pct, mss);
	k->budget = mpdt_cc_burst_budget(p, mss);
	/* beta = 5 * MTU * bdp_sf, eta = 0.15 * MTU * bdp_sf */
	k->beta = mpdt_cc_ref_scale(MPDT_CC_REF_MTU * p->strack_beta_pct, p) /
		  100;
	k->eta = mpdt_cc_ref_scale(MPDT_CC_REF_MTU * p->strack_eta_pct, p) /
		 100;
	/* alpha = 4 * MTU * bdp_sf / base_rtt, in millionths of a byte per
	 * ns: the BDP's share per base RTT of the reference, not its
	 * delay_sf multiple (above).
	 */
	a = mpdt_cc_ref_scale(MPDT_CC_REF_MTU * p->strack_alpha_pct *
			      (STRACK_PPM / 100), p);
	k->alpha = mpdt_div(a, base_rtt);
}

/* The path's base RTT or BDP moved (Algo 1 lines 7-9 take the lowest
 * sample, the engine's windowed one): Table 1 scaled to the new values.
 */
static void strack_rescale(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	struct strack *s = cc->priv;
	u64 old_max = s->k.max_cwnd;

	mpdt_strack_consts(p, cc->mss, &s->k);
	s->base_rtt = p->base_rtt_us * MPDT_NSEC_PER_USEC;
	/* §2.2.2: STrack starts at its largest window. */
	cc->cwnd = mpdt_cc_bound(mpdt_cc_rescaled(cc->cwnd, old_max,
						  s->k.max_cwnd, s->k.max_cwnd),
				 s->k.max_cwnd, cc->mss);
}

static void strack_init(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	struct strack *s = cc->priv;

	mpdt_strack_consts(p, cc->mss, &s->k);
	s->base_rtt = p->base_rtt_us * MPDT_NSEC_PER_USEC;
	s->ewma_pm = p->strack_ewma_pm;
	s->gamma_pm = p->strack_gamma_pm;
	s->floor_pm = p->strack_md_floor_pct * 10;
	s->achieved_div = p->strack_achieved_div;
	/* §2.2.2 scenario 1: an idle network runs at the largest window. */
	cc->cwnd = mpdt_cc_bound(s->k.max_cwnd, s->k.max_cwnd, cc->mss);
}

/* Algo 4: bytes acknowledged over each base_rtt + target_Qdelay. */
static void strack_achieved_bdp(struct strack *s, const struct mpdt_cc_ack *a)
{
	if (!s->rxcount_clear_ts)
		s->rxcount_clear_ts = a->now;
	s->rx_count += a->probe ? 0 : a->acked_bytes;
	if (a->now - s->rxcount_clear_ts > s->base_rtt + s->k.target_ns) {
		s->achieved_bdp = s->rx_count;
		s->rx_count = 0;
		s->rxcount_clear_ts = a->now;
	}
}

/* Algo 3 line 4, in per mille. */
static void strack_avg_delay(struct strack *s, u64 delay)
{
	if (!s->have_avg)
		s->avg_delay = delay;
	else
		s->avg_delay = div64_u64(s->avg_delay * (1000 - s->ewma_pm) +
					 delay * s->ewma_pm, 1000);
	s->have_avg = true;
}

/* Algo 3 lines 9-16: the window after a decrease, or @cwnd if none.
 *
 * Line 14 never cuts below the bursts' budget (cc.h), three bursts on a
 * path that never marked ECN, a packet on any other.  There the delay
 * between target_Qdelay and target_Qhigh, which line 14 reads as a
 * queue, is the bursts' own: each packet of a burst waits behind those
 * before it, and its SACK behind the last.  Over a veth (a BDP of 18 KB
 * against bursts of 22 KB) a window cut below the budget kept the RTT
 * in that band (95-150 us against 28), so line 14 went on cutting: the
 * window settled at 9-17 KB, one vCPU idled and one connection moved
 * 750-1600 Mbit/s, against 1280-1840 where the window stayed at its
 * largest (Documentation/perf.rst).  A path that marks takes the
 * paper's window, down to a packet: its switch has the queue, and ECN
 * says where.
 */
static u64 strack_decrease(struct strack *s, u64 cwnd, u64 delay, u64 now)
{
	const struct mpdt_strack_consts *k = &s->k;
	u64 cut, factor;

	if (delay > k->qhigh_ns && s->achieved_bdp &&
	    s->achieved_bdp < mpdt_div(k->max_cwnd, s->achieved_div)) {
		/* Heavy incast: jump to what the network delivered. */
		s->last_decrease = now;
		return s->achieved_bdp;
	}
	if (delay <= k->target_ns)
		return cwnd;
	/* max(1 - gamma * (avg - target) / avg, 0.5) */
	cut = mpdt_mul_div(s->gamma_pm, s->avg_delay - k->target_ns,
			   s->avg_delay);
	factor = max(1000 - min(cut, 1000ULL), (u64)s->floor_pm);
	s->last_decrease = now;
	return max(mpdt_mul_div(cwnd, factor, 1000), min(cwnd, k->budget));
}

/* Algo 3: adjust_cwnd(ecn, delay, achievedBDP). */
static void strack_adjust(struct mpdt_cc *cc, struct strack *s, bool ecn,
			  u64 delay, u64 acked, u64 now)
{
	const struct mpdt_strack_consts *k = &s->k;
	bool can_decrease = now - s->last_decrease > s->base_rtt;
	bool can_shuffle = now - s->last_selfai > s->base_rtt;
	u64 cwnd = cc->cwnd, inc;

	if (!ecn && delay > k->qhigh_ns) {
		/* Line 6: a stale long delay but no queue behind it. */
		cwnd = mpdt_add_sat(cwnd, mpdt_mul_div(k->beta, acked, cwnd));
	} else if (!ecn && delay < k->target_ns) {
		/* Line 8: grow by how far below the target the delay is. */
		inc = mpdt_mul_div(k->alpha, k->target_ns - delay, STRACK_PPM);
		cwnd = mpdt_add_sat(cwnd, mpdt_mul_div(inc, acked, cwnd));
	} else if (can_decrease && s->avg_delay > k->target_ns) {
		cwnd = strack_decrease(s, cwnd, delay, now);
	}
	if (can_shuffle) {
		/* Line 19: fairness, and room for packets to explore paths. */
		cwnd = mpdt_add_sat(cwnd, k->eta);
		s->last_selfai = now;
	}
	cc->cwnd = mpdt_cc_bound(cwnd, k->max_cwnd, cc->mss);
}

/* Algo 1 lines 4-17, the congestion control part. */
static void strack_on_ack(struct mpdt_cc *cc, const struct mpdt_cc_ack *a)
{
	struct strack *s = cc->priv;
	u64 delay;

	strack_achieved_bdp(s, a);
	if (!a->rtt_ns)
		return;
	if (a->rtt_ns < s->base_rtt)
		s->base_rtt = a->rtt_ns;
	delay = a->rtt_ns - s->base_rtt;
	strack_avg_delay(s, delay);
	strack_adjust(cc, s, a->ce || a->ce_count, delay, a->acked_bytes,
		      a->now);
}

const struct mpdt_cc_ops mpdt_cc_strack = {
	.name		= "strack",
	.priv_size	= sizeof(struct strack),
	.init		= strack_init,
	.on_ack		= strack_on_ack,
	.rescale	= strack_rescale,
};
