// SPDX-License-Identifier: GPL-2.0
/*
 * "smartt": SMaRTT's congestion control (smartt-reps.txt §3, Algorithm
 * 1-3, §3.5 parameters, §3.6.1 Wait to Decrease).  Per SACK, ECN and the
 * RTT against trtt = 1.5 base RTTs pick one of four reactions; QuickAdapt
 * resets the window to what was delivered in the last trtt after a
 * trimmed packet or a timeout; FastIncrease reclaims an idle network.
 * Pure core.
 *
 * How MPDT reads the paper where it is terse:
 * - p.size is the SACK's acked_bytes (a coalesced ACK is many packets);
 *   a trimmed or timed out packet counts one MSS (Algorithm 1 line 29).
 *   Eq. 1-4 are linear in p.size, so one SACK acts as its packets would
 *   one by one; FastIncrease (§3.4) adds k MTUs per packet acknowledged,
 *   ceil(acked_bytes / MSS) of them, and Wait to Decrease (§3.6.1)
 *   updates its average once per packet.
 * - §3.2.2 and §3.2.4 say MD is followed by FD and MI by FI; the second
 *   step sees the window the first left.  MD and its FD together take at
 *   most p.size (§3.2.2 "in any case ... at most by the acknowledged
 *   packet's size"); FD alone is capped the same way, which it reaches
 *   only at 1.25 BDP with fd = 0.8.
 * - §3.5 scales fi and mi by BDP / reference BDP and keeps fd and md;
 *   the window lies in [MTU, 1.25 BDP] (§3.5, not Algorithm 1's BDP).
 * - The mtu of eq. 3 and 4 is the 4 KiB fi and mi were tuned with (§4;
 *   MPDT_CC_REF_MTU), not the MSS: FI and MI then add the same share of
 *   the BDP per RTT at any packet size, as FD and MD (ratios) take.  With
 *   an MSS of 1400 they added a third of it; in the ns-3 model's quick
 *   set (Documentation/sim.rst) the 16:1 trimmed incast then ended at
 *   1.31x ideal against 1.12x.  Where MTU means a packet (FastIncrease's
 *   k per packet acknowledged, the trim's cut, the least window) it is
 *   the MSS.
 * - "unacked" (Algorithm 2 line 8) is the inflight of the latest SACK:
 *   NACK and timeout hooks do not carry it.
 * - §3.3 ignores "the congestion information carried by all the unacked
 *   packets" at a QuickAdapt: their ACKs (Alg. 1 line 8) and their trims
 *   and timeouts alike, which count towards bytes_ignored (line 5) and
 *   neither cut nor re-arm QuickAdapt (Algorithm 1 as printed cuts and
 *   re-arms on them).  acked (line 4) counts only what is not ignored,
 *   and the trtt it is measured over (Alg. 2 "end") starts again once
 *   the ignored flight is resolved: QuickAdapt sets the window to the
 *   bytes "received over the last trtt", never to a sum over the whole
 *   ignore period (line 4 as printed adds before the ignore check).
 * - Without trimming, md doubles (§3.3 "QuickAdapt without trimming")
 *   until the first TRIMMED NACK shows the fabric trims.
 * - A timeout found spurious (the undo hook, RFC 4015's response) gets the
 *   window back as it was before it, and QuickAdapt's state too: the
 *   adaptation it asked for, pending or done, and the flight it ignored.  The paper
 *   has no spurious timeouts; a stalled host makes them (issue #11).
 * - WTD's average with a SACK of n packets and m CE marks moves n times
 *   by a sample of m / n.  §3.6.1 gives no alpha, only the meaning of
 *   the 0.25 threshold, "25 percent or more of the acks" marked; the
 *   default alpha (main.c) is small enough for the average to keep it.
 */
#include "cc.h"
#include "wire.h"

#define SMARTT_PPM	1000000ULL
#define SMARTT_WTD_MAX	1024	/* packets one SACK moves the average by */

/* QuickAdapt's state (Algorithm 2, §3.3): all a timeout can change beside
 * the window, so all its undo puts back.
 */
struct smartt_qa {
	u64 acked;		/* Alg. 1 line 4, since end was set */
	u64 bytes_ignored;	/* Alg. 1 line 5 */
	u64 bytes_to_ignore;	/* Alg. 2 line 8 */
	u64 end;		/* Alg. 2 "end"; 0 before the first SACK */
	bool trigger;		/* Alg. 1 line 30 */
	bool ignoring;		/* bytes_ignored < bytes_to_ignore (line 8) */
};

struct smartt {
	struct mpdt_smartt_consts k;
	struct smartt_qa qa;
	u64 fast_count;		/* Alg. 3 "count" */
	u64 fast_rtt_ns;	/* Alg. 3 "rtt ~ brtt": at most this */
	u64 inflight;		/* of the latest SACK: Alg. 2 "unacked" */
	u64 wtd_avg;		/* §3.6.1 avg_wtd, ppm */
	u32 fd_pm, md_pct, qa_pct, fast_k, wtd_alpha_pm, wtd_thresh_pm;
	bool fast_inc;		/* Alg. 3 "increase" */
	bool seen_trim;		/* the fabric trims: md is not doubled */
	/* Before the latest timeout (the engine calls undo only right after
	 * a SACK judged it); undo_cwnd 0: none to undo.
	 */
	u32 undo_cwnd;
	struct smartt_qa undo_qa;
};

/* §3.2.4: mi = brtt / (trtt - brtt); §3.5: fi and mi scale with BDP. */
void mpdt_smartt_consts(const struct mpdt_params *p, u32 mss,
			struct mpdt_smartt_consts *k)
{
	k->brtt_ns = p->base_rtt_us * MPDT_NSEC_PER_USEC;
	k->trtt_ns = mpdt_mul_div(k->brtt_ns, p->smartt_trtt_pct, 100);
	k->bdp = mpdt_bdp(p);
	k->max_cwnd = mpdt_cc_max_cwnd(p, p->smartt_max_cwnd_pct, mss);
	k->fi = mpdt_cc_ref_scale((u64)p->smartt_fi_pm * 1000, p);
	k->mi = mpdt_cc_ref_scale(mpdt_mul_div(SMARTT_PPM, k->brtt_ns,
					       k->trtt_ns - k->brtt_ns), p);
}

/* §3.5: the constants that scale with the base RTT and the BDP. */
static void smartt_scale(struct smartt *s, const struct mpdt_params *p,
			 u32 mss)
{
	mpdt_smartt_consts(p, mss, &s->k);
	s->fast_rtt_ns = mpdt_mul_div(s->k.brtt_ns, p->smartt_fast_rtt_pct,
				      100);
}

static void smartt_init(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	struct smartt *s = cc->priv;

	smartt_scale(s, p, cc->mss);
	s->fd_pm = p->smartt_fd_pm;
	s->md_pct = p->smartt_md_pct;
	s->qa_pct = p->smartt_qa_scaling_pct;
	s->fast_k = p->smartt_fast_k;
	s->wtd_alpha_pm = p->smartt_wtd_alpha_pm;
	s->wtd_thresh_pm = p->smartt_wtd_thresh_pm;
	cc->cwnd = mpdt_cc_bound(s->k.bdp, s->k.max_cwnd, cc->mss);
}

static void smartt_set(struct mpdt_cc *cc, const struct smartt *s, u64 cwnd)
{
	/* Alg. 1 line 36 with §3.5's bounds. */
	cc->cwnd = mpdt_cc_bound(cwnd, s->k.max_cwnd, cc->mss);
}

static void smartt_rescale(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	struct smartt *s = cc->priv;
	u64 old_bdp = s->k.bdp;

	smartt_scale(s, p, cc->mss);
	/* §3.5: the window starts at one BDP */
	smartt_set(cc, s, mpdt_cc_rescaled(cc->cwnd, old_bdp, s->k.bdp,
					   s->k.max_cwnd));
}

/* The packets a SACK of @bytes acknowledges: a short one is one too. */
static u64 smartt_pkts(u64 bytes, u32 mss)
{
	u64 unit = max(mss, 1U);

	return div64_u64(bytes + unit - 1, unit);
}

/* §3.6.1 Wait to Decrease: may the window shrink on ECN yet? */
static bool smartt_wtd(struct smartt *s, const struct mpdt_cc_ack *a,
		       u32 mss)
{
	u64 pkts = smartt_pkts(a->acked_bytes, mss);
	u64 marks = a->ce_count ? a->ce_count : a->ce;
	u64 cap = SMARTT_WTD_MAX, sample, i;

	pkts = max(pkts, marks);
	if (pkts) {
		sample = div64_u64(marks * SMARTT_PPM, pkts);
		for (i = 0; i < min(pkts, cap); i++)
			s->wtd_avg = div64_u64(s->wtd_avg *
					       (1000 - s->wtd_alpha_pm) +
					       sample * s->wtd_alpha_pm, 1000);
	}
	return s->wtd_avg >= s->wtd_thresh_pm * 1000ULL;
}

/* Algorithm 2: at most once per trtt, the window becomes the bytes
 * acknowledged in the last trtt, and the congestion signals of what is in
 * flight then are ignored (they predate the new window).
 */
static bool smartt_quick_adapt(struct mpdt_cc *cc, struct smartt *s, u64 now)
{
	u64 mss = cc->mss;
	bool adapted = false;

	if (now < s->qa.end)
		return false;
	if (s->qa.trigger && s->qa.end) {
		s->qa.trigger = false;
		adapted = true;
		smartt_set(cc, s, mpdt_mul_div(max(s->qa.acked, mss),
					       s->qa_pct, 100));
		s->qa.bytes_to_ignore = s->inflight;
		s->qa.bytes_ignored = 0;
		s->qa.ignoring = s->qa.bytes_to_ignore > 0;
	}
	s->qa.end = now + s->k.trtt_ns;
	s->qa.acked = 0;
	return adapted;
}

/* Alg. 1 lines 5 and 8 for feedback on @bytes, §3.3: does it belong to
 * the flight the last QuickAdapt ignores?  The feedback that resolves
 * that flight is the first one counted again (line 8 compares with <),
 * and the trtt QuickAdapt measures over starts afresh with it.
 */
static bool smartt_ignored(struct smartt *s, u64 bytes, u64 now)
{
	if (!s->qa.ignoring)
		return false;
	s->qa.bytes_ignored += bytes;
	if (s->qa.bytes_ignored < s->qa.bytes_to_ignore)
		return true;
	s->qa.ignoring = false;
	s->qa.end = now + s->k.trtt_ns;
	s->qa.acked = 0;
	return false;
}

/* Algorithm 3, once per packet the SACK acknowledges: after more than a
 * window of clean bytes, k MTUs for each (§3.4).  The packets before the
 * one that takes count past cwnd add nothing.
 */
static bool smartt_fast_increase(struct mpdt_cc *cc, struct smartt *s,
				 const struct mpdt_cc_ack *a, bool ecn)
{
	u64 pkts = smartt_pkts(a->acked_bytes, cc->mss), count = s->fast_count;

	if (a->rtt_ns > s->fast_rtt_ns || ecn) {
		s->fast_count = 0;
		s->fast_inc = false;
		return false;
	}
	s->fast_count = mpdt_add_sat(count, a->acked_bytes);
	if (!s->fast_inc) {
		if (s->fast_count <= cc->cwnd)
			return false;
		if (count < cc->cwnd)
			pkts -= min(pkts, div64_u64(cc->cwnd - count,
						    max(cc->mss, 1U)));
		s->fast_inc = true;
	}
	smartt_set(cc, s, mpdt_add_sat(cc->cwnd,
				       mpdt_mul_div(pkts, (u64)s->fast_k *
							  cc->mss, 1)));
	return true;
}

/* §3.2.1 eq. 1: cwnd / bdp * fd * size, what FD takes */
static u64 smartt_fd(const struct smartt *s, u64 cwnd, u64 size)
{
	return mpdt_mul_div(cwnd * s->fd_pm, size, s->k.bdp * 1000);
}

/* §3.2.2 eq. 2: min(size, (rtt - trtt) / rtt * md * size), what MD takes */
static u64 smartt_md(const struct smartt *s, u64 size, u64 rtt)
{
	u64 md = s->seen_trim ? s->md_pct : 2ULL * s->md_pct;

	return min(size, mpdt_mul_div(size * md, rtt - s->k.trtt_ns,
				      rtt * 100));
}

/* §3.2.3 eq. 3: cwnd += size / cwnd * mtu * fi */
static u64 smartt_fi(const struct smartt *s, u64 cwnd, u64 size)
{
	return mpdt_add_sat(cwnd, mpdt_mul_div(size * MPDT_CC_REF_MTU, s->k.fi,
					       cwnd * SMARTT_PPM));
}

/* §3.2.4 eq. 4: cwnd += min(size, (trtt - rtt) / rtt * size / cwnd *
 * mtu * mi)
 */
static u64 smartt_mi(const struct smartt *s, u64 cwnd, u64 size, u64 rtt)
{
	u64 inc = mpdt_mul_div(size * MPDT_CC_REF_MTU, s->k.mi, cwnd);

	inc = mpdt_mul_div(inc, s->k.trtt_ns - rtt, rtt * SMARTT_PPM);
	return mpdt_add_sat(cwnd, min(size, inc));
}

/* Algorithm 1 lines 19-27: the four quadrants. */
static void smartt_quadrants(struct mpdt_cc *cc, struct smartt *s,
			     const struct mpdt_cc_ack *a, bool ecn,
			     bool can_decrease)
{
	u64 cwnd = cc->cwnd, size = a->acked_bytes, rtt = a->rtt_ns, dec = 0;

	if (ecn && !can_decrease)
		return;
	if (ecn) {
		/* MD (§3.2.2) then FD (§3.2.1), at most size in all */
		if (rtt > s->k.trtt_ns)
			dec = smartt_md(s, size, rtt);
		dec = mpdt_add_sat(dec, smartt_fd(s, cwnd - min(cwnd, dec),
						  size));
		cwnd -= min3(cwnd, size, dec);
	} else {
		if (rtt <= s->k.trtt_ns)
			cwnd = smartt_mi(s, max(cwnd, 1ULL), size, rtt);
		cwnd = smartt_fi(s, max(cwnd, 1ULL), size);
	}
	smartt_set(cc, s, cwnd);
}

/* Algorithm 1 lines 4-27. */
static void smartt_on_ack(struct mpdt_cc *cc, const struct mpdt_cc_ack *a)
{
	struct smartt *s = cc->priv;
	bool ecn = a->ce || a->ce_count, can_decrease, adapted, fast;

	s->inflight = a->inflight;
	if (s->qa.ignoring) {
		if (smartt_ignored(s, a->acked_bytes, a->now))
			return;
		/* what this SACK delivered beyond the ignored flight */
		s->qa.acked = s->qa.bytes_ignored - s->qa.bytes_to_ignore;
	} else {
		s->qa.acked += a->acked_bytes;
	}
	can_decrease = smartt_wtd(s, a, cc->mss);
	adapted = smartt_quick_adapt(cc, s, a->now);
	if (!a->rtt_ns)
		return;		/* nothing to place in a quadrant */
	fast = smartt_fast_increase(cc, s, a, ecn);
	if (adapted || fast)
		return;
	smartt_quadrants(cc, s, a, ecn, can_decrease);
}

/* Algorithm 1 lines 28-34: a trimmed packet or a timeout, one MSS; none
 * of it while the flight of the last QuickAdapt is ignored (§3.3).
 */
static void smartt_loss(struct mpdt_cc *cc, struct smartt *s, u64 now)
{
	if (smartt_ignored(s, cc->mss, now))
		return;
	smartt_set(cc, s, cc->cwnd - min(cc->cwnd, cc->mss));
	s->qa.trigger = true;
	smartt_quick_adapt(cc, s, now);
}

/* Only trimming is a fabric congestion signal: NO_BUFFER is the
 * receiver's memory and FLOWLET_GAP reordering between flowlets.
 */
static void smartt_on_nack(struct mpdt_cc *cc, u8 code, u64 now)
{
	struct smartt *s = cc->priv;

	if (code != MPDT_NACK_TRIMMED)
		return;
	s->seen_trim = true;
	smartt_loss(cc, s, now);
}

static void smartt_on_timeout(struct mpdt_cc *cc, u64 now)
{
	struct smartt *s = cc->priv;

	s->undo_cwnd = cc->cwnd;
	s->undo_qa = s->qa;
	smartt_loss(cc, s, now);
}

static void smartt_undo(struct mpdt_cc *cc)
{
	struct smartt *s = cc->priv;

	if (!s->undo_cwnd)
		return;
	smartt_set(cc, s, max(cc->cwnd, s->undo_cwnd));
	s->qa = s->undo_qa;
	s->undo_cwnd = 0;
}

const struct mpdt_cc_ops mpdt_cc_smartt = {
	.name		= "smartt",
	.priv_size	= sizeof(struct smartt),
	.init		= smartt_init,
	.on_ack		= smartt_on_ack,
	.on_nack	= smartt_on_nack,
	.on_timeout	= smartt_on_timeout,
	.undo		= smartt_undo,
	.rescale	= smartt_rescale,
};
