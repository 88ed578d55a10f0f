// SPDX-License-Identifier: GPL-2.0
/*
 * compare and gate on the fixture files (tests/data/results, made by gen.py), their outputs,
 * bad input, and a simulation of the gate's false-positive rate and power.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "render/compare-formats.h"
#include "render/gate-formats.h"
#include "stats/compare.h"
#include "cli/gate-run.h"
#include "stats/gate.h"
#include "model/result.h"
#include "stats/stats.h"
#include "cli/commands.h"
#include "core/tb.h"
#include "tb_test.h"

static struct tb_result *fixture(const char *name)
{
	char path[512];
	struct tb_result *r = NULL;

	snprintf(path, sizeof(path), "%s/results/%s", tb_test_data_dir(), name);
	CU_ASSERT_EQUAL(tb_result_load(path, &r), 0);
	return r;
}

static char *fixture_path(const char *name)
{
	static char path[8][512];
	static int k;

	k = (k + 1) % 8;
	snprintf(path[k], sizeof(path[k]), "%s/results/%s", tb_test_data_dir(), name);
	return path[k];
}

/* Gate a fixture (optionally against another) with opts; returns the exit code. */
static int gate(const char *name, const char *oldname, struct tb_gate_opts *o)
{
	struct tb_result *r = fixture(name), *old = oldname ? fixture(oldname) : NULL;
	FILE *devnull = fopen("/dev/null", "w");
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	o->name = name;
	o->baseline_name = oldname;
	ret = tb_cli_gate_result(r, old, o, devnull);
	fclose(devnull);
	tb_result_free(r);
	tb_result_free(old);
	return ret;
}

static void test_compare_build(void)
{
	struct tb_result *a = fixture("a.json"), *b = fixture("b.json"),
			 *c = fixture("c-otherhw.json");
	struct tb_comparison *cmp;
	bool seen_release = false;
	json_t *j;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, b, "a.json", "b.json", 0.05, &cmp), 0);
	/* the getpid cells match; the read cells are only in A, the pipe cells only in B */
	CU_ASSERT_EQUAL(cmp->nmatched, 2);
	CU_ASSERT_EQUAL(cmp->nrows, 6);
	CU_ASSERT_STRING_EQUAL(cmp->rows[0].id, "getpid/none");
	CU_ASSERT_PTR_NULL(cmp->rows[2].b);
	CU_ASSERT_PTR_NULL(cmp->rows[5].a);
	/* b.json's baseline is 5% slower (gen.py: 210 vs 200 ns): significant, CI around +5 */
	CU_ASSERT(cmp->rows[0].ns_significant);
	CU_ASSERT(cmp->rows[0].ns_ci_lo > 2 && cmp->rows[0].ns_ci_hi < 8);
	CU_ASSERT(cmp->rows[0].ns_ci_lo <= cmp->rows[0].ns_pct &&
		  cmp->rows[0].ns_pct <= cmp->rows[0].ns_ci_hi);
	/* overhead 150% -> 140%: about -10 pp */
	CU_ASSERT(cmp->rows[1].traced);
	CU_ASSERT_DOUBLE_EQUAL(cmp->rows[1].ovh_change, -10, 5);
	CU_ASSERT(cmp->rows[1].ovh_ci_lo < cmp->rows[1].ovh_change &&
		  cmp->rows[1].ovh_change < cmp->rows[1].ovh_ci_hi);
	CU_ASSERT(cmp->same_hardware);
	for (size_t i = 0; i < cmp->ndiffs; i++) {
		if (!strcmp(cmp->diffs[i].key, "kernel.release")) {
			seen_release = true;
			CU_ASSERT_STRING_EQUAL(cmp->diffs[i].a, "6.18.0");
			CU_ASSERT_STRING_EQUAL(cmp->diffs[i].b, "6.19.0");
		}
		/* unchanged leaves are not listed */
		CU_ASSERT(strcmp(cmp->diffs[i].key, "cpu.model"));
	}
	CU_ASSERT(seen_release);
	/* release, cmdline, fingerprint; and captured, load.loadavg, load.uptime_s (transient) */
	CU_ASSERT_EQUAL(cmp->ndiffs, 6);
	CU_ASSERT_EQUAL(cmp->ntransient, 3);
	for (size_t i = 0; i < cmp->ndiffs; i++)
		CU_ASSERT_EQUAL(cmp->diffs[i].transient,
				!strcmp(cmp->diffs[i].key, "captured") ||
					!strncmp(cmp->diffs[i].key, "load.", 5));
	j = tb_render_compare_json(cmp);
	CU_ASSERT_PTR_NOT_NULL(j);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "cells")), 2);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "only_in_a")), 2);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "only_in_b")), 2);
	json_decref(j);
	tb_compare_free(cmp);

	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, c, "a.json", "c.json", 0.05, &cmp), 0);
	CU_ASSERT(!cmp->same_hardware);
	CU_ASSERT_EQUAL(cmp->nmatched, 2);
	/* same distributions: nothing significant */
	CU_ASSERT(!cmp->rows[0].ns_significant);
	tb_compare_free(cmp);

	/* A different tracer config is a different cell, flagged as such. */
	json_object_set_new(c->cells[1].tracer_config, "events", json_string("sched:*"));
	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, c, "a.json", "c.json", 0.05, &cmp), 0);
	CU_ASSERT_EQUAL(cmp->nmatched, 1);
	CU_ASSERT(cmp->rows[cmp->nrows - 1].config_differs);
	tb_compare_free(cmp);
	tb_result_free(a);
	tb_result_free(b);
	tb_result_free(c);
}

static void test_gate_fixtures(void)
{
	struct tb_gate_opts o;

	tb_gate_opts_init(&o);
	CU_ASSERT_EQUAL(gate("pass.json", NULL, &o), TB_EXIT_OK);
	CU_ASSERT_EQUAL(gate("fail.json", NULL, &o), TB_EXIT_FAIL);
	CU_ASSERT_EQUAL(gate("untrustworthy.json", NULL, &o), TB_EXIT_FAIL);
	o.allow_untrustworthy = 1;
	CU_ASSERT_EQUAL(gate("untrustworthy.json", NULL, &o), TB_EXIT_OK);
	o.allow_untrustworthy = -1;
	/* the command line overrides the result's [gate] max-overhead = 5% */
	o.max_overhead = 0.5;
	CU_ASSERT_EQUAL(gate("fail.json", NULL, &o), TB_EXIT_OK);
	o.max_overhead = INFINITY;
	CU_ASSERT_EQUAL(gate("fail.json", NULL, &o), TB_EXIT_OK);
	o.max_overhead = NAN;
	/* regression: baseline 10% slower than pass.json's */
	CU_ASSERT_EQUAL(gate("regressed.json", "pass.json", &o), TB_EXIT_FAIL);
	CU_ASSERT_EQUAL(gate("pass.json", "pass.json", &o), TB_EXIT_OK);
	o.max_regression = 0.2;
	CU_ASSERT_EQUAL(gate("regressed.json", "pass.json", &o), TB_EXIT_OK);

	/* A result without cells measured nothing: it fails rather than passes. */
	struct tb_result *empty = tb_result_new();
	CU_ASSERT_EQUAL(tb_cli_gate_result(empty, NULL, &o, NULL), TB_EXIT_FAIL);
	tb_result_free(empty);
}

static void test_gate_thresholds_from_result(void)
{
	struct tb_result *r = fixture("fail.json");
	struct tb_gate_opts o;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tb_gate_opts_init(&o);
	json_object_set_new(r->gate, "max-overhead", json_string("30%"));
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_OK);
	json_object_set_new(r->gate, "max-overhead", json_string("none"));
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_OK);
	json_object_set_new(r->gate, "max-overhead", json_real(0.05));
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_FAIL);
	json_object_set_new(r->gate, "max-overhead", json_string("lots"));
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_USAGE);
	json_object_set_new(r->gate, "max-overhead", json_string("5%"));
	json_object_set_new(r->gate, "alpha", json_real(2));
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_USAGE);
	json_object_set_new(r->gate, "alpha", json_string("0.05"));
	json_object_set_new(r->gate, "allow-untrustworthy", json_string("maybe"));
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_USAGE);
	json_object_set_new(r->gate, "allow-untrustworthy", json_true());
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_FAIL);
	/* the gate leaves the result analysed at its own settings */
	CU_ASSERT_DOUBLE_EQUAL(r->confidence, 0.95, 1e-12);
	CU_ASSERT(r->cells[1].has_overhead);
	tb_result_free(r);
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len;

	CU_ASSERT_EQUAL(tb_read_file(path, &buf, &len), 0);
	return buf;
}

static void test_gate_outputs(void)
{
	struct tb_result *r = fixture("fail.json");
	const char *dir = tb_test_tmpdir();
	char junit[256], md[256], bj[256];
	struct tb_gate_opts o;
	json_t *doc;
	char *text;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(junit, sizeof(junit), "%s/junit.xml", dir);
	snprintf(md, sizeof(md), "%s/summary.md", dir);
	snprintf(bj, sizeof(bj), "%s/bench.json", dir);
	/* Names that need escaping in XML and Markdown. */
	free(r->cells[1].id);
	r->cells[1].id = strdup("get<pid>/\"tp\" & 'x' | y\x01");
	tb_gate_opts_init(&o);
	o.name = "fail.json";
	o.junit = junit;
	o.markdown = md;
	o.benchmark_json = bj;
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_FAIL);

	text = slurp(junit);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT(!strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 38));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tests=\"2\" failures=\"1\""));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(text, "name=\"get&lt;pid&gt;/&quot;tp&quot; &amp; &#39;x&#39; | y?\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<failure type=\"overhead\" message=\"overhead +"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "exceeds max-overhead 5%"));
	CU_ASSERT_PTR_NULL(strstr(text, "\x01"));
	/* one testcase per cell, every element closed */
	int open = 0, close = 0;
	for (char *p = text; (p = strstr(p, "<testcase ")); p++)
		open++;
	for (char *p = text; (p = strstr(p, "</testcase>")); p++)
		close++;
	CU_ASSERT_EQUAL(open, 2);
	CU_ASSERT_EQUAL(close, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "</testsuites>\n"));
	free(text);

	text = slurp(md);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "## tracebench gate: ❌ failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "\\| y")); /* '|' escaped inside a table cell */
	free(text);

	doc = json_load_file(bj, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT(json_is_array(doc));
	/* 2 cells' ns/op, then the traced cell's added ns/op, ns/event (when detectable), %. */
	{
		size_t k, nsop = 0, added = 0, pct = 0;
		json_t *e;

		json_array_foreach(doc, k, e)
		{
			const char *unit = json_string_value(json_object_get(e, "unit"));
			const char *name = json_string_value(json_object_get(e, "name"));

			CU_ASSERT_PTR_NOT_NULL_FATAL(unit);
			CU_ASSERT_PTR_NOT_NULL_FATAL(name);
			CU_ASSERT(json_is_number(json_object_get(e, "value")));
			CU_ASSERT(json_is_string(json_object_get(e, "extra")));
			nsop += !strcmp(unit, "ns/op") && !strstr(name, "added");
			added += !strcmp(unit, "ns/op") && strstr(name, " added ns/op") != NULL;
			if (!strcmp(unit, "%")) {
				pct++;
				CU_ASSERT(json_number_value(json_object_get(e, "value")) > 10);
				CU_ASSERT_PTR_NOT_NULL(strstr(
					json_string_value(json_object_get(e, "extra")), "CI ["));
			}
		}
		CU_ASSERT_EQUAL(nsop, 2);
		CU_ASSERT_EQUAL(added, 1);
		CU_ASSERT_EQUAL(pct, 1);
	}
	json_decref(doc);

	/* an unwritable output is bad input (exit 2) */
	o.junit = "/nonexistent-dir/junit.xml";
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_USAGE);
	tb_result_free(r);
}

/* Run a command entry point with fresh getopt state; stdout is discarded. */
static int cmd(int (*fn)(int, char **), int argc, char **argv)
{
	FILE *saved = stdout, *devnull = fopen("/dev/null", "w");
	int ret;

	stdout = devnull;
	optind = 0;
	ret = fn(argc, argv);
	stdout = saved;
	fclose(devnull);
	return ret;
}

static void test_commands_bad_input(void)
{
	static const char *const bad[] = {
		"bad-malformed.json", "bad-schema.json",    "bad-type.json", "bad-missing.json",
		"bad-negative.json",  "bad-duplicate.json", "bad-huge.json", "no-such-file.json"};

	for (size_t i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		char *g[] = {"gate", fixture_path(bad[i]), NULL};
		char *c[] = {"compare", fixture_path("a.json"), fixture_path(bad[i]), NULL};
		char *gb[] = {"gate", fixture_path("a.json"), "--baseline", fixture_path(bad[i]),
			      NULL};

		CU_ASSERT_EQUAL(cmd(tb_cli_gate, 2, g), TB_EXIT_USAGE);
		CU_ASSERT_EQUAL(cmd(tb_cli_compare, 3, c), TB_EXIT_USAGE);
		CU_ASSERT_EQUAL(cmd(tb_cli_gate, 4, gb), TB_EXIT_USAGE);
		CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), bad[i]));
	}
	char *ok[] = {"compare", fixture_path("a.json"), fixture_path("b.json"), "--json", NULL};
	CU_ASSERT_EQUAL(cmd(tb_cli_compare, 4, ok), TB_EXIT_OK);
	char *hw[] = {"compare", fixture_path("a.json"), fixture_path("c-otherhw.json"),
		      "--require-same-host", NULL};
	CU_ASSERT_EQUAL(cmd(tb_cli_compare, 4, hw), TB_EXIT_USAGE);
	char *one[] = {"compare", fixture_path("a.json"), NULL};
	CU_ASSERT_EQUAL(cmd(tb_cli_compare, 2, one), TB_EXIT_USAGE);
	char *pass[] = {"gate", fixture_path("pass.json"), NULL};
	CU_ASSERT_EQUAL(cmd(tb_cli_gate, 2, pass), TB_EXIT_OK);
	char *failing[] = {"gate", fixture_path("fail.json"), "--alpha", "0.05", NULL};
	CU_ASSERT_EQUAL(cmd(tb_cli_gate, 4, failing), TB_EXIT_FAIL);
	char *badopt[] = {"gate", fixture_path("fail.json"), "--max-overhead", "five", NULL};
	CU_ASSERT_EQUAL(cmd(tb_cli_gate, 4, badopt), TB_EXIT_USAGE);
}

/* ---- simulation ---------------------------------------------------------------------------- */

static void add_cell(struct tb_result *r, bool base, const double *v, int n)
{
	struct tb_cell *c = tb_result_add_cell(r);

	c->id = strdup(base ? "w/none" : "w/tp");
	c->workload = strdup("w");
	c->tracer = strdup(base ? "none" : "tp");
	c->tracer_type = strdup(base ? "none" : "ftrace-events");
	c->baseline = base;
	c->ops_per_sample = 1000;
	c->events_recorded = base ? -1 : 1000 * n;
	c->events_lost = base ? -1 : 0;
	for (int i = 0; i < n; i++) {
		struct tb_sample *s = tb_cell_add_sample(c);

		s->round = i;
		s->ns_per_op = v[i];
	}
}

/* 10 rounds, about 1% CV (0.6% round drift shared by both cells, 0.8% sample noise). */
static struct tb_result *sim(gsl_rng *rng, double base_ns, double pct)
{
	struct tb_result *r = tb_result_new();
	double b[10], t[10];

	r->resamples = 2000;
	r->seed = gsl_rng_get(rng);
	for (int i = 0; i < 10; i++) {
		double d = 1 + gsl_ran_gaussian(rng, 0.006);

		b[i] = base_ns * d * (1 + gsl_ran_gaussian(rng, 0.008));
		t[i] = base_ns * (1 + pct / 100) * d * (1 + gsl_ran_gaussian(rng, 0.008));
	}
	add_cell(r, true, b, 10);
	add_cell(r, false, t, 10);
	return r;
}

/*
 * The gate at alpha 0.05 with the strictest limits (max-overhead 0, max-regression 0), so that
 * any significant positive effect fails it. 200 A/A pairs: at most 7% fail. A true 3%
 * difference at CV 1% with 10 rounds: at least 90% fail. Both for the overhead rule (within one
 * result) and the regression rule (against an older result).
 */
static void test_gate_simulation(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tb_gate_opts o;
	int fp = 0, power = 0, rfp = 0, rpower = 0, n = 200;

	gsl_rng_set(rng, 6);
	tb_gate_opts_init(&o);
	o.alpha = 0.05;
	o.max_overhead = 0;
	o.max_regression = INFINITY;
	for (int i = 0; i < n; i++) {
		struct tb_result *r = sim(rng, 200, 0), *s = sim(rng, 200, 3);

		fp += tb_cli_gate_result(r, NULL, &o, NULL) == TB_EXIT_FAIL;
		power += tb_cli_gate_result(s, NULL, &o, NULL) == TB_EXIT_FAIL;
		tb_result_free(r);
		tb_result_free(s);
	}
	o.max_overhead = INFINITY;
	o.max_regression = 0;
	for (int i = 0; i < n; i++) {
		struct tb_result *old = sim(rng, 200, 0), *same = sim(rng, 200, 0);
		struct tb_result *old2 = sim(rng, 200, 0), *slower = sim(rng, 206, 0);

		rfp += tb_cli_gate_result(same, old, &o, NULL) == TB_EXIT_FAIL;
		rpower += tb_cli_gate_result(slower, old2, &o, NULL) == TB_EXIT_FAIL;
		tb_result_free(old);
		tb_result_free(same);
		tb_result_free(old2);
		tb_result_free(slower);
	}
	printf("\n    gate overhead rule: %d/%d A/A failures, power %d/%d; regression rule: %d/%d, power %d/%d\n",
	       fp, n, power, n, rfp, n, rpower, n);
	CU_ASSERT(fp <= n * 7 / 100);
	CU_ASSERT(power >= n * 90 / 100);
	CU_ASSERT(rfp <= n * 7 / 100);
	CU_ASSERT(rpower >= n * 90 / 100);
	gsl_rng_free(rng);
}

/* The overhead entry of the traced cell 1 of fail.json with its CI set to [lo, hi]. */
static json_t *overhead_entry(struct tb_gate *g, struct tb_result *r, double lo, double hi)
{
	json_t *doc, *e, *found = NULL;
	size_t k;

	r->cells[1].overhead.ci_lo = lo;
	r->cells[1].overhead.ci_hi = hi;
	doc = tb_render_gate_benchmark_json(g);
	json_array_foreach(doc, k, e) if (!strcmp(json_string_value(json_object_get(e, "unit")),
						  "%")) found = json_incref(e);
	json_decref(doc);
	return found;
}

/*
 * github-action-benchmark's range is one half-width: given only for a symmetric CI; an
 * asymmetric one (as [+363.06, +479.27] around +400) has both bounds in extra (issue 15).
 */
static void test_benchmark_range(void)
{
	struct tb_result *r = fixture("fail.json");
	struct tb_gate_opts o;
	struct tb_gate g;
	json_t *e;
	double p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tb_gate_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, r, NULL, &o), 0);
	p = r->cells[1].overhead.pct;
	e = overhead_entry(&g, r, p - 36.94, p + 79.27);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NULL(json_object_get(e, "range"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_object_get(e, "extra")), "CI ["));
	json_decref(e);
	e = overhead_entry(&g, r, p - 10, p + 10);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "range")), "± 10");
	json_decref(e);
	tb_gate_release(&g);
	tb_result_free(r);
}

static bool file_has(const char *path, const char *needle)
{
	char *text = slurp(path);
	bool found = text && strstr(text, needle);

	free(text);
	return found;
}

/*
 * A cell whose MDE exceeds the limit gated passes with a warning in every output, and fails
 * with --require-power (issue 15: perf-99hz, MDE 17.6% against a 5% limit).
 */
static void test_gate_power(void)
{
	struct tb_result *r = fixture("pass.json");
	const char *dir = tb_test_tmpdir();
	char junit[256], md[256], bj[256];
	struct tb_gate_opts o;
	struct tb_gate g;
	double mde;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tb_gate_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, r, NULL, &o), 0);
	CU_ASSERT_EQUAL(g.nunderpowered, 0);
	mde = r->cells[1].overhead.mde_pct;
	CU_ASSERT(isfinite(mde) && mde > 0);
	tb_gate_release(&g);
	/* A limit below the cell's MDE: underpowered. */
	o.max_overhead = mde / 100 / 2;
	snprintf(junit, sizeof(junit), "%s/junit.xml", dir);
	snprintf(md, sizeof(md), "%s/summary.md", dir);
	snprintf(bj, sizeof(bj), "%s/bench.json", dir);
	o.junit = junit;
	o.markdown = md;
	o.benchmark_json = bj;
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, r, NULL, &o), 0);
	CU_ASSERT_EQUAL(g.nunderpowered, 1);
	CU_ASSERT(tb_gate_passed(&g));
	CU_ASSERT(g.cells[1].warn && g.cells[1].underpowered);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.cells[1].msg, "underpowered: MDE"));
	tb_gate_release(&g);
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_OK);
	CU_ASSERT(file_has(junit, "<property name=\"underpowered\" value=\"1\"/>"));
	CU_ASSERT(file_has(junit, "warning: 1 cell is underpowered"));
	CU_ASSERT(file_has(md, "**Warning:** 1 cell is underpowered"));
	CU_ASSERT(file_has(bj, "underpowered: MDE"));
	/* --require-power: the same cell fails, typed so in JUnit. */
	o.require_power = true;
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_FAIL);
	CU_ASSERT(file_has(junit, "<failure type=\"underpowered\""));
	tb_result_free(r);
}

/*
 * A run that fell short never passes for a good one (issue 28): a cell faster than its
 * baseline fails (not an overhead of -x%) unless allowed; a partial result and foreign
 * instrumentation fail the run as a whole, and JUnit says why in a test case "run".
 */
static void test_gate_shortfalls(void)
{
	struct tb_result *r = fixture("pass.json");
	const char *dir = tb_test_tmpdir();
	struct tb_gate_opts o;
	char junit[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(junit, sizeof(junit), "%s/junit-short.xml", dir);
	tb_gate_opts_init(&o);
	o.junit = junit;
	/* partial: the run fails, JUnit's "run" case carries the reason */
	r->partial = true;
	free(r->stop_reason);
	r->stop_reason = strdup("interrupted");
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_FAIL);
	CU_ASSERT(file_has(junit, "<testcase classname=\"tracebench.run\" name=\"run\""));
	CU_ASSERT(file_has(junit, "<failure type=\"partial\""));
	CU_ASSERT(file_has(junit, "partial result: the run stopped early (interrupted)"));
	CU_ASSERT(file_has(junit, "tests=\"3\" failures=\"1\""));
	o.allow_partial = 1;
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_OK);
	CU_ASSERT(file_has(junit, "allowed by --allow-partial"));
	r->partial = false;
	/* foreign instrumentation: its cells untrustworthy, and the run fails on its own */
	json_array_append_new(r->foreign, json_string("tracefs instance 'x' (1 events enabled)"));
	o.allow_untrustworthy = 1;
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_FAIL);
	CU_ASSERT(file_has(junit, "<failure type=\"foreign-instrumentation\""));
	o.allow_foreign = 1;
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_OK);
	json_array_clear(r->foreign);
	o.allow_untrustworthy = o.allow_foreign = -1;
	/* faster than the baseline by 20%: its own verdict, and a failure */
	for (size_t i = 0; i < r->cells[1].nsamples; i++)
		r->cells[1].samples[i].ns_per_op =
			r->cells[0].samples[i % r->cells[0].nsamples].ns_per_op * 0.8;
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_FAIL);
	CU_ASSERT(file_has(junit, "<failure type=\"faster-than-baseline\""));
	CU_ASSERT(file_has(junit, "suspect the setup"));
	o.allow_faster = 1;
	CU_ASSERT_EQUAL(tb_cli_gate_result(r, NULL, &o, NULL), TB_EXIT_OK);
	CU_ASSERT(file_has(junit, "<skipped message="));
	tb_result_free(r);
}

static void test_compare_notes(void)
{
	struct tb_result *a = fixture("a.json"), *b = fixture("a.json");
	struct tb_comparison *c = NULL;
	const struct tb_cmp_row *w;
	char note[768], *text = NULL;
	size_t len = 0;
	json_t *doc;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_FATAL(a->ncells >= 2 && !a->cells[1].baseline);
	a->cells[1].error = strdup("tracer start failed");
	b->max_cv = a->max_cv * 2;
	for (size_t i = 0; i < b->cells[1].nsamples; i++) {
		b->cells[1].samples[i].elapsed_ns *= 5;
		b->cells[1].samples[i].ops *= 5;
	}
	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, b, "old.json", "new.json", 0, &c), 0);
	w = tb_compare_find(c, &b->cells[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT(w->caveats & TB_CMP_A_UNTRUSTED);
	CU_ASSERT(w->caveats & TB_CMP_DURATION);
	CU_ASSERT(w->caveats & TB_CMP_SETTINGS);
	tb_cmp_row_note(c, w, note, sizeof(note));
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "old.json untrustworthy: tracer start failed"));
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "samples of"));
	CU_ASSERT_PTR_NOT_NULL(strstr(note, "settings differ: max-cv"));
	/* The baseline row has the other settings too, but not the untrustworthy side. */
	w = tb_compare_find(c, &b->cells[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_EQUAL(w->caveats, TB_CMP_SETTINGS);
	f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	tb_render_compare_print(f, c);
	tb_render_compare_markdown(f, c);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  ! note: old.json untrustworthy"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "⚠️ old.json untrustworthy"));
	free(text);
	doc = tb_render_compare_json(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(json_string_value(json_object_get(
			       json_array_get(json_object_get(doc, "cells"), 1), "note")),
		       "untrustworthy"));
	json_decref(doc);
	tb_compare_free(c);
	tb_result_free(a);
	tb_result_free(b);
}

/*
 * Service cells (gen.py's svc-a/svc-b.json: B's throughput 8% lower, p99 30% higher, p50 the
 * same): compare gives each metric's change, CI and verdict; the gate's service limits fail
 * the traced cell by the metric that is over, and a limit above the CI passes it.
 */
static void test_services(void)
{
	struct tb_result *a = fixture("svc-a.json"), *b = fixture("svc-b.json");
	struct tb_gate_opts o;
	struct tb_comparison *c;
	struct tb_gate g;
	char *text;
	size_t len;
	json_t *doc;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, b, "a", "b", 0.05, &c), 0);
	for (size_t i = 0; i < c->nmatched; i++) {
		const struct tb_cmp_svc *thr = &c->rows[i].svc[TB_STATS_SVC_RPS],
					*p50 = &c->rows[i].svc[TB_STATS_SVC_P50],
					*p99 = &c->rows[i].svc[TB_STATS_SVC_P99];

		CU_ASSERT_FATAL(c->rows[i].has_svc);
		CU_ASSERT(thr->present && thr->a > thr->b);
		CU_ASSERT(thr->ci_lo <= thr->pct && thr->pct <= thr->ci_hi && thr->ci_hi < -4);
		CU_ASSERT_EQUAL(thr->dir, TB_CMP_WORSE);
		CU_ASSERT_DOUBLE_EQUAL(p99->pct, 30, 6);
		CU_ASSERT_EQUAL(p99->dir, TB_CMP_WORSE);
		CU_ASSERT_EQUAL(p50->dir, TB_CMP_SAME);
	}
	doc = tb_render_compare_json(c);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(
			json_object_get(
				json_object_get(json_array_get(json_object_get(doc, "cells"), 1),
						"service"),
				"p99"),
			"verdict")),
		"worse");
	json_decref(doc);
	f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	tb_render_compare_print(f, c);
	tb_render_compare_markdown(f, c);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "  service: throughput "));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "- `nginx/bpf-count`: throughput"));
	free(text);
	tb_compare_free(c);

	/* svc-a: the traced cell loses ~10% throughput and its p99 rises ~20% */
	tb_gate_opts_init(&o);
	o.max_overhead = INFINITY;
	o.max_thr_loss = 0.05;
	CU_ASSERT_EQUAL(tb_gate_evaluate(&g, a, NULL, &o), 0);
	CU_ASSERT_EQUAL(g.nfail, 1);
	CU_ASSERT_STRING_EQUAL(g.cells[1].type, "throughput-loss");
	CU_ASSERT_PTR_NOT_NULL(strstr(g.cells[1].msg, "exceeds max-throughput-loss 5%"));
	tb_gate_release(&g);
	o.max_thr_loss = 0.5;
	o.max_p99_rise = 0.1;
	CU_ASSERT_EQUAL(tb_gate_evaluate(&g, a, NULL, &o), 0);
	CU_ASSERT_EQUAL(g.nfail, 1);
	CU_ASSERT_STRING_EQUAL(g.cells[1].type, "p99-increase");
	tb_gate_release(&g);
	o.max_p99_rise = 0.5;
	CU_ASSERT_EQUAL(tb_gate_evaluate(&g, a, NULL, &o), 0);
	CU_ASSERT(tb_gate_passed(&g));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.cells[1].msg, "p99 +"));
	tb_gate_release(&g);
	tb_result_free(a);
	tb_result_free(b);
}

/* ---- sweeps ---------------------------------------------------------------------------------- */

/* A result of a baseline and a tracer sweep over probes = 1..16: ns/op 200 + slope x, 10
 * rounds of about 1% noise (seeded). */
static struct tb_result *swept(gsl_rng *rng, double slope)
{
	static const double xs[] = {1, 2, 4, 8, 16};
	struct tb_result *r = tb_result_new();
	double b[10];

	r->resamples = 2000;
	r->seed = gsl_rng_get(rng);
	for (int i = 0; i < 10; i++)
		b[i] = 200 * (1 + gsl_ran_gaussian(rng, 0.01));
	add_cell(r, true, b, 10);
	for (size_t k = 0; k < TB_ARRAY_SIZE(xs); k++) {
		struct tb_cell *c = tb_result_add_cell(r);
		char id[64], v[16];

		snprintf(v, sizeof(v), "%g", xs[k]);
		snprintf(id, sizeof(id), "w/t[probes=%s]", v);
		c->id = strdup(id);
		c->workload = strdup("w");
		c->tracer = strdup(id + 2);
		c->tracer_type = strdup("ftrace-events");
		c->ops_per_sample = 1000;
		c->events_recorded = 10000;
		c->events_lost = 0;
		c->tsweep = (struct tb_cell_sweep){true,      strdup("t"),     strdup("probes"),
						   strdup(v), strdup("probe"), xs[k]};
		for (int i = 0; i < 10; i++) {
			struct tb_sample *smp = tb_cell_add_sample(c);

			smp->round = i;
			smp->ns_per_op = (200 + slope * xs[k]) * (1 + gsl_ran_gaussian(rng, 0.01));
		}
	}
	return r;
}

/*
 * gate --max-slope-increase against a baseline result: a slope that doubled fails at 10%
 * (JUnit names the sweep and the metric), the same slope passes, a refused line (no slope in
 * the gated result) is skipped with its reason rather than passed silently, and without a
 * limit no sweep is judged.
 */
static void test_gate_sweeps(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tb_result *a, *b, *same, *flat;
	struct tb_gate_opts o;
	struct tb_gate g;
	char *text;
	size_t len;
	FILE *f;

	gsl_rng_set(rng, 11);
	a = swept(rng, 10);
	b = swept(rng, 20);
	same = swept(rng, 10);
	flat = swept(rng, 0);
	tb_gate_opts_init(&o);
	o.max_overhead = o.max_regression = INFINITY;
	o.baseline_name = "old";
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, b, a, &o), 0);
	CU_ASSERT_EQUAL(g.nsweeps, 0); /* no limit: not judged */
	CU_ASSERT(tb_gate_passed(&g));
	tb_gate_release(&g);

	o.max_slope_rise = 0.10;
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, b, a, &o), 0);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    doubled: %s", g.sweeps[0].v.msg);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_FAIL);
	CU_ASSERT_STRING_EQUAL(g.sweeps[0].v.type, "slope-increase");
	CU_ASSERT_STRING_EQUAL(g.sweeps[0].name, "tracer t: probes against w: slope per probe");
	CU_ASSERT_DOUBLE_EQUAL(g.sweeps[0].pct, 100, 15);
	CU_ASSERT(g.sweeps[0].ci_lo > 10);
	CU_ASSERT_FALSE(tb_gate_passed(&g));
	f = open_memstream(&text, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	tb_render_gate_junit(f, &g);
	tb_render_gate_print(f, &g);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(
		text,
		"<testcase classname=\"tracebench.sweep\" name=\"tracer t: probes against w: slope per probe\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<failure type=\"slope-increase\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "1 of 1 sweeps failed"));
	free(text);
	tb_gate_release(&g);

	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, same, a, &o), 0);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    same: %s", g.sweeps[0].v.msg);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_PASS);
	CU_ASSERT(tb_gate_passed(&g));
	tb_gate_release(&g);

	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, flat, a, &o), 0);
	CU_ASSERT_EQUAL_FATAL(g.nsweeps, 1);
	printf("\n    flat: %s", g.sweeps[0].v.msg);
	CU_ASSERT_EQUAL(g.sweeps[0].v.st, TB_GATE_SKIP);
	CU_ASSERT_EQUAL(g.nsweep_skip, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.sweeps[0].v.msg, "slope not compared: "));
	tb_gate_release(&g);

	/* without a baseline result the limit is said, not silently dropped */
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, b, NULL, &o), 0);
	CU_ASSERT_EQUAL(g.nsweeps, 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(g.run.msg, "max-slope-increase needs --baseline or --history"));
	tb_gate_release(&g);
	tb_result_free(a);
	tb_result_free(b);
	tb_result_free(same);
	tb_result_free(flat);
	gsl_rng_free(rng);
}

/*
 * A traced cell that regressed while its baseline moved too gets the note that the machine's
 * speed differs between the runs (METHODOLOGY.md 9's episodes), against an older result and
 * against a history; one whose baseline held does not, nor does a baseline cell; every one of
 * them still fails.
 */
static void test_gate_machine_moved(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tb_result *old, *episode, *tracer;
	struct tb_gate_ref refs[2];
	struct tb_gate_opts o;
	struct tb_gate g;

	gsl_rng_set(rng, 7);
	tb_gate_opts_init(&o);
	o.alpha = 0.05;
	o.max_overhead = INFINITY;
	o.max_regression = 0.03;
	old = sim(rng, 1000, 24);
	episode = sim(rng, 1090, 35); /* a slower machine, on which the tracer costs more */
	tracer = sim(rng, 1000, 35);  /* the same machine, a dearer tracer */
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, episode, old, &o), 0);
	printf("\n    episode: %s", g.cells[1].msg);
	CU_ASSERT_EQUAL(g.cells[1].st, TB_GATE_FAIL);
	CU_ASSERT_STRING_EQUAL(g.cells[1].type, "regression");
	CU_ASSERT_PTR_NOT_NULL(strstr(g.cells[1].msg, "note: its baseline's ns/op moved too (+"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(g.cells[1].msg, "vs the baseline result): the machine's speed"));
	CU_ASSERT_EQUAL(g.cells[0].st, TB_GATE_FAIL); /* the baseline regressed by 9% */
	CU_ASSERT_PTR_NULL(strstr(g.cells[0].msg, "moved too"));
	tb_gate_release(&g);
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, tracer, old, &o), 0);
	CU_ASSERT_EQUAL(g.cells[1].st, TB_GATE_FAIL);
	CU_ASSERT_PTR_NULL(strstr(g.cells[1].msg, "moved too"));
	tb_gate_release(&g);

	/* against a history's last stable segments: the baseline's series +9% [+7, +11] */
	memset(refs, 0, sizeof(refs));
	for (int i = 0; i < 2; i++) {
		refs[i].c = &episode->cells[i];
		refs[i].found = true;
		refs[i].relative = i == 0;
		refs[i].npoints = 5;
		snprintf(refs[i].since, sizeof(refs[i].since), "2026-12-01T00:00:00Z");
		refs[i].change = i ? 11 : 9;
		refs[i].ci_lo = i ? 8 : 7;
		refs[i].ci_hi = i ? 14 : 11;
		refs[i].p = refs[i].p_samples = 0.001;
		refs[i].mde = 1;
	}
	o.history = refs;
	o.history_name = "h.db";
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, episode, NULL, &o), 0);
	printf("\n    episode, history: %s", g.cells[1].msg);
	CU_ASSERT_EQUAL(g.cells[1].st, TB_GATE_FAIL);
	CU_ASSERT_PTR_NOT_NULL(strstr(
		g.cells[1].msg, "moved too (+9.00% [+7.00%, +11.00%] vs the last stable segment)"));
	tb_gate_release(&g);
	/* the baseline's series held ([-2, +2] holds 0): no note */
	refs[0].change = 0;
	refs[0].ci_lo = -2;
	refs[0].ci_hi = 2;
	CU_ASSERT_EQUAL_FATAL(tb_gate_evaluate(&g, episode, NULL, &o), 0);
	CU_ASSERT_EQUAL(g.cells[1].st, TB_GATE_FAIL);
	CU_ASSERT_PTR_NULL(strstr(g.cells[1].msg, "moved too"));
	tb_gate_release(&g);
	tb_result_free(old);
	tb_result_free(episode);
	tb_result_free(tracer);
	gsl_rng_free(rng);
}

static CU_TestInfo gate_tests[] = {
	{"compare: matching, changes, environment diff", test_compare_build},
	{"gate: pass, fail, untrustworthy, regression", test_gate_fixtures},
	{"gate: thresholds from the result's [gate]", test_gate_thresholds_from_result},
	{"gate: JUnit, Markdown, benchmark JSON", test_gate_outputs},
	{"gate: benchmark JSON range only for a symmetric CI", test_benchmark_range},
	{"gate: underpowered cells warn, --require-power fails them", test_gate_power},
	{"gate: faster, partial and foreign runs fail unless allowed", test_gate_shortfalls},
	{"compare: notes beside untrustworthy or differently set rows", test_compare_notes},
	{"compare/gate commands: bad input exits 2", test_commands_bad_input},
	{"gate simulation: false positives and power", test_gate_simulation},
	{"gate: a regression whose baseline moved too is noted", test_gate_machine_moved},
	{"compare and gate: service metrics", test_services},
	{"gate: a sweep's slope against a baseline result", test_gate_sweeps},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE_BESIDE("stats-gate", NULL, NULL, gate_tests);
