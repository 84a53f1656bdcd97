/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-netns counters, kept per CPU and summed on read.  They only ever
 * grow (tools diff them).  The enum order is the netlink attribute order,
 * so only append.
 */
#ifndef _MPDT_STATS_H
#define _MPDT_STATS_H

#include <linux/percpu.h>
#include "wire.h"

enum mpdt_stat {
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
	/* Drops, by reason.  The wire reasons follow enum mpdt_wire_err. */
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
	__MPDT_STAT_MAX
};

struct mpdt_stats {
	u64 v[__MPDT_STAT_MAX];
};

struct mpdt_net;

void mpdt_stat_inc(struct mpdt_net *mn, enum mpdt_stat s);
void mpdt_stat_add(struct mpdt_net *mn, enum mpdt_stat s, u64 n);
u64 mpdt_stat_read(struct mpdt_net *mn, enum mpdt_stat s);
const char *mpdt_stat_name(enum mpdt_stat s);
enum mpdt_stat mpdt_stat_for_wire_err(enum mpdt_wire_err e);

#endif /* _MPDT_STATS_H */
