// SPDX-License-Identifier: GPL-2.0
/*
 * "bitmap" load balancing (net/mpdt/lb_bitmap.c) against STrack §3.1,
 * Algorithm 2, on scripted SACK traces.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

#define RTT		UNIT_US(12)
#define T0		UNIT_MS(1)	/* first send; marks live from here */

struct bitmap_test {
	struct mpdt_lb lb;
	u64 now;
	u32 cwnd;
};

/* The round robin starts after EV seed % entropies: seed 1 sends EV 2. */
static void start(struct bitmap_test *t, u32 entropies, u64 seed)
{
	struct mpdt_params p = unit_lb_params(entropies);

	unit_lb_start(&t->lb, &mpdt_lb_bitmap, &p, seed);
	t->now = T0;
	t->cwnd = 4;		/* window max(8, 2 * 4) = 8 EVs */
}

static u16 send(struct bitmap_test *t, bool resend)
{
	struct mpdt_lb_ctx ctx = {
		.now = t->now, .cwnd_pkts = t->cwnd, .bdp_pkts = 10,
		.rtt_ns = RTT, .resend = resend,
	};

	return t->lb.ops->choose_ev(&t->lb, &ctx);
}

static void ack(struct bitmap_test *t, u16 ev, bool ce)
{
	unit_lb_ack(&t->lb, t->now, ev, ce);
}

/* Packets of @n sends, as a string of EVs: "3 4 5" */
static const char *sends(struct bitmap_test *t, u32 n, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	while (n-- && len < sz)
		len += snprintf(buf + len, sz - len, len ? " %u" : "%u",
				send(t, false));
	return buf;
}

TEST(bitmap_is_registered_by_name)
{
	EXPECT_EQ(&mpdt_lb_bitmap, mpdt_lb_find("bitmap"));
	EXPECT_STREQ("bitmap", mpdt_lb_bitmap.name);
	EXPECT_FALSE(mpdt_lb_bitmap.flowlets);
}

/* CHOOSE_PATH: rr = (rr + 1) % paths from a seeded start. */
TEST(bitmap_round_robin_without_signals)
{
	struct bitmap_test t;
	u16 prev, ev;
	int i;

	start(&t, 256, 42);
	prev = send(&t, false);
	EXPECT_GT(8, prev);
	for (i = 0; i < 40; i++) {
		ev = send(&t, false);
		EXPECT_EQ((prev + 1) % 8, ev);
		prev = ev;
	}
	unit_lb_stop(&t.lb);
}

/* Line 17: paths = max(8, min(256, 2 * cwnd)), within entropies. */
TEST(bitmap_window_follows_cwnd)
{
	static const struct {
		u32 entropies, cwnd, window;
	} cases[] = {
		{ 256, 1, 8 }, { 256, 4, 8 }, { 256, 5, 10 }, { 256, 10, 20 },
		{ 256, 100, 200 }, { 256, 128, 256 }, { 256, 100000, 256 },
		{ 65535, 1000, 256 }, { 4, 10, 4 }, { 16, 100, 16 },
		{ 1, 1, 1 },
	};
	struct bitmap_test t;
	size_t i;
	u32 k;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u32 w = cases[i].window;
		u8 seen[256] = { 0 };
		u32 distinct = 0;
		u16 ev;

		start(&t, cases[i].entropies, i);
		t.cwnd = cases[i].cwnd;
		for (k = 0; k < 2 * w; k++) {
			ev = send(&t, false);
			EXPECT_GT(w, ev);
			if (ev < 256 && !seen[ev]++)
				distinct++;
		}
		EXPECT_EQ(w, distinct) {
			TH_LOG("entropies %u cwnd %u", cases[i].entropies,
			       cases[i].cwnd);
		}
		unit_lb_stop(&t.lb);
	}
}

/* Lines 7-8 and 13: an unmarked SACK's EV goes out once, next, and
 * the round robin continues after it.
 */
TEST(bitmap_reuses_an_unmarked_entropy_once)
{
	struct bitmap_test t;

	start(&t, 256, 1);
	send(&t, false);
	ack(&t, 6, false);
	EXPECT_EQ(6, send(&t, false));
	EXPECT_EQ(7, send(&t, false));
	EXPECT_EQ(0, send(&t, false));
	/* EV 0 too (the paper's "next_path_id > 0" would skip it). */
	ack(&t, 0, false);
	EXPECT_EQ(0, send(&t, false));
	EXPECT_EQ(1, send(&t, false));
	/* The last unmarked SACK wins; a retransmission takes it too. */
	ack(&t, 3, false);
	ack(&t, 5, false);
	EXPECT_EQ(5, send(&t, true));
	EXPECT_EQ(6, send(&t, false));
	/* Outside the window but a managed EV: reused all the same. */
	ack(&t, 200, false);
	EXPECT_EQ(200, send(&t, false));
	EXPECT_EQ(201 % 8, send(&t, false));
	unit_lb_stop(&t.lb);
}

/* UPDATE_ECN_BITMAP: a marked SACK leaves no EV to reuse (-path_id),
 * not even one queued by an earlier unmarked SACK.
 */
TEST(bitmap_marked_sack_cancels_the_reuse)
{
	struct bitmap_test t;

	start(&t, 256, 1);
	EXPECT_EQ(2, send(&t, false));
	ack(&t, 6, false);
	ack(&t, 4, true);
	EXPECT_EQ(3, send(&t, false));
	EXPECT_EQ(5, send(&t, false));	/* 4 is marked: skipped */
	unit_lb_stop(&t.lb);
}

/* Line 23: skip marked EVs; one packet clears only the first bit it
 * skips ("one packet only clears one bit").
 */
TEST(bitmap_skips_marked_and_clears_the_first_skipped_bit)
{
	struct bitmap_test t;
	char buf[128];

	start(&t, 256, 1);
	EXPECT_EQ(2, send(&t, false));
	ack(&t, 3, true);
	ack(&t, 4, true);
	ack(&t, 6, true);
	/* 3 skipped and cleared, 4 skipped and kept; 6 skipped, cleared. */
	EXPECT_STREQ("5 7 0 1 2 3", sends(&t, 6, buf, sizeof(buf)));
	/* Round two: 4 still marked, now the first skipped: cleared. */
	EXPECT_STREQ("5 6 7 0 1 2 3 4", sends(&t, 8, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* All eight marked: each packet clears the next marked bit and walks on
 * to the first clear EV, so the cleared ones carry the traffic while the
 * marks drain one per packet.
 */
TEST(bitmap_all_marked_clears_one_bit_per_packet)
{
	struct bitmap_test t;
	char buf[128];
	u16 ev;

	start(&t, 256, 1);
	EXPECT_EQ(2, send(&t, false));
	for (ev = 0; ev < 8; ev++)
		ack(&t, ev, true);
	EXPECT_STREQ("3 3 4 3 4 5 3 4 5", sends(&t, 9, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* STrack §1: the bitmap is reset after one or two RTTs. */
TEST(bitmap_forgets_marks_after_reset_rtts)
{
	struct bitmap_test t;
	char buf[128];

	start(&t, 256, 1);
	EXPECT_EQ(2, send(&t, false));	/* at T0: the reset clock starts */
	ack(&t, 4, true);
	ack(&t, 5, true);
	t.now = T0 + 2 * RTT - 1;
	EXPECT_STREQ("3 6", sends(&t, 2, buf, sizeof(buf)));
	/* 4 was cleared by that packet; 5 still marked. */
	ack(&t, 7, true);
	t.now = T0 + 2 * RTT;
	EXPECT_STREQ("7 0 1 2 3 4 5 6 7", sends(&t, 9, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

TEST(bitmap_reset_period_is_tunable)
{
	struct mpdt_params p = unit_lb_params(256);
	struct bitmap_test t;
	char buf[64];

	p.bitmap_reset_rtts = 1;
	unit_lb_start(&t.lb, &mpdt_lb_bitmap, &p, 1);
	t.now = T0;
	t.cwnd = 4;
	EXPECT_EQ(2, send(&t, false));
	ack(&t, 3, true);
	t.now = T0 + RTT;
	EXPECT_STREQ("3", sends(&t, 1, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* A trimmed or timed-out packet marks its EV; NO_BUFFER does not. */
TEST(bitmap_losses_mark_the_path)
{
	struct bitmap_test t;
	char buf[64];

	start(&t, 256, 1);
	EXPECT_EQ(2, send(&t, false));
	unit_lb_nack(&t.lb, t.now, 3, MPDT_NACK_TRIMMED);
	unit_lb_timeout(&t.lb, t.now, 5);
	unit_lb_nack(&t.lb, t.now, 6, MPDT_NACK_NO_BUFFER);
	EXPECT_STREQ("4 6", sends(&t, 2, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Only EVs it manages (the first 256) count; others are ignored. */
TEST(bitmap_ignores_unmanaged_entropies)
{
	struct bitmap_test t;

	start(&t, 65535, 1);
	EXPECT_EQ(2, send(&t, false));
	ack(&t, 256, false);
	ack(&t, 65534, false);
	EXPECT_EQ(3, send(&t, false));
	unit_lb_stop(&t.lb);
}

TEST(bitmap_is_a_function_of_the_seed)
{
	struct mpdt_params p = unit_lb_params(256);
	u16 a[2000], b[2000];
	u32 starts = 0;
	u64 seed;

	unit_lb_fuzz(&mpdt_lb_bitmap, &p, 5, 2000, a);
	unit_lb_fuzz(&mpdt_lb_bitmap, &p, 5, 2000, b);
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
	/* Different seeds start the round robin at different EVs. */
	for (seed = 0; seed < 64; seed++) {
		unit_lb_fuzz(&mpdt_lb_bitmap, &p, seed, 1, a);
		starts |= 1U << (a[0] % 32);
	}
	EXPECT_LT(4, __builtin_popcount(starts));
}

TEST(bitmap_entropy_is_always_below_entropies)
{
	static const u32 counts[] = { 1, 2, 4, 7, 8, 16, 255, 256, 257,
				      65535 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		struct mpdt_params p = unit_lb_params(counts[i]);

		EXPECT_EQ(0U, unit_lb_fuzz(&mpdt_lb_bitmap, &p, i, 5000,
					   NULL));
	}
}

TEST_HARNESS_MAIN
