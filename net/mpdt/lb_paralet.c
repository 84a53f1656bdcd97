// SPDX-License-Identifier: GPL-2.0
/*
 * "paralet": parallel flowlets (ParaLet §3, §5).  The sender side.  A
 * connection keeps paralet_m flowlets (32 by default; §5.2 derives m >= 25
 * for a slowdown under 2 at tens of thousands of nodes) in flight at once.
 * Each flowlet is a run of S = max(1, paralet_bdps * BDP / m) packets
 * (§5.2: "4BDP/m") pinned to one entropy, so its packets share a path and
 * arrive in order; the m flowlets take new packets in turn, each at 1/m of
 * the connection's rate (§5.1 S1), as ParaLet's m QPs would.  A flowlet
 * that has carried its S packets is followed by a new one on a new
 * entropy (§3: "each parallel flowlet can choose a new path"): the next
 * in a per-connection random order of all entropies, so the m flowlets in
 * flight use m different entropies when there are more.
 *
 * Each packet in a flowlet reports the PSN sent before it on the same
 * flowlet (its own PSN when it opens one): the receiver treats a gap
 * inside a flowlet as a loss and ignores gaps between flowlets (§4.2).
 * A retransmission belongs to no flowlet and goes out on a random
 * entropy, not necessarily the one that lost it.  Pure core.
 */
#include "lb.h"
#include "prng.h"

#define PARALET_MAX_M		256U

struct paralet_flowlet {
	u32 prev_psn;		/* last PSN sent on it */
	u32 left;		/* packets it may still carry; 0: ended */
	u16 ev;
	bool used;		/* ev is that of a previous flowlet */
};

struct lb_paralet {
	struct mpdt_perm order;	/* entropies of new flowlets */
	struct mpdt_prng rng;	/* entropies of retransmissions */
	u32 order_pos;
	u32 bdps;
	u32 m;
	u32 next;		/* flowlet of the next packet */
	struct paralet_flowlet flowlet[];
};

static u32 paralet_flowlets(const struct mpdt_params *p)
{
	return clamp(p->paralet_m, 1U, PARALET_MAX_M);
}

static u32 paralet_priv_size(const struct mpdt_params *p)
{
	return sizeof(struct lb_paralet) +
	       paralet_flowlets(p) * sizeof(struct paralet_flowlet);
}

/* Sized from @p, but never beyond the state allocated: the parameters
 * may have changed since (a reset re-initialises).
 */
static void paralet_init(struct mpdt_lb *lb, const struct mpdt_params *p,
			 u64 seed)
{
	struct lb_paralet *s = lb->priv;
	u32 room = (lb->priv_len - sizeof(*s)) / sizeof(s->flowlet[0]);

	s->m = min(paralet_flowlets(p), room);
	s->bdps = p->paralet_bdps;
	mpdt_prng_seed(&s->rng, seed);
	mpdt_perm_init(&s->order, mpdt_lb_evs(lb), mpdt_prng_next(&s->rng));
}

/* §5.2: S = 4 BDP / m packets, at least one. */
static u32 paralet_size(const struct lb_paralet *s, u32 bdp_pkts)
{
	return clamp(mpdt_div((u64)s->bdps * bdp_pkts, s->m), 1ULL, (u64)~0U);
}

static u16 paralet_next_ev(struct mpdt_lb *lb, struct lb_paralet *s)
{
	u16 ev = mpdt_perm_at(&s->order, s->order_pos);

	s->order_pos = (s->order_pos + 1) % mpdt_lb_evs(lb);
	return ev;
}

/* With m < entropies the walk gives the m flowlets in flight m different
 * EVs, and each flowlet a new one.  With m a multiple of entropies it
 * would give a flowlet its old EV again: then it takes the next.
 */
static void paralet_start(struct mpdt_lb *lb, struct lb_paralet *s,
			  struct paralet_flowlet *f, u32 bdp_pkts)
{
	u16 ev = paralet_next_ev(lb, s);

	if (f->used && ev == f->ev && lb->entropies > 1)
		ev = paralet_next_ev(lb, s);
	f->ev = ev;
	f->used = true;
	f->left = paralet_size(s, bdp_pkts);
}

static u16 paralet_choose(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	struct lb_paralet *s = lb->priv;
	struct paralet_flowlet *f;

	if (ctx->resend) {
		ctx->in_flowlet = false;
		return mpdt_prng_below(&s->rng, mpdt_lb_evs(lb));
	}
	f = &s->flowlet[s->next];
	s->next = (s->next + 1) % s->m;
	if (!f->left) {
		paralet_start(lb, s, f, ctx->bdp_pkts);
		f->prev_psn = ctx->psn;
	}
	/* A burst goes on one flowlet, and no further than its end. */
	ctx->pkts = clamp(ctx->pkts, 1U, f->left);
	ctx->in_flowlet = true;
	ctx->flowlet_prev = f->prev_psn;
	f->prev_psn = ctx->psn + ctx->pkts - 1;
	f->left -= ctx->pkts;
	return f->ev;
}

const struct mpdt_lb_ops mpdt_lb_paralet = {
	.name		= "paralet",
	.flowlets	= true,
	.priv_size	= paralet_priv_size,
	.init		= paralet_init,
	.choose_ev	= paralet_choose,
};
