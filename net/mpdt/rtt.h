/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Round-trip time estimation from echoed sender timestamps: smoothed RTT
 * and variance as in RFC 6298, the minimum RTT (STrack Algo 1 lines 8-9
 * keep the lowest sample as base RTT), and the retransmission timeout.
 * Pure core; all values in ns.
 */
#ifndef _MPDT_RTT_H
#define _MPDT_RTT_H

#include "core.h"

struct mpdt_rtt {
	u64 srtt;
	u64 rttvar;
	u64 min_rtt;
	u64 latest;
	u64 samples;
};

/* Samples older than this are forged or from a stalled clock: ignore. */
#define MPDT_RTT_SAMPLE_MAX	(60ULL * 1000 * 1000 * 1000)

void mpdt_rtt_init(struct mpdt_rtt *r);
/* Feed the timestamp a SACK echoed; false if it is implausible. */
bool mpdt_rtt_sample(struct mpdt_rtt *r, u64 echo_ts, u64 now);
u64 mpdt_rtt_rto(const struct mpdt_rtt *r, u64 rto_min, u64 rto_max);

#endif /* _MPDT_RTT_H */
