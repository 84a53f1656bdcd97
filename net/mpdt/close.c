// SPDX-License-Identifier: GPL-2.0
/*
 * What a socket does after close() (wire-format.rst section 8.2).
 *
 * Draining: a socket closed with messages not yet acknowledged keeps
 * delivering them in the background, as TCP does after close(), also when
 * its process exits.  It stays bound, its connections keep their timers,
 * and their receiving halves only answer duplicates; it ends when every
 * message is acknowledged or dropped with its failed peer (the retry
 * limit bounds that), or when nothing was acknowledged for the reassembly
 * time (a peer that is alive but never makes room).  SO_LINGER with a zero
 * time skips it (socket.c).
 *
 * Time-wait, MPDT's TIME_WAIT: a socket closed while a peer may still wait
 * for its last SACK stays bound for the quiet time (mpdt_eng_quiet_ns()),
 * holding only its receive bitmaps: it answers duplicate DATA and PROBEs
 * of what it received, so a sender whose final SACK was lost learns that
 * every byte arrived instead of failing with ETIMEDOUT.  It holds no
 * message and takes no new data.
 *
 * A new bind() of the port takes it over (netns.c port_take()): nothing
 * reaches the old socket any more.  In time-wait it answers nobody from
 * then on; a drain gives up at once.
 */
#include "protocol.h"

/* With nothing acknowledged for this long a draining socket gives up: the
 * peer forgets a silent partial message after as long.
 */
static u64 drain_limit_ns(const struct mpdt_net *mn)
{
	return mpdt_eng_reassembly_ns(&mn->params);
}

static bool any_peer_may_wait(struct mpdt_sock *msk, u64 now)
{
	struct mpdt_conn *c;
	int bkt;

	hash_for_each(msk->conns, bkt, c, node)
		if (mpdt_eng_peer_may_wait(&c->eng, now))
			return true;
	return false;
}

static bool all_sent(struct mpdt_sock *msk)
{
	struct mpdt_conn *c;
	int bkt;

	hash_for_each(msk->conns, bkt, c, node)
		if (!list_empty(&c->eng.tx_msgs))
			return false;
	return true;
}

/* Complete messages nobody will read go. */
static void drop_unread(struct mpdt_sock *msk)
{
	struct mpdt_rxmsg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &msk->rx_ready, node) {
		list_del(&m->node);
		mpdt_rxmsg_free(msk, m);
	}
}

/* What the messages of a draining socket hold is charged to its namespace,
 * whose draining sockets may hold drain_mem in all: nobody's process bounds
 * them any more (its file limit, its wait in close()), so without this a
 * loop of send() to a silent peer and close() would pin memory for the
 * retry limit each time, as TCP's orphans would without tcp_max_orphans.
 * The charge is what the socket holds at close(); it only shrinks after.
 */
static bool drain_charge(struct mpdt_sock *msk)
{
	struct mpdt_net *mn = msk->mn;
	u32 bytes = READ_ONCE(msk->inet.sk.sk_wmem_queued);

	if (atomic64_add_return(bytes, &mn->drain_bytes) >
	    READ_ONCE(mn->params.drain_mem)) {
		atomic64_sub(bytes, &mn->drain_bytes);
		mpdt_stat_inc(mn, MPDT_STAT_CLOSE_DRAIN_LIMIT);
		return false;
	}
	msk->drain_charged = bytes;
	return true;
}

static void drain_uncharge(struct mpdt_sock *msk)
{
	atomic64_sub(msk->drain_charged, &msk->mn->drain_bytes);
	msk->drain_charged = 0;
}

/* Under msk->lock: keep delivering in the background if anything is left
 * to deliver and the namespace has room for it.  The socket's reference
 * then goes when it is done.
 */
static bool drain_enter(struct mpdt_sock *msk, u64 now)
{
	struct mpdt_conn *c;
	int bkt;

	if (!msk->port || all_sent(msk) || !drain_charge(msk))
		return false;
	WRITE_ONCE(msk->draining, true);
	msk->drain_progress_ns = now;
	drop_unread(msk);
	hash_for_each(msk->conns, bkt, c, node)
		mpdt_eng_close_rx(&c->eng);
	mpdt_stat_inc(msk->mn, MPDT_STAT_CLOSE_DRAIN);
	mod_timer(&msk->gc_timer,
		  jiffies + nsecs_to_jiffies(drain_limit_ns(msk->mn)) + 1);
	return true;
}

/* Under msk->lock: time-wait for @wait_ns.  Everything but the bitmaps
 * goes; the connections' timers stop (one already running finds nothing
 * to do, and the end of the time-wait waits for it outside the lock:
 * mpdt_close_finish()).
 */
static void tw_enter_locked(struct mpdt_sock *msk, u64 now, u64 wait_ns)
{
	struct mpdt_conn *c;
	int bkt;

	WRITE_ONCE(msk->time_wait, true);
	msk->tw_end_ns = now + wait_ns;
	drop_unread(msk);
	hash_for_each(msk->conns, bkt, c, node) {
		mpdt_conn_timer_stop(c);
		mpdt_eng_time_wait(&c->eng);
	}
	mod_timer(&msk->gc_timer, jiffies + nsecs_to_jiffies(wait_ns) + 1);
}

/* The time a peer may still wait for our last SACK, or 0. */
static u64 tw_time(struct mpdt_sock *msk, u64 now)
{
	if (!msk->port || !any_peer_may_wait(msk, now))
		return 0;
	mpdt_stat_inc(msk->mn, MPDT_STAT_TIME_WAIT);
	return mpdt_eng_quiet_ns(&msk->mn->params);
}

/* close(), unless SO_LINGER aborted: true if @msk lives on, draining or
 * in time-wait; its reference then goes when that ends (mpdt_close_gc()).
 */
bool mpdt_close_linger_on(struct mpdt_sock *msk, bool abort)
{
	bool live;
	u64 now, tw;

	spin_lock_bh(&msk->lock);
	now = mpdt_now();
	live = !abort && drain_enter(msk, now);
	if (!live) {
		tw = tw_time(msk, now);
		if (tw)
			tw_enter_locked(msk, now, tw);
		live = tw;
	}
	spin_unlock_bh(&msk->lock);
	if (live)
		mpdt_port_closed(msk);
	return live;
}

/* A draining socket made progress; done, it is finished at once. */
void mpdt_close_progress(struct mpdt_sock *msk)
{
	if (!msk->draining)
		return;
	msk->drain_progress_ns = mpdt_now();
	if (all_sent(msk))
		mod_timer(&msk->gc_timer, jiffies);
}

/* A socket's end, once msk->closing is set under msk->lock and the lock
 * is dropped: unbound, its connections freed.  Not under the lock: a
 * connection timer that started before its time-wait stopped it may still
 * wait for the lock, and hrtimer_cancel() waits for that callback, which
 * then finds the socket closing and returns.
 */
void mpdt_close_finish(struct mpdt_sock *msk)
{
	mpdt_port_unbind(msk);
	mpdt_conn_destroy_all(msk);
	mpdt_rmem_reclaim_final(msk);
}

/* Draining ends in time-wait: as long as a peer may wait, else just
 * until the connections' timers are surely idle.
 */
static void drain_end(struct mpdt_sock *msk, u64 now)
{
	tw_enter_locked(msk, now, tw_time(msk, now));
	smp_wmb();	/* time_wait before draining: mpdt_sock_closed() */
	WRITE_ONCE(msk->draining, false);
	drain_uncharge(msk);
}

/* The drain gives up: its messages go, and it waits out time-wait. */
static void drain_abandon(struct mpdt_sock *msk, u64 now)
{
	struct mpdt_conn *c;
	int bkt;

	mpdt_stat_inc(msk->mn, MPDT_STAT_CLOSE_ABANDONED);
	hash_for_each(msk->conns, bkt, c, node)
		mpdt_eng_release(&c->eng);
	drain_end(msk, now);
}

/* A new bind() took the port (netns.c port_take()): no SACK reaches
 * this socket any more, and its drain would only retry into silence,
 * holding its peers' receivers to an incarnation that can no longer
 * finish.  It gives up now, as when nothing was acknowledged for the
 * drain limit.
 */
void mpdt_close_taken_over(struct mpdt_sock *msk)
{
	spin_lock_bh(&msk->lock);
	if (msk->draining && !msk->closing)
		drain_abandon(msk, mpdt_now());
	spin_unlock_bh(&msk->lock);
}

/* The gc timer of a closed socket, under msk->lock: true once the socket
 * is closing, to be finished by mpdt_close_finish() after the lock.
 */
bool mpdt_close_gc(struct mpdt_sock *msk, u64 now)
{
	u64 quiet, limit = drain_limit_ns(msk->mn);

	if (msk->draining) {
		if (all_sent(msk)) {
			drain_end(msk, now);
			return false;
		}
		quiet = mpdt_since(now, msk->drain_progress_ns);
		if (quiet < limit) {
			mod_timer(&msk->gc_timer, jiffies + 1 +
				  nsecs_to_jiffies(limit - quiet));
			return false;
		}
		drain_abandon(msk, now);
		return false;
	}
	if (now < msk->tw_end_ns) {
		mod_timer(&msk->gc_timer,
			  jiffies + 1 + nsecs_to_jiffies(msk->tw_end_ns - now));
		return false;
	}
	msk->closing = true;
	return true;
}
