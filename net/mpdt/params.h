/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tunables of one network namespace.  The initial netns starts from the
 * module defaults (module parameters), a new one from the initial one's
 * values; netlink param-set changes them per netns.
 * Every u32 tunable is an entry of params_table.h.  Pure core.
 */
#ifndef _MPDT_PARAMS_H
#define _MPDT_PARAMS_H

#include "core.h"
#include <linux/mpdt.h>

/* One u32 member per entry of params_table.h, in its order. */
struct mpdt_params {
#define MPDT_PARAM(field, attr, name, def, min, max, desc)	u32 field;
#include "params_table.h"
#undef MPDT_PARAM
};

/* Bandwidth-delay product in bytes. */
static inline u64 mpdt_bdp(const struct mpdt_params *p)
{
	return (u64)p->link_mbps * p->base_rtt_us / 8;
}

/* Bytes a millisecond at the link speed @p holds (configured or
 * measured).
 */
static inline u64 mpdt_link_bytes_per_ms(const struct mpdt_params *p)
{
	return (u64)p->link_mbps * 125;
}

/* Packets in one burst at @bytes_per_ms of rate.  TCP sizes a TSO burst
 * to about a millisecond at its pacing rate (tcp_tso_autosize()); so does
 * MPDT: one packet on slow paths, where spraying keeps its per-packet
 * granularity, up to burst-pkts on fast ones, where per-packet costs
 * limit the rate.
 */
static inline u32 mpdt_burst_pkts(const struct mpdt_params *p,
				  u64 bytes_per_ms, u32 mss)
{
	return clamp(mpdt_div(bytes_per_ms, mss), 1ULL,
		     (u64)max(p->burst_pkts, 1U));
}

/* One u32 tunable: its netlink attribute, field, CLI name and range. */
struct mpdt_param_desc {
	u16 attr;		/* enum mpdt_param */
	u16 offset;		/* in struct mpdt_params */
	const char *name;
	u32 min, max;
};

/* Every u32 tunable, in the order of params_table.h, which makes them. */
extern const struct mpdt_param_desc mpdt_param_descs[];
extern const unsigned int mpdt_param_count;

/* The UDP source port of entropy @ev.  Replies echo the peer's entropy,
 * which the peer chose in its own range: folded into ours, so that no
 * value a peer sends can make port 0 or leave [entropy-base,
 * entropy-base + entropies), which the operator opened.  The two are
 * read apart while an operator may be changing both: an old count with a
 * new base is held to the ports from that base up, never past 65535
 * into 0.
 */
static inline u16 mpdt_ev_port(u32 entropy_base, u32 entropies, u16 ev)
{
	u32 base = clamp(entropy_base, 1U, 65535U);

	return base + ev % clamp(entropies, 1U, 65536 - base);
}

static inline u32 *mpdt_param_field(struct mpdt_params *p,
				    const struct mpdt_param_desc *d)
{
	return (u32 *)((u8 *)p + d->offset);
}

/* NULL if @p is consistent, else why not (for extack and the log). */
const char *mpdt_params_invalid(const struct mpdt_params *p);

#endif /* _MPDT_PARAMS_H */
