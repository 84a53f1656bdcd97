// SPDX-License-Identifier: GPL-2.0
/*
 * The sending half's glue: queueing a message with the engine, copying
 * a long one in while it goes, the engine's timer, and its sending-side
 * actions (releasing messages, waking writers, failing the socket).  The
 * engine (engine.c) decides what goes out and when.  Its actions run
 * under msk->lock.
 */
#include <linux/slab.h>

#include "protocol.h"

/* A scoreboard ring, sized by the connection's window. */
struct tx_ring {
	struct mpdt_sb_pkt *pkts;
	u32 window;
};

/* A new sending incarnation: fresh nonce, PSNs, RTT and algorithms. */
static int tx_start(struct mpdt_conn *c, struct tx_ring *ring, u64 now)
{
	struct mpdt_sb_pkt *pkts = c->eng.sb.ring;

	if (!pkts) {
		if (ring->window != c->eng.rx.window) {
			ring->window = c->eng.rx.window;
			return -EAGAIN;
		}
		pkts = ring->pkts;
		ring->pkts = NULL;
	}
	mpdt_eng_start(&c->eng, pkts, get_random_u32(), get_random_u64(),
		       now);
	return 0;
}

/* Queue @m with @peer's engine; if its bytes are not all in, how many
 * packets to copy in at a time into @piece.
 */
static int queue_locked(struct mpdt_sock *msk, const struct mpdt_addr *peer,
			struct mpdt_txmsg *m, struct tx_ring *ring, u32 *piece)
{
	struct mpdt_conn *c = mpdt_conn_find(msk, peer);
	struct sock *sk = &msk->inet.sk;
	u64 now = mpdt_now();
	int err;

	if (!c) {
		if (!mpdt_addr_is_unicast(sock_net(sk), peer,
					  READ_ONCE(sk->sk_bound_dev_if)))
			return -ENETUNREACH;
		c = mpdt_conn_create(msk, false, peer, GFP_ATOMIC);
	}
	if (!c)
		return -ENOBUFS;
	if (mpdt_eng_needs_start(&c->eng, now)) {
		err = tx_start(c, ring, now);
		if (err)
			return err;
	}
	sk_wmem_queued_add(&msk->inet.sk, m->charged);
	m->conn = c;
	refcount_set(&m->refs, m->core.missing ? 2 : 1);
	mpdt_eng_send(&c->eng, &m->core, now);
	/* Still queued: no SACK is taken while we hold the lock. */
	if (m->core.missing)
		*piece = mpdt_eng_piece_pkts(&c->eng, &m->core);
	return 0;
}

/* Copy @m in from @src a piece at a time, each sent as soon as it is in
 * place.  If the engine lets go of @m meanwhile (the peer failed, the
 * connection went), the copy stops there: the piece being copied is the
 * only one written after sk_wmem_queued no longer counts the message.
 */
static void fill(struct mpdt_sock *msk, struct mpdt_txmsg *m,
		 struct mpdt_txsrc *src, u32 piece)
{
	u32 at, n, len = m->core.len;
	bool held = true;

	for (at = 0; held && at < len; at += n) {
		n = min(piece * m->core.mss, len - at);
		mpdt_txmsg_copy(m, src, at, n);
		spin_lock_bh(&msk->lock);
		held = m->conn;
		if (held)
			mpdt_eng_msg_ready(&m->conn->eng, &m->core, n,
					   mpdt_now());
		spin_unlock_bh(&msk->lock);
		mpdt_xmit_queued(msk);
		/* A copy from pages has none of a user copy's might_fault(). */
		cond_resched();
	}
	mpdt_txmsg_put(msk, m);
}

/* Queue message @m to @peer and send what the window allows, copying in
 * from @src what is not in yet.  The first message, or the first after
 * the peer failed, starts a new incarnation.  The scoreboard ring is
 * sized here, in process context, outside the lock.
 */
int mpdt_conn_send(struct mpdt_sock *msk, const struct mpdt_addr *peer,
		   struct mpdt_txmsg *m, struct mpdt_txsrc *src)
{
	bool copying = m->core.missing;	/* once queued, @m is the engine's */
	struct tx_ring ring = {};
	u32 piece = 0;
	int err;

	for (;;) {
		spin_lock_bh(&msk->lock);
		err = queue_locked(msk, peer, m, &ring, &piece);
		spin_unlock_bh(&msk->lock);
		mpdt_xmit_queued(msk);
		if (err != -EAGAIN)
			break;
		kvfree(ring.pkts);
		ring.pkts = kvcalloc(ring.window, sizeof(*ring.pkts),
				     GFP_KERNEL_ACCOUNT);
		if (!ring.pkts)
			return -ENOMEM;
	}
	kvfree(ring.pkts);
	if (!err && copying)
		fill(msk, m, src, piece);
	return err;
}

void mpdt_tx_release(struct mpdt_eng *e, struct mpdt_eng_txmsg *core)
{
	struct mpdt_txmsg *m = container_of(core, struct mpdt_txmsg, core);
	struct mpdt_sock *msk = mpdt_eng_conn(e)->msk;

	m->conn = NULL;
	sk_wmem_queued_add(&msk->inet.sk, -(int)m->charged);
	mpdt_txmsg_put(msk, m);
}

void mpdt_tx_room(struct mpdt_eng *e)
{
	struct mpdt_sock *msk = mpdt_eng_conn(e)->msk;

	mpdt_sock_wake_writers(msk);
	mpdt_close_progress(msk);
}

/* The peer stopped answering: report ETIMEDOUT on the socket. */
void mpdt_tx_failed(struct mpdt_eng *e)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct sock *sk = &c->msk->inet.sk;

	mpdt_netlink_conn_event(c, MPDT_CMD_CONN_FAILED);
	mpdt_conn_timer_stop(c);
	WRITE_ONCE(sk->sk_err, ETIMEDOUT);
	sk_error_report(sk);
	mpdt_sock_wake_writers(c->msk);
	mpdt_close_progress(c->msk);
}

/* Deadlines mostly move later (every SACK pushes the probe and RTO out), and
 * reprogramming the clock event device on every SACK is costly.  So a timer
 * already set to fire no later than needed is left alone: it fires early,
 * the engine finds nothing due, and asks again.  Under the host queue's
 * lock, so that a later deadline does not overwrite the start by
 * mpdt_write_space() of a connection it woke (hostq.c).
 */
void mpdt_tx_arm_timer(struct mpdt_eng *e, u64 when)
{
	struct mpdt_conn *c = mpdt_eng_conn(e);
	struct hrtimer *t = &c->timer;
	unsigned long flags;

	spin_lock_irqsave(&c->msk->tx_wait_lock, flags);
	if (!hrtimer_is_queued(t) ||
	    ktime_to_ns(hrtimer_get_expires(t)) > when)
		hrtimer_start(t, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
	spin_unlock_irqrestore(&c->msk->tx_wait_lock, flags);
}

enum hrtimer_restart mpdt_conn_timer(struct hrtimer *t)
{
	struct mpdt_conn *c = container_of(t, struct mpdt_conn, timer);
	struct mpdt_sock *msk = c->msk;

	spin_lock(&msk->lock);
	if (!msk->closing)
		mpdt_eng_on_timer(&c->eng, mpdt_now());
	spin_unlock(&msk->lock);
	mpdt_xmit_queued(msk);
	return HRTIMER_NORESTART;
}
