// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink plumbing: resolve the "mpdt" family and its "events"
 * group through the controller, send requests, collect replies until the
 * ack or the end of a dump, and report errors with the kernel's extended
 * ack (message, offending attribute, valid range).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <linux/genetlink.h>
#include <linux/mpdt.h>
#include <linux/netlink.h>

#include "names.h"
#include "nl.h"

/* Large enough for any dump batch the kernel builds (u64s: aligned). */
#define NL_RX_SIZE	32768

static uint64_t rx_buf[NL_RX_SIZE / sizeof(uint64_t)];

struct nl_error {
	int err;			/* positive errno */
	char msg[256];			/* extack message, or "" */
	const char *attr;		/* name of the attribute blamed */
	bool has_range;
	unsigned long long min, max;
};

/* One request being answered. */
struct talk {
	struct nl *nl;
	mnl_cb_t cb;
	void *data;
	struct nl_error error;
};

struct attr_table {
	const struct nlattr **tb;
	uint16_t max;
};

static int store_attr(const struct nlattr *a, void *data)
{
	const struct attr_table *t = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type <= t->max)
		t->tb[type] = a;
	return MNL_CB_OK;
}

void nl_parse(const struct nlattr *nest, const struct nlattr **tb,
	      uint16_t max)
{
	struct attr_table t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse_nested(nest, store_attr, &t);
}

bool nl_uint(const struct nlattr *a, unsigned long long *val)
{
	if (!a)
		return false;
	switch (mnl_attr_get_payload_len(a)) {
	case sizeof(uint8_t):
		*val = mnl_attr_get_u8(a);
		return true;
	case sizeof(uint16_t):
		*val = mnl_attr_get_u16(a);
		return true;
	case sizeof(uint32_t):
		*val = mnl_attr_get_u32(a);
		return true;
	case sizeof(uint64_t):
		*val = mnl_attr_get_u64(a);
		return true;
	default:
		return false;
	}
}

/* An address attribute as text; an IPv6 link-local one with "%IFNAME"
 * (or "%INDEX" if this netns has no such interface) when @ifindex, its
 * link, is there.  False if @a is not an address of @family.
 */
bool nl_addr_text(const struct nlattr *a, int family,
		  const struct nlattr *ifindex, char *buf, size_t len)
{
	char name[IF_NAMESIZE];
	unsigned long long idx;
	size_t n;

	if (!a || mnl_attr_get_payload_len(a) != (family == AF_INET6 ?
						  sizeof(struct in6_addr) :
						  sizeof(struct in_addr)) ||
	    !inet_ntop(family, mnl_attr_get_payload(a), buf, len))
		return false;
	if (!nl_uint(ifindex, &idx) || !idx)
		return true;
	n = strlen(buf);
	if (if_indextoname(idx, name))
		snprintf(buf + n, len - n, "%%%s", name);
	else
		snprintf(buf + n, len - n, "%%%llu", idx);
	return true;
}

const char *nl_str(const struct nlattr *a)
{
	if (!a || mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return NULL;
	return mnl_attr_get_str(a);
}

uint8_t nl_cmd(const struct nlmsghdr *nlh)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return 0;
	return genl->cmd;
}

const struct nlattr *nl_nest(const struct nlmsghdr *nlh, uint16_t type)
{
	const struct nlattr *a;

	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return NULL;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN)
		if (mnl_attr_get_type(a) == type)
			return a;
	return NULL;
}

static struct nlmsghdr *genl_req(struct nl *nl, uint16_t family, uint8_t cmd,
				 uint8_t version, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->req);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

struct nlmsghdr *nl_req(struct nl *nl, uint8_t cmd, bool dump)
{
	return genl_req(nl, nl->family, cmd, MPDT_GENL_VERSION,
			dump ? NLM_F_DUMP : 0);
}

/* The name of the attribute @off bytes into the request, if it is one
 * nested in a top-level nest.
 */
static const char *attr_at(const struct nl *nl, unsigned long long off)
{
	const struct nlmsghdr *req = (const struct nlmsghdr *)nl->req;
	const char *start = (const char *)req;
	const struct nlattr *a, *n;

	mnl_attr_for_each(a, req, GENL_HDRLEN) {
		mnl_attr_for_each_nested(n, a) {
			if ((size_t)((const char *)n - start) == off)
				return nested_attr_name(mnl_attr_get_type(a),
							mnl_attr_get_type(n));
		}
	}
	return NULL;
}

static void parse_policy(const struct nlattr *policy, struct nl_error *e)
{
	const struct nlattr *tb[NL_POLICY_TYPE_ATTR_MAX + 1];

	nl_parse(policy, tb, NL_POLICY_TYPE_ATTR_MAX);
	e->has_range = nl_uint(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U], &e->min) &&
		       nl_uint(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U], &e->max);
}

/* The extended ack attributes after the first @hdr_len bytes of an
 * NLMSG_ERROR or NLMSG_DONE payload.
 */
static void parse_ext_ack(const struct nlmsghdr *nlh, size_t hdr_len,
			  struct talk *t)
{
	const struct nlattr *a;
	unsigned long long off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(a, nlh, hdr_len) {
		switch (mnl_attr_get_type(a)) {
		case NLMSGERR_ATTR_MSG:
			if (nl_str(a))
				snprintf(t->error.msg, sizeof(t->error.msg),
					 "%s", nl_str(a));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (nl_uint(a, &off))
				t->error.attr = attr_at(t->nl, off);
			break;
		case NLMSGERR_ATTR_POLICY:
			parse_policy(a, &t->error);
			break;
		}
	}
}

static int talk_error(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;
	size_t hdr_len = sizeof(*e);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		t->error.err = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!e->error)
		return MNL_CB_STOP;
	/* Unless capped, the request is echoed before the attributes. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		hdr_len += e->msg.nlmsg_len - sizeof(e->msg);
	t->error.err = -e->error;
	parse_ext_ack(nlh, hdr_len, t);
	return MNL_CB_ERROR;
}

/* The end of a dump carries the dump's status. */
static int talk_done(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	int status;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(status))
		return MNL_CB_STOP;
	memcpy(&status, mnl_nlmsg_get_payload(nlh), sizeof(status));
	if (status >= 0)
		return MNL_CB_STOP;
	t->error.err = -status;
	parse_ext_ack(nlh, sizeof(status), t);
	return MNL_CB_ERROR;
}

static int talk_data(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	if (!t->cb)
		return MNL_CB_OK;
	if (t->cb(nlh, t->data) == MNL_CB_ERROR) {
		t->error.err = EBADMSG;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static mnl_cb_t talk_ctl[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= talk_error,
	[NLMSG_DONE]	= talk_done,
};

/* Send and receive; on failure t->error says why. */
static int talk(struct talk *t)
{
	struct nl *nl = t->nl;
	struct nlmsghdr *req = (struct nlmsghdr *)nl->req;
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0) {
		t->error.err = errno;
		return -1;
	}
	do {
		n = mnl_socket_recvfrom(nl->sock, rx_buf, sizeof(rx_buf));
		if (n < 0) {
			t->error.err = errno;
			return -1;
		}
		ret = mnl_cb_run2(rx_buf, n, req->nlmsg_seq, nl->portid,
				  talk_data, t, talk_ctl, NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	if (ret < MNL_CB_STOP && !t->error.err)
		t->error.err = errno ? errno : EBADMSG;
	return ret < MNL_CB_STOP ? -1 : 0;
}

static void print_error(const struct nl_error *e)
{
	fputs("Error: ", stderr);
	if (e->attr)
		fprintf(stderr, "%s: ", e->attr);
	fputs(e->msg[0] ? e->msg : strerror(e->err), stderr);
	if (e->has_range)
		fprintf(stderr, " (valid: %llu..%llu)", e->min, e->max);
	fputs(".\n", stderr);
}

int nl_talk(struct nl *nl, mnl_cb_t cb, void *data)
{
	struct talk t = { .nl = nl, .cb = cb, .data = data };

	if (!talk(&t))
		return 0;
	print_error(&t.error);
	return -1;
}

static void find_events_group(const struct nlattr *groups, struct nl *nl)
{
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	const struct nlattr *g;
	unsigned long long id;

	mnl_attr_for_each_nested(g, groups) {
		const char *name;

		nl_parse(g, tb, CTRL_ATTR_MCAST_GRP_MAX);
		name = nl_str(tb[CTRL_ATTR_MCAST_GRP_NAME]);
		if (name && !strcmp(name, MPDT_GENL_MCGRP_EVENTS) &&
		    nl_uint(tb[CTRL_ATTR_MCAST_GRP_ID], &id))
			nl->events_group = id;
	}
}

static int family_reply(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1] = { NULL };
	struct attr_table table = { tb, CTRL_ATTR_MAX };
	struct nl *nl = data;
	unsigned long long id;

	mnl_attr_parse(nlh, GENL_HDRLEN, store_attr, &table);
	if (nl_uint(tb[CTRL_ATTR_FAMILY_ID], &id))
		nl->family = id;
	if (tb[CTRL_ATTR_MCAST_GROUPS])
		find_events_group(tb[CTRL_ATTR_MCAST_GROUPS], nl);
	return MNL_CB_OK;
}

static int resolve_family(struct nl *nl)
{
	struct nlmsghdr *req = genl_req(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1,
					0);
	struct talk t = { .nl = nl, .cb = family_reply, .data = nl };

	mnl_attr_put_strz(req, CTRL_ATTR_FAMILY_NAME, MPDT_GENL_NAME);
	if (!talk(&t) && nl->family)
		return 0;
	if (t.error.err == ENOENT || !t.error.err)
		fprintf(stderr,
			"Error: no generic netlink family \"%s\": is the mpdt module loaded?\n",
			MPDT_GENL_NAME);
	else
		print_error(&t.error);
	return -1;
}

int nl_open(struct nl *nl)
{
	int one = 1;

	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "Error: cannot open a generic netlink socket: %s.\n",
			strerror(errno));
		return -1;
	}
	/* Best effort: without them errors come without explanations. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);
	return resolve_family(nl);
}

void nl_close(struct nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

/* One batch of notifications; a receive buffer overrun is survivable. */
static int receive_events(struct nl *nl, mnl_cb_t cb, void *data)
{
	ssize_t n = mnl_socket_recvfrom(nl->sock, rx_buf, sizeof(rx_buf));

	if (n < 0 && errno == ENOBUFS) {
		fprintf(stderr, "Warning: events lost (receive buffer overrun).\n");
		return 0;
	}
	if (n < 0) {
		fprintf(stderr, "Error: receiving events: %s.\n",
			strerror(errno));
		return -1;
	}
	mnl_cb_run(rx_buf, n, 0, 0, cb, data);
	return 0;
}

static int join_events(struct nl *nl)
{
	if (!nl->events_group) {
		fprintf(stderr, "Error: family \"%s\" has no \"%s\" group.\n",
			MPDT_GENL_NAME, MPDT_GENL_MCGRP_EVENTS);
		return -1;
	}
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP,
				  &nl->events_group,
				  sizeof(nl->events_group)) < 0) {
		fprintf(stderr, "Error: cannot join the \"%s\" group: %s.\n",
			MPDT_GENL_MCGRP_EVENTS, strerror(errno));
		return -1;
	}
	return 0;
}

int nl_listen(struct nl *nl, mnl_cb_t cb, void *data)
{
	struct pollfd pfd[2] = {
		{ .fd = mnl_socket_get_fd(nl->sock), .events = POLLIN },
		{ .events = POLLIN },
	};
	sigset_t stop;
	int ret = 0;

	if (join_events(nl))
		return -1;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	pfd[1].fd = signalfd(-1, &stop, SFD_CLOEXEC);
	if (pfd[1].fd < 0) {
		fprintf(stderr, "Error: signalfd: %s.\n", strerror(errno));
		return -1;
	}
	while (!ret) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno != EINTR) {
				fprintf(stderr, "Error: poll: %s.\n",
					strerror(errno));
				ret = -1;
			}
			continue;
		}
		/* Events that came before the signal are still printed. */
		if (pfd[0].revents)
			ret = receive_events(nl, cb, data);
		if (pfd[1].revents)
			break;
	}
	close(pfd[1].fd);
	return ret;
}
