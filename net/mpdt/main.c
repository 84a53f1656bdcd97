// SPDX-License-Identifier: GPL-2.0
/*
 * MPDT: reliable multipath datagram transport.  Module entry: the default
 * parameters every new network namespace starts from, and registration of
 * the AF_INET SOCK_DGRAM IPPROTO_MPDT socket type.
 */
#include <linux/module.h>
#include <net/protocol.h>
#include <net/transp_v6.h>

#include "protocol.h"

struct mpdt_params mpdt_default_params = {
	.udp_port	= 4796,
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
	.paralet_m	= 32,		/* ParaLet §5.2 */
	.paralet_bdps	= 4,		/* ParaLet §5.2: S = 4 BDP / m */
};

module_param_named(udp_port, mpdt_default_params.udp_port, uint, 0444);
MODULE_PARM_DESC(udp_port, "UDP port MPDT listens on and sends to");
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
MODULE_PARM_DESC(prime_nack_penalty, "prime LB: loss penalty, % of a BDP of sends");
module_param_named(paralet_m, mpdt_default_params.paralet_m, uint, 0444);
MODULE_PARM_DESC(paralet_m, "paralet LB: parallel flowlets (1-256)");
module_param_named(paralet_bdps, mpdt_default_params.paralet_bdps, uint, 0444);
MODULE_PARM_DESC(paralet_bdps, "paralet LB: flowlet size in BDPs / m");

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
/* SOCK_DGRAM is an enum, which the alias cannot stringify: spell it 2. */
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_MPDT, 2);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_MPDT, 2);
