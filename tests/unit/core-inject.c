// SPDX-License-Identifier: GPL-2.0
/*
 * The validation's injected cost (core/inject.h): a clock spin lasts at least its nanoseconds
 * whatever the machine's speed (by construction: it spins until the clock has passed them, so
 * the bound is no timing assertion), nothing is spun for 0, and the flag is not a loop count.
 */
#include <stdlib.h>
#include <string.h>

#include "core/inject.h"
#include "core/tb.h"
#include "parse/scenario.h"
#include "tb_test.h"

static void test_clock_spin(void)
{
	uint64_t t0, t1;

	for (int i = 0; i < 20; i++) {
		t0 = tb_now_ns();
		tb_spin(TB_SPIN_CLOCK | 50000);
		t1 = tb_now_ns();
		CU_ASSERT(t1 - t0 >= 50000);
	}
	/* 0 ns: one look at the clock, not 2^63 iterations of the loop */
	t0 = tb_now_ns();
	tb_spin(TB_SPIN_CLOCK);
	CU_ASSERT(tb_now_ns() - t0 < 1000000000ull);
}

/* Through the shared page, as a workload's operation calls it. */
static void test_inject_point_clock(void)
{
	uint64_t t0;

	CU_ASSERT_EQUAL_FATAL(tb_inject_init(), 0);
	tb_inject->iters = TB_SPIN_CLOCK | 200000;
	t0 = tb_now_ns();
	tb_inject_point();
	CU_ASSERT(tb_now_ns() - t0 >= 200000);
	tb_inject->iters = 0;
}

/* The delay tracer's `spin` key: clock and loop are its values, anything else is an error
 * naming the file, the line and the key. */
static void test_delay_spin_key(void)
{
	static const char good[] = "[workload a]\ntype = getpid\n[tracer t]\ntype = delay\n"
				   "spin = clock\nns = 300ns\n[matrix]\nworkloads = a\n"
				   "tracers = none, t\n";
	static const char bad[] = "[workload a]\ntype = getpid\n[tracer t]\ntype = delay\n"
				  "spin = wall\n[matrix]\nworkloads = a\ntracers = none, t\n";
	struct tb_scenario *s = NULL;
	char *err;

	CU_ASSERT_EQUAL(tb_scenario_parse(good, "spin.ini", &s), 0);
	tb_scenario_free(s);
	s = NULL;
	tb_test_stderr_begin();
	CU_ASSERT_NOT_EQUAL(tb_scenario_parse(bad, "spin.ini", &s), 0);
	err = tb_test_stderr_end();
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(err, "spin.ini:5: [tracer t]: key 'spin': 'wall' is not one of"));
	free(err);
}

static CU_TestInfo tests[] = {
	{"a clock spin lasts at least its ns", test_clock_spin},
	{"tb_inject_point spins the clock through the shared page", test_inject_point_clock},
	{"the delay tracer's spin key", test_delay_spin_key},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-inject", NULL, NULL, tests);
