// SPDX-License-Identifier: GPL-2.0
/*
 * The bisection of `run --find-limit` (plan/limit.c) on synthetic predicates, fixed and with
 * no timing: a monotone loss over the work knob is bracketed by doubling and bisected until
 * the two ends' rates are within the resolution; a buffer search in powers of two ends on
 * neighbours; a start already past the change doubles the other way; a search that never
 * changes stops at its bound; and a predicate that is not monotone still ends, within its
 * probes, on a true end above a false one, one of its real changes.
 */
#include <math.h>

#include "plan/limit.h"
#include "tb_test.h"

/* The synthetic workload: 10 events per op of 100 ns plus 1 ns per unit of work. */
static double rate(double work)
{
	return 10 / ((100 + work) * 1e-9);
}

/* Its buffer holds up to 2e6 events/s: a loss from work 4900 down. */
#define LIMIT 2e6
static bool held(double work)
{
	return rate(work) <= LIMIT;
}

/* The search as runner/limit.c drives it, over pred; returns the probes made. */
static unsigned int run(struct tb_plan_bisect *b, bool (*pred)(double), bool stop_fine)
{
	double v;

	while (tb_plan_bisect_next(b, &v)) {
		CU_ASSERT_TRUE(v >= b->lo && v <= b->hi);
		tb_plan_bisect_record(b, v, pred(v));
		if (stop_fine && tb_plan_bisect_fine(b, rate(b->yes), rate(b->no), 0.10))
			b->done = true;
	}
	return b->probes;
}

static void test_monotone(void)
{
	struct tb_plan_bisect b;
	unsigned int n;

	tb_plan_bisect_init(&b, 65536, 0, 1e9, false);
	n = run(&b, held, true);
	CU_ASSERT_TRUE(tb_plan_bisect_bracketed(&b));
	CU_ASSERT_TRUE(held(b.yes));
	CU_ASSERT_FALSE(held(b.no));
	/* the two ends' rates within the resolution, the limit between them */
	CU_ASSERT_TRUE(rate(b.no) <= rate(b.yes) * 1.10);
	CU_ASSERT_TRUE(rate(b.yes) <= LIMIT && rate(b.no) > LIMIT);
	/* a doubling bracket (65536 .. 4096) and a few halvings, far below the cap */
	CU_ASSERT_TRUE(n >= 5 && n <= 10);
}

/* Without the resolution's stop the integers' neighbours end it: the exact change. */
static void test_neighbours(void)
{
	struct tb_plan_bisect b;

	tb_plan_bisect_init(&b, 65536, 0, 1e9, false);
	run(&b, held, false);
	CU_ASSERT_EQUAL(b.yes, 4900);
	CU_ASSERT_EQUAL(b.no, 4899);
	CU_ASSERT_TRUE(b.probes < TB_LIMIT_MAX_PROBES);
}

/* Started below the change (a loss at once): doubles up to the first value that holds. */
static void test_start_past(void)
{
	struct tb_plan_bisect b;
	double v;

	tb_plan_bisect_init(&b, 1000, 0, 1e9, false);
	CU_ASSERT_TRUE(tb_plan_bisect_next(&b, &v));
	CU_ASSERT_EQUAL(v, 1000);
	tb_plan_bisect_record(&b, v, held(v));
	CU_ASSERT_TRUE(tb_plan_bisect_next(&b, &v));
	CU_ASSERT_EQUAL(v, 2000);
	run(&b, held, true);
	CU_ASSERT_TRUE(held(b.yes) && !held(b.no));
}

static bool never(double v)
{
	(void)v;
	return true;
}

/* Never a loss: halved down to 0 (the workload's highest rate), then over, not bracketed. */
static void test_no_change(void)
{
	struct tb_plan_bisect b;

	tb_plan_bisect_init(&b, 64, 0, 1e9, false);
	CU_ASSERT_EQUAL(run(&b, never, true), 8); /* 64, 32, ..., 1, 0 */
	CU_ASSERT_FALSE(tb_plan_bisect_bracketed(&b));
	CU_ASSERT_EQUAL(b.yes, 0);
}

/* A buffer of 96K events holds; in powers of two the answer is 128K, 64K lost. */
static bool buffer_holds(double bytes)
{
	return bytes >= 96 * 1024;
}

static void test_pow2(void)
{
	struct tb_plan_bisect b;

	tb_plan_bisect_init(&b, 4096, 4096, 1 << 30, true);
	run(&b, buffer_holds, false);
	CU_ASSERT_EQUAL(b.yes, 128 * 1024);
	CU_ASSERT_EQUAL(b.no, 64 * 1024);
	/* 4K, 8K, ..., 128K: six doublings, and the neighbours end it */
	CU_ASSERT_EQUAL(b.probes, 6);
	/* from above: halves down to the loss */
	tb_plan_bisect_init(&b, 1 << 20, 4096, 1 << 30, true);
	run(&b, buffer_holds, false);
	CU_ASSERT_EQUAL(b.yes, 128 * 1024);
	CU_ASSERT_EQUAL(b.no, 64 * 1024);
}

/* Holds at [100, 200] and from 1000 on: not monotone. */
static bool bumpy(double v)
{
	return (v >= 100 && v <= 200) || v >= 1000;
}

static void test_not_monotone(void)
{
	struct tb_plan_bisect b;

	tb_plan_bisect_init(&b, 65536, 0, 1e9, false);
	run(&b, bumpy, false);
	CU_ASSERT_TRUE(b.probes <= TB_LIMIT_MAX_PROBES);
	CU_ASSERT_TRUE(tb_plan_bisect_bracketed(&b));
	/* the bracket is one of the predicate's real changes, in neighbours */
	CU_ASSERT_TRUE(bumpy(b.yes) && !bumpy(b.no));
	CU_ASSERT_EQUAL(b.yes - b.no, 1);
	/* and a predicate that flips at every value still ends within its probes */
	tb_plan_bisect_init(&b, 65536, 0, 1e9, false);
	for (double v; tb_plan_bisect_next(&b, &v);)
		tb_plan_bisect_record(&b, v, (long long)v % 2);
	CU_ASSERT_TRUE(b.done && b.probes <= TB_LIMIT_MAX_PROBES);
}

static CU_TestInfo tests[] = {
	{"a monotone loss is bisected to the resolution", test_monotone},
	{"without the resolution, neighbours end it", test_neighbours},
	{"a start past the change doubles the other way", test_start_past},
	{"no change: down to the bound, not bracketed", test_no_change},
	{"buffers in powers of two", test_pow2},
	{"a predicate that is not monotone ends sanely", test_not_monotone},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("plan-limit", NULL, NULL, tests);
