// SPDX-License-Identifier: GPL-2.0
/*
 * gate --history --max-slope-increase (cli/gate-run.c, stats/gate.c, history/analysis.c): a
 * sweep's slope against the sweep_slope series of a real SQLite history the history code
 * makes itself, with fixed numbers: a slope that rose fails, one like the history's passes,
 * too little history, a refused line and a sweep new to the history are skipped and said; the
 * benchmark JSON has one entry per accepted slope.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/gate-run.h"
#include "core/tb.h"
#include "history/analysis.h"
#include "history/store.h"
#include "model/result.h"
#include "render/gate-formats.h"
#include "stats/gate.h"
#include "stats/stats.h"
#include "tb_test.h"

#define SWEEP_NAME "tracer t: probes against w: slope per probe"

/*
 * Run i of scenario "slopes": a baseline and a tracer sweep t over probes = 1..16 on w, ns/op
 * 200 + slope x in every round, times a jitter the same for every cell of a round, so that
 * the line is exact: its slope is slope (0: a flat line, refused).
 */
static struct tb_result *run_slope(int i, double slope)
{
	static const double xs[] = {1, 2, 4, 8, 16};
	struct tb_result *r = tb_result_new();
	char ts[40];

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(ts, sizeof(ts), "2026-11-01T00:%02d:00Z", i);
	r->scenario_name = strdup("slopes");
	r->scenario_text =
		strdup("[tracer t]\ntype = ftrace-events\nsweep = probes: 1, 2, 4, 8, 16\n");
	r->started = strdup(ts);
	r->resamples = 200;
	r->seed = 100 + (uint64_t)i;
	for (size_t k = 0; k <= TB_ARRAY_SIZE(xs); k++) {
		struct tb_cell *c = tb_result_add_cell(r);
		bool base = k == 0;
		char id[64], v[16];

		snprintf(v, sizeof(v), "%g", base ? 0 : xs[k - 1]);
		snprintf(id, sizeof(id), base ? "w/none" : "w/t[probes=%s]", v);
		c->id = strdup(id);
		c->workload = strdup("w");
		c->tracer = strdup(id + 2);
		c->tracer_type = strdup(base ? "none" : "ftrace-events");
		c->baseline = base;
		c->ops_per_sample = 1000;
		c->events_recorded = base ? -1 : 10000;
		c->events_lost = base ? -1 : 0;
		if (!base)
			c->tsweep =
				(struct tb_cell_sweep){true,	  strdup("t"),	   strdup("probes"),
						       strdup(v), strdup("probe"), xs[k - 1]};
		for (int n = 0; n < 10; n++) {
			struct tb_sample *s = tb_cell_add_sample(c);

			s->round = n;
			s->ns_per_op =
				(200 + (base ? 0 : slope * xs[k - 1])) * (1 + 0.002 * (n % 3 - 1));
		}
	}
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	CU_ASSERT_EQUAL_FATAL(r->nsweeps, 1);
	return r;
}

/* A fresh history at a new path with one run per slope. */
static const char *history_of(const double *slopes, int n)
{
	static char path[512];
	struct tb_history_added info;
	struct tb_history *h;

	snprintf(path, sizeof(path), "%s/history.db", tb_test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tb_history_open(path, TB_HISTORY_WRITE, &h), 0);
	for (int i = 0; i < n; i++) {
		struct tb_result *r = run_slope(i, slopes[i]);

		CU_ASSERT_EQUAL(tb_history_add_result(h, r, NULL, NULL, "test", &info), 0);
		tb_result_free(r);
	}
	tb_history_close(h);
	return path;
}

/* The gate of r against db as `gate --history` evaluates it, into g (tb_gate_release it). */
static void evaluate(const char *db, struct tb_result *r, double limit, struct tb_gate *g,
		     struct tb_gate_ref **refs)
{
	struct tb_detect_opts det;
	struct tb_gate_opts o;
	struct tb_history *h;
	json_t *doc = tb_result_to_json(r);

	tb_gate_opts_init(&o);
	o.name = "r.json";
	o.max_overhead = o.max_regression = INFINITY; /* the cells are not what is tested */
	o.max_slope_rise = limit;
	tb_detect_opts_init(&det);
	CU_ASSERT_EQUAL_FATAL(tb_history_open(db, 0, &h), 0);
	CU_ASSERT_EQUAL_FATAL(tb_history_gate_refs(h, r, doc, false, &det, 0.01, refs), 0);
	o.history = *refs;
	o.history_name = "h.db";
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(g, r, NULL, &o), 0);
	tb_history_close(h);
	json_decref(doc);
}

/* What tb_cli_gate_history prints for r against db with limit, and its exit code. */
static int gate_text(const char *db, struct tb_result *r, const char *limit, char **text,
		     const char *junit, const char *bench)
{
	struct tb_gate_opts o;
	size_t len;
	FILE *f = open_memstream(text, &len);
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	tb_gate_opts_init(&o);
	o.name = "r.json";
	o.max_overhead = o.max_regression = INFINITY;
	o.junit = junit;
	o.benchmark_json = bench;
	if (limit)
		CU_ASSERT_EQUAL_FATAL(tb_parse_threshold(limit, &o.max_slope_rise), 0);
	ret = tb_cli_gate_history(r, NULL, db, false, &o, f);
	fclose(f);
	return ret;
}

static const double history5[] = {10, 10.2, 9.8, 10.1, 9.9};

/*
 * The history's slopes 10, 10.2, 9.8, 10.1 and 9.9 ns per probe (mean 10, sd 0.158): 15 is
 * +50% with a 99% prediction interval of about +-8.0% (t 4.60 x 0.158 x sqrt(1.2)), so it
 * fails at 10%; 10.05 is +0.5% and passes. JUnit names the sweep and its failure type the
 * metric.
 */
static void test_rose_and_unchanged(void)
{
	const char *db = history_of(history5, 5);
	char junit[512], *text = NULL, *xml;
	struct tb_result *r = run_slope(10, 15);
	struct tb_gate_ref *refs = NULL;
	struct tb_gate g;
	size_t len;

	CU_ASSERT_DOUBLE_EQUAL(r->sweeps[0].fit.cost_ns, 15, 1e-6);
	evaluate(db, r, 0.10, &g, &refs);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    rose: %s", g.sweeps[0].v.msg);
	CU_ASSERT_STRING_EQUAL(g.sweeps[0].name, SWEEP_NAME);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_FAIL);
	CU_ASSERT_STRING_EQUAL(g.sweeps[0].v.type, "slope-increase");
	CU_ASSERT_DOUBLE_EQUAL(g.sweeps[0].pct, 50, 0.01);
	CU_ASSERT_DOUBLE_EQUAL(g.sweeps[0].ci_lo, 50 - 8.0, 0.1);
	CU_ASSERT_DOUBLE_EQUAL(g.sweeps[0].ci_hi, 50 + 8.0, 0.1);
	CU_ASSERT_EQUAL(refs[r->ncells].npoints, 5);
	CU_ASSERT_DOUBLE_EQUAL(refs[r->ncells].mean, 10, 1e-6);
	CU_ASSERT_FALSE(tb_gate_passed(&g));
	tb_gate_release(&g);
	free(refs);

	snprintf(junit, sizeof(junit), "%s/j.xml", tb_test_tmpdir());
	CU_ASSERT_EQUAL(gate_text(db, r, "10%", &text, junit, NULL), TB_EXIT_FAIL);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "FAIL  " SWEEP_NAME));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 of 1 sweeps failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "of the mean slope of the last stable segment in"));
	free(text);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(junit, &xml, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(xml, "<testcase classname=\"tracebench.sweep\" name=\"" SWEEP_NAME "\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(xml, "<failure type=\"slope-increase\""));
	free(xml);
	tb_result_free(r);

	r = run_slope(11, 10.05);
	evaluate(db, r, 0.10, &g, &refs);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    unchanged: %s", g.sweeps[0].v.msg);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_PASS);
	CU_ASSERT_DOUBLE_EQUAL(g.sweeps[0].pct, 0.5, 0.01);
	CU_ASSERT(tb_gate_passed(&g));
	tb_gate_release(&g);
	free(refs);
	/* without a limit no sweep is judged, and the cells' history check is as before */
	evaluate(db, r, NAN, &g, &refs);
	CU_ASSERT_EQUAL(g.nsweeps, 0);
	CU_ASSERT_PTR_NULL(strstr(g.run.msg, "max-slope-increase"));
	tb_gate_release(&g);
	free(refs);
	tb_result_free(r);
}

/*
 * What cannot be judged is skipped with the reason, never passed silently: two runs of
 * history (a stable segment needs 3), a line refused in the gated run, a history that does
 * not exist yet. None of them fails the gate.
 */
static void test_skipped(void)
{
	const char *db = history_of(history5, 2);
	struct tb_result *r = run_slope(10, 15), *flat = run_slope(11, 0);
	struct tb_gate_ref *refs = NULL;
	char missing[512], *text = NULL;
	struct tb_gate g;

	evaluate(db, r, 0.10, &g, &refs);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    too little: %s", g.sweeps[0].v.msg);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_SKIP);
	CU_ASSERT_EQUAL(g.nsweep_skip, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.sweeps[0].v.msg, "2 runs in the last stable segment"));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.sweeps[0].v.msg, "(needs 3)"));
	CU_ASSERT(isnan(g.sweeps[0].pct));
	CU_ASSERT(tb_gate_passed(&g));
	tb_gate_release(&g);
	free(refs);

	CU_ASSERT_FALSE(flat->sweeps[0].fit.accepted);
	evaluate(db, flat, 0.10, &g, &refs);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    refused: %s", g.sweeps[0].v.msg);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_SKIP);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.sweeps[0].v.msg, "no accepted line in r.json ("));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.sweeps[0].v.msg, flat->sweeps[0].fit.why_not));
	tb_gate_release(&g);
	free(refs);

	snprintf(missing, sizeof(missing), "%s/none.db", tb_test_tmpdir());
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(gate_text(missing, r, "10%", &text, NULL, NULL), TB_EXIT_OK);
	tb_log_set_level(TB_LOG_INFO);
	printf("\n    %s", text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "SKIP  " SWEEP_NAME " new in "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "0 of 1 sweeps failed, 1 skipped"));
	free(text);
	tb_result_free(r);
	tb_result_free(flat);
}

/* The entry named name in the benchmark JSON arr, or NULL. */
static json_t *bench_find(json_t *arr, const char *name)
{
	size_t i;
	json_t *e;

	json_array_foreach(arr, i, e)
	{
		if (!strcmp(json_string_value(json_object_get(e, "name")), name))
			return e;
	}
	return NULL;
}

/*
 * --benchmark-json: an entry per accepted slope beside the cells' (name: the sweep and its
 * unit; value: the slope; unit: ns per the swept unit; range: its CI's half width), none for
 * a refused line. Written with or without a slope limit.
 */
static void test_benchmark_json(void)
{
	const char *db = history_of(history5, 5);
	static const char name[] = "tracer t: probes against w, ns per probe";
	struct tb_result *r = run_slope(10, 12.5), *flat = run_slope(11, 0);
	char path[512], *text = NULL;
	json_error_t err;
	json_t *doc, *e;
	const char *rg;

	snprintf(path, sizeof(path), "%s/bench.json", tb_test_tmpdir());
	CU_ASSERT_EQUAL(gate_text(db, r, NULL, &text, NULL, path), TB_EXIT_OK);
	free(text);
	doc = json_load_file(path, 0, &err);
	CU_ASSERT_FATAL(json_is_array(doc));
	CU_ASSERT_PTR_NOT_NULL(bench_find(doc, "w/none ns/op"));
	e = bench_find(doc, name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "unit")), "ns/probe");
	CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(e, "value")), 12.5, 1e-6);
	/* the exact line's CI has no width; the rounds' bootstrap gives it the samples' +-0.2%
	 * shared by each round: a width, under 1% of the slope */
	rg = json_string_value(json_object_get(e, "range"));
	CU_ASSERT_FATAL(rg && !strncmp(rg, "± ", strlen("± ")));
	CU_ASSERT(strtod(rg + strlen("± "), NULL) > 0);
	CU_ASSERT(strtod(rg + strlen("± "), NULL) < 0.125);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(e, "extra")),
				      "sweep slope over 5 points"));
	json_decref(doc);

	CU_ASSERT_EQUAL(gate_text(db, flat, "10%", &text, NULL, path), TB_EXIT_OK);
	free(text);
	doc = json_load_file(path, 0, &err);
	CU_ASSERT_FATAL(json_is_array(doc));
	CU_ASSERT_PTR_NOT_NULL(bench_find(doc, "w/none ns/op"));
	CU_ASSERT_PTR_NULL(bench_find(doc, name));
	json_decref(doc);
	tb_result_free(r);
	tb_result_free(flat);
}

/*
 * Three runs of 9, 10 and 11 ns per probe: the prediction interval is +-115% (t 9.92 x 1 x
 * sqrt(4/3)), so a slope like theirs passes but cannot see a 10% rise: underpowered, a warning
 * that says what would narrow it.
 */
static void test_underpowered(void)
{
	static const double three[] = {9, 10, 11};
	const char *db = history_of(three, 3);
	struct tb_result *r = run_slope(10, 10);
	struct tb_gate_ref *refs = NULL;
	struct tb_gate g;

	evaluate(db, r, 0.10, &g, &refs);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    thin: %s", g.sweeps[0].v.msg);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_PASS);
	CU_ASSERT_TRUE(g.sweeps[0].v.warn);
	CU_ASSERT_TRUE(g.sweeps[0].v.underpowered);
	CU_ASSERT_DOUBLE_EQUAL(g.sweeps[0].ci_hi, 114.6, 0.1);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.sweeps[0].v.msg, "underpowered: MDE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.sweeps[0].v.msg, "more runs in the history"));
	tb_gate_release(&g);
	free(refs);
	tb_result_free(r);
}

static CU_TestInfo gate_run_tests[] = {
	{"a slope that rose fails against the history, one alike passes", test_rose_and_unchanged},
	{"too little history, a refused line, no history: skipped, said", test_skipped},
	{"a thin history: underpowered, said", test_underpowered},
	{"benchmark JSON: an entry per accepted slope", test_benchmark_json},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("cli-gate-run", NULL, NULL, gate_run_tests);
