// SPDX-License-Identifier: GPL-2.0
/* The descriptors of the tunables (params_table.h) and the validation of a
 * whole set.  Pure core.
 */
#include "params.h"
#include "lb.h"

const struct mpdt_param_desc mpdt_param_descs[] = {
#define MPDT_PARAM(field, attr, name, def, min, max, desc)		\
	{ MPDT_PARAM_##attr, offsetof(struct mpdt_params, field), name,	\
	  min, max },
#include "params_table.h"
#undef MPDT_PARAM
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
 * A BDP measured (link-mbps or base-rtt-us 0) is never below one payload
 * (the engine's path_refresh()); the algorithms bound their windows to
 * one packet at least.
 */
static const char *bdp_params_invalid(const struct mpdt_params *p)
{
	if (!p->link_mbps || !p->base_rtt_us)
		return NULL;
	if (mpdt_bdp(p) < p->payload)
		return "link-mbps * base-rtt-us / 8 (the BDP) must be at least one payload";
	if (!bdp_share_fits(p, p->strack_max_cwnd_pct))
		return "strack-max-cwnd-pct of the BDP must be at least one payload";
	if (!bdp_share_fits(p, p->smartt_max_cwnd_pct))
		return "smartt-max-cwnd-pct of the BDP must be at least one payload";
	if (!bdp_share_fits(p, p->mcc_max_cwnd_pct))
		return "mcc-max-cwnd-pct of the BDP must be at least one payload";
	return NULL;
}

static const char *cc_params_invalid(const struct mpdt_params *p)
{
	if (p->fixed_cwnd && p->fixed_cwnd < p->payload)
		return "fixed-cwnd must be 0 (one BDP) or at least one payload";
	/* §3.4: FastIncrease is for an RTT near the base RTT, below trtt. */
	if (p->smartt_fast_rtt_pct >= p->smartt_trtt_pct)
		return "smartt-fast-rtt-pct must be below smartt-trtt-pct";
	if (p->mcc_chunk_bytes && p->mcc_chunk_bytes < p->payload)
		return "mcc-chunk-bytes must be 0 (automatic) or at least one payload";
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
	return bdp_params_invalid(p) ?: cc_params_invalid(p) ?:
	       lb_params_invalid(p);
}
