// SPDX-License-Identifier: GPL-2.0
/* RTT estimator, RFC 6298 gains (1/8, 1/4).  Pure core. */
#include "rtt.h"

void mpdt_rtt_init(struct mpdt_rtt *r)
{
	memset(r, 0, sizeof(*r));
}

bool mpdt_rtt_sample(struct mpdt_rtt *r, u64 echo_ts, u64 now)
{
	u64 rtt, err;

	if (echo_ts > now || now - echo_ts > MPDT_RTT_SAMPLE_MAX)
		return false;
	rtt = now - echo_ts;
	r->latest = rtt;
	if (!r->samples++) {
		r->srtt = rtt;
		r->rttvar = rtt / 2;
		r->min_rtt = rtt;
		return true;
	}
	if (rtt < r->min_rtt)
		r->min_rtt = rtt;
	err = rtt > r->srtt ? rtt - r->srtt : r->srtt - rtt;
	r->rttvar = r->rttvar - r->rttvar / 4 + err / 4;
	r->srtt = r->srtt - r->srtt / 8 + rtt / 8;
	return true;
}

u64 mpdt_rtt_rto(const struct mpdt_rtt *r, u64 rto_min, u64 rto_max)
{
	if (!r->samples)
		return rto_min;
	return clamp(r->srtt + 4 * r->rttvar, rto_min, rto_max);
}
