// SPDX-License-Identifier: GPL-2.0
/*
 * Building MPDT packets and sending them through the netns UDP tunnel
 * socket.  The entropy value becomes the UDP source port and is also put
 * in the route lookup, so a multipath route hashes each entropy on its
 * own instead of one cached route pinning them all.
 */
#include <linux/skbuff.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "protocol.h"

#define MPDT_SKB_HEADROOM \
	ALIGN(MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(struct udphdr), 16)

static struct sk_buff *pkt_alloc(const struct mpdt_pkt *h, u32 payload)
{
	u32 hlen = mpdt_wire_hlen(h->hdr.type);
	struct sk_buff *skb;

	skb = alloc_skb(MPDT_SKB_HEADROOM + hlen + payload, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, MPDT_SKB_HEADROOM);
	mpdt_wire_encode(h, skb_put(skb, hlen));
	return skb;
}

/* The UDP source port of entropy @ev.  Replies echo the peer's entropy,
 * which the peer chose in its own range: folded into ours, so that no
 * value a peer sends can make port 0 or leave [entropy-base,
 * entropy-base + entropies), which the operator opened.
 */
static __be16 ev_port(const struct mpdt_net *mn, u16 ev)
{
	u32 n = max(1U, READ_ONCE(mn->params.entropies));

	return htons(READ_ONCE(mn->params.entropy_base) + ev % n);
}

static void xmit_v4(struct mpdt_conn *c, struct sk_buff *skb,
		    struct socket *tunnel, u16 ev)
{
	struct mpdt_net *mn = c->msk->mn;
	__be16 sport = ev_port(mn, ev);
	__be16 dport = htons(mn->params.udp_port);
	struct flowi4 fl4 = {
		.daddr		= c->peer.v4,
		.saddr		= c->msk->bound.family == AF_INET ?
				  c->msk->bound.v4 : 0,
		.flowi4_proto	= IPPROTO_UDP,
		.fl4_sport	= sport,
		.fl4_dport	= dport,
	};
	struct rtable *rt;

	rt = ip_route_output_key(mn->net, &fl4);
	if (IS_ERR(rt)) {
		mpdt_stat_inc(mn, MPDT_STAT_TX_ERR);
		kfree_skb(skb);
		return;
	}
	/* ECT(0) so the fabric marks congestion instead of dropping. */
	udp_tunnel_xmit_skb(rt, tunnel->sk, skb, fl4.saddr, fl4.daddr,
			    INET_ECN_ECT_0, ip4_dst_hoplimit(&rt->dst),
			    htons(IP_DF), sport, dport, false, false);
}

/* The entropy also goes in the IPv6 flow label (never 0: "no label"). */
static void xmit_v6(struct mpdt_conn *c, struct sk_buff *skb,
		    struct socket *tunnel, u16 ev)
{
	struct mpdt_net *mn = c->msk->mn;
	__be16 sport = ev_port(mn, ev);
	__be16 dport = htons(mn->params.udp_port);
	struct flowi6 fl6 = {
		.daddr		= c->peer.v6,
		.flowi6_proto	= IPPROTO_UDP,
		.flowlabel	= htonl(ev + 1),
		.fl6_sport	= sport,
		.fl6_dport	= dport,
	};
	struct dst_entry *dst;

	if (c->msk->bound.family == AF_INET6)
		fl6.saddr = c->msk->bound.v6;
	dst = ipv6_stub->ipv6_dst_lookup_flow(mn->net, tunnel->sk, &fl6, NULL);
	if (IS_ERR(dst)) {
		mpdt_stat_inc(mn, MPDT_STAT_TX_ERR);
		kfree_skb(skb);
		return;
	}
	udp_tunnel6_xmit_skb(dst, tunnel->sk, skb, NULL, &fl6.saddr,
			     &fl6.daddr, INET_ECN_ECT_0, ip6_dst_hoplimit(dst),
			     fl6.flowlabel, sport, dport, false);
}

static void xmit(struct mpdt_conn *c, struct sk_buff *skb, u16 ev)
{
	struct mpdt_net *mn = c->msk->mn;
	bool v6 = c->peer.family == AF_INET6;
	struct socket *tunnel;

	if (!skb) {
		mpdt_stat_inc(mn, MPDT_STAT_TX_ERR);
		return;
	}
	mpdt_stat_inc(mn, MPDT_STAT_TX_PKTS);
	mpdt_stat_add(mn, MPDT_STAT_TX_BYTES, skb->len);
	rcu_read_lock();
	tunnel = v6 ? rcu_dereference(mn->tunnel6) :
		      rcu_dereference(mn->tunnel);
	if (!tunnel) {
		mpdt_stat_inc(mn, MPDT_STAT_TX_ERR);
		kfree_skb(skb);
	} else if (v6) {
		xmit_v6(c, skb, tunnel, ev);
	} else {
		xmit_v4(c, skb, tunnel, ev);
	}
	rcu_read_unlock();
}

static void fill_common(struct mpdt_conn *c, struct mpdt_pkt *h, u8 type,
			u16 flags, u32 nonce, u16 ev)
{
	h->hdr.type = type;
	h->hdr.flags = flags;
	h->hdr.src_port = c->msk->port;
	h->hdr.dst_port = ntohs(c->peer.port);
	h->hdr.nonce = nonce;
	h->hdr.ev = ev;
}

void mpdt_send_data(struct mpdt_conn *c, u32 psn, u16 flags, u32 prev_psn)
{
	const struct mpdt_sb_pkt *p = mpdt_sb_at(&c->sb, psn);
	const struct mpdt_txmsg *m = p->owner;
	struct mpdt_pkt h = {
		.data = {
			.psn = psn,
			.msg_id = m->id,
			.offset = p->offset,
			.msg_len = m->len,
			.ts = p->sent_ns,
			.payload_len = p->len,
			.prev_psn = prev_psn,
		},
	};
	struct sk_buff *skb;

	fill_common(c, &h, MPDT_T_DATA, flags, c->nonce, p->ev);
	skb = pkt_alloc(&h, p->len);
	if (skb)
		skb_put_data(skb, m->data + p->offset, p->len);
	c->last_ev = p->ev;
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_TX_DATA);
	xmit(c, skb, p->ev);
}

/* SACKs and NACKs go back on the entropy of the packet they answer. */
void mpdt_send_sack(struct mpdt_conn *c, const struct mpdt_sack *s,
		    u16 ev, u16 flags)
{
	struct mpdt_pkt h = { .sack = *s };

	fill_common(c, &h, MPDT_T_SACK, flags, c->rx_nonce, ev);
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_TX_SACK);
	xmit(c, pkt_alloc(&h, 0), ev);
}

void mpdt_send_nack(struct mpdt_conn *c, const struct mpdt_nack *n, u16 ev,
		    u16 flags)
{
	struct mpdt_pkt h = { .nack = *n };

	fill_common(c, &h, MPDT_T_NACK, flags, c->rx_nonce, ev);
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_TX_NACK);
	xmit(c, pkt_alloc(&h, 0), ev);
}

void mpdt_send_probe(struct mpdt_conn *c, u16 ev, u64 now)
{
	struct mpdt_pkt h = {
		.probe = { .sack_base = c->sb.una, .ts = now },
	};

	fill_common(c, &h, MPDT_T_PROBE, 0, c->nonce, ev);
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_TX_PROBE);
	xmit(c, pkt_alloc(&h, 0), ev);
}
