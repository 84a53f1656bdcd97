// SPDX-License-Identifier: GPL-2.0
/*
 * MPDT: reliable multipath datagram transport.  Module entry: the default
 * parameters every new network namespace starts from, and registration of
 * the AF_INET SOCK_DGRAM IPPROTO_MPDT socket type.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/protocol.h>
#include <net/transp_v6.h>

#include "protocol.h"

struct mpdt_params mpdt_default_params = {
	.udp_port	= 4796,
	/* Room for a largest message and one more on the way.  UDP's
	 * net.core defaults (208 KiB) would hold one 4 MiB message only
	 * half: an incast of them would be served one sender at a time.
	 */
	.sndbuf		= 2 * MPDT_MSG_MAX,
	.rcvbuf		= 2 * MPDT_MSG_MAX,
	.payload	= 1400,
	.link_mbps	= 10000,
	.base_rtt_us	= 100,
	.ack_bytes	= 8192,
	.ack_on_epsn	= 1,
	.ack_on_ce	= 1,
	.probe_mult	= 3,		/* STrack §3.3.2: n = 3 */
	.rto_min_us	= 10000,
	.rto_max_us	= 1000000,
	.max_retries	= 8,
	.rx_window	= 4096,
	.entropies	= 256,
	.entropy_base	= 49152,
	.fixed_cwnd	= 0,
	.bitmap_reset_rtts = 2,		/* STrack §1: "one or two" RTTs */
	.reps_buffer	= 8,		/* REPS: 8 recycled EVs */
	.reps_freeze_us	= 10000,
	.prime_tiers	= 1,		/* leaf-spine: one uplink tier */
	.prime_uplinks	= 0,		/* 0: one part over all EVs */
	.prime_ecn_penalty = 25,	/* % of a BDP of sends */
	.prime_nack_penalty = 100,
	.prime_timeout_penalty = 3000,
	.paralet_m	= 32,		/* ParaLet §5.2 */
	.paralet_bdps	= 4,		/* ParaLet §5.2: S = 4 BDP / m */
	.strack_target_qdelay_us = 0,	/* Table 1: 0 = base RTT */
	.strack_qhigh_pct = 300,	/* Table 1: 3 x target */
	.strack_ewma_pm = 125,		/* Table 1: 0.125 */
	.strack_alpha_pct = 400,	/* Table 1: 4.0 */
	.strack_beta_pct = 500,		/* Table 1: 5 MTU */
	.strack_eta_pct = 15,		/* Table 1: 0.15 MTU */
	.strack_gamma_pm = 800,		/* Table 1: 0.8 */
	.strack_md_floor_pct = 50,	/* Algo 3 line 14: 0.5 */
	.strack_achieved_div = 8,	/* Algo 3 line 10: max_cwnd / 8 */
	.strack_max_cwnd_pct = 100,	/* §2.2.2: roughly the BDP */
	.smartt_trtt_pct = 150,		/* §3.5: 1.5 x base RTT */
	.smartt_fd_pm = 800,		/* §3.5: 0.8 */
	.smartt_md_pct = 200,		/* §3.2.2: 2 */
	.smartt_fi_pm = 250,		/* §3.5: 0.25 at 100 Gbit/s x 12 us */
	.smartt_qa_scaling_pct = 80,	/* §3.5: 0.8 */
	.smartt_fast_k = 2,		/* §3.4: k = 2 */
	.smartt_fast_rtt_pct = 110,	/* §3.4: rtt ~ brtt */
	/* §3.6.1 gives no alpha, only its meaning: no cut unless 25% or
	 * more of the packets are marked.  0.016 (~1/64) keeps the average
	 * under 0.25 at 10% random marking; 0.125 (htsim) crossed it on
	 * about a quarter of the marked packets.
	 */
	.smartt_wtd_alpha_pm = 16,
	.smartt_wtd_thresh_pm = 250,	/* §3.6.1: 0.25 */
	.smartt_max_cwnd_pct = 125,	/* §3.5: 1.25 BDP */
	.mcc_target_msg_delay_us = 0,	/* Table 1: 0 = size / bw + max / 2 */
	.mcc_target_max_delay_us = 0,	/* Table 1: 0 = base RTT + queue */
	.mcc_oversub = 8,		/* §4: 8:1 adds 1/8 BDP */
	.mcc_md_floor_pct = 50,		/* as STrack Algo 3 line 14 */
	.mcc_chunk_bytes = 65536,	/* §4: 64 KB chunks */
	.mcc_max_cwnd_pct = 200,	/* MPDT's choice */
};

module_param_named(udp_port, mpdt_default_params.udp_port, uint, 0444);
MODULE_PARM_DESC(udp_port, "UDP port MPDT listens on and sends to");
module_param_named(sndbuf, mpdt_default_params.sndbuf, uint, 0444);
MODULE_PARM_DESC(sndbuf, "SO_SNDBUF of a new socket, bytes");
module_param_named(rcvbuf, mpdt_default_params.rcvbuf, uint, 0444);
MODULE_PARM_DESC(rcvbuf, "SO_RCVBUF of a new socket, bytes");
module_param_named(payload, mpdt_default_params.payload, uint, 0444);
MODULE_PARM_DESC(payload, "DATA payload bytes per packet (64-8900)");
module_param_named(link_mbps, mpdt_default_params.link_mbps, uint, 0444);
MODULE_PARM_DESC(link_mbps, "Host link speed in Mbit/s, for the BDP");
module_param_named(base_rtt_us, mpdt_default_params.base_rtt_us, uint, 0444);
MODULE_PARM_DESC(base_rtt_us, "Network base RTT in microseconds, for the BDP");
module_param_named(ack_bytes, mpdt_default_params.ack_bytes, uint, 0444);
MODULE_PARM_DESC(ack_bytes, "SACK coalescing threshold in bytes");
module_param_named(ack_on_epsn, mpdt_default_params.ack_on_epsn, uint, 0444);
MODULE_PARM_DESC(ack_on_epsn, "SACK when the EPSN packet closes a gap (0/1)");
module_param_named(ack_on_ce, mpdt_default_params.ack_on_ce, uint, 0444);
MODULE_PARM_DESC(ack_on_ce, "Send a SACK at once on a CE mark (0/1)");
module_param_named(probe_mult, mpdt_default_params.probe_mult, uint, 0444);
MODULE_PARM_DESC(probe_mult, "Probe after this many base RTTs without a SACK");
module_param_named(rto_min_us, mpdt_default_params.rto_min_us, uint, 0444);
MODULE_PARM_DESC(rto_min_us, "Minimum retransmission timeout (us)");
module_param_named(rto_max_us, mpdt_default_params.rto_max_us, uint, 0444);
MODULE_PARM_DESC(rto_max_us, "Maximum retransmission timeout (us)");
module_param_named(max_retries, mpdt_default_params.max_retries, uint, 0444);
MODULE_PARM_DESC(max_retries, "Consecutive timeouts retried; one more fails the peer");
module_param_named(rx_window, mpdt_default_params.rx_window, uint, 0444);
MODULE_PARM_DESC(rx_window, "PSNs tracked beyond EPSN (power of two, 64-65536)");
module_param_named(entropies, mpdt_default_params.entropies, uint, 0444);
MODULE_PARM_DESC(entropies, "Number of entropy values (1-65535)");
module_param_named(entropy_base, mpdt_default_params.entropy_base, uint, 0444);
MODULE_PARM_DESC(entropy_base, "UDP source port of entropy value 0");
module_param_named(fixed_cwnd, mpdt_default_params.fixed_cwnd, uint, 0444);
MODULE_PARM_DESC(fixed_cwnd, "Window of the fixed CC in bytes (0 = one BDP)");
module_param_named(bitmap_reset_rtts, mpdt_default_params.bitmap_reset_rtts,
		   uint, 0444);
MODULE_PARM_DESC(bitmap_reset_rtts, "bitmap LB: clear ECN marks every N RTTs");
module_param_named(reps_buffer, mpdt_default_params.reps_buffer, uint, 0444);
MODULE_PARM_DESC(reps_buffer, "reps LB: recycled entropies kept (1-64)");
module_param_named(reps_freeze_us, mpdt_default_params.reps_freeze_us, uint,
		   0444);
MODULE_PARM_DESC(reps_freeze_us, "reps LB: freeze after a timeout (us, 0 = off)");
module_param_named(prime_tiers, mpdt_default_params.prime_tiers, uint, 0444);
MODULE_PARM_DESC(prime_tiers, "prime LB: uplink tiers, one EV part each");
module_param_named(prime_uplinks, mpdt_default_params.prime_uplinks, uint,
		   0444);
MODULE_PARM_DESC(prime_uplinks, "prime LB: uplinks per tier (0 = all EVs)");
module_param_named(prime_ecn_penalty, mpdt_default_params.prime_ecn_penalty,
		   uint, 0444);
MODULE_PARM_DESC(prime_ecn_penalty, "prime LB: ECN penalty, % of a BDP of sends");
module_param_named(prime_nack_penalty, mpdt_default_params.prime_nack_penalty,
		   uint, 0444);
MODULE_PARM_DESC(prime_nack_penalty, "prime LB: trim penalty, % of a BDP of sends");
module_param_named(prime_timeout_penalty,
		   mpdt_default_params.prime_timeout_penalty, uint, 0444);
MODULE_PARM_DESC(prime_timeout_penalty, "prime LB: failed-path penalty, % of a BDP of sends");
module_param_named(paralet_m, mpdt_default_params.paralet_m, uint, 0444);
MODULE_PARM_DESC(paralet_m, "paralet LB: parallel flowlets (1-256)");
module_param_named(paralet_bdps, mpdt_default_params.paralet_bdps, uint, 0444);
MODULE_PARM_DESC(paralet_bdps, "paralet LB: flowlet size in BDPs / m");
module_param_named(strack_target_qdelay_us,
		   mpdt_default_params.strack_target_qdelay_us, uint, 0444);
MODULE_PARM_DESC(strack_target_qdelay_us,
		 "strack CC: target queuing delay (us, 0 = base RTT)");
module_param_named(strack_qhigh_pct, mpdt_default_params.strack_qhigh_pct,
		   uint, 0444);
MODULE_PARM_DESC(strack_qhigh_pct, "strack CC: target_Qhigh, % of the target");
module_param_named(strack_ewma_pm, mpdt_default_params.strack_ewma_pm,
		   uint, 0444);
MODULE_PARM_DESC(strack_ewma_pm, "strack CC: delay average weight (per mille)");
module_param_named(strack_alpha_pct, mpdt_default_params.strack_alpha_pct,
		   uint, 0444);
MODULE_PARM_DESC(strack_alpha_pct, "strack CC: RTT-gain increase alpha (%)");
module_param_named(strack_beta_pct, mpdt_default_params.strack_beta_pct,
		   uint, 0444);
MODULE_PARM_DESC(strack_beta_pct,
		 "strack CC: additive increase beta (% of MTU)");
module_param_named(strack_eta_pct, mpdt_default_params.strack_eta_pct,
		   uint, 0444);
MODULE_PARM_DESC(strack_eta_pct, "strack CC: fairness increase eta (% of MTU)");
module_param_named(strack_gamma_pm, mpdt_default_params.strack_gamma_pm,
		   uint, 0444);
MODULE_PARM_DESC(strack_gamma_pm, "strack CC: decrease gamma (per mille)");
module_param_named(strack_md_floor_pct, mpdt_default_params.strack_md_floor_pct,
		   uint, 0444);
MODULE_PARM_DESC(strack_md_floor_pct,
		 "strack CC: smallest decrease factor (%)");
module_param_named(strack_achieved_div, mpdt_default_params.strack_achieved_div,
		   uint, 0444);
MODULE_PARM_DESC(strack_achieved_div,
		 "strack CC: achieved BDP below max window / this");
module_param_named(strack_max_cwnd_pct, mpdt_default_params.strack_max_cwnd_pct,
		   uint, 0444);
MODULE_PARM_DESC(strack_max_cwnd_pct, "strack CC: largest window (% of BDP)");
module_param_named(smartt_trtt_pct, mpdt_default_params.smartt_trtt_pct,
		   uint, 0444);
MODULE_PARM_DESC(smartt_trtt_pct, "smartt CC: target RTT (% of base RTT)");
module_param_named(smartt_fd_pm, mpdt_default_params.smartt_fd_pm, uint, 0444);
MODULE_PARM_DESC(smartt_fd_pm, "smartt CC: fair decrease fd (per mille)");
module_param_named(smartt_md_pct, mpdt_default_params.smartt_md_pct,
		   uint, 0444);
MODULE_PARM_DESC(smartt_md_pct, "smartt CC: multiplicative decrease md (%)");
module_param_named(smartt_fi_pm, mpdt_default_params.smartt_fi_pm, uint, 0444);
MODULE_PARM_DESC(smartt_fi_pm, "smartt CC: fair increase fi (per mille)");
module_param_named(smartt_qa_scaling_pct,
		   mpdt_default_params.smartt_qa_scaling_pct, uint, 0444);
MODULE_PARM_DESC(smartt_qa_scaling_pct, "smartt CC: QuickAdapt scaling (%)");
module_param_named(smartt_fast_k, mpdt_default_params.smartt_fast_k,
		   uint, 0444);
MODULE_PARM_DESC(smartt_fast_k, "smartt CC: FastIncrease MTUs per ACK");
module_param_named(smartt_fast_rtt_pct, mpdt_default_params.smartt_fast_rtt_pct,
		   uint, 0444);
MODULE_PARM_DESC(smartt_fast_rtt_pct,
		 "smartt CC: FastIncrease RTT bound (% of base)");
module_param_named(smartt_wtd_alpha_pm, mpdt_default_params.smartt_wtd_alpha_pm,
		   uint, 0444);
MODULE_PARM_DESC(smartt_wtd_alpha_pm,
		 "smartt CC: WTD ECN average weight (per mille)");
module_param_named(smartt_wtd_thresh_pm,
		   mpdt_default_params.smartt_wtd_thresh_pm, uint, 0444);
MODULE_PARM_DESC(smartt_wtd_thresh_pm, "smartt CC: WTD threshold (per mille)");
module_param_named(smartt_max_cwnd_pct, mpdt_default_params.smartt_max_cwnd_pct,
		   uint, 0444);
MODULE_PARM_DESC(smartt_max_cwnd_pct, "smartt CC: largest window (% of BDP)");
module_param_named(mcc_target_msg_delay_us,
		   mpdt_default_params.mcc_target_msg_delay_us, uint, 0444);
MODULE_PARM_DESC(mcc_target_msg_delay_us,
		 "mcc CC: target message delay (us, 0 = auto)");
module_param_named(mcc_target_max_delay_us,
		   mpdt_default_params.mcc_target_max_delay_us, uint, 0444);
MODULE_PARM_DESC(mcc_target_max_delay_us,
		 "mcc CC: target packet delay (us, 0 = 2 RTT)");
module_param_named(mcc_oversub, mpdt_default_params.mcc_oversub, uint, 0444);
MODULE_PARM_DESC(mcc_oversub, "mcc CC: oversubscription; increase BDP / this");
module_param_named(mcc_md_floor_pct, mpdt_default_params.mcc_md_floor_pct,
		   uint, 0444);
MODULE_PARM_DESC(mcc_md_floor_pct, "mcc CC: smallest decrease factor (%)");
module_param_named(mcc_chunk_bytes, mpdt_default_params.mcc_chunk_bytes,
		   uint, 0444);
MODULE_PARM_DESC(mcc_chunk_bytes, "mcc CC: largest message unit of the window");
module_param_named(mcc_max_cwnd_pct, mpdt_default_params.mcc_max_cwnd_pct,
		   uint, 0444);
MODULE_PARM_DESC(mcc_max_cwnd_pct, "mcc CC: largest window (% of BDP)");

static char lb_name[MPDT_ALGO_NAME_MAX] = "ecmp";
module_param_string(lb, lb_name, sizeof(lb_name), 0444);
MODULE_PARM_DESC(lb, "Default load balancing policy");
static char cc_name[MPDT_ALGO_NAME_MAX] = "fixed";
module_param_string(cc, cc_name, sizeof(cc_name), 0444);
MODULE_PARM_DESC(cc, "Default congestion control");

const struct mpdt_lb_ops *mpdt_default_lb __read_mostly;
const struct mpdt_cc_ops *mpdt_default_cc __read_mostly;

static int mpdt_defaults_check(void)
{
	const char *why = mpdt_params_invalid(&mpdt_default_params);

	mpdt_default_lb = mpdt_lb_find(lb_name);
	mpdt_default_cc = mpdt_cc_find(cc_name);
	if (!why && !mpdt_default_lb)
		why = "unknown lb";
	if (!why && !mpdt_default_cc)
		why = "unknown cc";
	if (why)
		pr_err("mpdt: invalid module parameters: %s\n", why);
	return why ? -EINVAL : 0;
}

struct kmem_cache *mpdt_conn_cache __read_mostly;
struct kmem_cache *mpdt_txmsg_cache __read_mostly;
struct kmem_cache *mpdt_rxmsg_cache __read_mostly;

static void mpdt_caches_destroy(void)
{
	kmem_cache_destroy(mpdt_rxmsg_cache);
	kmem_cache_destroy(mpdt_txmsg_cache);
	kmem_cache_destroy(mpdt_conn_cache);
}

static int mpdt_caches_create(void)
{
	mpdt_conn_cache = kmem_cache_create("mpdt_conn",
					    sizeof(struct mpdt_conn), 0, 0,
					    NULL);
	mpdt_txmsg_cache = kmem_cache_create("mpdt_txmsg",
					     sizeof(struct mpdt_txmsg), 0, 0,
					     NULL);
	mpdt_rxmsg_cache = kmem_cache_create("mpdt_rxmsg",
					     sizeof(struct mpdt_rxmsg), 0, 0,
					     NULL);
	if (mpdt_conn_cache && mpdt_txmsg_cache && mpdt_rxmsg_cache)
		return 0;
	mpdt_caches_destroy();
	return -ENOMEM;
}

static struct inet_protosw mpdt_protosw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_MPDT,
	.prot		= &mpdt_prot,
	.ops		= &mpdt_inet_ops,
};

static struct inet_protosw mpdt6_protosw = {
	.type		= SOCK_DGRAM,
	.protocol	= IPPROTO_MPDT,
	.prot		= &mpdtv6_prot,
	.ops		= &mpdt_inet6_ops,
};

static int __init mpdt_init(void)
{
	int err;

	BUILD_BUG_ON(MPDT_MSG_MAX != MPDT_WIRE_MSG_MAX);
	BUILD_BUG_ON(IPPROTO_MPDT >= IPPROTO_MAX);
	err = mpdt_defaults_check();
	if (err)
		return err;
	err = mpdt_caches_create();
	if (err)
		return err;
	mpdt_sock_mem_init();
	err = proto_register(&mpdt_prot, 1);
	if (err)
		goto err_caches;
	err = proto_register(&mpdtv6_prot, 1);
	if (err)
		goto err_proto4;
	err = mpdt_net_register();
	if (err)
		goto err_proto;
	err = mpdt_netlink_register();
	if (err)
		goto err_net;
	inet_register_protosw(&mpdt_protosw);
	err = inet6_register_protosw(&mpdt6_protosw);
	if (err)
		goto err_protosw;
	return 0;

err_protosw:
	inet_unregister_protosw(&mpdt_protosw);
	mpdt_netlink_unregister();
err_net:
	mpdt_net_unregister();
err_proto:
	proto_unregister(&mpdtv6_prot);
err_proto4:
	proto_unregister(&mpdt_prot);
err_caches:
	mpdt_caches_destroy();
	return err;
}

static void __exit mpdt_exit(void)
{
	inet6_unregister_protosw(&mpdt6_protosw);
	inet_unregister_protosw(&mpdt_protosw);
	mpdt_netlink_unregister();
	mpdt_net_unregister();
	/* Sockets are freed after an RCU grace period (SOCK_RCU_FREE). */
	rcu_barrier();
	proto_unregister(&mpdtv6_prot);
	proto_unregister(&mpdt_prot);
	mpdt_caches_destroy();
}

module_init(mpdt_init);
module_exit(mpdt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MPDT: reliable multipath datagram transport");
MODULE_VERSION("0.5.0");
/* SOCK_DGRAM is an enum, which the alias cannot stringify: spell it 2. */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_MPDT, 2);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_MPDT, 2);
/* genetlink loads the module when "mpdt param show" asks for the family. */
MODULE_ALIAS_GENL_FAMILY(MPDT_GENL_NAME);
