/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pacing: when a connection's DATA may leave its host (issue 12, stage 5).
 * As TCP's since Linux 4.20 (Early Departure Time): each skb carries the
 * time before which it must not leave, and the fq qdisc, which paces on
 * real NICs, holds it until then; other qdiscs send at once.  The rate
 * is TCP's (tcp_update_pacing_rate()): the window over the smoothed RTT,
 * twice that while the path is in startup and its window doubles every
 * round (path.h), 1.2 times once it is full, never more than the socket's
 * SO_MAX_PACING_RATE.  Nothing is paced before the first RTT sample: the
 * initial window goes at once, as TCP's first ten segments do.
 *
 * Only a socket that asked for SO_MAX_PACING_RATE is paced, where fq
 * said it paces the socket (sk_pacing_status), as fq paces a UDP socket
 * only at the rate it asked for.  TCP paces wherever fq is; MPDT's window,
 * which a delay-based CC holds near the BDP, is not TCP's, and paced at
 * TCP's rate one connection over a veth with fq moved 488-667 Mbit/s
 * against 780-1113 unpaced, its bursts half as long and its SACKs twice
 * as many per MiB, and at twice the window's rate 533-910
 * (Documentation/perf.rst); the fabric's model found no gain in pacing
 * either (Documentation/sim.rst).
 *
 * A packet is sent, for its RTT sample and the loss detectors, at its
 * departure time, as TCP's skb_mstamp_ns: the wait in fq is not the
 * path's delay.  Timed from the engine's call, the wait read as queueing
 * to STrack, which cut the window, which slowed the pacing further.
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
