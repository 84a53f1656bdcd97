// SPDX-License-Identifier: GPL-2.0
/* The table of tunables and the validation of a whole set.  Pure core. */
#include "params.h"

#define FIELD(f)	offsetof(struct mpdt_params, f)

const struct mpdt_param_desc mpdt_param_descs[] = {
	{ MPDT_PARAM_UDP_PORT, FIELD(udp_port), "udp-port", 1, 65535 },
	{ MPDT_PARAM_PAYLOAD, FIELD(payload), "payload", 64, 8900 },
	{ MPDT_PARAM_LINK_MBPS, FIELD(link_mbps), "link-mbps", 1, 10000000 },
	{ MPDT_PARAM_BASE_RTT_US, FIELD(base_rtt_us), "base-rtt-us", 1,
	  10000000 },
	{ MPDT_PARAM_ACK_BYTES, FIELD(ack_bytes), "ack-bytes", 1, 1 << 24 },
	{ MPDT_PARAM_ACK_ON_EPSN, FIELD(ack_on_epsn), "ack-on-epsn", 0, 1 },
	{ MPDT_PARAM_ACK_ON_CE, FIELD(ack_on_ce), "ack-on-ce", 0, 1 },
	{ MPDT_PARAM_PROBE_MULT, FIELD(probe_mult), "probe-mult", 1, 1000 },
	{ MPDT_PARAM_RTO_MIN_US, FIELD(rto_min_us), "rto-min-us", 1,
	  60000000 },
	{ MPDT_PARAM_RTO_MAX_US, FIELD(rto_max_us), "rto-max-us", 1,
	  60000000 },
	{ MPDT_PARAM_MAX_RETRIES, FIELD(max_retries), "max-retries", 0, 1000 },
	{ MPDT_PARAM_RX_WINDOW, FIELD(rx_window), "rx-window", 64, 65536 },
	{ MPDT_PARAM_ENTROPIES, FIELD(entropies), "entropies", 1, 65535 },
	{ MPDT_PARAM_ENTROPY_BASE, FIELD(entropy_base), "entropy-base", 1,
	  65535 },
	{ MPDT_PARAM_FIXED_CWND, FIELD(fixed_cwnd), "fixed-cwnd", 0, 1 << 30 },
	{ MPDT_PARAM_BITMAP_RESET_RTTS, FIELD(bitmap_reset_rtts),
	  "bitmap-reset-rtts", 1, 1000 },
	{ MPDT_PARAM_REPS_BUFFER, FIELD(reps_buffer), "reps-buffer", 1, 64 },
	{ MPDT_PARAM_REPS_FREEZE_US, FIELD(reps_freeze_us), "reps-freeze-us",
	  0, 60000000 },
	{ MPDT_PARAM_PRIME_TIERS, FIELD(prime_tiers), "prime-tiers", 1, 4 },
	{ MPDT_PARAM_PRIME_UPLINKS, FIELD(prime_uplinks), "prime-uplinks", 0,
	  1024 },
	{ MPDT_PARAM_PRIME_ECN_PENALTY, FIELD(prime_ecn_penalty),
	  "prime-ecn-penalty", 1, 10000 },
	{ MPDT_PARAM_PRIME_NACK_PENALTY, FIELD(prime_nack_penalty),
	  "prime-nack-penalty", 1, 10000 },
	{ MPDT_PARAM_PARALET_M, FIELD(paralet_m), "paralet-m", 1, 256 },
	{ MPDT_PARAM_PARALET_BDPS, FIELD(paralet_bdps), "paralet-bdps", 1, 64 },
};

const unsigned int mpdt_param_count = ARRAY_SIZE(mpdt_param_descs);

/* Single values against their ranges, then the ones that go together. */
const char *mpdt_params_invalid(const struct mpdt_params *p)
{
	unsigned int i;

	for (i = 0; i < mpdt_param_count; i++) {
		const struct mpdt_param_desc *d = &mpdt_param_descs[i];
		u32 v = *mpdt_param_field((struct mpdt_params *)p, d);

		if (v < d->min || v > d->max)
			return "parameter out of range";
	}
	if (p->rx_window & (p->rx_window - 1))
		return "rx-window must be a power of two";
	if (p->rto_min_us > p->rto_max_us)
		return "rto-min-us must not exceed rto-max-us";
	if (p->entropy_base + p->entropies > 65536)
		return "entropy-base + entropies must not exceed 65536";
	return NULL;
}
