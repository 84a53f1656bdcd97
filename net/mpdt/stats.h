/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-netns counters, kept per CPU and summed on read.  They only ever
 * grow (tools diff them).  enum mpdt_stat (uapi) is both the index and the
 * netlink attribute type.
 */
#ifndef _MPDT_STATS_H
#define _MPDT_STATS_H

#include <linux/percpu.h>
#include <linux/mpdt.h>

#include "wire.h"

struct mpdt_stats {
	u64 v[__MPDT_STAT_MAX];
};

struct mpdt_net;

void mpdt_stat_inc(struct mpdt_net *mn, enum mpdt_stat s);
void mpdt_stat_add(struct mpdt_net *mn, enum mpdt_stat s, u64 n);
u64 mpdt_stat_read(struct mpdt_net *mn, enum mpdt_stat s);
const char *mpdt_stat_name(enum mpdt_stat s);
enum mpdt_stat mpdt_stat_for_wire_err(enum mpdt_wire_err e);

#endif /* _MPDT_STATS_H */
