// SPDX-License-Identifier: GPL-2.0
/*
 * "ecmp" load balancing (net/mpdt/lb_ecmp.c): one entropy for the whole
 * connection, the single-path baseline.
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

TEST(ecmp_is_registered_by_name)
{
	EXPECT_EQ(&mpdt_lb_ecmp, mpdt_lb_find("ecmp"));
	EXPECT_STREQ("ecmp", mpdt_lb_ecmp.name);
	EXPECT_FALSE(mpdt_lb_ecmp.flowlets);
}

TEST(ecmp_uses_one_entropy_for_the_whole_connection)
{
	struct mpdt_params p = unit_lb_params(256);
	struct mpdt_lb lb;
	u16 ev;
	u32 i;

	unit_lb_start(&lb, &mpdt_lb_ecmp, &p, 0x1234567890abcdefULL);
	ev = pick(&lb, 0, false);
	EXPECT_GT(256, ev);
	for (i = 1; i < 1000; i++) {
		EXPECT_EQ(ev, pick(&lb, i, false)) {
			TH_LOG("packet %u", i);
		}
	}
	/* Signals do not move it, and a retransmission takes it too. */
	unit_lb_ack(&lb, 0, ev, true);
	unit_lb_nack(&lb, 0, ev, MPDT_NACK_TRIMMED);
	unit_lb_timeout(&lb, 0, ev);
	EXPECT_EQ(ev, pick(&lb, 1000, true));
	EXPECT_EQ(ev, pick(&lb, 1001, false));
	unit_lb_stop(&lb);
}

TEST(ecmp_entropy_is_always_below_entropies)
{
	static const u32 counts[] = { 1, 2, 4, 7, 16, 256, 65535 };
	struct unit_rng rng = { .state = 7 };
	struct mpdt_params p;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		p = unit_lb_params(counts[i]);
		for (n = 0; n < 50; n++) {
			EXPECT_EQ(0U, unit_lb_fuzz(&mpdt_lb_ecmp, &p,
						   unit_rand(&rng), 100, NULL));
		}
	}
}

TEST(ecmp_spreads_connections_and_is_a_function_of_the_seed)
{
	struct mpdt_params p = unit_lb_params(256);
	struct unit_rng rng = { .state = 99 };
	u8 seen[256] = { 0 };
	u16 a[4], b[4];
	u32 distinct = 0;
	int n;

	for (n = 0; n < 1000; n++) {
		unit_lb_fuzz(&mpdt_lb_ecmp, &p, unit_rand(&rng), 1, a);
		seen[a[0]] = 1;
	}
	for (n = 0; n < 256; n++)
		distinct += seen[n];
	/* 1000 random seeds cover all but ~5 of 256 values on average. */
	EXPECT_LT(240U, distinct);
	unit_lb_fuzz(&mpdt_lb_ecmp, &p, 12345, 4, a);
	unit_lb_fuzz(&mpdt_lb_ecmp, &p, 12345, 4, b);
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
}

TEST_HARNESS_MAIN
