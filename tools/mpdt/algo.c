// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt algo [show]: the load balancing and congestion control algorithms
 * the module offers (ALGO_GET dump), marking the netns's defaults.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

static int algo_reply(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest = nl_nest(nlh, MPDT_A_ALGO);
	const struct nlattr *tb[MPDT_ALGO_A_MAX + 1];
	const char *kind = NULL, *name;
	unsigned long long val;

	if (!nest)
		return MNL_CB_ERROR;
	nl_parse(nest, tb, MPDT_ALGO_A_MAX);
	if (nl_uint(tb[MPDT_ALGO_A_KIND], &val))
		kind = algo_kind_name(val);
	name = nl_str(tb[MPDT_ALGO_A_NAME]);
	if (!kind || !name)
		return MNL_CB_OK;
	out_obj_open(NULL);
	out_str(OUT_ANY, "kind", "%s", kind);
	out_str(OUT_ANY, "name", "%s", name);
	out_bool(OUT_ANY, "default", "default", tb[MPDT_ALGO_A_DEFAULT]);
	out_obj_close();
	out_nl();
	return MNL_CB_OK;
}

static int algo_show(struct ctx *ctx)
{
	struct nl *nl = ctx_nl(ctx);
	int err;

	if (!nl)
		return EXIT_FAILURE;
	nl_req(nl, MPDT_CMD_ALGO_GET, true);
	out_arr_open(NULL);
	err = nl_talk(nl, algo_reply, NULL);
	out_arr_close();
	return err ? EXIT_FAILURE : EXIT_SUCCESS;
}

int do_algo(struct ctx *ctx, int argc, char **argv)
{
	int status;

	if (!match_show("algo", &argc, &argv, &status))
		return status;
	if (argc)
		return usage_error("algo show takes no arguments");
	return algo_show(ctx);
}
