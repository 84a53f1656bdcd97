// SPDX-License-Identifier: GPL-2.0
/*
 * Text or JSON output (see out.h).  Text fields on a line are separated by
 * one space.  JSON is compact, or indented by four spaces with -p; each
 * top-level value ends with a newline and is flushed.
 */
#include <stdarg.h>
#include <stdio.h>

#include "out.h"

#define OUT_MAX_DEPTH	8

static struct {
	bool json;
	bool pretty;
	int depth;
	bool first[OUT_MAX_DEPTH];	/* no member yet at this depth */
	bool line_start;		/* text: nothing on this line yet */
} out = { .line_start = true, .first = { true } };

void out_init(bool json, bool pretty)
{
	out.json = json;
	out.pretty = pretty;
}

bool out_is_json(void)
{
	return out.json;
}

static void json_indent(void)
{
	int i;

	putchar('\n');
	for (i = 0; i < out.depth; i++)
		fputs("    ", stdout);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Separator, indentation and key of the next JSON value. */
static void json_member(const char *key)
{
	if (!out.first[out.depth])
		putchar(',');
	out.first[out.depth] = false;
	if (out.pretty && out.depth)
		json_indent();
	if (key) {
		json_string(key);
		fputs(out.pretty ? ": " : ":", stdout);
	}
}

static void json_open(const char *key, char bracket)
{
	json_member(key);
	putchar(bracket);
	if (out.depth < OUT_MAX_DEPTH - 1)
		out.depth++;
	out.first[out.depth] = true;
}

static void json_close(char bracket)
{
	bool empty = out.first[out.depth];

	if (out.depth)
		out.depth--;
	if (out.pretty && !empty)
		json_indent();
	putchar(bracket);
	if (!out.depth) {
		/* The next top-level value is a new document. */
		out.first[0] = true;
		putchar('\n');
		fflush(stdout);
	}
}

void out_obj_open(const char *key)
{
	if (out.json)
		json_open(key, '{');
}

void out_obj_close(void)
{
	if (out.json)
		json_close('}');
}

void out_arr_open(const char *key)
{
	if (out.json)
		json_open(key, '[');
}

void out_arr_close(void)
{
	if (out.json)
		json_close(']');
}

/* Whether a value goes to the current output at all. */
static bool wanted(enum out_to to)
{
	return to & (out.json ? OUT_JSON : OUT_TEXT);
}

static void text(const char *fmt, ...)
{
	va_list ap;

	if (!out.line_start)
		putchar(' ');
	out.line_start = false;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void out_str(enum out_to to, const char *key, const char *fmt,
	     const char *val)
{
	if (!wanted(to))
		return;
	if (out.json) {
		json_member(key);
		json_string(val);
	} else if (fmt) {
		text(fmt, val);
	} else {
		text("%s %s", key, val);
	}
}

void out_uint(enum out_to to, const char *key, const char *fmt,
	      unsigned long long val)
{
	if (!wanted(to))
		return;
	if (out.json) {
		json_member(key);
		printf("%llu", val);
	} else if (fmt) {
		text(fmt, val);
	} else {
		text("%s %llu", key, val);
	}
}

void out_bool(enum out_to to, const char *key, const char *fmt, bool val)
{
	if (!wanted(to))
		return;
	if (out.json) {
		json_member(key);
		fputs(val ? "true" : "false", stdout);
	} else if (val) {
		text("%s", fmt);
	}
}

void out_nl(void)
{
	if (out.json)
		return;
	putchar('\n');
	out.line_start = true;
}

void out_indent(void)
{
	if (!out.json && out.line_start)
		putchar('\t');
}
