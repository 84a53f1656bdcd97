// SPDX-License-Identifier: GPL-2.0
/* The table of tunables and the validation of a whole set.  Pure core. */
#include "params.h"
#include "lb.h"

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
	{ MPDT_PARAM_PRIME_TIMEOUT_PENALTY, FIELD(prime_timeout_penalty),
	  "prime-timeout-penalty", 1, 100000 },
	{ MPDT_PARAM_PARALET_M, FIELD(paralet_m), "paralet-m", 1, 256 },
	{ MPDT_PARAM_PARALET_BDPS, FIELD(paralet_bdps), "paralet-bdps", 1, 64 },
	{ MPDT_PARAM_STRACK_TARGET_QDELAY_US, FIELD(strack_target_qdelay_us),
	  "strack-target-qdelay-us", 0, 10000000 },
	{ MPDT_PARAM_STRACK_QHIGH_PCT, FIELD(strack_qhigh_pct),
	  "strack-qhigh-pct", 100, 10000 },
	{ MPDT_PARAM_STRACK_EWMA_PM, FIELD(strack_ewma_pm),
	  "strack-ewma-pm", 1, 1000 },
	{ MPDT_PARAM_STRACK_ALPHA_PCT, FIELD(strack_alpha_pct),
	  "strack-alpha-pct", 0, 100000 },
	{ MPDT_PARAM_STRACK_BETA_PCT, FIELD(strack_beta_pct),
	  "strack-beta-pct", 0, 100000 },
	{ MPDT_PARAM_STRACK_ETA_PCT, FIELD(strack_eta_pct),
	  "strack-eta-pct", 0, 10000 },
	{ MPDT_PARAM_STRACK_GAMMA_PM, FIELD(strack_gamma_pm),
	  "strack-gamma-pm", 0, 1000 },
	{ MPDT_PARAM_STRACK_MD_FLOOR_PCT, FIELD(strack_md_floor_pct),
	  "strack-md-floor-pct", 1, 100 },
	{ MPDT_PARAM_STRACK_ACHIEVED_DIV, FIELD(strack_achieved_div),
	  "strack-achieved-div", 1, 1024 },
	{ MPDT_PARAM_STRACK_MAX_CWND_PCT, FIELD(strack_max_cwnd_pct),
	  "strack-max-cwnd-pct", 1, 10000 },
	{ MPDT_PARAM_SMARTT_TRTT_PCT, FIELD(smartt_trtt_pct),
	  "smartt-trtt-pct", 101, 1000 },
	{ MPDT_PARAM_SMARTT_FD_PM, FIELD(smartt_fd_pm),
	  "smartt-fd-pm", 0, 10000 },
	{ MPDT_PARAM_SMARTT_MD_PCT, FIELD(smartt_md_pct),
	  "smartt-md-pct", 0, 10000 },
	{ MPDT_PARAM_SMARTT_FI_PM, FIELD(smartt_fi_pm),
	  "smartt-fi-pm", 0, 100000 },
	{ MPDT_PARAM_SMARTT_QA_SCALING_PCT, FIELD(smartt_qa_scaling_pct),
	  "smartt-qa-scaling-pct", 1, 1000 },
	{ MPDT_PARAM_SMARTT_FAST_K, FIELD(smartt_fast_k),
	  "smartt-fast-k", 0, 64 },
	{ MPDT_PARAM_SMARTT_FAST_RTT_PCT, FIELD(smartt_fast_rtt_pct),
	  "smartt-fast-rtt-pct", 100, 1000 },
	{ MPDT_PARAM_SMARTT_WTD_ALPHA_PM, FIELD(smartt_wtd_alpha_pm),
	  "smartt-wtd-alpha-pm", 1, 1000 },
	{ MPDT_PARAM_SMARTT_WTD_THRESH_PM, FIELD(smartt_wtd_thresh_pm),
	  "smartt-wtd-thresh-pm", 0, 1000 },
	{ MPDT_PARAM_SMARTT_MAX_CWND_PCT, FIELD(smartt_max_cwnd_pct),
	  "smartt-max-cwnd-pct", 1, 10000 },
	{ MPDT_PARAM_MCC_TARGET_MSG_DELAY_US, FIELD(mcc_target_msg_delay_us),
	  "mcc-target-msg-delay-us", 0, 60000000 },
	{ MPDT_PARAM_MCC_TARGET_MAX_DELAY_US, FIELD(mcc_target_max_delay_us),
	  "mcc-target-max-delay-us", 0, 60000000 },
	{ MPDT_PARAM_MCC_OVERSUB, FIELD(mcc_oversub), "mcc-oversub", 1, 1024 },
	{ MPDT_PARAM_MCC_MD_FLOOR_PCT, FIELD(mcc_md_floor_pct),
	  "mcc-md-floor-pct", 1, 100 },
	{ MPDT_PARAM_MCC_CHUNK_BYTES, FIELD(mcc_chunk_bytes),
	  "mcc-chunk-bytes", 64, 1 << 30 },
	{ MPDT_PARAM_MCC_MAX_CWND_PCT, FIELD(mcc_max_cwnd_pct),
	  "mcc-max-cwnd-pct", 1, 10000 },
	{ MPDT_PARAM_SNDBUF, FIELD(sndbuf), "sndbuf", 4096, 1 << 30 },
	{ MPDT_PARAM_RCVBUF, FIELD(rcvbuf), "rcvbuf", 4096, 1 << 30 },
};

const unsigned int mpdt_param_count = ARRAY_SIZE(mpdt_param_descs);

/* @pct percent of the BDP holds at least one packet. */
static bool bdp_share_fits(const struct mpdt_params *p, u32 pct)
{
	return mpdt_mul_div(mpdt_bdp(p), pct, 100) >= p->payload;
}

/* The windows the congestion controls size from the BDP.  A BDP below one
 * packet makes SMaRTT's fair decrease (§3.2.1, cwnd / bdp) divide by zero
 * and every BDP-scaled constant (STrack Table 1, SMaRTT §3.5, MCC §4's
 * increase) vanish; a largest window below one packet leaves an algorithm
 * nothing to adjust.
 */
static const char *cc_params_invalid(const struct mpdt_params *p)
{
	if (mpdt_bdp(p) < p->payload)
		return "link-mbps * base-rtt-us / 8 (the BDP) must be at least one payload";
	if (p->fixed_cwnd && p->fixed_cwnd < p->payload)
		return "fixed-cwnd must be 0 (one BDP) or at least one payload";
	if (!bdp_share_fits(p, p->strack_max_cwnd_pct))
		return "strack-max-cwnd-pct of the BDP must be at least one payload";
	if (!bdp_share_fits(p, p->smartt_max_cwnd_pct))
		return "smartt-max-cwnd-pct of the BDP must be at least one payload";
	if (!bdp_share_fits(p, p->mcc_max_cwnd_pct))
		return "mcc-max-cwnd-pct of the BDP must be at least one payload";
	/* §3.4: FastIncrease is for an RTT near the base RTT, below trtt. */
	if (p->smartt_fast_rtt_pct >= p->smartt_trtt_pct)
		return "smartt-fast-rtt-pct must be below smartt-trtt-pct";
	if (p->mcc_chunk_bytes < p->payload)
		return "mcc-chunk-bytes must be at least one payload";
	return NULL;
}

static const char *lb_params_invalid(const struct mpdt_params *p)
{
	if (!p->prime_uplinks) {
		if (p->prime_tiers > 1)
			return "prime-tiers above 1 needs prime-uplinks";
		return NULL;
	}
	if (!mpdt_prime_layout_fits(p))
		return "prime-uplinks ^ prime-tiers paths must fit in entropies and in 1024";
	return NULL;
}

/* Single values against their ranges, then the ones that go together.
 * Each message becomes the netlink extack message.
 */
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
	return cc_params_invalid(p) ?: lb_params_invalid(p);
}
