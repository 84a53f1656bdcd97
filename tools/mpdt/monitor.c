// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt monitor [-t]: one line per connection event of the netns (created,
 * closed, failed), from the "events" multicast group, until SIGINT or
 * SIGTERM.  With -j, one JSON object per line.  Each line is flushed.
 * With -t each event starts with the local time it was received, as
 * "ip -ts monitor" writes it: [YYYY-MM-DDTHH:MM:SS.UUUUUU] in text, a
 * "timestamp" member in JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

static void print_timestamp(void)
{
	char stamp[64];
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n = strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp + n, sizeof(stamp) - n, ".%06ld", ts.tv_nsec / 1000);
	out_str(OUT_TEXT, NULL, "[%s]", stamp);
	out_str(OUT_JSON, "timestamp", NULL, stamp);
}

static int print_event(const struct nlmsghdr *nlh, void *data)
{
	const char *event = event_name(nl_cmd(nlh));
	const struct nlattr *nest = nl_nest(nlh, MPDT_A_CONN);
	const struct nlattr *tb[MPDT_CONN_A_MAX + 1];
	const struct ctx *ctx = data;

	if (!event || !nest)
		return MNL_CB_OK;
	nl_parse(nest, tb, MPDT_CONN_A_MAX);
	out_obj_open(NULL);
	if (ctx->timestamp)
		print_timestamp();
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

	for (; argc; argc--, argv++) {
		if (!strcmp(*argv, "-t") || !strcmp(*argv, "--timestamp")) {
			ctx->timestamp = true;
			continue;
		}
		if (**argv == '-')
			return usage_error("monitor takes only -t, not \"%s\"",
					   *argv);
		if (match_word(*argv, verbs, ARRAY_SIZE(verbs), "command") < 0)
			return usage_hint();
		return print_object_usage("monitor");
	}
	nl = ctx_nl(ctx);
	if (!nl)
		return EXIT_FAILURE;
	return nl_listen(nl, print_event, ctx) ? EXIT_FAILURE : EXIT_SUCCESS;
}
