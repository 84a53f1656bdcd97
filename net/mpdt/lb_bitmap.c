// SPDX-License-Identifier: GPL-2.0
/*
 * "bitmap": STrack's adaptive packet spray (STrack §3.1, Algorithm 2).
 * One bit per entropy remembers an ECN mark.  An entropy that comes back
 * unmarked clocks out the next packet at once (next_path_id); otherwise
 * round robin over the first max(8, min(256, 2 * cwnd)) entropies skips
 * the marked ones, and each packet clears only the first bit it skips, so
 * a marked path is retried after a few packets rather than shunned.  The
 * whole bitmap is forgotten every bitmap_reset_rtts RTTs (STrack §1: "reset
 * after one or two round trip times"), since marks go stale as queues
 * drain.  Pure core.
 *
 * Where MPDT reads the pseudo-code, whose extraction garbled the line
 * numbers and UPDATE_ECN_BITMAP (the text's line numbers are used here):
 *  - An unmarked SACK sets next_path_id to its EV and clears its bit; a
 *    marked one sets the bit and next_path_id to -EV, i.e. none (the text:
 *    "if the ACK is not ECN-marked, its entropy would be used ...
 *    Otherwise, it checks the bitmap in a round-robin fashion").
 *  - next_path_id has a separate valid flag: the "next_path_id > 0" test
 *    before line 13 would never reuse EV 0.
 *  - rr starts at a seeded EV, not 0: two connections between the same
 *    hosts hash alike for equal EVs and would collide in lockstep.
 *  - A trimmed or timed-out packet counts as an ECN mark on its EV: the
 *    path dropped it, so it is at least as congested.  A NO_BUFFER NACK
 *    says nothing about the path.
 */
#include "lb.h"
#include "wire.h"

#define BITMAP_MAX_PATHS	256U	/* Algorithm 2 INIT: max_paths */
#define BITMAP_MIN_PATHS	8U	/* paths = max(8, paths) */

struct lb_bitmap {
	u64 marked[BITMAP_MAX_PATHS / 64];	/* "bitmap": ECN seen on EV */
	u64 last_reset;			/* ns */
	u32 reset_rtts;
	u32 paths;		/* EVs managed: min(entropies, max_paths) */
	u16 rr;			/* last EV sent */
	u16 next_path_id;	/* an EV that came back unmarked ... */
	bool next_valid;	/* ... not yet reused */
};

static bool bitmap_marked(const struct lb_bitmap *s, u16 ev)
{
	return s->marked[ev / 64] & BIT_ULL(ev % 64);
}

static void bitmap_mark(struct lb_bitmap *s, u16 ev, bool mark)
{
	if (mark)
		s->marked[ev / 64] |= BIT_ULL(ev % 64);
	else
		s->marked[ev / 64] &= ~BIT_ULL(ev % 64);
}

static u32 bitmap_priv_size(const struct mpdt_params *p)
{
	return sizeof(struct lb_bitmap);
}

static void bitmap_init(struct mpdt_lb *lb, const struct mpdt_params *p,
			u64 seed)
{
	struct lb_bitmap *s = lb->priv;

	s->paths = min(mpdt_lb_evs(lb), BITMAP_MAX_PATHS);
	s->rr = seed % s->paths;
	s->reset_rtts = p->bitmap_reset_rtts;
}

/* Algorithm 2, UPDATE_ECN_BITMAP (unmarked: lines 7-8). */
static void bitmap_update(struct lb_bitmap *s, u16 ev, bool ecn)
{
	if (ev >= s->paths)
		return;
	bitmap_mark(s, ev, ecn);
	s->next_path_id = ev;
	s->next_valid = !ecn;
}

/* Congestion information is fresh for about a window (§3.1, line 17),
 * so the round robin spans 2 * cwnd entropies, at least 8, at most 256.
 */
static u32 bitmap_window(const struct lb_bitmap *s, u32 cwnd_pkts)
{
	u32 paths = 2 * clamp(cwnd_pkts, BITMAP_MIN_PATHS / 2,
			      BITMAP_MAX_PATHS / 2);

	return min(paths, s->paths);
}

static void bitmap_maybe_reset(struct lb_bitmap *s, u64 now, u64 rtt_ns)
{
	if (now - s->last_reset < s->reset_rtts * rtt_ns)
		return;
	memset(s->marked, 0, sizeof(s->marked));
	s->last_reset = now;
}

/* Algorithm 2, CHOOSE_PATH: reuse next_path_id (line 13), else round
 * robin clearing the first marked EV skipped (line 23).  Retransmissions
 * choose the same way.
 */
static u16 bitmap_choose(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	struct lb_bitmap *s = lb->priv;
	u32 paths = bitmap_window(s, ctx->cwnd_pkts);
	bool cleared = false;

	bitmap_maybe_reset(s, ctx->now, ctx->rtt_ns);
	if (s->next_valid) {
		s->next_valid = false;
		s->rr = s->next_path_id;
		return s->rr;
	}
	/* Terminates: the first marked EV skipped is cleared, so at worst
	 * the walk comes round to it again.
	 */
	s->rr = (s->rr + 1) % paths;
	while (bitmap_marked(s, s->rr)) {
		if (!cleared) {
			bitmap_mark(s, s->rr, false);
			cleared = true;
		}
		s->rr = (s->rr + 1) % paths;
	}
	return s->rr;
}

static void bitmap_on_ack(struct mpdt_lb *lb, const struct mpdt_lb_ack *a)
{
	bitmap_update(lb->priv, a->ev, a->ce);
}

static void bitmap_on_nack(struct mpdt_lb *lb, u16 ev, u8 code, u64 now)
{
	if (code == MPDT_NACK_TRIMMED)
		bitmap_update(lb->priv, ev, true);
}

static void bitmap_on_loss(struct mpdt_lb *lb, u16 ev, bool rto, u64 now)
{
	bitmap_update(lb->priv, ev, true);
}

const struct mpdt_lb_ops mpdt_lb_bitmap = {
	.name		= "bitmap",
	.priv_size	= bitmap_priv_size,
	.init		= bitmap_init,
	.choose_ev	= bitmap_choose,
	.on_ack		= bitmap_on_ack,
	.on_nack	= bitmap_on_nack,
	.on_loss	= bitmap_on_loss,
};
