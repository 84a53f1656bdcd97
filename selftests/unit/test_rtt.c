// SPDX-License-Identifier: GPL-2.0
/*
 * RTT estimator (net/mpdt/rtt.c): RFC 6298 smoothing with gains 1/8 and
 * 1/4, the minimum RTT (STrack Algo 1 keeps the lowest sample as base
 * RTT), implausible samples rejected, and the clamped RTO.
 */
#include "unit.h"
#include "kselftest_harness.h"

#define RTO_MIN		UNIT_US(200)
#define RTO_MAX		UNIT_MS(100)
#define NOW		UNIT_SEC(100)

static bool sample(struct mpdt_rtt *r, u64 rtt)
{
	return mpdt_rtt_sample(r, NOW - rtt, NOW);
}

/* Before the first sample the guess stands in for one (RFC 6298 2.2:
 * 3 R), within rto_min and rto_max.
 */
TEST(no_samples_means_three_guesses)
{
	struct mpdt_rtt r;

	mpdt_rtt_init(&r);
	EXPECT_EQ(0ULL, r.samples);
	EXPECT_EQ(RTO_MIN, mpdt_rtt_rto(&r, UNIT_US(10), RTO_MIN, RTO_MAX));
	EXPECT_EQ(UNIT_MS(30), mpdt_rtt_rto(&r, UNIT_MS(10), RTO_MIN,
					    RTO_MAX));
	EXPECT_EQ(RTO_MAX, mpdt_rtt_rto(&r, UNIT_MS(50), RTO_MIN, RTO_MAX));
}

/* RFC 6298 2.2: SRTT = R, RTTVAR = R/2. */
TEST(first_sample_sets_srtt_rttvar_and_min)
{
	struct mpdt_rtt r;

	mpdt_rtt_init(&r);
	ASSERT_TRUE(sample(&r, UNIT_US(100)));
	EXPECT_EQ(UNIT_US(100), r.srtt);
	EXPECT_EQ(UNIT_US(50), r.rttvar);
	EXPECT_EQ(UNIT_US(100), r.min_rtt);
	EXPECT_EQ(UNIT_US(100), r.latest);
	EXPECT_EQ(1ULL, r.samples);
	/* 100 + 4 * 50 us */
	EXPECT_EQ(UNIT_US(300), mpdt_rtt_rto(&r, RTO_MAX, RTO_MIN, RTO_MAX));
}

/* RFC 6298 2.3: RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R| (old SRTT), then
 * SRTT = 7/8 SRTT + 1/8 R.  Values worked out by hand, in ns.
 */
TEST(later_samples_follow_rfc6298)
{
	struct mpdt_rtt r;

	mpdt_rtt_init(&r);
	ASSERT_TRUE(sample(&r, 100000));
	ASSERT_TRUE(sample(&r, 200000));
	/* rttvar = 50000 - 12500 + 100000 / 4 */
	EXPECT_EQ(62500ULL, r.rttvar);
	/* srtt = 100000 - 12500 + 200000 / 8 */
	EXPECT_EQ(112500ULL, r.srtt);
	EXPECT_EQ(100000ULL, r.min_rtt);
	EXPECT_EQ(200000ULL, r.latest);

	ASSERT_TRUE(sample(&r, 80000));
	/* rttvar = 62500 - 15625 + |112500 - 80000| / 4 */
	EXPECT_EQ(55000ULL, r.rttvar);
	/* srtt = 112500 - 14062 + 10000 */
	EXPECT_EQ(108438ULL, r.srtt);
	EXPECT_EQ(80000ULL, r.min_rtt);
	EXPECT_EQ(3ULL, r.samples);
	/* 108438 + 4 * 55000 */
	EXPECT_EQ(328438ULL, mpdt_rtt_rto(&r, RTO_MAX, RTO_MIN, RTO_MAX));
}

TEST(constant_rtt_converges_and_variance_decays)
{
	struct mpdt_rtt r;
	int i;

	mpdt_rtt_init(&r);
	for (i = 0; i < 200; i++)
		sample(&r, UNIT_US(40));
	EXPECT_EQ(UNIT_US(40), r.srtt);
	EXPECT_GT(UNIT_US(1), r.rttvar);
	EXPECT_EQ(UNIT_US(40), r.min_rtt);
}

/* A steady RTT: rttvar decays and srtt + 4 rttvar would fall to the
 * RTT itself, below the 2 srtt the OOO detector waits; the RTO stays at
 * 2.5 srtt.
 */
TEST(rto_is_never_below_two_and_a_half_srtt)
{
	struct mpdt_rtt r;
	int i;

	mpdt_rtt_init(&r);
	for (i = 0; i < 200; i++)
		sample(&r, UNIT_US(400));
	ASSERT_EQ(UNIT_US(400), r.srtt);
	ASSERT_GT(UNIT_US(100), r.rttvar);
	EXPECT_EQ(UNIT_US(1000), mpdt_rtt_rto(&r, RTO_MAX, RTO_MIN, RTO_MAX));
}

TEST(echo_from_the_future_is_rejected)
{
	struct mpdt_rtt r, before;

	mpdt_rtt_init(&r);
	sample(&r, UNIT_US(100));
	memcpy(&before, &r, sizeof(r));
	EXPECT_FALSE(mpdt_rtt_sample(&r, NOW + 1, NOW));
	EXPECT_FALSE(mpdt_rtt_sample(&r, ~0ULL, NOW));
	EXPECT_EQ(0, memcmp(&before, &r, sizeof(r)));
}

TEST(echo_older_than_60s_is_rejected)
{
	struct mpdt_rtt r, before;

	mpdt_rtt_init(&r);
	sample(&r, UNIT_US(100));
	memcpy(&before, &r, sizeof(r));
	EXPECT_FALSE(mpdt_rtt_sample(&r, NOW - MPDT_RTT_SAMPLE_MAX - 1, NOW));
	EXPECT_FALSE(mpdt_rtt_sample(&r, 0, NOW));
	EXPECT_EQ(0, memcmp(&before, &r, sizeof(r)));
	/* Exactly 60 s is still a (very slow) sample. */
	EXPECT_TRUE(mpdt_rtt_sample(&r, NOW - MPDT_RTT_SAMPLE_MAX, NOW));
	EXPECT_EQ(MPDT_RTT_SAMPLE_MAX, r.latest);
}

TEST(zero_rtt_sample_is_accepted)
{
	struct mpdt_rtt r;

	mpdt_rtt_init(&r);
	EXPECT_TRUE(mpdt_rtt_sample(&r, NOW, NOW));
	EXPECT_EQ(0ULL, r.srtt);
	EXPECT_EQ(0ULL, r.min_rtt);
	EXPECT_EQ(RTO_MIN, mpdt_rtt_rto(&r, RTO_MAX, RTO_MIN, RTO_MAX));
}

TEST(rto_is_clamped_to_min_and_max)
{
	struct mpdt_rtt r;

	mpdt_rtt_init(&r);
	sample(&r, UNIT_US(10));	/* 10 + 4 * 5 = 30 us < min */
	EXPECT_EQ(RTO_MIN, mpdt_rtt_rto(&r, RTO_MAX, RTO_MIN, RTO_MAX));
	mpdt_rtt_init(&r);
	sample(&r, UNIT_MS(50));	/* 50 + 4 * 25 = 150 ms > max */
	EXPECT_EQ(RTO_MAX, mpdt_rtt_rto(&r, RTO_MAX, RTO_MIN, RTO_MAX));
	EXPECT_EQ(UNIT_MS(150), mpdt_rtt_rto(&r, RTO_MAX, RTO_MIN, UNIT_SEC(1)));
}

/* A sample of @rtt taken at @at. */
static void sample_at(struct mpdt_rtt *r, u64 at, u64 rtt)
{
	mpdt_rtt_sample(r, at - rtt, at);
}

/* The minimum follows a lower sample at once and keeps it while it is in
 * the window, whatever larger samples come.
 */
TEST(min_rtt_falls_at_once_and_holds_for_the_window)
{
	const u64 t0 = UNIT_SEC(100);
	struct mpdt_rtt r;

	mpdt_rtt_init(&r);
	sample_at(&r, t0, UNIT_US(300));
	sample_at(&r, t0 + UNIT_MS(1), UNIT_US(100));
	EXPECT_EQ(UNIT_US(100), r.min_rtt);
	sample_at(&r, t0 + MPDT_RTT_MIN_WINDOW, UNIT_US(400));
	EXPECT_EQ(UNIT_US(100), r.min_rtt);
}

/* After a route change lengthens the path the minimum rises again, one
 * window after the last short sample (STrack's base RTT would otherwise
 * stay at the old path's forever).
 */
TEST(min_rtt_rises_after_a_route_change)
{
	const u64 t0 = UNIT_SEC(100), step = UNIT_MS(100);
	struct mpdt_rtt r;
	u64 t;

	mpdt_rtt_init(&r);
	for (t = t0; t <= t0 + UNIT_SEC(1); t += step)
		sample_at(&r, t, UNIT_US(100));
	for (; t <= t0 + UNIT_SEC(1) + MPDT_RTT_MIN_WINDOW; t += step) {
		sample_at(&r, t, UNIT_US(300));
		EXPECT_EQ(UNIT_US(100), r.min_rtt);
	}
	for (; t <= t0 + UNIT_SEC(2) + MPDT_RTT_MIN_WINDOW; t += step)
		sample_at(&r, t, UNIT_US(300));
	EXPECT_EQ(UNIT_US(300), r.min_rtt);
}

#define WIN_STEP	UNIT_MS(250)
#define WIN_SAMPLES	400

/* Whether @r's minimum is one of the samples of the window ending at
 * sample @i.  (It may be above the window's least: the estimator keeps
 * three candidates, not every sample, and a sample it skipped because a
 * lower one was current is not recalled when that one leaves.)
 */
static bool min_is_in_window(const struct mpdt_rtt *r, const u64 *rtts,
			     u64 i)
{
	u64 j;

	for (j = 0; j <= i && j * WIN_STEP <= MPDT_RTT_MIN_WINDOW; j++)
		if (rtts[i - j] == r->min_rtt)
			return true;
	return false;
}

/* Random samples: the minimum is always a sample of the window, never an
 * older one.
 */
TEST(min_rtt_is_a_sample_of_the_window)
{
	u64 rtts[WIN_SAMPLES], i, seed;
	struct unit_rng rng;
	struct mpdt_rtt r;

	for (seed = 1; seed <= 50; seed++) {
		rng.state = seed;
		mpdt_rtt_init(&r);
		for (i = 0; i < WIN_SAMPLES; i++) {
			rtts[i] = UNIT_US(50 + unit_rand_below(&rng, 500));
			sample_at(&r, UNIT_SEC(100) + i * WIN_STEP, rtts[i]);
			ASSERT_TRUE(min_is_in_window(&r, rtts, i));
		}
	}
}

TEST_HARNESS_MAIN
