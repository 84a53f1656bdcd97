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

/* The smallest segment a message may be cut into (wire-format.rst,
 * "Message assembly"), the least "payload" allows: it bounds the
 * per-message segment bitmap.
 */
#define MPDT_MIN_SEG		64

#define MPDT_REASSEMBLY_MIN_NS	(10ULL * NSEC_PER_SEC)

/* A live sender with anything unacknowledged sends at least once per
 * rto-max (its RTO backoff stops there; every node is assumed to share
 * the timing parameters, as it shares udp-port).  An incarnation quiet
 * for twice that has no live sender behind it.
 */
u64 mpdt_rx_quiet_ns(const struct mpdt_net *mn)
{
	return 2ULL * READ_ONCE(mn->params.rto_max_us) * NSEC_PER_USEC;
}

/* An incarnation silent for longer than its sender can keep retrying
 * (max-retries + 1 timeouts, each at most rto-max, then it fails the
 * peer) has no sender left: it crashed, failed us or closed without
 * lingering, and holds none of its messages any more.  Its partial
 * messages can go without anyone waiting for them.  A message's own lack
 * of progress would not do: a live sender whose repairs keep getting lost
 * could still complete it after we dropped the bytes we acknowledged.
 */
static u64 reassembly_timeout_ns(const struct mpdt_net *mn)
{
	u64 retrying = (READ_ONCE(mn->params.max_retries) + 2ULL) *
		       READ_ONCE(mn->params.rto_max_us) * NSEC_PER_USEC;

	/* Timers can be late by far more than a short rto-max (a stalled
	 * virtual machine): expiring early would fail live senders.
	 */
	return max(retrying, MPDT_REASSEMBLY_MIN_NS);
}

/* Forget the current incarnation and refuse its packets from now on. */
static void rx_retire(struct mpdt_conn *c)
{
	mpdt_conn_purge_rx(c);
	mpdt_rx_init(&c->rx, c->rx_bits, c->rx.window);
	c->rx_prev_nonce = c->rx_nonce;
	c->rx_had_prev = true;
	c->rx_active = false;
}

/* A DATA or PROBE with a nonce we have not seen is a new incarnation of the
 * peer's sending half: forget the old one and its partial messages.  But
 * only once the old one has gone quiet: otherwise one blind packet with a
 * made-up nonce would tear down a live transfer.  A restarted peer's first
 * packets are refused for at most the quiet time, well within its
 * retries.
 */
static bool rx_adopt_nonce(struct mpdt_conn *c, u32 nonce, u64 now)
{
	struct mpdt_net *mn = c->msk->mn;

	if (c->rx_active && nonce == c->rx_nonce) {
		c->rx_heard_ns = now;
		return true;
	}
	if (c->rx_had_prev && nonce == c->rx_prev_nonce) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_STALE_NONCE);
		return false;
	}
	if (c->rx_active &&
	    mpdt_since(now, c->rx_heard_ns) < mpdt_rx_quiet_ns(mn)) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_NEW_NONCE);
		return false;
	}
	if (c->rx_active)
		rx_retire(c);
	c->rx_nonce = nonce;
	c->rx_active = true;
	c->rx_heard_ns = now;
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

static u32 rxmsg_seg_longs(u32 len)
{
	return BITS_TO_LONGS(DIV_ROUND_UP(len, MPDT_MIN_SEG));
}

/* A message is admitted whole: its first packet reserves all the memory
 * it will need (struct, page slots, pages, segment bitmap) against
 * SO_RCVBUF.  Partial messages can then never hold each other's room
 * hostage, and a peer cannot make us hold more than the buffer.  An empty
 * socket admits any message, so one larger than the buffer still gets
 * through.
 */
static u32 rxmsg_truesize(const struct mpdt_data *d)
{
	u32 npages = DIV_ROUND_UP(d->msg_len, PAGE_SIZE);

	return kmem_cache_size(mpdt_rxmsg_cache) +
	       rxmsg_seg_longs(d->msg_len) * sizeof(long) +
	       npages * (sizeof(struct page *) + PAGE_SIZE);
}

/* Room for @need: the socket's, and this peer's share of it.  Half the
 * buffer per peer keeps room for others while one peer's messages are
 * incomplete (slow, crashed or hostile); a peer holding nothing may
 * always start one message.
 */
static int rxmsg_room(struct mpdt_conn *c, u32 need)
{
	struct sock *sk = &c->msk->inet.sk;
	int rmem = atomic_read(&sk->sk_rmem_alloc);
	int rcvbuf = READ_ONCE(sk->sk_rcvbuf);

	if (rmem && rmem + need > rcvbuf) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_NO_BUFFER);
		return -ENOBUFS;
	}
	if (c->rx_reserved && c->rx_reserved + need > rcvbuf / 2) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_PEER_QUOTA);
		return -ENOBUFS;
	}
	/* The protocol's memory limits (mpdt_mem) and the socket owner's
	 * memory cgroup, as for UDP.
	 */
	if (need > sk->sk_forward_alloc &&
	    !__sk_mem_schedule(sk, need, SK_MEM_RECV)) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_NO_BUFFER);
		return -ENOBUFS;
	}
	return 0;
}

static struct mpdt_rxmsg *rxmsg_alloc(const struct mpdt_data *d)
{
	struct mpdt_rxmsg *m = kmem_cache_zalloc(mpdt_rxmsg_cache, GFP_ATOMIC);
	u32 nlongs = rxmsg_seg_longs(d->msg_len);

	if (!m)
		return NULL;
	m->npages = DIV_ROUND_UP(d->msg_len, PAGE_SIZE);
	if (m->npages)
		m->pages = kcalloc(m->npages, sizeof(*m->pages),
				   GFP_ATOMIC | __GFP_NOWARN);
	if (nlongs)
		m->segs = kcalloc(nlongs, sizeof(long),
				  GFP_ATOMIC | __GFP_NOWARN);
	if ((m->npages && !m->pages) || (nlongs && !m->segs)) {
		kfree(m->pages);
		kfree(m->segs);
		kmem_cache_free(mpdt_rxmsg_cache, m);
		return NULL;
	}
	return m;
}

static struct mpdt_rxmsg *rxmsg_admit(struct mpdt_conn *c,
				      const struct mpdt_data *d)
{
	struct sock *sk = &c->msk->inet.sk;
	u32 need = rxmsg_truesize(d);
	struct mpdt_rxmsg *m;

	if (rxmsg_room(c, need))
		return ERR_PTR(-ENOBUFS);
	m = rxmsg_alloc(d);
	if (!m) {
		sk_mem_reclaim(sk);
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_NO_BUFFER);
		return ERR_PTR(-ENOBUFS);
	}
	m->id = d->msg_id;
	m->len = d->msg_len;
	m->charged = need;
	sk_mem_charge(sk, need);
	atomic_add(need, &sk->sk_rmem_alloc);
	c->rx_reserved += need;
	hash_add(c->rx_msgs, &m->hnode, m->id);
	mpdt_conn_gc_arm(c->msk);
	return m;
}

/* Partial messages abandoned by their sender; returns how many.  Their
 * incarnation is retired with them, so that should its sender be alive
 * after all (a stalled host, a long partition), its later packets are
 * refused and it fails the peer, with an error to its application,
 * instead of completing a message whose acknowledged bytes are gone.
 */
u32 mpdt_rx_expire(struct mpdt_conn *c, u64 now)
{
	struct mpdt_rxmsg *m;
	u32 n = 0;
	int bkt;

	if (!c->rx_reserved ||
	    mpdt_since(now, c->rx_heard_ns) <
	    reassembly_timeout_ns(c->msk->mn))
		return 0;
	hash_for_each(c->rx_msgs, bkt, m, hnode)
		n++;
	rx_retire(c);
	mpdt_stat_add(c->msk->mn, MPDT_STAT_RX_MSG_EXPIRED, n);
	return n;
}

/* The segment size, from the first packet that is not the message's
 * last: every such packet carries it, at least MPDT_MIN_SEG.  A last
 * packet that came earlier must sit on the grid it defines.
 */
static bool rxmsg_learn_seg(struct mpdt_rxmsg *m, u32 len)
{
	if (len < MPDT_MIN_SEG)
		return false;
	if (m->have_last &&
	    (m->last_off % len || m->len - m->last_off > len))
		return false;
	m->seg = len;
	if (m->have_last)
		__set_bit(m->last_off / len, m->segs);
	return true;
}

/* Claim the bytes [off, off + len) of @m for one new PSN.  They must be
 * exactly one segment of the message's grid, not claimed before under
 * another PSN: then every byte is counted once, and a message completes
 * only when each byte was written.  -EEXIST: held already; -EINVAL: off
 * the grid.
 */
static int rxmsg_claim(struct mpdt_rxmsg *m, u32 off, u32 len)
{
	bool last = off + len == m->len;

	if (!m->seg && last) {
		/* Its grid is unknown: only its own position can be checked
		 * (a multiple of the segment, which is at least its length).
		 */
		if (m->have_last)
			return m->last_off == off ? -EEXIST : -EINVAL;
		if (off && len > off)
			return -EINVAL;
		m->have_last = true;
		m->last_off = off;
		return 0;
	}
	if (!m->seg && !rxmsg_learn_seg(m, len))
		return -EINVAL;
	if (off % m->seg || len != min(m->seg, m->len - off))
		return -EINVAL;
	return __test_and_set_bit(off / m->seg, m->segs) ? -EEXIST : 0;
}

/* Undo a claim whose bytes could not be stored. */
static void rxmsg_unclaim(struct mpdt_rxmsg *m, u32 off)
{
	if (m->seg)
		__clear_bit(off / m->seg, m->segs);
	else
		m->have_last = false;
}

static struct mpdt_rxmsg *rxmsg_get(struct mpdt_conn *c,
				    const struct mpdt_data *d)
{
	struct mpdt_rxmsg *m = rxmsg_find(c, d->msg_id);

	if (m) {
		if (m->len == d->msg_len)
			return m;
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_MSG_MISMATCH);
		return ERR_PTR(-EPROTO);
	}
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
	c->rx_reserved -= m->charged;
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
	if (IS_ERR(m))
		return PTR_ERR(m) == -EPROTO ? 0 : MPDT_NACK_NO_BUFFER;
	/* A packet off the grid, or bytes another PSN already brought, is
	 * not acknowledged: only a broken or hostile sender sends one.
	 */
	if (rxmsg_claim(m, d->offset, d->payload_len)) {
		mpdt_stat_inc(mn, MPDT_STAT_DROP_OVERLAP);
		return 0;
	}
	err = rxmsg_place(m, skb, skb_off, d->offset, d->payload_len);
	if (err) {
		rxmsg_unclaim(m, d->offset);
		mpdt_stat_inc(mn, err == -EPROTO ? MPDT_STAT_DROP_SHORT :
						   MPDT_STAT_DROP_NO_BUFFER);
		return err == -EPROTO ? 0 : MPDT_NACK_NO_BUFFER;
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

	if (!rx_adopt_nonce(c, pkt->hdr.nonce, mpdt_now()))
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

/* A socket in time-wait (timewait.c) answers, for the incarnation it
 * knows, a DATA it already holds and a PROBE; nothing else.
 */
void mpdt_rx_time_wait(struct mpdt_conn *c, const struct mpdt_pkt *pkt)
{
	const struct mpdt_data *d = &pkt->data;
	bool probe = pkt->hdr.type == MPDT_T_PROBE;
	bool dup = pkt->hdr.type == MPDT_T_DATA &&
		   mpdt_rx_check(&c->rx, d->psn) == MPDT_RX_DUPLICATE;

	if (!c->rx_active || pkt->hdr.nonce != c->rx_nonce || !(dup || probe)) {
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_NO_SOCKET);
		return;
	}
	if (probe)
		send_sack(c, &pkt->probe.sack_base, pkt->probe.ts, pkt->hdr.ev,
			  MPDT_F_PROBE_ACK);
	else
		send_sack(c, NULL, d->ts, pkt->hdr.ev, 0);
}

/* §3.3.2 probe: answer at once with the segment the sender asked for. */
void mpdt_rx_on_probe(struct mpdt_conn *c, const struct mpdt_pkt *pkt)
{
	if (!rx_adopt_nonce(c, pkt->hdr.nonce, mpdt_now()))
		return;
	send_sack(c, &pkt->probe.sack_base, pkt->probe.ts, pkt->hdr.ev,
		  MPDT_F_PROBE_ACK);
}
