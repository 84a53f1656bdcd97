// SPDX-License-Identifier: GPL-2.0
/*
 * "oblivious" load balancing (net/mpdt/lb_oblivious.c): round robin over
 * every entropy in a per-connection random order, blind to congestion.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

static u16 pick(struct mpdt_lb *lb, u32 psn, bool resend)
{
	struct mpdt_lb_ctx ctx = {
		.now = UNIT_US(psn), .psn = psn, .cwnd_pkts = 10,
		.bdp_pkts = 10, .rtt_ns = UNIT_US(12), .resend = resend,
	};

	return lb->ops->choose_ev(lb, &ctx);
}

/* @n EVs of one connection, with a signal on each to show they do not
 * matter, and every third packet a retransmission.
 */
static u16 *trace(u32 entropies, u64 seed, u32 n)
{
	struct mpdt_params p = unit_lb_params(entropies);
	u16 *evs = calloc(n, sizeof(*evs));
	struct mpdt_lb lb;
	u32 i;

	if (!evs)
		abort();
	unit_lb_start(&lb, &mpdt_lb_oblivious, &p, seed);
	for (i = 0; i < n; i++) {
		evs[i] = pick(&lb, i, i % 3 == 2);
		unit_lb_ack(&lb, UNIT_US(i), evs[i], true);
		unit_lb_nack(&lb, UNIT_US(i), evs[i], MPDT_NACK_TRIMMED);
		unit_lb_timeout(&lb, UNIT_US(i), evs[i]);
	}
	unit_lb_stop(&lb);
	return evs;
}

/* Whether @evs[0 .. n - 1] holds each of 0 .. n - 1 once. */
static bool is_permutation(const u16 *evs, u32 n)
{
	u8 *seen = calloc(n, 1);
	bool ok = true;
	u32 i;

	if (!seen)
		abort();
	for (i = 0; i < n && ok; i++) {
		ok = evs[i] < n && !seen[evs[i]];
		if (ok)
			seen[evs[i]] = 1;
	}
	free(seen);
	return ok;
}

TEST(oblivious_is_registered_by_name)
{
	EXPECT_EQ(&mpdt_lb_oblivious, mpdt_lb_find("oblivious"));
	EXPECT_STREQ("oblivious", mpdt_lb_oblivious.name);
	EXPECT_FALSE(mpdt_lb_oblivious.flowlets);
}

TEST(oblivious_visits_every_entropy_once_per_round_in_a_fixed_order)
{
	static const u32 counts[] = { 1, 2, 3, 4, 16, 255, 256, 257, 1000,
				      65535 };
	size_t i;
	u32 r;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		u32 n = counts[i];
		u16 *evs = trace(n, 0xfeedULL + i, 3 * n);

		for (r = 0; r < 3; r++) {
			EXPECT_TRUE(is_permutation(evs + r * n, n)) {
				TH_LOG("entropies %u round %u", n, r);
			}
		}
		/* Round robin: every round repeats the first one's order. */
		EXPECT_EQ(0, memcmp(evs, evs + n, n * sizeof(*evs)));
		EXPECT_EQ(0, memcmp(evs, evs + 2 * n, n * sizeof(*evs)));
		free(evs);
	}
}

TEST(oblivious_order_is_random_per_connection)
{
	u16 *a = trace(256, 1, 256), *b = trace(256, 2, 256);
	u32 i, same = 0, ascending = 0;

	for (i = 0; i < 256; i++)
		same += a[i] == b[i];
	for (i = 1; i < 256; i++)
		ascending += a[i] == a[i - 1] + 1;
	/* Two random orders agree in ~1 of 256 places, and a random order
	 * has ~1 ascending neighbour pair.
	 */
	EXPECT_GT(8U, same);
	EXPECT_GT(8U, ascending);
	free(a);
	free(b);
}

TEST(oblivious_is_a_function_of_the_seed)
{
	u16 *a = trace(1000, 77, 1500), *b = trace(1000, 77, 1500);

	EXPECT_EQ(0, memcmp(a, b, 1500 * sizeof(*a)));
	free(a);
	free(b);
}

TEST(oblivious_entropy_is_always_below_entropies)
{
	static const u32 counts[] = { 1, 2, 4, 16, 100, 256, 4097, 65535 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		struct mpdt_params p = unit_lb_params(counts[i]);

		EXPECT_EQ(0U, unit_lb_fuzz(&mpdt_lb_oblivious, &p, i, 5000,
					   NULL));
	}
}

TEST_HARNESS_MAIN
