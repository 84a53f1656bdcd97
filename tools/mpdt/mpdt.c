// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt(8): show and change MPDT's per-network-namespace parameters, read
 * its counters, connections and algorithms, and watch connection events,
 * through the "mpdt" generic netlink family.  iproute2 conventions: global
 * options, then OBJECT [COMMAND [ARGUMENTS]], any word abbreviated to a
 * unique prefix; -j for JSON.  Exit status: 0 success, 1 runtime or
 * kernel error, 2 usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpdt.h"
#include "names.h"
#include "out.h"

static const char usage_text[] =
	"Usage: mpdt [OPTIONS] OBJECT [COMMAND [ARGUMENTS]]\n"
	"       mpdt param [show] [NAME...]\n"
	"       mpdt param set NAME VALUE [NAME VALUE...]\n"
	"       mpdt stats [show] [-s]\n"
	"       mpdt conn [show] [peer ADDR[:PORT]]\n"
	"       mpdt algo [show]\n"
	"       mpdt monitor\n"
	"       mpdt help\n"
	"OPTIONS:\n"
	"  -n, --netns NETNS  act in network namespace NETNS (/run/netns/NETNS)\n"
	"  -j, --json         JSON output\n"
	"  -p, --pretty       indented JSON (implies -j)\n"
	"  -s, --stats        stats: add per-second rates (samples 1 s apart)\n"
	"  -h, --help         this text\n"
	"Objects, commands and parameter names may be abbreviated to a unique\n"
	"prefix.  See mpdt(8).\n";

void print_usage(bool to_stderr)
{
	fputs(usage_text, to_stderr ? stderr : stdout);
}

int usage_hint(void)
{
	fputs("Try \"mpdt help\".\n", stderr);
	return EXIT_USAGE;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("mpdt: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return usage_hint();
}

static void print_candidates(const char *word, const char *const *words,
			     size_t n, const char *what)
{
	const char *sep = ": ";
	size_t i;

	fprintf(stderr, "mpdt: ambiguous %s \"%s\"", what, word);
	for (i = 0; i < n; i++) {
		if (words[i] && !strncmp(word, words[i], strlen(word))) {
			fprintf(stderr, "%s%s", sep, words[i]);
			sep = ", ";
		}
	}
	fputc('\n', stderr);
}

/* Index of @word in @words (which may have NULL holes): an exact match,
 * or the only word it is a prefix of.  -1, with a message, if none.
 */
int match_word(const char *word, const char *const *words, size_t n,
	       const char *what)
{
	size_t i, len = strlen(word), hits = 0;
	int found = -1;

	for (i = 0; i < n; i++) {
		if (!words[i])
			continue;
		if (!strcmp(word, words[i]))
			return i;
		if (len && !strncmp(word, words[i], len)) {
			found = i;
			hits++;
		}
	}
	if (hits == 1)
		return found;
	if (hits > 1)
		print_candidates(word, words, n, what);
	else
		fprintf(stderr, "mpdt: unknown %s \"%s\"\n", what, word);
	return -1;
}

int match_verb(int *argc, char ***argv, const char *const *verbs, size_t n)
{
	int verb;

	if (!*argc || ***argv == '-')
		return 0;
	verb = match_word(**argv, verbs, n, "command");
	(*argc)--;
	(*argv)++;
	return verb;
}

bool match_show(int *argc, char ***argv, int *status)
{
	static const char *const verbs[] = { "show", "help" };

	switch (match_verb(argc, argv, verbs, ARRAY_SIZE(verbs))) {
	case 0:
		return true;
	case 1:
		print_usage(false);
		*status = EXIT_SUCCESS;
		return false;
	default:
		*status = usage_hint();
		return false;
	}
}

static int enter_netns(const char *name)
{
	char path[PATH_MAX];
	int fd, err;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "Error: cannot open network namespace \"%s\": %s.\n",
			name, strerror(errno));
		return -1;
	}
	err = setns(fd, CLONE_NEWNET);
	if (err)
		fprintf(stderr, "Error: cannot enter network namespace \"%s\": %s.\n",
			name, strerror(errno));
	close(fd);
	return err;
}

struct nl *ctx_nl(struct ctx *ctx)
{
	if (ctx->netns && enter_netns(ctx->netns))
		return NULL;
	if (nl_open(&ctx->nl))
		return NULL;
	return &ctx->nl;
}

static int do_help(struct ctx *ctx, int argc, char **argv)
{
	if (argc)
		return usage_error("help takes no arguments");
	print_usage(false);
	return EXIT_SUCCESS;
}

static const char *const object_names[] = {
	"param", "stats", "conn", "algo", "monitor", "help",
};

static int (*const object_cmds[])(struct ctx *ctx, int argc, char **argv) = {
	do_param, do_stats, do_conn, do_algo, do_monitor, do_help,
};

static const struct option long_options[] = {
	{ "netns",	required_argument,	NULL, 'n' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "pretty",	no_argument,		NULL, 'p' },
	{ "stats",	no_argument,		NULL, 's' },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL }
};

/* Global options; returns the index of the object word, or -1 and sets
 * *exit_code.
 */
static int parse_options(int argc, char **argv, struct ctx *ctx,
			 int *exit_code)
{
	bool json = false, pretty = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n:jpsh", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			if (strchr(optarg, '/') || !strcmp(optarg, ".") ||
			    !strcmp(optarg, "..")) {
				*exit_code = usage_error("invalid netns name \"%s\"",
							 optarg);
				return -1;
			}
			ctx->netns = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'p':
			json = true;
			pretty = true;
			break;
		case 's':
			ctx->rates = true;
			break;
		case 'h':
			print_usage(false);
			*exit_code = EXIT_SUCCESS;
			return -1;
		default:
			*exit_code = usage_error("unknown or incomplete option \"%s\"",
						 argv[optind - 1]);
			return -1;
		}
	}
	if (optind == argc) {
		print_usage(true);
		*exit_code = EXIT_USAGE;
		return -1;
	}
	out_init(json, pretty);
	return optind;
}

int main(int argc, char **argv)
{
	struct ctx ctx = { NULL };
	int first, object, ret = EXIT_USAGE;

	first = parse_options(argc, argv, &ctx, &ret);
	if (first < 0)
		return ret;
	object = match_word(argv[first], object_names,
			    ARRAY_SIZE(object_names), "object");
	if (object < 0)
		return usage_hint();
	ret = object_cmds[object](&ctx, argc - first - 1, argv + first + 1);
	nl_close(&ctx.nl);
	return ret;
}
