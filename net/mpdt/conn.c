// SPDX-License-Identifier: GPL-2.0
/*
 * Connections: the state one MPDT socket keeps per peer (address and MPDT
 * port).  Each runs an engine (engine.h), which makes every protocol
 * decision; this file keeps the table, the memory and the engine's
 * actions.  A connection lives until the socket is released, or until it
 * holds nothing and is collected (idle) or evicted (the table is full);
 * everything here runs under msk->lock, but the destruction of every
 * connection of a socket that is closing (mpdt_conn_destroy_all()).
 */
#include <net/ipv6.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "protocol.h"

/* A peer as hashed, without padding: the family too, as an IPv4
 * address and the IPv6 one that starts with it are different peers.
 */
struct peer_key {
	struct in6_addr v6;	/* IPv4 in its first word */
	u32 port;
	u32 scope_id;
	u32 family;
};

static struct peer_key peer_key_of(const struct mpdt_addr *a, __be16 port)
{
	return (struct peer_key){
		.v6 = a->family == AF_INET6 ? a->v6 : (struct in6_addr){
			.s6_addr32 = { a->v4 } },
		.port = (__force u32)port,
		.scope_id = a->scope_id,
		.family = a->family,
	};
}

/* Keyed per socket: the peer picks the address and port we hash, and
 * must not be able to pile its connections into one bucket.  @port 0
 * hashes the host alone.
 */
static u32 peer_hash(const struct mpdt_sock *msk, const struct mpdt_addr *a,
		     __be16 port)
{
	const struct peer_key k = peer_key_of(a, port);

	return siphash(&k, sizeof(k), &msk->conn_key);
}

static u32 addr_hash(const struct mpdt_sock *msk, const struct mpdt_addr *a)
{
	return peer_hash(msk, a, a->port);
}

static u32 host_hash(const struct mpdt_sock *msk, const struct mpdt_addr *a)
{
	return peer_hash(msk, a, 0);
}

static bool same_host(const struct mpdt_addr *a, const struct mpdt_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET6)
		return ipv6_addr_equal(&a->v6, &b->v6) &&
		       a->scope_id == b->scope_id;
	return a->v4 == b->v4;
}

static bool addr_equal(const struct mpdt_addr *a, const struct mpdt_addr *b)
{
	return a->port == b->port && same_host(a, b);
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

/* Forgetting a connection is safe when it holds nothing and its peer has
 * been quiet for twice the quiet time: the peer's sending half, idle for
 * the quiet time, starts a new incarnation with its next message
 * (mpdt_eng_needs_start()), which finds fresh state as it should, instead of
 * continuing its PSNs into a bitmap that forgot them.  A stranger's
 * embryonic connection can go at once, and goes first.
 */
static bool evictable(const struct mpdt_conn *c, u64 now, u64 quiet,
		      bool strangers)
{
	if (!mpdt_eng_holds_nothing(&c->eng))
		return false;
	if (strangers)
		return mpdt_eng_embryonic(&c->eng);
	return mpdt_since(now, c->eng.heard_ns) >= 2 * quiet;
}

/* The connections of @peer's address, or NULL if it has none. */
static struct mpdt_host *host_find(struct mpdt_sock *msk,
				   const struct mpdt_addr *peer)
{
	struct mpdt_host *h;

	hash_for_each_possible(msk->hosts, h, node, host_hash(msk, peer))
		if (same_host(&h->addr, peer))
			return h;
	return NULL;
}

/* @c, a new connection to @peer, joins its address's; the first makes
 * the entry, charged as the connection is.
 */
static bool host_join(struct mpdt_sock *msk, struct mpdt_conn *c,
		      const struct mpdt_addr *peer, gfp_t gfp)
{
	struct mpdt_host *h = host_find(msk, peer);

	if (!h) {
		h = kmem_cache_zalloc(mpdt_host_cache, gfp);
		if (!h)
			return false;
		h->addr = *peer;
		h->addr.port = 0;
		INIT_LIST_HEAD(&h->conns);
		hash_add(msk->hosts, &h->node, host_hash(msk, peer));
	}
	list_add_tail(&c->host_lru, &h->conns);
	h->nconns++;
	c->host = h;
	return true;
}

static void host_leave(struct mpdt_conn *c)
{
	struct mpdt_host *h = c->host;

	list_del(&c->host_lru);
	if (--h->nconns)
		return;
	hash_del(&h->node);
	kmem_cache_free(mpdt_host_cache, h);
}

/* Free @c unless its timer is running (it waits for msk->lock, which we
 * hold, and would then use @c): the caller picks another.
 */
static bool conn_forget(struct mpdt_conn *c, enum mpdt_stat why)
{
	struct mpdt_sock *msk = c->msk;

	if (!mpdt_conn_timer_stop(c))
		return false;
	hash_del(&c->node);
	host_leave(c);
	list_del(&c->lru);
	msk->nconns--;
	mpdt_stat_inc(msk->mn, why);
	mpdt_conn_destroy(c);
	return true;
}

/* How many of the least recently heard connections, of the socket or of
 * a host, a peer's packet looks at for one to evict.  A connection heard
 * moves to the lists' tails, so strangers nobody hears again and quiet
 * peers drift to their heads as the live ones are heard.  Unbounded, a
 * table of live connections with one stranger at its tail, replaced by
 * every packet from a new (spoofed) source, cost each such packet a walk
 * of all MPDT_MAX_CONNS; a host's, a walk of its MPDT_MAX_HOST_CONNS for
 * every packet from a new port of one address.
 */
#define MPDT_CONN_EVICT_SCAN	64

/* The connection at @pos of the socket's conn_lru, or of a host's conns. */
static struct mpdt_conn *lru_conn(struct list_head *pos, bool of_host)
{
	return of_host ? list_entry(pos, struct mpdt_conn, host_lru) :
			 list_entry(pos, struct mpdt_conn, lru);
}

/* Evict the least recently heard stranger, else the least recently heard
 * quiet peer, of the first @scan on @head.
 */
static bool evict_first(struct list_head *head, bool of_host, u32 scan,
			u64 now, u64 quiet)
{
	struct list_head *pos;
	struct mpdt_conn *c;
	int strangers;
	u32 seen;

	for (strangers = 1; strangers >= 0; strangers--) {
		seen = 0;
		list_for_each(pos, head) {
			if (++seen > scan)
				break;
			c = lru_conn(pos, of_host);
			if (evictable(c, now, quiet, strangers) &&
			    conn_forget(c, MPDT_STAT_CONN_EVICTED))
				return true;
		}
	}
	return false;
}

/* A full table evicts by evict_first(), for a peer's packet from the
 * first MPDT_CONN_EVICT_SCAN.  When none may go, it is not searched for a
 * peer's packet again for a millisecond.  The socket's own sendmsg()
 * always searches all of it.
 */
static bool evict_one(struct mpdt_sock *msk, bool by_peer)
{
	u64 now = mpdt_now(), quiet = mpdt_eng_quiet_ns(&msk->mn->params);

	if (by_peer && now < msk->evict_none_until_ns)
		return false;
	if (evict_first(&msk->conn_lru, false,
			by_peer ? MPDT_CONN_EVICT_SCAN : MPDT_MAX_CONNS, now,
			quiet))
		return true;
	msk->evict_none_until_ns = now + NSEC_PER_MSEC;
	return false;
}

/* A host at its share of the table (MPDT_MAX_HOST_CONNS, whatever its
 * ports) makes room from its own connections, as evict_one() does from
 * the table's; others are not evicted for it.
 */
static bool host_has_room(struct mpdt_sock *msk, const struct mpdt_addr *peer)
{
	struct mpdt_host *h = host_find(msk, peer);
	u64 now;

	if (!h || h->nconns < MPDT_MAX_HOST_CONNS)
		return true;
	now = mpdt_now();
	if (now < h->evict_none_until_ns)
		return false;
	if (evict_first(&h->conns, true, MPDT_CONN_EVICT_SCAN, now,
			mpdt_eng_quiet_ns(&msk->mn->params)))
		return true;
	h->evict_none_until_ns = now + NSEC_PER_MSEC;
	return false;
}

/* An idle connection is collected once it may be evicted, and no sooner
 * than MPDT_CONN_IDLE_NS: with an rto-max-us above a quarter of that, a
 * peer idle for less than its quiet time keeps its incarnation and would
 * continue its PSNs into a connection that forgot them.
 */
static bool conn_idle(const struct mpdt_conn *c, u64 now, u64 quiet)
{
	return evictable(c, now, quiet, false) &&
	       mpdt_since(now, c->eng.heard_ns) >= MPDT_CONN_IDLE_NS;
}

/* The engine noted the time; the eviction order follows it.  A burst's
 * packets after its first find the connection last already, of the
 * socket's and so of its host's (both lists move together).
 */
void mpdt_conn_heard(struct mpdt_conn *c)
{
	if (list_is_last(&c->lru, &c->msk->conn_lru))
		return;
	list_move_tail(&c->lru, &c->msk->conn_lru);
	list_move_tail(&c->host_lru, &c->host->conns);
}

static unsigned long gc_interval(const struct mpdt_net *mn)
{
	return max(1UL, nsecs_to_jiffies(mpdt_eng_quiet_ns(&mn->params) / 2));
}

void mpdt_conn_gc_arm(struct mpdt_sock *msk)
{
	if (!timer_pending(&msk->gc_timer))
		mod_timer(&msk->gc_timer, jiffies + gc_interval(msk->mn));
}

/* Expire partial messages, collect idle connections and the pages of
 * an idle sender, while any are left; for a closed socket, the steps of
 * close.c.  Softirq; release stops it (msk->closing, then
 * del_timer_sync), or it ends a closed socket's life.
 */
void mpdt_conn_gc(struct timer_list *t)
{
	struct mpdt_sock *msk = from_timer(msk, t, gc_timer);
	struct mpdt_conn *c, *tmp;
	u64 now, quiet;
	bool done;

	spin_lock(&msk->lock);
	if (msk->closing)
		goto out;
	/* Read under the lock: no packet stamps a later time meanwhile. */
	now = mpdt_now();
	if (mpdt_sock_closed(msk)) {
		done = mpdt_close_gc(msk, now);
		spin_unlock(&msk->lock);
		if (done) {
			mpdt_close_finish(msk);
			sock_put(&msk->inet.sk);
		}
		return;
	}
	quiet = mpdt_eng_quiet_ns(&msk->mn->params);
	list_for_each_entry_safe(c, tmp, &msk->conn_lru, lru) {
		mpdt_eng_rx_expire(&c->eng, now);
		if (conn_idle(c, now, quiet))
			conn_forget(c, MPDT_STAT_CONN_EXPIRED);
	}
	if (msk->nconns)
		mod_timer(&msk->gc_timer, jiffies + gc_interval(msk->mn));
	mpdt_txpages_idle(msk, !msk->nconns);
out:
	spin_unlock(&msk->lock);
}

static void count(struct mpdt_eng *e, enum mpdt_stat s, u64 n)
{
	mpdt_stat_add(mpdt_eng_conn(e)->msk->mn, s, n);
}

/* The cookie that proves the peer's incarnation @nonce receives at the
 * peer's address, to replace @replaced (wire-format.rst 5.1), under a
 * key of its own: a hash table's key may leak through timing, and one
 * cookie must not tell another peer's.
 */
static u64 conn_cookie(struct mpdt_eng *e, u32 nonce, u32 replaced,
		       u32 epoch)
{
	const struct mpdt_conn *c = mpdt_eng_conn(e);
	const struct {
		struct peer_key peer;
		u32 nonce;
		u32 replaced;
		u32 epoch;
	} k = {
		.peer = peer_key_of(&c->peer, c->peer.port),
		.nonce = nonce,
		.replaced = replaced,
		.epoch = epoch,
	};

	return siphash(&k, sizeof(k), &c->msk->cookie_key);
}

static const struct mpdt_eng_ops conn_eng_ops = {
	.xmit		= mpdt_xmit,
	.flush		= mpdt_xmit_flush,
	.host_room	= mpdt_tx_host_room,
	.host_drained	= mpdt_tx_host_drained,
	.paced		= mpdt_tx_paced,
	.arm_timer	= mpdt_tx_arm_timer,
	.count		= count,
	.tx_release	= mpdt_tx_release,
	.tx_room	= mpdt_tx_room,
	.failed		= mpdt_tx_failed,
	.rx_find	= mpdt_rx_find,
	.rx_admit	= mpdt_rx_admit,
	.rx_place	= mpdt_rx_place,
	.rx_deliver	= mpdt_rx_deliver,
	.rx_forget	= mpdt_rx_forget,
	.rx_room	= mpdt_rx_room,
	.cookie		= conn_cookie,
};

static void conn_free(struct mpdt_conn *c)
{
	DEBUG_NET_WARN_ON_ONCE(c->burst.skb);
	dst_cache_destroy(&c->dst_cache);
	kvfree(c->eng.sb.ring);
	kfree(c->eng.rx.bits);
	kfree(c->eng.lb.priv);
	kfree(c->eng.cc.priv);
	kmem_cache_free(mpdt_conn_cache, c);
}

static struct mpdt_conn *conn_alloc(struct mpdt_sock *msk, gfp_t gfp)
{
	const struct mpdt_cc_ops *cc = READ_ONCE(msk->cc) ?:
				       READ_ONCE(msk->mn->cc);
	u32 window = READ_ONCE(msk->mn->params.rx_window);
	struct mpdt_conn *c;
	u64 *rx_bits;

	c = kmem_cache_zalloc(mpdt_conn_cache, gfp);
	if (!c)
		return NULL;
	/* Before the engine's init, which clears the bitmap: a peer's
	 * packet allocates it in softirq, where it may fail.
	 */
	rx_bits = kzalloc(window / 8, gfp);
	if (!rx_bits) {
		kmem_cache_free(mpdt_conn_cache, c);
		return NULL;
	}
	mpdt_eng_init(&c->eng, &conn_eng_ops, &msk->mn->params, rx_bits,
		      window, mpdt_now());
	c->eng.cc.ops = cc;
	c->eng.cc.priv = algo_priv(cc->priv_size, gfp);
	if (lb_alloc(&c->eng.lb, READ_ONCE(msk->lb) ?: READ_ONCE(msk->mn->lb),
		     &msk->mn->params, gfp) ||
	    (cc->priv_size && !c->eng.cc.priv)) {
		conn_free(c);
		return NULL;
	}
	/* Optional: without it every packet's route is looked up (an atomic
	 * per-CPU allocation fails while the allocator refills).
	 */
	dst_cache_init(&c->dst_cache, gfp);
	return c;
}

/* A new connection has its receiving half sized; the sending half's
 * scoreboard is sized by mpdt_conn_send() on the first message.  Its
 * memory is charged to the socket owner's memory cgroup, also when a
 * peer's packet creates it in softirq.  A peer's packet (@by_peer) is
 * held to its host's share of the table; the application's own sends
 * only to the table's size.
 */
struct mpdt_conn *mpdt_conn_create(struct mpdt_sock *msk, bool by_peer,
				   const struct mpdt_addr *peer, gfp_t gfp)
{
	struct mem_cgroup *memcg;
	struct mpdt_conn *c;

	if ((by_peer && !host_has_room(msk, peer)) ||
	    (msk->nconns >= MPDT_MAX_CONNS && !evict_one(msk, by_peer))) {
		mpdt_stat_inc(msk->mn, MPDT_STAT_DROP_CONN_LIMIT);
		return NULL;
	}
	memcg = set_active_memcg(msk->inet.sk.sk_memcg);
	c = conn_alloc(msk, gfp | __GFP_ACCOUNT);
	if (c && !host_join(msk, c, peer, gfp | __GFP_ACCOUNT)) {
		conn_free(c);
		c = NULL;
	}
	set_active_memcg(memcg);
	if (!c) {
		mpdt_stat_inc(msk->mn, MPDT_STAT_DROP_NO_BUFFER);
		return NULL;
	}
	c->msk = msk;
	c->peer = *peer;
	hash_init(c->rx_msgs);
	hrtimer_init(&c->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->timer.function = mpdt_conn_timer;
	INIT_LIST_HEAD(&c->tx_wait);
	hash_add(msk->conns, &c->node, addr_hash(msk, peer));
	list_add_tail(&c->lru, &msk->conn_lru);
	msk->nconns++;
	mpdt_conn_gc_arm(msk);
	mpdt_stat_inc(msk->mn, MPDT_STAT_CONN_CREATED);
	mpdt_netlink_conn_event(c, MPDT_CMD_CONN_CREATED);
	return c;
}

/* Socket release or the end of a closed socket, after every other user
 * stopped (msk->closing).
 */
void mpdt_conn_destroy(struct mpdt_conn *c)
{
	mpdt_conn_timer_stop(c);
	hrtimer_cancel(&c->timer);
	mpdt_netlink_conn_event(c, MPDT_CMD_CONN_CLOSED);
	mpdt_eng_release(&c->eng);
	conn_free(c);
}

/* Socket release or the end of a closed socket: every connection goes. */
void mpdt_conn_destroy_all(struct mpdt_sock *msk)
{
	struct hlist_node *next;
	struct mpdt_conn *c;
	int bkt;

	hash_for_each_safe(msk->conns, bkt, next, c, node) {
		hash_del(&c->node);
		host_leave(c);
		mpdt_conn_destroy(c);
	}
	INIT_LIST_HEAD(&msk->conn_lru);
	msk->nconns = 0;
}

/* What MPDT_INFO reports: the engine's one state, as the two states of
 * the socket API (the others send nothing, or no longer).
 */
static u32 info_state(const struct mpdt_eng *e)
{
	return e->state == MPDT_ENG_FAILED ? MPDT_CONN_FAILED :
					     MPDT_CONN_ACTIVE;
}

void mpdt_conn_fill_info(struct mpdt_conn *c, struct mpdt_info *info)
{
	const struct mpdt_eng *e = &c->eng;
	const struct mpdt_sb *sb = &e->sb;
	int i;

	info->mi_state = info_state(e);
	info->mi_nonce = e->nonce;
	info->mi_cwnd = e->cc.cwnd;
	info->mi_inflight = sb->ring ? mpdt_sb_inflight(sb) : 0;
	info->mi_srtt_us = div_u64(e->rtt.srtt, NSEC_PER_USEC);
	info->mi_rttvar_us = div_u64(e->rtt.rttvar, NSEC_PER_USEC);
	info->mi_min_rtt_us = div_u64(e->rtt.min_rtt, NSEC_PER_USEC);
	info->mi_rto_us = div_u64(mpdt_eng_rto(e), NSEC_PER_USEC);
	info->mi_snd_una = sb->una;
	info->mi_snd_nxt = sb->nxt;
	info->mi_rcv_epsn = e->rx.epsn;
	info->mi_rcv_ooo = e->rx.ooo_count;
	for (i = 0; i < __MPDT_RETX_MAX; i++)
		info->mi_retx[i] = sb->retx[i];
	info->mi_probes = e->probes;
	info->mi_rtos = e->rtos;
	info->mi_sacks_rcvd = e->sacks_rcvd;
	info->mi_sacks_sent = e->sacks_sent;
	info->mi_nacks_rcvd = e->nacks_rcvd;
	info->mi_nacks_sent = e->nacks_sent;
	info->mi_msgs_sent = e->msgs_sent;
	info->mi_msgs_acked = e->msgs_acked;
	info->mi_msgs_rcvd = e->msgs_rcvd;
	info->mi_bytes_sent = sb->bytes_sent;
	info->mi_bytes_acked = sb->bytes_recvd;
	info->mi_msgs_inflight = e->msgs_inflight;
	info->mi_ev = e->last_ev;
	info->mi_base_rtt_us = e->eff.base_rtt_us;
	info->mi_bdp = min_t(u64, mpdt_bdp(&e->eff), U32_MAX);
	info->mi_delivery_rate = e->path.rate;
	info->mi_peer_room = e->peer_room;
	strscpy(info->mi_lb, e->lb.ops->name, sizeof(info->mi_lb));
	strscpy(info->mi_cc, e->cc.ops->name, sizeof(info->mi_cc));
}
