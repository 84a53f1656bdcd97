/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry of load balancing and congestion control algorithms, looked
 * up by name (netlink, and per socket by MPDT_LB / MPDT_CC).  Pure core.
 */
#ifndef _MPDT_ALGO_H
#define _MPDT_ALGO_H

#include "cc.h"
#include "lb.h"

const struct mpdt_lb_ops *mpdt_lb_find(const char *name);
const struct mpdt_cc_ops *mpdt_cc_find(const char *name);
/* The @i-th registered algorithm, or NULL past the end. */
const struct mpdt_lb_ops *mpdt_lb_at(unsigned int i);
const struct mpdt_cc_ops *mpdt_cc_at(unsigned int i);

#endif /* _MPDT_ALGO_H */
