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

#ifndef MPDT_VERSION
#define MPDT_VERSION "unknown"
#endif

/* An object: its word, its command, and its lines of the usage (one
 * synopsis per line, without "mpdt "), then what "mpdt OBJECT help" adds.
 */
struct object {
	const char *name;
	int (*cmd)(struct ctx *ctx, int argc, char **argv);
	const char *synopsis;
	const char *details;
	void (*more)(FILE *f);	/* printed after details; may be NULL */
};

static int do_help(struct ctx *ctx, int argc, char **argv);
static void print_param_names(FILE *f);

static const struct object objects[] = {
	{ "param", do_param,
	  "param [show] [NAME...]\n"
	  "param set NAME VALUE [NAME VALUE...]\n",
	  "Show the parameters of the network namespace, or set several in one\n"
	  "request, applied all or none (needs CAP_NET_ADMIN).  VALUE is a decimal\n"
	  "unsigned 32-bit integer, or for lb and cc an algorithm name (mpdt algo).\n"
	  "Ranges and defaults: mpdt(8).\n",
	  print_param_names },
	{ "stats", do_stats,
	  "stats [show] [-s]\n",
	  "Show the counters of the network namespace (/proc/net/mpdt_stats); with\n"
	  "-s read them twice, one second apart, and add each one's rate per second.\n",
	  NULL },
	{ "conn", do_conn,
	  "conn [show] [peer ADDR[%IF][:PORT]]\n",
	  "Show the connections of the network namespace: all of them, those to the\n"
	  "address ADDR, or the one to ADDR:PORT (IPv6: [ADDR]:PORT).  A link-local\n"
	  "IPv6 ADDR names its link: ADDR%IF (interface name or index).\n",
	  NULL },
	{ "sock", do_sock,
	  "sock [show]\n",
	  "Show the bound MPDT sockets of the network namespace: family, local\n"
	  "address and port, state (open, draining, time-wait), owner (inode,\n"
	  "uid, cgroup id), connections, and memory (rmem/rcvbuf, wmem/sndbuf).\n",
	  NULL },
	{ "algo", do_algo,
	  "algo [show]\n",
	  "Show the load balancing (lb) and congestion control (cc) algorithms of\n"
	  "the module, marking the network namespace's defaults.\n",
	  NULL },
	{ "monitor", do_monitor,
	  "monitor [-t]\n",
	  "Print the connection events of the network namespace (created, closed,\n"
	  "failed) until SIGINT or SIGTERM.  -t prefixes each with the local time,\n"
	  "[YYYY-MM-DDTHH:MM:SS.UUUUUU] (JSON: a \"timestamp\" member).\n",
	  NULL },
	{ "help", do_help,
	  "help [OBJECT]\n",
	  "Print the usage of mpdt, or of OBJECT.\n",
	  NULL },
};

static const char options_text[] =
	"OPTIONS:\n"
	"  -n, --netns NETNS  act in network namespace NETNS (/run/netns/NETNS)\n"
	"  -j, --json         JSON output\n"
	"  -p, --pretty       indented JSON (implies -j)\n"
	"  -s, --stats        stats: add per-second rates (samples 1 s apart)\n"
	"  -t, --timestamp    monitor: prefix each event with the time\n"
	"  -V, --version      print the version of mpdt and exit\n"
	"  -h, --help         this text\n"
	"Objects, commands and parameter names may be abbreviated to a unique\n"
	"prefix.  See mpdt(8).\n";

/* The synopsis lines of @o, each after @lead (then as many spaces). */
static void print_synopsis(FILE *f, const struct object *o, const char **lead)
{
	const char *line, *end;

	for (line = o->synopsis; *line; line = end + 1) {
		end = strchr(line, '\n');
		fprintf(f, "%s mpdt %.*s\n", *lead, (int)(end - line), line);
		*lead = "      ";
	}
}

void print_usage(bool to_stderr)
{
	FILE *f = to_stderr ? stderr : stdout;
	const char *lead = "      ";
	size_t i;

	fputs("Usage: mpdt [OPTIONS] OBJECT [COMMAND [ARGUMENTS]]\n", f);
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (strcmp(objects[i].name, "help"))
			print_synopsis(f, &objects[i], &lead);
	fprintf(f, "%s mpdt OBJECT help\n", lead);
	fprintf(f, "%s mpdt help [OBJECT]\n", lead);
	fputs(options_text, f);
}

/* param help: the names the CLI knows, as { a | b | ... }, wrapped. */
static void print_param_names(FILE *f)
{
	const char *sep = "NAME := { ";
	int col = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(param_names); i++) {
		if (!param_names[i])
			continue;
		if (col + strlen(sep) + strlen(param_names[i]) > 76) {
			fputs(" |\n", f);
			sep = "          ";
			col = 0;
		}
		col += fprintf(f, "%s%s", sep, param_names[i]);
		sep = " | ";
	}
	fputs(" }\n", f);
}

static int object_usage(const struct object *o)
{
	const char *lead = "Usage:";

	print_synopsis(stdout, o, &lead);
	if (strcmp(o->name, "help"))
		printf("%s mpdt %s help\n", lead, o->name);
	fputs(o->details, stdout);
	if (o->more)
		o->more(stdout);
	fputs("Global options: mpdt help.  See mpdt(8).\n", stdout);
	return EXIT_SUCCESS;
}

int print_object_usage(const char *object)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (!strcmp(objects[i].name, object))
			return object_usage(&objects[i]);
	print_usage(false);
	return EXIT_SUCCESS;
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

bool match_show(const char *object, int *argc, char ***argv, int *status)
{
	static const char *const verbs[] = { "show", "help" };

	switch (match_verb(argc, argv, verbs, ARRAY_SIZE(verbs))) {
	case 0:
		return true;
	case 1:
		*status = print_object_usage(object);
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

/* The object @word names (a unique prefix), or -1 after a message. */
static int match_object(const char *word)
{
	const char *names[ARRAY_SIZE(objects)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(objects); i++)
		names[i] = objects[i].name;
	return match_word(word, names, ARRAY_SIZE(names), "object");
}

static int do_help(struct ctx *ctx, int argc, char **argv)
{
	int object;

	if (argc > 1)
		return usage_error("help takes at most one object");
	if (!argc) {
		print_usage(false);
		return EXIT_SUCCESS;
	}
	object = match_object(argv[0]);
	if (object < 0)
		return usage_hint();
	return object_usage(&objects[object]);
}

static const struct option long_options[] = {
	{ "netns",	required_argument,	NULL, 'n' },
	{ "json",	no_argument,		NULL, 'j' },
	{ "pretty",	no_argument,		NULL, 'p' },
	{ "stats",	no_argument,		NULL, 's' },
	{ "timestamp",	no_argument,		NULL, 't' },
	{ "version",	no_argument,		NULL, 'V' },
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
	while ((c = getopt_long(argc, argv, "+n:jpstVh", long_options,
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
		case 't':
			ctx->timestamp = true;
			break;
		case 'V':
			printf("mpdt version %s\n", MPDT_VERSION);
			*exit_code = EXIT_SUCCESS;
			return -1;
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
	object = match_object(argv[first]);
	if (object < 0)
		return usage_hint();
	ret = objects[object].cmd(&ctx, argc - first - 1, argv + first + 1);
	nl_close(&ctx.nl);
	return ret;
}
