// SPDX-License-Identifier: GPL-2.0
/*
 * Receive memory: what the messages a socket assembles hold, charged to
 * sk_rmem_alloc and, through the socket's forward allocation, to the
 * protocol's limits (mpdt_mem) and the owner's memory cgroup.
 *
 * MPDT receives under msk->lock, not the socket lock.  The core's
 * SOL_SOCKET options own the socket (lock_sock()) while they change the
 * forward allocation themselves: SO_RESERVE_MEM adds to it and reclaims
 * from it.  A softirq writing it meanwhile loses one of the two updates,
 * and the socket ends with bytes the protocol and the memory cgroup never
 * get back (inet_sock_destruct() warns) or gave back twice (the cgroup's
 * page counter underflows): a local user could do either to the host.
 * So every write of the forward allocation here is made under the
 * socket's spinlock while no task owns the socket, as TCP's softirq does
 * (bh_lock_sock(), sock_owned_by_user()).  While one does, a charge is
 * refused and a release is owed (msk->rmem_owed, under the spinlock): it
 * is made by the owner's release_sock() (mpdt_release_cb()) or by the
 * next charge or release.  MPDT serialises its own calls with
 * msk->user_lock, never lock_sock(): only the core's SOL_SOCKET options,
 * and cgroup BPF programs around any socket option, own the socket.
 */
#include "protocol.h"

/* With the spinlock held, the socket owned by nobody or by the caller:
 * what was released while a task owned it goes back to the forward
 * allocation.
 */
static void rmem_settle(struct mpdt_sock *msk)
{
	if (msk->rmem_owed) {
		sk_mem_uncharge(&msk->inet.sk, msk->rmem_owed);
		msk->rmem_owed = 0;
	}
}

/* Take @bytes out of the forward allocation, asking the protocol and the
 * memory cgroup for more if it is short.  False if they refuse, or while
 * a task owns the socket.  Under msk->lock.
 */
bool mpdt_rmem_reserve(struct mpdt_sock *msk, u32 bytes)
{
	struct sock *sk = &msk->inet.sk;
	bool ok = false;

	bh_lock_sock(sk);
	if (!sock_owned_by_user_nocheck(sk)) {
		rmem_settle(msk);
		ok = bytes <= sk->sk_forward_alloc ||
		     __sk_mem_schedule(sk, bytes, SK_MEM_RECV);
		if (ok)
			sk_mem_charge(sk, bytes);
	}
	bh_unlock_sock(sk);
	return ok;
}

/* Give @bytes back to the forward allocation, and its whole pages to the
 * protocol and the memory cgroup (sk_mem_uncharge() reclaims).  Under
 * msk->lock, or while closing: then from process context with bottom
 * halves enabled (the socket's release frees its messages).
 */
void mpdt_rmem_unreserve(struct mpdt_sock *msk, u32 bytes)
{
	struct sock *sk = &msk->inet.sk;

	spin_lock_bh(&sk->sk_lock.slock);
	if (sock_owned_by_user_nocheck(sk)) {
		msk->rmem_owed += bytes;
	} else {
		rmem_settle(msk);
		sk_mem_uncharge(sk, bytes);
	}
	spin_unlock_bh(&sk->sk_lock.slock);
}

/* Give back @bytes a message held (sk_rmem_alloc and the reservation).
 * Nothing at all for 0 bytes: recvmsg() frees a message without msk->lock
 * once it has released the message's charge under it.
 */
void mpdt_rmem_release(struct mpdt_sock *msk, u32 bytes)
{
	if (!bytes)
		return;
	atomic_sub(bytes, &msk->inet.sk.sk_rmem_alloc);
	mpdt_rmem_unreserve(msk, bytes);
}

/* release_sock(), with the spinlock held and the socket still owned by
 * the caller: no softirq writes the forward allocation now.
 */
void mpdt_release_cb(struct sock *sk)
{
	rmem_settle(mpdt_sk(sk));
}

/* The socket's end, once nothing holds receive memory any more and
 * nobody can own it (its file is gone).
 */
void mpdt_rmem_reclaim_final(struct mpdt_sock *msk)
{
	struct sock *sk = &msk->inet.sk;

	spin_lock_bh(&sk->sk_lock.slock);
	rmem_settle(msk);
	sk_mem_reclaim_final(sk);
	spin_unlock_bh(&sk->sk_lock.slock);
}
