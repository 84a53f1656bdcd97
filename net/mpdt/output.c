// SPDX-License-Identifier: GPL-2.0
/*
 * Building MPDT packets and sending them through the netns UDP tunnel
 * socket.  The entropy value becomes the UDP source port (and the IPv6
 * flow label).  The fabric hashes it; the host's own routing almost never
 * does, so a connection looks its route up once and keeps it in a
 * dst_cache, which notices route changes.  Only when this host's routing
 * can depend on the source port or flow label (an L4 multipath hash over
 * a multipath route, rules matching ports, IPsec policies) is every
 * packet looked up with its own entropy.
 */
#include <linux/pkt_sched.h>
#include <linux/skbuff.h>
#include <net/dst_cache.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/nexthop.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "protocol.h"
#include "trace.h"

/* Room for the tunnel's UDP and IP headers and, as netdev_alloc_skb()
 * leaves, NET_SKB_PAD for the link layer's: an Ethernet header with VLAN
 * tags fits, a device that needs more gets it from ip_finish_output2()
 * (skb_expand_head()).  MAX_HEADER's 176 bytes made every head, and the
 * head of every packet that skb_segment() cuts from a burst on receive
 * (it keeps the burst's headroom), a 1 KiB allocation, zeroed under
 * init_on_alloc; now they take 512 bytes.
 */
#define MPDT_SKB_HEADROOM \
	ALIGN(NET_SKB_PAD + sizeof(struct ipv6hdr) + sizeof(struct udphdr), 16)
/* A burst's MPDT packets, so that its IP packet stays within 64 KiB. */
#define MPDT_GSO_MAX_BYTES \
	(GSO_LEGACY_MAX_SIZE - sizeof(struct ipv6hdr) - sizeof(struct udphdr))

/* The headers in the skb's head; a DATA packet's payload is attached by
 * reference to the message's pages (txmsg.c).
 */
static struct sk_buff *pkt_alloc(const struct mpdt_pkt *h,
				 const struct mpdt_txmsg *tm)
{
	u32 hlen = mpdt_wire_len(&h->hdr);
	struct sk_buff *skb;

	skb = alloc_skb(MPDT_SKB_HEADROOM + hlen, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, MPDT_SKB_HEADROOM);
	/* SACKs and NACKs go ahead of DATA in this host's qdisc (prio,
	 * pfifo_fast: band 0; mqprio maps the priority to a traffic class),
	 * as SMaRTT-REPS §3 (after EQDS) assumes of every port.  Their delay
	 * is the peer's congestion signal: a SACK queued behind this host's
	 * own DATA would tell a delay-based CC (STrack Algo 3) of a queue its
	 * packets never crossed, and the connection whose SACKs share a link
	 * with the bigger flow the other way falls behind for good
	 * (Documentation/sim.rst).  Probes stay behind the data they follow.
	 */
	if (mpdt_pkt_is_feedback(h))
		skb->priority = TC_PRIO_CONTROL;
	mpdt_wire_encode(h, skb_put(skb, hlen));
	if (tm && !mpdt_txmsg_attach(skb, tm, h->data.offset,
				     h->data.payload_len, NULL)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

static __be16 ev_port(const struct mpdt_net *mn, u16 ev)
{
	return htons(mpdt_ev_port(READ_ONCE(mn->params.entropy_base),
				  READ_ONCE(mn->params.entropies), ev));
}

/* The packets @skb holds: a burst's, or one. */
static u32 skb_pkts(const struct sk_buff *skb)
{
	return skb_shinfo(skb)->gso_segs ?: 1;
}

/* @skb cannot go: its packets are counted lost to the transmit path. */
static void tx_drop(struct mpdt_net *mn, struct sk_buff *skb)
{
	mpdt_stat_add(mn, MPDT_STAT_TX_ERR, skb_pkts(skb));
	kfree_skb(skb);
}

/* Where a packet goes once its route is known: what the tunnel's
 * transmit needs besides the route and the socket.
 */
struct mpdt_tx_args {
	union {
		struct {
			__be32 saddr, daddr;
		} in4;
		struct {
			struct in6_addr saddr, daddr;
		} in6;
	};
	__be32 label;
	__be16 sport, dport;
	u8 ttl;
	bool v6;
};

#define MPDT_TX_ARGS(skb)	((struct mpdt_tx_args *)(skb)->cb)

/* ECT(0) so the fabric marks congestion instead of dropping; the IPv6
 * flow label carries the entropy too.  What the sending half sends (DATA,
 * PROBE) leaves as its MPDT socket's, which owns it (hostq.c), as SCTP's
 * leaves over UDP: ip_finish_output() runs a cgroup's BPF egress programs
 * only for the skb's owner, and a program's drop is a loss.  Feedback
 * (SACK, NACK), owned by nobody and answering what arrived, leaves as the
 * tunnel's.
 */
static void tunnel_send(struct socket *tunnel, struct sk_buff *skb,
			struct dst_entry *dst, struct mpdt_tx_args *a)
{
	struct sock *sk = skb->sk ?: tunnel->sk;

	if (a->v6)
		udp_tunnel6_xmit_skb(dst, sk, skb, NULL, &a->in6.saddr,
				     &a->in6.daddr, INET_ECN_ECT_0, a->ttl,
				     a->label, a->sport, a->dport, false);
	else
		udp_tunnel_xmit_skb(container_of(dst, struct rtable, dst),
				    sk, skb, a->in4.saddr, a->in4.daddr,
				    INET_ECN_ECT_0, a->ttl, htons(IP_DF),
				    a->sport, a->dport, false, false);
}

/* Skbs one CPU sends at a time before it leaves the rest to a kworker:
 * dev_tx_weight's 64, after which a qdisc's run (__qdisc_run()) leaves
 * the rest to the transmit softirq.
 */
#define MPDT_TX_QUOTA		64
/* SACKs and NACKs that may wait in a socket's queue.  They answer what
 * arrived and are charged to no socket: past this, probes answered from
 * every CPU would grow the queue faster than one CPU empties it.  A peer
 * whose answer is lost probes again.
 */
#define MPDT_TX_FEEDBACK_MAX	256

static struct workqueue_struct *mpdt_tx_wq;

/* Feedback is owned by nobody, what the sending half sends by its socket
 * (socket_sends()).
 */
static bool is_feedback(const struct sk_buff *skb)
{
	return !skb->sk;
}

static bool feedback_room(const struct mpdt_sock *msk)
{
	return READ_ONCE(msk->tx_feedback) < MPDT_TX_FEEDBACK_MAX;
}

/* Everything the engine sends, it sends under msk->lock: each packet
 * waits on msk->tx_queue, its route held in the skb, and leaves once the
 * lock is released (mpdt_xmit_queued()).  The lock is held for the
 * engine's work, not for IP output and the device, and the other CPU's
 * packets for the same socket wait that much less.  The queue keeps the
 * order the lock gave them: a connection's bursts never pass each other.
 */
static void queue_to_send(struct mpdt_conn *c, struct sk_buff *skb,
			  struct dst_entry *dst, struct mpdt_tx_args *a)
{
	struct mpdt_sock *msk = c->msk;
	struct sk_buff_head *q = &msk->tx_queue;

	lockdep_assert_held(&msk->lock);
	BUILD_BUG_ON(sizeof(*a) > sizeof(skb->cb));
	*MPDT_TX_ARGS(skb) = *a;
	skb_dst_set(skb, dst);
	spin_lock(&q->lock);
	__skb_queue_tail(q, skb);
	if (is_feedback(skb))
		WRITE_ONCE(msk->tx_feedback, msk->tx_feedback + 1);
	spin_unlock(&q->lock);
}

static void send_batch(struct mpdt_net *mn, struct sk_buff_head *batch)
{
	struct sk_buff *skb;

	rcu_read_lock();
	while ((skb = __skb_dequeue(batch))) {
		struct mpdt_tx_args a = *MPDT_TX_ARGS(skb);
		struct socket *tunnel = a.v6 ? rcu_dereference(mn->tunnel6) :
					       rcu_dereference(mn->tunnel);
		struct dst_entry *dst = skb_dst(skb);

		if (!tunnel) {
			tx_drop(mn, skb);	/* and its route */
			continue;
		}
		/* The tunnel takes the reference over, and the cb is as
		 * alloc_skb() left it.
		 */
		skb_dst_set(skb, NULL);
		memset(skb->cb, 0, sizeof(skb->cb));
		tunnel_send(tunnel, skb, dst, &a);
	}
	rcu_read_unlock();
}

/* Send up to MPDT_TX_QUOTA skbs of @msk's queue, its lock held (and
 * dropped while they go) with bottom halves off; whether any are left.
 */
static bool send_quota(struct mpdt_sock *msk)
{
	struct sk_buff_head *q = &msk->tx_queue, batch;
	u32 quota = MPDT_TX_QUOTA;
	struct sk_buff *skb;

	__skb_queue_head_init(&batch);
	while (quota && !skb_queue_empty(q)) {
		for (; quota && (skb = __skb_dequeue(q)); quota--) {
			if (is_feedback(skb))
				WRITE_ONCE(msk->tx_feedback,
					   msk->tx_feedback - 1);
			__skb_queue_tail(&batch, skb);
		}
		spin_unlock(&q->lock);
		send_batch(msk->mn, &batch);
		spin_lock(&q->lock);
	}
	return !skb_queue_empty(q);
}

/* The kworker sends the rest a quota at a time, rescheduling between
 * them, and keeps @tx_sending until the queue is empty: the CPUs go on
 * leaving their packets to it, and the order holds.
 */
static void tx_work(struct work_struct *work)
{
	struct mpdt_sock *msk = container_of(work, struct mpdt_sock, tx_work);
	struct sk_buff_head *q = &msk->tx_queue;
	bool more;

	do {
		cond_resched();
		spin_lock_bh(&q->lock);
		more = send_quota(msk);
		msk->tx_sending = more;
		spin_unlock_bh(&q->lock);
	} while (more);
	sock_put(&msk->inet.sk);
}

/* The rest to the kworker, with a reference for it.  The receive path
 * holds none (input.c): a socket whose last one is gone has no more
 * packets coming (msk->closing), and the rest goes now.
 */
static void defer_rest(struct mpdt_sock *msk)
{
	if (!refcount_inc_not_zero(&msk->inet.sk.sk_refcnt)) {
		while (send_quota(msk))
			;
		msk->tx_sending = false;
		return;
	}
	queue_work(mpdt_tx_wq, &msk->tx_work);
	mpdt_stat_inc(msk->mn, MPDT_STAT_TX_DEFERRED);
}

/* Send what queue_to_send() kept, msk->lock just released.  One sender
 * at a time, as a qdisc runs on one CPU at a time (qdisc_run_begin()):
 * a CPU that finds another sending leaves its packets to it, which sends
 * until it finds the queue empty.  So every packet queued leaves, and in
 * order.  A CPU sends one quota; other CPUs may be adding as fast as it
 * sends (a flood of probes, each answered), and it must not stay here
 * with bottom halves off for as long as they do: the rest is the
 * kworker's (tx_deferred).
 */
void mpdt_xmit_queued(struct mpdt_sock *msk)
{
	struct sk_buff_head *q = &msk->tx_queue;

	/* Ours, if it is empty, went with another sender's quota. */
	if (skb_queue_empty_lockless(q))
		return;
	spin_lock_bh(&q->lock);
	if (!msk->tx_sending) {
		msk->tx_sending = true;
		if (send_quota(msk))
			defer_rest(msk);
		else
			msk->tx_sending = false;
	}
	spin_unlock_bh(&q->lock);
}

void mpdt_xmit_init(struct mpdt_sock *msk)
{
	skb_queue_head_init(&msk->tx_queue);
	INIT_WORK(&msk->tx_work, tx_work);
}

/* Unbound: the CPU that deferred may be the one a flood keeps busy.
 * The kworker's sock_put() may free the socket, and with it the module's
 * last reference: destroy_workqueue() waits for it to return.
 */
int mpdt_output_init(void)
{
	mpdt_tx_wq = alloc_workqueue("mpdt_tx", WQ_UNBOUND, 0);
	return mpdt_tx_wq ? 0 : -ENOMEM;
}

void mpdt_output_exit(void)
{
	destroy_workqueue(mpdt_tx_wq);
}

/* The source address of everything @c sends: its own once known (a
 * connection's addresses never change), else the socket's bound one.
 */
static const struct mpdt_addr *local_addr(const struct mpdt_conn *c)
{
	return c->local.family ? &c->local : &c->msk->bound;
}

/* IPsec policies may select on ports. */
static bool xfrm_may_match_ports(const struct net *net)
{
#ifdef CONFIG_XFRM
	return READ_ONCE(net->xfrm.policy_count[XFRM_POLICY_OUT]) ||
	       READ_ONCE(net->xfrm.policy_count[XFRM_POLICY_OUT +
						 XFRM_POLICY_MAX]);
#else
	return false;
#endif
}

/* Whether an IPv4 route of ours can depend on the source port.  For
 * locally generated packets policies 0 and 2 hash addresses only.
 */
static bool route_per_entropy_v4(const struct net *net)
{
#ifdef CONFIG_IP_ROUTE_MULTIPATH
	u8 policy = READ_ONCE(net->ipv4.sysctl_fib_multipath_hash_policy);
	u32 fields = READ_ONCE(net->ipv4.sysctl_fib_multipath_hash_fields);

	if (policy == 1 ||
	    (policy == 3 && (fields & FIB_MULTIPATH_HASH_FIELD_SRC_PORT)))
		return true;
#endif
#ifdef CONFIG_IP_MULTIPLE_TABLES
	if (READ_ONCE(net->ipv4.fib_rules_require_fldissect))
		return true;
#endif
	return xfrm_may_match_ports(net);
}

static struct rtable *route_v4(struct mpdt_conn *c, struct flowi4 *fl4)
{
	struct net *net = c->msk->mn->net;
	bool per_entropy = route_per_entropy_v4(net);
	struct rtable *rt;

	if (!per_entropy) {
		rt = dst_cache_get_ip4(&c->dst_cache, &fl4->saddr);
		if (rt)
			return rt;
	}
	rt = ip_route_output_key(net, fl4);
	if (IS_ERR(rt))
		return rt;
	/* The peer's address became a subnet's broadcast address (one was
	 * added), or a route of a VRF or a rule's table makes it one: MPDT
	 * is unicast only (addr.c mpdt_addr_is_unicast()), as TCP is.
	 */
	if (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST)) {
		ip_rt_put(rt);
		return ERR_PTR(-ENETUNREACH);
	}
	if (!per_entropy)
		dst_cache_set_ip4(&c->dst_cache, &rt->dst, fl4->saddr);
	return rt;
}

/* The socket's say in its routes, as a UDP socket's: SO_BINDTODEVICE
 * (a link-local peer's own link instead, which addr.c checked against
 * it), SO_MARK and its owner's uid.  The mark goes on every packet too, so
 * that a netfilter rule that reroutes DATA or a PROBE (ip_route_me_harder(),
 * with their owner, the socket) looks up what we looked up; feedback,
 * which leaves as the tunnel's, would be rerouted without the device and
 * uid.  A new device or mark resets the cached route, but a connection
 * keeps the source address its first route chose.
 */
static void route_key(struct mpdt_conn *c, struct sk_buff *skb, int *oif)
{
	const struct sock *sk = &c->msk->inet.sk;

	*oif = c->peer.scope_id ?: READ_ONCE(sk->sk_bound_dev_if);
	skb->mark = READ_ONCE(sk->sk_mark);
	if (*oif == c->rt_oif && skb->mark == c->rt_mark)
		return;
	dst_cache_reset(&c->dst_cache);
	c->rt_oif = *oif;
	c->rt_mark = skb->mark;
}

static void xmit_v4(struct mpdt_conn *c, struct sk_buff *skb, u16 ev)
{
	const struct mpdt_addr *local = local_addr(c);
	struct mpdt_net *mn = c->msk->mn;
	struct mpdt_tx_args a = {
		.sport	= ev_port(mn, ev),
		.dport	= htons(mn->params.udp_port),
	};
	struct flowi4 fl4 = {
		.daddr		= c->peer.v4,
		.saddr		= local->family == AF_INET ? local->v4 : 0,
		.flowi4_proto	= IPPROTO_UDP,
		.flowi4_uid	= sock_net_uid(mn->net, &c->msk->inet.sk),
		.fl4_sport	= a.sport,
		.fl4_dport	= a.dport,
	};
	struct rtable *rt;

	route_key(c, skb, &fl4.flowi4_oif);
	fl4.flowi4_mark = skb->mark;
	rt = route_v4(c, &fl4);
	if (IS_ERR(rt)) {
		tx_drop(mn, skb);
		return;
	}
	if (!c->local.family) {
		c->local.family = AF_INET;
		c->local.v4 = fl4.saddr;
	}
	a.in4.saddr = fl4.saddr;
	a.in4.daddr = fl4.daddr;
	a.ttl = ip4_dst_hoplimit(&rt->dst);
	queue_to_send(c, skb, &rt->dst, &a);
}

/* Whether IPv6 multipath hashing can look at the source port or the
 * flow label; policies 0 and 2 hash the flow label of local packets.
 */
static bool mp_hash_per_entropy_v6(const struct net *net)
{
	u32 fields = ip6_multipath_hash_fields(net);

	return ip6_multipath_hash_policy(net) != 3 ||
	       (fields & (FIB_MULTIPATH_HASH_FIELD_SRC_PORT |
			  FIB_MULTIPATH_HASH_FIELD_FLOWLABEL));
}

static bool rt6_is_multipath(const struct dst_entry *dst)
{
	const struct rt6_info *rt = container_of(dst, struct rt6_info, dst);
	const struct fib6_info *f;
	bool mp;

	rcu_read_lock();
	f = rcu_dereference(rt->from);
	mp = f && (READ_ONCE(f->fib6_nsiblings) ||
		   (f->nh && nexthop_is_multipath(f->nh)));
	rcu_read_unlock();
	return mp;
}

/* Rules or IPsec policies that match ports make every IPv6 route of ours
 * depend on the entropy.
 */
static bool rules_per_entropy_v6(const struct net *net)
{
#ifdef CONFIG_IPV6_MULTIPLE_TABLES
	if (READ_ONCE(net->ipv6.fib6_rules_require_fldissect))
		return true;
#endif
	return xfrm_may_match_ports(net);
}

/* The hash policy only matters on a multipath route (@dst, just looked
 * up), so the cache is checked after the lookup it may save.
 */
static struct dst_entry *route_v6(struct mpdt_conn *c, struct flowi6 *fl6)
{
	struct net *net = c->msk->mn->net;
	bool per_entropy = rules_per_entropy_v6(net);
	struct dst_entry *dst;

	if (!per_entropy) {
		dst = dst_cache_get_ip6(&c->dst_cache, &fl6->saddr);
		if (dst)
			return dst;
	}
	/* The MPDT socket (AF_INET6: only it names IPv6 peers), whose bound
	 * device makes the lookup keep to that device, as for UDP.
	 */
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, &c->msk->inet.sk, fl6,
					      NULL);
	if (IS_ERR(dst) || per_entropy ||
	    (mp_hash_per_entropy_v6(net) && rt6_is_multipath(dst)))
		return dst;
	dst_cache_set_ip6(&c->dst_cache, dst, &fl6->saddr);
	return dst;
}

/* The entropy also goes in the IPv6 flow label (never 0: "no label"). */
static void xmit_v6(struct mpdt_conn *c, struct sk_buff *skb, u16 ev)
{
	struct mpdt_net *mn = c->msk->mn;
	struct mpdt_tx_args a = {
		.label	= htonl(ev + 1),
		.sport	= ev_port(mn, ev),
		.dport	= htons(mn->params.udp_port),
		.v6	= true,
	};
	struct flowi6 fl6 = {
		.daddr		= c->peer.v6,
		.flowi6_proto	= IPPROTO_UDP,
		.flowi6_uid	= sock_net_uid(mn->net, &c->msk->inet.sk),
		.flowlabel	= a.label,
		.fl6_sport	= a.sport,
		.fl6_dport	= a.dport,
	};
	const struct mpdt_addr *local = local_addr(c);
	struct dst_entry *dst;

	if (local->family == AF_INET6)
		fl6.saddr = local->v6;
	route_key(c, skb, &fl6.flowi6_oif);
	fl6.flowi6_mark = skb->mark;
	dst = route_v6(c, &fl6);
	if (IS_ERR(dst)) {
		tx_drop(mn, skb);
		return;
	}
	if (!c->local.family) {
		c->local.family = AF_INET6;
		c->local.v6 = fl6.saddr;
	}
	a.in6.saddr = fl6.saddr;
	a.in6.daddr = fl6.daddr;
	a.ttl = ip6_dst_hoplimit(dst);
	queue_to_send(c, skb, dst, &a);
}

static void xmit(struct mpdt_conn *c, struct sk_buff *skb, u16 ev)
{
	struct mpdt_net *mn = c->msk->mn;

	if (!skb) {
		mpdt_stat_inc(mn, MPDT_STAT_TX_ERR);
		return;
	}
	mpdt_stat_add(mn, MPDT_STAT_TX_PKTS, skb_pkts(skb));
	mpdt_stat_add(mn, MPDT_STAT_TX_BYTES, skb->len);
	if (c->peer.family == AF_INET6)
		xmit_v6(c, skb, ev);
	else
		xmit_v4(c, skb, ev);
}

/* The PSN a packet names, for its tracepoint. */
static u32 named_psn(const struct mpdt_pkt *pkt)
{
	switch (pkt->hdr.type) {
	case MPDT_T_DATA:
		return pkt->data.psn;
	case MPDT_T_SACK:
		return pkt->sack.epsn;
	case MPDT_T_NACK:
		return pkt->nack.psn;
	default:
		return pkt->probe.sack_base;
	}
}

/* Bursts.  New DATA packets that the engine sends one after the other on
 * one entropy leave as one UDP GSO skb (SKB_GSO_UDP_L4) of gso_size = MPDT
 * header + payload: the first packet's header is in the skb's head, each
 * later one's in the slot before its payload in the message's pages
 * (txmsg.c), so cutting the skb every gso_size bytes, in the NIC (USO) or
 * in software (__udp_gso_segment()), gives exactly the packets that
 * would have been sent one by one, each with its own UDP header and
 * checksum.  One route, one IP and one qdisc traversal per burst instead
 * of per packet.  Retransmissions and control packets go alone.
 */

/* Whether the stack can send our GSO skbs: udp_send_skb() refuses UDP GSO
 * over IPsec, and so does MPDT.
 */
static bool burst_allowed(const struct mpdt_conn *c)
{
	return !xfrm_may_match_ports(c->msk->mn->net);
}

/* Pacing (pacing.h): a socket that asked for SO_MAX_PACING_RATE, and that
 * fq told it paces it (fq_classify() sets sk_pacing_status), has the
 * departure times of its connections' packets spaced; any other sends at
 * once and stamps nothing.  fq tells only a socket that is one flow to
 * it, out of TCP_CLOSE (socket.c ask_for_pacing()).
 */
bool mpdt_tx_paced(struct mpdt_eng *e, u64 *max_rate)
{
	struct sock *sk = &mpdt_eng_conn(e)->msk->inet.sk;

	/* Pairs with fq_classify()'s smp_store_release(). */
	if (smp_load_acquire(&sk->sk_pacing_status) != SK_PACING_FQ)
		return false;
	*max_rate = READ_ONCE(sk->sk_max_pacing_rate);
	return *max_rate != ~0UL;
}

/* What the sending half sends goes to the host's queues as its socket's
 * (hostq.c), with its departure time @at if paced.  Without one, fq
 * paces the socket at its sk_pacing_rate, SO_MAX_PACING_RATE's.
 */
static struct sk_buff *socket_sends(struct mpdt_conn *c, struct sk_buff *skb,
				    u64 at)
{
	if (!skb)
		return NULL;
	mpdt_hostq_charge(c, skb);
	if (at)
		skb_set_delivery_time(skb, at, true);
	return skb;
}

/* Send the held burst, if any: a single packet as it is. */
void mpdt_xmit_flush(struct mpdt_eng *e)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct mpdt_burst *b = &c->burst;
	struct sk_buff *skb = b->skb;

	if (!skb)
		return;
	b->skb = NULL;
	if (b->pkts > 1) {
		skb_shinfo(skb)->gso_size = b->seg;
		skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
		skb_shinfo(skb)->gso_segs = b->pkts;
		/* udp_set_csum() leaves a GSO skb's checksum to the
		 * segmentation, which wants it partial from the UDP header
		 * that the tunnel pushes in front of ours.
		 */
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_headroom(skb) - sizeof(struct udphdr);
		skb->csum_offset = offsetof(struct udphdr, check);
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_TX_GSO);
	}
	xmit(c, socket_sends(c, skb, b->at), b->ev);
}

/* Append @h and its payload to the held burst (the engine flushes at
 * the burst's end), if it fits: the same entropy, every packet before it
 * full, room in the skb.  Its header goes into its slot: a packet sent
 * anew, in a burst, is its slot's only writer and reader.
 */
static bool burst_append(struct mpdt_conn *c, const struct mpdt_pkt *h,
			 const struct mpdt_txmsg *tm)
{
	u32 hlen = MPDT_DATA_HLEN, plen = h->data.payload_len;
	struct mpdt_burst *b = &c->burst;
	struct sk_buff *skb = b->skb;
	u8 hdr[MPDT_DATA_HLEN];

	if (!skb || !plen || b->ev != h->hdr.ev || b->last != b->seg ||
	    hlen + plen > b->seg || skb->len + b->seg > MPDT_GSO_MAX_BYTES)
		return false;
	mpdt_wire_encode(h, hdr);
	if (!mpdt_txmsg_attach(skb, tm, h->data.offset, plen, hdr))
		return false;
	b->pkts++;
	b->last = hlen + plen;
	return true;
}

/* A new DATA packet: held in the burst, or starting one. */
static void xmit_new_data(struct mpdt_conn *c, const struct mpdt_pkt *h,
			  const struct mpdt_txmsg *tm)
{
	struct mpdt_burst *b = &c->burst;
	struct sk_buff *skb;

	if (burst_append(c, h, tm))
		return;
	mpdt_xmit_flush(&c->eng);
	skb = pkt_alloc(h, tm);
	if (!skb) {
		xmit(c, NULL, h->hdr.ev);
		return;
	}
	*b = (struct mpdt_burst){
		.skb = skb,
		.at = c->eng.tx_at,
		.seg = skb->len,
		.last = skb->len,
		.pkts = 1,
		.ev = h->hdr.ev,
	};
}

/* The engine's transmit action: the packet it built, from our port to
 * the peer's, with @m's bytes for DATA.
 */
void mpdt_xmit(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
	       const struct mpdt_eng_txmsg *m)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	u32 payload = pkt->hdr.type == MPDT_T_DATA ? pkt->data.payload_len : 0;
	const struct mpdt_txmsg *tm = NULL;
	struct mpdt_pkt h = *pkt;
	struct sk_buff *skb;

	h.hdr.src_port = c->msk->port;
	h.hdr.dst_port = ntohs(c->peer.port);
	if (payload)
		tm = container_of(m, struct mpdt_txmsg, core);
	mpdt_stat_inc(c->msk->mn, mpdt_stat_for_tx(pkt->hdr.type));
	trace_mpdt_xmit(&h, named_psn(&h), payload);
	if (pkt->hdr.type == MPDT_T_DATA && !(pkt->hdr.flags & MPDT_F_RETX) &&
	    burst_allowed(c)) {
		xmit_new_data(c, &h, tm);
		return;
	}
	mpdt_xmit_flush(e);
	if (mpdt_pkt_is_feedback(pkt)) {
		skb = feedback_room(c->msk) ? pkt_alloc(&h, tm) : NULL;
		xmit(c, skb, pkt->hdr.ev);
	} else {
		skb = pkt_alloc(&h, tm);
		xmit(c, socket_sends(c, skb, e->tx_at), pkt->hdr.ev);
	}
}
