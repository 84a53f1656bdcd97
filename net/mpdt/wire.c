// SPDX-License-Identifier: GPL-2.0
/*
 * MPDT wire format v1: encode, decode, validate.  Pure core.
 *
 * Decoding trusts nothing: every length, type, flag and offset is checked
 * here before any other code looks at the packet.  State-dependent checks
 * (PSN within the receive window, nonce) belong to sack.c and scoreboard.c.
 */
#include "wire.h"

static u16 get16(const u8 *p)
{
	return (u16)p[0] << 8 | p[1];
}

static u32 get32(const u8 *p)
{
	return (u32)get16(p) << 16 | get16(p + 2);
}

static u64 get64(const u8 *p)
{
	return (u64)get32(p) << 32 | get32(p + 4);
}

static void put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(u8 *p, u32 v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(u8 *p, u64 v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

u32 mpdt_wire_hlen(u8 type)
{
	switch (type) {
	case MPDT_T_DATA:
		return MPDT_DATA_HLEN;
	case MPDT_T_SACK:
		return MPDT_SACK_LEN;
	case MPDT_T_NACK:
		return MPDT_NACK_LEN;
	case MPDT_T_PROBE:
		return MPDT_PROBE_LEN;
	}
	return 0;
}

u32 mpdt_wire_len(const struct mpdt_common *hdr)
{
	u32 hlen = mpdt_wire_hlen(hdr->type);

	if (hdr->type == MPDT_T_PROBE && (hdr->flags & MPDT_F_COOKIE))
		hlen += MPDT_COOKIE_LEN;
	return hlen;
}

static u16 allowed_flags(u8 type)
{
	switch (type) {
	case MPDT_T_DATA:
		return MPDT_F_AR | MPDT_F_RETX | MPDT_F_TRIMMED | MPDT_F_FLOWLET;
	case MPDT_T_SACK:
		return MPDT_F_CE | MPDT_F_PROBE_ACK;
	case MPDT_T_NACK:
		return MPDT_F_CE;
	case MPDT_T_PROBE:
		return MPDT_F_COOKIE;
	}
	return 0;
}

static void decode_common(const u8 *b, struct mpdt_common *c)
{
	c->version = b[0];
	c->type = b[1];
	c->flags = get16(b + 2);
	c->src_port = get16(b + 4);
	c->dst_port = get16(b + 6);
	c->nonce = get32(b + 8);
	c->ev = get16(b + 12);
	/* b[14..15] reserved: zero on send, ignored on receive */
}

static enum mpdt_wire_err decode_data(const u8 *b, u32 len,
				      struct mpdt_pkt *pkt)
{
	struct mpdt_data *d = &pkt->data;
	bool trimmed = pkt->hdr.flags & MPDT_F_TRIMMED;
	u32 avail = len - MPDT_DATA_HLEN;

	d->psn = get32(b);
	d->msg_id = get32(b + 4);
	d->offset = get32(b + 8);
	d->msg_len = get32(b + 12);
	d->ts = get64(b + 16);
	d->payload_len = get16(b + 24);
	d->prev_psn = get32(b + 28);

	/* A trimmed packet keeps its header and loses (part of) its payload. */
	if (trimmed ? avail > d->payload_len : avail != d->payload_len)
		return MPDT_WIRE_BAD_LENGTH;
	if (d->msg_len > MPDT_WIRE_MSG_MAX)
		return MPDT_WIRE_BAD_LENGTH;
	/* Only an empty message has an empty packet. */
	if (!d->payload_len && d->msg_len)
		return MPDT_WIRE_BAD_LENGTH;
	if (d->offset > d->msg_len || d->payload_len > d->msg_len - d->offset)
		return MPDT_WIRE_BAD_OFFSET;
	pkt->payload_off = MPDT_DATA_HLEN;
	pkt->payload_avail = avail;
	return MPDT_WIRE_OK;
}

/* Room on the wire: 0 unsaid, else 1 + whole KiB, saturating. */
static u16 room_to_wire(const struct mpdt_sack *s)
{
	return s->room_said ? min(s->room >> 10, 0xfffeU) + 1 : 0;
}

static void room_from_wire(u16 v, struct mpdt_sack *s)
{
	s->room_said = v;
	s->room = v ? (u32)(v - 1) << 10 : 0;
}

static void decode_sack(const u8 *b, struct mpdt_sack *s)
{
	s->epsn = get32(b);
	s->sack_base = get32(b + 4);
	s->bitmap = get64(b + 8);
	s->recv_bytes = get64(b + 16);
	s->echo_ts = get64(b + 24);
	s->ooo_count = get32(b + 32);
	s->ce_count = get16(b + 36);
	room_from_wire(get16(b + 38), s);
}

static void decode_nack(const u8 *b, struct mpdt_nack *n)
{
	n->psn = get32(b);
	n->code = b[4];
	n->epsn = get32(b + 8);
	n->echo_ts = get64(b + 12);
}

static void decode_probe(const u8 *b, bool cookie, struct mpdt_probe *p)
{
	p->sack_base = get32(b);
	p->ts = get64(b + 8);
	p->cookie = cookie ? get64(b + 16) : 0;
}

enum mpdt_wire_err mpdt_wire_decode(const u8 *buf, u32 len,
				    struct mpdt_pkt *pkt)
{
	const u8 *body = buf + MPDT_COMMON_LEN;
	u32 hlen;

	if (len < MPDT_COMMON_LEN)
		return MPDT_WIRE_SHORT;
	decode_common(buf, &pkt->hdr);
	if (pkt->hdr.version != MPDT_VERSION)
		return MPDT_WIRE_BAD_VERSION;
	if (!mpdt_wire_hlen(pkt->hdr.type))
		return MPDT_WIRE_BAD_TYPE;
	hlen = mpdt_wire_len(&pkt->hdr);
	if (len < hlen)
		return MPDT_WIRE_SHORT;
	if (pkt->hdr.flags & ~allowed_flags(pkt->hdr.type))
		return MPDT_WIRE_BAD_FLAGS;
	if (!pkt->hdr.src_port || !pkt->hdr.dst_port)
		return MPDT_WIRE_BAD_PORT;
	pkt->payload_off = 0;
	pkt->payload_avail = 0;

	switch (pkt->hdr.type) {
	case MPDT_T_DATA:
		return decode_data(body, len, pkt);
	case MPDT_T_SACK:
		decode_sack(body, &pkt->sack);
		break;
	case MPDT_T_NACK:
		decode_nack(body, &pkt->nack);
		if (pkt->nack.code < MPDT_NACK_NO_BUFFER ||
		    pkt->nack.code > MPDT_NACK_CHALLENGE)
			return MPDT_WIRE_BAD_TYPE;
		break;
	case MPDT_T_PROBE:
		decode_probe(body, pkt->hdr.flags & MPDT_F_COOKIE,
			     &pkt->probe);
		break;
	}
	/* Control packets have a fixed size: trailing bytes are malformed. */
	return len == hlen ? MPDT_WIRE_OK : MPDT_WIRE_BAD_LENGTH;
}

static void encode_common(const struct mpdt_common *c, u8 *b)
{
	b[0] = MPDT_VERSION;
	b[1] = c->type;
	put16(b + 2, c->flags);
	put16(b + 4, c->src_port);
	put16(b + 6, c->dst_port);
	put32(b + 8, c->nonce);
	put16(b + 12, c->ev);
	put16(b + 14, 0);
}

static void encode_data(const struct mpdt_data *d, u8 *b)
{
	put32(b, d->psn);
	put32(b + 4, d->msg_id);
	put32(b + 8, d->offset);
	put32(b + 12, d->msg_len);
	put64(b + 16, d->ts);
	put16(b + 24, d->payload_len);
	put16(b + 26, 0);
	put32(b + 28, d->prev_psn);
}

static void encode_sack(const struct mpdt_sack *s, u8 *b)
{
	put32(b, s->epsn);
	put32(b + 4, s->sack_base);
	put64(b + 8, s->bitmap);
	put64(b + 16, s->recv_bytes);
	put64(b + 24, s->echo_ts);
	put32(b + 32, s->ooo_count);
	put16(b + 36, s->ce_count);
	put16(b + 38, room_to_wire(s));
}

static void encode_nack(const struct mpdt_nack *n, u8 *b)
{
	put32(b, n->psn);
	b[4] = n->code;
	b[5] = 0;
	put16(b + 6, 0);
	put32(b + 8, n->epsn);
	put64(b + 12, n->echo_ts);
}

static void encode_probe(const struct mpdt_probe *p, bool cookie, u8 *b)
{
	put32(b, p->sack_base);
	put32(b + 4, 0);
	put64(b + 8, p->ts);
	if (cookie)
		put64(b + 16, p->cookie);
}

u32 mpdt_wire_encode(const struct mpdt_pkt *pkt, u8 *buf)
{
	u8 *body = buf + MPDT_COMMON_LEN;

	encode_common(&pkt->hdr, buf);
	switch (pkt->hdr.type) {
	case MPDT_T_DATA:
		encode_data(&pkt->data, body);
		break;
	case MPDT_T_SACK:
		encode_sack(&pkt->sack, body);
		break;
	case MPDT_T_NACK:
		encode_nack(&pkt->nack, body);
		break;
	case MPDT_T_PROBE:
		encode_probe(&pkt->probe, pkt->hdr.flags & MPDT_F_COOKIE, body);
		break;
	}
	return mpdt_wire_len(&pkt->hdr);
}
