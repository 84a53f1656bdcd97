// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the wire decoder and encoder (net/mpdt/wire.c).
 *
 * Arbitrary bytes are decoded twice, as given and as input.c hands them
 * over (at most MPDT_MAX_HLEN bytes copied, the UDP payload length
 * passed), and both verdicts must equal the one of an independent model
 * of Documentation/wire-format.rst section 6.1 (the checks in their
 * order).  A packet that decodes is encoded again: the header must come
 * back byte for byte (reserved fields as zero) and decode to the same
 * struct.  Independently, a struct read from the input is encoded and
 * decoded: when the model accepts it, the round trip is exact.
 */
#include "fuzz.h"

/* The reserved bytes of each header: sent as 0, ignored on receive.  (A
 * SACK's last two, Room, were until wire-format.rst 4.2 defined them.)
 */
static bool wire_reserved(u8 type, u32 i)
{
	if (i == 14 || i == 15)
		return true;
	switch (type) {
	case MPDT_T_DATA:
		return i == 42 || i == 43;
	case MPDT_T_NACK:
		return i >= 21 && i <= 23;
	case MPDT_T_PROBE:
		return i >= 20 && i <= 23;
	}
	return false;
}

static u32 be16(const u8 *p)
{
	return (u32)p[0] << 8 | p[1];
}

static u32 be32(const u8 *p)
{
	return be16(p) << 16 | be16(p + 2);
}

/* wire-format.rst 6.1, checks 2-13, first failure wins. */
static enum mpdt_wire_err model_verdict(const u8 *b, u32 len)
{
	static const u32 hlen[] = { 0, 48, 56, 36, 32 };
	static const u16 allowed[] = { 0, 0x0027, 0x0018, 0x0008, 0x0040 };
	u32 type, flags, avail, plen, msg_len, off, want;

	if (len < 16)
		return MPDT_WIRE_SHORT;
	if (b[0] != 1)
		return MPDT_WIRE_BAD_VERSION;
	type = b[1];
	if (type < 1 || type > 4)
		return MPDT_WIRE_BAD_TYPE;
	flags = be16(b + 2);
	/* A PROBE with COOKIE carries 8 bytes more (4.4), other flags or not. */
	want = hlen[type] + (type == MPDT_T_PROBE && (flags & 0x0040) ? 8 : 0);
	if (len < want)
		return MPDT_WIRE_SHORT;
	if (flags & ~allowed[type])
		return MPDT_WIRE_BAD_FLAGS;
	if (!be16(b + 4) || !be16(b + 6))
		return MPDT_WIRE_BAD_PORT;
	if (type == MPDT_T_DATA) {
		avail = len - 48;
		off = be32(b + 24);
		msg_len = be32(b + 28);
		plen = be16(b + 40);
		if (flags & MPDT_F_TRIMMED ? avail > plen : avail != plen)
			return MPDT_WIRE_BAD_LENGTH;
		if (msg_len > 16777216)
			return MPDT_WIRE_BAD_LENGTH;
		if (!plen && msg_len)
			return MPDT_WIRE_BAD_LENGTH;
		if (off > msg_len || plen > msg_len - off)
			return MPDT_WIRE_BAD_OFFSET;
		return MPDT_WIRE_OK;
	}
	if (type == MPDT_T_NACK && (b[20] < 1 || b[20] > 4))
		return MPDT_WIRE_BAD_TYPE;
	return len > want ? MPDT_WIRE_BAD_LENGTH : MPDT_WIRE_OK;
}

static enum mpdt_wire_err decode(const u8 *buf, u32 len, struct mpdt_pkt *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	return mpdt_wire_decode(buf, len, pkt);
}

/* As input.c does: copy what fits a header, pass the real length.  The
 * copy is exactly that long, so ASan sees any read past it.
 */
static enum mpdt_wire_err decode_as_glue(const u8 *data, u32 len,
					 struct mpdt_pkt *pkt)
{
	u32 n = min_t(u32, len, MPDT_MAX_HLEN);
	u8 *copy = malloc(n ? n : 1);
	enum mpdt_wire_err err;

	memcpy(copy, data, n);
	err = decode(copy, len, pkt);
	free(copy);
	return err;
}

/* Re-encode a packet that decoded from @data and compare. */
static void check_reencode(const u8 *data, u32 len, const struct mpdt_pkt *pkt)
{
	u8 buf[MPDT_MAX_HLEN + 16];
	struct mpdt_pkt again;
	u32 hlen, i;

	memset(buf, 0xa5, sizeof(buf));
	hlen = mpdt_wire_encode(pkt, buf);
	FZ_ASSERT(hlen == mpdt_wire_len(&pkt->hdr) && hlen <= len,
		  "hlen %u len %u", hlen, len);
	for (i = 0; i < hlen; i++) {
		u8 want = wire_reserved(pkt->hdr.type, i) ? 0 : data[i];

		FZ_ASSERT(buf[i] == want, "byte %u: %#x, sent %#x", i, buf[i],
			  want);
	}
	for (i = hlen; i < sizeof(buf); i++)
		FZ_ASSERT(buf[i] == 0xa5, "encode wrote byte %u", i);
	/* The payload is not the encoder's: the UDP length carries it. */
	FZ_ASSERT(decode(buf, len, &again) == MPDT_WIRE_OK, "re-decode");
	FZ_ASSERT(!memcmp(&again, pkt, sizeof(again)), "re-decoded differs");
	if (pkt->hdr.type == MPDT_T_DATA)
		FZ_ASSERT(pkt->payload_off == MPDT_DATA_HLEN &&
			  pkt->payload_avail == len - MPDT_DATA_HLEN,
			  "payload %u+%u of %u", pkt->payload_off,
			  pkt->payload_avail, len);
	else
		FZ_ASSERT(!pkt->payload_off && !pkt->payload_avail,
			  "control payload %u+%u", pkt->payload_off,
			  pkt->payload_avail);
}

static void fuzz_decode(const u8 *data, u32 len)
{
	enum mpdt_wire_err err, glue_err, want = model_verdict(data, len);
	struct mpdt_pkt pkt, glue_pkt;

	err = decode(data, len, &pkt);
	FZ_ASSERT(err == want, "decode %d, model %d", err, want);
	glue_err = decode_as_glue(data, len, &glue_pkt);
	FZ_ASSERT(glue_err == err, "glue-style decode %d, %d", glue_err, err);
	if (err != MPDT_WIRE_OK)
		return;
	FZ_ASSERT(!memcmp(&glue_pkt, &pkt, sizeof(pkt)), "glue-style differs");
	check_reencode(data, len, &pkt);
}

/* A struct from the fuzzer, encoded: decodes back iff the model says. */
static void fuzz_encode(struct fz_in *in)
{
	u8 buf[MPDT_MAX_HLEN + 16];
	enum mpdt_wire_err err, want;
	struct mpdt_pkt pkt, back;
	u32 len, extra;

	memset(&pkt, 0, sizeof(pkt));
	pkt.hdr.version = MPDT_VERSION;
	pkt.hdr.type = 1 + fz_u8(in) % 4;
	pkt.hdr.flags = fz_u16(in);
	pkt.hdr.src_port = fz_u16(in);
	pkt.hdr.dst_port = fz_u16(in);
	pkt.hdr.nonce = fz_u32(in);
	pkt.hdr.ev = fz_u16(in);
	switch (pkt.hdr.type) {
	case MPDT_T_DATA:
		pkt.data.psn = fz_u32(in);
		pkt.data.msg_id = fz_u32(in);
		pkt.data.offset = fz_u32(in);
		pkt.data.msg_len = fz_u32(in);
		pkt.data.ts = fz_u64(in);
		pkt.data.payload_len = fz_u16(in);
		pkt.data.prev_psn = fz_u32(in);
		break;
	case MPDT_T_SACK:
		pkt.sack.epsn = fz_u32(in);
		pkt.sack.sack_base = fz_u32(in);
		pkt.sack.bitmap = fz_u64(in);
		pkt.sack.recv_bytes = fz_u64(in);
		pkt.sack.echo_ts = fz_u64(in);
		pkt.sack.ooo_count = fz_u32(in);
		pkt.sack.ce_count = fz_u16(in);
		/* Said rooms are whole KiB up to the most a SACK says. */
		pkt.sack.room_said = fz_u8(in) & 1;
		if (pkt.sack.room_said)
			pkt.sack.room = min(fz_u32(in) & ~1023U, MPDT_ROOM_MAX);
		break;
	case MPDT_T_NACK:
		pkt.nack.psn = fz_u32(in);
		pkt.nack.code = fz_u8(in);
		pkt.nack.epsn = fz_u32(in);
		pkt.nack.echo_ts = fz_u64(in);
		break;
	case MPDT_T_PROBE:
		pkt.probe.sack_base = fz_u32(in);
		pkt.probe.ts = fz_u64(in);
		if (pkt.hdr.flags & MPDT_F_COOKIE)
			pkt.probe.cookie = fz_u64(in);
		break;
	}
	memset(buf, 0, sizeof(buf));
	len = mpdt_wire_encode(&pkt, buf);
	FZ_ASSERT(len == mpdt_wire_len(&pkt.hdr), "encode length %u", len);
	/* The UDP length: a DATA packet's payload follows (not its bytes),
	 * maybe trimmed; a few bytes more or less to probe the checks.
	 */
	extra = pkt.hdr.type == MPDT_T_DATA ? pkt.data.payload_len : 0;
	switch (fz_u8(in) & 3) {
	case 1:
		extra += fz_u8(in) % 4;
		break;
	case 2:
		extra -= min(extra, (u32)fz_u8(in));
		break;
	}
	len += extra;
	want = model_verdict(buf, len);
	err = decode_as_glue(buf, len, &back);
	FZ_ASSERT(err == want, "decode %d, model %d", err, want);
	if (err != MPDT_WIRE_OK)
		return;
	if (pkt.hdr.type == MPDT_T_DATA) {
		pkt.payload_off = MPDT_DATA_HLEN;
		pkt.payload_avail = len - MPDT_DATA_HLEN;
	}
	FZ_ASSERT(!memcmp(&back, &pkt, sizeof(pkt)), "round trip differs");
}

int FUZZ_ENTRY(const u8 *data, size_t size)
{
	struct fz_in in = { data + 1, size ? size - 1 : 0 };
	u32 t;

	if (size > 0xffff)
		return 0;
	for (t = 0; t < 256; t++)
		FZ_ASSERT(!mpdt_wire_hlen(t) == (t < 1 || t > 4),
			  "hlen of type %u", t);
	if (size && data[0] == 0xfe)
		fuzz_encode(&in);
	else
		fuzz_decode(data, size);
	return 0;
}
