// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state: parameters, counters, the table of bound
 * MPDT ports, and the kernel UDP tunnel socket every packet goes through.
 */
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "protocol.h"

static unsigned int mpdt_net_id __read_mostly;

struct mpdt_net *mpdt_net(const struct net *net)
{
	return net_generic(net, mpdt_net_id);
}

/* A plain UDP socket, not an encapsulation socket: UDP would cut every
 * UDP GSO skb for one of those into an skb per packet before its
 * encap_rcv (udp_unexpected_gso()), where MPDT takes a local peer's burst
 * whole (input.c).  Its datagrams queue as on any UDP socket and its
 * sk_data_ready takes them off at once.  IP_PKTINFO keeps what the route
 * said about the destination, which UDP drops with the route.  Marked an
 * encapsulation user all the same, as before: GRO then finds the socket
 * and, since it asked for no UDP GRO, leaves a NIC's packets one by one
 * (with the key off, rx-udp-gro-forwarding would merge them).
 */
static void tunnel_setup(struct mpdt_net *mn, struct sock *sk)
{
	rcu_assign_sk_user_data(sk, mn);
	udp_tunnel_encap_enable(sk);
	udp_set_bit(ACCEPT_L4, sk);
	/* The queue holds only what the CPUs hand over at one moment, but
	 * never drop a burst for want of room there.
	 */
	WRITE_ONCE(sk->sk_rcvbuf, MPDT_TUNNEL_RCVBUF);
#ifdef CONFIG_NET_RX_BUSY_POLL
	/* net.core.busy_read would have skb_recv_udp() poll in softirq. */
	WRITE_ONCE(sk->sk_ll_usec, 0);
#endif
	if (sk->sk_family == AF_INET)
		ip_sock_set_pktinfo(sk);
	WRITE_ONCE(sk->sk_data_ready, mpdt_tunnel_data_ready);
}

static struct socket *tunnel_create(struct mpdt_net *mn, int family)
{
	struct udp_port_cfg port = {
		.family		= family,
		.local_udp_port	= htons(mn->params.udp_port),
		.ipv6_v6only	= 1,
		/* A zero UDP checksum is legal over IPv6 only for tunnels
		 * that opt in (RFC 6935); MPDT payloads are not protected
		 * by anything else.
		 */
		.use_udp6_rx_checksums = 1,
		.use_udp6_tx_checksums = 1,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(mn->net, &port, &sock);
	if (err) {
		net_warn_ratelimited("mpdt: cannot bind UDP%s port %u: %d\n",
				     family == AF_INET6 ? "v6" : "",
				     mn->params.udp_port, err);
		return ERR_PTR(err);
	}
	tunnel_setup(mn, sock->sk);
	return sock;
}

struct tunnel_work {
	struct work_struct work;
	struct mpdt_net *mn;
	int family;
	struct socket *sock;
};

static void tunnel_create_work(struct work_struct *work)
{
	struct tunnel_work *tw = container_of(work, struct tunnel_work, work);

	tw->sock = tunnel_create(tw->mn, tw->family);
}

/* Created by a kworker, in the root cgroup: a socket takes the memory
 * cgroup and cgroup of the task that creates it (sk_alloc()), and UDP
 * charges and filters every datagram the tunnel queues by them.  The
 * netns's creator, the first bind()'s or a netlink caller's would
 * otherwise hold back every peer's traffic to the netns.
 */
static struct socket *tunnel_open(struct mpdt_net *mn, int family)
{
	struct tunnel_work tw = { .mn = mn, .family = family };

	INIT_WORK_ONSTACK(&tw.work, tunnel_create_work);
	schedule_work(&tw.work);
	flush_work(&tw.work);
	destroy_work_on_stack(&tw.work);
	return tw.sock;
}

/* The tunnel sockets are opened with the netns (or when the UDP port
 * changes), before any local user can squat the unprivileged port; if
 * that failed (the module was loaded after someone took the port), every
 * bind() tries again and fails loudly.  Both families or none: a
 * squatter on only [::]:port would otherwise silently receive every IPv6
 * MPDT packet.  Only a kernel without IPv6 carries MPDT over IPv4 alone.
 */
static int tunnel_get(struct mpdt_net *mn)
{
	struct socket *sock, *sock6 = NULL;

	lockdep_assert_held(&mn->lock);
	if (rcu_access_pointer(mn->tunnel))
		return 0;
	sock = tunnel_open(mn, AF_INET);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	if (ipv6_mod_enabled()) {
		sock6 = tunnel_open(mn, AF_INET6);
		if (IS_ERR(sock6)) {
			udp_tunnel_sock_release(sock);
			return PTR_ERR(sock6);
		}
	}
	rcu_assign_pointer(mn->tunnel, sock);
	rcu_assign_pointer(mn->tunnel6, sock6);
	return 0;
}

static void tunnel_put(struct mpdt_net *mn)
{
	struct socket *sock = rcu_replace_pointer(mn->tunnel, NULL, true);
	struct socket *sock6 = rcu_replace_pointer(mn->tunnel6, NULL, true);

	if (!sock && !sock6)
		return;
	synchronize_net();
	if (sock)
		udp_tunnel_sock_release(sock);
	if (sock6)
		udp_tunnel_sock_release(sock6);
}

static struct hlist_head *port_bucket(struct mpdt_net *mn, u16 port)
{
	return &mn->ports[hash_32(port, MPDT_PORT_HASH_BITS)];
}

static struct mpdt_sock *port_find(struct mpdt_net *mn, u16 port)
{
	struct mpdt_sock *msk;

	hlist_for_each_entry_rcu(msk, port_bucket(mn, port), port_node,
				 lockdep_is_held(&mn->ports_lock))
		if (msk->port == port)
			return msk;
	return NULL;
}

/* The socket bound to @port, for the receive path, which runs under
 * rcu_read_lock(): sockets are freed a grace period after their last
 * reference (SOCK_RCU_FREE), so the caller needs no reference of its own
 * to take msk->lock, under which a closing socket says so in
 * msk->closing (set before its port goes and its last reference is put).
 */
struct mpdt_sock *mpdt_port_lookup_rcu(struct mpdt_net *mn, u16 port)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "mpdt port lookup outside RCU");
	return port_find(mn, port);
}

/* A random start, then the first free port from there, round the range:
 * an off-path host cannot guess the next port, and a full range is found
 * full.  A bitmap, not a walk of the table: a user who fills the range
 * would otherwise make every autobind scan 28232 ports here, with
 * softirqs off.
 */
static u16 pick_ephemeral(struct mpdt_net *mn)
{
	u32 start = get_random_u32_below(MPDT_EPHEMERAL_SPAN);
	unsigned long i;

	i = find_next_zero_bit(mn->ephemeral, MPDT_EPHEMERAL_SPAN, start);
	if (i == MPDT_EPHEMERAL_SPAN) {
		i = find_first_zero_bit(mn->ephemeral, start);
		if (i == start)
			return 0;
	}
	return MPDT_EPHEMERAL_LO + i;
}

/* Keeps the bitmap of the ephemeral range as ports[] has it. */
static void ephemeral_mark(struct mpdt_net *mn, u16 port, bool used)
{
	if (port < MPDT_EPHEMERAL_LO || port > MPDT_EPHEMERAL_HI)
		return;
	if (used)
		__set_bit(port - MPDT_EPHEMERAL_LO, mn->ephemeral);
	else
		__clear_bit(port - MPDT_EPHEMERAL_LO, mn->ephemeral);
}

/* A port held by a closed socket (draining or in time-wait) is taken
 * over by @msk: the new socket is what the port's peers want now.  A
 * draining one gives up the messages it still delivers, so only their
 * owner may take it, as SO_REUSEPORT shares a port only between sockets
 * of one owner; it is returned in @taken, held, for its drain to end
 * (close.c).  It still has the reference its end puts: that unbinds it
 * first, under ports_lock (mpdt_close_finish()).
 */
static int port_take(struct mpdt_sock *msk, u16 port,
		     struct mpdt_sock **taken)
{
	struct mpdt_sock *old = port_find(msk->mn, port);
	bool draining;

	if (!old)
		return 0;
	if (!mpdt_sock_closed(old))
		return -EADDRINUSE;
	draining = READ_ONCE(old->draining);
	if (draining && !uid_eq(sock_i_uid(&old->inet.sk),
				sock_i_uid(&msk->inet.sk)))
		return -EADDRINUSE;
	hlist_del_init_rcu(&old->port_node);
	if (draining) {
		sock_hold(&old->inet.sk);
		*taken = old;
	}
	return 0;
}

/* Bind @msk to @port, or to a free ephemeral port when @port is 0. */
static int port_bind(struct mpdt_sock *msk, u16 port,
		     struct mpdt_sock **taken)
{
	struct mpdt_net *mn = msk->mn;
	int err = 0;

	spin_lock_bh(&mn->ports_lock);
	if (msk->port) {
		err = -EINVAL;
	} else if (!port) {
		port = pick_ephemeral(mn);
		if (!port)
			err = -EADDRINUSE;
	} else {
		err = port_take(msk, port, taken);
	}
	if (!err) {
		msk->port = port;
		hlist_add_head_rcu(&msk->port_node, port_bucket(mn, port));
		ephemeral_mark(mn, port, true);
		mn->nsockets++;
	}
	spin_unlock_bh(&mn->ports_lock);
	return err;
}

int mpdt_net_bind(struct mpdt_sock *msk, u16 port)
{
	struct mpdt_sock *taken = NULL;
	struct mpdt_net *mn = msk->mn;
	int err;

	mutex_lock(&mn->lock);
	err = tunnel_get(mn);
	if (!err)
		err = port_bind(msk, port, &taken);
	mutex_unlock(&mn->lock);
	if (taken) {
		mpdt_close_taken_over(taken);
		sock_put(&taken->inet.sk);
	}
	return err;
}

/* Apply a validated parameter set, under mn->lock.  Connections already
 * open keep what they were created with; new ones, and the next packets,
 * see the rest.  The UDP port can only move while no MPDT socket is bound:
 * the tunnel socket is then closed and the next bind opens the new port.
 */
int mpdt_net_apply_params(struct mpdt_net *mn, const struct mpdt_params *p,
			  const struct mpdt_lb_ops *lb,
			  const struct mpdt_cc_ops *cc,
			  struct netlink_ext_ack *extack)
{
	unsigned int i;

	lockdep_assert_held(&mn->lock);
	if (p->udp_port != mn->params.udp_port) {
		if (READ_ONCE(mn->nsockets)) {
			NL_SET_ERR_MSG_MOD(extack,
					   "udp-port cannot change while MPDT sockets are open in this netns");
			return -EBUSY;
		}
		tunnel_put(mn);
	}
	for (i = 0; i < mpdt_param_count; i++) {
		const struct mpdt_param_desc *d = &mpdt_param_descs[i];

		WRITE_ONCE(*mpdt_param_field(&mn->params, d),
			   *mpdt_param_field((struct mpdt_params *)p, d));
	}
	WRITE_ONCE(mn->lb, lb);
	WRITE_ONCE(mn->cc, cc);
	/* A failure here is reported by the next bind(). */
	tunnel_get(mn);
	return 0;
}

void mpdt_port_unbind(struct mpdt_sock *msk)
{
	struct mpdt_net *mn = msk->mn;

	spin_lock_bh(&mn->ports_lock);
	if (!hlist_unhashed(&msk->port_node)) {
		hlist_del_init_rcu(&msk->port_node);
		ephemeral_mark(mn, msk->port, false);
		if (!mpdt_sock_closed(msk))
			mn->nsockets--;
	}
	spin_unlock_bh(&mn->ports_lock);
}

/* A closed socket (draining, then in time-wait) keeps its port but is no
 * longer open: it does not hold udp-port, and a new bind() takes the port
 * over.
 */
void mpdt_port_closed(struct mpdt_sock *msk)
{
	struct mpdt_net *mn = msk->mn;

	spin_lock_bh(&mn->ports_lock);
	mn->nsockets--;
	spin_unlock_bh(&mn->ports_lock);
}

/* /proc/net/mpdt_stats: "name value" lines, until netlink carries them. */
static int mpdt_stats_show(struct seq_file *seq, void *v)
{
	struct mpdt_net *mn = mpdt_net(seq_file_single_net(seq));
	int i;

	for (i = MPDT_STAT_TX_PKTS; i < __MPDT_STAT_MAX; i++)
		seq_printf(seq, "%s %llu\n", mpdt_stat_name(i),
			   mpdt_stat_read(mn, i));
	return 0;
}

/* A new namespace starts from the host's values as they are now, so that
 * `mpdt param set` on the host reaches the containers started after it;
 * the host's own namespace starts from the module's.
 */
static void inherit_params(struct mpdt_net *mn)
{
	struct mpdt_net *host = mpdt_net(&init_net);

	if (mn == host) {
		mn->params = mpdt_default_params;
		mn->lb = mpdt_default_lb;
		mn->cc = mpdt_default_cc;
		return;
	}
	mutex_lock(&host->lock);
	mn->params = host->params;
	mn->lb = host->lb;
	mn->cc = host->cc;
	mutex_unlock(&host->lock);
}

static int __net_init mpdt_net_init(struct net *net)
{
	struct mpdt_net *mn = mpdt_net(net);

	mn->net = net;
	inherit_params(mn);
	mutex_init(&mn->lock);
	spin_lock_init(&mn->ports_lock);
	mn->stats = alloc_percpu(struct mpdt_stats);
	if (!mn->stats)
		return -ENOMEM;
	if (!proc_create_net_single("mpdt_stats", 0444, net->proc_net,
				    mpdt_stats_show, NULL)) {
		free_percpu(mn->stats);
		return -ENOMEM;
	}
	/* A failure here is reported by the first bind(). */
	mutex_lock(&mn->lock);
	tunnel_get(mn);
	mutex_unlock(&mn->lock);
	return 0;
}

/* The tunnel sockets go before the namespace's devices: a multicast
 * datagram's early demux leaves a route, which holds the loopback device,
 * cached in the socket (sk_rx_dst), and the devices' teardown, which runs
 * before the exit of a pernet subsystem, would wait for it forever.
 */
static void __net_exit mpdt_net_pre_exit(struct net *net)
{
	struct mpdt_net *mn = mpdt_net(net);

	mutex_lock(&mn->lock);
	tunnel_put(mn);
	mutex_unlock(&mn->lock);
}

static void __net_exit mpdt_net_exit(struct net *net)
{
	struct mpdt_net *mn = mpdt_net(net);

	remove_proc_entry("mpdt_stats", net->proc_net);
	/* Waits for in-flight receive callbacks, which read the counters. */
	tunnel_put(mn);
	free_percpu(mn->stats);
}

static struct pernet_operations mpdt_net_ops = {
	.init	= mpdt_net_init,
	.pre_exit = mpdt_net_pre_exit,
	.exit	= mpdt_net_exit,
	.id	= &mpdt_net_id,
	.size	= sizeof(struct mpdt_net),
};

int mpdt_net_register(void)
{
	return register_pernet_subsys(&mpdt_net_ops);
}

void mpdt_net_unregister(void)
{
	unregister_pernet_subsys(&mpdt_net_ops);
}
