// SPDX-License-Identifier: GPL-2.0
/*
 * "paralet" load balancing (net/mpdt/lb_paralet.c) against ParaLet §3-5:
 * m parallel flowlets, each on one entropy and in order, 4 BDP / m
 * packets long.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

struct paralet_test {
	struct mpdt_lb lb;
	u32 psn;
	u32 bdp;
};

struct sent {
	u16 ev;
	bool in_flowlet;
	u32 prev;
};

static void start(struct paralet_test *t, u32 entropies, u32 m, u32 bdp,
		  u64 seed)
{
	struct mpdt_params p = unit_lb_params(entropies);

	if (m)
		p.paralet_m = m;
	unit_lb_start(&t->lb, &mpdt_lb_paralet, &p, seed);
	t->psn = 0;
	t->bdp = bdp;
}

/* The out fields start wrong, so the policy has to set them. */
static struct sent send_psn(struct paralet_test *t, u32 psn, bool resend)
{
	struct mpdt_lb_ctx ctx = {
		.now = UNIT_US(psn), .psn = psn, .cwnd_pkts = 10,
		.bdp_pkts = t->bdp, .rtt_ns = UNIT_US(12), .resend = resend,
		.in_flowlet = resend, .flowlet_prev = 0xdead,
	};
	struct sent s;

	s.ev = t->lb.ops->choose_ev(&t->lb, &ctx);
	s.in_flowlet = ctx.in_flowlet;
	s.prev = ctx.flowlet_prev;
	return s;
}

/* The next new packet. */
static struct sent send(struct paralet_test *t)
{
	return send_psn(t, t->psn++, false);
}

/*
 * Sends @n new packets and checks them against the model: packet k joins
 * flowlet k % m; a flowlet carries @size packets on one EV, each naming
 * the flowlet's previous PSN, then a new flowlet starts on a new EV.
 * Returns the number of packets that broke it.
 */
static u32 check_flowlets(struct paralet_test *t, u32 m, u32 size, u32 n)
{
	u32 *last = calloc(m, sizeof(*last)), *count = calloc(m, 4);
	u16 *ev = calloc(m, sizeof(*ev));
	u32 k, bad = 0;

	if (!last || !count || !ev)
		abort();
	for (k = 0; k < n; k++) {
		u32 f = k % m, psn = t->psn;
		struct sent s = send(t);
		bool starts = count[f] % size == 0;

		bad += !s.in_flowlet;
		if (starts) {
			/* a new EV, except when there is only one */
			bad += s.prev != psn;
			bad += count[f] && s.ev == ev[f] &&
			       t->lb.entropies > 1;
		} else {
			bad += s.prev != last[f] || s.ev != ev[f];
		}
		ev[f] = s.ev;
		last[f] = psn;
		count[f]++;
	}
	free(last);
	free(count);
	free(ev);
	return bad;
}

TEST(paralet_is_registered_by_name)
{
	EXPECT_EQ(&mpdt_lb_paralet, mpdt_lb_find("paralet"));
	EXPECT_STREQ("paralet", mpdt_lb_paralet.name);
	/* The receiver reports gaps inside flowlets, not between them. */
	EXPECT_TRUE(mpdt_lb_paralet.flowlets);
}

/* §3, §5.1: m flowlets in parallel, in turn, each in order on one EV;
 * §5.2: S = 4 BDP / m.
 */
TEST(paralet_sends_m_flowlets_in_parallel)
{
	static const struct {
		u32 m, bdp, size;
	} cases[] = {
		{ 4, 8, 8 }, { 4, 3, 3 }, { 32, 80, 10 }, { 32, 100, 12 },
		{ 32, 8, 1 }, { 1, 10, 40 }, { 256, 1000, 15 },
	};
	struct paralet_test t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		start(&t, 256, cases[i].m, cases[i].bdp, i);
		EXPECT_EQ(0U, check_flowlets(&t, cases[i].m, cases[i].size,
					     cases[i].m * cases[i].size * 5)) {
			TH_LOG("m %u bdp %u", cases[i].m, cases[i].bdp);
		}
		unit_lb_stop(&t.lb);
	}
}

TEST(paralet_defaults_to_32_flowlets)
{
	struct paralet_test t;

	start(&t, 256, 0, 80, 1);
	EXPECT_EQ(0U, check_flowlets(&t, 32, 10, 32 * 10 * 3));
	unit_lb_stop(&t.lb);
}

TEST(paralet_flowlet_size_is_tunable)
{
	struct mpdt_params p = unit_lb_params(256);
	struct paralet_test t;

	p.paralet_m = 4;
	p.paralet_bdps = 1;
	unit_lb_start(&t.lb, &mpdt_lb_paralet, &p, 1);
	t.psn = 0;
	t.bdp = 8;
	EXPECT_EQ(0U, check_flowlets(&t, 4, 2, 40));
	unit_lb_stop(&t.lb);
}

/* The flowlets in flight use different EVs, and new flowlets walk a
 * per-connection random order of all entropies.
 */
TEST(paralet_new_flowlets_take_new_entropies)
{
	struct paralet_test t, u;
	u8 seen[256] = { 0 };
	u32 k, distinct = 0, same = 0;

	/* S = 1: every packet opens a flowlet. */
	start(&t, 256, 32, 8, 1);
	start(&u, 256, 32, 8, 2);
	for (k = 0; k < 256; k++) {
		struct sent s = send(&t);

		EXPECT_EQ(t.psn - 1, s.prev);
		if (!seen[s.ev]++)
			distinct++;
		same += s.ev == send(&u).ev;
	}
	EXPECT_EQ(256U, distinct);
	EXPECT_GT(8U, same);
	unit_lb_stop(&t.lb);
	unit_lb_stop(&u.lb);
}

/* Fewer flowlets than entropies: those in flight never share one. */
TEST(paralet_flowlets_in_flight_use_different_entropies)
{
	struct paralet_test t;
	u16 ev[32];
	u32 k, i, clashes = 0;

	start(&t, 256, 32, 80, 5);	/* S = 10 */
	for (k = 0; k < 32 * 10 * 30; k++) {
		ev[k % 32] = send(&t).ev;
		for (i = 0; i < 32 && k >= 32; i++)
			clashes += i != k % 32 && ev[i] == ev[k % 32];
	}
	EXPECT_EQ(0U, clashes);
	unit_lb_stop(&t.lb);
}

/* A retransmission is outside every flowlet and leaves them as they
 * were: the next packet of each flowlet still names its predecessor.
 */
TEST(paralet_retransmissions_are_outside_flowlets)
{
	struct paralet_test t;
	struct sent s, r;
	u32 k;

	start(&t, 256, 4, 8, 3);	/* S = 8 */
	for (k = 0; k < 6; k++)
		send(&t);
	for (k = 0; k < 10; k++) {
		r = send_psn(&t, 1, true);
		EXPECT_FALSE(r.in_flowlet);
		EXPECT_GT(256, r.ev);
	}
	/* Packet 6 is flowlet 2's third; 7 is flowlet 3's second. */
	s = send(&t);
	EXPECT_TRUE(s.in_flowlet);
	EXPECT_EQ(2U, s.prev);
	s = send(&t);
	EXPECT_EQ(3U, s.prev);
	unit_lb_stop(&t.lb);
}

TEST(paralet_retransmissions_spread_over_entropies)
{
	struct paralet_test t;
	u8 seen[256] = { 0 };
	u32 k, distinct = 0;

	start(&t, 256, 4, 8, 3);
	for (k = 0; k < 1000; k++)
		if (!seen[send_psn(&t, 1, true).ev]++)
			distinct++;
	EXPECT_LT(200U, distinct);
	unit_lb_stop(&t.lb);
}

/* PSNs need not be consecutive: a flowlet chains the PSNs it carried. */
TEST(paralet_chains_the_psns_it_was_given)
{
	struct paralet_test t;
	struct sent s;

	start(&t, 256, 2, 8, 4);	/* S = 16 */
	s = send_psn(&t, 100, false);
	EXPECT_EQ(100U, s.prev);
	s = send_psn(&t, 105, false);
	EXPECT_EQ(105U, s.prev);
	s = send_psn(&t, 0xffffffff, false);
	EXPECT_EQ(100U, s.prev);
	s = send_psn(&t, 3, false);
	EXPECT_EQ(105U, s.prev);
	s = send_psn(&t, 4, false);
	EXPECT_EQ(0xffffffffU, s.prev);
	unit_lb_stop(&t.lb);
}

/* Fewer entropies than flowlets: they share EVs, each still on one. */
TEST(paralet_with_few_entropies)
{
	static const u32 counts[] = { 1, 2, 4, 16 };
	struct paralet_test t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		start(&t, counts[i], 32, 80, i);
		EXPECT_EQ(0U, check_flowlets(&t, 32, 10, 32 * 10 * 3));
		unit_lb_stop(&t.lb);
	}
}

/* Re-initialised with more flowlets configured than the state was sized
 * for, ParaLet keeps to the flowlets it has.
 */
TEST(paralet_keeps_to_its_state_after_a_parameter_change)
{
	struct mpdt_params p = unit_lb_params(256);
	struct paralet_test t;

	start(&t, 256, 4, 8, 1);
	p.paralet_m = 256;
	unit_lb_reinit(&t.lb, &p, 1);
	EXPECT_EQ(0U, check_flowlets(&t, 4, 8, 4 * 8 * 3));
	unit_lb_stop(&t.lb);
}

/* The seed alone decides: ParaLet has no signal hooks. */
TEST(paralet_is_a_function_of_the_seed)
{
	struct mpdt_params p = unit_lb_params(256);
	u16 a[3000], b[3000];

	unit_lb_fuzz(&mpdt_lb_paralet, &p, 9, 3000, a);
	unit_lb_fuzz(&mpdt_lb_paralet, &p, 9, 3000, b);
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
	unit_lb_fuzz(&mpdt_lb_paralet, &p, 10, 3000, b);
	EXPECT_NE(0, memcmp(a, b, sizeof(a)));
}

TEST(paralet_entropy_is_always_below_entropies)
{
	static const u32 counts[] = { 1, 2, 4, 16, 256, 1000, 65535 };
	static const u32 ms[] = { 1, 3, 32, 256 };
	struct mpdt_params p;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		for (j = 0; j < ARRAY_SIZE(ms); j++) {
			p = unit_lb_params(counts[i]);
			p.paralet_m = ms[j];
			EXPECT_EQ(0U, unit_lb_fuzz(&mpdt_lb_paralet, &p, i,
						   3000, NULL));
		}
	}
}

TEST_HARNESS_MAIN
