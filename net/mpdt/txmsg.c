// SPDX-License-Identifier: GPL-2.0
/*
 * A message's bytes while it is being sent.  sendmsg() copies them once,
 * into page fragments of the task (as TCP and ip_append_data() do), and
 * every transmission attaches the fragments its packet covers to the skb
 * by reference: no second copy, no payload-sized skb, no vmalloc.  Small
 * messages share a page.  When the message is acknowledged, its pages
 * are kept for the socket's next messages (below).
 *
 * Each packet's payload follows a slot of MPDT_DATA_HLEN bytes, where a
 * burst writes the header of the packet's first transmission (output.c):
 * a burst's packets are then one run of bytes, a fragment or two per
 * page instead of two per packet, and a burst of 64 KiB fits in an skb.
 * A resend carries its header in the skb's head and takes only the
 * payload from here, so a slot is written once, before the only skb
 * that carries it is sent: nothing reads a slot while it changes.  The
 * message is cut into packets here (core.mss), before the engine sees
 * it, so that its packets and their slots agree.  "Laid-out" offsets
 * count slots and payloads; chunks start at them.
 *
 * A message longer than a piece (MPDT_ENG_PIECE_BYTES) is queued before
 * its bytes are in: sendmsg() copies it a piece at a time, and each piece
 * goes as soon as it is in place (tx.c), as a NIC sends the first bytes
 * of a TSO skb while the socket still fills the next.  A message cannot
 * be taken back once its first packet is out, so the copy must not fail
 * after that: the sender's pages are taken first, and a bad buffer fails
 * sendmsg() with EFAULT before anything is queued.
 */
#include <linux/bvec.h>
#include <linux/list_lru.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "protocol.h"

/* The payload per packet of a message sent now. */
static u32 txmsg_mss(const struct mpdt_sock *msk)
{
	return max(READ_ONCE(msk->mn->params.payload), 1U);
}

/* The laid-out bytes of @len bytes of payload cut every @mss. */
static u32 laid_len(u32 len, u32 mss)
{
	return len + DIV_ROUND_UP(len, mss) * MPDT_DATA_HLEN;
}

/* Where payload byte @off of @m lies: after its packet's slot. */
static u32 laid_at(const struct mpdt_txmsg *m, u32 off)
{
	return off + (off / m->core.mss + 1) * MPDT_DATA_HLEN;
}

/* The chunks @laid bytes can need: a fragment's tail, then fragments of
 * at least a page.
 */
static u32 chunks_max(u32 laid)
{
	return laid ? DIV_ROUND_UP(laid, PAGE_SIZE) + 1 : 0;
}

/* What a message of @laid bytes holds, so that even empty ones fill the
 * send buffer.
 */
static u32 truesize(u32 laid)
{
	return kmem_cache_size(mpdt_txmsg_cache) +
	       ALIGN(max(laid, 1U), SMP_CACHE_BYTES) +
	       chunks_max(laid) * sizeof(struct mpdt_txchunk);
}

u32 mpdt_txmsg_truesize(const struct mpdt_sock *msk, size_t len)
{
	return truesize(laid_len(len, txmsg_mss(msk)));
}

/* Under memory pressure every socket's kept pages (below) go back: they
 * are a cache, never needed (txpages_shrinker).  The sockets that keep
 * any are on txpages_lru, by memory cgroup and NUMA node, so that a
 * cgroup's own reclaim (its limit, memory.reclaim) takes back what its
 * sockets keep, and global pressure every cgroup's: the core calls a
 * shrinker for a cgroup only if it is SHRINKER_MEMCG_AWARE, and only a
 * list_lru tells it which cgroups have objects.  A socket's place on the
 * list is its struct mpdt_txpages_entry, allocated by its first sendmsg()
 * in the sender's cgroup, where the pages it keeps are charged (unless
 * the socket changes hands between cgroups); it joins the list when it
 * keeps its first page and leaves when its last one goes, under its
 * tx_pages_lock, which nests outside the list's locks.
 * The shrinker, which holds a list's lock first, only tries each
 * socket's, and a busy socket keeps its pages that time.  A closed
 * socket keeps none, and has left the list before its entry is freed.
 */
struct mpdt_txpages_entry {
	struct list_head node;		/* on txpages_lru */
	struct mpdt_sock *msk;
};

static struct kmem_cache *txpages_entry_cache;
static struct list_lru txpages_lru;
/* The shrinker is registered before the list can name it (its id), and
 * may be called in between: until then there is nothing to shrink.
 */
static bool txpages_lru_ready;

/* Under tx_pages_lock, after its count moved: on the list iff keeping.
 * Softirqs call it too: the list's locks are only taken with bottom
 * halves off (the shrinker turns them off).
 */
static void txpages_list(struct mpdt_sock *msk)
{
	struct list_head *node;

	if (!msk->tx_pages_entry)
		return;		/* never kept any */
	node = &msk->tx_pages_entry->node;
	if (!list_empty(node) == !!msk->tx_pages_n)
		return;
	if (msk->tx_pages_n)
		list_lru_add(&txpages_lru, node);
	else
		list_lru_del(&txpages_lru, node);
}

/* Process context: the socket's entry, allocated once (with the list
 * of the task's cgroup, which kmem_cache_alloc_lru() makes sure of); if
 * that fails, the socket keeps no pages.  Set and read under
 * tx_pages_lock.
 */
static void txpages_entry_get(struct mpdt_sock *msk)
{
	struct mpdt_txpages_entry *e;

	if (READ_ONCE(msk->tx_pages_entry))
		return;
	e = kmem_cache_alloc_lru(txpages_entry_cache, &txpages_lru,
				 GFP_KERNEL_ACCOUNT);
	if (!e)
		return;
	INIT_LIST_HEAD(&e->node);
	e->msk = msk;
	spin_lock_bh(&msk->tx_pages_lock);
	if (!msk->tx_pages_entry && !msk->tx_pages_closed) {
		WRITE_ONCE(msk->tx_pages_entry, e);
		e = NULL;
	}
	spin_unlock_bh(&msk->tx_pages_lock);
	if (e)			/* another task's came first */
		kmem_cache_free(txpages_entry_cache, e);
}

/* The pages of a message that is acknowledged (or dropped) are kept for
 * the next ones, as a driver's page pool keeps its receive pages: a new
 * page costs the page allocator and, under Debian's init_on_alloc,
 * zeroing before it is written, 7.5% of a one-connection run's time
 * (perf.rst).  A kept page is taken again only when nothing but the
 * socket (and the task, for the page it is filling) refers to it: every
 * skb, and a receiver on this host that held the payload, let go of it,
 * and only a holder can take another.  Its old bytes are never sent,
 * only what a message wrote over them.
 *
 * At most MPDT_TX_PAGES_KEPT pages per socket, and no more than
 * sk_sndbuf in pages of the size of the one coming, still charged to
 * the memory cgroup they were allocated in; none of the emergency
 * reserves' is kept, and none from another NUMA node than the sender's
 * is taken, as page_pool does.  All go when the socket is closed or
 * idle (mpdt_txpages_idle()), or under memory pressure (above).  When
 * the socket keeps all it may, the oldest goes if something still holds
 * it (a receiver that does not read), else the new one: the oldest is
 * the first to be free again.  Small messages share a page: it is kept
 * once.
 */
static bool txpages_wanted(struct mpdt_sock *msk, struct page *page)
{
	u32 n = msk->tx_pages_n;

	return msk->tx_pages_entry && !msk->tx_pages_closed &&
	       !(n && msk->tx_pages[n - 1] == page) &&
	       !page_is_pfmemalloc(page);
}

/* Under tx_pages_lock: keeps @page; returns the page to put, if any. */
static struct page *txpages_keep(struct mpdt_sock *msk, struct page *page)
{
	struct page **kept = msk->tx_pages;
	u32 n = msk->tx_pages_n;
	struct page *oldest;

	msk->tx_pages_busy = true;
	if (!txpages_wanted(msk, page))
		return page;
	if (n < MPDT_TX_PAGES_KEPT && (n + 1) * page_size(page) <=
	    READ_ONCE(msk->inet.sk.sk_sndbuf)) {
		kept[msk->tx_pages_n++] = page;
		txpages_list(msk);
		return NULL;
	}
	if (!n || page_ref_count(kept[0]) == 1)
		return page;
	oldest = kept[0];
	memmove(&kept[0], &kept[1], (n - 1) * sizeof(*kept));
	kept[n - 1] = page;
	return oldest;
}

/* A kept page that only the socket refers to, or only it and the task
 * whose fragment it is (@cur): then the socket's reference goes.
 */
static struct page *txpages_take(struct mpdt_sock *msk, struct page *cur)
{
	struct page **kept = msk->tx_pages;
	struct page *page = NULL;
	u32 i;

	spin_lock_bh(&msk->tx_pages_lock);
	for (i = 0; i < msk->tx_pages_n; i++) {
		int refs = page_ref_count(kept[i]);

		if (kept[i] == cur)
			refs--;		/* the task's own */
		if (refs != 1 || page_to_nid(kept[i]) != numa_mem_id())
			continue;
		page = kept[i];
		memmove(&kept[i], &kept[i + 1],
			(--msk->tx_pages_n - i) * sizeof(*kept));
		txpages_list(msk);
		break;
	}
	spin_unlock_bh(&msk->tx_pages_lock);
	if (!page)
		return NULL;
	if (page == cur)
		put_page(page);
	mpdt_stat_inc(msk->mn, MPDT_STAT_TX_PAGES_REUSED);
	return page;
}

/* Under tx_pages_lock: the kept pages go; how many.  The caller takes
 * the socket off the list.
 */
static u32 txpages_drop(struct mpdt_sock *msk)
{
	u32 n = msk->tx_pages_n;

	while (msk->tx_pages_n)
		put_page(msk->tx_pages[--msk->tx_pages_n]);
	return n;
}

/* At close(): what the socket's last messages release is not kept, and
 * its entry, off the list, goes.
 */
void mpdt_txpages_release(struct mpdt_sock *msk)
{
	struct mpdt_txpages_entry *e;

	spin_lock_bh(&msk->tx_pages_lock);
	msk->tx_pages_closed = true;
	txpages_drop(msk);
	txpages_list(msk);
	e = msk->tx_pages_entry;
	WRITE_ONCE(msk->tx_pages_entry, NULL);
	spin_unlock_bh(&msk->tx_pages_lock);
	if (e)
		kmem_cache_free(txpages_entry_cache, e);
}

/* The gc timer's, every rto-max (conn.c): a socket that had nothing
 * acknowledged since the last tick, or whose connections are all gone,
 * keeps no pages; it is idle, and would hold them until close().
 */
void mpdt_txpages_idle(struct mpdt_sock *msk, bool all)
{
	spin_lock_bh(&msk->tx_pages_lock);
	if (all || !msk->tx_pages_busy) {
		txpages_drop(msk);
		txpages_list(msk);
	}
	msk->tx_pages_busy = false;
	spin_unlock_bh(&msk->tx_pages_lock);
}

/* The sockets keeping pages in the cgroup and node asked about. */
static unsigned long txpages_shrink_count(struct shrinker *shrinker,
					  struct shrink_control *sc)
{
	/* Pairs with mpdt_txpages_register(): the list is initialised. */
	if (!smp_load_acquire(&txpages_lru_ready))
		return SHRINK_EMPTY;
	return list_lru_shrink_count(&txpages_lru, sc) ?: SHRINK_EMPTY;
}

/* Under @list's lock, which keeps the socket on the list and so alive:
 * its pages go and it leaves the list, unless it is busy.  How many went
 * (a listed socket keeps at least one).
 */
static u32 txpages_shrink_one(struct mpdt_txpages_entry *e,
			      struct list_lru_one *list)
{
	struct mpdt_sock *msk = e->msk;
	u32 n;

	if (!spin_trylock(&msk->tx_pages_lock))
		return 0;
	n = txpages_drop(msk);
	list_lru_isolate(list, &e->node);
	spin_unlock(&msk->tx_pages_lock);
	return n;
}

static enum lru_status txpages_isolate(struct list_head *item,
				       struct list_lru_one *list,
				       spinlock_t *lock, void *unused)
{
	struct mpdt_txpages_entry *e = container_of(item, typeof(*e), node);

	return txpages_shrink_one(e, list) ? LRU_REMOVED : LRU_SKIP;
}

/* Whole sockets' pages, oldest keepers first, until enough went. */
static unsigned long txpages_shrink_scan(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	unsigned long freed;

	/* As in txpages_shrink_count(). */
	if (!smp_load_acquire(&txpages_lru_ready))
		return SHRINK_STOP;
	local_bh_disable();
	freed = list_lru_shrink_walk(&txpages_lru, sc, txpages_isolate, NULL);
	local_bh_enable();
	return freed ?: SHRINK_STOP;
}

static struct shrinker txpages_shrinker = {
	.count_objects	= txpages_shrink_count,
	.scan_objects	= txpages_shrink_scan,
	.seeks		= DEFAULT_SEEKS,
	.flags		= SHRINKER_MEMCG_AWARE | SHRINKER_NUMA_AWARE,
};

int mpdt_txpages_register(void)
{
	int err;

	txpages_entry_cache = KMEM_CACHE(mpdt_txpages_entry, SLAB_ACCOUNT);
	if (!txpages_entry_cache)
		return -ENOMEM;
	err = register_shrinker(&txpages_shrinker, "mpdt-txpages");
	if (err)
		goto err_cache;
	err = list_lru_init_memcg(&txpages_lru, &txpages_shrinker);
	if (err)
		goto err_shrinker;
	/* The shrinker's calls from now on find the list initialised. */
	smp_store_release(&txpages_lru_ready, true);
	return 0;

err_shrinker:
	unregister_shrinker(&txpages_shrinker);
err_cache:
	kmem_cache_destroy(txpages_entry_cache);
	return err;
}

/* Every socket is gone, and with it its entry. */
void mpdt_txpages_unregister(void)
{
	unregister_shrinker(&txpages_shrinker);
	list_lru_destroy(&txpages_lru);
	kmem_cache_destroy(txpages_entry_cache);
}

void mpdt_txmsg_destroy(struct mpdt_sock *msk, struct mpdt_txmsg *m)
{
	struct page *put;
	u32 i;

	for (i = 0; i < m->nchunks; i++) {
		spin_lock_bh(&msk->tx_pages_lock);
		put = txpages_keep(msk, m->chunks[i].page);
		spin_unlock_bh(&msk->tx_pages_lock);
		if (put)
			put_page(put);
	}
	kvfree(m->chunks);
	kmem_cache_free(mpdt_txmsg_cache, m);
}

void mpdt_txmsg_put(struct mpdt_sock *msk, struct mpdt_txmsg *m)
{
	if (refcount_dec_and_test(&m->refs))
		mpdt_txmsg_destroy(msk, m);
}

/* The task's fragment with room.  Where skb_page_frag_refill() would
 * allocate (its page full and held elsewhere), a kept page instead: it
 * then starts over in the page, whose reference is now the task's.
 */
static bool frag_refill(struct mpdt_sock *msk, struct page_frag *pfrag)
{
	struct page *page;

	if (!pfrag->page || (page_ref_count(pfrag->page) != 1 &&
			     pfrag->offset + SMP_CACHE_BYTES > pfrag->size)) {
		page = txpages_take(msk, pfrag->page);
		if (page && page != pfrag->page) {
			if (pfrag->page)
				put_page(pfrag->page);
			pfrag->page = page;
			pfrag->size = page_size(page);
		}
		if (page)
			pfrag->offset = 0;
	}
	return skb_page_frag_refill(SMP_CACHE_BYTES, pfrag,
				    GFP_KERNEL_ACCOUNT);
}

/* Process context, outside the socket lock: room for the laid-out
 * bytes in the task's own fragments.
 */
static int reserve(struct mpdt_sock *msk, struct mpdt_txmsg *m)
{
	struct page_frag *pfrag = &current->task_frag;
	struct mpdt_txchunk *ch;
	u32 done = 0, n;

	while (done < m->laid) {
		if (!frag_refill(msk, pfrag))
			return -ENOMEM;
		n = min_t(u32, m->laid - done, pfrag->size - pfrag->offset);
		ch = &m->chunks[m->nchunks++];
		ch->page = pfrag->page;
		ch->off = pfrag->offset;
		ch->start = done;
		get_page(pfrag->page);
		pfrag->offset += n;
		done += n;
	}
	return 0;
}

static u32 chunk_len(const struct mpdt_txmsg *m, u32 i)
{
	u32 end = i + 1 < m->nchunks ? m->chunks[i + 1].start : m->laid;

	return end - m->chunks[i].start;
}

/* The chunk holding laid-out byte @at (chunks are in message order). */
static u32 chunk_at(const struct mpdt_txmsg *m, u32 at)
{
	u32 lo = 0, hi = m->nchunks - 1;

	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		if (m->chunks[mid].start <= at)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The pieces, a page fragment each, of laid-out bytes [at, at + left). */
struct laid_walk {
	const struct mpdt_txmsg *m;
	u32 chunk, at, left;
};

static void laid_walk_init(struct laid_walk *w, const struct mpdt_txmsg *m,
			   u32 at, u32 len)
{
	w->m = m;
	w->chunk = len ? chunk_at(m, at) : 0;
	w->at = at;
	w->left = len;
}

static bool laid_walk_next(struct laid_walk *w, struct page **page,
			   u32 *poff, u32 *n)
{
	const struct mpdt_txchunk *ch;
	u32 in;

	if (!w->left)
		return false;
	ch = &w->m->chunks[w->chunk];
	in = w->at - ch->start;
	*n = min(w->left, chunk_len(w->m, w->chunk) - in);
	*page = ch->page;
	*poff = ch->off + in;
	w->chunk++;
	w->at += *n;
	w->left -= *n;
	return true;
}

/* The walk over packet @off's payload, and with @slot its slot. */
static void packet_walk_init(struct laid_walk *w, const struct mpdt_txmsg *m,
			     u32 off, u32 len, bool slot)
{
	u32 hlen = slot ? MPDT_DATA_HLEN : 0;

	laid_walk_init(w, m, laid_at(m, off) - hlen, len + hlen);
}

/* The payloads of the packets in message bytes [at, at + len), each
 * after its slot; @at is a packet's start.  @from NULL: zeros.
 */
static int copy_in(struct mpdt_txmsg *m, struct iov_iter *from, u32 at,
		   u32 len)
{
	u32 off, plen, poff, n;
	struct laid_walk w;
	struct page *page;

	for (off = at; off < at + len; off += plen) {
		plen = min(m->core.mss, m->core.len - off);
		packet_walk_init(&w, m, off, plen, false);
		while (laid_walk_next(&w, &page, &poff, &n)) {
			if (!from)	/* a fragment may span its pages */
				memset(page_address(page) + poff, 0, n);
			else if (copy_page_from_iter(page, poff, n, from) != n)
				return -EFAULT;
		}
	}
	return 0;
}

void mpdt_txsrc_release(struct mpdt_txsrc *src)
{
	u32 i;

	for (i = 0; i < src->nbvec; i++)
		put_page(src->bvec[i].bv_page);
	kvfree(src->bvec);
	src->bvec = NULL;
	src->nbvec = 0;
}

/* @n bytes of pages[], the first from @start on, after the others, in a
 * bvec[] of @max (their count, iov_iter_npages()).
 */
static void txsrc_add(struct mpdt_txsrc *src, u32 max, struct page **pages,
		      size_t n, size_t start)
{
	struct bio_vec *bv;
	size_t k;

	for (; n; n -= k, start = 0) {
		k = min_t(size_t, n, PAGE_SIZE - start);
		if (WARN_ON_ONCE(src->nbvec == max)) {
			put_page(*pages++);
			continue;
		}
		bv = &src->bvec[src->nbvec++];
		bv->bv_page = *pages++;
		bv->bv_len = k;
		bv->bv_offset = start;
	}
}

/* The sender's pages under @len bytes of @from, held until the copy
 * ends, as MSG_ZEROCOPY holds them for the whole transfer.  False, with
 * nothing held and @from as it was, where they cannot be taken (an I/O
 * mapping, a bad address): the message is copied before it is queued.
 */
static bool txsrc_take(struct mpdt_txsrc *src, struct iov_iter *from,
		       size_t len)
{
	int max = iov_iter_npages(from, INT_MAX);
	struct page *pages[16];
	size_t start, got = 0;
	ssize_t n;

	src->bvec = kvmalloc_array(max, sizeof(*src->bvec), GFP_KERNEL_ACCOUNT);
	if (!src->bvec)
		return false;
	while (got < len) {
		n = iov_iter_get_pages2(from, pages, len - got,
					ARRAY_SIZE(pages), &start);
		if (n <= 0) {
			iov_iter_revert(from, got);
			mpdt_txsrc_release(src);
			return false;
		}
		txsrc_add(src, max, pages, n, start);
		got += n;
	}
	iov_iter_bvec(&src->iter, ITER_SOURCE, src->bvec, src->nbvec, len);
	return true;
}

/* Copying from the sender's pages, or from kernel memory, cannot fault:
 * once the message is queued, its copy cannot fail.  @from ends past the
 * message either way, as the caller's copy would leave it.
 */
static bool txsrc_init(struct mpdt_txsrc *src, struct iov_iter *from,
		       size_t len)
{
	if (user_backed_iter(from))
		return txsrc_take(src, from, len);
	src->iter = *from;
	iov_iter_advance(from, len);
	return true;
}

/* A message longer than a piece is copied in while its first pieces go
 * (tx.c): @m's bytes are all missing, and @src says where they are.
 * Shorter ones, and those whose pages cannot be taken, are copied now.
 */
static int fill_or_defer(struct mpdt_txmsg *m, struct iov_iter *from,
			 struct mpdt_txsrc *src)
{
	u32 len = m->core.len;

	if (len > MPDT_ENG_PIECE_BYTES && txsrc_init(src, from, len)) {
		m->core.missing = len;
		return 0;
	}
	return copy_in(m, from, 0, len);
}

/* Queued, the message cannot be taken back, and a short copy would send
 * whatever its pages held before; txsrc_init() rules one out, and if it
 * came anyway the piece goes as zeros.
 */
void mpdt_txmsg_copy(struct mpdt_txmsg *m, struct mpdt_txsrc *src, u32 at,
		     u32 len)
{
	if (WARN_ON_ONCE(copy_in(m, &src->iter, at, len)))
		copy_in(m, NULL, at, len);
}

struct mpdt_txmsg *mpdt_txmsg_new(struct mpdt_sock *msk, struct msghdr *msg,
				  size_t len, struct mpdt_txsrc *src, int *err)
{
	struct mpdt_txmsg *m = kmem_cache_zalloc(mpdt_txmsg_cache,
						 GFP_KERNEL_ACCOUNT);

	*err = -ENOMEM;
	src->bvec = NULL;
	src->nbvec = 0;
	if (!m)
		return NULL;
	m->core.len = len;
	m->core.mss = txmsg_mss(msk);
	m->laid = laid_len(len, m->core.mss);
	m->charged = truesize(m->laid);
	if (len) {
		txpages_entry_get(msk);
		m->chunks = kvmalloc_array(chunks_max(m->laid),
					   sizeof(*m->chunks),
					   GFP_KERNEL_ACCOUNT);
		*err = m->chunks ? reserve(msk, m) : -ENOMEM;
		if (!*err)
			*err = fill_or_defer(m, &msg->msg_iter, src);
		if (*err) {
			mpdt_txmsg_destroy(msk, m);
			return NULL;
		}
	}
	*err = 0;
	return m;
}

/* A header into its slot: a constant size, the slot in one piece, is a
 * few moves where a variable one is a call to memcpy() (rep movsb).
 */
static void slot_write(u8 *to, const u8 *hdr, u32 k)
{
	if (k == MPDT_DATA_HLEN)
		memcpy(to, hdr, MPDT_DATA_HLEN);
	else
		memcpy(to, hdr, k);
}

/* Packet @off's @len bytes of payload become @skb's page fragments, and
 * with @hdr (its first transmission, in a burst) its header too, written
 * into the slot before them (task fragments are never in high memory).
 * Where they follow on from its last fragment, that one grows.  Marked
 * shared: every transmission of the packet points at the same bytes, so
 * nobody may change them in place (an IPsec transform copies first).
 * False, and nothing changed, if they need more fragments than an skb
 * has.
 */
bool mpdt_txmsg_attach(struct sk_buff *skb, const struct mpdt_txmsg *m,
		       u32 off, u32 len, const u8 *hdr)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	u32 poff, n, k, hleft = hdr ? MPDT_DATA_HLEN : 0;
	struct laid_walk start, w;
	int f = sh->nr_frags;
	struct page *page;

	packet_walk_init(&start, m, off, len, !!hdr);
	/* Only the first piece can follow on: the next chunk is a page. */
	w = start;
	if (laid_walk_next(&w, &page, &poff, &n) &&
	    !skb_can_coalesce(skb, f, page, poff))
		f++;
	while (laid_walk_next(&w, &page, &poff, &n))
		f++;
	if (f > MAX_SKB_FRAGS)
		return false;
	w = start;
	while (laid_walk_next(&w, &page, &poff, &n)) {
		k = min(n, hleft);
		if (k) {
			slot_write(page_address(page) + poff, hdr, k);
			hdr += k;
			hleft -= k;
		}
		f = sh->nr_frags;
		if (skb_can_coalesce(skb, f, page, poff)) {
			skb_frag_size_add(&sh->frags[f - 1], n);
		} else {
			get_page(page);
			skb_fill_page_desc(skb, f, page, poff, n);
		}
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
	}
	sh->flags |= SKBFL_SHARED_FRAG;
	return true;
}
