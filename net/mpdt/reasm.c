// SPDX-License-Identifier: GPL-2.0
/* Message assembly: the segment grid of wire-format.rst 4.1.  Pure core. */
#include "reasm.h"

static bool test_bit64(const u64 *words, u32 bit)
{
	return words[bit / 64] & (1ULL << (bit % 64));
}

static bool test_and_set(u64 *words, u32 bit)
{
	bool was = test_bit64(words, bit);

	words[bit / 64] |= 1ULL << (bit % 64);
	return was;
}

void mpdt_reasm_init(struct mpdt_reasm *ra, u32 id, u32 len, u64 *segs)
{
	memset(ra, 0, sizeof(*ra));
	ra->id = id;
	ra->len = len;
	ra->segs = segs;
}

/* The segment size, from the first packet that is not the message's
 * last: every such packet carries it, at least MPDT_MIN_SEG.  A last
 * packet that came earlier must sit on the grid it defines.
 */
static bool learn_seg(struct mpdt_reasm *ra, u32 len)
{
	if (len < MPDT_MIN_SEG)
		return false;
	if (ra->have_last &&
	    (ra->last_off % len || ra->len - ra->last_off > len))
		return false;
	ra->seg = len;
	if (ra->have_last)
		test_and_set(ra->segs, ra->last_off / len);
	return true;
}

int mpdt_reasm_claim(struct mpdt_reasm *ra, u32 off, u32 len)
{
	bool last = off + len == ra->len;

	if (!ra->seg && last) {
		/* Its grid is unknown: only its own position can be checked
		 * (a multiple of the segment, which is at least its length).
		 */
		if (ra->have_last)
			return ra->last_off == off ? -EEXIST : -EINVAL;
		if (off && len > off)
			return -EINVAL;
		ra->have_last = true;
		ra->last_off = off;
		return 0;
	}
	if (!ra->seg && !learn_seg(ra, len))
		return -EINVAL;
	if (off % ra->seg || len != min(ra->seg, ra->len - off))
		return -EINVAL;
	return test_and_set(ra->segs, off / ra->seg) ? -EEXIST : 0;
}

void mpdt_reasm_unclaim(struct mpdt_reasm *ra, u32 off)
{
	if (ra->seg)
		ra->segs[off / ra->seg / 64] &= ~(1ULL << (off / ra->seg % 64));
	else
		ra->have_last = false;
}

bool mpdt_reasm_has(const struct mpdt_reasm *ra, u32 off, u32 len)
{
	u32 seg;

	if (!len || off > ra->len || len > ra->len - off)
		return false;
	/* Before the grid is known only the last packet can be in. */
	if (!ra->seg)
		return ra->have_last && ra->last_off <= off;
	for (seg = off / ra->seg; seg <= (off + len - 1) / ra->seg; seg++)
		if (!test_bit64(ra->segs, seg))
			return false;
	return true;
}
