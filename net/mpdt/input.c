// SPDX-License-Identifier: GPL-2.0
/*
 * Receive path: the UDP tunnel socket hands every datagram on the MPDT
 * port here.  Nothing from the network is trusted: the header is decoded
 * and validated (wire.c) before the socket and connection are looked up,
 * and every rejected packet is counted by reason and dropped.  Packets
 * rejected before they reach a connection are freed with a drop reason,
 * so that drop monitors (dropwatch, perf's skb:kfree_skb, pwru) see them;
 * MPDT's own, finer reason is the counter.  What reaches a connection is
 * consumed: the engine counts what it refuses.
 */
#include <linux/filter.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/dsfield.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "protocol.h"

/* What the outer headers said about the packet. */
struct mpdt_rcv {
	struct mpdt_addr from;
	struct mpdt_addr to;
	bool ce;
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
	const struct rtable *rt;

	if (skb->pkt_type != PACKET_HOST)
		return false;
	if (skb->protocol == htons(ETH_P_IPV6))
		return !ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
	rt = skb_rtable(skb);
	return !ipv4_is_multicast(ip_hdr(skb)->daddr) &&
	       !ipv4_is_lbcast(ip_hdr(skb)->daddr) &&
	       !(rt && (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST)));
}

/* The engine times a DATA or PROBE only against the quiet and reassembly
 * times (mpdt_eng_quiet_ns(): 2 s by default): the time of the last tick,
 * at most one behind, serves them without reading the clocksource for
 * every packet (a burst arrives here cut into its packets; TCP reads the
 * clock once per GSO skb).  SACKs and NACKs time RTTs and timers, and so
 * read it; so does every packet when a quiet time as short as a few
 * ticks was configured.
 */
static u64 rcv_clock(const struct mpdt_net *mn, u8 type)
{
	if ((type == MPDT_T_DATA || type == MPDT_T_PROBE) &&
	    mpdt_eng_quiet_ns(&mn->params) >= MPDT_COARSE_QUIET_MIN_NS)
		return ktime_get_coarse_ns();
	return mpdt_now();
}

static void dispatch(struct mpdt_sock *msk, const struct mpdt_pkt *pkt,
		     struct sk_buff *skb, struct mpdt_rcv *r)
{
	struct mpdt_rx_payload payload = {
		.skb = skb,
		.off = sizeof(struct udphdr) + pkt->payload_off,
	};
	struct mpdt_net *mn = msk->mn;
	u8 type = pkt->hdr.type;
	struct mpdt_conn *c;

	r->from.port = htons(pkt->hdr.src_port);
	c = mpdt_conn_find(msk, &r->from);
	if (!c && mpdt_sock_closed(msk)) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_NO_SOCKET);
		return;
	}
	if (!c) {
		/* Only a sender opens a connection; SACKs need one. */
		if (type == MPDT_T_DATA || type == MPDT_T_PROBE)
			c = mpdt_conn_create(msk, true, &r->from, GFP_ATOMIC);
		else
			mpdt_stat_inc(mn, MPDT_STAT_DROP_NO_CONN);
		if (!c)
			return;
		/* Answer from the address the peer chose, as TCP does: a
		 * host with several addresses would otherwise answer from
		 * whichever its route prefers, which the peer ignores.
		 */
		c->local = r->to;
	}
	if (mpdt_eng_on_packet(&c->eng, pkt, r->ce, &payload,
			       rcv_clock(mn, type)))
		mpdt_conn_heard(c);
}

static enum skb_drop_reason drop(struct mpdt_net *mn, enum mpdt_stat why,
				 enum skb_drop_reason reason)
{
	mpdt_stat_inc(mn, why);
	return reason;
}

/* The socket's filters judge every packet as they would a UDP socket's
 * (udp_queue_rcv_one_skb()): its cgroup's BPF ingress programs (systemd's
 * IPAddressDeny=, for one), SO_ATTACH_FILTER and the LSM; an skb from the
 * memory reserves is refused too.  The tunnel socket's encap_rcv runs
 * before UDP's own call, and for the tunnel.  A packet cut short is
 * refused: MPDT has no use for part of one.
 */
static bool filters_pass(struct mpdt_sock *msk, struct sk_buff *skb)
{
	unsigned int len = skb->len;

	return !sk_filter_trim_cap(&msk->inet.sk, skb,
				   sizeof(struct udphdr)) && skb->len == len;
}

static enum skb_drop_reason mpdt_rcv(struct mpdt_net *mn, struct sk_buff *skb)
{
	u32 len = skb->len - sizeof(struct udphdr);
	u8 hdr[MPDT_MAX_HLEN];
	enum mpdt_wire_err err;
	struct mpdt_sock *msk;
	enum skb_drop_reason reason = SKB_NOT_DROPPED_YET;
	struct mpdt_rcv r = {};
	struct sk_buff_head later;
	struct mpdt_pkt pkt;

	mpdt_stat_inc(mn, MPDT_STAT_RX_PKTS);
	if (!outer_headers(skb, &r) || skb->len < sizeof(struct udphdr))
		return drop(mn, MPDT_STAT_DROP_SHORT,
			    SKB_DROP_REASON_PKT_TOO_SMALL);
	if (!to_this_host(skb))
		return drop(mn, MPDT_STAT_DROP_NOT_HOST,
			    SKB_DROP_REASON_OTHERHOST);
	/* Like tx_bytes: MPDT header and payload, not the UDP header. */
	mpdt_stat_add(mn, MPDT_STAT_RX_BYTES, len);
	if (skb_copy_bits(skb, sizeof(struct udphdr), hdr,
			  min_t(u32, len, sizeof(hdr))))
		return drop(mn, MPDT_STAT_DROP_SHORT,
			    SKB_DROP_REASON_PKT_TOO_SMALL);
	err = mpdt_wire_decode(hdr, len, &pkt);
	if (err)
		return drop(mn, mpdt_stat_for_wire_err(err),
			    err == MPDT_WIRE_SHORT ?
			    SKB_DROP_REASON_PKT_TOO_SMALL :
			    SKB_DROP_REASON_NOT_SPECIFIED);
	if (r.ce)
		mpdt_stat_inc(mn, MPDT_STAT_RX_CE);

	msk = mpdt_port_lookup_rcu(mn, pkt.hdr.dst_port);
	/* An AF_INET socket cannot name an IPv6 peer: not for it. */
	if (!msk || (msk->inet.sk.sk_family == AF_INET &&
		     r.from.family == AF_INET6))
		return drop(mn, MPDT_STAT_DROP_NO_SOCKET,
			    SKB_DROP_REASON_NO_SOCKET);
	if (!filters_pass(msk, skb))
		return drop(mn, MPDT_STAT_DROP_FILTERED,
			    SKB_DROP_REASON_SOCKET_FILTER);
	__skb_queue_head_init(&later);
	spin_lock(&msk->lock);
	if (msk->closing) {
		reason = drop(mn, MPDT_STAT_DROP_NO_SOCKET,
			      SKB_DROP_REASON_NO_SOCKET);
	} else {
		msk->tx_later = &later;
		dispatch(msk, &pkt, skb, &r);
		msk->tx_later = NULL;
	}
	spin_unlock(&msk->lock);
	mpdt_xmit_later(mn, &later);
	return reason;
}

/* udp_tunnel encap_rcv: skb->data is at the UDP header, checksum done. */
int mpdt_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mpdt_net *mn = rcu_dereference_sk_user_data(sk);
	enum skb_drop_reason reason = SKB_DROP_REASON_NO_SOCKET;

	if (mn)
		reason = mpdt_rcv(mn, skb);
	if (reason)
		kfree_skb_reason(skb, reason);
	else
		consume_skb(skb);
	return 0;
}
