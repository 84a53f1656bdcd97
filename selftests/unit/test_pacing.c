// SPDX-License-Identifier: GPL-2.0
/*
 * Pacing (net/mpdt/pacing.c): TCP's pacing rate from the window and the
 * smoothed RTT, and Early Departure Times spaced by what each skb carries,
 * with tcp_update_skb_after_send()'s credit for a late skb and fq's
 * one-second clamp.
 */
#include "unit.h"
#include "pacing.h"
#include "kselftest_harness.h"

#define T0	UNIT_SEC(5)
#define NO_CAP	U64_MAX

/* 150000 bytes over 12 us: STrack's reference BDP, 12.5 GB/s. */
#define CWND	150000ULL
#define SRTT	UNIT_US(12)
#define RATE	12500000000ULL

TEST(no_rtt_sample_means_no_pacing)
{
	EXPECT_EQ(0, mpdt_pacing_rate(CWND, 0, true, NO_CAP));
	EXPECT_EQ(0, mpdt_pacing_rate(CWND, 0, false, NO_CAP));
}

TEST(rate_is_the_window_over_srtt_times_tcp_ratios)
{
	EXPECT_EQ(RATE * 2, mpdt_pacing_rate(CWND, SRTT, true, NO_CAP));
	EXPECT_EQ(RATE * 6 / 5, mpdt_pacing_rate(CWND, SRTT, false, NO_CAP));
}

TEST(rate_never_exceeds_so_max_pacing_rate)
{
	EXPECT_EQ(1000000, mpdt_pacing_rate(CWND, SRTT, true, 1000000));
	EXPECT_EQ(0, mpdt_pacing_rate(CWND, SRTT, false, 0));
}

TEST(extreme_windows_and_rtts_do_not_overflow)
{
	EXPECT_EQ(0x7fffffffULL * 2000000000,
		  mpdt_pacing_rate(0x7fffffff, 1, true, NO_CAP));
	EXPECT_EQ(0, mpdt_pacing_rate(1, U64_MAX, false, NO_CAP));
	EXPECT_EQ(0x7fffffffULL * 2, mpdt_pacing_rate(0x7fffffff,
						      UNIT_SEC(1), true,
						      NO_CAP));
}

TEST(back_to_back_skbs_leave_spaced_by_their_length)
{
	struct mpdt_pacing p = { .next_ns = T0 };

	/* 22400 bytes at 1 GB/s: 22.4 us each. */
	EXPECT_EQ(T0, mpdt_pacing_depart(&p, 22400, 1000000000, T0));
	EXPECT_EQ(T0 + 22400,
		  mpdt_pacing_depart(&p, 22400, 1000000000, T0));
	EXPECT_EQ(T0 + 44800,
		  mpdt_pacing_depart(&p, 1400, 1000000000, T0 + UNIT_US(1)));
	EXPECT_EQ(T0 + 46200, p.next_ns);
}

/* tcp_update_skb_after_send(): lateness gives back at most half. */
TEST(a_late_skb_takes_back_up_to_half_its_spacing)
{
	struct mpdt_pacing p = { .next_ns = T0 };

	mpdt_pacing_depart(&p, 10000, 1000000000, T0);
	/* Due at T0 + 10 us, sent at T0 + 13 us: 3 us of credit. */
	EXPECT_EQ(T0 + UNIT_US(13), mpdt_pacing_depart(&p, 10000, 1000000000,
						       T0 + UNIT_US(13)));
	EXPECT_EQ(T0 + UNIT_US(20), p.next_ns);
	/* Idle for a second: only half of the next skb's 10 us. */
	EXPECT_EQ(T0 + UNIT_SEC(1), mpdt_pacing_depart(&p, 10000, 1000000000,
						       T0 + UNIT_SEC(1)));
	EXPECT_EQ(T0 + UNIT_SEC(1) + UNIT_US(5), p.next_ns);
}

/* fq_dequeue() clamps a packet's delay to a second; so do we, so that
 * the few skbs a tiny rate queues stay within fq's horizon.
 */
TEST(no_skb_is_spaced_more_than_a_second)
{
	struct mpdt_pacing p = { .next_ns = T0 };

	EXPECT_EQ(T0, mpdt_pacing_depart(&p, 65536, 1, T0));
	EXPECT_EQ(T0 + UNIT_SEC(1), p.next_ns);
	EXPECT_EQ(T0 + UNIT_SEC(1), mpdt_pacing_depart(&p, 65536, 1, T0));
	EXPECT_EQ(T0 + UNIT_SEC(2), p.next_ns);
}

/* A connection's first skb is as late as can be: half its spacing back. */
TEST(the_first_skb_starts_with_half_its_spacing)
{
	struct mpdt_pacing p = { 0 };

	EXPECT_EQ(T0, mpdt_pacing_depart(&p, 10000, 1000000000, T0));
	EXPECT_EQ(T0 + UNIT_US(5), p.next_ns);
}

TEST_HARNESS_MAIN
