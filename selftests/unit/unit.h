/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the userspace unit tests of the MPDT pure core
 * (net/mpdt/{engine,reasm,wire,sack,scoreboard,rtt,lb_*,cc_*}.c).
 *
 * Include this before "kselftest_harness.h": the core's core.h defines
 * ARRAY_SIZE unconditionally, the harness only if it is not yet defined.
 *
 * Nothing here asserts: helpers return values and the tests check them,
 * so a failure always points at a line of the test itself.
 */
#ifndef _MPDT_UNIT_H
#define _MPDT_UNIT_H

/*
 * The harness compares with the declared types of both sides, so
 * EXPECT_EQ(MPDT_WIRE_OK, decode()) compares an int constant with an
 * unsigned enum.  Every such comparison here is between small constants
 * and values of the same meaning; the warning only adds casts.
 */
#pragma GCC diagnostic ignored "-Wsign-compare"

#include <stdlib.h>

#include "core.h"
#include "wire.h"
#include "sack.h"
#include "scoreboard.h"
#include "rtt.h"
#include "path.h"
#include "params.h"
#include "lb.h"
#include "cc.h"
/* The module defaults as "static const struct mpdt_params
 * mpdt_module_defaults": main.c's initializer of mpdt_default_params, which
 * expands the default column of params_table.h, copied by the Makefile.
 */
#include "default_params.h"

/* Simulated time: every core function takes "now" in ns. */
#define UNIT_US(x)	((u64)(x) * 1000ULL)
#define UNIT_MS(x)	((u64)(x) * 1000ULL * 1000ULL)
#define UNIT_SEC(x)	((u64)(x) * 1000ULL * 1000ULL * 1000ULL)

struct unit_clock {
	u64 now;
};

static inline u64 unit_clock_advance(struct unit_clock *c, u64 ns)
{
	c->now += ns;
	return c->now;
}

/* Deterministic PRNG (splitmix64): tests are reproducible from a seed. */
struct unit_rng {
	u64 state;
};

static inline u64 unit_rand(struct unit_rng *r)
{
	u64 z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A challenge's cookie (engine.h) for tests: keyed, not cryptographic. */
static inline u64 unit_cookie(u64 key, u32 nonce, u32 replaced, u32 epoch)
{
	struct unit_rng r = { key ^ ((u64)nonce << 32 | epoch) };

	r.state = unit_rand(&r) ^ replaced;
	return unit_rand(&r);
}

/* Uniform enough in [0, n) for tests; n > 0. */
static inline u32 unit_rand_below(struct unit_rng *r, u32 n)
{
	return (u32)((unit_rand(r) >> 32) * n >> 32);
}

/* Ports and nonce every builder uses; any non-zero values would do. */
#define UNIT_SPORT	0x1234
#define UNIT_DPORT	0xabcd
#define UNIT_NONCE	0xdeadbeef

static inline struct mpdt_pkt unit_pkt(u8 type, u16 flags)
{
	struct mpdt_pkt pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.hdr.version = MPDT_VERSION;
	pkt.hdr.type = type;
	pkt.hdr.flags = flags;
	pkt.hdr.src_port = UNIT_SPORT;
	pkt.hdr.dst_port = UNIT_DPORT;
	pkt.hdr.nonce = UNIT_NONCE;
	pkt.hdr.ev = 17;
	return pkt;
}

static inline struct mpdt_pkt unit_data(u32 psn, u32 offset, u32 msg_len,
					u16 payload_len, u16 flags)
{
	struct mpdt_pkt pkt = unit_pkt(MPDT_T_DATA, flags);

	pkt.data.psn = psn;
	pkt.data.msg_id = 42;
	pkt.data.offset = offset;
	pkt.data.msg_len = msg_len;
	pkt.data.ts = 0x0102030405060708ULL;
	pkt.data.payload_len = payload_len;
	return pkt;
}

static inline struct mpdt_pkt unit_sack_pkt(const struct mpdt_sack *s,
					    u16 flags)
{
	struct mpdt_pkt pkt = unit_pkt(MPDT_T_SACK, flags);

	pkt.sack = *s;
	return pkt;
}

static inline struct mpdt_pkt unit_nack_pkt(u32 psn, u8 code, u32 epsn)
{
	struct mpdt_pkt pkt = unit_pkt(MPDT_T_NACK, 0);

	pkt.nack.psn = psn;
	pkt.nack.code = code;
	pkt.nack.epsn = epsn;
	pkt.nack.echo_ts = 0x1122334455667788ULL;
	return pkt;
}

static inline struct mpdt_pkt unit_probe_pkt(u32 sack_base)
{
	struct mpdt_pkt pkt = unit_pkt(MPDT_T_PROBE, 0);

	pkt.probe.sack_base = sack_base;
	pkt.probe.ts = 0x8877665544332211ULL;
	return pkt;
}

/* Byte @i of a DATA payload, so a test can tell payload from header. */
static inline u8 unit_payload_byte(u32 i)
{
	return (u8)(i * 7 + 3);
}

/*
 * Encode @pkt's header into @buf followed by @payload bytes of payload
 * (DATA only; @buf must hold MPDT_MAX_HLEN + @payload).  Returns the
 * total length, the UDP payload length a real packet would have.
 */
static inline u32 unit_encode(const struct mpdt_pkt *pkt, u8 *buf,
			      u32 payload)
{
	u32 hlen = mpdt_wire_encode(pkt, buf);
	u32 i;

	for (i = 0; i < payload; i++)
		buf[hlen + i] = unit_payload_byte(i);
	return hlen + payload;
}

/*
 * Decode from a heap copy of exactly @len bytes, so that AddressSanitizer
 * catches any read past the end of the packet.
 */
static inline enum mpdt_wire_err unit_decode(const u8 *buf, u32 len,
					     struct mpdt_pkt *pkt)
{
	enum mpdt_wire_err err;
	u8 *copy = malloc(len ? len : 1);

	if (!copy)
		abort();
	memcpy(copy, buf, len);
	memset(pkt, 0xa5, sizeof(*pkt));
	err = mpdt_wire_decode(copy, len, pkt);
	free(copy);
	return err;
}

/* Encode @pkt with @payload payload bytes and decode it again. */
static inline enum mpdt_wire_err unit_roundtrip(const struct mpdt_pkt *pkt,
						u32 payload,
						struct mpdt_pkt *out)
{
	u8 *buf = malloc(MPDT_MAX_HLEN + payload);
	enum mpdt_wire_err err;

	if (!buf)
		abort();
	err = unit_decode(buf, unit_encode(pkt, buf, payload), out);
	free(buf);
	return err;
}

/*
 * One DATA arrival at the receiver, the way the engine handles it:
 * check the PSN, record it if new, then ask whether a SACK is due.  An
 * out-of-window packet is dropped without a SACK.  Returns "SACK due".
 */
static inline bool unit_rx_arrive(struct mpdt_rx *rx,
				  const struct mpdt_ack_policy *pol, u32 psn,
				  u32 bytes, u16 flags, bool ce,
				  enum mpdt_rx_verdict *verdict)
{
	struct mpdt_rx_arrival a = {
		.ce = ce,
		.ack_request = flags & MPDT_F_AR,
		.retransmission = flags & MPDT_F_RETX,
	};

	a.verdict = mpdt_rx_check(rx, psn);
	if (verdict)
		*verdict = a.verdict;
	if (a.verdict == MPDT_RX_OUT_OF_WINDOW)
		return false;
	if (a.verdict == MPDT_RX_NEW)
		a.filled_hole = mpdt_rx_mark(rx, psn, bytes, ce);
	return mpdt_rx_ack_due(rx, pol, &a);
}

static inline struct mpdt_sack unit_sack(u32 epsn, u32 base, u64 bitmap,
					 u64 recv_bytes, u32 ooo)
{
	struct mpdt_sack s;

	memset(&s, 0, sizeof(s));
	s.epsn = epsn;
	s.sack_base = base;
	s.bitmap = bitmap;
	s.recv_bytes = recv_bytes;
	s.ooo_count = ooo;
	return s;
}

/* Counts what the scoreboard reports acknowledged through its callback. */
struct unit_acked {
	u32 calls;
	u64 bytes;
};

static inline void unit_acked_fn(void *ctx, struct mpdt_sb_pkt *pkt)
{
	struct unit_acked *a = ctx;

	a->calls++;
	a->bytes += pkt->len;
}

/* Scoreboard states of [from, to) as a string "IALA..." for messages. */
static inline const char *unit_sb_states(const struct mpdt_sb *sb, u32 from,
					 u32 to, char *buf, size_t size)
{
	size_t n = 0;
	u32 p;

	for (p = from; p != to && n + 1 < size; p++) {
		u8 st = mpdt_sb_at(sb, p)->state;

		buf[n++] = st == MPDT_SB_INFLIGHT ? 'I' :
			   st == MPDT_SB_ACKED ? 'A' :
			   st == MPDT_SB_LOST ? 'L' : '?';
	}
	buf[n] = '\0';
	return buf;
}

/*
 * Load balancing policies: state on the heap, exactly priv_size() bytes
 * and zeroed as conn.c allocates it, so AddressSanitizer catches any
 * access beyond it.
 */
static inline void unit_lb_start(struct mpdt_lb *lb,
				 const struct mpdt_lb_ops *ops,
				 const struct mpdt_params *p, u64 seed)
{
	memset(lb, 0, sizeof(*lb));
	lb->ops = ops;
	lb->entropies = p->entropies;
	lb->priv_len = ops->priv_size ? ops->priv_size(p) : 0;
	lb->priv = calloc(1, lb->priv_len ? lb->priv_len : 1);
	if (!lb->priv)
		abort();
	ops->init(lb, p, seed);
}

/*
 * A reset re-initialises the state allocated earlier, maybe for other
 * parameters: conn.c's tx_reset().
 */
static inline void unit_lb_reinit(struct mpdt_lb *lb,
				  const struct mpdt_params *p, u64 seed)
{
	memset(lb->priv, 0, lb->priv_len);
	lb->ops->init(lb, p, seed);
}

static inline void unit_lb_stop(struct mpdt_lb *lb)
{
	free(lb->priv);
	lb->priv = NULL;
}

/* Parameters with the module's load balancing defaults (main.c). */
static inline struct mpdt_params unit_lb_params(u32 entropies)
{
	struct mpdt_params p;

	memset(&p, 0, sizeof(p));
	p.payload = 1400;
	p.link_mbps = 10000;
	p.base_rtt_us = 12;
	p.entropies = entropies;
	p.bitmap_reset_rtts = 2;
	p.reps_buffer = 8;
	p.reps_freeze_us = 10000;
	p.prime_tiers = 1;
	p.prime_uplinks = 0;
	p.prime_ecn_penalty = 25;
	p.prime_nack_penalty = 100;
	p.prime_timeout_penalty = 3000;
	p.paralet_m = 32;
	p.paralet_bdps = 4;
	return p;
}

/* Parameters with the module's congestion control defaults (main.c), on a
 * network of @link_mbps and @base_rtt_us.
 */
static inline struct mpdt_params unit_cc_params(u32 link_mbps,
						u32 base_rtt_us)
{
	struct mpdt_params p = unit_lb_params(256);

	p.link_mbps = link_mbps;
	p.base_rtt_us = base_rtt_us;
	p.strack_qhigh_pct = 300;
	p.strack_ewma_pm = 125;
	p.strack_alpha_pct = 400;
	p.strack_beta_pct = 500;
	p.strack_eta_pct = 15;
	p.strack_gamma_pm = 800;
	p.strack_md_floor_pct = 50;
	p.strack_achieved_div = 8;
	p.strack_max_cwnd_pct = 100;
	p.smartt_trtt_pct = 150;
	p.smartt_fd_pm = 800;
	p.smartt_md_pct = 200;
	p.smartt_fi_pm = 250;
	p.smartt_qa_scaling_pct = 80;
	p.smartt_fast_k = 2;
	p.smartt_fast_rtt_pct = 110;
	p.smartt_wtd_alpha_pm = 16;
	p.smartt_wtd_thresh_pm = 250;
	p.smartt_max_cwnd_pct = 125;
	p.mcc_oversub = 8;
	p.mcc_md_floor_pct = 50;
	p.mcc_chunk_bytes = 65536;
	p.mcc_max_cwnd_pct = 200;
	return p;
}

/* A congestion control as conn.c starts it: zeroed state, then init. */
static inline void unit_cc_start(struct mpdt_cc *cc,
				 const struct mpdt_cc_ops *ops,
				 const struct mpdt_params *p, u32 mss)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = ops;
	cc->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
	cc->mss = mss;
	ops->init(cc, p);
}

static inline void unit_cc_stop(struct mpdt_cc *cc)
{
	free(cc->priv);
	cc->priv = NULL;
}

/* One SACK: @acked new bytes, @rtt_ns (0: no sample), @ce_count marks. */
static inline u32 unit_cc_ack(struct mpdt_cc *cc, u64 now, u64 rtt_ns,
			      u64 acked, u64 inflight, u16 ce_count)
{
	struct mpdt_cc_ack a = {
		.now = now, .rtt_ns = rtt_ns, .acked_bytes = acked,
		.inflight = inflight, .ce_count = ce_count, .ce = !!ce_count,
	};

	cc->ops->on_ack(cc, &a);
	return cc->cwnd;
}

/* The optional signal hooks, skipped when a policy has none. */
static inline void unit_lb_ack(struct mpdt_lb *lb, u64 now, u16 ev, bool ce)
{
	struct mpdt_lb_ack a = {
		.now = now, .rtt_ns = UNIT_US(12), .ev = ev, .ce = ce,
		.ce_count = ce,
	};

	if (lb->ops->on_ack)
		lb->ops->on_ack(lb, &a);
}

static inline void unit_lb_nack(struct mpdt_lb *lb, u64 now, u16 ev, u8 code)
{
	if (lb->ops->on_nack)
		lb->ops->on_nack(lb, ev, code, now);
}

static inline void unit_lb_timeout(struct mpdt_lb *lb, u64 now, u16 ev)
{
	if (lb->ops->on_loss)
		lb->ops->on_loss(lb, ev, true, now);
}

/*
 * Drive a policy for @n packets, PSNs from 0, one every microsecond, with
 * random SACKs (some CE marked), NACKs and timeouts in between, on EVs it
 * chose and on bogus ones.  Returns how many of its EVs were out of range.
 * @evs, if not NULL, receives the @n EVs.
 */
static inline u32 unit_lb_fuzz(const struct mpdt_lb_ops *ops,
			       const struct mpdt_params *p, u64 seed,
			       u32 n, u16 *evs)
{
	struct unit_rng rng = { .state = seed ^ 0x5bd1e995 };
	struct mpdt_lb_ctx ctx;
	struct mpdt_lb lb;
	u32 i, bad = 0;
	u16 ev;

	unit_lb_start(&lb, ops, p, seed);
	for (i = 0; i < n; i++) {
		memset(&ctx, 0, sizeof(ctx));
		ctx.now = UNIT_US(i);
		ctx.psn = i;
		ctx.cwnd_pkts = 1 + unit_rand_below(&rng, 300);
		ctx.bdp_pkts = 1 + unit_rand_below(&rng, 100);
		ctx.rtt_ns = UNIT_US(12);
		ctx.resend = !unit_rand_below(&rng, 10);
		ev = ops->choose_ev(&lb, &ctx);
		bad += ev >= p->entropies;
		if (evs)
			evs[i] = ev;
		if (!unit_rand_below(&rng, 50))
			ev = (u16)unit_rand(&rng);
		switch (unit_rand_below(&rng, 8)) {
		case 0:
			unit_lb_nack(&lb, ctx.now, ev,
				     unit_rand_below(&rng, 2) ?
				     MPDT_NACK_TRIMMED : MPDT_NACK_NO_BUFFER);
			break;
		case 1:
			unit_lb_timeout(&lb, ctx.now, ev);
			break;
		default:
			unit_lb_ack(&lb, ctx.now, ev, !unit_rand_below(&rng, 3));
		}
	}
	unit_lb_stop(&lb);
	return bad;
}

#endif /* _MPDT_UNIT_H */
