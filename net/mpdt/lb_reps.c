// SPDX-License-Identifier: GPL-2.0
/*
 * "reps": Recycled Entropy Packet Spraying (SMaRTT-REPS §3.6, Algorithm
 * 4), with the recycled-entropy buffer and the freezing mode of the REPS
 * paper (Bonato et al., "REPS: Recycled Entropy Packet Spraying for
 * Adaptive Load Balancing and Failure Mitigation", arXiv:2407.21625).
 * Pure core.
 *
 *  - Exploration: for the first BDP of packets, and never more packets
 *    than there are entropies ("p.seqnum < bdp and not all entropies
 *    tried", Algorithm 4 line 5), REPS sends on new entropies in turn
 *    (next_entropy++, line 6), from a seeded start so that connections
 *    between the same hosts do not walk the same paths in lockstep.
 *  - Recycling: an entropy whose SACK comes back without an ECN mark
 *    found an uncongested path; it goes into a circular buffer of
 *    reps_buffer entries (8 in the paper), overwriting the oldest when
 *    full.  Each new packet takes the oldest unused one (FIFO) and uses it
 *    up.  With none left, or after a marked SACK, REPS explores the next
 *    new entropy (line 14).  A trimmed packet (NACK) needs nothing: its
 *    entropy simply is not recycled.
 *  - Coalesced SACKs: the paper ACKs every packet; MPDT's SACK covers
 *    several (ack_bytes), and recycling only the echoed entropy would
 *    leave the buffer empty most of the time, so REPS would mostly
 *    explore (the weakness PRIME §I points out).  A SACK that reports no
 *    CE mark at all since the previous one vouches for every packet it
 *    newly acknowledges, so each of their entropies is recycled, in PSN
 *    order.  So does a SACK whose one mark is its own trigger (the
 *    receiver SACKs at once on CE, ack_on_ce): all but the echoed packet
 *    came through clean.  If the receiver saw other marks, only the
 *    echoed entropy, if unmarked, is known to be clean.  So is it alone
 *    in a probe's answer: the packets that answer acknowledges arrived,
 *    but their SACKs did not come back, maybe hashed onto a failed link
 *    on the way back, and reusing their entropies would keep the sender
 *    clocked by probes.
 *  - Bursts: the packets of a burst (burst_pkts) share the one entropy
 *    chosen for it, and it is recycled once, as one packet's would be:
 *    recycling it per packet would fill the buffer with copies of one
 *    path and REPS would spray no more.  The marked packet's burst is
 *    the one not recycled.
 *  - Losses: an entropy whose packet was declared lost (RTO, probe, OOO
 *    count) is struck from the buffer: it is not reused until an ACK
 *    recycles it again.
 *  - Freezing: a retransmission timeout after exploration hints at a
 *    failed link rather than congestion (trims signal congestion; so do,
 *    in a fabric that drops instead, the losses the OOO count finds).  For reps_freeze_us REPS
 *    then stops exploring, since new entropies may hash onto the failure:
 *    it cycles through the buffered entropies, used up or not (but not
 *    the ones struck by a loss), as they are the last known to work.
 *    Then it empties the buffer and explores one BDP again, to learn the
 *    repaired network.
 */
#include "lb.h"

#define REPS_MAX_BUFFER		64U

struct reps_slot {
	u16 ev;
	bool valid;		/* recycled, not yet reused */
	bool lost;		/* a packet sent on it since was lost */
};

struct lb_reps {
	u64 freeze_ns;
	u64 frozen_until;	/* ns, while frozen */
	u32 next_entropy;	/* Algorithm 4 line 2 */
	u32 explore_left;	/* packets still to explore */
	u32 size;		/* buffer slots */
	u32 head;		/* next slot written */
	u32 fresh;		/* the slots just before head that may still be
				 * valid: the FIFO of unused EVs
				 */
	u32 filled;		/* slots written since the last reset */
	u32 frozen_next;	/* next slot reused while frozen */
	bool explore_armed;	/* explore from the next packet on */
	bool frozen;
	struct reps_slot buf[];
};

static u32 reps_buffer_slots(const struct mpdt_params *p)
{
	return clamp(p->reps_buffer, 1U, REPS_MAX_BUFFER);
}

static u32 reps_priv_size(const struct mpdt_params *p)
{
	return sizeof(struct lb_reps) +
	       reps_buffer_slots(p) * sizeof(struct reps_slot);
}

static void reps_reset_buffer(struct lb_reps *s)
{
	memset(s->buf, 0, s->size * sizeof(s->buf[0]));
	s->head = 0;
	s->fresh = 0;
	s->filled = 0;
	s->frozen_next = 0;
}

/* The buffer is sized from @p, but never beyond the state allocated for
 * it: the parameters may have changed since (a reset re-initialises).
 */
static void reps_init(struct mpdt_lb *lb, const struct mpdt_params *p,
		      u64 seed)
{
	struct lb_reps *s = lb->priv;
	u32 room = (lb->priv_len - sizeof(*s)) / sizeof(s->buf[0]);

	s->size = min(reps_buffer_slots(p), room);
	s->freeze_ns = p->reps_freeze_us * MPDT_NSEC_PER_USEC;
	s->next_entropy = seed % mpdt_lb_evs(lb);
	s->explore_armed = true;
}

static u16 reps_explore(struct mpdt_lb *lb, struct lb_reps *s)
{
	u16 ev = s->next_entropy;

	s->next_entropy = (s->next_entropy + 1) % mpdt_lb_evs(lb);
	return ev;
}

static void reps_recycle(struct lb_reps *s, u16 ev)
{
	struct reps_slot *slot = &s->buf[s->head];

	slot->ev = ev;
	slot->valid = true;
	slot->lost = false;
	s->head = (s->head + 1) % s->size;
	s->fresh = min(s->fresh + 1, s->size);
	s->filled = min(s->filled + 1, s->size);
}

/* The oldest recycled entropy not yet reused, if any (FIFO). */
static bool reps_take_oldest(struct lb_reps *s, u16 *ev)
{
	while (s->fresh) {
		struct reps_slot *slot = &s->buf[(s->head + s->size -
						  s->fresh) % s->size];

		s->fresh--;
		if (slot->valid) {
			slot->valid = false;
			*ev = slot->ev;
			return true;
		}
	}
	return false;
}

/* Frozen: the buffered entropies in turn, used up or not, skipping the
 * ones struck by a loss; false if every one was.
 */
static bool reps_take_frozen(struct lb_reps *s, u16 *ev)
{
	u32 tries;

	for (tries = 0; tries < s->filled; tries++) {
		struct reps_slot *slot = &s->buf[s->frozen_next];

		s->frozen_next = (s->frozen_next + 1) % s->filled;
		if (!slot->lost) {
			slot->valid = false;
			*ev = slot->ev;
			return true;
		}
	}
	return false;
}

static void reps_thaw_if_due(struct lb_reps *s, u64 now)
{
	if (!s->frozen || now < s->frozen_until)
		return;
	s->frozen = false;
	reps_reset_buffer(s);
	s->explore_armed = true;
}

/* A retransmission takes the current choice like any packet. */
static u16 reps_choose(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	struct lb_reps *s = lb->priv;
	u16 ev;

	reps_thaw_if_due(s, ctx->now);
	if (s->explore_armed) {
		s->explore_armed = false;
		s->explore_left = min(ctx->bdp_pkts, mpdt_lb_evs(lb));
	}
	if (s->explore_left) {
		s->explore_left--;
		return reps_explore(lb, s);
	}
	if (s->frozen ? reps_take_frozen(s, &ev) : reps_take_oldest(s, &ev))
		return ev;
	return reps_explore(lb, s);
}

static void reps_recycle_valid(struct mpdt_lb *lb, u16 ev)
{
	if (ev < lb->entropies)
		reps_recycle(lb->priv, ev);
}

/* The SACK's marks are all on the packet it echoes (or there are none):
 * every other packet it acknowledges came through unmarked.
 */
static bool reps_marks_accounted(const struct mpdt_lb_ack *a)
{
	return a->ce_count <= (a->ce ? 1 : 0);
}

static void reps_on_ack(struct mpdt_lb *lb, const struct mpdt_lb_ack *a)
{
	bool skip_echo = a->ce;
	u16 i;

	reps_thaw_if_due(lb->priv, a->now);
	if (a->probe || !reps_marks_accounted(a) || !a->acked_count) {
		if (!a->ce)
			reps_recycle_valid(lb, a->ev);
		return;
	}
	for (i = 0; i < a->acked_count; i++) {
		u16 ev = a->acked_evs[i];

		/* A burst's packets went out on one choice: one recycle. */
		if (i && ev == a->acked_evs[i - 1])
			continue;
		if (skip_echo && ev == a->ev) {
			skip_echo = false;	/* the marked one's burst */
			continue;
		}
		reps_recycle_valid(lb, ev);
	}
}

static void reps_strike(struct lb_reps *s, u16 ev)
{
	u32 i;

	for (i = 0; i < s->filled; i++) {
		if (s->buf[i].ev == ev) {
			s->buf[i].valid = false;
			s->buf[i].lost = true;
		}
	}
}

/* Every loss strikes its EV; only a retransmission timeout freezes.  A
 * loss the OOO count or a probe found within an RTT or two is what a
 * congested queue does without trimming; a timeout means nothing came
 * back at all.  Losses while exploring are expected: new paths are
 * untried.
 */
static void reps_on_loss(struct mpdt_lb *lb, u16 ev, bool rto, u64 now)
{
	struct lb_reps *s = lb->priv;

	reps_strike(s, ev);
	if (!rto || !s->freeze_ns || s->frozen || s->explore_armed ||
	    s->explore_left)
		return;
	s->frozen = true;
	s->frozen_until = now + s->freeze_ns;
}

const struct mpdt_lb_ops mpdt_lb_reps = {
	.name		= "reps",
	.priv_size	= reps_priv_size,
	.init		= reps_init,
	.choose_ev	= reps_choose,
	.on_ack		= reps_on_ack,
	.on_loss	= reps_on_loss,
};
