// SPDX-License-Identifier: GPL-2.0
/*
 * The one place that names attributes and values of the "mpdt" family.
 * Parameter names are the kernel's, from its table (net/mpdt/params_table.h,
 * which needs nothing but <linux/mpdt.h>); counter names are the kernel's
 * (net/mpdt/stats.c, /proc/net/mpdt_stats); connection keys follow the
 * counters' style.
 */
#include "names.h"

/* lb and cc, then the u32 tunables of the kernel's table. */
const char *const param_names[MPDT_PARAM_MAX + 1] = {
	[MPDT_PARAM_LB]			= "lb",
	[MPDT_PARAM_CC]			= "cc",
#define MPDT_PARAM(field, attr, name, def, min, max, desc)	\
	[MPDT_PARAM_##attr]		= name,
#include "../../net/mpdt/params_table.h"
#undef MPDT_PARAM
};

const char *const stat_names[MPDT_STAT_MAX + 1] = {
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

/* Both peer address attributes are shown as "peer". */
static const char *const conn_attr_names[MPDT_CONN_A_MAX + 1] = {
	[MPDT_CONN_A_FAMILY]		= "family",
	[MPDT_CONN_A_PEER_V4]		= "peer",
	[MPDT_CONN_A_PEER_V6]		= "peer",
	[MPDT_CONN_A_PEER_PORT]		= "peer_port",
	[MPDT_CONN_A_LOCAL_PORT]	= "local_port",
	[MPDT_CONN_A_STATE]		= "state",
	[MPDT_CONN_A_CWND]		= "cwnd",
	[MPDT_CONN_A_SRTT_US]		= "srtt_us",
	[MPDT_CONN_A_MIN_RTT_US]	= "min_rtt_us",
	[MPDT_CONN_A_BASE_RTT_US]	= "base_rtt_us",
	[MPDT_CONN_A_BDP]		= "bdp",
	[MPDT_CONN_A_DELIVERY_RATE]	= "delivery_rate",
	[MPDT_CONN_A_PEER_ROOM]		= "peer_room",
	[MPDT_CONN_A_INFLIGHT]		= "inflight",
	[MPDT_CONN_A_SND_UNA]		= "snd_una",
	[MPDT_CONN_A_SND_NXT]		= "snd_nxt",
	[MPDT_CONN_A_RCV_EPSN]		= "rcv_epsn",
	[MPDT_CONN_A_MSGS_INFLIGHT]	= "msgs_inflight",
	[MPDT_CONN_A_LB]		= "lb",
	[MPDT_CONN_A_CC]		= "cc",
	[MPDT_CONN_A_RETX_OOO]		= "retx_ooo",
	[MPDT_CONN_A_RETX_PROBE]	= "retx_probe",
	[MPDT_CONN_A_RETX_RTO]		= "retx_rto",
	[MPDT_CONN_A_RETX_NACK]		= "retx_nack",
	[MPDT_CONN_A_MSGS_SENT]		= "msgs_sent",
	[MPDT_CONN_A_MSGS_ACKED]	= "msgs_acked",
	[MPDT_CONN_A_MSGS_RCVD]		= "msgs_rcvd",
	[MPDT_CONN_A_BYTES_SENT]	= "bytes_sent",
	[MPDT_CONN_A_BYTES_ACKED]	= "bytes_acked",
	[MPDT_CONN_A_SOCK_INODE]	= "inode",
	[MPDT_CONN_A_UID]		= "uid",
	[MPDT_CONN_A_PEER_IFINDEX]	= "peer_ifindex",
};

/* Both bound address attributes are shown as "addr". */
static const char *const sock_attr_names[MPDT_SOCK_A_MAX + 1] = {
	[MPDT_SOCK_A_FAMILY]		= "family",
	[MPDT_SOCK_A_LOCAL_PORT]	= "local_port",
	[MPDT_SOCK_A_ADDR_V4]		= "addr",
	[MPDT_SOCK_A_ADDR_V6]		= "addr",
	[MPDT_SOCK_A_STATE]		= "state",
	[MPDT_SOCK_A_INODE]		= "inode",
	[MPDT_SOCK_A_UID]		= "uid",
	[MPDT_SOCK_A_CGROUP]		= "cgroup",
	[MPDT_SOCK_A_CONNS]		= "conns",
	[MPDT_SOCK_A_RMEM]		= "rmem",
	[MPDT_SOCK_A_RCVBUF]		= "rcvbuf",
	[MPDT_SOCK_A_WMEM]		= "wmem",
	[MPDT_SOCK_A_SNDBUF]		= "sndbuf",
	[MPDT_SOCK_A_ADDR_IFINDEX]	= "addr_ifindex",
};

static const char *const sock_state_names[MPDT_SOCK_TIME_WAIT + 1] = {
	[MPDT_SOCK_OPEN]	= "open",
	[MPDT_SOCK_DRAINING]	= "draining",
	[MPDT_SOCK_TIME_WAIT]	= "time-wait",
};

static const char *const conn_state_names[MPDT_CONN_FAILED + 1] = {
	[MPDT_CONN_ACTIVE]	= "active",
	[MPDT_CONN_FAILED]	= "failed",
};

static const char *const algo_kind_names[MPDT_ALGO_CC + 1] = {
	[MPDT_ALGO_LB]	= "lb",
	[MPDT_ALGO_CC]	= "cc",
};

static const char *const event_names[MPDT_CMD_MAX + 1] = {
	[MPDT_CMD_CONN_CREATED]	= "created",
	[MPDT_CMD_CONN_CLOSED]	= "closed",
	[MPDT_CMD_CONN_FAILED]	= "failed",
};

const uint16_t sock_num_attrs[] = {
	MPDT_SOCK_A_INODE, MPDT_SOCK_A_UID, MPDT_SOCK_A_CGROUP,
	MPDT_SOCK_A_CONNS, MPDT_SOCK_A_RMEM, MPDT_SOCK_A_RCVBUF,
	MPDT_SOCK_A_WMEM, MPDT_SOCK_A_SNDBUF,
};

const size_t sock_num_attr_count = ARRAY_SIZE(sock_num_attrs);

const uint16_t conn_owner_attrs[] = {
	MPDT_CONN_A_SOCK_INODE, MPDT_CONN_A_UID,
};

const size_t conn_owner_attr_count = ARRAY_SIZE(conn_owner_attrs);

const uint16_t conn_state_attrs[] = {
	MPDT_CONN_A_CWND, MPDT_CONN_A_SRTT_US, MPDT_CONN_A_MIN_RTT_US,
	MPDT_CONN_A_INFLIGHT, MPDT_CONN_A_SND_UNA, MPDT_CONN_A_SND_NXT,
	MPDT_CONN_A_RCV_EPSN, MPDT_CONN_A_MSGS_INFLIGHT, MPDT_CONN_A_BASE_RTT_US,
	MPDT_CONN_A_BDP, MPDT_CONN_A_DELIVERY_RATE, MPDT_CONN_A_PEER_ROOM,
};

const size_t conn_state_attr_count = ARRAY_SIZE(conn_state_attrs);

const uint16_t conn_counter_attrs[] = {
	MPDT_CONN_A_RETX_OOO, MPDT_CONN_A_RETX_PROBE, MPDT_CONN_A_RETX_RTO,
	MPDT_CONN_A_RETX_NACK, MPDT_CONN_A_MSGS_SENT, MPDT_CONN_A_MSGS_ACKED,
	MPDT_CONN_A_MSGS_RCVD, MPDT_CONN_A_BYTES_SENT, MPDT_CONN_A_BYTES_ACKED,
};

const size_t conn_counter_attr_count = ARRAY_SIZE(conn_counter_attrs);

static const char *name_of(const char *const *table, size_t size,
			   unsigned long long i)
{
	return i < size ? table[i] : NULL;
}

bool param_is_string(uint16_t attr)
{
	return attr == MPDT_PARAM_LB || attr == MPDT_PARAM_CC;
}

const char *conn_attr_name(uint16_t attr)
{
	return name_of(conn_attr_names, ARRAY_SIZE(conn_attr_names), attr);
}

const char *conn_state_name(unsigned long long state)
{
	return name_of(conn_state_names, ARRAY_SIZE(conn_state_names), state);
}

const char *sock_attr_name(uint16_t attr)
{
	return name_of(sock_attr_names, ARRAY_SIZE(sock_attr_names), attr);
}

const char *sock_state_name(unsigned long long state)
{
	return name_of(sock_state_names, ARRAY_SIZE(sock_state_names), state);
}

const char *algo_kind_name(unsigned long long kind)
{
	return name_of(algo_kind_names, ARRAY_SIZE(algo_kind_names), kind);
}

const char *event_name(uint8_t cmd)
{
	return name_of(event_names, ARRAY_SIZE(event_names), cmd);
}

/* What an error report names when the kernel points at an attribute
 * nested in @nest (enum mpdt_attr).
 */
const char *nested_attr_name(uint16_t nest, uint16_t type)
{
	switch (nest) {
	case MPDT_A_PARAMS:
		return name_of(param_names, ARRAY_SIZE(param_names), type);
	case MPDT_A_CONN:
		return conn_attr_name(type);
	default:
		return NULL;
	}
}
