/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receiver side of STrack reliability (§3.3.1): the PSN bitmap that starts
 * at EPSN, the out-of-order counter, and the coalesced SACK.  Pure core.
 */
#ifndef _MPDT_SACK_H
#define _MPDT_SACK_H

#include "core.h"
#include "wire.h"

#define MPDT_SACK_BITS		64

struct mpdt_rx {
	u64 *bits;		/* ring: bit (psn % window) = received */
	u32 window;		/* PSNs tracked past EPSN; pow2, >= 64 */
	u32 epsn;		/* expected PSN: all before it arrived */
	u32 ooo_count;		/* PSNs received after EPSN */
	u64 recv_bytes;		/* payload bytes, duplicates excluded */
	/* Since the previous SACK: */
	bool lpsn_valid;
	u32 lpsn;		/* lowest PSN received (§3.3.1 LPSN) */
	u32 bytes_since_sack;
	u16 ce_since_sack;
};

enum mpdt_rx_verdict {
	MPDT_RX_NEW,
	MPDT_RX_DUPLICATE,
	MPDT_RX_OUT_OF_WINDOW,
};

/* SACK triggers, each one configurable (§3.3.1 and the CE fast path). */
struct mpdt_ack_policy {
	u32 coalesce_bytes;	/* (1) enough bytes received */
	bool on_epsn;		/* (2) the EPSN packet closed a gap */
	bool on_ce;		/* CE mark: tell the sender at once */
};

/* What one arriving DATA packet was, for the trigger decision. */
struct mpdt_rx_arrival {
	enum mpdt_rx_verdict verdict;
	bool filled_hole;	/* EPSN arrived while later PSNs waited */
	bool ce;		/* outer IP header carried CE */
	bool ack_request;	/* sender set MPDT_F_AR */
	bool retransmission;	/* sender set MPDT_F_RETX */
};

void mpdt_rx_init(struct mpdt_rx *rx, u64 *bits, u32 window);
enum mpdt_rx_verdict mpdt_rx_check(const struct mpdt_rx *rx, u32 psn);
/* Record a NEW psn carrying @bytes; true if it was EPSN and closed a gap. */
bool mpdt_rx_mark(struct mpdt_rx *rx, u32 psn, u32 bytes, bool ce);
bool mpdt_rx_ack_due(const struct mpdt_rx *rx,
		     const struct mpdt_ack_policy *pol,
		     const struct mpdt_rx_arrival *a);
/* Fill @s for a SACK and start a new coalescing period.  @probe_base is
 * the segment a PROBE asked for, or NULL to pick the one holding LPSN.
 */
void mpdt_rx_build_sack(struct mpdt_rx *rx, const u32 *probe_base,
			struct mpdt_sack *s);

#endif /* _MPDT_SACK_H */
