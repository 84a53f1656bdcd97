/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tunables of one network namespace.  A new netns copies the module
 * defaults (module parameters); netlink will set them per netns.  Pure core.
 */
#ifndef _MPDT_PARAMS_H
#define _MPDT_PARAMS_H

#include "core.h"

struct mpdt_params {
	u32 udp_port;		/* UDP destination port of every packet */
	u32 payload;		/* DATA payload bytes per packet */
	u32 link_mbps;		/* host link speed, for the BDP */
	u32 base_rtt_us;	/* network-wide base RTT, for the BDP */
	u32 ack_bytes;		/* SACK coalescing threshold */
	u32 ack_on_epsn;	/* SACK when the EPSN packet closes a gap */
	u32 ack_on_ce;		/* SACK at once on a CE mark */
	u32 probe_mult;		/* probe after this many base RTTs */
	u32 rto_min_us;
	u32 rto_max_us;
	u32 max_retries;	/* consecutive RTOs retried; one more fails */
	u32 rx_window;		/* PSNs tracked past EPSN (pow2) */
	u32 entropies;		/* entropy values to spray over */
	u32 entropy_base;	/* UDP source port of entropy 0 */
	u32 fixed_cwnd;		/* bytes for the "fixed" CC; 0 = one BDP */
};

/* Bandwidth-delay product in bytes. */
static inline u64 mpdt_bdp(const struct mpdt_params *p)
{
	return (u64)p->link_mbps * p->base_rtt_us / 8;
}

#endif /* _MPDT_PARAMS_H */
