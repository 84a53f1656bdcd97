// SPDX-License-Identifier: GPL-2.0
/*
 * "prime" load balancing (net/mpdt/lb_prime.c) against PRIME §III:
 * multi-part EVs, pseudo-random round robin with a reshuffle per cycle,
 * penalties by severity that decay on every send.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

#define BDP	8	/* packets: ECN 25% = 2 sends, loss 100% = 8 */

struct prime_test {
	struct mpdt_lb lb;
	u32 bdp;
};

static void start_with(struct prime_test *t, const struct mpdt_params *p,
		       u64 seed)
{
	unit_lb_start(&t->lb, &mpdt_lb_prime, p, seed);
	t->bdp = BDP;
}

static void start(struct prime_test *t, u32 entropies)
{
	struct mpdt_params p = unit_lb_params(entropies);

	start_with(t, &p, 7);
}

static u16 send(struct prime_test *t)
{
	struct mpdt_lb_ctx ctx = {
		.now = UNIT_MS(1), .cwnd_pkts = BDP, .bdp_pkts = t->bdp,
		.rtt_ns = UNIT_US(12),
	};

	return t->lb.ops->choose_ev(&t->lb, &ctx);
}

/* Signals follow sends: the first send tells PRIME the BDP. */
static void start_sending(struct prime_test *t, const struct mpdt_params *p,
			  u64 seed)
{
	start_with(t, p, seed);
	send(t);
}

/* How many of the next @n sends go out on @ev. */
static u32 sends_on(struct prime_test *t, u32 n, u16 ev)
{
	u32 hits = 0;

	while (n--)
		hits += send(t) == ev;
	return hits;
}

/* Sends until @ev comes up, at most @limit; returns how many it took. */
static u32 sends_until(struct prime_test *t, u16 ev, u32 limit)
{
	u32 n;

	for (n = 1; n <= limit; n++)
		if (send(t) == ev)
			return n;
	return ~0U;
}

/*
 * Checks that the next @cycles * @paths sends are cycles that each visit
 * the EV set @evs exactly once.  Returns the number of cycles that broke
 * the rule; @repeats, if not NULL, counts the cycles in the same order
 * as the one before (not reshuffled, or reshuffled into the same order).
 */
static u32 check_cycles(struct prime_test *t, const u16 *evs, u32 paths,
			u32 cycles, u32 *repeats)
{
	u16 *cur = calloc(paths, sizeof(*cur)), *prev = calloc(paths, 2);
	u8 *seen = calloc(65536, 1);
	u32 c, i, bad = 0;

	if (!cur || !prev || !seen)
		abort();
	if (repeats)
		*repeats = 0;
	for (c = 0; c < cycles; c++) {
		bool ok = true;

		memset(seen, 0, 65536);
		for (i = 0; i < paths; i++) {
			cur[i] = send(t);
			ok &= !seen[cur[i]]++;
		}
		for (i = 0; i < paths; i++)
			ok &= seen[evs[i]] == 1;
		bad += !ok;
		if (repeats && c && !memcmp(cur, prev, paths * sizeof(*cur)))
			(*repeats)++;
		memcpy(prev, cur, paths * sizeof(*cur));
	}
	free(cur);
	free(prev);
	free(seen);
	return bad;
}

static u16 *range(u32 n)
{
	u16 *evs = calloc(n, sizeof(*evs));
	u32 i;

	if (!evs)
		abort();
	for (i = 0; i < n; i++)
		evs[i] = i;
	return evs;
}

TEST(prime_is_registered_by_name)
{
	EXPECT_EQ(&mpdt_lb_prime, mpdt_lb_find("prime"));
	EXPECT_STREQ("prime", mpdt_lb_prime.name);
	EXPECT_FALSE(mpdt_lb_prime.flowlets);
}

/* §III-B, §III-D: every path once per cycle, reshuffled each cycle.  Of
 * 40 cycles, a few may repeat the order before when there are only a few
 * orders (3 EVs have 6).
 */
TEST(prime_visits_every_entropy_once_per_cycle_and_reshuffles)
{
	static const struct {
		u32 entropies, paths, repeats;
	} cases[] = {
		{ 3, 3, 20 }, { 4, 4, 10 }, { 16, 16, 0 }, { 256, 256, 0 },
		{ 1000, 1000, 0 }, { 1024, 1024, 0 },
		{ 65535, 1024, 0 },	/* at most PRIME_MAX_PATHS managed */
	};
	struct prime_test t;
	u32 repeats;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u16 *evs = range(cases[i].paths);

		start(&t, cases[i].entropies);
		EXPECT_EQ(0U, check_cycles(&t, evs, cases[i].paths, 40,
					   &repeats)) {
			TH_LOG("entropies %u", cases[i].entropies);
		}
		EXPECT_GE(cases[i].repeats, repeats);
		unit_lb_stop(&t.lb);
		free(evs);
	}
	start(&t, 1);
	EXPECT_EQ(0U, sends_on(&t, 10, 1));
	unit_lb_stop(&t.lb);
}

TEST(prime_order_is_random_per_connection)
{
	struct mpdt_params p = unit_lb_params(256);
	struct prime_test a, b;
	u32 i, same = 0;

	start_with(&a, &p, 1);
	start_with(&b, &p, 2);
	for (i = 0; i < 256; i++)
		same += send(&a) == send(&b);
	EXPECT_GT(8U, same);
	unit_lb_stop(&a.lb);
	unit_lb_stop(&b.lb);
}

/*
 * §III-D: one part per uplink tier, log2(uplinks) bits each, tier 0 in
 * the low bits; the higher part advances when the lower one wraps.
 */
TEST(prime_multi_part_entropy)
{
	struct mpdt_params p = unit_lb_params(256);
	static const u16 two_by_three[] = { 0, 1, 2, 4, 5, 6, 8, 9, 10 };
	struct prime_test t;
	u16 *evs = range(16), prev_low[4];
	u32 block, i, reshuffled = 0;

	p.prime_tiers = 2;
	p.prime_uplinks = 4;
	start_with(&t, &p, 3);
	for (block = 0; block < 64; block++) {
		for (i = 0; i < 4; i++) {
			evs[i] = send(&t);
			EXPECT_GT(16, evs[i]);
			/* the spine part is constant while the leaf part
			 * walks all four uplinks
			 */
			EXPECT_EQ(evs[0] >> 2, evs[i] >> 2);
		}
		EXPECT_EQ(6, (1 << (evs[0] & 3)) + (1 << (evs[1] & 3)) +
			     (1 << (evs[2] & 3)) + (1 << (evs[3] & 3)) - 9);
		for (i = 0; i < 4 && block; i++)
			if ((evs[i] & 3) != prev_low[i]) {
				reshuffled++;
				break;
			}
		for (i = 0; i < 4; i++)
			prev_low[i] = evs[i] & 3;
	}
	/* Leaf orders repeat with chance 1/24 per wrap. */
	EXPECT_LT(50U, reshuffled);
	unit_lb_stop(&t.lb);

	start_with(&t, &p, 3);
	EXPECT_EQ(0U, check_cycles(&t, evs, 16, 8, NULL));
	unit_lb_stop(&t.lb);
	free(evs);

	/* Three uplinks: two bits a part, values 0-2. */
	p.prime_uplinks = 3;
	start_with(&t, &p, 3);
	EXPECT_EQ(0U, check_cycles(&t, two_by_three, 9, 8, NULL));
	unit_lb_stop(&t.lb);
}

/* Parts are dropped, highest tier first, until they fit the range. */
TEST(prime_parts_fit_the_entropy_range)
{
	static const struct {
		u32 entropies, tiers, uplinks, paths;
	} cases[] = {
		{ 256, 3, 8, 64 },	/* 512 paths > 256 EVs: two parts */
		{ 255, 2, 16, 16 },	/* EV 255 would not fit: one part */
		{ 256, 2, 16, 256 },
		{ 256, 4, 2, 16 },
		{ 16, 1, 64, 16 },	/* a part cut to the range */
		{ 65535, 4, 64, 64 },	/* 64^2 > 1024 managed */
		{ 65535, 2, 32, 1024 },
		{ 256, 2, 1, 1 },
	};
	struct mpdt_params p;
	struct prime_test t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u16 *evs = calloc(cases[i].paths, sizeof(*evs));
		u32 bits = 0, part, n = 0, v;

		p = unit_lb_params(cases[i].entropies);
		p.prime_tiers = cases[i].tiers;
		p.prime_uplinks = cases[i].uplinks;
		while ((1U << bits) < min(cases[i].uplinks,
					  cases[i].paths))
			bits++;
		/* The expected EVs: every combination of part values. */
		for (v = 0; v < cases[i].paths; v++) {
			u32 ev = 0, rest = v, size = min(cases[i].uplinks,
							 cases[i].paths);

			for (part = 0; rest || !part; part++) {
				ev |= (rest % size) << (part * bits);
				rest /= size;
			}
			evs[n++] = ev;
		}
		start_with(&t, &p, i);
		EXPECT_EQ(0U, check_cycles(&t, evs, cases[i].paths, 3, NULL)) {
			TH_LOG("case %zu", i);
		}
		unit_lb_stop(&t.lb);
		free(evs);
	}
}

/* Sized for 16 EVs, re-initialised for 256 (the parameters changed in
 * between): PRIME keeps to the 16 paths its state holds.
 */
TEST(prime_keeps_to_its_state_after_a_parameter_change)
{
	struct mpdt_params p = unit_lb_params(16);
	struct prime_test t;
	u16 *evs = range(16);

	start_with(&t, &p, 1);
	t.lb.entropies = 256;
	p.entropies = 256;
	unit_lb_reinit(&t.lb, &p, 1);
	EXPECT_EQ(0U, check_cycles(&t, evs, 16, 4, NULL));
	unit_lb_stop(&t.lb);
	free(evs);
}

/* §III-D: an ECN mark penalises its path for a short while; penalties
 * decay by one on every send, whatever the time.
 */
TEST(prime_ecn_penalty_decays_on_every_send)
{
	struct mpdt_params p = unit_lb_params(2);
	struct prime_test t;

	p.prime_ecn_penalty = 100;	/* one BDP: 8 sends */
	start_sending(&t, &p, 5);
	unit_lb_ack(&t.lb, 0, 0, true);
	EXPECT_EQ(0U, sends_on(&t, 8, 0));
	/* Free again: it comes up within the next cycle and a half. */
	EXPECT_GE(3U, sends_until(&t, 0, 3));
	/* The length is a share of the BDP of the last send. */
	t.bdp = 16;
	send(&t);
	unit_lb_ack(&t.lb, 0, 0, true);
	EXPECT_EQ(0U, sends_on(&t, 16, 0));
	EXPECT_GE(3U, sends_until(&t, 0, 3));
	unit_lb_stop(&t.lb);
}

/* §III-D: "PRIME avoids multi-penalization". */
TEST(prime_ecn_does_not_repenalise)
{
	struct mpdt_params p = unit_lb_params(2);
	struct prime_test t;

	p.prime_ecn_penalty = 100;
	start_sending(&t, &p, 5);
	unit_lb_ack(&t.lb, 0, 0, true);
	EXPECT_EQ(0U, sends_on(&t, 4, 0));
	unit_lb_ack(&t.lb, 0, 0, true);	/* 4 sends left: unchanged */
	EXPECT_EQ(0U, sends_on(&t, 4, 0));
	EXPECT_GE(3U, sends_until(&t, 0, 3));
	unit_lb_stop(&t.lb);
}

/* A trimmed packet is severe, a silent loss more so: longer penalties,
 * which replace a shorter one but never add to it.
 */
TEST(prime_losses_penalise_longer)
{
	struct mpdt_params p = unit_lb_params(2);
	struct prime_test t;

	p.prime_timeout_penalty = 300;	/* 24 sends */
	start_sending(&t, &p, 5);
	unit_lb_ack(&t.lb, 0, 0, true);			/* 2 sends */
	unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_TRIMMED);	/* 8 sends */
	EXPECT_EQ(0U, sends_on(&t, 4, 0));
	unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_TRIMMED);	/* back to 8 */
	unit_lb_ack(&t.lb, 0, 0, true);			/* no change */
	EXPECT_EQ(0U, sends_on(&t, 8, 0));
	EXPECT_GE(3U, sends_until(&t, 0, 3));

	unit_lb_timeout(&t.lb, 0, 1);
	EXPECT_EQ(0U, sends_on(&t, 24, 1));
	EXPECT_GE(3U, sends_until(&t, 1, 3));
	/* NO_BUFFER is the receiver's memory, not the path. */
	unit_lb_nack(&t.lb, 0, 1, MPDT_NACK_NO_BUFFER);
	EXPECT_GE(3U, sends_until(&t, 1, 3));
	unit_lb_stop(&t.lb);
}

/* §III-C: "If all possible paths are congested, PRIME chooses the EV
 * with smallest penalty."
 */
TEST(prime_falls_back_to_the_least_penalised)
{
	struct mpdt_params p = unit_lb_params(3);
	struct prime_test t;
	u32 i;

	p.prime_timeout_penalty = 100;	/* 8 sends, as a trim */
	start_sending(&t, &p, 11);
	unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_TRIMMED);	/* 8 sends */
	unit_lb_timeout(&t.lb, 0, 2);			/* 8 sends */
	unit_lb_ack(&t.lb, 0, 1, true);			/* 2 sends */
	for (i = 0; i < 7; i++)
		EXPECT_EQ(1, send(&t));
	/* The eighth: 0 and 2 still have a send to go. */
	EXPECT_EQ(1, send(&t));
	unit_lb_ack(&t.lb, 0, 2, true);
	unit_lb_nack(&t.lb, 0, 1, MPDT_NACK_TRIMMED);
	unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_TRIMMED);
	EXPECT_EQ(2, send(&t));
	EXPECT_EQ(2, send(&t));
	unit_lb_stop(&t.lb);
}

/* Signals on EVs that are no path of ours change nothing. */
TEST(prime_ignores_foreign_entropies)
{
	static const u16 two_by_three[] = { 0, 1, 2, 4, 5, 6, 8, 9, 10 };
	struct mpdt_params p = unit_lb_params(256);
	struct prime_test t;
	u16 ev;

	p.prime_tiers = 2;
	p.prime_uplinks = 3;
	start_with(&t, &p, 3);
	for (ev = 3; ev < 512; ev += 4)	/* part value 3: not an uplink */
		unit_lb_nack(&t.lb, 0, ev, MPDT_NACK_TRIMMED);
	unit_lb_nack(&t.lb, 0, 16, MPDT_NACK_TRIMMED);	/* past the parts */
	unit_lb_nack(&t.lb, 0, 65535, MPDT_NACK_TRIMMED);
	EXPECT_EQ(0U, check_cycles(&t, two_by_three, 9, 4, NULL));
	unit_lb_stop(&t.lb);
}

TEST(prime_is_a_function_of_the_seed)
{
	struct mpdt_params p = unit_lb_params(64);
	u16 a[3000], b[3000];

	unit_lb_fuzz(&mpdt_lb_prime, &p, 9, 3000, a);
	unit_lb_fuzz(&mpdt_lb_prime, &p, 9, 3000, b);
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
	unit_lb_fuzz(&mpdt_lb_prime, &p, 10, 3000, b);
	EXPECT_NE(0, memcmp(a, b, sizeof(a)));
}

TEST(prime_entropy_is_always_below_entropies)
{
	static const u32 counts[] = { 1, 2, 3, 4, 16, 255, 256, 1025,
				      65535 };
	static const u32 uplinks[] = { 0, 1, 2, 3, 4, 7, 64, 1024 };
	struct mpdt_params p;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		for (j = 0; j < ARRAY_SIZE(uplinks); j++) {
			p = unit_lb_params(counts[i]);
			p.prime_tiers = 1 + (i + j) % 4;
			p.prime_uplinks = uplinks[j];
			EXPECT_EQ(0U, unit_lb_fuzz(&mpdt_lb_prime, &p, i, 2000,
						   NULL));
		}
	}
}

TEST_HARNESS_MAIN
