// SPDX-License-Identifier: GPL-2.0
/*
 * The socket API (mpdt(7)): one sendmsg() is one reliable message, one
 * recvmsg() returns one whole message.  Messages may be delivered in any
 * order relative to each other, each exactly once and intact.
 */
#include <linux/bpf-cgroup.h>
#include <linux/highmem.h>
#include <linux/list_sort.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <net/inet_common.h>
#include <net/route.h>

#include "protocol.h"

static int mpdt_sk_init(struct sock *sk)
{
	struct mpdt_sock *msk = mpdt_sk(sk);

	spin_lock_init(&msk->lock);
	mpdt_xmit_init(msk);
	mutex_init(&msk->user_lock);
	msk->mn = mpdt_net(sock_net(sk));
	get_random_bytes(&msk->conn_key, sizeof(msk->conn_key));
	get_random_bytes(&msk->cookie_key, sizeof(msk->cookie_key));
	hash_init(msk->conns);
	hash_init(msk->hosts);
	INIT_LIST_HEAD(&msk->conn_lru);
	timer_setup(&msk->gc_timer, mpdt_conn_gc, 0);
	INIT_LIST_HEAD(&msk->rx_partial);
	INIT_LIST_HEAD(&msk->rx_ready);
	INIT_HLIST_NODE(&msk->port_node);
	mpdt_hostq_init(msk);
	spin_lock_init(&msk->tx_pages_lock);
	/* The netns's defaults, as UDP takes net.core's. */
	sk->sk_sndbuf = READ_ONCE(msk->mn->params.sndbuf);
	msk->sndbuf_seen = sk->sk_sndbuf;
	sk->sk_rcvbuf = READ_ONCE(msk->mn->params.rcvbuf);
	/* The port table is read under RCU. */
	sock_set_flag(sk, SOCK_RCU_FREE);
	return 0;
}

/* The port table is MPDT's own (bind() fills it), so there is nothing to
 * hash at creation; but inet_create() and sk_common_release() call these
 * unconditionally when a cgroup BPF program refuses the socket.
 */
static int mpdt_hash(struct sock *sk)
{
	return 0;
}

static void mpdt_unhash(struct sock *sk)
{
	mpdt_port_unbind(mpdt_sk(sk));
}

/* Receive memory of every MPDT socket, in pages, with limits sized like
 * udp_mem: messages are charged to it, and to the socket owner's memory
 * cgroup, when admitted (rx.c).  Below rmem_min a socket is never refused.
 */
static atomic_long_t mpdt_memory_allocated;
static DEFINE_PER_CPU(int, mpdt_memory_per_cpu_fw_alloc);
static long mpdt_mem[3];
static int mpdt_rmem_min = PAGE_SIZE;

void mpdt_sock_mem_init(void)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);

	mpdt_mem[0] = limit / 4 * 3;
	mpdt_mem[1] = limit;
	mpdt_mem[2] = mpdt_mem[0] * 2;
}

#define MPDT_PROTO_COMMON					\
	.owner			= THIS_MODULE,			\
	.init			= mpdt_sk_init,			\
	.hash			= mpdt_hash,			\
	.unhash			= mpdt_unhash,			\
	.release_cb		= mpdt_release_cb,		\
	.memory_allocated	= &mpdt_memory_allocated,	\
	.per_cpu_fw_alloc	= &mpdt_memory_per_cpu_fw_alloc, \
	.sysctl_mem		= mpdt_mem,			\
	.sysctl_rmem		= &mpdt_rmem_min

struct proto mpdt_prot = {
	.name		= "MPDT",
	.obj_size	= sizeof(struct mpdt_sock),
	MPDT_PROTO_COMMON,
};

struct proto mpdtv6_prot = {
	.name		= "MPDTv6",
	.obj_size	= sizeof(struct mpdt6_sock),
	MPDT_PROTO_COMMON,
};

void mpdt_sock_wake_writers(struct mpdt_sock *msk)
{
	struct sock *sk = &msk->inet.sk;
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM |
					   EPOLLERR);
	rcu_read_unlock();
	sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
}

/* The cgroup's bind programs judge an MPDT bind() as inet_bind() lets
 * them judge any other (systemd's SocketBindDeny=, for one); they may
 * refuse the address or rewrite it.  No connect or sendmsg programs run:
 * the kernel runs those only for protocols with a pre_connect, and their
 * bpf_bind() binds through inet's port table, which MPDT has not.  Nor do
 * post-bind programs, which read the port from that table (inet_num).
 */
static int bind_progs(struct sock *sk, struct sockaddr *uaddr)
{
	u32 flags __maybe_unused = 0;	/* CAP_NET_BIND_SERVICE: no meaning */

	/* Each type its own static key: no variable index. */
	if (sk->sk_family == AF_INET6)
		return BPF_CGROUP_RUN_PROG_INET_BIND_LOCK(sk, uaddr,
							  CGROUP_INET6_BIND,
							  &flags);
	return BPF_CGROUP_RUN_PROG_INET_BIND_LOCK(sk, uaddr, CGROUP_INET4_BIND,
						  &flags);
}

static int mpdt_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct mpdt_sock *msk = mpdt_sk(sock->sk);
	struct net *net = sock_net(sock->sk);
	struct mpdt_addr a;
	int err;

	/* Checked first: the programs read as much as this needs. */
	err = mpdt_addr_from_user(sock->sk, uaddr, len, &a);
	if (err)
		return err;
	err = bind_progs(sock->sk, uaddr);
	if (err)
		return err;
	/* Again, as they may have rewritten it (to a link-local address
	 * without its link, say).
	 */
	err = mpdt_addr_from_user(sock->sk, uaddr, len, &a);
	if (err)
		return err;
	if (!mpdt_addr_is_local(net, &a))
		return -EADDRNOTAVAIL;
	mutex_lock(&msk->user_lock);
	err = mpdt_net_bind(msk, ntohs(a.port));
	if (!err)
		msk->bound = a;
	mutex_unlock(&msk->user_lock);
	return err;
}

static int autobind(struct mpdt_sock *msk)
{
	return msk->port ? 0 : mpdt_net_bind(msk, 0);
}

static int mpdt_connect(struct socket *sock, struct sockaddr *uaddr,
			int len, int flags)
{
	struct mpdt_sock *msk = mpdt_sk(sock->sk);
	struct mpdt_addr a;
	int err;

	if (len >= sizeof(sa_family_t) && uaddr->sa_family == AF_UNSPEC) {
		mutex_lock(&msk->user_lock);
		msk->connected = false;
		mutex_unlock(&msk->user_lock);
		return 0;
	}
	err = mpdt_addr_from_user(sock->sk, uaddr, len, &a);
	if (err)
		return err;
	if (!a.port || mpdt_addr_is_any(&a))
		return -EINVAL;
	if (!mpdt_addr_is_unicast(sock_net(sock->sk), &a,
				  READ_ONCE(sock->sk->sk_bound_dev_if)))
		return -ENETUNREACH;
	mutex_lock(&msk->user_lock);
	err = autobind(msk);
	if (!err) {
		msk->peer = a;
		msk->connected = true;
	}
	mutex_unlock(&msk->user_lock);
	return err;
}

static int mpdt_getname(struct socket *sock, struct sockaddr *uaddr,
			int peer)
{
	struct mpdt_sock *msk = mpdt_sk(sock->sk);
	struct mpdt_addr local = msk->bound;

	if (peer) {
		if (!msk->connected)
			return -ENOTCONN;
		return mpdt_addr_to_user(sock->sk, &msk->peer, uaddr);
	}
	local.port = htons(msk->port);
	return mpdt_addr_to_user(sock->sk, &local, uaddr);
}

static bool writable(const struct sock *sk)
{
	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf) / 2;
}

static __poll_t mpdt_poll(struct file *file, struct socket *sock,
			  poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct mpdt_sock *msk = mpdt_sk(sk);
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (READ_ONCE(sk->sk_err) ||
	    !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR |
			(sock_flag(sk, SOCK_SELECT_ERR_QUEUE) ? EPOLLPRI : 0);
	if (!list_empty_careful(&msk->rx_ready))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (writable(sk))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

/* Wait until @cond holds, the socket has an error (taken and returned,
 * if @on_error), or time runs out.
 */
static int wait_for(struct sock *sk, long *timeo,
		    bool (*cond)(struct sock *sk, size_t arg), size_t arg,
		    bool on_error)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		/* A failed peer frees room: report it, not the room. */
		err = on_error ? sock_error(sk) : 0;
		if (err || cond(sk, arg))
			break;
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		*timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, *timeo);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/* An empty queue takes any message sendmsg() accepted. */
static bool has_room(struct sock *sk, size_t len)
{
	int queued = READ_ONCE(sk->sk_wmem_queued);

	return !queued || queued + len <= READ_ONCE(sk->sk_sndbuf);
}

static int msg_peer(struct mpdt_sock *msk, struct msghdr *msg,
		    struct mpdt_addr *peer)
{
	int err;

	if (!msg->msg_name) {
		if (!msk->connected)
			return -EDESTADDRREQ;
		*peer = msk->peer;
		return 0;
	}
	err = mpdt_addr_from_user(&msk->inet.sk, msg->msg_name,
				  msg->msg_namelen, peer);
	if (!err && (!peer->port || mpdt_addr_is_any(peer)))
		err = -EINVAL;
	return err;
}

/* fq takes a socket in TCP_CLOSE, as an unconnected UDP one, for many
 * flows, one per packet's addresses and ports (an MPDT socket's: one per
 * entropy), and never tells it that it paces it.  A socket that asked for
 * SO_MAX_PACING_RATE becomes one flow to fq, as a connected socket is,
 * which fq tells (output.c mpdt_tx_paced()).  Nothing else reads an MPDT
 * socket's state.
 */
static void ask_for_pacing(struct sock *sk)
{
	if (READ_ONCE(sk->sk_max_pacing_rate) != ~0UL &&
	    READ_ONCE(sk->sk_state) != TCP_ESTABLISHED)
		WRITE_ONCE(sk->sk_state, TCP_ESTABLISHED);
}

static int mpdt_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct mpdt_sock *msk = mpdt_sk(sk);
	long timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	struct mpdt_txsrc src;
	struct mpdt_txmsg *m;
	struct mpdt_addr peer;
	int err;

	/* sendmmsg() sets MSG_BATCH: every message still goes out alone.
	 * A 32-bit task's calls carry MSG_CMSG_COMPAT; MPDT reads no cmsg.
	 */
	if (msg->msg_flags &
	    ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_BATCH | MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;
	/* MPDT decides when each packet leaves and gives none a transmit
	 * time.  An ETF qdisc drops every packet of a socket with SO_TXTIME
	 * that gives none, each with a report on the error queue if asked
	 * for, charged to the receive buffer: the option is refused here,
	 * where the user hears of it (6.1 offers the protocol no say in
	 * SOL_SOCKET options).
	 */
	if (sock_flag(sk, SOCK_TXTIME))
		return -EOPNOTSUPP;
	if (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)
		return -EPIPE;
	if (len > min_t(u32, MPDT_MSG_MAX, READ_ONCE(sk->sk_sndbuf)))
		return -EMSGSIZE;
	ask_for_pacing(sk);
	mutex_lock(&msk->user_lock);
	err = msg_peer(msk, msg, &peer);
	if (!err)
		err = autobind(msk);
	mutex_unlock(&msk->user_lock);
	if (err)
		return err;

	err = wait_for(sk, &timeo, has_room, mpdt_txmsg_truesize(msk, len),
		       true);
	if (err)
		return err;
	m = mpdt_txmsg_new(msk, msg, len, &src, &err);
	if (!m)
		return err;
	err = mpdt_conn_send(msk, &peer, m, &src);
	mpdt_txsrc_release(&src);
	if (err) {
		mpdt_txmsg_destroy(msk, m);
		return err;
	}
	return len;
}

static bool has_message(struct sock *sk, size_t unused)
{
	return !list_empty_careful(&mpdt_sk(sk)->rx_ready);
}

static struct mpdt_rxmsg *pop_message(struct mpdt_sock *msk)
{
	struct mpdt_rxmsg *m;

	spin_lock_bh(&msk->lock);
	m = list_first_entry_or_null(&msk->rx_ready, struct mpdt_rxmsg, node);
	if (m)
		list_del(&m->node);
	spin_unlock_bh(&msk->lock);
	return m;
}

/* @len bytes at @off in @page, which may be a compound page.  Copied,
 * not lent with copy_page_to_iter(): into a pipe that would lend the page
 * itself, as if from the page cache, and the pipe's reader would find it
 * truncated (no mapping) once the message is freed.
 */
static int copy_page_bytes(struct page *page, u32 off, u32 len,
			   struct iov_iter *to)
{
	page = nth_page(page, off / PAGE_SIZE);
	off %= PAGE_SIZE;
	while (len) {
		u32 n = min_t(u32, PAGE_SIZE - off, len);
		size_t done;
		void *va;

		va = kmap_local_page(page);
		done = copy_to_iter(va + off, n, to);
		kunmap_local(va);
		if (done != n)
			return -EFAULT;
		page = nth_page(page, 1);
		off = 0;
		len -= n;
	}
	return 0;
}

/* Bytes [@off, @end) of @m, copied into its pages on arrival. */
static int copy_pages(struct mpdt_rxmsg *m, u32 off, u32 end,
		      struct iov_iter *to)
{
	while (off < end) {
		struct page *page = m->pages[off / PAGE_SIZE];
		u32 n = min_t(u32, PAGE_SIZE - off % PAGE_SIZE, end - off);

		if (WARN_ON_ONCE(!page))
			return -EFAULT;
		if (copy_page_bytes(page, off % PAGE_SIZE, n, to))
			return -EFAULT;
		off += n;
	}
	return 0;
}

static int piece_after(void *priv, const struct list_head *a,
		       const struct list_head *b)
{
	return list_entry(a, struct mpdt_rxpiece, node)->msg_off >
	       list_entry(b, struct mpdt_rxpiece, node)->msg_off;
}

/* The first @len bytes of @pc's payloads. */
static int copy_piece(const struct mpdt_rxpiece *pc, u32 len,
		      struct iov_iter *to)
{
	u32 off = pc->off, n;

	if (pc->in_skb)
		return skb_copy_datagram_iter(pc->skb, pc->off, to, len);
	for (; len; len -= n, off += n + pc->gap) {
		n = min(len, pc->seg);
		if (copy_page_bytes(pc->page, off, n, to))
			return -EFAULT;
	}
	return 0;
}

/* The first @len bytes of @m to the user, strictly in order: held
 * payloads by their offset, the bytes between them from the pages.  An
 * iterator may not be moved back, nor past bytes it has not been given:
 * a pipe's (splice(), sendfile()) counts every byte it holds.
 */
static int copy_message(struct mpdt_rxmsg *m, struct msghdr *msg, u32 len)
{
	struct mpdt_rxpiece *pc;
	u32 off = 0;
	int err;

	if (m->pieces_unsorted)
		list_sort(NULL, &m->pieces, piece_after);
	list_for_each_entry(pc, &m->pieces, node) {
		if (pc->msg_off >= len)
			break;
		err = copy_pages(m, off, pc->msg_off, &msg->msg_iter);
		if (err)
			return err;
		off = min(pc->msg_off + pc->len, len);
		if (copy_piece(pc, off - pc->msg_off, &msg->msg_iter))
			return -EFAULT;
	}
	return copy_pages(m, off, len, &msg->msg_iter);
}

/* What the kernel queued on the error queue (SO_TXTIME's reports, sent
 * before the option was set: sendmsg() refuses it after), read as UDP's
 * is, the report a cmsg of IP_RECVERR's or IPV6_RECVERR's; its bytes
 * count against the receive buffer until then.
 */
static int recv_error(struct sock *sk, struct msghdr *msg, size_t len)
{
	if (sk->sk_family == AF_INET6)
		return sock_recv_errqueue(sk, msg, len, SOL_IPV6,
					  IPV6_RECVERR);
	return sock_recv_errqueue(sk, msg, len, SOL_IP, IP_RECVERR);
}

static int mpdt_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
			int flags)
{
	struct sock *sk = sock->sk;
	struct mpdt_sock *msk = mpdt_sk(sk);
	long timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	struct mpdt_rxmsg *m;
	u32 copied;
	int err;

	/* No cmsg carries a descriptor to close on exec. */
	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_COMPAT |
		      MSG_CMSG_CLOEXEC | MSG_ERRQUEUE))
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return recv_error(sk, msg, len);
	for (;;) {
		m = pop_message(msk);
		if (m)
			break;
		err = wait_for(sk, &timeo, has_message, 0, true);
		if (err)
			return err;
	}
	copied = min_t(u32, len, m->ra.len);
	err = copy_message(m, msg, copied);
	if (!err) {
		if (copied < m->ra.len)
			msg->msg_flags |= MSG_TRUNC;
		if (msg->msg_name)
			msg->msg_namelen = mpdt_addr_to_user(sk, &m->from,
							     msg->msg_name);
		err = flags & MSG_TRUNC ? m->ra.len : copied;
	} else {
		/* Acknowledged, yet lost here: counted as UDP counts it. */
		atomic_inc(&sk->sk_drops);
	}
	spin_lock_bh(&msk->lock);
	mpdt_rmem_release(msk, m->charged);
	spin_unlock_bh(&msk->lock);
	m->charged = 0;
	mpdt_rxmsg_free(msk, m);
	return err;
}

static int get_info(struct mpdt_sock *msk, char __user *optval, int len)
{
	struct mpdt_info info = {};
	struct sock *sk = &msk->inet.sk;
	struct mpdt_addr peer;
	struct mpdt_conn *c;

	if (len < (int)sizeof(info.mi_peer))
		return -EINVAL;
	len = min_t(int, len, sizeof(info));
	if (copy_from_user(&info.mi_peer, optval, sizeof(info.mi_peer)))
		return -EFAULT;
	if (info.mi_peer.ss_family == AF_UNSPEC) {
		if (!msk->connected)
			return -ENOTCONN;
		peer = msk->peer;
	} else if (mpdt_addr_from_user(sk, (struct sockaddr *)&info.mi_peer,
				       sizeof(info.mi_peer), &peer)) {
		return -EINVAL;
	}
	spin_lock_bh(&msk->lock);
	c = mpdt_conn_find(msk, &peer);
	if (c)
		mpdt_conn_fill_info(c, &info);
	spin_unlock_bh(&msk->lock);
	if (!c)
		return -ENOENT;
	mpdt_addr_to_user(sk, &peer, (struct sockaddr *)&info.mi_peer);
	return copy_to_user(optval, &info, len) ? -EFAULT : len;
}

/* The algorithm new connections of this socket will use. */
static const char *algo_name(struct mpdt_sock *msk, int optname)
{
	if (optname == MPDT_LB)
		return (msk->lb ?: READ_ONCE(msk->mn->lb))->name;
	return (msk->cc ?: READ_ONCE(msk->mn->cc))->name;
}

static int mpdt_getsockopt(struct socket *sock, int level, int optname,
			   char __user *optval, int __user *optlen)
{
	struct mpdt_sock *msk = mpdt_sk(sock->sk);
	const char *name;
	int len;

	if (level != SOL_MPDT)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	switch (optname) {
	case MPDT_INFO:
		len = get_info(msk, optval, len);
		break;
	case MPDT_LB:
	case MPDT_CC:
		name = algo_name(msk, optname);
		len = min_t(int, len, strlen(name) + 1);
		if (copy_to_user(optval, name, len))
			len = -EFAULT;
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (len < 0)
		return len;
	return put_user(len, optlen);
}

/* MPDT_LB / MPDT_CC: by name, for connections this socket opens next. */
static int mpdt_setsockopt(struct socket *sock, int level, int optname,
			   sockptr_t optval, unsigned int optlen)
{
	struct mpdt_sock *msk = mpdt_sk(sock->sk);
	char name[MPDT_ALGO_NAME_MAX] = {};
	const struct mpdt_lb_ops *lb = NULL;
	const struct mpdt_cc_ops *cc = NULL;

	if (level != SOL_MPDT)
		return -ENOPROTOOPT;
	if (optname != MPDT_LB && optname != MPDT_CC)
		return -ENOPROTOOPT;
	if (!optlen || optlen > sizeof(name))
		return -EINVAL;
	if (copy_from_sockptr(name, optval, optlen))
		return -EFAULT;
	name[sizeof(name) - 1] = 0;
	if (optname == MPDT_LB)
		lb = mpdt_lb_find(name);
	else
		cc = mpdt_cc_find(name);
	if (!lb && !cc)
		return -ENOENT;
	mutex_lock(&msk->user_lock);
	if (lb)
		WRITE_ONCE(msk->lb, lb);
	else
		WRITE_ONCE(msk->cc, cc);
	mutex_unlock(&msk->user_lock);
	return 0;
}

static bool tx_drained(struct sock *sk, size_t unused)
{
	return !READ_ONCE(sk->sk_wmem_queued);
}

/* shutdown(SHUT_WR): no more sends; wait (up to SO_SNDTIMEO) until every
 * message is acknowledged or discarded with its failed peer, and say which:
 * 0, or the pending error.  Linux's close() cannot return an error, so
 * this is how a program that sends and exits learns that every message
 * arrived: each message is delivered, or its sender is told.  A peer that
 * failed before or meanwhile does not end the wait for the others'.
 */
static int mpdt_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct mpdt_sock *msk = mpdt_sk(sk);
	long timeo = sock_sndtimeo(sk, false);

	if (how != SHUT_WR && how != SHUT_RDWR)
		return how == SHUT_RD ? -EOPNOTSUPP : -EINVAL;
	mutex_lock(&msk->user_lock);
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | SEND_SHUTDOWN);
	mutex_unlock(&msk->user_lock);
	return wait_for(sk, &timeo, tx_drained, 0, false) ?: sock_error(sk);
}

/* close(): as TCP's.  Without SO_LINGER, messages not yet acknowledged
 * are delivered in the background (close.c).  SO_LINGER with a zero time
 * drops them at once; a positive one waits up to the linger time for all
 * to be acknowledged, then drops what is left, unless the process is
 * exiting and cannot wait: then they go in the background too.  Dropped,
 * a message is not delivered at all, never partly.  True if the rest is
 * to be dropped.
 */
static bool linger(struct sock *sk)
{
	long timeo = sk->sk_lingertime;

	if (!sock_flag(sk, SOCK_LINGER))
		return false;
	if (!timeo)
		return true;
	if (current->flags & PF_EXITING)
		return false;
	/* A failed peer's error, unread, does not cut the others' time. */
	wait_for(sk, &timeo, tx_drained, 0, false);
	return true;
}

static void release_everything(struct mpdt_sock *msk)
{
	struct mpdt_rxmsg *m, *tmp;
	LIST_HEAD(ready);

	spin_lock_bh(&msk->lock);
	msk->closing = true;
	list_splice_init(&msk->rx_ready, &ready);
	spin_unlock_bh(&msk->lock);
	del_timer_sync(&msk->gc_timer);

	/* Nobody else touches the connections once closing is set. */
	list_for_each_entry_safe(m, tmp, &ready, node)
		mpdt_rxmsg_free(msk, m);
	mpdt_close_finish(msk);
}

static int mpdt_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	bool live;

	if (!sk)
		return 0;
	/* Draining or in time-wait, the socket's reference goes when that
	 * ends, which may be on another CPU before this returns (a SACK
	 * that completes the drain, a time-wait of a tick): ours keeps the
	 * socket until it is orphaned.
	 */
	sock_hold(sk);
	mpdt_txpages_release(mpdt_sk(sk));
	live = mpdt_close_linger_on(mpdt_sk(sk), linger(sk));
	if (!live)
		release_everything(mpdt_sk(sk));
	sock_orphan(sk);
	sock->sk = NULL;
	if (!live)
		sock_put(sk);
	sock_put(sk);
	return 0;
}

const struct proto_ops mpdt_inet_ops = {
	.family		= PF_INET,
	.owner		= THIS_MODULE,
	.release	= mpdt_release,
	.bind		= mpdt_bind,
	.connect	= mpdt_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= mpdt_getname,
	.poll		= mpdt_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= mpdt_shutdown,
	.setsockopt	= mpdt_setsockopt,
	.getsockopt	= mpdt_getsockopt,
	.sendmsg	= mpdt_sendmsg,
	.recvmsg	= mpdt_recvmsg,
	.mmap		= sock_no_mmap,
};

const struct proto_ops mpdt_inet6_ops = {
	.family		= PF_INET6,
	.owner		= THIS_MODULE,
	.release	= mpdt_release,
	.bind		= mpdt_bind,
	.connect	= mpdt_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= sock_no_accept,
	.getname	= mpdt_getname,
	.poll		= mpdt_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= sock_no_listen,
	.shutdown	= mpdt_shutdown,
	.setsockopt	= mpdt_setsockopt,
	.getsockopt	= mpdt_getsockopt,
	.sendmsg	= mpdt_sendmsg,
	.recvmsg	= mpdt_recvmsg,
	.mmap		= sock_no_mmap,
};
