/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Load balancing: which entropy value (EV) each packet carries.  The EV
 * becomes the UDP source port (entropy_base + EV), so switches hash the
 * packets of one connection onto different paths.  Each policy is a pure
 * core file implementing struct mpdt_lb_ops over its private state.
 */
#ifndef _MPDT_LB_H
#define _MPDT_LB_H

#include "core.h"
#include "params.h"

struct mpdt_lb {
	const struct mpdt_lb_ops *ops;
	void *priv;		/* ops->priv_size bytes, zeroed */
	u32 entropies;		/* EVs are 0 .. entropies - 1 */
};

struct mpdt_lb_ops {
	const char *name;
	u32 priv_size;
	/* @seed is random per connection. */
	void (*init)(struct mpdt_lb *lb, const struct mpdt_params *p,
		     u64 seed);
	u16 (*choose_ev)(struct mpdt_lb *lb, u64 now);
	/* The signal hooks below are optional. */
	/* A SACK echoed @ev; @ce: it was CE marked. */
	void (*on_ack)(struct mpdt_lb *lb, u16 ev, bool ce, u64 rtt_ns);
	void (*on_nack)(struct mpdt_lb *lb, u16 ev, u8 code);
	/* After an RTO: once for each packet then lost, with its @ev. */
	void (*on_timeout)(struct mpdt_lb *lb, u16 ev);
};

extern const struct mpdt_lb_ops mpdt_lb_single;

#endif /* _MPDT_LB_H */
