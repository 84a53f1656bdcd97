// SPDX-License-Identifier: GPL-2.0
/*
 * Message assembly (net/mpdt/reasm.c): the segment grid of
 * wire-format.rst 4.1, learnt from the first packet that is not the last,
 * and which byte ranges of a message have been claimed, by which the
 * receiver returns the reservation of pages held payloads completed.
 */
#include "unit.h"
#include "reasm.h"
#include "kselftest_harness.h"

#define SEG		1400
#define PAGE		4096

FIXTURE(ra)
{
	struct mpdt_reasm ra;
	u64 segs[8];
};

FIXTURE_SETUP(ra)
{
	memset(self->segs, 0, sizeof(self->segs));
	mpdt_reasm_init(&self->ra, 7, 3 * PAGE + 100, self->segs);
}

FIXTURE_TEARDOWN(ra)
{
}

static int claim(struct mpdt_reasm *ra, u32 seg)
{
	u32 off = seg * SEG;

	return mpdt_reasm_claim(ra, off, ra->len - off < SEG ?
					 ra->len - off : SEG);
}

TEST_F(ra, claims_on_the_grid_once)
{
	EXPECT_EQ(0, claim(&self->ra, 1));
	EXPECT_EQ(SEG, self->ra.seg);
	EXPECT_EQ(-EEXIST, claim(&self->ra, 1));
	EXPECT_EQ(-EINVAL, mpdt_reasm_claim(&self->ra, SEG + 1, SEG));
	EXPECT_EQ(-EINVAL, mpdt_reasm_claim(&self->ra, 2 * SEG, SEG - 1));
	/* The last segment is the rest of the message. */
	EXPECT_EQ(-EINVAL, mpdt_reasm_claim(&self->ra, 8 * SEG, SEG));
	EXPECT_EQ(0, claim(&self->ra, 8));
}

/* A last packet that came first is checked against the grid learnt later. */
TEST_F(ra, early_last_packet_joins_the_grid)
{
	EXPECT_EQ(0, claim(&self->ra, 8));
	EXPECT_EQ(0U, self->ra.seg);
	EXPECT_EQ(-EEXIST, claim(&self->ra, 8));
	EXPECT_EQ(0, claim(&self->ra, 0));
	EXPECT_EQ(-EEXIST, claim(&self->ra, 8));
	/* The grid kept the last segment's bit. */
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, 8 * SEG, self->ra.len - 8 * SEG));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, 7 * SEG, SEG));
}

TEST_F(ra, early_last_packet_off_the_grid_refuses_the_grid)
{
	EXPECT_EQ(0, mpdt_reasm_claim(&self->ra, 2 * PAGE, PAGE + 100));
	EXPECT_EQ(-EINVAL, claim(&self->ra, 0));
	EXPECT_EQ(0U, self->ra.seg);
}

/* Page 0 ([0, 4096)) lies in segments 0-2, page 1 in 2-5. */
TEST_F(ra, a_page_is_had_when_every_segment_over_it_is)
{
	EXPECT_EQ(0, claim(&self->ra, 0));
	EXPECT_EQ(0, claim(&self->ra, 1));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, 0, PAGE));
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, 0, 2 * SEG));
	EXPECT_EQ(0, claim(&self->ra, 2));
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, 0, PAGE));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, PAGE, PAGE));
	EXPECT_EQ(0, claim(&self->ra, 3));
	EXPECT_EQ(0, claim(&self->ra, 4));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, PAGE, PAGE));
	EXPECT_EQ(0, claim(&self->ra, 5));
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, PAGE, PAGE));
}

TEST_F(ra, an_unclaimed_segment_is_not_had)
{
	u32 i;

	for (i = 0; i <= 8; i++)
		EXPECT_EQ(0, claim(&self->ra, i));
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, 0, self->ra.len));
	mpdt_reasm_unclaim(&self->ra, 4 * SEG);
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, PAGE, PAGE));
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, 0, PAGE));
}

/* Before the grid is known only the last packet's bytes can be in. */
TEST_F(ra, before_the_grid_only_the_last_packet_is_had)
{
	u32 last = 8 * SEG;

	EXPECT_FALSE(mpdt_reasm_has(&self->ra, last, self->ra.len - last));
	EXPECT_EQ(0, claim(&self->ra, 8));
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, last, self->ra.len - last));
	EXPECT_TRUE(mpdt_reasm_has(&self->ra, 3 * PAGE, 100));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, 2 * PAGE, PAGE + 100));
	mpdt_reasm_unclaim(&self->ra, last);
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, 3 * PAGE, 100));
}

/* Ranges outside the message, or empty, are never had. */
TEST_F(ra, ranges_beyond_the_message_are_not_had)
{
	u32 i;

	for (i = 0; i <= 8; i++)
		EXPECT_EQ(0, claim(&self->ra, i));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, 0, 0));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, 0, self->ra.len + 1));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, self->ra.len, 1));
	EXPECT_FALSE(mpdt_reasm_has(&self->ra, 1, UINT32_MAX));
}

/* A message of one packet has no grid: its only packet is its last. */
TEST(one_packet_message_is_had_whole)
{
	struct mpdt_reasm ra;
	u64 segs[1] = {};

	mpdt_reasm_init(&ra, 1, 100, segs);
	EXPECT_FALSE(mpdt_reasm_has(&ra, 0, 100));
	EXPECT_EQ(0, mpdt_reasm_claim(&ra, 0, 100));
	EXPECT_TRUE(mpdt_reasm_has(&ra, 0, 100));
}

TEST_HARNESS_MAIN
