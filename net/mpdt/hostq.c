// SPDX-License-Identifier: GPL-2.0
/*
 * The socket's share of this host's own queues, as TCP Small Queues.
 * Every DATA (and PROBE) skb is charged to its socket's sk_wmem_alloc
 * until it leaves the host: a device frees it, netem orphans it as it
 * delays it, loopback as it takes it, and over a veth the receiving stack
 * in ip_rcv().  The engine asks before each burst whether the socket
 * holds more than its limit there (engine.c host_room()); a connection
 * told no waits on the socket's list, and the skb whose release brings the
 * socket within the limit starts the timer of every connection waiting,
 * which sends again.  A connection whose probe waits for the socket's
 * packets to leave the host (engine.c probe_may_go()) waits on the list
 * too, for the last one.
 *
 * One socket may have many connections, each with its own limit (its
 * rate); the socket's is the largest of them, so that a new or slow
 * connection is not starved by a fast one's packets.
 *
 * sock_wfree() calls mpdt_write_space() with a unit of sk_wmem_alloc
 * still held, so the socket is there.  The list has its own lock, taken
 * with interrupts off, because an skb may be freed anywhere, msk->lock
 * held or not.  A connection leaves the list before its timer is
 * cancelled (mpdt_conn_timer_stop()): nothing starts the timer of a
 * connection being freed, or of a closed socket's once time-wait began.
 */
#include "protocol.h"

void mpdt_hostq_init(struct mpdt_sock *msk)
{
	spin_lock_init(&msk->tx_wait_lock);
	INIT_LIST_HEAD(&msk->tx_waiting);
	msk->inet.sk.sk_write_space = mpdt_write_space;
}

/* @skb, DATA or PROBE of @c's, goes to the host's queues, owned by the
 * socket (its cgroup's egress programs judge it, output.c).  Feedback is
 * not charged: SACKs waiting in a full backlog would hold DATA back by
 * bytes no limit bounds (TCP leaves its pure ACKs out likewise).
 * skb_set_owner_w() would also stamp the socket's sk_txhash on it as an
 * L4 hash, which kernel multipath routing prefers to the ports, the
 * entropy: MPDT sockets have none (only TCP and a UDP connect() set one).
 */
void mpdt_hostq_charge(struct mpdt_conn *c, struct sk_buff *skb)
{
	skb_set_owner_w(skb, &c->msk->inet.sk);
}

/* Under msk->lock: the largest limit of the socket's connections, kept
 * by the one that set it, which moves it down as well as up; when it is
 * gone, the next one to ask sets it.
 */
static u32 socket_limit(struct mpdt_sock *msk, struct mpdt_conn *c, u32 limit)
{
	if (limit >= msk->tx_limit || msk->tx_limit_by == c ||
	    !msk->tx_limit_by) {
		WRITE_ONCE(msk->tx_limit, limit);
		msk->tx_limit_by = c;
	}
	return msk->tx_limit;
}

/* sk_wmem_alloc counts one for the socket itself. */
static bool within(struct mpdt_sock *msk, u32 limit)
{
	return refcount_read(&msk->inet.sk.sk_wmem_alloc) <= limit;
}

static void unwait(struct mpdt_sock *msk, struct mpdt_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&msk->tx_wait_lock, flags);
	list_del_init(&c->tx_wait);
	spin_unlock_irqrestore(&msk->tx_wait_lock, flags);
}

/* Whether the socket holds at most @limit in the host; if not, @c waits
 * on the socket's list until it does, or until it is drained (@drain) if
 * that is all it waits for.
 */
static bool within_or_wait(struct mpdt_sock *msk, struct mpdt_conn *c,
			   u32 limit, bool drain)
{
	unsigned long flags;

	if (within(msk, limit))
		return true;
	spin_lock_irqsave(&msk->tx_wait_lock, flags);
	if (list_empty(&c->tx_wait)) {
		list_add_tail(&c->tx_wait, &msk->tx_waiting);
		c->tx_wait_drain = drain;
	} else {
		c->tx_wait_drain &= drain;
	}
	spin_unlock_irqrestore(&msk->tx_wait_lock, flags);
	/* Listed before the second look, which an skb released meanwhile
	 * may pass: either its mpdt_write_space() sees us, or we see it
	 * gone (pairs with the barrier there).
	 */
	smp_mb();
	if (!within(msk, limit))
		return false;
	unwait(msk, c);
	return true;
}

bool mpdt_tx_host_room(struct mpdt_eng *e, u32 limit)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);

	return within_or_wait(c->msk, c, socket_limit(c->msk, c, limit),
			      false);
}

/* The socket's packets, not the connection's: it does not know whose
 * are in the host.  sk_wmem_alloc's unit for the socket is all that is
 * left when none is.
 */
bool mpdt_tx_host_drained(struct mpdt_eng *e)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);

	return within_or_wait(c->msk, c, 1, true);
}

/* sock_setsockopt() calls sk_write_space() when SO_SNDBUF changed the
 * buffer, and a sendmsg() waiting for room may now have it.  Every freed
 * DATA skb calls it too, but frees no room of sk_wmem_queued: an
 * acknowledged message wakes writers itself (tx.c).
 */
static void wake_writers_if_sndbuf_changed(struct mpdt_sock *msk)
{
	int sndbuf = READ_ONCE(msk->inet.sk.sk_sndbuf);

	if (likely(sndbuf == READ_ONCE(msk->sndbuf_seen)))
		return;
	WRITE_ONCE(msk->sndbuf_seen, sndbuf);
	mpdt_sock_wake_writers(msk);
}

void mpdt_write_space(struct sock *sk)
{
	struct mpdt_sock *msk = mpdt_sk(sk);
	struct mpdt_conn *c, *next;
	unsigned long flags;
	u32 left;

	wake_writers_if_sndbuf_changed(msk);
	/* After sock_wfree()'s refcount_sub_and_test() of sk_wmem_alloc,
	 * which still holds one unit for the skb leaving.
	 */
	smp_mb__after_atomic();
	left = refcount_read(&sk->sk_wmem_alloc) - 1;
	if (list_empty(&msk->tx_waiting) ||
	    (left > READ_ONCE(msk->tx_limit) && left > 1))
		return;
	spin_lock_irqsave(&msk->tx_wait_lock, flags);
	list_for_each_entry_safe(c, next, &msk->tx_waiting, tx_wait) {
		if (c->tx_wait_drain && left > 1)
			continue;
		list_del_init(&c->tx_wait);
		hrtimer_start(&c->timer, 0, HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock_irqrestore(&msk->tx_wait_lock, flags);
}

/* Stop @c's timer unless it is running (false): off the list first, so
 * that only the engine may start it again.
 */
bool mpdt_conn_timer_stop(struct mpdt_conn *c)
{
	unwait(c->msk, c);
	if (c->msk->tx_limit_by == c)
		c->msk->tx_limit_by = NULL;
	return hrtimer_try_to_cancel(&c->timer) >= 0;
}
