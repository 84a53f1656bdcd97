// SPDX-License-Identifier: GPL-2.0
/*
 * Time-wait (wire-format.rst section 8.2), MPDT's TIME_WAIT.  A socket
 * closed while a peer may still wait for its last SACK stays bound for
 * the quiet time (mpdt_eng_quiet_ns()), holding only its receive bitmaps:
 * it answers duplicate DATA and PROBEs of what it received, so a sender
 * whose final SACK was lost learns that every byte arrived instead of
 * failing with ETIMEDOUT.  It holds no message and takes no new data; a
 * new bind() of its port ends it at once.
 */
#include "protocol.h"

static bool any_peer_may_wait(struct mpdt_sock *msk, u64 now)
{
	struct mpdt_conn *c;
	int bkt;

	hash_for_each(msk->conns, bkt, c, node)
		if (mpdt_eng_peer_may_wait(&c->eng, now))
			return true;
	return false;
}

/* Everything but the bitmaps goes; the connections' timers stop (one
 * already running finds msk->time_wait and does nothing).
 */
static void strip(struct mpdt_sock *msk, struct list_head *ready)
{
	struct mpdt_conn *c;
	int bkt;

	list_splice_init(&msk->rx_ready, ready);
	hash_for_each(msk->conns, bkt, c, node) {
		hrtimer_try_to_cancel(&c->timer);
		mpdt_eng_time_wait(&c->eng);
	}
}

/* close(): true if @msk stays in time-wait; its reference then goes when
 * the time-wait ends (mpdt_tw_expire()).
 */
bool mpdt_tw_enter(struct mpdt_sock *msk)
{
	u64 now, quiet = mpdt_eng_quiet_ns(&msk->mn->params);
	struct mpdt_rxmsg *m, *tmp;
	LIST_HEAD(ready);
	bool wait;

	spin_lock_bh(&msk->lock);
	now = mpdt_now();
	wait = msk->port && any_peer_may_wait(msk, now);
	if (wait) {
		msk->time_wait = true;
		msk->tw_end_ns = now + quiet;
		strip(msk, &ready);
		list_for_each_entry_safe(m, tmp, &ready, node)
			mpdt_rxmsg_free(msk, m);
		mod_timer(&msk->gc_timer, jiffies + nsecs_to_jiffies(quiet) + 1);
		mpdt_stat_inc(msk->mn, MPDT_STAT_TIME_WAIT);
	}
	spin_unlock_bh(&msk->lock);
	if (wait)
		mpdt_port_time_wait(msk);
	return wait;
}

/* The gc timer, under msk->lock: false while the time-wait lasts.  Once
 * it is over the socket is unbound and its connections freed (none has a
 * timer left to wait for); the caller then drops the last reference.
 */
bool mpdt_tw_expire(struct mpdt_sock *msk, u64 now)
{
	struct hlist_node *next;
	struct mpdt_conn *c;
	int bkt;

	if (now < msk->tw_end_ns)
		return false;
	msk->closing = true;
	mpdt_port_unbind(msk);
	hash_for_each_safe(msk->conns, bkt, next, c, node) {
		hash_del(&c->node);
		mpdt_conn_destroy(c);
	}
	msk->nconns = 0;
	sk_mem_reclaim_final(&msk->inet.sk);
	return true;
}
