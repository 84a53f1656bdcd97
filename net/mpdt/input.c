// SPDX-License-Identifier: GPL-2.0
/*
 * Receive path: the UDP tunnel socket hands every datagram on the MPDT
 * port here, a burst from a peer on this host whole.  Nothing from the
 * network is trusted: the header is decoded and validated (wire.c)
 * before the socket and connection are looked up, and every rejected
 * packet is counted by reason and dropped.  Packets rejected before they
 * reach a connection are freed with a drop reason, so that drop monitors
 * (dropwatch, perf's skb:kfree_skb, pwru) see them; MPDT's own, finer
 * reason is the counter.  What reaches a connection is consumed: the
 * engine counts what it refuses.
 */
#include <linux/filter.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/dsfield.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/l3mdev.h>
#include <net/udp.h>

#include "protocol.h"

/* What the outer headers said about the skb, and what its packets share. */
struct mpdt_rcv {
	struct mpdt_addr from;
	struct mpdt_addr to;
	bool ce;
	bool burst;			/* several packets in the skb */
	/* The connection the burst's packets went to, whose SACKs wait
	 * for the last of them (mpdt_eng_hold_acks()).
	 */
	struct mpdt_conn *acks_held;
	struct sk_buff *skb;
	u32 len;			/* UDP payload */
	u32 size;			/* of each packet but the last */
	u32 n;				/* packets */
	struct mpdt_rx_frag_at frag_at;
};

static bool outer_headers(const struct sk_buff *skb, struct mpdt_rcv *r)
{
	switch (skb->protocol) {
	case htons(ETH_P_IP):
		r->from.family = AF_INET;
		r->from.v4 = ip_hdr(skb)->saddr;
		r->to.family = AF_INET;
		r->to.v4 = ip_hdr(skb)->daddr;
		r->ce = INET_ECN_is_ce(ip_hdr(skb)->tos);
		return true;
	case htons(ETH_P_IPV6):
		r->from.family = AF_INET6;
		r->from.v6 = ipv6_hdr(skb)->saddr;
		r->to.family = AF_INET6;
		r->to.v6 = ipv6_hdr(skb)->daddr;
		/* A link-local peer is the one on the link it came in by. */
		r->from.scope_id = ipv6_iface_scope_id(&r->from.v6,
						       inet6_iif(skb));
		r->to.scope_id = ipv6_iface_scope_id(&r->to.v6,
						     inet6_iif(skb));
		r->ce = INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
		return true;
	}
	return false;
}

/* MPDT is unicast only.  A broadcast or multicast DATA or PROBE would be
 * answered by every host that received it, to a source nobody checked:
 * an amplifier for spoofed packets.
 */
static bool to_this_host(const struct sk_buff *skb)
{
	__be32 daddr;

	/* No device: it went while the packet was on its way up. */
	if (!skb->dev || skb->pkt_type != PACKET_HOST)
		return false;
	if (skb->protocol == htons(ETH_P_IPV6))
		return !ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
	/* UDP dropped the route; the tunnel socket's IP_PKTINFO (netns.c)
	 * names the packet's own destination only for a local unicast
	 * address (fib_compute_spec_dst()), or for 0.0.0.0 when the device
	 * has no address to name.
	 */
	daddr = ip_hdr(skb)->daddr;
	return !ipv4_is_multicast(daddr) && !ipv4_is_lbcast(daddr) &&
	       !ipv4_is_zeronet(daddr) &&
	       PKTINFO_SKB_CB(skb)->ipi_spec_dst.s_addr == daddr;
}

/* The engine times a DATA or PROBE only against the quiet and reassembly
 * times (mpdt_eng_quiet_ns(): 2 s by default): the time of the last tick,
 * at most one behind, serves them without reading the clocksource for
 * every packet (TCP reads the clock once per GSO skb, which over a
 * network holds one packet of ours).  SACKs and NACKs time RTTs and
 * timers, and so read it; so does every packet when a quiet time as short
 * as a few ticks was configured.
 */
static u64 rcv_clock(const struct mpdt_net *mn, u8 type)
{
	if ((type == MPDT_T_DATA || type == MPDT_T_PROBE) &&
	    mpdt_eng_quiet_ns(&mn->params) >= MPDT_COARSE_QUIET_MIN_NS)
		return ktime_get_coarse_ns();
	return mpdt_now();
}

/* The device an IPv4 packet came in by, as the IPv4 tunnel socket's
 * IP_PKTINFO names it (netns.c): in a VRF, the VRF's table holds its
 * subnets' broadcast addresses.  IPv6 has none.
 */
static int rcv_ifindex(const struct mpdt_rcv *r)
{
	return r->from.family == AF_INET ?
	       PKTINFO_SKB_CB(r->skb)->ipi_ifindex : 0;
}

/* A packet from a peer with no connection.  Only a sender opens one
 * (SACKs need one), and only from a host's address: the answers to a
 * subnet's broadcast address, which IP takes as a source where rp_filter
 * is off, would reach every host there.
 */
static struct mpdt_conn *stranger_conn(struct mpdt_sock *msk,
				       const struct mpdt_rcv *r, u8 type)
{
	struct mpdt_net *mn = msk->mn;
	struct mpdt_conn *c;

	if (type != MPDT_T_DATA && type != MPDT_T_PROBE) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_NO_CONN);
		return NULL;
	}
	if (!mpdt_addr_is_unicast(mn->net, &r->from, rcv_ifindex(r))) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_NOT_UNICAST);
		return NULL;
	}
	c = mpdt_conn_create(msk, true, &r->from, GFP_ATOMIC);
	/* Answer from the address the peer chose, as TCP does: a host with
	 * several addresses would otherwise answer from whichever its route
	 * prefers, which the peer ignores.
	 */
	if (c)
		c->local = r->to;
	return c;
}

/* Before a packet of the burst for another connection, or after its
 * last: a peer's own bursts have one connection, but a forged one may
 * name several, and looking one up may evict another.
 */
static void release_acks(struct mpdt_rcv *r)
{
	if (!r->acks_held)
		return;
	mpdt_eng_release_acks(&r->acks_held->eng);
	r->acks_held = NULL;
}

static void dispatch(struct mpdt_sock *msk, const struct mpdt_pkt *pkt,
		     struct mpdt_rcv *r, u32 off)
{
	struct mpdt_rx_payload payload = {
		.skb = r->skb,
		.off = sizeof(struct udphdr) + off + pkt->payload_off,
		.burst = r->burst,
		.frag_at = &r->frag_at,
	};
	struct mpdt_net *mn = msk->mn;
	u8 type = pkt->hdr.type;
	struct mpdt_conn *c;

	r->from.port = htons(pkt->hdr.src_port);
	if (r->acks_held && r->acks_held->peer.port != r->from.port)
		release_acks(r);
	/* A burst's packets after its first go to the connection it found:
	 * the same address and port, and nothing was forgotten since.
	 */
	c = r->acks_held ?: mpdt_conn_find(msk, &r->from);
	if (!c && mpdt_sock_closed(msk)) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_NO_SOCKET);
		return;
	}
	if (!c)
		c = stranger_conn(msk, r, type);
	if (!c)
		return;
	if (r->burst && !r->acks_held) {
		mpdt_eng_hold_acks(&c->eng);
		r->acks_held = c;
	}
	if (mpdt_eng_on_packet(&c->eng, pkt, r->ce, &payload,
			       rcv_clock(mn, type)))
		mpdt_conn_heard(c);
}

/* Whole-skb drops count every packet the skb carried. */
static enum skb_drop_reason drop(struct mpdt_net *mn, enum mpdt_stat why,
				 u32 pkts, enum skb_drop_reason reason)
{
	mpdt_stat_add(mn, why, pkts);
	return reason;
}

/* The socket's filters judge every skb as they would a UDP socket's
 * (udp_queue_rcv_one_skb()), a burst as one, as for a UDP socket that
 * takes GSO skbs: its cgroup's BPF ingress programs (systemd's
 * IPAddressDeny=, for one), SO_ATTACH_FILTER and the LSM; an skb from the
 * memory reserves is refused too.  UDP ran the tunnel socket's before it
 * queued the skb.  A packet cut short is refused: MPDT has no use for
 * part of one.
 */
static bool filters_pass(struct mpdt_sock *msk, struct sk_buff *skb)
{
	unsigned int len = skb->len;

	return !sk_filter_trim_cap(&msk->inet.sk, skb,
				   sizeof(struct udphdr)) && skb->len == len;
}

/* A socket bound to a device (SO_BINDTODEVICE) takes only what came in
 * by it, or by a device of it if it is a VRF's (l3mdev), as a UDP
 * socket's binding does (inet_bound_dev_eq()): the tunnel socket, bound
 * to none, took everything, from a VRF's devices only with sysctl
 * net.ipv4.udp_l3mdev_accept set.  @dev: the device it came in by
 * (rcv_dev(), a VRF's device itself, not the VRF).
 */
static bool bound_elsewhere(const struct mpdt_sock *msk,
			    const struct net_device *dev)
{
	int bound = READ_ONCE(msk->inet.sk.sk_bound_dev_if);

	return bound && bound != dev->ifindex &&
	       bound != l3mdev_master_ifindex_rcu(dev);
}

/* The packets an skb carries.  A UDP GSO skb, a burst from a peer on this
 * host (over a veth, from a container), is taken whole, not cut into an
 * skb per packet (design.rst section 5): its packets are @size bytes each
 * from the start of the UDP payload, the last one shorter, as the
 * sender's GSO cuts them (output.c).  0 for a GSO skb no MPDT sender
 * makes.
 */
static u32 rcv_packets(const struct sk_buff *skb, u32 len, u32 *size)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	u32 n;

	*size = len;
	if (!skb_is_gso(skb))
		return 1;
	*size = sh->gso_size;
	if ((sh->gso_type & ~SKB_GSO_DODGY) != SKB_GSO_UDP_L4 || !*size)
		return 0;
	n = DIV_ROUND_UP(len, *size);
	return n <= UDP_MAX_SEGMENTS ? n : 0;
}

/* The MPDT packet of @len bytes at @off in the UDP payload. */
static enum mpdt_wire_err decode_at(const struct sk_buff *skb, u32 off,
				    u32 len, struct mpdt_pkt *pkt)
{
	u8 hdr[MPDT_MAX_HLEN];

	if (skb_copy_bits(skb, sizeof(struct udphdr) + off, hdr,
			  min_t(u32, len, sizeof(hdr))))
		return MPDT_WIRE_SHORT;
	return mpdt_wire_decode(hdr, len, pkt);
}

/* The burst's later packets go to the socket the first one named. */
static void rcv_rest(struct mpdt_sock *msk, struct mpdt_rcv *r, u16 port)
{
	struct mpdt_net *mn = msk->mn;
	enum mpdt_wire_err err;
	struct mpdt_pkt pkt;
	u32 i, off;

	for (i = 1; i < r->n; i++) {
		off = i * r->size;
		err = decode_at(r->skb, off, min(r->size, r->len - off), &pkt);
		if (err) {
			mpdt_stat_inc(mn, mpdt_stat_for_wire_err(err));
			continue;
		}
		if (r->ce)
			mpdt_stat_inc(mn, MPDT_STAT_RX_CE);
		if (pkt.hdr.dst_port != port) {
			mpdt_stat_inc(mn, MPDT_STAT_DROP_NO_SOCKET);
			continue;
		}
		dispatch(msk, &pkt, r, off);
	}
}

/* Everything about the skb that needs no socket's lock: checked, counted
 * and, on success, the socket its first packet names in @msk.
 */
static enum skb_drop_reason rcv_check(struct mpdt_net *mn, struct mpdt_rcv *r,
				      struct mpdt_pkt *pkt,
				      struct mpdt_sock **msk)
{
	struct sk_buff *skb = r->skb;
	enum mpdt_wire_err err;

	if (skb->len < sizeof(struct udphdr)) {
		mpdt_stat_inc(mn, MPDT_STAT_RX_PKTS);
		return drop(mn, MPDT_STAT_DROP_SHORT, 1,
			    SKB_DROP_REASON_PKT_TOO_SMALL);
	}
	r->len = skb->len - sizeof(struct udphdr);
	r->n = rcv_packets(skb, r->len, &r->size);
	mpdt_stat_add(mn, MPDT_STAT_RX_PKTS, max(r->n, 1U));
	if (!r->n)
		return drop(mn, MPDT_STAT_DROP_BAD_LENGTH, 1,
			    SKB_DROP_REASON_NOT_SPECIFIED);
	if (!outer_headers(skb, r))
		return drop(mn, MPDT_STAT_DROP_SHORT, r->n,
			    SKB_DROP_REASON_PKT_TOO_SMALL);
	if (!to_this_host(skb))
		return drop(mn, MPDT_STAT_DROP_NOT_HOST, r->n,
			    SKB_DROP_REASON_OTHERHOST);
	/* Like tx_bytes: MPDT headers and payloads, not the UDP header. */
	mpdt_stat_add(mn, MPDT_STAT_RX_BYTES, r->len);
	err = decode_at(skb, 0, min(r->size, r->len), pkt);
	if (err)
		return drop(mn, mpdt_stat_for_wire_err(err), r->n,
			    err == MPDT_WIRE_SHORT ?
			    SKB_DROP_REASON_PKT_TOO_SMALL :
			    SKB_DROP_REASON_NOT_SPECIFIED);
	if (r->ce)
		mpdt_stat_inc(mn, MPDT_STAT_RX_CE);

	*msk = mpdt_port_lookup_rcu(mn, pkt->hdr.dst_port);
	/* An AF_INET socket cannot name an IPv6 peer, nor a socket bound
	 * to another device one that came in by this: not for it.
	 */
	if (!*msk || ((*msk)->inet.sk.sk_family == AF_INET &&
		      r->from.family == AF_INET6) ||
	    bound_elsewhere(*msk, skb->dev))
		return drop(mn, MPDT_STAT_DROP_NO_SOCKET, r->n,
			    SKB_DROP_REASON_NO_SOCKET);
	if (!filters_pass(*msk, skb))
		return drop(mn, MPDT_STAT_DROP_FILTERED, r->n,
			    SKB_DROP_REASON_SOCKET_FILTER);
	r->burst = r->n > 1;
	if (r->burst)
		mpdt_stat_inc(mn, MPDT_STAT_RX_GSO);
	return SKB_NOT_DROPPED_YET;
}

/* The skb's packets to their connections, under the socket's lock. */
static enum skb_drop_reason rcv_deliver(struct mpdt_sock *msk,
					struct mpdt_rcv *r,
					const struct mpdt_pkt *pkt)
{
	enum skb_drop_reason reason = SKB_NOT_DROPPED_YET;

	spin_lock(&msk->lock);
	if (msk->closing) {
		reason = drop(msk->mn, MPDT_STAT_DROP_NO_SOCKET, r->n,
			      SKB_DROP_REASON_NO_SOCKET);
	} else {
		dispatch(msk, pkt, r, 0);
		rcv_rest(msk, r, pkt->hdr.dst_port);
		release_acks(r);
	}
	spin_unlock(&msk->lock);
	mpdt_xmit_queued(msk);
	return reason;
}

static void rcv_free(struct sk_buff *skb, enum skb_drop_reason reason)
{
	if (reason)
		kfree_skb_reason(skb, reason);
	else
		consume_skb(skb);
}

/* To the CPU of the connection the skb's first packet names (steer.c).
 * A forged burst that names several connections goes whole to the first
 * one's, as it goes whole to the first one's socket.
 */
static bool rcv_steer(struct mpdt_sock *msk, struct mpdt_rcv *r,
		      const struct mpdt_pkt *pkt)
{
	struct mpdt_addr local = r->to, peer = r->from;
	struct mpdt_net *mn = msk->mn;

	if (!READ_ONCE(mn->params.rx_steer))
		return false;
	local.port = htons(pkt->hdr.dst_port);
	peer.port = htons(pkt->hdr.src_port);
	if (!mpdt_steer(msk, r->skb, &local, &peer))
		return false;
	/* @msk is valid until this softirq's RCU section ends. */
	mpdt_stat_inc(mn, MPDT_STAT_RX_STEERED);
	return true;
}

static void mpdt_rcv(struct mpdt_net *mn, struct sk_buff *skb)
{
	struct mpdt_rcv r = { .skb = skb };
	enum skb_drop_reason reason;
	struct mpdt_sock *msk;
	struct mpdt_pkt pkt;

	reason = rcv_check(mn, &r, &pkt, &msk);
	if (!reason && rcv_steer(msk, &r, &pkt))
		return;
	if (!reason)
		reason = rcv_deliver(msk, &r, &pkt);
	rcv_free(skb, reason);
}

/* An skb mpdt_steer() queued, on the CPU it was queued for.  rcv_check()
 * passed it and counted it: what it found is read again, not counted
 * again, and cannot fail on the same bytes.
 */
void mpdt_rcv_steered(struct sk_buff *skb)
{
	struct mpdt_sock *msk = mpdt_sk(skb->sk);
	struct mpdt_rcv r = { .skb = skb };
	enum skb_drop_reason reason;
	struct mpdt_pkt pkt;

	/* The reference is the queue's, and is put once the skb is done. */
	skb->sk = NULL;
	skb->destructor = NULL;
	r.len = skb->len - sizeof(struct udphdr);
	r.n = rcv_packets(skb, r.len, &r.size);
	r.burst = r.n > 1;
	outer_headers(skb, &r);
	decode_at(skb, 0, min(r.size, r.len), &pkt);
	rcu_read_lock();
	reason = rcv_deliver(msk, &r, &pkt);
	rcu_read_unlock();
	rcv_free(skb, reason);
	sock_put(&msk->inet.sk);
}

/* The device the skb came in by: UDP reused skb->dev's room once it
 * queued the skb (udp_set_dev_scratch()); the filters' programs read it.
 * Without a reference, as the stack itself keeps it: valid in this
 * softirq's RCU section, and gone from every skb that is kept (rx.c).
 */
static struct net_device *rcv_dev(struct sock *sk, const struct sk_buff *skb)
{
	int iif = PKTINFO_SKB_CB(skb)->ipi_ifindex;

#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		iif = IP6CB(skb)->iif;
#endif
	return dev_get_by_index_rcu(sock_net(sk), iif);
}

/* UDP leaves the checksum to the reader; it counts a bad one as its own
 * readers' (Udp InCsumErrors).  @unnecessary: UDP's word for it, read
 * before the device took its room back.
 */
static bool csum_ok(struct sock *sk, struct sk_buff *skb, bool unnecessary)
{
	if (unnecessary || !__udp_lib_checksum_complete(skb))
		return true;
	atomic_inc(&sk->sk_drops);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		__UDP6_INC_STATS(sock_net(sk), UDP_MIB_CSUMERRORS, 0);
		__UDP6_INC_STATS(sock_net(sk), UDP_MIB_INERRORS, 0);
		return false;
	}
#endif
	__UDP_INC_STATS(sock_net(sk), UDP_MIB_CSUMERRORS, 0);
	__UDP_INC_STATS(sock_net(sk), UDP_MIB_INERRORS, 0);
	return false;
}

/* One datagram off the tunnel socket, at its UDP payload. */
static void tunnel_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct mpdt_net *mn = rcu_dereference_sk_user_data(sk);
	enum skb_drop_reason reason = SKB_DROP_REASON_NO_SOCKET;
	bool unnecessary;

	/* UDP's scratch in the device's room says whether the checksum
	 * needs checking; a check that fails reports the device.
	 */
	unnecessary = udp_skb_csum_unnecessary(skb);
	skb->dev = rcv_dev(sk, skb);
	if (!csum_ok(sk, skb, unnecessary)) {
		reason = SKB_DROP_REASON_UDP_CSUM;
	} else if (mn) {
		__skb_push(skb, sizeof(struct udphdr));
		mpdt_rcv(mn, skb);
		return;
	}
	rcv_free(skb, reason);
}

/* Every datagram to the MPDT port queues on the tunnel socket as on any
 * UDP socket, a UDP GSO skb whole (netns.c).  Each is taken off at once,
 * in the softirq that queued it, or in another CPU's that got there
 * first: two datagrams that two CPUs hand over at one moment may be
 * handled in either order, as when two CPUs receive them.
 */
void mpdt_tunnel_data_ready(struct sock *sk)
{
	struct sk_buff *skb;
	int err;

	while ((skb = skb_recv_udp(sk, MSG_DONTWAIT, &err)))
		tunnel_rcv(sk, skb);
}
