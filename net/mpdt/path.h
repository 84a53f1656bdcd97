/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a connection measures of its path for the parameters nobody
 * configured (link-mbps and base-rtt-us 0): the bottleneck rate, from the
 * bytes the peer reports delivered, and with the base RTT (rtt.h) the
 * bandwidth-delay product every CC and LB scales from.  Pure core.
 *
 * The rate is BBR's delivery rate (Cardwell et al., "BBR: Congestion-Based
 * Congestion Control", ACM Queue 2016; draft-cheng-iccrg-delivery-rate-
 * estimation): bytes delivered over a round (from a SACK to the SACK of a
 * packet sent after it, and at least one base RTT), divided by the longer
 * of the round's ACK span and the span of the send times its SACKs echo,
 * so that SACKs bunched after a host stall do not inflate it.  The
 * estimate is the largest rate of the incarnation: it stands for the link
 * speed an operator would configure, which a lower round does not
 * disprove (the flow got a share, was limited by its window or its
 * application, or its host was slow; the CC's signals deal with those).
 * A windowed maximum would let a window-limited flow whose RTT a busy
 * host inflates shrink its own estimate round after round.  A new
 * incarnation (after the quiet time) measures afresh.
 *
 * The BDP reported is twice the measured one: BBR's cwnd_gain.  In
 * startup, until the pipe is full (three rounds in a row, not limited by
 * the application, without 25% growth: BBR's full-pipe test), it lets
 * the windows the CCs derive from it double every round, as slow start
 * does, and it is never below the initial window of RFC 6928.  Once full
 * it is the headroom that lets a window show a faster path than the one
 * measured: the estimate is what the windows delivered, so a window of
 * about the estimate can never measure more than itself.  In the ns-3
 * model's 128-host permutation (Documentation/sim.rst) a flow whose
 * startup met the other flows' queues was declared full at 13 of 100
 * Gbit/s and kept that rate for all of its 4 MiB with a quarter of
 * headroom (max FCT 12.5x ideal); with twice, 2.8x.  A full pipe's BDP
 * is never below four packets: BBR's minimum target, the least a window
 * needs for its acknowledgements to overlap its sending.  Below it a host
 * path whose base RTT is a few tens of microseconds (veth: BDP under two
 * packets) ran stop-and-wait, one SACK per DATA packet.
 */
#ifndef _MPDT_PATH_H
#define _MPDT_PATH_H

#include "core.h"

#define MPDT_PATH_IW_PKTS	10	/* RFC 6928 */
#define MPDT_PATH_FULL_ROUNDS	3	/* BBR: no 25% growth in 3 rounds */
#define MPDT_PATH_MIN_PKTS	4	/* BBR: bbr_cwnd_min_target */
/* Base RTT assumed before the first sample: a LAN's order (RFC 6298
 * starts its RTO at 1 s; timers here have their own floor, rto-min).
 */
#define MPDT_PATH_RTT_GUESS_NS	(1000ULL * 1000)

struct mpdt_path {
	/* The round in progress: since the SACK at @start_ns, which echoed a
	 * packet sent at @start_sent_ns.
	 */
	u64 start_ns;
	u64 start_sent_ns;
	u64 delivered;		/* bytes this round */
	bool app_limited;	/* ran out of data this round */
	u64 rate;		/* the estimate, bytes/s: the largest round */
	u64 last_rate;		/* bytes/s of the latest round: what the
				 * flow gets now, for engine.c host_room()
				 */
	u64 full_rate;		/* of the last 25% growth */
	u32 full_count;		/* rounds since it */
	bool full;
	bool marks;		/* a SACK echoed CE: the path marks ECN */
};

void mpdt_path_init(struct mpdt_path *p);
/* A SACK reported @acked more bytes delivered at @now and echoed the send
 * time @sent_ns (0: none); @app_limited: the sender had nothing more to
 * send.  True when a round closed (the estimate may have moved).
 */
bool mpdt_path_on_ack(struct mpdt_path *p, u64 acked, u64 sent_ns,
		      u64 base_rtt_ns, bool app_limited, u64 now);
/* The BDP in bytes the CCs may assume over @base_rtt_ns (at least @mss). */
u64 mpdt_path_bdp(const struct mpdt_path *p, u64 base_rtt_ns, u32 mss);

#endif /* _MPDT_PATH_H */
