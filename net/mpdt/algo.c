// SPDX-License-Identifier: GPL-2.0
/* Algorithm registry: every policy MPDT was built with.  Pure core. */
#include "algo.h"

static const struct mpdt_lb_ops *const lb_algos[] = {
	&mpdt_lb_ecmp,
	&mpdt_lb_oblivious,
	&mpdt_lb_bitmap,
	&mpdt_lb_reps,
	&mpdt_lb_prime,
	&mpdt_lb_paralet,
};

static const struct mpdt_cc_ops *const cc_algos[] = {
	&mpdt_cc_fixed,
	&mpdt_cc_strack,
	&mpdt_cc_smartt,
	&mpdt_cc_mcc,
};

const struct mpdt_lb_ops *mpdt_lb_at(unsigned int i)
{
	return i < ARRAY_SIZE(lb_algos) ? lb_algos[i] : NULL;
}

const struct mpdt_cc_ops *mpdt_cc_at(unsigned int i)
{
	return i < ARRAY_SIZE(cc_algos) ? cc_algos[i] : NULL;
}

const struct mpdt_lb_ops *mpdt_lb_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lb_algos); i++)
		if (!strcmp(lb_algos[i]->name, name))
			return lb_algos[i];
	return NULL;
}

const struct mpdt_cc_ops *mpdt_cc_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cc_algos); i++)
		if (!strcmp(cc_algos[i]->name, name))
			return cc_algos[i];
	return NULL;
}
