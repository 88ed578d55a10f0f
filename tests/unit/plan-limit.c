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
#include <string.h>

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

/*
 * The knob chain on a synthetic cell, a fake probe answering by the rate its setting offers:
 * `threads` threads each making ops of `calls` calls of 100 ns, after a fixed part of FIXED ns
 * (a partner's round trip, or nothing) and `work` ns of computation. Its buffer holds up to
 * `cap` events/s.
 */
struct cell {
	double fixed, cap;
	unsigned int probes;
	double seen[3][TB_LIMIT_MAX_PROBES + 2]; /* the values probed, by knob */
	size_t nseen[3];
};

static double offered(const double *at, size_t n, double fixed)
{
	double work = at[0], calls = n > 1 ? at[1] : 1, threads = n > 2 ? at[2] : 1;

	return threads * calls / ((fixed + 100 * calls + work) * 1e-9);
}

static const struct tb_plan_knob chain_knobs[] = {
	{"work", 65536, 0, 1e9, true},
	{"calls", 1, 1, 1e6, false},
	{"threads", 1, 1, 4, false},
};

/* The search as runner/limit.c drives it: probe each setting, record its rate and loss. */
static void drive(struct tb_plan_chain *c, struct cell *x)
{
	while (tb_plan_chain_next(c)) {
		double rate = offered(c->at, c->nknobs, x->fixed);
		size_t k = c->stage;

		CU_ASSERT_TRUE(c->at[k] >= c->knobs[k].lo && c->at[k] <= c->knobs[k].hi);
		if (x->nseen[k] < TB_LIMIT_MAX_PROBES + 2)
			x->seen[k][x->nseen[k]++] = c->at[k];
		x->probes++;
		tb_plan_chain_record(c, rate, rate > x->cap);
	}
	CU_ASSERT_TRUE(c->done);
	CU_ASSERT_TRUE(x->probes <= TB_LIMIT_MAX_PROBES);
}

/*
 * A fixed part of 2 us per op: calls = 1 at work = 0 offers 4.8e5 events/s, held by a buffer
 * that holds 3e6; more calls raise the rate toward 1e7. The chain halves work, finds its rate
 * flat near 0 and jumps there, then doubles calls until a loss and bisects: the limit lies on
 * calls, between 7 (2.59e6) and 10 (3.33e6) in integers where 8 (2.86e6) and 9 (3.1e6) are.
 */
static void test_chain_to_calls(void)
{
	struct cell x = {.fixed = 2000, .cap = 3e6};
	struct tb_plan_chain c;
	double held, lost;

	tb_plan_chain_init(&c, chain_knobs, 2, NAN, TB_LIMIT_RESOLUTION);
	drive(&c, &x);
	CU_ASSERT_TRUE(c.found);
	CU_ASSERT_EQUAL(c.stage, 1); /* ended on calls */
	CU_ASSERT_EQUAL(c.at[0], 0); /* work at its end */
	/* work was probed down to 0, then calls moved up from 1 */
	CU_ASSERT_EQUAL(x.seen[0][0], 65536);
	CU_ASSERT_EQUAL(x.seen[0][x.nseen[0] - 1], 0);
	CU_ASSERT_EQUAL(x.seen[1][0], 2);
	/* the bracket: held at b.no, lost at b.yes, on calls, the limit between them */
	held = offered((double[]){0, c.b.no}, 2, x.fixed);
	lost = offered((double[]){0, c.b.yes}, 2, x.fixed);
	CU_ASSERT_TRUE(held <= x.cap && lost > x.cap);
	CU_ASSERT_TRUE(c.b.yes - c.b.no >= 1 && lost <= held * 1.10 + 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "work = 0 held, the end of its range"));
	/* work flat near 0: its end probed at once, not halved down to 1 (65536 .. 1, 0: 18) */
	CU_ASSERT_TRUE(x.nseen[0] < 12);
	CU_ASSERT_TRUE(x.seen[0][x.nseen[0] - 2] > 1);
}

/*
 * No fixed part: calls no longer raise the rate (1e7 at any calls), so the stage is spent after
 * one step and threads take over, on CPUs of their own (hi = 4): 2 threads hold 2e7 under a
 * cap of 2.5e7, 3 lose.
 */
static void test_chain_to_threads(void)
{
	struct cell x = {.fixed = 0, .cap = 2.5e7};
	struct tb_plan_chain c;

	tb_plan_chain_init(&c, chain_knobs, 3, NAN, TB_LIMIT_RESOLUTION);
	drive(&c, &x);
	CU_ASSERT_TRUE(c.found);
	CU_ASSERT_EQUAL(c.stage, 2);
	CU_ASSERT_EQUAL(x.nseen[1], 1); /* calls = 2 only: within 10% of calls = 1 */
	CU_ASSERT_EQUAL(c.at[1], 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "calls no longer raises the rate"));
	CU_ASSERT_EQUAL(c.b.no, 2);
	CU_ASSERT_EQUAL(c.b.yes, 3);
	/* without threads (no CPU for them) the chain ends held, not found, saying why */
	memset(&x, 0, sizeof(x));
	x.cap = 2.5e7;
	tb_plan_chain_init(&c, chain_knobs, 2, NAN, TB_LIMIT_RESOLUTION);
	drive(&c, &x);
	CU_ASSERT_FALSE(c.found);
	CU_ASSERT_FALSE(tb_plan_bisect_bracketed(&c.b));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.why, "calls no longer raises the rate"));
}

/* A loss while work is still moving: the chain never reaches calls (as before it existed). */
static void test_chain_stays_on_work(void)
{
	struct cell x = {.fixed = 0, .cap = 2e6};
	struct tb_plan_chain c;

	tb_plan_chain_init(&c,
			   (struct tb_plan_knob[]){{"work", 65536, 0, 1e9, true},
						   {"calls", 10, 1, 1e6, false}},
			   2, NAN, TB_LIMIT_RESOLUTION);
	drive(&c, &x);
	CU_ASSERT_TRUE(c.found);
	CU_ASSERT_EQUAL(c.stage, 0);
	CU_ASSERT_EQUAL(x.nseen[1], 0);
	CU_ASSERT_EQUAL(c.at[1], 10);
	CU_ASSERT_EQUAL(c.why[0], '\0');
}

/*
 * A named rate beyond what work reaches (work = 0 offers 4.8e5 with a fixed part of 2 us): the
 * chain goes on to calls for the setting that offers at least 1e6 events/s.
 */
static void test_chain_target(void)
{
	struct cell x = {.fixed = 2000, .cap = INFINITY};
	struct tb_plan_chain c;
	double at[TB_LIMIT_MAX_KNOBS];

	tb_plan_chain_init(&c, chain_knobs, 2, 1e6, TB_LIMIT_RESOLUTION);
	drive(&c, &x);
	CU_ASSERT_TRUE_FATAL(tb_plan_chain_reached(&c, at));
	CU_ASSERT_EQUAL(at[0], 0);
	CU_ASSERT_TRUE(at[1] > 1);
	CU_ASSERT_TRUE(offered(at, 2, x.fixed) >= 1e6);
	/* the least setting that did: one call fewer offers less */
	CU_ASSERT_TRUE(offered((double[]){0, at[1] - 1}, 2, x.fixed) < 1e6 ||
		       offered(at, 2, x.fixed) <= 1.1e6);
	/* a rate no knob reaches: none */
	memset(&x, 0, sizeof(x));
	x.fixed = 2000;
	x.cap = INFINITY;
	tb_plan_chain_init(&c, chain_knobs, 2, 1e8, TB_LIMIT_RESOLUTION);
	drive(&c, &x);
	CU_ASSERT_FALSE(tb_plan_chain_reached(&c, at));
}

/* A workload with calls but no work: the chain is calls alone; a loss at its start halves it. */
static void test_chain_calls_only(void)
{
	struct cell x = {.fixed = 2000, .cap = 1e6};
	struct tb_plan_chain c;

	tb_plan_chain_init(&c, (struct tb_plan_knob[]){{"calls", 64, 1, 1e6, false}}, 1, NAN,
			   TB_LIMIT_RESOLUTION);
	/* offered() reads at[0] as work: put calls there through a cell of its own */
	while (tb_plan_chain_next(&c)) {
		double rate = c.at[0] / ((x.fixed + 100 * c.at[0]) * 1e-9);

		tb_plan_chain_record(&c, rate, rate > x.cap);
	}
	CU_ASSERT_TRUE(c.found);
	/* 1e6 events/s: calls / (2000 + 100 calls) ns, held up to 2, lost from 3 */
	CU_ASSERT_EQUAL(c.b.no, 2);
	CU_ASSERT_EQUAL(c.b.yes, 3);
}

static CU_TestInfo tests[] = {
	{"a monotone loss is bisected to the resolution", test_monotone},
	{"without the resolution, neighbours end it", test_neighbours},
	{"a start past the change doubles the other way", test_start_past},
	{"no change: down to the bound, not bracketed", test_no_change},
	{"buffers in powers of two", test_pow2},
	{"a predicate that is not monotone ends sanely", test_not_monotone},
	{"the chain: work held at 0, the limit on calls", test_chain_to_calls},
	{"the chain: calls spent, threads find it", test_chain_to_threads},
	{"the chain: a loss on work stays there", test_chain_stays_on_work},
	{"the chain: a named rate reached with calls", test_chain_target},
	{"the chain: calls alone", test_chain_calls_only},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("plan-limit", NULL, NULL, tests);
