/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MPDT wire format, version 1 (Documentation/wire-format.rst).
 *
 * Every MPDT packet is one UDP payload: a 16-byte common header followed
 * by a fixed per-type header and, for DATA, the payload.  All fields are
 * big endian.  These functions convert between the wire and host-order
 * structs and validate everything that can be checked without state.
 */
#ifndef _MPDT_WIRE_H
#define _MPDT_WIRE_H

#include "core.h"
#include <linux/mpdt.h>

#define MPDT_VERSION		1

enum mpdt_type {
	MPDT_T_DATA = 1,
	MPDT_T_SACK = 2,
	MPDT_T_NACK = 3,
	MPDT_T_PROBE = 4,
};

/* Flags in the common header; each type allows a subset. */
#define MPDT_F_AR		0x0001	/* DATA: ask for an immediate SACK */
#define MPDT_F_RETX		0x0002	/* DATA: this is a retransmission */
#define MPDT_F_TRIMMED		0x0004	/* DATA: a switch cut the payload */
#define MPDT_F_CE		0x0008	/* SACK/NACK: trigger was CE marked */
#define MPDT_F_PROBE_ACK	0x0010	/* SACK: answers a PROBE */
#define MPDT_F_FLOWLET		0x0020	/* DATA: in order after prev_psn */
#define MPDT_F_COOKIE		0x0040	/* PROBE: returns a challenge's cookie */

enum mpdt_nack_code {
	MPDT_NACK_NO_BUFFER = 1,	/* receiver out of memory for it */
	MPDT_NACK_TRIMMED = 2,		/* payload trimmed in the fabric */
	MPDT_NACK_FLOWLET_GAP = 3,	/* its flowlet successor came first */
	MPDT_NACK_CHALLENGE = 4,	/* new nonce refused: prove it */
};

#define MPDT_COMMON_LEN		16
#define MPDT_DATA_HLEN		(MPDT_COMMON_LEN + 32)
#define MPDT_SACK_LEN		(MPDT_COMMON_LEN + 40)
#define MPDT_NACK_LEN		(MPDT_COMMON_LEN + 20)
#define MPDT_PROBE_LEN		(MPDT_COMMON_LEN + 16)
#define MPDT_COOKIE_LEN		8	/* after a PROBE with MPDT_F_COOKIE */
#define MPDT_MAX_HLEN		MPDT_SACK_LEN

/* Largest message a v1 DATA header may describe (uapi MPDT_MSG_MAX). */
#define MPDT_WIRE_MSG_MAX	(16U << 20)

struct mpdt_common {
	u8 version;
	u8 type;
	u16 flags;
	u16 src_port;		/* MPDT ports, not UDP ports */
	u16 dst_port;
	u32 nonce;		/* data sender's incarnation; echoed back */
	u16 ev;			/* entropy used (DATA, PROBE) or echoed */
};

struct mpdt_data {
	u32 psn;
	u32 msg_id;
	u32 offset;		/* of this payload within the message */
	u32 msg_len;
	u64 ts;			/* sender clock, ns, echoed in SACK/NACK */
	u16 payload_len;	/* as sent, even when trimmed */
	/* The PSN sent before this one on the same in-order stream: the
	 * previous packet of the connection, or of the flowlet when
	 * MPDT_F_FLOWLET is set; equal to psn for a retransmission.
	 */
	u32 prev_psn;
};

struct mpdt_sack {
	u32 epsn;		/* every PSN before it was received */
	u32 sack_base;		/* first PSN described by bitmap bit 0 */
	u64 bitmap;
	u64 recv_bytes;		/* payload received, duplicates excluded */
	u64 echo_ts;
	u32 ooo_count;		/* packets held beyond EPSN */
	u16 ce_count;		/* CE marks seen since the previous SACK */
	/* With @room_said, bytes of new message the receiver had room for,
	 * in whole KiB up to MPDT_ROOM_MAX (wire-format.rst 4.2).
	 */
	bool room_said;
	u32 room;
};

/* The most a SACK's Room says: more than any message needs. */
#define MPDT_ROOM_MAX		(0xfffeU << 10)

struct mpdt_nack {
	u32 psn;
	u8 code;		/* enum mpdt_nack_code */
	u32 epsn;
	union {
		u64 echo_ts;
		u64 cookie;	/* MPDT_NACK_CHALLENGE (wire-format.rst 5.1) */
	};
};

struct mpdt_probe {
	u32 sack_base;		/* bitmap segment the SACK must carry */
	u64 ts;
	u64 cookie;		/* with MPDT_F_COOKIE */
};

struct mpdt_pkt {
	struct mpdt_common hdr;
	union {
		struct mpdt_data data;
		struct mpdt_sack sack;
		struct mpdt_nack nack;
		struct mpdt_probe probe;
	};
	u32 payload_off;	/* DATA: payload offset in the UDP payload */
	u32 payload_avail;	/* DATA: payload bytes present */
};

/* Why a packet was rejected; the glue counts each as a drop reason. */
enum mpdt_wire_err {
	MPDT_WIRE_OK = 0,
	MPDT_WIRE_SHORT,
	MPDT_WIRE_BAD_VERSION,
	MPDT_WIRE_BAD_TYPE,
	MPDT_WIRE_BAD_FLAGS,
	MPDT_WIRE_BAD_LENGTH,
	MPDT_WIRE_BAD_OFFSET,
	MPDT_WIRE_BAD_PORT,
	__MPDT_WIRE_ERR_MAX
};

/* A receiver's feedback to the sender (SACK, NACK): what a port may
 * forward ahead of data (SMaRTT-REPS §3).  Not a PROBE: its answer
 * declares lost what was sent before it and is not yet SACKed (STrack
 * §3.3.2), so it must queue behind that data.
 */
static inline bool mpdt_pkt_is_feedback(const struct mpdt_pkt *pkt)
{
	return pkt->hdr.type == MPDT_T_SACK || pkt->hdr.type == MPDT_T_NACK;
}

/* The counter of a packet sent with @type (output.c; tools/sim counts alike). */
static inline enum mpdt_stat mpdt_stat_for_tx(u8 type)
{
	switch (type) {
	case MPDT_T_DATA:
		return MPDT_STAT_TX_DATA;
	case MPDT_T_SACK:
		return MPDT_STAT_TX_SACK;
	case MPDT_T_NACK:
		return MPDT_STAT_TX_NACK;
	default:
		return MPDT_STAT_TX_PROBE;
	}
}

enum mpdt_wire_err mpdt_wire_decode(const u8 *buf, u32 len,
				    struct mpdt_pkt *pkt);
/* Return the header length written: buf needs MPDT_MAX_HLEN bytes. */
u32 mpdt_wire_encode(const struct mpdt_pkt *pkt, u8 *buf);
/* The fixed header of @type, without a PROBE's cookie; 0 if unknown. */
u32 mpdt_wire_hlen(u8 type);
/* The header @hdr describes: a PROBE with MPDT_F_COOKIE is longer. */
u32 mpdt_wire_len(const struct mpdt_common *hdr);

#endif /* _MPDT_WIRE_H */
