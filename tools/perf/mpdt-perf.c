// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt-perf: flow completion time benchmark for MPDT, TCP, MPTCP and UDP.
 *
 *   mpdt-perf server [-p PORT] [-6] [--proto P] [--count N] [--timeout S]
 *                    [--ready FILE] [--udp-idle S] [--no-verify]
 *   mpdt-perf client -a ADDR [-p PORT] [--proto P] [--lb NAME] [--cc NAME]
 *                    --size BYTES [--msg BYTES] [--flows K] [--id N]
 *                    [--start-at EPOCH_NS] [--rate MBIT] [--timeout S]
 *
 * A flow is SIZE bytes sent as messages of MSG bytes.  Every message starts
 * with a 48-byte header (flow id, index, offset, flow size) and goes on
 * with a pattern that depends on the flow id and the byte's offset in the
 * flow, so the server can check every byte.  MPDT and UDP send each
 * message as one datagram; TCP and MPTCP write the messages back to back
 * on one connection per flow.
 *
 * Times are CLOCK_REALTIME nanoseconds, so that a client's t_start_ns and
 * the server's last_rx_ns can be subtracted when both run on one machine
 * (network namespaces): that difference is the flow completion time.
 * Both ends print one line of JSON (Documentation/perf.rst, fct.py).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#define FLAG_FIN	1u		/* UDP: end of flow, no payload */
#define DEF_PORT	7471
#define UDP_MSG		1400u
#define UDP_MSG_MAX	65507u
#define STREAM_RBUF	(256u << 10)
#define MAX_SEEN_MSGS	0x4000000u	/* 64 Mi: 8 MiB of bitmap */
#define NSEC		1000000000LL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum proto { P_MPDT, P_TCP, P_MPTCP, P_UDP };

static const char * const proto_names[] = {
	[P_MPDT] = "mpdt", [P_TCP] = "tcp", [P_MPTCP] = "mptcp", [P_UDP] = "udp",
};

/* On the wire, big endian.  len includes the header. */
struct perf_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;		/* message index in the flow */
	uint64_t offset;	/* flow offset of the message's first byte */
	uint64_t flow_bytes;	/* size of the whole flow */
	uint64_t flow_msgs;	/* messages in the whole flow */
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
	uint64_t size;
	uint64_t msg;
	int flows;
	uint32_t id;
	int64_t start_at;
	double rate_mbit;
	int count;
	double timeout;
	double udp_idle;
	bool verify;
};

static struct cfg cfg = {
	.proto = P_MPDT,
	.family = AF_INET,
	.port = DEF_PORT,
	.flows = 1,
	.id = 1,
	.timeout = 120,
	.udp_idle = 1.0,
	.verify = true,
};

static uint8_t *pat;		/* PAT_PERIOD bytes repeated */
static atomic_int stop;

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

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

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

static void hdr_put(struct perf_hdr *h, uint32_t flow, uint64_t seq,
		    uint64_t off, uint64_t fbytes, uint64_t fmsgs, uint32_t len,
		    uint32_t flags)
{
	h->magic = htonl(PERF_MAGIC);
	h->flow = htonl(flow);
	h->seq = htobe64(seq);
	h->offset = htobe64(off);
	h->flow_bytes = htobe64(fbytes);
	h->flow_msgs = htobe64(fmsgs);
	h->len = htonl(len);
	h->flags = htonl(flags);
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
	h->flow_msgs = be64toh(h->flow_msgs);
	h->len = ntohl(h->len);
	h->flags = ntohl(h->flags);
	if (h->magic != PERF_MAGIC || h->len < HDR_LEN)
		return false;
	if (h->flags & FLAG_FIN)
		return h->len == HDR_LEN;
	return h->seq < h->flow_msgs && h->offset + h->len <= h->flow_bytes;
}

/* Message @i of a flow: its length and offset.  All messages are @msg
 * bytes but the last, which takes the rest; a rest shorter than a header
 * is added to the message before it.
 */
static uint64_t count_msgs(uint64_t size, uint64_t msg)
{
	uint64_t n = (size + msg - 1) / msg;

	if (n > 1 && size - (n - 1) * msg < HDR_LEN)
		n--;
	return n;
}

static uint32_t msg_len(uint64_t size, uint64_t msg, uint64_t n, uint64_t i)
{
	return i + 1 < n ? msg : size - (n - 1) * msg;
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

static void jskey(FILE *f, const char *k, const char *v)
{
	jkey(f, k);
	jstr(f, v);
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
	uint64_t next_seq;	/* streams: the next message expected */
	uint8_t *seen;		/* datagrams: bitmap of message indexes */
	uint64_t first_len;	/* bytes that had arrived at first_rx */
	int64_t first_rx;
	int64_t last_rx;
	const char *error;	/* streams: why the flow broke, if it did */
	bool fin;		/* UDP: the sender said it is done */
	bool idle;		/* UDP: ended by the idle timeout */
	bool complete;		/* every byte arrived */
	bool done;		/* counted as finished */
};

/* One TCP/MPTCP connection: a parser over its byte stream. */
struct sconn {
	int fd;
	char src[64];
	struct sflow *f;
	uint8_t hdr[sizeof(struct perf_hdr)];
	uint32_t hdr_have;
	uint64_t left;		/* payload bytes of the current message */
	uint64_t pos;		/* flow offset of the next payload byte */
	bool bad;		/* the current message failed the check */
};

struct server {
	struct sflow *flows;
	int nflows;
	int cap;
	int ndone;
	uint64_t bad_msgs;	/* not ours, truncated or inconsistent */
	int64_t t_ready;
};

static struct server srv;

static struct sflow *flow_find(uint32_t id)
{
	static int last;
	int i;

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

	if (srv.nflows == srv.cap) {
		srv.cap = srv.cap ? 2 * srv.cap : 64;
		srv.flows = realloc(srv.flows, srv.cap * sizeof(*f));
		if (!srv.flows)
			die("realloc");
	}
	f = &srv.flows[srv.nflows++];
	memset(f, 0, sizeof(*f));
	f->id = h->flow;
	snprintf(f->src, sizeof(f->src), "%s", src);
	f->expect_bytes = h->flow_bytes;
	f->expect_msgs = h->flow_msgs;
	return f;
}

static void flow_done(struct sflow *f)
{
	if (!f->done) {
		f->done = true;
		srv.ndone++;
	}
}

static bool flow_ok(const struct sflow *f)
{
	if (f->corrupt || f->dups || f->error)
		return false;
	return cfg.proto == P_UDP || f->complete;
}

/* One datagram (MPDT message or UDP datagram) of @n bytes. */
static void srv_datagram(const uint8_t *buf, uint64_t n, int64_t t,
			 const struct sockaddr_storage *from)
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
		f->fin = true;
		flow_done(f);
		return;
	}
	if (h.flow_bytes != f->expect_bytes || h.flow_msgs != f->expect_msgs) {
		srv.bad_msgs++;
		return;
	}
	if (!f->seen && f->expect_msgs <= MAX_SEEN_MSGS)
		f->seen = xmalloc((f->expect_msgs + 7) / 8);
	if (f->seen) {
		if (f->seen[h.seq / 8] & (1u << (h.seq % 8))) {
			f->dups++;
			return;
		}
		f->seen[h.seq / 8] |= 1u << (h.seq % 8);
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
	if (f->bytes == f->expect_bytes) {
		f->complete = true;
		flow_done(f);
	}
}

/* UDP flows whose FIN was lost end after udp_idle seconds of silence. */
static void srv_udp_idle(int64_t t)
{
	int i;

	for (i = 0; i < srv.nflows; i++) {
		struct sflow *f = &srv.flows[i];

		if (!f->done && f->last_rx &&
		    t - f->last_rx > (int64_t)(cfg.udp_idle * NSEC)) {
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
		if (poll(&p, 1, poll_ms(deadline)) <= 0)
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
		srv_datagram(buf, n, now_ns(), &from);
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

/* A complete message header arrived on @c at time @t. */
static bool conn_hdr(struct sconn *c, int64_t t)
{
	struct perf_hdr h;
	struct sflow *f = c->f;

	if (!hdr_get(c->hdr, &h) || (h.flags & FLAG_FIN))
		return false;
	if (!f) {
		if (flow_find(h.flow))
			return false;	/* a second connection for one flow */
		f = flow_new(&h, c->src);
		f->first_rx = t;
		f->first_len = HDR_LEN;
		c->f = f;
	}
	if (h.flow != f->id || h.seq != f->next_seq || h.offset != f->bytes ||
	    h.flow_bytes != f->expect_bytes)
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

	f->msgs++;
	if (c->bad)
		f->corrupt++;
	c->hdr_have = 0;
	if (f->bytes == f->expect_bytes) {
		f->complete = true;
		flow_done(f);
	}
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
			pfd[n++] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN };
		if (poll(pfd, n, poll_ms(deadline)) <= 0)
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
		for (i = 1; i < n; i++) {
			struct sconn *c = &conns[i - 1];
			ssize_t r;

			if (!(pfd[i].revents & (POLLIN | POLLERR | POLLHUP)))
				continue;
			r = recv(c->fd, buf, STREAM_RBUF, MSG_DONTWAIT);
			if (r > 0) {
				conn_input(c, buf, r, now_ns());
			} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
				if (c->f && !c->f->complete)
					conn_fail(c, r ? "connection error" : "early EOF");
				else
					conn_fail(c, NULL);
			}
		}
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

static int server_main(void)
{
	int64_t t0 = now_ns(), deadline = t0 + (int64_t)(cfg.timeout * NSEC);
	bool timed_out, all_ok = true;
	FILE *o = stdout;
	int i;

	pat_init(PAT_PERIOD);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (cfg.proto == P_MPDT || cfg.proto == P_UDP)
		srv_dgram_loop(deadline);
	else
		srv_stream_loop(deadline);
	timed_out = !stop && cfg.count > 0 && srv.ndone < cfg.count;

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
		jbool(o, "complete", f->complete);
		if (cfg.proto == P_UDP) {
			jdbl(o, "loss", f->expect_bytes ?
			     1.0 - (double)f->bytes / f->expect_bytes : 0);
			jbool(o, "fin", f->fin);
			jbool(o, "idle_end", f->idle);
		}
		jskey(o, "error", f->error);
		jbool(o, "ok", ok);
		fputc('}', o);
	}
	fprintf(o, "]");
	jbool(o, "ok", all_ok && !timed_out && !srv.bad_msgs);
	fprintf(o, "}\n");
	fflush(o);
	return all_ok && !timed_out && !srv.bad_msgs ? 0 : 1;
}

/* ---------------------------------------------------------------------
 * Client
 */

struct cflow {
	uint32_t id;
	pthread_t th;
	int fd;
	uint64_t nmsgs;
	uint64_t bytes;		/* handed to the socket */
	uint64_t msgs;
	int64_t t_connect;	/* connect() duration, streams */
	int64_t t_start;
	int64_t t_sent;
	int64_t t_end;
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
};

static struct sockaddr_storage dst;
static socklen_t dst_len;
static pthread_barrier_t barrier;

static bool cl_fail(struct cflow *c, const char *what)
{
	if (!c->err_what) {
		c->err = errno;
		c->err_what = what;
	}
	return false;
}

static void set_timeouts(int fd)
{
	struct timeval tv = {
		.tv_sec = (time_t)cfg.timeout,
		.tv_usec = (suseconds_t)((cfg.timeout - (time_t)cfg.timeout) * 1e6),
	};

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
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

static bool write_all(int fd, struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t n = writev(fd, iov, cnt);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		while (cnt && (size_t)n >= iov->iov_len) {
			n -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (uint8_t *)iov->iov_base + n;
			iov->iov_len -= n;
		}
	}
	return true;
}

/* Send the flow's messages, each a header and its pattern: one sendmsg()
 * per message on MPDT (one message each), a full write on a stream.
 */
static bool cl_send(struct cflow *c, bool stream)
{
	uint64_t i, off = 0;

	for (i = 0; i < c->nmsgs; i++) {
		uint32_t len = msg_len(cfg.size, cfg.msg, c->nmsgs, i);
		struct perf_hdr h;
		struct iovec iov[2] = {
			{ .iov_base = &h, .iov_len = HDR_LEN },
			{ .iov_base = (void *)pat_at(c->id, off + HDR_LEN),
			  .iov_len = len - HDR_LEN },
		};
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };

		hdr_put(&h, c->id, i, off, cfg.size, c->nmsgs, len, 0);
		if (!c->t_start)
			c->t_start = now_ns();
		if (stream ? !write_all(c->fd, iov, 2) :
			     sendmsg(c->fd, &m, 0) != (ssize_t)len)
			return cl_fail(c, stream ? "write" : "sendmsg");
		off += len;
		c->bytes += len;
		c->msgs++;
	}
	return true;
}

static int mpdt_get_info(struct cflow *c)
{
	socklen_t len = sizeof(c->mi);

	memset(&c->mi, 0, sizeof(c->mi));
	memcpy(&c->mi.mi_peer, &dst, dst_len);
	return getsockopt(c->fd, SOL_MPDT, MPDT_INFO, &c->mi, &len);
}

/* MPDT: done when the peer has acknowledged every message. */
static bool cl_wait_mpdt(struct cflow *c, int64_t deadline)
{
	for (;;) {
		socklen_t elen = sizeof(int);
		int err = 0;

		if (mpdt_get_info(c))
			return cl_fail(c, "MPDT_INFO");
		c->have_mi = true;
		if (c->mi.mi_msgs_acked >= c->nmsgs)
			return true;
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &elen);
		if (err) {
			errno = err;
			return cl_fail(c, "waiting for acks");
		}
		if (now_ns() > deadline) {
			errno = ETIMEDOUT;
			return cl_fail(c, "waiting for acks");
		}
		usleep(500);
	}
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

static bool cl_send_udp(struct cflow *c)
{
	uint64_t i, off = 0;
	int k;

	for (i = 0; i < c->nmsgs; i++) {
		uint32_t len = msg_len(cfg.size, cfg.msg, c->nmsgs, i);
		struct perf_hdr h;
		struct iovec iov[2] = {
			{ .iov_base = &h, .iov_len = HDR_LEN },
			{ .iov_base = (void *)pat_at(c->id, off + HDR_LEN),
			  .iov_len = len - HDR_LEN },
		};
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };

		hdr_put(&h, c->id, i, off, cfg.size, c->nmsgs, len, 0);
		if (!c->t_start)
			c->t_start = now_ns();
		if (cfg.rate_mbit > 0)
			sleep_until(c->t_start + (int64_t)(off * 8000 / cfg.rate_mbit));
		if (sendmsg(c->fd, &m, 0) < 0) {
			if (errno != ENOBUFS && errno != ECONNREFUSED &&
			    errno != EAGAIN && errno != EINTR)
				return cl_fail(c, "sendmsg");
			c->send_errors++;
		}
		off += len;
		c->bytes += len;
		c->msgs++;
	}
	c->t_sent = now_ns();
	/* Some FINs: they may meet a full queue. */
	for (k = 0; k < 6; k++) {
		struct perf_hdr h;

		usleep(50000);
		hdr_put(&h, c->id, 0, 0, cfg.size, c->nmsgs, HDR_LEN, FLAG_FIN);
		send(c->fd, &h, HDR_LEN, 0);
	}
	return true;
}

static void *cl_thread(void *arg)
{
	struct cflow *c = arg;
	bool ok = cl_setup(c);
	int64_t deadline;

	pthread_barrier_wait(&barrier);
	if (!ok)
		return NULL;
	if (cfg.start_at)
		sleep_until(cfg.start_at);
	deadline = now_ns() + (int64_t)(cfg.timeout * NSEC);
	switch (cfg.proto) {
	case P_MPDT:
		ok = cl_send(c, false);
		c->t_sent = now_ns();
		if (ok)
			ok = cl_wait_mpdt(c, deadline);
		else if (!mpdt_get_info(c))
			c->have_mi = true;
		c->t_end = now_ns();
		break;
	case P_TCP:
	case P_MPTCP:
		ok = cl_send(c, true);
		c->t_sent = now_ns();
		if (ok)
			cl_wait_stream(c);
		c->t_end = now_ns();
		cl_stream_stats(c);
		break;
	case P_UDP:
		cl_send_udp(c);
		c->t_end = c->t_sent;
		break;
	}
	close(c->fd);
	return NULL;
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

static int client_main(void)
{
	struct cflow *fl;
	bool all_ok = true;
	char dstr[80];
	FILE *o = stdout;
	int i, fam;

	fam = parse_addr(cfg.addr, cfg.port, &dst, &dst_len);
	if (fam < 0) {
		fprintf(stderr, "mpdt-perf: bad address %s\n", cfg.addr);
		return 2;
	}
	addr_str(&dst, dstr, sizeof(dstr));
	if (!cfg.msg)
		cfg.msg = cfg.proto == P_UDP ? UDP_MSG :
			  cfg.size < (1u << 20) ? cfg.size : (1u << 20);
	if (cfg.size < HDR_LEN || cfg.msg < HDR_LEN ||
	    (cfg.proto == P_UDP && cfg.msg > UDP_MSG_MAX) ||
	    cfg.msg > MPDT_MSG_MAX) {
		fprintf(stderr, "mpdt-perf: --size and --msg must be %u..%u bytes (udp: %u)\n",
			HDR_LEN, MPDT_MSG_MAX, UDP_MSG_MAX);
		return 2;
	}
	pat_init(cfg.msg + HDR_LEN);
	signal(SIGPIPE, SIG_IGN);
	fl = xmalloc(cfg.flows * sizeof(*fl));
	pthread_barrier_init(&barrier, NULL, cfg.flows);
	for (i = 0; i < cfg.flows; i++) {
		fl[i].id = cfg.id + i;
		fl[i].fd = -1;
		fl[i].nmsgs = count_msgs(cfg.size, cfg.msg);
		if (pthread_create(&fl[i].th, NULL, cl_thread, &fl[i]))
			die("pthread_create");
	}
	for (i = 0; i < cfg.flows; i++)
		pthread_join(fl[i].th, NULL);

	fprintf(o, "{\"role\": \"client\"");
	jskey(o, "proto", proto_names[cfg.proto]);
	jskey(o, "dst", dstr);
	ju64(o, "size", cfg.size);
	ju64(o, "msg", cfg.msg);
	ju64(o, "nflows", cfg.flows);
	ji64(o, "start_at_ns", cfg.start_at);
	if (cfg.proto == P_UDP)
		jdbl(o, "rate_mbit", cfg.rate_mbit);
	fprintf(o, ", \"flows\": [");
	for (i = 0; i < cfg.flows; i++) {
		struct cflow *c = &fl[i];
		bool ok = !c->err_what;

		all_ok &= ok;
		fprintf(o, "%s{\"id\": %u", i ? ", " : "", c->id);
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
		if (cfg.proto == P_MPDT && c->have_mi)
			print_mpdt_stats(o, c);
		else if (cfg.proto == P_TCP || cfg.proto == P_MPTCP)
			print_stream_stats(o, c);
		else if (cfg.proto == P_UDP)
			ju64(o, "send_errors", c->send_errors);
		if (c->err_what) {
			char e[160];

			snprintf(e, sizeof(e), "%s: %s", c->err_what,
				 strerror(c->err));
			jskey(o, "error", e);
		} else {
			jskey(o, "error", NULL);
		}
		jbool(o, "ok", ok);
		fputc('}', o);
	}
	fprintf(o, "]");
	jbool(o, "ok", all_ok);
	fprintf(o, "}\n");
	fflush(o);
	return all_ok ? 0 : 1;
}

/* ---------------------------------------------------------------------
 * Command line
 */

static const char usage_text[] =
	"usage: mpdt-perf server [-p PORT] [-6] [--proto P] [--count N] [--timeout S]\n"
	"                        [--ready FILE] [--udp-idle S] [--no-verify]\n"
	"       mpdt-perf client -a ADDR [-p PORT] [--proto P] [--lb NAME] [--cc NAME]\n"
	"                        --size BYTES [--msg BYTES] [--flows K] [--id N]\n"
	"                        [--start-at EPOCH_NS] [--rate MBIT] [--timeout S]\n"
	"       mpdt-perf -h | --help\n"
	"  P: mpdt (default), tcp, mptcp, udp.  Sizes take K, M, G (binary).\n"
	"  Output: one line of JSON on stdout (Documentation/perf.rst).\n";

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
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	if (end == s || *end)
		usage();
	return v;
}

static enum proto parse_proto(const char *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(proto_names); i++) {
		if (!strcmp(s, proto_names[i]))
			return i;
	}
	usage();
	return P_MPDT;
}

enum {
	O_PROTO = 256, O_LB, O_CC, O_SIZE, O_MSG, O_FLOWS, O_ID, O_START,
	O_RATE, O_COUNT, O_TIMEOUT, O_READY, O_IDLE, O_NOVERIFY,
};

static const struct option long_opts[] = {
	{ "addr", required_argument, NULL, 'a' },
	{ "port", required_argument, NULL, 'p' },
	{ "ipv6", no_argument, NULL, '6' },
	{ "proto", required_argument, NULL, O_PROTO },
	{ "lb", required_argument, NULL, O_LB },
	{ "cc", required_argument, NULL, O_CC },
	{ "size", required_argument, NULL, O_SIZE },
	{ "msg", required_argument, NULL, O_MSG },
	{ "flows", required_argument, NULL, O_FLOWS },
	{ "id", required_argument, NULL, O_ID },
	{ "start-at", required_argument, NULL, O_START },
	{ "rate", required_argument, NULL, O_RATE },
	{ "count", required_argument, NULL, O_COUNT },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "ready", required_argument, NULL, O_READY },
	{ "udp-idle", required_argument, NULL, O_IDLE },
	{ "no-verify", no_argument, NULL, O_NOVERIFY },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	bool server;
	int c;

	if (argc < 2)
		usage();
	if (is_help(argv[1]))
		help();
	if (!strcmp(argv[1], "server"))
		server = true;
	else if (!strcmp(argv[1], "client"))
		server = false;
	else
		usage();
	optind = 2;
	while ((c = getopt_long(argc, argv, "a:p:6h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			cfg.addr = optarg;
			break;
		case 'p':
			cfg.port = atoi(optarg);
			break;
		case '6':
			cfg.family = AF_INET6;
			break;
		case O_PROTO:
			cfg.proto = parse_proto(optarg);
			break;
		case O_LB:
			cfg.lb = optarg;
			break;
		case O_CC:
			cfg.cc = optarg;
			break;
		case O_SIZE:
			cfg.size = parse_size(optarg);
			break;
		case O_MSG:
			cfg.msg = parse_size(optarg);
			break;
		case O_FLOWS:
			cfg.flows = atoi(optarg);
			break;
		case O_ID:
			cfg.id = strtoul(optarg, NULL, 0);
			break;
		case O_START:
			cfg.start_at = strtoll(optarg, NULL, 0);
			break;
		case O_RATE:
			cfg.rate_mbit = atof(optarg);
			break;
		case O_COUNT:
			cfg.count = atoi(optarg);
			break;
		case O_TIMEOUT:
			cfg.timeout = atof(optarg);
			break;
		case O_READY:
			cfg.ready = optarg;
			break;
		case O_IDLE:
			cfg.udp_idle = atof(optarg);
			break;
		case O_NOVERIFY:
			cfg.verify = false;
			break;
		case 'h':
			help();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || cfg.port <= 0 || cfg.port > 65535 ||
	    cfg.timeout <= 0)
		usage();
	if (server)
		return server_main();
	if (!cfg.addr || !cfg.size || cfg.flows < 1 ||
	    ((cfg.lb || cfg.cc) && cfg.proto != P_MPDT))
		usage();
	return client_main();
}
