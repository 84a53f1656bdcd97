// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt sock [show]: the bound MPDT sockets of the netns (SOCK_GET dump),
 * with their owner (inode, uid, cgroup), as ss shows other protocols'.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

/* The bound address, "*" when the socket takes any; with @zone, a
 * link-local one with its link.
 */
static void local_text(const struct nlattr **tb, bool zone, char *buf,
		       size_t len)
{
	if (!nl_addr_text(tb[MPDT_SOCK_A_ADDR_V6], AF_INET6,
			  zone ? tb[MPDT_SOCK_A_ADDR_IFINDEX] : NULL, buf,
			  len) &&
	    !nl_addr_text(tb[MPDT_SOCK_A_ADDR_V4], AF_INET, NULL, buf, len))
		snprintf(buf, len, "*");
}

/* JSON has the address and its link apart, text the two together. */
static void print_local(const struct nlattr **tb)
{
	char addr[NL_ADDR_TEXT_LEN], text[NL_ADDR_TEXT_LEN + 8];
	unsigned long long family = 0, port = 0, ifindex;

	nl_uint(tb[MPDT_SOCK_A_FAMILY], &family);
	nl_uint(tb[MPDT_SOCK_A_LOCAL_PORT], &port);
	local_text(tb, false, addr, sizeof(addr));
	out_str(OUT_JSON, sock_attr_name(MPDT_SOCK_A_FAMILY), NULL,
		family == AF_INET6 ? "inet6" : "inet");
	out_str(OUT_JSON, sock_attr_name(MPDT_SOCK_A_ADDR_V4), NULL, addr);
	out_uint(OUT_JSON, sock_attr_name(MPDT_SOCK_A_LOCAL_PORT), NULL, port);
	if (nl_uint(tb[MPDT_SOCK_A_ADDR_IFINDEX], &ifindex))
		out_uint(OUT_JSON, sock_attr_name(MPDT_SOCK_A_ADDR_IFINDEX),
			 NULL, ifindex);
	local_text(tb, true, addr, sizeof(addr));
	snprintf(text, sizeof(text), tb[MPDT_SOCK_A_ADDR_V6] ? "[%s]:%llu" :
		 "%s:%llu", addr, port);
	out_str(OUT_TEXT, NULL, "%s", family == AF_INET6 ? "inet6" : "inet");
	out_str(OUT_TEXT, NULL, "local %s", text);
}

static int sock_reply(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest = nl_nest(nlh, MPDT_A_SOCK);
	const struct nlattr *tb[MPDT_SOCK_A_MAX + 1];
	const char *state = NULL;
	unsigned long long val;
	size_t i;

	if (!nest)
		return MNL_CB_ERROR;
	nl_parse(nest, tb, MPDT_SOCK_A_MAX);
	out_obj_open(NULL);
	print_local(tb);
	if (nl_uint(tb[MPDT_SOCK_A_STATE], &val))
		state = sock_state_name(val);
	out_str(OUT_ANY, sock_attr_name(MPDT_SOCK_A_STATE), NULL,
		state ? state : "unknown");
	for (i = 0; i < sock_num_attr_count; i++)
		if (nl_uint(tb[sock_num_attrs[i]], &val))
			out_uint(OUT_ANY, sock_attr_name(sock_num_attrs[i]),
				 NULL, val);
	out_obj_close();
	out_nl();
	return MNL_CB_OK;
}

static int sock_show(struct ctx *ctx)
{
	struct nl *nl = ctx_nl(ctx);
	int err;

	if (!nl)
		return EXIT_FAILURE;
	nl_req(nl, MPDT_CMD_SOCK_GET, true);
	out_arr_open(NULL);
	err = nl_talk(nl, sock_reply, NULL);
	out_arr_close();
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

int do_sock(struct ctx *ctx, int argc, char **argv)
{
	int status;

	if (!match_show("sock", &argc, &argv, &status))
		return status;
	if (argc)
		return usage_error("sock show takes no arguments");
	return sock_show(ctx);
}
