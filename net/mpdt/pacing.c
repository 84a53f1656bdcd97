// SPDX-License-Identifier: GPL-2.0
/* Departure times of a connection's DATA (pacing.h).  Pure core. */
#include "pacing.h"

u64 mpdt_pacing_rate(u64 cwnd, u64 srtt_ns, bool startup, u64 max_rate)
{
	u32 pct = startup ? MPDT_PACING_STARTUP_PCT : MPDT_PACING_PCT;

	if (!srtt_ns)
		return 0;
	return min(mpdt_mul_div(cwnd, MPDT_NSEC_PER_SEC / 100 * pct, srtt_ns),
		   max_rate);
}

/* tcp_update_skb_after_send(): an skb that leaves later than its time
 * (the host was busy, or the connection idle) takes up to half its own
 * spacing back, so that the jitter of the host's timers does not lower
 * the rate, and an idle connection does not bank a whole burst of credit.
 * No skb is spaced more than a second from the next, as fq clamps its
 * own (fq_dequeue()): at a tiny SO_MAX_PACING_RATE the few skbs the host
 * queue allows (engine.c host_room()) stay within fq's horizon (ten
 * seconds by default), beyond which it would drop them all.
 */
u64 mpdt_pacing_depart(struct mpdt_pacing *p, u64 bytes, u64 rate, u64 now)
{
	u64 at = max(p->next_ns, now);
	u64 len = min(mpdt_mul_div(bytes, MPDT_NSEC_PER_SEC, rate),
		      MPDT_NSEC_PER_SEC);

	len -= min(len / 2, at - p->next_ns);
	p->next_ns = at + len;
	return at;
}
