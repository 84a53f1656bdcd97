/* SPDX-License-Identifier: GPL-2.0 */
/* mpdt(8): the objects' commands and what they share. */
#ifndef _MPDT_H
#define _MPDT_H

#include <stdbool.h>
#include <stddef.h>

#include "nl.h"

#define EXIT_USAGE	2

struct ctx {
	const char *netns;	/* -n */
	bool rates;		/* -s */
	bool timestamp;		/* -t */
	struct nl nl;
};

/* The netlink connection, in the right netns; NULL after an error. */
struct nl *ctx_nl(struct ctx *ctx);

void print_usage(bool to_stderr);
/* OBJECT help: the usage of one object (a name of the objects' table). */
int print_object_usage(const char *object);
/* Usage errors: a hint (after a message), or a message and the hint. */
int usage_hint(void);
int usage_error(const char *fmt, ...);
int match_word(const char *word, const char *const *words, size_t n,
	       const char *what);
/* The verb at argv[0] (consumed); "show" (0) if none, or an option. */
int match_verb(int *argc, char ***argv, const char *const *verbs, size_t n);
/* Objects whose verbs are only "show" (the default) and "help": true to go
 * on showing; else *status is the exit status (@object's usage printed, or
 * a usage error).
 */
bool match_show(const char *object, int *argc, char ***argv, int *status);

int do_param(struct ctx *ctx, int argc, char **argv);
int do_stats(struct ctx *ctx, int argc, char **argv);
int do_conn(struct ctx *ctx, int argc, char **argv);
int do_sock(struct ctx *ctx, int argc, char **argv);
int do_algo(struct ctx *ctx, int argc, char **argv);
int do_monitor(struct ctx *ctx, int argc, char **argv);

/* Print one connection's attributes (parsed), ending the text line(s). */
void conn_print(const struct nlattr **tb, bool detail);

#endif /* _MPDT_H */
