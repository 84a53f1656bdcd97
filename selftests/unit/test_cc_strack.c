// SPDX-License-Identifier: GPL-2.0
/*
 * "strack" congestion control (net/mpdt/cc_strack.c) against STrack
 * §3.2: Algo 3 and 4 with Table 1's constants, on scripted SACK traces.
 * Every expected window is worked out by hand in the comments.
 *
 * Unless a test says otherwise: the reference network of Table 1
 * (100 Gbit/s, 12 us: BDP 150000 bytes, bdp_sf = delay_sf = 1) and an MSS
 * of 1200.  Table 1's MTU is its authors' 4096 bytes whatever the MSS:
 * beta = 5 * 4096 = 20480, eta = 0.15 * 4096 = 614 (614.4), alpha =
 * 4 * 4096 / 12 us = 1365.33 bytes per us (1365333 millionths per ns),
 * target_Qdelay 12 us, target_Qhigh 36 us.
 */
#include "unit.h"
#include "algo.h"
#include "kselftest_harness.h"

#define MSS	1200
#define BRTT	UNIT_US(12)
#define T0	UNIT_MS(1)

static void start_pct(struct mpdt_cc *cc, u32 max_pct)
{
	struct mpdt_params p = unit_cc_params(100000, 12);

	p.strack_max_cwnd_pct = max_pct;
	unit_cc_start(cc, &mpdt_cc_strack, &p, MSS);
}

/* A SACK of @acked bytes whose packet queued @delay ns. */
static u32 ack(struct mpdt_cc *cc, u64 now, u64 delay, u64 acked, u16 ce)
{
	return unit_cc_ack(cc, now, BRTT + delay, acked, 0, ce);
}

/* Table 1 at the reference network: bdp_sf = delay_sf = 1. */
TEST(strack_constants_at_the_reference_network)
{
	struct mpdt_params p = unit_cc_params(100000, 12);
	struct mpdt_strack_consts k;

	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(12), k.target_ns);	/* = base RTT */
	EXPECT_EQ(UNIT_US(36), k.qhigh_ns);	/* 3 x target */
	EXPECT_EQ(150000U, k.max_cwnd);		/* one BDP */
	EXPECT_EQ(20480U, k.beta);		/* 5 * 4096 */
	EXPECT_EQ(614U, k.eta);			/* 0.15 * 4096 */
	EXPECT_EQ(1365333U, k.alpha);		/* 4 * 4096 / 12 us */
	p.strack_target_qdelay_us = 20;
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(20), k.target_ns);
	EXPECT_EQ(UNIT_US(60), k.qhigh_ns);
}

/* 10 Mbit/s x 100 us: BDP 125 bytes, bdp_sf = 125 / 150000.
 * beta = 5 * 4096 * bdp_sf = 17 (17.07), eta = 0.15 * 4096 * bdp_sf = 0
 * (0.51), alpha = 4 * 4096 * bdp_sf / 100 us = 0.000137 bytes per ns =
 * 136 millionths (Table 1's delay_sf = 100 / 12 left out); the window
 * cannot exceed the BDP, so it is one MSS.  1 Gbit/s x 100 us: BDP 12500,
 * bdp_sf = 1/12: beta = 1706 (1706.7), eta = 51 (51.2), alpha =
 * 4 * 4096 / 12 / 100 us = 0.01365 bytes per ns, 13653 millionths.
 */
TEST(strack_constants_scale_with_bdp_and_delay)
{
	struct mpdt_params p = unit_cc_params(10, 100);
	struct mpdt_strack_consts k;
	struct mpdt_cc cc;

	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(UNIT_US(100), k.target_ns);
	EXPECT_EQ(UNIT_US(300), k.qhigh_ns);
	EXPECT_EQ(17U, k.beta);
	EXPECT_EQ(0U, k.eta);
	EXPECT_EQ(136U, k.alpha);
	EXPECT_EQ(1200U, k.max_cwnd);
	unit_cc_start(&cc, &mpdt_cc_strack, &p, MSS);
	EXPECT_EQ(1200U, cc.cwnd);
	unit_cc_stop(&cc);

	p = unit_cc_params(1000, 100);
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(1706U, k.beta);
	EXPECT_EQ(51U, k.eta);
	EXPECT_EQ(13653U, k.alpha);
	EXPECT_EQ(12500U, k.max_cwnd);
}

/* The largest window holds three bursts where they exceed the BDP
 * (cc.h): 4.5 Gbit/s x 31 us, a veth's, is 17437 bytes, a millisecond
 * 562500, so a burst is burst-pkts (16 x 1200 here) and three 57600.  The
 * ns-3 model's fabric, 100 Gbit/s x 9 us (112500), holds three bursts
 * within its BDP; 10 Mbit/s moves 1250 bytes a millisecond, sends single
 * packets and keeps one; burst-pkts 1 keeps the BDP on any path.
 */
TEST(strack_max_cwnd_holds_three_bursts)
{
	struct mpdt_params p = unit_cc_params(4500, 31);
	struct mpdt_strack_consts k;

	p.burst_pkts = 16;
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(57600U, k.max_cwnd);
	p.burst_pkts = 1;
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(17437U, k.max_cwnd);

	p = unit_cc_params(100000, 9);
	p.burst_pkts = 16;
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(112500U, k.max_cwnd);

	p = unit_cc_params(10, 100);
	p.burst_pkts = 16;
	mpdt_strack_consts(&p, MSS, &k);
	EXPECT_EQ(1200U, k.max_cwnd);
}

/* The networks the scaling rule is pinned on, besides the reference. */
static const struct {
	u32 mbps, rtt_us;
	u64 beta, eta, alpha;
} strack_nets[] = {
	{ 10, 10000, 1706, 51, 136 },		/* BDP 12500 */
	{ 10, 20000, 3413, 102, 136 },		/* BDP 25000 */
	{ 400000, 5, 34133, 1024, 5461333 },	/* BDP 250000 */
};

/*
 * Whether a constant @a at one network and @b at another are the same
 * share, as far as integers go: @a counts units of @ua / @da of that
 * network's scale (a byte of a BDP of @da bytes: @ua = 1; alpha, a
 * millionth of a byte per ns, per base RTT of @ua ns), @b units of
 * @ub / @db.  Two floors of values in the same proportion differ by less
 * than one unit of either: |a ua / da - b ub / db| < max(ua / da, ub / db),
 * cross-multiplied (128 bits: alpha's products pass 2^64).
 */
static bool same_share(u64 a, u64 ua, u64 da, u64 b, u64 ub, u64 db)
{
	unsigned __int128 x = (unsigned __int128)a * ua * db;
	unsigned __int128 y = (unsigned __int128)b * ub * da;
	unsigned __int128 ta = (unsigned __int128)ua * db;
	unsigned __int128 tb = (unsigned __int128)ub * da;

	return (x > y ? x - y : y - x) < (ta > tb ? ta : tb);
}

/*
 * The rule of mpdt_strack_consts(): every constant is the same share of
 * the BDP and base RTT as Table 1's at the reference, 100 Gbit/s x 12 us
 * (B0 = 150000 bytes, R0 = 12 us), with Table 1's MTU of 4096 bytes:
 *   beta / BDP, eta / BDP: 5 and 0.15 MTU per B0;
 *   alpha * base_rtt / BDP, line 8's increase per base RTT at no delay
 *   with target_Qdelay = base_rtt: 4 MTU per B0;
 *   target / base_rtt = 1, target_Qhigh / target = 3, max_cwnd = BDP.
 * Each constant is the floor of its exact value, at the reference too, so
 * the shares differ by less than one unit of either constant over its BDP
 * (same_share()).  The connection's MSS (1200, 1400 the module's payload,
 * 4096, 8900 the largest) changes none of them: an MSS of 1400 would make
 * each increase a third of the share Table 1's authors tuned.
 */
TEST(strack_constants_keep_table1_shares_at_any_network)
{
	static const u32 mss[] = { 1200, 1400, 4096, 8900 };
	struct mpdt_params p0 = unit_cc_params(100000, 12), p;
	const u64 b0 = 150000, r0 = UNIT_US(12);
	struct mpdt_strack_consts k0, k;
	size_t i, j;

	for (j = 0; j < ARRAY_SIZE(mss); j++) {
		mpdt_strack_consts(&p0, mss[j], &k0);
		EXPECT_EQ(20480U, k0.beta);
		EXPECT_EQ(614U, k0.eta);
		EXPECT_EQ(1365333U, k0.alpha);
		for (i = 0; i < ARRAY_SIZE(strack_nets); i++) {
			u64 bdp, r = UNIT_US(strack_nets[i].rtt_us);

			p = unit_cc_params(strack_nets[i].mbps,
					   strack_nets[i].rtt_us);
			bdp = mpdt_bdp(&p);
			mpdt_strack_consts(&p, mss[j], &k);
			EXPECT_EQ(r, k.target_ns);
			EXPECT_EQ(3 * r, k.qhigh_ns);
			EXPECT_EQ(bdp, k.max_cwnd);
			EXPECT_EQ(strack_nets[i].beta, k.beta);
			EXPECT_EQ(strack_nets[i].eta, k.eta);
			EXPECT_EQ(strack_nets[i].alpha, k.alpha);
			EXPECT_TRUE(same_share(k.beta, 1, bdp, k0.beta, 1, b0));
			EXPECT_TRUE(same_share(k.eta, 1, bdp, k0.eta, 1, b0));
			EXPECT_TRUE(same_share(k.alpha, r, bdp, k0.alpha, r0,
					       b0)) {
				TH_LOG("mss %u, %u Mbit/s x %u us: alpha %llu",
				       mss[j], strack_nets[i].mbps,
				       strack_nets[i].rtt_us,
				       (unsigned long long)k.alpha);
			}
		}
	}
}

/*
 * Line 8 and 19 in motion: one base RTT of per-packet SACKs without
 * queuing delay, a window's worth of bytes, grows the window by the same
 * share of the BDP at every network: alpha * base_rtt + eta = 4.15 MTU
 * per B0 (11.3%), less what the window's own growth within the RTT takes
 * off each SACK's share (inc * acked / cwnd): 10.4% of the BDP at all
 * four.  Each SACK's increase is floored, less than a byte (at 10 Mbit/s
 * x 10 ms about ten SACKs, under 0.1% of its BDP), so the shares agree
 * within 0.1% of the BDP.  Table 1's alpha, delay_sf times this,
 * would fill the window to its maximum instead (+40% of the BDP).
 */
static u64 strack_growth_per_rtt(u32 mbps, u32 rtt_us, u64 *bdp)
{
	struct mpdt_params p = unit_cc_params(mbps, rtt_us);
	u64 r = UNIT_US(rtt_us), now = 100 * r, w, acked = 0, a;
	struct mpdt_cc cc;

	*bdp = mpdt_bdp(&p);
	unit_cc_start(&cc, &mpdt_cc_strack, &p, MSS);
	/* Delay 2 base RTTs, avg the same: x (1 - 0.8 / 2) = 0.6 */
	unit_cc_ack(&cc, now, 3 * r, MSS, 0, 1);
	w = cc.cwnd;
	/* A base RTT later: line 19 is due once, at the first SACK. */
	now += r + 1;
	while (acked < w) {
		a = min(w - acked, (u64)MSS);
		unit_cc_ack(&cc, now++, r, a, 0, 0);
		acked += a;
	}
	a = cc.cwnd - w;
	unit_cc_stop(&cc);
	return a;
}

TEST(strack_grows_by_the_same_share_of_the_bdp_per_rtt)
{
	u64 g0, b0, g, bdp;
	size_t i;

	g0 = strack_growth_per_rtt(100000, 12, &b0);
	EXPECT_EQ(15627U, g0);		/* 10.4% of 150000 */
	for (i = 0; i < ARRAY_SIZE(strack_nets); i++) {
		g = strack_growth_per_rtt(strack_nets[i].mbps,
					  strack_nets[i].rtt_us, &bdp);
		EXPECT_GT(bdp * b0, 1000 * (g * b0 > g0 * bdp ?
					    g * b0 - g0 * bdp :
					    g0 * bdp - g * b0)) {
			TH_LOG("%u Mbit/s x %u us: +%llu of %llu",
			       strack_nets[i].mbps, strack_nets[i].rtt_us,
			       (unsigned long long)g,
			       (unsigned long long)bdp);
		}
	}
}

/*
 * A single-bottleneck network, for traces.  @flows STrack senders, each
 * its own connection, share one FIFO link; its queue marks CE by RED
 * between 25% and 75% of the BDP (STrack §4's K_min and K_max) and never
 * drops: the tests assert it stays below §4's 5 BDPs of buffer.  The
 * propagation delay makes an empty queue's RTT the base RTT.  Every
 * packet carries an MSS and is acknowledged alone; the senders are
 * ACK-clocked by the transport's rule (a packet may go when inflight is 0
 * or inflight + MSS <= cwnd).  Flow f starts f * join base RTTs in.
 * Packets leave the queue in order and all take the same propagation
 * delay, so their ACKs come back in the order sent: a ring.
 */
#define NET_FLOWS	4
#define NET_RING	512

struct net_pkt {
	u64 sent, arrives;
	u32 flow;
	bool ce;
};

struct net {
	struct mpdt_cc cc[NET_FLOWS];
	u64 inflight[NET_FLOWS];
	struct net_pkt ring[NET_RING];
	u32 head, tail, flows;
	u64 now, link_free, tx_ns, prop_ns, bdp, queue_max;
	u32 mbps;
	struct unit_rng rng;
	bool overflow;
};

/* What a trace showed from a settling time to its end. */
struct net_stats {
	u64 swing;		/* largest move of one window in a base RTT */
	u64 total_min;		/* sum of the windows at a base RTT's end */
	u64 total_max;
	u64 delivered_min;	/* least bytes acknowledged in a base RTT */
	u64 queue_max;		/* longest queue a packet found, bytes */
	u64 queue_max_ever;	/* the same over the whole trace */
};

/* Bytes queued ahead of a packet arriving now. */
static u64 net_backlog(const struct net *n)
{
	if (n->link_free <= n->now)
		return 0;
	return (n->link_free - n->now) * n->mbps / 8000;
}

static void net_send(struct net *n, u32 f)
{
	u64 kmin = n->bdp / 4, kmax = n->bdp * 3 / 4, q;
	struct net_pkt *pkt;

	while (!n->inflight[f] || n->inflight[f] + MSS <= n->cc[f].cwnd) {
		if (n->tail - n->head == NET_RING) {
			n->overflow = true;
			return;
		}
		pkt = &n->ring[n->tail++ % NET_RING];
		q = net_backlog(n);
		n->queue_max = max(n->queue_max, q);
		pkt->sent = n->now;
		pkt->flow = f;
		pkt->ce = q > kmax ||
			  (q > kmin &&
			   unit_rand_below(&n->rng, kmax - kmin) < q - kmin);
		n->link_free = max(n->link_free, n->now) + n->tx_ns;
		pkt->arrives = n->link_free + n->prop_ns;
		n->inflight[f] += MSS;
	}
}

static void net_trace(struct net *n, const struct mpdt_params *p,
		      u32 flows, u32 join, u32 settle, u32 rtts,
		      struct net_stats *st)
{
	u64 r = UNIT_US(p->base_rtt_us), lo[NET_FLOWS], hi[NET_FLOWS];
	u64 bucket = 0, delivered = 0, total;
	struct net_pkt pkt;
	u32 f, started = 1;

	memset(n, 0, sizeof(*n));
	memset(st, 0, sizeof(*st));
	st->total_min = ~0ULL;
	st->delivered_min = ~0ULL;
	n->flows = flows;
	n->mbps = p->link_mbps;
	n->bdp = mpdt_bdp(p);
	n->tx_ns = (u64)MSS * 8000 / p->link_mbps;
	n->prop_ns = r - n->tx_ns;
	n->rng.state = 1;
	for (f = 0; f < flows; f++) {
		unit_cc_start(&n->cc[f], &mpdt_cc_strack, p, MSS);
		lo[f] = ~0ULL;
		hi[f] = 0;
	}
	net_send(n, 0);
	while (n->now < rtts * r && n->head != n->tail) {
		pkt = n->ring[n->head % NET_RING];
		if (started < flows && started * join * r <= pkt.arrives) {
			n->now = started * join * r;
			net_send(n, started++);
			continue;
		}
		n->head++;
		n->now = pkt.arrives;
		for (; n->now >= (bucket + 1) * r; bucket++) {
			total = 0;
			for (f = 0; f < flows; f++) {
				total += n->cc[f].cwnd;
				if (bucket >= settle && f < started)
					st->swing = max(st->swing,
							hi[f] - lo[f]);
				lo[f] = ~0ULL;
				hi[f] = 0;
			}
			if (bucket >= settle) {
				st->total_min = min(st->total_min, total);
				st->total_max = max(st->total_max, total);
				st->delivered_min = min(st->delivered_min,
							delivered);
				st->queue_max = max(st->queue_max,
						    n->queue_max);
			}
			st->queue_max_ever = max(st->queue_max_ever,
						 n->queue_max);
			n->queue_max = 0;
			delivered = 0;
		}
		f = pkt.flow;
		n->inflight[f] -= MSS;
		delivered += MSS;
		unit_cc_ack(&n->cc[f], n->now, n->now - pkt.sent, MSS,
			    n->inflight[f], pkt.ce);
		total = n->cc[f].cwnd;
		lo[f] = min(lo[f], total);
		hi[f] = max(hi[f], total);
		net_send(n, f);
	}
	for (f = 0; f < flows; f++)
		unit_cc_stop(&n->cc[f]);
}

/*
 * At 10 Mbit/s x 10 ms and x 20 ms (BDP 10.4 and 20.8 packets): four
 * flows join one every 20 base RTTs, each allowed one BDP (an incast's
 * senders); and one flow alone, allowed 3 BDPs, so that its window, not
 * the cap, meets the link.  From 40 base RTTs after the last join to the
 * 1000th, the windows settle on the BDP plus a queue near target_Qdelay
 * (the base RTT: one more BDP) and stay there:
 * - no window moves by a tenth of the BDP within a base RTT (at most
 *   2.4% seen);
 * - their sum stays within [1, 2.5] BDPs (1.84-2.31 seen);
 * - the queue stays below 1.5 BDPs, half of target_Qhigh (1.11 seen);
 * - the link never idles for long: each base RTT delivers 90% of a BDP
 *   at least (96%: 10 or 11 packets of 1200 in 12500 bytes).
 * With Table 1's alpha (delay_sf = 833 or 1667 times MPDT's; obtained
 * here by scaling strack_alpha_pct) the same traces go on and off: a
 * window swings by 0.74-2.35 BDPs within one base RTT, the lone flow
 * leaves the link idle a third of the time (62-67% delivered), queues
 * reach 2.3-2.8 BDPs.
 */
TEST(strack_trace_settles_without_on_off_at_10mbit)
{
	static const struct {
		u32 flows, max_pct;
	} cases[] = { { 4, 100 }, { 1, 300 } };
	static const u32 rtts[] = { 10000, 20000 };
	struct mpdt_params p;
	struct net_stats st;
	static struct net n;
	size_t i, j;
	u64 bdp;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (j = 0; j < ARRAY_SIZE(rtts); j++) {
			p = unit_cc_params(10, rtts[j]);
			p.strack_max_cwnd_pct = cases[i].max_pct;
			bdp = mpdt_bdp(&p);
			net_trace(&n, &p, cases[i].flows, 20,
				  20 * cases[i].flows + 40, 1000, &st);
			ASSERT_FALSE(n.overflow);
			EXPECT_GT(5 * bdp, st.queue_max_ever);
			EXPECT_GT(bdp / 10, st.swing) {
				TH_LOG("%u flows, %u us", cases[i].flows,
				       rtts[j]);
			}
			EXPECT_LE(bdp, st.total_min);
			EXPECT_GE(bdp * 5 / 2, st.total_max);
			EXPECT_GT(bdp * 3 / 2, st.queue_max);
			EXPECT_LE(bdp * 9 / 10, st.delivered_min);

			/* Table 1's alpha, for contrast. */
			p.strack_alpha_pct = 400 * rtts[j] / 12;
			net_trace(&n, &p, cases[i].flows, 20,
				  20 * cases[i].flows + 40, 1000, &st);
			ASSERT_FALSE(n.overflow);
			EXPECT_LT(bdp / 2, st.swing);
		}
	}
}

TEST(strack_starts_at_the_largest_window)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	EXPECT_EQ(150000U, cc.cwnd);
	unit_cc_stop(&cc);
	start_pct(&cc, 200);
	EXPECT_EQ(300000U, cc.cwnd);
	unit_cc_stop(&cc);
}

/* Line 14, once per base RTT (line 2), plus eta each base RTT (line 19).
 * Delay 24 us, avg 24 us: factor 1 - 0.8 * 12 / 24 = 0.6.
 */
TEST(strack_md_at_most_once_per_base_rtt)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	/* 150000 * 0.6 = 90000, + eta 614 */
	EXPECT_EQ(90614U, ack(&cc, T0, UNIT_US(24), MSS, 1));
	/* 1 us later: neither a decrease nor a shuffle is due */
	EXPECT_EQ(90614U, ack(&cc, T0 + UNIT_US(1), UNIT_US(24), MSS, 1));
	EXPECT_EQ(90614U, ack(&cc, T0 + BRTT, UNIT_US(24), MSS, 1));
	/* one ns past a base RTT: 90614 * 0.6 = 54368, + 614 */
	EXPECT_EQ(54982U, ack(&cc, T0 + BRTT + 1, UNIT_US(24), MSS, 1));
	unit_cc_stop(&cc);
}

/* Without ECN, a delay between target and Qhigh also decreases (line 9
 * does not test ecn).  Delay 34 us: 1 - 0.8 * 22 / 34 = 0.4824 -> 0.5.
 */
TEST(strack_md_floor_is_one_half)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	EXPECT_EQ(75614U, ack(&cc, T0, UNIT_US(34), MSS, 0));
	unit_cc_stop(&cc);

	/* Delay above Qhigh before any achievedBDP: MD, floored too. */
	start_pct(&cc, 100);
	EXPECT_EQ(75614U, ack(&cc, T0, UNIT_US(108), MSS, 1));
	unit_cc_stop(&cc);
}

/* Line 14 never cuts below the bursts' budget, three bursts of 16 (57600
 * bytes at MSS 1200) on a path that never marked ECN (burst_pkts 16 in
 * the CC's parameters, engine.c path_refresh()): the delay it reads is
 * the bursts' own.  Delay 24 us: factor 0.6, as above.
 */
TEST(strack_md_keeps_the_bursts_budget)
{
	struct mpdt_params p = unit_cc_params(100000, 12);
	struct mpdt_cc cc;

	p.burst_pkts = 16;
	unit_cc_start(&cc, &mpdt_cc_strack, &p, MSS);
	/* 150000 * 0.6 = 90000, + eta 614 */
	EXPECT_EQ(90614U, ack(&cc, T0, UNIT_US(24), MSS, 0));
	/* 90614 * 0.6 = 54368: the budget, 57600, + 614 */
	EXPECT_EQ(58214U, ack(&cc, T0 + BRTT + 1, UNIT_US(24), MSS, 0));
	/* 58214 * 0.6 = 34928: the budget again, + 614 */
	EXPECT_EQ(58214U, ack(&cc, T0 + 2 * (BRTT + 1), UNIT_US(24), MSS, 0));
	unit_cc_stop(&cc);

	/* A path that marked (burst_pkts 1): the paper's cut, to 54368. */
	p.burst_pkts = 1;
	unit_cc_start(&cc, &mpdt_cc_strack, &p, MSS);
	EXPECT_EQ(90614U, ack(&cc, T0, UNIT_US(24), MSS, 0));
	EXPECT_EQ(54982U, ack(&cc, T0 + BRTT + 1, UNIT_US(24), MSS, 0));
	unit_cc_stop(&cc);

	/* Over a veth (4.5 Gbit/s x 31 us: BDP 17437 bytes) the budget is
	 * the largest window too: no delay below Qhigh moves it.
	 */
	p = unit_cc_params(4500, 31);
	p.burst_pkts = 16;
	unit_cc_start(&cc, &mpdt_cc_strack, &p, MSS);
	EXPECT_EQ(57600U, cc.cwnd);
	EXPECT_EQ(57600U, ack(&cc, T0, UNIT_US(60), MSS, 0));
	EXPECT_EQ(57600U, ack(&cc, T0 + UNIT_US(100), UNIT_US(80), MSS, 0));
	unit_cc_stop(&cc);
}

/* Lines 5-8 on a window below its maximum (max 300000: start there, MD
 * once to 180614).
 */
TEST(strack_increases)
{
	struct mpdt_cc cc;

	start_pct(&cc, 200);
	/* 300000 * 0.6 = 180000 + 614 */
	EXPECT_EQ(180614U, ack(&cc, T0, UNIT_US(24), MSS, 1));
	/* line 6, delay 48 > Qhigh, no ECN: beta * 1200 / 180614 = 136.07 */
	EXPECT_EQ(180750U, ack(&cc, T0 + 1000, UNIT_US(48), MSS, 0));
	/* line 8, delay 6 us: alpha * 6 us = 8191 per window (8191.998),
	 * 8191 * 1200 / 180750 = 54.38
	 */
	EXPECT_EQ(180804U, ack(&cc, T0 + 2000, UNIT_US(6), MSS, 0));
	/* ECN at a low delay: scenario 2, the window holds */
	EXPECT_EQ(180804U, ack(&cc, T0 + 3000, UNIT_US(6), MSS, 1));
	/* a SACK acknowledging nothing grows nothing, but the shuffle is
	 * due one base RTT after the first: + 614
	 */
	EXPECT_EQ(181418U, ack(&cc, T0 + BRTT + 1, 0, 0, 0));
	unit_cc_stop(&cc);
}

/* Algo 1 lines 7-9: a faster sample lowers the base RTT, and the queuing
 * delay is measured from it.
 */
TEST(strack_base_rtt_follows_the_fastest_sample)
{
	struct mpdt_cc cc;

	start_pct(&cc, 200);
	EXPECT_EQ(180614U, ack(&cc, T0, UNIT_US(24), MSS, 1));
	/* rtt 10 us: base 10 us, delay 0: alpha * 12 us = 16383 (16383.996),
	 * 16383 * 1200 / 180614 = 108.85
	 */
	EXPECT_EQ(180722U, unit_cc_ack(&cc, T0 + 1000, UNIT_US(10), MSS, 0,
				       0));
	/* rtt 12 us is now a 2 us delay: alpha * 10 us = 13653 (13653.33),
	 * 13653 * 1200 / 180722 = 90.66
	 */
	EXPECT_EQ(180812U, unit_cc_ack(&cc, T0 + 2000, UNIT_US(12), MSS, 0,
				       0));
	unit_cc_stop(&cc);
}

/* Algo 4 and Algo 3 lines 10-12: achievedBDP is what was acknowledged in
 * base_rtt + target_Qdelay = 24 us; under heavy congestion a small one
 * becomes the window.
 */
TEST(strack_heavy_congestion_uses_achieved_bdp)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	/* delay 0: avg 0; the window is at its maximum */
	EXPECT_EQ(150000U, ack(&cc, T0, 0, MSS, 0));
	/* 24 us + 1 ns later: achievedBDP = 1200 + 3000 */
	EXPECT_EQ(150000U, ack(&cc, T0 + UNIT_US(24) + 1, 0, 3000, 0));
	/* delay 200 us > Qhigh, avg = 200 * 0.125 = 25 us > target,
	 * 4200 < 150000 / 8 = 18750: cwnd = 4200 (no shuffle: 1 us)
	 */
	EXPECT_EQ(4200U, ack(&cc, T0 + UNIT_US(25), UNIT_US(200), MSS, 1));
	unit_cc_stop(&cc);
}

/* achievedBDP >= max_cwnd / 8 is not heavy congestion: MD instead,
 * 1 - 0.8 * (25 - 12) / 25 = 0.584 -> 87600.
 */
TEST(strack_large_achieved_bdp_falls_back_to_md)
{
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	ack(&cc, T0, 0, MSS, 0);
	ack(&cc, T0 + UNIT_US(24) + 1, 0, 18750 - MSS, 0);
	EXPECT_EQ(87600U, ack(&cc, T0 + UNIT_US(25), UNIT_US(200), MSS, 1));
	unit_cc_stop(&cc);
}

/* Algo 4 line 3: a probe's SACK adds nothing to rx_count. */
TEST(strack_probe_bytes_do_not_count)
{
	struct mpdt_cc_ack a = {
		.now = T0 + UNIT_US(24) + 1, .rtt_ns = BRTT,
		.acked_bytes = 100000, .probe = true,
	};
	struct mpdt_cc cc;

	start_pct(&cc, 100);
	ack(&cc, T0, 0, MSS, 0);
	cc.ops->on_ack(&cc, &a);
	/* achievedBDP = 1200, not 101200: used, and the floor is an MSS */
	EXPECT_EQ(1200U, ack(&cc, T0 + UNIT_US(25), UNIT_US(200), MSS, 1));
	unit_cc_stop(&cc);
}

/* No sample, no adjustment; a window never leaves [MSS, max].  Without
 * eta, which alone would hold a halved window at 2 * 614 bytes.
 */
TEST(strack_bounds)
{
	struct mpdt_params p = unit_cc_params(100000, 12);
	struct mpdt_cc cc;
	u64 now = T0;
	int i;

	p.strack_eta_pct = 0;
	unit_cc_start(&cc, &mpdt_cc_strack, &p, MSS);
	EXPECT_EQ(150000U, unit_cc_ack(&cc, now, 0, MSS, 0, 1));
	for (i = 0; i < 40; i++) {
		now += BRTT + 1;
		ack(&cc, now, UNIT_US(34), MSS, 1);
	}
	/* halved 40 times: the MSS floor holds it at 1200 */
	EXPECT_EQ(1200U, cc.cwnd);
	for (i = 0; i < 200; i++) {
		now += BRTT + 1;
		ack(&cc, now, 0, 100000, 0);
	}
	EXPECT_EQ(150000U, cc.cwnd);
	unit_cc_stop(&cc);
}

/*
 * 10 Tbit/s and 10 s, a valid if extreme network, make beta 3.7e12 bytes
 * (MSS 8900): beta * acked / cwnd overflows for a SACK of 2^36 bytes
 * (what a peer may claim after as many sent) and mpdt_mul_div()
 * saturates.  The increase must saturate too, not wrap the window round
 * to one below where it was.
 */
TEST(strack_increase_saturates_instead_of_wrapping)
{
	struct mpdt_params p = unit_cc_params(10000000, 10000000);
	struct mpdt_cc cc;

	unit_cc_start(&cc, &mpdt_cc_strack, &p, 8900);
	/* Line 19 once, so the next SACKs within a base RTT skip it. */
	unit_cc_ack(&cc, UNIT_SEC(100), UNIT_SEC(50), 1, 0, 0);
	cc.cwnd = 8900;			/* as after a run of decreases */
	/* Line 6: delay 40 s > target_Qhigh 30 s, no ECN */
	EXPECT_EQ(0x7fffffffU,
		  unit_cc_ack(&cc, UNIT_SEC(101), UNIT_SEC(50), 1ULL << 36, 0,
			      0));
	cc.cwnd = 8900;
	/* Line 8: no queuing delay */
	EXPECT_EQ(0x7fffffffU,
		  unit_cc_ack(&cc, UNIT_SEC(102), UNIT_SEC(10), 1ULL << 36, 0,
			      0));
	unit_cc_stop(&cc);
}

TEST_HARNESS_MAIN
