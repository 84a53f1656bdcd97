/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPDT kernel glue: the structures shared by the socket, connection,
 * input, output and timer files.
 *
 * Locking: each MPDT socket has one spinlock, msk->lock, taken with BHs
 * disabled in process context.  It protects everything below the socket:
 * its connections, their sender and receiver state, and its queue of
 * complete messages.  Sockets are found by port under RCU (SOCK_RCU_FREE)
 * and pinned with a reference while a packet is processed.
 */
#ifndef _MPDT_PROTOCOL_H
#define _MPDT_PROTOCOL_H

#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/in6.h>
#include <linux/ipv6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/siphash.h>
#include <linux/timer.h>
#include <net/dst_cache.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <linux/mpdt.h>

#include "algo.h"
#include "cc.h"
#include "engine.h"
#include "lb.h"
#include "params.h"
#include "rtt.h"
#include "sack.h"
#include "scoreboard.h"
#include "stats.h"

#define MPDT_PORT_HASH_BITS	8
#define MPDT_CONN_HASH_BITS	8
/* Pages of acknowledged messages a socket keeps for its next (txmsg.c):
 * 4 MiB of the task's 32 KiB fragments.  A reader on this host holds a
 * message's pages until it copies it out, while the writer fills the
 * next ones: 1 MiB kept was all still held when it was wanted.
 */
#define MPDT_TX_PAGES_KEPT	128
/* 64 buckets: chains of 8 at MPDT_ENG_RX_PARTIAL_MAX (rx.c). */
#define MPDT_RXMSG_HASH_BITS	6
#define MPDT_MAX_CONNS		4096	/* per socket: bounds spoofed state */
/* ... and per peer address: one host cannot fill the table. */
#define MPDT_MAX_HOST_CONNS	(MPDT_MAX_CONNS / 8)
/* Idle connections holding nothing are collected after this long, once
 * they may be evicted (conn.c).
 */
#define MPDT_CONN_IDLE_NS	(30ULL * NSEC_PER_SEC)
/* The tunnel sockets' SO_RCVBUF: room for a 64 KiB burst from each of
 * many CPUs at once (netns.c).
 */
#define MPDT_TUNNEL_RCVBUF	(4 << 20)
/* A quiet time of at least this many ticks lets DATA and PROBEs be timed
 * by the last tick's clock (input.c): an error of at most 1%.
 */
#define MPDT_COARSE_QUIET_MIN_NS	(100ULL * TICK_NSEC)
#define MPDT_EPHEMERAL_LO	32768
#define MPDT_EPHEMERAL_HI	60999
#define MPDT_EPHEMERAL_SPAN	(MPDT_EPHEMERAL_HI - MPDT_EPHEMERAL_LO + 1)

/* An endpoint: IP address and MPDT port.  The core never looks inside.
 * An IPv6 link-local address names a host only together with its link:
 * @scope_id is that interface, as sin6_scope_id; 0 for every other
 * address.
 */
struct mpdt_addr {
	sa_family_t family;
	__be16 port;
	union {
		__be32 v4;
		struct in6_addr v6;
	};
	u32 scope_id;
};

struct mpdt_net {
	struct net *net;
	struct mutex lock;		/* binds, the tunnel, param changes */
	struct socket __rcu *tunnel;	/* kernel UDP socket, on first bind */
	struct socket __rcu *tunnel6;	/* its IPv6 twin, same port */
	struct mpdt_params params;
	const struct mpdt_lb_ops *lb;	/* defaults for new connections */
	const struct mpdt_cc_ops *cc;
	u32 nsockets;			/* bound MPDT sockets */
	atomic64_t drain_bytes;		/* held by draining sockets (close.c) */
	struct mpdt_stats __percpu *stats;
	spinlock_t ports_lock;		/* writers of ports[], ephemeral[] */
	struct hlist_head ports[1 << MPDT_PORT_HASH_BITS];
	/* The ports of the ephemeral range that are in ports[]. */
	DECLARE_BITMAP(ephemeral, MPDT_EPHEMERAL_SPAN);
};

struct mpdt_sock {
	struct inet_sock inet;		/* must be first */
	spinlock_t lock;
	/* MPDT's own socket calls (bind, connect, sendmsg's peer, options,
	 * shutdown), in place of lock_sock(): see rmem.c.
	 */
	struct mutex user_lock;
	/* Receive memory released while a task owned the socket, under
	 * sk->sk_lock.slock (rmem.c).
	 */
	u32 rmem_owed;
	struct mpdt_net *mn;
	struct hlist_node port_node;	/* mn->ports, RCU */
	u16 port;			/* bound MPDT port; 0 = unbound */
	struct mpdt_addr bound;		/* local address; any if unspecified */
	struct mpdt_addr peer;		/* default peer after connect() */
	bool connected;
	bool closing;
	/* Closed (close.c): still delivering its messages, then answering
	 * duplicates; time_wait is set before draining is cleared.
	 */
	bool draining;
	bool time_wait;
	u32 drain_charged;		/* its part of mn->drain_bytes */
	u64 drain_progress_ns;
	u64 tw_end_ns;
	/* Chosen with setsockopt(); NULL: the netns default at connect. */
	const struct mpdt_lb_ops *lb;
	const struct mpdt_cc_ops *cc;
	u32 nconns;
	u64 evict_none_until_ns;	/* a full table's last search failed */
	siphash_key_t conn_key;		/* the peer chooses what we hash */
	siphash_key_t cookie_key;	/* challenges' (wire-format.rst 5.1) */
	DECLARE_HASHTABLE(conns, MPDT_CONN_HASH_BITS);
	DECLARE_HASHTABLE(hosts, MPDT_CONN_HASH_BITS);	/* struct mpdt_host */
	struct list_head conn_lru;	/* least recently heard from first */
	struct timer_list gc_timer;	/* partial messages, idle conns */
	struct list_head rx_partial;	/* incomplete ones, oldest first */
	struct list_head rx_ready;	/* complete struct mpdt_rxmsg */
	u32 rx_senders;			/* conns with rx_reserved, rx.c */
	/* The host's queues (hostq.c): the connections waiting for them,
	 * and the socket's limit there, set by @tx_limit_by.
	 */
	spinlock_t tx_wait_lock;
	struct list_head tx_waiting;
	u32 tx_limit;
	const struct mpdt_conn *tx_limit_by;
	int sndbuf_seen;		/* sk_sndbuf writers last woke for */
	/* Acknowledged messages' pages, oldest first (txmsg.c). */
	spinlock_t tx_pages_lock;
	bool tx_pages_closed;
	bool tx_pages_busy;		/* kept one since the last gc tick */
	u32 tx_pages_n;
	struct page *tx_pages[MPDT_TX_PAGES_KEPT];
	struct mpdt_txpages_entry *tx_pages_entry; /* the shrinker's */
	/* What the engine sent under @lock, in order, waiting for its
	 * release; @tx_sending: a CPU or @tx_work is sending it;
	 * @tx_feedback: the SACKs and NACKs in it.  Under the queue's lock
	 * (output.c mpdt_xmit_queued()).
	 */
	struct sk_buff_head tx_queue;
	bool tx_sending;
	u32 tx_feedback;
	struct work_struct tx_work;
};

static inline struct mpdt_sock *mpdt_sk(const struct sock *sk)
{
	return (struct mpdt_sock *)sk;
}

/* close() was called, but the socket lives on (close.c).  Also read
 * without the socket's lock, by a bind() that takes the port over: the
 * end of a drain sets time_wait before it clears draining, so draining is
 * read first, and one of the two is always seen set.
 */
static inline bool mpdt_sock_closed(const struct mpdt_sock *msk)
{
	if (READ_ONCE(msk->draining))
		return true;
	smp_rmb();	/* pairs with drain_end()'s smp_wmb() */
	return READ_ONCE(msk->time_wait);
}

/* An AF_INET6 socket: inet6_create() expects ipv6_pinfo at the end. */
struct mpdt6_sock {
	struct mpdt_sock msk;
	struct ipv6_pinfo inet6;
};

/* Bytes of a message being sent, in a page fragment (txmsg.c). */
struct mpdt_txchunk {
	struct page *page;
	u32 off;			/* in @page */
	u32 start;			/* in the message */
};

/* A message being sent: kept whole until every packet is acknowledged. */
struct mpdt_txmsg {
	struct mpdt_eng_txmsg core;
	refcount_t refs;		/* the engine's, and its copier's (tx.c) */
	struct mpdt_conn *conn;		/* whose engine holds it; NULL after */
	u32 charged;			/* bytes of sk_wmem_queued */
	u32 laid;			/* payloads and slots (txmsg.c) */
	u32 nchunks;
	struct mpdt_txchunk *chunks;	/* in message order */
};

/* The compound pages a message's held fragments pin, charged whole: the
 * last few are remembered, so that the fragments that follow on a page
 * are not charged again (rx.c).
 */
#define MPDT_RX_PINNED	8

/* A message being received, as packets arrive: payloads held where they
 * came in (@pieces) or copied into @pages (rx.c), each byte in one of
 * them; @ra says which bytes are in (reasm.h).
 */
struct mpdt_rxmsg {
	struct mpdt_reasm ra;
	struct hlist_node hnode;	/* conn->rx_msgs while incomplete */
	struct list_head node;		/* msk->rx_partial, then rx_ready */
	struct mpdt_conn *conn;		/* the sender's, while incomplete */
	u32 npages;
	u32 charged;			/* bytes of sk_rmem_alloc */
	struct mpdt_addr from;
	struct page **pages;
	struct list_head pieces;
	bool pieces_unsorted;		/* one came before an earlier one */
	struct page *pinned[MPDT_RX_PINNED];
	u32 pinned_next;
};

/* Held payloads: @len bytes of the message at @msg_off, at @off in @page
 * (page fragments) or in @skb (a packet that came alone), in whose cb
 * the piece then is.  In a page, a run of payloads of @seg bytes each
 * (the last may be shorter), @gap bytes apart: the headers between them
 * of a burst laid out as a sender on this host lays it (txmsg.c).  An
 * skb's piece is one payload, and has neither.
 */
struct mpdt_rxpiece {
	struct list_head node;		/* mpdt_rxmsg.pieces */
	union {
		struct page *page;
		struct sk_buff *skb;
	};
	u32 off;
	u32 msg_off;
	u32 len;
	u32 seg;
	u16 gap;
	bool in_skb;
};

/* One peer of a socket: the engine decides, this executes. */
/* New DATA packets on one entropy, held to leave as one UDP GSO skb
 * (output.c): @pkts packets of @seg bytes each, MPDT header and payload,
 * the last one @last, at @at (pacing.h; 0: at once).
 */
struct mpdt_burst {
	struct sk_buff *skb;
	u64 at;
	u32 seg, last;
	u16 pkts, ev;
};

/* The connections of one peer address, of which a socket holds at most
 * MPDT_MAX_HOST_CONNS (conn.c).
 */
struct mpdt_host {
	struct hlist_node node;		/* msk->hosts */
	struct mpdt_addr addr;		/* port 0 */
	struct list_head conns;		/* least recently heard from first */
	u32 nconns;
	u64 evict_none_until_ns;	/* its last search for room failed */
};

struct mpdt_conn {
	struct mpdt_eng eng;
	struct hlist_node node;		/* msk->conns */
	struct list_head lru;		/* msk->conn_lru */
	struct mpdt_host *host;
	struct list_head host_lru;	/* host->conns */
	struct mpdt_sock *msk;
	struct mpdt_addr peer;
	/* Our address: the one the peer sent to, or that our first route
	 * chose; family 0 until known.  It never changes.
	 */
	struct mpdt_addr local;
	struct hrtimer timer;		/* the engine's timer */
	struct list_head tx_wait;	/* msk->tx_waiting, hostq.c */
	bool tx_wait_drain;		/* ... until the host has none */
	struct dst_cache dst_cache;	/* the route to the peer, output.c */
	int rt_oif;			/* ... for this SO_BINDTODEVICE */
	u32 rt_mark;			/* ... and this SO_MARK */
	struct mpdt_burst burst;	/* empty between the engine's calls */
	u32 rx_reserved;		/* bytes its partial messages hold */
	DECLARE_HASHTABLE(rx_msgs, MPDT_RXMSG_HASH_BITS);
};

static inline struct mpdt_conn *mpdt_eng_conn(struct mpdt_eng *e)
{
	return container_of(e, struct mpdt_conn, eng);
}

/* main.c: dedicated caches make a leak loud at rmmod */
extern struct kmem_cache *mpdt_conn_cache;
extern struct kmem_cache *mpdt_txmsg_cache;
extern struct kmem_cache *mpdt_rxmsg_cache;
extern struct kmem_cache *mpdt_rxpiece_cache;
extern struct kmem_cache *mpdt_host_cache;

/* addr.c */
int mpdt_addr_from_user(const struct sock *sk, const struct sockaddr *uaddr,
			int len, struct mpdt_addr *a);
int mpdt_addr_to_user(const struct sock *sk, const struct mpdt_addr *a,
		      struct sockaddr *uaddr);
bool mpdt_addr_is_any(const struct mpdt_addr *a);
bool mpdt_addr_is_local(struct net *net, const struct mpdt_addr *a);
bool mpdt_addr_is_unicast(struct net *net, const struct mpdt_addr *a,
			  int ifindex);

/* netns.c */
struct mpdt_net *mpdt_net(const struct net *net);
int mpdt_net_bind(struct mpdt_sock *msk, u16 port);
int mpdt_net_apply_params(struct mpdt_net *mn, const struct mpdt_params *p,
			  const struct mpdt_lb_ops *lb,
			  const struct mpdt_cc_ops *cc,
			  struct netlink_ext_ack *extack);
void mpdt_port_unbind(struct mpdt_sock *msk);
void mpdt_port_closed(struct mpdt_sock *msk);
struct mpdt_sock *mpdt_port_lookup_rcu(struct mpdt_net *mn, u16 port);
int mpdt_net_register(void);
void mpdt_net_unregister(void);
extern struct mpdt_params mpdt_default_params;
extern const struct mpdt_lb_ops *mpdt_default_lb;
extern const struct mpdt_cc_ops *mpdt_default_cc;

/* netlink.c */
int mpdt_netlink_register(void);
void mpdt_netlink_unregister(void);
void mpdt_netlink_conn_event(struct mpdt_conn *c, u8 cmd);

/* conn.c */
struct mpdt_conn *mpdt_conn_find(struct mpdt_sock *msk,
				 const struct mpdt_addr *peer);
struct mpdt_conn *mpdt_conn_create(struct mpdt_sock *msk, bool by_peer,
				   const struct mpdt_addr *peer, gfp_t gfp);
void mpdt_conn_heard(struct mpdt_conn *c);
void mpdt_conn_gc(struct timer_list *t);
void mpdt_conn_gc_arm(struct mpdt_sock *msk);
void mpdt_conn_destroy(struct mpdt_conn *c);
void mpdt_conn_destroy_all(struct mpdt_sock *msk);
void mpdt_conn_fill_info(struct mpdt_conn *c, struct mpdt_info *info);

/* Where the bytes of a message copied in while it goes come from: the
 * sender's pages, taken before the message is queued (so that the copy
 * cannot fault once its first packets are out), or kernel memory.
 */
struct mpdt_txsrc {
	struct iov_iter iter;
	struct bio_vec *bvec;		/* the sender's pages; NULL: none */
	u32 nbvec;
};

/* txmsg.c: a message's bytes, attached to the skbs that carry them */
u32 mpdt_txmsg_truesize(const struct mpdt_sock *msk, size_t len);
struct mpdt_txmsg *mpdt_txmsg_new(struct mpdt_sock *msk, struct msghdr *msg,
				  size_t len, struct mpdt_txsrc *src, int *err);
void mpdt_txmsg_copy(struct mpdt_txmsg *m, struct mpdt_txsrc *src, u32 at,
		     u32 len);
void mpdt_txsrc_release(struct mpdt_txsrc *src);
void mpdt_txmsg_destroy(struct mpdt_sock *msk, struct mpdt_txmsg *m);
void mpdt_txmsg_put(struct mpdt_sock *msk, struct mpdt_txmsg *m);
int mpdt_txpages_register(void);
void mpdt_txpages_unregister(void);
void mpdt_txpages_release(struct mpdt_sock *msk);
void mpdt_txpages_idle(struct mpdt_sock *msk, bool all);
bool mpdt_txmsg_attach(struct sk_buff *skb, const struct mpdt_txmsg *m,
		       u32 off, u32 len, const u8 *hdr);

/* tx.c: the sending half */
int mpdt_conn_send(struct mpdt_sock *msk, const struct mpdt_addr *peer,
		   struct mpdt_txmsg *m, struct mpdt_txsrc *src);
enum hrtimer_restart mpdt_conn_timer(struct hrtimer *t);
void mpdt_tx_arm_timer(struct mpdt_eng *e, u64 when);
void mpdt_tx_release(struct mpdt_eng *e, struct mpdt_eng_txmsg *m);
void mpdt_tx_room(struct mpdt_eng *e);
void mpdt_tx_failed(struct mpdt_eng *e);

/* rx.c: the receiving half */
void mpdt_rxmsg_free(struct mpdt_sock *msk, struct mpdt_rxmsg *m);
struct mpdt_reasm *mpdt_rx_find(struct mpdt_eng *e, u32 id);
u32 mpdt_rx_room(struct mpdt_eng *e);
struct mpdt_reasm *mpdt_rx_admit(struct mpdt_eng *e,
				 const struct mpdt_data *d);
int mpdt_rx_place(struct mpdt_eng *e, struct mpdt_reasm *ra,
		  const struct mpdt_data *d, const void *payload);
void mpdt_rx_deliver(struct mpdt_eng *e, struct mpdt_reasm *ra);
void mpdt_rx_forget(struct mpdt_eng *e);

/* The fragment of an skb in which the last payload held from it ended:
 * its index and where it starts in the skb (0, 0: none yet).  A burst's
 * packets come in order, so the next one's walk starts there.
 */
struct mpdt_rx_frag_at {
	u32 i;
	u32 pos;
};

/* The DATA payload handed to the engine, for mpdt_rx_place(), which may
 * hold the pages under its fragments, or @skb itself unless @burst (one
 * of several packets of @skb).
 */
struct mpdt_rx_payload {
	struct sk_buff *skb;
	u32 off;
	bool burst;
	struct mpdt_rx_frag_at *frag_at;	/* of the skb, for all its packets */
};

/* rmem.c */
bool mpdt_rmem_reserve(struct mpdt_sock *msk, u32 bytes);
void mpdt_rmem_unreserve(struct mpdt_sock *msk, u32 bytes);
void mpdt_rmem_release(struct mpdt_sock *msk, u32 bytes);
void mpdt_release_cb(struct sock *sk);
void mpdt_rmem_reclaim_final(struct mpdt_sock *msk);

/* close.c */
bool mpdt_close_linger_on(struct mpdt_sock *msk, bool abort);
void mpdt_close_progress(struct mpdt_sock *msk);
bool mpdt_close_gc(struct mpdt_sock *msk, u64 now);
void mpdt_close_taken_over(struct mpdt_sock *msk);
void mpdt_close_finish(struct mpdt_sock *msk);

/* input.c */
void mpdt_tunnel_data_ready(struct sock *sk);
void mpdt_rcv_steered(struct sk_buff *skb);

/* steer.c: each connection's received packets on one CPU */
int mpdt_steer_init(void);
void mpdt_steer_exit(void);
bool mpdt_steer(struct mpdt_sock *msk, struct sk_buff *skb,
		const struct mpdt_addr *local, const struct mpdt_addr *peer);

/* hostq.c: the socket's share of this host's queues */
void mpdt_hostq_init(struct mpdt_sock *msk);
void mpdt_hostq_charge(struct mpdt_conn *c, struct sk_buff *skb);
bool mpdt_tx_host_room(struct mpdt_eng *e, u32 limit);
bool mpdt_tx_host_drained(struct mpdt_eng *e);
void mpdt_write_space(struct sock *sk);
bool mpdt_conn_timer_stop(struct mpdt_conn *c);

/* output.c */
void mpdt_xmit_queued(struct mpdt_sock *msk);
void mpdt_xmit_init(struct mpdt_sock *msk);
int mpdt_output_init(void);
void mpdt_output_exit(void);
void mpdt_xmit(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
	       const struct mpdt_eng_txmsg *m);
void mpdt_xmit_flush(struct mpdt_eng *e);
bool mpdt_tx_paced(struct mpdt_eng *e, u64 *max_rate);

/* socket.c */
extern struct proto mpdt_prot;
extern struct proto mpdtv6_prot;
extern const struct proto_ops mpdt_inet_ops;
extern const struct proto_ops mpdt_inet6_ops;
void mpdt_sock_mem_init(void);
void mpdt_sock_wake_writers(struct mpdt_sock *msk);

static inline u64 mpdt_now(void)
{
	return ktime_get_ns();
}

/* Time from @then to @now; 0 when @then is later, as when another CPU
 * stamped it after @now was read.
 */
static inline u64 mpdt_since(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

#endif /* _MPDT_PROTOCOL_H */
