// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt-perf: flow completion time benchmark for MPDT, TCP, MPTCP and UDP.
 *
 *   mpdt-perf server [-p PORT] [-6] [--proto P] [--count N] [--timeout S]
 *                    [--ready FILE] [--udp-idle S] [--no-verify] [-i S]
 *   mpdt-perf client -a ADDR (--size BYTES | --msgs N | -t S) ...
 *   mpdt-perf dist (--sizes DIST | --msg BYTES) [--msgs N] [--seed N] ...
 *
 * (usage_text below has every option.)  A flow is a sequence of messages:
 * SIZE bytes, N messages, or as many as S seconds allow.  Messages are
 * --msg bytes, or of sizes drawn from a seeded distribution (--sizes).
 * Every message starts with a 48-byte header (flow id, index, offset, flow
 * size) and goes on with a pattern that depends on the flow id and the
 * byte's offset in the flow, so the server can check every byte.  MPDT and
 * UDP send each message as one datagram; TCP and MPTCP write the messages
 * back to back on one connection per flow.  A header may ask the server
 * for a reply of some bytes of pattern: --rr (request/response, one
 * request at a time), --acks (a 1-byte reply to every message, TCP/MPTCP).
 *
 * Message completion times are measured by the client alone, so across
 * machines: from a message's sendmsg() to MPDT_INFO's mi_msgs_acked
 * counting it (MPDT), or to its reply (--acks, --rr).  Times are
 * CLOCK_REALTIME nanoseconds, so that a client's t_start_ns and the
 * server's last_rx_ns can also be subtracted when both run on one machine
 * (network namespaces): that difference is the flow completion time.
 * Both ends print one line of JSON on stdout (Documentation/perf.rst,
 * fct.py) and a report for people on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/mptcp.h>
#include <linux/mpdt.h>

/* How long an MPDT server keeps its socket after the last flow. */
#define SRV_MPDT_DRAIN_MS	3000

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP	262
#endif
#ifndef SOL_MPTCP
#define SOL_MPTCP	284
#endif

#define PERF_MAGIC	0x4d505246u	/* "MPRF" */
#define HDR_LEN		((uint32_t)sizeof(struct perf_hdr))
#define PAT_PERIOD	65521u		/* prime: no packet size divides it */
#define FLAG_FIN	1u		/* end of flow, no payload (UDP, -t) */
#define FLAG_OPEN	2u		/* the flow's size is not known ahead (-t) */
#define DEF_PORT	7471
#define UDP_MSG		1400u
#define UDP_MSG_MAX	65507u
#define MSG_DEFAULT	(128u << 10)	/* --msgs and -t */
#define RR_DEFAULT	64u		/* --rr: request and reply */
#define ACK_POLL_US	500
#define STREAM_RBUF	(256u << 10)
#define MAX_SEEN_MSGS	0x4000000u	/* 64 Mi: 8 MiB of bitmap */
#define NSEC		1000000000LL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum proto { P_MPDT, P_TCP, P_MPTCP, P_UDP };

static const char * const proto_names[] = {
	[P_MPDT] = "mpdt", [P_TCP] = "tcp", [P_MPTCP] = "mptcp", [P_UDP] = "udp",
};

/* How the client learns that a message is complete. */
enum method { M_NONE, M_MPDT, M_ACK, M_RR };

static const char * const method_names[] = {
	[M_NONE] = "none", [M_MPDT] = "mpdt_msgs_acked", [M_ACK] = "app_ack",
	[M_RR] = "rr",
};

/* On the wire, big endian.  len includes the header.  An open flow (-t)
 * has no flow_bytes and flow_msgs but in its FIN.
 */
struct perf_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;		/* message index in the flow */
	uint64_t offset;	/* flow offset of the message's first byte */
	uint64_t flow_bytes;	/* size of the whole flow */
	uint32_t reply_len;	/* bytes the server answers with, 0: none */
	uint32_t flow_msgs;	/* messages in the whole flow */
	uint32_t len;		/* bytes of this message */
	uint32_t flags;
};

struct cfg {
	enum proto proto;
	int family;
	int port;
	const char *addr;
	const char *lb;
	const char *cc;
	const char *ready;
	const char *sizes;
	uint64_t size;
	uint64_t msg;
	uint64_t msgs;
	double duration;
	double interval;
	int flows;
	uint32_t id;
	int64_t start_at;
	double rate_mbit;
	int count;
	double timeout;
	double udp_idle;
	uint64_t seed;
	uint64_t reply;
	uint64_t inflight;
	int ack_poll_us;
	bool rr;
	bool acks;
	bool verify;
	bool one_thread;
};

static struct cfg cfg = {
	.proto = P_MPDT,
	.family = AF_INET,
	.port = DEF_PORT,
	.flows = 1,
	.id = 1,
	.timeout = 120,
	.udp_idle = 1.0,
	.seed = 1,
	.ack_poll_us = ACK_POLL_US,
	.verify = true,
};

static uint8_t *pat;		/* PAT_PERIOD bytes repeated */
static atomic_int stop;
static uint64_t msg_max;	/* the protocol's largest message */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC };

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int64_t secs_ns(double s)
{
	return (int64_t)(s * NSEC);
}

/* Mbit/s of @bytes over @ns nanoseconds. */
static double mbps(uint64_t bytes, int64_t ns)
{
	return ns > 0 ? bytes * 8e3 / ns : 0;
}

static void die(const char *what)
{
	fprintf(stderr, "mpdt-perf: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("malloc");
	return p;
}

/* @p with room for @need elements of @size bytes; *@cap follows. */
static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need > 2 * *cap ? need : 2 * *cap;
	if (*cap < 64)
		*cap = 64;
	p = realloc(p, *cap * size);
	if (!p)
		die("realloc");
	return p;
}

struct vec {
	int64_t *v;
	size_t n;
	size_t cap;
};

static void vec_push(struct vec *v, int64_t x)
{
	v->v = grow(v->v, &v->cap, v->n + 1, sizeof(*v->v));
	v->v[v->n++] = x;
}

/* ---------------------------------------------------------------------
 * Random numbers, seeded so that a run can be repeated, and the little
 * math they need (the program links no libm).
 */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The generator of flow @id's message sizes. */
static uint64_t flow_rng(uint32_t id)
{
	uint64_t s = cfg.seed ^ ((uint64_t)id << 32);

	return splitmix(&s);
}

/* Uniform in [0, 1). */
static double rand01(uint64_t *s)
{
	return (splitmix(s) >> 11) / 9007199254740992.0;	/* 2^53 */
}

/* Standard normal (Marsaglia's polar method). */
static double rand_normal(uint64_t *s)
{
	double u, v, q;

	do {
		u = 2 * rand01(s) - 1;
		v = 2 * rand01(s) - 1;
		q = u * u + v * v;
	} while (q >= 1 || q == 0);
	return u * sqrt(-2 * log(q) / q);
}

/* ---------------------------------------------------------------------
 * Message sizes: --msg, or a distribution (--sizes).
 */

enum dist_kind { D_FIXED, D_UNIFORM, D_LOGNORMAL, D_FILE };

/* A point of a CDF: the fraction of messages of len bytes or fewer. */
struct cdf_point {
	uint64_t len;
	double frac;
};

struct dist {
	enum dist_kind kind;
	uint64_t a, b;		/* fixed: a bytes; uniform: a to b */
	double mu, sigma;	/* lognormal: of the size's natural log */
	struct cdf_point *cdf;	/* file: ascending */
	size_t n;
	const char *spec;	/* as given */
};

static struct dist dist;

static void usage(void);

/* A usage error: why, then the usage, on stderr; exit 2. */
static void bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("mpdt-perf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	usage();
}

/* A size with an optional binary suffix K, M or G; *@end after it. */
static bool scan_size(const char *s, char **end, uint64_t *v)
{
	unsigned long long n;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	n = strtoull(s, end, 0);
	switch (**end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	}
	if (shift)
		(*end)++;
	if (errno || (n << shift) >> shift != n)
		return false;
	*v = n << shift;
	return true;
}

/* A CDF file, the form of Homa's workloads: one "SIZE,FRACTION" a line
 * (a comma or blanks between), FRACTION the share of messages of SIZE
 * bytes or fewer; both ascending, the last FRACTION 1.  '#' comments.
 */
static void dist_load(const char *path)
{
	FILE *f = fopen(path, "r");
	double last = 0;
	char line[256];
	size_t cap = 0;
	int no = 0;

	if (!f)
		bad("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *end;
		uint64_t len;
		double frac;

		no++;
		if (*p == '#' || !p[strspn(p, " \t\r\n")])
			continue;
		if (!scan_size(p, &end, &len))
			bad("%s:%d: expected SIZE,FRACTION", path, no);
		p = end + strspn(end, " \t,");
		frac = strtod(p, &end);
		if (end == p || end[strspn(end, " \t\r\n")] || frac < last ||
		    frac > 1 || (dist.n && len < dist.cdf[dist.n - 1].len))
			bad("%s:%d: expected SIZE,FRACTION, both ascending, FRACTION up to 1",
			    path, no);
		dist.cdf = grow(dist.cdf, &cap, dist.n + 1, sizeof(*dist.cdf));
		dist.cdf[dist.n++] = (struct cdf_point){ .len = len, .frac = frac };
		last = frac;
	}
	fclose(f);
	if (last < 0.999999)
		bad("%s: the last FRACTION must be 1", path);
	dist.cdf[dist.n - 1].frac = 1;
}

/* --sizes: fixed:N, uniform:A:B, lognormal:MU:SIGMA, file:PATH. */
static void dist_parse(const char *s)
{
	const char *arg = strchr(s, ':');
	char *end;

	dist.spec = s;
	if (!arg)
		bad("bad --sizes %s", s);
	arg++;
	if (!strncmp(s, "fixed:", 6)) {
		dist.kind = D_FIXED;
		if (!scan_size(arg, &end, &dist.a) || *end)
			bad("bad --sizes %s", s);
	} else if (!strncmp(s, "uniform:", 8)) {
		dist.kind = D_UNIFORM;
		if (!scan_size(arg, &end, &dist.a) || *end != ':' ||
		    !scan_size(end + 1, &end, &dist.b) || *end || dist.a > dist.b)
			bad("bad --sizes %s", s);
	} else if (!strncmp(s, "lognormal:", 10)) {
		dist.kind = D_LOGNORMAL;
		dist.mu = strtod(arg, &end);
		if (end == arg || *end != ':')
			bad("bad --sizes %s", s);
		arg = end + 1;
		dist.sigma = strtod(arg, &end);
		if (end == arg || *end || !(dist.mu > -40 && dist.mu < 40) ||
		    !(dist.sigma >= 0 && dist.sigma < 40))
			bad("bad --sizes %s", s);
	} else if (!strncmp(s, "file:", 5)) {
		dist.kind = D_FILE;
		dist_load(arg);
	} else {
		bad("bad --sizes %s", s);
	}
}

static uint64_t clamp_len(uint64_t v)
{
	if (v < HDR_LEN)
		return HDR_LEN;
	return v > msg_max ? msg_max : v;
}

static uint64_t lognormal(uint64_t *rng)
{
	double x = dist.mu + dist.sigma * rand_normal(rng);

	if (x > 40)
		return UINT64_MAX;
	return x < -40 ? 0 : (uint64_t)(exp(x) + 0.5);
}

/* Homa's dist_sample(): the first size whose fraction exceeds a uniform draw. */
static uint64_t cdf_draw(uint64_t *rng)
{
	double u = rand01(rng);
	size_t lo = 0, hi = dist.n - 1;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (dist.cdf[mid].frac > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return dist.cdf[lo].len;
}

/* One message size, raised to a header or lowered to the largest message. */
static uint64_t dist_draw(uint64_t *rng)
{
	switch (dist.kind) {
	case D_FIXED:
		return clamp_len(dist.a);
	case D_UNIFORM:
		return clamp_len(dist.a + (uint64_t)(rand01(rng) * (dist.b - dist.a + 1)));
	case D_LOGNORMAL:
		return clamp_len(lognormal(rng));
	default:
		return clamp_len(cdf_draw(rng));
	}
}

/* The largest size dist_draw() can return. */
static uint64_t dist_max(void)
{
	switch (dist.kind) {
	case D_FIXED:
		return clamp_len(dist.a);
	case D_UNIFORM:
		return clamp_len(dist.b);
	case D_LOGNORMAL:
		return msg_max;
	default:
		return clamp_len(dist.cdf[dist.n - 1].len);
	}
}

/* The next message of a flow with @left bytes to send (UINT64_MAX: no
 * limit): a draw, but never leaving a rest shorter than a header.
 */
static uint32_t next_size(uint64_t *rng, uint64_t left)
{
	uint64_t d = dist_draw(rng);

	if (d >= left)
		return left;
	if (left - d >= HDR_LEN)
		return d;
	return left <= msg_max ? left : left - HDR_LEN;
}

/* Set the protocol's largest message and the distribution (--sizes, or
 * fixed: --msg, else @def); an explicit size out of range is an error.
 */
static void sizes_setup(uint64_t def)
{
	static char spec[32];
	uint64_t hi;

	msg_max = cfg.proto == P_UDP ? UDP_MSG_MAX : MPDT_MSG_MAX;
	if (cfg.sizes) {
		dist_parse(cfg.sizes);
	} else {
		dist.kind = D_FIXED;
		dist.a = cfg.msg ? cfg.msg : def;
		snprintf(spec, sizeof(spec), "fixed:%llu", (unsigned long long)dist.a);
		dist.spec = spec;
	}
	hi = dist.kind == D_UNIFORM ? dist.b : dist.a;
	if ((dist.kind == D_FIXED || dist.kind == D_UNIFORM) &&
	    (dist.a < HDR_LEN || hi > msg_max))
		bad("message sizes must be %u..%llu bytes for %s", HDR_LEN,
		    (unsigned long long)msg_max, proto_names[cfg.proto]);
}

/* ---------------------------------------------------------------------
 * The pattern and the header
 */

/* The pattern, long enough that any slice of @span bytes starting in the
 * first period is contiguous.
 */
static void pat_init(size_t span)
{
	size_t len = PAT_PERIOD + (span > PAT_PERIOD ? span : PAT_PERIOD);
	uint64_t s = 0x4d504454, r = 0;
	size_t i;

	pat = xmalloc(len);
	for (i = 0; i < PAT_PERIOD; i++) {
		if (!(i & 7))
			r = splitmix(&s);
		pat[i] = r >> ((i & 7) * 8);
	}
	for (; i < len; i++)
		pat[i] = pat[i - PAT_PERIOD];
}

/* Where the byte at flow offset @off of flow @flow is in the pattern. */
static const uint8_t *pat_at(uint32_t flow, uint64_t off)
{
	return pat + (off + (uint64_t)flow * 7919) % PAT_PERIOD;
}

static bool pat_check(const uint8_t *p, uint64_t n, uint32_t flow, uint64_t off)
{
	while (n) {
		uint64_t k = n < PAT_PERIOD ? n : PAT_PERIOD;

		if (memcmp(p, pat_at(flow, off), k))
			return false;
		p += k;
		off += k;
		n -= k;
	}
	return true;
}

/* A reply: the first @len bytes of flow @flow's pattern, in pieces of at
 * most a period.  Returns the number of iovecs.
 */
static int pat_iov(struct iovec *iov, uint32_t flow, uint64_t len)
{
	uint64_t off = 0;
	int n = 0;

	while (off < len) {
		uint64_t k = len - off < PAT_PERIOD ? len - off : PAT_PERIOD;

		iov[n].iov_base = (void *)pat_at(flow, off);
		iov[n++].iov_len = k;
		off += k;
	}
	return n;
}

/* @h, in host order, to the wire. */
static void hdr_put(struct perf_hdr *w, const struct perf_hdr *h)
{
	w->magic = htonl(PERF_MAGIC);
	w->flow = htonl(h->flow);
	w->seq = htobe64(h->seq);
	w->offset = htobe64(h->offset);
	w->flow_bytes = htobe64(h->flow_bytes);
	w->reply_len = htonl(h->reply_len);
	w->flow_msgs = htonl(h->flow_msgs);
	w->len = htonl(h->len);
	w->flags = htonl(h->flags);
}

/* Decode in place; false if it is not one of ours or is inconsistent. */
static bool hdr_get(const void *buf, struct perf_hdr *h)
{
	memcpy(h, buf, sizeof(*h));
	h->magic = ntohl(h->magic);
	h->flow = ntohl(h->flow);
	h->seq = be64toh(h->seq);
	h->offset = be64toh(h->offset);
	h->flow_bytes = be64toh(h->flow_bytes);
	h->reply_len = ntohl(h->reply_len);
	h->flow_msgs = ntohl(h->flow_msgs);
	h->len = ntohl(h->len);
	h->flags = ntohl(h->flags);
	if (h->magic != PERF_MAGIC || h->len < HDR_LEN ||
	    h->reply_len > MPDT_MSG_MAX)
		return false;
	if (h->flags & FLAG_FIN)
		return h->len == HDR_LEN;
	if (h->flags & FLAG_OPEN)
		return !h->flow_bytes && !h->flow_msgs;
	return h->seq < h->flow_msgs && h->offset + h->len <= h->flow_bytes;
}

/* ---------------------------------------------------------------------
 * Statistics: percentiles, CPU time, interval reports
 */

struct summary {
	uint64_t n;
	double mean;
	int64_t min, p50, p99, p999, max;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest of the sorted @v with at least @num/@den of
 * all values at or below it.
 */
static int64_t rank(const int64_t *v, uint64_t n, uint64_t num, uint64_t den)
{
	uint64_t k = (n * num + den - 1) / den;

	return v[k ? k - 1 : 0];
}

/* Sorts @v. */
static void summarize(int64_t *v, uint64_t n, struct summary *s)
{
	double sum = 0;
	uint64_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_i64);
	for (i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / n;
	s->min = v[0];
	s->p50 = rank(v, n, 50, 100);
	s->p99 = rank(v, n, 99, 100);
	s->p999 = rank(v, n, 999, 1000);
	s->max = v[n - 1];
}

struct cpu {
	double user, sys;
};

/* The process's CPU time so far, every thread's. */
static void cpu_get(struct cpu *c)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	c->user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	c->sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* CPU seconds per GB (10^9 bytes) moved, or a negative number if none. */
static double cpu_per_gb(const struct cpu *c, uint64_t bytes)
{
	return bytes ? (c->user + c->sys) / (bytes / 1e9) : -1;
}

static void cpu_text(const struct cpu *c, uint64_t bytes)
{
	fprintf(stderr, "cpu: %.3f s user + %.3f s sys = %.3f s", c->user,
		c->sys, c->user + c->sys);
	if (bytes)
		fprintf(stderr, ", %.3f s per GB moved", cpu_per_gb(c, bytes));
	fputc('\n', stderr);
}

/* One interval: how much the counters grew from t0 to t1. */
struct ivl {
	int64_t t0, t1;
	uint64_t bytes, msgs, done;
};

/* Interval reports (-i), printed on stderr as they end, kept for JSON. */
struct ivls {
	struct ivl *v;
	size_t n, cap;
	int64_t start;
	struct ivl last;	/* t1 and the counters at the last cut */
};

static void ivl_begin(struct ivls *iv, int64_t t, const char *done)
{
	iv->start = t;
	iv->last = (struct ivl){ .t1 = t };
	fprintf(stderr, "%-19s %14s %12s %10s %10s\n", "interval", "bytes",
		"Mbit/s", "msgs", done);
}

/* Close the current interval at @t, the counters' values then; a last
 * one (@last) only if they moved.
 */
static void ivl_cut(struct ivls *iv, int64_t t, uint64_t bytes, uint64_t msgs,
		    uint64_t done, bool last)
{
	struct ivl *i;

	if (last && bytes == iv->last.bytes && msgs == iv->last.msgs &&
	    done == iv->last.done)
		return;
	iv->v = grow(iv->v, &iv->cap, iv->n + 1, sizeof(*iv->v));
	i = &iv->v[iv->n++];
	i->t0 = iv->last.t1;
	i->t1 = t;
	i->bytes = bytes - iv->last.bytes;
	i->msgs = msgs - iv->last.msgs;
	i->done = done - iv->last.done;
	iv->last = (struct ivl){ .t1 = t, .bytes = bytes, .msgs = msgs, .done = done };
	fprintf(stderr, "%8.2f-%-8.2f sec %14llu %12.3f %10llu %10llu\n",
		(i->t0 - iv->start) / 1e9, (i->t1 - iv->start) / 1e9,
		(unsigned long long)i->bytes, mbps(i->bytes, i->t1 - i->t0),
		(unsigned long long)i->msgs, (unsigned long long)i->done);
}

/* ---------------------------------------------------------------------
 * Addresses and JSON
 */

static int parse_addr(const char *s, int port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, s, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return AF_INET6;
	}
	return -1;
}

static void addr_str(const struct sockaddr_storage *ss, char *out, size_t n)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	char a[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
		snprintf(out, n, "%s:%u", a, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a));
		snprintf(out, n, "[%s]:%u", a, ntohs(sin6->sin6_port));
	} else {
		snprintf(out, n, "?");
	}
}

/* A JSON string, or null. */
static void jstr(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jkey(FILE *f, const char *k)
{
	fprintf(f, ", \"%s\": ", k);
}

static void ju64(FILE *f, const char *k, uint64_t v)
{
	jkey(f, k);
	fprintf(f, "%llu", (unsigned long long)v);
}

static void ji64(FILE *f, const char *k, int64_t v)
{
	jkey(f, k);
	fprintf(f, "%lld", (long long)v);
}

static void jbool(FILE *f, const char *k, bool v)
{
	jkey(f, k);
	fputs(v ? "true" : "false", f);
}

static void jdbl(FILE *f, const char *k, double v)
{
	jkey(f, k);
	fprintf(f, "%.6g", v);
}

/* A number, or null if it is negative (unknown). */
static void jdbl_or_null(FILE *f, const char *k, double v)
{
	jkey(f, k);
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%.6g", v);
}

static void jskey(FILE *f, const char *k, const char *v)
{
	jkey(f, k);
	jstr(f, v);
}

/* A summary, or null if it has no values; @us: they are nanoseconds, to
 * print as microseconds ("mean_us", ...).
 */
static void jsummary(FILE *f, const char *k, const struct summary *s, bool us)
{
	static const char * const names[] = {
		"mean", "min", "p50", "p99", "p999", "max",
	};
	double v[] = { s->mean, s->min, s->p50, s->p99, s->p999, s->max };
	unsigned int i;

	jkey(f, k);
	if (!s->n) {
		fputs("null", f);
		return;
	}
	fprintf(f, "{\"n\": %llu", (unsigned long long)s->n);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		fprintf(f, ", \"%s%s\": %.10g", names[i], us ? "_us" : "",
			us ? v[i] / 1e3 : v[i]);
	fputc('}', f);
}

static void jcpu(FILE *f, const struct cpu *c, uint64_t bytes)
{
	jdbl(f, "cpu_user_s", c->user);
	jdbl(f, "cpu_sys_s", c->sys);
	jdbl(f, "cpu_s", c->user + c->sys);
	jdbl_or_null(f, "cpu_s_per_gb", cpu_per_gb(c, bytes));
}

/* The interval reports; @done names their third counter. */
static void jintervals(FILE *f, const struct ivls *iv, const char *done)
{
	size_t i;

	jkey(f, "intervals");
	fputc('[', f);
	for (i = 0; i < iv->n; i++) {
		const struct ivl *v = &iv->v[i];

		fprintf(f, "%s{\"start_s\": %.6f", i ? ", " : "",
			(v->t0 - iv->start) / 1e9);
		fprintf(f, ", \"end_s\": %.6f", (v->t1 - iv->start) / 1e9);
		ju64(f, "bytes", v->bytes);
		jdbl(f, "mbps", mbps(v->bytes, v->t1 - v->t0));
		ju64(f, "msgs", v->msgs);
		ju64(f, done, v->done);
		fputc('}', f);
	}
	fputc(']', f);
}

/* Send and receive timeouts of --timeout seconds. */
static void set_timeouts(int fd)
{
	struct timeval tv = {
		.tv_sec = (time_t)cfg.timeout,
		.tv_usec = (suseconds_t)((cfg.timeout - (time_t)cfg.timeout) * 1e6),
	};

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* ---------------------------------------------------------------------
 * Server
 */

struct sflow {
	uint32_t id;
	char src[64];
	uint64_t expect_bytes;
	uint64_t expect_msgs;
	uint64_t bytes;
	uint64_t msgs;
	uint64_t corrupt;
	uint64_t dups;
	uint64_t replies;
	uint64_t next_seq;	/* streams: the next message expected */
	uint8_t *seen;		/* datagrams: bitmap of message indexes */
	size_t seen_cap;	/* its bytes */
	uint64_t first_len;	/* bytes that had arrived at first_rx */
	int64_t first_rx;
	int64_t last_rx;
	const char *error;	/* streams: why the flow broke, if it did */
	bool open;		/* its size comes with its FIN (-t) */
	bool fin;		/* the sender said it is done (UDP, -t) */
	bool idle;		/* UDP: ended by the idle timeout */
	bool complete;		/* every byte arrived */
	bool done;		/* counted as finished */
};

/* One TCP/MPTCP connection: a parser over its byte stream, and the
 * replies it owes.
 */
struct sconn {
	int fd;
	char src[64];
	struct sflow *f;
	uint8_t hdr[sizeof(struct perf_hdr)];
	uint32_t hdr_have;
	uint64_t left;		/* payload bytes of the current message */
	uint64_t pos;		/* flow offset of the next payload byte */
	uint32_t reply_len;	/* every message's reply, as the first asked */
	uint32_t out_off;	/* offset in the reply being written */
	uint64_t owed;		/* reply bytes not yet written */
	bool bad;		/* the current message failed the check */
	bool fin;		/* the current header is the flow's FIN */
};

struct server {
	struct sflow *flows;
	size_t nflows;
	size_t cap;
	int ndone;
	uint64_t bad_msgs;	/* not ours, truncated or inconsistent */
	uint64_t rx_bytes;
	uint64_t rx_msgs;
	uint64_t tx_bytes;	/* replies */
	uint64_t replies;
	uint64_t reply_errors;
	int64_t t_ready;
	int64_t t_first;	/* the first and last bytes received */
	int64_t t_last;
	struct ivls iv;
};

static struct server srv;

static struct sflow *flow_find(uint32_t id)
{
	static size_t last;
	size_t i;

	if (last < srv.nflows && srv.flows[last].id == id)
		return &srv.flows[last];
	for (i = 0; i < srv.nflows; i++) {
		if (srv.flows[i].id == id) {
			last = i;
			return &srv.flows[i];
		}
	}
	return NULL;
}

static struct sflow *flow_new(const struct perf_hdr *h, const char *src)
{
	struct sflow *f;

	srv.flows = grow(srv.flows, &srv.cap, srv.nflows + 1, sizeof(*f));
	f = &srv.flows[srv.nflows++];
	memset(f, 0, sizeof(*f));
	f->id = h->flow;
	snprintf(f->src, sizeof(f->src), "%s", src);
	f->expect_bytes = h->flow_bytes;
	f->expect_msgs = h->flow_msgs;
	f->open = h->flags & FLAG_OPEN;
	return f;
}

static void flow_done(struct sflow *f)
{
	if (!f->done) {
		f->done = true;
		srv.ndone++;
	}
}

/* Every byte arrived; for an open flow, also its FIN, with the size. */
static bool flow_complete(struct sflow *f)
{
	if (f->bytes == f->expect_bytes && (!f->open || f->fin))
		f->complete = true;
	return f->complete;
}

static bool flow_ok(const struct sflow *f)
{
	if (f->corrupt || f->dups || f->error)
		return false;
	return cfg.proto == P_UDP || f->complete;
}

/* A data header agrees with what its flow's first header said. */
static bool flow_matches(const struct sflow *f, const struct perf_hdr *h)
{
	if (!(h->flags & FLAG_OPEN) != !f->open)
		return false;
	return f->open || (h->flow_bytes == f->expect_bytes &&
			   h->flow_msgs == f->expect_msgs);
}

/* A FIN: UDP's flow ends; an open flow learns its size. */
static void flow_fin(struct sflow *f, const struct perf_hdr *h)
{
	f->fin = true;
	if (f->open) {
		f->expect_bytes = h->flow_bytes;
		f->expect_msgs = h->flow_msgs;
	}
}

/* Whether message @seq of @f came before; marks it.  The first
 * MAX_SEEN_MSGS messages of a flow are tracked.
 */
static bool seen_before(struct sflow *f, uint64_t seq)
{
	size_t old = f->seen_cap;

	if (seq >= MAX_SEEN_MSGS)
		return false;
	if (seq / 8 >= old) {
		f->seen = grow(f->seen, &f->seen_cap, seq / 8 + 1, 1);
		memset(f->seen + old, 0, f->seen_cap - old);
	}
	if (f->seen[seq / 8] & (1u << (seq % 8)))
		return true;
	f->seen[seq / 8] |= 1u << (seq % 8);
	return false;
}

/* @n bytes arrived at @t. */
static void srv_rx(uint64_t n, int64_t t)
{
	if (!srv.t_first) {
		srv.t_first = t;
		if (cfg.interval)
			ivl_begin(&srv.iv, t, "replies");
	}
	srv.t_last = t;
	srv.rx_bytes += n;
}

/* -i: close the intervals that ended by @t. */
static void srv_tick(int64_t t)
{
	int64_t step = secs_ns(cfg.interval);

	if (!cfg.interval || !srv.t_first)
		return;
	while (t >= srv.iv.last.t1 + step)
		ivl_cut(&srv.iv, srv.iv.last.t1 + step, srv.rx_bytes,
			srv.rx_msgs, srv.replies, false);
}

/* When the server must look up: @deadline, or the end of an interval. */
static int64_t srv_wake(int64_t deadline)
{
	int64_t t;

	if (!cfg.interval || !srv.t_first)
		return deadline;
	t = srv.iv.last.t1 + secs_ns(cfg.interval);
	return t < deadline ? t : deadline;
}

/* Answer a message of @f with one message: @len bytes of its pattern. */
static void srv_reply(int fd, const struct sockaddr_storage *to, socklen_t tolen,
		      struct sflow *f, uint32_t len)
{
	struct iovec iov[MPDT_MSG_MAX / PAT_PERIOD + 2];
	struct msghdr m = {
		.msg_name = (void *)to,
		.msg_namelen = tolen,
		.msg_iov = iov,
		.msg_iovlen = pat_iov(iov, f->id, len),
	};

	if (sendmsg(fd, &m, MSG_NOSIGNAL) != (ssize_t)len) {
		srv.reply_errors++;
		return;
	}
	f->replies++;
	srv.replies++;
	srv.tx_bytes += len;
}

/* One datagram (MPDT message or UDP datagram) of @n bytes. */
static void srv_datagram(int fd, const uint8_t *buf, uint64_t n, int64_t t,
			 const struct sockaddr_storage *from, socklen_t flen)
{
	struct perf_hdr h;
	struct sflow *f;
	char src[64];

	if (n < HDR_LEN || !hdr_get(buf, &h) || h.len != n) {
		srv.bad_msgs++;
		return;
	}
	f = flow_find(h.flow);
	if (!f) {
		addr_str(from, src, sizeof(src));
		f = flow_new(&h, src);
	}
	if (h.flags & FLAG_FIN) {
		flow_fin(f, &h);
		if (flow_complete(f) || cfg.proto == P_UDP)
			flow_done(f);
		return;
	}
	if (!flow_matches(f, &h)) {
		srv.bad_msgs++;
		return;
	}
	if (seen_before(f, h.seq)) {
		f->dups++;
		return;
	}
	if (cfg.verify &&
	    !pat_check(buf + HDR_LEN, n - HDR_LEN, h.flow, h.offset + HDR_LEN))
		f->corrupt++;
	if (!f->first_rx) {
		f->first_rx = t;
		f->first_len = n;
	}
	f->last_rx = t;
	f->bytes += n;
	f->msgs++;
	srv_rx(n, t);
	srv.rx_msgs++;
	if (h.reply_len)
		srv_reply(fd, from, flen, f, h.reply_len);
	if (flow_complete(f))
		flow_done(f);
}

/* UDP flows whose FIN was lost end after udp_idle seconds of silence. */
static void srv_udp_idle(int64_t t)
{
	size_t i;

	for (i = 0; i < srv.nflows; i++) {
		struct sflow *f = &srv.flows[i];

		if (!f->done && f->last_rx &&
		    t - f->last_rx > secs_ns(cfg.udp_idle)) {
			f->idle = true;
			flow_done(f);
		}
	}
}

static int srv_socket(int type, int proto)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	socklen_t len;
	int fd, one = 1;

	fd = socket(cfg.family, type, proto);
	if (fd < 0)
		die("socket");
	if (type == SOCK_STREAM &&
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("SO_REUSEADDR");
	if (cfg.family == AF_INET6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(cfg.port);
		len = sizeof(*sin6);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(cfg.port);
		len = sizeof(*sin);
	}
	if (bind(fd, (struct sockaddr *)&ss, len))
		die("bind");
	/* UDP: lose datagrams in the network, not in the socket. */
	if (proto == IPPROTO_UDP) {
		int rcvbuf = 16 << 20;

		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	}
	if (type == SOCK_STREAM && listen(fd, 1024))
		die("listen");
	/* Datagrams: a reply blocks at most that long. */
	if (type == SOCK_DGRAM)
		set_timeouts(fd);
	return fd;
}

static void srv_ready(void)
{
	srv.t_ready = now_ns();
	if (cfg.ready) {
		FILE *f = fopen(cfg.ready, "w");

		if (!f)
			die(cfg.ready);
		fclose(f);
	}
}

static bool srv_finished(void)
{
	return stop || (cfg.count > 0 && srv.ndone >= cfg.count);
}

static int poll_ms(int64_t deadline)
{
	int64_t left = deadline - now_ns();

	if (left <= 0)
		return 0;
	return left > 100 * 1000000LL ? 100 : (int)(left / 1000000) + 1;
}

/* MPDT and UDP: one socket, any number of senders. */
static void srv_dgram_loop(int64_t deadline)
{
	size_t cap = cfg.proto == P_MPDT ? MPDT_MSG_MAX + 1 : UDP_MSG_MAX + 1;
	uint8_t *buf = xmalloc(cap);
	int fd;

	if (cfg.proto == P_MPDT)
		fd = srv_socket(SOCK_DGRAM, IPPROTO_MPDT);
	else
		fd = srv_socket(SOCK_DGRAM, IPPROTO_UDP);
	srv_ready();
	while (!srv_finished() && now_ns() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_storage from;
		socklen_t flen = sizeof(from);
		ssize_t n;

		if (cfg.proto == P_UDP)
			srv_udp_idle(now_ns());
		srv_tick(now_ns());
		if (poll(&p, 1, poll_ms(srv_wake(deadline))) <= 0)
			continue;
		n = recvfrom(fd, buf, cap, MSG_TRUNC | MSG_DONTWAIT,
			     (struct sockaddr *)&from, &flen);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR ||
			    errno == ECONNREFUSED)
				continue;
			die("recvfrom");
		}
		if ((size_t)n >= cap) {
			srv.bad_msgs++;
			continue;
		}
		srv_datagram(fd, buf, n, now_ns(), &from, flen);
	}
	free(buf);
	/* MPDT has no TIME_WAIT yet: the kernel acknowledges a sender's
	 * retransmissions only while the socket is open, and a sender whose
	 * last SACKs were lost would retry into a closed port until it
	 * fails, although every byte arrived.  Stay a while.
	 */
	if (cfg.proto == P_MPDT && srv_finished() && !stop)
		usleep(SRV_MPDT_DRAIN_MS * 1000);
	close(fd);
}

static void conn_fail(struct sconn *c, const char *why)
{
	if (c->f && !c->f->error && !c->f->complete)
		c->f->error = why;
	if (!c->f)
		srv.bad_msgs++;
	close(c->fd);
	c->fd = -1;
}

/* Write the replies @c owes, as far as the socket takes them. */
static void conn_flush(struct sconn *c)
{
	while (c->owed && c->fd >= 0) {
		uint64_t k = c->reply_len - c->out_off;
		ssize_t n;

		k = k < PAT_PERIOD ? k : PAT_PERIOD;
		n = send(c->fd, pat_at(c->f->id, c->out_off), k,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				conn_fail(c, "connection error");
			return;
		}
		c->owed -= n;
		c->out_off += n;
		srv.tx_bytes += n;
		if (c->out_off == c->reply_len) {
			c->out_off = 0;
			c->f->replies++;
			srv.replies++;
		}
	}
}

/* A flow on a stream is done when it is complete and owes no reply. */
static void conn_check_done(struct sconn *c)
{
	if (c->f && !c->owed && flow_complete(c->f))
		flow_done(c->f);
}

/* A complete message header arrived on @c at time @t. */
static bool conn_hdr(struct sconn *c, int64_t t)
{
	struct perf_hdr h;
	struct sflow *f = c->f;

	if (!hdr_get(c->hdr, &h))
		return false;
	c->fin = h.flags & FLAG_FIN;
	if (!f) {
		if (c->fin || flow_find(h.flow))
			return false;	/* a second connection for one flow */
		f = flow_new(&h, c->src);
		f->first_rx = t;
		f->first_len = HDR_LEN;
		c->f = f;
		c->reply_len = h.reply_len;
	}
	if (h.flow != f->id || h.seq != f->next_seq || h.offset != f->bytes)
		return false;
	c->left = 0;
	if (c->fin) {
		if (!f->open)
			return false;
		flow_fin(f, &h);
		return true;
	}
	if (!flow_matches(f, &h) || h.reply_len != c->reply_len)
		return false;
	f->next_seq++;
	f->bytes += HDR_LEN;
	f->last_rx = t;
	c->left = h.len - HDR_LEN;
	c->pos = h.offset + HDR_LEN;
	c->bad = false;
	return true;
}

static void conn_msg_end(struct sconn *c)
{
	struct sflow *f = c->f;

	c->hdr_have = 0;
	if (!c->fin) {
		f->msgs++;
		srv.rx_msgs++;
		if (c->bad)
			f->corrupt++;
		c->owed += c->reply_len;
		conn_flush(c);
	}
	conn_check_done(c);
}

/* Feed @n bytes read from @c at time @t to its parser. */
static void conn_input(struct sconn *c, const uint8_t *p, uint64_t n, int64_t t)
{
	while (n && c->fd >= 0) {
		uint64_t k;

		if (c->hdr_have < HDR_LEN) {
			k = HDR_LEN - c->hdr_have;
			k = k < n ? k : n;
			memcpy(c->hdr + c->hdr_have, p, k);
			c->hdr_have += k;
			p += k;
			n -= k;
			if (c->hdr_have < HDR_LEN)
				break;
			if (!conn_hdr(c, t)) {
				conn_fail(c, "bad header");
				return;
			}
			if (!c->left)
				conn_msg_end(c);
			continue;
		}
		k = c->left < n ? c->left : n;
		if (cfg.verify && !c->bad && !pat_check(p, k, c->f->id, c->pos))
			c->bad = true;
		c->pos += k;
		c->left -= k;
		c->f->bytes += k;
		c->f->last_rx = t;
		p += k;
		n -= k;
		if (!c->left)
			conn_msg_end(c);
	}
}

/* What poll() said of connection @c. */
static void conn_event(struct sconn *c, short ev, uint8_t *buf)
{
	ssize_t r;
	int64_t t;

	if (ev & POLLOUT) {
		conn_flush(c);
		conn_check_done(c);
	}
	if (c->fd < 0 || !(ev & (POLLIN | POLLERR | POLLHUP)))
		return;
	r = recv(c->fd, buf, STREAM_RBUF, MSG_DONTWAIT);
	if (r > 0) {
		t = now_ns();
		srv_rx(r, t);
		conn_input(c, buf, r, t);
	} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
		if (c->f && !c->f->complete)
			conn_fail(c, r ? "connection error" : "early EOF");
		else
			conn_fail(c, NULL);
	}
}

/* TCP and MPTCP: a listener and one connection per flow, one poll loop. */
static void srv_stream_loop(int64_t deadline)
{
	int lfd = srv_socket(SOCK_STREAM, cfg.proto == P_MPTCP ? IPPROTO_MPTCP : 0);
	uint8_t *buf = xmalloc(STREAM_RBUF);
	struct sconn *conns = NULL;
	struct pollfd *pfd = NULL;
	int nconns = 0, cap = 0, i;

	srv_ready();
	while (!srv_finished() && now_ns() < deadline) {
		int n = 0;

		if (nconns + 1 > cap) {
			cap = cap ? 2 * cap : 64;
			conns = realloc(conns, cap * sizeof(*conns));
			pfd = realloc(pfd, (cap + 1) * sizeof(*pfd));
			if (!conns || !pfd)
				die("realloc");
		}
		pfd[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < nconns; i++)
			pfd[n++] = (struct pollfd){
				.fd = conns[i].fd,
				.events = POLLIN | (conns[i].owed ? POLLOUT : 0),
			};
		srv_tick(now_ns());
		if (poll(pfd, n, poll_ms(srv_wake(deadline))) <= 0)
			continue;
		if (pfd[0].revents & POLLIN) {
			struct sockaddr_storage from;
			socklen_t flen = sizeof(from);
			int fd = accept(lfd, (struct sockaddr *)&from, &flen);

			if (fd >= 0) {
				struct sconn *c = &conns[nconns++];

				memset(c, 0, sizeof(*c));
				c->fd = fd;
				addr_str(&from, c->src, sizeof(c->src));
			}
		}
		for (i = 1; i < n; i++)
			conn_event(&conns[i - 1], pfd[i].revents, buf);
		/* Forget closed connections. */
		for (i = 0; i < nconns; i++) {
			if (conns[i].fd < 0)
				conns[i--] = conns[--nconns];
		}
	}
	for (i = 0; i < nconns; i++)
		close(conns[i].fd);
	free(conns);
	free(pfd);
	free(buf);
	close(lfd);
}

static void on_signal(int sig)
{
	stop = 1;
}

static void srv_json(FILE *o, bool timed_out, const struct cpu *cpu)
{
	bool all_ok = true;
	size_t i;

	fprintf(o, "{\"role\": \"server\"");
	jskey(o, "proto", proto_names[cfg.proto]);
	jskey(o, "family", cfg.family == AF_INET6 ? "ipv6" : "ipv4");
	ju64(o, "port", cfg.port);
	ju64(o, "count", cfg.count);
	ju64(o, "flows_done", srv.ndone);
	jbool(o, "timed_out", timed_out);
	jbool(o, "stopped", stop);
	ju64(o, "bad_msgs", srv.bad_msgs);
	ji64(o, "t_ready_ns", srv.t_ready);
	ji64(o, "t_exit_ns", now_ns());
	ju64(o, "rx_bytes", srv.rx_bytes);
	ju64(o, "rx_msgs", srv.rx_msgs);
	ju64(o, "tx_bytes", srv.tx_bytes);
	ju64(o, "replies", srv.replies);
	ju64(o, "reply_errors", srv.reply_errors);
	jdbl(o, "elapsed_s", (srv.t_last - srv.t_first) / 1e9);
	jdbl(o, "rx_mbps", mbps(srv.rx_bytes, srv.t_last - srv.t_first));
	jcpu(o, cpu, srv.rx_bytes + srv.tx_bytes);
	jdbl(o, "interval_s", cfg.interval);
	jintervals(o, &srv.iv, "replies");
	fprintf(o, ", \"flows\": [");
	for (i = 0; i < srv.nflows; i++) {
		struct sflow *f = &srv.flows[i];
		double secs = (f->last_rx - f->first_rx) / 1e9;
		bool ok = flow_ok(f);

		all_ok &= ok;
		fprintf(o, "%s{\"id\": %u", i ? ", " : "", f->id);
		jskey(o, "src", f->src);
		ju64(o, "bytes", f->bytes);
		ju64(o, "expect_bytes", f->expect_bytes);
		ju64(o, "msgs", f->msgs);
		ju64(o, "expect_msgs", f->expect_msgs);
		ji64(o, "first_rx_ns", f->first_rx);
		ji64(o, "last_rx_ns", f->last_rx);
		jdbl(o, "rx_mbps", secs > 0 ?
		     (f->bytes - f->first_len) * 8 / secs / 1e6 : 0);
		ju64(o, "corrupt", f->corrupt);
		ju64(o, "dups", f->dups);
		ju64(o, "replies", f->replies);
		jbool(o, "open", f->open);
		jbool(o, "complete", f->complete);
		if (cfg.proto == P_UDP) {
			jdbl_or_null(o, "loss", f->expect_bytes ?
				     1.0 - (double)f->bytes / f->expect_bytes : -1);
			jbool(o, "fin", f->fin);
			jbool(o, "idle_end", f->idle);
		}
		jskey(o, "error", f->error);
		jbool(o, "ok", ok);
		fputc('}', o);
	}
	fprintf(o, "]");
	jbool(o, "ok", all_ok && !timed_out && !srv.bad_msgs && !srv.reply_errors);
	fprintf(o, "}\n");
	fflush(o);
}

static void srv_text(const struct cpu *cpu)
{
	int64_t span = srv.t_last - srv.t_first;

	fprintf(stderr, "server %s port %d: %zu flows (%d done), %llu bytes in %llu msgs",
		proto_names[cfg.proto], cfg.port, srv.nflows, srv.ndone,
		(unsigned long long)srv.rx_bytes, (unsigned long long)srv.rx_msgs);
	fprintf(stderr, " over %.3f s: %.3f Mbit/s; %llu replies\n", span / 1e9,
		mbps(srv.rx_bytes, span), (unsigned long long)srv.replies);
	cpu_text(cpu, srv.rx_bytes + srv.tx_bytes);
}

static int server_main(void)
{
	int64_t deadline = now_ns() + secs_ns(cfg.timeout);
	bool timed_out;
	struct cpu cpu;
	size_t i;

	pat_init(PAT_PERIOD);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (cfg.proto == P_MPDT || cfg.proto == P_UDP)
		srv_dgram_loop(deadline);
	else
		srv_stream_loop(deadline);
	timed_out = !stop && cfg.count > 0 && srv.ndone < cfg.count;
	if (cfg.interval && srv.t_first) {
		srv_tick(srv.t_last);
		ivl_cut(&srv.iv, srv.t_last, srv.rx_bytes, srv.rx_msgs,
			srv.replies, true);
	}
	cpu_get(&cpu);
	srv_json(stdout, timed_out, &cpu);
	srv_text(&cpu);
	if (timed_out || srv.bad_msgs || srv.reply_errors)
		return 1;
	for (i = 0; i < srv.nflows; i++) {
		if (!flow_ok(&srv.flows[i]))
			return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Client
 */

/* The message being written: by streams, and by every flow of
 * --one-thread.
 */
struct wmsg {
	struct perf_hdr h;
	struct iovec iov[2];
	struct iovec *cur;	/* the first iovec not all written */
	int cnt;		/* iovecs left, 0: no message */
	uint32_t len;
	int64_t t_tx;
	bool fin;
};

struct cflow {
	uint32_t id;
	pthread_t th;
	int fd;
	uint64_t rng;		/* its message sizes */
	uint64_t plan_bytes;	/* its size and messages, for the headers */
	uint64_t plan_msgs;	/* (0 and 0 if open: -t) */
	atomic_ullong bytes;	/* handed to the socket */
	atomic_ullong msgs;
	atomic_ullong ndone;	/* messages known complete */
	uint64_t rx_bytes;	/* replies */
	uint32_t rx_off;	/* streams: bytes of the reply being read */
	uint64_t acked;		/* MPDT: mi_msgs_acked at the last look */
	struct vec t_tx;	/* when each message was handed to the socket */
	struct vec fct;		/* how long each complete message took */
	int64_t t_connect;	/* connect() duration, streams */
	int64_t t_start;
	int64_t t_stop;		/* -t: no message begins after it */
	int64_t t_sent;
	int64_t t_end;
	int64_t t_done;		/* the last completion */
	int64_t t_polled;	/* MPDT: the last look at MPDT_INFO */
	int64_t t_progress;	/* the flow last moved */
	int err;
	const char *err_what;
	char lb[MPDT_ALGO_NAME_MAX];
	char cc[MPDT_ALGO_NAME_MAX];
	struct mpdt_info mi;
	bool have_mi;
	struct tcp_info ti;
	bool have_ti;
	int sock_proto;
	struct mptcp_info mpi;
	bool have_mpi;
	int mptcp_nsub;
	uint64_t mptcp_retrans;
	uint64_t send_errors;	/* UDP */
	struct wmsg w;		/* --one-thread: the message being written */
	bool more;		/* --one-thread: messages still to begin */
	bool shut;		/* --one-thread, streams: all written */
	bool live;		/* --one-thread: not yet ended */
};

static struct sockaddr_storage dst;
static socklen_t dst_len;
static pthread_barrier_t barrier;
static enum method method;
static uint32_t reply_len;	/* what each message asks the server for */
static uint64_t window;		/* messages not yet complete, at most; 0: any */
static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t run_cond = PTHREAD_COND_INITIALIZER;
static int running;		/* flows not yet finished */

static bool cl_fail(struct cflow *c, const char *what)
{
	if (!c->err_what) {
		c->err = errno;
		c->err_what = what;
	}
	return false;
}

/* No progress for --timeout seconds: the flow fails (ETIMEDOUT). */
static bool stalled(const struct cflow *c)
{
	if (now_ns() - c->t_progress <= secs_ns(cfg.timeout))
		return false;
	errno = ETIMEDOUT;
	return true;
}

/* How long poll() may wait: until the flow stalls, at most a second. */
static int ms_left(const struct cflow *c)
{
	int64_t left = c->t_progress + secs_ns(cfg.timeout) - now_ns();

	if (left <= 0)
		return 0;
	return left > NSEC ? 1000 : (int)(left / 1000000) + 1;
}

/* Socket, options, connect: everything before the first byte. */
static bool cl_setup(struct cflow *c)
{
	static const int types[] = {
		[P_MPDT] = SOCK_DGRAM, [P_TCP] = SOCK_STREAM,
		[P_MPTCP] = SOCK_STREAM, [P_UDP] = SOCK_DGRAM,
	};
	static const int protos[] = {
		[P_MPDT] = IPPROTO_MPDT, [P_TCP] = IPPROTO_TCP,
		[P_MPTCP] = IPPROTO_MPTCP, [P_UDP] = IPPROTO_UDP,
	};
	socklen_t len = sizeof(c->sock_proto);
	int64_t t;

	c->fd = socket(dst.ss_family, types[cfg.proto], protos[cfg.proto]);
	if (c->fd < 0)
		return cl_fail(c, "socket");
	getsockopt(c->fd, SOL_SOCKET, SO_PROTOCOL, &c->sock_proto, &len);
	set_timeouts(c->fd);
	if (cfg.proto == P_MPDT) {
		if (cfg.lb && setsockopt(c->fd, SOL_MPDT, MPDT_LB, cfg.lb,
					 strlen(cfg.lb) + 1))
			return cl_fail(c, "MPDT_LB");
		if (cfg.cc && setsockopt(c->fd, SOL_MPDT, MPDT_CC, cfg.cc,
					 strlen(cfg.cc) + 1))
			return cl_fail(c, "MPDT_CC");
		len = sizeof(c->lb) - 1;
		getsockopt(c->fd, SOL_MPDT, MPDT_LB, c->lb, &len);
		len = sizeof(c->cc) - 1;
		getsockopt(c->fd, SOL_MPDT, MPDT_CC, c->cc, &len);
	}
	t = now_ns();
	if (connect(c->fd, (struct sockaddr *)&dst, dst_len))
		return cl_fail(c, "connect");
	c->t_connect = now_ns() - t;
	return true;
}

/* The flow's size and messages for its headers: a dry run of its sizes
 * (stopped past the 2^32 - 1 messages a header can count).  An open flow
 * (-t) has neither.
 */
static void cl_plan(struct cflow *c)
{
	uint64_t rng = c->rng, bytes = 0, n = 0;

	while (!cfg.duration && n <= UINT32_MAX &&
	       (cfg.size ? bytes < cfg.size : n < cfg.msgs)) {
		bytes += next_size(&rng, cfg.size ? cfg.size - bytes : UINT64_MAX);
		n++;
	}
	c->plan_bytes = bytes;
	c->plan_msgs = n;
}

/* The size of the flow's next message, 0 when it has sent them all. */
static uint32_t next_len(struct cflow *c)
{
	int64_t t = now_ns();

	if (!c->t_start) {
		c->t_start = t;
		c->t_stop = t + secs_ns(cfg.duration);
	}
	if (cfg.duration ? t >= c->t_stop : c->msgs >= c->plan_msgs)
		return 0;
	return next_size(&c->rng, cfg.size ? cfg.size - c->bytes : UINT64_MAX);
}

/* The next message of @c, @len bytes (header @w and the pattern), or its
 * FIN (FLAG_FIN, @len HDR_LEN).
 */
static void cl_msg(const struct cflow *c, struct perf_hdr *w, struct iovec *iov,
		   uint32_t len, uint32_t flags)
{
	bool fin = flags & FLAG_FIN;
	struct perf_hdr h = {
		.flow = c->id,
		.seq = c->msgs,
		.offset = c->bytes,
		.flow_bytes = fin ? c->bytes : c->plan_bytes,
		.flow_msgs = fin ? c->msgs : c->plan_msgs,
		.reply_len = fin ? 0 : reply_len,
		.len = len,
		.flags = flags | (cfg.duration ? FLAG_OPEN : 0),
	};

	hdr_put(w, &h);
	iov[0] = (struct iovec){ .iov_base = w, .iov_len = HDR_LEN };
	iov[1] = (struct iovec){
		.iov_base = (void *)pat_at(c->id, c->bytes + HDR_LEN),
		.iov_len = len - HDR_LEN,
	};
}

/* The socket took a whole message of @len bytes, first offered at @t_tx. */
static void msg_sent(struct cflow *c, uint32_t len, int64_t t_tx)
{
	if (method != M_NONE)
		vec_push(&c->t_tx, t_tx);
	c->bytes += len;
	c->msgs++;
	c->t_sent = now_ns();
	c->t_progress = c->t_sent;
}

/* The oldest message not yet complete completed at @t. */
static void msg_done(struct cflow *c, int64_t t)
{
	vec_push(&c->fct, t - c->t_tx.v[c->ndone]);
	c->ndone++;
	c->t_done = t;
	c->t_progress = t;
}

/* Whether --inflight (or --rr's one request) lets another message go. */
static bool window_open(const struct cflow *c)
{
	return !window || c->msgs - c->ndone < window;
}

static int mpdt_get_info(struct cflow *c)
{
	socklen_t len = sizeof(c->mi);

	memset(&c->mi, 0, sizeof(c->mi));
	memcpy(&c->mi.mi_peer, &dst, dst_len);
	return getsockopt(c->fd, SOL_MPDT, MPDT_INFO, &c->mi, &len);
}

/* MPDT: read MPDT_INFO.  Messages that mi_msgs_acked newly counts are
 * complete, taken in the order they were sent: the counter says how many
 * messages were acknowledged, not which, so if they complete out of order
 * each time is still one message's completion, paired with another's
 * sendmsg().
 */
static bool mpdt_poll(struct cflow *c)
{
	socklen_t elen = sizeof(int);
	uint64_t acked;
	int err = 0;

	if (mpdt_get_info(c))
		return cl_fail(c, "MPDT_INFO");
	c->have_mi = true;
	c->t_polled = now_ns();
	getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &elen);
	if (err) {
		errno = err;
		return cl_fail(c, "waiting for acks");
	}
	if (c->mi.mi_msgs_acked > c->acked) {
		c->acked = c->mi.mi_msgs_acked;
		c->t_progress = c->t_polled;
	}
	acked = c->acked < c->msgs ? c->acked : c->msgs;
	while (method == M_MPDT && c->ndone < acked)
		msg_done(c, c->t_polled);
	return true;
}

/* MPDT: hand a message (or the FIN) to the socket without blocking, so as
 * to read MPDT_INFO every --ack-poll microseconds while the send buffer
 * or --inflight holds it back.
 */
static bool mpdt_send(struct cflow *c, uint32_t len, uint32_t flags)
{
	struct perf_hdr h;
	struct iovec iov[2];
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	int64_t t_tx = 0;

	cl_msg(c, &h, iov, len, flags);
	for (;;) {
		if (c->msgs && now_ns() - c->t_polled >= cfg.ack_poll_us * 1000LL &&
		    !mpdt_poll(c))
			return false;
		if ((flags & FLAG_FIN) || window_open(c)) {
			if (!t_tx)
				t_tx = now_ns();
			if (sendmsg(c->fd, &m, MSG_DONTWAIT) == (ssize_t)len) {
				if (!(flags & FLAG_FIN))
					msg_sent(c, len, t_tx);
				return true;
			}
			if (errno != EAGAIN && errno != EINTR)
				return cl_fail(c, "sendmsg");
		}
		if (stalled(c))
			return cl_fail(c, "sendmsg");
		usleep(cfg.ack_poll_us);
	}
}

/* MPDT: done when the peer has acknowledged @total messages. */
static bool cl_wait_mpdt(struct cflow *c, uint64_t total)
{
	for (;;) {
		if (!mpdt_poll(c))
			return false;
		if (c->acked >= total)
			return true;
		if (stalled(c))
			return cl_fail(c, "waiting for acks");
		usleep(cfg.ack_poll_us);
	}
}

static bool cl_mpdt(struct cflow *c)
{
	uint32_t len;

	while ((len = next_len(c))) {
		if (!mpdt_send(c, len, 0))
			return false;
	}
	if (cfg.duration && !mpdt_send(c, HDR_LEN, FLAG_FIN))
		return false;
	return cl_wait_mpdt(c, c->msgs + (cfg.duration ? 1 : 0));
}

/* MPDT --rr: the reply to the last request, one message into @buf. */
static bool mpdt_reply(struct cflow *c, uint8_t *buf)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	ssize_t n;

	for (;;) {
		if (poll(&p, 1, ms_left(c)) < 0 && errno != EINTR)
			return cl_fail(c, "poll");
		n = recv(c->fd, buf, reply_len + 1, MSG_DONTWAIT | MSG_TRUNC);
		if (n >= 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			return cl_fail(c, "recv");
		if (stalled(c))
			return cl_fail(c, "waiting for the reply");
	}
	if (n != reply_len || (cfg.verify && !pat_check(buf, n, c->id, 0))) {
		errno = EBADMSG;
		return cl_fail(c, "reply");
	}
	c->rx_bytes += n;
	msg_done(c, now_ns());
	return true;
}

/* MPDT --rr: one request at a time, each answered by one message. */
static bool cl_rr_mpdt(struct cflow *c)
{
	uint8_t *buf = xmalloc(reply_len + 1);
	bool ok = true;
	uint32_t len;

	while (ok && (len = next_len(c)))
		ok = mpdt_send(c, len, 0) && mpdt_reply(c, buf);
	free(buf);
	if (ok && cfg.duration)
		ok = mpdt_send(c, HDR_LEN, FLAG_FIN);
	return ok && cl_wait_mpdt(c, c->msgs + (cfg.duration ? 1 : 0));
}

/* Streams: the server closes after reading everything; wait for that. */
static bool cl_wait_stream(struct cflow *c)
{
	char b[256];
	ssize_t n;

	if (shutdown(c->fd, SHUT_WR))
		return cl_fail(c, "shutdown");
	do {
		n = recv(c->fd, b, sizeof(b), 0);
	} while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0)
		return cl_fail(c, "waiting for the server to close");
	return true;
}

static void cl_stream_stats(struct cflow *c)
{
	struct {
		struct mptcp_subflow_data d;
		struct tcp_info ti[16];
	} sub;
	socklen_t len = sizeof(c->ti);
	int i;

	c->have_ti = !getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &c->ti, &len);
	if (c->sock_proto != IPPROTO_MPTCP)
		return;
	len = sizeof(c->mpi);
	c->have_mpi = !getsockopt(c->fd, SOL_MPTCP, MPTCP_INFO, &c->mpi, &len);
	memset(&sub, 0, sizeof(sub));
	sub.d.size_subflow_data = sizeof(sub.d);
	sub.d.size_user = sizeof(sub.ti[0]);
	len = sizeof(sub);
	c->mptcp_nsub = -1;
	if (getsockopt(c->fd, SOL_MPTCP, MPTCP_TCPINFO, &sub, &len))
		return;
	c->mptcp_nsub = sub.d.num_subflows;
	for (i = 0; i < (int)sub.d.num_subflows && i < 16; i++)
		c->mptcp_retrans += sub.ti[i].tcpi_total_retrans;
}

/* Start the flow's next message, or its FIN; false once all data is out. */
static bool wmsg_next(struct cflow *c, struct wmsg *w)
{
	uint32_t len = next_len(c);

	if (!len && !cfg.duration)
		return false;
	w->fin = !len;
	w->len = len ? len : HDR_LEN;
	w->t_tx = now_ns();
	cl_msg(c, &w->h, w->iov, w->len, w->fin ? FLAG_FIN : 0);
	w->cur = w->iov;
	w->cnt = 2;
	return len;
}

/* Write what the socket takes of the message; false on an error. */
static bool wmsg_write(struct cflow *c, struct wmsg *w)
{
	while (w->cnt) {
		struct msghdr m = { .msg_iov = w->cur, .msg_iovlen = w->cnt };
		ssize_t n = sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return true;
			return cl_fail(c, "write");
		}
		c->t_progress = now_ns();
		while (w->cnt && (size_t)n >= w->cur->iov_len) {
			n -= w->cur->iov_len;
			w->cur++;
			w->cnt--;
		}
		if (w->cnt) {
			w->cur->iov_base = (uint8_t *)w->cur->iov_base + n;
			w->cur->iov_len -= n;
		}
	}
	if (!w->fin)
		msg_sent(c, w->len, w->t_tx);
	return true;
}

/* Streams: @n bytes of replies; each whole reply completes the oldest
 * message.
 */
static bool cl_replies(struct cflow *c, const uint8_t *p, size_t n, int64_t t)
{
	while (n) {
		uint32_t k = reply_len - c->rx_off;

		if (c->ndone == c->msgs) {
			errno = EPROTO;
			return cl_fail(c, "reply");
		}
		k = k < n ? k : n;
		if (cfg.verify && !pat_check(p, k, c->id, c->rx_off)) {
			errno = EBADMSG;
			return cl_fail(c, "reply");
		}
		c->rx_bytes += k;
		c->rx_off += k;
		p += k;
		n -= k;
		if (c->rx_off == reply_len) {
			c->rx_off = 0;
			msg_done(c, t);
		}
	}
	return true;
}

/* Streams: wait until the socket takes more (@writing) or replies come,
 * and read them.
 */
static bool cl_stream_wait(struct cflow *c, bool writing)
{
	struct pollfd p = {
		.fd = c->fd,
		.events = (writing ? POLLOUT : 0) | (reply_len ? POLLIN : 0),
	};
	uint8_t buf[16384];
	ssize_t n;
	int r;

	r = poll(&p, 1, ms_left(c));
	if (r < 0 && errno != EINTR)
		return cl_fail(c, "poll");
	if (r <= 0 && stalled(c))
		return cl_fail(c, writing ? "write" : "waiting for replies");
	if (!reply_len || !(p.revents & (POLLIN | POLLERR | POLLHUP)))
		return true;
	n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n > 0)
		return cl_replies(c, buf, n, now_ns());
	if (!n)
		errno = ECONNRESET;
	else if (errno == EAGAIN || errno == EINTR)
		return true;
	return cl_fail(c, "waiting for replies");
}

/* TCP and MPTCP: the messages back to back on the connection; with
 * replies (--acks, --rr), at most `window` of them unanswered.  Then the
 * server's close.
 */
static bool cl_stream(struct cflow *c)
{
	struct wmsg w = { .cnt = 0 };
	bool more = true;

	for (;;) {
		if (!w.cnt && more && window_open(c))
			more = wmsg_next(c, &w);
		if (w.cnt && !wmsg_write(c, &w))
			return false;
		if (!w.cnt && !more && (!reply_len || c->ndone == c->msgs))
			return cl_wait_stream(c);
		if (!w.cnt && more && window_open(c))
			continue;
		if (!cl_stream_wait(c, w.cnt))
			return false;
	}
}

static bool cl_udp(struct cflow *c)
{
	struct perf_hdr h;
	struct iovec iov[2];
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	uint32_t len;
	int k;

	while ((len = next_len(c))) {
		cl_msg(c, &h, iov, len, 0);
		if (cfg.rate_mbit > 0)
			sleep_until(c->t_start +
				    (int64_t)(c->bytes * 8000 / cfg.rate_mbit));
		if (sendmsg(c->fd, &m, 0) < 0) {
			if (errno != ENOBUFS && errno != ECONNREFUSED &&
			    errno != EAGAIN && errno != EINTR)
				return cl_fail(c, "sendmsg");
			c->send_errors++;
		}
		msg_sent(c, len, 0);
	}
	/* Some FINs: they may meet a full queue. */
	for (k = 0; k < 6; k++) {
		usleep(50000);
		cl_msg(c, &h, iov, HDR_LEN, FLAG_FIN);
		sendmsg(c->fd, &m, 0);
	}
	return true;
}

/* What a flow that ended (@ok: without an error) leaves for the report. */
static void cl_end(struct cflow *c, bool ok)
{
	switch (cfg.proto) {
	case P_MPDT:
		if (!ok && !mpdt_get_info(c))
			c->have_mi = true;
		c->t_end = now_ns();
		break;
	case P_TCP:
	case P_MPTCP:
		c->t_end = now_ns();
		cl_stream_stats(c);
		break;
	case P_UDP:
		c->t_end = c->t_sent;
		break;
	}
}

static void cl_run(struct cflow *c)
{
	bool ok = false;

	switch (cfg.proto) {
	case P_MPDT:
		ok = cfg.rr ? cl_rr_mpdt(c) : cl_mpdt(c);
		break;
	case P_TCP:
	case P_MPTCP:
		ok = cl_stream(c);
		break;
	case P_UDP:
		ok = cl_udp(c);
		break;
	}
	cl_end(c, ok);
}

/* The flow is over: its socket goes, and the report stops waiting for it. */
static void cl_close(struct cflow *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	pthread_mutex_lock(&run_lock);
	running--;
	pthread_cond_signal(&run_cond);
	pthread_mutex_unlock(&run_lock);
}

static void *cl_thread(void *arg)
{
	struct cflow *c = arg;
	bool ok = cl_setup(c);

	pthread_barrier_wait(&barrier);
	if (ok) {
		if (cfg.start_at)
			sleep_until(cfg.start_at);
		c->t_progress = now_ns();
		cl_run(c);
	}
	cl_close(c);
	return NULL;
}

/* ---------------------------------------------------------------------
 * --one-thread: every flow from one thread, as iperf3 -P sends its
 * streams, so that K flows share the CPUs with the receiver as one task,
 * not K.  Each flow takes a step that never blocks; when none moved, the
 * thread sleeps in poll() on all of them.
 */

enum step { STEP_MOVED, STEP_WAIT, STEP_DONE, STEP_FAILED };

/* A flow that could not move: it waits, or it has stalled (--timeout). */
static enum step step_wait(struct cflow *c, const char *what)
{
	if (!stalled(c))
		return STEP_WAIT;
	cl_fail(c, what);
	return STEP_FAILED;
}

/* MPDT: the next message (or the FIN) if the socket takes it whole; done
 * once the peer has acknowledged every message.  MPDT_INFO is read every
 * --ack-poll microseconds, as mpdt_send() does.
 */
static enum step mpdt_step(struct cflow *c)
{
	struct wmsg *w = &c->w;
	struct msghdr m = { .msg_iov = w->iov, .msg_iovlen = 2 };

	if (c->msgs && now_ns() - c->t_polled >= cfg.ack_poll_us * 1000LL &&
	    !mpdt_poll(c))
		return STEP_FAILED;
	if (!w->cnt && c->more)
		c->more = wmsg_next(c, w);
	if (!w->cnt) {
		if (c->acked >= c->msgs + (cfg.duration ? 1 : 0))
			return STEP_DONE;
		return step_wait(c, "waiting for acks");
	}
	if (sendmsg(c->fd, &m, MSG_DONTWAIT) == (ssize_t)w->len) {
		w->cnt = 0;
		if (!w->fin)
			msg_sent(c, w->len, w->t_tx);
		return STEP_MOVED;
	}
	if (errno != EAGAIN && errno != EINTR) {
		cl_fail(c, "sendmsg");
		return STEP_FAILED;
	}
	return step_wait(c, "sendmsg");
}

/* Streams: what the socket takes of the next message; once all is
 * written, the server's close (after it read everything), as
 * cl_wait_stream() waits for it.
 */
static enum step stream_step(struct cflow *c)
{
	int64_t t = c->t_progress;
	struct wmsg *w = &c->w;
	char b[256];
	ssize_t n;

	if (!w->cnt && c->more)
		c->more = wmsg_next(c, w);
	if (w->cnt) {
		if (!wmsg_write(c, w))
			return STEP_FAILED;
		/* wmsg_write() stamps t_progress for any bytes written. */
		return c->t_progress != t ? STEP_MOVED : step_wait(c, "write");
	}
	if (!c->shut) {
		if (shutdown(c->fd, SHUT_WR)) {
			cl_fail(c, "shutdown");
			return STEP_FAILED;
		}
		c->shut = true;
	}
	n = recv(c->fd, b, sizeof(b), MSG_DONTWAIT);
	if (n >= 0)
		return n ? STEP_MOVED : STEP_DONE;
	if (errno == EAGAIN || errno == EINTR)
		return STEP_WAIT;
	cl_fail(c, "waiting for the server to close");
	return STEP_FAILED;
}

/* What wakes the flow: room in its socket, or the server's close. */
static short step_events(const struct cflow *c)
{
	if (c->w.cnt)
		return POLLOUT;
	return c->shut ? POLLIN : 0;
}

/* Sleep until a live flow's socket is ready, or at most until MPDT_INFO
 * is due (a second for streams: their stall check).  With @ready_late
 * (the last poll() said ready, yet no flow moved since: an MPDT message
 * larger than the half of the send buffer that makes a socket writable)
 * only the timeout wakes the thread.  Returns whether a socket was ready.
 */
static bool step_sleep(struct cflow *fl, struct pollfd *pfd, bool ready_late)
{
	int64_t ns = cfg.proto == P_MPDT ? cfg.ack_poll_us * 1000LL : NSEC;
	struct timespec ts = { .tv_sec = ns / NSEC, .tv_nsec = ns % NSEC };
	nfds_t n = 0;
	int i;

	for (i = 0; i < cfg.flows && !ready_late; i++) {
		if (fl[i].live)
			pfd[n++] = (struct pollfd){ .fd = fl[i].fd,
						    .events = step_events(&fl[i]) };
	}
	return ppoll(pfd, n, &ts, NULL) > 0;
}

static void *cl_one_thread(void *arg)
{
	struct pollfd *pfd = xmalloc(cfg.flows * sizeof(*pfd));
	struct cflow *fl = arg, *c;
	bool moved, ready = false;
	int i, live = 0;

	for (i = 0; i < cfg.flows; i++) {
		fl[i].live = cl_setup(&fl[i]);
		live += fl[i].live;
	}
	pthread_barrier_wait(&barrier);
	if (cfg.start_at)
		sleep_until(cfg.start_at);
	for (i = 0; i < cfg.flows; i++) {
		fl[i].t_progress = now_ns();
		fl[i].more = true;
		if (!fl[i].live)
			cl_close(&fl[i]);
	}
	while (live) {
		moved = false;
		for (c = fl; c < fl + cfg.flows; c++) {
			enum step s;

			if (!c->live)
				continue;
			s = cfg.proto == P_MPDT ? mpdt_step(c) : stream_step(c);
			moved |= s != STEP_WAIT;
			if (s < STEP_DONE)
				continue;
			cl_end(c, s == STEP_DONE);
			cl_close(c);
			c->live = false;
			live--;
		}
		if (moved)
			ready = false;
		else if (live)
			ready = step_sleep(fl, pfd, ready);
	}
	free(pfd);
	return NULL;
}

/* An interval report of every flow's counters at @t. */
static void cl_cut(struct ivls *iv, struct cflow *fl, int64_t t, bool last)
{
	uint64_t bytes = 0, msgs = 0, done = 0;
	int i;

	for (i = 0; i < cfg.flows; i++) {
		bytes += fl[i].bytes;
		msgs += fl[i].msgs;
		done += fl[i].ndone;
	}
	ivl_cut(iv, t, bytes, msgs, done, last);
}

/* -i: a report every interval from @t0 until every flow has finished,
 * and one of what the last, shorter interval saw.
 */
static void cl_report(struct ivls *iv, struct cflow *fl, int64_t t0)
{
	int64_t step = secs_ns(cfg.interval), next = t0 + step;
	struct timespec ts;

	ivl_begin(iv, t0, "done");
	pthread_mutex_lock(&run_lock);
	for (;;) {
		if (now_ns() >= next) {
			cl_cut(iv, fl, next, false);
			next += step;
		} else if (running) {
			ts.tv_sec = next / NSEC;
			ts.tv_nsec = next % NSEC;
			pthread_cond_timedwait(&run_cond, &run_lock, &ts);
		} else {
			break;
		}
	}
	pthread_mutex_unlock(&run_lock);
	cl_cut(iv, fl, now_ns(), true);
}

static const char * const retx_names[__MPDT_RETX_MAX] = {
	[MPDT_RETX_OOO] = "ooo", [MPDT_RETX_PROBE] = "probe",
	[MPDT_RETX_RTO] = "rto", [MPDT_RETX_NACK] = "nack",
};

static void print_mpdt_stats(FILE *o, const struct cflow *c)
{
	const struct mpdt_info *mi = &c->mi;
	uint64_t retx = 0;
	int k;

	for (k = 0; k < __MPDT_RETX_MAX; k++)
		retx += mi->mi_retx[k];
	ju64(o, "retransmits", retx);
	jkey(o, "retx");
	for (k = 0; k < __MPDT_RETX_MAX; k++)
		fprintf(o, "%s\"%s\": %llu", k ? ", " : "{", retx_names[k],
			(unsigned long long)mi->mi_retx[k]);
	fputc('}', o);
	ju64(o, "probes", mi->mi_probes);
	ju64(o, "rtos", mi->mi_rtos);
	ju64(o, "sacks_rcvd", mi->mi_sacks_rcvd);
	ju64(o, "nacks_rcvd", mi->mi_nacks_rcvd);
	ju64(o, "msgs_acked", mi->mi_msgs_acked);
	ju64(o, "bytes_sent", mi->mi_bytes_sent);
	ju64(o, "bytes_acked", mi->mi_bytes_acked);
	ju64(o, "srtt_us", mi->mi_srtt_us);
	ju64(o, "min_rtt_us", mi->mi_min_rtt_us);
	ju64(o, "base_rtt_us", mi->mi_base_rtt_us);
	ju64(o, "bdp", mi->mi_bdp);
	ju64(o, "delivery_rate", mi->mi_delivery_rate);
	ju64(o, "peer_room", mi->mi_peer_room);
	ju64(o, "cwnd", mi->mi_cwnd);
	ju64(o, "state", mi->mi_state);
}

static void print_stream_stats(FILE *o, const struct cflow *c)
{
	ju64(o, "sock_protocol", c->sock_proto);
	ji64(o, "connect_ns", c->t_connect);
	if (c->sock_proto == IPPROTO_MPTCP) {
		if (c->mptcp_nsub >= 0)
			ju64(o, "retransmits", c->mptcp_retrans);
		fprintf(o, ", \"mptcp\": {\"subflows\": %d", c->mptcp_nsub);
		if (c->have_mpi) {
			jbool(o, "fallback",
			      c->mpi.mptcpi_flags & MPTCP_INFO_FLAG_FALLBACK);
			ju64(o, "add_addr_accepted",
			     c->mpi.mptcpi_add_addr_accepted);
		}
		fputc('}', o);
	} else if (c->have_ti) {
		ju64(o, "retransmits", c->ti.tcpi_total_retrans);
	}
	if (c->have_ti) {
		ju64(o, "srtt_us", c->ti.tcpi_rtt);
		ju64(o, "cwnd_pkts", c->ti.tcpi_snd_cwnd);
	}
}

/* What all flows did together. */
struct totals {
	uint64_t tx_bytes, rx_bytes, msgs, done;
	int64_t t_first, t_last;	/* the first start, the last end */
	struct summary lat;
	bool ok;
};

static void cl_totals(const struct cflow *fl, struct totals *t)
{
	struct vec all = { 0 };
	size_t k;
	int i;

	memset(t, 0, sizeof(*t));
	t->ok = true;
	for (i = 0; i < cfg.flows; i++) {
		const struct cflow *c = &fl[i];

		t->tx_bytes += c->bytes;
		t->rx_bytes += c->rx_bytes;
		t->msgs += c->msgs;
		t->done += c->ndone;
		t->ok &= !c->err_what;
		if (c->t_start && (!t->t_first || c->t_start < t->t_first))
			t->t_first = c->t_start;
		if (c->t_end > t->t_last)
			t->t_last = c->t_end;
		for (k = 0; k < c->fct.n; k++)
			vec_push(&all, c->fct.v[k]);
	}
	summarize(all.v, all.n, &t->lat);
	free(all.v);
}

static void cl_flow_json(FILE *o, struct cflow *c)
{
	struct summary s;

	jskey(o, "proto", proto_names[cfg.proto]);
	if (cfg.proto == P_MPDT) {
		jskey(o, "lb", c->have_mi ? c->mi.mi_lb : c->lb);
		jskey(o, "cc", c->have_mi ? c->mi.mi_cc : c->cc);
	}
	ju64(o, "bytes", c->bytes);
	ju64(o, "msgs", c->msgs);
	ji64(o, "t_start_ns", c->t_start);
	ji64(o, "t_sent_ns", c->t_sent);
	ji64(o, "t_end_local_ns", c->t_end);
	ji64(o, "late_ns", cfg.start_at && c->t_start ?
	     c->t_start - cfg.start_at : 0);
	ju64(o, "msgs_done", c->ndone);
	ju64(o, "rx_bytes", c->rx_bytes);
	ji64(o, "fct_local_ns", c->t_done && c->ndone == c->msgs ?
	     c->t_done - c->t_start : 0);
	summarize(c->fct.v, c->fct.n, &s);
	jsummary(o, "latency", &s, true);
	if (cfg.proto == P_MPDT && c->have_mi)
		print_mpdt_stats(o, c);
	else if (cfg.proto == P_TCP || cfg.proto == P_MPTCP)
		print_stream_stats(o, c);
	else if (cfg.proto == P_UDP)
		ju64(o, "send_errors", c->send_errors);
	if (c->err_what) {
		char e[160];

		snprintf(e, sizeof(e), "%s: %s", c->err_what, strerror(c->err));
		jskey(o, "error", e);
	} else {
		jskey(o, "error", NULL);
	}
	jbool(o, "ok", !c->err_what);
}

static void cl_json(FILE *o, struct cflow *fl, const struct totals *t,
		    const struct cpu *cpu, const struct ivls *iv, const char *dstr)
{
	int64_t span = t->t_last - t->t_first;
	int i;

	fprintf(o, "{\"role\": \"client\"");
	jskey(o, "proto", proto_names[cfg.proto]);
	jskey(o, "dst", dstr);
	ju64(o, "size", cfg.size);
	ju64(o, "msg", dist_max());
	ju64(o, "nflows", cfg.flows);
	ji64(o, "start_at_ns", cfg.start_at);
	if (cfg.proto == P_UDP)
		jdbl(o, "rate_mbit", cfg.rate_mbit);
	jskey(o, "mode", cfg.rr ? "rr" : "flow");
	jskey(o, "sizes", dist.spec);
	ju64(o, "seed", cfg.seed);
	ju64(o, "msgs_per_flow", cfg.msgs);
	jdbl(o, "duration_s", cfg.duration);
	jdbl(o, "interval_s", cfg.interval);
	ju64(o, "reply", reply_len);
	jbool(o, "acks", cfg.acks);
	ju64(o, "inflight", window);
	jbool(o, "one_thread", cfg.one_thread);
	jskey(o, "fct_method", method_names[method]);
	if (cfg.proto == P_MPDT)
		ju64(o, "fct_poll_us", cfg.ack_poll_us);
	jdbl(o, "elapsed_s", span / 1e9);
	ju64(o, "tx_bytes", t->tx_bytes);
	ju64(o, "rx_bytes", t->rx_bytes);
	ju64(o, "msgs", t->msgs);
	ju64(o, "msgs_done", t->done);
	jdbl(o, "tx_mbps", mbps(t->tx_bytes, span));
	if (cfg.rr) {
		ju64(o, "transactions", t->done);
		jdbl(o, "tps", span > 0 ? t->done * 1e9 / span : 0);
	}
	jsummary(o, "latency", &t->lat, true);
	jcpu(o, cpu, t->tx_bytes + t->rx_bytes);
	jintervals(o, iv, "msgs_done");
	fprintf(o, ", \"flows\": [");
	for (i = 0; i < cfg.flows; i++) {
		fprintf(o, "%s{\"id\": %u", i ? ", " : "", fl[i].id);
		cl_flow_json(o, &fl[i]);
		fputc('}', o);
	}
	fprintf(o, "]");
	jbool(o, "ok", t->ok);
	fprintf(o, "}\n");
	fflush(o);
}

static void cl_text(const struct cflow *fl, const struct totals *t,
		    const struct cpu *cpu, const char *dstr)
{
	int64_t span = t->t_last - t->t_first;
	const struct summary *l = &t->lat;
	int i;

	fprintf(stderr, "client %s to %s: %d flows, %llu bytes in %llu msgs",
		proto_names[cfg.proto], dstr, cfg.flows,
		(unsigned long long)t->tx_bytes, (unsigned long long)t->msgs);
	fprintf(stderr, " over %.3f s: %.3f Mbit/s\n", span / 1e9,
		mbps(t->tx_bytes, span));
	if (cfg.rr)
		fprintf(stderr, "rr: %llu transactions, %.1f per second\n",
			(unsigned long long)t->done,
			span > 0 ? t->done * 1e9 / span : 0);
	if (l->n)
		fprintf(stderr, "latency (%s, %llu msgs): mean %.1f us, "
			"p50 %.1f, p99 %.1f, p99.9 %.1f, max %.1f us\n",
			method_names[method], (unsigned long long)l->n,
			l->mean / 1e3, l->p50 / 1e3, l->p99 / 1e3,
			l->p999 / 1e3, l->max / 1e3);
	cpu_text(cpu, t->tx_bytes + t->rx_bytes);
	for (i = 0; i < cfg.flows; i++) {
		if (fl[i].err_what)
			fprintf(stderr, "flow %u: %s: %s\n", fl[i].id,
				fl[i].err_what, strerror(fl[i].err));
	}
}

/* Options that exclude each other, and defaults that depend on others. */
static void client_check(void)
{
	uint64_t def;

	if (!cfg.addr)
		bad("client: -a ADDR is required");
	if (!!cfg.size + !!cfg.msgs + !!cfg.duration != 1)
		bad("client: give one of --size, --msgs and -t");
	if (cfg.flows < 1)
		bad("--flows must be 1 or more");
	if ((cfg.lb || cfg.cc) && cfg.proto != P_MPDT)
		bad("--lb and --cc are for --proto mpdt");
	if (cfg.msg && cfg.sizes)
		bad("--msg or --sizes, not both");
	if (cfg.rr && (cfg.proto == P_UDP || cfg.acks || cfg.inflight))
		bad("--rr: mpdt, tcp or mptcp, without --acks or --inflight");
	if (cfg.reply && !cfg.rr)
		bad("--reply is for --rr");
	if (cfg.acks && cfg.proto != P_TCP && cfg.proto != P_MPTCP)
		bad("--acks: tcp or mptcp (mpdt has MPDT_INFO)");
	if (cfg.inflight && cfg.proto != P_MPDT && !cfg.acks)
		bad("--inflight: mpdt, or tcp and mptcp with --acks");
	if (cfg.one_thread &&
	    (cfg.proto == P_UDP || cfg.rr || cfg.acks || cfg.inflight))
		bad("--one-thread: mpdt, tcp or mptcp, without --rr, --acks or --inflight");
	if (cfg.size && cfg.size < HDR_LEN)
		bad("--size must be %u bytes or more", HDR_LEN);
	if (cfg.proto == P_UDP)
		def = UDP_MSG;
	else if (cfg.rr)
		def = RR_DEFAULT;
	else if (cfg.size)
		def = cfg.size < (1u << 20) ? cfg.size : 1u << 20;
	else
		def = MSG_DEFAULT;
	sizes_setup(def);
	if (cfg.size / dist_max() >= UINT32_MAX)
		bad("--size: more than 2^32 - 1 messages");
	if (cfg.rr && !cfg.reply)
		cfg.reply = RR_DEFAULT;
	if (cfg.reply > msg_max)
		bad("--reply must be 1..%llu bytes", (unsigned long long)msg_max);
	if (cfg.rr)
		method = M_RR;
	else if (cfg.proto == P_MPDT)
		method = M_MPDT;
	else
		method = cfg.acks ? M_ACK : M_NONE;
	reply_len = cfg.acks ? 1 : cfg.reply;
	window = cfg.rr ? 1 : cfg.inflight;
}

static int client_main(void)
{
	struct ivls iv = { 0 };
	struct totals tot;
	struct cflow *fl;
	struct cpu cpu;
	char dstr[80];
	int64_t t0;
	int i, nth;

	if (parse_addr(cfg.addr, cfg.port, &dst, &dst_len) < 0) {
		fprintf(stderr, "mpdt-perf: bad address %s\n", cfg.addr);
		return 2;
	}
	addr_str(&dst, dstr, sizeof(dstr));
	pat_init(dist_max() + HDR_LEN);
	signal(SIGPIPE, SIG_IGN);
	fl = xmalloc(cfg.flows * sizeof(*fl));
	for (i = 0; i < cfg.flows; i++) {
		fl[i].id = cfg.id + i;
		fl[i].fd = -1;
		fl[i].rng = flow_rng(fl[i].id);
		cl_plan(&fl[i]);
		if (fl[i].plan_msgs > UINT32_MAX) {
			fprintf(stderr, "mpdt-perf: more than 2^32 - 1 messages in a flow\n");
			return 2;
		}
	}
	running = cfg.flows;
	nth = cfg.one_thread ? 1 : cfg.flows;
	pthread_barrier_init(&barrier, NULL, nth + 1);
	for (i = 0; i < nth; i++) {
		if (pthread_create(&fl[i].th, NULL,
				   cfg.one_thread ? cl_one_thread : cl_thread,
				   &fl[i]))
			die("pthread_create");
	}
	pthread_barrier_wait(&barrier);
	t0 = now_ns();
	if (cfg.interval)
		cl_report(&iv, fl, cfg.start_at > t0 ? cfg.start_at : t0);
	for (i = 0; i < nth; i++)
		pthread_join(fl[i].th, NULL);
	cl_totals(fl, &tot);
	cpu_get(&cpu);
	cl_json(stdout, fl, &tot, &cpu, &iv, dstr);
	cl_text(fl, &tot, &cpu, dstr);
	return tot.ok ? 0 : 1;
}

/* mpdt-perf dist: the sizes flow --id draws, and their statistics. */
static int dist_main(void)
{
	uint64_t rng = flow_rng(cfg.id), n = cfg.msgs ? cfg.msgs : 1000, i;
	int64_t *v = xmalloc(n * sizeof(*v));
	struct summary s;
	FILE *o = stdout;

	fprintf(o, "{\"role\": \"dist\"");
	jskey(o, "sizes", dist.spec);
	jskey(o, "proto", proto_names[cfg.proto]);
	ju64(o, "seed", cfg.seed);
	ju64(o, "id", cfg.id);
	ju64(o, "max", dist_max());
	jkey(o, "values");
	for (i = 0; i < n; i++) {
		v[i] = dist_draw(&rng);
		fprintf(o, "%s%lld", i ? ", " : "[", (long long)v[i]);
	}
	fputc(']', o);
	summarize(v, n, &s);
	jsummary(o, "stats", &s, false);
	fprintf(o, "}\n");
	free(v);
	return 0;
}

/* ---------------------------------------------------------------------
 * Command line
 */

static const char usage_text[] =
	"usage: mpdt-perf server [-p PORT] [-6] [--proto P] [--count N] [--timeout S]\n"
	"                        [--ready FILE] [--udp-idle S] [--no-verify] [-i S]\n"
	"       mpdt-perf client -a ADDR (--size BYTES | --msgs N | -t S) [-p PORT]\n"
	"                        [--proto P] [--lb NAME] [--cc NAME]\n"
	"                        [--msg BYTES | --sizes DIST] [--seed N] [--flows K]\n"
	"                        [--id N] [--start-at EPOCH_NS] [--rate MBIT]\n"
	"                        [--timeout S] [-i S] [--rr [--reply BYTES]] [--acks]\n"
	"                        [--inflight N] [--ack-poll US] [--no-verify]\n"
	"                        [--one-thread]\n"
	"       mpdt-perf dist (--sizes DIST | --msg BYTES) [--msgs N] [--seed N]\n"
	"                      [--id N] [--proto P]\n"
	"       mpdt-perf -h | --help\n"
	"Server:\n"
	"  -p, --port PORT    port (default 7471)\n"
	"  -6, --ipv6         an AF_INET6 socket (also reachable over IPv4)\n"
	"  --proto P          mpdt (default), tcp, mptcp, udp\n"
	"  --count N          exit once N flows are done\n"
	"  --timeout S        exit after S seconds (default 120)\n"
	"  --ready FILE       create FILE once listening\n"
	"  --udp-idle S       a UDP flow ends after S seconds of silence (default 1)\n"
	"  --no-verify        do not check the payload (client: the replies)\n"
	"  -i, --interval S   report every S seconds\n"
	"Client:\n"
	"  -a, --addr ADDR    the server's IPv4 or IPv6 address\n"
	"  --size BYTES       send BYTES per flow, or\n"
	"  --msgs N           N messages per flow, or\n"
	"  -t, --time S       messages for S seconds\n"
	"  --msg BYTES        message size (default: SIZE up to 1M; --msgs, -t:\n"
	"                     128K; --rr: 64; udp: 1400)\n"
	"  --sizes DIST       sizes drawn from fixed:N, uniform:A:B,\n"
	"                     lognormal:MU:SIGMA (of ln bytes), file:PATH (lines of\n"
	"                     SIZE,FRACTION: the share of messages of SIZE or less)\n"
	"  --seed N           the draws' seed (default 1)\n"
	"  --flows K          K concurrent flows, ids N to N+K-1 (--id, default 1)\n"
	"  --lb NAME          MPDT_LB: load balancing\n"
	"  --cc NAME          MPDT_CC: congestion control\n"
	"  --start-at NS      start at this CLOCK_REALTIME time (date +%s%N)\n"
	"  --rate MBIT        udp: pace at MBIT Mbit/s\n"
	"  --timeout S        a flow fails after S seconds without progress (120)\n"
	"  --rr               request/response: one request at a time, each\n"
	"                     answered with --reply BYTES (default 64)\n"
	"  --acks             tcp, mptcp: the server answers each message with a byte\n"
	"  --inflight N       at most N messages not yet acknowledged (mpdt, --acks)\n"
	"  --ack-poll US      mpdt: read MPDT_INFO every US microseconds (500)\n"
	"  --one-thread       send every flow from one thread, as iperf3 -P does\n"
	"                     (mpdt, tcp, mptcp; not with --rr, --acks, --inflight)\n"
	"Dist: the sizes flow --id draws (--msgs, default 1000), and their stats.\n"
	"Sizes take K, M, G (binary).  Output: one line of JSON on stdout, a report\n"
	"on stderr (Documentation/perf.rst).\n";

/* A usage error: the usage on stderr, exit 2. */
static void usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

/* -h, --help: the usage on stdout, exit 0. */
static void help(void)
{
	fputs(usage_text, stdout);
	exit(0);
}

static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

static uint64_t parse_size(const char *s)
{
	uint64_t v;
	char *end;

	if (!scan_size(s, &end, &v) || *end)
		bad("bad size %s", s);
	return v;
}

/* A whole number up to @max. */
static uint64_t parse_uint(const char *s, uint64_t max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s < '0' || *s > '9' || *end || errno || v > max)
		bad("bad number %s", s);
	return v;
}

/* Seconds, or Mbit/s: 0 or more (more than 0 unless @zero). */
static double parse_real(const char *s, bool zero)
{
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || *end || !(v >= 0 && v < 1e9) || (!zero && !v))
		bad("bad number %s", s);
	return v;
}

static enum proto parse_proto(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(proto_names); i++) {
		if (!strcmp(s, proto_names[i]))
			return i;
	}
	bad("unknown protocol %s", s);
	return P_MPDT;
}

enum {
	O_PROTO = 256, O_LB, O_CC, O_SIZE, O_MSG, O_FLOWS, O_ID, O_START,
	O_RATE, O_COUNT, O_TIMEOUT, O_READY, O_IDLE, O_NOVERIFY, O_MSGS,
	O_SIZES, O_SEED, O_RR, O_REPLY, O_ACKS, O_INFLIGHT, O_ACK_POLL,
	O_ONE_THREAD,
};

static const struct option long_opts[] = {
	{ "addr", required_argument, NULL, 'a' },
	{ "port", required_argument, NULL, 'p' },
	{ "ipv6", no_argument, NULL, '6' },
	{ "time", required_argument, NULL, 't' },
	{ "interval", required_argument, NULL, 'i' },
	{ "proto", required_argument, NULL, O_PROTO },
	{ "lb", required_argument, NULL, O_LB },
	{ "cc", required_argument, NULL, O_CC },
	{ "size", required_argument, NULL, O_SIZE },
	{ "msg", required_argument, NULL, O_MSG },
	{ "msgs", required_argument, NULL, O_MSGS },
	{ "sizes", required_argument, NULL, O_SIZES },
	{ "seed", required_argument, NULL, O_SEED },
	{ "flows", required_argument, NULL, O_FLOWS },
	{ "id", required_argument, NULL, O_ID },
	{ "start-at", required_argument, NULL, O_START },
	{ "rate", required_argument, NULL, O_RATE },
	{ "count", required_argument, NULL, O_COUNT },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "ready", required_argument, NULL, O_READY },
	{ "udp-idle", required_argument, NULL, O_IDLE },
	{ "no-verify", no_argument, NULL, O_NOVERIFY },
	{ "rr", no_argument, NULL, O_RR },
	{ "reply", required_argument, NULL, O_REPLY },
	{ "acks", no_argument, NULL, O_ACKS },
	{ "inflight", required_argument, NULL, O_INFLIGHT },
	{ "ack-poll", required_argument, NULL, O_ACK_POLL },
	{ "one-thread", no_argument, NULL, O_ONE_THREAD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options that take numbers. */
static void parse_num_opt(int c, const char *arg)
{
	switch (c) {
	case 'p':
		cfg.port = parse_uint(arg, 65535);
		break;
	case 't':
		cfg.duration = parse_real(arg, false);
		break;
	case 'i':
		cfg.interval = parse_real(arg, false);
		break;
	case O_SIZE:
		cfg.size = parse_size(arg);
		break;
	case O_MSG:
		cfg.msg = parse_size(arg);
		break;
	case O_MSGS:
		cfg.msgs = parse_uint(arg, UINT32_MAX);
		break;
	case O_SEED:
		cfg.seed = parse_uint(arg, UINT64_MAX);
		break;
	case O_FLOWS:
		cfg.flows = parse_uint(arg, 4096);
		break;
	case O_ID:
		cfg.id = parse_uint(arg, UINT32_MAX);
		break;
	case O_START:
		cfg.start_at = parse_uint(arg, INT64_MAX);
		break;
	case O_RATE:
		cfg.rate_mbit = parse_real(arg, true);
		break;
	case O_COUNT:
		cfg.count = parse_uint(arg, INT_MAX);
		break;
	case O_TIMEOUT:
		cfg.timeout = parse_real(arg, false);
		break;
	case O_IDLE:
		cfg.udp_idle = parse_real(arg, true);
		break;
	case O_REPLY:
		cfg.reply = parse_size(arg);
		if (!cfg.reply)
			bad("--reply must be 1 byte or more");
		break;
	case O_INFLIGHT:
		cfg.inflight = parse_uint(arg, UINT32_MAX);
		break;
	case O_ACK_POLL:
		cfg.ack_poll_us = parse_uint(arg, 1000000);
		if (!cfg.ack_poll_us)
			bad("--ack-poll must be 1 us or more");
		break;
	default:
		usage();
	}
}

static void parse_opt(int c, const char *arg)
{
	switch (c) {
	case 'a':
		cfg.addr = arg;
		break;
	case '6':
		cfg.family = AF_INET6;
		break;
	case O_PROTO:
		cfg.proto = parse_proto(arg);
		break;
	case O_LB:
		cfg.lb = arg;
		break;
	case O_CC:
		cfg.cc = arg;
		break;
	case O_SIZES:
		cfg.sizes = arg;
		break;
	case O_READY:
		cfg.ready = arg;
		break;
	case O_NOVERIFY:
		cfg.verify = false;
		break;
	case O_RR:
		cfg.rr = true;
		break;
	case O_ACKS:
		cfg.acks = true;
		break;
	case O_ONE_THREAD:
		cfg.one_thread = true;
		break;
	case 'h':
		help();
		break;
	default:
		parse_num_opt(c, arg);
	}
}

int main(int argc, char **argv)
{
	const char *role;
	int c;

	if (argc < 2)
		usage();
	if (is_help(argv[1]))
		help();
	role = argv[1];
	if (strcmp(role, "server") && strcmp(role, "client") && strcmp(role, "dist"))
		bad("unknown command %s", role);
	optind = 2;
	while ((c = getopt_long(argc, argv, "a:p:6ht:i:", long_opts, NULL)) != -1)
		parse_opt(c, optarg);
	if (optind != argc)
		bad("unexpected argument %s", argv[optind]);
	if (!cfg.port)
		bad("bad port 0");
	if (!strcmp(role, "server"))
		return server_main();
	if (!strcmp(role, "client")) {
		client_check();
		return client_main();
	}
	if (!cfg.msg == !cfg.sizes)
		bad("dist: --sizes DIST or --msg BYTES");
	sizes_setup(0);
	return dist_main();
}
