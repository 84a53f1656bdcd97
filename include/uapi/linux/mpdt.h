/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * MPDT: reliable multipath datagram transport.
 *
 * Applications open socket(AF_INET, SOCK_DGRAM, IPPROTO_MPDT) and exchange
 * whole messages.  See mpdt(7) for the socket API and
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

#define MPDT_ALGO_NAME_MAX	16

enum mpdt_conn_state {
	MPDT_CONN_ACTIVE = 1,	/* exchanging messages */
	MPDT_CONN_FAILED,	/* peer stopped answering */
};

/* Why a packet was retransmitted (STrack §3.3.2 detection mechanisms). */
enum mpdt_retx_cause {
	MPDT_RETX_OOO,		/* out-of-order count over threshold */
	MPDT_RETX_PROBE,	/* probe answered, data was not */
	MPDT_RETX_RTO,		/* retransmission timeout */
	MPDT_RETX_NACK,		/* receiver NACKed (no buffer, trimmed) */
	__MPDT_RETX_MAX
};

/*
 * getsockopt(fd, SOL_MPDT, MPDT_INFO, &info, &len)
 *
 * In: mi_peer selects the peer (AF_INET address and MPDT port).  An
 * AF_UNSPEC mi_peer selects the connected peer.  Out: that peer's state.
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
};

#endif /* _UAPI_LINUX_MPDT_H */
