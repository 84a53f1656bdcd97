// SPDX-License-Identifier: GPL-2.0
/*
 * sockapi: the MPDT socket API, one behaviour per test (kselftest harness).
 * Runs over loopback inside one network namespace with the module loaded
 * (sockapi.sh sets that up); the tests that read counters or change
 * parameters make a netns of their own (own_netns()) and run mpdt(8) as
 * $MPDT_CLI and tc in it.
 *
 * Built with -I include/uapi -I build/ksrc/tools/testing/selftests (the
 * kernel's kselftest_harness.h, from 'make ksrc').
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/errqueue.h>
#include <linux/mpdt.h>
#include <linux/net_tstamp.h>
#include <linux/sock_diag.h>

#include "kselftest_harness.h"

/* Loopback is fast, but TCG is not: a test may take a while. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 120

/* A port with no socket: what is sent there is never acknowledged. */
#define DEAD_PORT 39999
/* Timers at their defaults (rto 10 ms .. 1 s, 8 retries): ~3.3 s. */
#define FAIL_WITHIN_MS 30000

/* Each test its own MPDT ports: 20 from a base derived from its name. */
static int port_base(const char *name)
{
	unsigned int h = 5381;

	while (*name)
		h = h * 33 + (unsigned char)*name++;
	return 20000 + h % 500 * 20;
}

#define PORT(n) (port_base(_metadata->name) + (n))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct sockaddr_in lo(int port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	return a;
}

static int mk(void)
{
	return socket(AF_INET, SOCK_DGRAM, IPPROTO_MPDT);
}

static int mk_bound(int port)
{
	struct sockaddr_in a = lo(port);
	int fd = mk();

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static int send_to(int fd, const void *buf, size_t len, int port, int flags)
{
	struct sockaddr_in a = lo(port);

	return sendto(fd, buf, len, flags, (struct sockaddr *)&a, sizeof(a));
}

/* MPDT_INFO about @peer (NULL: the connected peer). */
static int get_info(int fd, const struct sockaddr_in *peer,
		    struct mpdt_info *info)
{
	socklen_t len = sizeof(*info);

	memset(info, 0, sizeof(*info));
	if (peer)
		memcpy(&info->mi_peer, peer, sizeof(*peer));
	return getsockopt(fd, SOL_MPDT, MPDT_INFO, info, &len);
}

/* Wait until @n messages to 127.0.0.1:@port are acknowledged. */
static int wait_acked(int fd, int port, uint64_t n, int ms)
{
	struct sockaddr_in peer = lo(port);
	struct mpdt_info info;
	double end = now() + ms / 1e3;

	do {
		if (!get_info(fd, &peer, &info) && info.mi_msgs_acked >= n)
			return 0;
		usleep(2000);
	} while (now() < end);
	return -1;
}

static void set_rcvtimeo(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

/* Entry @idx of the socket's SO_MEMINFO, or -1. */
static long sock_mem(int fd, int idx)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len))
		return -1;
	return mem[idx];
}

/* Message content: a header (index, length) and a stream of (seed, index). */
static void fill(uint8_t *b, size_t n, uint32_t idx)
{
	uint32_t x = idx * 2654435761u + 12345;
	size_t i;

	for (i = 0; i < n; i++) {
		x = x * 1103515245u + 12345;
		b[i] = x >> 24;
	}
	if (n >= 8) {
		uint32_t h[2] = { htonl(idx), htonl((uint32_t)n) };

		memcpy(b, h, 8);
	}
}

/* The index of a well-formed message of length @n, or -1. */
static long check(const uint8_t *b, size_t n)
{
	uint32_t h[2];
	uint8_t *ref;
	long idx;

	if (n < 8)
		return -1;
	memcpy(h, b, 8);
	if (ntohl(h[1]) != n)
		return -1;
	idx = ntohl(h[0]);
	ref = malloc(n);
	fill(ref, n, idx);
	if (memcmp(ref, b, n))
		idx = -1;
	free(ref);
	return idx;
}

static int poll1(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };

	return poll(&p, 1, ms) < 0 ? -1 : p.revents;
}

/* Wait until the socket reports POLLERR (the peer was declared dead). */
static int wait_pollerr(int fd, int ms)
{
	double end = now() + ms / 1e3;

	while (now() < end) {
		int r = poll1(fd, POLLIN, 100);

		if (r > 0 && (r & POLLERR))
			return 0;
	}
	return -1;
}

/* ---------------------------------------------------------------------- */

TEST(socket_types)
{
	int fd = mk();

	ASSERT_LE(0, fd) TH_LOG("socket(AF_INET, SOCK_DGRAM, 254): %s",
				strerror(errno));
	close(fd);
	/* Only SOCK_DGRAM is registered for IPPROTO_MPDT. */
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_MPDT);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EPROTONOSUPPORT, errno);
	fd = socket(AF_INET, SOCK_SEQPACKET, IPPROTO_MPDT);
	EXPECT_EQ(-1, fd);
}

TEST(recv_nonblocking_eagain)
{
	int fd = mk_bound(PORT(0)), unbound = mk();
	char buf[16];
	double t0;

	ASSERT_LE(0, fd);
	ASSERT_EQ(-1, recv(fd, buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_EQ(EAGAIN, errno);
	/* Unbound sockets too. */
	ASSERT_EQ(-1, recv(unbound, buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_EQ(EAGAIN, errno);
	/* O_NONBLOCK */
	ASSERT_EQ(0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK));
	ASSERT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK));
	/* SO_RCVTIMEO: blocks that long, then EAGAIN. */
	set_rcvtimeo(fd, 300);
	t0 = now();
	ASSERT_EQ(-1, recv(fd, buf, sizeof(buf), 0));
	ASSERT_EQ(EAGAIN, errno);
	EXPECT_LE(0.25, now() - t0);
	EXPECT_GE(10.0, now() - t0);
	close(fd);
	close(unbound);
}

TEST(send_too_big_emsgsize)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	size_t max = MPDT_MSG_MAX;
	uint8_t *buf = malloc(max + 1), *got = malloc(max + 1);
	double t0;
	ssize_t n;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(-1, send_to(a, buf, max + 1, PORT(1), 0));
	ASSERT_EQ(EMSGSIZE, errno);
	ASSERT_EQ(-1, send_to(a, buf, max + 1, PORT(1), MSG_DONTWAIT));
	ASSERT_EQ(EMSGSIZE, errno);
	/* The largest message goes through whole. */
	fill(buf, max, 7);
	t0 = now();
	ASSERT_EQ((ssize_t)max, send_to(a, buf, max, PORT(1), 0));
	set_rcvtimeo(b, 60000);
	n = recv(b, got, max + 1, 0);
	ASSERT_EQ((ssize_t)max, n) TH_LOG("recv: %s", strerror(errno));
	ASSERT_EQ(7, check(got, n));
	TH_LOG("16 MiB message in %.2f s", now() - t0);
	free(buf);
	free(got);
}

TEST(sndbuf_lowers_the_limit)
{
	/* Two largest messages and an eighth more each (params_table.h). */
	const int dflt = 2 * (MPDT_MSG_MAX + MPDT_MSG_MAX / 8);
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	int val = 100000, eff;
	socklen_t len = sizeof(eff);
	uint8_t *buf, *got;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_SNDBUF, &eff, &len));
	EXPECT_EQ(dflt, eff) TH_LOG("default SO_SNDBUF");
	len = sizeof(eff);
	ASSERT_EQ(0, getsockopt(b, SOL_SOCKET, SO_RCVBUF, &eff, &len));
	EXPECT_EQ(dflt, eff) TH_LOG("default SO_RCVBUF");
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)));
	len = sizeof(eff);
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_SNDBUF, &eff, &len));
	TH_LOG("SO_SNDBUF %d -> %d", val, eff);
	ASSERT_LT(eff, MPDT_MSG_MAX);
	buf = malloc(eff + 1);
	got = malloc(eff + 1);
	ASSERT_EQ(-1, send_to(a, buf, eff + 1, PORT(1), 0));
	ASSERT_EQ(EMSGSIZE, errno);
	fill(buf, eff, 3);
	ASSERT_EQ(eff, send_to(a, buf, eff, PORT(1), 0));
	set_rcvtimeo(b, 30000);
	ASSERT_EQ(eff, recv(b, got, eff + 1, 0));
	ASSERT_EQ(3, check(got, eff));
	free(buf);
	free(got);
}

TEST(recv_truncates_like_udp)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	uint8_t msg[1000], buf[1000];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = buf, .iov_len = 100 };
	struct msghdr mh = {
		.msg_name = &from, .msg_namelen = sizeof(from),
		.msg_iov = &iov, .msg_iovlen = 1,
	};

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 30000);
	fill(msg, sizeof(msg), 1);

	/* Short buffer: the rest is discarded, MSG_TRUNC in msg_flags. */
	ASSERT_EQ(1000, send_to(a, msg, sizeof(msg), PORT(1), 0));
	ASSERT_EQ(100, recvmsg(b, &mh, 0));
	EXPECT_TRUE(mh.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, msg, 100));
	EXPECT_EQ(AF_INET, from.sin_family);
	EXPECT_EQ(htons(PORT(0)), from.sin_port);
	EXPECT_EQ(htonl(INADDR_LOOPBACK), from.sin_addr.s_addr);
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno) TH_LOG("the truncated message was not consumed");

	/* MSG_TRUNC flag: the full length is returned. */
	ASSERT_EQ(1000, send_to(a, msg, sizeof(msg), PORT(1), 0));
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(1000, recv(b, buf, 100, MSG_TRUNC));
	EXPECT_EQ(0, memcmp(buf, msg, 100));
	EXPECT_EQ(0, buf[100]);

	/* A zero-length read with MSG_TRUNC sizes (and consumes) a message. */
	ASSERT_EQ(1000, send_to(a, msg, sizeof(msg), PORT(1), 0));
	ASSERT_EQ(POLLIN, poll1(b, POLLIN, 30000) & POLLIN);
	ASSERT_EQ(1000, recv(b, NULL, 0, MSG_TRUNC | MSG_DONTWAIT));

	/* A full-size buffer: no MSG_TRUNC. */
	ASSERT_EQ(1000, send_to(a, msg, sizeof(msg), PORT(1), 0));
	iov.iov_len = sizeof(buf);
	mh.msg_flags = 0;
	mh.msg_namelen = sizeof(from);
	ASSERT_EQ(1000, recvmsg(b, &mh, 0));
	EXPECT_FALSE(mh.msg_flags & MSG_TRUNC);
	EXPECT_EQ(0, memcmp(buf, msg, sizeof(msg)));

	/* A buffer the copy faults on: EFAULT, the message is gone and
	 * counted in the socket's drops, as UDP counts it.
	 */
	EXPECT_EQ(0, sock_mem(b, SK_MEMINFO_DROPS));
	ASSERT_EQ(1000, send_to(a, msg, sizeof(msg), PORT(1), 0));
	ASSERT_EQ(POLLIN, poll1(b, POLLIN, 30000) & POLLIN);
	EXPECT_EQ(-1, recv(b, (void *)8, sizeof(buf), 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(1, sock_mem(b, SK_MEMINFO_DROPS));
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

TEST(zero_length_message)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	struct sockaddr_in from;
	socklen_t flen = sizeof(from);
	char buf[16];
	int sizes = 0;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 30000);
	ASSERT_EQ(0, send_to(a, "", 0, PORT(1), 0));
	ASSERT_EQ(POLLIN, poll1(b, POLLIN, 30000) & POLLIN);
	ASSERT_EQ(0, recvfrom(b, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen));
	EXPECT_EQ(htons(PORT(0)), from.sin_port);
	ASSERT_EQ(0, wait_acked(a, PORT(1), 1, 30000));
	/* Mixed with a 1-byte one: both arrive, as themselves. */
	ASSERT_EQ(0, send_to(a, "", 0, PORT(1), 0));
	ASSERT_EQ(1, send_to(a, "x", 1, PORT(1), 0));
	for (int i = 0; i < 2; i++) {
		ssize_t n = recv(b, buf, sizeof(buf), 0);

		ASSERT_LE(0, n);
		ASSERT_GE(1, n);
		if (n == 1)
			EXPECT_EQ('x', buf[0]);
		sizes |= 1 << n;
	}
	EXPECT_EQ(3, sizes);
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
}

TEST(pollin_only_for_complete_messages)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	size_t len = 8 << 20;
	uint8_t *msg = malloc(len), *got = malloc(len + 1);
	long polls = 0;
	double end;
	ssize_t n;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	fill(msg, len, 5);
	ASSERT_EQ(0, poll1(b, POLLIN, 0) & POLLIN);
	ASSERT_EQ((ssize_t)len, send_to(a, msg, len, PORT(1), 0));
	/*
	 * Without POLLIN, a read finds nothing (or, if the last packet just
	 * came in, the whole message); with POLLIN, the whole message.
	 */
	end = now() + 60;
	for (;;) {
		int in = poll1(b, POLLIN, 0) & POLLIN;

		n = recv(b, got, len + 1, MSG_DONTWAIT);
		if (in)
			ASSERT_LE(0, n) TH_LOG("POLLIN but recv: %s", strerror(errno));
		if (n >= 0)
			break;
		ASSERT_EQ(EAGAIN, errno);
		ASSERT_GT(end, now()) TH_LOG("no POLLIN after 60 s");
		polls++;
		usleep(500);
	}
	ASSERT_EQ((ssize_t)len, n) TH_LOG("a partial message was readable");
	ASSERT_EQ(5, check(got, n));
	EXPECT_EQ(0, poll1(b, POLLIN, 0) & POLLIN);
	TH_LOG("polled %ld times while the 8 MiB message was assembled", polls);

	/* Two queued: POLLIN stays until both are read. */
	ASSERT_EQ(100, send_to(a, msg, 100, PORT(1), 0));
	ASSERT_EQ(200, send_to(a, msg, 200, PORT(1), 0));
	ASSERT_EQ(0, wait_acked(a, PORT(1), 3, 30000));
	EXPECT_EQ(POLLIN, poll1(b, POLLIN, 0) & POLLIN);
	ASSERT_LT(0, recv(b, got, len, MSG_DONTWAIT));
	EXPECT_EQ(POLLIN, poll1(b, POLLIN, 0) & POLLIN);
	ASSERT_LT(0, recv(b, got, len, MSG_DONTWAIT));
	EXPECT_EQ(0, poll1(b, POLLIN, 0) & POLLIN);
	free(msg);
	free(got);
}

TEST(pollout_and_send_buffer)
{
	int a = mk_bound(PORT(0)), val = 65536, sb, fit, empties;
	socklen_t len = sizeof(sb);
	struct sockaddr_in dead = lo(DEAD_PORT);
	struct mpdt_info info;
	uint8_t *buf;
	int err;

	ASSERT_LE(0, a);
	ASSERT_EQ(POLLOUT, poll1(a, POLLOUT, 0) & POLLOUT);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)));
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_SNDBUF, &sb, &len));
	ASSERT_EQ(0, sb % 4);
	buf = calloc(1, sb);
	/* Nothing is ever acknowledged: the peer port has no socket. */
	ASSERT_EQ(0, connect(a, (struct sockaddr *)&dead, sizeof(dead)));
	ASSERT_EQ(sb / 4, send(a, buf, sb / 4, 0));
	EXPECT_EQ(POLLOUT, poll1(a, POLLOUT, 0) & POLLOUT)
		TH_LOG("a quarter of SO_SNDBUF queued");
	ASSERT_EQ(sb / 4, send(a, buf, sb / 4, 0));
	EXPECT_EQ(0, poll1(a, POLLOUT, 0) & POLLOUT)
		TH_LOG("half of SO_SNDBUF queued: no POLLOUT");
	/* Each message is charged its descriptor and a header slot per
	 * packet too (txmsg.c): less than the other half is left.  The
	 * largest that fits, in steps of 1 KiB, leaves room for no 1 KiB
	 * message, and empty ones fill it.
	 */
	for (fit = sb / 2; send(a, buf, fit, MSG_DONTWAIT) < 0; fit -= 1024)
		ASSERT_EQ(EAGAIN, errno);
	EXPECT_GT(sb / 2, fit);
	TH_LOG("%d bytes fit in the other half", fit);
	ASSERT_EQ(-1, send(a, buf, 1024, MSG_DONTWAIT));
	ASSERT_EQ(EAGAIN, errno);
	for (empties = 0; empties < 1024; empties++)
		if (send(a, buf, 0, MSG_DONTWAIT))
			break;
	ASSERT_EQ(EAGAIN, errno);
	EXPECT_GT(1024 / 64, empties)
		TH_LOG("%d empty messages fit in the last 1 KiB", empties);
	/* The peer is declared dead: POLLERR, ETIMEDOUT once, room again. */
	ASSERT_EQ(0, wait_pollerr(a, FAIL_WITHIN_MS))
		TH_LOG("no POLLERR within %d ms for a dead peer", FAIL_WITHIN_MS);
	EXPECT_EQ(POLLOUT, poll1(a, POLLOUT, 0) & POLLOUT);
	len = sizeof(err);
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(ETIMEDOUT, err);
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(0, err);
	EXPECT_EQ(0, poll1(a, POLLIN, 0) & POLLERR);
	ASSERT_EQ(0, get_info(a, NULL, &info));
	EXPECT_EQ(MPDT_CONN_FAILED, info.mi_state);
	EXPECT_EQ(0, info.mi_msgs_inflight);
	EXPECT_EQ(0, info.mi_inflight);
	EXPECT_EQ(3 + empties, info.mi_msgs_sent);
	EXPECT_EQ(0, info.mi_msgs_acked);
	EXPECT_LT(8, info.mi_rtos) TH_LOG("max_retries is 8");
	free(buf);
}

/* The error of a failed peer is reported once, by the next send... */
TEST(dead_peer_next_send_etimedout_once)
{
	int a = mk_bound(PORT(0));

	ASSERT_LE(0, a);
	ASSERT_EQ(5, send_to(a, "hello", 5, DEAD_PORT, 0));
	ASSERT_EQ(0, wait_pollerr(a, FAIL_WITHIN_MS));
	EXPECT_EQ(-1, send_to(a, "again", 5, DEAD_PORT, 0))
		TH_LOG("send() after the peer failed did not report ETIMEDOUT");
	EXPECT_EQ(ETIMEDOUT, errno);
	/* ... once: then a new incarnation starts. */
	EXPECT_EQ(5, send_to(a, "third", 5, DEAD_PORT, 0));
}

/* One counter of /proc/net/mpdt_stats, or -1. */
static long long netns_stat(const char *name)
{
	FILE *f = fopen("/proc/net/mpdt_stats", "r");
	char key[64];
	long long v;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2) {
		if (!strcmp(key, name)) {
			fclose(f);
			return v;
		}
	}
	fclose(f);
	return -1;
}

/*
 * A network namespace of the test's own (the harness runs each test in a
 * process of its own), lo up: counters that only this test moves,
 * parameters and a qdisc on lo that only it sees.  The module gives a new
 * netns its defaults.
 */
static int own_netns(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd, err;

	if (unshare(CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -1;
	err = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (!err) {
		ifr.ifr_flags |= IFF_UP;
		err = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return err;
}

/* Run the command @argv (NULL-terminated; one process, PATH searched) in
 * the test's netns, its stdout into @out (NUL-terminated, cut at @len - 1;
 * NULL: discarded).  Its exit status, or -1.
 */
static int runv(char *out, size_t len, char **argv)
{
	char buf[512];
	int p[2], status;
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	while ((r = read(p[0], buf, sizeof(buf))) > 0) {
		size_t k = out && n + 1 < len ? len - 1 - n : 0;

		if (k > (size_t)r)
			k = r;
		if (k)
			memcpy(out + n, buf, k);
		n += k;
	}
	close(p[0]);
	if (out && len)
		out[n] = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The NULL-terminated arguments from @ap into @argv, after its first @i;
 * at most @max - 1 in all.
 */
static void argv_from(char **argv, int i, int max, va_list ap)
{
	while (i < max - 1 && (argv[i] = va_arg(ap, char *)))
		i++;
	argv[i] = NULL;
}

/* runv() of @arg0, ... (NULL-terminated). */
static int run(char *out, size_t len, const char *arg0, ...)
{
	char *argv[16] = { (char *)arg0 };
	va_list ap;

	va_start(ap, arg0);
	argv_from(argv, 1, 16, ap);
	va_end(ap);
	return runv(out, len, argv);
}

/* The test's own netns (own_netns()) with the parameters in "name",
 * "value" pairs (NULL-terminated) set by @cli (mpdt(8)).  False: skipped,
 * no @cli.
 */
static bool own_netns_with(struct __test_metadata *_metadata,
			   const char *cli, ...)
{
	char *argv[16] = { (char *)cli, "param", "set" };
	va_list ap;

	if (!cli)
		SKIP(return false, "no $MPDT_CLI (sockapi.sh sets it)");
	va_start(ap, cli);
	argv_from(argv, 3, 16, ap);
	va_end(ap);
	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	EXPECT_EQ(0, runv(NULL, 0, argv));
	return _metadata->passed;
}

/* A receiver closed right after data stays in time-wait (it would answer
 * retransmissions of what it holds), but a new socket may bind its port
 * at once, and one that heard nothing long ago does not enter it.
 */
TEST(close_after_data_time_wait_port_reusable)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1)), c;
	long long tw = netns_stat("time_wait");
	char buf[8];

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_LE(0, tw);
	ASSERT_EQ(5, send_to(a, "hello", 5, PORT(1), 0));
	ASSERT_EQ(5, recv(b, buf, sizeof(buf), 0));
	ASSERT_EQ(0, close(b));
	EXPECT_EQ(tw + 1, netns_stat("time_wait"));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, b) TH_LOG("a port in time-wait could not be bound again");
	c = mk_bound(PORT(2));
	ASSERT_LE(0, c);
	ASSERT_EQ(5, send_to(c, "again", 5, PORT(1), 0));
	ASSERT_EQ(5, recv(b, buf, sizeof(buf), 0));
	/* A socket that never heard from anyone goes at once. */
	ASSERT_EQ(0, close(a));
	EXPECT_EQ(tw + 1, netns_stat("time_wait"));
}

/* A message is delivered, or its sender is told: shutdown(SHUT_WR) waits
 * for every message and reports the peer that failed.
 */
TEST(shutdown_reports_undelivered)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	char buf[8];

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(5, send_to(a, "hello", 5, PORT(1), 0));
	ASSERT_EQ(0, shutdown(a, SHUT_WR));
	ASSERT_EQ(5, recv(b, buf, sizeof(buf), MSG_DONTWAIT))
		TH_LOG("shutdown() returned 0 before the message arrived");
	EXPECT_EQ(-1, send_to(a, "again", 5, PORT(1), MSG_NOSIGNAL));
	EXPECT_EQ(EPIPE, errno);

	ASSERT_EQ(5, send_to(b, "hello", 5, DEAD_PORT, 0));
	EXPECT_EQ(-1, shutdown(b, SHUT_WR));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_EQ(-1, shutdown(b, SHUT_RD));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

/*
 * A peer that failed does not cut short the wait for the others' messages.
 * In the test's own netns lo sends at SLOW_RATE (netem): the message of
 * SLOW_MSG bytes to the live peer takes about 8 s, and the dead peer fails
 * after about 3.3 s, while it is on its way.  Its error stays pending: the
 * caller waits for POLLERR, which does not take it.  Returns @a, with the
 * message to PORT(1) (@b, bound) not yet acknowledged.
 */
#define SLOW_RATE "2mbit"
#define SLOW_MSG (2 << 20)
static int send_past_a_failure(struct __test_metadata *_metadata, int *b,
			       uint8_t *buf)
{
	int a;

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	ASSERT_EQ(0, run(NULL, 0, "tc", "qdisc", "add", "dev", "lo", "root",
			 "netem", "rate", SLOW_RATE, NULL))
		TH_LOG("tc qdisc add dev lo root netem rate failed");
	a = mk_bound(PORT(0));
	*b = mk_bound(PORT(1));
	ASSERT_LE(0, a);
	ASSERT_LE(0, *b);
	fill(buf, SLOW_MSG, 1);
	ASSERT_EQ(5, send_to(a, "hello", 5, DEAD_PORT, 0));
	ASSERT_EQ(SLOW_MSG, send_to(a, buf, SLOW_MSG, PORT(1), 0));
	ASSERT_EQ(0, wait_pollerr(a, FAIL_WITHIN_MS));
	EXPECT_EQ(0, netns_stat("msg_acked"))
		TH_LOG("the live peer's message arrived before the other failed");
	return a;
}

/* The live peer's whole message is in @b's queue. */
static void check_slow_msg(struct __test_metadata *_metadata, int b,
			   uint8_t *buf)
{
	ssize_t n = recv(b, buf, SLOW_MSG + 1, MSG_DONTWAIT);

	ASSERT_EQ(SLOW_MSG, n) TH_LOG("the live peer's message: %s",
				      n < 0 ? strerror(errno) : "short");
	EXPECT_EQ(1, check(buf, n));
}

/* shutdown(SHUT_WR) waits for the live peer's message, then reports the
 * failed one.
 */
TEST(shutdown_waits_past_a_failed_peer)
{
	uint8_t *buf = malloc(SLOW_MSG + 1);
	int a, b;

	ASSERT_NE(NULL, buf);
	a = send_past_a_failure(_metadata, &b, buf);
	EXPECT_EQ(-1, shutdown(a, SHUT_WR));
	EXPECT_EQ(ETIMEDOUT, errno);
	check_slow_msg(_metadata, b, buf);
	EXPECT_EQ(1, netns_stat("msg_acked"));
	close(a);
	close(b);
	free(buf);
}

/* close() with SO_LINGER delivers the live peer's message though another
 * peer failed, its error unread.
 */
TEST(close_with_linger_past_a_failed_peer)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 60 };
	uint8_t *buf = malloc(SLOW_MSG + 1);
	int a, b;

	ASSERT_NE(NULL, buf);
	a = send_past_a_failure(_metadata, &b, buf);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	ASSERT_EQ(0, close(a));
	check_slow_msg(_metadata, b, buf);
	EXPECT_EQ(1, netns_stat("msg_acked"));
	EXPECT_EQ(0, netns_stat("close_drain")) TH_LOG("nothing was left to drain");
	close(b);
	free(buf);
}

/* ... or by the next recv. */
TEST(dead_peer_next_recv_etimedout_once)
{
	int a = mk_bound(PORT(0));
	char buf[8];

	ASSERT_LE(0, a);
	ASSERT_EQ(5, send_to(a, "hello", 5, DEAD_PORT, 0));
	ASSERT_EQ(0, wait_pollerr(a, FAIL_WITHIN_MS));
	EXPECT_EQ(-1, recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_EQ(-1, recv(a, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
}

/* Sets @a's SO_SNDBUF (64 KiB asked; the size in @sb) and a 60 s
 * SO_SNDTIMEO, and fills the buffer with one message to a dead peer: the
 * next one blocks.  Returns a buffer of @sb bytes.
 */
static uint8_t *fill_to_dead_peer(struct __test_metadata *_metadata, int a,
				  int *sb)
{
	struct timeval tv = { .tv_sec = 60 };
	socklen_t len = sizeof(*sb);
	int val = 65536;
	uint8_t *buf;

	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)));
	ASSERT_EQ(0, getsockopt(a, SOL_SOCKET, SO_SNDBUF, sb, &len));
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	buf = calloc(1, *sb);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(*sb, send_to(a, buf, *sb, DEAD_PORT, 0));
	return buf;
}

/* The send that blocks, and how long it took (in *@secs). */
static ssize_t blocked_send(struct __test_metadata *_metadata, int a,
			    const uint8_t *buf, int sb, double *secs)
{
	double t0 = now();
	ssize_t n = send_to(a, buf, sb, DEAD_PORT, 0);

	*secs = now() - t0;
	TH_LOG("blocked send returned %zd (%s) after %.2f s", n,
	       n < 0 ? strerror(errno) : "ok", *secs);
	return n;
}

/* A send() blocked on a full buffer learns that the peer died. */
TEST(dead_peer_wakes_blocked_send_with_etimedout)
{
	int a = mk_bound(PORT(0)), sb;
	uint8_t *buf;
	double secs;

	ASSERT_LE(0, a);
	buf = fill_to_dead_peer(_metadata, a, &sb);
	EXPECT_EQ(-1, blocked_send(_metadata, a, buf, sb, &secs));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_GT(FAIL_WITHIN_MS / 1e3, secs);
	free(buf);
}

struct sndbuf_raise {
	int fd;
	int val;
	pid_t sender;		/* the thread that blocks in send() */
	double raised;		/* when, by now() */
};

/* Whether thread @tid of this process sleeps (state S). */
static bool sleeping(pid_t tid)
{
	char path[64], stat[256], *end;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	end = fgets(stat, sizeof(stat), f) ? strrchr(stat, ')') : NULL;
	fclose(f);
	return end && end[1] == ' ' && end[2] == 'S';
}

/* Once the sender sleeps in send(), SO_SNDBUFFORCE (wmem_max does not
 * cap it) makes room for its message.
 */
static void *raise_sndbuf_once_blocked(void *arg)
{
	struct sndbuf_raise *r = arg;
	double end = now() + 20;

	while (!sleeping(r->sender) && now() < end)
		usleep(1000);
	usleep(50 * 1000);
	r->raised = now();
	if (setsockopt(r->fd, SOL_SOCKET, SO_SNDBUFFORCE, &r->val,
		       sizeof(r->val)))
		r->fd = -1;
	return NULL;
}

/* A send() blocked on a full buffer sends once SO_SNDBUF makes room: the
 * peer is dead, so nothing else could wake it before ETIMEDOUT.
 */
TEST(raising_sndbuf_wakes_blocked_send)
{
	int a = mk_bound(PORT(0)), sb;
	struct sndbuf_raise r = {
		.fd = a, .val = 4 * 65536, .sender = syscall(SYS_gettid),
	};
	double secs, done;
	pthread_t t;
	uint8_t *buf;
	ssize_t n;

	ASSERT_LE(0, a);
	buf = fill_to_dead_peer(_metadata, a, &sb);
	ASSERT_EQ(0, pthread_create(&t, NULL, raise_sndbuf_once_blocked, &r));
	n = blocked_send(_metadata, a, buf, sb, &secs);
	done = now();
	pthread_join(t, NULL);
	ASSERT_EQ(a, r.fd) TH_LOG("raising SO_SNDBUF failed");
	EXPECT_EQ(sb, n);
	EXPECT_LE(r.raised, done) TH_LOG("send() did not wait for the room");
	free(buf);
}

TEST(epoll_level_and_edge)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	int lt = epoll_create1(0), et = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN }, out[4];
	char buf[64];
	int i;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(10, send_to(a, "0123456789", 10, PORT(1), 0));
	ASSERT_EQ(0, wait_acked(a, PORT(1), 3, 30000));
	/* Level triggered: reported while anything is queued. */
	ASSERT_EQ(0, epoll_ctl(lt, EPOLL_CTL_ADD, b, &ev));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(1, epoll_wait(lt, out, 4, 0)) TH_LOG("message %d", i);
		EXPECT_TRUE(out[0].events & EPOLLIN);
		ASSERT_EQ(10, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	}
	EXPECT_EQ(0, epoll_wait(lt, out, 4, 0));

	/* Edge triggered: one event per arrival, not per queued message. */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(10, send_to(a, "0123456789", 10, PORT(1), 0));
	ASSERT_EQ(0, wait_acked(a, PORT(1), 6, 30000));
	ev.events = EPOLLIN | EPOLLET;
	ASSERT_EQ(0, epoll_ctl(et, EPOLL_CTL_ADD, b, &ev));
	ASSERT_EQ(1, epoll_wait(et, out, 4, 0));
	EXPECT_EQ(0, epoll_wait(et, out, 4, 0));
	ASSERT_EQ(10, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(0, epoll_wait(et, out, 4, 0)) TH_LOG("no new edge");
	ASSERT_EQ(10, send_to(a, "0123456789", 10, PORT(1), 0));
	ASSERT_EQ(1, epoll_wait(et, out, 4, 10000)) TH_LOG("new arrival, new edge");
	for (i = 0; i < 3; i++)
		ASSERT_EQ(10, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(0, epoll_wait(lt, out, 4, 0));

	/* EPOLLOUT on an idle socket. */
	ev.events = EPOLLOUT;
	ASSERT_EQ(0, epoll_ctl(lt, EPOLL_CTL_ADD, a, &ev));
	ASSERT_EQ(1, epoll_wait(lt, out, 4, 0));
	EXPECT_TRUE(out[0].events & EPOLLOUT);
}

TEST(names)
{
	int a = mk(), b = mk(), c = mk(), d = mk();
	struct sockaddr_in sin, peer = lo(PORT(0)), any = {
		.sin_family = AF_INET,
	}, far = lo(PORT(0));
	socklen_t len = sizeof(sin);

	ASSERT_LE(0, a);
	/* Unbound: port 0; no peer. */
	ASSERT_EQ(0, getsockname(a, (struct sockaddr *)&sin, &len));
	EXPECT_EQ(AF_INET, sin.sin_family);
	EXPECT_EQ(0, sin.sin_port);
	len = sizeof(sin);
	EXPECT_EQ(-1, getpeername(a, (struct sockaddr *)&sin, &len));
	EXPECT_EQ(ENOTCONN, errno);
	/* Bound to 127.0.0.1:P. */
	ASSERT_EQ(0, bind(a, (struct sockaddr *)&peer, sizeof(peer)));
	len = sizeof(sin);
	ASSERT_EQ(0, getsockname(a, (struct sockaddr *)&sin, &len));
	EXPECT_EQ(htons(PORT(0)), sin.sin_port);
	EXPECT_EQ(htonl(INADDR_LOOPBACK), sin.sin_addr.s_addr);
	/* Once only. */
	EXPECT_EQ(-1, bind(a, (struct sockaddr *)&peer, sizeof(peer)));
	EXPECT_EQ(EINVAL, errno);
	/* Port 0: an ephemeral one. */
	ASSERT_EQ(0, bind(b, (struct sockaddr *)&any, sizeof(any)));
	len = sizeof(sin);
	ASSERT_EQ(0, getsockname(b, (struct sockaddr *)&sin, &len));
	EXPECT_NE(0, sin.sin_port);
	TH_LOG("ephemeral port %d", ntohs(sin.sin_port));
	/* connect() binds implicitly and sets the peer. */
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&peer, sizeof(peer)));
	len = sizeof(sin);
	ASSERT_EQ(0, getsockname(c, (struct sockaddr *)&sin, &len));
	EXPECT_NE(0, sin.sin_port);
	len = sizeof(sin);
	ASSERT_EQ(0, getpeername(c, (struct sockaddr *)&sin, &len));
	EXPECT_EQ(peer.sin_port, sin.sin_port);
	EXPECT_EQ(peer.sin_addr.s_addr, sin.sin_addr.s_addr);
	/* AF_UNSPEC disconnects. */
	any.sin_family = AF_UNSPEC;
	ASSERT_EQ(0, connect(c, (struct sockaddr *)&any, sizeof(any)));
	len = sizeof(sin);
	EXPECT_EQ(-1, getpeername(c, (struct sockaddr *)&sin, &len));
	EXPECT_EQ(ENOTCONN, errno);
	EXPECT_EQ(-1, send(c, "x", 1, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	/* Bad addresses. */
	far.sin_addr.s_addr = inet_addr("10.99.99.99");
	EXPECT_EQ(-1, bind(d, (struct sockaddr *)&far, sizeof(far)));
	EXPECT_EQ(EADDRNOTAVAIL, errno);
	EXPECT_EQ(-1, bind(d, (struct sockaddr *)&peer, sizeof(peer) - 1));
	EXPECT_EQ(EINVAL, errno);
	far = lo(0);
	EXPECT_EQ(-1, connect(d, (struct sockaddr *)&far, sizeof(far)))
		TH_LOG("connect to port 0");
	far = lo(PORT(0));
	far.sin_addr.s_addr = 0;
	EXPECT_EQ(-1, connect(d, (struct sockaddr *)&far, sizeof(far)))
		TH_LOG("connect to 0.0.0.0");
	far.sin_family = AF_INET6;
	EXPECT_EQ(-1, bind(d, (struct sockaddr *)&far, sizeof(far)));
	EXPECT_EQ(-1, sendto(d, "x", 1, 0, (struct sockaddr *)&far, sizeof(far)));
}

TEST(connect_then_send)
{
	int a = mk(), b = mk_bound(PORT(1)), c = mk_bound(PORT(2));
	struct sockaddr_in peer = lo(PORT(1)), me, from;
	socklen_t len = sizeof(me), flen = sizeof(from);
	char buf[16];

	ASSERT_LE(0, b);
	ASSERT_LE(0, c);
	set_rcvtimeo(b, 30000);
	set_rcvtimeo(c, 30000);
	ASSERT_EQ(0, connect(a, (struct sockaddr *)&peer, sizeof(peer)));
	ASSERT_EQ(0, getsockname(a, (struct sockaddr *)&me, &len));
	ASSERT_EQ(5, send(a, "hello", 5, 0));
	ASSERT_EQ(5, recvfrom(b, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen));
	EXPECT_EQ(0, memcmp(buf, "hello", 5));
	EXPECT_EQ(me.sin_port, from.sin_port);
	EXPECT_EQ(htonl(INADDR_LOOPBACK), from.sin_addr.s_addr);
	/* An explicit address still wins on a connected socket. */
	ASSERT_EQ(5, send_to(a, "other", 5, PORT(2), 0));
	ASSERT_EQ(5, recv(c, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "other", 5));
	/* MPDT_INFO of the connected peer with an AF_UNSPEC mi_peer. */
	ASSERT_EQ(0, wait_acked(a, PORT(1), 1, 30000));
}

TEST(sendto_without_address)
{
	int a = mk(), b = mk_bound(PORT(0));

	ASSERT_EQ(-1, send(a, "x", 1, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	ASSERT_EQ(-1, send(b, "x", 1, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
	ASSERT_EQ(-1, sendto(b, "x", 1, 0, NULL, 0));
	EXPECT_EQ(EDESTADDRREQ, errno);
}

TEST(bind_port_in_use)
{
	int a = mk_bound(PORT(0)), b = mk(), c = mk();
	struct sockaddr_in same = lo(PORT(0)), any = lo(PORT(0));

	ASSERT_LE(0, a);
	ASSERT_EQ(-1, bind(b, (struct sockaddr *)&same, sizeof(same)));
	EXPECT_EQ(EADDRINUSE, errno);
	/* MPDT ports are per netns, whatever the address. */
	any.sin_addr.s_addr = htonl(INADDR_ANY);
	ASSERT_EQ(-1, bind(c, (struct sockaddr *)&any, sizeof(any)));
	EXPECT_EQ(EADDRINUSE, errno);
	/* Free again once the owner is closed. */
	close(a);
	EXPECT_EQ(0, bind(b, (struct sockaddr *)&same, sizeof(same)))
		TH_LOG("port still in use after close: %s", strerror(errno));
}

/* The ephemeral range (32768-60999) full: bind() to port 0 fails, and
 * the one port freed again is the one it gets.  netns.c finds it in a
 * bitmap; a walk of the port table took 28232 lookups here, with
 * softirqs off, for every autobind of every user of the netns.
 */
#define EPHEMERAL_SPAN (60999 - 32768 + 1)

static int bind_any(int fd)
{
	struct sockaddr_in a = lo(0);

	return bind(fd, (struct sockaddr *)&a, sizeof(a));
}

/* The MPDT port @fd is bound to, or -1. */
static int bound_port(int fd)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);

	if (getsockname(fd, (struct sockaddr *)&addr, &len))
		return -1;
	return ntohs(addr.sin_port);
}

TEST(ephemeral_range_full_then_one_port_free)
{
	struct rlimit rl = { EPHEMERAL_SPAN + 64, EPHEMERAL_SPAN + 64 };
	int *fds = calloc(EPHEMERAL_SPAN + 1, sizeof(*fds));
	int n, i, freed;
	double t;

	ASSERT_NE(NULL, fds);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	for (n = 0; n <= EPHEMERAL_SPAN; n++) {
		fds[n] = mk();
		ASSERT_LE(0, fds[n]);
		if (bind_any(fds[n]))
			break;
	}
	/* Sockets of earlier tests may still hold a few (time-wait). */
	ASSERT_GE(EPHEMERAL_SPAN, n);
	EXPECT_EQ(EADDRINUSE, errno);
	EXPECT_LT(EPHEMERAL_SPAN - 64, n);
	t = now();
	EXPECT_EQ(-1, bind_any(fds[n]));
	EXPECT_EQ(EADDRINUSE, errno);
	TH_LOG("%d ports bound; bind() of a full range took %.0f us", n,
	       (now() - t) * 1e6);
	freed = bound_port(fds[n / 2]);
	ASSERT_LE(32768, freed);
	ASSERT_EQ(0, close(fds[n / 2]));
	ASSERT_EQ(0, bind_any(fds[n]));
	EXPECT_EQ(freed, bound_port(fds[n]));
	for (i = 0; i <= n; i++)
		if (i != n / 2)
			close(fds[i]);
	free(fds);
}

/* MPDT is one to one: a broadcast or multicast peer is refused, as
 * tcp(7) refuses one, not sent to until it fails.  127.255.255.255 is
 * lo's subnet broadcast address.
 */
TEST(group_addresses_are_refused)
{
	static const char *const v4[] = {
		"255.255.255.255", "224.0.0.1", "127.255.255.255",
	};
	struct sockaddr_in6 g6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(PORT(1)),
	};
	int fd = mk(), fd6 = socket(AF_INET6, SOCK_DGRAM, IPPROTO_MPDT);
	struct sockaddr_in g;
	unsigned int i;

	ASSERT_LE(0, fd);
	ASSERT_LE(0, fd6);
	for (i = 0; i < ARRAY_SIZE(v4); i++) {
		g = lo(PORT(1));
		ASSERT_EQ(1, inet_pton(AF_INET, v4[i], &g.sin_addr));
		EXPECT_EQ(-1, sendto(fd, "x", 1, 0, (struct sockaddr *)&g,
				     sizeof(g)));
		EXPECT_EQ(ENETUNREACH, errno)
			TH_LOG("sendto %s", v4[i]);
		EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&g, sizeof(g)));
		EXPECT_EQ(ENETUNREACH, errno)
			TH_LOG("connect %s", v4[i]);
	}
	ASSERT_EQ(1, inet_pton(AF_INET6, "ff0e::1", &g6.sin6_addr));
	EXPECT_EQ(-1, sendto(fd6, "x", 1, 0, (struct sockaddr *)&g6,
			     sizeof(g6)));
	EXPECT_EQ(ENETUNREACH, errno);
	EXPECT_EQ(-1, connect(fd6, (struct sockaddr *)&g6, sizeof(g6)));
	EXPECT_EQ(ENETUNREACH, errno);
	/* A host's address still is taken. */
	g = lo(PORT(1));
	EXPECT_EQ(0, connect(fd, (struct sockaddr *)&g, sizeof(g)));
	close(fd);
	close(fd6);
}

/* IPv4 address @addr, port @port. */
static struct sockaddr_in in4(const char *addr, int port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};

	inet_pton(AF_INET, addr, &a.sin_addr);
	return a;
}

/* A VRF's subnets have their broadcast addresses in the VRF's own table,
 * not in the local one: a socket bound to the VRF refuses them too, and
 * still takes a host of the subnet.
 */
TEST(vrf_broadcast_addresses_are_refused)
{
	struct sockaddr_in bcast = in4("10.77.0.255", PORT(1));
	struct sockaddr_in host = in4("10.77.0.2", PORT(1));
	int fd;

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	if (run(NULL, 0, "ip", "link", "add", "mvrf", "type", "vrf", "table",
		"10", NULL))
		SKIP(return, "no VRF devices (vrf.ko)");
	ASSERT_EQ(0, run(NULL, 0, "ip", "link", "set", "mvrf", "up", NULL));
	ASSERT_EQ(0, run(NULL, 0, "ip", "link", "add", "d0", "type", "dummy",
			 NULL));
	ASSERT_EQ(0, run(NULL, 0, "ip", "link", "set", "d0", "master", "mvrf",
			 "up", NULL));
	ASSERT_EQ(0, run(NULL, 0, "ip", "addr", "add", "10.77.0.1/24", "dev",
			 "d0", NULL));
	fd = mk();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, "mvrf", 5));
	EXPECT_EQ(-1, sendto(fd, "x", 1, 0, (struct sockaddr *)&bcast,
			     sizeof(bcast)));
	EXPECT_EQ(ENETUNREACH, errno);
	EXPECT_EQ(-1, connect(fd, (struct sockaddr *)&bcast, sizeof(bcast)));
	EXPECT_EQ(ENETUNREACH, errno);
	EXPECT_EQ(0, connect(fd, (struct sockaddr *)&host, sizeof(host)));
	close(fd);
}

/* The packets @dev sent, from /proc/net/dev of this netns, or -1. */
static long long dev_tx_packets(const char *dev)
{
	FILE *f = fopen("/proc/net/dev", "r");
	char line[512], name[32];
	long long tx;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* Eight receive counters, then the bytes and packets sent. */
		if (sscanf(line, " %31[^:]:%*d %*d %*d %*d %*d %*d %*d %*d %*d %lld",
			   name, &tx) == 2 && !strcmp(name, dev)) {
			fclose(f);
			return tx;
		}
	}
	fclose(f);
	return -1;
}

/* A peer whose address became a subnet's broadcast address (an address
 * added here made it one) is no longer sent to: every transmission finds
 * the broadcast route and is dropped (tx_err), none leaves.
 */
TEST(peer_turned_broadcast_is_not_sent_to)
{
	struct sockaddr_in peer = in4("10.78.1.255", PORT(1));
	long long err, sent;
	double end;
	int fd;

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	ASSERT_EQ(0, run(NULL, 0, "ip", "link", "add", "d0", "type", "dummy",
			 NULL));
	/* No IPv6 link-local address: none of its DAD, router or MLD
	 * solicitations counts among d0's packets.
	 */
	ASSERT_EQ(0, run(NULL, 0, "ip", "link", "set", "d0", "addrgenmode",
			 "none", "up", NULL));
	ASSERT_EQ(0, run(NULL, 0, "ip", "addr", "add", "10.78.0.1/16", "dev",
			 "d0", NULL));
	fd = mk();
	ASSERT_LE(0, fd);
	/* A host of 10.78.0.0/16: its message leaves by d0. */
	ASSERT_EQ(1, sendto(fd, "x", 1, 0, (struct sockaddr *)&peer,
			    sizeof(peer)));
	end = now() + 5;
	while (dev_tx_packets("d0") < 1 && now() < end)
		usleep(10000);
	ASSERT_LT(0, dev_tx_packets("d0"));
	ASSERT_EQ(0, run(NULL, 0, "ip", "addr", "add", "10.78.1.1/24", "dev",
			 "d0", NULL));
	err = netns_stat("tx_err");
	sent = dev_tx_packets("d0");
	ASSERT_LE(0, err);
	ASSERT_LE(0, sent);
	ASSERT_EQ(1, sendto(fd, "y", 1, 0, (struct sockaddr *)&peer,
			    sizeof(peer)));
	end = now() + 5;
	while (netns_stat("tx_err") == err && now() < end)
		usleep(10000);
	EXPECT_LT(err, netns_stat("tx_err"))
		TH_LOG("no transmission to 10.78.1.255 was refused in 5 s");
	EXPECT_EQ(sent, dev_tx_packets("d0"))
		TH_LOG("sent to the broadcast address 10.78.1.255");
	close(fd);
}

TEST(info_after_transfer)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1)), c = mk_bound(PORT(2));
	struct sockaddr_in pb = lo(PORT(1)), pa = lo(PORT(0)), nobody = lo(PORT(9));
	struct mpdt_info ia, ib;
	socklen_t len;
	uint8_t *buf = malloc(1 << 20), *got = malloc((1 << 20) + 1);
	char big[sizeof(struct mpdt_info) + 64];
	uint64_t total = 0;
	int i;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 30000);
	for (i = 0; i < 20; i++) {
		size_t n = 8 + ((size_t)i * 104729) % (1 << 20);

		fill(buf, n, i);
		ASSERT_EQ((ssize_t)n, send_to(a, buf, n, PORT(1), 0));
		total += n;
	}
	for (i = 0; i < 20; i++) {
		ssize_t n = recv(b, got, (1 << 20) + 1, 0);

		ASSERT_LT(0, n);
		ASSERT_LE(0, check(got, n));
	}
	ASSERT_EQ(0, wait_acked(a, PORT(1), 20, 30000));
	ASSERT_EQ(0, get_info(a, &pb, &ia));
	EXPECT_EQ(MPDT_CONN_ACTIVE, ia.mi_state);
	EXPECT_EQ(20, ia.mi_msgs_sent);
	EXPECT_EQ(20, ia.mi_msgs_acked);
	EXPECT_EQ(0, ia.mi_msgs_inflight);
	EXPECT_EQ(0, ia.mi_inflight);
	EXPECT_LT(0, ia.mi_srtt_us);
	EXPECT_LT(0, ia.mi_min_rtt_us);
	EXPECT_LT(0, ia.mi_cwnd);
	EXPECT_LE(10000, ia.mi_rto_us) TH_LOG("rto_min_us is 10000");
	EXPECT_GE(1000000, ia.mi_rto_us) TH_LOG("rto_max_us is 1000000");
	EXPECT_EQ(ia.mi_snd_nxt, ia.mi_snd_una);
	EXPECT_LT(0, ia.mi_snd_nxt);
	EXPECT_EQ(total, ia.mi_bytes_acked);
	EXPECT_LE(total, ia.mi_bytes_sent);
	EXPECT_LT(0, ia.mi_sacks_rcvd);
	EXPECT_NE(0, ia.mi_lb[0]);
	EXPECT_NE(0, ia.mi_cc[0]);
	/* The module's defaults measure the path: the base RTT in use is
	 * the minimum RTT, rounded up, within the eighth of itself that the
	 * minimum must move by to be taken again (engine.c moved()); 20 MiB
	 * delivered give a rate and a BDP of a payload or more.
	 */
	EXPECT_LE(ia.mi_base_rtt_us,
		  ia.mi_min_rtt_us + ia.mi_base_rtt_us / 8 + 1);
	EXPECT_LE(ia.mi_min_rtt_us, ia.mi_base_rtt_us + ia.mi_base_rtt_us / 8 + 1);
	EXPECT_LT(0, ia.mi_delivery_rate);
	EXPECT_LE(1400, ia.mi_bdp);
	/* What the last SACK said, in whole KiB: nothing started since. */
	EXPECT_NE(~0U, ia.mi_peer_room);
	EXPECT_EQ(0, ia.mi_peer_room % 1024);
	EXPECT_EQ(pb.sin_port, ((struct sockaddr_in *)&ia.mi_peer)->sin_port);
	TH_LOG("srtt %u us, min_rtt %u us, base_rtt %u us, bdp %u, rate %llu B/s, "
	       "cwnd %u, rto %u us, lb %s, cc %s, retx %llu/%llu/%llu/%llu",
	       ia.mi_srtt_us, ia.mi_min_rtt_us, ia.mi_base_rtt_us, ia.mi_bdp,
	       (unsigned long long)ia.mi_delivery_rate,
	       ia.mi_cwnd, ia.mi_rto_us, ia.mi_lb, ia.mi_cc,
	       (unsigned long long)ia.mi_retx[0], (unsigned long long)ia.mi_retx[1],
	       (unsigned long long)ia.mi_retx[2], (unsigned long long)ia.mi_retx[3]);
	/* The receiving half, seen from b. */
	ASSERT_EQ(0, get_info(b, &pa, &ib));
	EXPECT_EQ(20, ib.mi_msgs_rcvd);
	EXPECT_EQ(ia.mi_snd_nxt, ib.mi_rcv_epsn);
	EXPECT_EQ(0, ib.mi_rcv_ooo);
	EXPECT_LT(0, ib.mi_sacks_sent);
	EXPECT_EQ(0, ib.mi_msgs_sent);
	/* Errors. */
	EXPECT_EQ(-1, get_info(a, &nobody, &ia));
	EXPECT_EQ(ENOENT, errno);
	EXPECT_EQ(-1, get_info(c, NULL, &ia));
	EXPECT_EQ(ENOTCONN, errno);
	len = sizeof(ia.mi_peer) - 1;
	EXPECT_EQ(-1, getsockopt(a, SOL_MPDT, MPDT_INFO, &ia, &len));
	EXPECT_EQ(EINVAL, errno);
	len = sizeof(ia);
	EXPECT_EQ(-1, getsockopt(a, SOL_MPDT, 99, &ia, &len));
	EXPECT_EQ(ENOPROTOOPT, errno);
	/* Short and long buffers: min(len, sizeof) is copied and reported. */
	memset(&ia, 0, sizeof(ia));
	memcpy(&ia.mi_peer, &pb, sizeof(pb));
	len = offsetof(struct mpdt_info, mi_cwnd);
	ASSERT_EQ(0, getsockopt(a, SOL_MPDT, MPDT_INFO, &ia, &len));
	EXPECT_EQ(offsetof(struct mpdt_info, mi_cwnd), len);
	EXPECT_EQ(0, ia.mi_cwnd);
	memset(big, 0, sizeof(big));
	memcpy(big, &pb, sizeof(pb));
	len = sizeof(big);
	ASSERT_EQ(0, getsockopt(a, SOL_MPDT, MPDT_INFO, big, &len));
	EXPECT_EQ(sizeof(struct mpdt_info), len);
	free(buf);
	free(got);
}

/*
 * SO_LINGER with a positive time: close() returns once every message is
 * acknowledged, so every one is then in the receiver's queue, whole.  In
 * the test's own netns lo delays each packet LINGER_PATH_MS (netem): a
 * close() that returned without waiting would find them all still on the
 * way, since none can reach the receiver sooner.  Read at once, with
 * MSG_DONTWAIT; nothing is left to deliver in the background.
 */
#define LINGER_PATH_MS 100
TEST(close_with_linger_delivers_everything)
{
	size_t sizes[] = { 65536, 20000, 4097, 1400, 8 };
	struct linger lg = { .l_onoff = 1, .l_linger = 60 };
	unsigned int k, nmsg = ARRAY_SIZE(sizes), seen = 0;
	uint8_t *buf = malloc(65536 + 1);
	double t0, waited;
	char delay[16];
	int a, b;

	snprintf(delay, sizeof(delay), "%dms", LINGER_PATH_MS);
	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	ASSERT_EQ(0, run(NULL, 0, "tc", "qdisc", "add", "dev", "lo", "root",
			 "netem", "delay", delay, NULL))
		TH_LOG("tc qdisc add dev lo root netem failed");
	a = mk_bound(PORT(0));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	t0 = now();
	for (k = 0; k < nmsg; k++) {
		fill(buf, sizes[k], k);
		ASSERT_EQ((ssize_t)sizes[k], send_to(a, buf, sizes[k], PORT(1), 0));
	}
	ASSERT_EQ(0, close(a));
	waited = now() - t0;
	for (k = 0; k < nmsg; k++) {
		ssize_t n = recv(b, buf, 65536 + 1, MSG_DONTWAIT);
		long idx;

		ASSERT_LT(0, n) TH_LOG("message %u of %u not in the receiver's queue "
				       "when close() returned after %.3f s: %s",
				       k + 1, nmsg, waited,
				       n < 0 ? strerror(errno) : "empty");
		idx = check(buf, n);
		ASSERT_LE(0, idx);
		ASSERT_GT((long)nmsg, idx);
		EXPECT_EQ((ssize_t)sizes[idx], n);
		EXPECT_FALSE(seen & (1 << idx));
		seen |= 1 << idx;
	}
	EXPECT_EQ((1u << nmsg) - 1, seen);
	EXPECT_EQ(-1, recv(b, buf, 16, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	TH_LOG("close() lingered %.3f s after the first send", waited);
	/* No acknowledgment can come back before a round trip of the path. */
	EXPECT_LE(2 * LINGER_PATH_MS / 1e3, waited);
	EXPECT_EQ(nmsg, netns_stat("msg_acked"));
	EXPECT_EQ(nmsg, netns_stat("msg_rx"));
	EXPECT_EQ(0, netns_stat("close_drain")) TH_LOG("nothing was left to drain");
	close(b);
	free(buf);
}

/* close() without SO_LINGER returns at once and the messages are still
 * delivered, whole, in the background: here to a receiver that binds its
 * port only after the sender closed (mpdt(7), "close").
 */
TEST(close_without_linger_delivers_in_the_background)
{
	size_t sizes[] = { 8 << 20, 4 << 20, 1 << 20, 300000 };
	uint8_t *buf = malloc((8 << 20) + 1);
	int a = mk_bound(PORT(0)), b, seen = 0;
	double t0;

	ASSERT_LE(0, a);
	for (unsigned int k = 0; k < ARRAY_SIZE(sizes); k++) {
		fill(buf, sizes[k], k);
		ASSERT_EQ((ssize_t)sizes[k],
			  send_to(a, buf, sizes[k], PORT(1), 0));
	}
	t0 = now();
	ASSERT_EQ(0, close(a));
	EXPECT_GT(2.0, now() - t0) TH_LOG("close() without SO_LINGER blocked");
	b = mk_bound(PORT(1));
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 30000);
	for (unsigned int k = 0; k < ARRAY_SIZE(sizes); k++) {
		ssize_t n = recv(b, buf, (8 << 20) + 1, 0);
		long idx;

		ASSERT_LT(0, n) TH_LOG("message %u of 4: %s", k, strerror(errno));
		idx = check(buf, n);
		ASSERT_LE(0, idx);
		ASSERT_GT((long)ARRAY_SIZE(sizes), idx);
		EXPECT_EQ((ssize_t)sizes[idx], n);
		EXPECT_FALSE(seen & (1 << idx));
		seen |= 1 << idx;
	}
	EXPECT_EQ(0xf, seen);
	EXPECT_EQ(-1, recv(b, buf, 16, MSG_DONTWAIT));
	close(b);
	free(buf);
}

/* SO_LINGER with a zero time drops what is not yet acknowledged: the late
 * receiver gets nothing.
 */
TEST(close_with_linger_zero_drops_the_rest)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int a = mk_bound(PORT(0)), b;
	char buf[16];

	ASSERT_LE(0, a);
	ASSERT_EQ(5, send_to(a, "hello", 5, PORT(1), 0));
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	ASSERT_EQ(0, close(a));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, b);
	/* Far longer than the sender's retries would take to reach it. */
	set_rcvtimeo(b, 2000);
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), 0));
	EXPECT_EQ(EAGAIN, errno);
	close(b);
}

/* A process that sends and exits without closing: the kernel closes its
 * socket, and the message is still delivered.
 */
TEST(exit_after_send_delivers)
{
	char buf[16];
	int b, status;
	pid_t pid;

	/* The receiver binds only once the sender is gone. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int a = mk_bound(PORT(0));

		_exit(a < 0 || send_to(a, "last words", 10, PORT(1), 0) != 10);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 30000);
	ASSERT_EQ(10, recv(b, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "last words", 10));
	close(b);
}

/*
 * SO_LINGER with a positive time and a dead peer (no socket on its port):
 * close() waits the linger time, returns 0 (Linux's close() cannot return
 * an error: mpdt(7), "Closing"; shutdown() is how a sender learns it),
 * and then discards what is left.  Nothing drains in the background: the
 * socket does not enter draining (close_drain), sends nothing more, and a
 * receiver that binds the port afterwards gets nothing, though a sender
 * still retrying would reach it within rto-max-us.  Its own netns, with
 * max-retries high enough that the peer cannot be failed meanwhile (the
 * discard is the linger's, not conn_failed's) and rto-max-us 200 ms.
 */
TEST(close_with_linger_dead_peer_returns)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 1 };
	const char *cli = getenv("MPDT_CLI");
	long long rto, tx;
	char buf[16];
	double t0, dt;
	int a, b, ret;
	ssize_t n;

	if (!own_netns_with(_metadata, cli, "max-retries", "1000",
			    "rto-max-us", "200000", NULL))
		return;
	a = mk_bound(PORT(0));
	ASSERT_LE(0, a);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)));
	ASSERT_EQ(5, send_to(a, "hello", 5, DEAD_PORT, 0));
	t0 = now();
	ret = close(a);
	dt = now() - t0;
	TH_LOG("close() returned %d after %.2f s (SO_LINGER 1 s)", ret, dt);
	EXPECT_EQ(0, ret) TH_LOG("close(): %s", strerror(errno));
	EXPECT_EQ(-1, close(a)) TH_LOG("the descriptor outlived close()");
	EXPECT_EQ(EBADF, errno);
	EXPECT_LE(0.75, dt);
	EXPECT_GT(10.0, dt);
	/* Discarded, not drained, not failed. */
	EXPECT_EQ(0, netns_stat("close_drain"));
	EXPECT_EQ(0, netns_stat("conn_failed"));
	EXPECT_EQ(0, netns_stat("msg_acked"));
	tx = netns_stat("tx_data");
	rto = netns_stat("rto");
	EXPECT_LT(0, tx);
	b = mk_bound(DEAD_PORT);
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 600);	/* 3 x rto-max-us */
	n = recv(b, buf, sizeof(buf), 0);
	EXPECT_EQ(-1, n) TH_LOG("a message discarded by close() arrived later");
	if (n < 0)
		EXPECT_EQ(EAGAIN, errno);
	EXPECT_EQ(tx, netns_stat("tx_data")) TH_LOG("sent after close()");
	EXPECT_EQ(rto, netns_stat("rto"));
	EXPECT_EQ(0, netns_stat("msg_rx"));
	close(b);
}

/* The first "wmem N" of `mpdt sock`'s text, or -1. */
static long long sock_wmem(const char *text)
{
	const char *w = strstr(text, " wmem ");

	return w ? strtoll(w + 6, NULL, 10) : -1;
}

/* Wait up to @secs for "mpdt sock" (@cli) to list no socket of this netns;
 * its last output is in @out.  0 once none is left, -1 if one still is.
 */
static int wait_no_sockets(const char *cli, char *out, size_t len,
			   double secs)
{
	double end = now() + secs;

	do {
		if (run(out, len, cli, "sock", NULL))
			return -1;
		if (!strstr(out, "local "))
			return 0;
		usleep(50000);
	} while (now() < end);
	return -1;
}

/*
 * close() without SO_LINGER while the peer is gone: the socket drains in
 * the background, bound and holding its messages' memory (mpdt sock:
 * draining, wmem), until the retry limit fails the peer: max-retries + 1
 * timeouts.  Its messages go with the failed peer (conn_failed), and the
 * socket with them.  That is not close_abandoned, which counts a drain
 * that nothing acknowledged for the reassembly time, (max-retries + 2) x
 * rto-max-us and at least 10 s, from a peer that answers but never makes
 * room (mpdt(7), "Closing").  Its own netns, max-retries 3 and every RTO
 * 600 ms (rto-min-us = rto-max-us): the drain lasts 2.4 s, no less.
 */
/* In its own netns, where a peer that never answers fails after
 * max-retries 3 timeouts of 600 ms (rto-min-us = rto-max-us), a socket on
 * PORT(0) that sent it 100000 bytes of @buf; -1 if the netns is not to
 * be had (the test is skipped) or that failed (the test fails).
 */
static int sent_to_dead_peer(struct __test_metadata *_metadata,
			     const char *cli, const uint8_t *buf)
{
	ssize_t n;
	int a;

	if (!own_netns_with(_metadata, cli, "max-retries", "3",
			    "rto-min-us", "600000", "rto-max-us", "600000",
			    NULL))
		return -1;
	a = mk_bound(PORT(0));
	EXPECT_LE(0, a);
	if (a < 0)
		return -1;
	n = send_to(a, buf, 100000, DEAD_PORT, 0);
	EXPECT_EQ(100000, n);
	if (n != 100000) {
		close(a);
		return -1;
	}
	return a;
}

TEST(close_without_linger_dead_peer_gives_up)
{
	const char *cli = getenv("MPDT_CLI");
	char out[4096];
	uint8_t *buf = calloc(1, 100000);
	double t0, end;
	int a;

	a = sent_to_dead_peer(_metadata, cli, buf);
	if (a < 0)
		return;
	ASSERT_EQ(5, send_to(a, "hello", 5, DEAD_PORT, 0));
	t0 = now();
	ASSERT_EQ(0, close(a));
	EXPECT_EQ(1, netns_stat("close_drain"));
	/* Draining: still bound, its messages still charged to it. */
	ASSERT_EQ(0, run(out, sizeof(out), cli, "sock", NULL));
	EXPECT_NE(NULL, strstr(out, "state draining")) TH_LOG("mpdt sock: %s", out);
	EXPECT_LT(100000, sock_wmem(out)) TH_LOG("mpdt sock: %s", out);
	/* Until the retry limit fails the peer. */
	end = t0 + 60;
	while (netns_stat("conn_failed") < 1 && now() < end)
		usleep(20000);
	ASSERT_EQ(1, netns_stat("conn_failed"))
		TH_LOG("the peer was not failed within 60 s of close()");
	TH_LOG("gave up %.2f s after close()", now() - t0);
	EXPECT_EQ(3 + 1, netns_stat("rto")) TH_LOG("max-retries 3");
	EXPECT_EQ(0, netns_stat("msg_acked"));
	EXPECT_EQ(0, netns_stat("close_abandoned"));
	EXPECT_EQ(1, netns_stat("close_drain"));
	/* Then the socket is gone (a timer tick later). */
	EXPECT_EQ(0, wait_no_sockets(cli, out, sizeof(out), 10))
		TH_LOG("still there: %s", out);
	EXPECT_EQ(0, netns_stat("time_wait"));
	free(buf);
}

/* The errno of a bind() of @port by a new socket of user nobody, in a
 * child process; 0 if it succeeded, -1 if the child could not try.
 */
static int bind_as_nobody(int port)
{
	pid_t pid = fork();
	int status, fd;

	if (pid < 0)
		return -1;
	if (!pid) {
		if (setgid(65534) || setuid(65534))
			_exit(255);
		fd = mk_bound(port);
		_exit(fd < 0 ? errno : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A new bind() of a draining socket's port takes it over, and the drain
 * gives up at once (close_abandoned): no SACK would reach it any more,
 * and its retries would only hold the peer to an incarnation that cannot
 * finish.  Only the owner's: another user's bind() fails with EADDRINUSE
 * and the drain goes on.  The setting above, where the drain lasts
 * 2.4 s: the bind ends it before its first timeout, or right after it.
 */
TEST(bind_over_a_draining_socket_ends_the_drain)
{
	const char *cli = getenv("MPDT_CLI");
	uint8_t *buf = calloc(1, 100000);
	char out[4096];
	int a, b;

	a = sent_to_dead_peer(_metadata, cli, buf);
	if (a < 0)
		return;
	ASSERT_EQ(0, close(a));
	EXPECT_EQ(1, netns_stat("close_drain"));
	EXPECT_EQ(EADDRINUSE, bind_as_nobody(PORT(0)))
		TH_LOG("another user took the draining socket's port");
	EXPECT_EQ(0, netns_stat("close_abandoned"));
	b = mk_bound(PORT(0));
	ASSERT_LE(0, b);
	EXPECT_EQ(1, netns_stat("close_abandoned"));
	/* Longer than the drain would have lasted: no failure, and no
	 * timeout after the bind (one before it would need the 600 ms RTO
	 * to pass between send_to() and bind()).
	 */
	usleep(3000000);
	EXPECT_GE(1, netns_stat("rto"));
	EXPECT_EQ(0, netns_stat("conn_failed"));
	ASSERT_EQ(0, run(out, sizeof(out), cli, "sock", NULL));
	EXPECT_EQ(NULL, strstr(out, "state draining")) TH_LOG("mpdt sock: %s", out);
	EXPECT_EQ(0, close(b));
	free(buf);
}

/*
 * The closed sockets of a namespace still delivering in the background may
 * hold drain-mem bytes in all: a socket whose messages would exceed it
 * discards them at close(), counted, and the room comes back when a
 * draining socket ends.
 */
TEST(close_over_drain_mem_discards)
{
	const char *cli = getenv("MPDT_CLI");
	uint8_t *buf = calloc(1, 100000);
	char out[4096], *first;
	int a, b, c;

	/* Room for one socket's 100000-byte message, not two. */
	if (!own_netns_with(_metadata, cli, "drain-mem", "150000",
			    "max-retries", "3", "rto-min-us", "600000",
			    "rto-max-us", "600000", NULL))
		return;
	a = mk_bound(PORT(0));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(100000, send_to(a, buf, 100000, DEAD_PORT, 0));
	ASSERT_EQ(100000, send_to(b, buf, 100000, DEAD_PORT, 0));
	ASSERT_EQ(0, close(a));
	EXPECT_EQ(1, netns_stat("close_drain"));
	EXPECT_EQ(0, netns_stat("close_drain_limit"));
	ASSERT_EQ(0, close(b));
	EXPECT_EQ(1, netns_stat("close_drain"));
	EXPECT_EQ(1, netns_stat("close_drain_limit"));
	/* Only the first is left, draining. */
	ASSERT_EQ(0, run(out, sizeof(out), cli, "sock", NULL));
	first = strstr(out, "local ");
	ASSERT_NE(NULL, first) TH_LOG("mpdt sock: %s", out);
	EXPECT_NE(NULL, strstr(out, "state draining")) TH_LOG("mpdt sock: %s", out);
	EXPECT_EQ(NULL, strstr(first + 1, "local "))
		TH_LOG("two sockets left: %s", out);
	/* Once the first gives up and is gone, the room is back. */
	ASSERT_EQ(0, wait_no_sockets(cli, out, sizeof(out), 60))
		TH_LOG("still there: %s", out);
	EXPECT_EQ(1, netns_stat("conn_failed"));
	c = mk_bound(PORT(2));
	ASSERT_LE(0, c);
	ASSERT_EQ(100000, send_to(c, buf, 100000, DEAD_PORT, 0));
	ASSERT_EQ(0, close(c));
	EXPECT_EQ(2, netns_stat("close_drain"));
	EXPECT_EQ(1, netns_stat("close_drain_limit"));
	free(buf);
}

TEST(send_to_self)
{
	int a = mk_bound(PORT(0));
	char buf[16];

	ASSERT_LE(0, a);
	set_rcvtimeo(a, 30000);
	ASSERT_EQ(6, send_to(a, "myself", 6, PORT(0), 0));
	ASSERT_EQ(6, recv(a, buf, sizeof(buf), 0));
	EXPECT_EQ(0, memcmp(buf, "myself", 6));
	ASSERT_EQ(0, wait_acked(a, PORT(0), 1, 30000));
}

TEST(unsupported_flags)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	char buf[16];
	ssize_t n;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	EXPECT_EQ(-1, send_to(a, "x", 1, PORT(1), MSG_OOB));
	EXPECT_EQ(EOPNOTSUPP, errno);
	ASSERT_EQ(4, send_to(a, "peek", 4, PORT(1), 0));
	ASSERT_EQ(POLLIN, poll1(b, POLLIN, 30000) & POLLIN);
	/* MSG_PEEK: refused, or a real peek that leaves the message queued. */
	n = recv(b, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0)
		EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(4, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), MSG_OOB | MSG_DONTWAIT));
	/* MSG_CMSG_CLOEXEC only asks for what no MPDT cmsg carries. */
	ASSERT_EQ(4, send_to(a, "exec", 4, PORT(1), 0));
	set_rcvtimeo(b, 30000);
	EXPECT_EQ(4, recv(b, buf, sizeof(buf), MSG_CMSG_CLOEXEC));
}

/* Loopback port @port of @family, in @ss; its length. */
static socklen_t lo_any(int family, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		*a4 = lo(port);
		return sizeof(*a4);
	}
	a6->sin6_family = AF_INET6;
	a6->sin6_port = htons(port);
	a6->sin6_addr = in6addr_loopback;
	return sizeof(*a6);
}

/* An ETF qdisc drops every packet of a socket with SO_TXTIME that gives
 * no transmit time, as MPDT's never do, and reports each on the error
 * queue, charged to the receive buffer: sendmsg() refuses the option, and
 * reports of what was sent before it are read with MSG_ERRQUEUE, with
 * the cmsg of @family (IP_RECVERR, IPV6_RECVERR).
 */
static void txtime_refused(struct __test_metadata *_metadata, int family)
{
	struct sock_txtime txtime = {
		.clockid = CLOCK_TAI,
		.flags = SOF_TXTIME_REPORT_ERRORS,
	};
	union {
		char buf[CMSG_SPACE(sizeof(struct sock_extended_err)) + 64];
		struct cmsghdr align;
	} ctl;
	char data[2048];
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	const struct sock_extended_err *ee;
	struct sockaddr_storage ss;
	struct cmsghdr *cm;
	socklen_t len;
	int a, c;

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	ASSERT_EQ(0, run(NULL, 0, "tc", "qdisc", "add", "dev", "lo", "root",
			 "etf", "clockid", "CLOCK_TAI", "delta", "1000000",
			 NULL)) TH_LOG("no ETF qdisc: sockapi.sh loads sch_etf");
	a = socket(family, SOCK_DGRAM, IPPROTO_MPDT);
	c = socket(family, SOCK_DGRAM, IPPROTO_MPDT);
	ASSERT_LE(0, a);
	ASSERT_LE(0, c);
	len = lo_any(family, PORT(0), &ss);
	ASSERT_EQ(0, bind(a, (struct sockaddr *)&ss, len));
	len = lo_any(family, PORT(2), &ss);
	ASSERT_EQ(0, bind(c, (struct sockaddr *)&ss, len));
	len = lo_any(family, PORT(1), &ss);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_TXTIME, &txtime,
				sizeof(txtime)));
	EXPECT_EQ(-1, sendto(a, "x", 1, 0, (struct sockaddr *)&ss, len));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(-1, recv(c, data, sizeof(data), MSG_ERRQUEUE));
	EXPECT_EQ(EAGAIN, errno);

	/* Queued before the option, resent after it: each resend dropped
	 * and reported.
	 */
	ASSERT_EQ(1, sendto(c, "y", 1, 0, (struct sockaddr *)&ss, len));
	ASSERT_EQ(0, setsockopt(c, SOL_SOCKET, SO_TXTIME, &txtime,
				sizeof(txtime)));
	ASSERT_EQ(0, wait_pollerr(c, 3000));
	ASSERT_LT(0, recvmsg(c, &msg, MSG_ERRQUEUE | MSG_DONTWAIT))
		TH_LOG("no report: %s", strerror(errno));
	EXPECT_TRUE(msg.msg_flags & MSG_ERRQUEUE);
	cm = CMSG_FIRSTHDR(&msg);
	ASSERT_NE(NULL, cm);
	EXPECT_EQ(family == AF_INET ? SOL_IP : SOL_IPV6, cm->cmsg_level);
	EXPECT_EQ(family == AF_INET ? IP_RECVERR : IPV6_RECVERR,
		  cm->cmsg_type);
	ee = (const struct sock_extended_err *)CMSG_DATA(cm);
	EXPECT_EQ(SO_EE_ORIGIN_TXTIME, ee->ee_origin);
	EXPECT_EQ(EINVAL, ee->ee_errno);
	EXPECT_EQ(SO_EE_CODE_TXTIME_INVALID_PARAM, ee->ee_code);
	close(a);
	close(c);
}

TEST(so_txtime_refused_and_reports_readable)
{
	txtime_refused(_metadata, AF_INET);
}

TEST(so_txtime_refused_and_reports_readable_ipv6)
{
	txtime_refused(_metadata, AF_INET6);
}

/* splice() from the socket into a pipe (sendfile() from it goes the same
 * way) receives through an iterator that only moves forward and counts
 * what it holds.  Held payloads and copied ones come out in order; before
 * they did, a message of a few packets spun the CPU in the kernel for good
 * (a soft lockup), or warned and was lost where the pipe had been used.
 * A message larger than the pipe comes out truncated to its prefix.
 * The last message, 1 MiB into a receive buffer a fifth of it, has most
 * payloads copied into pages between the held ones.
 */
TEST(splice_into_a_pipe)
{
	static const size_t lens[] = { 30000, 1401, 30000, 200000, 1 << 20 };
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1)), p[2], val;
	uint8_t *buf = malloc(1 << 20), *got = malloc(1 << 20);
	long long copied = netns_stat("rx_copied");
	ssize_t n, r, k;
	size_t i;

	ASSERT_TRUE(buf && got);
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, pipe(p));
	set_rcvtimeo(b, 30000);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		if (lens[i] == 1 << 20) {
			val = 100000;
			ASSERT_EQ(0, setsockopt(b, SOL_SOCKET, SO_RCVBUF, &val,
						sizeof(val)));
			ASSERT_EQ(1 << 20, fcntl(p[1], F_SETPIPE_SZ, 1 << 20));
		}
		fill(buf, lens[i], i);
		ASSERT_EQ((ssize_t)lens[i], send_to(a, buf, lens[i], PORT(1), 0));
		n = splice(b, NULL, p[1], NULL, lens[i], 0);
		ASSERT_LT(0, n) TH_LOG("message %zu: %s", i, strerror(errno));
		ASSERT_GE((ssize_t)lens[i], n);
		for (r = 0; r < n; r += k) {
			k = read(p[0], got + r, n - r);
			ASSERT_LT(0, k);
		}
		EXPECT_EQ(0, memcmp(buf, got, n)) TH_LOG("message %zu", i);
		if (lens[i] <= 65536 || lens[i] == 1 << 20)
			EXPECT_EQ((ssize_t)lens[i], n);
	}
	EXPECT_LT(copied, netns_stat("rx_copied"));
	close(p[0]);
	close(p[1]);
	free(buf);
	free(got);
}

TEST(many_messages_keep_their_boundaries)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1)), i;
	uint8_t *buf = malloc(200000), seen[100] = { 0 };

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 30000);
	for (i = 0; i < 100; i++) {
		size_t n = 8 + ((size_t)i * 7919) % 150000;

		fill(buf, n, i);
		ASSERT_EQ((ssize_t)n, send_to(a, buf, n, PORT(1), 0));
	}
	for (i = 0; i < 100; i++) {
		ssize_t n = recv(b, buf, 200000, 0);
		long idx;

		ASSERT_LT(0, n) TH_LOG("message %d: %s", i, strerror(errno));
		idx = check(buf, n);
		ASSERT_LE(0, idx);
		ASSERT_GT(100, idx);
		ASSERT_EQ(8 + ((size_t)idx * 7919) % 150000, (size_t)n);
		EXPECT_EQ(0, seen[idx]);
		seen[idx] = 1;
	}
	free(buf);
}

/* A long message is queued before its bytes are in and copied while its
 * first pieces go (txmsg.c), so its buffer is taken first: one that
 * faults half way fails with EFAULT before anything is queued, and the
 * socket goes on.  A message gathered from several buffers, pieces
 * straddling them, arrives as itself.
 */
TEST(a_long_message_from_a_bad_buffer_fails_first)
{
	size_t page = sysconf(_SC_PAGESIZE), n = 1 << 20;
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1));
	struct sockaddr_in to = lo(PORT(1));
	uint8_t *map, *buf = malloc(n);
	size_t cut[4] = { 0, 100001, 700000, n };
	struct iovec iov[3];
	struct msghdr mh = {
		.msg_name = &to, .msg_namelen = sizeof(to),
		.msg_iov = iov, .msg_iovlen = 3,
	};
	int i;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_NE(NULL, buf);
	set_rcvtimeo(b, 30000);
	map = mmap(NULL, n, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 1, n);
	ASSERT_EQ(0, munmap(map + n / 2, page));
	EXPECT_EQ(-1, send_to(a, map, n, PORT(1), 0));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, sock_mem(a, SK_MEMINFO_WMEM_QUEUED));

	fill(buf, n, 7);
	for (i = 0; i < 3; i++) {
		iov[i].iov_base = buf + cut[i];
		iov[i].iov_len = cut[i + 1] - cut[i];
	}
	ASSERT_EQ((ssize_t)n, sendmsg(a, &mh, 0));
	memset(buf, 0, n);
	ASSERT_EQ((ssize_t)n, recv(b, buf, n, 0));
	EXPECT_EQ(7, check(buf, n));
	/* The faulting message never reached the peer. */
	EXPECT_EQ(-1, recv(b, buf, n, MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, wait_acked(a, PORT(1), 1, 30000));
	munmap(map, n / 2);
	munmap(map + n / 2 + page, n / 2 - page);
	free(buf);
}

TEST(recvfrom_names_each_peer)
{
	int b = mk_bound(PORT(0)), s[3], i, got = 0;
	struct sockaddr_in from;
	socklen_t flen;
	uint16_t port;

	ASSERT_LE(0, b);
	set_rcvtimeo(b, 30000);
	for (i = 0; i < 3; i++) {
		s[i] = mk_bound(PORT(1 + i));
		port = PORT(1 + i);
		ASSERT_EQ(2, send_to(s[i], &port, 2, PORT(0), 0));
	}
	for (i = 0; i < 3; i++) {
		flen = sizeof(from);
		ASSERT_EQ(2, recvfrom(b, &port, 2, 0, (struct sockaddr *)&from, &flen));
		EXPECT_EQ(sizeof(from), flen);
		EXPECT_EQ(htons(port), from.sin_port);
		got |= 1 << (port - PORT(1));
	}
	EXPECT_EQ(7, got);
}

/*
 * Several large messages at once into a receive buffer that holds only
 * some of them: partial messages must not hold the buffer forever (each
 * connection's window is far smaller than a message, so the six are
 * assembled side by side and fill the buffer long before one completes).
 */
#define NCONC 6
TEST(concurrent_messages_larger_than_rcvbuf)
{
	int b = mk_bound(PORT(0)), val = 1 << 20, rb, s[NCONC], i, seen = 0;
	socklen_t len = sizeof(rb);
	size_t msg = 1 << 20;
	uint8_t *buf = malloc(msg + 1);
	double t0 = now();

	ASSERT_LE(0, b);
	/* 2 MiB (rmem_max does not apply to root's SO_RCVBUFFORCE). */
	ASSERT_EQ(0, setsockopt(b, SOL_SOCKET, SO_RCVBUFFORCE, &val, sizeof(val)));
	ASSERT_EQ(0, getsockopt(b, SOL_SOCKET, SO_RCVBUF, &rb, &len));
	ASSERT_EQ(2 << 20, rb);
	for (i = 0; i < NCONC; i++)
		ASSERT_LE(0, s[i] = mk_bound(PORT(1 + i)));
	for (i = 0; i < NCONC; i++) {
		fill(buf, msg, i);
		ASSERT_EQ((ssize_t)msg, send_to(s[i], buf, msg, PORT(0), 0));
	}
	set_rcvtimeo(b, 60000);
	for (i = 0; i < NCONC; i++) {
		ssize_t n = recv(b, buf, msg + 1, 0);
		long idx;

		if (n != (ssize_t)msg) {
			TH_LOG("message %d of %d after %.1f s: %s", i, NCONC,
			       now() - t0, n < 0 ? strerror(errno) : "short");
			for (int k = 0; k < NCONC; k++) {
				struct sockaddr_in pb = lo(PORT(0));
				struct mpdt_info info;
				int err = 0;

				len = sizeof(err);
				getsockopt(s[k], SOL_SOCKET, SO_ERROR, &err, &len);
				get_info(s[k], &pb, &info);
				TH_LOG("sender %d: state %u, acked %llu, nacks %llu, "
				       "rtos %llu, error %s", k, info.mi_state,
				       (unsigned long long)info.mi_msgs_acked,
				       (unsigned long long)info.mi_nacks_rcvd,
				       (unsigned long long)info.mi_rtos,
				       err ? strerror(err) : "none");
			}
		}
		ASSERT_EQ((ssize_t)msg, n);
		idx = check(buf, n);
		ASSERT_LE(0, idx);
		ASSERT_GT(NCONC, idx);
		seen |= 1 << idx;
	}
	EXPECT_EQ((1 << NCONC) - 1, seen);
	/* Every payload held or reserved was given back with its message,
	 * and the pages behind them to the protocol and the memory cgroup
	 * (the forward allocation is 0 for want of SO_RESERVE_MEM).
	 */
	EXPECT_EQ(0, sock_mem(b, SK_MEMINFO_RMEM_ALLOC));
	EXPECT_EQ(0, sock_mem(b, SK_MEMINFO_FWD_ALLOC));
	TH_LOG("%d x 1 MiB through a %d-byte receive buffer in %.2f s", NCONC, rb,
	       now() - t0);
	free(buf);
}

/* A message larger than the receiver's buffer: an empty socket admits it
 * whole (most of its payloads are copied, there being no room to hold
 * them), and it is delivered intact with nothing left charged.
 */
TEST(message_larger_than_peer_rcvbuf)
{
	int a = mk_bound(PORT(0)), b = mk_bound(PORT(1)), val = 100000, rb;
	socklen_t len = sizeof(rb);
	size_t msg = 1 << 20;
	uint8_t *buf = malloc(msg + 1);
	struct sockaddr_in pb = lo(PORT(1));
	struct mpdt_info info;
	double t0 = now(), end = t0 + 40;
	int err = 0, got = 0;
	ssize_t n = -1;

	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, setsockopt(b, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)));
	ASSERT_EQ(0, getsockopt(b, SOL_SOCKET, SO_RCVBUF, &rb, &len));
	ASSERT_LT((size_t)rb, msg);
	fill(buf, msg, 1);
	ASSERT_EQ((ssize_t)msg, send_to(a, buf, msg, PORT(1), 0));
	/* A sender error ends the wait early: no silent livelock. */
	while (now() < end) {
		n = recv(b, buf, msg + 1, MSG_DONTWAIT);
		if (n >= 0) {
			got = 1;
			break;
		}
		len = sizeof(err);
		getsockopt(a, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err)
			break;
		usleep(20000);
	}
	get_info(a, &pb, &info);
	TH_LOG("after %.1f s: delivered %d, sender error %s, acked %llu, "
	       "nacks %llu, rtos %llu", now() - t0, got, err ? strerror(err) : "none",
	       (unsigned long long)info.mi_msgs_acked,
	       (unsigned long long)info.mi_nacks_rcvd,
	       (unsigned long long)info.mi_rtos);
	ASSERT_TRUE(got) TH_LOG("a 1 MiB message into a %d-byte SO_RCVBUF "
				"is not delivered", rb);
	ASSERT_EQ((ssize_t)msg, n);
	EXPECT_EQ(1, check(buf, n));
	EXPECT_EQ(0, sock_mem(b, SK_MEMINFO_RMEM_ALLOC));
	EXPECT_EQ(0, sock_mem(b, SK_MEMINFO_FWD_ALLOC));
	free(buf);
}

/*
 * A receiver's SACKs say how long a message it has room for (wire-format
 * rst 4.2).  A message longer than that starts with one packet, asking for
 * a SACK; a receiver that is full refuses it (NACK NO_BUFFER) and the
 * rest waits.  Once the reader made room, the next test, an RTO later
 * (600 ms here), is admitted and the rest follows.  A sender that did not
 * know would have sent its window of packets to be refused.  An empty
 * socket admits any message; once it holds one of five eighths of
 * SO_RCVBUF, unread, room for a second such is said to be lacking, and
 * is.
 */
TEST(a_full_receiver_is_sent_one_packet)
{
	const char *cli = getenv("MPDT_CLI");
	int a, b, val = 128 << 10, rb;
	socklen_t len = sizeof(rb);
	long long data, refused;
	uint8_t *buf;
	size_t big;
	double end;

	if (!own_netns_with(_metadata, cli, "rto-min-us", "600000",
			    "rto-max-us", "600000", NULL))
		return;
	b = mk_bound(PORT(1));
	ASSERT_LE(0, b);
	ASSERT_EQ(0, setsockopt(b, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)));
	ASSERT_EQ(0, getsockopt(b, SOL_SOCKET, SO_RCVBUF, &rb, &len));
	a = mk_bound(PORT(0));
	ASSERT_LE(0, a);
	big = (size_t)rb / 8 * 5;
	buf = malloc(big + 1);
	ASSERT_NE(NULL, buf);
	fill(buf, big, 1);
	ASSERT_EQ((ssize_t)big, send_to(a, buf, big, PORT(1), 0));
	ASSERT_EQ(0, wait_acked(a, PORT(1), 1, 5000));

	data = netns_stat("tx_data");
	fill(buf, big, 2);
	ASSERT_EQ((ssize_t)big, send_to(a, buf, big, PORT(1), 0));
	end = now() + 5;
	while (netns_stat("rx_nack") < 1 && now() < end)
		usleep(5000);
	ASSERT_EQ(1, netns_stat("rx_nack"));
	/* Anything else would go at once, not an RTO later. */
	usleep(100000);
	refused = netns_stat("drop_no_buffer") + netns_stat("drop_peer_quota");
	EXPECT_EQ(1, refused);
	EXPECT_EQ(1, netns_stat("tx_data") - data);

	set_rcvtimeo(b, 5000);
	ASSERT_EQ((ssize_t)big, recv(b, buf, big + 1, 0));
	EXPECT_EQ(1, check(buf, big));
	ASSERT_EQ((ssize_t)big, recv(b, buf, big + 1, 0));
	EXPECT_EQ(2, check(buf, big));
	free(buf);
}

/* The cgroup2 path this process was in before cgroup_enter(). */
static char cgroup_home[256];

/* Put this process in the cgroup @name below cgroup2's root
 * (/sys/fs/cgroup: sockapi.sh mounts it in the mount namespace of "ip
 * netns exec"), with the memory controller if @memory, so that the
 * sockets it makes belong to it; false if the host has no such cgroup.
 */
static bool cgroup_enter(const char *name, bool memory)
{
	char path[128], pid[16], line[300];
	int fd, n = snprintf(pid, sizeof(pid), "%d", getpid());
	FILE *f = fopen("/proc/self/cgroup", "r");
	bool ok = false;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "0::%255s", cgroup_home) == 1)
			ok = true;
	if (f)
		fclose(f);
	if (ok && memory) {
		fd = open("/sys/fs/cgroup/cgroup.subtree_control", O_WRONLY);
		ok = fd >= 0 && write(fd, "+memory", 7) == 7;
		if (fd >= 0)
			close(fd);
	}
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", name);
	/* One a failed run left behind goes, with what is attached to it. */
	rmdir(path);
	if (!ok || (mkdir(path, 0755) && errno != EEXIST))
		return false;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/cgroup.procs", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return false;
	ok = write(fd, pid, n) == n;
	close(fd);
	return ok;
}

static void cgroup_leave(const char *name)
{
	char path[300], pid[16];
	int fd, n = snprintf(pid, sizeof(pid), "%d", getpid());

	snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cgroup.procs",
		 cgroup_home);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, pid, n) != n)
			perror(path);
		close(fd);
	}
	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s", name);
	rmdir(path);
}

struct race {
	int fd, port;
	atomic_int stop;
	long done;		/* setsockopt() calls, or messages sent */
	int err;
};

/* Resize the socket's SO_RESERVE_MEM until told to stop. */
static void *reserve_loop(void *arg)
{
	static const int sizes[] = { 0, 1 << 16, 1 << 20, 3 * 4096, 1 << 18 };
	struct race *r = arg;

	while (!r->stop) {
		int v = sizes[r->done++ % 5];

		if (setsockopt(r->fd, SOL_SOCKET, SO_RESERVE_MEM, &v,
			       sizeof(v))) {
			r->err = errno;
			break;
		}
	}
	return NULL;
}

#define RACE_MSG 65536

/* Send messages of 8 bytes to 64 KiB until told to stop; never blocks,
 * so that it stops while nobody reads.
 */
static void *send_loop(void *arg)
{
	static uint8_t buf[RACE_MSG];
	struct race *r = arg;

	while (!r->stop) {
		size_t len = 8 + r->done * 7919 % (RACE_MSG - 8);

		fill(buf, len, r->done);
		if (send_to(r->fd, buf, len, r->port, MSG_DONTWAIT) ==
		    (ssize_t)len) {
			r->done++;
		} else if (errno == EAGAIN) {
			usleep(200);
		} else {
			r->err = errno;
			break;
		}
	}
	return NULL;
}

/* SO_RESERVE_MEM changes the socket's forward allocation under the
 * socket lock, while MPDT charges and releases it under its own: a
 * receiver that resizes its reservation in a loop while messages arrive
 * must keep its accounting exact.  Before rmem.c, 5 s of this in a memory
 * cgroup left the protocol 60430 pages it never got back, underflowed the
 * cgroup's page counter and warned in inet_sock_destruct().
 */
TEST(reserve_mem_while_receiving)
{
	static const char cg[] = "mpdt_sockapi";
	int a, b, zero = 0;
	struct race res = {}, snd = {};
	pthread_t rt, st;
	uint8_t *buf = malloc(RACE_MSG), *seen = calloc(1 << 20, 1);
	double end;
	long got = 0, idx;
	ssize_t n;

	ASSERT_TRUE(buf && seen);
	if (!cgroup_enter(cg, true))
		SKIP(return, "no cgroup2 memory controller");
	a = mk_bound(PORT(0));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	if (setsockopt(b, SOL_SOCKET, SO_RESERVE_MEM, &zero, sizeof(zero)))
		SKIP(return, "SO_RESERVE_MEM: %s", strerror(errno));
	set_rcvtimeo(b, 30000);
	res.fd = b;
	snd.fd = a;
	snd.port = PORT(1);
	ASSERT_EQ(0, pthread_create(&rt, NULL, reserve_loop, &res));
	ASSERT_EQ(0, pthread_create(&st, NULL, send_loop, &snd));
	/* 3 s of racing, then every message sent is read. */
	for (end = now() + 3; !snd.stop || got < snd.done;) {
		if (!snd.stop && now() >= end) {
			res.stop = 1;
			snd.stop = 1;
			pthread_join(rt, NULL);
			pthread_join(st, NULL);
			continue;
		}
		n = recv(b, buf, RACE_MSG, 0);
		ASSERT_LT(0, n) TH_LOG("message %ld: %s", got, strerror(errno));
		idx = check(buf, n);
		ASSERT_LE(0, idx);
		ASSERT_GT(1 << 20, idx);
		ASSERT_EQ(0, seen[idx]);
		seen[idx] = 1;
		got++;
	}
	TH_LOG("%ld messages received, %ld SO_RESERVE_MEM changes", got,
	       res.done);
	EXPECT_EQ(0, res.err) TH_LOG("SO_RESERVE_MEM: %s", strerror(res.err));
	EXPECT_EQ(0, snd.err) TH_LOG("send: %s", strerror(snd.err));
	EXPECT_LT(0, res.done);
	EXPECT_LT(0, got);
	ASSERT_EQ(0, setsockopt(b, SOL_SOCKET, SO_RESERVE_MEM, &zero,
				sizeof(zero)));
	EXPECT_EQ(0, sock_mem(b, SK_MEMINFO_RMEM_ALLOC));
	EXPECT_EQ(0, sock_mem(b, SK_MEMINFO_FWD_ALLOC));
	close(a);
	close(b);
	cgroup_leave(cg);
	free(buf);
	free(seen);
}

/* Field @key of the memory cgroup @name's memory.stat, or -1. */
static long long cgroup_stat(const char *name, const char *key)
{
	char path[300], k[64];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/memory.stat", name);
	f = fopen(path, "r");
	while (f && fscanf(f, "%63s %lld", k, &v) == 2) {
		if (!strcmp(k, key)) {
			fclose(f);
			return v;
		}
	}
	if (f)
		fclose(f);
	return -1;
}

/* Whether the kernel memory charged to the memory cgroup @name falls
 * below @limit within @ms (logged, with @when): memory.stat is flushed
 * lazily (reading cpu.stat flushes it), and memory freed after an RCU
 * grace period comes back later.
 */
static bool cgroup_kernel_below(const char *name, long long limit, int ms,
				const char *when)
{
	double end = now() + ms / 1e3;
	char path[300], line[200];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/cpu.stat", name);
	do {
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			;
		if (f)
			fclose(f);
		v = cgroup_stat(name, "kernel");
		if (v >= 0 && v < limit)
			break;
		usleep(50000);
	} while (now() < end);
	fprintf(stderr, "# kernel memory of %s, %s: %lld (limit %lld)\n",
		name, when, v, limit);
	return v >= 0 && v < limit;
}

/* Where each kept-pages test starts: a netns and memory cgroup @cg of its
 * own, rto-max @rto_max_us, and two bound sockets, *@a sending to *@b.
 * False if the test was skipped.
 */
static bool kept_pages_start(struct __test_metadata *_metadata,
			     const char *cg, const char *rto_max_us, int *a,
			     int *b)
{
	const char *cli = getenv("MPDT_CLI");

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	if (!cli)
		SKIP(return false, "no $MPDT_CLI (sockapi.sh sets it)");
	if (!cgroup_enter(cg, true))
		SKIP(return false, "no cgroup2 memory controller");
	ASSERT_EQ(0, run(NULL, 0, cli, "param", "set", "rto-max-us",
			 rto_max_us, NULL));
	*a = mk_bound(PORT(0));
	*b = mk_bound(PORT(1));
	ASSERT_LE(0, *a);
	ASSERT_LE(0, *b);
	set_rcvtimeo(*b, 30000);
	return true;
}

/* A socket keeps the pages of its acknowledged messages for its next
 * ones (txmsg.c) and takes one again only when nothing else refers to
 * it.  Over lo the receiver keeps each payload in the sender's pages
 * until it is read (none copied): messages sent while the first waits
 * unread must not be written over it, and one sent after they were all
 * read is copied into their pages (tx_pages_reused), a 1 MiB message
 * into at least half of its 32 KiB pages.  Closed, the sockets leave
 * the memory cgroup that sent less than 1 MiB of kernel memory: a
 * build that lost kept pages left 2 MiB of them charged.  rto-max is
 * raised to 5 s, so that the gc ticks of a socket idle while the
 * receiver reads (mpdt_txpages_idle()) cannot take its kept pages
 * before the last message, and time-wait still ends before rmmod.
 */
TEST(acknowledged_pages_reused_once_released)
{
	static const char cg[] = "mpdt_pages";
	const size_t len = 1 << 20;
	uint8_t *buf = malloc(len), *got = malloc(len + 1), seen[4] = { 0 };
	long long reused, copied;
	int a, b, i;

	ASSERT_TRUE(buf && got);
	if (!kept_pages_start(_metadata, cg, "5000000", &a, &b))
		return;
	copied = netns_stat("rx_copied");
	for (i = 0; i < 3; i++) {
		fill(buf, len, i);
		ASSERT_EQ((ssize_t)len, send_to(a, buf, len, PORT(1), 0));
		ASSERT_EQ(0, wait_acked(a, PORT(1), i + 1, 30000));
	}
	EXPECT_EQ(copied, netns_stat("rx_copied"));
	for (i = 0; i < 4; i++) {
		ssize_t n = recv(b, got, len + 1, 0);
		long idx;

		ASSERT_EQ((ssize_t)len, n);
		idx = check(got, n);
		ASSERT_TRUE(idx >= 0 && idx < 4 && !seen[idx])
			TH_LOG("message %d: index %ld", i, idx);
		seen[idx] = 1;
		if (i != 2)
			continue;
		reused = netns_stat("tx_pages_reused");
		fill(buf, len, 3);
		ASSERT_EQ((ssize_t)len, send_to(a, buf, len, PORT(1), 0));
		EXPECT_LE(reused + 16, netns_stat("tx_pages_reused"));
	}
	ASSERT_EQ(0, wait_acked(a, PORT(1), 4, 30000));
	close(a);
	close(b);
	EXPECT_TRUE(cgroup_kernel_below(cg, 1 << 20, 5000, "sockets closed"));
	cgroup_leave(cg);
	free(buf);
	free(got);
}

/* One 1 MiB message between two sockets of a memory cgroup of their own,
 * sent, read and acknowledged with rto-max @rto_max_us; then, both sockets
 * still open and @press written to @press_path if not NULL (a write that
 * reclaimed less than it asked for fails with EAGAIN, and still ran the
 * shrinkers), the cgroup's kernel memory must fall below 512 KiB within
 * @ms: the sender keeps none of the message's pages any more.  The
 * sockets close with rto-max 100 ms, so that their time-wait does not
 * outlast the test.
 */
static void kept_pages_go(struct __test_metadata *_metadata, const char *cg,
			  const char *rto_max_us, const char *press_path,
			  const char *press, int ms)
{
	const char *cli = getenv("MPDT_CLI");
	const size_t len = 1 << 20;
	uint8_t *buf = malloc(len + 1);
	char path[128];
	ssize_t n;
	int a, b, fd;

	ASSERT_TRUE(!!buf);
	if (!kept_pages_start(_metadata, cg, rto_max_us, &a, &b))
		return;
	fill(buf, len, 0);
	ASSERT_EQ((ssize_t)len, send_to(a, buf, len, PORT(1), 0));
	ASSERT_EQ((ssize_t)len, recv(b, buf, len + 1, 0));
	EXPECT_EQ(0, check(buf, len));
	ASSERT_EQ(0, wait_acked(a, PORT(1), 1, 30000));
	if (press_path) {
		snprintf(path, sizeof(path), press_path, cg);
		fd = open(path, O_WRONLY);
		ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
		n = write(fd, press, strlen(press));
		ASSERT_TRUE(n == (ssize_t)strlen(press) || errno == EAGAIN)
			TH_LOG("%s: %s", path, strerror(errno));
		close(fd);
	}
	EXPECT_TRUE(cgroup_kernel_below(cg, 512 << 10, ms, "sockets open"));
	EXPECT_EQ(0, run(NULL, 0, cli, "param", "set", "rto-max-us", "100000",
			 NULL));
	close(a);
	close(b);
	cgroup_leave(cg);
	free(buf);
}

/* A socket that sends nothing keeps no pages: a gc tick (every rto-max)
 * with nothing acknowledged since the one before gives them back, the
 * socket still open.  Without that, the 1 MiB message's pages stay
 * charged to the memory cgroup that sent it until close().
 */
TEST(idle_socket_gives_kept_pages_back)
{
	kept_pages_go(_metadata, "mpdt_idle_pages", "100000", NULL, NULL,
		      10000);
}

/* Memory pressure takes kept pages back at once (the module's shrinker):
 * "2" in vm.drop_caches runs every shrinker before the write returns.
 * The idle tick could not: with rto-max 10 s it comes at least 10 s after
 * the acknowledgment, five times the 2 s the check waits (for the
 * cgroup's statistics).
 */
TEST(memory_pressure_takes_kept_pages)
{
	kept_pages_go(_metadata, "mpdt_shrunk_pages", "10000000",
		      "/proc/sys/vm/drop_caches", "2", 2000);
}

/* So does a memory cgroup's own reclaim, which calls only the shrinkers
 * that know cgroups (SHRINKER_MEMCG_AWARE): memory.reclaim asks for more
 * than the cgroup can give (its anonymous memory has no swap), so it
 * tries down to the last priority, where a shrinker with one object is
 * called, and fails with EAGAIN.  A shrinker blind to cgroups is never
 * called, and the pages stay charged until the idle tick, 10 s later.
 */
TEST(cgroup_reclaim_takes_kept_pages)
{
	kept_pages_go(_metadata, "mpdt_reclaimed_pages", "10000000",
		      "/sys/fs/cgroup/%s/memory.reclaim", "64M", 2000);
}

static int bpf_load(enum bpf_prog_type type, enum bpf_attach_type at,
		    const struct bpf_insn *insns, unsigned int n)
{
	union bpf_attr attr = {
		.prog_type = type,
		.expected_attach_type = at,
		.insns = (uintptr_t)insns,
		.insn_cnt = n,
		.license = (uintptr_t)"GPL",
	};

	return syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

/* A cgroup program that refuses everything (r0 = 0; exit). */
static int bpf_refuse_all(enum bpf_prog_type type, enum bpf_attach_type at)
{
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_load(type, at, insns, 2);
}

/* A bind4 program that binds to MPDT port @port instead of the one asked
 * (r2 = htons(port); ctx->user_port = r2; r0 = 1; exit: the verifier
 * takes no immediate store into the context).
 */
static int bpf_bind_to(int port)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2,
		  .imm = htons(port) },
		{ .code = BPF_STX | BPF_MEM | BPF_W, .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_2,
		  .off = offsetof(struct bpf_sock_addr, user_port) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = 1 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_load(BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_BIND,
			insns, 4);
}

/* BPF_PROG_ATTACH or BPF_PROG_DETACH @prog at @at of the cgroup @cg. */
static int bpf_cgroup(int cmd, int cg, int prog, enum bpf_attach_type at)
{
	union bpf_attr attr = {
		.target_fd = cg,
		.attach_bpf_fd = prog,
		.attach_type = at,
	};

	return syscall(__NR_bpf, cmd, &attr, sizeof(attr));
}

/* Wait until the netns counter @name is above @than. */
static int wait_stat_above(const char *name, long long than, int ms)
{
	double end = now() + ms / 1e3;

	do {
		if (netns_stat(name) > than)
			return 0;
		usleep(2000);
	} while (now() < end);
	return -1;
}

/* While a program that refuses everything is attached at @at of @cg, a
 * message from @a to @b's @port is not delivered, until @counter grew by
 * @by at least; once it is detached, the sender's retransmissions deliver
 * it.
 */
static void refused_until_detached(struct __test_metadata *_metadata,
				   int cg, enum bpf_attach_type at,
				   const char *counter, int by,
				   int a, int b, int port)
{
	long long before = netns_stat(counter);
	int prog = bpf_refuse_all(BPF_PROG_TYPE_CGROUP_SKB, at);
	char buf[16];

	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, bpf_cgroup(BPF_PROG_ATTACH, cg, prog, at))
		TH_LOG("BPF_PROG_ATTACH: %s", strerror(errno));
	ASSERT_EQ(5, send_to(a, "hello", 5, port, 0));
	ASSERT_EQ(0, wait_stat_above(counter, before + by - 1, 20000))
		TH_LOG("%s did not grow by %d", counter, by);
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, bpf_cgroup(BPF_PROG_DETACH, cg, prog, at));
	close(prog);
	EXPECT_EQ(5, recv(b, buf, sizeof(buf), 0));
}

/* cgroup BPF programs hold MPDT to what they hold UDP to (systemd's
 * IPAddressDeny= and SocketBindDeny=, for two): egress programs judge its
 * DATA, ingress programs every packet a socket of the cgroup receives,
 * bind programs its bind(), whose address they may refuse or rewrite.
 */
TEST(cgroup_bpf_programs_apply)
{
	static const char name[] = "mpdt_sockapi_bpf";
	int cg, a, b, c, prog;

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	if (!cgroup_enter(name, false))
		SKIP(return, "no cgroup2");
	cg = open("/sys/fs/cgroup/mpdt_sockapi_bpf", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cg);
	a = mk_bound(PORT(0));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 20000);
	/* An egress drop is a loss: the DATA is sent again, which a
	 * delivered message would have been acknowledged before.
	 */
	refused_until_detached(_metadata, cg, BPF_CGROUP_INET_EGRESS,
			       "tx_data", 2, a, b, PORT(1));
	refused_until_detached(_metadata, cg, BPF_CGROUP_INET_INGRESS,
			       "drop_filtered", 1, a, b, PORT(1));

	/* Bind programs refuse an address, or rewrite it. */
	prog = bpf_refuse_all(BPF_PROG_TYPE_CGROUP_SOCK_ADDR,
			      BPF_CGROUP_INET4_BIND);
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, bpf_cgroup(BPF_PROG_ATTACH, cg, prog,
				BPF_CGROUP_INET4_BIND));
	EXPECT_EQ(-1, mk_bound(PORT(2)));
	EXPECT_EQ(EPERM, errno);
	ASSERT_EQ(0, bpf_cgroup(BPF_PROG_DETACH, cg, prog,
				BPF_CGROUP_INET4_BIND));
	close(prog);
	prog = bpf_bind_to(PORT(3));
	ASSERT_LE(0, prog) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	ASSERT_EQ(0, bpf_cgroup(BPF_PROG_ATTACH, cg, prog,
				BPF_CGROUP_INET4_BIND));
	c = mk_bound(PORT(2));
	EXPECT_LE(0, c);
	EXPECT_EQ(PORT(3), bound_port(c));
	ASSERT_EQ(0, bpf_cgroup(BPF_PROG_DETACH, cg, prog,
				BPF_CGROUP_INET4_BIND));
	close(prog);
	close(c);
	c = mk_bound(PORT(2));
	EXPECT_LE(0, c);
	EXPECT_EQ(PORT(2), bound_port(c));
	close(c);
	close(a);
	close(b);
	close(cg);
	cgroup_leave(name);
}

/* SO_MARK takes part in the socket's route lookups, as for UDP.  Marked
 * packets meet a rule that prohibits them: a message sent once the mark
 * is set is not delivered (the connection's cached route, looked up
 * without a mark, is not used), and once the mark is cleared the
 * sender's retransmissions deliver it.
 */
TEST(so_mark_selects_the_route)
{
	int a, b, mark = 7, zero = 0;
	long long err0;
	char buf[16];

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	/* The local table after the mark's rule, which would find it first. */
	ASSERT_EQ(0, run(NULL, 0, "ip", "rule", "add", "pref", "10", "fwmark",
			 "7", "prohibit", NULL));
	ASSERT_EQ(0, run(NULL, 0, "ip", "rule", "add", "pref", "100", "lookup",
			 "local", NULL));
	ASSERT_EQ(0, run(NULL, 0, "ip", "rule", "del", "pref", "0", NULL));
	a = mk_bound(PORT(0));
	b = mk_bound(PORT(1));
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	set_rcvtimeo(b, 20000);
	ASSERT_EQ(3, send_to(a, "one", 3, PORT(1), 0));
	ASSERT_EQ(3, recv(b, buf, sizeof(buf), 0));

	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)));
	err0 = netns_stat("tx_err");
	ASSERT_EQ(3, send_to(a, "two", 3, PORT(1), 0));
	ASSERT_EQ(0, wait_stat_above("tx_err", err0, 20000))
		TH_LOG("no route refused for the marked packets");
	EXPECT_EQ(-1, recv(b, buf, sizeof(buf), MSG_DONTWAIT));
	EXPECT_EQ(EAGAIN, errno);
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_MARK, &zero, sizeof(zero)));
	EXPECT_EQ(3, recv(b, buf, sizeof(buf), 0));
	close(a);
	close(b);
}

/* SO_BINDTODEVICE keeps an IPv6 socket's routes to its device even when
 * its source address is set (where a lookup without the socket takes the
 * device only as a preference): to a prefix routed via another device,
 * nothing is sent (tx_err).
 */
TEST(so_bindtodevice_keeps_ipv6_to_the_device)
{
	struct sockaddr_in6 me = {
		.sin6_family = AF_INET6, .sin6_port = htons(PORT(0)),
	}, peer = {
		.sin6_family = AF_INET6, .sin6_port = htons(PORT(1)),
	};
	static const char *const cmds[][12] = {
		{ "ip", "link", "add", "mpdt-d1", "type", "dummy" },
		{ "ip", "link", "add", "mpdt-d2", "type", "dummy" },
		{ "ip", "link", "set", "mpdt-d1", "up" },
		{ "ip", "link", "set", "mpdt-d2", "up" },
		{ "ip", "addr", "add", "fd01::1/64", "dev", "mpdt-d1",
		  "nodad" },
		{ "ip", "route", "add", "fd02::/64", "dev", "mpdt-d2" },
	};
	long long err0;
	unsigned int i;
	int a;

	ASSERT_EQ(0, own_netns()) TH_LOG("own netns: %s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		ASSERT_EQ(0, run(NULL, 0, cmds[i][0], cmds[i][1], cmds[i][2],
				 cmds[i][3], cmds[i][4], cmds[i][5], cmds[i][6],
				 cmds[i][7], NULL));
	}
	inet_pton(AF_INET6, "fd01::1", &me.sin6_addr);
	inet_pton(AF_INET6, "fd02::5", &peer.sin6_addr);
	a = socket(AF_INET6, SOCK_DGRAM, IPPROTO_MPDT);
	ASSERT_LE(0, a);
	ASSERT_EQ(0, bind(a, (struct sockaddr *)&me, sizeof(me)));
	ASSERT_EQ(0, setsockopt(a, SOL_SOCKET, SO_BINDTODEVICE, "mpdt-d1",
				sizeof("mpdt-d1")));
	err0 = netns_stat("tx_err");
	ASSERT_EQ(3, sendto(a, "one", 3, 0, (struct sockaddr *)&peer,
			    sizeof(peer)));
	EXPECT_EQ(0, wait_stat_above("tx_err", err0, 20000))
		TH_LOG("the packet left via the other device");
	close(a);
}

TEST_HARNESS_MAIN
