/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Message assembly (wire-format.rst 4.1): which bytes of a message being
 * received have been written.  A message's packets tile it: every one but
 * the last carries @seg bytes at a multiple of @seg, so one bit per
 * segment counts each byte once, and a message completes only when every
 * byte was written.  @seg is learnt from the first packet that is not the
 * last.  Pure core: the glue owns the bitmap and the bytes.
 */
#ifndef _MPDT_REASM_H
#define _MPDT_REASM_H

#include "core.h"

/* The smallest segment a message may be cut into, the least "payload"
 * allows: it bounds the segment bitmap.
 */
#define MPDT_MIN_SEG		64

struct mpdt_reasm {
	u32 id;
	u32 len;
	u32 rcvd;			/* bytes written */
	u32 seg;			/* segment size; 0 = not known yet */
	u32 last_off;			/* offset of the last segment ... */
	bool have_last;			/* ... if it arrived before @seg */
	u64 *segs;			/* mpdt_reasm_words(len) words */
	u64 started_ns;			/* admitted (the engine's clock) */
};

/* u64 words of segment bitmap a message of @len bytes needs. */
static inline u32 mpdt_reasm_words(u32 len)
{
	return DIV_ROUND_UP(DIV_ROUND_UP(len, MPDT_MIN_SEG), 64);
}

void mpdt_reasm_init(struct mpdt_reasm *ra, u32 id, u32 len, u64 *segs);
/* Claim [off, off + len) for one new PSN: 0, -EEXIST (another PSN brought
 * these bytes) or -EINVAL (off the message's grid).
 */
int mpdt_reasm_claim(struct mpdt_reasm *ra, u32 off, u32 len);
/* Undo a claim whose bytes could not be stored. */
void mpdt_reasm_unclaim(struct mpdt_reasm *ra, u32 off);

/* Whether every byte of [off, off + len), within the message, was claimed;
 * never for an empty range.
 */
bool mpdt_reasm_has(const struct mpdt_reasm *ra, u32 off, u32 len);

static inline bool mpdt_reasm_complete(const struct mpdt_reasm *ra)
{
	return ra->rcvd == ra->len;
}

#endif /* _MPDT_REASM_H */
