// SPDX-License-Identifier: GPL-2.0
/* Scenario parsing: a valid file, and every kind of error with its line number. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan/plan.h"
#include "scenario/scenario.h"
#include "tb_test.h"

static void test_good(void)
{
	struct tb_scenario *s = NULL;
	char path[512];
	int wi, ti;

	snprintf(path, sizeof(path), "%s/scenarios/good.ini", tb_test_data_dir());
	CU_ASSERT_EQUAL_FATAL(tb_scenario_load(path, &s), 0);
	CU_ASSERT_STRING_EQUAL(s->name, "parser-good");
	/* A line longer than libinih's 200 bytes keeps its whole value. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->description);
	CU_ASSERT_EQUAL(strlen(s->description), 12 * strlen("a long description; ") + 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(s->description, "; end"));
	CU_ASSERT_EQUAL(s->rounds, 7);
	CU_ASSERT_EQUAL(s->warmup, 2);
	CU_ASSERT_EQUAL(s->duration_ns, 250000000ull);
	CU_ASSERT_DOUBLE_EQUAL(s->precision, 0.02, 1e-12);
	CU_ASSERT_TRUE(s->seed_set);
	CU_ASSERT_EQUAL(s->seed, 42);
	CU_ASSERT_EQUAL(s->nworkloads, 2);
	CU_ASSERT_EQUAL(s->ntracers, 2);
	wi = tb_scenario_workload(s, "gp");
	CU_ASSERT_EQUAL(wi, 0);
	CU_ASSERT_EQUAL(s->workloads[wi].threads, 2);
	CU_ASSERT_EQUAL(s->workloads[wi].duration_ns, 250000000ull);
	CU_ASSERT_STRING_EQUAL(s->workloads[wi].ops->name, "getpid");
	wi = tb_scenario_workload(s, "nullw");
	CU_ASSERT_EQUAL(s->workloads[wi].duration_ns, 100000000ull);
	CU_ASSERT_EQUAL(s->workloads[wi].threads, 1);
	ti = tb_scenario_tracer(s, "nothing-here");
	CU_ASSERT_EQUAL(ti, 1);
	CU_ASSERT_EQUAL(s->tracers[ti].settle_ns, 5000000ull);
	CU_ASSERT_EQUAL(s->tracers[0].settle_ns, 20000000ull); /* the [global] default */
	/* The matrix: both workloads, the baseline first and only once. */
	CU_ASSERT_EQUAL(s->nmx_workloads, 2);
	CU_ASSERT_EQUAL(s->nmx_tracers, 2);
	CU_ASSERT_EQUAL(s->mx_tracers[0], 0);
	CU_ASSERT_EQUAL(s->mx_tracers[1], 1);
	CU_ASSERT_EQUAL(s->ngate, 2);
	CU_ASSERT_STRING_EQUAL(s->gate_keys[0], "max-overhead");
	CU_ASSERT_PTR_NOT_NULL(strstr(s->text, "parser-good"));
	tb_scenario_free(s);
}

/* Every bad fixture fails with "file:LINE:" and a message naming the problem. */
static void test_bad(void)
{
	static const struct {
		const char *file;
		int line;
		const char *needle;
	} cases[] = {
		{"unknown-section.ini", 8, "unknown section [bogus]"},
		{"unknown-key.ini", 3, "unknown key 'frobnicate'"},
		{"bad-value.ini", 2, "repetitions"},
		{"duplicate-name.ini", 3, "duplicate section [workload a]"},
		{"undefined-workload.ini", 4, "workload 'b' is not defined"},
		{"undefined-tracer.ini", 5, "tracer 'ghost' is not defined"},
		{"unknown-type.ini", 2, "unknown workload type 'warp-drive'"},
		{"type-not-first.ini", 2, "'type' must be the first key"},
		{"no-matrix.ini", 2, "no [matrix]"},
		{"huge-duration.ini", 2, "out of range"},
		{"duplicate-key.ini", 3, "duplicate key 'repetitions'"},
		{"binary-junk.ini", 5, "binary data"},
		{"syntax.ini", 1, "syntax error"},
		{"negative-threads.ini", 3, "threads"},
		{"bad-gate.ini", 6, "max-overhead"},
		{"redefine-none.ini", 6, "built in"},
		{"bad-section-name.ini", 1, "one name"},
		{"long-line.ini", 6, "line longer than"},
		{"exclude-nothing.ini", 8, "matches no traced cell"},
		{"exclude-shape.ini", 8, "is not WORKLOAD/TRACER"},
		{"duration-no-unit.ini", 2, "duration '500' has no unit"},
	};
	char path[512], expect[600], *out = NULL;
	size_t i, len;

	for (i = 0; i < TB_ARRAY_SIZE(cases); i++) {
		struct tb_scenario *s = NULL;
		FILE *mem;
		int saved, ret;

		snprintf(path, sizeof(path), "%s/bad/%s", tb_test_data_dir(), cases[i].file);
		/* Capture stderr to check the message. */
		fflush(stderr);
		saved = dup(2);
		mem = tmpfile();
		CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
		dup2(fileno(mem), 2);
		ret = tb_scenario_load(path, &s);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		len = (size_t)ftell(mem);
		rewind(mem);
		out = calloc(1, len + 1);
		if (fread(out, 1, len, mem) != len)
			out[0] = '\0';
		fclose(mem);
		snprintf(expect, sizeof(expect), "%s:%d: ", path, cases[i].line);
		if (ret != -EINVAL || !strstr(out, expect) || !strstr(out, cases[i].needle))
			printf("\n    %s: ret %d, wanted line %d and '%s', got: %s", cases[i].file,
			       ret, cases[i].line, cases[i].needle, out);
		CU_ASSERT_EQUAL(ret, -EINVAL);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].needle));
		free(out);
	}
}

static void test_missing_file(void)
{
	struct tb_scenario *s = NULL;

	CU_ASSERT_EQUAL(tb_scenario_load("/nonexistent/x.ini", &s), -ENOENT);
	CU_ASSERT_PTR_NULL(s);
}

/* Every shipped scenario parses. */
static void test_shipped(void)
{
	static const char *const files[] = {"quick",	  "syscalls",	       "sched",
					    "io",	  "production-agents", "rate-sweep",
					    "probe-types"};
	char path[512];
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(files); i++) {
		struct tb_scenario *s = NULL;

		snprintf(path, sizeof(path), "%s/../../scenarios/%s.ini", tb_test_data_dir(),
			 files[i]);
		CU_ASSERT_EQUAL(tb_scenario_load(path, &s), 0);
		if (s)
			CU_ASSERT_TRUE(s->nmx_workloads > 0);
		tb_scenario_free(s);
	}
}

/*
 * [matrix] exclude leaves out exactly the traced cells its WORKLOAD/TRACER globs match, never a
 * baseline; [global] skip-unsupported is read.
 */
static void test_exclude(void)
{
	static const char text[] = "[global]\nskip-unsupported = true\n"
				   "[workload k-a]\ntype = getpid\n[workload u-a]\ntype = null\n"
				   "[tracer k-t]\ntype = delay\n[tracer u-t]\ntype = delay\n"
				   "[matrix]\nworkloads = k-a, u-a\ntracers = k-t, u-t\n"
				   "exclude = k-*/[!k]*, u-a/k-t\n";
	static const char *const want[] = {"k-a/none", "k-a/k-t", "u-a/none", "u-a/u-t"};
	struct tb_plan_cell *cells = NULL;
	struct tb_scenario *s = NULL;
	struct tb_result *r = tb_result_new();
	char path[512];
	size_t n = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/exclude.ini", tb_test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(tb_scenario_load(path, &s), 0);
	CU_ASSERT_TRUE(s->skip_unsupported);
	CU_ASSERT_EQUAL(s->mx_exclude.n, 2);
	CU_ASSERT_EQUAL_FATAL(tb_plan_expand(s, r, &cells, &n), 0);
	CU_ASSERT_EQUAL(n, TB_ARRAY_SIZE(want));
	for (i = 0; i < n && i < TB_ARRAY_SIZE(want); i++)
		CU_ASSERT_STRING_EQUAL(r->cells[cells[i].cell].id, want[i]);
	free(cells);
	tb_result_free(r);
	tb_scenario_free(s);
}

static CU_TestInfo tests[] = {
	{"valid file", test_good},
	{"errors with line numbers", test_bad},
	{"matrix exclude and skip-unsupported", test_exclude},
	{"missing file", test_missing_file},
	{"shipped scenarios parse", test_shipped},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("scenario", NULL, NULL, tests);
