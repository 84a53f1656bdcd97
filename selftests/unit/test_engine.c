// SPDX-License-Identifier: GPL-2.0
/*
 * The connection engine (net/mpdt/engine.c) as the glue drives it: two
 * engines, A and B, each with both halves, talk over a simulated link
 * (loss, trimming, duplication, delay, per-path reordering, serialization
 * at a line rate, ECN marks) on a simulated clock, with the timers they
 * arm.  The tests pin the order of the policy hooks (engine.c's header
 * comment), run whole connections with every load balancer and congestion
 * control, take each loss detector of STrack §3.3.2 (OOO, probe, RTO) and
 * each NACK in turn, fail a vanished peer within the time its parameters
 * allow, and check the receiving half's rules (§3.3.1, wire-format.rst):
 * duplicates, incarnations, reassembly expiry and time-wait.
 *
 * Everything is deterministic from a seed: one PRNG draws the link's fates
 * and the message sizes, and the event queue breaks ties in posting order.
 */
#include <stdarg.h>
#include <stdio.h>

#include "unit.h"
#include "algo.h"
#include "engine.h"
#include "kselftest_harness.h"

#define NODES		2
#define PORT_A		1000
#define PORT_B		2000
#define T0		UNIT_MS(1)
#define LOG_MAX		16384
#define CAP_MAX		4096
#define REPORT_MAX	4096
#define EVENTS_MAX	20000000ULL
/* Link defaults: a 10 Gbit/s line and 40 us each way, so that the RTT
 * stays below the 100 us base RTT of the parameters plus queueing, and a
 * probe answer counts as fast (§3.3.2, within two base RTTs).
 */
#define LINK_MBPS	10000
#define LINK_DELAY	UNIT_US(40)
/* Bytes of Ethernet, IP and UDP framing around each MPDT packet. */
#define FRAMING		42

/* The module's defaults (main.c's mpdt_default_params, generated);
 * mpdt_params_invalid() vets the set in every test that runs a connection.
 */
static struct mpdt_params default_params(void)
{
	return mpdt_module_defaults;
}

/* What happens to one packet on the link. */
enum fate {
	FATE_RANDOM,		/* drawn from the link's rates; as hit_fate:
				 * no packet is singled out
				 */
	FATE_PASS,
	FATE_DROP,
	FATE_TRIM,		/* a switch cuts the payload (DATA only) */
};

/* One direction of the network: the sender's NIC queue drains at @mbps,
 * then each packet takes @delay_ns plus the fixed extra delay of its path
 * (its EV hashed into [0, spread_ns]) plus random jitter.  Without jitter
 * the packets of one EV arrive in order; those of different EVs reorder.
 */
struct link {
	u32 loss_pm;		/* per mille of packets dropped */
	u32 dup_pm;		/* ... delivered twice */
	u32 trim_pm;		/* ... of DATA trimmed */
	u64 delay_ns;
	u64 spread_ns;
	u64 jitter_ns;
	u32 mbps;		/* 0: no serialization */
	u64 ecn_ns;		/* CE when queued longer; 0: never */
	u64 down_from, down_to;	/* drops everything sent in between */
	/* The first transmission of DATA psn @hit_psn meets @hit_fate. */
	u32 hit_psn;
	enum fate hit_fate;
	bool hit_done;
	u64 busy_until;		/* the NIC queue drains then */
	u64 sent[MPDT_T_PROBE + 1], dropped[MPDT_T_PROBE + 1];
	u64 dups[MPDT_T_PROBE + 1], delivered[MPDT_T_PROBE + 1];
	u64 trimmed, marked;
};

/* A message being sent: the glue embeds the engine's part. */
struct tmsg {
	struct mpdt_eng_txmsg m;
	u32 idx;		/* in its node's msgs[]: the id it gets */
	u8 *data;
	u32 delivered;		/* times the peer delivered it */
	bool queued, released, acked;
};

/* A message being assembled. */
struct rmsg {
	struct mpdt_reasm ra;
	struct rmsg *next;
	u8 *buf;
	u64 *segs;
};

/* The glue's handle on a DATA packet's bytes (an skb and offset in the
 * module): what the simulated packet carries, trimmed or not.
 */
struct sim_payload {
	const u8 *bytes;
	u32 avail;
};

/* A packet a node sent while capturing (not on the link). */
struct cap_pkt {
	struct mpdt_pkt pkt;
	const u8 *payload;	/* DATA: the message's bytes */
	u64 at;
};

struct sim;

struct node {
	struct sim *sim;
	struct mpdt_eng eng;
	const char *name;
	u32 idx;
	u16 port;
	struct mpdt_sb_pkt *ring;
	u64 *rx_bits;
	u64 timer_at;		/* 0: not armed */
	u32 nonce_base, incarnations, want_incarnations;
	u64 seed;

	/* What the engine counted, and what the glue saw it do. */
	u64 stats[__MPDT_STAT_MAX];
	u64 count_calls[__MPDT_STAT_MAX];
	u64 last_n[__MPDT_STAT_MAX];
	u64 first_at[__MPDT_STAT_MAX];
	u64 last_at[__MPDT_STAT_MAX];
	u64 tx[MPDT_T_PROBE + 1], rx[MPDT_T_PROBE + 1];
	u64 tx_new, tx_retx, first_retx_at;
	u32 held;		/* new DATA since the engine's last flush */
	u32 flushes;		/* of bursts: with DATA held */
	bool paced;		/* paced() says yes */
	u64 max_rate;		/* ... at most this (0: unlimited) */
	u32 paced_max_burst;	/* the most new DATA flushed with a time */
	u32 paced_bursts;	/* flushes with a departure time */
	u64 pace_lead;		/* the latest time ahead of the flush */
	u32 host_bursts;	/* host_room() says yes this often more */
	u32 host_limit;		/* what it was last asked */
	u64 host_busy_until;	/* host_drained() says no before */
	u32 drain_asks;		/* ... was asked */
	u64 first_probe_at;
	u32 cookie_probes;	/* PROBEs that returned a challenge's cookie */

	/* The sending application: msgs[i] gets id i. */
	struct tmsg **msgs;
	u32 nmsgs, next, window;
	u64 total_pkts;
	u32 released, released_acked, rooms, failed;
	u64 failed_at;
	bool stop_on_fail;

	/* The receiving application. */
	struct rmsg *partial;
	u32 admitted, delivered, forgets, forgotten;
	u32 refuse_id, refuse_left;	/* rx_admit() says no */
	u64 full_until;			/* and to every message before */
	u32 room;			/* what rx_room() says */
	u32 place_fail_id, place_fail_off, place_fail_left;

	/* Tests that play the network by hand. */
	bool capture;
	struct cap_pkt *cap;
	u32 ncap;

	/* Hook log of the stub policies, and the xmits among them. */
	bool logging;
	char *log;
	size_t loglen;
	u64 stub_rtt;		/* the latest cc.on_ack's rtt_ns */
};

struct sim_ev {
	u64 at, seq;
	u32 to;			/* node index */
	u32 len;
	bool ce;
	u8 *buf;		/* the packet as on the wire */
};

struct sim {
	struct mpdt_params p;
	struct unit_rng rng;
	u64 now;
	struct node n[NODES];
	struct link link[NODES];	/* link[i] carries n[i]'s packets */
	struct sim_ev *heap;
	u32 nheap, heap_cap;
	u64 seq, events;
	u32 nerr;
	char err[512];		/* the first thing a callback saw wrong */
};

/* MPDT_ENGINE_TRACE=<seed> in the environment prints every packet sent
 * and received and every timer fired in the simulations of that seed (each
 * test has its own), to follow a failing scenario.
 */
static bool trace;

static void trace_pkt(const struct sim *s, const char *who, const char *what,
		      const struct mpdt_pkt *h)
{
	if (!trace)
		return;
	fprintf(stderr, "%10llu %s %s type %u flags 0x%x ev %u", s->now, who,
		what, h->hdr.type, h->hdr.flags, h->hdr.ev);
	switch (h->hdr.type) {
	case MPDT_T_DATA:
		fprintf(stderr, " psn %u msg %u off %u\n", h->data.psn,
			h->data.msg_id, h->data.offset);
		break;
	case MPDT_T_SACK:
		fprintf(stderr, " epsn %u base %u bits %llx ooo %u\n",
			h->sack.epsn, h->sack.sack_base, h->sack.bitmap,
			h->sack.ooo_count);
		break;
	case MPDT_T_NACK:
		fprintf(stderr, " psn %u code %u\n", h->nack.psn,
			h->nack.code);
		break;
	default:
		fprintf(stderr, " base %u\n", h->probe.sack_base);
	}
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		abort();
	return p;
}

static void sim_err(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->nerr++) {
		int n = snprintf(s->err, sizeof(s->err), "at %llu ns: ",
				 s->now);

		va_start(ap, fmt);
		vsnprintf(s->err + n, sizeof(s->err) - n, fmt, ap);
		va_end(ap);
	}
}

static void node_log(struct node *n, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (!n->logging || n->loglen >= LOG_MAX - 1)
		return;
	va_start(ap, fmt);
	len = vsnprintf(n->log + n->loglen, LOG_MAX - n->loglen, fmt, ap);
	va_end(ap);
	n->loglen = min(n->loglen + len, (size_t)LOG_MAX - 1);
}

static void log_clear(struct node *n)
{
	n->loglen = 0;
	n->log[0] = '\0';
}

/* Appends to a string a test builds its expectations in. */
static void cat(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

static struct node *node_of(struct mpdt_eng *e)
{
	return container_of(e, struct node, eng);
}

static struct node *peer_of(struct node *n)
{
	return &n->sim->n[1 - n->idx];
}

/* Byte @i of the message node @from sends as its @idx-th. */
static u8 pattern(u32 from, u32 idx, u32 i)
{
	return (u8)(i * 131 + (i >> 8) + idx * 7919 + from * 0x5a);
}

/* ---- The event queue ------------------------------------------------- */

static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void heap_push(struct sim *s, struct sim_ev *ev)
{
	u32 i;

	if (s->nheap == s->heap_cap) {
		s->heap_cap = s->heap_cap ? 2 * s->heap_cap : 1024;
		s->heap = realloc(s->heap, s->heap_cap * sizeof(*s->heap));
		if (!s->heap)
			abort();
	}
	ev->seq = s->seq++;
	for (i = s->nheap++; i && ev_before(ev, &s->heap[(i - 1) / 2]);
	     i = (i - 1) / 2)
		s->heap[i] = s->heap[(i - 1) / 2];
	s->heap[i] = *ev;
}

static struct sim_ev heap_pop(struct sim *s)
{
	struct sim_ev top = s->heap[0], last = s->heap[--s->nheap];
	u32 i = 0, c;

	if (!s->nheap)
		return top;
	for (;;) {
		c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = last;
	return top;
}

/* ---- The link -------------------------------------------------------- */

static bool chance(struct sim *s, u32 pm)
{
	return pm && unit_rand_below(&s->rng, 1000) < pm;
}

static u8 *encode(const struct mpdt_pkt *pkt, const u8 *payload, u32 avail,
		  u32 *len)
{
	u8 hdr[MPDT_MAX_HLEN];
	u32 hlen = mpdt_wire_encode(pkt, hdr);
	u8 *buf = xcalloc(1, hlen + avail);

	memcpy(buf, hdr, hlen);
	if (avail)
		memcpy(buf + hlen, payload, avail);
	*len = hlen + avail;
	return buf;
}

/* Each EV hashes onto a path with a fixed extra delay. */
static u64 path_delay(const struct link *l, u16 ev)
{
	u32 h = (ev + 1U) * 0x9e3779b1U;

	return l->spread_ns ? (h >> 8) % (l->spread_ns + 1) : 0;
}

static enum fate link_fate(struct sim *s, struct link *l,
			   const struct mpdt_pkt *pkt)
{
	bool data = pkt->hdr.type == MPDT_T_DATA;

	if (s->now >= l->down_from && s->now < l->down_to)
		return FATE_DROP;
	if (data && l->hit_fate && !l->hit_done &&
	    pkt->data.psn == l->hit_psn && !(pkt->hdr.flags & MPDT_F_RETX)) {
		l->hit_done = true;
		return l->hit_fate;
	}
	if (chance(s, l->loss_pm))
		return FATE_DROP;
	if (data && chance(s, l->trim_pm))
		return FATE_TRIM;
	return FATE_PASS;
}

/* @at: the packet's departure time (pacing.h), 0: now.  Waiting for it
 * is not queueing: it marks no CE.
 */
static void link_send(struct sim *s, struct node *from,
		      const struct mpdt_pkt *pkt, const u8 *payload, u64 at)
{
	struct link *l = &s->link[from->idx];
	struct mpdt_pkt h = *pkt;
	u8 type = h.hdr.type;
	u32 avail = type == MPDT_T_DATA ? h.data.payload_len : 0;
	struct sim_ev ev = { .to = 1 - from->idx };
	u64 ready = max(s->now, at), start;

	l->sent[type]++;
	switch (link_fate(s, l, &h)) {
	case FATE_DROP:
		l->dropped[type]++;
		return;
	case FATE_TRIM:
		if (type == MPDT_T_DATA) {
			h.hdr.flags |= MPDT_F_TRIMMED;
			avail = unit_rand_below(&s->rng, avail + 1) / 2;
			l->trimmed++;
		}
		break;
	default:
		break;
	}
	start = max(ready, l->busy_until);
	ev.ce = l->ecn_ns && start - ready > l->ecn_ns;
	l->marked += ev.ce;
	if (l->mbps)
		l->busy_until = start + (u64)(mpdt_wire_hlen(type) + avail +
					      FRAMING) * 8000 / l->mbps;
	else
		l->busy_until = start;
	ev.at = l->busy_until + l->delay_ns + path_delay(l, h.hdr.ev);
	if (l->jitter_ns)
		ev.at += unit_rand(&s->rng) % (l->jitter_ns + 1);
	ev.buf = encode(&h, payload, avail, &ev.len);
	if (chance(s, l->dup_pm)) {
		struct sim_ev dup = ev;

		dup.buf = xcalloc(1, ev.len);
		memcpy(dup.buf, ev.buf, ev.len);
		dup.at += unit_rand(&s->rng) % (UNIT_US(20) + 1);
		l->dups[type]++;
		heap_push(s, &dup);
	}
	heap_push(s, &ev);
}

/* Decode @buf as the receive path would and hand it to node @to. */
static void deliver_buf(struct sim *s, u32 to, const u8 *buf, u32 len,
			bool ce)
{
	struct node *n = &s->n[to];
	enum mpdt_wire_err err;
	struct sim_payload pl;
	struct mpdt_pkt pkt;

	err = mpdt_wire_decode(buf, len, &pkt);
	if (err != MPDT_WIRE_OK) {
		sim_err(s, "%s got a packet that does not decode (%d)",
			n->name, err);
		return;
	}
	if (pkt.hdr.dst_port != n->port) {
		sim_err(s, "%s got a packet for port %u", n->name,
			pkt.hdr.dst_port);
		return;
	}
	pl.bytes = buf + pkt.payload_off;
	pl.avail = pkt.payload_avail;
	n->rx[pkt.hdr.type]++;
	trace_pkt(s, n->name, "<-", &pkt);
	mpdt_eng_on_packet(&n->eng, &pkt, ce, &pl, s->now);
}

/* A packet a test made or captured, to node @to now. */
static void sim_inject(struct sim *s, u32 to, const struct mpdt_pkt *pkt,
		       const u8 *payload, u32 avail, bool ce)
{
	u32 len;
	u8 *buf = encode(pkt, payload, avail, &len);

	deliver_buf(s, to, buf, len, ce);
	free(buf);
}

static void cap_inject(struct sim *s, u32 to, const struct cap_pkt *c)
{
	u32 avail = c->pkt.hdr.type == MPDT_T_DATA ? c->pkt.data.payload_len :
						      0;

	sim_inject(s, to, &c->pkt, c->payload, avail, false);
}

/* ---- The glue: struct mpdt_eng_ops ------------------------------------ */

static const char *const type_name[] = {
	[MPDT_T_DATA] = "DATA", [MPDT_T_SACK] = "SACK",
	[MPDT_T_NACK] = "NACK", [MPDT_T_PROBE] = "PROBE",
};

static void op_xmit(struct mpdt_eng *e, const struct mpdt_pkt *pkt,
		    const struct mpdt_eng_txmsg *m)
{
	struct node *n = node_of(e);
	struct sim *s = n->sim;
	const u8 *payload = NULL;
	struct mpdt_pkt h = *pkt;
	u8 type = h.hdr.type;

	if (type < MPDT_T_DATA || type > MPDT_T_PROBE) {
		sim_err(s, "%s sent a packet of type %u", n->name, type);
		return;
	}
	h.hdr.src_port = n->port;
	h.hdr.dst_port = peer_of(n)->port;
	n->tx[type]++;
	if (type == MPDT_T_DATA) {
		const struct tmsg *t = container_of(m, struct tmsg, m);
		const struct mpdt_data *d = &h.data;

		if (!m || d->msg_id != m->id || d->msg_len != m->len ||
		    d->offset > m->len || d->payload_len > m->len - d->offset ||
		    h.hdr.nonce != e->nonce) {
			sim_err(s, "%s sent DATA psn %u not of its message",
				n->name, d->psn);
			return;
		}
		if (h.hdr.flags & MPDT_F_RETX) {
			if (!n->tx_retx++)
				n->first_retx_at = s->now;
		} else {
			n->tx_new++;
			n->held++;	/* a burst's: the glue may hold it */
		}
		payload = t->data + d->offset;
		node_log(n, "xmit DATA psn=%u flags=0x%x ev=%u\n", d->psn,
			 h.hdr.flags, h.hdr.ev);
	} else {
		if (type == MPDT_T_PROBE && n->tx[type] == 1)
			n->first_probe_at = s->now;
		if (type == MPDT_T_PROBE && (h.hdr.flags & MPDT_F_COOKIE))
			n->cookie_probes++;
		if (m)
			sim_err(s, "%s sent %s with a message", n->name,
				type_name[type]);
		node_log(n, "xmit %s\n", type_name[type]);
	}
	trace_pkt(s, n->name, "->", &h);
	if (n->capture) {
		if (n->ncap == CAP_MAX) {
			sim_err(s, "%s captured too many packets", n->name);
			return;
		}
		n->cap[n->ncap++] = (struct cap_pkt) {
			.pkt = h, .payload = payload, .at = s->now,
		};
		return;
	}
	link_send(s, n, &h, payload, mpdt_pkt_is_feedback(&h) ? 0 : e->tx_at);
}

/* As the module's glue: a timer already due no later is left alone. */
static void op_arm_timer(struct mpdt_eng *e, u64 when)
{
	struct node *n = node_of(e);

	if (!n->timer_at || when < n->timer_at)
		n->timer_at = when;
}

static void op_count(struct mpdt_eng *e, enum mpdt_stat st, u64 v)
{
	struct node *n = node_of(e);

	if (st <= MPDT_STAT_PAD || st >= __MPDT_STAT_MAX) {
		sim_err(n->sim, "%s counted stat %d", n->name, st);
		return;
	}
	n->stats[st] += v;
	if (!n->count_calls[st]++)
		n->first_at[st] = n->sim->now;
	n->last_n[st] = v;
	n->last_at[st] = n->sim->now;
}

static void op_tx_release(struct mpdt_eng *e, struct mpdt_eng_txmsg *m)
{
	struct tmsg *t = container_of(m, struct tmsg, m);
	struct node *n = node_of(e);

	if (t->released || !t->queued) {
		sim_err(n->sim, "%s released message %u twice or unqueued",
			n->name, t->idx);
		return;
	}
	t->released = true;
	t->acked = m->acked == m->npkts;
	n->released++;
	n->released_acked += t->acked;
}

static void op_tx_room(struct mpdt_eng *e)
{
	node_of(e)->rooms++;
}

static void op_failed(struct mpdt_eng *e)
{
	struct node *n = node_of(e);

	n->failed++;
	n->failed_at = n->sim->now;
	if (!list_empty(&e->tx_msgs) || n->released != n->next)
		sim_err(n->sim, "%s failed holding messages (%u of %u out)",
			n->name, n->released, n->next);
}

static struct mpdt_reasm *op_rx_find(struct mpdt_eng *e, u32 id)
{
	struct rmsg *r;

	for (r = node_of(e)->partial; r; r = r->next)
		if (r->ra.id == id)
			return &r->ra;
	return NULL;
}

static struct mpdt_reasm *op_rx_admit(struct mpdt_eng *e,
				      const struct mpdt_data *d)
{
	struct node *n = node_of(e);
	struct rmsg *r;

	if (op_rx_find(e, d->msg_id))
		sim_err(n->sim, "%s admitted message %u twice", n->name,
			d->msg_id);
	if ((n->refuse_left && d->msg_id == n->refuse_id) ||
	    e->now < n->full_until) {
		n->refuse_left -= !!n->refuse_left;
		/* What the glue counts when it has no room. */
		op_count(e, MPDT_STAT_DROP_NO_BUFFER, 1);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->buf = xcalloc(1, d->msg_len);
	r->segs = xcalloc(mpdt_reasm_words(d->msg_len), sizeof(u64));
	mpdt_reasm_init(&r->ra, d->msg_id, d->msg_len, r->segs);
	r->next = n->partial;
	n->partial = r;
	n->admitted++;
	return &r->ra;
}

static int op_rx_place(struct mpdt_eng *e, struct mpdt_reasm *ra,
		       const struct mpdt_data *d, const void *payload)
{
	struct rmsg *r = container_of(ra, struct rmsg, ra);
	const struct sim_payload *pl = payload;
	struct node *n = node_of(e);

	if (pl->avail < d->payload_len)
		return -EPROTO;
	if (d->offset > ra->len || d->payload_len > ra->len - d->offset) {
		sim_err(n->sim, "%s placed bytes outside message %u", n->name,
			ra->id);
		return -EPROTO;
	}
	if (n->place_fail_left && ra->id == n->place_fail_id &&
	    d->offset == n->place_fail_off) {
		n->place_fail_left--;
		return -ENOBUFS;
	}
	memcpy(r->buf + d->offset, pl->bytes, d->payload_len);
	return 0;
}

static bool rmsg_unlink(struct node *n, struct rmsg *r)
{
	struct rmsg **pp;

	for (pp = &n->partial; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			return true;
		}
	}
	return false;
}

static void rmsg_free(struct rmsg *r)
{
	free(r->buf);
	free(r->segs);
	free(r);
}

/* The application gets the message: it must be the one the peer sent. */
static void op_rx_deliver(struct mpdt_eng *e, struct mpdt_reasm *ra)
{
	struct rmsg *r = container_of(ra, struct rmsg, ra);
	struct node *n = node_of(e), *from = peer_of(n);
	struct tmsg *t = ra->id < from->nmsgs ? from->msgs[ra->id] : NULL;

	if (!rmsg_unlink(n, r))
		sim_err(n->sim, "%s delivered message %u it did not admit",
			n->name, ra->id);
	n->delivered++;
	if (!t || ra->len != t->m.len || ra->rcvd != ra->len ||
	    memcmp(r->buf, t->data, ra->len))
		sim_err(n->sim, "%s delivered message %u corrupt", n->name,
			ra->id);
	else if (t->delivered++)
		sim_err(n->sim, "%s delivered message %u twice", n->name,
			ra->id);
	rmsg_free(r);
}

static void op_rx_forget(struct mpdt_eng *e)
{
	struct node *n = node_of(e);
	struct rmsg *r;

	n->forgets++;
	while (n->partial) {
		r = n->partial;
		n->partial = r->next;
		n->forgotten++;
		rmsg_free(r);
	}
}

static u32 op_rx_room(struct mpdt_eng *e)
{
	return node_of(e)->room;
}

static u64 op_cookie(struct mpdt_eng *e, u32 nonce, u32 replaced, u32 epoch)
{
	return unit_cookie(node_of(e)->seed, nonce, replaced, epoch);
}

/* The departure time the engine gives a burst (pacing.h): none unless
 * the node is paced and the RTT measured, never before now.
 */
static void check_departure(struct node *n, struct mpdt_eng *e)
{
	struct sim *s = n->sim;
	u64 at = e->burst_at;

	if ((at && (!n->paced || !e->rtt.samples || at < s->now)) ||
	    (!at && n->paced && e->rtt.samples)) {
		sim_err(s, "%s: departure %llu at %llu after %llu RTT samples",
			n->name, at, s->now, e->rtt.samples);
		return;
	}
	if (!at)
		return;
	n->paced_max_burst = max(n->paced_max_burst, n->held);
	n->paced_bursts++;
	n->pace_lead = max(n->pace_lead, at - s->now);
}

/* The sim sends every packet at once; it checks that the engine says
 * when a burst ends.
 */
static void op_flush(struct mpdt_eng *e)
{
	struct node *n = node_of(e);

	if (!n->held)
		return;
	check_departure(n, e);
	n->flushes++;
	n->held = 0;
}

/* A paced node's departure times are what its packets are sent at:
 * the sim sends them at once, so only tests that check the times pace.
 */
static bool op_paced(struct mpdt_eng *e, u64 *max_rate)
{
	*max_rate = node_of(e)->max_rate ?: U64_MAX;
	return node_of(e)->paced;
}

/* The sim's host has no queue of its own unless a test gives it one:
 * room for @host_bursts more asks.
 */
static bool op_host_room(struct mpdt_eng *e, u32 limit)
{
	struct node *n = node_of(e);

	n->host_limit = limit;
	if (!n->host_bursts)
		return false;
	if (n->host_bursts != U32_MAX)
		n->host_bursts--;
	return true;
}

/* Until @host_busy_until the host holds a packet of ours; the glue runs
 * the timer when it leaves, as mpdt_write_space() does.
 */
static bool op_host_drained(struct mpdt_eng *e)
{
	struct node *n = node_of(e);

	n->drain_asks++;
	if (n->sim->now >= n->host_busy_until)
		return true;
	op_arm_timer(e, n->host_busy_until);
	return false;
}

static const struct mpdt_eng_ops sim_ops = {
	.xmit		= op_xmit,
	.flush		= op_flush,
	.paced		= op_paced,
	.host_room	= op_host_room,
	.host_drained	= op_host_drained,
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
	.rx_room	= op_rx_room,
	.cookie		= op_cookie,
};

/* ---- Nodes and the simulation ---------------------------------------- */

static void node_init(struct sim *s, u32 idx, const struct mpdt_lb_ops *lb,
		      const struct mpdt_cc_ops *cc)
{
	struct node *n = &s->n[idx];
	struct mpdt_eng *e = &n->eng;
	u32 window = s->p.rx_window;

	n->sim = s;
	n->idx = idx;
	n->name = idx ? "B" : "A";
	n->port = idx ? PORT_B : PORT_A;
	n->window = U32_MAX;
	n->host_bursts = U32_MAX;
	n->room = MPDT_ROOM_MAX;
	n->want_incarnations = 1;
	n->nonce_base = (u32)unit_rand(&s->rng);
	n->seed = unit_rand(&s->rng);
	n->ring = xcalloc(window, sizeof(*n->ring));
	n->rx_bits = xcalloc(window / 64, sizeof(u64));
	n->cap = xcalloc(CAP_MAX, sizeof(*n->cap));
	n->log = xcalloc(1, LOG_MAX);
	/* As conn.c: a zeroed engine, the policies' state sized for @p. */
	memset(e, 0, sizeof(*e));
	mpdt_eng_init(e, &sim_ops, &s->p, n->rx_bits, window, s->now);
	e->lb.ops = lb;
	e->lb.entropies = s->p.entropies;
	e->lb.priv_len = lb->priv_size ? lb->priv_size(&s->p) : 0;
	e->lb.priv = e->lb.priv_len ? xcalloc(1, e->lb.priv_len) : NULL;
	e->cc.ops = cc;
	e->cc.priv = cc->priv_size ? xcalloc(1, cc->priv_size) : NULL;
}

static struct sim *sim_new(const struct mpdt_params *p,
			   const struct mpdt_lb_ops *lb,
			   const struct mpdt_cc_ops *cc, u64 seed)
{
	struct sim *s = xcalloc(1, sizeof(*s));
	u32 i;

	trace = getenv("MPDT_ENGINE_TRACE") &&
		strtoull(getenv("MPDT_ENGINE_TRACE"), NULL, 0) == seed;
	s->p = *p;
	s->rng.state = seed;
	s->now = T0;
	for (i = 0; i < NODES; i++) {
		s->link[i].delay_ns = LINK_DELAY;
		s->link[i].mbps = LINK_MBPS;
		node_init(s, i, lb, cc);
	}
	return s;
}

static void sim_free(struct sim *s)
{
	u32 i, j;

	for (i = 0; i < s->nheap; i++)
		free(s->heap[i].buf);
	free(s->heap);
	for (i = 0; i < NODES; i++) {
		struct node *n = &s->n[i];

		for (j = 0; j < n->nmsgs; j++) {
			free(n->msgs[j]->data);
			free(n->msgs[j]);
		}
		free(n->msgs);
		while (n->partial) {
			struct rmsg *r = n->partial;

			n->partial = r->next;
			rmsg_free(r);
		}
		free(n->ring);
		free(n->rx_bits);
		free(n->cap);
		free(n->log);
		free(n->eng.lb.priv);
		free(n->eng.cc.priv);
	}
	free(s);
}

/* The application queues a message of @len bytes (sent by node_pump()),
 * cut into packets of @mss bytes as the glue cuts it (txmsg.c).
 */
static struct tmsg *node_add_cut(struct node *n, u32 len, u32 mss)
{
	struct tmsg *t = xcalloc(1, sizeof(*t));
	u32 i;

	t->idx = n->nmsgs;
	t->m.len = len;
	t->m.mss = mss;
	t->m.npkts = max(1U, DIV_ROUND_UP(len, mss));
	t->data = xcalloc(1, len);
	for (i = 0; i < len; i++)
		t->data[i] = pattern(n->idx, t->idx, i);
	n->msgs = realloc(n->msgs, (n->nmsgs + 1) * sizeof(*n->msgs));
	if (!n->msgs)
		abort();
	n->msgs[n->nmsgs++] = t;
	n->total_pkts += t->m.npkts;
	return t;
}

static struct tmsg *node_add(struct node *n, u32 len)
{
	return node_add_cut(n, len, n->sim->p.payload);
}

static void node_start(struct node *n)
{
	n->incarnations++;
	mpdt_eng_start(&n->eng, n->ring, n->nonce_base + n->incarnations,
		       n->seed + n->incarnations, n->sim->now);
}

/* Hand the engine what the application has queued, as sendmsg() does,
 * keeping at most @window messages unacknowledged (the send buffer).
 */
static void node_pump(struct node *n)
{
	struct sim *s = n->sim;

	while (n->next < n->nmsgs && n->eng.msgs_inflight < n->window &&
	       n->eng.state != MPDT_ENG_TIME_WAIT &&
	       !(n->failed && n->stop_on_fail)) {
		struct tmsg *t = n->msgs[n->next++];

		if (mpdt_eng_needs_start(&n->eng, s->now))
			node_start(n);
		t->queued = true;
		mpdt_eng_send(&n->eng, &t->m, s->now);
		if (t->m.id != t->idx)
			sim_err(s, "%s message %u got id %u", n->name, t->idx,
				t->m.id);
	}
}

/* The next event: a packet's arrival, or (*@tn set) a timer. */
static u64 sim_next(struct sim *s, struct node **tn)
{
	u64 at = s->nheap ? s->heap[0].at : U64_MAX;
	u32 i;

	*tn = NULL;
	for (i = 0; i < NODES; i++) {
		if (s->n[i].timer_at && s->n[i].timer_at < at) {
			at = s->n[i].timer_at;
			*tn = &s->n[i];
		}
	}
	return at;
}

static void fire_timer(struct sim *s, struct node *n)
{
	s->now = max(s->now, n->timer_at);
	n->timer_at = 0;
	if (trace)
		fprintf(stderr, "%10llu %s timer\n", s->now, n->name);
	mpdt_eng_on_timer(&n->eng, s->now);
}

static void sim_step(struct sim *s)
{
	struct node *tn;
	u64 at = sim_next(s, &tn);
	u32 i;

	s->events++;
	if (tn) {
		fire_timer(s, tn);
	} else {
		struct sim_ev ev = heap_pop(s);

		s->now = max(s->now, at);
		/* Byte 1 of the common header is the type. */
		s->link[1 - ev.to].delivered[ev.buf[1]]++;
		deliver_buf(s, ev.to, ev.buf, ev.len, ev.ce);
		free(ev.buf);
	}
	for (i = 0; i < NODES; i++) {
		node_pump(&s->n[i]);
		if (s->n[i].held)
			sim_err(s, "%s holds %u DATA after the engine returned",
				s->n[i].name, s->n[i].held);
	}
}

/* Run every event due by @until; true if nothing is left to happen. */
static bool sim_run(struct sim *s, u64 until)
{
	struct node *tn;
	u32 i;
	u64 at;

	for (i = 0; i < NODES; i++)
		node_pump(&s->n[i]);
	for (;;) {
		at = sim_next(s, &tn);
		if (at == U64_MAX)
			return true;
		if (at > until || s->events >= EVENTS_MAX)
			return false;
		sim_step(s);
	}
}

/* ---- Stub policies that log their hooks ------------------------------ */

static struct node *lb_node(struct mpdt_lb *lb)
{
	return node_of(container_of(lb, struct mpdt_eng, lb));
}

static struct node *cc_node(struct mpdt_cc *cc)
{
	return node_of(container_of(cc, struct mpdt_eng, cc));
}

static void stub_lb_init(struct mpdt_lb *lb, const struct mpdt_params *p,
			 u64 seed)
{
	node_log(lb_node(lb), "lb.init\n");
}

/* EV 100 + psn % 100: every packet's EV names its PSN. */
static u16 stub_choose_ev(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	node_log(lb_node(lb), "lb.choose_ev psn=%u resend=%d\n", ctx->psn,
		 ctx->resend);
	return 100 + ctx->psn % 100;
}

static void stub_lb_on_ack(struct mpdt_lb *lb, const struct mpdt_lb_ack *a)
{
	struct node *n = lb_node(lb);
	u32 i;

	node_log(n, "lb.on_ack rtt=%llu evs=", a->rtt_ns);
	for (i = 0; i < a->acked_count; i++)
		node_log(n, "%s%u", i ? "," : "", a->acked_evs[i]);
	node_log(n, "\n");
}

static void stub_lb_on_nack(struct mpdt_lb *lb, u16 ev, u8 code, u64 now)
{
	node_log(lb_node(lb), "lb.on_nack ev=%u code=%u\n", ev, code);
}

/* The RTT the engine holds when a loss is reported: step 1 (the sample)
 * must have run already.
 */
static void stub_lb_on_loss(struct mpdt_lb *lb, u16 ev, bool rto, u64 now)
{
	struct mpdt_eng *e = container_of(lb, struct mpdt_eng, lb);

	node_log(lb_node(lb), "lb.on_loss ev=%u rto=%d rtt=%llu\n", ev, rto,
		 e->rtt.latest);
}

static const struct mpdt_lb_ops stub_lb = {
	.name		= "stub",
	.init		= stub_lb_init,
	.choose_ev	= stub_choose_ev,
	.on_ack		= stub_lb_on_ack,
	.on_nack	= stub_lb_on_nack,
	.on_loss	= stub_lb_on_loss,
};

/* A window of 20 packets, changed only by the tests. */
static void stub_cc_init(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	cc->cwnd = 20 * cc->mss;
	node_log(cc_node(cc), "cc.init\n");
}

static void stub_cc_on_ack(struct mpdt_cc *cc, const struct mpdt_cc_ack *a)
{
	struct node *n = cc_node(cc);

	n->stub_rtt = a->rtt_ns;
	node_log(n, "cc.on_ack rtt=%llu acked=%llu inflight=%llu probe=%d\n",
		 a->rtt_ns, a->acked_bytes, a->inflight, a->probe);
}

static void stub_cc_on_nack(struct mpdt_cc *cc, u8 code, u64 now)
{
	node_log(cc_node(cc), "cc.on_nack code=%u\n", code);
}

static void stub_cc_on_timeout(struct mpdt_cc *cc, u64 now)
{
	node_log(cc_node(cc), "cc.on_timeout\n");
}

static void stub_cc_undo(struct mpdt_cc *cc)
{
	node_log(cc_node(cc), "cc.undo\n");
}

/* MCC (§3) judges a message by the delay sampled until it completed: the
 * rtt logged is the one the latest on_ack carried.
 */
static void stub_cc_on_message_done(struct mpdt_cc *cc, u64 msg_bytes,
				    u64 delay_ns, u64 now)
{
	struct node *n = cc_node(cc);

	node_log(n, "cc.on_message_done len=%llu delay=%llu rtt=%llu\n",
		 msg_bytes, delay_ns, n->stub_rtt);
}

static const struct mpdt_cc_ops stub_cc = {
	.name		= "stub",
	.init		= stub_cc_init,
	.on_ack		= stub_cc_on_ack,
	.on_nack	= stub_cc_on_nack,
	.on_timeout	= stub_cc_on_timeout,
	.undo		= stub_cc_undo,
	.on_message_done = stub_cc_on_message_done,
};

/* The stub with chunks of three packets (MCC §4's CCL chunks). */
static void chunk_cc_init(struct mpdt_cc *cc, const struct mpdt_params *p)
{
	stub_cc_init(cc, p);
	cc->chunk = 3 * cc->mss;
}

static const struct mpdt_cc_ops chunk_cc = {
	.name		= "chunk",
	.init		= chunk_cc_init,
	.on_ack		= stub_cc_on_ack,
	.on_message_done = stub_cc_on_message_done,
};

/* The latest packet of @type node @n captured, or NULL. */
static const struct cap_pkt *last_cap(const struct node *n, u8 type)
{
	u32 i;

	for (i = n->ncap; i--; )
		if (n->cap[i].pkt.hdr.type == type)
			return &n->cap[i];
	return NULL;
}

/* The log lines of a packet chosen an EV for and sent: @psn, new or a
 * repair (with RETX and AR), on the stub's EV.
 */
static void want_xmit(char *want, size_t size, u32 psn, bool resend,
		      u16 flags)
{
	cat(want, size, "lb.choose_ev psn=%u resend=%d\n", psn, resend);
	cat(want, size, "xmit DATA psn=%u flags=0x%x ev=%u\n", psn, flags,
	    100 + psn % 100);
}

/* @log is @head, then repairs of PSNs @from, @from + 1, ... and nothing
 * else: how many repairs follow an RTO is the scoreboard's business (all
 * of the window, or the oldest alone while it verifies the timeout, as
 * F-RTO does), the order of the hooks is the engine's.
 */
static bool log_is(const char *log, const char *head, u32 from)
{
	char want[256];
	size_t n = strlen(head);

	if (strncmp(log, head, n))
		return false;
	for (log += n; *log; log += n, from++) {
		want[0] = '\0';
		want_xmit(want, sizeof(want), from, true,
			  MPDT_F_RETX | MPDT_F_AR);
		n = strlen(want);
		if (strncmp(log, want, n))
			return false;
	}
	return true;
}

/* ---- Checking a whole run -------------------------------------------- */

struct report {
	char buf[REPORT_MAX];
};

static void rep_eq(struct report *r, const struct node *n, const char *what,
		   u64 got, u64 want)
{
	if (got != want)
		cat(r->buf, sizeof(r->buf), "%s %s: %llu, want %llu\n",
		    n->name, what, got, want);
}

static void rep_true(struct report *r, const struct node *n,
		     const char *what, bool ok)
{
	if (!ok)
		cat(r->buf, sizeof(r->buf), "%s: not %s\n", n->name, what);
}

static u64 retx_stats(const struct node *n)
{
	return n->stats[MPDT_STAT_RETX_OOO] + n->stats[MPDT_STAT_RETX_PROBE] +
	       n->stats[MPDT_STAT_RETX_RTO] + n->stats[MPDT_STAT_RETX_NACK];
}

/* Node @n's messages to its peer @m, in one incarnation: each delivered
 * once, intact (op_rx_deliver() compared the bytes), and acknowledged,
 * and every counter of both ends tells the same story.
 */
static void check_direction(struct sim *s, struct node *n, struct report *r)
{
	struct node *m = peer_of(n);
	const struct link *l = &s->link[n->idx], *back = &s->link[m->idx];
	u64 sb_retx = 0, once = 0, t;
	u32 i;

	for (i = 0; i < n->nmsgs; i++)
		once += n->msgs[i]->delivered == 1 && n->msgs[i]->acked;
	rep_eq(r, n, "messages delivered once and acked", once, n->nmsgs);
	rep_eq(r, n, "MSG_TX", n->stats[MPDT_STAT_MSG_TX], n->nmsgs);
	rep_eq(r, n, "msgs_sent", n->eng.msgs_sent, n->nmsgs);
	rep_eq(r, n, "MSG_ACKED", n->stats[MPDT_STAT_MSG_ACKED], n->nmsgs);
	rep_eq(r, n, "msgs_acked", n->eng.msgs_acked, n->nmsgs);
	rep_eq(r, n, "released", n->released, n->nmsgs);
	rep_eq(r, n, "released acked", n->released_acked, n->nmsgs);
	rep_eq(r, n, "msgs_inflight", n->eng.msgs_inflight, 0);
	rep_eq(r, n, "failed", n->failed, 0);
	rep_eq(r, n, "CONN_FAILED", n->stats[MPDT_STAT_CONN_FAILED], 0);
	rep_eq(r, m, "MSG_RX", m->stats[MPDT_STAT_MSG_RX], n->nmsgs);
	rep_eq(r, m, "msgs_rcvd", m->eng.msgs_rcvd, n->nmsgs);
	rep_eq(r, m, "delivered", m->delivered, n->nmsgs);

	/* Each packet goes out new once; every resend follows a loss the
	 * scoreboard declared (and counted), unless the packet was
	 * acknowledged before its turn came.
	 */
	rep_eq(r, n, "DATA sent new", n->tx_new, n->total_pkts);
	rep_eq(r, n, "DATA sent", n->tx[MPDT_T_DATA], n->tx_new + n->tx_retx);
	for (i = 0; i < __MPDT_RETX_MAX; i++)
		sb_retx += n->eng.sb.retx[i];
	rep_eq(r, n, "RETX_* counted", retx_stats(n), sb_retx);
	rep_true(r, n, "resending only what was declared lost",
		 n->tx_retx <= retx_stats(n));
	rep_eq(r, n, "probes", n->eng.probes, n->tx[MPDT_T_PROBE]);
	rep_eq(r, n, "rtos", n->eng.rtos, n->stats[MPDT_STAT_RTO]);

	/* The receiver accepts each PSN once; every other DATA is counted
	 * as why it was not.
	 */
	rep_eq(r, m, "RX_DATA", m->stats[MPDT_STAT_RX_DATA],
	       l->delivered[MPDT_T_DATA]);
	t = n->total_pkts + m->stats[MPDT_STAT_RX_DUP_DATA] +
	    m->stats[MPDT_STAT_DROP_TRIMMED] +
	    m->stats[MPDT_STAT_DROP_NO_BUFFER];
	rep_eq(r, m, "RX_DATA by fate", m->stats[MPDT_STAT_RX_DATA], t);
	rep_eq(r, m, "RX_PROBE", m->stats[MPDT_STAT_RX_PROBE],
	       l->delivered[MPDT_T_PROBE]);
	rep_eq(r, m, "sacks_sent", m->eng.sacks_sent, m->tx[MPDT_T_SACK]);
	rep_eq(r, m, "nacks_sent", m->eng.nacks_sent, m->tx[MPDT_T_NACK]);
	rep_eq(r, n, "RX_SACK", n->stats[MPDT_STAT_RX_SACK],
	       back->delivered[MPDT_T_SACK]);
	rep_eq(r, n, "sacks_rcvd", n->eng.sacks_rcvd,
	       n->stats[MPDT_STAT_RX_SACK]);
	/* A NACK can come late, for a packet acknowledged since. */
	rep_eq(r, n, "RX_NACK", n->stats[MPDT_STAT_RX_NACK],
	       n->eng.nacks_rcvd + n->stats[MPDT_STAT_DROP_BOGUS_ACK]);

	/* Nothing left in flight or being assembled. */
	rep_true(r, n, "idle", mpdt_sb_idle(&n->eng.sb));
	rep_eq(r, n, "inflight", mpdt_sb_inflight(&n->eng.sb), 0);
	rep_eq(r, n, "lost_pending", n->eng.sb.lost_pending, 0);
	rep_true(r, n, "holding nothing", mpdt_eng_holds_nothing(&n->eng));
	rep_true(r, m, "assembling nothing", !m->partial && !m->eng.rx_partial);
}

static void check_node(struct node *n, struct report *r)
{
	static const enum mpdt_stat never[] = {
		MPDT_STAT_DROP_STALE_NONCE, MPDT_STAT_DROP_NEW_NONCE,
		MPDT_STAT_DROP_OUT_OF_WINDOW, MPDT_STAT_DROP_MSG_MISMATCH,
		MPDT_STAT_DROP_OVERLAP, MPDT_STAT_DROP_SHORT,
		MPDT_STAT_DROP_NO_SOCKET, MPDT_STAT_RX_MSG_EXPIRED,
		MPDT_STAT_RX_MSG_EVICTED,
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(never); i++)
		rep_eq(r, n, "a drop that must not happen",
		       n->stats[never[i]], 0);
	for (i = MPDT_T_DATA; i <= MPDT_T_PROBE; i++) {
		const struct link *l = &n->sim->link[n->idx];

		rep_eq(r, n, "packets through the link", l->sent[i],
		       l->delivered[i] + l->dropped[i] - l->dups[i]);
	}
	/* Each new incarnation of the peer retires the one before; none
	 * had a message left half-assembled.
	 */
	rep_eq(r, n, "forgets", n->forgets,
	       peer_of(n)->incarnations ? peer_of(n)->incarnations - 1 : 0);
	rep_eq(r, n, "messages forgotten", n->forgotten, 0);
	rep_eq(r, n, "incarnations", n->incarnations,
	       n->nmsgs ? n->want_incarnations : 0);
}

/* Everything a finished run must show; an empty report if it does. */
static const char *check_run(struct sim *s, bool drained, struct report *r)
{
	u32 i;

	r->buf[0] = '\0';
	if (s->nerr)
		cat(r->buf, sizeof(r->buf), "%u errors, first %s\n", s->nerr,
		    s->err);
	if (!drained)
		cat(r->buf, sizeof(r->buf), "not finished at %llu ns\n",
		    s->now);
	for (i = 0; i < NODES; i++) {
		check_direction(s, &s->n[i], r);
		check_node(&s->n[i], r);
	}
	return r->buf;
}

static void log_run(struct __test_metadata *_metadata, const struct sim *s)
{
	u32 i, t;

	for (i = 0; i < NODES; i++) {
		const struct node *n = &s->n[i];
		const struct link *l = &s->link[i];
		u64 dropped = 0;

		for (t = MPDT_T_DATA; t <= MPDT_T_PROBE; t++)
			dropped += l->dropped[t];
		TH_LOG("%s: %u msgs %llu pkts: new %llu, resent %llu", n->name,
		       n->nmsgs, n->total_pkts, n->tx_new, n->tx_retx);
		TH_LOG("%s: lost by ooo %llu probe %llu rto %llu nack %llu; "
		       "probes %llu rtos %llu",
		       n->name, n->stats[MPDT_STAT_RETX_OOO],
		       n->stats[MPDT_STAT_RETX_PROBE],
		       n->stats[MPDT_STAT_RETX_RTO],
		       n->stats[MPDT_STAT_RETX_NACK], n->eng.probes,
		       n->eng.rtos);
		TH_LOG("%s: the link dropped %llu, duplicated %llu, "
		       "trimmed %llu, marked %llu",
		       n->name, dropped, l->dups[MPDT_T_DATA], l->trimmed,
		       l->marked);
	}
	TH_LOG("%llu events, %llu us simulated", s->events,
	       (s->now - T0) / 1000);
}

/* Every test runs on the module's defaults (or says what it changes). */
TEST(default_params_are_valid)
{
	struct mpdt_params p = default_params();

	EXPECT_EQ(NULL, mpdt_params_invalid(&p));
	EXPECT_EQ(p.rx_window, 4096);
	/* Nothing is said of the path: each connection measures it. */
	EXPECT_EQ(0, p.link_mbps);
	EXPECT_EQ(0, p.base_rtt_us);
}

/* ---- 1. The order of the policy hooks ---------------------------------- */

/* One SACK that acknowledges eleven single-packet messages and shows the
 * first packet lost by the OOO rule (§3.3.2): the hooks run in the order
 * of engine.c's header comment, each message's completion sees the RTT of
 * this very SACK, and the repairs and new packets follow.
 */
TEST(hooks_of_one_sack_run_in_order)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 1);
	struct node *a = &s->n[0], *b = &s->n[1];
	const struct cap_pkt *sack;
	char want[LOG_MAX] = "";
	u32 i;

	a->capture = true;
	b->capture = true;
	a->logging = true;
	node_add(a, 1000);
	node_pump(a);
	ASSERT_EQ(1, a->tx_new);
	s->now = T0 + UNIT_MS(1);
	for (i = 1; i <= 11; i++)
		node_add(a, 1000 + i);
	node_pump(a);
	ASSERT_EQ(12, a->tx_new);
	/* A smaller window: the OOO threshold falls to its floor of five
	 * packets, and the next two messages must wait for room.
	 */
	a->eng.cc.cwnd = 5 * a->eng.cc.mss;
	node_add(a, 1012);
	node_add(a, 1013);
	node_pump(a);
	ASSERT_EQ(12, a->tx_new);

	/* B receives PSNs 1-11, not 0; its latest SACK says so. */
	s->now += UNIT_US(50);
	for (i = 1; i < a->ncap; i++)
		cap_inject(s, 1, &a->cap[i]);
	sack = last_cap(b, MPDT_T_SACK);
	ASSERT_NE(NULL, sack);
	ASSERT_EQ(0, sack->pkt.sack.epsn);
	ASSERT_EQ(11, sack->pkt.sack.ooo_count);

	s->now += UNIT_US(50);
	log_clear(a);
	cap_inject(s, 0, sack);

	/* 1. the RTT sample (100 us), seen by every later hook */
	/* 2. the OOO loss of PSN 0, unacked for 1.1 ms > 1.5 srtt */
	cat(want, sizeof(want), "lb.on_loss ev=100 rto=0 rtt=100000\n");
	/* 3. the policy hears of the eleven, in PSN order */
	cat(want, sizeof(want), "lb.on_ack rtt=100000 evs=");
	for (i = 1; i <= 11; i++)
		cat(want, sizeof(want), "%s%u", i > 1 ? "," : "", 100 + i);
	cat(want, sizeof(want), "\n");
	/* 4. 11066 bytes acknowledged; PSN 0's are claimed lost */
	cat(want, sizeof(want),
	    "cc.on_ack rtt=100000 acked=11066 inflight=0 probe=0\n");
	/* 5. each completed message, after on_ack, with its RTT */
	for (i = 1; i <= 11; i++)
		cat(want, sizeof(want),
		    "cc.on_message_done len=%u delay=100000 rtt=100000\n",
		    1000 + i);
	/* 6. the repair first, then what waited for room */
	want_xmit(want, sizeof(want), 0, true, MPDT_F_RETX | MPDT_F_AR);
	want_xmit(want, sizeof(want), 12, false, 0);
	want_xmit(want, sizeof(want), 13, false, MPDT_F_AR);
	EXPECT_STREQ(want, a->log);

	EXPECT_EQ(1, a->stats[MPDT_STAT_RETX_OOO]);
	EXPECT_EQ(11, a->stats[MPDT_STAT_MSG_ACKED]);
	EXPECT_EQ(11, a->released_acked);
	EXPECT_EQ(1, a->rooms);
	EXPECT_EQ(1, a->eng.sacks_rcvd);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* MCC §4: a CCL's chunks are messages of their own.  With a chunk of
 * three packets, an 8-packet message is judged as three chunks, each once
 * its last packet is acknowledged (in any order), timed from its first
 * packet on the wire, and the message as a whole is not judged again; a
 * message no longer than a chunk is judged whole.
 */
TEST(a_long_message_is_judged_chunk_by_chunk)
{
	struct mpdt_params p = default_params();
	struct sim *s;
	struct node *a, *b;
	const u32 mss = p.payload;
	char want[LOG_MAX] = "";
	u32 i;

	p.ack_bytes = 1;		/* B answers every packet */
	s = sim_new(&p, &stub_lb, &chunk_cc, 5);
	a = &s->n[0];
	b = &s->n[1];
	a->capture = true;
	b->capture = true;
	node_add(a, 8 * mss - 100);
	node_add(a, 3 * mss);
	node_pump(a);
	ASSERT_EQ(11, a->tx_new);

	/* The middle chunk arrives first. */
	s->now += UNIT_US(50);
	for (i = 3; i < 6; i++)
		cap_inject(s, 1, &a->cap[i]);
	s->now += UNIT_US(50);
	a->logging = true;
	cap_inject(s, 0, last_cap(b, MPDT_T_SACK));
	cat(want, sizeof(want), "cc.on_message_done len=%u delay=%llu rtt=%llu\n",
	    3 * mss, UNIT_US(100), UNIT_US(100));
	EXPECT_STREQ(want, strstr(a->log, "cc.on_message_done") ?: "");

	s->now += UNIT_US(50);
	for (i = 0; i < a->tx_new; i++)
		if (i < 3 || i > 5)
			cap_inject(s, 1, &a->cap[i]);
	s->now += UNIT_US(50);
	log_clear(a);
	cap_inject(s, 0, last_cap(b, MPDT_T_SACK));
	want[0] = 0;
	cat(want, sizeof(want), "cc.on_message_done len=%u delay=%llu rtt=%llu\n",
	    3 * mss, UNIT_US(200), UNIT_US(200));
	cat(want, sizeof(want), "cc.on_message_done len=%u delay=%llu rtt=%llu\n",
	    2 * mss - 100, UNIT_US(200), UNIT_US(200));
	cat(want, sizeof(want), "cc.on_message_done len=%u delay=%llu rtt=%llu\n",
	    3 * mss, UNIT_US(200), UNIT_US(200));
	EXPECT_STREQ(want, strstr(a->log, "cc.on_message_done") ?: "");
	EXPECT_EQ(2, a->stats[MPDT_STAT_MSG_ACKED]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* The same order when the loss is the probe's (§3.3.2): its answer came
 * fast with no SACK since, so what was sent before it is lost; the
 * congestion control is told the SACK answers a probe.  The answer is no
 * RTT sample: it echoes a header-only packet, not data.
 */
TEST(hooks_of_a_probe_answer_run_in_order)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 4);
	struct node *a = &s->n[0], *b = &s->n[1];
	const struct cap_pkt *probe, *sack;
	char want[LOG_MAX] = "";
	u32 i;

	a->capture = true;
	b->capture = true;
	a->logging = true;
	for (i = 0; i < 4; i++)
		node_add(a, 1000 + i);
	node_pump(a);
	ASSERT_EQ(4, a->tx_new);
	/* B gets PSNs 1-3; its SACKs are lost. */
	s->now += UNIT_US(40);
	for (i = 1; i < 4; i++)
		cap_inject(s, 1, &a->cap[i]);
	fire_timer(s, a);
	/* No RTT sample yet: probe_mult times path.h's guess. */
	ASSERT_EQ(T0 + p.probe_mult * MPDT_PATH_RTT_GUESS_NS, s->now);
	probe = last_cap(a, MPDT_T_PROBE);
	ASSERT_NE(NULL, probe);
	EXPECT_EQ(0, probe->pkt.probe.sack_base);
	s->now += UNIT_US(50);
	cap_inject(s, 1, probe);
	sack = last_cap(b, MPDT_T_SACK);
	ASSERT_NE(NULL, sack);
	ASSERT_EQ(MPDT_F_PROBE_ACK, sack->pkt.hdr.flags);

	s->now += UNIT_US(50);
	log_clear(a);
	cap_inject(s, 0, sack);
	cat(want, sizeof(want), "lb.on_loss ev=100 rto=0 rtt=0\n");
	cat(want, sizeof(want), "lb.on_ack rtt=0 evs=101,102,103\n");
	cat(want, sizeof(want),
	    "cc.on_ack rtt=0 acked=3006 inflight=0 probe=1\n");
	for (i = 1; i < 4; i++)
		cat(want, sizeof(want),
		    "cc.on_message_done len=%u delay=%llu rtt=0\n",
		    1000 + i, s->now - T0);
	want_xmit(want, sizeof(want), 0, true, MPDT_F_RETX | MPDT_F_AR);
	EXPECT_STREQ(want, a->log);
	EXPECT_EQ(1, a->stats[MPDT_STAT_RETX_PROBE]);
	EXPECT_EQ(0, a->stats[MPDT_STAT_RETX_OOO]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* Before the first RTT sample a probe's answer declares lost what it
 * overtook, but the policies hear only of the packets older than one and
 * a half base RTTs (the 1 ms guess): one sent 0.5 ms before the probe may
 * still be on its way.  With an srtt of 0 both reached them.
 */
TEST(losses_before_the_first_sample_judge_age_by_the_guess)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 4);
	struct node *a = &s->n[0], *b = &s->n[1];
	const struct cap_pkt *probe, *sack;

	a->capture = true;
	b->capture = true;
	a->logging = true;
	node_add(a, 1000);
	node_pump(a);
	s->now += UNIT_US(2500);
	node_add(a, 1001);
	node_pump(a);
	ASSERT_EQ(2, a->tx_new);
	fire_timer(s, a);
	ASSERT_EQ(T0 + p.probe_mult * MPDT_PATH_RTT_GUESS_NS, s->now);
	probe = last_cap(a, MPDT_T_PROBE);
	ASSERT_NE(NULL, probe);
	s->now += UNIT_US(50);
	cap_inject(s, 1, probe);
	sack = last_cap(b, MPDT_T_SACK);
	ASSERT_NE(NULL, sack);
	s->now += UNIT_US(50);
	log_clear(a);
	cap_inject(s, 0, sack);
	EXPECT_EQ(2, a->stats[MPDT_STAT_RETX_PROBE]);
	EXPECT_NE(NULL, strstr(a->log, "lb.on_loss ev=100 "));
	EXPECT_EQ(NULL, strstr(a->log, "lb.on_loss ev=101 ")) {
		TH_LOG("%s", a->log);
	}
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* An RTO (§3.3.2) declares the whole window lost, but only the oldest
 * packet has certainly overstayed: the policy hears of that one alone, as
 * a timeout, then the congestion control of the timeout.
 */
TEST(rto_blames_the_oldest_packet_only)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 2);
	struct node *a = &s->n[0];
	char want[LOG_MAX] = "";
	u32 i;

	a->capture = true;
	a->logging = true;
	for (i = 0; i < 3; i++)
		node_add(a, 1000 + i);
	node_pump(a);
	ASSERT_EQ(3, a->tx_new);
	/* Nothing answers: probes go out until the RTO. */
	for (i = 0; !a->stats[MPDT_STAT_RTO]; i++) {
		ASSERT_GT(1000, i);
		ASSERT_NE(0, a->timer_at);
		log_clear(a);
		fire_timer(s, a);
	}
	EXPECT_EQ(T0 + UNIT_US(p.rto_min_us), s->now);
	EXPECT_LT(0, a->eng.probes);

	cat(want, sizeof(want), "lb.on_loss ev=100 rto=1 rtt=0\n");
	cat(want, sizeof(want), "cc.on_timeout\n");
	want_xmit(want, sizeof(want), 0, true, MPDT_F_RETX | MPDT_F_AR);
	EXPECT_TRUE(log_is(a->log, want, 1)) {
		TH_LOG("want %sthen repairs of PSNs 1, 2 at most; got\n%s",
		       want, a->log);
	}
	EXPECT_EQ(3, a->stats[MPDT_STAT_RETX_RTO]);
	EXPECT_EQ(1, a->stats[MPDT_STAT_RTO]);
	EXPECT_EQ(0, a->stats[MPDT_STAT_RETX_PROBE]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* The host stalled, not the path: the originals arrive after the RTO, and
 * the first SACK echoes one sent before it (Eifel).  The congestion
 * control takes its timeout back before it hears of that SACK.
 */
TEST(spurious_rto_is_undone_before_on_ack)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 6);
	struct node *a = &s->n[0], *b = &s->n[1];
	const struct cap_pkt *sack;
	char want[LOG_MAX] = "";
	u32 i, ncap;

	a->capture = true;
	b->capture = true;
	a->logging = true;
	for (i = 0; i < 3; i++)
		node_add(a, 1000 + i);
	node_pump(a);
	ncap = a->ncap;
	ASSERT_EQ(3, ncap);
	for (i = 0; !a->stats[MPDT_STAT_RTO]; i++) {
		ASSERT_GT(1000, i);
		fire_timer(s, a);
	}
	/* The originals, late: B's SACK echoes the first one's time. */
	for (i = 0; i < ncap; i++)
		cap_inject(s, 1, &a->cap[i]);
	sack = last_cap(b, MPDT_T_SACK);
	ASSERT_NE(NULL, sack);
	ASSERT_EQ(3, sack->pkt.sack.epsn);
	log_clear(a);
	cap_inject(s, 0, sack);
	EXPECT_EQ(1, a->stats[MPDT_STAT_RTO_UNDONE]);
	cat(want, sizeof(want), "cc.undo\nlb.on_ack ");
	EXPECT_EQ(0, strncmp(a->log, want, strlen(want))) {
		TH_LOG("want %s... got\n%s", want, a->log);
	}
	EXPECT_NE(NULL, strstr(a->log, "\ncc.on_ack "));
	EXPECT_EQ(3, a->released_acked);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* The same when the oldest packet was already declared lost (here NACKed
 * as trimmed) and waits for room in the window: the timeout must still
 * reach the policy, once, against the oldest packet's path.  (The RTO
 * itself declares only packets in flight: reporting its losses would miss
 * this one, and REPS would not freeze nor PRIME penalise.)
 */
TEST(rto_blames_the_oldest_packet_even_when_it_waits)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 5);
	struct node *a = &s->n[0], *b = &s->n[1];
	char want[LOG_MAX] = "";
	const struct cap_pkt *nack;
	struct cap_pkt trimmed;
	u32 i;

	a->capture = true;
	b->capture = true;
	a->logging = true;
	for (i = 0; i < 5; i++)
		node_add(a, 1000 + i);
	node_pump(a);
	ASSERT_EQ(5, a->tx_new);
	/* Three packets' worth of window: no room to resend PSN 0. */
	a->eng.cc.cwnd = 3 * a->eng.cc.mss;
	s->now += UNIT_US(40);
	trimmed = a->cap[0];
	trimmed.pkt.hdr.flags |= MPDT_F_TRIMMED;
	sim_inject(s, 1, &trimmed.pkt, NULL, 0, false);
	nack = last_cap(b, MPDT_T_NACK);
	ASSERT_NE(NULL, nack);
	s->now += UNIT_US(40);
	cap_inject(s, 0, nack);
	ASSERT_EQ(1, a->stats[MPDT_STAT_RETX_NACK]);
	ASSERT_EQ(1, a->eng.sb.lost_pending);
	ASSERT_EQ(0, a->tx_retx);

	for (i = 0; !a->stats[MPDT_STAT_RTO]; i++) {
		ASSERT_GT(1000, i);
		ASSERT_NE(0, a->timer_at);
		log_clear(a);
		fire_timer(s, a);
	}
	EXPECT_EQ(T0 + UNIT_US(p.rto_min_us), s->now);
	EXPECT_EQ(4, a->stats[MPDT_STAT_RETX_RTO]);

	/* Then the repairs, oldest first, as many as the window takes. */
	cat(want, sizeof(want), "lb.on_loss ev=100 rto=1 rtt=0\n"
	    "cc.on_timeout\n");
	want_xmit(want, sizeof(want), 0, true, MPDT_F_RETX | MPDT_F_AR);
	EXPECT_TRUE(log_is(a->log, want, 1)) {
		TH_LOG("want %sthen repairs of PSNs 1-3 at most; got\n%s",
		       want, a->log);
	}
	sim_free(s);
}

/* ---- Bursts: one choice of entropy for packets sent at once ---------- */

#define CHOICES_MAX	64

/* Each choice a new EV, 100 + its number; the choices are recorded. */
static u32 choices, choice_psn[CHOICES_MAX], choice_pkts[CHOICES_MAX];

static u16 counting_choose_ev(struct mpdt_lb *lb, struct mpdt_lb_ctx *ctx)
{
	if (choices == CHOICES_MAX)
		return 0;
	choice_psn[choices] = ctx->psn;
	choice_pkts[choices] = ctx->pkts;
	return 100 + choices++;
}

static const struct mpdt_lb_ops counting_lb = {
	.name		= "counting",
	.init		= stub_lb_init,
	.choose_ev	= counting_choose_ev,
};

/* One message of 30 packets on a link of @mbps (base RTT @rtt_us) from a
 * host whose queues take @host_bursts bursts, after its first push.
 */
static struct sim *burst_sender(u32 mbps, u32 rtt_us, u32 burst_pkts,
				u32 host_bursts)
{
	struct mpdt_params p = default_params();
	struct sim *s;
	struct node *a;

	p.link_mbps = mbps;
	p.base_rtt_us = rtt_us;
	p.burst_pkts = burst_pkts;
	s = sim_new(&p, &counting_lb, &stub_cc, 1);
	a = &s->n[0];
	a->capture = true;
	choices = 0;
	a->host_bursts = host_bursts;
	node_add(a, 30 * p.payload);
	node_pump(a);
	return s;
}

/* Against the stub CC's window of 20: the first 20 go in one push, in
 * bursts of @k with one choice each, the last one told of the packets
 * that go (the window's end).
 */
static void check_bursts(struct __test_metadata *_metadata, u32 link_mbps,
			 u32 base_rtt_us, u32 burst_pkts, u32 k)
{
	struct sim *s = burst_sender(link_mbps, base_rtt_us, burst_pkts,
				     U32_MAX);
	struct node *a = &s->n[0];
	u32 i, c;

	ASSERT_EQ(20, a->ncap);
	ASSERT_EQ(DIV_ROUND_UP(20, k), choices);
	ASSERT_EQ(choices, a->flushes);
	for (c = 0; c < choices; c++) {
		EXPECT_EQ(c * k, choice_psn[c]);
		EXPECT_EQ(min(k, 20 - c * k), choice_pkts[c]);
	}
	for (i = 0; i < a->ncap; i++) {
		const struct mpdt_pkt *pkt = &a->cap[i].pkt;

		EXPECT_EQ(i, pkt->data.psn);
		EXPECT_EQ(100 + i / k, pkt->hdr.ev);
		EXPECT_EQ(i - 1, pkt->data.prev_psn);
	}
	sim_free(s);
}

/* Like TCP's TSO autosizing: a burst carries about a millisecond at the
 * link rate, up to burst-pkts.  10 Gbit/s: 892 packets a millisecond,
 * so 16 (the default burst-pkts), or 4 if that is the most.
 */
TEST(bursts_carry_a_millisecond_up_to_burst_pkts)
{
	check_bursts(_metadata, 10000, 100, 16, 16);
	check_bursts(_metadata, 10000, 100, 4, 4);
	/* 100 Mbit/s: 12500 bytes a millisecond, 8 packets. */
	check_bursts(_metadata, 100, 1000, 64, 8);
}

/* 10 Mbit/s, the test fabric: every packet chooses its own entropy, and
 * burst-pkts 1 means the same on any link.
 */
TEST(slow_links_and_burst_pkts_1_choose_per_packet)
{
	check_bursts(_metadata, 10, 2000, 16, 1);
	check_bursts(_metadata, 10000, 100, 1, 1);
}

/* TCP Small Queues: the host's queues may take a burst while the
 * socket holds less than two bursts or a millisecond there, 1 MiB at
 * most.  The window's 20 packets in bursts of 4 (10 Gbit/s, burst-pkts
 * 4): the host takes two bursts, then none; once its queues drained the
 * timer sends the rest.
 */
TEST(full_host_queues_hold_the_next_burst_back)
{
	struct sim *s = burst_sender(10000, 100, 4, 2);
	struct node *a = &s->n[0];

	ASSERT_EQ(8, a->ncap);
	EXPECT_EQ(2, choices);
	EXPECT_EQ(2, a->flushes);
	EXPECT_EQ(1, a->stats[MPDT_STAT_TX_HOST_LIMITED]);
	EXPECT_EQ(1 << 20, a->host_limit);	/* 1.25 MB a millisecond */
	EXPECT_NE(0, a->timer_at);
	a->host_bursts = U32_MAX;
	mpdt_eng_on_timer(&a->eng, s->now);
	ASSERT_EQ(20, a->ncap);
	EXPECT_EQ(5, choices);
	sim_free(s);

	/* 100 Mbit/s: 12500 bytes a millisecond, less than two bursts of 8. */
	s = burst_sender(100, 1000, 64, 0);
	a = &s->n[0];
	EXPECT_EQ(0, a->ncap);
	EXPECT_EQ(2 * 8 * s->p.payload, a->host_limit);
	sim_free(s);
}

/* Before the rate is measured a burst is one packet; once it is, bursts
 * carry a millisecond of it.
 */
TEST(bursts_follow_the_measured_rate)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &counting_lb, &stub_cc, 1);
	struct node *a = &s->n[0];
	u32 before;

	a->capture = true;
	choices = 0;
	node_add(a, 30 * p.payload);
	node_pump(a);
	ASSERT_EQ(20, choices);
	a->eng.path.rate = 1400 * 1000 * 5;	/* 5 packets a millisecond */
	before = choices;
	a->eng.cc.cwnd = 30 * p.payload;
	mpdt_eng_on_timer(&a->eng, s->now);	/* a push */
	ASSERT_EQ(30, a->ncap);
	EXPECT_EQ(before + 2, choices);
	EXPECT_EQ(5, choice_pkts[before]);
	sim_free(s);
}

/* ParaLet (paralet.txt §3) keeps a flowlet in order on one path: a burst
 * goes on one flowlet, and each packet names the one sent before it on
 * its flowlet, which went on the same entropy.  Also when the window cut
 * a burst short and the next push goes on.
 */
TEST(paralet_bursts_stay_on_their_flowlets)
{
	struct mpdt_params p = default_params();
	struct sim *s;
	struct node *a;
	u32 *last_on_ev, i, shared = 0;

	p.link_mbps = 10000;
	p.base_rtt_us = 100;
	s = sim_new(&p, mpdt_lb_find("paralet"), &stub_cc, 1);
	a = &s->n[0];
	a->capture = true;
	last_on_ev = xcalloc(p.entropies, sizeof(*last_on_ev));
	node_add(a, 30 * p.payload);
	node_pump(a);
	ASSERT_EQ(20, a->ncap);
	a->eng.cc.cwnd = 30 * p.payload;
	mpdt_eng_on_timer(&a->eng, s->now);	/* a push */
	ASSERT_EQ(30, a->ncap);
	for (i = 0; i < a->ncap; i++) {
		const struct mpdt_pkt *pkt = &a->cap[i].pkt;
		u32 psn = pkt->data.psn, prev = pkt->data.prev_psn;
		u16 ev = pkt->hdr.ev;

		ASSERT_TRUE(pkt->hdr.flags & MPDT_F_FLOWLET);
		if (prev != psn) {
			EXPECT_LT(prev, psn);
			EXPECT_EQ(prev + 1, last_on_ev[ev]);
		}
		shared += i && ev == a->cap[i - 1].pkt.hdr.ev;
		last_on_ev[ev] = psn + 1;
	}
	EXPECT_LT(0, shared);
	free(last_on_ev);
	sim_free(s);
}

/* A NACK reaches the policies as a NACK, never as a loss. */
TEST(nack_reaches_the_policies_as_a_nack)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 3);
	struct node *a = &s->n[0], *b = &s->n[1];
	struct cap_pkt trimmed;
	const struct cap_pkt *nack;
	char want[LOG_MAX] = "";
	u32 i;

	a->capture = true;
	b->capture = true;
	a->logging = true;
	for (i = 0; i < 3; i++)
		node_add(a, 1000 + i);
	node_pump(a);
	ASSERT_EQ(3, a->ncap);
	s->now += UNIT_US(40);
	trimmed = a->cap[1];
	trimmed.pkt.hdr.flags |= MPDT_F_TRIMMED;
	sim_inject(s, 1, &trimmed.pkt, NULL, 0, false);
	nack = last_cap(b, MPDT_T_NACK);
	ASSERT_NE(NULL, nack);
	EXPECT_EQ(1, nack->pkt.nack.psn);
	EXPECT_EQ(MPDT_NACK_TRIMMED, nack->pkt.nack.code);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_TRIMMED]);

	s->now += UNIT_US(40);
	log_clear(a);
	cap_inject(s, 0, nack);
	cat(want, sizeof(want), "lb.on_nack ev=101 code=%u\n",
	    MPDT_NACK_TRIMMED);
	cat(want, sizeof(want), "cc.on_nack code=%u\n", MPDT_NACK_TRIMMED);
	want_xmit(want, sizeof(want), 1, true, MPDT_F_RETX | MPDT_F_AR);
	EXPECT_STREQ(want, a->log);
	EXPECT_EQ(1, a->stats[MPDT_STAT_RETX_NACK]);
	EXPECT_EQ(1, a->eng.nacks_rcvd);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* ---- 2. Whole connections ---------------------------------------------- */

struct run_cfg {
	const char *lb, *cc;
	u32 msgs[NODES];	/* messages each node sends */
	u32 window;		/* unacknowledged messages at most */
	u32 loss_pm, dup_pm, trim_pm;
	u64 spread_ns, jitter_ns, ecn_ns;
	u64 seed;
};

/* Mostly one to three packets; a few empty; some up to 40 packets. */
static u32 draw_len(struct unit_rng *rng, u32 mss)
{
	u32 k = unit_rand_below(rng, 100);

	if (k < 2)
		return 0;
	if (k < 8)
		return 3 * mss + 1 + unit_rand_below(rng, 37 * mss);
	return 1 + unit_rand_below(rng, 3 * mss);
}

static struct sim *run_connection(const struct mpdt_params *p,
				  const struct run_cfg *c, bool *drained)
{
	const struct mpdt_lb_ops *lb = mpdt_lb_find(c->lb);
	const struct mpdt_cc_ops *cc = mpdt_cc_find(c->cc);
	struct unit_rng sizes = { .state = c->seed * 31 + 7 };
	struct sim *s;
	u32 i, j;

	if (!lb || !cc)
		return NULL;
	s = sim_new(p, lb, cc, c->seed);
	for (i = 0; i < NODES; i++) {
		struct link *l = &s->link[i];

		l->loss_pm = c->loss_pm;
		l->dup_pm = c->dup_pm;
		l->trim_pm = c->trim_pm;
		l->spread_ns = c->spread_ns;
		l->jitter_ns = c->jitter_ns;
		l->ecn_ns = c->ecn_ns;
		s->n[i].window = c->window;
		for (j = 0; j < c->msgs[i]; j++)
			node_add(&s->n[i], draw_len(&sizes, p->payload));
	}
	*drained = sim_run(s, T0 + UNIT_SEC(100));
	return s;
}

/* 5% of every kind of packet lost both ways, 1% duplicated, 1% trimmed,
 * paths 20 us apart, jitter and ECN marks.
 */
static const struct run_cfg lossy = {
	.window = 64, .loss_pm = 50, .dup_pm = 10, .trim_pm = 10,
	.spread_ns = UNIT_US(20), .jitter_ns = UNIT_US(2),
	.ecn_ns = UNIT_US(20),
};

static void run_and_check(struct __test_metadata *_metadata,
			  const struct run_cfg *c)
{
	struct mpdt_params p = default_params();
	struct report rep;
	bool drained;
	struct sim *s;

	ASSERT_EQ(NULL, mpdt_params_invalid(&p));
	s = run_connection(&p, c, &drained);
	ASSERT_NE(NULL, s) {
		TH_LOG("no lb %s or cc %s", c->lb, c->cc);
	}
	EXPECT_STREQ("", check_run(s, drained, &rep)) {
		TH_LOG("lb %s cc %s seed %llu", c->lb, c->cc, c->seed);
		log_run(_metadata, s);
	}
	if (c->msgs[0] >= 10000)
		log_run(_metadata, s);
	sim_free(s);
}

/* 10000 messages from A to B and 2000 back at once, under 5% loss. */
TEST(ten_thousand_messages_under_loss)
{
	struct run_cfg c = lossy;

	c.lb = "reps";
	c.cc = "strack";
	c.msgs[0] = 10000;
	c.msgs[1] = 2000;
	c.seed = 10;
	run_and_check(_metadata, &c);
}

TEST(ten_thousand_messages_module_defaults)
{
	struct run_cfg c = lossy;

	c.lb = "ecmp";
	c.cc = "fixed";
	c.msgs[0] = 10000;
	c.msgs[1] = 0;
	c.seed = 11;
	run_and_check(_metadata, &c);
}

/* Every load balancer with every congestion control, a smaller run. */
FIXTURE(combo) {
	int unused;
};

FIXTURE_VARIANT(combo) {
	const char *lb;
};

FIXTURE_VARIANT_ADD(combo, ecmp) { .lb = "ecmp" };
FIXTURE_VARIANT_ADD(combo, oblivious) { .lb = "oblivious" };
FIXTURE_VARIANT_ADD(combo, bitmap) { .lb = "bitmap" };
FIXTURE_VARIANT_ADD(combo, reps) { .lb = "reps" };
FIXTURE_VARIANT_ADD(combo, prime) { .lb = "prime" };
FIXTURE_VARIANT_ADD(combo, paralet) { .lb = "paralet" };

FIXTURE_SETUP(combo)
{
}

FIXTURE_TEARDOWN(combo)
{
}

TEST_F(combo, every_cc_over_a_lossy_link)
{
	static const char * const ccs[] = { "fixed", "strack", "smartt",
					    "mcc" };
	struct run_cfg c = lossy;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(ccs); i++) {
		c.lb = variant->lb;
		c.cc = ccs[i];
		c.msgs[0] = 1000;
		c.msgs[1] = 300;
		c.seed = 100 + i;
		run_and_check(_metadata, &c);
	}
}

/* ---- The measured path (path.h) ---------------------------------------- */

/* Module defaults say nothing of the path.  One 4 MiB message over the
 * clean simulated link: every CC measures the base RTT (two link delays
 * and the serialization of a DATA and a SACK) and the rate, and the BDP
 * its windows follow is the link's, with path.h's gain of two.
 */
TEST(every_cc_measures_the_path)
{
	/* The window-based CCs fill the link from the initial window within
	 * a fifth over the ideal FCT; MCC grows by an eighth of a BDP per
	 * chunk (§4), an eighth of the BDP here: within 40%.
	 */
	static const struct {
		const char *cc;
		u32 fct_pct;		/* of the ideal */
	} ccs[] = {
		{ "fixed", 120 }, { "strack", 120 }, { "smartt", 120 },
		{ "mcc", 140 },
	};
	const u64 len = 4U << 20, wire_bps = LINK_MBPS * 1000000ULL / 8;
	/* Payload bytes per second the link can carry. */
	const u64 rate = wire_bps * 1400 / (1400 + MPDT_DATA_HLEN + FRAMING);
	const u64 ideal = len * UNIT_SEC(1) / rate;
	struct mpdt_params p = default_params();
	struct report rep;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(ccs); i++) {
		struct sim *s = sim_new(&p, mpdt_lb_find("ecmp"),
					mpdt_cc_find(ccs[i].cc), 40 + i);
		struct node *a = &s->n[0];
		bool drained;
		u64 fct, bdp;

		node_add(a, len);
		drained = sim_run(s, T0 + UNIT_SEC(10));
		EXPECT_STREQ("", check_run(s, drained, &rep)) {
			log_run(_metadata, s);
		}
		fct = a->last_at[MPDT_STAT_MSG_ACKED] - T0;
		bdp = mpdt_bdp(&a->eng.eff);
		TH_LOG("%s: base RTT %u us, rate %llu B/s, BDP %llu, "
		       "full %d, FCT %llu (ideal %llu) us",
		       ccs[i].cc, a->eng.eff.base_rtt_us, a->eng.path.rate,
		       bdp, a->eng.path.full, fct / 1000, ideal / 1000);
		EXPECT_LE(2 * LINK_DELAY / 1000, a->eng.eff.base_rtt_us);
		EXPECT_GE(2 * LINK_DELAY / 1000 + 5, a->eng.eff.base_rtt_us);
		/* Whole microseconds, rounded up: the serializations make
		 * it 81.x us, and 81 put every sample above SMaRTT's
		 * FastIncrease bound at a 9 us RTT (engine.c).
		 */
		EXPECT_NE(0, a->eng.rtt.min_rtt % UNIT_US(1));
		EXPECT_EQ(DIV_ROUND_UP(a->eng.rtt.min_rtt, UNIT_US(1)),
			  a->eng.eff.base_rtt_us);
		EXPECT_GE(rate, a->eng.path.rate);
		EXPECT_TRUE(a->eng.path.full);
		EXPECT_LE(rate * 9 / 10, a->eng.path.rate);
		/* BDP: the rate's over the base RTT, twice. */
		EXPECT_LE(rate * 9 / 10 * 2 * LINK_DELAY / UNIT_SEC(1) * 2, bdp);
		EXPECT_GE(rate * (2 * LINK_DELAY + UNIT_US(6)) / UNIT_SEC(1) * 2,
			  bdp);
		EXPECT_GE(ideal * ccs[i].fct_pct / 100, fct);
		EXPECT_EQ(0, a->paced_bursts);
		sim_free(s);
	}
}

/* Paced (pacing.h; the sim holds each packet to its departure time):
 * from the first RTT sample on every burst has a time, the bursts a SACK
 * lets go leave spread out, and the RTT the sender measures is the
 * path's, not the wait for those times.  4 MiB over the clean link.
 */
TEST(paced_bursts_leave_at_their_times)
{
	const u64 len = 4U << 20, wire_bps = LINK_MBPS * 1000000ULL / 8;
	const u64 rate = wire_bps * 1400 / (1400 + MPDT_DATA_HLEN + FRAMING);
	const u64 ideal = len * UNIT_SEC(1) / rate;
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("ecmp"),
				mpdt_cc_find("strack"), 41);
	struct node *a = &s->n[0];
	struct report rep;
	bool drained;
	u64 fct;

	a->paced = true;
	node_add(a, len);
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_run(s, drained, &rep)) {
		log_run(_metadata, s);
	}
	fct = a->last_at[MPDT_STAT_MSG_ACKED] - T0;
	TH_LOG("paced: %u of %u bursts, lead up to %llu us, base RTT %u us, "
	       "FCT %llu (ideal %llu) us", a->paced_bursts, a->flushes,
	       a->pace_lead / 1000, a->eng.eff.base_rtt_us, fct / 1000,
	       ideal / 1000);
	EXPECT_LT(a->flushes / 2, a->paced_bursts);
	EXPECT_NE(0, a->pace_lead);
	EXPECT_LE(2 * LINK_DELAY / 1000, a->eng.eff.base_rtt_us);
	EXPECT_GE(2 * LINK_DELAY / 1000 + 5, a->eng.eff.base_rtt_us);
	EXPECT_GE(ideal * 120 / 100, fct);
	sim_free(s);
}

/* Paced at a rate far below the path's (SO_MAX_PACING_RATE 2 MB/s over
 * the clean 10 Gbit/s link): a burst is a millisecond at the pacing rate,
 * one packet, and the host may hold two, as TCP sizes both by its pacing
 * rate.  Sized by the path's rate, at a tiny rate bursts of 16 each
 * stamped up to a second apart would pass fq's horizon.  A new
 * incarnation after a long idle does not inherit the old one's departure
 * times.  1 MiB, twice.
 */
TEST(paced_slowly_sends_bursts_of_the_pacing_rate)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("ecmp"),
				mpdt_cc_find("strack"), 43);
	struct node *a = &s->n[0];
	struct report rep;
	bool drained;
	u64 t1;

	a->paced = true;
	a->max_rate = 2000000;
	node_add(a, 1 << 20);
	drained = sim_run(s, T0 + UNIT_SEC(60));
	EXPECT_STREQ("", check_run(s, drained, &rep)) {
		log_run(_metadata, s);
	}
	TH_LOG("%u of %u bursts paced, at most %u packets, lead up to %llu ms, "
	       "host limit %u B", a->paced_bursts, a->flushes,
	       a->paced_max_burst, a->pace_lead / 1000000, a->host_limit);
	EXPECT_LT(a->flushes / 2, a->paced_bursts);
	EXPECT_EQ(1, a->paced_max_burst);
	EXPECT_EQ(2 * a->eng.cc.mss, a->host_limit);
	/* As an incarnation paced at a tiny rate may leave it. */
	t1 = s->now + 4 * mpdt_eng_quiet_ns(&p);
	s->now = t1;
	a->eng.pacing.next_ns = t1 + UNIT_SEC(10);
	a->want_incarnations = 2;
	node_add(a, 1 << 20);
	drained = sim_run(s, t1 + UNIT_SEC(20));
	EXPECT_STREQ("", check_run(s, drained, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(2, a->incarnations);
	EXPECT_GT(t1 + UNIT_SEC(2), a->last_at[MPDT_STAT_MSG_ACKED])
		TH_LOG("the new incarnation's message waited for old times");
	sim_free(s);
}

/* A configured link speed with the base RTT left to measure: the first
 * flight is the initial window, not the speed times the RTT guessed
 * before the first sample (10 Gbit/s x 1 ms: the whole 1 MiB message),
 * and from the first sample on the window is the configured speed's BDP.
 */
TEST(a_configured_speed_waits_for_the_first_rtt_sample)
{
	struct mpdt_params p = default_params();
	struct sim *s;
	struct report rep;
	struct node *a;
	bool drained;

	p.link_mbps = LINK_MBPS;
	p.base_rtt_us = 0;
	s = sim_new(&p, mpdt_lb_find("ecmp"), mpdt_cc_find("fixed"), 1);
	a = &s->n[0];
	a->capture = true;
	node_add(a, 1U << 20);
	node_pump(a);
	EXPECT_EQ(MPDT_PATH_IW_PKTS, a->ncap);
	sim_free(s);

	s = sim_new(&p, mpdt_lb_find("ecmp"), mpdt_cc_find("fixed"), 1);
	a = &s->n[0];
	node_add(a, 1U << 20);
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_run(s, drained, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(LINK_MBPS, a->eng.eff.link_mbps);
	EXPECT_LE(2 * LINK_DELAY / 1000, a->eng.eff.base_rtt_us);
	EXPECT_EQ(mpdt_bdp(&a->eng.eff), a->eng.cc.cwnd);
	sim_free(s);
}

/* 10 Gbit/s over 2 x 2 us, whose link marks ECN past @ecn_ns of queue
 * (0: never): the largest bytes in flight before and after the pipe was
 * full, in @early and @most; the BDP is returned.
 */
static u64 short_link(struct __test_metadata *_metadata, u64 ecn_ns,
		      u64 *early, u64 *most)
{
	struct mpdt_params p = default_params();
	u64 until = T0, bdp;
	struct sim *s;
	struct node *a;

	s = sim_new(&p, mpdt_lb_find("ecmp"), mpdt_cc_find("strack"), 11);
	a = &s->n[0];
	s->link[0].delay_ns = UNIT_US(2);
	s->link[1].delay_ns = UNIT_US(2);
	s->link[0].ecn_ns = ecn_ns;
	node_add(a, 16U << 20);
	*early = 0;
	*most = 0;
	while (!sim_run(s, until += UNIT_US(5)) && until < T0 + UNIT_SEC(1)) {
		u64 inflight = mpdt_sb_inflight(&a->eng.sb);

		if (a->eng.path.full)
			*most = max(*most, inflight);
		else
			*early = max(*early, inflight);
	}
	bdp = mpdt_bdp(&a->eng.eff);
	TH_LOG("ecn after %llu ns: BDP %llu, largest inflight %llu in "
	       "startup, %llu after", ecn_ns, bdp, *early, *most);
	EXPECT_EQ(1, a->stats[MPDT_STAT_MSG_ACKED]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
	return bdp;
}

/* A BDP below three bursts, as a veth's (17 KB against bursts of 22 KB):
 * 10 Gbit/s over 2 x 2 us is 28 KB with path.h's gain of two, where a
 * millisecond is 892 packets and a burst burst-pkts (16).  In startup
 * the window follows the BDP; once the pipe is full it holds three
 * bursts (cc.h mpdt_cc_max_cwnd()), 48 packets, and the SACK of one
 * burst finds the next two on their way instead of an empty pipe.  Not
 * where the link marks ECN: there the CC has its signal, and the window
 * stays within the BDP.
 */
TEST(a_full_pipe_below_three_bursts_holds_three)
{
	const u64 three = 3 * 16 * default_params().payload;
	u64 early, most;

	EXPECT_GT(three / 2, short_link(_metadata, 0, &early, &most));
	EXPECT_GT(three / 2, early);
	EXPECT_EQ(three, most);

	EXPECT_GT(three / 2, short_link(_metadata, UNIT_US(1), &early, &most));
	EXPECT_GT(three / 2, early);
	EXPECT_GT(three / 2, most);
}

/* Nor does a first sample that waited (neighbour resolution, a stalled
 * host) make the configured speed's BDP: 10 Gbit/s x 2 ms is 2.5 MB
 * against the path's 100 KB.  The windows grow to it by startup, as a
 * measured path's do; until the pipe is full the measured BDP bounds them.
 */
TEST(a_configured_speed_grows_past_an_inflated_first_sample)
{
	struct mpdt_params p = default_params();
	const u64 bdp = LINK_MBPS * 125ULL * 2 * LINK_DELAY / UNIT_US(1000);
	u64 until = T0, most = 0;
	struct sim *s;
	struct node *a;

	p.link_mbps = LINK_MBPS;
	p.base_rtt_us = 0;
	s = sim_new(&p, mpdt_lb_find("ecmp"), mpdt_cc_find("strack"), 3);
	a = &s->n[0];
	s->link[0].delay_ns = UNIT_MS(2);
	node_add(a, 4U << 20);
	sim_run(s, T0 + UNIT_US(1));
	s->link[0].delay_ns = LINK_DELAY;
	while (!sim_run(s, until += UNIT_US(2)) && until < T0 + UNIT_SEC(1))
		most = max(most, mpdt_sb_inflight(&a->eng.sb));
	TH_LOG("largest inflight %llu bytes, BDP %llu", most, bdp);
	EXPECT_GE(4 * bdp, most);
	EXPECT_EQ(1, a->stats[MPDT_STAT_MSG_ACKED]);
	EXPECT_EQ(LINK_MBPS, a->eng.eff.link_mbps);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* A configured speed ten times the path's: 100 Gbit/s over a 10 Gbit/s
 * link.  Where the link never marks ECN, the windows stay within the
 * measured BDP, as with no speed configured: STrack grows its window on a
 * long delay without a mark (Algo 3 line 6), and the configured BDP, ten
 * times the path's, would be its only bound.  Where the queue marks, the
 * CC has its signal and the configured speed is taken.
 */
static u64 told_ten_times_the_link(struct __test_metadata *_metadata,
				   u64 ecn_ns, u32 *eff_mbps)
{
	struct mpdt_params p = default_params();
	u64 until = T0, most = 0;
	struct sim *s;
	struct node *a;

	p.link_mbps = 10 * LINK_MBPS;
	p.base_rtt_us = 0;
	s = sim_new(&p, mpdt_lb_find("ecmp"), mpdt_cc_find("strack"), 7);
	a = &s->n[0];
	s->link[0].ecn_ns = ecn_ns;
	node_add(a, 16U << 20);
	while (!sim_run(s, until += UNIT_US(20)) && until < T0 + UNIT_SEC(2))
		if (a->eng.path.full)
			most = max(most, mpdt_sb_inflight(&a->eng.sb));
	EXPECT_EQ(1, a->stats[MPDT_STAT_MSG_ACKED]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	*eff_mbps = a->eng.eff.link_mbps;
	TH_LOG("ecn after %llu ns: largest inflight %llu, speed taken %u",
	       ecn_ns, most, *eff_mbps);
	sim_free(s);
	return most;
}

TEST(a_configured_speed_needs_a_path_that_marks_ecn)
{
	/* 10 Gbit/s over 2 x 40 us, twice (path.h) */
	const u64 bdp = LINK_MBPS * 125ULL * 2 * LINK_DELAY / UNIT_US(1000);
	u32 mbps;

	EXPECT_GE(2 * bdp, told_ten_times_the_link(_metadata, 0, &mbps));
	EXPECT_GT(10 * LINK_MBPS, mbps);
	told_ten_times_the_link(_metadata, UNIT_US(20), &mbps);
	EXPECT_EQ(10 * LINK_MBPS, mbps);
}

/* A configured base RTT longer than rto-min: the first RTO waits three of
 * it (RFC 6298 2.2 with it as the first sample), not rto-min, which fired
 * on every first flight of a 100 ms path and failed the peer after
 * max-retries of them.
 */
TEST(the_first_rto_waits_for_the_configured_rtt)
{
	struct mpdt_params p = default_params();
	struct report rep;
	struct sim *s;
	struct node *a;
	bool drained;

	p.base_rtt_us = 100000;
	p.max_retries = 2;
	s = sim_new(&p, mpdt_lb_find("ecmp"), mpdt_cc_find("strack"), 7);
	s->link[0].delay_ns = UNIT_MS(50);
	s->link[1].delay_ns = UNIT_MS(50);
	a = &s->n[0];
	node_add(a, 64 << 10);
	drained = sim_run(s, T0 + UNIT_SEC(20));
	EXPECT_STREQ("", check_run(s, drained, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(0, a->stats[MPDT_STAT_RTO]);
	EXPECT_EQ(1, a->stats[MPDT_STAT_MSG_ACKED]);
	sim_free(s);
}

/* A base RTT configured below the path's: before the first sample the
 * probes wait for the guess (three of it), not probe-mult x 1 us.
 */
TEST(no_probe_storm_before_the_first_sample)
{
	struct mpdt_params p = default_params();
	struct sim *s;
	struct node *a;

	p.base_rtt_us = 1;
	s = sim_new(&p, mpdt_lb_find("ecmp"), mpdt_cc_find("strack"), 9);
	s->link[0].delay_ns = UNIT_US(500);
	s->link[1].delay_ns = UNIT_US(500);
	a = &s->n[0];
	node_add(a, 10 * p.payload);
	sim_run(s, T0 + UNIT_SEC(1));
	EXPECT_EQ(0, a->eng.probes);
	EXPECT_EQ(1, a->stats[MPDT_STAT_MSG_ACKED]);
	sim_free(s);
}

/* A sending half idle for the quiet time (nothing queued, nothing heard)
 * starts a new incarnation with its next message: its peer may have
 * forgotten the old one, and adopts the new one at once, having heard
 * nothing of the old one for at least as long.
 */
TEST(idle_sender_restarts_and_is_adopted)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("reps"),
				mpdt_cc_find("strack"), 12);
	struct node *a = &s->n[0], *b = &s->n[1];
	u64 quiet = mpdt_eng_quiet_ns(&p);
	struct report rep;
	u32 i, nonce;

	for (i = 0; i < 50; i++)
		node_add(a, 2000);
	ASSERT_TRUE(sim_run(s, T0 + UNIT_SEC(1)));
	nonce = a->eng.nonce;
	EXPECT_EQ(nonce, b->eng.rx_nonce);
	EXPECT_FALSE(mpdt_eng_needs_start(&a->eng,
					  a->eng.heard_ns + quiet - 1));
	EXPECT_TRUE(mpdt_eng_needs_start(&a->eng, a->eng.heard_ns + quiet));

	s->now = a->eng.heard_ns + quiet;
	for (i = 0; i < 50; i++)
		node_add(a, 2000);
	a->want_incarnations = 2;
	EXPECT_STREQ("", check_run(s, sim_run(s, s->now + UNIT_SEC(1)),
				   &rep));
	EXPECT_EQ(nonce + 1, a->eng.nonce);
	EXPECT_EQ(nonce + 1, b->eng.rx_nonce);
	EXPECT_EQ(0, b->stats[MPDT_STAT_DROP_NEW_NONCE]);
	sim_free(s);
}

/* The glue cuts a message before the engine sees it, each packet's
 * payload after its header's slot (txmsg.c): its packets keep that cut,
 * also when the incarnation's payload size (here 1400) is another.
 */
TEST(a_message_keeps_the_cut_it_came_with)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("reps"),
				mpdt_cc_find("strack"), 13);
	struct node *a = &s->n[0];
	struct report rep;

	node_add_cut(a, 5 * 700 + 1, 700);
	/* check_run(): six new DATA, each received once, in one message. */
	EXPECT_STREQ("", check_run(s, sim_run(s, T0 + UNIT_SEC(1)), &rep));
	EXPECT_EQ(6, a->tx_new);
	EXPECT_EQ(0, a->tx_retx);
	sim_free(s);
}

/* The flags of the @i-th DATA node @n logged, or -1. */
static int data_flags(const struct node *n, u32 i)
{
	const char *at = n->log;
	u32 psn, flags;

	while ((at = strstr(at, "xmit DATA psn="))) {
		if (sscanf(at, "xmit DATA psn=%u flags=0x%x", &psn, &flags) == 2 &&
		    !i--)
			return flags;
		at++;
	}
	return -1;
}

/* The glue queues a long message before its bytes are in and copies it
 * a piece at a time (txmsg.c): only the packets in place go, the rest as
 * each piece comes, and the message arrives whole.  Until the next piece
 * is in, the copy limits the sender: the last packet in place asks for a
 * SACK, and the path's rate sample says so, as when the application has
 * nothing queued.
 */
TEST(a_message_goes_as_its_pieces_come_in)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("reps"),
				mpdt_cc_find("smartt"), 21);
	const u32 mss = p.payload;
	struct node *a = &s->n[0];
	struct report rep;
	struct tmsg *t;

	t = node_add(a, 10 * mss - 7);
	t->m.missing = t->m.len;
	node_pump(a);
	EXPECT_EQ(0, a->tx_new);
	a->logging = true;
	mpdt_eng_msg_ready(&a->eng, &t->m, 4 * mss, s->now);
	ASSERT_EQ(4, a->tx_new);
	EXPECT_EQ(MPDT_F_AR, data_flags(a, 3) & MPDT_F_AR);
	EXPECT_EQ(0, data_flags(a, 2) & MPDT_F_AR);
	a->logging = false;
	/* Their SACKs come; nothing more goes, nothing is due. */
	EXPECT_TRUE(sim_run(s, T0 + UNIT_SEC(1)));
	EXPECT_EQ(4, a->tx_new);
	EXPECT_EQ(4, t->m.acked);
	EXPECT_TRUE(a->eng.path.app_limited);
	mpdt_eng_msg_ready(&a->eng, &t->m, t->m.missing, s->now);
	EXPECT_EQ(10, a->tx_new);
	/* check_run(): ten new DATA, each received once, one message. */
	EXPECT_STREQ("", check_run(s, sim_run(s, T0 + UNIT_SEC(2)), &rep));
	EXPECT_EQ(0, a->tx_retx);
	sim_free(s);
}

/* A piece is at least MPDT_ENG_PIECE_BYTES, in whole MCC chunks (§4), so
 * that no chunk is timed with its copy; a message the congestion control
 * times whole is one piece.
 */
TEST(pieces_are_whole_chunks_and_whole_timed_messages)
{
	struct mpdt_params p = default_params();
	const u32 mss = p.payload, min = DIV_ROUND_UP(MPDT_ENG_PIECE_BYTES, mss);
	struct sim *s = sim_new(&p, &stub_lb, &chunk_cc, 22);
	struct node *a = &s->n[0];
	struct tmsg *t;

	t = node_add(a, 200 * mss);
	t->m.missing = t->m.len;
	node_pump(a);
	ASSERT_EQ(3, t->m.chunk_pkts);
	EXPECT_EQ(DIV_ROUND_UP(min, 3) * 3, mpdt_eng_piece_pkts(&a->eng, &t->m));
	sim_free(s);

	s = sim_new(&p, &stub_lb, &stub_cc, 23);
	a = &s->n[0];
	t = node_add(a, 200 * mss);
	t->m.missing = t->m.len;
	node_pump(a);
	EXPECT_EQ(200, mpdt_eng_piece_pkts(&a->eng, &t->m));
	sim_free(s);

	s = sim_new(&p, &stub_lb, mpdt_cc_find("smartt"), 24);
	a = &s->n[0];
	t = node_add(a, 200 * mss);
	t->m.missing = t->m.len;
	node_pump(a);
	EXPECT_EQ(min, mpdt_eng_piece_pkts(&a->eng, &t->m));
	sim_free(s);
}

/* A spoofed packet with a wrong nonce is not the peer heard: it neither
 * keeps an idle incarnation the peer may have forgotten (the next message
 * still starts a new one after the quiet time) nor counts as recent for
 * eviction and collection.  The peer's own SACK does.
 */
TEST(wrong_nonce_is_not_the_peer_heard)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("reps"),
				mpdt_cc_find("strack"), 12);
	struct node *a = &s->n[0], *b = &s->n[1];
	u64 quiet = mpdt_eng_quiet_ns(&p), heard;
	struct mpdt_pkt sack = { .hdr.type = MPDT_T_SACK };
	u32 i;

	for (i = 0; i < 5; i++)
		node_add(a, 2000);
	ASSERT_TRUE(sim_run(s, T0 + UNIT_SEC(1)));
	heard = a->eng.heard_ns;
	sack.hdr.nonce = a->eng.nonce ^ 1;
	s->now = heard + quiet - 1;
	EXPECT_FALSE(mpdt_eng_on_packet(&a->eng, &sack, false, NULL, s->now));
	EXPECT_EQ(1, a->stats[MPDT_STAT_DROP_STALE_NONCE]);
	EXPECT_EQ(heard, a->eng.heard_ns);
	EXPECT_TRUE(mpdt_eng_needs_start(&a->eng, heard + quiet));

	/* One more message, whose SACK B keeps for the test. */
	b->capture = true;
	node_add(a, 2000);
	sim_run(s, s->now + UNIT_MS(5));
	ASSERT_NE(NULL, last_cap(b, MPDT_T_SACK));
	sack = last_cap(b, MPDT_T_SACK)->pkt;
	EXPECT_EQ(a->eng.nonce, sack.hdr.nonce);
	EXPECT_TRUE(mpdt_eng_on_packet(&a->eng, &sack, false, NULL, s->now));
	EXPECT_EQ(s->now, a->eng.heard_ns);
	sim_free(s);
}

/* ---- 3. Every loss detector and NACK ----------------------------------- */

/* A clean link (no reordering) with @lb and fixed CC, A sending @msgs
 * single-packet messages of @len bytes.
 */
static struct sim *loss_sim(const char *lb, u32 msgs, u32 len, u64 seed)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find(lb), mpdt_cc_find("fixed"),
				seed);
	u32 i;

	for (i = 0; i < msgs; i++)
		node_add(&s->n[0], len);
	return s;
}

/* Exactly the losses named were declared, and all was then delivered. */
static const char *check_recovery(struct sim *s, bool drained, u64 ooo,
				  u64 probe, u64 rto, u64 nack,
				  struct report *r)
{
	struct node *a = &s->n[0];

	check_run(s, drained, r);
	rep_eq(r, a, "RETX_OOO", a->stats[MPDT_STAT_RETX_OOO], ooo);
	rep_eq(r, a, "RETX_PROBE", a->stats[MPDT_STAT_RETX_PROBE], probe);
	rep_eq(r, a, "RETX_RTO", a->stats[MPDT_STAT_RETX_RTO], rto);
	rep_eq(r, a, "RETX_NACK", a->stats[MPDT_STAT_RETX_NACK], nack);
	return r->buf;
}

/* One packet lost mid-stream: the receiver soon holds more than a window
 * of packets past it, and the OOO rule (§3.3.2) declares it, alone (in
 * order on the link, nothing else is below the highest PSN received).
 */
TEST(loss_by_ooo_threshold)
{
	struct sim *s = loss_sim("ecmp", 300, 1400, 20);
	struct node *a = &s->n[0], *b = &s->n[1];
	struct report rep;
	bool drained;

	s->link[0].hit_psn = 10;
	s->link[0].hit_fate = FATE_DROP;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 1, 0, 0, 0, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(1, a->tx_retx);
	EXPECT_EQ(0, b->stats[MPDT_STAT_RX_DUP_DATA]);
	EXPECT_EQ(0, a->eng.probes);
	sim_free(s);
}

/* The tail packet lost: no SACK follows, a probe does after three base
 * RTTs; its answer comes fast with no SACK in between, so what was sent
 * before the probe and is unacknowledged is lost (§3.3.2).
 */
TEST(loss_by_probe)
{
	struct sim *s = loss_sim("ecmp", 5, 1400, 21);
	struct node *a = &s->n[0];
	struct report rep;
	bool drained;

	s->link[0].hit_psn = 4;
	s->link[0].hit_fate = FATE_DROP;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 0, 1, 0, 0, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(1, a->eng.probes);
	EXPECT_EQ(1, a->tx_retx);
	/* Probed probe_mult base RTTs, measured, after the SACK of PSNs
	 * 0-3 (a round trip in), and resent on its answer (one more).
	 */
	EXPECT_LT(0, a->eng.rtt.min_rtt);
	EXPECT_LE(T0 + 4 * a->eng.rtt.min_rtt, a->first_retx_at);
	EXPECT_GT(T0 + 6 * a->eng.rtt.min_rtt, a->first_retx_at);
	sim_free(s);
}

/* loss_by_probe with a host that holds a packet of A's until @busy_for
 * after the probe was due (U64_MAX: for good), beside the same run with
 * an empty host (@ref): in both, one probe's answer repairs the loss.
 */
static struct sim *probe_host_run(struct __test_metadata *_metadata,
				  u64 busy_for, struct sim **ref)
{
	struct sim *sims[2];
	struct report rep;
	bool drained;
	u32 i;

	for (i = 0; i < 2; i++) {
		struct sim *s = loss_sim("ecmp", 5, 1400, 21);
		u64 due = i ? sims[0]->n[0].first_probe_at : 0;

		s->link[0].hit_psn = 4;
		s->link[0].hit_fate = FATE_DROP;
		if (i)
			s->n[0].host_busy_until = busy_for == U64_MAX ?
						  U64_MAX : due + busy_for;
		drained = sim_run(s, T0 + UNIT_SEC(10));
		EXPECT_STREQ("", check_recovery(s, drained, 0, 1, 0, 0, &rep)) {
			log_run(_metadata, s);
		}
		EXPECT_EQ(1, s->n[0].eng.probes);
		sims[i] = s;
	}
	*ref = sims[0];
	return sims[1];
}

/* A due probe waits while this host still holds a packet of ours, which
 * it could overtake (a fast answer declares it lost, §3.3.2), and goes
 * the moment the last one leaves.
 */
TEST(probe_waits_for_the_host_to_drain)
{
	struct sim *ref, *s = probe_host_run(_metadata, UNIT_US(1), &ref);
	struct node *a = &s->n[0], *ra = &ref->n[0];

	ASSERT_NE(0, ra->first_probe_at);
	EXPECT_EQ(ra->first_probe_at + UNIT_US(1), a->first_probe_at);
	EXPECT_EQ(ra->first_retx_at + UNIT_US(1), a->first_retx_at);
	EXPECT_EQ(2, a->drain_asks);	/* due, then drained */
	sim_free(ref);
	sim_free(s);
}

/* A host that never drains (a busy socket's other connections) holds
 * the probe back one interval, no longer, and asks once: no timer storm.
 */
TEST(probe_goes_anyway_one_interval_later)
{
	struct sim *ref, *s = probe_host_run(_metadata, U64_MAX, &ref);
	struct node *a = &s->n[0], *ra = &ref->n[0];

	EXPECT_EQ(1, a->drain_asks);
	EXPECT_LT(ra->first_probe_at, a->first_probe_at);
	EXPECT_EQ(a->first_probe_at - ra->first_probe_at,
		  a->first_retx_at - ra->first_retx_at);
	sim_free(ref);
	sim_free(s);
}

/* Everything lost until the RTO, probes included: the timeout (§3.3.2)
 * declares the whole window, which then gets through.
 */
TEST(loss_by_rto)
{
	struct sim *s = loss_sim("ecmp", 3, 1400, 22);
	struct node *a = &s->n[0];
	struct report rep;
	bool drained;

	s->link[0].down_from = T0;
	s->link[0].down_to = T0 + UNIT_US(s->p.rto_min_us);
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 0, 0, 3, 0, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(1, a->stats[MPDT_STAT_RTO]);
	EXPECT_EQ(T0 + UNIT_US(s->p.rto_min_us), a->first_retx_at);
	EXPECT_LT(0, a->eng.probes);
	sim_free(s);
}

/* The receiver closed (wire-format.rst 8.2): it answers probes but takes
 * no new data.  Three rounds of probe resends (MPDT_SB_PROBE_ROUNDS), then
 * the RTOs alone, each resending only the oldest packet (F-RTO), fail the
 * connection; the window is not resent every probe interval.
 */
TEST(closed_receiver_gets_three_probe_rounds)
{
	struct sim *s = loss_sim("ecmp", 1, 1400, 24);
	struct node *a = &s->n[0], *b = &s->n[1];
	u32 i;

	/* The link described (a BDP of 89 packets): all 20 in one window. */
	s->p.link_mbps = LINK_MBPS;
	s->p.base_rtt_us = 100;
	a->stop_on_fail = true;
	EXPECT_TRUE(sim_run(s, T0 + UNIT_SEC(1)));
	ASSERT_EQ(1, b->delivered);
	mpdt_eng_time_wait(&b->eng);
	for (i = 0; i < 20; i++)
		node_add(a, 1400);
	EXPECT_TRUE(sim_run(s, s->now + UNIT_SEC(60)));
	ASSERT_EQ(1, a->failed);
	EXPECT_EQ(MPDT_SB_PROBE_ROUNDS * 20,
		  a->stats[MPDT_STAT_RETX_PROBE]);
	EXPECT_EQ(s->p.max_retries + 1, a->stats[MPDT_STAT_RTO]);
	TH_LOG("%llu probes, %llu resends, %llu dropped by the closed peer",
	       a->eng.probes, a->tx_retx, b->stats[MPDT_STAT_DROP_NO_SOCKET]);
	EXPECT_GE(MPDT_SB_PROBE_ROUNDS * 20 + s->p.max_retries + 1,
		  a->tx_retx);
	EXPECT_EQ(1, b->delivered);
	sim_free(s);
}

/* A switch trims a packet: the receiver NACKs it at once. */
TEST(loss_by_nack_trimmed)
{
	struct sim *s = loss_sim("ecmp", 5, 1400, 23);
	struct node *a = &s->n[0], *b = &s->n[1];
	struct report rep;
	bool drained;

	s->link[0].hit_psn = 2;
	s->link[0].hit_fate = FATE_TRIM;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 0, 0, 0, 1, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_TRIMMED]);
	EXPECT_EQ(1, b->eng.nacks_sent);
	EXPECT_EQ(1, a->eng.nacks_rcvd);
	EXPECT_EQ(1, a->tx_retx);
	sim_free(s);
}

/* The receiver has no room for a message: NACK NO_BUFFER, and the sender
 * pauses for an RTO before it resends (then there is room).
 */
TEST(loss_by_nack_no_buffer_pauses)
{
	struct sim *s = loss_sim("ecmp", 10, 1400, 24);
	struct node *a = &s->n[0], *b = &s->n[1];
	struct report rep;
	bool drained;

	b->refuse_id = 3;
	b->refuse_left = 1;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 0, 0, 0, 1, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_NO_BUFFER]);
	EXPECT_EQ(1, b->eng.nacks_sent);
	EXPECT_EQ(1, a->stats[MPDT_STAT_RX_NACK]);
	EXPECT_EQ(1, a->tx_retx);
	EXPECT_EQ(a->last_at[MPDT_STAT_RX_NACK] + UNIT_US(s->p.rto_min_us),
		  a->first_retx_at);
	EXPECT_EQ(0, a->stats[MPDT_STAT_RTO]);
	sim_free(s);
}

/* A receiver full for a while: the first packets it NACKs NO_BUFFER, then
 * after each pause the sender tests it with one packet, not with all it
 * has to resend, until it takes one; then the rest goes at once.
 */
TEST(a_full_receiver_is_tested_one_packet_at_a_time)
{
	struct sim *s = loss_sim("ecmp", 1, 16 * 1400, 28);
	struct node *a = &s->n[0], *b = &s->n[1];
	u64 rto = UNIT_US(s->p.rto_min_us);
	struct report rep;
	bool drained;

	b->full_until = T0 + 3 * rto + rto / 2;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 0, 0, 0,
					b->stats[MPDT_STAT_DROP_NO_BUFFER],
					&rep)) {
		log_run(_metadata, s);
	}
	/* The 10 packets of the first window, then one at each of the
	 * three pauses that end while it is full (at 10, 20 and 30 ms):
	 * resending all ten after each pause had 40 refused.
	 */
	EXPECT_EQ(10 + 3, b->stats[MPDT_STAT_DROP_NO_BUFFER]);
	EXPECT_EQ(10 + 3, b->eng.nacks_sent);
	/* Its room found by the first test after it came, the rest in one
	 * round trip more.
	 */
	EXPECT_LT(a->last_at[MPDT_STAT_MSG_ACKED], b->full_until + rto);
	EXPECT_EQ(0, a->stats[MPDT_STAT_RTO]);
	EXPECT_EQ(1, b->delivered);
	sim_free(s);
}

/* A receiver's SACKs say how long a message it has room for (its
 * rx_room()): a message longer than what is left of that starts with its
 * first packet alone, asking for a SACK, and the rest waits for that
 * SACK, which tells whether the receiver admitted the message.
 */
TEST(a_message_the_receiver_lacks_room_for_starts_with_one_packet)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, &stub_lb, &stub_cc, 1);
	struct node *a = &s->n[0], *b = &s->n[1];
	const struct cap_pkt *sack, *data;
	u32 i, sent;

	a->capture = true;
	b->capture = true;
	b->room = 20 << 10;
	node_add(a, 1000);
	node_pump(a);
	ASSERT_EQ(1, a->tx_new);
	s->now += UNIT_US(50);
	cap_inject(s, 1, &a->cap[0]);
	sack = last_cap(b, MPDT_T_SACK);
	ASSERT_NE(NULL, sack);
	EXPECT_TRUE(sack->pkt.sack.room_said);
	EXPECT_EQ(20 << 10, sack->pkt.sack.room);
	s->now += UNIT_US(50);
	cap_inject(s, 0, sack);

	/* 16 KiB fits in the 20 KiB said, 22400 bytes more do not. */
	node_add(a, 16 << 10);
	node_add(a, 16 * 1400);
	node_pump(a);
	sent = 1 + DIV_ROUND_UP(16 << 10, 1400);
	ASSERT_EQ(sent + 1, a->tx_new);
	data = last_cap(a, MPDT_T_DATA);
	EXPECT_EQ(2, data->pkt.data.msg_id);
	EXPECT_EQ(0, data->pkt.data.offset);
	EXPECT_TRUE(data->pkt.hdr.flags & MPDT_F_AR);

	/* B took it: the rest of the message goes. */
	s->now += UNIT_US(50);
	for (i = 1; i < a->ncap; i++)
		if (a->cap[i].pkt.hdr.type == MPDT_T_DATA)
			cap_inject(s, 1, &a->cap[i]);
	s->now += UNIT_US(50);
	cap_inject(s, 0, last_cap(b, MPDT_T_SACK));
	EXPECT_EQ(sent + 16, a->tx_new);
	EXPECT_EQ(0, b->stats[MPDT_STAT_DROP_NO_BUFFER]);
	sim_free(s);
}

/* The same when the receiver admitted the message but cannot store one
 * packet's bytes: the claim is undone, so the resend is placed.
 *
 * Here the SACK that advances EPSN past the two packets before the NACKed
 * one arrives after the NACK (the RTO clock then is checked by
 * no_buffer_pause_holds_the_rto_clock below).
 */
TEST(loss_by_nack_no_buffer_when_placing)
{
	struct sim *s = loss_sim("ecmp", 1, 5 * 1400, 25);
	struct node *a = &s->n[0], *b = &s->n[1];
	struct report rep;
	bool drained;

	b->place_fail_id = 0;
	b->place_fail_off = 2 * 1400;
	b->place_fail_left = 1;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 0, 0,
					a->stats[MPDT_STAT_RETX_RTO], 1,
					&rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_NO_BUFFER]);
	EXPECT_EQ(1, b->admitted);
	EXPECT_EQ(1, b->eng.nacks_sent);
	EXPECT_EQ(a->last_at[MPDT_STAT_RX_NACK] + UNIT_US(s->p.rto_min_us),
		  a->first_retx_at);
	sim_free(s);
}

/* A NO_BUFFER pause restarts the RTO clock at its end (on_nack(): "The RTO
 * clock restarts when the pause ends, not before"): nothing is resent
 * before then, so nothing can be acknowledged.  A SACK that arrives
 * during the pause and advances EPSN must not start the clock earlier:
 * the RTO would fire just after the repair went out, a spurious timeout
 * with the window collapsed and the repair sent twice.
 */
TEST(no_buffer_pause_holds_the_rto_clock)
{
	struct sim *s = loss_sim("ecmp", 1, 5 * 1400, 27);
	struct node *a = &s->n[0], *b = &s->n[1];
	u64 pause_end;
	bool drained;

	/* PSN 2 is NACKed; the SACK for PSNs 0, 1 (3, 4) comes after. */
	b->place_fail_id = 0;
	b->place_fail_off = 2 * 1400;
	b->place_fail_left = 1;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	ASSERT_TRUE(drained);
	ASSERT_EQ(1, a->stats[MPDT_STAT_RX_NACK]);
	ASSERT_LT(a->first_at[MPDT_STAT_RX_NACK],
		  a->first_at[MPDT_STAT_RX_SACK]);
	pause_end = a->last_at[MPDT_STAT_RX_NACK] + UNIT_US(s->p.rto_min_us);
	EXPECT_EQ(pause_end, a->first_retx_at);
	EXPECT_EQ(1, a->msgs[0]->delivered);
	EXPECT_EQ(0, a->stats[MPDT_STAT_RTO]);
	EXPECT_EQ(0, a->stats[MPDT_STAT_RETX_RTO]);
	EXPECT_EQ(1, a->tx_retx);
	sim_free(s);
}

/* ParaLet: a packet lost inside a flowlet (which keeps to one path, so to
 * order) is NACKed as soon as its flowlet successor arrives (paralet.txt
 * §3); gaps between flowlets, on paths of different delays, are not.
 */
TEST(loss_by_flowlet_gap_nack)
{
	struct sim *s = loss_sim("paralet", 200, 1400, 26);
	struct node *a = &s->n[0], *b = &s->n[1];
	struct report rep;
	bool drained;

	s->link[0].spread_ns = UNIT_US(20);
	s->link[1].spread_ns = UNIT_US(20);
	/* 41 and 42 leave as one burst (burst-pkts), so on one flowlet. */
	s->link[0].hit_psn = 41;
	s->link[0].hit_fate = FATE_DROP;
	drained = sim_run(s, T0 + UNIT_SEC(10));
	EXPECT_STREQ("", check_recovery(s, drained, 0, 0, 0, 1, &rep)) {
		log_run(_metadata, s);
	}
	EXPECT_EQ(1, b->stats[MPDT_STAT_RX_REORDERED]);
	EXPECT_EQ(1, b->eng.nacks_sent);
	EXPECT_EQ(1, a->tx_retx);
	sim_free(s);
}

/* ---- 4. A vanished peer ------------------------------------------------- */

FIXTURE(vanish) {
	struct sim *s;
};

FIXTURE_VARIANT(vanish) {
	u32 rto_max_us;
	u32 max_retries;
};

FIXTURE_VARIANT_ADD(vanish, module_defaults) {
	.rto_max_us = 1000000, .max_retries = 8,
};

FIXTURE_VARIANT_ADD(vanish, few_short_retries) {
	.rto_max_us = 50000, .max_retries = 3,
};

FIXTURE_SETUP(vanish)
{
	self->s = NULL;
}

FIXTURE_TEARDOWN(vanish)
{
	if (self->s)
		sim_free(self->s);
}

/* The peer vanishes mid-transfer: after max_retries + 1 timeouts in a
 * row, each at most rto_max, the sender fails the connection and hands
 * back every message.  When the peer is back, the next message starts a
 * new incarnation that gets through.
 */
TEST_F(vanish, fails_in_bounded_time_and_restarts)
{
	struct mpdt_params p = default_params();
	u64 dead = T0 + UNIT_MS(1), bound, least, xmits, rto, sched = 0;
	struct node *a, *b;
	struct sim *s;
	u32 i, acked = 0, lost = 0;
	u32 old_nonce;

	p.rto_max_us = variant->rto_max_us;
	p.max_retries = variant->max_retries;
	ASSERT_EQ(NULL, mpdt_params_invalid(&p));
	s = sim_new(&p, mpdt_lb_find("reps"), mpdt_cc_find("strack"), 30);
	self->s = s;
	a = &s->n[0];
	b = &s->n[1];
	for (i = 0; i < 200; i++)
		node_add(a, 10 * 1400);
	a->stop_on_fail = true;
	s->link[0].down_from = dead;
	s->link[0].down_to = U64_MAX;
	s->link[1].down_from = dead;
	s->link[1].down_to = U64_MAX;

	/* Each RTO waits at least rto_min and at most rto_max; the last
	 * SACK may still be on its way when the link dies.
	 */
	bound = (p.max_retries + 1ULL) * UNIT_US(p.rto_max_us) + UNIT_MS(1);
	least = (p.max_retries + 1ULL) * UNIT_US(p.rto_min_us);
	/* With an RTT far below rto_min, the RTO is rto_min, doubled after
	 * each timeout up to rto_max.
	 */
	for (i = 0, rto = UNIT_US(p.rto_min_us); i <= p.max_retries; i++) {
		sched += rto < UNIT_US(p.rto_max_us) ? rto :
						       UNIT_US(p.rto_max_us);
		rto *= 2;
	}
	EXPECT_TRUE(sim_run(s, dead + bound + UNIT_SEC(60)));
	ASSERT_EQ(1, a->failed);
	TH_LOG("failed %llu us after the link died; bound %llu us",
	       (a->failed_at - dead) / 1000, bound / 1000);
	EXPECT_GE(bound, a->failed_at - dead);
	EXPECT_LE(least, a->failed_at - dead);
	EXPECT_GE(sched + UNIT_MS(1), a->failed_at - dead);
	EXPECT_LE(sched - UNIT_MS(1), a->failed_at - dead);
	EXPECT_EQ(MPDT_ENG_FAILED, a->eng.state);
	EXPECT_EQ(1, a->stats[MPDT_STAT_CONN_FAILED]);
	EXPECT_EQ(p.max_retries + 1, a->stats[MPDT_STAT_RTO]);
	EXPECT_EQ(200, a->next);
	EXPECT_EQ(200, a->released);
	EXPECT_TRUE(list_empty(&a->eng.tx_msgs));
	EXPECT_EQ(0, a->eng.msgs_inflight);
	EXPECT_TRUE(mpdt_eng_needs_start(&a->eng, s->now));
	for (i = 0; i < 200; i++) {
		const struct tmsg *t = a->msgs[i];

		/* Acknowledged means delivered; nothing twice. */
		EXPECT_TRUE(t->released);
		EXPECT_TRUE(!t->acked || t->delivered == 1);
		EXPECT_GE(1, t->delivered);
		acked += t->acked;
		lost += !t->acked;
	}
	EXPECT_LT(0, acked);
	EXPECT_LT(0, lost);
	EXPECT_EQ(acked, a->released_acked);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	/* Failed means silent. */
	xmits = a->tx[MPDT_T_DATA] + a->tx[MPDT_T_PROBE];
	s->now += UNIT_SEC(10);
	EXPECT_TRUE(sim_run(s, s->now));
	EXPECT_EQ(xmits, a->tx[MPDT_T_DATA] + a->tx[MPDT_T_PROBE]);

	/* The peer is back: a new incarnation, which B adopts (the old one
	 * has been quiet long enough) with its partial messages dropped.
	 */
	s->link[0].down_to = s->now;
	s->link[1].down_to = s->now;
	old_nonce = a->eng.nonce;
	a->stop_on_fail = false;
	for (i = 0; i < 20; i++)
		node_add(a, 3000);
	EXPECT_TRUE(sim_run(s, s->now + UNIT_SEC(10)));
	EXPECT_EQ(2, a->incarnations);
	EXPECT_NE(old_nonce, a->eng.nonce);
	EXPECT_EQ(MPDT_ENG_ACTIVE, a->eng.state);
	for (i = 200; i < 220; i++) {
		EXPECT_EQ(1, a->msgs[i]->delivered);
		EXPECT_TRUE(a->msgs[i]->acked);
	}
	EXPECT_EQ(a->nonce_base + 2, b->eng.rx_nonce);
	EXPECT_EQ(0, b->eng.rx_partial);
	EXPECT_EQ(NULL, b->partial);
	EXPECT_EQ(0, b->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* ---- 5. The receiving half's rules ------------------------------------ */

/* Packet @k of A's message @t, as incarnation @nonce sends it at @psn,
 * handed to B now (A's engine plays no part), CE-marked if @ce.
 */
static void send_to_b_ce(struct sim *s, u32 nonce, u32 psn,
			 const struct tmsg *t, u32 k, u16 flags, bool ce)
{
	struct mpdt_pkt pkt = unit_pkt(MPDT_T_DATA, flags);
	u32 off = k * t->m.mss;

	pkt.hdr.src_port = PORT_A;
	pkt.hdr.dst_port = PORT_B;
	pkt.hdr.nonce = nonce;
	pkt.data.psn = psn;
	pkt.data.msg_id = t->idx;
	pkt.data.offset = off;
	pkt.data.msg_len = t->m.len;
	pkt.data.ts = s->now;
	pkt.data.payload_len = min(t->m.mss, t->m.len - off);
	pkt.data.prev_psn = psn;
	sim_inject(s, 1, &pkt, t->data + off, pkt.data.payload_len, ce);
}

static void send_to_b(struct sim *s, u32 nonce, u32 psn, const struct tmsg *t,
		      u32 k, u16 flags)
{
	send_to_b_ce(s, nonce, psn, t, k, flags, false);
}

static void probe_b(struct sim *s, u32 nonce)
{
	struct mpdt_pkt pkt = unit_probe_pkt(0);

	pkt.hdr.src_port = PORT_A;
	pkt.hdr.dst_port = PORT_B;
	pkt.hdr.nonce = nonce;
	pkt.probe.ts = s->now;
	sim_inject(s, 1, &pkt, NULL, 0, false);
}

/* Sections 5 and 11 of wire-format.rst: an off-path attacker who knows
 * A's address keeps a made-up incarnation of A live at B, one spoofed
 * PROBE per quiet time.  A, idle for its quiet time, starts a new
 * incarnation with its next messages: B challenges it, A returns the
 * cookie once, and B takes it a round trip later, instead of refusing it
 * for as long as the spoofing goes on.  The made-up nonce is then stale.
 */
TEST(proven_incarnation_replaces_a_spoofed_one)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("ecmp"),
				mpdt_cc_find("strack"), 14);
	struct node *a = &s->n[0], *b = &s->n[1];
	u64 quiet = mpdt_eng_quiet_ns(&p), start;
	const u32 fake = 0x5bad5bad;
	u32 i;

	node_add(a, 2000);
	ASSERT_TRUE(sim_run(s, T0 + UNIT_SEC(1)));
	ASSERT_EQ(1, a->msgs[0]->delivered);
	s->now += quiet;
	probe_b(s, fake);
	ASSERT_EQ(fake, b->eng.rx_nonce);
	s->now += quiet - UNIT_MS(1);
	probe_b(s, fake);
	ASSERT_TRUE(sim_run(s, s->now + UNIT_MS(1)));
	ASSERT_TRUE(mpdt_eng_needs_start(&a->eng, s->now));

	start = s->now;
	for (i = 0; i < 10; i++)
		node_add(a, 3000);
	ASSERT_TRUE(sim_run(s, start + quiet / 2));
	TH_LOG("done %llu us after the first message, %llu challenges",
	       (s->now - start) / 1000, b->stats[MPDT_STAT_TX_CHALLENGE]);
	for (i = 1; i <= 10; i++) {
		EXPECT_EQ(1, a->msgs[i]->delivered);
		EXPECT_TRUE(a->msgs[i]->acked);
	}
	EXPECT_EQ(2, a->incarnations);
	EXPECT_EQ(a->eng.nonce, b->eng.rx_nonce);
	EXPECT_LT(1, b->stats[MPDT_STAT_TX_CHALLENGE]);
	EXPECT_EQ(b->stats[MPDT_STAT_DROP_NEW_NONCE],
		  b->stats[MPDT_STAT_TX_CHALLENGE]);
	EXPECT_EQ(1, b->stats[MPDT_STAT_RX_NONCE_PROVEN]);
	EXPECT_EQ(1, a->cookie_probes);
	EXPECT_EQ(0, a->stats[MPDT_STAT_CONN_FAILED]);

	probe_b(s, fake);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_STALE_NONCE]);
	EXPECT_EQ(a->eng.nonce, b->eng.rx_nonce);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

/* A challenge is answered only for the sender's own incarnation and a
 * packet in flight, once per round trip, whatever its cookie: a window of
 * refused DATA draws a challenge each.  It is no loss or congestion
 * signal, and not the peer heard.
 */
TEST(challenge_is_answered_once_per_round_trip)
{
	struct mpdt_params p = default_params();
	struct sim *s = sim_new(&p, mpdt_lb_find("ecmp"),
				mpdt_cc_find("strack"), 15);
	struct node *a = &s->n[0];
	struct mpdt_pkt ch = unit_nack_pkt(0, MPDT_NACK_CHALLENGE, 0);
	const struct cap_pkt *probe;
	u64 heard;
	u32 i, cwnd;

	a->capture = true;
	for (i = 0; i < 4; i++)
		node_add(a, 1000);
	sim_run(s, s->now);
	ASSERT_EQ(4, a->tx[MPDT_T_DATA]);
	cwnd = a->eng.cc.cwnd;
	heard = a->eng.heard_ns;
	ch.hdr.src_port = PORT_B;
	ch.hdr.dst_port = PORT_A;
	ch.hdr.nonce = a->eng.nonce ^ 1;
	ch.nack.cookie = 0xc00c1e;
	sim_inject(s, 0, &ch, NULL, 0, false);
	EXPECT_EQ(1, a->stats[MPDT_STAT_DROP_STALE_NONCE]);
	ch.hdr.nonce = a->eng.nonce;
	ch.nack.psn = 4;
	sim_inject(s, 0, &ch, NULL, 0, false);
	EXPECT_EQ(1, a->stats[MPDT_STAT_DROP_BOGUS_ACK]);
	EXPECT_EQ(0, a->cookie_probes);

	ch.nack.psn = 3;
	sim_inject(s, 0, &ch, NULL, 0, false);
	ASSERT_EQ(1, a->cookie_probes);
	probe = last_cap(a, MPDT_T_PROBE);
	EXPECT_EQ(MPDT_F_COOKIE, probe->pkt.hdr.flags);
	EXPECT_EQ(a->eng.nonce, probe->pkt.hdr.nonce);
	EXPECT_EQ(0xc00c1eULL, probe->pkt.probe.cookie);
	EXPECT_EQ(0U, probe->pkt.probe.sack_base);
	ch.nack.psn = 2;
	sim_inject(s, 0, &ch, NULL, 0, false);
	ch.nack.cookie++;
	sim_inject(s, 0, &ch, NULL, 0, false);
	EXPECT_EQ(1, a->cookie_probes);
	/* A round trip later (no sample yet: far more than the base RTT). */
	s->now += UNIT_SEC(1);
	sim_inject(s, 0, &ch, NULL, 0, false);
	EXPECT_EQ(2, a->cookie_probes);
	EXPECT_EQ(ch.nack.cookie, last_cap(a, MPDT_T_PROBE)->pkt.probe.cookie);
	EXPECT_EQ(4, a->tx[MPDT_T_DATA]);
	EXPECT_EQ(0, a->eng.nacks_rcvd);
	EXPECT_EQ(cwnd, a->eng.cc.cwnd);
	EXPECT_EQ(heard, a->eng.heard_ns);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
	sim_free(s);
}

FIXTURE(rx) {
	struct mpdt_params p;
	struct sim *s;
	struct node *b;
	struct tmsg *one[4];	/* single-packet messages 0-3 */
	struct tmsg *two[4];	/* two-packet messages 4-7 */
};

FIXTURE_SETUP(rx)
{
	u32 i;

	self->p = default_params();
	self->s = sim_new(&self->p, mpdt_lb_find("ecmp"),
			  mpdt_cc_find("fixed"), 40);
	self->b = &self->s->n[1];
	self->s->n[0].capture = true;
	self->b->capture = true;
	for (i = 0; i < 4; i++)
		self->one[i] = node_add(&self->s->n[0], 1000 + i);
	for (i = 0; i < 4; i++)
		self->two[i] = node_add(&self->s->n[0], 2000 + i);
}

FIXTURE_TEARDOWN(rx)
{
	sim_free(self->s);
}

/* A duplicate is counted and never delivered again; it is answered only
 * when the sender asked (a retransmission or an ack request).
 */
TEST_F(rx, duplicate_data_counted_not_delivered)
{
	struct sim *s = self->s;
	struct node *b = self->b;

	send_to_b(s, 7, 0, self->one[0], 0, MPDT_F_AR);
	EXPECT_EQ(1, self->one[0]->delivered);
	EXPECT_EQ(1, b->tx[MPDT_T_SACK]);
	send_to_b(s, 7, 0, self->one[0], 0, 0);
	EXPECT_EQ(1, b->stats[MPDT_STAT_RX_DUP_DATA]);
	EXPECT_EQ(1, b->tx[MPDT_T_SACK]);
	send_to_b(s, 7, 0, self->one[0], 0, MPDT_F_RETX);
	EXPECT_EQ(2, b->stats[MPDT_STAT_RX_DUP_DATA]);
	EXPECT_EQ(2, b->tx[MPDT_T_SACK]);
	EXPECT_EQ(1, last_cap(b, MPDT_T_SACK)->pkt.sack.epsn);

	/* Within a message: the first half twice, then the second. */
	send_to_b(s, 7, 1, self->two[0], 0, 0);
	send_to_b(s, 7, 1, self->two[0], 0, 0);
	EXPECT_EQ(3, b->stats[MPDT_STAT_RX_DUP_DATA]);
	EXPECT_EQ(1, b->eng.rx_partial);
	send_to_b(s, 7, 2, self->two[0], 1, 0);
	EXPECT_EQ(1, self->two[0]->delivered);
	EXPECT_EQ(0, b->eng.rx_partial);
	EXPECT_EQ(2, b->stats[MPDT_STAT_MSG_RX]);
	EXPECT_EQ(6, b->stats[MPDT_STAT_RX_DATA]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* The packets of a burst came in together: what they make due, SACKs
 * at every packet here, is one SACK after the last, echoing its time and
 * any CE mark; a burst that makes nothing due sends none.
 */
TEST_F(rx, a_burst_is_acknowledged_once)
{
	struct sim *s = self->s;
	struct node *b = self->b;
	const struct cap_pkt *sack;
	u32 i;

	s->p.ack_bytes = 1;
	send_to_b(s, 7, 0, self->one[0], 0, 0);
	EXPECT_EQ(1, b->tx[MPDT_T_SACK]);
	mpdt_eng_hold_acks(&b->eng);
	for (i = 1; i < 4; i++) {
		s->now += UNIT_US(1);
		send_to_b_ce(s, 7, i, self->one[i], 0, 0, i == 2);
	}
	EXPECT_EQ(1, b->tx[MPDT_T_SACK]);
	mpdt_eng_release_acks(&b->eng);
	ASSERT_EQ(2, b->tx[MPDT_T_SACK]);
	sack = last_cap(b, MPDT_T_SACK);
	EXPECT_EQ(4, sack->pkt.sack.epsn);
	EXPECT_EQ(s->now, sack->pkt.sack.echo_ts);
	EXPECT_EQ(1, sack->pkt.sack.ce_count);
	EXPECT_TRUE(sack->pkt.hdr.flags & MPDT_F_CE);

	s->p.ack_bytes = 1 << 20;
	mpdt_eng_hold_acks(&b->eng);
	send_to_b(s, 7, 4, self->two[0], 0, 0);
	mpdt_eng_release_acks(&b->eng);
	EXPECT_EQ(2, b->tx[MPDT_T_SACK]);
	/* Not held: the ack request is answered at once. */
	send_to_b(s, 7, 5, self->two[0], 1, MPDT_F_AR);
	EXPECT_EQ(3, b->tx[MPDT_T_SACK]);
	EXPECT_FALSE(last_cap(b, MPDT_T_SACK)->pkt.hdr.flags & MPDT_F_CE);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* However the peer picks its Message IDs, it has at most
 * MPDT_ENG_RX_PARTIAL_MAX messages being assembled: the next one's packet
 * is NACKed NO_BUFFER (drop_peer_quota), and admitted once one completes.
 */
TEST_F(rx, partial_messages_per_peer_are_bounded)
{
	const u32 max = MPDT_ENG_RX_PARTIAL_MAX;
	struct sim *s = self->s;
	struct node *b = self->b;
	struct tmsg *next;
	u32 i, admitted = b->admitted;

	for (i = 0; i < max; i++)
		send_to_b(s, 7, i, node_add(&s->n[0], 2 * s->p.payload), 0, 0);
	EXPECT_EQ(max, b->eng.rx_partial);
	EXPECT_EQ(max, b->admitted - admitted);
	EXPECT_EQ(0, b->stats[MPDT_STAT_DROP_PEER_QUOTA]);

	next = node_add(&s->n[0], 2 * s->p.payload);
	send_to_b(s, 7, max, next, 0, 0);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_PEER_QUOTA]);
	EXPECT_EQ(max, b->admitted - admitted);
	ASSERT_EQ(1, b->tx[MPDT_T_NACK]);
	EXPECT_EQ(MPDT_NACK_NO_BUFFER, last_cap(b, MPDT_T_NACK)->pkt.nack.code);
	EXPECT_EQ(max, last_cap(b, MPDT_T_NACK)->pkt.nack.psn);

	/* The first message completes: the refused one is admitted. */
	send_to_b(s, 7, max + 1, s->n[0].msgs[s->n[0].nmsgs - max - 1], 1, 0);
	EXPECT_EQ(max - 1, b->eng.rx_partial);
	send_to_b(s, 7, max, next, 0, MPDT_F_RETX);
	EXPECT_EQ(max, b->eng.rx_partial);
	EXPECT_EQ(max + 1, b->admitted - admitted);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_PEER_QUOTA]);
	EXPECT_EQ(1, b->tx[MPDT_T_NACK]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* A new nonce while the old incarnation is live is a blind packet: it is
 * refused until the old one has been quiet for the quiet time (2 rto_max),
 * then adopted, dropping the old one's partial messages; the old nonce is
 * refused from then on.
 */
TEST_F(rx, new_nonce_refused_while_old_is_live)
{
	u64 quiet = mpdt_eng_quiet_ns(&self->s->p), t1;
	struct sim *s = self->s;
	struct node *b = self->b;

	EXPECT_EQ(2 * UNIT_US(s->p.rto_max_us), quiet);
	send_to_b(s, 7, 0, self->two[0], 0, 0);
	t1 = s->now;
	EXPECT_EQ(1, b->eng.rx_partial);
	EXPECT_TRUE(mpdt_eng_peer_may_wait(&b->eng, s->now));

	s->now = t1 + quiet - 1;
	EXPECT_TRUE(mpdt_eng_peer_may_wait(&b->eng, s->now));
	send_to_b(s, 8, 0, self->one[0], 0, MPDT_F_AR);
	probe_b(s, 8);
	EXPECT_EQ(2, b->stats[MPDT_STAT_DROP_NEW_NONCE]);
	/* Each is challenged, not answered (the proof: a test above). */
	EXPECT_EQ(2, b->ncap);
	EXPECT_EQ(2, b->stats[MPDT_STAT_TX_CHALLENGE]);
	EXPECT_EQ(MPDT_NACK_CHALLENGE,
		  last_cap(b, MPDT_T_NACK)->pkt.nack.code);
	EXPECT_EQ(0, b->tx[MPDT_T_SACK]);
	EXPECT_EQ(7, b->eng.rx_nonce);
	EXPECT_EQ(1, b->eng.rx_partial);
	EXPECT_EQ(0, self->one[0]->delivered);

	s->now = t1 + quiet;
	EXPECT_FALSE(mpdt_eng_peer_may_wait(&b->eng, s->now));
	send_to_b(s, 8, 0, self->one[0], 0, MPDT_F_AR);
	EXPECT_EQ(2, b->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(8, b->eng.rx_nonce);
	EXPECT_EQ(1, self->one[0]->delivered);
	EXPECT_EQ(1, b->forgets);
	EXPECT_EQ(1, b->forgotten);
	EXPECT_EQ(0, b->eng.rx_partial);
	EXPECT_EQ(1, b->tx[MPDT_T_SACK]);

	/* The old incarnation's second half finds nothing. */
	send_to_b(s, 7, 1, self->two[0], 1, MPDT_F_AR);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_STALE_NONCE]);
	EXPECT_EQ(0, self->two[0]->delivered);
	EXPECT_EQ(1, b->tx[MPDT_T_SACK]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* The glue may stamp a DATA or PROBE with the last tick's time, behind a
 * SACK's stamped just before (input.c): the heard times keep the later.
 */
TEST_F(rx, heard_times_never_move_back)
{
	struct sim *s = self->s;
	struct node *b = self->b;
	u64 t1;

	s->now += UNIT_SEC(1);
	send_to_b(s, 7, 0, self->one[0], 0, 0);
	t1 = s->now;
	s->now = t1 - UNIT_US(4000);
	send_to_b(s, 7, 1, self->one[1], 0, 0);
	probe_b(s, 7);
	EXPECT_EQ(2, self->one[0]->delivered + self->one[1]->delivered);
	EXPECT_EQ(t1, b->eng.heard_ns);
	EXPECT_EQ(t1, b->eng.rx_heard_ns);
	s->now = t1 + 1;
	send_to_b(s, 7, 2, self->one[2], 0, 0);
	EXPECT_EQ(t1 + 1, b->eng.heard_ns);
	EXPECT_EQ(t1 + 1, b->eng.rx_heard_ns);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* Partial messages outlive a silent incarnation for the reassembly
 * timeout: (max_retries + 2) rto_max, at least 10 s.  Then they go, all
 * counted in one RX_MSG_EXPIRED, and the incarnation is retired: its
 * packets are refused, a new one is adopted at once.
 */
static void expire_after(struct __test_metadata *_metadata,
			 struct _test_data_rx *self, u64 timeout)
{
	struct sim *s = self->s;
	struct node *b = self->b;
	u64 t1;
	u32 i;

	/* Silence without partial messages expires nothing. */
	send_to_b(s, 7, 0, self->one[0], 0, 0);
	EXPECT_FALSE(mpdt_eng_rx_expire(&b->eng, s->now + 10 * timeout));
	for (i = 0; i < 3; i++)
		send_to_b(s, 7, 1 + i, self->two[i], 0, 0);
	EXPECT_EQ(3, b->eng.rx_partial);
	/* A probe is a sign of life too. */
	s->now += UNIT_SEC(1);
	probe_b(s, 7);
	t1 = s->now;
	EXPECT_FALSE(mpdt_eng_rx_expire(&b->eng, t1 + timeout - 1));
	EXPECT_EQ(0, b->count_calls[MPDT_STAT_RX_MSG_EXPIRED]);
	EXPECT_EQ(3, b->eng.rx_partial);
	s->now = t1 + timeout;
	EXPECT_TRUE(mpdt_eng_rx_expire(&b->eng, s->now));
	EXPECT_EQ(1, b->count_calls[MPDT_STAT_RX_MSG_EXPIRED]);
	EXPECT_EQ(3, b->last_n[MPDT_STAT_RX_MSG_EXPIRED]);
	EXPECT_EQ(3, b->stats[MPDT_STAT_RX_MSG_EXPIRED]);
	EXPECT_EQ(3, b->forgotten);
	EXPECT_EQ(0, b->eng.rx_partial);
	EXPECT_FALSE(mpdt_eng_rx_expire(&b->eng, s->now + timeout));

	send_to_b(s, 7, 4, self->two[0], 1, MPDT_F_AR);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_STALE_NONCE]);
	EXPECT_EQ(0, self->two[0]->delivered);
	send_to_b(s, 9, 0, self->one[1], 0, MPDT_F_AR);
	EXPECT_EQ(1, self->one[1]->delivered);
	EXPECT_EQ(9, b->eng.rx_nonce);
	EXPECT_EQ(0, b->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* The engine reads the parameters live (the netns's): set the sim's. */
TEST_F(rx, expire_after_max_retries_plus_two_rto_max)
{
	self->s->p.rto_max_us = 2000000;
	ASSERT_EQ(NULL, mpdt_params_invalid(&self->s->p));
	expire_after(_metadata, self, 10 * UNIT_SEC(2));
}

TEST_F(rx, expire_after_ten_seconds_at_least)
{
	self->s->p.rto_max_us = 100000;
	ASSERT_EQ(NULL, mpdt_params_invalid(&self->s->p));
	expire_after(_metadata, self, UNIT_SEC(10));
}

/* A partial message lags once it is behind its whole length per
 * reassembly time (10 s by default), counted from a quiet time (2 s)
 * after its admission whatever was heard since, and never by more than
 * it misses.  Eviction drops
 * every partial message of the incarnation, counted in one
 * RX_MSG_EVICTED, and retires it: its packets are refused, and the peer
 * was heard just now, so a new incarnation waits for the quiet time.
 */
TEST_F(rx, lag_is_length_per_reassembly_time_and_eviction_retires)
{
	struct sim *s = self->s;
	struct node *b = self->b;
	u32 pl = s->p.payload;
	struct tmsg *big = node_add(&s->n[0], 10 * pl);
	u64 span = mpdt_eng_reassembly_ns(&s->p);
	u64 t0 = s->now + mpdt_eng_quiet_ns(&s->p);
	struct mpdt_reasm *ra;

	ASSERT_EQ(UNIT_SEC(10), span);
	ASSERT_EQ(UNIT_SEC(2), t0 - s->now);
	send_to_b(s, 7, 0, big, 0, 0);
	ra = op_rx_find(&b->eng, big->idx);
	ASSERT_NE(NULL, ra);
	EXPECT_EQ(s->now, ra->started_ns);
	EXPECT_EQ(0, mpdt_eng_rx_lag(&b->eng, ra, t0));
	EXPECT_EQ(0, mpdt_eng_rx_lag(&b->eng, ra, t0 + span / 10));
	EXPECT_EQ(pl, mpdt_eng_rx_lag(&b->eng, ra, t0 + span / 5));
	/* A probe says the sender is there, not that the message moves. */
	s->now = t0 + span / 2;
	probe_b(s, 7);
	EXPECT_EQ(4 * pl, mpdt_eng_rx_lag(&b->eng, ra, s->now));
	send_to_b(s, 7, 1, big, 1, 0);
	EXPECT_EQ(3 * pl, mpdt_eng_rx_lag(&b->eng, ra, s->now));
	EXPECT_EQ(8 * pl, mpdt_eng_rx_lag(&b->eng, ra, t0 + 10 * span));
	send_to_b(s, 7, 2, self->two[0], 0, 0);
	EXPECT_EQ(2, b->eng.rx_partial);

	mpdt_eng_rx_evict(&b->eng);
	EXPECT_EQ(1, b->count_calls[MPDT_STAT_RX_MSG_EVICTED]);
	EXPECT_EQ(2, b->stats[MPDT_STAT_RX_MSG_EVICTED]);
	EXPECT_EQ(2, b->forgotten);
	EXPECT_EQ(0, b->eng.rx_partial);
	send_to_b(s, 7, 3, big, 2, MPDT_F_AR);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_STALE_NONCE]);
	send_to_b(s, 9, 0, self->one[0], 0, MPDT_F_AR);
	EXPECT_EQ(1, b->stats[MPDT_STAT_DROP_NEW_NONCE]);
	EXPECT_EQ(0, self->one[0]->delivered);
	s->now += mpdt_eng_quiet_ns(&s->p);
	send_to_b(s, 9, 0, self->one[0], 0, MPDT_F_AR);
	EXPECT_EQ(1, self->one[0]->delivered);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

/* A closed socket's connection (wire-format.rst 8.2) answers, for the
 * incarnation it knows, a DATA it already holds and a PROBE; it drops
 * everything else, and its own messages went back to the application.
 */
TEST_F(rx, time_wait_answers_duplicates_and_probes_only)
{
	struct sim *s = self->s;
	struct node *b = self->b;
	const struct cap_pkt *c;
	struct mpdt_sack sk;
	struct mpdt_pkt pkt;
	u32 ncap;

	send_to_b(s, 7, 0, self->one[0], 0, 0);
	send_to_b(s, 7, 1, self->two[0], 0, 0);
	/* B's own sending half has two messages out. */
	node_add(b, 500);
	node_add(b, 500);
	node_pump(b);
	EXPECT_EQ(2, b->tx[MPDT_T_DATA]);
	EXPECT_EQ(MPDT_ENG_ACTIVE, b->eng.state);

	mpdt_eng_time_wait(&b->eng);
	EXPECT_EQ(MPDT_ENG_TIME_WAIT, b->eng.state);
	EXPECT_EQ(2, b->released);
	EXPECT_EQ(0, b->released_acked);
	EXPECT_EQ(1, b->forgotten);
	EXPECT_TRUE(mpdt_eng_holds_nothing(&b->eng));
	ncap = b->ncap;

	/* A duplicate: a SACK, as before the close. */
	s->now += UNIT_US(10);
	send_to_b(s, 7, 0, self->one[0], 0, 0);
	ASSERT_EQ(ncap + 1, b->ncap);
	c = &b->cap[ncap];
	EXPECT_EQ(MPDT_T_SACK, c->pkt.hdr.type);
	EXPECT_EQ(0, c->pkt.hdr.flags);
	EXPECT_EQ(7, c->pkt.hdr.nonce);
	EXPECT_EQ(2, c->pkt.sack.epsn);
	EXPECT_EQ(s->now, c->pkt.sack.echo_ts);

	/* A probe: a probe answer. */
	probe_b(s, 7);
	ASSERT_EQ(ncap + 2, b->ncap);
	c = &b->cap[ncap + 1];
	EXPECT_EQ(MPDT_T_SACK, c->pkt.hdr.type);
	EXPECT_EQ(MPDT_F_PROBE_ACK, c->pkt.hdr.flags);
	EXPECT_EQ(s->now, c->pkt.sack.echo_ts);

	/* Nothing else: new DATA, another incarnation, SACKs, NACKs. */
	send_to_b(s, 7, 2, self->two[0], 1, MPDT_F_AR);
	send_to_b(s, 8, 0, self->one[1], 0, MPDT_F_AR);
	probe_b(s, 8);
	sk = unit_sack(1, 0, 0, 500, 0);
	pkt = unit_sack_pkt(&sk, 0);
	pkt.hdr.src_port = PORT_A;
	pkt.hdr.dst_port = PORT_B;
	pkt.hdr.nonce = b->eng.nonce;
	sim_inject(s, 1, &pkt, NULL, 0, false);
	pkt = unit_nack_pkt(0, MPDT_NACK_TRIMMED, 0);
	pkt.hdr.src_port = PORT_A;
	pkt.hdr.dst_port = PORT_B;
	pkt.hdr.nonce = b->eng.nonce;
	sim_inject(s, 1, &pkt, NULL, 0, false);
	EXPECT_EQ(5, b->stats[MPDT_STAT_DROP_NO_SOCKET]);
	EXPECT_EQ(ncap + 2, b->ncap);
	EXPECT_EQ(0, self->two[0]->delivered);
	EXPECT_EQ(0, self->one[1]->delivered);

	/* Its timer sends nothing either. */
	s->now += UNIT_SEC(5);
	mpdt_eng_on_timer(&b->eng, s->now);
	EXPECT_EQ(ncap + 2, b->ncap);
	EXPECT_EQ(0, s->nerr) {
		TH_LOG("%s", s->err);
	}
}

TEST_HARNESS_MAIN
