// SPDX-License-Identifier: GPL-2.0
/*
 * The connection engine (engine.h).  Pure core.
 *
 * Sending half: messages are cut into packets and clocked out under the
 * congestion window; SACKs, NACKs, probes and timeouts drive the STrack
 * §3.3.2 scoreboard, and through it the load balancer and the congestion
 * control.  Receiving half: DATA is placed into the message it belongs to
 * (in any order), each message is delivered once, and the sender hears of
 * it through coalesced SACKs (§3.3.1), NACKs and probe answers.
 *
 * The hooks of one SACK run in this order (test_engine.c pins it):
 *   1. the RTT sample of its echoed timestamp;
 *   2. lb->on_loss for each packet the SACK shows lost (probe, OOO),
 *      as the scoreboard declares it;
 *   3. cc->undo if the SACK shows the latest RTO spurious (Eifel);
 *   4. cc->rescale if the path's measured base RTT or BDP moved (path.h);
 *   5. lb->on_ack, with the entropies of the packets newly acknowledged;
 *   6. cc->on_ack;
 *   7. cc->on_message_done for each chunk of a long message (cc.chunk)
 *      and each other message the SACK completed, after on_ack: MCC (§3)
 *      judges a message by the largest packet delay sampled until it
 *      completed, the SACK that completes it included;
 *   8. lb->choose_ev for each packet the window then lets out.
 */
#include "engine.h"
#include "trace.h"

/* Partial messages outlive a silent peer this long at least. */
#define MPDT_REASSEMBLY_MIN_NS	(10ULL * 1000 * 1000 * 1000)
/* The most a socket keeps in its host's queues: tcp_limit_output_bytes. */
#define MPDT_HOST_QUEUE_MAX	(1024 * 1024)

static const enum mpdt_stat retx_stat[__MPDT_RETX_MAX] = {
	[MPDT_RETX_OOO]		= MPDT_STAT_RETX_OOO,
	[MPDT_RETX_PROBE]	= MPDT_STAT_RETX_PROBE,
	[MPDT_RETX_RTO]		= MPDT_STAT_RETX_RTO,
	[MPDT_RETX_NACK]	= MPDT_STAT_RETX_NACK,
};

static u64 us_to_ns(u32 us)
{
	return (u64)us * MPDT_NSEC_PER_USEC;
}

/* Time from @then to @now; 0 when @then is later. */
static u64 since(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

static void count(struct mpdt_eng *e, enum mpdt_stat s)
{
	e->ops->count(e, s, 1);
}

/* A live sender with anything unacknowledged sends at least once per
 * rto-max (its RTO backoff stops there; every node is assumed to share
 * the timing parameters, as it shares udp-port).  An incarnation quiet
 * for twice that has no live sender behind it.
 */
u64 mpdt_eng_quiet_ns(const struct mpdt_params *p)
{
	return 2 * us_to_ns(p->rto_max_us);
}

/* The base RTT of the path, the one every CC and LB scales from: the
 * configured base-rtt-us, or the windowed minimum of the samples (rtt.h),
 * or before the first sample a guess.  Never below a microsecond, the
 * smallest configurable: a sample of 0 (a forged echo, a coarse clock)
 * would make the probe interval 0, a timer storm.
 */
static u64 path_rtt_ns(const struct mpdt_eng *e)
{
	if (e->params->base_rtt_us)
		return us_to_ns(e->params->base_rtt_us);
	if (!e->rtt.samples)
		return MPDT_PATH_RTT_GUESS_NS;
	return max(e->rtt.min_rtt, MPDT_NSEC_PER_USEC);
}

/* The base RTT of the timers (probes, the policies' RTT, the first RTO):
 * never below the measured one, though configured lower: an emulated or
 * virtualized path can be slower than the fabric it stands for, and
 * probing faster than the path can answer only adds load.  Before the
 * first sample, never below the guess: a base-rtt-us of 1 on a 1 ms path
 * sent a probe every 3 us until the first SACK.
 */
static u64 base_rtt_ns(const struct mpdt_eng *e)
{
	u64 measured = e->rtt.samples ? e->rtt.min_rtt :
					MPDT_PATH_RTT_GUESS_NS;

	return max(path_rtt_ns(e), measured);
}

/* The RTT the loss detectors and the policies wait on: smoothed, with
 * the base RTT standing in before the first sample.
 */
static u64 smoothed_rtt_ns(const struct mpdt_eng *e)
{
	return e->rtt.samples ? e->rtt.srtt : base_rtt_ns(e);
}

/* Bytes per second the connection's DATA is paced at (pacing.h), 0 if
 * it is not.
 */
static u64 pacing_rate(struct mpdt_eng *e)
{
	u64 max_rate;

	if (!e->ops->paced || !e->ops->paced(e, &max_rate))
		return 0;
	return mpdt_pacing_rate(e->cc.cwnd, e->rtt.samples ? e->rtt.srtt : 0,
				!e->path.full, max_rate);
}

/* When the next @bytes leave (pacing.h), which is also the time they
 * are sent for the RTT samples and the loss detectors: a packet that
 * waits in fq for its time is not yet on its way.  Later than @now only
 * where the glue says something holds packets to their times, once the
 * RTT is measured; e->tx_at is what the glue stamps, 0 when unpaced.
 */
static u64 depart(struct mpdt_eng *e, u64 bytes, u64 now)
{
	u64 rate = pacing_rate(e);

	e->tx_at = rate ? mpdt_pacing_depart(&e->pacing, bytes, rate, now) : 0;
	return e->tx_at ?: now;
}

/* The times the scoreboard judges by, now. */
static struct mpdt_sb_clock sb_clock(const struct mpdt_eng *e, u64 now)
{
	return (struct mpdt_sb_clock) {
		.now = now,
		.base_rtt_ns = base_rtt_ns(e),
		.srtt_ns = smoothed_rtt_ns(e),
	};
}

static u32 cwnd_pkts(const struct mpdt_eng *e)
{
	return max(1U, e->cc.cwnd / max(e->cc.mss, 1U));
}

/* @now differs from @was by more than an eighth of @was. */
static bool moved(u64 was, u64 now)
{
	u64 d = was > now ? was - now : now - was;

	return d > was / 8;
}

/* Rebuild e->eff from the live parameters and the path if its base RTT
 * or BDP moved by more than an eighth (or @force), and say whether it did:
 * e->eff is always what the CC and the LB were last scaled with.
 */
static bool path_refresh(struct mpdt_eng *e, bool force)
{
	const struct mpdt_params *p = e->params;
	/* Rounded up: 8.96 us taken as 8 put every sample of an idle path
	 * above SMaRTT's FastIncrease bound (110% of the base RTT, §3.4).
	 */
	u64 rtt_us = clamp(mpdt_div(mpdt_add_sat(path_rtt_ns(e),
						 MPDT_NSEC_PER_USEC - 1),
				    MPDT_NSEC_PER_USEC), 1ULL, (u64)U32_MAX);
	u64 mbps = p->link_mbps, bdp;
	u32 burst_pkts;

	/* A configured speed over a measured base RTT: the windows grow to
	 * its BDP as a measured path's do, from RFC 6928's initial window
	 * until the pipe is full (path.h), and take it from then on once the
	 * path has marked ECN.  Its BDP over the RTT guessed before the first
	 * sample (12.5 MB at 100 Gbit/s: every 4 MiB message of the ns-3
	 * model's permutation left in its first burst), or over a first
	 * sample that waited for neighbour resolution or a stalled host, is
	 * no BDP of the path.  A path that never marked leaves the CCs no way
	 * to tell a queue they built from a stale delay (STrack grows its
	 * window on both, §3.2 Algo 3 line 6): there the measured BDP bounds
	 * the windows, as with no speed configured.  Sixteen connections into
	 * one socket over a veth, told 100 Gbit/s, each kept 1.55 MB in
	 * flight to a receiver that took 1 Gbit/s: its backlog and buffer
	 * overflowed, a third of the DATA sent was resends, goodput halved.
	 */
	if (mbps && !p->base_rtt_us && (!e->path.full || !e->path.marks) &&
	    mpdt_path_bdp(&e->path, us_to_ns(rtt_us), e->cc.mss) <
	    mbps * rtt_us / 8)
		mbps = 0;
	/* A BDP of one payload at least, as mpdt_params_invalid() asks of
	 * a configured one: SMaRTT's fair decrease divides by it.
	 */
	if (!mbps || mbps * rtt_us / 8 < p->payload) {
		bdp = mbps ? 0 : mpdt_path_bdp(&e->path, us_to_ns(rtt_us),
					       e->cc.mss);
		bdp = max_t(u64, bdp, p->payload);
		/* Rounded up, so that mbps * rtt_us / 8 holds the BDP. */
		mbps = min_t(u64, mpdt_add_sat(mpdt_mul_div(bdp, 8, rtt_us), 1),
			     U32_MAX);
	}
	/* The CCs' largest window holds three bursts (cc.h
	 * mpdt_cc_max_cwnd()) once the pipe is full, on a path that never
	 * marked ECN.  In startup the window follows what the path proved it
	 * carries, not a millisecond of a rate still growing.  A path that
	 * marks has a switch for its bottleneck and the CC its signal: there
	 * a flow's BDP is its share, and three bursts each for the 64
	 * senders of an incast (4.3 MB against a BDP of 112 KB) tripled what
	 * the ns-3 model's switches trimmed (Documentation/sim.rst).
	 */
	burst_pkts = e->path.full && !e->path.marks ? p->burst_pkts : 1;
	if (!force && !moved(e->eff.base_rtt_us, rtt_us) &&
	    !moved(mpdt_bdp(&e->eff), mbps * rtt_us / 8) &&
	    e->eff.burst_pkts == burst_pkts)
		return false;
	e->eff = *p;
	e->eff.base_rtt_us = rtt_us;
	e->eff.link_mbps = mbps;
	e->eff.burst_pkts = burst_pkts;
	return true;
}

/* Of @m's packets, how many have their bytes in place: the glue copies a
 * long message in pieces of whole packets while the first ones go.
 */
static u32 pkts_in_place(const struct mpdt_eng_txmsg *m)
{
	return m->missing ? (m->len - m->missing) / m->mss : m->npkts;
}

/* Nothing in place is left to send: the application (or the copy into
 * the message) is what limits the rate now.
 */
static bool nothing_to_send(const struct mpdt_eng *e)
{
	return !e->tx_next || e->tx_next->sent == pkts_in_place(e->tx_next);
}

/* A SACK told us of @acked bytes delivered and echoed @echo_ts (0 if it
 * gave no RTT sample): measure, and rescale the CC if the path moved.
 */
static void path_on_ack(struct mpdt_eng *e, u64 acked, u64 echo_ts,
			u64 old_min_rtt, u64 now)
{
	bool round = mpdt_path_on_ack(&e->path, acked, echo_ts,
				      path_rtt_ns(e), nothing_to_send(e), now);

	if ((round || e->rtt.min_rtt != old_min_rtt) &&
	    path_refresh(e, false) && e->cc.ops->rescale)
		e->cc.ops->rescale(&e->cc, &e->eff);
}

u64 mpdt_eng_rto(const struct mpdt_eng *e)
{
	return mpdt_rtt_rto(&e->rtt, base_rtt_ns(e),
			    us_to_ns(e->params->rto_min_us),
			    us_to_ns(e->params->rto_max_us));
}

static void fill_header(struct mpdt_eng *e, struct mpdt_pkt *h, u8 type,
			u16 flags, u32 nonce, u16 ev)
{
	h->hdr.type = type;
	h->hdr.flags = flags;
	h->hdr.nonce = nonce;
	h->hdr.ev = ev;
}

/* ---- Sending half ---------------------------------------------------- */

static void release_tx(struct mpdt_eng *e)
{
	struct mpdt_eng_txmsg *m;

	while (!list_empty(&e->tx_msgs)) {
		m = list_first_entry(&e->tx_msgs, struct mpdt_eng_txmsg, node);
		list_del(&m->node);
		e->ops->tx_release(e, m);
	}
	e->tx_next = NULL;
	e->msgs_inflight = 0;
	memset(e->chunks, 0, sizeof(e->chunks));
}

/* The peer stopped answering: drop what we were sending to it.  The next
 * message starts a new incarnation.
 */
static void fail(struct mpdt_eng *e)
{
	e->state = MPDT_ENG_FAILED;
	trace_mpdt_failed(e);
	release_tx(e);
	count(e, MPDT_STAT_CONN_FAILED);
	e->ops->failed(e);
}

/* Every loss is counted by cause when the scoreboard declares it, and
 * the policy hears of the ones that are evidence against a path.  The
 * OOO rule sweeps wide (§3.3.2): everything unacked below the highest PSN
 * received, which takes in packets still queued on slower, healthy paths.
 * Only a packet unacked for well over a smoothed RTT (1.5 x) is evidence;
 * reporting the others would penalise the healthy paths along with a dead
 * one, and a policy that finds every path penalised falls back to the
 * least penalised: the dead one.  An RTO is reported once, by on_rto().
 * A NACK reaches the policy as a NACK (on_nack).
 */
static void on_lost(void *ctx, u32 psn, const struct mpdt_sb_pkt *pkt,
		    enum mpdt_retx_cause cause)
{
	struct mpdt_eng *e = ctx;
	u64 now = e->now, srtt = smoothed_rtt_ns(e);
	bool evidence;

	count(e, retx_stat[cause]);
	trace_mpdt_loss(e, psn, pkt->ev, cause);
	if (!e->lb.ops->on_loss)
		return;
	switch (cause) {
	case MPDT_RETX_PROBE:
	case MPDT_RETX_OOO:
		evidence = pkt->sent_ns <= now - min(now, srtt + srtt / 2);
		break;
	default:
		evidence = false;
	}
	if (evidence)
		e->lb.ops->on_loss(&e->lb, pkt->ev, cause == MPDT_RETX_RTO,
				   now);
}

bool mpdt_eng_needs_start(const struct mpdt_eng *e, u64 now)
{
	switch (e->state) {
	case MPDT_ENG_LISTEN:
	case MPDT_ENG_FAILED:
		return true;
	case MPDT_ENG_ACTIVE:
		/* Idle for the quiet time: the peer may have forgotten this
		 * incarnation (it adopts a new nonce after that much quiet
		 * anyway, and may have collected the connection), and the
		 * path's RTT and congestion state are stale (cf. RFC 2861).
		 */
		return list_empty(&e->tx_msgs) &&
		       since(now, e->heard_ns) >= mpdt_eng_quiet_ns(e->params);
	default:
		return false;
	}
}

void mpdt_eng_start(struct mpdt_eng *e, struct mpdt_sb_pkt *ring, u32 nonce,
		    u64 seed, u64 now)
{
	const struct mpdt_params *p = e->params;

	e->nonce = nonce;
	e->state = MPDT_ENG_ACTIVE;
	e->cookie_sent_ns = 0;
	e->peer_full = false;
	e->test_out = false;
	e->pause_until = 0;
	e->peer_room = U32_MAX;
	e->burst_left = 0;
	/* A failed incarnation's departure times are not the new one's. */
	e->pacing = (struct mpdt_pacing){};
	mpdt_sb_init(&e->sb, ring, e->rx.window, now);
	mpdt_sb_report_losses(&e->sb, on_lost, e);
	mpdt_rtt_init(&e->rtt);
	mpdt_path_init(&e->path);
	e->cc.mss = p->payload;
	e->cc.chunk = 0;
	path_refresh(e, true);
	if (e->lb.priv)
		memset(e->lb.priv, 0, e->lb.priv_len);
	if (e->cc.priv)
		memset(e->cc.priv, 0, e->cc.ops->priv_size);
	e->lb.ops->init(&e->lb, &e->eff, seed);
	e->cc.ops->init(&e->cc, &e->eff);
}

/* One packet may always go, or a tiny window would stall. */
static bool cwnd_takes(const struct mpdt_eng *e, u64 inflight, u32 len)
{
	return !inflight || inflight + len <= e->cc.cwnd;
}

static bool cwnd_allows(const struct mpdt_eng *e, u32 len)
{
	return cwnd_takes(e, mpdt_sb_inflight(&e->sb), len);
}

/* With a window below two coalescing thresholds the receiver might never
 * reach one: the last packet that fits asks for the SACK itself.
 */
static bool window_starves_acks(const struct mpdt_eng *e, u32 len)
{
	return e->cc.cwnd < 2 * e->params->ack_bytes &&
	       mpdt_sb_inflight(&e->sb) + len >= e->cc.cwnd;
}

/* The policy's entropy for @pkts packets from @psn; @ctx says whether
 * they join a flowlet and how many the policy let them be.
 */
static u16 choose_ev(struct mpdt_eng *e, u64 now, u32 psn, u32 pkts,
		     bool resend, struct mpdt_lb_ctx *ctx)
{
	u64 bdp_pkts = mpdt_div(mpdt_bdp(&e->eff), e->cc.mss);

	*ctx = (struct mpdt_lb_ctx) {
		.now = now,
		.psn = psn,
		.pkts = pkts,
		.cwnd_pkts = cwnd_pkts(e),
		.bdp_pkts = clamp(bdp_pkts, 1ULL, (u64)U32_MAX),
		.rtt_ns = smoothed_rtt_ns(e),
		.resend = resend,
	};
	return e->lb.ops->choose_ev(&e->lb, ctx);
}

/* The receiver has no room, or said so: what is sent tests it. */
static void peer_is_full(struct mpdt_eng *e)
{
	e->peer_full = true;
	e->test_out = false;
}

static void xmit_data(struct mpdt_eng *e, u32 psn, u16 flags, u32 prev_psn)
{
	const struct mpdt_sb_pkt *p = mpdt_sb_at(&e->sb, psn);
	const struct mpdt_eng_txmsg *m = p->owner;
	struct mpdt_pkt h = {
		.data = {
			.psn = psn,
			.msg_id = m->id,
			.offset = p->offset,
			.msg_len = m->len,
			.ts = p->sent_ns,
			.payload_len = p->len,
			.prev_psn = prev_psn,
		},
	};

	fill_header(e, &h, MPDT_T_DATA, flags, e->nonce, p->ev);
	e->last_ev = p->ev;
	/* While the receiver is full, the one packet that goes tests it. */
	if (e->peer_full) {
		e->test_out = true;
		e->test_psn = psn;
	}
	e->ops->xmit(e, &h, m);
}

/* Bytes a millisecond at the configured link speed, or at @rate; paced,
 * at most a millisecond at the pacing rate, by which TCP sizes its
 * bursts and its share of the host's queues (tcp_tso_autosize(),
 * tcp_small_queue_check()).  Else a socket that lowered its
 * SO_MAX_PACING_RATE after running fast would queue bursts sized for the
 * old rate, each stamped up to a second after the one before, until fq's
 * horizon dropped them all.
 */
static u64 bytes_per_ms(struct mpdt_eng *e, u64 rate)
{
	u64 paced = pacing_rate(e), per_ms;

	per_ms = e->params->link_mbps ? mpdt_link_bytes_per_ms(e->params) :
					mpdt_div(rate, 1000);
	return paced ? min(per_ms, mpdt_div(paced, 1000)) : per_ms;
}

/* A burst carries about a millisecond at the measured delivery rate (or
 * the configured link speed, or the pacing rate): mpdt_burst_pkts().
 */
static u32 burst_size(struct mpdt_eng *e)
{
	if (e->peer_full)
		return 1;
	return mpdt_burst_pkts(e->params, bytes_per_ms(e, e->path.rate),
			       e->cc.mss);
}

/* TCP Small Queues (tcp_small_queue_check()): what a sender keeps in its
 * own host's queues (qdisc, device ring, a veth peer's backlog) only adds
 * delay there, and many senders overflow them: sixteen connections over
 * one veth lost 15% of their DATA in the receiver's backlog
 * (Documentation/perf.rst).  Two bursts or a millisecond at the
 * latest round's delivery rate (a share of the link, where the estimate
 * is all of it; or at the pacing rate, if slower: bytes_per_ms()),
 * whichever is more, at most MPDT_HOST_QUEUE_MAX, may
 * wait there; the glue runs the timer once they left.  Asked between
 * bursts: the policy was promised a burst whole.
 */
static bool host_room(struct mpdt_eng *e)
{
	u64 limit;

	if (e->host_full)
		return false;
	limit = max_t(u64, 2ULL * burst_size(e) * e->cc.mss,
		      bytes_per_ms(e, e->path.last_rate));
	if (!e->ops->host_room ||
	    e->ops->host_room(e, min_t(u64, limit, MPDT_HOST_QUEUE_MAX)))
		return true;
	e->host_full = true;
	count(e, MPDT_STAT_TX_HOST_LIMITED);
	return false;
}

static bool resend_one(struct mpdt_eng *e, u64 now)
{
	struct mpdt_sb_pkt *pkt;
	struct mpdt_lb_ctx ctx;
	u32 psn;

	if (!mpdt_sb_next_lost(&e->sb, &psn))
		return false;
	pkt = mpdt_sb_at(&e->sb, psn);
	if (!cwnd_allows(e, pkt->len) || !host_room(e))
		return false;
	/* The resend takes the policy's current choice, not the lost path;
	 * it belongs to no in-order stream.
	 */
	mpdt_sb_resent(&e->sb, psn, choose_ev(e, now, psn, 1, true, &ctx),
		       depart(e, MPDT_DATA_HLEN + pkt->len, now));
	xmit_data(e, psn, MPDT_F_RETX | MPDT_F_AR, psn);
	return true;
}

/* The message queued after @m, or NULL. */
static struct mpdt_eng_txmsg *msg_after(const struct mpdt_eng *e,
					const struct mpdt_eng_txmsg *m)
{
	if (list_is_last(&m->node, &e->tx_msgs))
		return NULL;
	return list_entry(m->node.next, struct mpdt_eng_txmsg, node);
}

static u32 new_pkt_len(const struct mpdt_eng_txmsg *m, u32 i)
{
	return min(m->mss, m->len - i * m->mss);
}

/* Whether @m may start with a burst, taking its length off @peer_room:
 * the receiver said it had room for it, or says nothing.  If not, push()
 * tests the receiver with its first packet alone: a burst it has no room
 * for would be refused packet by packet.  A test goes regardless.
 */
static bool peer_takes(const struct mpdt_eng *e,
		       const struct mpdt_eng_txmsg *m, u32 *peer_room)
{
	if (*peer_room == U32_MAX || e->peer_full)
		return true;
	if (m->len > *peer_room)
		return false;
	*peer_room -= m->len;
	return true;
}

/* Of the next @k new packets, how many send_new() sends now: those the
 * PSN window and the congestion window take.  Never more (inflight can
 * only grow less than by their lengths), so a burst is never promised
 * to the policy beyond what goes.
 */
static u32 ready_pkts(const struct mpdt_eng *e, u32 k)
{
	const struct mpdt_eng_txmsg *m = e->tx_next;
	u64 inflight = mpdt_sb_inflight(&e->sb);
	u32 room = e->sb.window - (e->sb.nxt - e->sb.una);
	u32 peer_room = e->peer_room;
	u32 n = 0, i = m->sent, len;

	for (k = min(k, room); m && n < k; n++) {
		if (i == pkts_in_place(m))
			break;
		len = new_pkt_len(m, i);
		if (!cwnd_takes(e, inflight, len) ||
		    (!i && !peer_takes(e, m, &peer_room)))
			break;
		inflight += len;
		if (++i < m->npkts)
			continue;
		m = msg_after(e, m);
		i = 0;
	}
	return n;
}

/* A new burst's entropy, chosen once for the packets that go now, and
 * its departure time; returns the PSN sent before @psn on the same
 * in-order stream.
 */
static u32 start_burst(struct mpdt_eng *e, u64 now, u32 psn)
{
	struct mpdt_lb_ctx ctx;
	u32 pkts = max(ready_pkts(e, burst_size(e)), 1U);

	e->burst_ev = choose_ev(e, now, psn, pkts, false, &ctx);
	e->burst_left = max(ctx.pkts, 1U);
	e->burst_flowlet = ctx.in_flowlet;
	depart(e, (u64)e->burst_left * (MPDT_DATA_HLEN + e->cc.mss), now);
	e->burst_at = e->tx_at;
	return ctx.in_flowlet ? ctx.flowlet_prev : psn - 1;
}

/* MCC §4 judges each chunk of a message (a CCL's 64 KB WQE) as a message
 * of its own: a message longer than cc.chunk is cut into chunks, and the
 * first packet of each starts its timing if its slot is free.
 */
static void chunk_sent(struct mpdt_eng *e, struct mpdt_eng_txmsg *m, u64 now)
{
	u32 i = m->sent, seq;
	struct mpdt_eng_chunk *c;

	if (!m->chunk_pkts || i % m->chunk_pkts)
		return;
	if (!i) {
		m->chunk_seq = e->chunk_seq;
		e->chunk_seq += DIV_ROUND_UP(m->npkts, m->chunk_pkts);
	}
	seq = m->chunk_seq + i / m->chunk_pkts;
	c = &e->chunks[seq % MPDT_ENG_CHUNKS];
	if (c->left)
		return;
	c->seq = seq;
	c->left = min(m->chunk_pkts, m->npkts - i);
	c->bytes = min(c->left * m->mss, m->len - i * m->mss);
	c->first_tx_ns = now;
}

static bool send_new(struct mpdt_eng *e, u64 now)
{
	struct mpdt_eng_txmsg *m = e->tx_next;
	u32 off, len, psn, prev, peer_room = e->peer_room;
	u16 flags = 0;
	u64 at;

	if (nothing_to_send(e) || !mpdt_sb_window_open(&e->sb))
		return false;
	if (!m->sent && !peer_takes(e, m, &peer_room)) {
		peer_is_full(e);
		return false;
	}
	off = m->sent * m->mss;
	len = new_pkt_len(m, m->sent);
	if (!cwnd_allows(e, len) || (!e->burst_left && !host_room(e)))
		return false;
	/* The burst's later packets follow its first on its stream, and
	 * leave with it.
	 */
	prev = e->burst_left ? e->sb.nxt - 1 : start_burst(e, now, e->sb.nxt);
	e->burst_left--;
	e->tx_at = e->burst_at;
	at = e->burst_at ?: now;
	psn = mpdt_sb_record(&e->sb, m, off, len, e->burst_ev, at);
	if (!m->sent)
		m->first_tx_ns = at;
	e->peer_room = peer_room;
	chunk_sent(e, m, at);
	if (++m->sent == m->npkts)
		e->tx_next = msg_after(e, m);
	/* Ask for a SACK when nothing more is queued, or in place yet,
	 * instead of waiting for the coalescing threshold or a probe.
	 */
	if (nothing_to_send(e) || e->peer_full || window_starves_acks(e, len))
		flags |= MPDT_F_AR;
	if (e->burst_flowlet)
		flags |= MPDT_F_FLOWLET;
	xmit_data(e, psn, flags, prev);
	if (!e->burst_left)
		e->ops->flush(e);
	return true;
}

/* §3.3.2 probes every n base RTTs; after timeouts the probes back off
 * with the RTO, so a dead peer is not probed thousands of times, and
 * after answers that acknowledged nothing (a peer that answers but takes
 * no data, a resend that the RTO will retry) they back off too.  Never
 * further apart than rto-max: the RTO would come first.
 */
static u64 probe_interval(const struct mpdt_eng *e)
{
	u32 shift = min(e->sb.rto_backoff + e->sb.probe_backoff, 40U);
	u64 ivl = e->params->probe_mult * base_rtt_ns(e);

	ivl = ivl > (U64_MAX >> shift) ? U64_MAX : ivl << shift;
	return min(ivl, us_to_ns(e->params->rto_max_us));
}

/* A receiver that said NO_BUFFER is alive: it is not probed before the
 * pause ends.
 */
static u64 probe_deadline(const struct mpdt_eng *e)
{
	u64 when = mpdt_sb_probe_deadline(&e->sb, probe_interval(e));

	return when && when < e->pause_until ? e->pause_until : when;
}

/* When the timer must look at the probe again: when it is due, or, if
 * it waits for the host's queues (probe_may_go()), when it goes anyway.
 */
static u64 probe_timer(const struct mpdt_eng *e)
{
	u64 due = probe_deadline(e);

	return due && due == e->probe_held ? due + probe_interval(e) : due;
}

/* A probe's fast answer declares lost every packet sent before it that is
 * not acknowledged (§3.3.2): the probe must not overtake them.  On the
 * fabric the answer's speed says the queues were short; in this host a
 * probe sent on one CPU passes DATA waiting in another CPU's backlog (a
 * veth's, RPS) or a multiqueue device's other queue, and its answer comes
 * fast while they are still here.  So a due probe waits until none of
 * the socket's packets is left in the host (the glue runs the timer when
 * the last leaves), but at most one more interval: the other connections
 * of a busy socket may keep its queue from ever emptying.
 */
static bool probe_may_go(struct mpdt_eng *e, u64 due, u64 now)
{
	if (!e->ops->host_drained || now >= due + probe_interval(e) ||
	    e->ops->host_drained(e)) {
		e->probe_held = 0;
		return true;
	}
	e->probe_held = due;
	return false;
}

static u64 rto_deadline(const struct mpdt_eng *e)
{
	return mpdt_sb_rto_deadline(&e->sb, mpdt_eng_rto(e),
				    us_to_ns(e->params->rto_max_us));
}

/* The next moment something is due: an RTO, a second look at packets
 * the OOO count found missing, a probe, or the end of a NO_BUFFER pause
 * with something to send.
 */
static void arm_timer(struct mpdt_eng *e, u64 now)
{
	u64 when;

	if (e->state != MPDT_ENG_ACTIVE)
		return;
	when = mpdt_earliest(rto_deadline(e), probe_timer(e));
	when = mpdt_earliest(when, mpdt_sb_reorder_deadline(&e->sb));
	if (e->pause_until > now && (e->tx_next || e->sb.lost_pending))
		when = mpdt_earliest(when, e->pause_until);
	if (when)
		e->ops->arm_timer(e, when);
}

/* After a NO_BUFFER pause, one packet (a burst of one, asking for a
 * SACK): the receiver admits a message whole on the first of its packets
 * that arrives, so one packet tells whether it has room again, where a
 * burst would be refused packet by packet, each one NACKed and resent.
 * A SACK of it ends the test (sack_acked()), a NACK pauses again, and
 * with neither the next packet goes an RTO later.
 */
static void test_room(struct mpdt_eng *e, u64 now)
{
	if (resend_one(e, now) || send_new(e, now))
		e->pause_until = now + mpdt_eng_rto(e);
}

/* Send what the window allows: repairs first, then new packets.  Each
 * burst was sized to what goes now (ready_pkts()) and is flushed at its
 * end, so the glue holds nothing once this returns.
 */
static void push(struct mpdt_eng *e, u64 now)
{
	if (e->state == MPDT_ENG_ACTIVE && now >= e->pause_until) {
		e->host_full = false;
		while (!e->peer_full &&
		       (resend_one(e, now) || send_new(e, now)))
			;
		if (e->peer_full)
			test_room(e, now);
	}
	arm_timer(e, now);
}

void mpdt_eng_send(struct mpdt_eng *e, struct mpdt_eng_txmsg *m, u64 now)
{
	e->now = now;
	m->id = e->next_msg_id++;
	if (!m->mss)
		m->mss = e->cc.mss;
	m->npkts = max(1U, DIV_ROUND_UP(m->len, m->mss));
	m->sent = 0;
	m->acked = 0;
	m->chunk_pkts = 0;
	if (e->cc.chunk && m->len > e->cc.chunk)
		m->chunk_pkts = max(e->cc.chunk / m->mss, 1U);
	list_add_tail(&m->node, &e->tx_msgs);
	if (!e->tx_next)
		e->tx_next = m;
	e->msgs_sent++;
	e->msgs_inflight++;
	count(e, MPDT_STAT_MSG_TX);
	push(e, now);
}

/* At least MPDT_ENG_PIECE_BYTES, so that the pieces cost few round trips
 * through the socket's lock, and whole MCC chunks: a chunk's timing (§4)
 * starts at its first packet, and must not include the copy of its last.
 * A message the congestion control times whole is copied whole.
 */
u32 mpdt_eng_piece_pkts(const struct mpdt_eng *e,
			const struct mpdt_eng_txmsg *m)
{
	u32 pkts = DIV_ROUND_UP(MPDT_ENG_PIECE_BYTES, m->mss);

	if (m->chunk_pkts)
		return DIV_ROUND_UP(pkts, m->chunk_pkts) * m->chunk_pkts;
	return e->cc.ops->on_message_done ? m->npkts : pkts;
}

void mpdt_eng_msg_ready(struct mpdt_eng *e, struct mpdt_eng_txmsg *m,
			u32 bytes, u64 now)
{
	e->now = now;
	m->missing -= min(bytes, m->missing);
	push(e, now);
}

/* One SACK's newly acknowledged packets. */
struct sack_walk {
	struct mpdt_eng *e;
	struct list_head done;		/* messages now wholly acknowledged */
	bool room;			/* the receiver took the test */
	u16 acked_count;
	u16 acked_evs[MPDT_LB_ACKED_MAX];
	/* Slots of the chunks now complete; free, but read before any
	 * packet is sent again.
	 */
	u8 chunks_done;
	u8 chunk_slots[MPDT_ENG_CHUNKS];
};

/* Packet @i of @m is acknowledged: is its chunk, if timed, complete? */
static void chunk_acked(struct sack_walk *walk, struct mpdt_eng_txmsg *m,
			u32 i)
{
	u32 seq = m->chunk_seq + i / m->chunk_pkts;
	u8 slot = seq % MPDT_ENG_CHUNKS;
	struct mpdt_eng_chunk *c = &walk->e->chunks[slot];

	if (!c->left || c->seq != seq || --c->left)
		return;
	/* Each slot completes once per SACK at most: there is room. */
	walk->chunk_slots[walk->chunks_done++] = slot;
}

static void sack_acked(void *ctx, struct mpdt_sb_pkt *pkt)
{
	struct sack_walk *walk = ctx;
	struct mpdt_eng *e = walk->e;
	struct mpdt_eng_txmsg *m = pkt->owner;

	if (e->test_out && pkt == mpdt_sb_at(&e->sb, e->test_psn))
		walk->room = true;
	if (walk->acked_count < MPDT_LB_ACKED_MAX)
		walk->acked_evs[walk->acked_count++] = pkt->ev;
	if (m->chunk_pkts)
		chunk_acked(walk, m, pkt->offset / m->mss);
	if (++m->acked == m->npkts)
		list_move_tail(&m->node, &walk->done);
}

static void complete_chunks(struct mpdt_eng *e, struct sack_walk *walk,
			    u64 now)
{
	const struct mpdt_eng_chunk *c;
	u32 i;

	for (i = 0; i < walk->chunks_done && e->cc.ops->on_message_done; i++) {
		c = &e->chunks[walk->chunk_slots[i]];
		e->cc.ops->on_message_done(&e->cc, c->bytes,
					   now - c->first_tx_ns, now);
	}
}

/* MCC (§3) judges the network by a message's delay: from its first
 * packet on the wire, not from sendmsg(), so time spent queued behind
 * earlier messages on this host is not taken for congestion.
 */
static void complete_msgs(struct mpdt_eng *e, struct sack_walk *walk,
			  u64 now)
{
	struct mpdt_eng_txmsg *m;

	while (!list_empty(&walk->done)) {
		m = list_first_entry(&walk->done, struct mpdt_eng_txmsg, node);
		list_del(&m->node);
		e->msgs_acked++;
		e->msgs_inflight--;
		count(e, MPDT_STAT_MSG_ACKED);
		trace_mpdt_msg_acked(e, m, now - m->first_tx_ns);
		/* A message timed in chunks was judged chunk by chunk. */
		if (e->cc.ops->on_message_done && !m->chunk_pkts)
			e->cc.ops->on_message_done(&e->cc, m->len,
						   now - m->first_tx_ns, now);
		e->ops->tx_release(e, m);
	}
}

/* The window moved, on a SACK, a NACK (their types) or a timeout (0). */
static void trace_cwnd(const struct mpdt_eng *e, u32 old, u8 on)
{
	if (e->cc.cwnd != old)
		trace_mpdt_cwnd(e, old, on);
}

static bool tx_incarnation_ok(struct mpdt_eng *e, u32 nonce)
{
	if (e->state == MPDT_ENG_ACTIVE && nonce == e->nonce)
		return true;
	count(e, MPDT_STAT_DROP_STALE_NONCE);
	return false;
}

static bool on_sack(struct mpdt_eng *e, const struct mpdt_pkt *pkt, u64 now)
{
	const struct mpdt_sack *s = &pkt->sack;
	bool ce = pkt->hdr.flags & MPDT_F_CE;
	struct mpdt_cc_ack sig = { .now = now, .ce_count = s->ce_count,
				   .ce = ce };
	struct sack_walk walk = { .e = e };
	struct mpdt_sb_clock clock;
	u32 ooo_threshold, old_cwnd = e->cc.cwnd;
	u64 old_min_rtt = e->rtt.min_rtt, echo_ts = 0;
	struct mpdt_sb_ack ack;

	if (!tx_incarnation_ok(e, pkt->hdr.nonce))
		return false;
	if (!mpdt_sb_sack_is_sane(&e->sb, s)) {
		count(e, MPDT_STAT_DROP_BOGUS_ACK);
		return false;
	}
	e->sacks_rcvd++;
	e->path.marks |= ce || s->ce_count;
	INIT_LIST_HEAD(&walk.done);
	sig.probe = pkt->hdr.flags & MPDT_F_PROBE_ACK;
	/* A probe answer echoes a header-only packet: its RTT lacks a full
	 * packet's serialization (560 us at 20 Mbit/s), and as the base RTT
	 * it would shrink the BDP and fire the next probe before any SACK of
	 * data could come back.  Only echoes of DATA are RTT samples.
	 */
	if (!sig.probe && mpdt_rtt_sample(&e->rtt, s->echo_ts, now)) {
		sig.rtt_ns = e->rtt.latest;
		echo_ts = s->echo_ts;
	}
	/* Between flowlets out of order is normal: the receiver reports
	 * the gaps that matter (inside a flowlet) with NACKs instead.
	 */
	ooo_threshold = e->lb.ops->flowlets ? U32_MAX : cwnd_pkts(e);
	clock = sb_clock(e, now);
	mpdt_sb_on_sack(&e->sb, s, sig.probe, ooo_threshold, &clock,
			sack_acked, &walk, &ack);
	if (ack.rto_undone) {
		count(e, MPDT_STAT_RTO_UNDONE);
		if (e->cc.ops->undo)
			e->cc.ops->undo(&e->cc);
	}
	path_on_ack(e, ack.acked_bytes, echo_ts, old_min_rtt, now);
	e->peer_room = s->room_said ? s->room : U32_MAX;
	if (walk.room) {
		e->peer_full = false;
		e->test_out = false;
		e->pause_until = 0;
	}
	/* Nothing is resent before a NO_BUFFER pause ends: progress during
	 * it must not restart the RTO clock any earlier (see on_nack()).
	 */
	if (ack.epsn_advanced && e->pause_until > now)
		mpdt_sb_peer_alive(&e->sb, e->pause_until);
	if (e->lb.ops->on_ack) {
		struct mpdt_lb_ack la = {
			.now = now,
			.rtt_ns = sig.rtt_ns,
			.ev = pkt->hdr.ev,
			.ce_count = s->ce_count,
			.ce = ce,
			.probe = sig.probe,
			.acked_count = walk.acked_count,
			.acked_evs = walk.acked_evs,
		};

		e->lb.ops->on_ack(&e->lb, &la);
	}
	if (e->cc.ops->on_ack) {
		sig.acked_bytes = ack.acked_bytes;
		sig.inflight = mpdt_sb_inflight(&e->sb);
		e->cc.ops->on_ack(&e->cc, &sig);
	}
	complete_chunks(e, &walk, now);
	if (!list_empty(&walk.done)) {
		complete_msgs(e, &walk, now);
		e->ops->tx_room(e);
	}
	trace_mpdt_sack(e, s->epsn, ack.acked_pkts, ack.lost, sig.rtt_ns);
	trace_cwnd(e, old_cwnd, MPDT_T_SACK);
	push(e, now);
	return true;
}

/* A probe leaves after the DATA paced before it, which it asks about;
 * with a @cookie, it also returns a challenge's.
 */
static void send_probe(struct mpdt_eng *e, u64 now, const u64 *cookie)
{
	u64 at = depart(e, MPDT_PROBE_LEN + (cookie ? MPDT_COOKIE_LEN : 0),
			now);
	struct mpdt_pkt h = {
		.probe = {
			.sack_base = e->sb.una,
			.ts = at,
			.cookie = cookie ? *cookie : 0,
		},
	};
	struct mpdt_lb_ctx ctx;

	mpdt_sb_on_probe_sent(&e->sb, at);
	e->probes++;
	trace_mpdt_probe(e);
	fill_header(e, &h, MPDT_T_PROBE, cookie ? MPDT_F_COOKIE : 0, e->nonce,
		    choose_ev(e, now, e->sb.una, 1, true, &ctx));
	e->ops->xmit(e, &h, NULL);
}

/* The peer refused our incarnation as new while one it took for ours was
 * live, and challenged it (wire-format.rst 5.1): its cookie, returned in
 * a PROBE, proves we receive at our address, and the peer's answer to the
 * probe lets the refused DATA go again (§3.3.2).  A window of refused
 * DATA draws as many challenges: one goes per round trip, whatever the
 * cookie.  Even after SACKs of the incarnation: the peer may have lost
 * its connection to us (evicted from a full table) and a spoofer's
 * incarnation taken its place.  Not a loss or congestion signal: the
 * policies never hear of it.
 */
static void answer_challenge(struct mpdt_eng *e, u64 cookie, u64 now)
{
	if (since(now, e->cookie_sent_ns) < smoothed_rtt_ns(e))
		return;
	e->cookie_sent_ns = now;
	send_probe(e, now, &cookie);
	push(e, now);
}

static bool on_nack(struct mpdt_eng *e, const struct mpdt_pkt *pkt, u64 now)
{
	const struct mpdt_nack *n = &pkt->nack;
	u32 old_cwnd = e->cc.cwnd;

	if (!tx_incarnation_ok(e, pkt->hdr.nonce))
		return false;
	if (!mpdt_sb_tracked(&e->sb, n->psn)) {
		count(e, MPDT_STAT_DROP_BOGUS_ACK);
		return false;
	}
	/* Not the peer hearing our incarnation: it refused it. */
	if (n->code == MPDT_NACK_CHALLENGE) {
		answer_challenge(e, n->cookie, now);
		return false;
	}
	e->nacks_rcvd++;
	/* Already lost or acked: only the NO_BUFFER pause still applies. */
	mpdt_sb_on_nack(&e->sb, n->psn);
	/* A full receiver needs time, not an immediate resend; it is alive,
	 * so waiting for its reader does not count toward failing it.
	 */
	if (n->code == MPDT_NACK_NO_BUFFER) {
		peer_is_full(e);
		e->pause_until = now + mpdt_eng_rto(e);
		/* The RTO clock restarts when the pause ends, not before. */
		mpdt_sb_peer_alive(&e->sb, e->pause_until);
	}
	if (e->lb.ops->on_nack)
		e->lb.ops->on_nack(&e->lb, pkt->hdr.ev, n->code, now);
	if (e->cc.ops->on_nack)
		e->cc.ops->on_nack(&e->cc, n->code, now);
	trace_cwnd(e, old_cwnd, MPDT_T_NACK);
	push(e, now);
	return true;
}

/* Timeout-based detection (§3.3.2).  Too many in a row with nothing
 * acknowledged in between fail the peer; RTOs while SACKs still bring
 * news are congestion, and the backoff alone deals with them.
 */
static void on_rto(struct mpdt_eng *e, u64 now)
{
	/* Whether or not it was declared lost before (a NACK, no room to
	 * resend it yet), the oldest packet has overstayed: the policy
	 * hears of the timeout once, against its path.
	 */
	u16 ev = mpdt_sb_at(&e->sb, e->sb.una)->ev;
	u32 old_cwnd = e->cc.cwnd;

	mpdt_sb_on_rto(&e->sb, now);
	e->rtos++;
	count(e, MPDT_STAT_RTO);
	trace_mpdt_rto(e);
	if (e->sb.stalled_rtos > e->params->max_retries) {
		fail(e);
		return;
	}
	if (e->lb.ops->on_loss)
		e->lb.ops->on_loss(&e->lb, ev, true, now);
	if (e->cc.ops->on_timeout)
		e->cc.ops->on_timeout(&e->cc, now);
	trace_cwnd(e, old_cwnd, 0);
}

void mpdt_eng_on_timer(struct mpdt_eng *e, u64 now)
{
	u64 rto, reorder, probe;

	if (e->state != MPDT_ENG_ACTIVE)
		return;
	e->now = now;
	rto = rto_deadline(e);
	reorder = mpdt_sb_reorder_deadline(&e->sb);
	probe = probe_deadline(e);
	if (rto && now >= rto) {
		on_rto(e, now);
	} else if (reorder && now >= reorder) {
		struct mpdt_sb_clock clock = sb_clock(e, now);

		mpdt_sb_on_reorder_timer(&e->sb, &clock);
	} else if (probe && now >= probe && probe_may_go(e, probe, now)) {
		send_probe(e, now, NULL);
	}
	push(e, now);
}

/* ---- Receiving half -------------------------------------------------- */

/* An incarnation silent for longer than its sender can keep retrying
 * (max-retries + 1 timeouts, each at most rto-max, then it fails the
 * peer) has no sender left: it crashed, failed us or closed without
 * lingering, and holds none of its messages any more.  Its partial
 * messages can go without anyone waiting for them.  A message's own lack
 * of progress would not do: a live sender whose repairs keep getting lost
 * could still complete it after we dropped the bytes we acknowledged.
 */
u64 mpdt_eng_reassembly_ns(const struct mpdt_params *p)
{
	u64 retrying = (p->max_retries + 2ULL) * us_to_ns(p->rto_max_us);

	/* Timers can be late by far more than a short rto-max (a stalled
	 * virtual machine): expiring early would fail live senders.
	 */
	return max(retrying, MPDT_REASSEMBLY_MIN_NS);
}

/* How far a partial message is behind the least progress a full receiver
 * asks of its sender (wire-format.rst 8): its whole length within the
 * reassembly time, from a quiet time after its admission.  Being heard
 * is not progress: one spoofed DATA packet may declare 16 MiB, and a
 * PROBE per quiet time keeps its incarnation heard for ever
 * (mpdt_eng_rx_expire() never fires).  The quiet time first lets a live
 * sender go on: a message is often admitted by the one packet that tests
 * a full receiver after a NO_BUFFER pause, and the rest follows only
 * once that packet's SACK is back, or the next test an RTO later (at most
 * rto-max).  Slower than that, while others wait for the room, a sender
 * is taken for one that is gone.  Bytes, 0 when on time.
 */
u32 mpdt_eng_rx_lag(const struct mpdt_eng *e, const struct mpdt_reasm *ra,
		    u64 now)
{
	u64 span = mpdt_eng_reassembly_ns(e->params);
	u64 age = since(now, ra->started_ns);
	u64 grace = mpdt_eng_quiet_ns(e->params), due;

	if (age <= grace)
		return 0;
	due = mpdt_mul_div(ra->len, min(age - grace, span), span);
	return due > ra->rcvd ? due - ra->rcvd : 0;
}

/* Forget the current incarnation and refuse its packets from now on. */
static void rx_retire(struct mpdt_eng *e)
{
	e->ops->rx_forget(e);
	e->rx_partial = 0;
	mpdt_rx_init(&e->rx, e->rx.bits, e->rx.window);
	e->rx_prev_nonce = e->rx_nonce;
	e->rx_had_prev = true;
	e->rx_active = false;
}

/* Partial messages abandoned by their sender.  Their incarnation is
 * retired with them, so that should its sender be alive after all (a
 * stalled host, a long partition), its later packets are refused and it
 * fails the peer, with an error to its application, instead of
 * completing a message whose acknowledged bytes are gone.
 */
bool mpdt_eng_rx_expire(struct mpdt_eng *e, u64 now)
{
	if (!e->rx_partial ||
	    since(now, e->rx_heard_ns) < mpdt_eng_reassembly_ns(e->params))
		return false;
	e->ops->count(e, MPDT_STAT_RX_MSG_EXPIRED, e->rx_partial);
	rx_retire(e);
	return true;
}

/* The receive buffer is full and this incarnation holds the message that
 * lags most: its partial messages go, and the incarnation is retired as
 * an expired one is, so that a live sender fails the peer instead of
 * waiting for bytes the receiver dropped.
 */
void mpdt_eng_rx_evict(struct mpdt_eng *e)
{
	e->ops->count(e, MPDT_STAT_RX_MSG_EVICTED, e->rx_partial);
	rx_retire(e);
}

static u32 cookie_epoch(u64 now)
{
	return now >> MPDT_COOKIE_EPOCH_SHIFT;
}

/* A cookie is made for the incarnation it would replace too (rx_nonce,
 * live or retired): a delayed PROBE of an incarnation replaced since
 * could otherwise take the receiver back to it within the cookie's life,
 * retiring a live one and delivering its old messages again.
 */
static bool cookie_proves(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
			  u64 now)
{
	u32 epoch = cookie_epoch(now), nonce = pkt->hdr.nonce;
	u64 cookie = pkt->probe.cookie;

	if (pkt->hdr.type != MPDT_T_PROBE ||
	    !(pkt->hdr.flags & MPDT_F_COOKIE) || !e->ops->cookie)
		return false;
	return cookie == e->ops->cookie(e, nonce, e->rx_nonce, epoch) ||
	       cookie == e->ops->cookie(e, nonce, e->rx_nonce, epoch - 1);
}

/* Refused as new: ask the sender of @pkt to prove it receives at the
 * peer's address (wire-format.rst 5.1).  The challenge is no longer than
 * the packet it answers, but for a PROBE's 32 bytes (36).  Each refused
 * packet is answered: a limit would let a spoofer's packets take the
 * peer's challenges, and a spoofer gains nothing from reflecting them
 * that sending to the peer itself would not give it.
 */
static void challenge(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		      u64 now)
{
	struct mpdt_pkt h = {
		.nack = {
			.psn = pkt->hdr.type == MPDT_T_DATA ?
			       pkt->data.psn : pkt->probe.sack_base,
			.code = MPDT_NACK_CHALLENGE,
		},
	};

	if (!e->ops->cookie)
		return;
	h.nack.cookie = e->ops->cookie(e, pkt->hdr.nonce, e->rx_nonce,
				       cookie_epoch(now));
	e->nacks_sent++;
	count(e, MPDT_STAT_TX_CHALLENGE);
	fill_header(e, &h, MPDT_T_NACK, 0, pkt->hdr.nonce, pkt->hdr.ev);
	e->ops->xmit(e, &h, NULL);
}

/* A DATA or PROBE with a nonce we have not seen is a new incarnation of the
 * peer's sending half: forget the old one and its partial messages.  But
 * only once the old one has gone quiet, or the new one returned the cookie
 * of our challenge: otherwise one blind packet with a made-up nonce would
 * tear down a live transfer, and one per quiet time would keep a made-up
 * incarnation live and the peer's own out.  Also after the old one was
 * retired (its messages expired): a packet of an even older incarnation
 * may still be alive in the network until then, and adopting it would
 * deliver its messages again; its sender, on a later nonce, never proves
 * it.  A restarted peer's first packets are refused for a round trip.
 */
static bool rx_adopt_nonce(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
			   u64 now)
{
	u32 nonce = pkt->hdr.nonce;

	if (e->rx_active && nonce == e->rx_nonce) {
		e->rx_heard_ns = max(e->rx_heard_ns, now);
		return true;
	}
	if (e->rx_had_prev && nonce == e->rx_prev_nonce) {
		count(e, MPDT_STAT_DROP_STALE_NONCE);
		return false;
	}
	if ((e->rx_active || e->rx_had_prev) &&
	    since(now, e->rx_heard_ns) < mpdt_eng_quiet_ns(e->params)) {
		if (!cookie_proves(e, pkt, now)) {
			count(e, MPDT_STAT_DROP_NEW_NONCE);
			challenge(e, pkt, now);
			return false;
		}
		count(e, MPDT_STAT_RX_NONCE_PROVEN);
	}
	if (e->rx_active)
		rx_retire(e);
	e->rx_nonce = nonce;
	e->rx_active = true;
	e->rx_heard_ns = now;
	return true;
}

static void send_sack(struct mpdt_eng *e, const u32 *probe_base,
		      u64 echo_ts, u16 ev, u16 flags)
{
	struct mpdt_pkt h = {};

	mpdt_rx_build_sack(&e->rx, probe_base, &h.sack);
	h.sack.echo_ts = echo_ts;
	if (e->ops->rx_room) {
		h.sack.room_said = true;
		h.sack.room = e->ops->rx_room(e);
	}
	e->sacks_sent++;
	e->ack_wait.due = false;	/* this one says it all */
	fill_header(e, &h, MPDT_T_SACK, flags, e->rx_nonce, ev);
	e->ops->xmit(e, &h, NULL);
}

/* The SACK DATA made due (§3.3.1), unless it waits for the rest of a
 * burst: the packets a peer on this host sent as one skb came in at one
 * instant, and a SACK in the middle of them only costs both hosts a
 * packet (issue 12, stage 3: one SACK per burst).  It echoes the last
 * packet that made it due, and CE if any of those had it.
 */
static void sack_data(struct mpdt_eng *e, u64 echo_ts, u16 ev, u16 flags)
{
	if (!e->ack_wait.held) {
		send_sack(e, NULL, echo_ts, ev, flags);
		return;
	}
	e->ack_wait.due = true;
	e->ack_wait.echo_ts = echo_ts;
	e->ack_wait.ev = ev;
	e->ack_wait.flags |= flags;
}

void mpdt_eng_hold_acks(struct mpdt_eng *e)
{
	e->ack_wait.held = true;
}

void mpdt_eng_release_acks(struct mpdt_eng *e)
{
	if (e->ack_wait.due)
		send_sack(e, NULL, e->ack_wait.echo_ts, e->ack_wait.ev,
			  e->ack_wait.flags);
	e->ack_wait.held = false;
	e->ack_wait.flags = 0;
}

/* SACKs and NACKs go back on the entropy of the packet they answer. */
static void send_nack(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		      u32 psn, u8 code, u16 flags)
{
	struct mpdt_pkt h = {
		.nack = {
			.psn = psn,
			.code = code,
			.epsn = e->rx.epsn,
			.echo_ts = pkt->data.ts,
		},
	};

	e->nacks_sent++;
	fill_header(e, &h, MPDT_T_NACK, flags, e->rx_nonce, pkt->hdr.ev);
	e->ops->xmit(e, &h, NULL);
}

/* A new packet whose predecessor on its in-order stream has not arrived is
 * counted as reordered.  Inside a ParaLet flowlet, which follows one path,
 * that means the predecessor was lost (paralet.txt §3): NACK it at once.
 */
static void note_reordering(struct mpdt_eng *e, const struct mpdt_pkt *pkt)
{
	const struct mpdt_data *d = &pkt->data;

	if (d->prev_psn == d->psn ||
	    mpdt_rx_check(&e->rx, d->prev_psn) != MPDT_RX_NEW)
		return;
	count(e, MPDT_STAT_RX_REORDERED);
	if (pkt->hdr.flags & MPDT_F_FLOWLET)
		send_nack(e, pkt, d->prev_psn, MPDT_NACK_FLOWLET_GAP, 0);
}

/* The message @d belongs to, admitted whole on its first packet; NULL
 * with *@nack set (or 0: drop silently) if there is none.
 */
static struct mpdt_reasm *rx_message(struct mpdt_eng *e,
				     const struct mpdt_data *d, u64 now,
				     u8 *nack)
{
	struct mpdt_reasm *ra = e->ops->rx_find(e, d->msg_id);

	*nack = 0;
	if (ra) {
		if (ra->len == d->msg_len)
			return ra;
		count(e, MPDT_STAT_DROP_MSG_MISMATCH);
		return NULL;
	}
	if (e->rx_partial >= MPDT_ENG_RX_PARTIAL_MAX) {
		count(e, MPDT_STAT_DROP_PEER_QUOTA);
		*nack = MPDT_NACK_NO_BUFFER;
		return NULL;
	}
	ra = e->ops->rx_admit(e, d);
	if (!ra) {
		*nack = MPDT_NACK_NO_BUFFER;
		return NULL;
	}
	ra->started_ns = now;
	e->rx_partial++;
	return ra;
}

static void rx_deliver(struct mpdt_eng *e, struct mpdt_reasm *ra)
{
	e->rx_partial--;
	e->msgs_rcvd++;
	count(e, MPDT_STAT_MSG_RX);
	trace_mpdt_msg_rcvd(e, ra);
	e->ops->rx_deliver(e, ra);
}

/* Place a new packet; returns the NACK code to answer with, or 0. */
static u8 rx_accept(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		    const void *payload, u64 now, struct mpdt_rx_arrival *a)
{
	const struct mpdt_data *d = &pkt->data;
	struct mpdt_reasm *ra;
	u8 nack;
	int err;

	if (pkt->hdr.flags & MPDT_F_TRIMMED) {
		count(e, MPDT_STAT_DROP_TRIMMED);
		return MPDT_NACK_TRIMMED;
	}
	ra = rx_message(e, d, now, &nack);
	if (!ra)
		return nack;
	/* A packet off the grid, or bytes another PSN already brought, is
	 * not acknowledged: only a broken or hostile sender sends one.
	 */
	if (mpdt_reasm_claim(ra, d->offset, d->payload_len)) {
		count(e, MPDT_STAT_DROP_OVERLAP);
		return 0;
	}
	err = e->ops->rx_place(e, ra, d, payload);
	if (err) {
		mpdt_reasm_unclaim(ra, d->offset);
		count(e, err == -EPROTO ? MPDT_STAT_DROP_SHORT :
					  MPDT_STAT_DROP_NO_BUFFER);
		return err == -EPROTO ? 0 : MPDT_NACK_NO_BUFFER;
	}
	ra->rcvd += d->payload_len;
	a->filled_hole = mpdt_rx_mark(&e->rx, d->psn, d->payload_len, a->ce);
	if (mpdt_reasm_complete(ra))
		rx_deliver(e, ra);
	return 0;
}

static bool on_data(struct mpdt_eng *e, const struct mpdt_pkt *pkt, bool ce,
		    const void *payload, u64 now)
{
	const struct mpdt_params *p = e->params;
	const struct mpdt_ack_policy pol = {
		.coalesce_bytes = p->ack_bytes,
		.on_epsn = p->ack_on_epsn,
		.on_ce = p->ack_on_ce,
	};
	const struct mpdt_data *d = &pkt->data;
	struct mpdt_rx_arrival a = {
		.ce = ce,
		.ack_request = pkt->hdr.flags & MPDT_F_AR,
		.retransmission = pkt->hdr.flags & MPDT_F_RETX,
	};
	u8 nack;

	if (!rx_adopt_nonce(e, pkt, now))
		return false;
	a.verdict = mpdt_rx_check(&e->rx, d->psn);
	if (a.verdict == MPDT_RX_OUT_OF_WINDOW) {
		count(e, MPDT_STAT_DROP_OUT_OF_WINDOW);
		return true;
	}
	if (a.verdict == MPDT_RX_DUPLICATE) {
		count(e, MPDT_STAT_RX_DUP_DATA);
	} else {
		note_reordering(e, pkt);
		nack = rx_accept(e, pkt, payload, now, &a);
		if (nack) {
			send_nack(e, pkt, d->psn, nack, ce ? MPDT_F_CE : 0);
			return true;
		}
	}
	if (mpdt_rx_ack_due(&e->rx, &pol, &a))
		sack_data(e, d->ts, pkt->hdr.ev, ce ? MPDT_F_CE : 0);
	return true;
}

/* §3.3.2 probe: answer at once with the segment the sender asked for. */
static bool on_probe(struct mpdt_eng *e, const struct mpdt_pkt *pkt, u64 now)
{
	if (!rx_adopt_nonce(e, pkt, now))
		return false;
	send_sack(e, &pkt->probe.sack_base, pkt->probe.ts, pkt->hdr.ev,
		  MPDT_F_PROBE_ACK);
	return true;
}

/* Once its socket closed (wire-format.rst 8.2) a connection answers, for
 * the incarnation it knows, a DATA it already holds and a PROBE; nothing
 * else reaches its receiving half.
 */
static void on_packet_time_wait(struct mpdt_eng *e, const struct mpdt_pkt *pkt)
{
	const struct mpdt_data *d = &pkt->data;
	bool probe = pkt->hdr.type == MPDT_T_PROBE;
	bool dup = pkt->hdr.type == MPDT_T_DATA &&
		   mpdt_rx_check(&e->rx, d->psn) == MPDT_RX_DUPLICATE;

	if (!e->rx_active || pkt->hdr.nonce != e->rx_nonce || !(dup || probe)) {
		count(e, MPDT_STAT_DROP_NO_SOCKET);
		return;
	}
	if (probe)
		send_sack(e, &pkt->probe.sack_base, pkt->probe.ts, pkt->hdr.ev,
			  MPDT_F_PROBE_ACK);
	else
		send_sack(e, NULL, d->ts, pkt->hdr.ev, 0);
}

/* Only a packet of an incarnation this end takes for the peer's says the
 * peer was heard: a spoofed one with a wrong nonce must neither keep an
 * incarnation the peer has forgotten (mpdt_eng_needs_start()) nor keep
 * the connection from being evicted or collected.  The glue may time a
 * DATA or PROBE by a coarser clock, up to a tick behind the last SACK's
 * (input.c): the times a peer was heard never move back.
 */
bool mpdt_eng_on_packet(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
			bool ce, const void *payload, u64 now)
{
	bool heard = false;

	e->now = now;
	if (e->rx_closed && (pkt->hdr.type == MPDT_T_DATA ||
			     pkt->hdr.type == MPDT_T_PROBE ||
			     e->state == MPDT_ENG_TIME_WAIT)) {
		on_packet_time_wait(e, pkt);
		return false;
	}
	switch (pkt->hdr.type) {
	case MPDT_T_DATA:
		count(e, MPDT_STAT_RX_DATA);
		heard = on_data(e, pkt, ce, payload, now);
		break;
	case MPDT_T_PROBE:
		count(e, MPDT_STAT_RX_PROBE);
		heard = on_probe(e, pkt, now);
		break;
	case MPDT_T_SACK:
		count(e, MPDT_STAT_RX_SACK);
		heard = on_sack(e, pkt, now);
		break;
	case MPDT_T_NACK:
		count(e, MPDT_STAT_RX_NACK);
		heard = on_nack(e, pkt, now);
		break;
	}
	if (heard)
		e->heard_ns = max(e->heard_ns, now);
	return heard;
}

/* ---- Life cycle ------------------------------------------------------ */

void mpdt_eng_init(struct mpdt_eng *e, const struct mpdt_eng_ops *ops,
		   const struct mpdt_params *p, u64 *rx_bits, u32 window,
		   u64 now)
{
	e->ops = ops;
	e->params = p;
	e->state = MPDT_ENG_LISTEN;
	e->heard_ns = now;
	INIT_LIST_HEAD(&e->tx_msgs);
	mpdt_rx_init(&e->rx, rx_bits, window);
}

bool mpdt_eng_holds_nothing(const struct mpdt_eng *e)
{
	return list_empty(&e->tx_msgs) && !e->rx_partial;
}

bool mpdt_eng_embryonic(const struct mpdt_eng *e)
{
	return e->state == MPDT_ENG_LISTEN && !e->rx.epsn &&
	       !e->rx.ooo_count && !e->msgs_rcvd;
}

bool mpdt_eng_peer_may_wait(const struct mpdt_eng *e, u64 now)
{
	return e->rx_active &&
	       since(now, e->rx_heard_ns) < mpdt_eng_quiet_ns(e->params);
}

void mpdt_eng_release(struct mpdt_eng *e)
{
	release_tx(e);
	e->ops->rx_forget(e);
	e->rx_partial = 0;
}

void mpdt_eng_close_rx(struct mpdt_eng *e)
{
	e->ops->rx_forget(e);
	e->rx_partial = 0;
	e->rx_closed = true;
}

void mpdt_eng_time_wait(struct mpdt_eng *e)
{
	mpdt_eng_release(e);
	e->rx_closed = true;
	e->state = MPDT_ENG_TIME_WAIT;
}
