// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the receiver state (net/mpdt/sack.c), driven in the
 * order the engine's receiving half (engine.c) drives it.  The input picks
 * a window, a starting EPSN (the state after that many in-order packets,
 * so wrap-around is reached), an ACK policy, then a sequence of DATA
 * arrivals (PSN, flags, CE, length), PROBEs, forced SACKs and new sender
 * incarnations.
 *
 * A model of the receiver kept beside it (PSNs as offsets from the start,
 * never wrapping) checks after each step: the verdict of each arrival,
 * EPSN (monotonic, equal to the model's), ooo_count (the model's, and the
 * number of set bits of the ring), recv_bytes, EPSN's own bit clear, the
 * ACK triggers the wire document promises; and every SACK built: its
 * segment (the PROBE's, else LPSN's, else EPSN's), bitmap, counters, and
 * that it encodes and decodes to the same struct.
 */
#include "fuzz.h"

#define WINDOW_MAX	65536U
#define MAX_STEPS	4096U
/* Model ring: PSN offsets in [epsn, epsn + window), never more. */
#define MODEL_BITS	WINDOW_MAX

static u64 rx_bits[WINDOW_MAX / 64];

struct model {
	u8 got[MODEL_BITS / 8];	/* by offset % MODEL_BITS */
	u32 start;		/* PSN of offset 0 */
	u32 epsn;		/* offset */
	u32 window;
	u32 ooo;
	u64 recv_bytes;
	bool lpsn_valid;
	u32 lpsn;		/* offset */
	u32 bytes_since_sack;
	u16 ce_since_sack;
};

static struct model m;

FZ_NOCOV static bool model_test(u32 off)
{
	off %= MODEL_BITS;
	return m.got[off / 8] & (1U << (off % 8));
}

FZ_NOCOV static void model_set(u32 off, bool on)
{
	u8 bit = 1U << (off % MODEL_BITS % 8);

	if (on)
		m.got[off % MODEL_BITS / 8] |= bit;
	else
		m.got[off % MODEL_BITS / 8] &= ~bit;
}

/* wire-format.rst 6.2 checks 18-19, by offsets that do not wrap:
 * anything more than 2^31 behind EPSN counts as ahead (serial numbers).
 */
static enum mpdt_rx_verdict model_verdict(u32 psn)
{
	u32 d = psn - m.start - m.epsn;

	if (d >= 0x80000000U)
		return MPDT_RX_DUPLICATE;
	if (d >= m.window)
		return MPDT_RX_OUT_OF_WINDOW;
	return model_test(m.epsn + d) ? MPDT_RX_DUPLICATE : MPDT_RX_NEW;
}

static bool model_mark(u32 psn, u32 bytes, bool ce)
{
	u32 off = psn - m.start;
	bool filled = off == m.epsn && m.ooo;

	if (!m.lpsn_valid || off < m.lpsn) {
		m.lpsn = off;
		m.lpsn_valid = true;
	}
	m.recv_bytes += bytes;
	m.bytes_since_sack += bytes;
	if (ce && m.ce_since_sack < 0xffff)
		m.ce_since_sack++;
	model_set(off, true);
	m.ooo++;
	while (model_test(m.epsn)) {
		model_set(m.epsn, false);
		m.epsn++;
		m.ooo--;
	}
	return filled;
}

static void model_init(u32 start, u32 window)
{
	memset(&m, 0, sizeof(m));
	m.start = start;
	m.window = window;
}

FZ_NOCOV static void check_state(const struct mpdt_rx *rx, u32 prev_epsn)
{
	u32 i, bits = 0;

	FZ_ASSERT(rx->window == m.window, "window %u", rx->window);
	FZ_ASSERT(!psn_before(rx->epsn, prev_epsn), "EPSN went back %u -> %u",
		  prev_epsn, rx->epsn);
	FZ_ASSERT(rx->epsn - prev_epsn <= m.window,
		  "EPSN jumped %u -> %u", prev_epsn, rx->epsn);
	FZ_ASSERT(rx->epsn == m.start + m.epsn, "EPSN %u, model %u", rx->epsn,
		  m.start + m.epsn);
	for (i = 0; i < rx->window / 64; i++)
		bits += __builtin_popcountll(rx->bits[i]);
	FZ_ASSERT(rx->ooo_count == bits && bits == m.ooo,
		  "ooo_count %u, %u bits set, model %u", rx->ooo_count, bits,
		  m.ooo);
	FZ_ASSERT(mpdt_rx_check(rx, rx->epsn) == MPDT_RX_NEW,
		  "EPSN %u marked received", rx->epsn);
	FZ_ASSERT(rx->recv_bytes == m.recv_bytes, "recv_bytes %llu, model %llu",
		  (unsigned long long)rx->recv_bytes,
		  (unsigned long long)m.recv_bytes);
	FZ_ASSERT(rx->ce_since_sack == m.ce_since_sack &&
		  rx->bytes_since_sack == m.bytes_since_sack &&
		  rx->lpsn_valid == m.lpsn_valid &&
		  (!m.lpsn_valid || rx->lpsn == m.start + m.lpsn),
		  "since-SACK state");
}

/* A SACK as engine.c builds and output.c sends it: check, encode, decode. */
static void build_sack(struct mpdt_rx *rx, const u32 *probe_base, u64 ts)
{
	struct mpdt_pkt pkt = { .hdr = {
		.version = MPDT_VERSION, .type = MPDT_T_SACK,
		.flags = probe_base ? MPDT_F_PROBE_ACK : 0,
		.src_port = 1, .dst_port = 2, .nonce = 3, .ev = 4 } };
	struct mpdt_sack *s = &pkt.sack;
	struct mpdt_pkt back;
	u32 want, base, i;
	u8 buf[MPDT_MAX_HLEN];

	/* The segment: the one asked for, else LPSN's, else EPSN's. */
	if (probe_base)
		want = *probe_base - m.start;
	else if (m.lpsn_valid)
		want = m.lpsn;
	else
		want = m.epsn;
	if (want - m.epsn >= m.window)
		want = m.epsn;
	base = m.epsn + (want - m.epsn) / 64 * 64;

	memset(s, 0, sizeof(*s));
	mpdt_rx_build_sack(rx, probe_base, s);
	s->echo_ts = ts;
	FZ_ASSERT(s->epsn == m.start + m.epsn, "SACK EPSN %u", s->epsn);
	FZ_ASSERT(s->sack_base == m.start + base, "SACK base %u, model %u",
		  s->sack_base, m.start + base);
	for (i = 0; i < 64; i++) {
		bool held = base + i - m.epsn < m.window && model_test(base + i);

		FZ_ASSERT(!!(s->bitmap & BIT_ULL(i)) == held,
			  "SACK bit %u (PSN %u)", i, s->sack_base + i);
	}
	FZ_ASSERT(s->ooo_count == m.ooo && s->recv_bytes == m.recv_bytes &&
		  s->ce_count == m.ce_since_sack, "SACK counters");
	m.lpsn_valid = false;
	m.bytes_since_sack = 0;
	m.ce_since_sack = 0;

	/* What a sender that sent every PSN up to the highest held sees. */
	if (s->bitmap)
		FZ_ASSERT(!psn_before(s->sack_base, s->epsn), "base before EPSN");

	FZ_ASSERT(mpdt_wire_encode(&pkt, buf) == MPDT_SACK_LEN, "SACK length");
	memset(&back, 0, sizeof(back));
	FZ_ASSERT(mpdt_wire_decode(buf, MPDT_SACK_LEN, &back) == MPDT_WIRE_OK,
		  "a built SACK does not decode");
	FZ_ASSERT(!memcmp(&back, &pkt, sizeof(pkt)),
		  "a built SACK decodes differently");
}

/* A PSN relative to EPSN, mostly inside the window. */
static u32 pick_psn(struct fz_in *in, const struct mpdt_rx *rx)
{
	switch (fz_u8(in) & 3) {
	case 0:
		return rx->epsn + fz_u8(in);
	case 1:
		return rx->epsn + fz_u16(in) % (2 * rx->window);
	case 2:
		return rx->epsn - 1 - fz_u8(in);
	default:
		return fz_u32(in);
	}
}

/* engine.c on_data(), with the message layer reduced to "stored" or
 * "no buffer"/"trimmed" (then not marked, NACKed).
 */
static void data_arrives(struct mpdt_rx *rx, const struct mpdt_ack_policy *pol,
			 u32 psn, u32 prev, u8 flags, u16 len, u64 ts)
{
	struct mpdt_rx_arrival a = {
		.ce = flags & 0x10,
		.ack_request = flags & 0x01,
		.retransmission = flags & 0x02,
	};
	enum mpdt_rx_verdict want = model_verdict(psn);
	bool filled, due;

	a.verdict = mpdt_rx_check(rx, psn);
	FZ_ASSERT(a.verdict == want, "PSN %u (EPSN %u): verdict %d, model %d",
		  psn, rx->epsn, a.verdict, want);
	if (a.verdict == MPDT_RX_OUT_OF_WINDOW)
		return;
	if (a.verdict == MPDT_RX_NEW) {
		/* note_reordering(): a look, no change. */
		mpdt_rx_check(rx, prev);
		if (flags & 0x0c)	/* trimmed, or no buffer: NACK */
			return;
		filled = mpdt_rx_mark(rx, psn, len, a.ce);
		FZ_ASSERT(filled == model_mark(psn, len, a.ce),
			  "filled_hole %d for PSN %u", filled, psn);
		a.filled_hole = filled;
	}
	due = mpdt_rx_ack_due(rx, pol, &a);
	/* wire-format.rst: AR always gets a SACK, RETX one when held. */
	if (a.ack_request || (a.retransmission && a.verdict != MPDT_RX_NEW))
		FZ_ASSERT(due, "no SACK for AR/RETX");
	if (a.verdict == MPDT_RX_NEW && pol->on_epsn && a.filled_hole)
		FZ_ASSERT(due, "no SACK when the hole filled");
	if (a.verdict == MPDT_RX_NEW && pol->on_ce && a.ce)
		FZ_ASSERT(due, "no SACK on CE");
	if (due)
		build_sack(rx, NULL, ts);
}

int FUZZ_ENTRY(const u8 *data, size_t size)
{
	struct fz_in in = { data, size };
	struct mpdt_ack_policy pol;
	struct mpdt_rx rx;
	u32 window, start, steps, prev, psn, i, n;
	u8 op, flags;
	u16 len;

	window = 64U << (fz_u8(&in) % 11);
	start = fz_u8(&in) & 1 ? fz_u32(&in) : 0;
	pol.coalesce_bytes = fz_range(&in, 1, 1 << 24);
	flags = fz_u8(&in);
	pol.on_epsn = flags & 1;
	pol.on_ce = flags & 2;

	mpdt_rx_init(&rx, rx_bits, window);
	rx.epsn = start;	/* as after @start in-order packets */
	model_init(start, window);

	for (steps = 0; steps < MAX_STEPS && !fz_done(&in); steps++) {
		prev = rx.epsn;
		op = fz_u8(&in);
		switch (op % 8) {
		case 0 ... 3:
			psn = pick_psn(&in, &rx);
			flags = fz_u8(&in);
			len = flags & 0x80 ? fz_u16(&in) : 1400;
			data_arrives(&rx, &pol, psn, flags & 0x20 ?
				     psn - 1 - fz_u8(&in) % 4 : psn, flags, len,
				     steps);
			break;
		case 4:
			psn = pick_psn(&in, &rx);
			build_sack(&rx, &psn, steps);
			break;
		case 5:
			build_sack(&rx, NULL, steps);
			break;
		case 6:
			/* rx_adopt_nonce(): a new incarnation starts over. */
			if (op & 0x80) {
				mpdt_rx_init(&rx, rx_bits, window);
				model_init(0, window);
				prev = 0;
			}
			break;
		case 7:
			/* A burst of consecutive PSNs, in or out of order. */
			psn = rx.epsn + fz_u8(&in);
			n = 1 + fz_u8(&in) % 64;
			flags = fz_u8(&in);
			for (i = 0; i < n; i++) {
				u32 p = flags & 1 ? psn + n - 1 - i : psn + i;

				data_arrives(&rx, &pol, p, p - 1,
					     flags & 0x12, 1000, steps);
				check_state(&rx, prev);
				prev = rx.epsn;
			}
			break;
		}
		check_state(&rx, prev);
	}
	return 0;
}
