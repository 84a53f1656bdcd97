// SPDX-License-Identifier: GPL-2.0
/*
 * "strack" congestion control (net/mpdt/cc_strack.c) against STrack
 * §3.2: Algo 3 and 4 with Table 1's constants, on scripted SACK traces.
 * Every expected window is worked out by hand in the comments.
 *
 * Unless a test says otherwise: the reference network of Table 1
 * (100 Gbit/s, 12 us: BDP 150000 bytes, bdp_sf = delay_sf = 1) and an MSS
 * of 1200, which makes beta = 6000, eta = 180, alpha = 400 bytes per us
 * (400000 millionths per ns), target_Qdelay 12 us, target_Qhigh 36 us.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

#define MSS	1200
#define BRTT	UNIT_US(12)
#define T0	UNIT_MS(1)

static void start_pct(struct mpdt_cc *cc, u32 max_pct)
{
	struct mpdt_params p = unit_cc_params(100000, 12);

	p.strack_max_cwnd_pct = max_pct;
	unit_cc_start(cc, &mpdt_cc_strack, &p, MSS);
}

/* A SACK of @acked bytes whose packet queued @delay ns. */
static u32 ack(struct mpdt_cc *cc, u64 now, u64 delay, u64 acked, u16 ce)
{
	return unit_cc_ack(cc, now, BRTT + delay, acked, 0, ce);
}

/* Table 1 at the reference network: bdp_sf = delay_sf = 1. */
TEST(strack_constants_at_the_reference_network)
{
	struct mpdt_params p = unit_cc_params(100000, 12);
	struct mpdt_strack_consts k;

	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(12), k.target_ns);	/* = base RTT */
	EXPECT_EQ(UNIT_US(36), k.qhigh_ns);	/* 3 x target */
	EXPECT_EQ(150000U, k.max_cwnd);		/* one BDP */
	EXPECT_EQ(6000U, k.beta);		/* 5 * 1200 */
	EXPECT_EQ(180U, k.eta);			/* 0.15 * 1200 */
	EXPECT_EQ(400000U, k.alpha);		/* 4 * 1200 / 12 us */
	p.strack_target_qdelay_us = 20;
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(20), k.target_ns);
	EXPECT_EQ(UNIT_US(60), k.qhigh_ns);
}

/* 10 Mbit/s x 100 us: BDP 125 bytes, bdp_sf = 125 / 150000,
 * delay_sf = 100 / 12.  beta = 5 * 1200 * bdp_sf = 5 (5.0),
 * eta = 0.15 * 1200 * bdp_sf = 0 (0.15), alpha = 4 * bdp_sf * delay_sf *
 * 1200 / 100 us = 0.000333 bytes per ns = 333 millionths; the window
 * cannot exceed the BDP, so it is one MSS.  1 Gbit/s x 100 us: BDP 12500,
 * bdp_sf = 1/12: beta = 500, eta = 15, alpha = 4 * 1/12 * 100/12 * 1200 /
 * 100 us = 0.0333 bytes per ns, 33333 millionths.
 */
TEST(strack_constants_scale_with_bdp_and_delay)
{
	struct mpdt_params p = unit_cc_params(10, 100);
	struct mpdt_strack_consts k;
	struct mpdt_cc cc;

	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(100), k.target_ns);
	EXPECT_EQ(UNIT_US(300), k.qhigh_ns);
	EXPECT_EQ(5U, k.beta);
	EXPECT_EQ(0U, k.eta);
	EXPECT_EQ(333U, k.alpha);
	EXPECT_EQ(1200U, k.max_cwnd);
	unit_cc_start(&cc, &mpdt_cc_strack, &p, MSS);
	EXPECT_EQ(1200U, cc.cwnd);
	unit_cc_stop(&cc);

	p = unit_cc_params(1000, 100);
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(500U, k.beta);
	EXPECT_EQ(15U, k.eta);
	EXPECT_EQ(33333U, k.alpha);
	EXPECT_EQ(12500U, k.max_cwnd);
}

TEST(strack_starts_at_the_largest_window)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	EXPECT_EQ(150000U, cc.cwnd);
	unit_cc_stop(&cc);
	start_pct(&cc, 200);
	EXPECT_EQ(300000U, cc.cwnd);
	unit_cc_stop(&cc);
}

/* Line 14, once per base RTT (line 2), plus eta each base RTT (line 19).
 * Delay 24 us, avg 24 us: factor 1 - 0.8 * 12 / 24 = 0.6.
 */
TEST(strack_md_at_most_once_per_base_rtt)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	/* 150000 * 0.6 = 90000, + eta 180 */
	EXPECT_EQ(90180U, ack(&cc, T0, UNIT_US(24), MSS, 1));
	/* 1 us later: neither a decrease nor a shuffle is due */
	EXPECT_EQ(90180U, ack(&cc, T0 + UNIT_US(1), UNIT_US(24), MSS, 1));
	EXPECT_EQ(90180U, ack(&cc, T0 + BRTT, UNIT_US(24), MSS, 1));
	/* one ns past a base RTT: 90180 * 0.6 = 54108, + 180 */
	EXPECT_EQ(54288U, ack(&cc, T0 + BRTT + 1, UNIT_US(24), MSS, 1));
	unit_cc_stop(&cc);
}

/* Without ECN, a delay between target and Qhigh also decreases (line 9
 * does not test ecn).  Delay 34 us: 1 - 0.8 * 22 / 34 = 0.4824 -> 0.5.
 */
TEST(strack_md_floor_is_one_half)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	EXPECT_EQ(75180U, ack(&cc, T0, UNIT_US(34), MSS, 0));
	unit_cc_stop(&cc);

	/* Delay above Qhigh before any achievedBDP: MD, floored too. */
	start_pct(&cc, 100);
	EXPECT_EQ(75180U, ack(&cc, T0, UNIT_US(108), MSS, 1));
	unit_cc_stop(&cc);
}

/* Lines 5-8 on a window below its maximum (max 300000: start there, MD
 * once to 180180).
 */
TEST(strack_increases)
{
	struct mpdt_cc cc;

	start_pct(&cc, 200);
	/* 300000 * 0.6 = 180000 + 180 */
	EXPECT_EQ(180180U, ack(&cc, T0, UNIT_US(24), MSS, 1));
	/* line 6, delay 48 > Qhigh, no ECN: beta * 1200 / 180180 = 39.96 */
	EXPECT_EQ(180219U, ack(&cc, T0 + 1000, UNIT_US(48), MSS, 0));
	/* line 8, delay 6 us: alpha * 6 us = 2400 per window,
	 * 2400 * 1200 / 180219 = 15.98
	 */
	EXPECT_EQ(180234U, ack(&cc, T0 + 2000, UNIT_US(6), MSS, 0));
	/* ECN at a low delay: scenario 2, the window holds */
	EXPECT_EQ(180234U, ack(&cc, T0 + 3000, UNIT_US(6), MSS, 1));
	/* a SACK acknowledging nothing grows nothing, but the shuffle is
	 * due one base RTT after the first: + 180
	 */
	EXPECT_EQ(180414U, ack(&cc, T0 + BRTT + 1, 0, 0, 0));
	unit_cc_stop(&cc);
}

/* Algo 1 lines 7-9: a faster sample lowers the base RTT, and the queuing
 * delay is measured from it.
 */
TEST(strack_base_rtt_follows_the_fastest_sample)
{
	struct mpdt_cc cc;

	start_pct(&cc, 200);
	EXPECT_EQ(180180U, ack(&cc, T0, UNIT_US(24), MSS, 1));
	/* rtt 10 us: base 10 us, delay 0: alpha * 12 us = 4800,
	 * 4800 * 1200 / 180180 = 31.97
	 */
	EXPECT_EQ(180211U, unit_cc_ack(&cc, T0 + 1000, UNIT_US(10), MSS, 0,
				       0));
	/* rtt 12 us is now a 2 us delay: alpha * 10 us = 4000,
	 * 4000 * 1200 / 180211 = 26.6
	 */
	EXPECT_EQ(180237U, unit_cc_ack(&cc, T0 + 2000, UNIT_US(12), MSS, 0,
				       0));
	unit_cc_stop(&cc);
}

/* Algo 4 and Algo 3 lines 10-12: achievedBDP is what was acknowledged in
 * base_rtt + target_Qdelay = 24 us; under heavy congestion a small one
 * becomes the window.
 */
TEST(strack_heavy_congestion_uses_achieved_bdp)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	/* delay 0: avg 0; the window is at its maximum */
	EXPECT_EQ(150000U, ack(&cc, T0, 0, MSS, 0));
	/* 24 us + 1 ns later: achievedBDP = 1200 + 3000 */
	EXPECT_EQ(150000U, ack(&cc, T0 + UNIT_US(24) + 1, 0, 3000, 0));
	/* delay 200 us > Qhigh, avg = 200 * 0.125 = 25 us > target,
	 * 4200 < 150000 / 8 = 18750: cwnd = 4200 (no shuffle: 1 us)
	 */
	EXPECT_EQ(4200U, ack(&cc, T0 + UNIT_US(25), UNIT_US(200), MSS, 1));
	unit_cc_stop(&cc);
}

/* achievedBDP >= max_cwnd / 8 is not heavy congestion: MD instead,
 * 1 - 0.8 * (25 - 12) / 25 = 0.584 -> 87600.
 */
TEST(strack_large_achieved_bdp_falls_back_to_md)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	ack(&cc, T0, 0, MSS, 0);
	ack(&cc, T0 + UNIT_US(24) + 1, 0, 18750 - MSS, 0);
	EXPECT_EQ(87600U, ack(&cc, T0 + UNIT_US(25), UNIT_US(200), MSS, 1));
	unit_cc_stop(&cc);
}

/* Algo 4 line 3: a probe's SACK adds nothing to rx_count. */
TEST(strack_probe_bytes_do_not_count)
{
	struct mpdt_cc_ack a = {
		.now = T0 + UNIT_US(24) + 1, .rtt_ns = BRTT,
		.acked_bytes = 100000, .probe = true,
	};
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	ack(&cc, T0, 0, MSS, 0);
	cc.ops->on_ack(&cc, &a);
	/* achievedBDP = 1200, not 101200: used, and the floor is an MSS */
	EXPECT_EQ(1200U, ack(&cc, T0 + UNIT_US(25), UNIT_US(200), MSS, 1));
	unit_cc_stop(&cc);
}

/* No sample, no adjustment; a window never leaves [MSS, max]. */
TEST(strack_bounds)
{
	struct mpdt_cc cc;
	u64 now = T0;
	int i;

	start_pct(&cc, 100);
	EXPECT_EQ(150000U, unit_cc_ack(&cc, now, 0, MSS, 0, 1));
	for (i = 0; i < 40; i++) {
		now += BRTT + 1;
		ack(&cc, now, UNIT_US(34), MSS, 1);
	}
	/* halved (+ 180) 40 times: w / 2 + 180 would settle at 360, the
	 * MSS floor holds it at 1200
	 */
	EXPECT_EQ(1200U, cc.cwnd);
	for (i = 0; i < 200; i++) {
		now += BRTT + 1;
		ack(&cc, now, 0, 100000, 0);
	}
	EXPECT_EQ(150000U, cc.cwnd);
	unit_cc_stop(&cc);
}

/*
 * 10 Tbit/s and 10 s, a valid if extreme network, make beta 3.7e12 bytes
 * (MSS 8900): beta * acked / cwnd overflows for a SACK of 2^36 bytes
 * (what a peer may claim after as many sent) and mpdt_mul_div()
 * saturates.  The increase must saturate too, not wrap the window round
 * to one below where it was.
 */
TEST(strack_increase_saturates_instead_of_wrapping)
{
	struct mpdt_params p = unit_cc_params(10000000, 10000000);
	struct mpdt_cc cc;

	unit_cc_start(&cc, &mpdt_cc_strack, &p, 8900);
	/* Line 19 once, so the next SACKs within a base RTT skip it. */
	unit_cc_ack(&cc, UNIT_SEC(100), UNIT_SEC(50), 1, 0, 0);
	cc.cwnd = 8900;			/* as after a run of decreases */
	/* Line 6: delay 40 s > target_Qhigh 30 s, no ECN */
	EXPECT_EQ(0x7fffffffU,
		  unit_cc_ack(&cc, UNIT_SEC(101), UNIT_SEC(50), 1ULL << 36, 0,
			      0));
	cc.cwnd = 8900;
	/* Line 8: no queuing delay */
	EXPECT_EQ(0x7fffffffU,
		  unit_cc_ack(&cc, UNIT_SEC(102), UNIT_SEC(10), 1ULL << 36, 0,
			      0));
	unit_cc_stop(&cc);
}

TEST_HARNESS_MAIN
