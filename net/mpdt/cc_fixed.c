// SPDX-License-Identifier: GPL-2.0
/*
 * "fixed": no congestion control, a constant window.  The configured
 * fixed_cwnd, or one bandwidth-delay product of the path (configured or
 * measured, path.h, and then following the measurement), never below one
 * packet.  Pure core.
 */
#include "cc.h"

static void fixed_init(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	u64 w = p->fixed_cwnd ? p->fixed_cwnd : mpdt_bdp(p);

	cc->cwnd = clamp(w, (u64)cc->mss, (u64)0x7fffffff);
}

const struct mpdt_cc_ops mpdt_cc_fixed = {
	.name		= "fixed",
	.init		= fixed_init,
	.rescale	= fixed_init,
};
