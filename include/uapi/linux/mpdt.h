/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MPDT: reliable multipath datagram transport.
 *
 * Applications open socket(AF_INET or AF_INET6, SOCK_DGRAM, IPPROTO_MPDT)
 * and exchange whole messages.  See mpdt(7) for the socket API and
 * Documentation/wire-format.rst for what goes on the wire.
 */
#ifndef _UAPI_LINUX_MPDT_H
#define _UAPI_LINUX_MPDT_H

#include <linux/types.h>
#include <linux/socket.h>

/*
 * The protocol number is API-only: the wire is UDP.  254 is reserved for
 * experimentation (RFC 3692) and is below IPPROTO_MAX, which inet_create()
 * requires.
 */
#define IPPROTO_MPDT		254
#define SOL_MPDT		IPPROTO_MPDT

/* Largest message one sendmsg() may carry; SO_SNDBUF can lower it. */
#define MPDT_MSG_MAX		(16U << 20)

/* Socket options at level SOL_MPDT. */
#define MPDT_INFO		1	/* get: struct mpdt_info */
#define MPDT_LB			2	/* get/set: load balancing, by name */
#define MPDT_CC			3	/* get/set: congestion control, by name */

#define MPDT_ALGO_NAME_MAX	16

enum mpdt_conn_state {
	MPDT_CONN_ACTIVE = 1,	/* exchanging messages */
	MPDT_CONN_FAILED,	/* peer stopped answering */
};

/* What MPDT_CMD_SOCK_GET reports of a bound socket. */
enum mpdt_sock_state {
	MPDT_SOCK_OPEN = 1,	/* an application holds it */
	MPDT_SOCK_DRAINING,	/* closed, delivering what it had accepted */
	MPDT_SOCK_TIME_WAIT,	/* closed, answering duplicates */
};

/* Why a packet was retransmitted (STrack §3.3.2 detection mechanisms). */
enum mpdt_retx_cause {
	MPDT_RETX_OOO,		/* out-of-order count over threshold */
	MPDT_RETX_PROBE,	/* probe answered, data was not */
	MPDT_RETX_RTO,		/* retransmission timeout */
	MPDT_RETX_NACK,		/* NACKed: no buffer, trimmed, flowlet gap */
	__MPDT_RETX_MAX
};

/*
 * getsockopt(fd, SOL_MPDT, MPDT_INFO, &info, &len)
 *
 * In: mi_peer selects the peer (address in the socket's family and MPDT
 * port); an AF_UNSPEC mi_peer selects the connected peer.  Out: that
 * peer's state.
 * Fields are only ever appended; the kernel copies min(len, sizeof).
 */
struct mpdt_info {
	struct __kernel_sockaddr_storage mi_peer;
	__u32	mi_state;		/* enum mpdt_conn_state */
	__u32	mi_nonce;		/* our sending incarnation */
	__u32	mi_cwnd;		/* bytes */
	__u32	mi_inflight;		/* bytes, STrack eq. (1)-(2) */
	__u32	mi_srtt_us;
	__u32	mi_rttvar_us;
	__u32	mi_min_rtt_us;
	__u32	mi_rto_us;
	__u32	mi_snd_una;		/* lowest unacknowledged PSN */
	__u32	mi_snd_nxt;		/* next new PSN */
	__u32	mi_rcv_epsn;		/* receiver's expected PSN */
	__u32	mi_rcv_ooo;		/* received beyond EPSN */
	__u64	mi_retx[__MPDT_RETX_MAX];	/* by enum mpdt_retx_cause */
	__u64	mi_probes;
	__u64	mi_rtos;
	__u64	mi_sacks_rcvd;
	__u64	mi_sacks_sent;
	__u64	mi_nacks_rcvd;
	__u64	mi_nacks_sent;
	__u64	mi_msgs_sent;		/* handed to sendmsg() */
	__u64	mi_msgs_acked;		/* every packet acknowledged */
	__u64	mi_msgs_rcvd;		/* complete, queued to the socket */
	__u64	mi_bytes_sent;		/* payload, retransmissions included */
	__u64	mi_bytes_acked;		/* payload, by the peer's recv_bytes */
	__u32	mi_msgs_inflight;	/* sent, not yet fully acknowledged */
	__u32	mi_ev;			/* last entropy chosen */
	char	mi_lb[MPDT_ALGO_NAME_MAX];
	char	mi_cc[MPDT_ALGO_NAME_MAX];
	__u32	mi_base_rtt_us;		/* the CC's: configured or measured */
	__u32	mi_bdp;			/* bytes, the CC's */
	__u64	mi_delivery_rate;	/* bytes/s, measured */
	__u32	mi_peer_room;		/* bytes of new message; ~0: unsaid */
};

/*
 * Generic netlink family "mpdt" (Documentation/netlink/specs/mpdt.yaml).
 * Reads are open to everyone; writes need CAP_NET_ADMIN over the netns.
 */
#define MPDT_GENL_NAME		"mpdt"
#define MPDT_GENL_VERSION	1
#define MPDT_GENL_MCGRP_EVENTS	"events"

enum mpdt_cmd {
	MPDT_CMD_UNSPEC,
	MPDT_CMD_PARAM_GET,	/* do: MPDT_A_PARAMS */
	MPDT_CMD_PARAM_SET,	/* do: MPDT_A_PARAMS (admin) */
	MPDT_CMD_STATS_GET,	/* do: MPDT_A_STATS */
	MPDT_CMD_CONN_GET,	/* do: one MPDT_A_CONN by peer; dump: all */
	MPDT_CMD_ALGO_GET,	/* dump: MPDT_A_ALGO per algorithm */
	MPDT_CMD_CONN_CREATED,	/* notification, "events" group */
	MPDT_CMD_CONN_CLOSED,	/* notification */
	MPDT_CMD_CONN_FAILED,	/* notification: peer stopped answering */
	MPDT_CMD_SOCK_GET,	/* dump: MPDT_A_SOCK per bound socket */
	__MPDT_CMD_MAX
};

#define MPDT_CMD_MAX (__MPDT_CMD_MAX - 1)

enum mpdt_attr {
	MPDT_A_UNSPEC,
	MPDT_A_PARAMS,		/* nest: enum mpdt_param */
	MPDT_A_STATS,		/* nest: enum mpdt_stat */
	MPDT_A_CONN,		/* nest: enum mpdt_conn_attr */
	MPDT_A_ALGO,		/* nest: enum mpdt_algo_attr */
	MPDT_A_SOCK,		/* nest: enum mpdt_sock_attr */
	__MPDT_A_MAX
};

#define MPDT_A_MAX (__MPDT_A_MAX - 1)

/* Tunables of a network namespace: every value is a u32 unless noted. */
enum mpdt_param {
	MPDT_PARAM_UNSPEC,
	MPDT_PARAM_LB,		/* string: default load balancing */
	MPDT_PARAM_CC,		/* string: default congestion control */
	MPDT_PARAM_UDP_PORT,
	MPDT_PARAM_PAYLOAD,
	MPDT_PARAM_LINK_MBPS,
	MPDT_PARAM_BASE_RTT_US,
	MPDT_PARAM_ACK_BYTES,
	MPDT_PARAM_ACK_ON_EPSN,
	MPDT_PARAM_ACK_ON_CE,
	MPDT_PARAM_PROBE_MULT,
	MPDT_PARAM_RTO_MIN_US,
	MPDT_PARAM_RTO_MAX_US,
	MPDT_PARAM_MAX_RETRIES,
	MPDT_PARAM_RX_WINDOW,
	MPDT_PARAM_ENTROPIES,
	MPDT_PARAM_ENTROPY_BASE,
	MPDT_PARAM_FIXED_CWND,
	MPDT_PARAM_BITMAP_RESET_RTTS,
	MPDT_PARAM_REPS_BUFFER,
	MPDT_PARAM_REPS_FREEZE_US,
	MPDT_PARAM_PRIME_TIERS,
	MPDT_PARAM_PRIME_UPLINKS,
	MPDT_PARAM_PRIME_ECN_PENALTY,
	MPDT_PARAM_PRIME_NACK_PENALTY,
	MPDT_PARAM_PARALET_M,
	MPDT_PARAM_PARALET_BDPS,
	MPDT_PARAM_STRACK_TARGET_QDELAY_US,
	MPDT_PARAM_STRACK_QHIGH_PCT,
	MPDT_PARAM_STRACK_EWMA_PM,
	MPDT_PARAM_STRACK_ALPHA_PCT,
	MPDT_PARAM_STRACK_BETA_PCT,
	MPDT_PARAM_STRACK_ETA_PCT,
	MPDT_PARAM_STRACK_GAMMA_PM,
	MPDT_PARAM_STRACK_MD_FLOOR_PCT,
	MPDT_PARAM_STRACK_ACHIEVED_DIV,
	MPDT_PARAM_STRACK_MAX_CWND_PCT,
	MPDT_PARAM_SMARTT_TRTT_PCT,
	MPDT_PARAM_SMARTT_FD_PM,
	MPDT_PARAM_SMARTT_MD_PCT,
	MPDT_PARAM_SMARTT_FI_PM,
	MPDT_PARAM_SMARTT_QA_SCALING_PCT,
	MPDT_PARAM_SMARTT_FAST_K,
	MPDT_PARAM_SMARTT_FAST_RTT_PCT,
	MPDT_PARAM_SMARTT_WTD_ALPHA_PM,
	MPDT_PARAM_SMARTT_WTD_THRESH_PM,
	MPDT_PARAM_SMARTT_MAX_CWND_PCT,
	MPDT_PARAM_MCC_TARGET_MSG_DELAY_US,
	MPDT_PARAM_MCC_TARGET_MAX_DELAY_US,
	MPDT_PARAM_MCC_OVERSUB,
	MPDT_PARAM_MCC_MD_FLOOR_PCT,
	MPDT_PARAM_MCC_CHUNK_BYTES,
	MPDT_PARAM_MCC_MAX_CWND_PCT,
	MPDT_PARAM_PRIME_TIMEOUT_PENALTY,
	MPDT_PARAM_SNDBUF,
	MPDT_PARAM_RCVBUF,
	MPDT_PARAM_BURST_PKTS,
	MPDT_PARAM_DRAIN_MEM,
	MPDT_PARAM_RX_STEER,
	__MPDT_PARAM_MAX
};

#define MPDT_PARAM_MAX (__MPDT_PARAM_MAX - 1)

/* Per-netns counters, each a u64 that only grows. */
enum mpdt_stat {
	MPDT_STAT_UNSPEC,
	MPDT_STAT_PAD,
	MPDT_STAT_TX_PKTS,
	MPDT_STAT_TX_BYTES,
	MPDT_STAT_RX_PKTS,
	MPDT_STAT_RX_BYTES,
	MPDT_STAT_TX_DATA,
	MPDT_STAT_RX_DATA,
	MPDT_STAT_RX_DUP_DATA,
	MPDT_STAT_TX_SACK,
	MPDT_STAT_RX_SACK,
	MPDT_STAT_TX_NACK,
	MPDT_STAT_RX_NACK,
	MPDT_STAT_TX_PROBE,
	MPDT_STAT_RX_PROBE,
	MPDT_STAT_RTO,
	MPDT_STAT_RETX_OOO,
	MPDT_STAT_RETX_PROBE,
	MPDT_STAT_RETX_RTO,
	MPDT_STAT_RETX_NACK,
	MPDT_STAT_MSG_TX,
	MPDT_STAT_MSG_ACKED,
	MPDT_STAT_MSG_RX,
	MPDT_STAT_CONN_CREATED,
	MPDT_STAT_CONN_FAILED,
	MPDT_STAT_RX_CE,
	MPDT_STAT_TX_ERR,
	/* Drops, by reason. */
	MPDT_STAT_DROP_SHORT,
	MPDT_STAT_DROP_BAD_VERSION,
	MPDT_STAT_DROP_BAD_TYPE,
	MPDT_STAT_DROP_BAD_FLAGS,
	MPDT_STAT_DROP_BAD_LENGTH,
	MPDT_STAT_DROP_BAD_OFFSET,
	MPDT_STAT_DROP_BAD_PORT,
	MPDT_STAT_DROP_NO_SOCKET,
	MPDT_STAT_DROP_NO_CONN,
	MPDT_STAT_DROP_STALE_NONCE,
	MPDT_STAT_DROP_OUT_OF_WINDOW,
	MPDT_STAT_DROP_NO_BUFFER,
	MPDT_STAT_DROP_BOGUS_ACK,
	MPDT_STAT_DROP_MSG_MISMATCH,
	MPDT_STAT_DROP_CONN_LIMIT,
	MPDT_STAT_DROP_TRIMMED,
	MPDT_STAT_RX_REORDERED,		/* arrived before its predecessor */
	MPDT_STAT_DROP_NOT_HOST,
	MPDT_STAT_DROP_OVERLAP,
	MPDT_STAT_DROP_PEER_QUOTA,
	MPDT_STAT_DROP_NEW_NONCE,
	MPDT_STAT_RX_MSG_EXPIRED,
	MPDT_STAT_CONN_EVICTED,
	MPDT_STAT_CONN_EXPIRED,
	MPDT_STAT_TIME_WAIT,
	MPDT_STAT_RTO_UNDONE,		/* spurious RTO: its losses taken back */
	MPDT_STAT_CLOSE_DRAIN,		/* closed, delivering in the background */
	MPDT_STAT_CLOSE_ABANDONED,	/* ... gave up: no progress, port taken */
	MPDT_STAT_TX_GSO,		/* skbs of two or more DATA packets */
	MPDT_STAT_RX_COPIED,		/* payloads copied, not held (rx.c) */
	MPDT_STAT_CLOSE_DRAIN_LIMIT,	/* closed over drain_mem: dropped */
	MPDT_STAT_TX_HOST_LIMITED,	/* waited for this host's queues */
	MPDT_STAT_DROP_FILTERED,	/* refused by the socket's filters */
	MPDT_STAT_RX_GSO,		/* skbs of two or more packets, taken whole */
	MPDT_STAT_TX_PAGES_REUSED,	/* kept pages a new message took (txmsg.c) */
	MPDT_STAT_RX_STEERED,		/* skbs handed to their connection's CPU */
	MPDT_STAT_RX_MSG_EVICTED,	/* partial messages dropped for room */
	MPDT_STAT_TX_DEFERRED,		/* sends left to a kworker (output.c) */
	MPDT_STAT_DROP_NOT_UNICAST,	/* a stranger's broadcast source */
	MPDT_STAT_TX_CHALLENGE,		/* new nonces challenged (NACK) */
	MPDT_STAT_RX_NONCE_PROVEN,	/* ... adopted on their cookie */
	__MPDT_STAT_MAX
};

#define MPDT_STAT_MAX (__MPDT_STAT_MAX - 1)

/* One connection: a socket's state for one peer. */
enum mpdt_conn_attr {
	MPDT_CONN_A_UNSPEC,
	MPDT_CONN_A_PAD,
	MPDT_CONN_A_FAMILY,		/* u16: AF_INET, AF_INET6 */
	MPDT_CONN_A_PEER_V4,		/* u32, network byte order */
	MPDT_CONN_A_PEER_V6,		/* binary, 16 bytes */
	MPDT_CONN_A_PEER_PORT,		/* u16: MPDT port */
	MPDT_CONN_A_LOCAL_PORT,		/* u16: MPDT port */
	MPDT_CONN_A_STATE,		/* u32: enum mpdt_conn_state */
	MPDT_CONN_A_CWND,		/* u32, bytes */
	MPDT_CONN_A_SRTT_US,		/* u32 */
	MPDT_CONN_A_MIN_RTT_US,		/* u32 */
	MPDT_CONN_A_INFLIGHT,		/* u32, bytes */
	MPDT_CONN_A_SND_UNA,		/* u32 */
	MPDT_CONN_A_SND_NXT,		/* u32 */
	MPDT_CONN_A_RCV_EPSN,		/* u32 */
	MPDT_CONN_A_MSGS_INFLIGHT,	/* u32 */
	MPDT_CONN_A_LB,			/* string */
	MPDT_CONN_A_CC,			/* string */
	MPDT_CONN_A_RETX_OOO,		/* u64 */
	MPDT_CONN_A_RETX_PROBE,		/* u64 */
	MPDT_CONN_A_RETX_RTO,		/* u64 */
	MPDT_CONN_A_RETX_NACK,		/* u64 */
	MPDT_CONN_A_MSGS_SENT,		/* u64 */
	MPDT_CONN_A_MSGS_ACKED,		/* u64 */
	MPDT_CONN_A_MSGS_RCVD,		/* u64 */
	MPDT_CONN_A_BYTES_SENT,		/* u64 */
	MPDT_CONN_A_BYTES_ACKED,	/* u64 */
	MPDT_CONN_A_SOCK_INODE,		/* u64: the socket's inode, 0 once closed */
	MPDT_CONN_A_UID,		/* u32: the socket's owner */
	MPDT_CONN_A_BASE_RTT_US,	/* u32 */
	MPDT_CONN_A_BDP,		/* u32, bytes */
	MPDT_CONN_A_DELIVERY_RATE,	/* u64, bytes per second */
	MPDT_CONN_A_PEER_IFINDEX,	/* u32: a link-local peer's interface */
	MPDT_CONN_A_PEER_ROOM,		/* u32, bytes; ~0: the peer does not say */
	__MPDT_CONN_A_MAX
};

#define MPDT_CONN_A_MAX (__MPDT_CONN_A_MAX - 1)

enum mpdt_algo_kind {
	MPDT_ALGO_LB = 1,	/* load balancing: entropy choice */
	MPDT_ALGO_CC,		/* congestion control */
};

enum mpdt_algo_attr {
	MPDT_ALGO_A_UNSPEC,
	MPDT_ALGO_A_KIND,	/* u32: enum mpdt_algo_kind */
	MPDT_ALGO_A_NAME,	/* string */
	MPDT_ALGO_A_DEFAULT,	/* flag: this netns's default */
	__MPDT_ALGO_A_MAX
};

#define MPDT_ALGO_A_MAX (__MPDT_ALGO_A_MAX - 1)

enum mpdt_sock_attr {
	MPDT_SOCK_A_UNSPEC,
	MPDT_SOCK_A_PAD,
	MPDT_SOCK_A_FAMILY,	/* u16: AF_INET, AF_INET6 (the socket's) */
	MPDT_SOCK_A_LOCAL_PORT,	/* u16: bound MPDT port */
	MPDT_SOCK_A_ADDR_V4,	/* u32, network byte order: bound address */
	MPDT_SOCK_A_ADDR_V6,	/* binary, 16 bytes: bound address */
	MPDT_SOCK_A_STATE,	/* u32: enum mpdt_sock_state */
	MPDT_SOCK_A_INODE,	/* u64: 0 once closed */
	MPDT_SOCK_A_UID,	/* u32: owner, in the requester's user ns */
	MPDT_SOCK_A_CGROUP,	/* u64: cgroup v2 id of the creator */
	MPDT_SOCK_A_CONNS,	/* u32: connections */
	MPDT_SOCK_A_RMEM,	/* u32: receive memory in use, bytes */
	MPDT_SOCK_A_RCVBUF,	/* u32: SO_RCVBUF */
	MPDT_SOCK_A_WMEM,	/* u32: send memory in use, bytes */
	MPDT_SOCK_A_SNDBUF,	/* u32: SO_SNDBUF */
	MPDT_SOCK_A_ADDR_IFINDEX, /* u32: a link-local bound address's link */
	__MPDT_SOCK_A_MAX
};

#define MPDT_SOCK_A_MAX (__MPDT_SOCK_A_MAX - 1)

#endif /* _UAPI_LINUX_MPDT_H */
