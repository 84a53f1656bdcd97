// SPDX-License-Identifier: GPL-2.0
/*
 * "smartt" congestion control (net/mpdt/cc_smartt.c) against SMaRTT §3:
 * the four quadrants (eq. 1-4), QuickAdapt (Alg. 2), FastIncrease
 * (Alg. 3), Wait to Decrease (§3.6.1), the §3.5 parameters and bounds,
 * on scripted SACK, NACK and timeout traces worked out by hand.
 *
 * Unless a test says otherwise: 100 Gbit/s, 12 us (the reference BDP,
 * 150000 bytes, so fi = 0.25 and mi = 12 / (18 - 12) = 2 unscaled),
 * trtt 18 us, MSS 1200, window in [1200, 187500], starting at 150000.
 * FastIncrease counts SACKs with an RTT up to 13.2 us.
 */
#include "unit.h"
#include "algo.h"
#include "wire.h"
#include "kselftest_harness.h"

#define MSS	1200
#define T0	UNIT_MS(1)
#define TRTT	UNIT_US(18)

static void start(struct mpdt_cc *cc)
{
	struct mpdt_params p = unit_cc_params(100000, 12);

	unit_cc_start(cc, &mpdt_cc_smartt, &p, MSS);
}

static u32 ack(struct mpdt_cc *cc, u64 now, u64 rtt, u64 acked, u16 ce)
{
	return unit_cc_ack(cc, now, rtt, acked, 0, ce);
}

static u32 trim(struct mpdt_cc *cc, u64 now)
{
	cc->ops->on_nack(cc, MPDT_NACK_TRIMMED, now);
	return cc->cwnd;
}

/* §3.5: fi and mi scale by BDP / reference BDP, the bounds by BDP. */
TEST(smartt_constants_scale_with_bdp)
{
	struct mpdt_params p = unit_cc_params(100000, 12);
	struct mpdt_smartt_consts k;
	struct mpdt_cc cc;

	mpdt_smartt_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(12), k.brtt_ns);
	EXPECT_EQ(UNIT_US(18), k.trtt_ns);
	EXPECT_EQ(150000U, k.bdp);
	EXPECT_EQ(187500U, k.max_cwnd);		/* 1.25 BDP */
	EXPECT_EQ(250000U, k.fi);		/* 0.25 */
	EXPECT_EQ(2000000U, k.mi);		/* 12 / (18 - 12) */

	/* 10 Mbit/s x 100 us: BDP 125, gamma = 125 / 150000;
	 * fi = 0.25 * gamma = 0.000208, mi = 100 / 50 * gamma = 0.001667;
	 * 1.25 BDP = 156 bytes, below one MSS
	 */
	p = unit_cc_params(10, 100);
	mpdt_smartt_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(150), k.trtt_ns);
	EXPECT_EQ(208U, k.fi);
	EXPECT_EQ(1666U, k.mi);
	EXPECT_EQ(1200U, k.max_cwnd);
	unit_cc_start(&cc, &mpdt_cc_smartt, &p, MSS);
	EXPECT_EQ(1200U, cc.cwnd);
	unit_cc_stop(&cc);
}

/* §3.2.3 FI and §3.2.4 MI (+ FI) on clean SACKs. */
TEST(smartt_fair_and_multiplicative_increase)
{
	struct mpdt_cc cc;

	start(&cc);
	/* rtt 24 > trtt, no ECN: FI 1200 * 1200 * 0.25 / 150000 = 2.4 */
	EXPECT_EQ(150002U, ack(&cc, T0, UNIT_US(24), MSS, 0));
	/* rtt 14 <= trtt: MI (18 - 14) / 14 * 1200 / 150002 * 1200 * 2 =
	 * 5.49 -> 150007, then FI 1440000 * 0.25 / 150007 = 2.39 -> 150009
	 */
	EXPECT_EQ(150009U, ack(&cc, T0 + 1000, UNIT_US(14), MSS, 0));
	unit_cc_stop(&cc);
}

/* §3.6.1: the ECN average, alpha 0.125 per packet, must reach 0.25:
 * 0.125, 0.234, 0.330 after one, two, three marked packets.
 */
TEST(smartt_wait_to_decrease_blocks_decrease_below_threshold)
{
	struct mpdt_cc cc;

	start(&cc);
	EXPECT_EQ(150000U, ack(&cc, T0, UNIT_US(15), MSS, 1));
	EXPECT_EQ(150000U, ack(&cc, T0 + 1000, UNIT_US(15), MSS, 1));
	/* avg 0.330: FD (rtt 15 <= trtt), 150000 / 150000 * 0.8 * 1200 */
	EXPECT_EQ(149040U, ack(&cc, T0 + 2000, UNIT_US(15), MSS, 1));
	/* avg 0.414: MD, (36 - 18) / 36 * 4 (md doubled: no trim seen) *
	 * 1200 = 2400, at most the 1200 acked -> 147840; then FD
	 * 147840 / 150000 * 0.8 * 1200 = 946.2 -> 146894
	 */
	EXPECT_EQ(146894U, ack(&cc, T0 + 3000, UNIT_US(36), MSS, 1));
	unit_cc_stop(&cc);
}

/* One SACK covering three marked packets moves the average three times:
 * 0.330, enough at once.  md is 2 after a trim, 4 without (§3.3).
 */
TEST(smartt_md_doubles_without_trimming)
{
	struct mpdt_cc cc;

	start(&cc);
	/* MD: (24 - 18) / 24 * 4 * 3600 = 3600 -> 146400;
	 * FD: 146400 / 150000 * 0.8 * 3600 = 2810.9 -> 143590
	 */
	EXPECT_EQ(143590U, ack(&cc, T0, UNIT_US(24), 3 * MSS, 3));
	unit_cc_stop(&cc);

	start(&cc);
	/* the trim: - one packet; QuickAdapt only arms its trtt clock */
	EXPECT_EQ(148800U, trim(&cc, T0 - 1000));
	/* MD: 6 / 24 * 2 * 3600 = 1800 -> 147000;
	 * FD: 147000 / 150000 * 0.8 * 3600 = 2822.4 -> 144178
	 */
	EXPECT_EQ(144178U, ack(&cc, T0, UNIT_US(24), 3 * MSS, 3));
	unit_cc_stop(&cc);
}

/* Algorithm 2 on a trace: the window becomes 0.8 x the bytes acked in
 * the last trtt, the signals of what was in flight then are ignored, and
 * a second trim within trtt does not adapt again.
 */
TEST(smartt_quick_adapt_once_per_trtt_ignoring_inflight)
{
	struct mpdt_cc cc;

	start(&cc);
	/* rtt 24 > trtt, no ECN: FI only.  Arms end = T0 + 18 us (acked
	 * restarts at 0); FI
	 * 6000 * 1200 * 0.25 / 150000 = 12
	 */
	EXPECT_EQ(150012U, unit_cc_ack(&cc, T0, UNIT_US(24), 6000, 60000, 0));
	/* acked 12000; FI 12000 * 1200 * 0.25 / 150012 = 23.99 */
	EXPECT_EQ(150035U, unit_cc_ack(&cc, T0 + UNIT_US(5), UNIT_US(24),
				       12000, 50000, 0));
	/* trim: - 1200, QuickAdapt waits for end */
	EXPECT_EQ(148835U, trim(&cc, T0 + UNIT_US(6)));
	/* at end: acked 12000 + 3000 = 15000, cwnd 0.8 * 15000; the 40000
	 * bytes in flight after this SACK are to be ignored
	 */
	EXPECT_EQ(12000U, unit_cc_ack(&cc, T0 + TRTT, UNIT_US(24), 3000,
				      40000, 0));
	/* 30000 of them, heavily marked and late: ignored */
	EXPECT_EQ(12000U, unit_cc_ack(&cc, T0 + TRTT + 1000, UNIT_US(40),
				      30000, 30000, 25));
	/* the last 10000: counted again, FI 10000 * 1200 * 0.25 / 12000 */
	EXPECT_EQ(12250U, unit_cc_ack(&cc, T0 + TRTT + 2000, UNIT_US(24),
				      10000, 20000, 0));
	/* a second trim 3 us after QuickAdapt: - 1200 only */
	EXPECT_EQ(11050U, trim(&cc, T0 + TRTT + 3000));
	/* next end (T0 + 2 trtt): acked 30000 + 10000 + 2400 = 42400,
	 * counted even while ignored: 0.8 * 42400
	 */
	EXPECT_EQ(33920U, unit_cc_ack(&cc, T0 + 2 * TRTT, UNIT_US(24), 2400,
				      8000, 0));
	unit_cc_stop(&cc);
}

/* §3.3: timeouts are the fallback signal, the same reaction as a trim. */
TEST(smartt_timeout_quick_adapts)
{
	struct mpdt_cc cc;

	start(&cc);
	unit_cc_ack(&cc, T0, UNIT_US(15), 0, 5000, 0);
	EXPECT_EQ(150000U, unit_cc_ack(&cc, T0 + UNIT_US(10), 0, 4000, 5000,
				       0));
	cc.ops->on_timeout(&cc, T0 + UNIT_US(11));
	EXPECT_EQ(148800U, cc.cwnd);
	/* at end: 0.8 * 4000 = 3200 */
	EXPECT_EQ(3200U, unit_cc_ack(&cc, T0 + TRTT, 0, 0, 5000, 0));
	/* another timeout before the next end: - 1200 only */
	cc.ops->on_timeout(&cc, T0 + TRTT + 1);
	EXPECT_EQ(2000U, cc.cwnd);
	/* the 5000 in flight then are acked: the next end adapts to them */
	EXPECT_EQ(4000U, unit_cc_ack(&cc, T0 + 2 * TRTT, 0, 5000, 0, 0));
	unit_cc_stop(&cc);
}

/* QuickAdapt on almost nothing: 0.8 * max(500, MTU) = 960, one MSS. */
TEST(smartt_quick_adapt_floor_is_one_mss)
{
	struct mpdt_cc cc;

	start(&cc);
	unit_cc_ack(&cc, T0, UNIT_US(15), 0, 0, 0);
	EXPECT_EQ(148800U, trim(&cc, T0 + 1));
	EXPECT_EQ(MSS, unit_cc_ack(&cc, T0 + TRTT, 0, 500, 0, 0));
	unit_cc_stop(&cc);
}

TEST(smartt_ignores_non_trim_nacks)
{
	struct mpdt_cc cc;

	start(&cc);
	cc.ops->on_nack(&cc, MPDT_NACK_NO_BUFFER, T0);
	cc.ops->on_nack(&cc, MPDT_NACK_FLOWLET_GAP, T0);
	EXPECT_EQ(150000U, cc.cwnd);
	unit_cc_stop(&cc);
}

/* Algorithm 3: once more than a window of clean bytes (rtt ~ brtt, no
 * ECN) arrived, + 2 MTU per SACK until one is not clean.
 */
TEST(smartt_fast_increase)
{
	struct mpdt_cc cc;

	start(&cc);
	EXPECT_EQ(152400U, ack(&cc, T0, UNIT_US(12), 150001, 0));
	EXPECT_EQ(154800U, ack(&cc, T0 + 1000, UNIT_US(13), MSS, 0));
	/* marked: FastIncrease stops; WTD (0.125) holds the window */
	EXPECT_EQ(154800U, ack(&cc, T0 + 2000, UNIT_US(12), MSS, 1));
	/* clean again but the count restarted: MI 6 / 12 * 1200 / 154800 *
	 * 1200 * 2 = 9.3 -> 154809, FI 1440000 * 0.25 / 154809 = 2.3
	 */
	EXPECT_EQ(154811U, ack(&cc, T0 + 3000, UNIT_US(12), MSS, 0));
	unit_cc_stop(&cc);
}

/* §3.5: at most 1.25 BDP. */
TEST(smartt_window_bounds)
{
	struct mpdt_cc cc;
	int i;

	start(&cc);
	ack(&cc, T0, UNIT_US(12), 150001, 0);
	for (i = 0; i < 100; i++)
		ack(&cc, T0 + i, UNIT_US(12), MSS, 0);
	EXPECT_EQ(187500U, cc.cwnd);
	unit_cc_stop(&cc);
}

/* 10 Tbit/s and 10 s (trtt 15 s, fi 2e13 ppm at MSS 8900): eq. 3 for a
 * SACK of 2^40 bytes saturates mpdt_mul_div(); the window must saturate
 * with it, not wrap round to one below where it was.
 */
TEST(smartt_increase_saturates_instead_of_wrapping)
{
	struct mpdt_params p = unit_cc_params(10000000, 10000000);
	struct mpdt_cc cc;

	unit_cc_start(&cc, &mpdt_cc_smartt, &p, 8900);
	cc.cwnd = 8900;			/* as after a run of decreases */
	/* rtt 20 s > trtt: FI alone (no FastIncrease, no MI) */
	EXPECT_EQ(0x7fffffffU,
		  unit_cc_ack(&cc, UNIT_SEC(100), UNIT_SEC(20), 1ULL << 40, 0,
			      0));
	unit_cc_stop(&cc);
}

TEST_HARNESS_MAIN
