// SPDX-License-Identifier: GPL-2.0
/*
 * The receiving half of a connection: placing DATA payloads into the
 * message they belong to (in any order), delivering each message once
 * when complete, and answering with coalesced SACKs (STrack §3.3.1),
 * NACKs and probe answers.  Everything here runs under msk->lock.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "protocol.h"

/* A DATA or PROBE with a nonce we have not seen is a new incarnation of the
 * peer's sending half: forget the old one's partial messages.  The nonce
 * it replaced stays refused, so its late packets cannot flip us back.
 */
static bool rx_adopt_nonce(struct mpdt_conn *c, u32 nonce)
{
	if (c->rx_active && nonce == c->rx_nonce)
		return true;
	if (c->rx_active && c->rx_had_prev && nonce == c->rx_prev_nonce) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_STALE_NONCE);
		return false;
	}
	if (c->rx_active) {
		mpdt_conn_purge_rx(c);
		mpdt_rx_init(&c->rx, c->rx_bits, c->rx.window);
		c->rx_prev_nonce = c->rx_nonce;
		c->rx_had_prev = true;
	}
	c->rx_nonce = nonce;
	c->rx_active = true;
	return true;
}

static struct mpdt_rxmsg *rxmsg_find(struct mpdt_conn *c, u32 id)
{
	struct mpdt_rxmsg *m;

	hash_for_each_possible(c->rx_msgs, m, hnode, id)
		if (m->id == id)
			return m;
	return NULL;
}

/* A message is admitted whole: its first packet reserves all the memory
 * it will need (struct, page slots, pages) against SO_RCVBUF.  Partial
 * messages can then never hold each other's room hostage, and a peer
 * cannot make us hold more than the buffer.  An empty socket admits any
 * message, so one larger than the buffer still gets through.
 */
static u32 rxmsg_reserve(const struct mpdt_data *d)
{
	u32 npages = DIV_ROUND_UP(d->msg_len, PAGE_SIZE);

	return sizeof(struct mpdt_rxmsg) +
	       npages * (sizeof(struct page *) + PAGE_SIZE);
}

static struct mpdt_rxmsg *rxmsg_admit(struct mpdt_conn *c,
				      const struct mpdt_data *d)
{
	struct sock *sk = &c->msk->inet.sk;
	int rmem = atomic_read(&sk->sk_rmem_alloc);
	u32 need = rxmsg_reserve(d);
	struct mpdt_rxmsg *m;

	if (rmem && rmem + need > READ_ONCE(sk->sk_rcvbuf))
		return ERR_PTR(-ENOBUFS);
	m = kmem_cache_zalloc(mpdt_rxmsg_cache, GFP_ATOMIC);
	if (!m)
		return ERR_PTR(-ENOBUFS);
	m->npages = DIV_ROUND_UP(d->msg_len, PAGE_SIZE);
	if (m->npages) {
		m->pages = kcalloc(m->npages, sizeof(*m->pages),
				   GFP_ATOMIC | __GFP_NOWARN);
		if (!m->pages) {
			kmem_cache_free(mpdt_rxmsg_cache, m);
			return ERR_PTR(-ENOBUFS);
		}
	}
	m->id = d->msg_id;
	m->len = d->msg_len;
	m->charged = need;
	atomic_add(need, &sk->sk_rmem_alloc);
	hash_add(c->rx_msgs, &m->hnode, m->id);
	return m;
}

static struct mpdt_rxmsg *rxmsg_get(struct mpdt_conn *c,
				    const struct mpdt_data *d)
{
	struct mpdt_rxmsg *m = rxmsg_find(c, d->msg_id);

	if (m)
		return m->len == d->msg_len ? m : ERR_PTR(-EPROTO);
	return rxmsg_admit(c, d);
}

/* Pages come as payload arrives, out of the message's reservation. */
static struct page *rxmsg_page(struct mpdt_rxmsg *m, u32 idx)
{
	if (!m->pages[idx])
		m->pages[idx] = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
	return m->pages[idx];
}

static int rxmsg_place(struct mpdt_rxmsg *m, const struct sk_buff *skb,
		       u32 skb_off, u32 offset, u32 len)
{
	while (len) {
		u32 poff = offset % PAGE_SIZE;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		struct page *page = rxmsg_page(m, offset / PAGE_SIZE);

		if (!page)
			return -ENOBUFS;
		if (skb_copy_bits(skb, skb_off, page_address(page) + poff, n))
			return -EPROTO;
		skb_off += n;
		offset += n;
		len -= n;
	}
	return 0;
}

static void rxmsg_deliver(struct mpdt_conn *c, struct mpdt_rxmsg *m)
{
	struct mpdt_sock *msk = c->msk;

	hash_del(&m->hnode);
	m->from = c->peer;
	list_add_tail(&m->node, &msk->rx_ready);
	c->msgs_rcvd++;
	mpdt_stat_inc(msk->mn, MPDT_STAT_MSG_RX);
	msk->inet.sk.sk_data_ready(&msk->inet.sk);
}

static void send_sack(struct mpdt_conn *c, const u32 *probe_base,
		      u64 echo_ts, u16 ev, u16 flags)
{
	struct mpdt_sack s;

	mpdt_rx_build_sack(&c->rx, probe_base, &s);
	s.echo_ts = echo_ts;
	c->sacks_sent++;
	mpdt_send_sack(c, &s, ev, flags);
}

static void send_nack(struct mpdt_conn *c, const struct mpdt_pkt *pkt,
		      u8 code, bool ce)
{
	struct mpdt_nack n = {
		.psn = pkt->data.psn,
		.code = code,
		.epsn = c->rx.epsn,
		.echo_ts = pkt->data.ts,
	};

	c->nacks_sent++;
	mpdt_send_nack(c, &n, pkt->hdr.ev, ce ? MPDT_F_CE : 0);
}

/* A new packet whose predecessor on its in-order stream has not arrived is
 * counted as reordered.  Inside a ParaLet flowlet, which follows one path,
 * that means the predecessor was lost (paralet.txt §3): NACK it at once.
 */
static void note_reordering(struct mpdt_conn *c, const struct mpdt_pkt *pkt)
{
	const struct mpdt_data *d = &pkt->data;
	struct mpdt_nack n = {
		.psn = d->prev_psn,
		.code = MPDT_NACK_FLOWLET_GAP,
		.epsn = c->rx.epsn,
		.echo_ts = d->ts,
	};

	if (d->prev_psn == d->psn ||
	    mpdt_rx_check(&c->rx, d->prev_psn) != MPDT_RX_NEW)
		return;
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_RX_REORDERED);
	if (pkt->hdr.flags & MPDT_F_FLOWLET) {
		c->nacks_sent++;
		mpdt_send_nack(c, &n, pkt->hdr.ev, 0);
	}
}

/* Place a new packet; returns the NACK code to answer with, or 0. */
static u8 rx_accept(struct mpdt_conn *c, const struct mpdt_pkt *pkt,
		    const struct sk_buff *skb, u32 skb_off,
		    struct mpdt_rx_arrival *a)
{
	const struct mpdt_data *d = &pkt->data;
	struct mpdt_net *mn = c->msk->mn;
	struct mpdt_rxmsg *m;
	int err;

	if (pkt->hdr.flags & MPDT_F_TRIMMED) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_TRIMMED);
		return MPDT_NACK_TRIMMED;
	}
	m = rxmsg_get(c, d);
	err = PTR_ERR_OR_ZERO(m);
	if (!err)
		err = rxmsg_place(m, skb, skb_off, d->offset, d->payload_len);
	if (err == -EPROTO) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_MSG_MISMATCH);
		return 0;
	}
	if (err) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_NO_BUFFER);
		return MPDT_NACK_NO_BUFFER;
	}
	m->rcvd += d->payload_len;
	a->filled_hole = mpdt_rx_mark(&c->rx, d->psn, d->payload_len, a->ce);
	if (m->rcvd == m->len)
		rxmsg_deliver(c, m);
	return 0;
}

void mpdt_rx_on_data(struct mpdt_conn *c, const struct mpdt_pkt *pkt,
		     const struct sk_buff *skb, u32 skb_off, bool ce)
{
	const struct mpdt_params *p = &c->msk->mn->params;
	const struct mpdt_ack_policy pol = {
		.coalesce_bytes = p->ack_bytes,
		.on_epsn = p->ack_on_epsn,
		.on_ce = p->ack_on_ce,
	};
	const struct mpdt_data *d = &pkt->data;
	struct mpdt_rx_arrival a = {
		.ce = ce,
		.ack_request = pkt->hdr.flags & MPDT_F_AR,
		.retransmission = pkt->hdr.flags & MPDT_F_RETX,
	};
	u8 nack;

	if (!rx_adopt_nonce(c, pkt->hdr.nonce))
		return;
	a.verdict = mpdt_rx_check(&c->rx, d->psn);
	if (a.verdict == MPDT_RX_OUT_OF_WINDOW) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_OUT_OF_WINDOW);
		return;
	}
	if (a.verdict == MPDT_RX_DUPLICATE) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_RX_DUP_DATA);
	} else {
		note_reordering(c, pkt);
		nack = rx_accept(c, pkt, skb, skb_off, &a);
		if (nack) {
			send_nack(c, pkt, nack, ce);
			return;
		}
	}
	if (mpdt_rx_ack_due(&c->rx, &pol, &a))
		send_sack(c, NULL, d->ts, pkt->hdr.ev, ce ? MPDT_F_CE : 0);
}

/* §3.3.2 probe: answer at once with the segment the sender asked for. */
void mpdt_rx_on_probe(struct mpdt_conn *c, const struct mpdt_pkt *pkt)
{
	if (!rx_adopt_nonce(c, pkt->hdr.nonce))
		return;
	send_sack(c, &pkt->probe.sack_base, pkt->probe.ts, pkt->hdr.ev,
		  MPDT_F_PROBE_ACK);
}
