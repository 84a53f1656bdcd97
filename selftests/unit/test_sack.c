// SPDX-License-Identifier: GPL-2.0
/*
 * Receiver side of STrack reliability (net/mpdt/sack.c, STrack §3.3.1):
 * the PSN bitmap from EPSN, the OOO counter, deduplicated recv_bytes, the
 * 64-bit segment a SACK carries, and the coalescing triggers.
 */
#include "unit.h"
#include "kselftest_harness.h"

#define WINDOW		256	/* four 64-bit SACK segments */
#define PKT		1000	/* payload bytes per packet */
#define NEVER		0x40000000U	/* coalescing threshold never met */

FIXTURE(rx) {
	struct mpdt_rx rx;
	u64 bits[WINDOW / 64];
	struct mpdt_ack_policy pol;
	struct mpdt_sack sack;
};

FIXTURE_SETUP(rx)
{
	mpdt_rx_init(&self->rx, self->bits, WINDOW);
	/* Only the trigger a test turns on may fire. */
	self->pol.coalesce_bytes = NEVER;
	self->pol.on_epsn = false;
	self->pol.on_ce = false;
}

FIXTURE_TEARDOWN(rx)
{
}

/* Helpers take FIXTURE_DATA(rx), spelled out so checkpatch can parse it. */

/* A plain DATA packet of PKT bytes; returns "SACK due". */
static bool arrive(struct _test_data_rx *self, u32 psn)
{
	return unit_rx_arrive(&self->rx, &self->pol, psn, PKT, 0, false,
			      NULL);
}

static bool arrive_flags(struct _test_data_rx *self, u32 psn, u16 flags,
			 bool ce)
{
	return unit_rx_arrive(&self->rx, &self->pol, psn, PKT, flags, ce,
			      NULL);
}

static void arrive_range(struct _test_data_rx *self, u32 from, u32 to)
{
	u32 p;

	for (p = from; p != to; p++)
		arrive(self, p);
}

/* Build a SACK the way the glue does for a DATA trigger. */
static struct mpdt_sack *sack(struct _test_data_rx *self)
{
	mpdt_rx_build_sack(&self->rx, NULL, &self->sack);
	return &self->sack;
}

static struct mpdt_sack *probe_sack(struct _test_data_rx *self, u32 base)
{
	mpdt_rx_build_sack(&self->rx, &base, &self->sack);
	return &self->sack;
}

/* Start the receiver at @epsn, as if everything before had arrived. */
static void start_at(struct _test_data_rx *self, u32 epsn)
{
	self->rx.epsn = epsn;
}

/* --- mpdt_rx_check verdicts ------------------------------------------ */

TEST_F(rx, fresh_receiver_expects_psn_0)
{
	EXPECT_EQ(0U, self->rx.epsn);
	EXPECT_EQ(0U, self->rx.ooo_count);
	EXPECT_EQ(0ULL, self->rx.recv_bytes);
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 0));
}

TEST_F(rx, psns_from_epsn_to_window_end_are_new)
{
	start_at(self, 1000);
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 1000));
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 1001));
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 1000 + WINDOW - 1));
}

TEST_F(rx, psn_at_epsn_plus_window_is_out_of_window)
{
	start_at(self, 1000);
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW,
		  mpdt_rx_check(&self->rx, 1000 + WINDOW));
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW,
		  mpdt_rx_check(&self->rx, 1000 + WINDOW + 1));
}

TEST_F(rx, psn_far_ahead_is_out_of_window)
{
	start_at(self, 1000);
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW, mpdt_rx_check(&self->rx, 0x10000));
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW,
		  mpdt_rx_check(&self->rx, 1000U + 0x7fffffff));
}

TEST_F(rx, window_check_wraps_at_2_32)
{
	start_at(self, 0xffffff80);
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 0xffffffff));
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 0));
	/* 0xffffff80 + 255 == 0x7f (mod 2^32) */
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 0x7f));
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW, mpdt_rx_check(&self->rx, 0x80));
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW, mpdt_rx_check(&self->rx, 0x1000));
	EXPECT_EQ(MPDT_RX_DUPLICATE, mpdt_rx_check(&self->rx, 0xffffff7f));
}

TEST_F(rx, psn_before_epsn_is_duplicate)
{
	start_at(self, 1000);
	EXPECT_EQ(MPDT_RX_DUPLICATE, mpdt_rx_check(&self->rx, 999));
	EXPECT_EQ(MPDT_RX_DUPLICATE, mpdt_rx_check(&self->rx, 0));
	start_at(self, 5);
	/* Serial arithmetic: 0xfffffffe is 7 before 5. */
	EXPECT_EQ(MPDT_RX_DUPLICATE, mpdt_rx_check(&self->rx, 0xfffffffe));
}

TEST_F(rx, psn_already_received_is_duplicate)
{
	arrive(self, 7);
	EXPECT_EQ(MPDT_RX_DUPLICATE, mpdt_rx_check(&self->rx, 7));
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 6));
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 8));
}

/* A PSN half the sequence space away can never be new data. */
TEST_F(rx, psn_half_the_space_away_is_never_new)
{
	start_at(self, 1000);
	EXPECT_NE(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 1000 + 0x80000000));
	EXPECT_NE(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 1000 + 0x80000001));
	EXPECT_NE(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 1000U - 0x7fffffff));
}

/* --- the bitmap from EPSN -------------------------------------------- */

TEST_F(rx, in_order_arrivals_advance_epsn)
{
	arrive_range(self, 0, 10);
	EXPECT_EQ(10U, self->rx.epsn);
	EXPECT_EQ(0U, self->rx.ooo_count);
	EXPECT_EQ(10ULL * PKT, self->rx.recv_bytes);
}

/* §3.3.1 (e): OOO counts the packets received beyond EPSN. */
TEST_F(rx, hole_keeps_epsn_and_ooo_counts_packets_beyond)
{
	arrive_range(self, 0, 3);
	arrive_range(self, 4, 9);
	EXPECT_EQ(3U, self->rx.epsn);
	EXPECT_EQ(5U, self->rx.ooo_count);
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, 3));
	EXPECT_EQ(MPDT_RX_DUPLICATE, mpdt_rx_check(&self->rx, 4));
}

TEST_F(rx, filling_hole_slides_epsn_over_all_contiguous_psns)
{
	arrive_range(self, 1, 20);
	EXPECT_EQ(0U, self->rx.epsn);
	EXPECT_EQ(19U, self->rx.ooo_count);
	arrive(self, 0);
	EXPECT_EQ(20U, self->rx.epsn);
	EXPECT_EQ(0U, self->rx.ooo_count);
	EXPECT_EQ(20ULL * PKT, self->rx.recv_bytes);
}

TEST_F(rx, filling_first_hole_stops_at_the_next_hole)
{
	arrive_range(self, 1, 5);
	arrive_range(self, 6, 9);
	arrive(self, 0);
	EXPECT_EQ(5U, self->rx.epsn);
	EXPECT_EQ(3U, self->rx.ooo_count);
	arrive(self, 5);
	EXPECT_EQ(9U, self->rx.epsn);
	EXPECT_EQ(0U, self->rx.ooo_count);
}

TEST_F(rx, filling_a_full_window_moves_epsn_by_the_window)
{
	arrive_range(self, 1, WINDOW);
	EXPECT_EQ(WINDOW - 1U, self->rx.ooo_count);
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW, mpdt_rx_check(&self->rx, WINDOW));
	arrive(self, 0);
	EXPECT_EQ((u32)WINDOW, self->rx.epsn);
	EXPECT_EQ(0U, self->rx.ooo_count);
}

/* The ring slot of a PSN EPSN slid over must be free for PSN + window. */
TEST_F(rx, slots_epsn_slid_over_are_reused_clean)
{
	u32 p;

	arrive_range(self, 1, 6);
	arrive(self, 0);
	ASSERT_EQ(6U, self->rx.epsn);
	for (p = 6 + WINDOW - 6; p < 6 + WINDOW; p++) {
		EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&self->rx, p)) {
			TH_LOG("psn %u", p);
		}
	}
	EXPECT_EQ(0ULL, sack(self)->bitmap);
}

/* §3.3.1 (d): bytes_recvd "with duplicates eliminated". */
TEST_F(rx, recv_bytes_counts_each_psn_once)
{
	enum mpdt_rx_verdict v;

	arrive(self, 0);
	arrive(self, 2);
	unit_rx_arrive(&self->rx, &self->pol, 0, PKT, MPDT_F_RETX, false, &v);
	EXPECT_EQ(MPDT_RX_DUPLICATE, v);
	unit_rx_arrive(&self->rx, &self->pol, 2, PKT, MPDT_F_RETX, false, &v);
	EXPECT_EQ(MPDT_RX_DUPLICATE, v);
	unit_rx_arrive(&self->rx, &self->pol, WINDOW + 5, PKT, 0, false, &v);
	EXPECT_EQ(MPDT_RX_OUT_OF_WINDOW, v);
	EXPECT_EQ(2ULL * PKT, self->rx.recv_bytes);
	EXPECT_EQ(2ULL * PKT, sack(self)->recv_bytes);
	arrive(self, 1);
	EXPECT_EQ(3ULL * PKT, self->rx.recv_bytes);
	EXPECT_EQ(3U, self->rx.epsn);
}

TEST_F(rx, out_of_window_arrival_changes_nothing)
{
	struct mpdt_rx before;
	u64 bits[WINDOW / 64];

	memcpy(&before, &self->rx, sizeof(before));
	memcpy(bits, self->bits, sizeof(bits));
	arrive_flags(self, WINDOW, MPDT_F_AR, true);
	arrive_flags(self, 0x90000000, MPDT_F_RETX, false);
	EXPECT_EQ(0, memcmp(&before, &self->rx, sizeof(before)));
	EXPECT_EQ(0, memcmp(bits, self->bits, sizeof(bits)));
}

TEST_F(rx, psns_wrap_around_2_32)
{
	static const u32 order[] = { 3, 0, 17, 1, 31, 16, 2 };
	const u32 start = 0xfffffff0;
	size_t i;

	start_at(self, start);
	for (i = 0; i < ARRAY_SIZE(order); i++)
		arrive(self, start + order[i]);
	/* Received 0xfffffff0..0xfffffff3, 0, 1, 0xf. */
	EXPECT_EQ(start + 4, self->rx.epsn);
	EXPECT_EQ(3U, self->rx.ooo_count);
	sack(self);
	EXPECT_EQ(start + 4, self->sack.epsn);
	EXPECT_EQ(start + 4, self->sack.sack_base);
	/* 0xfffffff0 + 16 == 0: bits 12, 13, 27 from 0xfffffff4. */
	EXPECT_EQ(BIT_ULL(12) | BIT_ULL(13) | BIT_ULL(27),
		  self->sack.bitmap);
	arrive_range(self, start + 4, start + 16);
	EXPECT_EQ(2U, self->rx.epsn);
	EXPECT_EQ(1U, self->rx.ooo_count);
	arrive_range(self, 2, 15);
	EXPECT_EQ(16U, self->rx.epsn);
	EXPECT_EQ(0U, self->rx.ooo_count);
	EXPECT_EQ(32ULL * PKT, self->rx.recv_bytes);
}

/* --- which 64-bit segment a SACK carries (§3.3.1, LPSN) ---------------- */

TEST_F(rx, sack_carries_epsn_recv_bytes_and_ooo)
{
	arrive_range(self, 0, 4);
	arrive(self, 6);
	sack(self);
	EXPECT_EQ(4U, self->sack.epsn);
	EXPECT_EQ(5ULL * PKT, self->sack.recv_bytes);
	EXPECT_EQ(1U, self->sack.ooo_count);
	EXPECT_EQ(0, self->sack.ce_count);
}

TEST_F(rx, sack_bitmap_has_exactly_the_received_psns)
{
	arrive(self, 1);
	arrive(self, 2);
	arrive(self, 5);
	arrive(self, 63);
	sack(self);
	EXPECT_EQ(0U, self->sack.sack_base);
	/* Bit 0 is EPSN itself, which has not arrived. */
	EXPECT_EQ(BIT_ULL(1) | BIT_ULL(2) | BIT_ULL(5) | BIT_ULL(63),
		  self->sack.bitmap);
}

TEST_F(rx, sack_segment_is_the_one_holding_lpsn)
{
	arrive(self, 130);
	arrive(self, 200);
	sack(self);
	EXPECT_EQ(0U, self->sack.epsn);
	EXPECT_EQ(128U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(2), self->sack.bitmap);
}

TEST_F(rx, lpsn_is_the_lowest_psn_not_the_first)
{
	arrive(self, 200);
	arrive(self, 130);
	arrive(self, 70);
	arrive(self, 150);
	sack(self);
	EXPECT_EQ(64U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(6), self->sack.bitmap);
}

/* Segments are 64-PSN slices counted from EPSN, not from PSN 0. */
TEST_F(rx, sack_segment_is_aligned_to_epsn_plus_64k)
{
	arrive_range(self, 0, 10);
	sack(self);
	arrive(self, 100);
	arrive(self, 101);
	sack(self);
	EXPECT_EQ(10U, self->sack.epsn);
	EXPECT_EQ(74U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(26) | BIT_ULL(27), self->sack.bitmap);
	arrive(self, 10 + 3 * 64);
	sack(self);
	EXPECT_EQ(10U + 3 * 64, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(0), self->sack.bitmap);
}

TEST_F(rx, lpsn_resets_after_each_sack)
{
	arrive(self, 70);
	sack(self);
	EXPECT_EQ(64U, self->sack.sack_base);
	/* Nothing since: the segment at EPSN. */
	sack(self);
	EXPECT_EQ(0U, self->sack.sack_base);
	EXPECT_EQ(0ULL, self->sack.bitmap);
	/* Only a higher PSN since: its segment, not the old LPSN's. */
	arrive(self, 190);
	sack(self);
	EXPECT_EQ(128U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(62), self->sack.bitmap);
}

/* An LPSN that EPSN has since passed is acknowledged cumulatively. */
TEST_F(rx, lpsn_below_epsn_falls_back_to_epsn_segment)
{
	arrive(self, 1);
	arrive(self, 0);
	arrive(self, 80);
	sack(self);
	EXPECT_EQ(2U, self->sack.epsn);
	EXPECT_EQ(2U, self->sack.sack_base);
	EXPECT_EQ(0ULL, self->sack.bitmap);
}

TEST(sack_segment_never_reports_psns_past_the_window)
{
	struct mpdt_rx rx;
	u64 bits[1];
	struct mpdt_ack_policy pol = { .coalesce_bytes = NEVER };
	struct mpdt_sack s;

	mpdt_rx_init(&rx, bits, 64);
	rx.epsn = 5;
	unit_rx_arrive(&rx, &pol, 5 + 63, PKT, 0, false, NULL);
	unit_rx_arrive(&rx, &pol, 6, PKT, 0, false, NULL);
	mpdt_rx_build_sack(&rx, NULL, &s);
	EXPECT_EQ(5U, s.sack_base);
	EXPECT_EQ(BIT_ULL(1) | BIT_ULL(63), s.bitmap);
	EXPECT_EQ(2U, s.ooo_count);
}

/* §3.3.2 probe: "A probe packet can indicate the SACK bitmap to be
 * returned using a specific SACK base."
 */
TEST_F(rx, probe_base_selects_the_segment_it_names)
{
	arrive(self, 1);
	arrive(self, 70);
	arrive(self, 130);
	probe_sack(self, 64);
	EXPECT_EQ(64U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(6), self->sack.bitmap);
	probe_sack(self, 128);
	EXPECT_EQ(128U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(2), self->sack.bitmap);
	/* A base inside a segment selects that whole segment. */
	probe_sack(self, 100);
	EXPECT_EQ(64U, self->sack.sack_base);
	probe_sack(self, 0);
	EXPECT_EQ(0U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(1), self->sack.bitmap);
}

TEST_F(rx, probe_base_outside_the_window_falls_back_to_epsn)
{
	arrive_range(self, 0, 10);
	arrive(self, 11);
	probe_sack(self, 5);
	EXPECT_EQ(10U, self->sack.sack_base);
	EXPECT_EQ(BIT_ULL(1), self->sack.bitmap);
	probe_sack(self, 10 + WINDOW);
	EXPECT_EQ(10U, self->sack.sack_base);
	probe_sack(self, 0x80000000);
	EXPECT_EQ(10U, self->sack.sack_base);
	probe_sack(self, 0xffffffff);
	EXPECT_EQ(10U, self->sack.sack_base);
}

TEST_F(rx, probe_sack_starts_a_new_coalescing_period)
{
	self->pol.coalesce_bytes = 2 * PKT;
	arrive(self, 70);
	arrive_flags(self, 71, 0, true);
	probe_sack(self, 0);
	EXPECT_EQ(1, self->sack.ce_count);
	EXPECT_EQ(0U, self->rx.bytes_since_sack);
	EXPECT_FALSE(self->rx.lpsn_valid);
	EXPECT_FALSE(arrive(self, 72));
	sack(self);
	EXPECT_EQ(0, self->sack.ce_count);
	EXPECT_EQ(64U, self->sack.sack_base);
}

/* --- coalescing triggers (§3.3.1 (1)-(3) and the CE fast path) -------- */

TEST_F(rx, bytes_threshold_triggers_when_reached)
{
	self->pol.coalesce_bytes = 3 * PKT;
	EXPECT_FALSE(arrive(self, 0));
	EXPECT_FALSE(arrive(self, 1));
	EXPECT_TRUE(arrive(self, 2));
	sack(self);
	EXPECT_FALSE(arrive(self, 3));
	EXPECT_FALSE(arrive(self, 4));
	EXPECT_TRUE(arrive(self, 5));
}

TEST_F(rx, bytes_threshold_counts_out_of_order_packets)
{
	self->pol.coalesce_bytes = 2 * PKT;
	EXPECT_FALSE(arrive(self, 10));
	EXPECT_TRUE(arrive(self, 20));
}

TEST_F(rx, duplicates_do_not_count_towards_bytes_threshold)
{
	self->pol.coalesce_bytes = 2 * PKT;
	EXPECT_FALSE(arrive(self, 0));
	EXPECT_FALSE(arrive(self, 0));
	EXPECT_FALSE(arrive(self, 0));
	EXPECT_EQ((u32)PKT, self->rx.bytes_since_sack);
	EXPECT_TRUE(arrive(self, 1));
}

/* Trigger (2) fires when the EPSN packet fills a hole (sack.c comment). */
TEST_F(rx, epsn_filling_a_hole_triggers_with_on_epsn)
{
	self->pol.on_epsn = true;
	EXPECT_FALSE(arrive(self, 1));
	EXPECT_FALSE(arrive(self, 2));
	EXPECT_TRUE(arrive(self, 0));
}

TEST_F(rx, epsn_filling_a_hole_does_not_trigger_without_on_epsn)
{
	EXPECT_FALSE(arrive(self, 1));
	EXPECT_FALSE(arrive(self, 0));
}

TEST_F(rx, in_order_epsn_arrival_does_not_trigger)
{
	self->pol.on_epsn = true;
	EXPECT_FALSE(arrive(self, 0));
	EXPECT_FALSE(arrive(self, 1));
	EXPECT_FALSE(arrive(self, 2));
}

TEST_F(rx, out_of_order_arrival_is_not_an_epsn_trigger)
{
	self->pol.on_epsn = true;
	EXPECT_FALSE(arrive(self, 2));
	EXPECT_FALSE(arrive(self, 3));
	/* Fills the hole at 0 but not the one at 1: still the EPSN packet. */
	EXPECT_TRUE(arrive(self, 0));
	EXPECT_EQ(1U, self->rx.epsn);
	EXPECT_TRUE(arrive(self, 1));
	EXPECT_EQ(4U, self->rx.epsn);
}

TEST_F(rx, ce_triggers_only_with_on_ce)
{
	EXPECT_FALSE(arrive_flags(self, 0, 0, true));
	self->pol.on_ce = true;
	EXPECT_TRUE(arrive_flags(self, 1, 0, true));
	EXPECT_FALSE(arrive_flags(self, 2, 0, false));
}

TEST_F(rx, ack_request_triggers_for_a_new_packet)
{
	EXPECT_TRUE(arrive_flags(self, 0, MPDT_F_AR, false));
	EXPECT_TRUE(arrive_flags(self, 5, MPDT_F_AR, false));
	EXPECT_FALSE(arrive_flags(self, 6, MPDT_F_RETX, false));
}

TEST_F(rx, duplicates_trigger_only_with_ar_or_retx)
{
	self->pol.on_ce = true;
	self->pol.on_epsn = true;
	self->pol.coalesce_bytes = 1;
	arrive(self, 0);
	arrive(self, 5);
	EXPECT_FALSE(arrive(self, 0));
	EXPECT_FALSE(arrive(self, 5));
	EXPECT_FALSE(arrive_flags(self, 5, 0, true));
	EXPECT_TRUE(arrive_flags(self, 0, MPDT_F_AR, false));
	EXPECT_TRUE(arrive_flags(self, 5, MPDT_F_RETX, false));
	EXPECT_TRUE(arrive_flags(self, 5, MPDT_F_AR | MPDT_F_RETX, false));
}

TEST_F(rx, out_of_window_packet_never_triggers)
{
	self->pol.on_ce = true;
	self->pol.coalesce_bytes = 1;
	EXPECT_FALSE(arrive_flags(self, WINDOW, MPDT_F_AR, true));
	EXPECT_FALSE(arrive_flags(self, WINDOW, MPDT_F_RETX, false));
}

TEST_F(rx, ce_count_counts_marks_since_the_last_sack)
{
	arrive_flags(self, 0, 0, true);
	arrive_flags(self, 1, 0, false);
	arrive_flags(self, 3, 0, true);
	/* A duplicate is not new data and adds no mark. */
	arrive_flags(self, 3, 0, true);
	EXPECT_EQ(2, sack(self)->ce_count);
	EXPECT_EQ(0, sack(self)->ce_count);
	arrive_flags(self, 4, 0, true);
	EXPECT_EQ(1, sack(self)->ce_count);
}

TEST_F(rx, ce_count_saturates_at_0xffff)
{
	u32 p;

	for (p = 0; p < 0x10005; p++)
		arrive_flags(self, p, 0, true);
	EXPECT_EQ(0x10005U, self->rx.epsn);
	EXPECT_EQ(0xffff, sack(self)->ce_count);
	arrive_flags(self, p, 0, true);
	EXPECT_EQ(1, sack(self)->ce_count);
}

TEST_HARNESS_MAIN
