// SPDX-License-Identifier: GPL-2.0
/*
 * "mcc": Message-level Congestion Control (mcc.txt §3-4).  Packet-level
 * signals overreact when one of many sprayed paths is congested; MCC
 * judges the network once per message instead:
 * - non-congestion: message delay <= target_msg_delay and the sampled
 *   maximum packet delay <= target_max_delay: grow the window by one
 *   increase unit, BDP / oversubscription (§4, "with an 8:1
 *   oversubscription, we add 1/8 BDP");
 * - partial congestion: message delay fine but some packet slower than
 *   target_max_delay: some paths are congested, others not; hold the
 *   window and let the load balancer move traffic (§3);
 * - global congestion: message delay > target_msg_delay: shrink.
 * Pure core.
 *
 * How MPDT fills in what the paper leaves open:
 * - the window is kept in bytes and granted in whole messages (§4: "a
 *   new message will be issued once the available window size is larger
 *   than the message size"): cc->cwnd = messages * message size, the
 *   message size being the latest message's, at most a chunk, and at
 *   least one message;
 * - the chunk: §4's CCLs cut messages into 64 KB chunks and MCC judges
 *   each chunk as a message, so the engine reports every chunk of a
 *   longer message as it completes (cc->chunk).  A window counted in
 *   64 KB units cannot go below one of them: on a fabric whose BDP is a
 *   few tens of KB, a window nothing can cut.  So unless mcc_chunk_bytes
 *   sets it, the chunk is an eighth of the BDP (the increase unit at
 *   §4's 8:1), at least a packet, at most 64 KB;
 * - the sampled packet delay is the largest RTT sample of the SACKs since
 *   the previous message completed: the packets those SACKs acknowledge
 *   are mostly the completing message's;
 * - Table 1's targets: target_max_delay = base RTT + queuing delay and
 *   target_msg_delay = size / link speed + target_max_delay / 2.  On an
 *   idle path a message takes size / link speed + one base RTT, so the
 *   queuing delay must exceed a base RTT for an idle path to read as
 *   uncongested: at one base RTT, with chunks judged as messages, the
 *   model's 100 Gbit/s permutation found every idle chunk a few percent
 *   over target (the measured base RTT is whole microseconds) and the
 *   windows fell to one packet.  MPDT takes two base RTTs: a message may
 *   wait half a base RTT in queues, a packet two;
 * - the global-congestion decrease is not given: MPDT scales the window
 *   by target_msg_delay / message delay, at least by mcc_md_floor_pct,
 *   and once per message that started after the previous decrease.
 */
#include "cc.h"

#define MCC_CHUNK_MAX	65536		/* §4: 64 KB chunks */

struct mcc {
	u64 win;		/* bytes, before rounding to messages */
	u64 msg_unit;		/* bytes of one message of the window */
	u64 max_rtt;		/* ns, sampled since the last message */
	u64 last_decrease;	/* ns */
	u64 target_max_ns;
	u64 target_msg_ns;	/* 0: from each message's size */
	u64 bdp;		/* bytes, where the window starts */
	u64 inc;		/* bytes: BDP / oversubscription */
	u64 max_cwnd;
	u64 chunk;
	u32 link_mbps;
	u32 floor_pm;
};

static u64 mcc_msgs(const struct mcc *m)
{
	return max(mpdt_div(m->win, m->msg_unit), 1ULL);
}

/* Saturated, not truncated: a window of 2^32 messages is not 0. */
u32 mpdt_mcc_window_msgs(const struct mpdt_cc *cc)
{
	u64 msgs = mcc_msgs(cc->priv);

	return msgs > U32_MAX ? U32_MAX : msgs;
}

static void mcc_set_cwnd(struct mpdt_cc *cc, struct mcc *m)
{
	m->win = clamp(m->win, (u64)cc->mss, m->max_cwnd);
	cc->chunk = m->chunk;		/* at most mcc-chunk-bytes' 2^30 */
	cc->cwnd = mpdt_cc_bound(mcc_msgs(m) * m->msg_unit, m->max_cwnd,
				 cc->mss);
}

/* Table 1 and §4: what follows the base RTT, the link and the BDP. */
static void mcc_scale(struct mcc *m, const struct mpdt_params *p, u32 mss)
{
	u64 base_rtt = p->base_rtt_us * MPDT_NSEC_PER_USEC;

	m->target_max_ns = p->mcc_target_max_delay_us ?
			   p->mcc_target_max_delay_us * MPDT_NSEC_PER_USEC :
			   3 * base_rtt;
	m->bdp = mpdt_bdp(p);
	m->inc = max(mpdt_div(m->bdp, p->mcc_oversub), 1ULL);
	m->max_cwnd = mpdt_cc_max_cwnd(p, p->mcc_max_cwnd_pct, mss);
	m->link_mbps = p->link_mbps;
	m->chunk = p->mcc_chunk_bytes ? p->mcc_chunk_bytes :
		   min(m->bdp / 8, (u64)MCC_CHUNK_MAX);
	m->chunk = max_t(u64, m->chunk, mss);
	m->msg_unit = min(m->msg_unit, m->chunk);
}

static void mcc_rescale(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	struct mcc *m = cc->priv;
	u64 old_bdp = m->bdp;

	mcc_scale(m, p, cc->mss);
	m->win = mpdt_cc_rescaled(m->win, old_bdp, m->bdp, m->max_cwnd);
	mcc_set_cwnd(cc, m);
}

static void mcc_init(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	struct mcc *m = cc->priv;

	mcc_scale(m, p, cc->mss);
	m->target_msg_ns = p->mcc_target_msg_delay_us * MPDT_NSEC_PER_USEC;
	m->floor_pm = p->mcc_md_floor_pct * 10;
	/* Before any message: one BDP, counted in whole chunks. */
	m->msg_unit = m->chunk;
	m->win = m->bdp;
	mcc_set_cwnd(cc, m);
}

/* Table 1: msg_size / bw + target_max_delay / 2, unless configured. */
static u64 mcc_target_msg(const struct mcc *m, u64 bytes)
{
	if (m->target_msg_ns)
		return m->target_msg_ns;
	return mpdt_mul_div(bytes, 8 * MPDT_NSEC_PER_USEC, m->link_mbps) +
	       m->target_max_ns / 2;
}

/* Global congestion: shrink by how far the delay overshot the target. */
static void mcc_decrease(struct mcc *m, u64 target, u64 delay, u64 now)
{
	u64 factor, floor = m->floor_pm;

	/* A message sent before the last cut reports on the old window. */
	if (m->last_decrease && now - min(delay, now) < m->last_decrease)
		return;
	factor = max(mpdt_mul_div(target, 1000, delay), floor);
	m->win = mpdt_mul_div(m->win, factor, 1000);
	m->last_decrease = now;
}

/* §3 signal interpretation, then §4's window adjustment. */
static void mcc_on_message_done(struct mpdt_cc *cc, u64 msg_bytes,
				u64 delay_ns, u64 now)
{
	struct mcc *m = cc->priv;
	u64 target = mcc_target_msg(m, msg_bytes);
	u64 max_pkt = m->max_rtt;

	m->max_rtt = 0;
	m->msg_unit = clamp(msg_bytes, (u64)cc->mss, m->chunk);
	if (delay_ns > target)
		mcc_decrease(m, target, delay_ns, now);
	else if (max_pkt <= m->target_max_ns)
		m->win += m->inc;
	/* else partial congestion: the window holds. */
	mcc_set_cwnd(cc, m);
}

/* The SACKs' RTT samples are MCC's sampled packet delays. */
static void mcc_on_ack(struct mpdt_cc *cc, const struct mpdt_cc_ack *a)
{
	struct mcc *m = cc->priv;

	m->max_rtt = max(m->max_rtt, a->rtt_ns);
}

const struct mpdt_cc_ops mpdt_cc_mcc = {
	.name		= "mcc",
	.priv_size	= sizeof(struct mcc),
	.init		= mcc_init,
	.on_ack		= mcc_on_ack,
	.rescale	= mcc_rescale,
	.on_message_done = mcc_on_message_done,
};
