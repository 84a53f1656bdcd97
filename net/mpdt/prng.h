/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Seeded randomness for the load balancing policies.  Every connection
 * gets a random 64-bit seed; a policy draws all its choices from a
 * generator seeded with it, so its behaviour is a function of the seed:
 * reproducible in the unit tests, different from connection to
 * connection.  Not cryptographic, and it need not be.  Pure core.
 */
#ifndef _MPDT_PRNG_H
#define _MPDT_PRNG_H

#include "core.h"

/* splitmix64 (Steele, Lea, Flood 2014): one add and a mix per draw. */
struct mpdt_prng {
	u64 state;
};

static inline u64 mpdt_mix64(u64 z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void mpdt_prng_seed(struct mpdt_prng *r, u64 seed)
{
	r->state = seed;
}

static inline u64 mpdt_prng_next(struct mpdt_prng *r)
{
	r->state += 0x9e3779b97f4a7c15ULL;
	return mpdt_mix64(r->state);
}

/* In [0, @n) for @n > 0, by multiply-shift: no division, bias < n/2^32. */
static inline u32 mpdt_prng_below(struct mpdt_prng *r, u32 n)
{
	return (u32)(((mpdt_prng_next(r) >> 32) * n) >> 32);
}

/* Fisher-Yates: a uniformly random order of @a[0 .. @n - 1], in place. */
static inline void mpdt_prng_shuffle(struct mpdt_prng *r, u16 *a, u32 n)
{
	u32 i, j;
	u16 t;

	for (i = n; i > 1; i--) {
		j = mpdt_prng_below(r, i);
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* Bits needed to write the values 0 .. @n - 1 (0 for @n <= 1). */
static inline u32 mpdt_bits_for(u32 n)
{
	u32 b = 0;

	while (b < 32 && (1ULL << b) < n)
		b++;
	return b;
}

/* A keyed pseudo-random permutation of 0 .. n - 1 in constant memory, for
 * entropy ranges too large to keep shuffled in an array (up to 65535
 * EVs).  A four-round Feistel network permutes the smallest domain of
 * 2^(2h) values that holds n; cycle walking (apply it again until the
 * value is below n) restricts that bijection to 0 .. n - 1.  The domain
 * is below 4n, so a lookup takes fewer than four walks on average.
 */
struct mpdt_perm {
	u64 key;
	u32 n;
	u32 half_bits;
};

static inline void mpdt_perm_init(struct mpdt_perm *pm, u32 n, u64 key)
{
	pm->key = key;
	/* An empty range would make the cycle walk below endless. */
	pm->n = max(1U, n);
	pm->half_bits = max(1U, DIV_ROUND_UP(mpdt_bits_for(n), 2U));
}

static inline u32 mpdt_perm_feistel(const struct mpdt_perm *pm, u32 x)
{
	u32 mask = (1U << pm->half_bits) - 1;
	u32 left = x >> pm->half_bits, right = x & mask;
	u32 round, t;

	for (round = 0; round < 4; round++) {
		t = right;
		right = (left ^ (u32)mpdt_mix64(pm->key + round + ((u64)right << 8)))
			& mask;
		left = t;
	}
	return (left << pm->half_bits) | right;
}

/* The value at position @i (< n) of the permutation. */
static inline u32 mpdt_perm_at(const struct mpdt_perm *pm, u32 i)
{
	do {
		i = mpdt_perm_feistel(pm, i);
	} while (i >= pm->n);
	return i;
}

#endif /* _MPDT_PRNG_H */
