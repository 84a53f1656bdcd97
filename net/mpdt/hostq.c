// SPDX-License-Identifier: GPL-2.0
/*
 * The socket's share of this host's own queues, as TCP Small Queues.
 * Every DATA skb is charged to its socket's sk_wmem_alloc until it leaves
 * the host: a device frees it, or, over a veth or loopback, the receiving
 * stack orphans it in ip_rcv().  The engine asks before each burst whether
 * the socket holds more than its limit there (engine.c host_room()); a
 * connection told no waits on the socket's list, and the skb whose
 * release brings the socket down to half the limit runs the timers of
 * every connection waiting, which send again.
 *
 * sock_wfree() calls mpdt_write_space() with a unit of sk_wmem_alloc
 * still held, so the socket is there; the list has its own lock because
 * an skb may be freed anywhere, msk->lock held or not.  A connection
 * leaves the list before its timer is cancelled for good.
 */
#include "protocol.h"

void mpdt_hostq_init(struct mpdt_sock *msk)
{
	spin_lock_init(&msk->tx_wait_lock);
	INIT_LIST_HEAD(&msk->tx_waiting);
	msk->inet.sk.sk_write_space = mpdt_write_space;
}

/* @skb, DATA of @c's, goes to the host's queues.  skb_set_owner_w()
 * would also stamp the socket's sk_txhash on it as an L4 hash, which
 * kernel multipath routing prefers to the ports, the entropy: MPDT
 * sockets have none (only TCP and a UDP connect() set one).
 */
struct sk_buff *mpdt_hostq_charge(struct mpdt_conn *c, struct sk_buff *skb)
{
	if (skb)
		skb_set_owner_w(skb, &c->msk->inet.sk);
	return skb;
}

static struct sock *conn_sk(struct mpdt_conn *c)
{
	return &c->msk->inet.sk;
}

/* sk_wmem_alloc counts one for the socket itself. */
static bool within(struct mpdt_conn *c, u32 limit)
{
	return refcount_read(&conn_sk(c)->sk_wmem_alloc) <= limit;
}

bool mpdt_tx_host_room(struct mpdt_eng *e, u32 limit)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct mpdt_sock *msk = c->msk;
	unsigned long flags;

	if (within(c, limit))
		return true;
	spin_lock_irqsave(&msk->tx_wait_lock, flags);
	if (list_empty(&c->tx_wait))
		list_add_tail(&c->tx_wait, &msk->tx_waiting);
	WRITE_ONCE(msk->tx_wake_at, limit / 2);
	spin_unlock_irqrestore(&msk->tx_wait_lock, flags);
	/* An skb released before we were listed found nobody to wake. */
	return within(c, limit);
}

void mpdt_write_space(struct sock *sk)
{
	struct mpdt_sock *msk = mpdt_sk(sk);
	struct mpdt_conn *c, *next;
	unsigned long flags;

	if (list_empty(&msk->tx_waiting) ||
	    refcount_read(&sk->sk_wmem_alloc) > READ_ONCE(msk->tx_wake_at))
		return;
	spin_lock_irqsave(&msk->tx_wait_lock, flags);
	list_for_each_entry_safe(c, next, &msk->tx_waiting, tx_wait) {
		list_del_init(&c->tx_wait);
		hrtimer_start(&c->timer, 0, HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock_irqrestore(&msk->tx_wait_lock, flags);
}

/* Before @c's timer is cancelled: nobody may start it again. */
void mpdt_hostq_unwait(struct mpdt_conn *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->msk->tx_wait_lock, flags);
	list_del_init(&c->tx_wait);
	spin_unlock_irqrestore(&c->msk->tx_wait_lock, flags);
}
