// SPDX-License-Identifier: GPL-2.0
/*
 * Wire format v1 (net/mpdt/wire.c, Documentation/wire-format.rst):
 * every type round trips, every malformed packet is rejected with the
 * right reason, and random buffers never crash the decoder.
 *
 * PSNs outside the receive window are a stateful check: see test_sack.c.
 */
#include "unit.h"
#include "kselftest_harness.h"

/* A few bytes past any header, for payloads in these tests. */
#define BUF_LEN		(MPDT_MAX_HLEN + 2048)

static const u8 all_types[] = {
	MPDT_T_DATA, MPDT_T_SACK, MPDT_T_NACK, MPDT_T_PROBE,
};

/* A valid packet of @type with all-zero flags and a 100-byte DATA body. */
static struct mpdt_pkt valid_pkt(u8 type, u32 *payload)
{
	struct mpdt_sack s = unit_sack(10, 10, 0x6, 3000, 2);

	*payload = 0;
	switch (type) {
	case MPDT_T_DATA:
		*payload = 100;
		return unit_data(5, 0, 100, 100, 0);
	case MPDT_T_SACK:
		return unit_sack_pkt(&s, 0);
	case MPDT_T_NACK:
		return unit_nack_pkt(5, MPDT_NACK_TRIMMED, 3);
	}
	return unit_probe_pkt(7);
}

static enum mpdt_wire_err decode_valid(u8 type, u16 flags, u16 sport,
				       u16 dport)
{
	struct mpdt_pkt pkt, out;
	u32 payload;

	pkt = valid_pkt(type, &payload);
	pkt.hdr.flags = flags;
	pkt.hdr.src_port = sport;
	pkt.hdr.dst_port = dport;
	return unit_roundtrip(&pkt, payload, &out);
}

/* Decode a DATA packet with @avail payload bytes actually present. */
static enum mpdt_wire_err decode_data(u32 offset, u32 msg_len,
				      u16 payload_len, u16 flags, u32 avail,
				      struct mpdt_pkt *out)
{
	struct mpdt_pkt pkt = unit_data(1, offset, msg_len, payload_len,
					flags);

	return unit_roundtrip(&pkt, avail, out);
}

TEST(header_lengths_match_the_spec)
{
	EXPECT_EQ(16U, MPDT_COMMON_LEN);
	EXPECT_EQ(48U, mpdt_wire_hlen(MPDT_T_DATA));
	EXPECT_EQ(56U, mpdt_wire_hlen(MPDT_T_SACK));
	EXPECT_EQ(36U, mpdt_wire_hlen(MPDT_T_NACK));
	EXPECT_EQ(32U, mpdt_wire_hlen(MPDT_T_PROBE));
	EXPECT_EQ(0U, mpdt_wire_hlen(0));
	EXPECT_EQ(0U, mpdt_wire_hlen(5));
	EXPECT_EQ(56U, MPDT_MAX_HLEN);
}

/* Pin the byte layout: big endian, fields where the spec puts them. */
TEST(data_header_bytes_are_big_endian_at_fixed_offsets)
{
	static const u8 want[MPDT_DATA_HLEN] = {
		/* common: version, type, flags, sport, dport */
		0x01, 0x01, 0x00, 0x03, 0x12, 0x34, 0xab, 0xcd,
		/* nonce, ev, reserved */
		0xde, 0xad, 0xbe, 0xef, 0x00, 0x11, 0x00, 0x00,
		/* psn, msg_id */
		0x89, 0xab, 0xcd, 0xef, 0x00, 0x00, 0x00, 0x2a,
		/* offset, msg_len */
		0x00, 0x00, 0x10, 0x00, 0x00, 0x10, 0x00, 0x00,
		/* ts */
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		/* payload_len, reserved, prev_psn */
		0x05, 0xdc, 0x00, 0x00, 0x89, 0xab, 0xcd, 0xee,
	};
	struct mpdt_pkt pkt = unit_data(0x89abcdef, 0x1000, 0x100000, 1500,
					MPDT_F_AR | MPDT_F_RETX);
	u8 buf[BUF_LEN];

	pkt.data.prev_psn = 0x89abcdee;

	ASSERT_EQ(MPDT_DATA_HLEN, mpdt_wire_encode(&pkt, buf));
	EXPECT_EQ(0, memcmp(want, buf, sizeof(want)));
}

TEST(sack_nack_probe_bytes_are_big_endian_at_fixed_offsets)
{
	static const u8 sack[MPDT_SACK_LEN - MPDT_COMMON_LEN] = {
		0x00, 0x00, 0x01, 0x00,	/* epsn */
		0x00, 0x00, 0x01, 0x40,	/* sack_base */
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, /* bitmap */
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, /* recv */
		0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, /* echo */
		0x00, 0x00, 0x00, 0x09,	/* ooo_count */
		0x00, 0x03, 0x01, 0x2d,	/* ce_count, room */
	};
	static const u8 nack[MPDT_NACK_LEN - MPDT_COMMON_LEN] = {
		0x00, 0x00, 0x00, 0x05,	/* psn */
		0x02, 0x00, 0x00, 0x00,	/* code, reserved */
		0x00, 0x00, 0x00, 0x03,	/* epsn */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* echo */
	};
	static const u8 probe[MPDT_PROBE_LEN - MPDT_COMMON_LEN] = {
		0xff, 0xff, 0xff, 0xfe,	/* sack_base */
		0x00, 0x00, 0x00, 0x00,	/* reserved */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* ts */
	};
	struct mpdt_sack s = unit_sack(0x100, 0x140, 0x8000000000000001ULL,
				       0x100000002ULL, 9);
	struct mpdt_pkt pkt;
	u8 buf[BUF_LEN];

	s.echo_ts = 0xa0a1a2a3a4a5a6a7ULL;
	s.ce_count = 3;
	s.room_said = true;
	s.room = 300 << 10;	/* 1 + 300 KiB = 0x012d */
	pkt = unit_sack_pkt(&s, MPDT_F_CE);
	ASSERT_EQ(MPDT_SACK_LEN, mpdt_wire_encode(&pkt, buf));
	EXPECT_EQ(MPDT_T_SACK, buf[1]);
	EXPECT_EQ(MPDT_F_CE, buf[3]);
	EXPECT_EQ(0, memcmp(sack, buf + MPDT_COMMON_LEN, sizeof(sack)));

	pkt = unit_nack_pkt(5, MPDT_NACK_TRIMMED, 3);
	ASSERT_EQ(MPDT_NACK_LEN, mpdt_wire_encode(&pkt, buf));
	EXPECT_EQ(0, memcmp(nack, buf + MPDT_COMMON_LEN, sizeof(nack)));

	pkt = unit_probe_pkt(0xfffffffe);
	ASSERT_EQ(MPDT_PROBE_LEN, mpdt_wire_encode(&pkt, buf));
	EXPECT_EQ(0, memcmp(probe, buf + MPDT_COMMON_LEN, sizeof(probe)));
}

/* Section 4.4: a PROBE with COOKIE carries the challenge's cookie in 8
 * more bytes, and has exactly those; section 4.3: a CHALLENGE carries it
 * where other NACKs echo a time.
 */
TEST(cookie_probe_and_challenge_carry_the_cookie)
{
	static const u8 probe[MPDT_PROBE_LEN + MPDT_COOKIE_LEN -
			      MPDT_COMMON_LEN] = {
		0x00, 0x00, 0x00, 0x07,	/* sack_base */
		0x00, 0x00, 0x00, 0x00,	/* reserved */
		0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, /* ts */
		0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, /* cookie */
	};
	struct mpdt_pkt pkt = unit_probe_pkt(7), out;
	u8 buf[BUF_LEN];
	u32 len;

	pkt.hdr.flags = MPDT_F_COOKIE;
	pkt.probe.cookie = 0xc0c1c2c3c4c5c6c7ULL;
	EXPECT_EQ(40U, mpdt_wire_len(&pkt.hdr));
	len = mpdt_wire_encode(&pkt, buf);
	ASSERT_EQ(40U, len);
	EXPECT_EQ(MPDT_F_COOKIE, buf[3]);
	EXPECT_EQ(0, memcmp(probe, buf + MPDT_COMMON_LEN, sizeof(probe)));
	ASSERT_EQ(MPDT_WIRE_OK, unit_decode(buf, len, &out));
	EXPECT_EQ(pkt.probe.cookie, out.probe.cookie);
	EXPECT_EQ(pkt.probe.ts, out.probe.ts);
	EXPECT_EQ(7U, out.probe.sack_base);
	EXPECT_EQ(MPDT_WIRE_SHORT, unit_decode(buf, MPDT_PROBE_LEN, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH, unit_decode(buf, len + 1, &out));
	/* Without the flag, the cookie's bytes are trailing ones. */
	buf[3] = 0;
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH, unit_decode(buf, len, &out));
	ASSERT_EQ(MPDT_WIRE_OK, unit_decode(buf, MPDT_PROBE_LEN, &out));
	EXPECT_EQ(0ULL, out.probe.cookie);

	pkt = unit_nack_pkt(9, MPDT_NACK_CHALLENGE, 0);
	pkt.nack.cookie = 0xc0c1c2c3c4c5c6c7ULL;
	ASSERT_EQ(MPDT_WIRE_OK, unit_roundtrip(&pkt, 0, &out));
	EXPECT_EQ(MPDT_NACK_CHALLENGE, out.nack.code);
	EXPECT_EQ(pkt.nack.cookie, out.nack.cookie);
}

TEST(data_round_trips_with_payload_position)
{
	struct mpdt_pkt pkt = unit_data(0xfffffffe, 8192, 1 << 20, 1400,
					MPDT_F_AR | MPDT_F_RETX);
	struct mpdt_pkt out;

	pkt.hdr.ev = 0xfffe;
	pkt.data.msg_id = 0x7fffffff;
	pkt.data.ts = 0xfedcba9876543210ULL;
	ASSERT_EQ(MPDT_WIRE_OK, unit_roundtrip(&pkt, 1400, &out));
	EXPECT_EQ(MPDT_VERSION, out.hdr.version);
	EXPECT_EQ(MPDT_T_DATA, out.hdr.type);
	EXPECT_EQ(MPDT_F_AR | MPDT_F_RETX, out.hdr.flags);
	EXPECT_EQ(UNIT_SPORT, out.hdr.src_port);
	EXPECT_EQ(UNIT_DPORT, out.hdr.dst_port);
	EXPECT_EQ(UNIT_NONCE, out.hdr.nonce);
	EXPECT_EQ(0xfffe, out.hdr.ev);
	EXPECT_EQ(0xfffffffeU, out.data.psn);
	EXPECT_EQ(0x7fffffffU, out.data.msg_id);
	EXPECT_EQ(8192U, out.data.offset);
	EXPECT_EQ(1U << 20, out.data.msg_len);
	EXPECT_EQ(0xfedcba9876543210ULL, out.data.ts);
	EXPECT_EQ(1400, out.data.payload_len);
	EXPECT_EQ((u32)MPDT_DATA_HLEN, out.payload_off);
	EXPECT_EQ(1400U, out.payload_avail);
}

TEST(data_round_trips_max_values)
{
	struct mpdt_pkt pkt = unit_data(0xffffffff,
					MPDT_WIRE_MSG_MAX - 0xffff,
					MPDT_WIRE_MSG_MAX, 0xffff,
					MPDT_F_AR | MPDT_F_RETX |
					MPDT_F_TRIMMED);
	struct mpdt_pkt out;

	pkt.hdr.src_port = 0xffff;
	pkt.hdr.dst_port = 0xffff;
	pkt.hdr.nonce = 0xffffffff;
	pkt.hdr.ev = 0xffff;
	pkt.data.msg_id = 0xffffffff;
	pkt.data.ts = ~0ULL;
	ASSERT_EQ(MPDT_WIRE_OK, unit_roundtrip(&pkt, 0xffff, &out));
	EXPECT_EQ(0xffff, out.hdr.src_port);
	EXPECT_EQ(0xffff, out.hdr.dst_port);
	EXPECT_EQ(0xffffffffU, out.hdr.nonce);
	EXPECT_EQ(0xffff, out.hdr.ev);
	EXPECT_EQ(0xffffffffU, out.data.psn);
	EXPECT_EQ(0xffffffffU, out.data.msg_id);
	EXPECT_EQ(MPDT_WIRE_MSG_MAX - 0xffff, out.data.offset);
	EXPECT_EQ(MPDT_WIRE_MSG_MAX, out.data.msg_len);
	EXPECT_EQ(~0ULL, out.data.ts);
	EXPECT_EQ(0xffff, out.data.payload_len);
	EXPECT_EQ(0xffffU, out.payload_avail);
}

TEST(sack_round_trips_including_64bit_fields)
{
	struct mpdt_sack s = unit_sack(0xfffffff0, 0x00000030,
				       0x8000000000000001ULL,
				       0x123456789abcdefULL, 0xfffffffe);
	struct mpdt_pkt pkt, out;

	s.echo_ts = 0xfedcba9876543210ULL;
	s.ce_count = 0xfffe;
	pkt = unit_sack_pkt(&s, MPDT_F_CE | MPDT_F_PROBE_ACK);
	ASSERT_EQ(MPDT_WIRE_OK, unit_roundtrip(&pkt, 0, &out));
	EXPECT_EQ(MPDT_T_SACK, out.hdr.type);
	EXPECT_EQ(MPDT_F_CE | MPDT_F_PROBE_ACK, out.hdr.flags);
	EXPECT_EQ(0xfffffff0U, out.sack.epsn);
	EXPECT_EQ(0x30U, out.sack.sack_base);
	EXPECT_EQ(0x8000000000000001ULL, out.sack.bitmap);
	EXPECT_EQ(0x123456789abcdefULL, out.sack.recv_bytes);
	EXPECT_EQ(0xfedcba9876543210ULL, out.sack.echo_ts);
	EXPECT_EQ(0xfffffffeU, out.sack.ooo_count);
	EXPECT_EQ(0xfffe, out.sack.ce_count);
	EXPECT_EQ(0U, out.payload_avail);
}

TEST(sack_round_trips_max_values)
{
	struct mpdt_sack s = unit_sack(~0U, ~0U, ~0ULL, ~0ULL, ~0U);
	struct mpdt_pkt pkt, out;

	s.echo_ts = ~0ULL;
	s.ce_count = 0xffff;
	pkt = unit_sack_pkt(&s, 0);
	ASSERT_EQ(MPDT_WIRE_OK, unit_roundtrip(&pkt, 0, &out));
	EXPECT_EQ(~0U, out.sack.epsn);
	EXPECT_EQ(~0U, out.sack.sack_base);
	EXPECT_EQ(~0ULL, out.sack.bitmap);
	EXPECT_EQ(~0ULL, out.sack.recv_bytes);
	EXPECT_EQ(~0ULL, out.sack.echo_ts);
	EXPECT_EQ(~0U, out.sack.ooo_count);
	EXPECT_EQ(0xffff, out.sack.ce_count);
}

TEST(nack_round_trips_each_code)
{
	static const u8 codes[] = { MPDT_NACK_NO_BUFFER, MPDT_NACK_TRIMMED };
	struct mpdt_pkt pkt, out;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		pkt = unit_nack_pkt(0xffffffff, codes[i], 0x80000000);
		pkt.hdr.flags = MPDT_F_CE;
		pkt.nack.echo_ts = ~0ULL;
		ASSERT_EQ(MPDT_WIRE_OK, unit_roundtrip(&pkt, 0, &out));
		EXPECT_EQ(MPDT_T_NACK, out.hdr.type);
		EXPECT_EQ(MPDT_F_CE, out.hdr.flags);
		EXPECT_EQ(0xffffffffU, out.nack.psn);
		EXPECT_EQ(codes[i], out.nack.code);
		EXPECT_EQ(0x80000000U, out.nack.epsn);
		EXPECT_EQ(~0ULL, out.nack.echo_ts);
	}
}

TEST(probe_round_trips)
{
	struct mpdt_pkt pkt = unit_probe_pkt(0xffffffff), out;

	pkt.probe.ts = 0x8000000000000001ULL;
	ASSERT_EQ(MPDT_WIRE_OK, unit_roundtrip(&pkt, 0, &out));
	EXPECT_EQ(MPDT_T_PROBE, out.hdr.type);
	EXPECT_EQ(0, out.hdr.flags);
	EXPECT_EQ(0xffffffffU, out.probe.sack_base);
	EXPECT_EQ(0x8000000000000001ULL, out.probe.ts);
}

TEST(encode_writes_version_1_and_zero_reserved_bytes)
{
	struct mpdt_pkt pkt = unit_data(1, 0, 10, 10, 0);
	u8 buf[BUF_LEN];

	memset(buf, 0xff, sizeof(buf));
	pkt.hdr.version = 7;	/* ignored: the encoder speaks v1 */
	mpdt_wire_encode(&pkt, buf);
	EXPECT_EQ(1, buf[0]);
	EXPECT_EQ(0, buf[14]);
	EXPECT_EQ(0, buf[15]);
	EXPECT_EQ(0, buf[MPDT_COMMON_LEN + 26]);
	EXPECT_EQ(0, buf[MPDT_COMMON_LEN + 27]);
}

/* "zero on send, ignored on receive" (wire.c decode_common). */
TEST(reserved_bytes_are_ignored_on_receive)
{
	struct mpdt_pkt pkt = unit_nack_pkt(9, MPDT_NACK_NO_BUFFER, 4), out;
	u8 buf[BUF_LEN];
	u32 len;

	len = unit_encode(&pkt, buf, 0);
	buf[14] = 0x55;
	buf[15] = 0xaa;
	buf[MPDT_COMMON_LEN + 5] = 0xff;
	buf[MPDT_COMMON_LEN + 7] = 0x01;
	ASSERT_EQ(MPDT_WIRE_OK, unit_decode(buf, len, &out));
	EXPECT_EQ(9U, out.nack.psn);
	EXPECT_EQ(4U, out.nack.epsn);
}

TEST(shorter_than_common_header_is_short)
{
	struct mpdt_pkt pkt = unit_probe_pkt(1), out;
	u8 buf[BUF_LEN];
	u32 len;

	unit_encode(&pkt, buf, 0);
	for (len = 0; len < MPDT_COMMON_LEN; len++) {
		EXPECT_EQ(MPDT_WIRE_SHORT, unit_decode(buf, len, &out)) {
			TH_LOG("len %u", len);
		}
	}
}

TEST(shorter_than_type_header_is_short)
{
	struct mpdt_pkt pkt, out;
	u8 buf[BUF_LEN];
	u32 payload, len;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all_types); i++) {
		pkt = valid_pkt(all_types[i], &payload);
		unit_encode(&pkt, buf, payload);
		for (len = MPDT_COMMON_LEN;
		     len < mpdt_wire_hlen(all_types[i]); len++) {
			EXPECT_EQ(MPDT_WIRE_SHORT,
				  unit_decode(buf, len, &out)) {
				TH_LOG("type %u len %u", all_types[i], len);
			}
		}
	}
}

TEST(version_other_than_1_is_rejected)
{
	static const u8 versions[] = { 0, 2, 0xff };
	struct mpdt_pkt pkt, out;
	u8 buf[BUF_LEN];
	u32 payload, len;
	size_t i, v;

	for (i = 0; i < ARRAY_SIZE(all_types); i++) {
		pkt = valid_pkt(all_types[i], &payload);
		len = unit_encode(&pkt, buf, payload);
		for (v = 0; v < ARRAY_SIZE(versions); v++) {
			buf[0] = versions[v];
			EXPECT_EQ(MPDT_WIRE_BAD_VERSION,
				  unit_decode(buf, len, &out));
		}
		/* Version is checked first: even a bare common header. */
		buf[0] = 2;
		EXPECT_EQ(MPDT_WIRE_BAD_VERSION,
			  unit_decode(buf, MPDT_COMMON_LEN, &out));
	}
}

TEST(unknown_type_is_rejected)
{
	static const u8 types[] = { 0, 5, 6, 0x80, 0xff };
	struct mpdt_pkt pkt = unit_probe_pkt(1), out;
	u8 buf[BUF_LEN];
	u32 len;
	size_t i;

	len = unit_encode(&pkt, buf, 0);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		buf[1] = types[i];
		EXPECT_EQ(MPDT_WIRE_BAD_TYPE, unit_decode(buf, len, &out)) {
			TH_LOG("type %u", types[i]);
		}
		EXPECT_EQ(MPDT_WIRE_BAD_TYPE,
			  unit_decode(buf, MPDT_COMMON_LEN, &out));
	}
}

static u16 allowed(u8 type)
{
	switch (type) {
	case MPDT_T_DATA:
		return MPDT_F_AR | MPDT_F_RETX | MPDT_F_TRIMMED |
		       MPDT_F_FLOWLET;
	case MPDT_T_SACK:
		return MPDT_F_CE | MPDT_F_PROBE_ACK;
	case MPDT_T_NACK:
		return MPDT_F_CE;
	case MPDT_T_PROBE:
		return MPDT_F_COOKIE;
	}
	return 0;
}

TEST(each_flag_is_accepted_only_on_its_types)
{
	size_t i;
	int bit;

	for (i = 0; i < ARRAY_SIZE(all_types); i++) {
		u8 type = all_types[i];

		for (bit = 0; bit < 16; bit++) {
			u16 f = 1U << bit;
			enum mpdt_wire_err want = f & allowed(type) ?
				MPDT_WIRE_OK : MPDT_WIRE_BAD_FLAGS;

			EXPECT_EQ(want, decode_valid(type, f, 1, 1)) {
				TH_LOG("type %u flag 0x%x", type, f);
			}
		}
		EXPECT_EQ(MPDT_WIRE_OK,
			  decode_valid(type, allowed(type), 1, 1));
		EXPECT_EQ(MPDT_WIRE_BAD_FLAGS,
			  decode_valid(type, 0xffff, 1, 1));
	}
}

TEST(zero_port_is_rejected_on_every_type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(all_types); i++) {
		EXPECT_EQ(MPDT_WIRE_BAD_PORT,
			  decode_valid(all_types[i], 0, 0, 9));
		EXPECT_EQ(MPDT_WIRE_BAD_PORT,
			  decode_valid(all_types[i], 0, 9, 0));
		EXPECT_EQ(MPDT_WIRE_BAD_PORT,
			  decode_valid(all_types[i], 0, 0, 0));
		EXPECT_EQ(MPDT_WIRE_OK, decode_valid(all_types[i], 0, 1, 1));
	}
}

TEST(data_payload_must_match_payload_len)
{
	struct mpdt_pkt out;

	EXPECT_EQ(MPDT_WIRE_OK, decode_data(0, 1000, 1000, 0, 1000, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, 1000, 1000, 0, 999, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, 1000, 1000, 0, 1001, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, 1000, 1000, 0, 0, &out));
	/* Even a flag like RETX does not excuse a short payload. */
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, 1000, 1000, MPDT_F_RETX, 500, &out));
}

/* A switch may cut the payload and set TRIMMED; it never adds bytes. */
TEST(trimmed_data_may_be_shorter_never_longer)
{
	struct mpdt_pkt out;

	ASSERT_EQ(MPDT_WIRE_OK,
		  decode_data(0, 1000, 1000, MPDT_F_TRIMMED, 0, &out));
	EXPECT_EQ(0U, out.payload_avail);
	EXPECT_EQ(1000, out.data.payload_len);
	ASSERT_EQ(MPDT_WIRE_OK,
		  decode_data(0, 1000, 1000, MPDT_F_TRIMMED, 64, &out));
	EXPECT_EQ(64U, out.payload_avail);
	ASSERT_EQ(MPDT_WIRE_OK,
		  decode_data(0, 1000, 1000, MPDT_F_TRIMMED, 1000, &out));
	EXPECT_EQ(1000U, out.payload_avail);
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, 1000, 1000, MPDT_F_TRIMMED, 1001, &out));
}

TEST(message_longer_than_16mib_is_rejected)
{
	struct mpdt_pkt out;

	EXPECT_EQ(MPDT_WIRE_OK,
		  decode_data(MPDT_WIRE_MSG_MAX - 100, MPDT_WIRE_MSG_MAX, 100,
			      0, 100, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, MPDT_WIRE_MSG_MAX + 1, 100, 0, 100, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, 0xffffffff, 100, 0, 100, &out));
}

TEST(payload_past_end_of_message_is_bad_offset)
{
	struct mpdt_pkt out;

	/* Last packet of the message: fine. */
	EXPECT_EQ(MPDT_WIRE_OK, decode_data(900, 1000, 100, 0, 100, &out));
	/* One byte past the end. */
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(901, 1000, 100, 0, 100, &out));
	/* Starts at the end, or beyond it. */
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(1000, 1000, 100, 0, 100, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(5000, 1000, 100, 0, 100, &out));
	/* payload_len alone larger than the message. */
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(0, 100, 101, 0, 101, &out));
}

/* offset + payload_len must not be allowed to wrap around 2^32. */
TEST(offset_overflow_is_bad_offset)
{
	struct mpdt_pkt out;

	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(0xffffffff, 1000, 100, 0, 100, &out));
	/* 0xffffff9d + 100 == 1 (mod 2^32), which is < msg_len. */
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(0xffffff9d, 1000, 100, 0, 100, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(0xffffff9c, MPDT_WIRE_MSG_MAX, 100, 0, 100,
			      &out));
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET,
		  decode_data(0x80000000, MPDT_WIRE_MSG_MAX, 100, 0, 100,
			      &out));
}

TEST(empty_payload_only_for_empty_message)
{
	struct mpdt_pkt out;

	ASSERT_EQ(MPDT_WIRE_OK, decode_data(0, 0, 0, 0, 0, &out));
	EXPECT_EQ(0U, out.data.msg_len);
	EXPECT_EQ(0U, out.payload_avail);
	EXPECT_EQ((u32)MPDT_DATA_HLEN, out.payload_off);
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH, decode_data(0, 1, 0, 0, 0, &out));
	EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
		  decode_data(0, 1000, 0, MPDT_F_TRIMMED, 0, &out));
	/* An empty message has nothing at offset 1. */
	EXPECT_EQ(MPDT_WIRE_BAD_OFFSET, decode_data(1, 0, 0, 0, 0, &out));
}

TEST(unknown_nack_code_is_rejected)
{
	static const u8 codes[] = { 0, 5, 0x7f, 0xff };
	struct mpdt_pkt pkt, out;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		pkt = unit_nack_pkt(1, codes[i], 1);
		EXPECT_EQ(MPDT_WIRE_BAD_TYPE, unit_roundtrip(&pkt, 0, &out)) {
			TH_LOG("code %u", codes[i]);
		}
	}
}

TEST(trailing_bytes_on_control_packets_are_rejected)
{
	static const u8 types[] = { MPDT_T_SACK, MPDT_T_NACK, MPDT_T_PROBE };
	static const u32 extra[] = { 1, 8, 1000 };
	struct mpdt_pkt pkt, out;
	u8 buf[BUF_LEN];
	u32 payload, hlen;
	size_t i, e;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		pkt = valid_pkt(types[i], &payload);
		hlen = unit_encode(&pkt, buf, 0);
		memset(buf + hlen, 0, sizeof(buf) - hlen);
		EXPECT_EQ(MPDT_WIRE_OK, unit_decode(buf, hlen, &out));
		for (e = 0; e < ARRAY_SIZE(extra); e++) {
			EXPECT_EQ(MPDT_WIRE_BAD_LENGTH,
				  unit_decode(buf, hlen + extra[e], &out)) {
				TH_LOG("type %u extra %u", types[i], extra[e]);
			}
		}
	}
}

/* Reserved bytes by packet type: ignored on receive, zero on send. */
static void clear_reserved(u8 *buf, u8 type)
{
	u8 *body = buf + MPDT_COMMON_LEN;

	buf[14] = 0;
	buf[15] = 0;
	switch (type) {
	case MPDT_T_DATA:
		body[26] = 0;
		body[27] = 0;
		break;
	case MPDT_T_NACK:
		memset(body + 5, 0, 3);
		break;
	case MPDT_T_PROBE:
		memset(body + 4, 0, 4);
		break;
	}
}

/* Random bytes, nudged towards valid headers often enough to matter. */
static u32 fuzz_fill(struct unit_rng *r, u8 *buf, u32 max)
{
	u32 len, i, hlen, pl;
	u8 type;

	if (unit_rand_below(r, 4) == 0) {
		len = unit_rand_below(r, 128);
		for (i = 0; i < len; i++)
			buf[i] = unit_rand(r);
		return len;
	}
	type = unit_rand_below(r, 8) ? 1 + unit_rand_below(r, 4) :
				       unit_rand(r);
	hlen = mpdt_wire_hlen(type) ? mpdt_wire_hlen(type) : 44;
	pl = type == MPDT_T_DATA ? unit_rand_below(r, 300) : 0;
	len = hlen + pl;
	if (unit_rand_below(r, 4) == 0)
		len += unit_rand_below(r, 5) - 2;
	if (len > max)
		len = max;
	for (i = 0; i < len; i++)
		buf[i] = unit_rand(r);
	if (len < MPDT_COMMON_LEN)
		return len;
	buf[0] = unit_rand_below(r, 16) ? MPDT_VERSION : buf[0];
	buf[1] = type;
	if (unit_rand_below(r, 4)) {
		buf[2] = 0;
		buf[3] &= allowed(type);
	}
	/* Ports: mostly non-zero, sometimes zero. */
	buf[5] |= 1;
	buf[7] |= 1;
	if (!unit_rand_below(r, 16))
		memset(buf + 4 + 2 * unit_rand_below(r, 2), 0, 2);
	if (type == MPDT_T_NACK && len > MPDT_COMMON_LEN + 4)
		buf[MPDT_COMMON_LEN + 4] = unit_rand_below(r, 4);
	if (type == MPDT_T_DATA && len >= MPDT_DATA_HLEN &&
	    unit_rand_below(r, 8)) {
		u8 *b = buf + MPDT_COMMON_LEN;
		u32 msg_len = pl + unit_rand_below(r, 3000);
		u32 off = unit_rand_below(r, msg_len - pl + 1);

		if (!unit_rand_below(r, 8))
			off = msg_len - pl + 1 + unit_rand_below(r, 3);

		b[8] = off >> 24;
		b[9] = off >> 16;
		b[10] = off >> 8;
		b[11] = off;
		b[12] = msg_len >> 24;
		b[13] = msg_len >> 16;
		b[14] = msg_len >> 8;
		b[15] = msg_len;
		b[24] = pl >> 8;
		b[25] = pl;
	}
	return len;
}

/*
 * 100k random buffers: decoding never reads out of bounds (ASan), never
 * accepts something inconsistent, and an accepted header re-encodes to
 * the same bytes (reserved bytes aside, which the decoder ignores).
 */
/* A SACK's Room (wire-format.rst 4.2): 0 from a receiver that does not
 * say, as every SACK was before; else 1 + whole KiB, rounded down and
 * saturating at MPDT_ROOM_MAX.
 */
TEST(sack_room_is_kib_plus_one_and_zero_is_unsaid)
{
	static const struct {
		bool said;
		u32 room;
		u16 wire;
		u32 back;
	} cases[] = {
		{ false, 0, 0x0000, 0 },
		{ true, 0, 0x0001, 0 },
		{ true, 1023, 0x0001, 0 },
		{ true, 1024, 0x0002, 1024 },
		{ true, (16U << 20) + 1500, 0x4002, (16U << 20) + 1024 },
		{ true, MPDT_ROOM_MAX, 0xffff, MPDT_ROOM_MAX },
		{ true, U32_MAX, 0xffff, MPDT_ROOM_MAX },
	};
	struct mpdt_sack s = unit_sack(1, 1, 0, 0, 0);
	struct mpdt_pkt pkt, out;
	u8 buf[BUF_LEN];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		s.room_said = cases[i].said;
		s.room = cases[i].room;
		pkt = unit_sack_pkt(&s, 0);
		ASSERT_EQ(MPDT_SACK_LEN, mpdt_wire_encode(&pkt, buf));
		EXPECT_EQ(cases[i].wire, buf[MPDT_SACK_LEN - 2] << 8 |
					 buf[MPDT_SACK_LEN - 1]);
		ASSERT_EQ(MPDT_WIRE_OK,
			  mpdt_wire_decode(buf, MPDT_SACK_LEN, &out));
		EXPECT_EQ(cases[i].said, out.sack.room_said);
		EXPECT_EQ(cases[i].back, out.sack.room);
	}
}

TEST(random_buffers_never_crash_and_accepted_ones_reencode)
{
	enum { MAXLEN = MPDT_MAX_HLEN + 512 };
	u32 accepted[5] = { 0 }, errs[__MPDT_WIRE_ERR_MAX] = { 0 };
	struct unit_rng rng = { .state = 0x5eed };
	u8 *heap = malloc(MAXLEN);
	u8 src[MAXLEN], again[MAXLEN];
	struct mpdt_pkt pkt;
	u32 iter, len, hlen;

	ASSERT_NE(NULL, heap);
	for (iter = 0; iter < 100000; iter++) {
		enum mpdt_wire_err err;
		u8 *buf;

		len = fuzz_fill(&rng, src, MAXLEN);
		/* Packet flush with the end of the allocation. */
		buf = heap + MAXLEN - len;
		memcpy(buf, src, len);
		err = mpdt_wire_decode(buf, len, &pkt);
		ASSERT_LT(err, __MPDT_WIRE_ERR_MAX);
		errs[err]++;
		if (err != MPDT_WIRE_OK)
			continue;

		hlen = mpdt_wire_len(&pkt.hdr);
		ASSERT_NE(0U, hlen);
		ASSERT_LE(hlen, len);
		accepted[pkt.hdr.type]++;
		if (pkt.hdr.type == MPDT_T_DATA) {
			ASSERT_EQ(hlen, pkt.payload_off);
			ASSERT_EQ(len, pkt.payload_off + pkt.payload_avail);
			ASSERT_LE(pkt.payload_avail, pkt.data.payload_len);
			ASSERT_LE(pkt.data.msg_len, MPDT_WIRE_MSG_MAX);
			ASSERT_LE((u64)pkt.data.offset + pkt.data.payload_len,
				  (u64)pkt.data.msg_len);
		} else {
			ASSERT_EQ(hlen, len);
		}
		ASSERT_EQ(hlen, mpdt_wire_encode(&pkt, again));
		clear_reserved(src, pkt.hdr.type);
		ASSERT_EQ(0, memcmp(src, again, hlen)) {
			TH_LOG("iteration %u type %u", iter, pkt.hdr.type);
		}
	}
	free(heap);
	TH_LOG("accepted DATA %u SACK %u NACK %u PROBE %u of %u",
	       accepted[1], accepted[2], accepted[3], accepted[4], iter);
	/* The generator must reach the accept path of every type. */
	for (iter = MPDT_T_DATA; iter <= MPDT_T_PROBE; iter++) {
		EXPECT_LT(500U, accepted[iter]) {
			TH_LOG("type %u accepted %u times", iter,
			       accepted[iter]);
		}
	}
	for (iter = MPDT_WIRE_SHORT; iter < __MPDT_WIRE_ERR_MAX; iter++) {
		EXPECT_LT(100U, errs[iter]) {
			TH_LOG("error %u seen %u times", iter, errs[iter]);
		}
	}
}

TEST_HARNESS_MAIN
