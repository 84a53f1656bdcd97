// SPDX-License-Identifier: GPL-2.0
/* Delivery rate and BDP of a connection's path (path.h).  Pure core. */
#include "path.h"

void mpdt_path_init(struct mpdt_path *p)
{
	memset(p, 0, sizeof(*p));
}

static void start_round(struct mpdt_path *p, u64 sent_ns, bool app_limited,
			u64 now)
{
	p->start_ns = now;
	p->start_sent_ns = sent_ns;
	p->delivered = 0;
	p->app_limited = app_limited;
}

/* BBR's full-pipe test: three rounds, not limited by the application,
 * without 25% more than the last growth.
 */
static void check_full(struct mpdt_path *p, u64 rate)
{
	if (p->full || p->app_limited)
		return;
	if (rate >= p->full_rate + p->full_rate / 4) {
		p->full_rate = rate;
		p->full_count = 0;
	} else if (++p->full_count >= MPDT_PATH_FULL_ROUNDS) {
		p->full = true;
	}
}

static void end_round(struct mpdt_path *p, u64 rate)
{
	check_full(p, rate);
	p->rate = max(p->rate, rate);
	p->last_rate = rate;
}

bool mpdt_path_on_ack(struct mpdt_path *p, u64 acked, u64 sent_ns,
		      u64 base_rtt_ns, bool app_limited, u64 now)
{
	u64 ack_span, send_span = 0;

	if (!p->start_ns || now < p->start_ns) {
		start_round(p, sent_ns, app_limited, now);
		return false;
	}
	p->delivered += acked;
	p->app_limited |= app_limited;
	ack_span = now - p->start_ns;
	/* A round is a round trip of the packets, BBR's: it ends with the
	 * SACK of a packet sent after it began, not when a base RTT has
	 * passed.  A window sent in one burst whose SACKs come bunched
	 * within a base RTT then counts over its RTT: one ended by the clock
	 * took a window over a base RTT as the rate, and the BDP from it
	 * let the next window double.  Sixteen connections over a veth, 1.1
	 * Gbit/s together, each measured 25 Gbit/s within 40 s, and their
	 * windows grew from 0.1 to 0.9 MB.
	 */
	if (ack_span < max(base_rtt_ns, 1ULL) || sent_ns < p->start_ns)
		return false;
	if (sent_ns > p->start_sent_ns && p->start_sent_ns)
		send_span = sent_ns - p->start_sent_ns;
	end_round(p, mpdt_mul_div(p->delivered, MPDT_NSEC_PER_SEC,
				  max(ack_span, send_span)));
	start_round(p, sent_ns, app_limited, now);
	return true;
}

u64 mpdt_path_bdp(const struct mpdt_path *p, u64 base_rtt_ns, u32 mss)
{
	u64 bdp = mpdt_mul_div(p->rate, base_rtt_ns, MPDT_NSEC_PER_SEC);
	u64 least = p->full ? MPDT_PATH_MIN_PKTS : MPDT_PATH_IW_PKTS;

	/* BBR's cwnd_gain of 2, saturating as mpdt_mul_div() does. */
	return max(mpdt_add_sat(bdp, bdp), least * mss);
}
