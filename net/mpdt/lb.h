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
	void *priv;		/* ops->priv_size(params) bytes, zeroed */
	u32 priv_len;
	u32 entropies;		/* EVs are 0 .. entropies - 1 */
};

/* What the transport knows when a policy picks an entropy. */
struct mpdt_lb_ctx {
	u64 now;
	u32 psn;		/* of the packet being sent */
	/* In: the packets of consecutive PSNs from @psn the choice is for (a
	 * burst, sent at once); out: a policy may lower it, to 1 at least.
	 */
	u32 pkts;
	u32 cwnd_pkts;		/* congestion window, in packets */
	u32 bdp_pkts;		/* configured BDP, in packets */
	u64 rtt_ns;		/* smoothed RTT, or the base RTT before one */
	bool resend;		/* the packet is a retransmission */
	/* Out, for policies that keep a stream of packets on one path and in
	 * order (ParaLet flowlets): set in_flowlet and the PSN sent before
	 * this one on the same flowlet (or this PSN if it starts one).  The
	 * burst's later packets follow on the same flowlet.  The receiver
	 * then treats a gap inside a flowlet as a loss.
	 */
	bool in_flowlet;
	u32 flowlet_prev;
};

/* Entropies of the packets one SACK newly acknowledged, at most. */
#define MPDT_LB_ACKED_MAX	64

/* One SACK, as load balancing sees it. */
struct mpdt_lb_ack {
	u64 now;
	u64 rtt_ns;		/* this SACK's RTT sample; 0 if none */
	u16 ev;			/* entropy the SACK echoes */
	u16 ce_count;		/* CE marks the receiver saw since its last SACK */
	bool ce;		/* the packet that triggered it was CE marked */
	/* It answers a probe: the packets it newly acknowledges arrived, but
	 * no SACK of theirs came back, so their own entropies may lead the
	 * SACKs onto a failed reverse path.
	 */
	bool probe;
	/* The sender's record of the entropies of the packets this SACK
	 * newly acknowledged, in PSN order (the first MPDT_LB_ACKED_MAX).
	 * With coalesced SACKs the echoed EV is one of several.
	 */
	u16 acked_count;
	const u16 *acked_evs;
};

struct mpdt_lb_ops {
	const char *name;
	/* Keeps flowlets in order: the receiver reports gaps inside a
	 * flowlet, so out-of-order counts (gaps between flowlets) are no
	 * sign of loss.
	 */
	bool flowlets;
	/* Bytes of private state for these parameters; NULL means none. */
	u32 (*priv_size)(const struct mpdt_params *p);
	/* @seed is random per connection. */
	void (*init)(struct mpdt_lb *lb, const struct mpdt_params *p,
		     u64 seed);
	/* May set the ctx out fields (in_flowlet, flowlet_prev). */
	u16 (*choose_ev)(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx);
	/* The signal hooks below are optional. */
	void (*on_ack)(struct mpdt_lb *lb, const struct mpdt_lb_ack *a);
	/* A NACK (enum mpdt_nack_code @code) for a packet sent on @ev. */
	void (*on_nack)(struct mpdt_lb *lb, u16 ev, u8 code, u64 now);
	/* A packet sent on @ev was declared lost: by a retransmission
	 * timeout (@rto), the slow detector of last resort, or sooner by a
	 * probe or the out-of-order count.
	 */
	void (*on_loss)(struct mpdt_lb *lb, u16 ev, bool rto, u64 now);
};

/* The EVs a policy chooses from are 0 .. mpdt_lb_evs() - 1: at least one,
 * so that no policy divides by zero or walks an empty order, whatever the
 * parameters were.
 */
static inline u32 mpdt_lb_evs(const struct mpdt_lb *lb)
{
	return max(lb->entropies, 1U);
}

/* "prime": @p's MP-EV layout is used as configured, no tier dropped and
 * no part cut to the entropy range (for mpdt_params_invalid()).
 */
bool mpdt_prime_layout_fits(const struct mpdt_params *p);

extern const struct mpdt_lb_ops mpdt_lb_ecmp;
extern const struct mpdt_lb_ops mpdt_lb_oblivious;
extern const struct mpdt_lb_ops mpdt_lb_bitmap;
extern const struct mpdt_lb_ops mpdt_lb_reps;
extern const struct mpdt_lb_ops mpdt_lb_prime;
extern const struct mpdt_lb_ops mpdt_lb_paralet;

#endif /* _MPDT_LB_H */
