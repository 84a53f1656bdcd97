// SPDX-License-Identifier: GPL-2.0
/*
 * "reps" load balancing (net/mpdt/lb_reps.c) against SMaRTT-REPS §3.6,
 * Algorithm 4, and the REPS paper's recycled-entropy buffer and freezing
 * mode, on scripted SACK traces.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

#define BDP		10		/* packets */
#define FREEZE		UNIT_US(10000)	/* reps_freeze_us default */
#define SEED		100		/* exploration starts at EV 100 */

struct reps_test {
	struct mpdt_lb lb;
	u64 now;
};

static void start_with(struct reps_test *t, const struct mpdt_params *p)
{
	unit_lb_start(&t->lb, &mpdt_lb_reps, p, SEED);
	t->now = UNIT_MS(1);
}

static void start(struct reps_test *t, u32 entropies)
{
	struct mpdt_params p = unit_lb_params(entropies);

	start_with(t, &p);
}

static u16 send(struct reps_test *t, bool resend)
{
	struct mpdt_lb_ctx ctx = {
		.now = t->now, .cwnd_pkts = BDP, .bdp_pkts = BDP,
		.rtt_ns = UNIT_US(12), .resend = resend,
	};

	return t->lb.ops->choose_ev(&t->lb, &ctx);
}

static const char *sends(struct reps_test *t, u32 n, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	while (n-- && len < sz)
		len += snprintf(buf + len, sz - len, len ? " %u" : "%u",
				send(t, false));
	return buf;
}

static void ack(struct reps_test *t, u16 ev, bool ce)
{
	unit_lb_ack(&t->lb, t->now, ev, ce);
}

/* Send the first BDP (EVs 100 .. 109), then let SACKs recycle @n of them
 * from 100 on, unmarked.
 */
static void explore_then_recycle(struct reps_test *t, u16 n)
{
	u16 ev;

	for (ev = 0; ev < BDP; ev++)
		send(t, false);
	for (ev = SEED; ev < SEED + n; ev++)
		ack(t, ev, false);
}

TEST(reps_is_registered_by_name)
{
	EXPECT_EQ(&mpdt_lb_reps, mpdt_lb_find("reps"));
	EXPECT_STREQ("reps", mpdt_lb_reps.name);
	EXPECT_FALSE(mpdt_lb_reps.flowlets);
}

/* Algorithm 4 lines 5-6: the first BDP explores new EVs in turn, even
 * when SACKs have already recycled some.
 */
TEST(reps_explores_for_the_first_bdp)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	EXPECT_STREQ("100 101 102 103 104", sends(&t, 5, buf, sizeof(buf)));
	ack(&t, 100, false);
	EXPECT_STREQ("105 106 107 108 109", sends(&t, 5, buf, sizeof(buf)));
	/* Exploration done: the recycled EV, then new ones again. */
	EXPECT_STREQ("100 110 111", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Line 5: "and not all entropies tried": 4 EVs end exploring early. */
TEST(reps_explores_at_most_every_entropy)
{
	struct reps_test t;
	char buf[128];

	start(&t, 4);
	EXPECT_STREQ("0 1 2 3", sends(&t, 4, buf, sizeof(buf)));
	ack(&t, 2, false);
	EXPECT_STREQ("2 0 1", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Unmarked SACKs are recycled and reused oldest first, each once; with
 * none left REPS explores the next new EV (line 14).
 */
TEST(reps_recycles_unmarked_entropies_in_fifo_order)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	ack(&t, 104, false);
	ack(&t, 101, false);
	ack(&t, 107, false);
	EXPECT_STREQ("104 101 107 110 111", sends(&t, 5, buf, sizeof(buf)));
	/* A retransmission takes the current choice like any packet. */
	ack(&t, 109, false);
	EXPECT_EQ(109, send(&t, true));
	unit_lb_stop(&t.lb);
}

/* A coalesced SACK with @ce_count marks since the previous one, echoing
 * @echo and newly acknowledging the packets sent on @evs.
 */
static void coalesced_ack(struct reps_test *t, u16 echo, u16 ce_count,
			  const u16 *evs, u16 n)
{
	struct mpdt_lb_ack a = {
		.now = t->now, .rtt_ns = UNIT_US(12), .ev = echo,
		.ce_count = ce_count, .acked_count = n, .acked_evs = evs,
	};

	t->lb.ops->on_ack(&t->lb, &a);
}

/* A SACK without marks vouches for every packet it acknowledges: each
 * one's EV is recycled, in PSN order, not only the echoed one.
 */
TEST(reps_recycles_every_entropy_a_clean_sack_acknowledges)
{
	static const u16 evs[] = { 103, 101, 108 };
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	coalesced_ack(&t, 108, 0, evs, ARRAY_SIZE(evs));
	EXPECT_STREQ("103 101 108 110", sends(&t, 4, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Marks since the previous SACK: only the echoed (unmarked) EV is known
 * to be clean; a marked echo recycles nothing.
 */
TEST(reps_recycles_only_the_echo_of_a_sack_reporting_marks)
{
	static const u16 evs[] = { 103, 101, 108 };
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	coalesced_ack(&t, 108, 1, evs, ARRAY_SIZE(evs));
	EXPECT_STREQ("108 110", sends(&t, 2, buf, sizeof(buf)));
	unit_lb_ack(&t.lb, t.now, 103, true);
	EXPECT_EQ(111, send(&t, false));
	unit_lb_stop(&t.lb);
}

/* A probe's answer acknowledges packets whose own SACKs never came back:
 * their EVs may hash the SACKs onto a failed link on the way back, and
 * reusing them would starve the sender of SACKs for good (the model's
 * REPS failure case: one flow 39x ideal, clocked by probes).  Only the
 * probe's EV made the round trip.
 */
TEST(reps_recycles_only_the_probe_of_a_probe_answer)
{
	static const u16 evs[] = { 103, 101, 108 };
	struct mpdt_lb_ack a = {
		.ev = 105, .probe = true,
		.acked_count = ARRAY_SIZE(evs), .acked_evs = evs,
	};
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	a.now = t.now;
	t.lb.ops->on_ack(&t.lb, &a);
	EXPECT_STREQ("105 110", sends(&t, 2, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* A SACK sent at once for a CE mark (ack_on_ce): its only mark is the
 * echoed packet's, so every other packet it acknowledges is clean.
 */
TEST(reps_recycles_all_but_the_marked_echo)
{
	static const u16 evs[] = { 103, 101, 108 };
	struct reps_test t;
	struct mpdt_lb_ack a;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	a = (struct mpdt_lb_ack){
		.now = t.now, .ev = 101, .ce = true, .ce_count = 1,
		.acked_count = ARRAY_SIZE(evs), .acked_evs = evs,
	};
	t.lb.ops->on_ack(&t.lb, &a);
	EXPECT_STREQ("103 108 110", sends(&t, 3, buf, sizeof(buf)));
	/* Two marks: which other one was marked is unknown. */
	a.ce_count = 2;
	t.lb.ops->on_ack(&t.lb, &a);
	EXPECT_EQ(111, send(&t, false));
	unit_lb_stop(&t.lb);
}

/* A burst's packets share the EV chosen for it: a SACK acknowledging
 * them recycles it once, or the buffer would fill with copies of one
 * path and REPS would spray on that path alone.  A marked echo's burst
 * is not recycled.
 */
TEST(reps_recycles_a_burst_once)
{
	static const u16 evs[] = { 103, 103, 103, 101, 101, 108, 108 };
	struct reps_test t;
	struct mpdt_lb_ack a;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	coalesced_ack(&t, 108, 0, evs, ARRAY_SIZE(evs));
	EXPECT_STREQ("103 101 108 110", sends(&t, 4, buf, sizeof(buf)));
	a = (struct mpdt_lb_ack){
		.now = t.now, .ev = 101, .ce = true, .ce_count = 1,
		.acked_count = ARRAY_SIZE(evs), .acked_evs = evs,
	};
	t.lb.ops->on_ack(&t.lb, &a);
	EXPECT_STREQ("103 108 111", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* A lost packet's EV leaves the buffer: neither the FIFO nor the frozen
 * cycle reuses it until a SACK recycles it again.
 */
TEST(reps_strikes_lost_entropies_from_the_buffer)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 3);
	unit_lb_timeout(&t.lb, t.now, 101);	/* freezes too */
	EXPECT_STREQ("100 102 100 102", sends(&t, 4, buf, sizeof(buf)));
	ack(&t, 101, false);
	EXPECT_STREQ("100 102 101 100", sends(&t, 4, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* A loss the OOO count or a probe found strikes its EV but does not
 * freeze: without trimming that is how a congested queue loses packets.
 */
TEST(reps_freezes_only_on_a_retransmission_timeout)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 3);
	t.lb.ops->on_loss(&t.lb, 101, false, t.now);
	EXPECT_STREQ("100 102 110 111", sends(&t, 4, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Frozen with every buffered EV struck: nothing known to work, explore. */
TEST(reps_frozen_with_every_entropy_struck_explores)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 2);
	unit_lb_timeout(&t.lb, t.now, 100);
	unit_lb_timeout(&t.lb, t.now, 101);
	EXPECT_STREQ("110 111", sends(&t, 2, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Lines 13-14: a marked SACK's EV is not recycled. */
TEST(reps_does_not_recycle_marked_entropies)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	ack(&t, 101, false);
	ack(&t, 102, true);
	ack(&t, 103, false);
	EXPECT_STREQ("101 103 110", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* The buffer holds reps_buffer EVs: more SACKs overwrite the oldest. */
TEST(reps_buffer_keeps_the_newest)
{
	struct mpdt_params p = unit_lb_params(256);
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 10);	/* 100 .. 109 into 8 slots */
	EXPECT_STREQ("102 103 104 105 106 107 108 109 110",
		     sends(&t, 9, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);

	p.reps_buffer = 2;
	start_with(&t, &p);
	explore_then_recycle(&t, 5);
	EXPECT_STREQ("103 104 110", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Recycling interleaved with sending keeps FIFO order. */
TEST(reps_fifo_across_wraparound)
{
	struct reps_test t;
	char buf[128];
	u16 ev;

	start(&t, 256);
	explore_then_recycle(&t, 6);
	EXPECT_STREQ("100 101 102 103", sends(&t, 4, buf, sizeof(buf)));
	for (ev = 200; ev < 205; ev++)
		ack(&t, ev, false);
	/* Slots: 104 105 200 .. 204, oldest first; 8 fit. */
	EXPECT_STREQ("104 105 200 201 202 203 204 110",
		     sends(&t, 8, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* A NACK does not change the choice: the trimmed EV is just not
 * recycled.
 */
TEST(reps_ignores_nacks)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 2);
	unit_lb_nack(&t.lb, t.now, 100, MPDT_NACK_TRIMMED);
	EXPECT_STREQ("100 101 110", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* After a timeout REPS stops exploring and cycles through the buffered
 * EVs, used up or not; new unmarked SACKs join the cycle.
 */
TEST(reps_freezes_on_a_timeout)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 3);
	EXPECT_EQ(100, send(&t, false));
	unit_lb_timeout(&t.lb, t.now, 150);
	EXPECT_STREQ("100 101 102 100 101 102 100",
		     sends(&t, 7, buf, sizeof(buf)));
	ack(&t, 120, false);
	EXPECT_STREQ("101 102 120 100", sends(&t, 4, buf, sizeof(buf)));
	/* Still frozen just before reps_freeze_us. */
	t.now += FREEZE - 1;
	EXPECT_EQ(101, send(&t, false));
	unit_lb_stop(&t.lb);
}

/* Leaving the freeze, REPS empties the buffer and explores one BDP. */
TEST(reps_thaws_and_explores_again)
{
	struct reps_test t;
	char buf[128];
	u64 froze;

	start(&t, 256);
	explore_then_recycle(&t, 3);
	froze = t.now;
	unit_lb_timeout(&t.lb, froze, 150);
	EXPECT_EQ(100, send(&t, false));
	t.now = froze + FREEZE;
	EXPECT_STREQ("110 111 112 113 114 115 116 117 118 119 120",
		     sends(&t, 11, buf, sizeof(buf)));
	/* A timeout while exploring does not freeze. */
	unit_lb_stop(&t.lb);
	start(&t, 256);
	send(&t, false);
	unit_lb_timeout(&t.lb, t.now, 100);
	ack(&t, 100, false);
	EXPECT_STREQ("101 102 103 104 105 106 107 108 109 100 110",
		     sends(&t, 11, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

TEST(reps_thaws_on_a_sack_too)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 2);
	unit_lb_timeout(&t.lb, t.now, 150);
	t.now += FREEZE;
	ack(&t, 130, false);	/* thaws, then is recycled */
	EXPECT_STREQ("110 111 112 113 114 115 116 117 118 119 130",
		     sends(&t, 11, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Frozen before any SACK came back: nothing known to work, explore. */
TEST(reps_frozen_with_nothing_buffered_explores)
{
	struct reps_test t;
	char buf[128];

	start(&t, 256);
	explore_then_recycle(&t, 0);
	unit_lb_timeout(&t.lb, t.now, 105);
	EXPECT_STREQ("110 111", sends(&t, 2, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

TEST(reps_freeze_can_be_disabled)
{
	struct mpdt_params p = unit_lb_params(256);
	struct reps_test t;
	char buf[128];

	p.reps_freeze_us = 0;
	start_with(&t, &p);
	explore_then_recycle(&t, 2);
	unit_lb_timeout(&t.lb, t.now, 150);
	EXPECT_STREQ("100 101 110", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

/* Re-initialised with a bigger buffer configured than the state was
 * sized for, REPS keeps to the slots it has.
 */
TEST(reps_keeps_to_its_state_after_a_parameter_change)
{
	struct mpdt_params p = unit_lb_params(256);
	struct reps_test t;
	char buf[128];

	p.reps_buffer = 2;
	start_with(&t, &p);
	p.reps_buffer = 64;
	unit_lb_reinit(&t.lb, &p, SEED);
	explore_then_recycle(&t, 5);
	EXPECT_STREQ("103 104 110", sends(&t, 3, buf, sizeof(buf)));
	unit_lb_stop(&t.lb);
}

TEST(reps_ignores_entropies_out_of_range)
{
	struct reps_test t;

	start(&t, 256);
	explore_then_recycle(&t, 0);
	ack(&t, 256, false);
	ack(&t, 65535, false);
	EXPECT_EQ(110, send(&t, false));
	unit_lb_stop(&t.lb);
}

TEST(reps_is_a_function_of_the_seed)
{
	struct mpdt_params p = unit_lb_params(256);
	u16 a[3000], b[3000];

	unit_lb_fuzz(&mpdt_lb_reps, &p, 9, 3000, a);
	unit_lb_fuzz(&mpdt_lb_reps, &p, 9, 3000, b);
	EXPECT_EQ(0, memcmp(a, b, sizeof(a)));
	unit_lb_fuzz(&mpdt_lb_reps, &p, 10, 3000, b);
	EXPECT_NE(0, memcmp(a, b, sizeof(a)));
}

TEST(reps_entropy_is_always_below_entropies)
{
	static const u32 counts[] = { 1, 2, 4, 16, 256, 1000, 65535 };
	struct mpdt_params p;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++) {
		p = unit_lb_params(counts[i]);
		EXPECT_EQ(0U, unit_lb_fuzz(&mpdt_lb_reps, &p, i, 5000, NULL));
		p.reps_buffer = 64;
		p.reps_freeze_us = 1;
		EXPECT_EQ(0U, unit_lb_fuzz(&mpdt_lb_reps, &p, i, 5000, NULL));
	}
}

TEST_HARNESS_MAIN
