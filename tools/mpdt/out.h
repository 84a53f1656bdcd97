/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One output path for text and JSON, in the manner of iproute2's
 * json_print: every value is printed through out_*(), which writes it as
 * text (with the printf format given, or as "key value") or as a JSON
 * member (with the key given), depending on -j.  @to selects whether a
 * value appears in text, in JSON, or in both.
 */
#ifndef _MPDT_OUT_H
#define _MPDT_OUT_H

#include <stdbool.h>

enum out_to {
	OUT_TEXT = 1,
	OUT_JSON = 2,
	OUT_ANY = OUT_TEXT | OUT_JSON,
};

void out_init(bool json, bool pretty);
bool out_is_json(void);

/* JSON containers; @key is NULL inside arrays and at the top level.
 * In text mode these print nothing.
 */
void out_obj_open(const char *key);
void out_obj_close(void);
void out_arr_open(const char *key);
void out_arr_close(void);

void out_str(enum out_to to, const char *key, const char *fmt,
	     const char *val);
void out_uint(enum out_to to, const char *key, const char *fmt,
	      unsigned long long val);
/* Text: @fmt is printed only if @val is true. */
void out_bool(enum out_to to, const char *key, const char *fmt, bool val);

/* Text only: end the line; start the next one indented. */
void out_nl(void);
void out_indent(void);

#endif /* _MPDT_OUT_H */
