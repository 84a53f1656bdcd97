// SPDX-License-Identifier: GPL-2.0
/*
 * "prime" load balancing (net/mpdt/lb_prime.c) against PRIME §III:
 * multi-part EVs, pseudo-random round robin with a reshuffle per cycle,
 * penalties by severity that decay with every packet sent; silent
 * losses told apart as congestion or a failed path.
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

/* One choice for a burst of @pkts packets. */
static u16 send_burst(struct prime_test *t, u32 pkts)
{
	struct mpdt_lb_ctx ctx = {
		.now = UNIT_MS(1), .pkts = pkts, .cwnd_pkts = BDP,
		.bdp_pkts = t->bdp, .rtt_ns = UNIT_US(12),
	};

	return t->lb.ops->choose_ev(&t->lb, &ctx);
}

static u16 send(struct prime_test *t)
{
	return send_burst(t, 1);
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

/* Penalties count packets, the switch's drain: bursts of 4 on one EV
 * pay an 8-packet penalty in two choices, not in 8 (which would keep a
 * marked path 4 times as long as the mark said).
 */
TEST(prime_penalty_decays_per_packet_sent)
{
	struct mpdt_params p = unit_lb_params(2);
	struct prime_test t;
	u32 n;

	p.prime_ecn_penalty = 100;	/* one BDP: 8 packets */
	start_sending(&t, &p, 5);
	unit_lb_ack(&t.lb, 0, 0, true);
	EXPECT_EQ(1, send_burst(&t, 4));
	EXPECT_EQ(1, send_burst(&t, 4));
	/* Free again: it comes up within the next cycle and a half. */
	for (n = 1; n <= 3 && send_burst(&t, 4) != 0; n++)
		;
	EXPECT_GE(3U, n);
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

/* A trimmed packet is severe, and so is an isolated silent loss (§III-B:
 * congestion, a trim's penalty): longer penalties, which replace a
 * shorter one but never add to it.
 */
TEST(prime_losses_penalise_longer)
{
	struct mpdt_params p = unit_lb_params(2);
	struct prime_test t;

	p.prime_timeout_penalty = 300;	/* 24 sends, for failed paths */
	start_sending(&t, &p, 5);
	unit_lb_ack(&t.lb, 0, 0, true);			/* 2 sends */
	unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_TRIMMED);	/* 8 sends */
	EXPECT_EQ(0U, sends_on(&t, 4, 0));
	unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_TRIMMED);	/* back to 8 */
	unit_lb_ack(&t.lb, 0, 0, true);			/* no change */
	EXPECT_EQ(0U, sends_on(&t, 8, 0));
	EXPECT_GE(3U, sends_until(&t, 0, 3));

	unit_lb_timeout(&t.lb, 0, 1);			/* 8 sends */
	EXPECT_EQ(0U, sends_on(&t, 8, 1));
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

/* A SACK echoing @echo that newly acknowledges one packet, sent on
 * @acked.
 */
static void sack(struct prime_test *t, u16 echo, u16 acked)
{
	struct mpdt_lb_ack a = {
		.now = UNIT_MS(1), .rtt_ns = UNIT_US(12), .ev = echo,
		.acked_count = 1, .acked_evs = &acked,
	};

	t->lb.ops->on_ack(&t->lb, &a);
}

/* @n packets delivered, one SACK each, on the paths 0 .. @paths - 1 but
 * @dead, in turn.
 */
static void others_deliver(struct prime_test *t, u16 dead, u32 paths,
			   u32 n)
{
	u16 ev = dead;

	while (n--) {
		ev = (ev + 1) % paths;
		if (ev == dead)
			ev = (ev + 1) % paths;
		sack(t, ev, ev);
	}
}

static void silent_loss(struct prime_test *t, u16 ev)
{
	t->lb.ops->on_loss(&t->lb, ev, false, UNIT_MS(1));
}

/* @ev is skipped for the next @sends sends, then comes up within the
 * next cycle and a half: a penalty of exactly @sends.
 */
static bool penalised_for(struct prime_test *t, u16 ev, u32 sends,
			  u32 paths)
{
	return !sends_on(t, sends, ev) &&
	       sends_until(t, ev, 2 * paths) <= 2 * paths - 1;
}

/*
 * A silent loss is a strike against its path; a strike counts when two
 * windows of packets (here 8 each: cwnd_pkts) have been delivered over
 * the other paths since the last one.  Below three strikes the loss is
 * congestion, with a trim's penalty (100%: 8 sends, §III-B); the third
 * fails the path (prime_timeout_penalty, 3000%: 240 sends), and so does
 * each further loss while the path delivers nothing.  24 deliveries are
 * three windows: enough wherever in its round the last strike fell.
 */
TEST(prime_fails_a_path_at_the_third_strike)
{
	struct mpdt_params p = unit_lb_params(4);
	struct prime_test t;
	u32 strike;

	start_sending(&t, &p, 5);
	for (strike = 1; strike <= 2; strike++) {
		silent_loss(&t, 0);
		EXPECT_TRUE(penalised_for(&t, 0, 8, 4)) {
			TH_LOG("strike %u", strike);
		}
		others_deliver(&t, 0, 4, 24);
	}
	silent_loss(&t, 0);
	EXPECT_TRUE(penalised_for(&t, 0, 240, 4));
	/* Tried again, still dead: failed again at once. */
	others_deliver(&t, 0, 4, 24);
	silent_loss(&t, 0);
	EXPECT_TRUE(penalised_for(&t, 0, 240, 4));
	/* It delivers: the strikes are cleared. */
	sack(&t, 1, 0);
	others_deliver(&t, 0, 4, 24);
	silent_loss(&t, 0);
	EXPECT_TRUE(penalised_for(&t, 0, 8, 4));
	others_deliver(&t, 0, 4, 24);
	silent_loss(&t, 0);
	EXPECT_TRUE(penalised_for(&t, 0, 8, 4));
	others_deliver(&t, 0, 4, 24);
	silent_loss(&t, 0);
	EXPECT_TRUE(penalised_for(&t, 0, 240, 4));
	unit_lb_stop(&t.lb);
}

/* Any sign of delivery on the path clears its strikes: a SACK echoing
 * its EV, one acknowledging a packet sent on it, a NACK for one (the
 * packet, or its trimmed header, arrived).
 */
TEST(prime_delivery_clears_strikes)
{
	struct mpdt_params p = unit_lb_params(4);
	struct prime_test t;
	u32 way;

	start_sending(&t, &p, 5);
	for (way = 0; way < 4; way++) {
		silent_loss(&t, 0);
		others_deliver(&t, 0, 4, 24);
		silent_loss(&t, 0);			/* two strikes */
		others_deliver(&t, 0, 4, 24);
		if (way == 0)
			sack(&t, 0, 1);
		else if (way == 1)
			sack(&t, 1, 0);
		else if (way == 2)
			unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_TRIMMED);
		else
			unit_lb_nack(&t.lb, 0, 0, MPDT_NACK_NO_BUFFER);
		silent_loss(&t, 0);			/* one, not three */
		EXPECT_TRUE(penalised_for(&t, 0, 8, 4)) {
			TH_LOG("way %u", way);
		}
		others_deliver(&t, 0, 4, 24);
		silent_loss(&t, 0);
		EXPECT_TRUE(penalised_for(&t, 0, 8, 4));
		sack(&t, 0, 0);
		others_deliver(&t, 0, 4, 24);
	}
	unit_lb_stop(&t.lb);
}

/* Losses found together are one episode, one strike: those of one SACK
 * or one RTO (no delivery between), and any less than two windows of
 * deliveries after the last strike (what was in flight at that strike).
 * While nothing is delivered at all (the peer or the whole fabric
 * silent, a run of RTOs), no path fails.
 */
TEST(prime_losses_without_deliveries_between_are_one_strike)
{
	struct mpdt_params p = unit_lb_params(4);
	struct prime_test t;
	u32 i;
	u16 ev;

	start_sending(&t, &p, 5);
	for (i = 0; i < 10; i++)
		silent_loss(&t, 0);
	EXPECT_TRUE(penalised_for(&t, 0, 8, 4));
	/* A loss 15 deliveries after a strike is the same episode,
	 * wherever in a round the strike fell: 24 more and the next loss is
	 * the second strike, not the third.
	 */
	for (i = 0; i < 8; i++) {
		sack(&t, 0, 0);		/* cleared */
		others_deliver(&t, 0, 4, i);
		silent_loss(&t, 0);	/* the first strike again */
		others_deliver(&t, 0, 4, 15);
		silent_loss(&t, 0);
		others_deliver(&t, 0, 4, 24);
		silent_loss(&t, 0);
		EXPECT_TRUE(penalised_for(&t, 0, 8, 4)) {
			TH_LOG("%u into a round", i);
		}
	}
	for (i = 0; i < 40; i++) {
		for (ev = 0; ev < 4; ev++)
			unit_lb_timeout(&t.lb, 0, ev);
		send(&t);
	}
	for (i = 0; i < 8; i++)	/* the trims' penalties run out */
		send(&t);
	for (ev = 0; ev < 4; ev++)
		EXPECT_GE(7U, sends_until(&t, ev, 7));
	unit_lb_stop(&t.lb);
}

/*
 * A sender and its paths, scripted: SIM_PATHS paths, a window and a BDP
 * of SIM_BDP packets; one packet is sent a step, a packet delivered is
 * acknowledged (its own SACK) one RTT (SIM_BDP sends) after it went, a
 * packet dropped is found lost (probe or OOO count, on_loss) an RTT and
 * a half after (SIM_FOUND sends; the engine's OOO and probe evidence).
 * A dead path drops everything, the others drop at random (loss_pm per
 * mille) and in bursts: every so often one path's queue overflows and
 * drops everything sent on it for an RTT (SIM_BURST sends).
 */
#define SIM_PATHS	8
#define SIM_BDP		16
#define SIM_STEPS	200000
#define SIM_FOUND	(SIM_BDP + SIM_BDP / 2)
#define SIM_BURST	SIM_BDP
#define SIM_FAILED	(30 * SIM_BDP)	/* prime_timeout_penalty: 3000% */

struct sim_path {
	u32 loss_pm;		/* random drops, per mille; 1000: dead */
	u32 burst_end;		/* step the current burst ends */
	u32 last;		/* step of the last send on the path */
	u32 longest;		/* longest stretch without a send */
	u32 sent, dropped, dropped_before;
	u32 failed_at;		/* step of the first stretch >= SIM_FAILED */
};

struct sim_run {
	struct sim_path path[SIM_PATHS];
	u32 bursts_per_64k;	/* chance per step a burst starts, / 65536 */
};

static void sim(struct prime_test *t, struct sim_run *r, u64 seed)
{
	struct mpdt_lb_ctx ctx = { .cwnd_pkts = SIM_BDP, .bdp_pkts = SIM_BDP };
	struct unit_rng rng = { .state = seed };
	static u16 ev[SIM_STEPS];
	static bool lost[SIM_STEPS];
	struct sim_path *path;
	u32 n, gap, e;

	for (n = 0; n < SIM_STEPS; n++) {
		if (unit_rand_below(&rng, 65536) < r->bursts_per_64k)
			r->path[unit_rand_below(&rng, SIM_PATHS)].burst_end =
				n + SIM_BURST;
		ev[n] = t->lb.ops->choose_ev(&t->lb, &ctx);
		path = &r->path[ev[n]];
		gap = n - path->last;
		path->longest = max(path->longest, gap);
		if (gap >= SIM_FAILED && !path->failed_at) {
			path->failed_at = path->last + 1;
			path->dropped_before = path->dropped;
		}
		path->last = n;
		path->sent++;
		lost[n] = n < path->burst_end ||
			  unit_rand_below(&rng, 1000) < path->loss_pm;
		path->dropped += lost[n];
		if (n >= SIM_BDP && !lost[n - SIM_BDP])
			sack(t, ev[n - SIM_BDP], ev[n - SIM_BDP]);
		if (n >= SIM_FOUND && lost[n - SIM_FOUND])
			silent_loss(t, ev[n - SIM_FOUND]);
	}
	for (e = 0; e < SIM_PATHS; e++) {
		path = &r->path[e];
		gap = n - path->last;
		path->longest = max(path->longest, gap);
		if (gap >= SIM_FAILED && !path->failed_at)
			path->failed_at = path->last + 1;
	}
}

static void sim_case(struct sim_run *r, u32 loss_pm, u32 bursts, int dead)
{
	u32 e;

	memset(r, 0, sizeof(*r));
	for (e = 0; e < SIM_PATHS; e++)
		r->path[e].loss_pm = (int)e == dead ? 1000 : loss_pm;
	r->bursts_per_64k = bursts;
}

/*
 * Congestion drops, spread over the paths: 2%, 5% or 10% of all packets
 * at random, or one path's queue full for an RTT every 256 sends on
 * average (each path every 128 RTTs), on its own or over 2% at random.
 * No path is ever taken out for the failure's penalty (480 sends); none
 * is skipped for 4 RTTs (54 sends at most: a trim's penalty, 16, and the
 * walk).  Neither did any in 20 seeds of each (4 million sends).  Under
 * heavier drops a path can lose all it carries for three rounds by
 * chance: at 15-30% at random, 20 seeds failed a path 1 to 3 times.
 */
TEST(prime_congestion_drops_never_fail_a_path)
{
	static const struct {
		u32 loss_pm, bursts;
	} cases[] = {
		{ 20, 0 }, { 50, 0 }, { 100, 0 }, { 0, 256 }, { 20, 256 },
	};
	struct mpdt_params p = unit_lb_params(SIM_PATHS);
	static struct sim_run r;
	struct prime_test t;
	size_t i;
	u32 e;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		sim_case(&r, cases[i].loss_pm, cases[i].bursts, -1);
		start_with(&t, &p, 3);
		sim(&t, &r, i + 1);
		for (e = 0; e < SIM_PATHS; e++) {
			EXPECT_EQ(0U, r.path[e].failed_at) {
				TH_LOG("case %zu, path %u", i, e);
			}
			EXPECT_GT(4 * SIM_BDP, r.path[e].longest);
			EXPECT_LT(0U, r.path[e].dropped);
		}
		unit_lb_stop(&t.lb);
	}
}

/*
 * One path dead among delivering ones, clean or dropping as above: it is
 * taken out within 12 RTTs (10, 164 sends, at most over 20 seeds) and a
 * BDP of its packets (13 at most: three strikes and what was in flight
 * between them), and stays out but for a retry each time the failure's
 * penalty runs out: it then carries 0.8% of the packets, not its 1/8.
 */
TEST(prime_dead_path_fails_while_the_others_deliver)
{
	static const struct {
		u32 loss_pm, bursts;
	} cases[] = { { 0, 0 }, { 10, 0 }, { 10, 256 }, { 50, 0 } };
	struct mpdt_params p = unit_lb_params(SIM_PATHS);
	static struct sim_run r;
	struct prime_test t;
	size_t i;
	u32 e;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		sim_case(&r, cases[i].loss_pm, cases[i].bursts, 5);
		start_with(&t, &p, 3);
		sim(&t, &r, i + 1);
		EXPECT_LT(0U, r.path[5].failed_at);
		EXPECT_GE(12 * SIM_BDP, r.path[5].failed_at) {
			TH_LOG("case %zu", i);
		}
		EXPECT_GE(SIM_BDP, r.path[5].dropped_before);
		EXPECT_GT(SIM_STEPS / 100, r.path[5].sent);
		for (e = 0; e < SIM_PATHS; e++)
			if (e != 5)
				EXPECT_EQ(0U, r.path[e].failed_at);
		unit_lb_stop(&t.lb);
	}
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
