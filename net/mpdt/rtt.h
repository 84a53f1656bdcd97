/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Round-trip time estimation from echoed sender timestamps: smoothed RTT
 * and variance as in RFC 6298, the minimum RTT (STrack Algo 1 lines 8-9
 * keep the lowest sample as base RTT) over a sliding window, so that it
 * rises again when a route change lengthens the path, and the
 * retransmission timeout.  Pure core; all values in ns.
 */
#ifndef _MPDT_RTT_H
#define _MPDT_RTT_H

#include "core.h"

/* The minimum RTT is the least sample of the last MPDT_RTT_MIN_WINDOW ns,
 * as BBR keeps it (10 s: long enough to catch an empty queue, short
 * enough to follow a route change).
 */
#define MPDT_RTT_MIN_WINDOW	(10ULL * 1000 * 1000 * 1000)

/* A sample and when it was taken. */
struct mpdt_rtt_at {
	u64 rtt;
	u64 at;
};

struct mpdt_rtt {
	u64 srtt;
	u64 rttvar;
	u64 min_rtt;		/* min_cand[0].rtt */
	u64 latest;
	u64 samples;
	/* Windowed minimum (Nichols' estimator, as in the kernel's
	 * win_minmax): the least sample of the window, the least taken
	 * after it, and the least after that, each a quarter window or
	 * more apart, so the minimum moves on to the next candidate when
	 * the oldest leaves the window instead of being lost.
	 */
	struct mpdt_rtt_at min_cand[3];
};

/* Samples older than this are forged or from a stalled clock: ignore. */
#define MPDT_RTT_SAMPLE_MAX	(60ULL * 1000 * 1000 * 1000)

void mpdt_rtt_init(struct mpdt_rtt *r);
/* Feed the timestamp a SACK echoed; false if it is implausible. */
bool mpdt_rtt_sample(struct mpdt_rtt *r, u64 echo_ts, u64 now);
/* The RTO; @guess: the base RTT to assume before the first sample. */
u64 mpdt_rtt_rto(const struct mpdt_rtt *r, u64 guess, u64 rto_min,
		 u64 rto_max);

#endif /* _MPDT_RTT_H */
