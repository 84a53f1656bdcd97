/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The u32 tunables of MPDT, the one place that defines them: one entry
 *
 *	MPDT_PARAM(field, ATTR, name,
 *		   def, min, max,
 *		   desc)
 *
 * each, whose columns are
 *
 *	field		the member of struct mpdt_params, and the name of the
 *			module parameter (udp_port)
 *	ATTR		its netlink attribute, MPDT_PARAM_<ATTR> of the uapi
 *			enum mpdt_param (UDP_PORT)
 *	name		its name for netlink's users: mpdt(8), the YAML spec,
 *			extack messages; the field with '-' for '_'
 *	def		the module's default, which every new netns starts from
 *	min, max	the range netlink and mpdt_params_invalid() accept
 *	desc		the module parameter's description (modinfo)
 *
 * An X-macro list, not a header of its own: the includer defines
 * MPDT_PARAM() to what it needs of an entry, includes this file and
 * undefines MPDT_PARAM() again.  params.h makes the members of struct
 * mpdt_params of it, params.c the descriptors mpdt_param_descs[], main.c
 * the defaults mpdt_default_params (which the Makefile copies for the
 * unit tests and fuzzers) and the module parameters, tools/mpdt/names.c
 * the CLI's names.  All of them in the order of this list.
 *
 * Pure core.  Expanding it needs <linux/mpdt.h> (the ATTR column and
 * MPDT_MSG_MAX) and nothing else, so userspace tools include it too.  The
 * two string tunables, lb and cc, are not here (netlink.c, main.c).  A new
 * tunable is an entry here and one in enum mpdt_param, the spec
 * (Documentation/netlink/specs/mpdt.yaml), mpdt(8) and mpdt(7);
 * tools/mpdt/spec_check.py checks that they agree.
 */
#ifndef MPDT_PARAM
#error "define MPDT_PARAM(field, ATTR, name, def, min, max, desc) first"
#endif

/* Transport: port, buffers, packets, acknowledgements, timers. */
MPDT_PARAM(udp_port, UDP_PORT, "udp-port",
	   4796, 1, 65535,
	   "UDP port MPDT listens on and sends to")
/* Room for a largest message and one more on the way, each with what it
 * costs beyond its bytes: descriptors on the sender (0.4%), on the
 * receiver the senders' pages and pieces of a held message (rx.c
 * rxmsg_share()).  At exactly two largest messages neither side ever had
 * the second: a stream of 16 MiB messages stalled after each one, at
 * 40-70% of the speed of 1 MiB ones (Documentation/perf.rst).  UDP's
 * net.core defaults (208 KiB) would hold one 4 MiB message only half: an
 * incast of them would be served one sender at a time.
 */
MPDT_PARAM(sndbuf, SNDBUF, "sndbuf",
	   2 * (MPDT_MSG_MAX + MPDT_MSG_MAX / 8), 4096, 1 << 30,
	   "SO_SNDBUF of a new socket, bytes")
MPDT_PARAM(rcvbuf, RCVBUF, "rcvbuf",
	   2 * (MPDT_MSG_MAX + MPDT_MSG_MAX / 8), 4096, 1 << 30,
	   "SO_RCVBUF of a new socket, bytes")
/* What closed sockets still sending in the background may hold, in all,
 * charged to the namespace when they close (close.c).  Sixteen largest
 * messages: a job's last messages to a few peers, as TCP's orphans.
 */
MPDT_PARAM(drain_mem, DRAIN_MEM, "drain-mem",
	   16 * MPDT_MSG_MAX, 0, 1 << 30,
	   "bytes closed sockets may hold while delivering in the background")
MPDT_PARAM(payload, PAYLOAD, "payload",
	   1400, 64, 8900,
	   "DATA payload bytes per packet (64-8900)")
/* The path: measured per connection unless configured (path.h). */
MPDT_PARAM(link_mbps, LINK_MBPS, "link-mbps",
	   0, 0, 10000000,
	   "Bottleneck rate in Mbit/s, for the BDP (0 = measured)")
MPDT_PARAM(base_rtt_us, BASE_RTT_US, "base-rtt-us",
	   0, 0, 10000000,
	   "Network base RTT in microseconds (0 = measured)")
MPDT_PARAM(ack_bytes, ACK_BYTES, "ack-bytes",
	   8192, 1, 1 << 24,
	   "SACK coalescing threshold in bytes")
MPDT_PARAM(ack_on_epsn, ACK_ON_EPSN, "ack-on-epsn",
	   1, 0, 1,
	   "SACK when the EPSN packet closes a gap (0/1)")
MPDT_PARAM(ack_on_ce, ACK_ON_CE, "ack-on-ce",
	   1, 0, 1,
	   "Send a SACK at once on a CE mark (0/1)")
MPDT_PARAM(probe_mult, PROBE_MULT, "probe-mult",
	   3, 1, 1000,				/* STrack §3.3.2: n = 3 */
	   "Probe after this many base RTTs without a SACK")
MPDT_PARAM(rto_min_us, RTO_MIN_US, "rto-min-us",
	   10000, 1, 60000000,
	   "Minimum retransmission timeout (us)")
MPDT_PARAM(rto_max_us, RTO_MAX_US, "rto-max-us",
	   1000000, 1, 60000000,
	   "Maximum retransmission timeout (us)")
MPDT_PARAM(max_retries, MAX_RETRIES, "max-retries",
	   8, 0, 1000,
	   "Consecutive timeouts retried; one more fails the peer")
MPDT_PARAM(rx_window, RX_WINDOW, "rx-window",
	   4096, 64, 65536,
	   "PSNs tracked beyond EPSN (power of two, 64-65536)")
MPDT_PARAM(entropies, ENTROPIES, "entropies",
	   256, 1, 65535,
	   "Number of entropy values (1-65535)")
MPDT_PARAM(entropy_base, ENTROPY_BASE, "entropy-base",
	   49152, 1, 65535,
	   "UDP source port of entropy value 0")
/* Like TCP's TSO autosizing: about a millisecond of the measured rate
 * (params.h mpdt_burst_pkts()); one packet on slow paths, this many at
 * most.  The CCs' largest window holds three such bursts (cc.h).
 */
MPDT_PARAM(burst_pkts, BURST_PKTS, "burst-pkts",
	   16, 1, 64,
	   "Most new packets sent on one entropy as one GSO skb (1-64)")
MPDT_PARAM(fixed_cwnd, FIXED_CWND, "fixed-cwnd",
	   0, 0, 1 << 30,
	   "Window of the fixed CC in bytes (0 = one BDP)")
/* On by default: a sender on this host would otherwise leave every
 * connection's receive work on its own CPU (steer.c).
 */
MPDT_PARAM(rx_steer, RX_STEER, "rx-steer",
	   1, 0, 1,
	   "Handle each connection's packets on one CPU, by its hash (0/1)")

/* Load balancing: bitmap, reps, prime, paralet (lb_*.c). */
MPDT_PARAM(bitmap_reset_rtts, BITMAP_RESET_RTTS, "bitmap-reset-rtts",
	   2, 1, 1000,				/* STrack §1: "one or two" RTTs */
	   "bitmap LB: clear ECN marks every N RTTs")
MPDT_PARAM(reps_buffer, REPS_BUFFER, "reps-buffer",
	   8, 1, 64,				/* REPS: 8 recycled EVs */
	   "reps LB: recycled entropies kept (1-64)")
MPDT_PARAM(reps_freeze_us, REPS_FREEZE_US, "reps-freeze-us",
	   10000, 0, 60000000,
	   "reps LB: freeze after a timeout (us, 0 = off)")
MPDT_PARAM(prime_tiers, PRIME_TIERS, "prime-tiers",
	   1, 1, 4,				/* leaf-spine: one uplink tier */
	   "prime LB: uplink tiers, one EV part each")
MPDT_PARAM(prime_uplinks, PRIME_UPLINKS, "prime-uplinks",
	   0, 0, 1024,				/* 0: one part over all EVs */
	   "prime LB: uplinks per tier (0 = all EVs)")
MPDT_PARAM(prime_ecn_penalty, PRIME_ECN_PENALTY, "prime-ecn-penalty",
	   100, 1, 10000,			/* lb_prime.c: one RTT of packets */
	   "prime LB: ECN penalty, % of a BDP of packets sent")
MPDT_PARAM(prime_nack_penalty, PRIME_NACK_PENALTY, "prime-nack-penalty",
	   400, 1, 10000,			/* four ECN penalties */
	   "prime LB: trim penalty, % of a BDP of packets sent")
MPDT_PARAM(prime_timeout_penalty, PRIME_TIMEOUT_PENALTY, "prime-timeout-penalty",
	   3000, 1, 100000,
	   "prime LB: failed-path penalty, % of a BDP of packets sent")
MPDT_PARAM(paralet_m, PARALET_M, "paralet-m",
	   32, 1, 256,				/* ParaLet §5.2 */
	   "paralet LB: parallel flowlets (1-256)")
MPDT_PARAM(paralet_bdps, PARALET_BDPS, "paralet-bdps",
	   4, 1, 64,				/* ParaLet §5.2: S = 4 BDP / m */
	   "paralet LB: flowlet size in BDPs / m")

/* Congestion control: strack (STrack Table 1), smartt (SMaRTT §3.5),
 * mcc (MCC §3-4); see cc_*.c.
 */
MPDT_PARAM(strack_target_qdelay_us, STRACK_TARGET_QDELAY_US, "strack-target-qdelay-us",
	   0, 0, 10000000,			/* Table 1: 0 = base RTT */
	   "strack CC: target queuing delay (us, 0 = base RTT)")
MPDT_PARAM(strack_qhigh_pct, STRACK_QHIGH_PCT, "strack-qhigh-pct",
	   300, 100, 10000,			/* Table 1: 3 x target */
	   "strack CC: target_Qhigh, % of the target")
MPDT_PARAM(strack_ewma_pm, STRACK_EWMA_PM, "strack-ewma-pm",
	   125, 1, 1000,			/* Table 1: 0.125 */
	   "strack CC: delay average weight (per mille)")
MPDT_PARAM(strack_alpha_pct, STRACK_ALPHA_PCT, "strack-alpha-pct",
	   400, 0, 100000,			/* Table 1: 4.0 (% of its unit) */
	   "strack CC: RTT-gain increase alpha (%)")
MPDT_PARAM(strack_beta_pct, STRACK_BETA_PCT, "strack-beta-pct",
	   500, 0, 100000,			/* Table 1: 5 MTU (% of MTU * bdp_sf) */
	   "strack CC: additive increase beta (% of MTU)")
MPDT_PARAM(strack_eta_pct, STRACK_ETA_PCT, "strack-eta-pct",
	   15, 0, 10000,			/* Table 1: 0.15 MTU (% of MTU * bdp_sf) */
	   "strack CC: fairness increase eta (% of MTU)")
MPDT_PARAM(strack_gamma_pm, STRACK_GAMMA_PM, "strack-gamma-pm",
	   800, 0, 1000,			/* Table 1: 0.8 */
	   "strack CC: decrease gamma (per mille)")
MPDT_PARAM(strack_md_floor_pct, STRACK_MD_FLOOR_PCT, "strack-md-floor-pct",
	   50, 1, 100,				/* Algo 3 line 14: 0.5 */
	   "strack CC: smallest decrease factor (%)")
MPDT_PARAM(strack_achieved_div, STRACK_ACHIEVED_DIV, "strack-achieved-div",
	   8, 1, 1024,				/* Algo 3 line 10: max_cwnd / 8 */
	   "strack CC: achieved BDP below max window / this")
MPDT_PARAM(strack_max_cwnd_pct, STRACK_MAX_CWND_PCT, "strack-max-cwnd-pct",
	   100, 1, 10000,			/* §2.2.2: roughly the BDP */
	   "strack CC: largest window (% of BDP)")
MPDT_PARAM(smartt_trtt_pct, SMARTT_TRTT_PCT, "smartt-trtt-pct",
	   150, 101, 1000,			/* §3.5: 1.5 x base RTT */
	   "smartt CC: target RTT (% of base RTT)")
MPDT_PARAM(smartt_fd_pm, SMARTT_FD_PM, "smartt-fd-pm",
	   800, 0, 10000,			/* §3.5: 0.8 */
	   "smartt CC: fair decrease fd (per mille)")
MPDT_PARAM(smartt_md_pct, SMARTT_MD_PCT, "smartt-md-pct",
	   200, 0, 10000,			/* §3.2.2: 2, doubled without trims */
	   "smartt CC: multiplicative decrease md (%)")
MPDT_PARAM(smartt_fi_pm, SMARTT_FI_PM, "smartt-fi-pm",
	   250, 0, 100000,			/* §3.5: 0.25 at 100 Gbit/s x 12 us */
	   "smartt CC: fair increase fi (per mille)")
MPDT_PARAM(smartt_qa_scaling_pct, SMARTT_QA_SCALING_PCT, "smartt-qa-scaling-pct",
	   80, 1, 1000,				/* §3.5: 0.8 */
	   "smartt CC: QuickAdapt scaling (%)")
MPDT_PARAM(smartt_fast_k, SMARTT_FAST_K, "smartt-fast-k",
	   2, 0, 64,				/* §3.4: k = 2 */
	   "smartt CC: FastIncrease MTUs per packet acked")
MPDT_PARAM(smartt_fast_rtt_pct, SMARTT_FAST_RTT_PCT, "smartt-fast-rtt-pct",
	   110, 100, 1000,			/* §3.4: rtt ~ brtt */
	   "smartt CC: FastIncrease RTT bound (% of base)")
/* §3.6.1 gives no alpha, only its meaning: no cut unless 25% or more of
 * the packets are marked.  0.016 (~1/64) keeps the average under 0.25 at
 * 10% random marking; 0.125 (htsim) crossed it on about a quarter of the
 * marked packets.
 */
MPDT_PARAM(smartt_wtd_alpha_pm, SMARTT_WTD_ALPHA_PM, "smartt-wtd-alpha-pm",
	   16, 1, 1000,
	   "smartt CC: WTD ECN average weight (per mille)")
MPDT_PARAM(smartt_wtd_thresh_pm, SMARTT_WTD_THRESH_PM, "smartt-wtd-thresh-pm",
	   250, 0, 1000,			/* §3.6.1: 0.25 */
	   "smartt CC: WTD threshold (per mille)")
MPDT_PARAM(smartt_max_cwnd_pct, SMARTT_MAX_CWND_PCT, "smartt-max-cwnd-pct",
	   125, 1, 10000,			/* §3.5: 1.25 BDP */
	   "smartt CC: largest window (% of BDP)")
MPDT_PARAM(mcc_target_msg_delay_us, MCC_TARGET_MSG_DELAY_US, "mcc-target-msg-delay-us",
	   0, 0, 60000000,			/* Table 1: 0 = size / bw + max / 2 */
	   "mcc CC: target message delay (us, 0 = auto)")
MPDT_PARAM(mcc_target_max_delay_us, MCC_TARGET_MAX_DELAY_US, "mcc-target-max-delay-us",
	   0, 0, 60000000,			/* Table 1: 0 = base RTT + queue */
	   "mcc CC: target packet delay (us, 0 = 3 RTT)")
MPDT_PARAM(mcc_oversub, MCC_OVERSUB, "mcc-oversub",
	   8, 1, 1024,				/* §4: 8:1 adds 1/8 BDP */
	   "mcc CC: oversubscription; increase BDP / this")
MPDT_PARAM(mcc_md_floor_pct, MCC_MD_FLOOR_PCT, "mcc-md-floor-pct",
	   50, 1, 100,				/* as STrack Algo 3 line 14 */
	   "mcc CC: smallest decrease factor (%)")
MPDT_PARAM(mcc_chunk_bytes, MCC_CHUNK_BYTES, "mcc-chunk-bytes",
	   0, 0, 1 << 30,			/* §4: 64 KB chunks */
	   "mcc CC: largest message unit of the window (0 = BDP / 8, at most 64 KB)")
MPDT_PARAM(mcc_max_cwnd_pct, MCC_MAX_CWND_PCT, "mcc-max-cwnd-pct",
	   200, 1, 10000,			/* MPDT's choice */
	   "mcc CC: largest window (% of BDP)")
