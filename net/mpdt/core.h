/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and helpers for the pure core: the algorithm, wire and SACK files
 * that compile unchanged in the module and in the userspace unit tests.
 * Nothing here may call into the kernel.
 */
#ifndef _MPDT_CORE_H
#define _MPDT_CORE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/list.h>
#include <linux/errno.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

#define min(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); \
			   _a < _b ? _a : _b; })
#define max(a, b)	({ typeof(a) _a = (a); typeof(b) _b = (b); \
			   _a > _b ? _a : _b; })
#define min_t(type, a, b)	min((type)(a), (type)(b))
#define max_t(type, a, b)	max((type)(a), (type)(b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)
#define min3(a, b, c)	min(min(a, b), c)
#define DIV_ROUND_UP(n, d)	({ typeof(d) _d = (d); ((n) + _d - 1) / _d; })
#define BIT_ULL(n)	(1ULL << (n))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define U32_MAX		(~0U)
#define U64_MAX		(~0ULL)

static inline u64 div64_u64(u64 n, u64 d)
{
	return n / d;
}

static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 d)
{
	return (__uint128_t)a * b / d;
}

/* The part of <linux/list.h> the engine uses, for userspace builds. */
struct list_head {
	struct list_head *next, *prev;
};

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline bool list_is_last(const struct list_head *e,
				const struct list_head *h)
{
	return e->next == h;
}

static inline void list_add_tail(struct list_head *e, struct list_head *h)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static inline void list_del(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = NULL;
	e->prev = NULL;
}

static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	list_add_tail(e, h);
}
#endif

#define MPDT_NSEC_PER_USEC	1000ULL
#define MPDT_NSEC_PER_SEC	(1000ULL * 1000 * 1000)

/* A divisor that comes from the parameters or from a peer goes through
 * mpdt_div() or mpdt_mul_div(), which take 0 for 1.  mpdt_params_invalid()
 * refuses the parameters that would make one zero; this is the second
 * line, so that a value it misses, or a parameter added later, costs
 * accuracy rather than a division trap in softirq.
 */
static inline u64 mpdt_div(u64 n, u64 d)
{
	return div64_u64(n, max(d, 1ULL));
}

/* floor(a * b / d) without overflowing the product, U64_MAX when the
 * quotient does not fit, for the congestion controls' fixed-point
 * arithmetic (no floating point in the kernel; 32-bit builds cannot divide
 * u64 with '/').  Split as (q * d + r) * b / d so the 128-bit step only
 * sees r < d, whose quotient always fits: x86's divq traps otherwise.
 * A zero @d counts as 1, as in mpdt_div().
 */
static inline u64 mpdt_mul_div(u64 a, u64 b, u64 d)
{
	u64 q, r, lo;

	d = max(d, 1ULL);
	q = div64_u64(a, d);
	r = a - q * d;

	if (q && b > div64_u64(U64_MAX, q))
		return U64_MAX;
	lo = r ? mul_u64_u64_div_u64(r, b, d) : 0;
	return q * b > U64_MAX - lo ? U64_MAX : q * b + lo;
}

/* a + b, U64_MAX if the sum does not fit: an increase that saturated
 * mpdt_mul_div() must not wrap a window round to a small one.
 */
static inline u64 mpdt_add_sat(u64 a, u64 b)
{
	return b > U64_MAX - a ? U64_MAX : a + b;
}

/* The earlier of two deadlines, where 0 means none. */
static inline u64 mpdt_earliest(u64 a, u64 b)
{
	if (!a)
		return b;
	return b && b < a ? b : a;
}

/* Serial-number arithmetic on 32-bit PSNs (RFC 1982). */
static inline bool psn_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

static inline bool psn_after(u32 a, u32 b)
{
	return psn_before(b, a);
}

#endif /* _MPDT_CORE_H */
