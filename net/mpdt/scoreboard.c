// SPDX-License-Identifier: GPL-2.0
/*
 * STrack §3.3.2 sender scoreboard and loss detection.  Pure core.
 *
 * The ring holds one entry per PSN in [una, nxt).  A packet is INFLIGHT,
 * ACKED, or LOST (declared lost by one of the detectors and waiting for the
 * congestion window to let it go again).  Retransmissions reuse the PSN, so
 * the receiver's bitmap deduplicates them.
 */
#include "scoreboard.h"

void mpdt_sb_init(struct mpdt_sb *sb, struct mpdt_sb_pkt *ring, u32 window,
		  u64 now)
{
	memset(sb, 0, sizeof(*sb));
	memset(ring, 0, sizeof(*ring) * window);
	sb->ring = ring;
	sb->window = window;
	sb->last_sack_ns = now;
	sb->rto_start_ns = now;
	sb->ooo_young_ns = U64_MAX;
}

struct mpdt_sb_pkt *mpdt_sb_at(const struct mpdt_sb *sb, u32 psn)
{
	return &sb->ring[psn & (sb->window - 1)];
}

/* Eq. (1)-(2) is an estimate.  A loss declared for a packet the peer holds
 * but no SACK that reached us showed (a bitmap carries 64 PSNs) claims bytes
 * Received Bytes already counts: until the packet is resent, recvd +
 * claimed exceeds sent by at most the LOST packets' bytes.  The resend is a
 * duplicate that adds to bytes_sent and never to bytes_recvd, and the books
 * balance again.  Which LOST packets the peer holds no SACK says, so 0 is
 * the best estimate meanwhile.
 */
u64 mpdt_sb_inflight(const struct mpdt_sb *sb)
{
	u64 gone = sb->bytes_recvd + sb->bytes_claimed;

	return sb->bytes_sent > gone ? sb->bytes_sent - gone : 0;
}

u32 mpdt_sb_record(struct mpdt_sb *sb, void *owner, u32 offset, u16 len,
		   u16 ev, u64 now)
{
	u32 psn = sb->nxt++;
	struct mpdt_sb_pkt *p = mpdt_sb_at(sb, psn);

	/* The timeout clock starts when there is something to time out. */
	if (sb->nxt - sb->una == 1) {
		sb->rto_start_ns = now;
		sb->last_sack_ns = now;
	}
	p->owner = owner;
	p->sent_ns = now;
	p->offset = offset;
	p->len = len;
	p->ev = ev;
	p->state = MPDT_SB_INFLIGHT;
	p->rto_lost = false;
	p->transmissions = 1;
	sb->bytes_sent += len;
	return psn;
}

/* The cursor keeps the scan short: no LOST packet lies in [una, lost_scan),
 * and lost_scan stays within [una, nxt] (see advance_una()).
 */
bool mpdt_sb_next_lost(struct mpdt_sb *sb, u32 *psn)
{
	u32 p;

	if (!sb->lost_pending || (sb->rto_verify && sb->rto_resent))
		return false;
	for (p = sb->lost_scan; p != sb->nxt; p++) {
		if (mpdt_sb_at(sb, p)->state == MPDT_SB_LOST) {
			sb->lost_scan = p;
			*psn = p;
			return true;
		}
	}
	sb->lost_scan = sb->nxt;
	return false;
}

void mpdt_sb_resent(struct mpdt_sb *sb, u32 psn, u16 ev, u64 now)
{
	struct mpdt_sb_pkt *p = mpdt_sb_at(sb, psn);

	p->state = MPDT_SB_INFLIGHT;
	p->sent_ns = now;
	p->ev = ev;
	p->rto_lost = false;
	if (p->transmissions < 0xff)
		p->transmissions++;
	sb->bytes_sent += p->len;
	sb->lost_pending--;
	sb->rto_resent++;
	/* A resend is the youngest packet out; one behind the OOO walks
	 * must be looked at again once it is old.
	 */
	if (psn_before(psn, sb->ooo_walked))
		sb->ooo_young_ns = min(sb->ooo_young_ns, now);
	/* The timeout now times the resend of the oldest packet, not the
	 * original a detector just declared lost (Linux rearms its RTO on
	 * resending the head too); left running it fires on the resend's
	 * heels: in the model at 1% loss on every link, 450 RTOs, 431 of
	 * them spurious, fell to 111.
	 */
	if (psn == sb->una)
		sb->rto_start_ns = now;
}

/* Declaring a loss claims its bytes out of inflight until resent. */
static void declare_lost(struct mpdt_sb *sb, u32 psn,
			 enum mpdt_retx_cause cause)
{
	struct mpdt_sb_pkt *p = mpdt_sb_at(sb, psn);

	p->state = MPDT_SB_LOST;
	p->rto_lost = cause == MPDT_RETX_RTO;
	sb->bytes_claimed += p->len;
	sb->lost_pending++;
	sb->retx[cause]++;
	if (psn_before(psn, sb->lost_scan))
		sb->lost_scan = psn;
	if (sb->lost)
		sb->lost(sb->lost_ctx, psn, p, cause);
}

/* The cursors move along with una: a cursor left below una would lose its
 * meaning, and a loss declared between una and it would then be skipped by
 * mpdt_sb_next_lost() and never resent.
 */
static void advance_una(struct mpdt_sb *sb)
{
	if (sb->lost_scan == sb->una)
		sb->lost_scan++;
	if (sb->ooo_walked == sb->una)
		sb->ooo_walked++;
	sb->una++;
}

static void mark_acked(struct mpdt_sb *sb, u32 psn, mpdt_sb_acked_fn acked,
		       void *ctx, struct mpdt_sb_ack *out)
{
	struct mpdt_sb_pkt *p = mpdt_sb_at(sb, psn);

	if (p->state == MPDT_SB_ACKED)
		return;
	if (p->state == MPDT_SB_LOST) {
		/* The original made it after all: nothing to resend. */
		sb->bytes_claimed -= p->len;
		sb->lost_pending--;
		p->rto_lost = false;
	}
	p->state = MPDT_SB_ACKED;
	out->acked_pkts++;
	acked(ctx, p);
}

/* Every INFLIGHT packet in [una, to) sent before @sent_before is lost.  @to
 * beyond nxt is cut to it: the walk never leaves the window.
 */
static u32 declare_range_lost(struct mpdt_sb *sb, u32 to, u64 sent_before,
			      enum mpdt_retx_cause cause)
{
	u32 n = 0, i, span = min(to - sb->una, sb->nxt - sb->una);

	for (i = 0; i < span; i++) {
		u32 p = sb->una + i;
		struct mpdt_sb_pkt *pkt = mpdt_sb_at(sb, p);

		if (pkt->state == MPDT_SB_INFLIGHT &&
		    pkt->sent_ns < sent_before) {
			declare_lost(sb, p, cause);
			n++;
		}
	}
	return n;
}

/* Everything a SACK names must lie where the sender has been: EPSN in
 * [una - window, nxt] (a reordered SACK lags, but one a whole window old
 * has nothing left to say), the bitmap in [EPSN, nxt).  Compared as
 * unsigned distances, which cannot wrap: psn_before() alone lets a range
 * that straddles nxt + 2^31 through, and the walks behind it would run
 * over 2^31 PSNs.
 */
bool mpdt_sb_sack_is_sane(const struct mpdt_sb *sb, const struct mpdt_sack *s)
{
	u32 oldest = sb->una - sb->window, base, last;

	if (s->epsn - oldest > sb->nxt - oldest)
		return false;
	/* Unique bytes received cannot exceed every byte transmitted. */
	if (s->recv_bytes > sb->bytes_sent)
		return false;
	if (!s->bitmap)
		return true;
	/* Distances from EPSN; last < base when the bitmap wraps past it. */
	base = s->sack_base - s->epsn;
	last = base + 63 - __builtin_clzll(s->bitmap);
	return base <= last && last < sb->nxt - s->epsn;
}

static void apply_cumulative(struct mpdt_sb *sb, u32 epsn,
			     mpdt_sb_acked_fn acked, void *ctx,
			     struct mpdt_sb_ack *out)
{
	if (!psn_after(epsn, sb->una))
		return;
	while (sb->una != epsn) {
		mark_acked(sb, sb->una, acked, ctx, out);
		advance_una(sb);
	}
	out->epsn_advanced = true;
}

static void apply_bitmap(struct mpdt_sb *sb, const struct mpdt_sack *s,
			 mpdt_sb_acked_fn acked, void *ctx,
			 struct mpdt_sb_ack *out)
{
	u64 bits = s->bitmap;

	while (bits) {
		u32 i = __builtin_ctzll(bits);
		u32 psn = s->sack_base + i;

		bits &= bits - 1;
		if (mpdt_sb_tracked(sb, psn))
			mark_acked(sb, psn, acked, ctx, out);
		if (psn_after(psn + 1, sb->high_rcvd))
			sb->high_rcvd = psn + 1;
	}
	/* Bitmap acks can leave una sitting on an ACKED packet. */
	while (sb->una != sb->nxt &&
	       mpdt_sb_at(sb, sb->una)->state == MPDT_SB_ACKED)
		advance_una(sb);
}

/* OOO-based detection (§3.3.2).  The paper infers a loss once the
 * receiver holds more than max(cwnd packets, 5) beyond the EPSN, because
 * "if a packet does not get acknowledged within a whole window's time, it
 * is safe to consider it as lost", and then declares every unacknowledged
 * packet below the highest received PSN lost.
 *
 * Under spraying the count is a poor clock for that window's time: the
 * packets just below the highest one are still on slower paths, and after
 * a window cut the count weighs packets sent at the old window against
 * the new one.  In the model's 32-host permutation at a configured
 * link-mbps a fifth of all packets were resent, none of them lost.  So
 * the count says that something is missing, and the time says what, as
 * RACK does (RFC 8985 6.2): a packet is lost once it has been out for the
 * smoothed RTT plus a reorder window of one smoothed RTT, RACK's largest.
 * The count is checked on every SACK, and a packet too young for one SACK
 * is declared by a later one or, should none come (the message's tail),
 * by the reorder timer (RFC 8985 6.3); a lost resend is found as an
 * original is.
 *
 * A walk costs up to the window, and a peer can repeat a SACK over the
 * threshold at will.  So the walks remember what they have seen (struct
 * mpdt_sb): a SACK walks from una again only once the oldest packet left
 * for young may have aged, which a packet's send or its age pays for;
 * otherwise it walks only PSNs no walk has seen.  Linux's RACK keeps a
 * time-ordered list to the same end.
 */
static void ooo_walk_restart(struct mpdt_sb *sb)
{
	sb->ooo_walked = sb->una;
	sb->ooo_walked_all = false;
	sb->ooo_young_ns = U64_MAX;
}

static u32 declare_aged(struct mpdt_sb *sb, const struct mpdt_sb_clock *clock)
{
	u32 n = 0, span = min(sb->high_rcvd - sb->una, sb->nxt - sb->una);
	/* Never lost the instant it went: with RTT samples of 0 (a clock
	 * that has not moved), each SACK of a duplicate would declare the
	 * resend it answers lost again, and so on without end.
	 */
	u64 wait = max(2 * clock->srtt_ns, 1ULL), sent_before;

	sb->reorder_due_ns = 0;
	if (clock->now < wait)
		return 0;
	/* Lost once out for wait or longer: what is not is due later. */
	sent_before = clock->now - wait;
	if (sb->ooo_young_ns <= sent_before)
		ooo_walk_restart(sb);
	while (!sb->ooo_walked_all && sb->ooo_walked - sb->una < span) {
		u32 p = sb->ooo_walked;
		struct mpdt_sb_pkt *pkt = mpdt_sb_at(sb, p);

		if (pkt->state == MPDT_SB_INFLIGHT &&
		    pkt->sent_ns <= sent_before) {
			declare_lost(sb, p, MPDT_RETX_OOO);
			n++;
		} else if (pkt->state == MPDT_SB_INFLIGHT) {
			/* Too young yet: the reorder timer comes back. */
			sb->ooo_young_ns = min(sb->ooo_young_ns, pkt->sent_ns);
			/* First sends go in PSN order: the rest are younger. */
			if (pkt->transmissions == 1) {
				sb->ooo_walked_all = true;
				break;
			}
		}
		sb->ooo_walked++;
	}
	if (sb->ooo_young_ns != U64_MAX)
		sb->reorder_due_ns = sb->ooo_young_ns + wait;
	return n;
}

static u32 detect_ooo(struct mpdt_sb *sb, const struct mpdt_sack *s,
		      u32 cwnd_pkts, const struct mpdt_sb_clock *clock)
{
	if (s->ooo_count <= max_t(u32, cwnd_pkts, MPDT_OOO_MIN_THRESHOLD)) {
		sb->reorder_due_ns = 0;
		return 0;
	}
	return declare_aged(sb, clock);
}

/* Probe-based detection (§3.3.2, Algo 1 line 13): the probe came back fast
 * and no other SACK arrived meanwhile, so what was sent before it is lost.
 *
 * At most MPDT_SB_PROBE_ROUNDS times until something is acknowledged
 * again.  A peer that answers probes but takes no data (its socket
 * closed: wire-format.rst 8.2) would otherwise have the whole window
 * resent every probe interval until the RTOs fail it; the RTO, which
 * backs off, is left to retry what three rounds did not repair.  Once
 * was too few: in the ns-3 model's 64:1 incast without trimming, resends
 * a probe asked for were dropped again in the same full queue, and their
 * flows waited for the 10 ms RTO, 3.6x the incast's own 3.7 ms.  The
 * probes between rounds back off (probe_backoff), so a closed peer costs
 * three windows in a few probe intervals, not one every interval.
 */
static u32 detect_probe(struct mpdt_sb *sb, u64 base_rtt_ns, u64 now)
{
	bool fast = now - sb->probe_sent_ns < 2 * base_rtt_ns;
	u32 n = 0;

	if (fast && !sb->sack_since_probe &&
	    sb->probe_rounds < MPDT_SB_PROBE_ROUNDS)
		n = declare_range_lost(sb, sb->nxt, sb->probe_sent_ns,
				       MPDT_RETX_PROBE);
	sb->probe_out = false;
	if (n)
		sb->probe_rounds++;
	return n;
}

/* With nothing unacknowledged, nothing is in flight, whatever eq. (1)-(2)
 * say: a loss declared for a packet already counted in the peer's
 * Received Bytes is claimed twice until the SACK showing it comes, and a
 * peer that forgot its counter (its state was evicted) never catches up.
 * Either would leave phantom bytes in flight, and with the window full of
 * them the sender would stop, unfailed, for good.
 */
static void settle_when_idle(struct mpdt_sb *sb)
{
	if (mpdt_sb_idle(sb))
		sb->bytes_claimed = sb->bytes_sent - sb->bytes_recvd;
}

/* The RTO was spurious: its losses not yet resent are in flight again, and
 * the timeout's backoff and its count toward failing the peer are taken
 * back.
 */
static void undo_rto(struct mpdt_sb *sb)
{
	u32 p;

	for (p = sb->una; p != sb->nxt; p++) {
		struct mpdt_sb_pkt *pkt = mpdt_sb_at(sb, p);

		if (pkt->state != MPDT_SB_LOST || !pkt->rto_lost)
			continue;
		pkt->state = MPDT_SB_INFLIGHT;
		pkt->rto_lost = false;
		sb->bytes_claimed -= pkt->len;
		sb->lost_pending--;
	}
	/* Walks passed these as LOST: in flight again, and old. */
	ooo_walk_restart(sb);
	if (sb->rto_backoff)
		sb->rto_backoff--;
	if (sb->stalled_rtos)
		sb->stalled_rtos--;
	sb->rto_undone++;
}

/* Was the latest RTO spurious?  Eifel's test (RFC 3522) on the echoed
 * timestamp: a SACK that acknowledges something and echoes a packet sent
 * before the timeout shows the path was slow (a stalled host, a burst of
 * queueing), not broken.  F-RTO's idea (RFC 5682) gives the time to ask:
 * only the oldest packet goes again until the first such SACK.
 */
static void verify_rto(struct mpdt_sb *sb, const struct mpdt_sack *s,
		       struct mpdt_sb_ack *out)
{
	if (!sb->rto_verify || !out->acked_pkts)
		return;
	sb->rto_verify = false;
	if (s->echo_ts < sb->rto_at_ns) {
		undo_rto(sb);
		out->rto_undone = true;
	}
}

enum mpdt_sb_verdict mpdt_sb_on_sack(struct mpdt_sb *sb,
				     const struct mpdt_sack *s, bool probe_ack,
				     u32 ooo_threshold,
				     const struct mpdt_sb_clock *clock,
				     mpdt_sb_acked_fn acked, void *ctx,
				     struct mpdt_sb_ack *out)
{
	u64 now = clock->now;

	memset(out, 0, sizeof(*out));
	if (!mpdt_sb_sack_is_sane(sb, s))
		return MPDT_SB_BOGUS;

	if (s->recv_bytes > sb->bytes_recvd) {
		out->acked_bytes = s->recv_bytes - sb->bytes_recvd;
		sb->bytes_recvd = s->recv_bytes;
	}
	if (psn_after(s->epsn, sb->high_rcvd))
		sb->high_rcvd = s->epsn;
	apply_cumulative(sb, s->epsn, acked, ctx, out);
	apply_bitmap(sb, s, acked, ctx, out);
	verify_rto(sb, s, out);
	settle_when_idle(sb);

	sb->last_sack_ns = now;
	if (out->epsn_advanced) {
		sb->rto_start_ns = now;
		sb->rto_backoff = 0;
	}
	/* Packets getting through: a congested path, not a dead peer. */
	if (out->acked_pkts) {
		sb->stalled_rtos = 0;
		sb->probe_rounds = 0;
		sb->probe_backoff = 0;
	}
	if (probe_ack && sb->probe_out && !out->acked_pkts &&
	    sb->probe_backoff < MPDT_SB_PROBE_BACKOFF_MAX)
		sb->probe_backoff++;
	if (probe_ack && sb->probe_out)
		out->lost += detect_probe(sb, clock->base_rtt_ns, now);
	else if (sb->probe_out)
		sb->sack_since_probe = true;
	out->lost += detect_ooo(sb, s, ooo_threshold, clock);
	return MPDT_SB_OK;
}

/* A NACK of a packet resent after the RTO answers F-RTO's question
 * (RFC 5682 3.1 step 2b): the receiver saw the retransmission, not the
 * original, so the timeout was genuine and the recovery goes on as usual;
 * waiting for the next, backed-off RTO to resend would stall it.
 */
bool mpdt_sb_on_nack(struct mpdt_sb *sb, u32 psn)
{
	struct mpdt_sb_pkt *p;

	if (!mpdt_sb_tracked(sb, psn))
		return false;
	p = mpdt_sb_at(sb, psn);
	if (p->state != MPDT_SB_INFLIGHT)
		return false;
	if (sb->rto_verify && p->sent_ns >= sb->rto_at_ns)
		sb->rto_verify = false;
	declare_lost(sb, psn, MPDT_RETX_NACK);
	return true;
}

void mpdt_sb_peer_alive(struct mpdt_sb *sb, u64 now)
{
	sb->rto_start_ns = now;
	sb->rto_backoff = 0;
	sb->stalled_rtos = 0;
}

void mpdt_sb_on_probe_sent(struct mpdt_sb *sb, u64 now)
{
	sb->probe_out = true;
	sb->sack_since_probe = false;
	sb->probe_sent_ns = now;
}

/* Timeout-based detection (§3.3.2): every unacked packet is lost. */
u32 mpdt_sb_on_rto(struct mpdt_sb *sb, u64 now)
{
	u32 n = declare_range_lost(sb, sb->nxt, ~0ULL, MPDT_RETX_RTO);

	sb->rto_verify = true;
	sb->rto_resent = 0;
	sb->rto_at_ns = now;
	sb->rto_backoff++;
	sb->stalled_rtos++;
	sb->rto_start_ns = now;
	/* The retransmissions probe the path: no probe on their heels. */
	sb->last_sack_ns = now;
	sb->probe_out = false;
	sb->reorder_due_ns = 0;
	return n;
}

u32 mpdt_sb_on_reorder_timer(struct mpdt_sb *sb,
			     const struct mpdt_sb_clock *clock)
{
	if (!sb->reorder_due_ns || clock->now < sb->reorder_due_ns)
		return 0;
	return declare_aged(sb, clock);
}

u64 mpdt_sb_reorder_deadline(const struct mpdt_sb *sb)
{
	return mpdt_sb_idle(sb) ? 0 : sb->reorder_due_ns;
}

u64 mpdt_sb_probe_deadline(const struct mpdt_sb *sb, u64 interval_ns)
{
	u64 last = sb->last_sack_ns;

	if (mpdt_sb_idle(sb))
		return 0;
	if (sb->probe_out && sb->probe_sent_ns > last)
		last = sb->probe_sent_ns;
	return last + interval_ns;
}

u64 mpdt_sb_rto_deadline(const struct mpdt_sb *sb, u64 rto_ns,
			 u64 rto_max_ns)
{
	u64 rto = max(rto_ns, 1ULL);
	u32 i;

	if (mpdt_sb_idle(sb))
		return 0;
	/* Each step doubles a non-zero rto or reaches rto_max, without
	 * overflowing: at most 64 steps, whatever rto_backoff says.
	 */
	for (i = 0; i < sb->rto_backoff && rto < rto_max_ns; i++)
		rto = rto > rto_max_ns / 2 ? rto_max_ns : 2 * rto;
	return sb->rto_start_ns + min(rto, rto_max_ns);
}
