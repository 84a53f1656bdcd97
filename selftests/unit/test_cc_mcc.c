// SPDX-License-Identifier: GPL-2.0
/*
 * "mcc" congestion control (net/mpdt/cc_mcc.c) against MCC §3-4: the
 * three congestion levels from the message delay and the sampled packet
 * delay, the window in messages, the BDP / oversubscription increase.
 *
 * Unless a test says otherwise: 10 Gbit/s, 100 us (BDP 125000 bytes),
 * oversubscription 8 (increase 15625), window at most 250000, MSS 1400,
 * target_max_delay 300 us (three base RTTs) and, for a 16000-byte message,
 * target_msg_delay = 16000 * 8 / 10 Gbit/s + 150 us = 162.8 us.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

#define MSS	1400
#define MSG	16000
#define T0	UNIT_MS(1)
#define TARGET	162800ULL	/* ns, for MSG */

static void start_with(struct mpdt_cc *cc, struct mpdt_params *p)
{
	unit_cc_start(cc, &mpdt_cc_mcc, p, MSS);
}

static void start(struct mpdt_cc *cc)
{
	struct mpdt_params p = unit_cc_params(10000, 100);

	start_with(cc, &p);
}

static u32 done(struct mpdt_cc *cc, u64 now, u64 bytes, u64 delay)
{
	cc->ops->on_message_done(cc, bytes, delay, now);
	return cc->cwnd;
}

/* A SACK whose sampled packet took @rtt. */
static void sample(struct mpdt_cc *cc, u64 now, u64 rtt)
{
	unit_cc_ack(cc, now, rtt, MSS, 0, 0);
}

/* One BDP, counted in whole 64 KB chunks: 125000 / 65536 = 1 message. */
TEST(mcc_starts_at_one_bdp_of_messages)
{
	struct mpdt_cc cc;

	start(&cc);
	EXPECT_EQ(1U, mpdt_mcc_window_msgs(&cc));
	EXPECT_EQ(65536U, cc.cwnd);
	unit_cc_stop(&cc);
}

/* mcc_chunk_bytes 0: the chunk is an eighth of the BDP, so the window is
 * counted in units it can cut on any fabric: at 10 Mbit/s and 20 ms (BDP
 * 25000) 3125-byte units, 8 of them; never above §4's 64 KB, never below
 * a packet.
 */
TEST(mcc_automatic_chunk_is_an_eighth_of_the_bdp)
{
	struct mpdt_params p = unit_cc_params(10, 20000);
	struct mpdt_cc cc;

	p.mcc_chunk_bytes = 0;
	start_with(&cc, &p);
	EXPECT_EQ(8U, mpdt_mcc_window_msgs(&cc));
	EXPECT_EQ(25000U, cc.cwnd);
	/* A 1 MiB message is counted in chunks; the window holds 8. */
	sample(&cc, T0, UNIT_MS(20));
	EXPECT_EQ(25000U + 3125U, done(&cc, T0, 1 << 20, UNIT_SEC(1) / 2));
	unit_cc_stop(&cc);

	p = unit_cc_params(100000, 100);	/* BDP 1.25 MB: 64 KB */
	p.mcc_chunk_bytes = 0;
	start_with(&cc, &p);
	EXPECT_EQ(19U, mpdt_mcc_window_msgs(&cc));
	EXPECT_EQ(19U * 65536, cc.cwnd);
	unit_cc_stop(&cc);

	p = unit_cc_params(10, 1000);		/* BDP 1250: one packet */
	p.mcc_chunk_bytes = 0;
	start_with(&cc, &p);
	EXPECT_EQ(MSS, cc.cwnd);
	unit_cc_stop(&cc);
}

/* §3: the three cases on one trace. */
TEST(mcc_classifies_and_partial_congestion_holds)
{
	struct mpdt_cc cc;

	start(&cc);
	/* non-congestion (no sample yet): 125000 + 15625 = 140625 bytes,
	 * 8 messages of 16000
	 */
	EXPECT_EQ(128000U, done(&cc, T0, MSG, UNIT_US(100)));
	EXPECT_EQ(8U, mpdt_mcc_window_msgs(&cc));
	/* partial: message on time, one packet 300.001 us: hold */
	sample(&cc, T0 + 500, UNIT_US(300) + 1);
	EXPECT_EQ(128000U, done(&cc, T0 + 1000, MSG, UNIT_US(100)));
	/* a packet at exactly the target is not congested: 156250 */
	sample(&cc, T0 + 1500, UNIT_US(300));
	EXPECT_EQ(144000U, done(&cc, T0 + 2000, MSG, TARGET));
	EXPECT_EQ(9U, mpdt_mcc_window_msgs(&cc));
	/* the samples are per message: none since, non-congestion again */
	EXPECT_EQ(160000U, done(&cc, T0 + 3000, MSG, UNIT_US(100)));
	/* global: delay 2 x target, factor 0.5: 171875 -> 85937, 5 msgs */
	EXPECT_EQ(80000U, done(&cc, T0 + UNIT_US(300), MSG, 2 * TARGET));
	unit_cc_stop(&cc);
}

/* One decrease per window: a message sent before the last decrease
 * reports on the window before it; the floor is one half.
 */
TEST(mcc_global_congestion_decrease)
{
	struct mpdt_cc cc;
	u64 t = T0 + UNIT_US(300);

	start(&cc);
	done(&cc, T0, MSG, UNIT_US(100));		/* 140625 */
	/* 2 x target: 70312, 4 messages */
	EXPECT_EQ(64000U, done(&cc, t, MSG, 2 * TARGET));
	/* sent 300 us ago, before the decrease 10 us ago: hold */
	EXPECT_EQ(64000U, done(&cc, t + UNIT_US(10), MSG, UNIT_US(300)));
	/* sent after it, 10 x target: factor 0.1 floored to 0.5, 35156 */
	EXPECT_EQ(32000U, done(&cc, t + UNIT_US(2000), MSG, 10 * TARGET));
	/* 1.25 x target: factor 0.8, 28124 */
	EXPECT_EQ(16000U, done(&cc, t + UNIT_US(3000), MSG, 203500));
	EXPECT_EQ(1U, mpdt_mcc_window_msgs(&cc));
	unit_cc_stop(&cc);
}

/* The window never goes below one message, nor above 200% BDP. */
TEST(mcc_window_bounds)
{
	struct mpdt_cc cc;
	u64 t = T0;
	int i;

	start(&cc);
	for (i = 0; i < 40; i++) {
		t += UNIT_MS(1);
		done(&cc, t, MSG, 4 * TARGET);
	}
	EXPECT_EQ(1U, mpdt_mcc_window_msgs(&cc));
	EXPECT_EQ(16000U, cc.cwnd);
	/* a 100-byte message: the window is one of them, at least an MSS */
	EXPECT_EQ(MSS, done(&cc, t + 1, 100, UNIT_MS(1)));
	for (i = 0; i < 40; i++)
		done(&cc, t + 2 + i, MSG, UNIT_US(1));
	/* 250000 / 16000 = 15 messages */
	EXPECT_EQ(15U, mpdt_mcc_window_msgs(&cc));
	EXPECT_EQ(240000U, cc.cwnd);
	unit_cc_stop(&cc);
}

/* MCC starts at one BDP, below its largest window (two): as the engine's
 * startup (path.h) measures a larger BDP, that window follows it.
 */
TEST(mcc_window_from_one_bdp_follows_the_measured_bdp)
{
	struct mpdt_params p = unit_cc_params(10000, 100);
	struct mpdt_cc cc;

	start_with(&cc, &p);
	EXPECT_EQ(65536U, cc.cwnd);		/* 125000 in 64 KB chunks */
	p.link_mbps = 40000;			/* BDP 500000 */
	cc.ops->rescale(&cc, &p);
	EXPECT_EQ(7U, mpdt_mcc_window_msgs(&cc));	/* 500000 / 65536 */
	unit_cc_stop(&cc);
}

/* §4: the increase unit is BDP / oversubscription; Table 1's targets can
 * be configured.
 */
TEST(mcc_increase_unit_and_targets)
{
	struct mpdt_params p = unit_cc_params(10000, 100);
	struct mpdt_cc cc;

	p.mcc_oversub = 1;
	start_with(&cc, &p);
	/* 125000 + 125000 = 250000: 15 messages */
	EXPECT_EQ(240000U, done(&cc, T0, MSG, UNIT_US(100)));
	unit_cc_stop(&cc);

	p = unit_cc_params(10000, 100);
	p.mcc_target_msg_delay_us = 50;
	p.mcc_target_max_delay_us = 60;
	start_with(&cc, &p);
	/* 51 us > 50 us: global, factor 50 / 51 = 0.980: 122500, 7 msgs */
	EXPECT_EQ(112000U, done(&cc, T0, MSG, UNIT_US(51)));
	/* a 61 us packet is partial congestion now */
	sample(&cc, T0 + 1, UNIT_US(61));
	EXPECT_EQ(112000U, done(&cc, T0 + 2, MSG, UNIT_US(40)));
	unit_cc_stop(&cc);
}

/* Large messages count as 64 KB chunks (§4). */
TEST(mcc_message_unit_is_at_most_a_chunk)
{
	struct mpdt_cc cc;

	start(&cc);
	/* 1 MiB message, target 838.9 us + 100 us: on time; 140625 bytes are
	 * 2 chunks
	 */
	EXPECT_EQ(131072U, done(&cc, T0, 1 << 20, UNIT_US(850)));
	EXPECT_EQ(2U, mpdt_mcc_window_msgs(&cc));
	unit_cc_stop(&cc);
}

/* 2^38 bytes of window in 64-byte messages are 2^32 messages: the count
 * was truncated to a u32, 0, and the window fell to one packet.
 */
TEST(mcc_window_of_2_32_messages_is_not_zero)
{
	struct mpdt_params p = unit_cc_params(1U << 21, 1U << 20);
	struct mpdt_cc cc;

	p.mcc_chunk_bytes = 64;
	p.mcc_max_cwnd_pct = 100;
	ASSERT_EQ(1ULL << 38, mpdt_bdp(&p));
	unit_cc_start(&cc, &mpdt_cc_mcc, &p, 64);
	EXPECT_EQ(~0U, mpdt_mcc_window_msgs(&cc));
	EXPECT_EQ(0x7fffffffU, cc.cwnd);
	EXPECT_EQ(0x7fffffffU, done(&cc, T0, 64, UNIT_US(1)));
	unit_cc_stop(&cc);
}

TEST_HARNESS_MAIN
