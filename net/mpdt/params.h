/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tunables of one network namespace.  A new netns copies the module
 * defaults (module parameters); netlink param-set changes them per netns.
 * Pure core.
 */
#ifndef _MPDT_PARAMS_H
#define _MPDT_PARAMS_H

#include "core.h"
#include <linux/mpdt.h>

struct mpdt_params {
	u32 udp_port;		/* UDP destination port of every packet */
	u32 sndbuf;		/* SO_SNDBUF of a new socket */
	u32 rcvbuf;		/* SO_RCVBUF of a new socket */
	u32 payload;		/* DATA payload bytes per packet */
	u32 link_mbps;		/* host link speed, for the BDP */
	u32 base_rtt_us;	/* network-wide base RTT, for the BDP */
	u32 ack_bytes;		/* SACK coalescing threshold */
	u32 ack_on_epsn;	/* SACK when the EPSN packet closes a gap */
	u32 ack_on_ce;		/* SACK at once on a CE mark */
	u32 probe_mult;		/* probe after this many base RTTs */
	u32 rto_min_us;
	u32 rto_max_us;
	u32 max_retries;	/* RTOs in a row with nothing acked: one more fails */
	u32 rx_window;		/* PSNs tracked past EPSN (pow2) */
	u32 entropies;		/* entropy values to spray over */
	u32 entropy_base;	/* UDP source port of entropy 0 */
	u32 fixed_cwnd;		/* bytes for the "fixed" CC; 0 = one BDP */
	u32 bitmap_reset_rtts;	/* "bitmap": clear ECN marks every N RTTs */
	u32 reps_buffer;	/* "reps": recycled EVs kept */
	u32 reps_freeze_us;	/* "reps": freeze after a timeout; 0 = never */
	u32 prime_tiers;	/* "prime": uplink tiers = MP-EV parts */
	u32 prime_uplinks;	/* "prime": uplinks per tier; 0 = all EVs */
	u32 prime_ecn_penalty;	/* "prime": % of a BDP of sends, ECN */
	u32 prime_nack_penalty;	/* "prime": % of a BDP of sends, trim */
	u32 prime_timeout_penalty; /* "prime": the same, failed path */
	u32 paralet_m;		/* "paralet": parallel flowlets */
	u32 paralet_bdps;	/* "paralet": flowlet = this many BDP / m */
	/* congestion control: strack (STrack Table 1), smartt (SMaRTT §3.5),
	 * mcc (MCC §3-4); see cc_*.c
	 */
	u32 strack_target_qdelay_us;	/* us; 0 = base RTT */
	u32 strack_qhigh_pct;		/* target_Qhigh, % of target */
	u32 strack_ewma_pm;		/* avg_delay weight, per mille */
	u32 strack_alpha_pct;		/* % of Table 1's alpha unit */
	u32 strack_beta_pct;		/* % of MTU * bdp_sf */
	u32 strack_eta_pct;		/* % of MTU * bdp_sf */
	u32 strack_gamma_pm;		/* per mille */
	u32 strack_md_floor_pct;	/* least MD factor, % */
	u32 strack_achieved_div;	/* achievedBDP < max / this */
	u32 strack_max_cwnd_pct;	/* % of the BDP */
	u32 smartt_trtt_pct;		/* % of the base RTT */
	u32 smartt_fd_pm;		/* per mille */
	u32 smartt_md_pct;		/* %, doubled without trims */
	u32 smartt_fi_pm;		/* per mille at the ref. BDP */
	u32 smartt_qa_scaling_pct;	/* % */
	u32 smartt_fast_k;		/* MTUs per ACK */
	u32 smartt_fast_rtt_pct;	/* rtt ~ brtt: % of brtt */
	u32 smartt_wtd_alpha_pm;	/* per mille */
	u32 smartt_wtd_thresh_pm;	/* per mille */
	u32 smartt_max_cwnd_pct;	/* % of the BDP */
	u32 mcc_target_msg_delay_us;	/* us; 0 = Table 1 rule */
	u32 mcc_target_max_delay_us;	/* us; 0 = 2 base RTTs */
	u32 mcc_oversub;		/* increase = BDP / this */
	u32 mcc_md_floor_pct;		/* least decrease factor, % */
	u32 mcc_chunk_bytes;		/* largest message unit */
	u32 mcc_max_cwnd_pct;		/* % of the BDP */
};

/* Bandwidth-delay product in bytes. */
static inline u64 mpdt_bdp(const struct mpdt_params *p)
{
	return (u64)p->link_mbps * p->base_rtt_us / 8;
}

/* One u32 tunable: its netlink attribute, field, CLI name and range. */
struct mpdt_param_desc {
	u16 attr;		/* enum mpdt_param */
	u16 offset;		/* in struct mpdt_params */
	const char *name;
	u32 min, max;
};

/* Every u32 tunable; adding one is a line there, a field above and a
 * uapi enum entry.
 */
extern const struct mpdt_param_desc mpdt_param_descs[];
extern const unsigned int mpdt_param_count;

static inline u32 *mpdt_param_field(struct mpdt_params *p,
				    const struct mpdt_param_desc *d)
{
	return (u32 *)((u8 *)p + d->offset);
}

/* NULL if @p is consistent, else why not (for extack and the log). */
const char *mpdt_params_invalid(const struct mpdt_params *p);

#endif /* _MPDT_PARAMS_H */
