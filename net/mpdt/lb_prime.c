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
 * mark gives a short one, a trimmed packet (NACK) or a silent loss a much
 * longer one, a path judged failed (below) the longest.  Penalties never
 * add up: an ECN mark leaves a penalised path alone, a loss raises its
 * penalty to the loss value at most.  A send skips penalised paths; if a
 * whole cycle is penalised it takes the least penalised (§III-C).
 * Penalties decay on every send "based on the drainage rate of the
 * switch"; the values were lost in extraction, so MPDT counts penalties
 * in packets and decays them by one per packet sent (a queue drains a
 * packet while the sender, at line rate, sends one; a burst of k packets
 * on one EV decays them by k, or bursts would stretch every penalty k
 * times), in percent of a BDP of packets.  A mark reports a queue one
 * RTT old, and in that RTT a sender at line rate sent a BDP, its share
 * of which joined the queue: an ECN mark keeps the path for a BDP
 * (prime_ecn_penalty = 100), until a packet sent after the mark can
 * report again.  §III-D only says a NACK's penalty is "much higher";
 * trimming starts at four times the queue marking does (a full BDP,
 * §IV: "packets get trimmed if the queue length exceeds one BDP", and
 * about a quarter) and a trim keeps the path four times as long
 * (prime_nack_penalty = 400).  Measured in the ns-3 model with 1/8 of
 * the uplinks degraded (Documentation/sim.rst), penalties of a quarter
 * and one BDP left the slow uplinks most of their share.  Decay is
 * lazy: a path stores the send count at which its penalty reaches zero.
 *
 * Silent losses (a timeout, a probe or the OOO count: on_loss).  §III-B
 * ranks a loss with a trim, as severe congestion: "Trimmed packets and
 * packet loss initiate a NACK ... PRIME penalizes the path associated
 * with a NACK packet for an extended period of time".  On a fabric that
 * drops instead of trimming, most silent losses are just that.  Failed
 * links PRIME leaves to the switches (§IV-A2: BFD and fast failover take
 * them out of forwarding, after a brief "blackhole" phase; the load
 * balancer then spreads over what is left), but until they do, or where
 * nothing does, a dead path swallows its share of every window.  The two
 * differ in what else the path does: a congested queue still forwards
 * most of what reaches it, a dead path nothing.  So:
 * - a silent loss is a strike against its path, and any sign that the
 *   path delivers (a SACK acknowledging or echoing one of its packets, a
 *   NACK for one) clears the path's strikes;
 * - a strike counts only if two windows of packets (cwnd_pkts of the
 *   last send each; about an RTT) were delivered over the other paths
 *   since the path's previous one: the global delivery round must have
 *   moved on three times.  That is longer than the RTT and a half in
 *   which what was in flight at the previous strike is acknowledged or
 *   found lost, so the next strike is the loss of a packet sent after
 *   it, once its penalty ran out: losses found together, as a burst
 *   dropped by one overflowing queue or a window declared lost by one
 *   RTO, are one strike.  While no path delivers (the peer or the whole
 *   fabric silent) strikes do not grow at all;
 * - below PRIME_FAIL_STRIKES strikes a silent loss is congestion and
 *   gets a trim's penalty (prime_nack_penalty, §III-B); at
 *   PRIME_FAIL_STRIKES the path is judged failed and gets
 *   prime_timeout_penalty (3000: 30 BDPs of packets), renewed by each loss
 *   while the path has delivered nothing since.
 * PRIME_FAIL_STRIKES = 3 is the detection multiplier BFD (which §IV-A2
 * cites) is commonly run with: three missed rounds.  A congested path
 * gets there only by losing everything it carried for three such rounds
 * while the others delivered (test_lb_prime.c: not once in 4 million
 * sends over 8 paths at 10% random loss); a dead one does within three
 * rounds of penalty and detection, some 3 RTTs each.
 */
#include "lb.h"
#include "prng.h"
#include "wire.h"

#define PRIME_MAX_PATHS		1024U
#define PRIME_MAX_TIERS		4U
#define PRIME_MAX_PENALTY	BIT_ULL(30)	/* packets; s32 math stays exact */
/* Strikes that fail a path; they must fit PRIME_STRIKES. */
#define PRIME_FAIL_STRIKES	3U
/* Round moves between strikes: two whole windows delivered at least. */
#define PRIME_STRIKE_ROUNDS	3U
/* A path's health byte: its strikes, and above them the delivery round
 * of its last strike, modulo 64 (rounds that many apart look alike: a
 * strike may then come up to three rounds later, never sooner).
 */
#define PRIME_STRIKES		3U
#define PRIME_ROUND_SHIFT	2
#define PRIME_ROUNDS		0x3fU

/* Every part has the same number of values: uplinks per switch. */
struct prime_shape {
	u32 parts;
	u32 size;
};

struct lb_prime {
	struct mpdt_prng rng;
	u32 sends;		/* packets sent: the decay clock */
	u32 bdp_pkts;		/* from the last send, to size penalties */
	u32 cwnd_pkts;		/* from the last send: packets in a round */
	u32 round;		/* windows of packets delivered */
	u32 round_heard;	/* packets delivered in this round */
	u32 ecn_pct;
	u32 nack_pct;
	u32 timeout_pct;
	u32 parts;
	u32 size;		/* values per part */
	u32 bits;		/* bits per part */
	u32 paths;		/* size^parts */
	u16 pos[PRIME_MAX_TIERS];	/* round robin position per part */
	/* until[paths], then the parts' orders: u16[size] each, then the
	 * health bytes: u8[paths].  A path is numbered by its part values in
	 * mixed radix, part 0 lowest.
	 */
	u32 until[];
};

/* Each part needs size <= size^parts values, so 7 bytes a path suffice. */
#define PRIME_PATH_BYTES	(sizeof(u32) + sizeof(u16) + sizeof(u8))

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

static u8 *prime_health(struct lb_prime *s, u32 idx)
{
	return (u8 *)prime_order(s, s->parts) + idx;
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

/* Packets until the penalty of path @idx has decayed to zero.  A decayed
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
	s->cwnd_pkts = ctx->cwnd_pkts;
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
	/* every penalty decays by one per packet sent, a burst's too */
	s->sends += max(ctx->pkts, 1U);
	return best_ev;
}

static u32 prime_penalty(const struct lb_prime *s, u32 pct)
{
	u64 sends = (u64)pct * s->bdp_pkts / 100;

	return clamp(sends, 1ULL, PRIME_MAX_PENALTY);
}

/* @sticky: only a path without a penalty gets one (an ECN mark). */
static void prime_penalise(struct lb_prime *s, u32 idx, u32 pct, bool sticky)
{
	u32 left = prime_penalty_left(s, idx), penalty;

	if (sticky && left)
		return;
	penalty = prime_penalty(s, pct);
	if (penalty > left)
		s->until[idx] = s->sends + penalty;
}

/* @n packets were delivered, over any paths: the rounds go on. */
static void prime_heard(struct lb_prime *s, u32 n)
{
	s->round_heard += n;
	if (s->round_heard >= max(s->cwnd_pkts, 1U)) {
		s->round++;
		s->round_heard = 0;
	}
}

/* A packet sent on @ev reached the receiver: the path works. */
static void prime_alive(struct lb_prime *s, u16 ev)
{
	u32 idx;

	if (prime_index(s, ev, &idx))
		*prime_health(s, idx) = 0;
}

static void prime_on_ack(struct mpdt_lb *lb, const struct mpdt_lb_ack *a)
{
	struct lb_prime *s = lb->priv;
	u32 n = a->acked_count, i, idx;

	prime_heard(s, max(n, 1U));
	prime_alive(s, a->ev);
	for (i = 0; i < n; i++)
		prime_alive(s, a->acked_evs[i]);
	if (a->ce && prime_index(s, a->ev, &idx))
		prime_penalise(s, idx, s->ecn_pct, true);
}

/* Whatever the code, the packet (or its trimmed header) arrived.
 * NO_BUFFER is the receiver's memory, not the path: no penalty.
 */
static void prime_on_nack(struct mpdt_lb *lb, u16 ev, u8 code, u64 now)
{
	struct lb_prime *s = lb->priv;
	u32 idx;

	prime_heard(s, 1);
	prime_alive(s, ev);
	if (code == MPDT_NACK_TRIMMED && prime_index(s, ev, &idx))
		prime_penalise(s, idx, s->nack_pct, false);
}

/* A strike, if two windows were delivered since the last (header
 * comment); the trim's penalty, or the failure's at PRIME_FAIL_STRIKES.
 */
static void prime_on_loss(struct mpdt_lb *lb, u16 ev, bool rto, u64 now)
{
	struct lb_prime *s = lb->priv;
	u32 idx, strikes, round = s->round & PRIME_ROUNDS, last;
	u8 *health;

	if (!prime_index(s, ev, &idx))
		return;
	health = prime_health(s, idx);
	strikes = *health & PRIME_STRIKES;
	last = *health >> PRIME_ROUND_SHIFT;
	if (!strikes ||
	    ((round - last) & PRIME_ROUNDS) >= PRIME_STRIKE_ROUNDS) {
		strikes = min(strikes + 1, PRIME_FAIL_STRIKES);
		*health = round << PRIME_ROUND_SHIFT | strikes;
	}
	prime_penalise(s, idx, strikes < PRIME_FAIL_STRIKES ?
		       s->nack_pct : s->timeout_pct, false);
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
