/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control: how many bytes may be in flight.  Like
 * tcp_congestion_ops, each algorithm is a pure core file implementing
 * struct mpdt_cc_ops over its private state; the transport only reads
 * cc->cwnd and compares it with STrack's inflight (§3.3.2 eq. 1-2).
 */
#ifndef _MPDT_CC_H
#define _MPDT_CC_H

#include "core.h"
#include "params.h"

struct mpdt_cc {
	const struct mpdt_cc_ops *ops;
	void *priv;		/* ops->priv_size bytes, zeroed */
	u32 cwnd;		/* bytes */
	u32 mss;		/* payload bytes per packet */
	/* on_message_done for each chunk of this many bytes of a longer
	 * message, as it completes (MCC §4's CCL chunks); 0: per message.
	 */
	u32 chunk;
};

/* What one SACK told the sender. */
struct mpdt_cc_ack {
	u64 now;
	u64 rtt_ns;		/* from the echoed timestamp; 0 if none */
	u64 acked_bytes;	/* growth of the receiver's recv_bytes */
	u64 inflight;
	u16 ce_count;		/* CE marks since the previous SACK */
	bool ce;		/* the triggering packet was CE marked */
	/* The SACK answers a probe (MPDT_F_PROBE_ACK set): STrack's
	 * achievedBDP (Algo 4 line 3) leaves its bytes out.  false when the
	 * transport does not set it: the bytes then count, as for any SACK.
	 */
	bool probe;
};

struct mpdt_cc_ops {
	const char *name;
	u32 priv_size;
	void (*init)(struct mpdt_cc *cc, const struct mpdt_params *p);
	/* The signal hooks below are optional. */
	void (*on_ack)(struct mpdt_cc *cc, const struct mpdt_cc_ack *a);
	void (*on_nack)(struct mpdt_cc *cc, u8 code, u64 now);
	void (*on_timeout)(struct mpdt_cc *cc, u64 now);
	/* The latest timeout was spurious (Eifel, RFC 3522, on the echoed
	 * timestamp): take back what on_timeout did, as TCP's undo_cwnd
	 * does (RFC 4015's response).  Called before the on_ack of the SACK
	 * that showed it; one that ignores timeouts needs no undo.
	 */
	void (*undo)(struct mpdt_cc *cc);
	/* The path's base RTT or BDP (path.h) moved: take @p's, which init
	 * had the earlier of, keeping the state the algorithm learnt.
	 */
	void (*rescale)(struct mpdt_cc *cc, const struct mpdt_params *p);
	void (*on_message_done)(struct mpdt_cc *cc, u64 msg_bytes,
				u64 delay_ns, u64 now);
};

extern const struct mpdt_cc_ops mpdt_cc_fixed;
extern const struct mpdt_cc_ops mpdt_cc_strack;
extern const struct mpdt_cc_ops mpdt_cc_smartt;
extern const struct mpdt_cc_ops mpdt_cc_mcc;

/* The reference network both STrack (Table 1, bdp_sf and delay_sf) and
 * SMaRTT (§3.5, reference_bdp) scale their constants from: 100 Gbit/s
 * with a 12 us base RTT, a BDP of 150000 bytes, and the MTU both papers
 * evaluate with (STrack §4, SMaRTT §4: 4 KiB).  An increase the papers
 * count in MTUs (Table 1's beta, eta and alpha; SMaRTT's eq. 3 and 4) is
 * a share of that BDP: 4 MTU is 10.9% of it whatever packet size a
 * connection uses.
 */
#define MPDT_CC_REF_MBPS	100000ULL
#define MPDT_CC_REF_RTT_NS	12000ULL
#define MPDT_CC_REF_BDP		(MPDT_CC_REF_MBPS * MPDT_CC_REF_RTT_NS / 8000)
#define MPDT_CC_REF_MTU		4096ULL

/* @x * BDP / reference BDP: a constant tuned on the reference network,
 * scaled to this one.
 */
static inline u64 mpdt_cc_ref_scale(u64 x, const struct mpdt_params *p)
{
	return mpdt_mul_div(x, mpdt_bdp(p), MPDT_CC_REF_BDP);
}

/* The bursts' budget: three of the path's bursts where it sends bursts
 * (once its pipe is full, on a path that never marked ECN: engine.c
 * path_refresh()), one packet where it does not.
 */
static inline u64 mpdt_cc_burst_budget(const struct mpdt_params *p, u32 mss)
{
	u32 burst = mpdt_burst_pkts(p, mpdt_link_bytes_per_ms(p), mss);

	return burst > 1 ? 3ULL * burst * mss : mss;
}

/* The algorithms' largest window: @pct percent of the BDP (STrack
 * §2.2.2: "roughly the BDP"), and at least the bursts' budget.
 *
 * A window below two bursts sends one, waits a round trip for its SACK,
 * and sends the next: the pipe idles meanwhile.  That is so wherever a
 * millisecond of the rate (mpdt_burst_pkts()) exceeds the BDP, as over a
 * veth: 17 KB of BDP against bursts of 22 KB.  Linux's BBR keeps three
 * TSO bursts in flight beyond its BDP for the same end systems
 * (bbr_quantization_budget()); here they are a floor, not an addition,
 * so a fabric whose BDP holds them (the ns-3 model's 128 hosts at 100
 * Gbit/s: 112 KB against 67 KB) keeps the papers' window.  The engine
 * asks for it once the pipe is full, on a path that never marked ECN
 * (engine.c path_refresh()).  Sixteen connections over a veth sent 54
 * skbs of DATA per MiB instead of 74, and 8-10% more of it
 * (Documentation/perf.rst).
 */
static inline u64 mpdt_cc_max_cwnd(const struct mpdt_params *p, u32 pct,
				   u32 mss)
{
	return max(mpdt_mul_div(mpdt_bdp(p), pct, 100),
		   mpdt_cc_burst_budget(p, mss));
}

/* The window when the path's BDP moves and with it where the algorithm
 * starts, from @old_start to @new_start, and its largest window to
 * @new_max: one at or above the old start follows in proportion (the
 * path proved it could carry it: the startup of path.h), any other
 * stays, within the new bound.  SMaRTT and MCC start at one BDP below
 * their largest window; a rule that moved only a window at its bound
 * left theirs where the initial window put it, to grow by fair increase
 * alone (Documentation/sim.rst).
 */
static inline u64 mpdt_cc_rescaled(u64 cwnd, u64 old_start, u64 new_start,
				   u64 new_max)
{
	if (old_start && cwnd >= old_start)
		cwnd = mpdt_mul_div(cwnd, new_start, old_start);
	return min(cwnd, new_max);
}

/* What cc->cwnd may hold: [mss, max], and within a u32. */
static inline u32 mpdt_cc_bound(u64 cwnd, u64 max_cwnd, u32 mss)
{
	return (u32)clamp(min(cwnd, max_cwnd), (u64)mss, (u64)0x7fffffff);
}

/* STrack's constants (Table 1) scaled to one connection, in bytes and ns;
 * computed at init, exported for the unit tests.
 */
struct mpdt_strack_consts {
	u64 target_ns;		/* target_Qdelay */
	u64 qhigh_ns;		/* target_Qhigh */
	u64 max_cwnd;		/* bytes */
	u64 budget;		/* bytes: the bursts' own, no delay cuts it */
	u64 beta;		/* bytes per window of ACKs */
	u64 eta;		/* bytes per base RTT */
	u64 alpha;		/* 1/1000000 byte per window per ns below target */
};

void mpdt_strack_consts(const struct mpdt_params *p, u32 mss,
			struct mpdt_strack_consts *k);

/* SMaRTT's constants (§3.2, §3.5) for one connection. */
struct mpdt_smartt_consts {
	u64 brtt_ns, trtt_ns;
	u64 bdp;		/* bytes */
	u64 max_cwnd;		/* bytes */
	u64 fi;			/* fi * BDP / ref_BDP, in millionths */
	u64 mi;			/* brtt / (trtt - brtt) * BDP / ref_BDP, ppm */
};

void mpdt_smartt_consts(const struct mpdt_params *p, u32 mss,
			struct mpdt_smartt_consts *k);

/* MCC's window in messages (§4), the unit cc->cwnd is a multiple of. */
u32 mpdt_mcc_window_msgs(const struct mpdt_cc *cc);

#endif /* _MPDT_CC_H */
