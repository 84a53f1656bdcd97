// SPDX-License-Identifier: GPL-2.0
/*
 * A message's bytes while it is being sent.  sendmsg() copies them once,
 * into page fragments of the task (as TCP and ip_append_data() do), and
 * every transmission attaches the fragments its packet covers to the skb
 * by reference: no second copy, no payload-sized skb, no vmalloc.  Small
 * messages share a page; a page goes back to the allocator when the
 * message is acknowledged and the last skb pointing at it is freed.
 */
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "protocol.h"

/* The chunks a message of @len bytes can need: a fragment's tail, then
 * fragments of at least a page.
 */
static u32 chunks_max(size_t len)
{
	return len ? DIV_ROUND_UP(len, PAGE_SIZE) + 1 : 0;
}

/* What a message holds, so that even empty ones fill the send buffer. */
u32 mpdt_txmsg_truesize(size_t len)
{
	return kmem_cache_size(mpdt_txmsg_cache) +
	       ALIGN(max_t(size_t, len, 1), SMP_CACHE_BYTES) +
	       chunks_max(len) * sizeof(struct mpdt_txchunk);
}

void mpdt_txmsg_destroy(struct mpdt_txmsg *m)
{
	u32 i;

	for (i = 0; i < m->nchunks; i++)
		put_page(m->chunks[i].page);
	kvfree(m->chunks);
	kmem_cache_free(mpdt_txmsg_cache, m);
}

/* Process context, outside the socket lock: the task's own fragment. */
static int copy_in(struct mpdt_txmsg *m, struct iov_iter *from, size_t len)
{
	struct page_frag *pfrag = &current->task_frag;
	struct mpdt_txchunk *ch;
	size_t done = 0, n;

	while (done < len) {
		if (!skb_page_frag_refill(SMP_CACHE_BYTES, pfrag,
					  GFP_KERNEL_ACCOUNT))
			return -ENOMEM;
		n = min_t(size_t, len - done, pfrag->size - pfrag->offset);
		if (copy_page_from_iter(pfrag->page, pfrag->offset, n,
					from) != n)
			return -EFAULT;
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

struct mpdt_txmsg *mpdt_txmsg_new(struct msghdr *msg, size_t len, int *err)
{
	struct mpdt_txmsg *m = kmem_cache_zalloc(mpdt_txmsg_cache,
						 GFP_KERNEL_ACCOUNT);

	*err = -ENOMEM;
	if (!m)
		return NULL;
	m->core.len = len;
	m->charged = mpdt_txmsg_truesize(len);
	if (len) {
		m->chunks = kvmalloc_array(chunks_max(len), sizeof(*m->chunks),
					   GFP_KERNEL_ACCOUNT);
		*err = m->chunks ? copy_in(m, &msg->msg_iter, len) : -ENOMEM;
		if (*err) {
			mpdt_txmsg_destroy(m);
			return NULL;
		}
	}
	*err = 0;
	return m;
}

static u32 chunk_len(const struct mpdt_txmsg *m, u32 i)
{
	u32 end = i + 1 < m->nchunks ? m->chunks[i + 1].start : m->core.len;

	return end - m->chunks[i].start;
}

/* The chunk holding byte @off (chunks are in message order). */
static u32 chunk_at(const struct mpdt_txmsg *m, u32 off)
{
	u32 lo = 0, hi = m->nchunks - 1;

	while (lo < hi) {
		u32 mid = lo + (hi - lo + 1) / 2;

		if (m->chunks[mid].start <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The page fragments bytes [@off, @off + @len) of @m take in an skb. */
u32 mpdt_txmsg_nr_frags(const struct mpdt_txmsg *m, u32 off, u32 len)
{
	u32 i, n = 0;

	if (!len)
		return 0;
	for (i = chunk_at(m, off); i < m->nchunks &&
	     m->chunks[i].start < off + len; i++)
		n++;
	return n;
}

/* Bytes [@off, @off + @len) of @m become @skb's page fragments.  Marked
 * shared: every transmission of the packet points at the same bytes, so
 * nobody may change them in place (an IPsec transform copies first).
 * False if they need more fragments than an skb has.
 */
bool mpdt_txmsg_attach(struct sk_buff *skb, const struct mpdt_txmsg *m,
		       u32 off, u32 len)
{
	u32 i = len ? chunk_at(m, off) : 0;

	while (len) {
		const struct mpdt_txchunk *ch = &m->chunks[i];
		u32 in = off - ch->start;
		u32 n = min(len, chunk_len(m, i) - in);
		int f = skb_shinfo(skb)->nr_frags;

		if (f >= MAX_SKB_FRAGS)
			return false;
		get_page(ch->page);
		skb_fill_page_desc(skb, f, ch->page, ch->off + in, n);
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		off += n;
		len -= n;
		i++;
	}
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	return true;
}
