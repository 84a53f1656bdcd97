// SPDX-License-Identifier: GPL-2.0
/*
 * "ecmp": one entropy for the whole connection, the way RoCEv2 or TCP use
 * one 5-tuple, so every packet takes the path ECMP hashed the connection
 * onto.  The single-path baseline every spraying policy is measured
 * against.  A retransmission takes the same (the only) entropy.  Pure core.
 */
#include "lb.h"

struct lb_ecmp {
	u16 ev;
};

static u32 ecmp_priv_size(const struct mpdt_params *p)
{
	return sizeof(struct lb_ecmp);
}

/* The seed is random per connection, so connections spread over EVs. */
static void ecmp_init(struct mpdt_lb *lb, const struct mpdt_params *p,
		      u64 seed)
{
	struct lb_ecmp *s = lb->priv;

	s->ev = seed % mpdt_lb_evs(lb);
}

static u16 ecmp_choose(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	const struct lb_ecmp *s = lb->priv;

	return s->ev;
}

const struct mpdt_lb_ops mpdt_lb_ecmp = {
	.name		= "ecmp",
	.priv_size	= ecmp_priv_size,
	.init		= ecmp_init,
	.choose_ev	= ecmp_choose,
};
