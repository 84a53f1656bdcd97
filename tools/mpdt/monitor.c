// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt monitor: one line per connection event of the netns (created,
 * closed, failed), from the "events" multicast group, until SIGINT or
 * SIGTERM.  With -j, one JSON object per line.  Each line is flushed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

static int print_event(const struct nlmsghdr *nlh, void *data)
{
	const char *event = event_name(nl_cmd(nlh));
	const struct nlattr *nest = nl_nest(nlh, MPDT_A_CONN);
	const struct nlattr *tb[MPDT_CONN_A_MAX + 1];

	if (!event || !nest)
		return MNL_CB_OK;
	nl_parse(nest, tb, MPDT_CONN_A_MAX);
	out_obj_open(NULL);
	out_str(OUT_ANY, "event", "%s", event);
	conn_print(tb, false);
	out_obj_close();
	fflush(stdout);
	return MNL_CB_OK;
}

int do_monitor(struct ctx *ctx, int argc, char **argv)
{
	static const char *const verbs[] = { "help" };
	struct nl *nl;

	if (argc && match_word(argv[0], verbs, ARRAY_SIZE(verbs),
			       "command") == 0) {
		print_usage(false);
		return EXIT_SUCCESS;
	}
	if (argc)
		return usage_hint();
	nl = ctx_nl(ctx);
	if (!nl)
		return EXIT_FAILURE;
	return nl_listen(nl, print_event, NULL) ? EXIT_FAILURE : EXIT_SUCCESS;
}
