// SPDX-License-Identifier: GPL-2.0
/*
 * STrack reliability end to end (§3.3): the sender scoreboard and the
 * receiver bitmap talk through a simulated network that drops, trims and
 * reorders packets, driven by a simulated clock with the RTO and probe
 * timers the glue would arm.  Whatever the network does, every message
 * byte is delivered exactly once, the sender never believes a packet the
 * receiver does not hold is acknowledged, and eq. (1)-(2) settles to
 * exactly zero once everything is acknowledged.
 */
#include "unit.h"
#include "kselftest_harness.h"

#define WINDOW		128
#define PKT		1000
#define CWND_PKTS	16
#define BASE_RTT	UNIT_US(10)
#define RTO		UNIT_US(100)
#define RTO_MAX		UNIT_MS(2)
#define PROBE_IVL	(3 * BASE_RTT)
#define QMAX		4096
#define TOTAL		3000	/* packets per run */
#define MAX_EVENTS	2000000

enum ev_kind { EV_DATA, EV_SACK, EV_NACK, EV_PROBE };

struct net_ev {
	u64 at;
	u8 kind;
	bool flag;		/* DATA: trimmed; SACK: probe ack */
	u16 flags;		/* DATA: MPDT_F_* */
	u32 psn;		/* DATA, NACK: the packet; PROBE: sack_base */
	struct mpdt_sack sack;
};

struct sim {
	struct unit_rng rng;
	struct unit_clock clk;
	struct mpdt_sb sb;
	struct mpdt_sb_pkt ring[WINDOW];
	struct mpdt_rx rx;
	u64 rx_bits[WINDOW / 64];
	struct mpdt_ack_policy pol;
	struct net_ev q[QMAX];
	u32 nq;
	u32 start, end;		/* PSNs of the run: [start, end) */
	u32 data_drop, trim, ctl_drop;	/* percent */
	u32 burst;		/* packets per push; 0: as cwnd allows */
	u64 sent, dropped, trimmed, bogus, probes, rtos;
	struct unit_acked acked;
};

FIXTURE(sim) {
	struct sim s;
};

FIXTURE_VARIANT(sim) {
	u64 seed;
	u32 start;
	u32 data_drop;
	u32 trim;
	u32 ctl_drop;
	u32 burst;
};

FIXTURE_VARIANT_ADD(sim, clean) {
	.seed = 1, .start = 0,
};

FIXTURE_VARIANT_ADD(sim, light_loss) {
	.seed = 2, .start = 0, .data_drop = 2, .ctl_drop = 2,
};

FIXTURE_VARIANT_ADD(sim, heavy_loss_across_psn_wrap) {
	.seed = 3, .start = 0xfffff000, .data_drop = 20, .ctl_drop = 10,
};

FIXTURE_VARIANT_ADD(sim, trimming_switches) {
	.seed = 4, .start = 0x7fffff00, .data_drop = 1, .trim = 15,
	.ctl_drop = 1,
};

FIXTURE_VARIANT_ADD(sim, most_sacks_lost) {
	.seed = 5, .start = 0xffffffc0, .data_drop = 5, .ctl_drop = 60,
};

/* Paced: losses wait as LOST while SACKs keep arriving. */
FIXTURE_VARIANT_ADD(sim, paced_sender) {
	.seed = 6, .start = 0x1000, .data_drop = 10, .trim = 5,
	.ctl_drop = 5, .burst = 2,
};

FIXTURE_SETUP(sim)
{
	struct sim *s = &self->s;

	s->rng.state = variant->seed;
	s->clk.now = UNIT_MS(1);
	mpdt_sb_init(&s->sb, s->ring, WINDOW, s->clk.now);
	mpdt_rx_init(&s->rx, s->rx_bits, WINDOW);
	s->start = variant->start;
	s->end = variant->start + TOTAL;
	s->sb.una = s->start;
	s->sb.nxt = s->start;
	s->sb.high_rcvd = s->start;
	s->sb.lost_scan = s->start;
	s->sb.ooo_walked = s->start;
	s->rx.epsn = s->start;
	s->pol.coalesce_bytes = 4 * PKT;
	s->pol.on_epsn = true;
	s->pol.on_ce = true;
	s->data_drop = variant->data_drop;
	s->trim = variant->trim;
	s->ctl_drop = variant->ctl_drop;
	s->burst = variant->burst;
}

FIXTURE_TEARDOWN(sim)
{
}

static bool chance(struct sim *s, u32 pct)
{
	return unit_rand_below(&s->rng, 100) < pct;
}

/* One-way delay 4-8 us: enough jitter to reorder back-to-back packets. */
static bool post(struct sim *s, struct net_ev *ev, u32 drop_pct)
{
	if (chance(s, drop_pct)) {
		s->dropped++;
		return false;
	}
	if (s->nq == QMAX)
		return false;	/* a full queue drops too */
	ev->at = s->clk.now + UNIT_US(4) + unit_rand_below(&s->rng, 4000);
	s->q[s->nq++] = *ev;
	return true;
}

static void xmit_data(struct sim *s, u32 psn, u16 flags)
{
	struct net_ev ev = { .kind = EV_DATA, .psn = psn, .flags = flags };

	s->sent++;
	if (chance(s, s->trim)) {
		ev.flag = true;
		s->trimmed++;
	}
	post(s, &ev, s->data_drop);
}

/* The glue's push: lost packets first, then new ones, within cwnd. */
static void push(struct sim *s)
{
	u32 psn, n;

	for (n = 0; !s->burst || n < s->burst; n++) {
		u64 inflight = mpdt_sb_inflight(&s->sb);

		if (inflight && inflight + PKT > CWND_PKTS * PKT)
			return;
		if (mpdt_sb_next_lost(&s->sb, &psn)) {
			mpdt_sb_resent(&s->sb, psn, 0, s->clk.now);
			xmit_data(s, psn, MPDT_F_RETX);
			continue;
		}
		if (s->sb.nxt == s->end || !mpdt_sb_window_open(&s->sb))
			return;
		psn = mpdt_sb_record(&s->sb, NULL, 0, PKT, 0, s->clk.now);
		xmit_data(s, psn, psn + 1 == s->end ? MPDT_F_AR : 0);
	}
}

static void rx_sack(struct sim *s, const u32 *probe_base)
{
	struct net_ev ev = { .kind = EV_SACK, .flag = !!probe_base };

	mpdt_rx_build_sack(&s->rx, probe_base, &ev.sack);
	post(s, &ev, s->ctl_drop);
}

/* What the engine does with a DATA packet; false if the core misbehaved. */
static bool rx_data(struct sim *s, const struct net_ev *ev)
{
	struct mpdt_rx_arrival a = {
		.ack_request = ev->flags & MPDT_F_AR,
		.retransmission = ev->flags & MPDT_F_RETX,
	};

	a.verdict = mpdt_rx_check(&s->rx, ev->psn);
	/* The sender never runs more than a window ahead of EPSN. */
	if (a.verdict == MPDT_RX_OUT_OF_WINDOW)
		return false;
	if (a.verdict == MPDT_RX_NEW) {
		if (ev->flag) {
			struct net_ev nack = {
				.kind = EV_NACK, .psn = ev->psn,
			};

			post(s, &nack, s->ctl_drop);
			return true;
		}
		a.filled_hole = mpdt_rx_mark(&s->rx, ev->psn, PKT, false);
	}
	if (mpdt_rx_ack_due(&s->rx, &s->pol, &a))
		rx_sack(s, NULL);
	return true;
}

static void timers(struct sim *s, u64 *rto, u64 *probe)
{
	*rto = mpdt_sb_rto_deadline(&s->sb, RTO, RTO_MAX);
	*probe = mpdt_sb_probe_deadline(&s->sb, PROBE_IVL);
}

static u64 earliest(u64 a, u64 b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/* Run the next event or timer; false if the core misbehaved. */
static bool step(struct sim *s)
{
	u64 rto, probe, when = 0;
	u32 i, first = QMAX;
	struct net_ev ev;

	for (i = 0; i < s->nq; i++) {
		if (first == QMAX || s->q[i].at < s->q[first].at)
			first = i;
	}
	if (first != QMAX)
		when = s->q[first].at;
	timers(s, &rto, &probe);
	if (!when && !rto && !probe)
		return false;	/* stuck: nothing can ever happen again */
	if (!when || earliest(when, earliest(rto, probe)) != when) {
		/* A deadline already past fires now. */
		s->clk.now = max(s->clk.now, earliest(rto, probe));
		if (rto && s->clk.now >= rto) {
			mpdt_sb_on_rto(&s->sb, s->clk.now);
			s->rtos++;
		} else {
			struct net_ev p = {
				.kind = EV_PROBE, .psn = s->sb.una,
			};

			mpdt_sb_on_probe_sent(&s->sb, s->clk.now);
			s->probes++;
			post(s, &p, s->ctl_drop);
		}
		push(s);
		return true;
	}

	ev = s->q[first];
	s->q[first] = s->q[--s->nq];
	s->clk.now = ev.at;
	switch (ev.kind) {
	case EV_DATA:
		return rx_data(s, &ev);
	case EV_PROBE:
		rx_sack(s, &ev.psn);
		return true;
	case EV_NACK:
		mpdt_sb_on_nack(&s->sb, ev.psn);
		break;
	case EV_SACK: {
		struct mpdt_sb_clock clock = {
			.now = s->clk.now,
			.base_rtt_ns = BASE_RTT,
			.srtt_ns = BASE_RTT,
		};
		struct mpdt_sb_ack ack;

		if (mpdt_sb_on_sack(&s->sb, &ev.sack, ev.flag, CWND_PKTS,
				    &clock, unit_acked_fn, &s->acked,
				    &ack) != MPDT_SB_OK)
			return false;
		break;
	}
	}
	push(s);
	return true;
}

/* Invariants after every step; returns a description of the first one
 * broken, or NULL.
 */
static const char *broken(const struct sim *s)
{
	u64 inflight_pkts = 0;
	u32 lost = 0, p;

	if (psn_after(s->sb.una, s->rx.epsn))
		return "una passed the receiver's EPSN";
	if (s->sb.nxt - s->sb.una > WINDOW)
		return "more than a window unacknowledged";
	for (p = s->sb.una; p != s->sb.nxt; p++) {
		const struct mpdt_sb_pkt *pkt = mpdt_sb_at(&s->sb, p);

		if (pkt->state == MPDT_SB_INFLIGHT)
			inflight_pkts += pkt->len;
		if (pkt->state == MPDT_SB_LOST)
			lost++;
		if (pkt->state == MPDT_SB_ACKED &&
		    mpdt_rx_check(&s->rx, p) != MPDT_RX_DUPLICATE)
			return "a packet the receiver lacks is ACKED";
	}
	if (lost != s->sb.lost_pending)
		return "lost_pending differs from the LOST packets";
	if (mpdt_sb_inflight(&s->sb) > inflight_pkts)
		return "inflight exceeds the bytes of INFLIGHT packets";
	if (s->sb.bytes_recvd > s->rx.recv_bytes)
		return "sender saw more bytes than the receiver has";
	return NULL;
}

TEST_F(sim, every_packet_arrives_once_and_accounting_settles)
{
	struct sim *s = &self->s;
	const char *why = NULL;
	u32 n;

	push(s);
	for (n = 0; n < MAX_EVENTS; n++) {
		if (s->sb.una == s->end && !s->sb.lost_pending)
			break;
		ASSERT_TRUE(step(s)) {
			TH_LOG("event %u at %llu ns: una %u nxt %u epsn %u",
			       n, (unsigned long long)s->clk.now, s->sb.una,
			       s->sb.nxt, s->rx.epsn);
		}
		why = broken(s);
		ASSERT_EQ(NULL, why) {
			TH_LOG("event %u: %s (una %u nxt %u epsn %u)", n, why,
			       s->sb.una, s->sb.nxt, s->rx.epsn);
		}
	}
	TH_LOG("%u events, %.3f ms: sent %llu dropped %llu trimmed %llu",
	       n, (s->clk.now - UNIT_MS(1)) / 1e6,
	       (unsigned long long)s->sent, (unsigned long long)s->dropped,
	       (unsigned long long)s->trimmed);
	TH_LOG("retx ooo %llu probe %llu rto %llu nack %llu; probes %llu",
	       (unsigned long long)s->sb.retx[MPDT_RETX_OOO],
	       (unsigned long long)s->sb.retx[MPDT_RETX_PROBE],
	       (unsigned long long)s->sb.retx[MPDT_RETX_RTO],
	       (unsigned long long)s->sb.retx[MPDT_RETX_NACK],
	       (unsigned long long)s->probes);
	ASSERT_EQ(s->end, s->sb.una);
	EXPECT_EQ(s->end, s->rx.epsn);
	EXPECT_EQ(0U, s->rx.ooo_count);
	EXPECT_EQ((u64)TOTAL * PKT, s->rx.recv_bytes);
	EXPECT_EQ((u64)TOTAL * PKT, s->sb.bytes_recvd);
	EXPECT_EQ(TOTAL, s->acked.calls);
	EXPECT_EQ(0ULL, mpdt_sb_inflight(&s->sb));
	EXPECT_EQ(s->sb.bytes_sent,
		  s->sb.bytes_recvd + s->sb.bytes_claimed);
	EXPECT_EQ(0ULL, mpdt_sb_rto_deadline(&s->sb, RTO, RTO_MAX));
	if (variant->data_drop >= 5) {
		EXPECT_LT(0ULL, s->sb.retx[MPDT_RETX_OOO]);
		EXPECT_LT(0ULL, s->sb.retx[MPDT_RETX_PROBE] +
				s->sb.retx[MPDT_RETX_RTO]);
	}
	if (variant->trim)
		EXPECT_LT(0ULL, s->sb.retx[MPDT_RETX_NACK]);
	if (!variant->data_drop && !variant->trim && !variant->ctl_drop)
		EXPECT_EQ(s->sent, (u64)TOTAL);
}

TEST_HARNESS_MAIN
