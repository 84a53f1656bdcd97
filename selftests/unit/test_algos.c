// SPDX-License-Identifier: GPL-2.0
/*
 * The baseline algorithms: "single" load balancing (one entropy per
 * connection, net/mpdt/lb_single.c) and "fixed" congestion control (a
 * constant window, net/mpdt/cc_fixed.c).
 */
#include "unit.h"
#include "kselftest_harness.h"

#define PRIV_MAX	256

static struct mpdt_params params(void)
{
	struct mpdt_params p;

	memset(&p, 0, sizeof(p));
	p.payload = 1400;
	p.link_mbps = 10000;
	p.base_rtt_us = 12;
	p.entropies = 256;
	return p;
}

struct lb_box {
	struct mpdt_lb lb;
	u64 priv[PRIV_MAX / 8];
};

static void lb_start(struct lb_box *b, const struct mpdt_params *p,
		     u64 seed)
{
	memset(b, 0, sizeof(*b));
	b->lb.ops = &mpdt_lb_single;
	b->lb.priv = b->priv;
	b->lb.entropies = p->entropies;
	b->lb.ops->init(&b->lb, p, seed);
}

/* Pick an entropy at time @now with an otherwise neutral context. */
static u16 lb_pick(struct lb_box *b, u64 now)
{
	struct mpdt_lb_ctx ctx = { .now = now, .cwnd_pkts = 10, .bdp_pkts = 10 };

	return b->lb.ops->choose_ev(&b->lb, &ctx);
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

TEST(lb_single_is_named_single_and_fits_its_priv)
{
	struct mpdt_params p = params();

	EXPECT_STREQ("single", mpdt_lb_single.name);
	EXPECT_GE(PRIV_MAX, mpdt_lb_single.priv_size(&p));
	EXPECT_NE(NULL, mpdt_lb_single.init);
	EXPECT_NE(NULL, mpdt_lb_single.choose_ev);
}

TEST(lb_single_uses_one_entropy_for_the_whole_connection)
{
	struct mpdt_params p = params();
	struct lb_box b;
	u16 ev;
	int i;

	lb_start(&b, &p, 0x1234567890abcdefULL);
	ev = lb_pick(&b, 0);
	EXPECT_GT(256, ev);
	for (i = 1; i < 1000; i++) {
		EXPECT_EQ(ev, lb_pick(&b, UNIT_US(i))) {
			TH_LOG("packet %d", i);
		}
	}
	/* Signals do not move it (the hooks are optional). */
	if (b.lb.ops->on_ack) {
		struct mpdt_lb_ack a = { .rtt_ns = UNIT_US(10), .ev = ev,
					 .ce = true };

		b.lb.ops->on_ack(&b.lb, &a);
	}
	if (b.lb.ops->on_nack)
		b.lb.ops->on_nack(&b.lb, ev, MPDT_NACK_TRIMMED, 0);
	if (b.lb.ops->on_timeout)
		b.lb.ops->on_timeout(&b.lb, ev, 0);
	EXPECT_EQ(ev, lb_pick(&b, UNIT_MS(1)));
}

TEST(lb_single_entropy_is_always_below_entropies)
{
	static const u32 counts[] = { 1, 2, 7, 256, 65536 };
	struct mpdt_params p = params();
	struct unit_rng rng = { .state = 7 };
	struct lb_box b;
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		p.entropies = counts[i];
		for (n = 0; n < 200; n++) {
			lb_start(&b, &p, unit_rand(&rng));
			EXPECT_GT(counts[i], lb_pick(&b, 0));
		}
	}
	p.entropies = 1;
	lb_start(&b, &p, ~0ULL);
	EXPECT_EQ(0, lb_pick(&b, 0));
}

TEST(lb_single_spreads_connections_over_entropies)
{
	struct mpdt_params p = params();
	struct unit_rng rng = { .state = 99 };
	u8 seen[256] = { 0 };
	struct lb_box b;
	u32 distinct = 0;
	int n;

	for (n = 0; n < 1000; n++) {
		lb_start(&b, &p, unit_rand(&rng));
		seen[lb_pick(&b, 0)] = 1;
	}
	for (n = 0; n < 256; n++)
		distinct += seen[n];
	/* 1000 random seeds cover all but ~5 of 256 values on average. */
	EXPECT_LT(240U, distinct);
	/* Same seed, same entropy: the choice is a function of the seed. */
	lb_start(&b, &p, 12345);
	n = lb_pick(&b, 0);
	lb_start(&b, &p, 12345);
	EXPECT_EQ(n, lb_pick(&b, 0));
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

TEST_HARNESS_MAIN
