// SPDX-License-Identifier: GPL-2.0
/* Per-netns per-CPU counters. */
#include "protocol.h"

static const char * const mpdt_stat_names[__MPDT_STAT_MAX] = {
	[MPDT_STAT_TX_PKTS]		= "tx_packets",
	[MPDT_STAT_TX_BYTES]		= "tx_bytes",
	[MPDT_STAT_RX_PKTS]		= "rx_packets",
	[MPDT_STAT_RX_BYTES]		= "rx_bytes",
	[MPDT_STAT_TX_DATA]		= "tx_data",
	[MPDT_STAT_RX_DATA]		= "rx_data",
	[MPDT_STAT_RX_DUP_DATA]		= "rx_dup_data",
	[MPDT_STAT_TX_SACK]		= "tx_sack",
	[MPDT_STAT_RX_SACK]		= "rx_sack",
	[MPDT_STAT_TX_NACK]		= "tx_nack",
	[MPDT_STAT_RX_NACK]		= "rx_nack",
	[MPDT_STAT_TX_PROBE]		= "tx_probe",
	[MPDT_STAT_RX_PROBE]		= "rx_probe",
	[MPDT_STAT_RTO]			= "rto",
	[MPDT_STAT_RETX_OOO]		= "retx_ooo",
	[MPDT_STAT_RETX_PROBE]		= "retx_probe",
	[MPDT_STAT_RETX_RTO]		= "retx_rto",
	[MPDT_STAT_RETX_NACK]		= "retx_nack",
	[MPDT_STAT_MSG_TX]		= "msg_tx",
	[MPDT_STAT_MSG_ACKED]		= "msg_acked",
	[MPDT_STAT_MSG_RX]		= "msg_rx",
	[MPDT_STAT_CONN_CREATED]	= "conn_created",
	[MPDT_STAT_CONN_FAILED]		= "conn_failed",
	[MPDT_STAT_RX_CE]		= "rx_ce",
	[MPDT_STAT_TX_ERR]		= "tx_err",
	[MPDT_STAT_DROP_SHORT]		= "drop_short",
	[MPDT_STAT_DROP_BAD_VERSION]	= "drop_bad_version",
	[MPDT_STAT_DROP_BAD_TYPE]	= "drop_bad_type",
	[MPDT_STAT_DROP_BAD_FLAGS]	= "drop_bad_flags",
	[MPDT_STAT_DROP_BAD_LENGTH]	= "drop_bad_length",
	[MPDT_STAT_DROP_BAD_OFFSET]	= "drop_bad_offset",
	[MPDT_STAT_DROP_BAD_PORT]	= "drop_bad_port",
	[MPDT_STAT_DROP_NO_SOCKET]	= "drop_no_socket",
	[MPDT_STAT_DROP_NO_CONN]	= "drop_no_conn",
	[MPDT_STAT_DROP_STALE_NONCE]	= "drop_stale_nonce",
	[MPDT_STAT_DROP_OUT_OF_WINDOW]	= "drop_out_of_window",
	[MPDT_STAT_DROP_NO_BUFFER]	= "drop_no_buffer",
	[MPDT_STAT_DROP_BOGUS_ACK]	= "drop_bogus_ack",
	[MPDT_STAT_DROP_MSG_MISMATCH]	= "drop_msg_mismatch",
	[MPDT_STAT_DROP_CONN_LIMIT]	= "drop_conn_limit",
	[MPDT_STAT_DROP_TRIMMED]	= "drop_trimmed",
	[MPDT_STAT_RX_REORDERED]	= "rx_reordered",
	[MPDT_STAT_DROP_NOT_HOST]	= "drop_not_host",
	[MPDT_STAT_DROP_OVERLAP]	= "drop_overlap",
	[MPDT_STAT_DROP_PEER_QUOTA]	= "drop_peer_quota",
	[MPDT_STAT_DROP_NEW_NONCE]	= "drop_new_nonce",
	[MPDT_STAT_RX_MSG_EXPIRED]	= "rx_msg_expired",
	[MPDT_STAT_CONN_EVICTED]	= "conn_evicted",
	[MPDT_STAT_CONN_EXPIRED]	= "conn_expired",
	[MPDT_STAT_TIME_WAIT]		= "time_wait",
	[MPDT_STAT_RTO_UNDONE]		= "rto_undone",
	[MPDT_STAT_CLOSE_DRAIN]		= "close_drain",
	[MPDT_STAT_CLOSE_ABANDONED]	= "close_abandoned",
	[MPDT_STAT_TX_GSO]		= "tx_gso",
	[MPDT_STAT_RX_COPIED]		= "rx_copied",
	[MPDT_STAT_CLOSE_DRAIN_LIMIT]	= "close_drain_limit",
	[MPDT_STAT_TX_HOST_LIMITED]	= "tx_host_limited",
	[MPDT_STAT_DROP_FILTERED]	= "drop_filtered",
	[MPDT_STAT_RX_GSO]		= "rx_gso",
	[MPDT_STAT_TX_PAGES_REUSED]	= "tx_pages_reused",
	[MPDT_STAT_RX_STEERED]		= "rx_steered",
	[MPDT_STAT_RX_MSG_EVICTED]	= "rx_msg_evicted",
	[MPDT_STAT_TX_DEFERRED]		= "tx_deferred",
	[MPDT_STAT_DROP_NOT_UNICAST]	= "drop_not_unicast",
	[MPDT_STAT_TX_CHALLENGE]	= "tx_challenge",
	[MPDT_STAT_RX_NONCE_PROVEN]	= "rx_nonce_proven",
};

void mpdt_stat_inc(struct mpdt_net *mn, enum mpdt_stat s)
{
	this_cpu_inc(mn->stats->v[s]);
}

void mpdt_stat_add(struct mpdt_net *mn, enum mpdt_stat s, u64 n)
{
	this_cpu_add(mn->stats->v[s], n);
}

u64 mpdt_stat_read(struct mpdt_net *mn, enum mpdt_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(mn->stats, cpu)->v[s]);
	return sum;
}

const char *mpdt_stat_name(enum mpdt_stat s)
{
	return s < __MPDT_STAT_MAX ? mpdt_stat_names[s] : NULL;
}

enum mpdt_stat mpdt_stat_for_wire_err(enum mpdt_wire_err e)
{
	BUILD_BUG_ON(MPDT_STAT_DROP_BAD_PORT - MPDT_STAT_DROP_SHORT !=
		     MPDT_WIRE_BAD_PORT - MPDT_WIRE_SHORT);
	return MPDT_STAT_DROP_SHORT + (e - MPDT_WIRE_SHORT);
}
