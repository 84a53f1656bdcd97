// SPDX-License-Identifier: GPL-2.0
/*
 * The receiver's rules of Documentation/wire-format.rst (section 6.2,
 * checks 17-23a, and the Message ID rule of 4.1), each pinned on one
 * engine (engine.c) fed one packet at a time: what is counted, what is
 * stored, and what is answered.  The engine only receives here; its
 * actions go to a recording stub.
 */
#include "unit.h"
#include "engine.h"
#include "kselftest_harness.h"

#define WINDOW		1024
#define MAX_MSGS	4
#define MSG_BYTES	8192
#define SEG		1000

struct rx_msg {
	struct mpdt_reasm ra;
	u64 segs[MSG_BYTES / MPDT_MIN_SEG / 64];
	u8 bytes[MSG_BYTES];
	bool used;
};

struct rig {
	struct mpdt_eng eng;		/* first: the ops find the rig */
	struct mpdt_params p;
	u64 bits[WINDOW / 64];
	struct rx_msg msgs[MAX_MSGS];
	u64 stats[__MPDT_STAT_MAX];
	u32 admitted, delivered;
	u32 sent;			/* packets the engine transmitted */
	struct mpdt_pkt last;		/* the latest of them */
	u64 now;
};

static struct rig *rig_of(struct mpdt_eng *e)
{
	return (struct rig *)e;
}

static void rig_xmit(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		     const struct mpdt_eng_txmsg *m)
{
	rig_of(e)->sent++;
	rig_of(e)->last = *pkt;
}

/* Every packet went at once. */
static void rig_flush(struct mpdt_eng *e)
{
}

static void rig_arm_timer(struct mpdt_eng *e, u64 when)
{
}

static void rig_count(struct mpdt_eng *e, enum mpdt_stat s, u64 n)
{
	rig_of(e)->stats[s] += n;
}

static void rig_tx_release(struct mpdt_eng *e, struct mpdt_eng_txmsg *m)
{
}

static void rig_tx_room(struct mpdt_eng *e)
{
}

static void rig_failed(struct mpdt_eng *e)
{
}

static struct mpdt_reasm *rig_rx_find(struct mpdt_eng *e, u32 id)
{
	struct rig *r = rig_of(e);
	int i;

	for (i = 0; i < MAX_MSGS; i++)
		if (r->msgs[i].used && r->msgs[i].ra.id == id)
			return &r->msgs[i].ra;
	return NULL;
}

static struct mpdt_reasm *rig_rx_admit(struct mpdt_eng *e,
				       const struct mpdt_data *d)
{
	struct rig *r = rig_of(e);
	int i;

	if (d->msg_len > MSG_BYTES)
		return NULL;
	for (i = 0; i < MAX_MSGS; i++) {
		struct rx_msg *m = &r->msgs[i];

		if (m->used)
			continue;
		memset(m, 0, sizeof(*m));
		m->used = true;
		mpdt_reasm_init(&m->ra, d->msg_id, d->msg_len, m->segs);
		r->admitted++;
		return &m->ra;
	}
	return NULL;
}

static int rig_rx_place(struct mpdt_eng *e, struct mpdt_reasm *ra,
			const struct mpdt_data *d, const void *payload)
{
	struct rx_msg *m = (struct rx_msg *)ra;

	memcpy(m->bytes + d->offset, payload, d->payload_len);
	return 0;
}

static void rig_rx_deliver(struct mpdt_eng *e, struct mpdt_reasm *ra)
{
	((struct rx_msg *)ra)->used = false;
	rig_of(e)->delivered++;
}

static void rig_rx_forget(struct mpdt_eng *e)
{
	struct rig *r = rig_of(e);
	int i;

	for (i = 0; i < MAX_MSGS; i++)
		r->msgs[i].used = false;
}

#define RIG_KEY		0x5eed
#define EPOCH(now)	((u32)((now) >> MPDT_COOKIE_EPOCH_SHIFT))

static u64 rig_cookie(struct mpdt_eng *e, u32 nonce, u32 replaced, u32 epoch)
{
	return unit_cookie(RIG_KEY, nonce, replaced, epoch);
}

static const struct mpdt_eng_ops rig_ops = {
	.xmit		= rig_xmit,
	.flush		= rig_flush,
	.arm_timer	= rig_arm_timer,
	.count		= rig_count,
	.tx_release	= rig_tx_release,
	.tx_room	= rig_tx_room,
	.failed		= rig_failed,
	.rx_find	= rig_rx_find,
	.rx_admit	= rig_rx_admit,
	.rx_place	= rig_rx_place,
	.rx_deliver	= rig_rx_deliver,
	.rx_forget	= rig_rx_forget,
	.cookie		= rig_cookie,
};

static u8 payload[SEG];

/* DATA of message @id (@len bytes) for the segment at @off. */
static struct mpdt_pkt data(u32 psn, u32 prev, u32 id, u32 len, u32 off,
			    u16 flags)
{
	struct mpdt_pkt pkt = unit_data(psn, off, len, min(SEG, len - off),
					flags);

	pkt.data.msg_id = id;
	pkt.data.prev_psn = prev;
	return pkt;
}

static void arrive(struct rig *r, const struct mpdt_pkt *pkt)
{
	r->now += UNIT_US(10);
	mpdt_eng_on_packet(&r->eng, pkt, false, payload, r->now);
}

FIXTURE(rx) {
	struct rig r;
};

FIXTURE_SETUP(rx)
{
	struct rig *r = &self->r;
	u32 i;

	memset(r, 0, sizeof(*r));
	r->p = unit_cc_params(10000, 12);
	r->p.ack_bytes = 1 << 20;	/* only AR and the EPSN rule ask */
	r->p.ack_on_epsn = 0;
	r->p.ack_on_ce = 1;
	r->p.rx_window = WINDOW;
	r->p.rto_max_us = 1000;
	r->p.max_retries = 2;
	r->now = UNIT_SEC(1);
	mpdt_eng_init(&r->eng, &rig_ops, &r->p, r->bits, WINDOW, r->now);
	for (i = 0; i < SEG; i++)
		payload[i] = unit_payload_byte(i);
}

FIXTURE_TEARDOWN(rx)
{
}

/* "Packets that reach a connection are counted by type ... before
 * checks 17-26": a refused one too.
 */
TEST_F(rx, counted_by_type_before_the_checks)
{
	struct mpdt_pkt a = data(0, 0, 1, 3000, 0, 0);
	struct mpdt_pkt b = data(0, 0, 1, 3000, 0, 0);

	arrive(&self->r, &a);
	b.hdr.nonce = UNIT_NONCE + 1;
	arrive(&self->r, &b);
	EXPECT_EQ(2ULL, self->r.stats[MPDT_STAT_RX_DATA]);
	EXPECT_EQ(1ULL, self->r.stats[MPDT_STAT_DROP_NEW_NONCE]);
}

/* Check 22: a Message Length that differs from the one being assembled
 * is not stored, its PSN not marked, no NACK; with AR a SACK that
 * acknowledges nothing new.
 */
TEST_F(rx, length_mismatch_with_ar_gets_a_sack_of_nothing_new)
{
	struct rig *r = &self->r;
	struct mpdt_pkt first = data(0, 0, 7, 3000, 0, 0);
	struct mpdt_pkt liar = data(1, 0, 7, 4000, 1000, MPDT_F_AR);

	arrive(r, &first);
	EXPECT_EQ(0U, r->sent);
	arrive(r, &liar);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_MSG_MISMATCH]);
	ASSERT_EQ(1U, r->sent);
	EXPECT_EQ(MPDT_T_SACK, r->last.hdr.type);
	EXPECT_EQ(1U, r->last.sack.epsn);
	EXPECT_EQ(0ULL, r->last.sack.bitmap);
	EXPECT_EQ(1000ULL, r->last.sack.recv_bytes);
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&r->eng.rx, 1));
	EXPECT_EQ(0U, r->delivered);
}

/* Without AR the same packet is dropped in silence. */
TEST_F(rx, length_mismatch_without_ar_is_silent)
{
	struct rig *r = &self->r;
	struct mpdt_pkt first = data(0, 0, 7, 3000, 0, 0);
	struct mpdt_pkt liar = data(1, 0, 7, 4000, 1000, 0);

	arrive(r, &first);
	arrive(r, &liar);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_MSG_MISMATCH]);
	EXPECT_EQ(0U, r->sent);
}

/* Check 20: a Prev PSN beyond the receive window is neither counted as
 * reordering nor NACKed, FLOWLET or not.
 */
TEST_F(rx, prev_psn_beyond_the_window_neither_counted_nor_nacked)
{
	struct rig *r = &self->r;
	struct mpdt_pkt pkt = data(5, 5 + WINDOW + 10, 1, 3000, 0,
				   MPDT_F_FLOWLET);

	arrive(r, &pkt);
	EXPECT_EQ(0ULL, r->stats[MPDT_STAT_RX_REORDERED]);
	EXPECT_EQ(0U, r->sent);
	EXPECT_EQ(1U, r->admitted);
}

/* Check 20, the other side: a Prev PSN inside the window that has not
 * arrived is counted, and with FLOWLET NACKed as FLOWLET_GAP.
 */
TEST_F(rx, prev_psn_missing_in_a_flowlet_is_nacked)
{
	struct rig *r = &self->r;
	struct mpdt_pkt pkt = data(5, 3, 1, 3000, 0, MPDT_F_FLOWLET);

	arrive(r, &pkt);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_RX_REORDERED]);
	ASSERT_EQ(1U, r->sent);
	EXPECT_EQ(MPDT_T_NACK, r->last.hdr.type);
	EXPECT_EQ(3U, r->last.nack.psn);
	EXPECT_EQ(MPDT_NACK_FLOWLET_GAP, r->last.nack.code);
}

/* Check 20: a Prev PSN before EPSN or received is not counted. */
TEST_F(rx, prev_psn_received_or_before_epsn_is_not_counted)
{
	struct rig *r = &self->r;
	struct mpdt_pkt p0 = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt p1 = data(1, 0, 1, 3000, 1000, 0);

	arrive(r, &p0);
	arrive(r, &p1);
	EXPECT_EQ(0ULL, r->stats[MPDT_STAT_RX_REORDERED]);
}

/* Section 4.1: the receiver does not remember completed Message IDs, so a
 * new PSN carrying one starts a new message, delivered again.
 */
TEST_F(rx, completed_message_id_starts_a_new_message)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 9, 500, 0, 0);
	struct mpdt_pkt again = data(1, 0, 9, 500, 0, 0);
	struct mpdt_pkt dup = data(1, 0, 9, 500, 0, 0);

	arrive(r, &a);
	EXPECT_EQ(1U, r->delivered);
	arrive(r, &again);
	EXPECT_EQ(2U, r->admitted);
	EXPECT_EQ(2U, r->delivered);
	/* The same PSN again is a duplicate (section 7.1), not a third. */
	arrive(r, &dup);
	EXPECT_EQ(2U, r->delivered);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_RX_DUP_DATA]);
}

/* Check 19: a duplicate is not stored; answered with a SACK only if AR or
 * RETX is set.
 */
TEST_F(rx, duplicate_answered_only_when_asked)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt retx = data(0, 0, 1, 3000, 0, MPDT_F_RETX);

	arrive(r, &a);
	arrive(r, &a);
	EXPECT_EQ(0U, r->sent);
	arrive(r, &retx);
	EXPECT_EQ(2ULL, r->stats[MPDT_STAT_RX_DUP_DATA]);
	ASSERT_EQ(1U, r->sent);
	EXPECT_EQ(MPDT_T_SACK, r->last.hdr.type);
}

/* Check 18: PSN - EPSN >= rx_window is dropped without an answer. */
TEST_F(rx, out_of_window_dropped)
{
	struct rig *r = &self->r;
	struct mpdt_pkt far = data(WINDOW, WINDOW, 1, 3000, 0, MPDT_F_AR);

	arrive(r, &far);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_OUT_OF_WINDOW]);
	EXPECT_EQ(0U, r->sent);
	EXPECT_EQ(0U, r->admitted);
}

/* Checks 21 and 23: TRIMMED and no room are NACKed, nothing stored. */
TEST_F(rx, trimmed_and_no_buffer_are_nacked)
{
	struct rig *r = &self->r;
	struct mpdt_pkt trimmed = data(0, 0, 1, 3000, 0, MPDT_F_TRIMMED);
	struct mpdt_pkt huge = data(1, 0, 2, MSG_BYTES + 1, 0, 0);

	arrive(r, &trimmed);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_TRIMMED]);
	ASSERT_EQ(1U, r->sent);
	EXPECT_EQ(MPDT_NACK_TRIMMED, r->last.nack.code);
	arrive(r, &huge);
	ASSERT_EQ(2U, r->sent);
	EXPECT_EQ(MPDT_NACK_NO_BUFFER, r->last.nack.code);
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&r->eng.rx, 0));
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&r->eng.rx, 1));
}

/* Check 23a: bytes another PSN brought are not stored, the PSN not
 * marked, no NACK; a SACK if AR is set.
 */
TEST_F(rx, overlap_dropped_and_sacked_on_ar)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt same_bytes = data(1, 0, 1, 3000, 0, MPDT_F_AR);

	arrive(r, &a);
	arrive(r, &same_bytes);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_OVERLAP]);
	ASSERT_EQ(1U, r->sent);
	EXPECT_EQ(MPDT_T_SACK, r->last.hdr.type);
	EXPECT_EQ(1U, r->last.sack.epsn);
	EXPECT_EQ(MPDT_RX_NEW, mpdt_rx_check(&r->eng.rx, 1));
}

/* Check 17 and section 5: a new nonce is refused while the current
 * incarnation is live, adopted after the quiet time; the replaced one is
 * refused from then on.
 */
TEST_F(rx, new_nonce_waits_for_the_quiet_time)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt b = data(0, 0xffffffff, 1, 3000, 0, 0);

	b.hdr.nonce = UNIT_NONCE + 1;
	arrive(r, &a);
	arrive(r, &b);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_NEW_NONCE]);
	r->now += mpdt_eng_quiet_ns(&r->p);
	arrive(r, &b);
	EXPECT_EQ(UNIT_NONCE + 1, r->eng.rx_nonce);
	arrive(r, &a);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_STALE_NONCE]);
}

/* Incarnation A delivered a message, B replaced A and left a partial
 * message that expired.  A packet of A still in the network (the quiet
 * time grew: rto-max was raised) must not be adopted: A's message would
 * be delivered twice.  (The fuzzer found this.)  Once everything heard is
 * a quiet time old, a new incarnation is taken.
 */
TEST_F(rx, retired_incarnation_keeps_older_ones_out)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 1, 100, 0, 0);
	struct mpdt_pkt b = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt c = data(0, 0xffffffff, 1, 100, 0, 0);

	b.hdr.nonce = UNIT_NONCE + 1;
	c.hdr.nonce = UNIT_NONCE + 2;
	arrive(r, &a);
	ASSERT_EQ(1U, r->delivered);
	r->now += mpdt_eng_quiet_ns(&r->p);
	arrive(r, &b);
	ASSERT_EQ(UNIT_NONCE + 1, r->eng.rx_nonce);
	r->now += mpdt_eng_reassembly_ns(&r->p);
	ASSERT_TRUE(mpdt_eng_rx_expire(&r->eng, r->now));
	r->p.rto_max_us = 60000000;	/* quiet: 120 s, more than passed */
	arrive(r, &a);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(1U, r->delivered);
	r->now += mpdt_eng_quiet_ns(&r->p);
	arrive(r, &c);
	EXPECT_EQ(UNIT_NONCE + 2, r->eng.rx_nonce);
	EXPECT_EQ(2U, r->delivered);
}

/* Section 5.1: a new nonce refused while the current incarnation is live
 * is challenged, with a NACK of its own nonce, PSN and EV whose cookie is
 * ours for it, to replace the live one, in this epoch.  The replaced
 * incarnation's is not challenged.
 */
TEST_F(rx, refused_new_nonce_is_challenged)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt b = data(5, 0xffffffff, 1, 3000, 0, 0);
	u32 sent;

	b.hdr.nonce = UNIT_NONCE + 1;
	b.hdr.ev = 77;
	arrive(r, &a);
	sent = r->sent;
	arrive(r, &b);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_TX_CHALLENGE]);
	ASSERT_EQ(sent + 1, r->sent);
	EXPECT_EQ(MPDT_T_NACK, r->last.hdr.type);
	EXPECT_EQ(MPDT_NACK_CHALLENGE, r->last.nack.code);
	EXPECT_EQ(0, r->last.hdr.flags);
	EXPECT_EQ(UNIT_NONCE + 1, r->last.hdr.nonce);
	EXPECT_EQ(77, r->last.hdr.ev);
	EXPECT_EQ(5U, r->last.nack.psn);
	EXPECT_EQ(0U, r->last.nack.epsn);
	EXPECT_EQ(unit_cookie(RIG_KEY, UNIT_NONCE + 1, UNIT_NONCE,
			      EPOCH(r->now)), r->last.nack.cookie);
	EXPECT_EQ(UNIT_NONCE, r->eng.rx_nonce);

	/* Adopted after the quiet time, A is stale: refused unchallenged. */
	r->now += mpdt_eng_quiet_ns(&r->p);
	arrive(r, &b);
	ASSERT_EQ(UNIT_NONCE + 1, r->eng.rx_nonce);
	sent = r->sent;
	arrive(r, &a);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_STALE_NONCE]);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_TX_CHALLENGE]);
	EXPECT_EQ(sent, r->sent);
}

static struct mpdt_pkt cookie_probe(u32 nonce, u64 cookie)
{
	struct mpdt_pkt pkt = unit_probe_pkt(0);

	pkt.hdr.flags = MPDT_F_COOKIE;
	pkt.hdr.nonce = nonce;
	pkt.probe.cookie = cookie;
	return pkt;
}

/* The PROBE that proves @nonce, to replace @replaced, arriving next
 * (arrive() moves the clock 10 us first).
 */
static struct mpdt_pkt proof(const struct rig *r, u32 nonce, u32 replaced)
{
	return cookie_probe(nonce, unit_cookie(RIG_KEY, nonce, replaced,
					       EPOCH(r->now + UNIT_US(10))));
}

/* A PROBE that returns the cookie replaces the live incarnation at once,
 * as the quiet time would have: its partial message goes and its nonce
 * is refused from then on; the probe is answered as any.
 */
TEST_F(rx, returned_cookie_replaces_the_live_incarnation)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt p;

	arrive(r, &a);
	ASSERT_EQ(1U, r->eng.rx_partial);
	p = proof(r, UNIT_NONCE + 1, UNIT_NONCE);
	arrive(r, &p);
	EXPECT_EQ(UNIT_NONCE + 1, r->eng.rx_nonce);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_RX_NONCE_PROVEN]);
	EXPECT_EQ(0ULL, r->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(0U, r->eng.rx_partial);
	EXPECT_EQ(0U, r->delivered);
	EXPECT_EQ(MPDT_T_SACK, r->last.hdr.type);
	EXPECT_EQ(MPDT_F_PROBE_ACK, r->last.hdr.flags);
	EXPECT_EQ(UNIT_NONCE + 1, r->last.hdr.nonce);
	EXPECT_EQ(p.probe.ts, r->last.sack.echo_ts);
	EXPECT_EQ(0U, r->last.sack.epsn);
	arrive(r, &a);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_STALE_NONCE]);
	/* The current nonce's cookie probe is a probe. */
	arrive(r, &p);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_RX_NONCE_PROVEN]);
	EXPECT_EQ(MPDT_F_PROBE_ACK, r->last.hdr.flags);
}

/* Only the cookie of the probe's own nonce, made to replace the live
 * incarnation in this epoch or the last, proves it; any other is refused
 * and challenged again.
 */
TEST_F(rx, only_a_fresh_cookie_of_its_own_nonce_proves)
{
	struct rig *r = &self->r;
	struct mpdt_pkt a = data(0, 0xffffffff, 1, 3000, 0, 0);
	const u32 n = UNIT_NONCE + 1;
	struct mpdt_pkt p;
	u32 epoch;

	r->now = UNIT_SEC(100);
	epoch = EPOCH(r->now);
	arrive(r, &a);
	p = cookie_probe(n, unit_cookie(RIG_KEY, n + 1, UNIT_NONCE, epoch));
	arrive(r, &p);
	p = cookie_probe(n, unit_cookie(RIG_KEY, n, UNIT_NONCE, epoch - 2));
	arrive(r, &p);
	p = cookie_probe(n, unit_cookie(RIG_KEY, n, UNIT_NONCE, epoch + 1));
	arrive(r, &p);
	p = cookie_probe(n, unit_cookie(RIG_KEY, n, UNIT_NONCE + 7, epoch));
	arrive(r, &p);
	EXPECT_EQ(UNIT_NONCE, r->eng.rx_nonce);
	EXPECT_EQ(4ULL, r->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(4ULL, r->stats[MPDT_STAT_TX_CHALLENGE]);
	EXPECT_EQ(MPDT_NACK_CHALLENGE, r->last.nack.code);
	EXPECT_EQ(unit_cookie(RIG_KEY, n, UNIT_NONCE, epoch),
		  r->last.nack.cookie);
	p = cookie_probe(n, unit_cookie(RIG_KEY, n, UNIT_NONCE, epoch - 1));
	arrive(r, &p);
	EXPECT_EQ(n, r->eng.rx_nonce);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_RX_NONCE_PROVEN]);
}

/* A peer restarts three times in a cookie's life, each incarnation
 * proven: A over the first, B over A, C over B.  A copy of A's proof that
 * the network delayed must not take the receiver back to A: C would be
 * retired under its live sender, and A's old messages delivered again.
 */
TEST_F(rx, delayed_proof_of_an_older_incarnation_proves_nothing)
{
	struct rig *r = &self->r;
	struct mpdt_pkt d = data(0, 0xffffffff, 1, 100, 0, 0);
	const u32 a = UNIT_NONCE + 1, b = a + 1, c = b + 1;
	struct mpdt_pkt pa, pb, pc;

	arrive(r, &d);
	pa = proof(r, a, UNIT_NONCE);
	arrive(r, &pa);
	pb = proof(r, b, a);
	arrive(r, &pb);
	pc = proof(r, c, b);
	arrive(r, &pc);
	ASSERT_EQ(c, r->eng.rx_nonce);
	ASSERT_EQ(3ULL, r->stats[MPDT_STAT_RX_NONCE_PROVEN]);
	arrive(r, &pa);
	EXPECT_EQ(c, r->eng.rx_nonce);
	EXPECT_EQ(3ULL, r->stats[MPDT_STAT_RX_NONCE_PROVEN]);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_NEW_NONCE]);
	d.hdr.nonce = a;
	arrive(r, &d);
	EXPECT_EQ(1U, r->delivered);
}

/* Section 8: an incarnation retired with its expired messages keeps new
 * nonces out for the quiet time (retired_incarnation_keeps_older_ones_out),
 * but one that proves itself, to replace the retired one, gets in.
 */
TEST_F(rx, proof_replaces_a_retired_incarnation)
{
	struct rig *r = &self->r;
	struct mpdt_pkt d = data(0, 0xffffffff, 1, 3000, 0, 0);
	struct mpdt_pkt p;

	arrive(r, &d);
	r->now += mpdt_eng_reassembly_ns(&r->p);
	ASSERT_TRUE(mpdt_eng_rx_expire(&r->eng, r->now));
	ASSERT_FALSE(r->eng.rx_active);
	r->p.rto_max_us = 60000000;	/* quiet: 120 s, more than passed */
	d.hdr.nonce = UNIT_NONCE + 1;
	arrive(r, &d);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_TX_CHALLENGE]);
	p = proof(r, UNIT_NONCE + 1, UNIT_NONCE);
	arrive(r, &p);
	EXPECT_EQ(UNIT_NONCE + 1, r->eng.rx_nonce);
	EXPECT_TRUE(r->eng.rx_active);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_RX_NONCE_PROVEN]);
	d.hdr.nonce = UNIT_NONCE;
	arrive(r, &d);
	EXPECT_EQ(1ULL, r->stats[MPDT_STAT_DROP_STALE_NONCE]);
}

TEST_HARNESS_MAIN
