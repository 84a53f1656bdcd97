// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt conn [show] [peer ADDR[%IF][:PORT]]: the netns's connections.  Without
 * a peer, or with an address only, the kernel dumps them all (and the
 * address filters here); with a port, CONN_GET asks for that one peer.
 * Also the connection printer that mpdt monitor shares.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

struct peer {
	int family;			/* AF_UNSPEC: any peer */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} addr;
	uint16_t port;			/* 0: any */
	unsigned int ifindex;		/* a link-local peer's link */
};

/* The peer's address as text, from whichever attribute is present; with
 * @zone, a link-local one with its link ("fe80::1%eth0").
 */
static bool peer_text(const struct nlattr **tb, bool zone, char *buf,
		      size_t len, int *family)
{
	*family = AF_INET6;
	if (nl_addr_text(tb[MPDT_CONN_A_PEER_V6], AF_INET6,
			 zone ? tb[MPDT_CONN_A_PEER_IFINDEX] : NULL, buf, len))
		return true;
	*family = AF_INET;
	if (nl_addr_text(tb[MPDT_CONN_A_PEER_V4], AF_INET, NULL, buf, len))
		return true;
	*family = AF_UNSPEC;
	return false;
}

/* JSON has the address and its link apart, text the two together. */
static void print_peer(const struct nlattr **tb)
{
	char addr[NL_ADDR_TEXT_LEN] = "?", text[NL_ADDR_TEXT_LEN + 8];
	int family = AF_UNSPEC;
	unsigned long long port = 0, ifindex;

	nl_uint(tb[MPDT_CONN_A_PEER_PORT], &port);
	peer_text(tb, false, addr, sizeof(addr), &family);
	out_str(OUT_JSON, conn_attr_name(MPDT_CONN_A_FAMILY), NULL,
		family == AF_INET6 ? "inet6" : "inet");
	out_str(OUT_JSON, conn_attr_name(MPDT_CONN_A_PEER_V4), NULL, addr);
	out_uint(OUT_JSON, conn_attr_name(MPDT_CONN_A_PEER_PORT), NULL, port);
	if (nl_uint(tb[MPDT_CONN_A_PEER_IFINDEX], &ifindex))
		out_uint(OUT_JSON, conn_attr_name(MPDT_CONN_A_PEER_IFINDEX),
			 NULL, ifindex);
	peer_text(tb, true, addr, sizeof(addr), &family);
	snprintf(text, sizeof(text), family == AF_INET6 ? "[%s]:%llu" :
			"%s:%llu", addr, port);
	out_str(OUT_TEXT, NULL, "peer %s", text);
}

static void print_nums(const struct nlattr **tb, const uint16_t *attrs,
		       size_t n)
{
	unsigned long long val;
	size_t i;

	out_indent();
	for (i = 0; i < n; i++)
		if (nl_uint(tb[attrs[i]], &val))
			out_uint(OUT_ANY, conn_attr_name(attrs[i]), NULL, val);
	out_nl();
}

static void print_str(const struct nlattr **tb, uint16_t attr)
{
	const char *s = nl_str(tb[attr]);

	if (s)
		out_str(OUT_ANY, conn_attr_name(attr), NULL, s);
}

void conn_print(const struct nlattr **tb, bool detail)
{
	const char *state = NULL;
	unsigned long long val;

	print_peer(tb);
	if (nl_uint(tb[MPDT_CONN_A_LOCAL_PORT], &val))
		out_uint(OUT_ANY, conn_attr_name(MPDT_CONN_A_LOCAL_PORT), NULL,
			 val);
	if (nl_uint(tb[MPDT_CONN_A_STATE], &val))
		state = conn_state_name(val);
	out_str(OUT_ANY, conn_attr_name(MPDT_CONN_A_STATE), NULL,
		state ? state : "unknown");
	print_str(tb, MPDT_CONN_A_LB);
	print_str(tb, MPDT_CONN_A_CC);
	out_nl();
	if (!detail)
		return;
	print_nums(tb, conn_owner_attrs, conn_owner_attr_count);
	print_nums(tb, conn_state_attrs, conn_state_attr_count);
	print_nums(tb, conn_counter_attrs, conn_counter_attr_count);
}

static bool peer_matches(const struct nlattr **tb, const struct peer *p)
{
	const struct nlattr *a = tb[p->family == AF_INET6 ?
				    MPDT_CONN_A_PEER_V6 : MPDT_CONN_A_PEER_V4];
	size_t len = p->family == AF_INET6 ? sizeof(p->addr.v6) :
					     sizeof(p->addr.v4);

	unsigned long long ifindex = 0;

	if (p->family == AF_UNSPEC)
		return true;
	nl_uint(tb[MPDT_CONN_A_PEER_IFINDEX], &ifindex);
	return a && mnl_attr_get_payload_len(a) == len &&
	       !memcmp(mnl_attr_get_payload(a), &p->addr, len) &&
	       (!p->ifindex || p->ifindex == ifindex);
}

static int conn_reply(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest = nl_nest(nlh, MPDT_A_CONN);
	const struct nlattr *tb[MPDT_CONN_A_MAX + 1];

	if (!nest)
		return MNL_CB_ERROR;
	nl_parse(nest, tb, MPDT_CONN_A_MAX);
	if (!peer_matches(tb, data))
		return MNL_CB_OK;
	out_obj_open(NULL);
	conn_print(tb, true);
	out_obj_close();
	return MNL_CB_OK;
}

/* IPv6 link-local peers name their link: fe80::1%eth0 or fe80::1%2. */
static int parse_zone(char *addr, struct peer *p)
{
	char *zone = strchr(addr, '%'), *end;

	if (!zone)
		return 0;
	*zone++ = '\0';
	p->ifindex = if_nametoindex(zone);
	if (!p->ifindex && *zone >= '0' && *zone <= '9') {
		unsigned long idx = strtoul(zone, &end, 10);

		if (!*end && idx <= UINT32_MAX)
			p->ifindex = idx;
	}
	return p->ifindex && p->family == AF_INET6 ? 0 : -1;
}

/* ADDR, ADDR:PORT, IPV6ADDR[%IF] or [IPV6ADDR[%IF]]:PORT. */
static int parse_peer(const char *arg, struct peer *p)
{
	char addr[NL_ADDR_TEXT_LEN + 8], *colon, *end;
	unsigned long port = 0;

	if (strlen(arg) >= sizeof(addr))
		return -1;
	strcpy(addr, arg);
	colon = strrchr(addr, ':');
	if (addr[0] == '[') {
		end = strchr(addr, ']');
		if (!end || (end[1] && end[1] != ':'))
			return -1;
		colon = end[1] ? end + 1 : NULL;
		*end = '\0';
		memmove(addr, addr + 1, strlen(addr));
	} else if (colon && strchr(addr, ':') != colon) {
		colon = NULL;		/* a bare IPv6 address */
	}
	if (colon) {
		*colon++ = '\0';
		if (*colon < '0' || *colon > '9')
			return -1;
		port = strtoul(colon, &end, 10);
		if (*end || !port || port > UINT16_MAX)
			return -1;
	}
	p->port = port;
	p->family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	if (parse_zone(addr, p))
		return -1;
	return inet_pton(p->family, addr, &p->addr) == 1 ? 0 : -1;
}

static void put_peer(struct nlmsghdr *req, const struct peer *p)
{
	struct nlattr *nest = mnl_attr_nest_start(req, MPDT_A_CONN);

	if (p->family == AF_INET6)
		mnl_attr_put(req, MPDT_CONN_A_PEER_V6, sizeof(p->addr.v6),
			     &p->addr.v6);
	else
		mnl_attr_put(req, MPDT_CONN_A_PEER_V4, sizeof(p->addr.v4),
			     &p->addr.v4);
	mnl_attr_put_u16(req, MPDT_CONN_A_PEER_PORT, p->port);
	if (p->ifindex)
		mnl_attr_put_u32(req, MPDT_CONN_A_PEER_IFINDEX, p->ifindex);
	mnl_attr_nest_end(req, nest);
}

static int conn_show(struct ctx *ctx, const struct peer *p)
{
	struct nl *nl = ctx_nl(ctx);
	struct nlmsghdr *req;
	int err;

	if (!nl)
		return EXIT_FAILURE;
	req = nl_req(nl, MPDT_CMD_CONN_GET, !p->port);
	if (p->port)
		put_peer(req, p);
	out_arr_open(NULL);
	err = nl_talk(nl, conn_reply, (void *)p);
	out_arr_close();
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int parse_show_args(int argc, char **argv, struct peer *p)
{
	static const char *const keywords[] = { "peer" };

	*p = (struct peer){ .family = AF_UNSPEC };
	if (!argc)
		return 0;
	if (match_word(argv[0], keywords, ARRAY_SIZE(keywords),
		       "argument") < 0)
		return usage_hint();
	if (argc != 2)
		return usage_error("conn show takes peer ADDR[%%IF][:PORT]");
	if (parse_peer(argv[1], p))
		return usage_error("invalid peer \"%s\": expected ADDR, ADDR:PORT or [ADDR]:PORT",
				   argv[1]);
	return 0;
}

int do_conn(struct ctx *ctx, int argc, char **argv)
{
	struct peer peer;
	int err;

	if (!match_show("conn", &argc, &argv, &err))
		return err;
	err = parse_show_args(argc, argv, &peer);
	return err ? err : conn_show(ctx, &peer);
}
