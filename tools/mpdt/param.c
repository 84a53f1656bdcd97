// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt param show [NAME...]: the parameters of the netns (PARAM_GET), in
 * text by their names (udp-port), in JSON by snake_case keys (udp_port).
 * mpdt param set NAME VALUE...: change several at once, in one PARAM_SET
 * request, so the kernel validates and applies them together.  Names are
 * checked here, values by the kernel (its ranges live in params.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

/* A parameter's JSON key: its name in snake_case (udp_port for udp-port),
 * as iproute2's JSON and the counters' names are.
 */
static void json_key(const char *name, char *key, size_t size)
{
	size_t i;

	for (i = 0; name[i] && i < size - 1; i++)
		key[i] = name[i] == '-' ? '_' : name[i];
	key[i] = '\0';
}

static void print_param(uint16_t attr, const struct nlattr *a)
{
	const char *name = param_names[attr];
	const char *str = nl_str(a);
	unsigned long long val;
	char key[64];

	if (param_is_string(attr) ? !str : !nl_uint(a, &val))
		return;
	json_key(name, key, sizeof(key));
	out_str(OUT_TEXT, NULL, "%-18s", name);
	if (param_is_string(attr))
		out_str(OUT_ANY, key, "%s", str);
	else
		out_uint(OUT_ANY, key, "%llu", val);
	out_nl();
}

static int params_reply(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest = nl_nest(nlh, MPDT_A_PARAMS);
	const struct nlattr *tb[MPDT_PARAM_MAX + 1];
	const bool *wanted = data;
	uint16_t attr;

	if (!nest)
		return MNL_CB_ERROR;
	nl_parse(nest, tb, MPDT_PARAM_MAX);
	out_obj_open(NULL);
	for (attr = 0; attr <= MPDT_PARAM_MAX; attr++)
		if (wanted[attr] && param_names[attr] && tb[attr])
			print_param(attr, tb[attr]);
	out_obj_close();
	return MNL_CB_OK;
}

static int param_show(struct ctx *ctx, int argc, char **argv)
{
	bool wanted[MPDT_PARAM_MAX + 1];
	struct nl *nl;
	int i, attr;

	for (i = 0; i <= MPDT_PARAM_MAX; i++)
		wanted[i] = !argc;
	for (i = 0; i < argc; i++) {
		attr = match_word(argv[i], param_names,
				  ARRAY_SIZE(param_names), "parameter");
		if (attr < 0)
			return usage_hint();
		wanted[attr] = true;
	}
	nl = ctx_nl(ctx);
	if (!nl)
		return EXIT_FAILURE;
	nl_req(nl, MPDT_CMD_PARAM_GET, false);
	return nl_talk(nl, params_reply, wanted) ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A decimal u32, nothing else. */
static int parse_u32(const char *s, uint32_t *val)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return -1;
	*val = v;
	return 0;
}

struct param_values {
	const char *str[MPDT_PARAM_MAX + 1];	/* as given; NULL: unset */
	uint32_t num[MPDT_PARAM_MAX + 1];
};

static int parse_pairs(int argc, char **argv, struct param_values *pv)
{
	int i, attr;

	if (!argc || argc % 2)
		return usage_error("param set takes NAME VALUE pairs");
	for (i = 0; i < argc; i += 2) {
		attr = match_word(argv[i], param_names,
				  ARRAY_SIZE(param_names), "parameter");
		if (attr < 0)
			return usage_hint();
		if (pv->str[attr])
			return usage_error("%s given twice", param_names[attr]);
		if (!param_is_string(attr) &&
		    parse_u32(argv[i + 1], &pv->num[attr]))
			return usage_error("%s: \"%s\" is not an unsigned 32-bit integer",
					   param_names[attr], argv[i + 1]);
		pv->str[attr] = argv[i + 1];
	}
	return 0;
}

static bool put_params(struct nlmsghdr *req, const struct param_values *pv)
{
	struct nlattr *nest = mnl_attr_nest_start(req, MPDT_A_PARAMS);
	uint16_t attr;
	bool ok = true;

	for (attr = 0; attr <= MPDT_PARAM_MAX && ok; attr++) {
		if (!pv->str[attr])
			continue;
		if (param_is_string(attr))
			ok = mnl_attr_put_strz_check(req, NL_REQ_SIZE, attr,
						     pv->str[attr]);
		else
			ok = mnl_attr_put_u32_check(req, NL_REQ_SIZE, attr,
						    pv->num[attr]);
	}
	mnl_attr_nest_end(req, nest);
	return ok;
}

static int param_set(struct ctx *ctx, int argc, char **argv)
{
	struct param_values pv = { .str = { NULL } };
	struct nl *nl;
	int err;

	err = parse_pairs(argc, argv, &pv);
	if (err)
		return err;
	nl = ctx_nl(ctx);
	if (!nl)
		return EXIT_FAILURE;
	if (!put_params(nl_req(nl, MPDT_CMD_PARAM_SET, false), &pv))
		return usage_error("arguments too long");
	return nl_talk(nl, NULL, NULL) ? EXIT_FAILURE : EXIT_SUCCESS;
}

int do_param(struct ctx *ctx, int argc, char **argv)
{
	static const char *const verbs[] = { "show", "set", "help" };

	switch (match_verb(&argc, &argv, verbs, ARRAY_SIZE(verbs))) {
	case 0:
		return param_show(ctx, argc, argv);
	case 1:
		return param_set(ctx, argc, argv);
	case 2:
		return print_object_usage("param");
	default:
		return usage_hint();
	}
}
