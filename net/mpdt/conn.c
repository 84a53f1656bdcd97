// SPDX-License-Identifier: GPL-2.0
/*
 * Connections: the state one MPDT socket keeps per peer (address and MPDT
 * port).  A connection has a sending half (our incarnation nonce, the
 * scoreboard, RTT, LB and CC) and a receiving half (the peer's nonce and
 * PSN bitmap, partial messages).  A connection lives until the socket is
 * released, or until it holds nothing and is collected (idle) or evicted
 * (the table is full); everything here runs under msk->lock.
 */
#include <net/ipv6.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "protocol.h"

/* Keyed per socket: the peer picks the address and port we hash, and
 * must not be able to pile its connections into one bucket.
 */
static u32 addr_hash(const struct mpdt_sock *msk, const struct mpdt_addr *a)
{
	const struct {
		struct in6_addr v6;
		u32 port;
	} k = {
		.v6 = a->family == AF_INET6 ? a->v6 : (struct in6_addr){
			.s6_addr32 = { a->v4 } },
		.port = (__force u32)a->port,
	};

	return siphash(&k, sizeof(k), &msk->conn_key);
}

static bool addr_equal(const struct mpdt_addr *a, const struct mpdt_addr *b)
{
	if (a->family != b->family || a->port != b->port)
		return false;
	if (a->family == AF_INET6)
		return ipv6_addr_equal(&a->v6, &b->v6);
	return a->v4 == b->v4;
}

struct mpdt_conn *mpdt_conn_find(struct mpdt_sock *msk,
				 const struct mpdt_addr *peer)
{
	struct mpdt_conn *c;

	hash_for_each_possible(msk->conns, c, node, addr_hash(msk, peer))
		if (addr_equal(&c->peer, peer))
			return c;
	return NULL;
}

static void *algo_priv(u32 size, gfp_t gfp)
{
	return size ? kzalloc(size, gfp) : NULL;
}

/* The policy's state is sized once, for the parameters of this moment. */
static int lb_alloc(struct mpdt_lb *lb, const struct mpdt_lb_ops *ops,
		    const struct mpdt_params *p, gfp_t gfp)
{
	lb->ops = ops;
	lb->entropies = READ_ONCE(p->entropies);
	lb->priv_len = ops->priv_size ? ops->priv_size(p) : 0;
	lb->priv = algo_priv(lb->priv_len, gfp);
	return lb->priv_len && !lb->priv ? -ENOMEM : 0;
}

/* Nothing to lose: no message unacknowledged or partly received. */
static bool holds_nothing(const struct mpdt_conn *c)
{
	return list_empty(&c->tx_msgs) && !c->rx_reserved;
}

/* Never carried data either way: what a PROBE from a stranger creates. */
static bool embryonic(const struct mpdt_conn *c)
{
	return !c->sb_ring && !c->rx.epsn && !c->rx.ooo_count &&
	       !c->msgs_rcvd;
}

/* Forgetting a connection is safe when it holds nothing and its peer has
 * been quiet for twice the quiet time: the peer's sending half, idle for
 * the quiet time, starts a new incarnation with its next message
 * (tx_idle_restart()), which finds fresh state as it should, instead of
 * continuing its PSNs into a bitmap that forgot them.  A stranger's
 * embryonic connection can go at once, and goes first.
 */
static bool evictable(const struct mpdt_conn *c, u64 now, u64 quiet,
		      bool strangers)
{
	if (!holds_nothing(c))
		return false;
	if (strangers)
		return embryonic(c);
	return mpdt_since(now, c->heard_ns) >= 2 * quiet;
}

/* Free @c unless its timer is running (it waits for msk->lock, which we
 * hold, and would then use @c): the caller picks another.
 */
static bool conn_forget(struct mpdt_conn *c, enum mpdt_stat why)
{
	struct mpdt_sock *msk = c->msk;

	if (hrtimer_try_to_cancel(&c->timer) < 0)
		return false;
	hash_del(&c->node);
	list_del(&c->lru);
	msk->nconns--;
	mpdt_stat_inc(msk->mn, why);
	mpdt_conn_destroy(c);
	return true;
}

/* A full table evicts the least recently heard stranger, else the least
 * recently heard quiet peer.
 */
static bool evict_one(struct mpdt_sock *msk)
{
	u64 now = mpdt_now(), quiet = mpdt_rx_quiet_ns(msk->mn);
	struct mpdt_conn *c;
	int strangers;

	for (strangers = 1; strangers >= 0; strangers--)
		list_for_each_entry(c, &msk->conn_lru, lru)
			if (evictable(c, now, quiet, strangers) &&
			    conn_forget(c, MPDT_STAT_CONN_EVICTED))
				return true;
	return false;
}

void mpdt_conn_heard(struct mpdt_conn *c, u64 now)
{
	c->heard_ns = now;
	list_move_tail(&c->lru, &c->msk->conn_lru);
}

static unsigned long gc_interval(const struct mpdt_net *mn)
{
	return max(1UL, nsecs_to_jiffies(mpdt_rx_quiet_ns(mn) / 2));
}

void mpdt_conn_gc_arm(struct mpdt_sock *msk)
{
	if (!timer_pending(&msk->gc_timer))
		mod_timer(&msk->gc_timer, jiffies + gc_interval(msk->mn));
}

/* Expire partial messages and collect idle connections, while any are
 * left; end a time-wait.  Softirq; release stops it (msk->closing, then
 * del_timer_sync), or it ends the time-wait and the socket with it.
 */
void mpdt_conn_gc(struct timer_list *t)
{
	struct mpdt_sock *msk = from_timer(msk, t, gc_timer);
	struct mpdt_conn *c, *tmp;
	bool tw_over;
	u64 now;

	spin_lock(&msk->lock);
	if (msk->closing)
		goto out;
	/* Read under the lock: no packet stamps a later time meanwhile. */
	now = mpdt_now();
	if (msk->time_wait) {
		tw_over = mpdt_tw_expire(msk, now);
		if (!tw_over)
			mod_timer(&msk->gc_timer, jiffies + 1 +
				  nsecs_to_jiffies(msk->tw_end_ns - now));
		spin_unlock(&msk->lock);
		if (tw_over)
			sock_put(&msk->inet.sk);
		return;
	}
	list_for_each_entry_safe(c, tmp, &msk->conn_lru, lru) {
		mpdt_rx_expire(c, now);
		if (holds_nothing(c) &&
		    mpdt_since(now, c->heard_ns) >= MPDT_CONN_IDLE_NS)
			conn_forget(c, MPDT_STAT_CONN_EXPIRED);
	}
	if (msk->nconns)
		mod_timer(&msk->gc_timer, jiffies + gc_interval(msk->mn));
out:
	spin_unlock(&msk->lock);
}

/* A new connection has its receiving half sized; the sending half is
 * sized by mpdt_conn_send() on the first message.
 */
struct mpdt_conn *mpdt_conn_create(struct mpdt_sock *msk,
				   const struct mpdt_addr *peer, gfp_t gfp)
{
	u32 window = READ_ONCE(msk->mn->params.rx_window);
	struct mpdt_conn *c;

	if (msk->nconns >= MPDT_MAX_CONNS && !evict_one(msk)) {
		mpdt_stat_inc(msk->mn, MPDT_STAT_DROP_CONN_LIMIT);
		return NULL;
	}
	c = kmem_cache_zalloc(mpdt_conn_cache, gfp);
	if (!c) {
		mpdt_stat_inc(msk->mn, MPDT_STAT_DROP_NO_BUFFER);
		return NULL;
	}
	c->rx_bits = kzalloc(window / 8, gfp);
	c->cc.ops = READ_ONCE(msk->cc) ?: READ_ONCE(msk->mn->cc);
	c->cc.priv = algo_priv(c->cc.ops->priv_size, gfp);
	if (lb_alloc(&c->lb, READ_ONCE(msk->lb) ?: READ_ONCE(msk->mn->lb),
		     &msk->mn->params, gfp) ||
	    !c->rx_bits || (c->cc.ops->priv_size && !c->cc.priv)) {
		kfree(c->lb.priv);
		kfree(c->cc.priv);
		kfree(c->rx_bits);
		kmem_cache_free(mpdt_conn_cache, c);
		mpdt_stat_inc(msk->mn, MPDT_STAT_DROP_NO_BUFFER);
		return NULL;
	}
	c->msk = msk;
	c->peer = *peer;
	c->state = MPDT_CONN_ACTIVE;
	INIT_LIST_HEAD(&c->tx_msgs);
	hash_init(c->rx_msgs);
	mpdt_rx_init(&c->rx, c->rx_bits, window);
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->timer.function = mpdt_conn_timer;
	hash_add(msk->conns, &c->node, addr_hash(msk, peer));
	c->heard_ns = mpdt_now();
	list_add_tail(&c->lru, &msk->conn_lru);
	msk->nconns++;
	mpdt_conn_gc_arm(msk);
	mpdt_stat_inc(msk->mn, MPDT_STAT_CONN_CREATED);
	mpdt_netlink_conn_event(c, MPDT_CMD_CONN_CREATED);
	return c;
}

/* Start a new sending incarnation: fresh nonce, PSNs and algorithms. */
static void tx_reset(struct mpdt_conn *c)
{
	const struct mpdt_params *p = &c->msk->mn->params;
	u64 now = mpdt_now();

	c->nonce = get_random_u32();
	c->state = MPDT_CONN_ACTIVE;
	c->pause_until = 0;
	mpdt_sb_init(&c->sb, c->sb_ring, c->rx.window, now);
	mpdt_rtt_init(&c->rtt);
	c->cc.mss = p->payload;
	if (c->lb.priv)
		memset(c->lb.priv, 0, c->lb.priv_len);
	if (c->cc.priv)
		memset(c->cc.priv, 0, c->cc.ops->priv_size);
	c->lb.ops->init(&c->lb, p, get_random_u64());
	c->cc.ops->init(&c->cc, p);
}

/* A sending half that held nothing and heard nothing for the quiet time
 * starts a new incarnation with its next message: the peer may have
 * forgotten the old one (evictable(), the idle timeout, a restart), and
 * it adopts a new nonce after that much quiet anyway (rx.c).  The path's
 * RTT and congestion state are stale by then too (cf. RFC 2861).
 */
static bool tx_idle_restart(const struct mpdt_conn *c, u64 now)
{
	return c->state == MPDT_CONN_FAILED ||
	       (list_empty(&c->tx_msgs) &&
		mpdt_since(now, c->heard_ns) >= mpdt_rx_quiet_ns(c->msk->mn));
}

/* A scoreboard ring, sized by the connection's window. */
struct tx_ring {
	struct mpdt_sb_pkt *pkts;
	u32 window;
};

static int queue_locked(struct mpdt_sock *msk, const struct mpdt_addr *peer,
			struct mpdt_txmsg *m, struct tx_ring *ring)
{
	struct mpdt_conn *c = mpdt_conn_find(msk, peer);

	if (!c)
		c = mpdt_conn_create(msk, peer, GFP_ATOMIC);
	if (!c)
		return -ENOBUFS;
	if (!c->sb_ring) {
		if (ring->window != c->rx.window) {
			ring->window = c->rx.window;
			return -EAGAIN;
		}
		c->sb_ring = ring->pkts;
		ring->pkts = NULL;
		tx_reset(c);
	} else if (tx_idle_restart(c, mpdt_now())) {
		tx_reset(c);
	}
	sk_wmem_queued_add(&msk->inet.sk, m->charged);
	mpdt_conn_queue_msg(c, m);
	mpdt_conn_push(c);
	return 0;
}

/* Queue message @m to @peer and send what the window allows.  The first
 * message, or the first after the peer failed, starts a new incarnation.
 * The scoreboard ring is sized here, in process context, outside the lock.
 */
int mpdt_conn_send(struct mpdt_sock *msk, const struct mpdt_addr *peer,
		   struct mpdt_txmsg *m)
{
	struct tx_ring ring = {};
	int err;

	for (;;) {
		spin_lock_bh(&msk->lock);
		err = queue_locked(msk, peer, m, &ring);
		spin_unlock_bh(&msk->lock);
		if (err != -EAGAIN)
			break;
		kvfree(ring.pkts);
		ring.pkts = kvcalloc(ring.window, sizeof(*ring.pkts),
				     GFP_KERNEL_ACCOUNT);
		if (!ring.pkts)
			return -ENOMEM;
	}
	kvfree(ring.pkts);
	return err;
}

void mpdt_txmsg_free(struct mpdt_sock *msk, struct mpdt_txmsg *m)
{
	sk_wmem_queued_add(&msk->inet.sk, -(int)m->charged);
	kvfree(m->data);
	kmem_cache_free(mpdt_txmsg_cache, m);
}

/* Give back @bytes of receive memory: the socket's, and the protocol's and
 * memory cgroup's pages behind them.  Under msk->lock, or while closing.
 */
void mpdt_rmem_release(struct mpdt_sock *msk, u32 bytes)
{
	struct sock *sk = &msk->inet.sk;

	if (!bytes)
		return;
	atomic_sub(bytes, &sk->sk_rmem_alloc);
	sk_mem_uncharge(sk, bytes);
	sk_mem_reclaim(sk);
}

/* Under msk->lock, or while closing (mpdt_rmem_release()). */
void mpdt_rxmsg_free(struct mpdt_sock *msk, struct mpdt_rxmsg *m)
{
	u32 i;

	for (i = 0; i < m->npages; i++)
		if (m->pages[i])
			__free_page(m->pages[i]);
	mpdt_rmem_release(msk, m->charged);
	kfree(m->segs);
	kfree(m->pages);
	kmem_cache_free(mpdt_rxmsg_cache, m);
}

void mpdt_conn_purge_tx(struct mpdt_conn *c)
{
	struct mpdt_txmsg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &c->tx_msgs, node) {
		list_del(&m->node);
		mpdt_txmsg_free(c->msk, m);
	}
	c->tx_next = NULL;
	c->msgs_inflight = 0;
}

void mpdt_conn_purge_rx(struct mpdt_conn *c)
{
	struct hlist_node *tmp;
	struct mpdt_rxmsg *m;
	int bkt;

	hash_for_each_safe(c->rx_msgs, bkt, tmp, m, hnode) {
		hash_del(&m->hnode);
		mpdt_rxmsg_free(c->msk, m);
	}
	c->rx_reserved = 0;
}

/* The peer stopped answering (max_retries consecutive timeouts): drop what
 * we were sending to it and report ETIMEDOUT on the socket.  A later send
 * to the same peer starts a new incarnation.
 */
void mpdt_conn_fail(struct mpdt_conn *c)
{
	struct sock *sk = &c->msk->inet.sk;

	c->state = MPDT_CONN_FAILED;
	mpdt_conn_purge_tx(c);
	mpdt_stat_inc(c->msk->mn, MPDT_STAT_CONN_FAILED);
	mpdt_netlink_conn_event(c, MPDT_CMD_CONN_FAILED);
	hrtimer_try_to_cancel(&c->timer);
	WRITE_ONCE(sk->sk_err, ETIMEDOUT);
	sk_error_report(sk);
	mpdt_sock_wake_writers(c->msk);
}

/* Socket release, after msk->closing stopped every other user. */
void mpdt_conn_destroy(struct mpdt_conn *c)
{
	hrtimer_cancel(&c->timer);
	mpdt_netlink_conn_event(c, MPDT_CMD_CONN_CLOSED);
	mpdt_conn_purge_tx(c);
	mpdt_conn_purge_rx(c);
	kvfree(c->sb_ring);
	kfree(c->rx_bits);
	kfree(c->lb.priv);
	kfree(c->cc.priv);
	kmem_cache_free(mpdt_conn_cache, c);
}

void mpdt_conn_fill_info(struct mpdt_conn *c, struct mpdt_info *info)
{
	const struct mpdt_sb *sb = &c->sb;
	int i;

	info->mi_state = c->state;
	info->mi_nonce = c->nonce;
	info->mi_cwnd = c->cc.cwnd;
	info->mi_inflight = c->sb_ring ? mpdt_sb_inflight(sb) : 0;
	info->mi_srtt_us = div_u64(c->rtt.srtt, NSEC_PER_USEC);
	info->mi_rttvar_us = div_u64(c->rtt.rttvar, NSEC_PER_USEC);
	info->mi_min_rtt_us = div_u64(c->rtt.min_rtt, NSEC_PER_USEC);
	info->mi_rto_us = div_u64(mpdt_conn_rto(c), NSEC_PER_USEC);
	info->mi_snd_una = sb->una;
	info->mi_snd_nxt = sb->nxt;
	info->mi_rcv_epsn = c->rx.epsn;
	info->mi_rcv_ooo = c->rx.ooo_count;
	for (i = 0; i < __MPDT_RETX_MAX; i++)
		info->mi_retx[i] = sb->retx[i];
	info->mi_probes = c->probes;
	info->mi_rtos = c->rtos;
	info->mi_sacks_rcvd = c->sacks_rcvd;
	info->mi_sacks_sent = c->sacks_sent;
	info->mi_nacks_rcvd = c->nacks_rcvd;
	info->mi_nacks_sent = c->nacks_sent;
	info->mi_msgs_sent = c->msgs_sent;
	info->mi_msgs_acked = c->msgs_acked;
	info->mi_msgs_rcvd = c->msgs_rcvd;
	info->mi_bytes_sent = sb->bytes_sent;
	info->mi_bytes_acked = sb->bytes_recvd;
	info->mi_msgs_inflight = c->msgs_inflight;
	info->mi_ev = c->last_ev;
	strscpy(info->mi_lb, c->lb.ops->name, sizeof(info->mi_lb));
	strscpy(info->mi_cc, c->cc.ops->name, sizeof(info->mi_cc));
}
