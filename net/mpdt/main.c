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

/* The defaults of params_table.h; the Makefile copies this initializer
 * into build/gen/default_params.h, the defaults of the unit tests and
 * fuzzers.
 */
struct mpdt_params mpdt_default_params = {
#define MPDT_PARAM(field, attr, name, def, min, max, desc)	.field = (def),
#include "params_table.h"
#undef MPDT_PARAM
};

/* Each u32 tunable is a read-only module parameter of the same name. */
#define MPDT_PARAM(field, attr, name, def, min, max, desc)		\
	module_param_named(field, mpdt_default_params.field, uint, 0444); \
	MODULE_PARM_DESC(field, desc);
#include "params_table.h"
#undef MPDT_PARAM

static char lb_name[MPDT_ALGO_NAME_MAX] = "ecmp";
module_param_string(lb, lb_name, sizeof(lb_name), 0444);
MODULE_PARM_DESC(lb, "Default load balancing policy");
static char cc_name[MPDT_ALGO_NAME_MAX] = "strack";
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
struct kmem_cache *mpdt_rxpiece_cache __read_mostly;
struct kmem_cache *mpdt_host_cache __read_mostly;

static void mpdt_caches_destroy(void)
{
	kmem_cache_destroy(mpdt_host_cache);
	kmem_cache_destroy(mpdt_rxpiece_cache);
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
	mpdt_rxpiece_cache = kmem_cache_create("mpdt_rxpiece",
					       sizeof(struct mpdt_rxpiece), 0, 0,
					       NULL);
	mpdt_host_cache = kmem_cache_create("mpdt_host",
					    sizeof(struct mpdt_host), 0, 0,
					    NULL);
	if (mpdt_conn_cache && mpdt_txmsg_cache && mpdt_rxmsg_cache &&
	    mpdt_rxpiece_cache && mpdt_host_cache)
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
	BUILD_BUG_ON(sizeof(struct mpdt_rxpiece) >
		     sizeof_field(struct sk_buff, cb));
	err = mpdt_defaults_check();
	if (err)
		return err;
	err = mpdt_caches_create();
	if (err)
		return err;
	err = mpdt_output_init();
	if (err)
		goto err_caches;
	err = mpdt_txpages_register();
	if (err)
		goto err_output;
	mpdt_sock_mem_init();
	err = proto_register(&mpdt_prot, 1);
	if (err)
		goto err_shrinker;
	err = proto_register(&mpdtv6_prot, 1);
	if (err)
		goto err_proto4;
	err = mpdt_steer_init();
	if (err)
		goto err_proto;
	err = mpdt_net_register();
	if (err)
		goto err_steer;
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
err_steer:
	mpdt_steer_exit();
err_proto:
	proto_unregister(&mpdtv6_prot);
err_proto4:
	proto_unregister(&mpdt_prot);
err_shrinker:
	mpdt_txpages_unregister();
err_output:
	mpdt_output_exit();
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
	mpdt_steer_exit();
	proto_unregister(&mpdtv6_prot);
	proto_unregister(&mpdt_prot);
	mpdt_txpages_unregister();
	mpdt_output_exit();
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
