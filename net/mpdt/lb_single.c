// SPDX-License-Identifier: GPL-2.0
/*
 * "single": one entropy for the whole connection, the way RoCEv2 or TCP
 * use one 5-tuple.  The single-path baseline every spraying policy is
 * measured against.  Pure core.
 */
#include "lb.h"

struct lb_single {
	u16 ev;
};

static void single_init(struct mpdt_lb *lb, const struct mpdt_params *p,
			u64 seed)
{
	struct lb_single *s = lb->priv;

	s->ev = seed % lb->entropies;
}

static u32 single_priv_size(const struct mpdt_params *p)
{
	return sizeof(struct lb_single);
}

static u16 single_choose(struct mpdt_lb *lb, const struct mpdt_lb_ctx *ctx)
{
	const struct lb_single *s = lb->priv;

	return s->ev;
}

const struct mpdt_lb_ops mpdt_lb_single = {
	.name		= "single",
	.priv_size	= single_priv_size,
	.init		= single_init,
	.choose_ev	= single_choose,
};
