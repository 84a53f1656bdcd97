// SPDX-License-Identifier: GPL-2.0
/*
 * The model's glue for one MPDT connection end: struct mpdt_eng_ops over
 * the callbacks of struct msim_ep_ops.  It does what the module's conn.c,
 * tx.c and rx.c do, minus memory and locks: it starts an incarnation on
 * the first message, decodes what arrives, assembles messages as
 * segment bitmaps (payload is virtual) and counts.
 */
#include <stdio.h>
#include <stdlib.h>

#include "algo.h"
#include "default_params.h"
#include "engine.h"
#include "endpoint.h"

/* MPDT ports of every endpoint: one socket per host, one per peer. */
#define SIM_MPDT_PORT	1000

struct msim_params {
	struct mpdt_params p;
	const struct mpdt_lb_ops *lb;
	const struct mpdt_cc_ops *cc;
};

struct sim_txmsg {
	struct mpdt_eng_txmsg m;
};

struct sim_rxmsg {
	struct sim_rxmsg *next;
	struct mpdt_reasm ra;
	u64 segs[];
};

struct msim_ep {
	struct mpdt_eng eng;
	const struct msim_params *params;
	const struct msim_ep_ops *ops;
	void *ctx;
	u64 seed;			/* of the next incarnation */
	struct sim_rxmsg *partial;	/* messages being assembled */
	u64 stats[__MPDT_STAT_MAX];
	u64 cwnd_cuts;
};

/* splitmix64: nonces and LB seeds, reproducible per run seed. */
static u64 next_rand(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void *xcalloc(size_t n, size_t size)
{
	void *ptr = calloc(n, size);

	if (!ptr) {
		perror("mpdt-sim");
		exit(2);
	}
	return ptr;
}

/* ---- Parameters ------------------------------------------------------ */

struct msim_params *msim_params_new(void)
{
	struct msim_params *mp = xcalloc(1, sizeof(*mp));

	mp->p = mpdt_module_defaults;
	mp->lb = mpdt_lb_find(MPDT_MODULE_DEFAULT_LB);
	mp->cc = mpdt_cc_find(MPDT_MODULE_DEFAULT_CC);
	return mp;
}

void msim_params_free(struct msim_params *p)
{
	free(p);
}

const char *msim_params_set(struct msim_params *mp, const char *name,
			    const char *value)
{
	unsigned long long v;
	unsigned int i;
	char *end;

	if (!strcmp(name, "lb")) {
		mp->lb = mpdt_lb_find(value) ?: mp->lb;
		return mpdt_lb_find(value) ? NULL : "no such load balancer";
	}
	if (!strcmp(name, "cc")) {
		mp->cc = mpdt_cc_find(value) ?: mp->cc;
		return mpdt_cc_find(value) ? NULL : "no such congestion control";
	}
	for (i = 0; i < mpdt_param_count; i++) {
		const struct mpdt_param_desc *d = &mpdt_param_descs[i];

		if (strcmp(name, d->name))
			continue;
		v = strtoull(value, &end, 0);
		if (*end || !*value || v < d->min || v > d->max)
			return "value out of the parameter's range";
		*mpdt_param_field(&mp->p, d) = v;
		return NULL;
	}
	return "no such parameter";
}

const char *msim_params_invalid(const struct msim_params *mp)
{
	return mpdt_params_invalid(&mp->p);
}

uint16_t msim_params_port(const struct msim_params *mp)
{
	return mp->p.udp_port;
}

uint16_t msim_params_ev_port(const struct msim_params *mp, uint16_t ev)
{
	return mpdt_ev_port(mp->p.entropy_base, mp->p.entropies, ev);
}

const char *msim_params_lb(const struct msim_params *mp)
{
	return mp->lb->name;
}

const char *msim_params_cc(const struct msim_params *mp)
{
	return mp->cc->name;
}

/* ---- struct mpdt_eng_ops --------------------------------------------- */

static struct msim_ep *ep_of(struct mpdt_eng *e)
{
	return container_of(e, struct msim_ep, eng);
}

static void op_xmit(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		    const struct mpdt_eng_txmsg *m)
{
	struct msim_ep *ep = ep_of(e);
	struct mpdt_pkt h = *pkt;
	u8 buf[MPDT_MAX_HLEN];
	u32 hlen;

	h.hdr.src_port = SIM_MPDT_PORT;
	h.hdr.dst_port = SIM_MPDT_PORT;
	hlen = mpdt_wire_encode(&h, buf);
	ep->stats[mpdt_stat_for_tx(h.hdr.type)]++;
	ep->ops->xmit(ep->ctx, buf, hlen,
		      h.hdr.type == MPDT_T_DATA ? h.data.payload_len : 0,
		      msim_params_ev_port(ep->params, h.hdr.ev));
}

/* Every packet leaves at once: a burst needs no holding. */
static void op_flush(struct mpdt_eng *e)
{
}

static void op_arm_timer(struct mpdt_eng *e, u64 when)
{
	struct msim_ep *ep = ep_of(e);

	ep->ops->arm_timer(ep->ctx, when);
}

static void op_count(struct mpdt_eng *e, enum mpdt_stat s, u64 n)
{
	if (s < __MPDT_STAT_MAX)
		ep_of(e)->stats[s] += n;
}

static void op_tx_release(struct mpdt_eng *e, struct mpdt_eng_txmsg *m)
{
	struct msim_ep *ep = ep_of(e);
	struct sim_txmsg *t = container_of(m, struct sim_txmsg, m);

	ep->ops->released(ep->ctx, m->len, m->acked == m->npkts);
	free(t);
}

static void op_tx_room(struct mpdt_eng *e)
{
}

/* Counted by the engine (conn_failed). */
static void op_failed(struct mpdt_eng *e)
{
}

/* Where message @id is linked in ep->partial, or the list's end. */
static struct sim_rxmsg **rxmsg_link(struct msim_ep *ep, u32 id)
{
	struct sim_rxmsg **pp = &ep->partial;

	while (*pp && (*pp)->ra.id != id)
		pp = &(*pp)->next;
	return pp;
}

static struct mpdt_reasm *op_rx_find(struct mpdt_eng *e, u32 id)
{
	struct sim_rxmsg *r = *rxmsg_link(ep_of(e), id);

	return r ? &r->ra : NULL;
}

/* Memory is no constraint of the model: every message is admitted. */
static struct mpdt_reasm *op_rx_admit(struct mpdt_eng *e,
				      const struct mpdt_data *d)
{
	struct msim_ep *ep = ep_of(e);
	u32 words = mpdt_reasm_words(d->msg_len);
	struct sim_rxmsg *r = xcalloc(1, sizeof(*r) + words * sizeof(u64));

	mpdt_reasm_init(&r->ra, d->msg_id, d->msg_len, r->segs);
	r->next = ep->partial;
	ep->partial = r;
	return &r->ra;
}

static int op_rx_place(struct mpdt_eng *e, struct mpdt_reasm *ra,
		       const struct mpdt_data *d, const void *payload)
{
	const struct mpdt_pkt *pkt = payload;

	return pkt->payload_avail < d->payload_len ? -EPROTO : 0;
}

static void op_rx_deliver(struct mpdt_eng *e, struct mpdt_reasm *ra)
{
	struct sim_rxmsg *r = container_of(ra, struct sim_rxmsg, ra);
	struct msim_ep *ep = ep_of(e);

	*rxmsg_link(ep, ra->id) = r->next;
	ep->ops->delivered(ep->ctx, ra->len);
	free(r);
}

static void op_rx_forget(struct mpdt_eng *e)
{
	struct msim_ep *ep = ep_of(e);
	struct sim_rxmsg *r;

	while ((r = ep->partial)) {
		ep->partial = r->next;
		free(r);
	}
}

static const struct mpdt_eng_ops sim_eng_ops = {
	.xmit		= op_xmit,
	.flush		= op_flush,
	.arm_timer	= op_arm_timer,
	.count		= op_count,
	.tx_release	= op_tx_release,
	.tx_room	= op_tx_room,
	.failed		= op_failed,
	.rx_find	= op_rx_find,
	.rx_admit	= op_rx_admit,
	.rx_place	= op_rx_place,
	.rx_deliver	= op_rx_deliver,
	.rx_forget	= op_rx_forget,
};

/* ---- Endpoints ------------------------------------------------------- */

/* As conn_alloc(): the policies' state sized for the parameters. */
struct msim_ep *msim_ep_new(const struct msim_params *mp,
			    const struct msim_ep_ops *ops, void *ctx,
			    uint64_t seed, uint64_t now)
{
	struct msim_ep *ep = xcalloc(1, sizeof(*ep));
	struct mpdt_eng *e = &ep->eng;
	u32 window = mp->p.rx_window;

	ep->params = mp;
	ep->ops = ops;
	ep->ctx = ctx;
	ep->seed = seed;
	mpdt_eng_init(e, &sim_eng_ops, &mp->p,
		      xcalloc(window / 64, sizeof(u64)), window, now);
	e->lb.ops = mp->lb;
	e->lb.entropies = mp->p.entropies;
	e->lb.priv_len = mp->lb->priv_size ? mp->lb->priv_size(&mp->p) : 0;
	e->lb.priv = e->lb.priv_len ? xcalloc(1, e->lb.priv_len) : NULL;
	e->cc.ops = mp->cc;
	e->cc.priv = mp->cc->priv_size ? xcalloc(1, mp->cc->priv_size) :
					 NULL;
	return ep;
}

void msim_ep_free(struct msim_ep *ep)
{
	mpdt_eng_release(&ep->eng);
	free(ep->eng.sb.ring);
	free(ep->eng.rx.bits);
	free(ep->eng.lb.priv);
	free(ep->eng.cc.priv);
	free(ep);
}

/* As tx.c: the first message, or the first after a failure, starts a
 * new incarnation; the scoreboard ring is sized on the first.
 */
void msim_ep_send(struct msim_ep *ep, uint32_t len, uint64_t now)
{
	struct sim_txmsg *t = xcalloc(1, sizeof(*t));
	struct mpdt_eng *e = &ep->eng;

	if (mpdt_eng_needs_start(e, now)) {
		struct mpdt_sb_pkt *ring = e->sb.ring ?:
			xcalloc(e->rx.window, sizeof(*ring));

		mpdt_eng_start(e, ring, (u32)next_rand(&ep->seed),
			       next_rand(&ep->seed), now);
	}
	t->m.len = len;
	mpdt_eng_send(e, &t->m, now);
}

bool msim_ep_input(struct msim_ep *ep, const uint8_t *buf, uint32_t len,
		   bool ce, uint64_t now)
{
	struct mpdt_pkt pkt;
	u32 cwnd;

	ep->stats[MPDT_STAT_RX_PKTS]++;
	if (mpdt_wire_decode(buf, len, &pkt) != MPDT_WIRE_OK) {
		ep->stats[MPDT_STAT_DROP_BAD_LENGTH]++;
		return false;
	}
	if (ce)
		ep->stats[MPDT_STAT_RX_CE]++;
	cwnd = ep->eng.cc.cwnd;
	mpdt_eng_on_packet(&ep->eng, &pkt, ce, &pkt, now);
	ep->cwnd_cuts += ep->eng.cc.cwnd < cwnd;
	return true;
}

void msim_ep_timer(struct msim_ep *ep, uint64_t now)
{
	u32 cwnd = ep->eng.cc.cwnd;

	mpdt_eng_on_timer(&ep->eng, now);
	ep->cwnd_cuts += ep->eng.cc.cwnd < cwnd;
}

void msim_ep_add_counts(const struct msim_ep *ep, struct msim_counts *c)
{
	const u64 *s = ep->stats;

	c->tx_data += s[MPDT_STAT_TX_DATA];
	c->retx += s[MPDT_STAT_RETX_OOO] + s[MPDT_STAT_RETX_PROBE] +
		   s[MPDT_STAT_RETX_RTO] + s[MPDT_STAT_RETX_NACK];
	c->rtos += s[MPDT_STAT_RTO];
	c->rto_undone += s[MPDT_STAT_RTO_UNDONE];
	c->tx_sack += s[MPDT_STAT_TX_SACK];
	c->tx_nack += s[MPDT_STAT_TX_NACK];
	c->tx_probe += s[MPDT_STAT_TX_PROBE];
	c->rx_data += s[MPDT_STAT_RX_DATA];
	c->rx_reordered += s[MPDT_STAT_RX_REORDERED];
	c->rx_ce += s[MPDT_STAT_RX_CE];
	c->rx_trimmed += s[MPDT_STAT_DROP_TRIMMED];
	c->rx_dup += s[MPDT_STAT_RX_DUP_DATA];
	c->failed += s[MPDT_STAT_CONN_FAILED];
	c->cwnd_cuts += ep->cwnd_cuts;
}

bool msim_is_control(const uint8_t *buf, uint32_t len)
{
	struct mpdt_pkt pkt;

	if (mpdt_wire_decode(buf, len, &pkt) != MPDT_WIRE_OK)
		return false;
	return mpdt_pkt_is_feedback(&pkt) ||
	       (pkt.hdr.type == MPDT_T_DATA &&
		(pkt.hdr.flags & MPDT_F_TRIMMED));
}

/* What a trimming switch does (STrack §3.1, SMaRTT §3.3): the payload
 * goes, the header stays and says so.
 */
uint32_t msim_trim(uint8_t *buf, uint32_t len)
{
	struct mpdt_pkt pkt;

	if (mpdt_wire_decode(buf, len, &pkt) != MPDT_WIRE_OK ||
	    pkt.hdr.type != MPDT_T_DATA || (pkt.hdr.flags & MPDT_F_TRIMMED))
		return 0;
	pkt.hdr.flags |= MPDT_F_TRIMMED;
	return mpdt_wire_encode(&pkt, buf);
}
