// SPDX-License-Identifier: GPL-2.0
/*
 * "prime": PRIME, Pseudo-Random Integrated Multi-Part Entropy (PRIME §III).
 * Pure core.
 *
 * Multi-part EV (§III-D).  The EV is the concatenation of one part per
 * tier of switches that choose an uplink: part i holds a value below
 * prime_uplinks in ceil(log2(prime_uplinks)) bits, tier 0 (the leaf) in
 * the low bits.  A two-tier leaf-spine fabric has one such tier (parts =
 * 1), a three-tier fat tree two.  Switches that extract their part route
 * exactly; switches that hash the UDP source port just see distinct EVs.
 * prime_uplinks = 0, the default, makes one part of every EV, so PRIME
 * sprays over the whole entropy range.  The parts must fit in the range
 * and at most PRIME_MAX_PATHS paths are managed: the higher tiers are
 * dropped until they do, and a part larger than the range is cut to it.
 *
 * Pseudo-random round robin (§III-B, §III-D, Fig. 5).  Each part walks its
 * own permutation of its values; like an odometer, a part advances when
 * the part below wraps, and a part is reshuffled (Fisher-Yates, from the
 * connection's seed) each time it wraps.  One cycle therefore visits
 * every path exactly once, each cycle in a new order.  The first BDP,
 * with no congestion history yet, is simply the start of this walk
 * (§III-C).
 *
 * Congestion history (§III-D).  A penalty per path, by severity: an ECN
 * mark gives a short one, a trimmed packet (NACK) or a timeout a much
 * longer one.  Penalties never add up: an ECN mark leaves a penalised
 * path alone, a loss raises its penalty to the loss value at most.  A
 * send skips penalised paths; if a whole cycle is penalised it takes the
 * least penalised (§III-C).  Penalties decay on every send "based on the
 * drainage rate of the switch"; the values were lost in extraction, so
 * MPDT counts penalties in packets, decays them by one per send (a queue
 * drains a packet while the sender, at line rate, sends one) and sizes
 * them by the queue each signal implies, in percent of a BDP of packets:
 * ECN marking starts at about a quarter BDP (prime_ecn_penalty = 25),
 * trimming at a full BDP (§IV: "packets get trimmed if the queue length
 * exceeds one BDP"; prime_nack_penalty = 100).  A silent loss (timeout,
 * probe, OOO count) is the severest signal: it is found only about a
 * window of packets later, long after a trim's NACK would have come, and
 * a path that drops without trimming is more likely failed than full.  A
 * penalty shorter than that detection delay would put the path back in
 * the walk before the next evidence arrives, so a dead link would keep
 * its share; prime_timeout_penalty = 3000 (30 BDPs of sends) outlasts it.
 * Decay is lazy: a path stores the send count at which its penalty
 * reaches zero.
 */
#include "lb.h"
#include "prng.h"
#include "wire.h"

#define PRIME_MAX_PATHS		1024U
#define PRIME_MAX_TIERS		4U
#define PRIME_MAX_PENALTY	BIT_ULL(30)	/* sends; s32 math stays exact */

/* Every part has the same number of values: uplinks per switch. */
struct prime_shape {
	u32 parts;
	u32 size;
};

struct lb_prime {
	struct mpdt_prng rng;
	u32 sends;		/* packets sent: the decay clock */
	u32 bdp_pkts;		/* from the last send, to size penalties */
	u32 ecn_pct;
	u32 nack_pct;
	u32 timeout_pct;
	u32 parts;
	u32 size;		/* values per part */
	u32 bits;		/* bits per part */
	u32 paths;		/* size^parts */
	u16 pos[PRIME_MAX_TIERS];	/* round robin position per part */
	/* until[paths], then the parts' orders: u16[size] each.  A path is
	 * numbered by its part values in mixed radix, part 0 lowest.
	 */
	u32 until[];
};

/* Each part needs size <= size^parts values, so 6 bytes a path suffice. */
#define PRIME_PATH_BYTES	(sizeof(u32) + sizeof(u16))

static u64 prime_max_ev(struct prime_shape sh)
{
	u32 bits = mpdt_bits_for(sh.size), i;
	u64 ev = 0;

	for (i = 0; i < sh.parts; i++)
		ev |= (u64)(sh.size - 1) << (i * bits);
	return ev;
}

static u64 prime_paths(struct prime_shape sh)
{
	u64 paths = 1;
	u32 i;

	for (i = 0; i < sh.parts; i++)
		paths *= sh.size;
	return paths;
}

/* The MP-EV layout for @entropies EVs and at most @cap paths. */
static struct prime_shape prime_shape(const struct mpdt_params *p,
				      u32 entropies, u32 cap)
{
	u32 limit = max(min(entropies, cap), 1U);	/* one path at least */
	struct prime_shape sh = {
		.parts = clamp(p->prime_tiers, 1U, PRIME_MAX_TIERS),
		.size = p->prime_uplinks,
	};

	if (!sh.size || sh.size >= limit) {
		sh.parts = 1;
		sh.size = limit;
	} else if (sh.size == 1) {
		sh.parts = 1;
	}
	while (sh.parts > 1 && (prime_paths(sh) > limit ||
				prime_max_ev(sh) >= entropies))
		sh.parts--;
	return sh;
}

static u32 prime_priv_size(const struct mpdt_params *p)
{
	struct prime_shape sh = prime_shape(p, p->entropies, PRIME_MAX_PATHS);

	return sizeof(struct lb_prime) + prime_paths(sh) * PRIME_PATH_BYTES;
}

bool mpdt_prime_layout_fits(const struct mpdt_params *p)
{
	struct prime_shape sh = prime_shape(p, p->entropies, PRIME_MAX_PATHS);

	return sh.parts == p->prime_tiers && sh.size == p->prime_uplinks;
}

static u16 *prime_order(struct lb_prime *s, u32 part)
{
	return (u16 *)&s->until[s->paths] + part * s->size;
}

/* Sized from @p, but never beyond the state allocated: the parameters
 * may have changed since (a reset re-initialises).
 */
static void prime_init(struct mpdt_lb *lb, const struct mpdt_params *p,
		       u64 seed)
{
	struct lb_prime *s = lb->priv;
	u32 room = (lb->priv_len - sizeof(*s)) / PRIME_PATH_BYTES;
	struct prime_shape sh;
	u32 part, v;

	sh = prime_shape(p, lb->entropies, min(room, PRIME_MAX_PATHS));
	s->parts = sh.parts;
	s->size = sh.size;
	s->bits = mpdt_bits_for(sh.size);
	s->paths = prime_paths(sh);
	s->ecn_pct = p->prime_ecn_penalty;
	s->nack_pct = p->prime_nack_penalty;
	s->timeout_pct = p->prime_timeout_penalty;
	mpdt_prng_seed(&s->rng, seed);
	for (part = 0; part < s->parts; part++) {
		u16 *order = prime_order(s, part);

		for (v = 0; v < s->size; v++)
			order[v] = v;
		mpdt_prng_shuffle(&s->rng, order, s->size);
	}
}

/* The path under the round robin positions: its number and its EV. */
static u32 prime_current(struct lb_prime *s, u16 *ev)
{
	u32 part, idx = 0, stride = 1;

	*ev = 0;
	for (part = 0; part < s->parts; part++) {
		u16 v = prime_order(s, part)[s->pos[part]];

		*ev |= v << (part * s->bits);
		idx += v * stride;
		stride *= s->size;
	}
	return idx;
}

/* Odometer step (§III-D): a part advances when the one below wraps and
 * is reshuffled when it wraps itself.
 */
static void prime_advance(struct lb_prime *s)
{
	u32 part;

	for (part = 0; part < s->parts; part++) {
		if (++s->pos[part] < s->size)
			return;
		s->pos[part] = 0;
		mpdt_prng_shuffle(&s->rng, prime_order(s, part), s->size);
	}
}

/* The path number of @ev, if it is one of ours. */
static bool prime_index(const struct lb_prime *s, u16 ev, u32 *idx)
{
	u32 part, stride = 1, v;

	if (ev >> (s->parts * s->bits))
		return false;
	*idx = 0;
	for (part = 0; part < s->parts; part++) {
		v = (ev >> (part * s->bits)) & ((1U << s->bits) - 1);
		if (v >= s->size)
			return false;
		*idx += v * stride;
		stride *= s->size;
	}
	return true;
}

/* Sends until the penalty of path @idx has decayed to zero.  A decayed
 * entry is moved up to the clock: each path is a candidate once a cycle
 * or more often, so u32 wrap-around of the clock never revives a penalty.
 */
static u32 prime_penalty_left(struct lb_prime *s, u32 idx)
{
	s32 left = s->until[idx] - s->sends;

	if (left > 0)
		return left;
	s->until[idx] = s->sends;
	return 0;
}

/* Skip penalised paths; if all are, the least penalised (§III-C).  The
 * walk reshuffles at each cycle's end, so the first free path may be
 * past it: 2 * paths - 1 steps contain a whole cycle, every path.
 */
static u16 prime_choose(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	struct lb_prime *s = lb->priv;
	u32 n, idx, left, best_left = ~0U;
	u16 ev, best_ev = 0;

	s->bdp_pkts = ctx->bdp_pkts;
	for (n = 0; n < 2 * s->paths - 1; n++) {
		idx = prime_current(s, &ev);
		prime_advance(s);
		left = prime_penalty_left(s, idx);
		if (left < best_left) {
			best_left = left;
			best_ev = ev;
		}
		if (!left)
			break;
	}
	s->sends++;		/* every penalty decays by one send */
	return best_ev;
}

static u32 prime_penalty(const struct lb_prime *s, u32 pct)
{
	u64 sends = (u64)pct * s->bdp_pkts / 100;

	return clamp(sends, 1ULL, PRIME_MAX_PENALTY);
}

/* @sticky: only a path without a penalty gets one (an ECN mark). */
static void prime_penalise(struct lb_prime *s, u16 ev, u32 pct, bool sticky)
{
	u32 idx, left, penalty;

	if (!prime_index(s, ev, &idx))
		return;
	left = prime_penalty_left(s, idx);
	if (sticky && left)
		return;
	penalty = prime_penalty(s, pct);
	if (penalty > left)
		s->until[idx] = s->sends + penalty;
}

static void prime_on_ack(struct mpdt_lb *lb, const struct mpdt_lb_ack *a)
{
	struct lb_prime *s = lb->priv;

	if (a->ce)
		prime_penalise(s, a->ev, s->ecn_pct, true);
}

/* NO_BUFFER is the receiver's memory, not the path. */
static void prime_on_nack(struct mpdt_lb *lb, u16 ev, u8 code, u64 now)
{
	struct lb_prime *s = lb->priv;

	if (code == MPDT_NACK_TRIMMED)
		prime_penalise(s, ev, s->nack_pct, false);
}

static void prime_on_loss(struct mpdt_lb *lb, u16 ev, bool rto, u64 now)
{
	struct lb_prime *s = lb->priv;

	prime_penalise(s, ev, s->timeout_pct, false);
}

const struct mpdt_lb_ops mpdt_lb_prime = {
	.name		= "prime",
	.priv_size	= prime_priv_size,
	.init		= prime_init,
	.choose_ev	= prime_choose,
	.on_ack		= prime_on_ack,
	.on_nack	= prime_on_nack,
	.on_loss	= prime_on_loss,
};
