/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pacing: when a connection's DATA may leave its host (issue 12, stage 5).
 * As TCP's since Linux 4.20 (Early Departure Time): each skb carries the
 * time before which it must not leave, and the fq qdisc, which paces on
 * real NICs, holds it until then.  Without fq nothing holds it: TCP paces
 * on its own only for a congestion control that needs it
 * (tcp_needs_internal_pacing()), and MPDT's do not; the glue stamps only
 * the skbs of a socket that fq paces or that asked for SO_MAX_PACING_RATE
 * (sk_pacing_status), as tcp_update_skb_after_send() does.
 *
 * Over a window-based CC pacing does not limit what is in flight; it
 * spreads a window's bursts over the round trip instead of sending them
 * back to back at the NIC's speed, so that the fabric's queues see the
 * window's rate, not the line rate, at the start of a message and after
 * every pause.  The rate is TCP's (tcp_update_pacing_rate()): the window
 * over the smoothed RTT, twice that while the path is in startup and its
 * window doubles every round (path.h), 1.2 times once it is full, never
 * more than the socket's SO_MAX_PACING_RATE.  Nothing is paced before the
 * first RTT sample: the initial window goes at once, as TCP's first ten
 * segments do.
 *
 * Pure core.
 */
#ifndef _MPDT_PACING_H
#define _MPDT_PACING_H

#include "core.h"

#define MPDT_PACING_STARTUP_PCT	200	/* tcp_pacing_ss_ratio */
#define MPDT_PACING_PCT		120	/* tcp_pacing_ca_ratio */

struct mpdt_pacing {
	u64 next_ns;		/* the earliest departure of the next skb */
};

/* Bytes per second for a window of @cwnd bytes over @srtt_ns (0: no
 * sample yet), in startup or not, at most @max_rate; 0: do not pace.
 */
u64 mpdt_pacing_rate(u64 cwnd, u64 srtt_ns, bool startup, u64 max_rate);

/* The departure time of an skb of @bytes ready at @now, paced at @rate
 * (not 0); the next one leaves @bytes at @rate later.
 */
u64 mpdt_pacing_depart(struct mpdt_pacing *p, u64 bytes, u64 rate, u64 now);

#endif /* _MPDT_PACING_H */
