// SPDX-License-Identifier: GPL-2.0
/*
 * STrack §3.3.1: receiver bitmap from EPSN and coalesced SACKs.  Pure core.
 *
 * The bitmap is a ring of rx->window bits indexed by PSN modulo the window;
 * the bit of EPSN itself is always clear (EPSN has not arrived), so a PSN
 * p is "received" iff p < EPSN or its bit is set.
 */
#include "sack.h"

static bool ring_test(const struct mpdt_rx *rx, u32 psn)
{
	u32 i = psn & (rx->window - 1);

	return rx->bits[i / 64] & BIT_ULL(i % 64);
}

static void ring_assign(struct mpdt_rx *rx, u32 psn, bool on)
{
	u32 i = psn & (rx->window - 1);

	if (on)
		rx->bits[i / 64] |= BIT_ULL(i % 64);
	else
		rx->bits[i / 64] &= ~BIT_ULL(i % 64);
}

void mpdt_rx_init(struct mpdt_rx *rx, u64 *bits, u32 window)
{
	memset(rx, 0, sizeof(*rx));
	memset(bits, 0, window / 8);
	rx->bits = bits;
	rx->window = window;
}

enum mpdt_rx_verdict mpdt_rx_check(const struct mpdt_rx *rx, u32 psn)
{
	if (psn_before(psn, rx->epsn))
		return MPDT_RX_DUPLICATE;
	if (psn - rx->epsn >= rx->window)
		return MPDT_RX_OUT_OF_WINDOW;
	return ring_test(rx, psn) ? MPDT_RX_DUPLICATE : MPDT_RX_NEW;
}

/* Slide EPSN over every contiguously received PSN. */
static void advance_epsn(struct mpdt_rx *rx)
{
	rx->epsn++;
	while (ring_test(rx, rx->epsn)) {
		ring_assign(rx, rx->epsn, false);
		rx->ooo_count--;
		rx->epsn++;
	}
}

/* §3.3.1 trigger (2) is "a packet with the current EPSN is received".  Read
 * literally, an in-order stream would get one SACK per packet and nothing
 * would coalesce; what the sender needs to hear at once is that the hole
 * it is waiting on is filled, so the trigger fires when the EPSN packet
 * arrives while later packets are already held.
 */
bool mpdt_rx_mark(struct mpdt_rx *rx, u32 psn, u32 bytes, bool ce)
{
	bool was_epsn = psn == rx->epsn;
	bool filled_hole = was_epsn && rx->ooo_count;

	if (!rx->lpsn_valid || psn_before(psn, rx->lpsn)) {
		rx->lpsn = psn;
		rx->lpsn_valid = true;
	}
	rx->recv_bytes += bytes;
	rx->bytes_since_sack += bytes;
	if (ce && rx->ce_since_sack < 0xffff)
		rx->ce_since_sack++;

	if (was_epsn) {
		advance_epsn(rx);
	} else {
		ring_assign(rx, psn, true);
		rx->ooo_count++;
	}
	return filled_hole;
}

bool mpdt_rx_ack_due(const struct mpdt_rx *rx,
		     const struct mpdt_ack_policy *pol,
		     const struct mpdt_rx_arrival *a)
{
	if (a->verdict != MPDT_RX_NEW)
		/* The sender is retrying something we hold: say so. */
		return a->ack_request || a->retransmission;
	if (a->ack_request)
		return true;
	if (a->ce && pol->on_ce)
		return true;
	if (a->filled_hole && pol->on_epsn)
		return true;
	return rx->bytes_since_sack >= pol->coalesce_bytes;
}

/* §3.3.1: "The next SACK is sent with the bitmap segment that is associated
 * with LPSN as retransmission timeout is always triggered from the lowest
 * unacknowledged PSN."  Segments are 64-PSN slices counted from EPSN.
 */
static u32 pick_segment(const struct mpdt_rx *rx, const u32 *probe_base)
{
	u32 want;

	if (probe_base)
		want = *probe_base;
	else if (rx->lpsn_valid)
		want = rx->lpsn;
	else
		want = rx->epsn;
	if (psn_before(want, rx->epsn) || want - rx->epsn >= rx->window)
		return rx->epsn;
	return rx->epsn + (want - rx->epsn) / MPDT_SACK_BITS * MPDT_SACK_BITS;
}

void mpdt_rx_build_sack(struct mpdt_rx *rx, const u32 *probe_base,
			struct mpdt_sack *s)
{
	u32 i;

	s->epsn = rx->epsn;
	s->sack_base = pick_segment(rx, probe_base);
	s->bitmap = 0;
	for (i = 0; i < MPDT_SACK_BITS; i++) {
		u32 psn = s->sack_base + i;

		if (psn - rx->epsn < rx->window && ring_test(rx, psn))
			s->bitmap |= BIT_ULL(i);
	}
	s->recv_bytes = rx->recv_bytes;
	s->ooo_count = rx->ooo_count;
	s->ce_count = rx->ce_since_sack;

	rx->lpsn_valid = false;
	rx->bytes_since_sack = 0;
	rx->ce_since_sack = 0;
}
