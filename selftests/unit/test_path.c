// SPDX-License-Identifier: GPL-2.0
/*
 * Path estimator (net/mpdt/path.c): the delivery rate over rounds that
 * are round trips of the packets, the largest of the incarnation, SACKs
 * bunched after a stall or a burst that do not inflate it, and the BDP with BBR's startup and
 * full-pipe test, which rounds short of data do not end.
 */
#include "unit.h"
#include "kselftest_harness.h"

#define MSS		1400
#define RTT		UNIT_US(100)
#define T0		UNIT_SEC(1)
/* One SACK every 10 us with 1250 bytes: 125 MB/s (1 Gbit/s). */
#define GAP		UNIT_US(10)
#define BYTES		1250
#define RATE		125000000ULL

/* A sender that feeds SACKs: when, what they echo, and how much each. */
struct feed {
	struct mpdt_path p;
	u64 now;
	u32 rounds;		/* rounds closed */
};

static void feed_init(struct feed *f)
{
	mpdt_path_init(&f->p);
	f->now = T0;
	f->rounds = 0;
	/* The first SACK only opens the first round. */
	mpdt_path_on_ack(&f->p, 0, f->now - RTT, RTT, false, f->now);
}

/* @n SACKs, @gap apart, each @bytes more delivered, echoing packets sent
 * one RTT before (so the send span equals the ACK span).
 */
static void feed(struct feed *f, u32 n, u64 gap, u64 bytes, bool app_limited)
{
	u32 i;

	for (i = 0; i < n; i++) {
		f->now += gap;
		f->rounds += mpdt_path_on_ack(&f->p, bytes, f->now - RTT, RTT,
					      app_limited, f->now);
	}
}

TEST(no_measurement_is_the_initial_window)
{
	struct mpdt_path p;

	mpdt_path_init(&p);
	EXPECT_EQ(0ULL, p.rate);
	EXPECT_EQ((u64)MPDT_PATH_IW_PKTS * MSS, mpdt_path_bdp(&p, RTT, MSS));
}

/* Ten SACKs close a round of 100 us: 12500 bytes, 125 MB/s exactly. */
TEST(steady_rate_is_measured_exactly)
{
	struct feed f;

	feed_init(&f);
	feed(&f, 10, GAP, BYTES, false);
	EXPECT_EQ(1, f.rounds);
	EXPECT_EQ(RATE, f.p.rate);
	/* Startup: twice the BDP of 12500 bytes, and the IW floor. */
	EXPECT_FALSE(f.p.full);
	EXPECT_EQ(25000ULL, mpdt_path_bdp(&f.p, RTT, MSS));
}

/* BBR's full-pipe test: the first round sets the mark, three more without
 * 25% growth fill the pipe; the BDP stays doubled (BBR's cwnd_gain).
 */
TEST(pipe_is_full_after_three_rounds_without_growth)
{
	struct feed f;

	feed_init(&f);
	feed(&f, 10 * 3, GAP, BYTES, false);
	EXPECT_EQ(3, f.rounds);
	EXPECT_FALSE(f.p.full);
	feed(&f, 10, GAP, BYTES, false);
	EXPECT_TRUE(f.p.full);
	EXPECT_EQ(25000ULL, mpdt_path_bdp(&f.p, RTT, MSS));
}

/* A host path: the same rate over a base RTT of 10 us is a BDP of one
 * packet; the full pipe still gets BBR's four-packet minimum.
 */
TEST(full_pipe_keeps_four_packets)
{
	struct feed f;

	feed_init(&f);
	feed(&f, 10 * 4, GAP, BYTES, false);
	EXPECT_TRUE(f.p.full);
	EXPECT_EQ(4ULL * MSS, mpdt_path_bdp(&f.p, UNIT_US(10), MSS));
	EXPECT_EQ(25000ULL, mpdt_path_bdp(&f.p, RTT, MSS));
}

/* The doubling saturates: no rate wraps the BDP round to a small one. */
TEST(bdp_saturates)
{
	struct mpdt_path p;

	mpdt_path_init(&p);
	p.full = true;
	p.rate = U64_MAX / 3;
	EXPECT_EQ(U64_MAX / 3 * 2, mpdt_path_bdp(&p, UNIT_SEC(1), MSS));
	p.rate = U64_MAX / 2 + 1;
	EXPECT_EQ(U64_MAX, mpdt_path_bdp(&p, UNIT_SEC(1), MSS));
}

/* Growth of a quarter or more each round keeps the pipe filling. */
TEST(growing_rate_keeps_startup)
{
	struct feed f;
	u64 bytes = BYTES;
	u32 r;

	feed_init(&f);
	for (r = 0; r < 8; r++, bytes *= 2)
		feed(&f, 10, GAP, bytes, false);
	EXPECT_EQ(8, f.rounds);
	EXPECT_FALSE(f.p.full);
	EXPECT_EQ(RATE << 7, f.p.rate);
	EXPECT_EQ(2 * (12500ULL << 7), mpdt_path_bdp(&f.p, RTT, MSS));
}

/* The largest rate of the incarnation: slower rounds (a share, a window
 * limit, a busy host) never lower it, a faster one raises it.  The
 * latest round's rate is what the flow gets now.
 */
TEST(slower_rounds_never_lower_the_rate)
{
	struct feed f;

	feed_init(&f);
	feed(&f, 10, GAP, BYTES, false);
	EXPECT_EQ(RATE, f.p.last_rate);
	feed(&f, 10 * 30, GAP, BYTES / 5, false);
	EXPECT_EQ(31, f.rounds);
	EXPECT_EQ(RATE, f.p.rate);
	EXPECT_EQ(RATE / 5, f.p.last_rate);
	feed(&f, 10, GAP, 2 * BYTES, false);
	EXPECT_EQ(2 * RATE, f.p.rate);
	EXPECT_EQ(2 * RATE, f.p.last_rate);
}

/* Rounds short of data (the sender had nothing queued) do not fill the
 * pipe: they say nothing of what more data would have got.
 */
TEST(app_limited_rounds_do_not_fill_the_pipe)
{
	struct feed f;

	feed_init(&f);
	feed(&f, 10, GAP, BYTES, false);
	feed(&f, 10 * 30, GAP, BYTES, true);
	EXPECT_EQ(RATE, f.p.rate);
	EXPECT_FALSE(f.p.full);
	/* The round the last short SACK opened is short too; three more. */
	feed(&f, 10 * 3, GAP, BYTES, false);
	EXPECT_FALSE(f.p.full);
	feed(&f, 10, GAP, BYTES, false);
	EXPECT_TRUE(f.p.full);
}

/* Packet k is sent at T0 + k * GAP; its SACK normally comes one RTT later.
 * A stalled host gets the SACKs of packets 12-24 bunched 0.1 us apart at
 * the time the last of them was due.  The round that began with packet
 * 10's SACK ends with packet 20's (the first sent after it began), 140
 * us on: ten packets over that span, a slower round.  The next holds the
 * other four bunched SACKs and those of packets 25-35, 15 packets over
 * an ACK span of 109 us; their send times span 150 us: the longer span
 * divides (the delivery-rate draft's send/ACK rule), and the rate stays
 * the link's.
 */
/* The SACKs of packets @from..@to, each one RTT after the packet left;
 * the rounds they closed.
 */
static u32 acks_on_time(struct mpdt_path *p, u32 from, u32 to)
{
	u32 rounds = 0, k;

	for (k = from; k <= to; k++)
		rounds += mpdt_path_on_ack(p, BYTES, T0 + k * GAP, RTT, false,
					   T0 + k * GAP + RTT);
	return rounds;
}

TEST(bunched_sacks_do_not_inflate_the_rate)
{
	struct mpdt_path p;
	u32 rounds, k;

	mpdt_path_init(&p);
	rounds = acks_on_time(&p, 0, 11);
	EXPECT_EQ(1, rounds);
	EXPECT_EQ(RATE, p.rate);
	for (k = 12; k <= 24; k++)
		rounds += mpdt_path_on_ack(&p, BYTES, T0 + k * GAP, RTT, false,
					   T0 + 24 * GAP + RTT + (k - 12) * 100);
	rounds += acks_on_time(&p, 25, 35);
	EXPECT_EQ(3, rounds);
	EXPECT_EQ(RATE, p.rate);
}

/* A window of 40 packets sent in one burst every RTT of 1.1 ms (a queue
 * over a base RTT of 100 us): the first SACK of each window comes alone,
 * 38 more bunched within 38 us and the last 100 us after the first, when
 * the next window goes.  The link delivers 40 packets per 1.1 ms; a
 * round that the clock ended after a base RTT took 39 packets over 100
 * us, ten times that.
 */
TEST(a_window_sent_in_bursts_is_measured_over_its_rtt)
{
	const u64 rtt = UNIT_US(1100), real = 40ULL * BYTES * 1000000000ULL /
					     UNIT_US(1100);
	struct mpdt_path p;
	u64 burst = T0, at;
	u32 r, i;

	mpdt_path_init(&p);
	for (r = 0; r < 8; r++) {
		for (i = 0; i < 40; i++) {
			at = burst + rtt - UNIT_US(100);
			if (i == 39)
				at += UNIT_US(100);
			else if (i)
				at += UNIT_US(i);
			mpdt_path_on_ack(&p, BYTES, burst + i * 100, RTT, false,
					 at);
		}
		burst = at + 1;
	}
	TH_LOG("rate %llu B/s, the link's %llu", p.rate, real);
	EXPECT_GE(real + real / 8, p.rate);
	EXPECT_LE(real - real / 8, p.rate);
}

/* A clock that went back (a forged or reordered timestamp) restarts the
 * round instead of dividing by a wrapped span; a base RTT of 0 is one ns.
 */
TEST(clock_going_back_restarts_the_round)
{
	struct feed f;

	feed_init(&f);
	EXPECT_FALSE(mpdt_path_on_ack(&f.p, BYTES, 0, RTT, false, T0 - 1));
	EXPECT_EQ(T0 - 1, f.p.start_ns);
	EXPECT_TRUE(mpdt_path_on_ack(&f.p, BYTES, T0 - 1, 0, false, T0));
	EXPECT_EQ((u64)BYTES * 1000000000ULL, f.p.rate);
}

TEST_HARNESS_MAIN
