// SPDX-License-Identifier: GPL-2.0
/*
 * The receiving half's glue: memory for the messages the engine assembles
 * (admitted whole against SO_RCVBUF, the protocol's limits and the memory
 * cgroup), holding each payload where it arrived, in the pages under its
 * skb's fragments or in the skb (or copying it into the message's pages
 * where holding would cost too much), and handing complete messages to
 * the socket, whose recvmsg() copies each byte once.
 * The engine (engine.c) decides what is accepted and acknowledged.
 * Everything here runs under msk->lock.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

#include "protocol.h"

static struct mpdt_rxmsg *rxmsg_of(struct mpdt_reasm *ra)
{
	return container_of(ra, struct mpdt_rxmsg, ra);
}

/* The peer picks Message IDs: keyed, so that it cannot pick them into one
 * bucket (MPDT_ENG_RX_PARTIAL_MAX bounds how many there are).
 */
static u32 rxmsg_hash(const struct mpdt_conn *c, u32 id)
{
	BUILD_BUG_ON((1 << MPDT_RXMSG_HASH_BITS) != MPDT_ENG_RX_PARTIAL_MAX / 8);
	return siphash_1u32(id, &c->msk->conn_key);
}

struct mpdt_reasm *mpdt_rx_find(struct mpdt_eng *e, u32 id)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct mpdt_rxmsg *m;

	hash_for_each_possible(c->rx_msgs, m, hnode, rxmsg_hash(c, id))
		if (m->ra.id == id)
			return &m->ra;
	return NULL;
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
	       mpdt_reasm_words(d->msg_len) * sizeof(u64) +
	       npages * (sizeof(struct page *) + PAGE_SIZE);
}

/* A peer's share of the buffer: half of it, so that others keep room
 * while one peer's messages are incomplete (slow, crashed or hostile),
 * and for @holding payloads an eighth of that more.  A held message is
 * charged the pages of a sender on this host, 32 KiB each, where it
 * reserved 4 KiB ones, 48 bytes per piece (3% of a 1400-byte payload,
 * once per run), and each page before the payloads that complete it
 * make their reservation spare: the eighth covers that, so that a
 * message whose reservation alone nearly fills the half (the largest,
 * MPDT_MSG_MAX, in a buffer of two) is held as a smaller one is, not
 * copied.  A peer scattering its payloads over pages on purpose (a page
 * each costs 23 times a payload) meets the share, and its payloads are
 * copied.
 */
static u32 rxmsg_share(int rcvbuf, bool holding)
{
	return rcvbuf / 2 + (holding ? rcvbuf / 16 : 0);
}

/* The socket has no room for @need more bytes (an empty one has). */
static bool rxmsg_sock_full(const struct mpdt_conn *c, u32 need)
{
	const struct sock *sk = &c->msk->inet.sk;
	int rmem = atomic_read(&sk->sk_rmem_alloc);

	return rmem && rmem + need > READ_ONCE(sk->sk_rcvbuf);
}

/* @need more bytes would take the peer over its share (a peer holding
 * nothing may always start one message).
 */
static bool rxmsg_over_share(const struct mpdt_conn *c, u32 need,
			     bool holding)
{
	int rcvbuf = READ_ONCE(c->msk->inet.sk.sk_rcvbuf);

	return c->rx_reserved &&
	       c->rx_reserved + need > rxmsg_share(rcvbuf, holding);
}

/* Room for @need more bytes, for a message or @holding a payload: the
 * socket's, and this peer's share of it.  Returns 0, with @need reserved
 * for rxmsg_charge(), or the drop counter.
 */
static enum mpdt_stat rxmsg_room(struct mpdt_conn *c, u32 need,
				 bool holding)
{
	if (rxmsg_sock_full(c, need))
		return MPDT_STAT_DROP_NO_BUFFER;
	if (rxmsg_over_share(c, need, holding))
		return MPDT_STAT_DROP_PEER_QUOTA;
	/* The protocol's memory limits (mpdt_mem) and the socket owner's
	 * memory cgroup, as for UDP; refused too while a SOL_SOCKET option
	 * owns the socket (rmem.c).
	 */
	if (!mpdt_rmem_reserve(c->msk, need))
		return MPDT_STAT_DROP_NO_BUFFER;
	return 0;
}

/* The peer's partial messages hold @bytes more, or (peer_holds_less())
 * fewer; msk->rx_senders counts the peers holding any.
 */
static void peer_holds_more(struct mpdt_conn *c, u32 bytes)
{
	if (!c->rx_reserved && bytes)
		c->msk->rx_senders++;
	c->rx_reserved += bytes;
}

static void peer_holds_less(struct mpdt_conn *c, u32 bytes)
{
	c->rx_reserved -= bytes;
	if (!c->rx_reserved && bytes)
		c->msk->rx_senders--;
}

/* @need bytes more are held for @m: sk_rmem_alloc and the peer's share,
 * of what rxmsg_room() reserved.
 */
static void rxmsg_charge(struct mpdt_conn *c, struct mpdt_rxmsg *m, u32 need)
{
	struct sock *sk = &c->msk->inet.sk;

	m->charged += need;
	atomic_add(need, &sk->sk_rmem_alloc);
	peer_holds_more(c, need);
}

static struct mpdt_rxmsg *rxmsg_alloc(const struct mpdt_data *d)
{
	struct mpdt_rxmsg *m = kmem_cache_zalloc(mpdt_rxmsg_cache, GFP_ATOMIC);
	u32 nwords = mpdt_reasm_words(d->msg_len);
	u64 *segs = NULL;

	if (!m)
		return NULL;
	m->npages = DIV_ROUND_UP(d->msg_len, PAGE_SIZE);
	if (m->npages)
		m->pages = kcalloc(m->npages, sizeof(*m->pages),
				   GFP_ATOMIC | __GFP_NOWARN);
	if (nwords)
		segs = kcalloc(nwords, sizeof(u64), GFP_ATOMIC | __GFP_NOWARN);
	if ((m->npages && !m->pages) || (nwords && !segs)) {
		kfree(m->pages);
		kfree(segs);
		kmem_cache_free(mpdt_rxmsg_cache, m);
		return NULL;
	}
	mpdt_reasm_init(&m->ra, d->msg_id, d->msg_len, segs);
	INIT_LIST_HEAD(&m->pieces);
	return m;
}

/* The longest message the peer may start now, for its SACKs: its part of
 * what the socket has left, capped by what its own share has left, less
 * what a reservation adds to a message's length (rxmsg_truesize(): a page
 * slot per page and the segment bitmap, 0.4%, the last page's rounding,
 * the struct); any from an empty socket.  The part: the room split evenly
 * among the peers with messages in progress (and this one, if it has
 * none), so that what they are told adds up to what there is.  Told the
 * whole room each, every sender into a reader slower than them started a
 * burst on the same room, and all but the first had it refused (NACK
 * NO_BUFFER).  Advice only: rx_admit() still takes any message that fits.
 * The protocol's and the memory cgroup's limits are left out: they move
 * with everyone's memory.
 */
u32 mpdt_rx_room(struct mpdt_eng *e)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct sock *sk = &c->msk->inet.sk;
	int rmem = atomic_read(&sk->sk_rmem_alloc);
	int rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	u32 room, share = rxmsg_share(rcvbuf, false);
	u32 senders = max(c->msk->rx_senders + !c->rx_reserved, 1U);

	if (!rmem)
		return MPDT_ROOM_MAX;
	room = (rcvbuf > rmem ? rcvbuf - rmem : 0) / senders;
	if (c->rx_reserved)
		room = min(room, share > c->rx_reserved ?
				 share - c->rx_reserved : 0);
	return room - min(room, room / 128 + PAGE_SIZE +
				kmem_cache_size(mpdt_rxmsg_cache));
}

/* How many of the oldest partial messages a full socket looks at for one
 * to evict.  A message that completes leaves the list, so the ones that
 * lag gather at its head; the bound keeps what a refused packet costs
 * small whatever the number of partial messages.
 */
#define MPDT_RX_EVICT_SCAN	32

/* Of the oldest partial messages of peers other than @c's, the one that
 * lags most goes, with every partial message of its incarnation
 * (mpdt_eng_rx_lag()).  Such a message is held by a sender that is gone
 * or never meant to finish it, or by a live one slower than its length
 * per reassembly time while the socket is full: that one fails with
 * ETIMEDOUT, as on expiry.  False if none lags.
 */
static bool rxmsg_evict_laggard(struct mpdt_conn *c)
{
	struct mpdt_rxmsg *m, *worst = NULL;
	u64 now = mpdt_now();
	u32 lag, most = 0;
	int seen = 0;

	list_for_each_entry(m, &c->msk->rx_partial, node) {
		if (++seen > MPDT_RX_EVICT_SCAN)
			break;
		if (m->conn == c)
			continue;
		lag = mpdt_eng_rx_lag(&m->conn->eng, &m->ra, now);
		if (lag > most) {
			most = lag;
			worst = m;
		}
	}
	if (!worst)
		return false;
	mpdt_eng_rx_evict(&worst->conn->eng);
	return true;
}

/* Room for a new message of @need bytes.  A socket without it first
 * makes it from partial messages that lag, for a peer within its share:
 * otherwise a few spoofed packets declaring large messages, kept heard
 * by PROBEs, would hold the buffer against every sender for as long as
 * the attacker liked.  Each message evicted cost its sender a packet.
 */
static enum mpdt_stat rxmsg_admit_room(struct mpdt_conn *c, u32 need)
{
	while (rxmsg_sock_full(c, need) &&
	       !rxmsg_over_share(c, need, false) && rxmsg_evict_laggard(c))
		;
	return rxmsg_room(c, need, false);
}

struct mpdt_reasm *mpdt_rx_admit(struct mpdt_eng *e,
				 const struct mpdt_data *d)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	u32 need = rxmsg_truesize(d);
	enum mpdt_stat full = rxmsg_admit_room(c, need);
	struct mpdt_rxmsg *m;

	if (full) {
		mpdt_stat_inc(c->msk->mn, full);
		return NULL;
	}
	m = rxmsg_alloc(d);
	if (!m) {
		mpdt_rmem_unreserve(c->msk, need);
		mpdt_stat_inc(c->msk->mn, MPDT_STAT_DROP_NO_BUFFER);
		return NULL;
	}
	rxmsg_charge(c, m, need);
	m->conn = c;
	hash_add(c->rx_msgs, &m->hnode, rxmsg_hash(c, m->ra.id));
	list_add_tail(&m->node, &c->msk->rx_partial);
	mpdt_conn_gc_arm(c->msk);
	return &m->ra;
}

/* Pages come as payload arrives, out of the message's reservation.
 * recvmsg() reads only the bytes copied into them; they are zeroed all
 * the same, so that no flaw could ever show the user old memory.
 */
static struct page *rxmsg_page(struct mpdt_rxmsg *m, u32 idx)
{
	if (!m->pages[idx])
		m->pages[idx] = alloc_page(GFP_ATOMIC | __GFP_NOWARN |
					   __GFP_ZERO);
	return m->pages[idx];
}

static int rxmsg_copy(struct mpdt_rxmsg *m, const struct mpdt_data *d,
		      const struct mpdt_rx_payload *p)
{
	u32 offset = d->offset, len = d->payload_len, skb_off = p->off;

	while (len) {
		u32 poff = offset % PAGE_SIZE;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		struct page *page = rxmsg_page(m, offset / PAGE_SIZE);

		if (!page)
			return -ENOBUFS;
		if (skb_copy_bits(p->skb, skb_off, page_address(page) + poff,
				  n))
			return -EPROTO;
		skb_off += n;
		offset += n;
		len -= n;
	}
	return 0;
}

/* A page's reservation is there so that the message can always be
 * finished by copying.  Once every byte of a page that was never
 * allocated has been claimed, nothing will be copied into it, and holding
 * the payload that completes it makes its reservation spare: a page is
 * not charged both as a reservation and as the held payloads that fill
 * it.
 *
 * Asked after the payload's bytes were claimed.  A page counts once: any
 * later packet touching it overlaps claimed bytes and is refused before it
 * is placed.  That rests on rx_accept() unclaiming only the packet it
 * failed to place, on nothing failing after a hold, and on a copied
 * payload allocating every page it spans (rxmsg_copy()), so that what a
 * copy's pages would have made spare is never counted.
 */
static u32 rxmsg_spare(const struct mpdt_rxmsg *m, u32 off, u32 len)
{
	u32 i, end = DIV_ROUND_UP(off + len, PAGE_SIZE), spare = 0;

	for (i = off / PAGE_SIZE; i < end; i++) {
		u32 start = i * PAGE_SIZE;

		if (!m->pages[i] &&
		    mpdt_reasm_has(&m->ra, start,
				   min_t(u32, PAGE_SIZE, m->ra.len - start)))
			spare += PAGE_SIZE;
	}
	return spare;
}

/* @add bytes join the message's charge and @spare bytes of its
 * reservation leave it, as one change: the room rxmsg_room() found for
 * the difference is the room used.
 */
static void rxmsg_recharge(struct mpdt_conn *c, struct mpdt_rxmsg *m,
			   u32 add, u32 spare)
{
	if (add >= spare) {
		rxmsg_charge(c, m, add - spare);
		return;
	}
	m->charged -= spare - add;
	peer_holds_less(c, spare - add);
	mpdt_rmem_release(c->msk, spare - add);
}

/* A hold costing @cost bytes takes the room it needs beyond the
 * reservation of the payload's pages that it makes spare.  The last step
 * of a hold that can fail (see rxmsg_spare()).
 */
static bool rxmsg_take(struct mpdt_conn *c, struct mpdt_rxmsg *m,
		       const struct mpdt_data *d, u32 cost)
{
	u32 spare = rxmsg_spare(m, d->offset, d->payload_len);

	if (cost > spare && rxmsg_room(c, cost - spare, true))
		return false;
	rxmsg_recharge(c, m, cost, spare);
	return true;
}

static void rxpiece_free(struct mpdt_rxpiece *pc)
{
	if (pc->in_skb) {
		consume_skb(pc->skb);	/* and @pc, in its cb */
		return;
	}
	put_page(pc->page);
	kmem_cache_free(mpdt_rxpiece_cache, pc);
}

/* The pages under bytes [@at, @end) of an skb's page fragments, one at a
 * time, after the page of its head (@head) when that is wanted too.
 */
struct rx_frags {
	const struct sk_buff *skb;
	struct page *head;
	u32 i;		/* the next fragment */
	u32 pos;	/* where it starts in the skb */
	u32 at;		/* the next byte wanted */
	u32 end;
};

/* From the first fragment, or from @from when it is not past @off. */
static void rx_frags_init(struct rx_frags *it, const struct sk_buff *skb,
			  u32 off, u32 len, const struct mpdt_rx_frag_at *from)
{
	it->skb = skb;
	it->head = NULL;
	it->i = 0;
	it->pos = skb_headlen(skb);
	if (from && from->i && from->pos <= off) {
		it->i = from->i;
		it->pos = from->pos;
	}
	it->at = max(off, it->pos);
	it->end = off + len;
}

/* After a walk that found bytes: where its last fragment began. */
static void rx_frags_save(const struct rx_frags *it,
			  struct mpdt_rx_frag_at *at)
{
	at->i = it->i - 1;
	at->pos = it->pos - skb_frag_size(&skb_shinfo(it->skb)->frags[at->i]);
}

/* The next fragment's part of the bytes: @len at @off in @page (0 and 0
 * for the head's page).
 */
static bool rx_frags_next(struct rx_frags *it, struct page **page, u32 *off,
			  u32 *len)
{
	const struct skb_shared_info *sh = skb_shinfo(it->skb);

	if (it->head) {
		*page = it->head;
		*off = 0;
		*len = 0;
		it->head = NULL;
		return true;
	}
	while (it->at < it->end && it->i < sh->nr_frags) {
		const skb_frag_t *f = &sh->frags[it->i++];
		u32 start = it->pos;

		it->pos += skb_frag_size(f);
		if (it->pos <= it->at)
			continue;
		*page = skb_frag_page(f);
		*off = skb_frag_off(f) + it->at - start;
		*len = min(it->pos, it->end) - it->at;
		it->at += *len;
		return true;
	}
	return false;
}

/* Whether bytes [@off, @off + @len) of @skb are all in page fragments:
 * beyond its head, and it has no frag list (IP reassembly's, copied).
 */
static bool rx_in_frags(const struct sk_buff *skb, u32 off, u32 len)
{
	return off >= skb_headlen(skb) && off + len <= skb->len &&
	       !skb_has_frag_list(skb);
}

static bool rxmsg_pinned(const struct mpdt_rxmsg *m, const struct page *head)
{
	u32 i;

	for (i = 0; i < MPDT_RX_PINNED; i++)
		if (m->pinned[i] == head)
			return true;
	return false;
}

/* The pages a hold would charge and their size (rx_pins_add()). */
struct rx_pins {
	struct page *heads[MAX_SKB_FRAGS + 1];	/* the fragments and a head */
	u32 n;
	u32 cost;
};

/* Adds the page under @page to what a hold pins beyond what @m has
 * charged: not the bytes an skb's truesize counts but the compound
 * pages behind them, 32 KiB of the task_frag of a sender on this host or
 * of a driver's page_frag cache, each charged whole.  A page among the
 * message's last MPDT_RX_PINNED was charged; one found again after it
 * left them is charged again, so the charge never falls short of what
 * is pinned.  False when a page is larger than the whole message: the
 * message would be charged more than it brings, and a peer could pin a
 * page per small message.
 */
static bool rx_pins_add(struct rx_pins *pins, const struct mpdt_rxmsg *m,
			struct page *page)
{
	struct page *head = compound_head(page);

	if ((pins->n && pins->heads[pins->n - 1] == head) ||
	    rxmsg_pinned(m, head))
		return true;
	if (page_size(head) > m->ra.len)
		return false;
	pins->heads[pins->n++] = head;
	pins->cost += page_size(head);
	return true;
}

/* Remembers the pages rx_pins_add() charged.  The ring holds no
 * references: the message's pieces keep every page in it.
 */
static void rxmsg_pin(struct mpdt_rxmsg *m, const struct rx_pins *pins)
{
	u32 i;

	BUILD_BUG_ON_NOT_POWER_OF_2(MPDT_RX_PINNED);
	for (i = 0; i < pins->n; i++)
		if (!rxmsg_pinned(m, pins->heads[i]))
			m->pinned[m->pinned_next++ % MPDT_RX_PINNED] =
				pins->heads[i];
}

/* Payloads mostly come in message order, and a held one then goes after
 * the others: recvmsg() sorts a message's pieces only when one came
 * before an earlier one (socket.c copy_message()), not every message's
 * hundreds.  @msg_off: where the payload held next starts.
 */
static void pieces_note_order(struct mpdt_rxmsg *m, u32 msg_off)
{
	if (!list_empty(&m->pieces) &&
	    list_last_entry(&m->pieces, struct mpdt_rxpiece,
			    node)->msg_off > msg_off)
		m->pieces_unsorted = true;
}

/* The message's last piece, if the payload at @poff in @page continues
 * its run: the next bytes of the message, in the same page, at most one
 * header after the run's last payload and as far as the run's others
 * are apart, every payload of the run before it full.  The piece and its
 * page reference then hold it too, with nothing to allocate or charge.
 */
static struct mpdt_rxpiece *run_continued(struct mpdt_rxmsg *m,
					  const struct mpdt_data *d,
					  struct page *page, u32 poff)
{
	struct mpdt_rxpiece *pc;
	u32 end;

	if (list_empty(&m->pieces))
		return NULL;
	pc = list_last_entry(&m->pieces, struct mpdt_rxpiece, node);
	if (pc->in_skb || pc->page != page ||
	    pc->msg_off + pc->len != d->offset || pc->len % pc->seg ||
	    d->payload_len > pc->seg)
		return NULL;
	end = pc->off + pc->len + (pc->len / pc->seg - 1) * pc->gap;
	if (poff < end || poff - end > MPDT_MAX_HLEN ||
	    (pc->len > pc->seg && poff - end != pc->gap))
		return NULL;
	return pc;
}

static void run_extend(struct mpdt_rxpiece *pc, const struct mpdt_data *d,
		       u32 poff)
{
	if (pc->len == pc->seg)
		pc->gap = poff - (pc->off + pc->len);
	pc->len += d->payload_len;
}

/* A payload all in page fragments is held by reference to their pages,
 * a piece per fragment or as the next of a run, and the skb goes: a
 * reference to it would keep the rest of it, and a burst's (input.c)
 * every other packet, for as long as this one is held.
 */
static bool rxmsg_hold_frags(struct mpdt_conn *c, struct mpdt_rxmsg *m,
			     const struct mpdt_data *d,
			     const struct mpdt_rx_payload *p)
{
	struct mpdt_rxpiece *pc, *next, *run = NULL;
	struct rx_pins pins;
	u32 cost = 0, poff, n;
	struct rx_frags it;
	struct page *page;
	LIST_HEAD(pieces);

	/* Not its 18 slots: they are written before they are read. */
	pins.n = 0;
	pins.cost = 0;
	rx_frags_init(&it, p->skb, p->off, d->payload_len, p->frag_at);
	while (rx_frags_next(&it, &page, &poff, &n)) {
		if (!rx_pins_add(&pins, m, page))
			goto fail;
		if (n == d->payload_len) {
			run = run_continued(m, d, page, poff);
			if (run)
				break;
		}
		pc = kmem_cache_alloc(mpdt_rxpiece_cache,
				      GFP_ATOMIC | __GFP_NOWARN);
		if (!pc)
			goto fail;
		pc->page = page;
		pc->in_skb = false;
		pc->off = poff;
		pc->msg_off = d->offset + (it.at - n - p->off);
		pc->len = n;
		pc->seg = n;
		pc->gap = 0;
		list_add_tail(&pc->node, &pieces);
		cost += sizeof(*pc);
	}
	if (cost || run)
		rx_frags_save(&it, p->frag_at);
	if (!rxmsg_take(c, m, d, pins.cost + cost))
		goto fail;
	rxmsg_pin(m, &pins);
	if (run) {
		run_extend(run, d, poff);
		return true;
	}
	list_for_each_entry(pc, &pieces, node)
		get_page(pc->page);
	pieces_note_order(m, d->offset);
	list_splice_tail(&pieces, &m->pieces);
	return true;
fail:
	list_for_each_entry_safe(pc, next, &pieces, node)
		kmem_cache_free(mpdt_rxpiece_cache, pc);
	return false;
}

/* What keeping the whole of @skb (no frag list) pins beyond what @m has
 * charged, in @pins: the pages of its head and fragments, or nothing
 * for a page-pool skb, whose share is in its truesize (the driver's
 * count).
 */
static bool rxmsg_skb_pins(const struct mpdt_rxmsg *m,
			   const struct sk_buff *skb, struct rx_pins *pins)
{
	struct rx_frags it;
	struct page *page;
	u32 poff, n;

	pins->n = 0;
	pins->cost = 0;
	if (skb->pp_recycle)
		return true;
	rx_frags_init(&it, skb, 0, skb->len, NULL);
	if (skb->head_frag)
		it.head = virt_to_head_page(skb->head);
	while (rx_frags_next(&it, &page, &poff, &n))
		if (!rx_pins_add(pins, m, page))
			return false;
	return true;
}

/* Any other payload of a packet that came alone is held in its skb (the
 * piece in its cb), which costs its truesize and the pages of its head
 * and fragments less the reservation it makes spare; copying its
 * payload, the payload.  It is held when nobody else holds it, when it
 * has no frag list (IP reassembly's, copied), when its truesize is at
 * most twice its payload beyond the sk_buff itself (a page-pool half
 * page per 1400 bytes is; a small payload in a large buffer is not), and
 * when the socket and the peer's share have room for what it adds to the
 * message's charge.  One that lowers the charge needs no
 * room: it only takes the place of reserved pages.  What ties the skb to
 * the device, route and namespace it came through goes, as when a
 * socket queues an skb: it may outlive them.
 */
static bool rxmsg_hold_skb(struct mpdt_conn *c, struct mpdt_rxmsg *m,
			   const struct mpdt_data *d,
			   const struct mpdt_rx_payload *p)
{
	struct sk_buff *skb = p->skb;
	struct mpdt_rxpiece *pc = (struct mpdt_rxpiece *)skb->cb;
	struct rx_pins pins;

	if (skb_shared(skb) || skb_has_frag_list(skb) ||
	    skb->truesize > SKB_TRUESIZE(2 * d->payload_len))
		return false;
	if (!rxmsg_skb_pins(m, skb, &pins) ||
	    !rxmsg_take(c, m, d, skb->truesize + pins.cost))
		return false;
	rxmsg_pin(m, &pins);
	skb_orphan(skb);
	skb_dst_drop(skb);
	skb_ext_reset(skb);
	nf_reset_ct(skb);
	skb->dev = NULL;
	pc->skb = skb_get(skb);
	pc->in_skb = true;
	pc->off = p->off;
	pc->msg_off = d->offset;
	pc->len = d->payload_len;
	pieces_note_order(m, d->offset);
	list_add_tail(&pc->node, &m->pieces);
	return true;
}

/* A payload all in page fragments, except in page-pool pages (which
 * the pool must get back), is held in its pages; another of a packet
 * that came alone, in its skb; a burst's other payloads are copied.  A
 * zerocopy sender's pages were copied before delivery
 * (skb_orphan_frags_rx()); pages spliced from a file or a pipe are held
 * like any other: only the sender can change them, as over TCP.
 */
static bool rxmsg_hold(struct mpdt_conn *c, struct mpdt_rxmsg *m,
		       const struct mpdt_data *d,
		       const struct mpdt_rx_payload *p)
{
	if (rx_in_frags(p->skb, p->off, d->payload_len) &&
	    !p->skb->pp_recycle)
		return rxmsg_hold_frags(c, m, d, p);
	return !p->burst && rxmsg_hold_skb(c, m, d, p);
}

int mpdt_rx_place(struct mpdt_eng *e, struct mpdt_reasm *ra,
		  const struct mpdt_data *d, const void *payload)
{
	const struct mpdt_rx_payload *p = payload;
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct mpdt_rxmsg *m = rxmsg_of(ra);

	if (p->skb->len < p->off + d->payload_len)
		return -EPROTO;
	if (rxmsg_hold(c, m, d, p))
		return 0;
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_RX_COPIED);
	return rxmsg_copy(m, d, p);
}

void mpdt_rx_deliver(struct mpdt_eng *e, struct mpdt_reasm *ra)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct mpdt_rxmsg *m = rxmsg_of(ra);
	struct mpdt_sock *msk = c->msk;

	hash_del(&m->hnode);
	peer_holds_less(c, m->charged);
	m->from = c->peer;
	list_move_tail(&m->node, &msk->rx_ready);
	msk->inet.sk.sk_data_ready(&msk->inet.sk);
}

/* Under msk->lock, or while closing, or with nothing left charged
 * (recvmsg(): mpdt_rmem_release() then touches nothing).
 */
void mpdt_rxmsg_free(struct mpdt_sock *msk, struct mpdt_rxmsg *m)
{
	struct mpdt_rxpiece *pc, *next;
	u32 i;

	for (i = 0; i < m->npages; i++)
		if (m->pages[i])
			__free_page(m->pages[i]);
	list_for_each_entry_safe(pc, next, &m->pieces, node)
		rxpiece_free(pc);
	mpdt_rmem_release(msk, m->charged);
	kfree(m->ra.segs);
	kfree(m->pages);
	kmem_cache_free(mpdt_rxmsg_cache, m);
}

void mpdt_rx_forget(struct mpdt_eng *e)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct hlist_node *tmp;
	struct mpdt_rxmsg *m;
	int bkt;

	hash_for_each_safe(c->rx_msgs, bkt, tmp, m, hnode) {
		hash_del(&m->hnode);
		list_del(&m->node);
		mpdt_rxmsg_free(c->msk, m);
	}
	peer_holds_less(c, c->rx_reserved);
}
