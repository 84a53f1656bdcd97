// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt_msg: send or receive a verifiable stream of MPDT messages.
 *
 *   mpdt_msg recv [-6] -p PORT -n COUNT [-s SEED] [-m MIN] [-M MAX]
 *                 [-t SECS] [-r READYFILE]
 *   mpdt_msg send -a ADDR -p PORT -n COUNT [-s SEED] [-m MIN] [-M MAX]
 *                 [-t SECS] [-l LOCALPORT] [-o FIRST]
 *                 [-w [-L LINGER_SECS]] [-g GOFILE] [-b LB] [-P RATE]
 *   mpdt_msg recv ... [-x STOPFILE] [-b LB]
 *   either with -S SIZE[,SIZE...] instead of -m and -M
 *
 * -6 (or an IPv6 -a) uses an AF_INET6 socket.
 *
 * Message sizes are log-uniform in [MIN, MAX] (every decade equally
 * likely), drawn from SEED, so both ends know the whole list; with -S,
 * message i has the (i mod k)th of the k SIZEs (sizes at the edges, many
 * in one transfer).  A message
 * of 16 bytes or more starts with its index; the rest of every message is
 * a pseudo-random stream of (SEED, index).  The receiver checks each
 * message's length and content hash and that each index arrives exactly
 * once, then prints one JSON line.  The sender waits until the peer has
 * acknowledged every message (MPDT_INFO) and prints its counters.
 *
 * -r: the receiver creates READYFILE once its socket is bound, so a test
 * can start the sender without racing the receiver's start-up.
 * -o: the sender sends indexes FIRST .. FIRST+COUNT-1 (default 0), so that
 * several senders can share one receiver (which then gets -n TOTAL).
 *
 * Closing as an application that sends and exits (mpdt(7), "Closing"):
 * -w: the sender does not poll MPDT_INFO; after its sends it calls
 * shutdown(SHUT_WR), which waits (up to -t, SO_SNDTIMEO) until every
 * message is acknowledged or fails with the pending error, reads SO_ERROR
 * and MPDT_INFO, sets SO_LINGER (-L seconds, default -t) and closes.  It
 * prints one JSON line saying which call, if any, reported an error
 * ("error_from": "sendto", "shutdown", "so_error" or ""; errno values,
 * EAGAIN from shutdown meaning -t ran out with no error) and the
 * connection's MPDT_INFO after the shutdown; exit 0 only if no call
 * failed.  A first sendto() that fails stops the sends (no shutdown).
 * -g: the sender opens its socket, creates READYFILE if -r names one, and
 * waits until GOFILE exists before its first send (senders released
 * together).
 * -x: the receiver keeps its socket open and keeps receiving after COUNT
 * messages, until STOPFILE exists (or -t runs out), so that a copy
 * delivered twice is counted in "duplicates", and the peer's last
 * packets are answered as long as the test wants.  It prints its JSON
 * line once when the COUNT messages are in, and again (final) at the end.
 * -b: the socket's load balancing (MPDT_LB), instead of the netns default.
 * -P: the socket's SO_MAX_PACING_RATE, bytes per second.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/mpdt.h>

#define HDR_LEN 16
#define MAX_SIZES 32
#define MAGIC 0x4d504454u

struct opts {
	int family;		/* AF_INET, or AF_INET6 with -6 or a v6 -a */
	const char *mode;
	const char *addr;
	const char *ready;
	const char *go;		/* send: wait for this file (-g) */
	const char *stop;	/* recv: receive until this file exists (-x) */
	const char *lb;		/* MPDT_LB of the socket (-b) */
	unsigned long max_pacing_rate;	/* SO_MAX_PACING_RATE (-P) */
	int port, lport, count, timeout, first;
	int shut;		/* send: shutdown(SHUT_WR) and close (-w) */
	int linger;		/* send -w: SO_LINGER seconds (-L) */
	uint64_t seed;
	uint32_t min, max;
	uint32_t sizes[MAX_SIZES];	/* -S: the sizes, in turn */
	int nsizes;
};

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t msg_size(const struct opts *o, int i)
{
	uint64_t s = o->seed * 1000003 + i;
	double u, lo, hi;
	uint32_t n;

	if (o->nsizes)
		return o->sizes[i % o->nsizes];
	u = (splitmix(&s) >> 11) * (1.0 / 9007199254740992.0);
	lo = log((double)o->min);
	hi = log((double)o->max + 1);
	n = (uint32_t)exp(lo + u * (hi - lo));
	/* The extremes are always in the list. */
	if (i == 0)
		return o->min;
	if (i == 1)
		return o->max;
	return n < o->min ? o->min : n > o->max ? o->max : n;
}

static void fill(const struct opts *o, int i, uint8_t *buf, uint32_t len)
{
	uint64_t s = o->seed ^ ((uint64_t)i << 32), r = 0;
	uint32_t k;

	for (k = 0; k < len; k++) {
		if (!(k & 7))
			r = splitmix(&s);
		buf[k] = r >> ((k & 7) * 8);
	}
	if (len >= HDR_LEN) {
		uint32_t h[4] = { htonl(MAGIC), htonl(i), htonl(len), 0 };

		memcpy(buf, h, HDR_LEN);
	}
}

static uint64_t fnv1a(const uint8_t *p, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--)
		h = (h ^ *p++) * 0x100000001b3ULL;
	return h;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* An MPDT socket of @family, bound to @port if not 0 (any address; an
 * AF_INET6 socket also receives from IPv4 peers, as v4-mapped).
 */
static int open_sock(int family, int port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr *sa = family == AF_INET6 ? (struct sockaddr *)&a6 :
						   (struct sockaddr *)&a;
	socklen_t salen = family == AF_INET6 ? sizeof(a6) : sizeof(a);
	int fd = socket(family, SOCK_DGRAM, IPPROTO_MPDT);

	if (fd < 0) {
		perror("socket");
		exit(2);
	}
	if (port && bind(fd, sa, salen)) {
		perror("bind");
		exit(2);
	}
	return fd;
}

/* -b: the socket's load-balancing policy; -P: its largest pacing rate. */
static void set_sockopts(int fd, const struct opts *o)
{
	if (o->lb && setsockopt(fd, SOL_MPDT, MPDT_LB, o->lb,
				strlen(o->lb) + 1)) {
		fprintf(stderr, "MPDT_LB %s: %s\n", o->lb, strerror(errno));
		exit(2);
	}
	if (o->max_pacing_rate &&
	    setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &o->max_pacing_rate,
		       sizeof(o->max_pacing_rate))) {
		perror("SO_MAX_PACING_RATE");
		exit(2);
	}
}

static void set_timeout(int fd, int secs)
{
	struct timeval tv = { .tv_sec = secs };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* Which index a received message is: from its header, or for a tiny one
 * the first unseen index of that length whose content matches.
 */
static int identify(const struct opts *o, const uint8_t *buf, uint32_t len,
		    const char *seen, uint8_t *ref)
{
	int i;

	if (len >= HDR_LEN) {
		uint32_t h[3];

		memcpy(h, buf, sizeof(h));
		if (ntohl(h[0]) != MAGIC || ntohl(h[2]) != len)
			return -1;
		i = ntohl(h[1]);
		return i < o->count ? i : -1;
	}
	for (i = 0; i < o->count; i++) {
		if (seen[i] || msg_size(o, i) != len)
			continue;
		fill(o, i, ref, len);
		if (!memcmp(ref, buf, len))
			return i;
	}
	return -1;
}

static void print_recv(int got, int dup, int bad, int trunc,
		       unsigned long long bytes, double secs)
{
	printf("{\"received\": %d, \"duplicates\": %d, \"corrupt\": %d, "
	       "\"truncated\": %d, \"bytes\": %llu, \"seconds\": %.3f}\n",
	       got, dup, bad, trunc, bytes, secs);
	fflush(stdout);
}

static int do_recv(const struct opts *o)
{
	uint8_t *buf = malloc(o->max + 1), *ref = malloc(o->max + 1);
	char *seen = calloc(o->count, 1);
	int fd = open_sock(o->family, o->port), got = 0, dup = 0, bad = 0;
	int trunc = 0;
	unsigned long long bytes = 0;
	double t0 = 0, t_open = now_s();

	set_sockopts(fd, o);
	set_timeout(fd, o->timeout);
	if (o->ready) {
		FILE *f = fopen(o->ready, "w");

		if (!f) {
			perror(o->ready);
			return 2;
		}
		fclose(f);
	}
	while (o->stop || got + dup + bad < o->count) {
		ssize_t n;
		int i;

		if (o->stop) {
			/* Wake up often enough to see STOPFILE; drain what
			 * is queued before stopping.
			 */
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			int stop = !access(o->stop, F_OK);

			if (!poll(&pfd, 1, stop ? 0 : 50)) {
				if (stop)
					break;
				if (now_s() - t_open > o->timeout) {
					fprintf(stderr, "recv: no %s after %d s, "
						"%d messages\n", o->stop,
						o->timeout, got);
					break;
				}
				continue;
			}
		}
		n = recv(fd, buf, o->max + 1, MSG_TRUNC);
		if (n < 0) {
			fprintf(stderr, "recv: %s after %d messages\n",
				strerror(errno), got);
			break;
		}
		if (!t0)
			t0 = now_s();
		if ((uint32_t)n > o->max) {
			trunc++;
			continue;
		}
		i = identify(o, buf, n, seen, ref);
		if (i >= 0 && msg_size(o, i) == (uint32_t)n) {
			fill(o, i, ref, n);
			if (fnv1a(buf, n) != fnv1a(ref, n))
				i = -1;
		}
		if (i < 0) {
			bad++;
		} else if (seen[i]) {
			dup++;
		} else {
			seen[i] = 1;
			got++;
			bytes += n;
			if (o->stop && got == o->count)
				print_recv(got, dup, bad, trunc, bytes,
					   now_s() - t0);
		}
	}
	print_recv(got, dup, bad, trunc, bytes, t0 ? now_s() - t0 : 0.0);
	return got == o->count && !dup && !bad && !trunc ? 0 : 1;
}

static int get_info(int fd, const struct sockaddr_storage *peer,
		    socklen_t peer_len, struct mpdt_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	memcpy(&info->mi_peer, peer, peer_len);
	return getsockopt(fd, SOL_MPDT, MPDT_INFO, info, &len);
}

static void print_info(const struct mpdt_info *i, int sent, double secs,
		       unsigned long long bytes)
{
	printf("{\"sent\": %d, \"bytes\": %llu, \"seconds\": %.3f, "
	       "\"msgs_acked\": %llu, \"retx_ooo\": %llu, "
	       "\"retx_probe\": %llu, \"retx_rto\": %llu, "
	       "\"retx_nack\": %llu, \"probes\": %llu, \"rtos\": %llu, "
	       "\"sacks\": %llu, \"srtt_us\": %u, \"min_rtt_us\": %u, "
	       "\"cwnd\": %u}\n", sent, bytes, secs,
	       (unsigned long long)i->mi_msgs_acked,
	       (unsigned long long)i->mi_retx[MPDT_RETX_OOO],
	       (unsigned long long)i->mi_retx[MPDT_RETX_PROBE],
	       (unsigned long long)i->mi_retx[MPDT_RETX_RTO],
	       (unsigned long long)i->mi_retx[MPDT_RETX_NACK],
	       (unsigned long long)i->mi_probes,
	       (unsigned long long)i->mi_rtos,
	       (unsigned long long)i->mi_sacks_rcvd, i->mi_srtt_us,
	       i->mi_min_rtt_us, i->mi_cwnd);
}

/* The peer of -a/-p as a socket address; 0 if -a does not parse. */
static socklen_t peer_addr(const struct opts *o, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (o->family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(o->port);
		return inet_pton(AF_INET6, o->addr, &s6->sin6_addr) == 1 ?
		       sizeof(*s6) : 0;
	}
	s4->sin_family = AF_INET;
	s4->sin_port = htons(o->port);
	return inet_pton(AF_INET, o->addr, &s4->sin_addr) == 1 ?
	       sizeof(*s4) : 0;
}

static int wait_go(const char *go, const char *ready);

static int do_send(const struct opts *o)
{
	struct sockaddr_storage peer;
	uint8_t *buf = malloc(o->max + 1);
	int fd = open_sock(o->family, o->lport), i;
	unsigned long long bytes = 0;
	struct mpdt_info info;
	double t0 = now_s();
	socklen_t plen;

	plen = peer_addr(o, &peer);
	if (!plen) {
		fprintf(stderr, "bad address %s\n", o->addr);
		return 2;
	}
	set_sockopts(fd, o);
	set_timeout(fd, o->timeout);
	if (o->go) {
		if (wait_go(o->go, o->ready))
			return 2;
		t0 = now_s();
	}
	for (i = 0; i < o->count; i++) {
		uint32_t len = msg_size(o, o->first + i);

		fill(o, o->first + i, buf, len);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&peer,
			   plen) != (ssize_t)len) {
			fprintf(stderr, "sendto #%d (%u B): %s\n",
				o->first + i, len, strerror(errno));
			return 1;
		}
		bytes += len;
	}
	/* Wait for every message to be acknowledged. */
	for (;;) {
		int err = 0;
		socklen_t elen = sizeof(err);

		if (get_info(fd, &peer, plen, &info)) {
			perror("MPDT_INFO");
			return 1;
		}
		if (info.mi_msgs_acked >= (uint64_t)o->count)
			break;
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
		if (err || now_s() - t0 > o->timeout) {
			fprintf(stderr, "not acknowledged: %s (%llu of %d)\n",
				err ? strerror(err) : "timeout",
				(unsigned long long)info.mi_msgs_acked,
				o->count);
			print_info(&info, i, now_s() - t0, bytes);
			return 1;
		}
		usleep(2000);
	}
	print_info(&info, i, now_s() - t0, bytes);
	close(fd);
	return 0;
}

/* -g: say the socket is open (-r READYFILE), then wait for GOFILE. */
static int wait_go(const char *go, const char *ready)
{
	FILE *f;

	if (ready) {
		f = fopen(ready, "w");
		if (!f) {
			perror(ready);
			return -1;
		}
		fclose(f);
	}
	while (access(go, F_OK))
		usleep(5000);
	return 0;
}

/* -w: send, shutdown(SHUT_WR), SO_ERROR, MPDT_INFO, SO_LINGER, close; one
 * JSON line that says which call reported an error, if any.
 */
static int do_send_shut(const struct opts *o)
{
	struct sockaddr_storage peer;
	uint8_t *buf = malloc(o->max + 1);
	int fd = open_sock(o->family, o->lport), i, sh = 0;
	int send_err = 0, shut_err = 0, so_err = 0, info_err = 0;
	struct linger lg = { .l_onoff = 1, .l_linger = o->linger };
	unsigned long long bytes = 0;
	double t0, t_sent, t_shut, t_close;
	socklen_t plen, elen = sizeof(so_err);
	struct mpdt_info info;
	const char *from = "";

	plen = peer_addr(o, &peer);
	if (!plen) {
		fprintf(stderr, "bad address %s\n", o->addr);
		return 2;
	}
	set_sockopts(fd, o);
	set_timeout(fd, o->timeout);
	if (o->go && wait_go(o->go, o->ready))
		return 2;
	t0 = now_s();
	for (i = 0; i < o->count; i++) {
		uint32_t len = msg_size(o, o->first + i);

		fill(o, o->first + i, buf, len);
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&peer,
			   plen) != (ssize_t)len) {
			send_err = errno;
			fprintf(stderr, "sendto #%d (%u B): %s\n",
				o->first + i, len, strerror(errno));
			from = "sendto";
			break;
		}
		bytes += len;
	}
	t_sent = now_s();
	if (!send_err) {
		sh = shutdown(fd, SHUT_WR);
		if (sh) {
			shut_err = errno;
			fprintf(stderr, "shutdown: %s\n", strerror(errno));
			if (shut_err != EAGAIN)
				from = "shutdown";
		}
	}
	t_shut = now_s();
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_err, &elen))
		so_err = 0;
	if (so_err && !*from)
		from = "so_error";
	if (get_info(fd, &peer, plen, &info)) {
		info_err = errno;
		memset(&info, 0, sizeof(info));
	}
	if (setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)))
		perror("SO_LINGER");
	close(fd);
	t_close = now_s();
	printf("{\"sent\": %d, \"bytes\": %llu, \"error_from\": \"%s\", "
	       "\"sendto_errno\": %d, \"shutdown\": %d, "
	       "\"shutdown_errno\": %d, \"so_error\": %d, "
	       "\"send_seconds\": %.3f, \"shutdown_seconds\": %.3f, "
	       "\"close_seconds\": %.3f, \"info_errno\": %d, \"state\": %u, "
	       "\"msgs_sent\": %llu, \"msgs_acked\": %llu, "
	       "\"msgs_inflight\": %u, \"snd_una\": %u, \"snd_nxt\": %u, "
	       "\"retx_ooo\": %llu, \"retx_probe\": %llu, \"retx_rto\": %llu, "
	       "\"retx_nack\": %llu, \"probes\": %llu, \"rtos\": %llu, "
	       "\"sacks\": %llu, \"nacks\": %llu, \"bytes_sent\": %llu, "
	       "\"bytes_acked\": %llu, \"srtt_us\": %u, \"rto_us\": %u, "
	       "\"cwnd\": %u, \"lb\": \"%.*s\", \"cc\": \"%.*s\"}\n",
	       i, bytes, from, send_err, sh, shut_err, so_err,
	       t_sent - t0, t_shut - t_sent, t_close - t_shut, info_err,
	       info.mi_state, (unsigned long long)info.mi_msgs_sent,
	       (unsigned long long)info.mi_msgs_acked, info.mi_msgs_inflight,
	       info.mi_snd_una, info.mi_snd_nxt,
	       (unsigned long long)info.mi_retx[MPDT_RETX_OOO],
	       (unsigned long long)info.mi_retx[MPDT_RETX_PROBE],
	       (unsigned long long)info.mi_retx[MPDT_RETX_RTO],
	       (unsigned long long)info.mi_retx[MPDT_RETX_NACK],
	       (unsigned long long)info.mi_probes,
	       (unsigned long long)info.mi_rtos,
	       (unsigned long long)info.mi_sacks_rcvd,
	       (unsigned long long)info.mi_nacks_rcvd,
	       (unsigned long long)info.mi_bytes_sent,
	       (unsigned long long)info.mi_bytes_acked, info.mi_srtt_us,
	       info.mi_rto_us, info.mi_cwnd, MPDT_ALGO_NAME_MAX, info.mi_lb,
	       MPDT_ALGO_NAME_MAX, info.mi_cc);
	return send_err || sh || so_err ? 1 : 0;
}

static void print_usage(void)
{
	fprintf(stderr, "Usage: mpdt_msg send|recv [-6] -p PORT -n COUNT "
		"[-a ADDR] [-s SEED] [-m MIN] [-M MAX | -S SIZES] [-t SECS] "
		"[-l LOCALPORT] [-o FIRST] [-r READYFILE] [-w [-L SECS]] "
		"[-g GOFILE] [-x STOPFILE] [-b LB] [-P RATE]\n");
	exit(2);
}

/* -S SIZE[,SIZE...]: the sizes, and MIN and MAX of them (buffers). */
static void parse_sizes(struct opts *o, char *list)
{
	char *tok, *end;

	o->min = UINT32_MAX;
	o->max = 0;
	for (tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
		unsigned long n = strtoul(tok, &end, 0);

		if (*end || !n || n > UINT32_MAX || o->nsizes == MAX_SIZES)
			print_usage();
		o->sizes[o->nsizes++] = n;
		if (n < o->min)
			o->min = n;
		if (n > o->max)
			o->max = n;
	}
	if (!o->nsizes)
		print_usage();
}

int main(int argc, char **argv)
{
	struct opts o = { .family = AF_INET, .count = 1, .seed = 1, .min = 1,
			  .max = 4 << 20, .timeout = 120, .addr = "127.0.0.1",
			  .linger = -1 };
	int c;

	if (argc < 2)
		print_usage();
	o.mode = argv[1];
	optind = 2;
	while ((c = getopt(argc, argv, "6a:p:n:s:m:M:S:t:l:o:r:wL:g:x:b:P:")) != -1) {
		switch (c) {
		case '6':
			o.family = AF_INET6;
			break;
		case 'a':
			o.addr = optarg;
			if (strchr(optarg, ':'))
				o.family = AF_INET6;
			break;
		case 'p':
			o.port = atoi(optarg);
			break;
		case 'n':
			o.count = atoi(optarg);
			break;
		case 's':
			o.seed = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			o.min = strtoul(optarg, NULL, 0);
			break;
		case 'M':
			o.max = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			parse_sizes(&o, optarg);
			break;
		case 't':
			o.timeout = atoi(optarg);
			break;
		case 'l':
			o.lport = atoi(optarg);
			break;
		case 'o':
			o.first = atoi(optarg);
			break;
		case 'r':
			o.ready = optarg;
			break;
		case 'w':
			o.shut = 1;
			break;
		case 'L':
			o.linger = atoi(optarg);
			break;
		case 'g':
			o.go = optarg;
			break;
		case 'x':
			o.stop = optarg;
			break;
		case 'b':
			o.lb = optarg;
			break;
		case 'P':
			o.max_pacing_rate = strtoul(optarg, NULL, 0);
			break;
		default:
			print_usage();
		}
	}
	/* One message is enough for a sender that closes (-w) and for a
	 * receiver that waits for STOPFILE (-x).
	 */
	if (!o.port || o.count < (o.shut || o.stop ? 1 : 2) || !o.min ||
	    o.min > o.max)
		print_usage();
	if (o.linger < 0)
		o.linger = o.timeout;
	if (!strcmp(o.mode, "recv"))
		return do_recv(&o);
	if (!strcmp(o.mode, "send"))
		return o.shut ? do_send_shut(&o) : do_send(&o);
	print_usage();
	return 2;
}
