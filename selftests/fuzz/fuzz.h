/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the libFuzzer targets of the MPDT pure core
 * (selftests/fuzz/fuzz_*.c): reading fuzzer bytes, failing an invariant,
 * and parameter sets (the module defaults, or a fuzzer-chosen set that
 * mpdt_params_invalid() accepts).
 *
 * An invariant that does not hold prints one "INVARIANT:" line and aborts,
 * which libFuzzer reports as a crash with the input that caused it.
 */
#ifndef _MPDT_FUZZ_H
#define _MPDT_FUZZ_H

#include <stdio.h>
#include <stdlib.h>

#include "core.h"
#include "wire.h"
#include "sack.h"
#include "scoreboard.h"
#include "rtt.h"
#include "params.h"
#include "algo.h"

/* Generated from net/mpdt/main.c by the Makefile: the module defaults as
 * "static const struct mpdt_params mpdt_module_defaults".
 */
#include "default_params.h"

/* libFuzzer's entry point, LLVMFuzzerTestOneInput(), spelled in pieces:
 * kernel style has no CamelCase identifiers.
 */
#define FUZZ_ENTRY	LLVM ## F ## uzzer ## T ## est ## O ## ne ## I ## nput
int FUZZ_ENTRY(const u8 *data, size_t size);

#define FZ_ASSERT(cond, fmt, ...)					\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "INVARIANT: %s:%d: %s: " fmt "\n",	\
				__FILE__, __LINE__, #cond, ##__VA_ARGS__); \
			abort();					\
		}							\
	} while (0)

/* For the harness's own checks: their loops would only feed the fuzzer
 * noise, and slow it down.
 */
#define FZ_NOCOV	__attribute__((no_sanitize("coverage")))

/* FUZZ_TRACE=1 in the environment: each step on stderr, to read what a
 * reproducer does.
 */
static inline bool fz_tracing(void)
{
	static int on = -1;

	if (on < 0)
		on = !!getenv("FUZZ_TRACE");
	return on;
}

#define FZ_TRACE(fmt, ...)						\
	do {								\
		if (fz_tracing())					\
			fprintf(stderr, fmt "\n", ##__VA_ARGS__);	\
	} while (0)

/* The fuzzer's bytes, consumed front to back; zeros once they run out. */
struct fz_in {
	const u8 *p;
	size_t left;
};

static inline u8 fz_u8(struct fz_in *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static inline u16 fz_u16(struct fz_in *in)
{
	return (u16)fz_u8(in) << 8 | fz_u8(in);
}

static inline u32 fz_u32(struct fz_in *in)
{
	return (u32)fz_u16(in) << 16 | fz_u16(in);
}

static inline u64 fz_u64(struct fz_in *in)
{
	return (u64)fz_u32(in) << 32 | fz_u32(in);
}

static inline bool fz_done(const struct fz_in *in)
{
	return !in->left;
}

/* A value in [lo, hi], mostly near the ends where the bugs are. */
static inline u32 fz_range(struct fz_in *in, u32 lo, u32 hi)
{
	u32 span = hi - lo;

	switch (fz_u8(in) & 7) {
	case 0:
		return lo;
	case 1:
		return hi;
	case 2:
		return lo + min(span, (u32)fz_u8(in));
	case 3:
		return hi - min(span, (u32)fz_u8(in));
	default:
		return span == ~0U ? fz_u32(in) : lo + fz_u32(in) % (span + 1);
	}
}

/* Up to 8 tunables changed from @base, each to a value in its range; a
 * set mpdt_params_invalid() refuses is left at @base.  Returns whether
 * the set changed.
 */
static inline bool fz_params(struct fz_in *in, const struct mpdt_params *base,
			     struct mpdt_params *p)
{
	u8 n = fz_u8(in) % 9, i;
	struct mpdt_params t = *base;

	for (i = 0; i < n; i++) {
		const struct mpdt_param_desc *d =
			&mpdt_param_descs[fz_u8(in) % mpdt_param_count];

		*mpdt_param_field(&t, d) = fz_range(in, d->min, d->max);
	}
	/* rx_window in range but not a power of two: round it down. */
	while (t.rx_window & (t.rx_window - 1))
		t.rx_window &= t.rx_window - 1;
	if (mpdt_params_invalid(&t)) {
		*p = *base;
		return false;
	}
	*p = t;
	return n;
}

#endif /* _MPDT_FUZZ_H */
