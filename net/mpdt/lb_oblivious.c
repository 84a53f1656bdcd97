// SPDX-License-Identifier: GPL-2.0
/*
 * "oblivious": oblivious packet spraying.  Round robin over every entropy
 * in an order drawn from the connection's seed, blind to congestion: each
 * EV carries exactly one packet per round of lb->entropies packets.  The
 * baseline the adaptive policies improve on (STrack §1 and §4.2;
 * SMaRTT-REPS §4.1).  The order is a keyed permutation (prng.h), not an
 * array, so it costs constant memory even for 65535 EVs; a random order
 * per connection keeps connections between the same two hosts, whose
 * packets hash alike for equal EVs, off each other's paths.  Pure core.
 */
#include "lb.h"
#include "prng.h"

struct lb_oblivious {
	struct mpdt_perm order;
	u32 next;		/* position in the order of the next packet */
};

static u32 oblivious_priv_size(const struct mpdt_params *p)
{
	return sizeof(struct lb_oblivious);
}

static void oblivious_init(struct mpdt_lb *lb, const struct mpdt_params *p,
			   u64 seed)
{
	struct lb_oblivious *s = lb->priv;

	mpdt_perm_init(&s->order, mpdt_lb_evs(lb), seed);
	s->next = 0;
}

/* A retransmission simply takes the next EV, like any packet. */
static u16 oblivious_choose(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	struct lb_oblivious *s = lb->priv;
	u16 ev = mpdt_perm_at(&s->order, s->next);

	if (++s->next >= mpdt_lb_evs(lb))
		s->next = 0;
	return ev;
}

const struct mpdt_lb_ops mpdt_lb_oblivious = {
	.name		= "oblivious",
	.priv_size	= oblivious_priv_size,
	.init		= oblivious_init,
	.choose_ev	= oblivious_choose,
};
