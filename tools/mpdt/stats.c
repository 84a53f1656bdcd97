// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt stats [show] [-s]: the netns's counters (STATS_GET), named as in
 * /proc/net/mpdt_stats.  With -s the counters are read twice, one second
 * apart, and each is shown with its rate per second over that interval.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

struct stats_sample {
	unsigned long long ns;		/* CLOCK_MONOTONIC, at the request */
	unsigned long long val[MPDT_STAT_MAX + 1];
	bool have[MPDT_STAT_MAX + 1];
};

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int stats_reply(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest = nl_nest(nlh, MPDT_A_STATS);
	const struct nlattr *tb[MPDT_STAT_MAX + 1];
	struct stats_sample *s = data;
	int i;

	if (!nest)
		return MNL_CB_ERROR;
	nl_parse(nest, tb, MPDT_STAT_MAX);
	for (i = 0; i <= MPDT_STAT_MAX; i++)
		s->have[i] = stat_names[i] && nl_uint(tb[i], &s->val[i]);
	return MNL_CB_OK;
}

static int sample(struct nl *nl, struct stats_sample *s)
{
	nl_req(nl, MPDT_CMD_STATS_GET, false);
	s->ns = now_ns();
	return nl_talk(nl, stats_reply, s);
}

/* Growth of counter @i per second from @a to @b, rounded. */
static unsigned long long rate(const struct stats_sample *a,
			       const struct stats_sample *b, int i)
{
	unsigned long long dt = b->ns - a->ns;

	if (!a->have[i] || b->val[i] < a->val[i] || !dt)
		return 0;
	return ((b->val[i] - a->val[i]) * 1000000000.0 + dt / 2) / dt;
}

/* @before is NULL without -s. */
static void print_stats(const struct stats_sample *before,
			const struct stats_sample *now)
{
	int i;

	out_obj_open(NULL);
	for (i = 0; i <= MPDT_STAT_MAX; i++) {
		const char *name = stat_names[i];

		if (!now->have[i])
			continue;
		out_str(OUT_TEXT, NULL, "%-18s", name);
		if (before) {
			out_obj_open(name);
			out_uint(OUT_ANY, "value", "%20llu", now->val[i]);
			out_uint(OUT_ANY, "rate", "%12llu/s",
				 rate(before, now, i));
			out_obj_close();
		} else {
			out_uint(OUT_ANY, name, "%20llu", now->val[i]);
		}
		out_nl();
	}
	out_obj_close();
}

static int stats_show(struct ctx *ctx)
{
	static struct stats_sample before, now;
	const struct timespec second = { .tv_sec = 1 };
	struct nl *nl = ctx_nl(ctx);

	if (!nl)
		return EXIT_FAILURE;
	if (ctx->rates) {
		if (sample(nl, &before))
			return EXIT_FAILURE;
		nanosleep(&second, NULL);
	}
	if (sample(nl, &now))
		return EXIT_FAILURE;
	print_stats(ctx->rates ? &before : NULL, &now);
	return EXIT_SUCCESS;
}

int do_stats(struct ctx *ctx, int argc, char **argv)
{
	int status;

	if (!match_show("stats", &argc, &argv, &status))
		return status;
	for (; argc; argc--, argv++) {
		if (strcmp(*argv, "-s") && strcmp(*argv, "--stats"))
			return usage_error("stats show takes only -s, not \"%s\"",
					   *argv);
		ctx->rates = true;
	}
	return stats_show(ctx);
}
