// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "mpdt" (Documentation/netlink/specs/mpdt.yaml):
 * parameters, counters, sockets, connections and algorithms of the
 * caller's network namespace, and connection events on the "events"
 * multicast group.
 * Strict validation everywhere; writes need CAP_NET_ADMIN over the netns.
 */
#include <linux/cgroup.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "protocol.h"

static struct genl_family mpdt_genl_family;

enum mpdt_mcgrp {
	MPDT_MCGRP_EVENTS,
};

static const struct genl_multicast_group mpdt_mcgrps[] = {
	[MPDT_MCGRP_EVENTS] = { .name = MPDT_GENL_MCGRP_EVENTS },
};

/* The u32 entries, with their ranges, come from mpdt_param_descs[] at
 * registration, so the table in params.c is the one place to add a knob.
 */
static struct netlink_range_validation param_ranges[MPDT_PARAM_MAX + 1]
	__ro_after_init;
static struct nla_policy param_policy[MPDT_PARAM_MAX + 1] __ro_after_init = {
	[MPDT_PARAM_LB] = { .type = NLA_NUL_STRING,
			    .len = MPDT_ALGO_NAME_MAX - 1 },
	[MPDT_PARAM_CC] = { .type = NLA_NUL_STRING,
			    .len = MPDT_ALGO_NAME_MAX - 1 },
};

static void param_policy_init(void)
{
	unsigned int i;

	for (i = 0; i < mpdt_param_count; i++) {
		const struct mpdt_param_desc *d = &mpdt_param_descs[i];

		param_ranges[d->attr].min = d->min;
		param_ranges[d->attr].max = d->max;
		/* What NLA_POLICY_FULL_RANGE(NLA_U32, ...) would say. */
		param_policy[d->attr].type = NLA_U32;
		param_policy[d->attr].validation_type = NLA_VALIDATE_RANGE_PTR;
		param_policy[d->attr].range = &param_ranges[d->attr];
	}
}

static const struct nla_policy conn_policy[MPDT_CONN_A_MAX + 1] = {
	[MPDT_CONN_A_PEER_V4]		= { .type = NLA_BE32 },
	[MPDT_CONN_A_PEER_V6]		= NLA_POLICY_EXACT_LEN(16),
	[MPDT_CONN_A_PEER_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[MPDT_CONN_A_LOCAL_PORT]	= NLA_POLICY_MIN(NLA_U16, 1),
	[MPDT_CONN_A_PEER_IFINDEX]	= NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy param_set_policy[MPDT_A_MAX + 1] = {
	[MPDT_A_PARAMS] = NLA_POLICY_NESTED(param_policy),
};

static const struct nla_policy conn_get_policy[MPDT_A_MAX + 1] = {
	[MPDT_A_CONN] = NLA_POLICY_NESTED(conn_policy),
};

static struct mpdt_net *info_mn(struct genl_info *info)
{
	return mpdt_net(genl_info_net(info));
}

/* A reply with one nest of type @nest filled by @fill. */
static int reply(struct genl_info *info, u8 cmd, int nest,
		 int (*fill)(struct sk_buff *skb, void *arg), void *arg)
{
	struct sk_buff *skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	struct nlattr *n;
	void *hdr;

	if (!skb)
		return -ENOMEM;
	hdr = genlmsg_put_reply(skb, info, &mpdt_genl_family, 0, cmd);
	n = hdr ? nla_nest_start(skb, nest) : NULL;
	if (!n || fill(skb, arg)) {
		nlmsg_free(skb);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return genlmsg_reply(skb, info);
}

static int fill_params(struct sk_buff *skb, void *arg)
{
	struct mpdt_net *mn = arg;
	unsigned int i;

	if (nla_put_string(skb, MPDT_PARAM_LB, READ_ONCE(mn->lb)->name) ||
	    nla_put_string(skb, MPDT_PARAM_CC, READ_ONCE(mn->cc)->name))
		return -EMSGSIZE;
	for (i = 0; i < mpdt_param_count; i++) {
		const struct mpdt_param_desc *d = &mpdt_param_descs[i];

		if (nla_put_u32(skb, d->attr,
				READ_ONCE(*mpdt_param_field(&mn->params, d))))
			return -EMSGSIZE;
	}
	return 0;
}

static int mpdt_nl_param_get(struct sk_buff *skb, struct genl_info *info)
{
	return reply(info, MPDT_CMD_PARAM_GET, MPDT_A_PARAMS, fill_params,
		     info_mn(info));
}

static int set_params_locked(struct mpdt_net *mn, struct nlattr **tb,
			     struct netlink_ext_ack *extack)
{
	const struct mpdt_lb_ops *lb = mn->lb;
	const struct mpdt_cc_ops *cc = mn->cc;
	struct mpdt_params p = mn->params;
	const char *why;
	unsigned int i;

	if (tb[MPDT_PARAM_LB]) {
		lb = mpdt_lb_find(nla_data(tb[MPDT_PARAM_LB]));
		if (!lb) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MPDT_PARAM_LB],
					    "unknown load balancing algorithm");
			return -ENOENT;
		}
	}
	if (tb[MPDT_PARAM_CC]) {
		cc = mpdt_cc_find(nla_data(tb[MPDT_PARAM_CC]));
		if (!cc) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MPDT_PARAM_CC],
					    "unknown congestion control algorithm");
			return -ENOENT;
		}
	}
	for (i = 0; i < mpdt_param_count; i++) {
		const struct mpdt_param_desc *d = &mpdt_param_descs[i];

		if (tb[d->attr])
			*mpdt_param_field(&p, d) = nla_get_u32(tb[d->attr]);
	}
	why = mpdt_params_invalid(&p);
	if (why) {
		/* NL_SET_ERR_MSG() wants a literal; @why is a static string. */
		if (extack)
			extack->_msg = why;
		return -EINVAL;
	}
	return mpdt_net_apply_params(mn, &p, lb, cc, extack);
}

static int mpdt_nl_param_set(struct sk_buff *skb, struct genl_info *info)
{
	struct mpdt_net *mn = info_mn(info);
	struct nlattr *tb[MPDT_PARAM_MAX + 1];
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MPDT_A_PARAMS))
		return -EINVAL;
	err = nla_parse_nested(tb, MPDT_PARAM_MAX, info->attrs[MPDT_A_PARAMS],
			       param_policy, info->extack);
	if (err)
		return err;
	mutex_lock(&mn->lock);
	err = set_params_locked(mn, tb, info->extack);
	mutex_unlock(&mn->lock);
	return err;
}

static int fill_stats(struct sk_buff *skb, void *arg)
{
	struct mpdt_net *mn = arg;
	int i;

	for (i = MPDT_STAT_TX_PKTS; i < __MPDT_STAT_MAX; i++)
		if (nla_put_u64_64bit(skb, i, mpdt_stat_read(mn, i),
				      MPDT_STAT_PAD))
			return -EMSGSIZE;
	return 0;
}

static int mpdt_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return reply(info, MPDT_CMD_STATS_GET, MPDT_A_STATS, fill_stats,
		     info_mn(info));
}

#define INFO_U32(attr, field)	{ MPDT_CONN_A_##attr, offsetof(struct mpdt_info, field) }

static const struct { u16 attr, off; } conn_u32[] = {
	INFO_U32(STATE, mi_state),
	INFO_U32(CWND, mi_cwnd),
	INFO_U32(SRTT_US, mi_srtt_us),
	INFO_U32(MIN_RTT_US, mi_min_rtt_us),
	INFO_U32(INFLIGHT, mi_inflight),
	INFO_U32(SND_UNA, mi_snd_una),
	INFO_U32(SND_NXT, mi_snd_nxt),
	INFO_U32(RCV_EPSN, mi_rcv_epsn),
	INFO_U32(MSGS_INFLIGHT, mi_msgs_inflight),
	INFO_U32(BASE_RTT_US, mi_base_rtt_us),
	INFO_U32(BDP, mi_bdp),
	INFO_U32(PEER_ROOM, mi_peer_room),
}, conn_u64[] = {
	INFO_U32(RETX_OOO, mi_retx[MPDT_RETX_OOO]),
	INFO_U32(RETX_PROBE, mi_retx[MPDT_RETX_PROBE]),
	INFO_U32(RETX_RTO, mi_retx[MPDT_RETX_RTO]),
	INFO_U32(RETX_NACK, mi_retx[MPDT_RETX_NACK]),
	INFO_U32(MSGS_SENT, mi_msgs_sent),
	INFO_U32(MSGS_ACKED, mi_msgs_acked),
	INFO_U32(MSGS_RCVD, mi_msgs_rcvd),
	INFO_U32(BYTES_SENT, mi_bytes_sent),
	INFO_U32(BYTES_ACKED, mi_bytes_acked),
	INFO_U32(DELIVERY_RATE, mi_delivery_rate),
};

static int put_peer(struct sk_buff *skb, const struct mpdt_addr *a)
{
	if (nla_put_u16(skb, MPDT_CONN_A_FAMILY, a->family) ||
	    nla_put_u16(skb, MPDT_CONN_A_PEER_PORT, ntohs(a->port)))
		return -EMSGSIZE;
	if (a->family == AF_INET)
		return nla_put_in_addr(skb, MPDT_CONN_A_PEER_V4, a->v4);
	if (nla_put_in6_addr(skb, MPDT_CONN_A_PEER_V6, &a->v6) ||
	    (a->scope_id &&
	     nla_put_u32(skb, MPDT_CONN_A_PEER_IFINDEX, a->scope_id)))
		return -EMSGSIZE;
	return 0;
}

/* The owner as ss shows it, in the user namespace of whoever asks. */
static int put_owner(struct sk_buff *skb, struct sock *sk,
		     struct user_namespace *ns, u16 inode_attr, u16 uid_attr,
		     u16 pad)
{
	if (nla_put_u64_64bit(skb, inode_attr, sock_i_ino(sk), pad) ||
	    nla_put_u32(skb, uid_attr, from_kuid_munged(ns, sk->sk_uid)))
		return -EMSGSIZE;
	return 0;
}

/* Under msk->lock. */
static int fill_conn(struct sk_buff *skb, struct mpdt_conn *c,
		     struct user_namespace *ns)
{
	struct mpdt_info info = {};
	const u8 *base = (const u8 *)&info;
	int i;

	mpdt_conn_fill_info(c, &info);
	if (put_peer(skb, &c->peer) ||
	    nla_put_u16(skb, MPDT_CONN_A_LOCAL_PORT, c->msk->port) ||
	    nla_put_string(skb, MPDT_CONN_A_LB, info.mi_lb) ||
	    nla_put_string(skb, MPDT_CONN_A_CC, info.mi_cc) ||
	    put_owner(skb, &c->msk->inet.sk, ns, MPDT_CONN_A_SOCK_INODE,
		      MPDT_CONN_A_UID, MPDT_CONN_A_PAD))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(conn_u32); i++)
		if (nla_put_u32(skb, conn_u32[i].attr,
				*(const u32 *)(base + conn_u32[i].off)))
			return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(conn_u64); i++)
		if (nla_put_u64_64bit(skb, conn_u64[i].attr,
				      *(const u64 *)(base + conn_u64[i].off),
				      MPDT_CONN_A_PAD))
			return -EMSGSIZE;
	return 0;
}

static int conn_msg(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		    u8 cmd, struct mpdt_conn *c, struct user_namespace *ns)
{
	void *hdr = genlmsg_put(skb, portid, seq, &mpdt_genl_family, flags,
				cmd);
	struct nlattr *n;

	if (!hdr)
		return -EMSGSIZE;
	n = nla_nest_start(skb, MPDT_A_CONN);
	if (!n || fill_conn(skb, c, ns)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
}

static int peer_from_attrs(struct nlattr **tb, struct mpdt_addr *peer,
			   struct netlink_ext_ack *extack)
{
	memset(peer, 0, sizeof(*peer));
	if (!tb[MPDT_CONN_A_PEER_PORT] ||
	    !(tb[MPDT_CONN_A_PEER_V4] || tb[MPDT_CONN_A_PEER_V6])) {
		NL_SET_ERR_MSG(extack, "peer address and peer port required");
		return -EINVAL;
	}
	peer->port = htons(nla_get_u16(tb[MPDT_CONN_A_PEER_PORT]));
	if (tb[MPDT_CONN_A_PEER_V6]) {
		peer->family = AF_INET6;
		peer->v6 = nla_get_in6_addr(tb[MPDT_CONN_A_PEER_V6]);
		/* As for a socket address (addr.c): only a link-local peer
		 * has, and needs, its interface.
		 */
		if (!__ipv6_addr_needs_scope_id(ipv6_addr_type(&peer->v6)))
			return 0;
		if (!tb[MPDT_CONN_A_PEER_IFINDEX]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MPDT_CONN_A_PEER_V6],
					    "a link-local peer needs peer-ifindex");
			return -EINVAL;
		}
		peer->scope_id = nla_get_u32(tb[MPDT_CONN_A_PEER_IFINDEX]);
	} else {
		peer->family = AF_INET;
		peer->v4 = nla_get_in_addr(tb[MPDT_CONN_A_PEER_V4]);
	}
	return 0;
}

/* The first socket of the netns (bound to @lport, if not 0) that has a
 * connection to @peer, filled into @skb.
 */
static int find_conn(struct mpdt_net *mn, const struct mpdt_addr *peer,
		     u16 lport, struct sk_buff *skb, struct genl_info *info,
		     struct user_namespace *ns)
{
	struct mpdt_sock *msk;
	int b, err = -ENOENT;

	rcu_read_lock();
	for (b = 0; b < ARRAY_SIZE(mn->ports) && err == -ENOENT; b++) {
		hlist_for_each_entry_rcu(msk, &mn->ports[b], port_node) {
			struct mpdt_conn *c;

			if (lport && msk->port != lport)
				continue;
			spin_lock_bh(&msk->lock);
			c = msk->closing ? NULL : mpdt_conn_find(msk, peer);
			if (c)
				err = conn_msg(skb, info->snd_portid,
					       info->snd_seq, 0,
					       MPDT_CMD_CONN_GET, c, ns);
			spin_unlock_bh(&msk->lock);
			if (c)
				break;
		}
	}
	rcu_read_unlock();
	return err;
}

static int mpdt_nl_conn_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MPDT_CONN_A_MAX + 1];
	struct mpdt_addr peer;
	struct sk_buff *msg;
	u16 lport = 0;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, MPDT_A_CONN))
		return -EINVAL;
	err = nla_parse_nested(tb, MPDT_CONN_A_MAX, info->attrs[MPDT_A_CONN],
			       conn_policy, info->extack);
	if (!err)
		err = peer_from_attrs(tb, &peer, info->extack);
	if (err)
		return err;
	if (tb[MPDT_CONN_A_LOCAL_PORT])
		lport = nla_get_u16(tb[MPDT_CONN_A_LOCAL_PORT]);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = find_conn(info_mn(info), &peer, lport, msg, info,
			sk_user_ns(NETLINK_CB(skb).sk));
	if (err) {
		nlmsg_free(msg);
		if (err == -ENOENT)
			NL_SET_ERR_MSG(info->extack, "no such connection");
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* Dump position: port bucket, socket within it, connection within that. */
struct conn_dump_pos {
	long bucket, sock, conn;
};

/* Dump @msk's connections from pos->conn on; -EMSGSIZE when full. */
static int dump_sock_conns(struct sk_buff *skb, struct netlink_callback *cb,
			   struct mpdt_sock *msk, struct conn_dump_pos *pos)
{
	struct mpdt_conn *c;
	long i = 0;
	int bkt, err = 0;

	spin_lock_bh(&msk->lock);
	if (!msk->closing) {
		hash_for_each(msk->conns, bkt, c, node) {
			if (i++ < pos->conn)
				continue;
			err = conn_msg(skb, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       MPDT_CMD_CONN_GET, c,
				       sk_user_ns(NETLINK_CB(cb->skb).sk));
			if (err)
				break;
			pos->conn++;
		}
	}
	spin_unlock_bh(&msk->lock);
	return err;
}

static int mpdt_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mpdt_net *mn = mpdt_net(sock_net(skb->sk));
	struct conn_dump_pos *pos = (void *)cb->args;
	struct mpdt_sock *msk;

	BUILD_BUG_ON(sizeof(*pos) > sizeof(cb->args));
	rcu_read_lock();
	for (; pos->bucket < ARRAY_SIZE(mn->ports); pos->bucket++) {
		long i = 0;

		hlist_for_each_entry_rcu(msk, &mn->ports[pos->bucket],
					 port_node) {
			if (i++ < pos->sock)
				continue;
			if (dump_sock_conns(skb, cb, msk, pos))
				goto out;
			pos->sock++;
			pos->conn = 0;
		}
		pos->sock = 0;
	}
out:
	rcu_read_unlock();
	return skb->len;
}

static u32 sock_state(const struct mpdt_sock *msk)
{
	if (msk->time_wait)
		return MPDT_SOCK_TIME_WAIT;
	return msk->draining ? MPDT_SOCK_DRAINING : MPDT_SOCK_OPEN;
}

static u64 sock_cgroup(struct sock *sk)
{
#ifdef CONFIG_SOCK_CGROUP_DATA
	return cgroup_id(sock_cgroup_ptr(&sk->sk_cgrp_data));
#else
	return 0;
#endif
}

static int put_bound(struct sk_buff *skb, const struct mpdt_addr *a)
{
	if (a->family == AF_INET && a->v4)
		return nla_put_in_addr(skb, MPDT_SOCK_A_ADDR_V4, a->v4);
	if (a->family != AF_INET6 || ipv6_addr_any(&a->v6))
		return 0;
	if (nla_put_in6_addr(skb, MPDT_SOCK_A_ADDR_V6, &a->v6) ||
	    (a->scope_id &&
	     nla_put_u32(skb, MPDT_SOCK_A_ADDR_IFINDEX, a->scope_id)))
		return -EMSGSIZE;
	return 0;
}

/* Under msk->lock. */
static int fill_sock(struct sk_buff *skb, struct mpdt_sock *msk,
		     struct user_namespace *ns)
{
	struct sock *sk = &msk->inet.sk;

	if (nla_put_u16(skb, MPDT_SOCK_A_FAMILY, sk->sk_family) ||
	    nla_put_u16(skb, MPDT_SOCK_A_LOCAL_PORT, msk->port) ||
	    put_bound(skb, &msk->bound) ||
	    nla_put_u32(skb, MPDT_SOCK_A_STATE, sock_state(msk)) ||
	    put_owner(skb, sk, ns, MPDT_SOCK_A_INODE, MPDT_SOCK_A_UID,
		      MPDT_SOCK_A_PAD) ||
	    nla_put_u64_64bit(skb, MPDT_SOCK_A_CGROUP, sock_cgroup(sk),
			      MPDT_SOCK_A_PAD) ||
	    nla_put_u32(skb, MPDT_SOCK_A_CONNS, msk->nconns) ||
	    nla_put_u32(skb, MPDT_SOCK_A_RMEM, atomic_read(&sk->sk_rmem_alloc)) ||
	    nla_put_u32(skb, MPDT_SOCK_A_RCVBUF, READ_ONCE(sk->sk_rcvbuf)) ||
	    nla_put_u32(skb, MPDT_SOCK_A_WMEM, READ_ONCE(sk->sk_wmem_queued)) ||
	    nla_put_u32(skb, MPDT_SOCK_A_SNDBUF, READ_ONCE(sk->sk_sndbuf)))
		return -EMSGSIZE;
	return 0;
}

static int sock_msg(struct sk_buff *skb, struct netlink_callback *cb,
		    struct mpdt_sock *msk)
{
	struct user_namespace *ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	struct nlattr *n;
	int err = 0;
	void *hdr;

	spin_lock_bh(&msk->lock);
	/* One being released holds nothing worth listing. */
	if (msk->closing)
		goto out;
	err = -EMSGSIZE;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &mpdt_genl_family, NLM_F_MULTI, MPDT_CMD_SOCK_GET);
	if (!hdr)
		goto out;
	n = nla_nest_start(skb, MPDT_A_SOCK);
	if (!n || fill_sock(skb, msk, ns)) {
		genlmsg_cancel(skb, hdr);
		goto out;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	err = 0;
out:
	spin_unlock_bh(&msk->lock);
	return err;
}

/* cb->args[0]: port bucket; cb->args[1]: sockets of it already dumped. */
static int mpdt_nl_sock_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mpdt_net *mn = mpdt_net(sock_net(skb->sk));
	struct mpdt_sock *msk;

	rcu_read_lock();
	for (; cb->args[0] < ARRAY_SIZE(mn->ports); cb->args[0]++) {
		long i = 0;

		hlist_for_each_entry_rcu(msk, &mn->ports[cb->args[0]],
					 port_node) {
			if (i++ < cb->args[1])
				continue;
			if (sock_msg(skb, cb, msk))
				goto out;
			cb->args[1]++;
		}
		cb->args[1] = 0;
	}
out:
	rcu_read_unlock();
	return skb->len;
}

static int algo_msg(struct sk_buff *skb, struct netlink_callback *cb,
		    u32 kind, const char *name, bool dflt)
{
	void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq, &mpdt_genl_family,
				NLM_F_MULTI, MPDT_CMD_ALGO_GET);
	struct nlattr *n;

	if (!hdr)
		return -EMSGSIZE;
	n = nla_nest_start(skb, MPDT_A_ALGO);
	if (!n || nla_put_u32(skb, MPDT_ALGO_A_KIND, kind) ||
	    nla_put_string(skb, MPDT_ALGO_A_NAME, name) ||
	    (dflt && nla_put_flag(skb, MPDT_ALGO_A_DEFAULT))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
}

/* cb->args[0]: LB algorithms dumped; cb->args[1]: CC algorithms dumped. */
static int mpdt_nl_algo_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mpdt_net *mn = mpdt_net(sock_net(skb->sk));
	const struct mpdt_lb_ops *lb;
	const struct mpdt_cc_ops *cc;

	while ((lb = mpdt_lb_at(cb->args[0]))) {
		if (algo_msg(skb, cb, MPDT_ALGO_LB, lb->name,
			     lb == READ_ONCE(mn->lb)))
			return skb->len;
		cb->args[0]++;
	}
	while ((cc = mpdt_cc_at(cb->args[1]))) {
		if (algo_msg(skb, cb, MPDT_ALGO_CC, cc->name,
			     cc == READ_ONCE(mn->cc)))
			return skb->len;
		cb->args[1]++;
	}
	return skb->len;
}

/* Connection created, closed or failed: tell the "events" group. */
void mpdt_netlink_conn_event(struct mpdt_conn *c, u8 cmd)
{
	struct net *net = sock_net(&c->msk->inet.sk);
	struct sk_buff *skb;

	if (!genl_has_listeners(&mpdt_genl_family, net, MPDT_MCGRP_EVENTS))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		return;
	if (conn_msg(skb, 0, 0, 0, cmd, c, net->user_ns)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_multicast_netns(&mpdt_genl_family, net, skb, 0,
				MPDT_MCGRP_EVENTS, GFP_ATOMIC);
}

static const struct genl_ops mpdt_genl_ops[] = {
	{
		.cmd	= MPDT_CMD_PARAM_GET,
		.doit	= mpdt_nl_param_get,
	},
	{
		.cmd	= MPDT_CMD_PARAM_SET,
		.doit	= mpdt_nl_param_set,
		.policy	= param_set_policy,
		.maxattr = MPDT_A_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MPDT_CMD_STATS_GET,
		.doit	= mpdt_nl_stats_get,
	},
	{
		.cmd	= MPDT_CMD_CONN_GET,
		.doit	= mpdt_nl_conn_get,
		.dumpit	= mpdt_nl_conn_dump,
		.policy	= conn_get_policy,
		.maxattr = MPDT_A_MAX,
	},
	{
		.cmd	= MPDT_CMD_ALGO_GET,
		.dumpit	= mpdt_nl_algo_dump,
	},
	{
		.cmd	= MPDT_CMD_SOCK_GET,
		.dumpit	= mpdt_nl_sock_dump,
	},
};

static struct genl_family mpdt_genl_family __ro_after_init = {
	.name		= MPDT_GENL_NAME,
	.version	= MPDT_GENL_VERSION,
	.maxattr	= MPDT_A_MAX,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= mpdt_genl_ops,
	.n_ops		= ARRAY_SIZE(mpdt_genl_ops),
	.mcgrps		= mpdt_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(mpdt_mcgrps),
};

int mpdt_netlink_register(void)
{
	param_policy_init();
	return genl_register_family(&mpdt_genl_family);
}

void mpdt_netlink_unregister(void)
{
	genl_unregister_family(&mpdt_genl_family);
}
