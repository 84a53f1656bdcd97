// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline congestion control: "fixed", a constant window
 * (net/mpdt/cc_fixed.c).  The load balancing policies have their own
 * test_lb_*.c.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

#define PRIV_MAX	256

static struct mpdt_params params(void)
{
	struct mpdt_params p;

	memset(&p, 0, sizeof(p));
	p.payload = 1400;
	p.link_mbps = 10000;
	p.base_rtt_us = 12;
	return p;
}

static u32 cc_start(const struct mpdt_params *p, u32 mss)
{
	struct mpdt_cc cc;
	u64 priv[PRIV_MAX / 8];

	memset(&cc, 0, sizeof(cc));
	memset(priv, 0, sizeof(priv));
	cc.ops = &mpdt_cc_fixed;
	cc.priv = priv;
	cc.mss = mss;
	cc.ops->init(&cc, p);
	return cc.cwnd;
}

TEST(cc_fixed_is_named_fixed)
{
	EXPECT_STREQ("fixed", mpdt_cc_fixed.name);
	EXPECT_GE(PRIV_MAX, mpdt_cc_fixed.priv_size);
}

TEST(cc_fixed_uses_fixed_cwnd_when_set)
{
	struct mpdt_params p = params();

	p.fixed_cwnd = 64000;
	EXPECT_EQ(64000U, cc_start(&p, 1400));
	p.fixed_cwnd = 1400;
	EXPECT_EQ(1400U, cc_start(&p, 1400));
}

/* BDP in bytes = Mbit/s * us / 8. */
TEST(cc_fixed_defaults_to_one_bdp)
{
	struct mpdt_params p = params();

	EXPECT_EQ(15000ULL, mpdt_bdp(&p));	/* 10 Gbit/s * 12 us */
	EXPECT_EQ(15000U, cc_start(&p, 1400));
	p.link_mbps = 100000;
	EXPECT_EQ(150000U, cc_start(&p, 1400));
	p.link_mbps = 10;
	p.base_rtt_us = 1000;
	EXPECT_EQ(1250U, cc_start(&p, 1000));
}

TEST(cc_fixed_window_is_never_below_one_packet)
{
	struct mpdt_params p = params();

	p.link_mbps = 1;
	p.base_rtt_us = 8;		/* BDP = 1 byte */
	EXPECT_EQ(1400U, cc_start(&p, 1400));
	p.fixed_cwnd = 100;
	EXPECT_EQ(1400U, cc_start(&p, 1400));
}

TEST(cc_fixed_huge_bdp_does_not_overflow_cwnd)
{
	struct mpdt_params p = params();
	u32 cwnd;

	p.link_mbps = 0xffffffff;
	p.base_rtt_us = 0xffffffff;
	cwnd = cc_start(&p, 1400);
	EXPECT_LE(1400U, cwnd);
	EXPECT_GE(0x7fffffffU, cwnd);
}

/* The congestion controls of test_cc_*.c, by the names MPDT_CC and the
 * cc parameter take.
 */
TEST(cc_algorithms_are_registered_by_name)
{
	static const struct mpdt_cc_ops *const ccs[] = {
		&mpdt_cc_fixed, &mpdt_cc_strack, &mpdt_cc_smartt, &mpdt_cc_mcc,
	};
	static const char *const names[] = {
		"fixed", "strack", "smartt", "mcc",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ccs); i++) {
		EXPECT_EQ(ccs[i], mpdt_cc_find(names[i]));
		EXPECT_EQ(ccs[i], mpdt_cc_at(i));
		EXPECT_STREQ(names[i], ccs[i]->name);
	}
	EXPECT_EQ(NULL, mpdt_cc_at(ARRAY_SIZE(ccs)));
}

TEST_HARNESS_MAIN
