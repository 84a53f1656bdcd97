// SPDX-License-Identifier: GPL-2.0
/*
 * Parameter validation (net/mpdt/params.c): every set that would make a
 * divisor zero or a rule meaningless is refused with its own message (the
 * netlink extack message).  And the second line: every load balancing
 * policy and congestion control, driven with parameters the validation
 * would refuse (a BDP of 0, all zeros) or accepts at its extremes, never
 * traps (UBSan: division by zero, shifts, signed overflow) nor leaves its
 * bounds.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

/* The module's defaults (main.c). */
static struct mpdt_params defaults(void)
{
	return mpdt_module_defaults;
}

/* Every tunable at the low (or high) end of its range. */
static struct mpdt_params at_range_ends(bool high)
{
	struct mpdt_params p;
	unsigned int i;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < mpdt_param_count; i++) {
		const struct mpdt_param_desc *d = &mpdt_param_descs[i];

		*mpdt_param_field(&p, d) = high ? d->max : d->min;
	}
	return p;
}

static const char *why(const struct mpdt_params *p)
{
	const char *w = mpdt_params_invalid(p);

	return w ? w : "(accepted)";
}

TEST(module_defaults_are_valid)
{
	struct mpdt_params p = defaults();

	EXPECT_STREQ("(accepted)", why(&p));
}

TEST(earlier_rules_keep_their_messages)
{
	struct mpdt_params p = defaults();

	p.payload = 10;
	EXPECT_STREQ("parameter out of range", why(&p));
	p = defaults();
	p.rto_min_us = p.rto_max_us + 1;
	EXPECT_STREQ("rto-min-us must not exceed rto-max-us", why(&p));
}

/* Issue #9: link-mbps 1 base-rtt-us 1 made the BDP 0 and smartt_fd()
 * divide by it in softirq.
 */
TEST(bdp_below_one_payload_is_refused)
{
	const char *msg = "link-mbps * base-rtt-us / 8 (the BDP) must be at least one payload";
	struct mpdt_params p = defaults();

	p.link_mbps = 1;
	p.base_rtt_us = 1;
	EXPECT_EQ(0ULL, mpdt_bdp(&p));
	EXPECT_STREQ(msg, why(&p));
	p.base_rtt_us = 8 * p.payload - 1;	/* BDP = payload - 1 */
	EXPECT_STREQ(msg, why(&p));
	/* One payload: the smallest network the algorithms can size for. */
	p.base_rtt_us = 8 * p.payload;
	EXPECT_STREQ("(accepted)", why(&p));
}

TEST(fixed_cwnd_below_one_payload_is_refused)
{
	struct mpdt_params p = defaults();

	p.fixed_cwnd = p.payload - 1;
	EXPECT_STREQ("fixed-cwnd must be 0 (one BDP) or at least one payload",
		     why(&p));
	p.fixed_cwnd = p.payload;
	EXPECT_STREQ("(accepted)", why(&p));
	p.fixed_cwnd = 0;
	EXPECT_STREQ("(accepted)", why(&p));
}

/* A BDP of 125000 bytes: 1% is 1250 bytes, below a 1400-byte packet. */
static struct mpdt_params described(void)
{
	struct mpdt_params p = defaults();

	p.link_mbps = 10000;
	p.base_rtt_us = 100;
	return p;
}

TEST(largest_windows_below_one_payload_are_refused)
{
	struct mpdt_params p = described();

	p.strack_max_cwnd_pct = 1;
	EXPECT_STREQ("strack-max-cwnd-pct of the BDP must be at least one payload",
		     why(&p));
	p = described();
	p.smartt_max_cwnd_pct = 1;
	EXPECT_STREQ("smartt-max-cwnd-pct of the BDP must be at least one payload",
		     why(&p));
	p = described();
	p.mcc_max_cwnd_pct = 1;
	EXPECT_STREQ("mcc-max-cwnd-pct of the BDP must be at least one payload",
		     why(&p));
	p.mcc_max_cwnd_pct = 2;			/* 2500 bytes */
	EXPECT_STREQ("(accepted)", why(&p));
	/* A measured BDP is never below a payload: nothing to refuse. */
	p.mcc_max_cwnd_pct = 1;
	p.base_rtt_us = 0;
	EXPECT_STREQ("(accepted)", why(&p));
}

TEST(smartt_fast_rtt_at_or_above_trtt_is_refused)
{
	struct mpdt_params p = defaults();

	p.smartt_fast_rtt_pct = p.smartt_trtt_pct;
	EXPECT_STREQ("smartt-fast-rtt-pct must be below smartt-trtt-pct",
		     why(&p));
	p.smartt_fast_rtt_pct = p.smartt_trtt_pct - 1;
	EXPECT_STREQ("(accepted)", why(&p));
}

TEST(mcc_chunk_below_one_payload_is_refused)
{
	struct mpdt_params p = defaults();

	p.mcc_chunk_bytes = p.payload - 1;
	EXPECT_STREQ("mcc-chunk-bytes must be 0 (automatic) or at least one payload",
		     why(&p));
	p.mcc_chunk_bytes = p.payload;
	EXPECT_STREQ("(accepted)", why(&p));
	p.mcc_chunk_bytes = 0;
	EXPECT_STREQ("(accepted)", why(&p));
}

/* PRIME §III-D: the MP-EV of prime-tiers parts of prime-uplinks values
 * each must be used as configured; "prime" would otherwise drop tiers or
 * cut the part silently.
 */
TEST(prime_layout_that_does_not_fit_is_refused)
{
	const char *msg = "prime-uplinks ^ prime-tiers paths must fit in entropies and in 1024";
	struct mpdt_params p = defaults();

	p.prime_tiers = 2;
	EXPECT_STREQ("prime-tiers above 1 needs prime-uplinks", why(&p));
	p.prime_uplinks = 4;			/* EVs 0 .. 15 of 256 */
	EXPECT_STREQ("(accepted)", why(&p));
	p.entropies = 15;
	EXPECT_STREQ(msg, why(&p));
	p.entropies = 256;
	p.prime_uplinks = 64;			/* 4096 paths */
	EXPECT_STREQ(msg, why(&p));
	p.prime_tiers = 1;
	p.prime_uplinks = 257;			/* above the entropies */
	EXPECT_STREQ(msg, why(&p));
	p.prime_uplinks = 256;
	EXPECT_STREQ("(accepted)", why(&p));
	p.prime_uplinks = 1;
	p.prime_tiers = 2;
	EXPECT_STREQ(msg, why(&p));
}

/* The low end of every range measures the path (link-mbps and base-rtt-us
 * 0) and is consistent; with the smallest link and base RTT configured
 * instead, the BDP is 0 bytes: refused.
 */
TEST(every_range_minimum_together_is_refused)
{
	struct mpdt_params p = at_range_ends(false);

	EXPECT_STREQ("(accepted)", why(&p));
	p.link_mbps = 1;
	p.base_rtt_us = 1;
	EXPECT_STREQ("link-mbps * base-rtt-us / 8 (the BDP) must be at least one payload",
		     why(&p));
}

/* --- the algorithms never trap, whatever the parameters ------------------ */

/* The parameter sets the algorithms are driven with. */
enum hostile_set {
	SET_BDP_ZERO,		/* issue #9: link-mbps 1 base-rtt-us 1 */
	SET_MIN,		/* every tunable at its minimum */
	SET_MAX,		/* every tunable at its maximum */
	SET_ZERO,		/* all zero: only the core's own guards */
	__SET_MAX
};

static struct mpdt_params hostile_params(enum hostile_set set)
{
	struct mpdt_params p;

	switch (set) {
	case SET_BDP_ZERO:
		p = defaults();
		p.link_mbps = 1;
		p.base_rtt_us = 1;
		return p;
	case SET_MIN:
		return at_range_ends(false);
	case SET_MAX:
		return at_range_ends(true);
	default:
		memset(&p, 0, sizeof(p));
		return p;
	}
}

/* A congestion control as conn.c drives it (mss = payload), with random
 * signals at their extremes; false if the window ever left [mss, 2^31).
 */
static bool cc_survives(const struct mpdt_cc_ops *ops,
			const struct mpdt_params *p, u64 seed)
{
	struct unit_rng rng = { .state = seed };
	struct mpdt_cc cc;
	u64 now = UNIT_MS(1);
	bool ok = true;
	int i;

	unit_cc_start(&cc, ops, p, p->payload);
	for (i = 0; i < 3000 && ok; i++) {
		now += unit_rand_below(&rng, 1000000);
		switch (unit_rand_below(&rng, 8)) {
		case 0:
			if (ops->on_nack)
				ops->on_nack(&cc, 1 + unit_rand_below(&rng, 3),
					     now);
			break;
		case 1:
			if (ops->on_timeout)
				ops->on_timeout(&cc, now);
			break;
		case 2:
			if (ops->on_message_done)
				ops->on_message_done(&cc,
						     unit_rand_below(&rng, 1U << 24),
						     unit_rand(&rng) >> unit_rand_below(&rng, 64),
						     now);
			break;
		default:
			if (ops->on_ack)
				unit_cc_ack(&cc, now,
					    unit_rand_below(&rng, 4) ?
					    unit_rand_below(&rng, 1U << 30) :
					    MPDT_RTT_SAMPLE_MAX,
					    unit_rand(&rng) >> unit_rand_below(&rng, 64),
					    unit_rand(&rng) >> 20,
					    (u16)unit_rand(&rng));
		}
		ok = cc.cwnd >= cc.mss && cc.cwnd <= 0x7fffffff;
	}
	if (ops == &mpdt_cc_mcc)
		ok = ok && mpdt_mcc_window_msgs(&cc) >= 1;
	unit_cc_stop(&cc);
	return ok;
}

TEST(every_cc_survives_hostile_parameters)
{
	const struct mpdt_cc_ops *ops;
	struct mpdt_params p;
	unsigned int i, set;

	for (set = 0; set < __SET_MAX; set++) {
		p = hostile_params(set);
		for (i = 0; (ops = mpdt_cc_at(i)); i++)
			EXPECT_TRUE(cc_survives(ops, &p, 7 + set))
				TH_LOG("cc %s, parameter set %u", ops->name,
				       set);
	}
}

/* A policy as conn.c allocates and drives it; the EVs it picks are below
 * the entropies (or 0 when there are none).
 */
static u32 lb_bad_evs(const struct mpdt_lb_ops *ops,
		      const struct mpdt_params *p, u64 seed)
{
	struct unit_rng rng = { .state = seed };
	struct mpdt_lb_ctx ctx;
	struct mpdt_lb lb;
	u32 i, bad = 0;
	u16 ev;

	unit_lb_start(&lb, ops, p, seed);
	for (i = 0; i < 3000; i++) {
		memset(&ctx, 0, sizeof(ctx));
		ctx.now = UNIT_US(i);
		ctx.psn = i;
		ctx.cwnd_pkts = 1 + unit_rand_below(&rng, 1U << 20);
		ctx.bdp_pkts = 1 + unit_rand_below(&rng, 1U << 20);
		ctx.rtt_ns = unit_rand_below(&rng, 1U << 30);
		ctx.resend = !unit_rand_below(&rng, 10);
		ev = ops->choose_ev(&lb, &ctx);
		bad += ev >= max(p->entropies, 1U);
		if (!unit_rand_below(&rng, 4))
			ev = (u16)unit_rand(&rng);
		switch (unit_rand_below(&rng, 4)) {
		case 0:
			unit_lb_nack(&lb, ctx.now, ev,
				     1 + unit_rand_below(&rng, 3));
			break;
		case 1:
			if (ops->on_loss)
				ops->on_loss(&lb, ev, unit_rand_below(&rng, 2),
					     ctx.now);
			break;
		default:
			unit_lb_ack(&lb, ctx.now, ev, unit_rand_below(&rng, 2));
		}
	}
	unit_lb_stop(&lb);
	return bad;
}

TEST(every_lb_survives_hostile_parameters)
{
	const struct mpdt_lb_ops *ops;
	struct mpdt_params p;
	unsigned int i, set;

	for (set = 0; set < __SET_MAX; set++) {
		p = hostile_params(set);
		for (i = 0; (ops = mpdt_lb_at(i)); i++)
			EXPECT_EQ(0U, lb_bad_evs(ops, &p, 11 + set))
				TH_LOG("lb %s, parameter set %u", ops->name,
				       set);
	}
}

/* The source port of every entropy value, for any pair of entropy-base
 * and entropies: a valid pair's range, and never port 0 or past 65535
 * for a pair read while an operator changes both (a new base with an old
 * count: 60000 + 64000 wrapped to 0 before).
 */
TEST(entropy_ports_stay_in_range_whatever_pair_is_read)
{
	static const u32 pairs[][2] = {
		{ 49152, 256 }, { 1, 65535 }, { 65535, 1 },
		{ 60000, 64000 }, { 65535, 65535 }, { 0, 0 }, { 70000, 9 },
	};
	unsigned int i, ev;

	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		u32 base = pairs[i][0], n = pairs[i][1], lo, hi, bad = 0;

		lo = clamp(base, 1U, 65535U);
		hi = base >= 1 && base + n <= 65536 ? base + n : 65536;
		for (ev = 0; ev <= 0xffff; ev++) {
			u32 port = mpdt_ev_port(base, n, ev);

			bad += port < lo || port >= hi;
		}
		EXPECT_EQ(0U, bad) TH_LOG("entropy-base %u, entropies %u",
					  base, n);
	}
}

TEST_HARNESS_MAIN
