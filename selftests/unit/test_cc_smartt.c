// SPDX-License-Identifier: GPL-2.0
/*
 * "smartt" congestion control (net/mpdt/cc_smartt.c) against SMaRTT §3:
 * the four quadrants (eq. 1-4), QuickAdapt (Alg. 2), FastIncrease
 * (Alg. 3), Wait to Decrease (§3.6.1), the §3.5 parameters and bounds,
 * on scripted SACK, NACK and timeout traces worked out by hand, and on an
 * 8:1 trimmed incast simulated packet by packet.
 *
 * Unless a test says otherwise: 100 Gbit/s, 12 us (the reference BDP,
 * 150000 bytes, so fi = 0.25 and mi = 12 / (18 - 12) = 2 unscaled),
 * trtt 18 us, MSS 1200, window in [1200, 187500], starting at 150000.
 * The mtu of eq. 3 and 4 is the papers' 4096 bytes whatever the MSS
 * (cc.h): the increases are the share of the BDP §4 tuned.
 * FastIncrease counts SACKs with an RTT up to 13.2 us.  WTD's alpha is
 * the module's default, 0.016 per packet: after n marked packets the
 * average is 1 - 0.984^n, 0.2398 at 17 and 0.2520 at 18.
 */
#include "unit.h"
#include "algo.h"
#include "wire.h"
#include "kselftest_harness.h"

#define MSS		1200
#define T0		UNIT_MS(1)
#define TRTT		UNIT_US(18)
#define WTD_ALPHA_PM	16	/* main.c's smartt_wtd_alpha_pm */

static struct mpdt_params params(void)
{
	struct mpdt_params p = unit_cc_params(100000, 12);

	p.smartt_wtd_alpha_pm = WTD_ALPHA_PM;
	return p;
}

static void start(struct mpdt_cc *cc)
{
	struct mpdt_params p = params();

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

static u32 timeout(struct mpdt_cc *cc, u64 now)
{
	cc->ops->on_timeout(cc, now);
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
	/* rtt 24 > trtt, no ECN: FI 1200 * 4096 * 0.25 / 150000 = 8.19 */
	EXPECT_EQ(150008U, ack(&cc, T0, UNIT_US(24), MSS, 0));
	/* rtt 14 <= trtt: MI (18 - 14) / 14 * 1200 / 150008 * 4096 * 2 =
	 * 18.72 -> 150026, then FI 4915200 * 0.25 / 150026 = 8.19 -> 150034
	 */
	EXPECT_EQ(150034U, ack(&cc, T0 + 1000, UNIT_US(14), MSS, 0));
	unit_cc_stop(&cc);
}

/* §3.6.1: no decrease while the ECN average is below 0.25: 17 marked
 * packets (0.2398) hold the window, the 18th (0.2520) lets it shrink.
 */
TEST(smartt_wait_to_decrease_blocks_decrease_below_threshold)
{
	struct mpdt_cc cc;
	int i;

	start(&cc);
	for (i = 0; i < 17; i++)
		EXPECT_EQ(150000U, ack(&cc, T0 + i * 1000, UNIT_US(15), MSS,
				       1));
	/* FD (rtt 15 <= trtt): 150000 / 150000 * 0.8 * 1200 = 960 */
	EXPECT_EQ(149040U, ack(&cc, T0 + 17000, UNIT_US(15), MSS, 1));
	/* MD: (36 - 18) / 36 * 4 (md doubled: no trim seen) * 1200 = 2400,
	 * at most 1200; FD 147840 / 150000 * 960 = 946; the two together at
	 * most the 1200 acked (§3.2.2)
	 */
	EXPECT_EQ(147840U, ack(&cc, T0 + 18000, UNIT_US(36), MSS, 1));
	unit_cc_stop(&cc);
}

/* One SACK of 18 marked packets moves the average 18 times: 0.2520,
 * enough at once.  md is 2 after a trim, 4 without (§3.3).  From half a
 * BDP and rtt 19.5 us both MD and FD stay below the 21600 acked.
 */
TEST(smartt_md_doubles_without_trimming)
{
	struct mpdt_cc cc;

	start(&cc);
	cc.cwnd = 75000;
	/* MD: 1.5 / 19.5 * 4 * 21600 = 6646.2 -> 68354;
	 * FD: 68354 / 150000 * 0.8 * 21600 = 7874.4 -> 60480
	 */
	EXPECT_EQ(60480U, ack(&cc, T0, 19500, 18 * MSS, 18));
	unit_cc_stop(&cc);

	start(&cc);
	cc.cwnd = 75000;
	/* the trim: - one packet; QuickAdapt only arms its trtt clock */
	EXPECT_EQ(73800U, trim(&cc, T0 - 1000));
	/* MD: 1.5 / 19.5 * 2 * 21600 = 3323.1 -> 70477;
	 * FD: 70477 / 150000 * 0.8 * 21600 = 8118.9 -> 62359
	 */
	EXPECT_EQ(62359U, ack(&cc, T0, 19500, 18 * MSS, 18));
	unit_cc_stop(&cc);
}

/* §3.2.2: "in any case, the multiplicative decrease reduces cwnd at most
 * by the acknowledged packet's size", its FD included.  From the largest
 * window at rtt 40 (MD alone takes all 1200): once WTD lets it, exactly
 * 1200 per ACK.  MD then FD used to take 1200 + 186300 / 150000 * 960 =
 * 2392 on the first, two packets for one.
 */
TEST(smartt_decrease_per_ack_is_at_most_its_bytes)
{
	struct mpdt_cc cc;
	u32 want = 187500;
	int i;

	start(&cc);
	cc.cwnd = want;
	for (i = 0; i < 17; i++)
		ASSERT_EQ(want, ack(&cc, T0 + i * 1000, UNIT_US(40), MSS, 1));
	for (; i < 17 + 150; i++) {
		want -= MSS;
		ASSERT_EQ(want, ack(&cc, T0 + i * 1000, UNIT_US(40), MSS, 1));
	}
	EXPECT_EQ(7500U, cc.cwnd);
	/* a coalesced SACK: MD 21600 + FD, at most the 21600 acked */
	cc.cwnd = 100000;
	EXPECT_EQ(78400U, ack(&cc, T0 + i * 1000, UNIT_US(40), 18 * MSS,
			      18));
	/* FD alone, at 1.25 BDP, already takes all it may:
	 * 187500 / 150000 * 0.8 * 1200 = 1200
	 */
	cc.cwnd = 187500;
	EXPECT_EQ(186300U, ack(&cc, T0 + i * 1000 + 1000, UNIT_US(15), MSS,
			       1));
	unit_cc_stop(&cc);
}

/* §3.6.1 on random marking: @sacks SACKs of @per_sack packets each, every
 * packet marked with probability @pct percent (a fixed seed), the marks in
 * ce_count.  Each SACK starts from a window of one BDP with rtt 15 us, so
 * a marked one is FD if WTD lets it and the window shows it.  Returns how
 * many marked SACKs shrank the window; @marked counts the marked SACKs.
 */
static u32 wtd_cuts(u32 pct, u32 per_sack, u32 sacks, u32 *marked)
{
	struct unit_rng rng = { .state = 1 };
	struct mpdt_cc cc;
	u32 i, j, ce, cuts = 0;

	start(&cc);
	*marked = 0;
	for (i = 0; i < sacks; i++) {
		for (ce = 0, j = 0; j < per_sack; j++)
			ce += unit_rand_below(&rng, 100) < pct;
		*marked += !!ce;
		cc.cwnd = 150000;
		if (ack(&cc, T0 + i * 100ULL, UNIT_US(15), per_sack * MSS,
			ce) < 150000)
			cuts++;
	}
	unit_cc_stop(&cc);
	return cuts;
}

/* The same per-packet trace through the paper's average in floating
 * point: avg_wtd = alpha * p.ecn + (1 - alpha) * avg_wtd, a cut when
 * marked and avg_wtd >= 0.25.
 */
static u32 wtd_paper_cuts(u32 pct, u32 pkts)
{
	struct unit_rng rng = { .state = 1 };
	double alpha = WTD_ALPHA_PM / 1000.0, avg = 0;
	u32 i, cuts = 0;
	bool ecn;

	for (i = 0; i < pkts; i++) {
		ecn = unit_rand_below(&rng, 100) < pct;
		avg = alpha * ecn + (1 - alpha) * avg;
		cuts += ecn && avg >= 0.25;
	}
	return cuts;
}

/* WTD (§3.6.1): "does not decrease the congestion window as long as
 * avg_wtd < 0.25 (i.e. 25 percent or more of the acks indicate
 * congestion)".  With alpha 0.125 (the old default) 10% random marking
 * cut on 585 of the 2063 marked ACKs (28%), 165 of 1587 six to a SACK;
 * at 0.016 on none, while 50% marking cuts on all marked ACKs but the
 * first 18 and a few dips, as the paper's average in floating point.
 */
TEST(smartt_wait_to_decrease_random_marking)
{
	u32 marked;

	EXPECT_EQ(0U, wtd_cuts(10, 1, 20000, &marked));
	EXPECT_EQ(2063U, marked);
	EXPECT_EQ(0U, wtd_paper_cuts(10, 20000));
	EXPECT_EQ(0U, wtd_cuts(10, 6, 20000 / 6, &marked));
	EXPECT_EQ(1587U, marked);
	EXPECT_EQ(10144U, wtd_cuts(50, 1, 20000, &marked));
	EXPECT_EQ(10166U, marked);
	EXPECT_EQ(10144U, wtd_paper_cuts(50, 20000));
	EXPECT_EQ(3290U, wtd_cuts(50, 6, 20000 / 6, &marked));
	EXPECT_EQ(3298U, marked);
}

/*
 * Algorithm 2 and §3.3 on a trace: the window becomes 0.8 x the bytes
 * acked in the last trtt, and all feedback on what was in flight then is
 * ignored: ACKs, and a trim too (no cut, QuickAdapt not re-armed).  Once
 * that flight is resolved the trtt starts again, counting only what came
 * after it.
 */
TEST(smartt_quick_adapt_ignores_the_flight_it_adapted)
{
	struct mpdt_cc cc;

	start(&cc);
	/* rtt 24 > trtt, no ECN: FI only.  Arms end = T0 + 18 us (acked
	 * restarts at 0); FI 6000 * 4096 * 0.25 / 150000 = 40.96
	 */
	EXPECT_EQ(150040U, unit_cc_ack(&cc, T0, UNIT_US(24), 6000, 60000, 0));
	/* acked 12000; FI 12000 * 4096 * 0.25 / 150040 = 81.9 */
	EXPECT_EQ(150121U, unit_cc_ack(&cc, T0 + UNIT_US(5), UNIT_US(24),
				       12000, 50000, 0));
	/* trim: - 1200, QuickAdapt waits for end */
	EXPECT_EQ(148921U, trim(&cc, T0 + UNIT_US(6)));
	/* at end: acked 12000 + 3000 = 15000, cwnd 0.8 * 15000; the 40000
	 * bytes in flight after this SACK are to be ignored
	 */
	EXPECT_EQ(12000U, unit_cc_ack(&cc, T0 + TRTT, UNIT_US(24), 3000,
				      40000, 0));
	/* 30000 of them, heavily marked and late: ignored */
	EXPECT_EQ(12000U, unit_cc_ack(&cc, T0 + TRTT + 1000, UNIT_US(40),
				      30000, 30000, 25));
	/* a trim of one more of them: ignored too (31200 of 40000) */
	EXPECT_EQ(12000U, trim(&cc, T0 + TRTT + 2000));
	/* 10000 more resolve the flight (41200): counted again, FI
	 * 10000 * 4096 * 0.25 / 12000 = 853.3; the new trtt starts here
	 * (end T0 + 21 + 18 us) with the 1200 beyond the flight
	 */
	EXPECT_EQ(12853U, unit_cc_ack(&cc, T0 + TRTT + 3000, UNIT_US(24),
				      10000, 20000, 0));
	/* acked 3600; FI 2400 * 4096 * 0.25 / 12853 = 191.2 */
	EXPECT_EQ(13044U, unit_cc_ack(&cc, T0 + 2 * TRTT, UNIT_US(24), 2400,
				      8000, 0));
	/* a trim after the flight: - 1200, and QuickAdapt armed */
	EXPECT_EQ(11844U, trim(&cc, T0 + 2 * TRTT + 1000));
	/* end: 0.8 * (3600 + 4800) */
	EXPECT_EQ(6720U, unit_cc_ack(&cc, T0 + TRTT + 3000 + TRTT,
				     UNIT_US(24), 4800, 6000, 0));
	unit_cc_stop(&cc);
}

/* §3.3: timeouts are the fallback signal, the same reaction as a trim,
 * and ignored the same way while QuickAdapt's flight is.
 */
TEST(smartt_timeout_quick_adapts)
{
	struct mpdt_cc cc;

	start(&cc);
	unit_cc_ack(&cc, T0, UNIT_US(15), 0, 5000, 0);
	EXPECT_EQ(150000U, unit_cc_ack(&cc, T0 + UNIT_US(10), 0, 4000, 5000,
				       0));
	EXPECT_EQ(148800U, timeout(&cc, T0 + UNIT_US(11)));
	/* at end: 0.8 * 4000 = 3200, the 5000 in flight ignored */
	EXPECT_EQ(3200U, unit_cc_ack(&cc, T0 + TRTT, 0, 0, 5000, 0));
	/* a timeout within that flight: nothing */
	EXPECT_EQ(3200U, timeout(&cc, T0 + TRTT + 1));
	/* 5000 more resolve it (6200): the trtt restarts, 1200 in it */
	EXPECT_EQ(3200U, unit_cc_ack(&cc, T0 + 2 * TRTT, 0, 5000, 0, 0));
	/* a timeout after it: - 1200, armed; 0.8 * (1200 + 2000) at end */
	EXPECT_EQ(2000U, timeout(&cc, T0 + 2 * TRTT + 1));
	EXPECT_EQ(2560U, unit_cc_ack(&cc, T0 + 3 * TRTT, 0, 2000, 0, 0));
	unit_cc_stop(&cc);
}

static void undo(struct mpdt_cc *cc)
{
	cc->ops->undo(cc);
}

/* A spurious timeout (the engine's Eifel test) is taken back whole: the
 * window it cut, the QuickAdapt it armed or made, the flight it ignored.
 */
TEST(smartt_spurious_timeout_is_undone)
{
	struct mpdt_cc cc;

	start(&cc);
	unit_cc_ack(&cc, T0, UNIT_US(15), 0, 5000, 0);
	EXPECT_EQ(150000U, unit_cc_ack(&cc, T0 + UNIT_US(10), 0, 4000, 5000,
				       0));
	/* Armed, waiting for end: undone before end, nothing adapts. */
	EXPECT_EQ(148800U, timeout(&cc, T0 + UNIT_US(11)));
	undo(&cc);
	EXPECT_EQ(150000U, cc.cwnd);
	EXPECT_EQ(150000U, unit_cc_ack(&cc, T0 + TRTT, 0, 0, 5000, 0));

	/* Adapted at once (past end): 0.8 * 4000, 5000 to be ignored. */
	EXPECT_EQ(150000U, unit_cc_ack(&cc, T0 + TRTT + 10, 0, 4000, 5000,
				       0));
	EXPECT_EQ(3200U, timeout(&cc, T0 + 2 * TRTT + 1));
	undo(&cc);
	EXPECT_EQ(150000U, cc.cwnd);
	/* Nothing ignored: FI 6000 * 4096 * 0.25 / 150000 = 40.96 */
	EXPECT_EQ(150040U, unit_cc_ack(&cc, T0 + 2 * TRTT + 2, UNIT_US(24),
				       6000, 5000, 0));
	/* A second undo has nothing left to take back. */
	undo(&cc);
	EXPECT_EQ(150040U, cc.cwnd);
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
 * ECN) arrived, + 2 MTU per packet acknowledged until an ACK is not
 * clean.
 */
TEST(smartt_fast_increase)
{
	struct mpdt_cc cc;

	start(&cc);
	/* 126 packets, the 126th takes count past 150000: + 2 MTU */
	EXPECT_EQ(152400U, ack(&cc, T0, UNIT_US(12), 150001, 0));
	EXPECT_EQ(154800U, ack(&cc, T0 + 1000, UNIT_US(13), MSS, 0));
	/* marked: FastIncrease stops; WTD (0.016) holds the window */
	EXPECT_EQ(154800U, ack(&cc, T0 + 2000, UNIT_US(12), MSS, 1));
	/* clean again but the count restarted: MI 6 / 12 * 1200 / 154800 *
	 * 4096 * 2 = 31.75 -> 154831, FI 4915200 * 0.25 / 154831 = 7.94
	 */
	EXPECT_EQ(154838U, ack(&cc, T0 + 3000, UNIT_US(12), MSS, 0));
	unit_cc_stop(&cc);
}

/* §3.4: "increased by k MTUs for each ACK", and the paper acknowledges
 * every packet: a SACK of six packets is six ACKs, whatever the
 * coalescing.  Before, a SACK added 2 MTU however many it covered.
 */
TEST(smartt_fast_increase_per_packet_acknowledged)
{
	struct mpdt_cc one, six;
	int i;

	start(&one);
	start(&six);
	EXPECT_EQ(152400U, ack(&one, T0, UNIT_US(12), 150001, 0));
	EXPECT_EQ(152400U, ack(&six, T0, UNIT_US(12), 150001, 0));
	for (i = 1; i <= 12; i++) {
		ack(&one, T0 + i * 100, UNIT_US(12), MSS, 0);
		if (i % 6)
			continue;
		/* + 6 * 2 * 1200 = 14400 per six packets, both ways */
		EXPECT_EQ(152400U + i * 2400U,
			  ack(&six, T0 + i * 100, UNIT_US(12), 6 * MSS, 0));
		EXPECT_EQ(six.cwnd, one.cwnd);
	}
	EXPECT_EQ(181200U, six.cwnd);
	unit_cc_stop(&one);
	unit_cc_stop(&six);

	/* count passes cwnd inside a SACK: 125 clean packets (150000, not
	 * past the window) are MI + FI: MI 6 / 12 * 150000 / 150000 * 4096 *
	 * 2 = 4096 -> 154096, FI 150000 * 4096 * 0.25 / 154096 = 996.8 ->
	 * 155092; of the next six, the fifth takes count to 156000 > 155092:
	 * it and the one after it add 2 MSS each
	 */
	start(&six);
	EXPECT_EQ(155092U, ack(&six, T0, UNIT_US(12), 125 * MSS, 0));
	EXPECT_EQ(159892U, ack(&six, T0 + 100, UNIT_US(12), 6 * MSS, 0));
	unit_cc_stop(&six);
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

/* The engine's startup (path.h) rescales as the measured BDP grows: the
 * window SMaRTT starts at, one BDP (§3.5), follows it, here from 150000
 * to 300000 and back to 150000; one below it (after a decrease) stays.
 * A rule that moved only a window at the largest, 1.25 BDP, left the
 * start at the initial window's BDP, to grow by fair increase alone: a
 * 128-host permutation of the ns-3 model then ended at 3.4x ideal.
 */
TEST(smartt_window_from_one_bdp_follows_the_measured_bdp)
{
	struct mpdt_params p = params();
	struct mpdt_cc cc;

	start(&cc);
	EXPECT_EQ(150000U, cc.cwnd);
	p.link_mbps = 200000;
	cc.ops->rescale(&cc, &p);
	EXPECT_EQ(300000U, cc.cwnd);
	p.link_mbps = 100000;
	cc.ops->rescale(&cc, &p);
	EXPECT_EQ(150000U, cc.cwnd);
	EXPECT_EQ(148800U, trim(&cc, T0));
	p.link_mbps = 200000;
	cc.ops->rescale(&cc, &p);
	EXPECT_EQ(148800U, cc.cwnd);
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

/*
 * An 8:1 incast through one bottleneck, packet by packet, on a simulated
 * clock: 100 Gbit/s, 12 us base RTT (BDP 150000 bytes), MSS 4096, so the
 * fair share is 150000 / 8 = 18750 bytes, 4.6 packets.  As §3 assumes: a
 * queue of one BDP that trims a packet only when it would drop it (§3.3),
 * RED marking between 20% and 80% of it (§3.5, a fixed-seed PRNG), every
 * packet acknowledged, trims and ACKs never queued, each NIC sending at
 * line rate.  Times are in ps (a byte is 80 ps), given to the congestion
 * control in ns.
 */
#define INC_N		8
#define INC_MSS		4096U
#define INC_PS_BYTE	80ULL				/* 100 Gbit/s */
#define INC_SER		(INC_MSS * INC_PS_BYTE)		/* 327680 ps */
#define INC_BRTT	(UNIT_US(12) * 1000)		/* ps */
#define INC_TRTT	(UNIT_US(18) * 1000)
#define INC_FWD		(UNIT_US(5) * 1000)		/* sender to queue */
#define INC_BACK	(INC_BRTT - INC_FWD - INC_SER)	/* queue to sender */
#define INC_QUEUE	150000ULL			/* one BDP */
#define INC_KMIN	(INC_QUEUE / 5)
#define INC_KMAX	(INC_QUEUE * 4 / 5)
#define INC_MAX_CWND	187500U				/* 1.25 BDP */
#define INC_RTTS	100				/* base RTTs run */
#define INC_EVENTS	1024
#define INC_QA_MAX	16

enum { INC_ARRIVE, INC_ACK, INC_TRIM };

struct inc_ev {
	u64 t, seq;		/* ps; ties in the order scheduled */
	u64 sent;		/* ps: when the packet left its NIC */
	int type, src;
	bool ce;
};

struct incast {
	struct mpdt_cc cc[INC_N];
	void *probe_priv;	/* see inc_feedback() */
	u64 inflight[INC_N];	/* bytes sent, not yet acked or trimmed */
	u64 nic_free[INC_N];	/* ps */
	u64 last_dep;		/* ps: the bottleneck is busy until then */
	struct inc_ev ev[INC_EVENTS];	/* a binary min-heap */
	int nev;
	bool overflow;
	u64 seq;
	struct unit_rng rng;
	u64 next_sample;	/* ps */
	int samples;
	u32 win[INC_RTTS + 1][INC_N];	/* bytes, at each base RTT */
	/* Each QuickAdapt seen: when (ps) and the window it set.  What the
	 * sender knew in flight then (its last SACK's inflight) is ignored
	 * until acked or trimmed; after that, a trim re-arms QuickAdapt and
	 * the next may set the window to 0.8 x what was acked since.
	 */
	int nqa[INC_N];
	u64 last_qa[INC_N];
	u64 qa_t[INC_N][INC_QA_MAX];
	u32 qa_win[INC_N][INC_QA_MAX];
	u64 known_inflight[INC_N];
	u64 unresolved[INC_N];
	u64 acked_since[INC_N];
	bool armed[INC_N];
	int qa_early;		/* within the ignored flight or a trtt */
	int qa_unarmed;		/* with no trim since the flight resolved */
	int qa_over;		/* above 0.8 x what was acked since */
	u64 trims, marks, last_trim;
};

static bool inc_before(const struct inc_ev *a, const struct inc_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void inc_push(struct incast *s, struct inc_ev e)
{
	int i = s->nev;

	if (i == INC_EVENTS) {
		s->overflow = true;
		return;
	}
	s->nev++;
	e.seq = s->seq++;
	while (i && inc_before(&e, &s->ev[(i - 1) / 2])) {
		s->ev[i] = s->ev[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->ev[i] = e;
}

static struct inc_ev inc_pop(struct incast *s)
{
	struct inc_ev top = s->ev[0], last = s->ev[--s->nev];
	int i = 0, c;

	while ((c = 2 * i + 1) < s->nev) {
		if (c + 1 < s->nev && inc_before(&s->ev[c + 1], &s->ev[c]))
			c++;
		if (!inc_before(&s->ev[c], &last))
			break;
		s->ev[i] = s->ev[c];
		i = c;
	}
	s->ev[i] = last;
	return top;
}

/* As much as the window lets out, back to back at line rate. */
static void inc_send(struct incast *s, int i, u64 now)
{
	while (s->inflight[i] + INC_MSS <= s->cc[i].cwnd) {
		struct inc_ev e = { .type = INC_ARRIVE, .src = i };

		e.sent = max(now, s->nic_free[i]);
		s->nic_free[i] = e.sent + INC_SER;
		e.t = e.sent + INC_FWD;
		s->inflight[i] += INC_MSS;
		inc_push(s, e);
	}
}

/* The bottleneck: trim when full, else RED, then FIFO at line rate. */
static void inc_arrive(struct incast *s, struct inc_ev e)
{
	u64 backlog = s->last_dep > e.t ? (s->last_dep - e.t) / INC_PS_BYTE
					: 0;

	if (backlog + INC_MSS > INC_QUEUE) {
		s->trims++;
		s->last_trim = e.t;
		e.type = INC_TRIM;
		e.t += INC_SER + INC_BACK;
		inc_push(s, e);
		return;
	}
	e.ce = backlog > INC_KMIN &&
	       (backlog >= INC_KMAX ||
		unit_rand_below(&s->rng, INC_KMAX - INC_KMIN) <
		backlog - INC_KMIN);
	s->marks += e.ce;
	s->last_dep = max(e.t, s->last_dep) + INC_SER;
	e.type = INC_ACK;
	e.t = s->last_dep + INC_BACK;
	inc_push(s, e);
}

/* §3.3, as the test sees it from outside: a QuickAdapt at @t. */
static void inc_quick_adapt(struct incast *s, int i, u64 t)
{
	int n = s->nqa[i]++;

	if (s->unresolved[i] || (n && t - s->last_qa[i] < INC_TRTT))
		s->qa_early++;
	if (n && !s->armed[i])
		s->qa_unarmed++;
	if (n && s->cc[i].cwnd > max(s->acked_since[i] * 8 / 10,
				     (u64)INC_MSS))
		s->qa_over++;
	if (n < INC_QA_MAX) {
		s->qa_t[i][n] = t;
		s->qa_win[i][n] = s->cc[i].cwnd;
	}
	s->last_qa[i] = t;
	s->unresolved[i] = s->known_inflight[i];
	s->armed[i] = false;
	s->acked_since[i] = 0;
}

/*
 * Feed one ACK or trim to sender @i, and to a copy of it whose window is
 * 4 MSS away: every reaction of §3.2 and §3.4, and a trim's cut, depends
 * on the window it starts from; only QuickAdapt (Alg. 2 line 7) sets it
 * regardless.  Both ending equal is a QuickAdapt.
 */
static void inc_feedback(struct incast *s, const struct inc_ev *e)
{
	int i = e->src;
	struct mpdt_cc *cc = &s->cc[i], probe = *cc;
	struct mpdt_cc_ack a = {
		.now = e->t / 1000, .rtt_ns = (e->t - e->sent) / 1000,
		.acked_bytes = INC_MSS, .ce_count = e->ce, .ce = e->ce,
	};
	/* Alg. 1 line 8 compares after adding: what resolves the flight
	 * counts
	 */
	bool ignored = s->unresolved[i] > INC_MSS;

	s->inflight[i] -= INC_MSS;
	a.inflight = s->inflight[i];
	if (s->unresolved[i] > INC_MSS)
		s->unresolved[i] -= INC_MSS;
	else
		s->unresolved[i] = 0;
	if (!ignored && e->type == INC_ACK)
		s->acked_since[i] += INC_MSS;
	if (!ignored && e->type == INC_TRIM)
		s->armed[i] = true;
	if (e->type == INC_ACK)
		s->known_inflight[i] = a.inflight;
	probe.priv = s->probe_priv;
	memcpy(probe.priv, cc->priv, cc->ops->priv_size);
	if (cc->cwnd + 6 * INC_MSS <= INC_MAX_CWND)
		probe.cwnd = cc->cwnd + 4 * INC_MSS;
	else
		probe.cwnd = cc->cwnd - 4 * INC_MSS;
	if (e->type == INC_ACK) {
		cc->ops->on_ack(cc, &a);
		probe.ops->on_ack(&probe, &a);
	} else {
		cc->ops->on_nack(cc, MPDT_NACK_TRIMMED, a.now);
		probe.ops->on_nack(&probe, MPDT_NACK_TRIMMED, a.now);
	}
	if (probe.cwnd == cc->cwnd)
		inc_quick_adapt(s, i, e->t);
	inc_send(s, i, e->t);
}

static void inc_run(struct incast *s, const struct mpdt_params *p)
{
	struct inc_ev e;
	int i;

	memset(s, 0, sizeof(*s));
	s->probe_priv = malloc(mpdt_cc_smartt.priv_size);
	s->rng.state = 1;
	for (i = 0; i < INC_N; i++) {
		unit_cc_start(&s->cc[i], &mpdt_cc_smartt, p, INC_MSS);
		s->nic_free[i] = i * INC_BRTT;	/* one joins per base RTT */
		inc_send(s, i, 0);
	}
	while (s->samples <= INC_RTTS && s->nev && !s->overflow) {
		e = inc_pop(s);
		for (; s->next_sample <= e.t && s->samples <= INC_RTTS;
		     s->next_sample += INC_BRTT, s->samples++)
			for (i = 0; i < INC_N; i++)
				s->win[s->samples][i] = s->cc[i].cwnd;
		if (e.type == INC_ARRIVE)
			inc_arrive(s, e);
		else
			inc_feedback(s, &e);
	}
	for (i = 0; i < INC_N; i++)
		unit_cc_stop(&s->cc[i]);
	free(s->probe_priv);
}

static void inc_trace(const struct incast *s)
{
	int r, i, n;

	if (!getenv("MPDT_SMARTT_TRACE"))
		return;
	for (i = 0; i < INC_N; i++)
		for (n = 0; n < s->nqa[i] && n < INC_QA_MAX; n++)
			fprintf(stderr, "# qa sender %d at %.2f brtt: %.2f pkts\n",
				i, (double)s->qa_t[i][n] / INC_BRTT,
				(double)s->qa_win[i][n] / INC_MSS);
	for (r = 0; r <= INC_RTTS; r++) {
		fprintf(stderr, "# brtt %3d:", r);
		for (i = 0; i < INC_N; i++)
			fprintf(stderr, " %5.1f", (double)s->win[r][i] / INC_MSS);
		fprintf(stderr, "\n");
	}
	fprintf(stderr, "# trims %llu (the last at %.2f brtt), marks %llu\n",
		s->trims, (double)s->last_trim / INC_BRTT, s->marks);
	fprintf(stderr, "# qa early %d, unarmed %d, over %d\n", s->qa_early,
		s->qa_unarmed, s->qa_over);
}

/*
 * The incast that showed QuickAdapt firing again after its ignore period:
 * the eight join one base RTT apart, each with a window of one BDP, so
 * every arrival overflows the queue.  Before, trims of the ignored flight
 * still cut and re-armed QuickAdapt, and acked summed the whole ignore
 * period: sender 0 adapted to 3.2 packets, was cut to 1.2 by trims of
 * the flight it was ignoring, sat there 25 base RTTs while that flight's
 * trimmed packets came back one per RTT, then jumped to 16 (0.8 x the 20
 * packets acked meanwhile).  That run saw 48 QuickAdapts, 4 of them
 * re-armed by ignored trims, 241 trims (the last at 81 base RTTs), and
 * windows of 1 to 35.6 packets in its second half.  Now each sender
 * adapts at most twice, each time armed by a trim after the flight it
 * ignored, the last trim comes as the last sender arrives, and in the
 * second half every window lies between the fair share and twice it.
 */
TEST(smartt_incast_8_to_1_trimmed)
{
	static const int qas[INC_N] = { 2, 2, 0, 2, 1, 0, 1, 1 };
	const u32 fair = INC_QUEUE / INC_N;	/* 18750 bytes, 4.6 packets */
	struct mpdt_params p = params();
	struct incast *s = calloc(1, sizeof(*s));
	u32 lo = U32_MAX, hi = 0;
	int r, i;

	ASSERT_NE(NULL, s);
	inc_run(s, &p);
	inc_trace(s);
	ASSERT_FALSE(s->overflow);
	EXPECT_EQ(INC_RTTS + 1, s->samples);
	/* §3.3: none within the ignored flight or a trtt of the last, none
	 * re-armed by a trim of that flight, none over 0.8 x the bytes
	 * acked since it resolved
	 */
	EXPECT_EQ(0, s->qa_early);
	EXPECT_EQ(0, s->qa_unarmed);
	EXPECT_EQ(0, s->qa_over);
	for (i = 0; i < INC_N; i++)
		EXPECT_EQ(qas[i], s->nqa[i]);
	EXPECT_EQ(160U, s->trims);
	EXPECT_GT(9 * INC_BRTT, s->last_trim);
	for (r = INC_RTTS / 2; r <= INC_RTTS; r++)
		for (i = 0; i < INC_N; i++) {
			lo = min(lo, s->win[r][i]);
			hi = max(hi, s->win[r][i]);
		}
	EXPECT_LE(fair, lo);		/* 21908, 5.3 packets */
	EXPECT_GE(2 * fair, hi);	/* 32652, 8.0 packets */
	free(s);
}

TEST_HARNESS_MAIN
