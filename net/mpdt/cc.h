/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control: how many bytes may be in flight.  Like
 * tcp_congestion_ops, each algorithm is a pure core file implementing
 * struct mpdt_cc_ops over its private state; the transport only reads
 * cc->cwnd and compares it with STrack's inflight (§3.3.2 eq. 1-2).
 */
#ifndef _MPDT_CC_H
#define _MPDT_CC_H

#include "core.h"
#include "params.h"

struct mpdt_cc {
	const struct mpdt_cc_ops *ops;
	void *priv;		/* ops->priv_size bytes, zeroed */
	u32 cwnd;		/* bytes */
	u32 mss;		/* payload bytes per packet */
};

/* What one SACK told the sender. */
struct mpdt_cc_ack {
	u64 now;
	u64 rtt_ns;		/* from the echoed timestamp; 0 if none */
	u64 acked_bytes;	/* growth of the receiver's recv_bytes */
	u64 inflight;
	u16 ce_count;		/* CE marks since the previous SACK */
	bool ce;		/* the triggering packet was CE marked */
};

struct mpdt_cc_ops {
	const char *name;
	u32 priv_size;
	void (*init)(struct mpdt_cc *cc, const struct mpdt_params *p);
	/* The signal hooks below are optional. */
	void (*on_ack)(struct mpdt_cc *cc, const struct mpdt_cc_ack *a);
	void (*on_nack)(struct mpdt_cc *cc, u8 code, u64 now);
	void (*on_timeout)(struct mpdt_cc *cc, u64 now);
	void (*on_message_done)(struct mpdt_cc *cc, u64 msg_bytes,
				u64 delay_ns, u64 now);
};

extern const struct mpdt_cc_ops mpdt_cc_fixed;

#endif /* _MPDT_CC_H */
