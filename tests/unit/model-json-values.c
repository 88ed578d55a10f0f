// SPDX-License-Identifier: GPL-2.0
/*
 * Crafted numbers in every numeric field of a result (the keys of model/result.h): 1e100,
 * 1e308, -1e100, -1, -0.5, INT64_MAX and the string "NaN" (a NaN literal is not JSON). Each
 * one is either refused by the reader, naming the key, or survives everything compare, gate,
 * plot and report do (tests/fuzz/drive.h): no abort from GSL, no crash, no sanitizer report.
 * Magnitudes beyond TB_RESULT_MAX_VALUE must be refused (the reader's bound, result.h).
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "fixture.h"
#include "fuzz/drive.h"
#include "model/result.h"
#include "stats/stats.h"
#include "tb_test.h"

/* Every numeric key, as a path into the fixture's document ([i] for array elements). */
static const char *const keys[] = {
	/* a sample */
	"cells[1].samples[3].ns_per_op",
	"cells[1].samples[3].ops",
	"cells[1].samples[3].elapsed_ns",
	"cells[1].samples[3].events",
	"cells[1].samples[3].lost",
	"cells[1].samples[3].tracer_cpu_s",
	"cells[1].samples[3].workload_cpu_s",
	"cells[1].samples[3].voluntary_ctxsw",
	"cells[1].samples[3].involuntary_ctxsw",
	"cells[1].samples[3].minor_faults",
	"cells[1].samples[3].tracer_setup_s",
	"cells[1].samples[3].tracer_teardown_s",
	"cells[1].samples[3].metric",
	"cells[1].samples[3].bpf_run_cnt",
	"cells[1].samples[3].bpf_run_time_ns",
	"cells[1].samples[3].round",
	"cells[1].samples[3].order",
	"cells[0].samples[2].ns_per_op",
	/* a cell and its summary */
	"cells[1].threads",
	"cells[1].ops_per_sample",
	"cells[1].event_rate",
	"cells[1].events_recorded",
	"cells[1].events_lost",
	"cells[1].tracer_cpu_s",
	"cells[1].tracer_mem_bytes",
	"cells[1].summary.n",
	"cells[1].summary.median",
	"cells[1].summary.mean",
	"cells[1].summary.sd",
	"cells[1].summary.cv",
	"cells[1].summary.min",
	"cells[1].summary.max",
	"cells[1].summary.mad",
	"cells[1].summary.outliers",
	/* an overhead */
	"cells[1].overhead.pct",
	"cells[1].overhead.ci[0]",
	"cells[1].overhead.ci[1]",
	"cells[1].overhead.mean_pct",
	"cells[1].overhead.ns_per_op",
	"cells[1].overhead.ns_per_op_ci[1]",
	"cells[1].overhead.events_per_op",
	"cells[1].overhead.ns_per_event",
	"cells[1].overhead.ns_per_event_ci[0]",
	"cells[1].overhead.bpf_ns_per_run",
	"cells[1].overhead.p_mannwhitney",
	"cells[1].overhead.p_welch",
	"cells[1].overhead.hodges_lehmann_ns",
	"cells[1].overhead.mde_pct",
	/* settings, the A/A summary */
	"settings.seed",
	"settings.rounds",
	"settings.warmup",
	"settings.duration_ns",
	"settings.noise_threshold",
	"settings.alpha",
	"settings.power",
	"settings.confidence",
	"settings.bootstrap_resamples",
	"settings.precision",
	"settings.max_cv",
	"aa_calibration.cells",
	"aa_calibration.false_positives",
	"aa_calibration.false_positive_rate",
	"aa_calibration.noise_floor_pct",
	"aa_calibration.max_abs_pct",
	/* a rate model */
	"rate_models[0].points",
	"rate_models[0].fixed_ns",
	"rate_models[0].fixed_ns_ci[0]",
	"rate_models[0].cost_ns_per_event",
	"rate_models[0].cost_ns_per_event_ci[1]",
	"rate_models[0].r2",
	"rate_models[0].pct_fixed",
	"rate_models[0].pct_per_mevents_s",
	"rate_models[0].p_quadratic",
};

/* The latency cell of the fixture and its keys (found by latency_mode). */
static const char *const lat_keys[] = {
	"latency.clock_cost_ns", "latency.count",	  "latency.p50",
	"latency.p90",		 "latency.p99",		  "latency.p999",
	"latency.max",		 "latency.buckets[0][0]", "latency.buckets[0][1]",
};

static json_t *fixture_doc;
static char scratch[4096];

static int values_init(void)
{
	struct tb_result *r = tb_fixture_result(0);
	json_t *aa;

	if (!r)
		return 1;
	/* The fixture ran beside foreign instrumentation: allowed, its cells keep their verdicts
	 * and its sweep its rate model (untrustworthy cells fit none), so every key is there. */
	r->allow_foreign = true;
	if (tb_stats_analyze(r))
		return 1;
	fixture_doc = tb_result_to_json(r);
	tb_result_free(r);
	aa = json_pack("{s:i, s:i, s:f, s:f, s:f}", "cells", 2, "false_positives", 0,
		       "false_positive_rate", 0.0, "noise_floor_pct", 0.5, "max_abs_pct", 0.2);
	if (!fixture_doc || !aa || json_object_set_new(fixture_doc, "aa_calibration", aa))
		return 1;
	snprintf(scratch, sizeof(scratch), "%s", tb_test_tmpdir());
	setenv("TB_GNUPLOT", "/nonexistent/gnuplot", 1); /* the reports without drawing */
	return 0;
}

static int values_clean(void)
{
	json_decref(fixture_doc);
	unsetenv("TB_GNUPLOT");
	return 0;
}

/* The member named by one segment ("name", "name[i]" or "name[i][j]") of o: its container
 * into *parent and how to set it (key or index). */
static json_t *walk(json_t *o, const char *path, json_t **parent, char *key, size_t *idx)
{
	char seg[128], *br;
	const char *dot;
	size_t n;

	for (;;) {
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		snprintf(seg, sizeof(seg), "%.*s", (int)n, path);
		br = strchr(seg, '[');
		if (br)
			*br = '\0';
		*parent = o;
		snprintf(key, 128, "%s", seg);
		*idx = (size_t)-1;
		o = json_object_get(o, seg);
		for (; br; br = strchr(br + 1, '[')) {
			*parent = o;
			*idx = strtoul(br + 1, NULL, 10);
			o = json_array_get(o, *idx);
		}
		if (!dot)
			return o;
		path = dot + 1;
	}
}

static int set_path(json_t *doc, const char *path, json_t *v)
{
	json_t *parent, *cur;
	char key[128];
	size_t idx;

	cur = walk(doc, path, &parent, key, &idx);
	(void)cur;
	if (!parent)
		return -1;
	if (idx != (size_t)-1)
		return json_array_set(parent, idx, v);
	return json_object_set(parent, key, v);
}

/* The last segment's name, as the reader's message has it ("ns_per_op", "ci"). */
static void key_name(const char *path, char *out, size_t len)
{
	const char *dot = strrchr(path, '.');
	char *br;

	snprintf(out, len, "%s", dot ? dot + 1 : path);
	br = strchr(out, '[');
	if (br && strncmp(out, "buckets", 7))
		*br = '\0';
	else if (br)
		snprintf(out, len, "buckets[0]");
}

/* Returns 1 when refused (naming the key), 0 when it went through every consumer. */
static int try_value(const char *path, json_t *v)
{
	struct tb_result *r = NULL, *b = NULL;
	json_t *doc = json_deep_copy(fixture_doc);
	char name[64];
	int refused;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL_FATAL(set_path(doc, path, v), 0);
	tb_log_set_level(TB_LOG_SILENT);
	refused = tb_result_from_json(doc, "v.json", &r) != 0;
	if (refused) {
		key_name(path, name, sizeof(name));
		if (!strstr(tb_result_last_error(), name))
			printf("\n    %s: the error does not name %s: %s", path, name,
			       tb_result_last_error());
		CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), name));
	} else {
		CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "b.json", &b), 0);
		CU_ASSERT_EQUAL(tb_drive_result(r, b, scratch), 0);
	}
	tb_log_set_level(TB_LOG_INFO);
	tb_result_free(r);
	tb_result_free(b);
	json_decref(doc);
	return refused;
}

/* Whether the fixture's value at path is an integer (a count) or absent. */
static bool is_metric(const char *path)
{
	return strstr(path, ".metric") != NULL;
}

static void check_key(const char *path)
{
	json_t *huge[] = {json_real(1e100), json_real(1e308), json_real(-1e100)};
	json_t *other[] = {json_integer(-1), json_real(-0.5), json_integer(INT64_MAX),
			   json_string("NaN"), json_integer(0)};
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(huge); i++) {
		int refused = try_value(path, huge[i]);

		/* A command's metric may be any finite number up to 1e300. */
		if (!refused && !(is_metric(path) && i != 1))
			printf("\n    %s = %g was accepted", path, json_real_value(huge[i]));
		if (!(is_metric(path) && i != 1))
			CU_ASSERT(refused);
		json_decref(huge[i]);
	}
	for (i = 0; i < TB_ARRAY_SIZE(other); i++) {
		int refused = try_value(path, other[i]);

		if (json_is_string(other[i]))
			CU_ASSERT(refused); /* "NaN" is not a number */
		json_decref(other[i]);
	}
}

static void test_every_key(void)
{
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(keys); i++)
		check_key(keys[i]);
}

static void test_latency_keys(void)
{
	json_t *cells = json_object_get(fixture_doc, "cells"), *c;
	char path[160];
	size_t i, k = (size_t)-1;

	json_array_foreach(cells, i, c)
	{
		if (json_is_object(json_object_get(c, "latency")) && k == (size_t)-1)
			k = i;
	}
	CU_ASSERT_NOT_EQUAL_FATAL(k, (size_t)-1);
	for (i = 0; i < TB_ARRAY_SIZE(lat_keys); i++) {
		snprintf(path, sizeof(path), "cells[%zu].%s", k, lat_keys[i]);
		check_key(path);
	}
}

/* The bound itself and just inside it: accepted and driven through everything. */
static void test_bounds_accepted(void)
{
	json_t *v = json_real(TB_RESULT_MAX_VALUE);

	CU_ASSERT_EQUAL(try_value("cells[1].samples[3].ns_per_op", v), 0);
	CU_ASSERT_EQUAL(try_value("cells[0].samples[4].ns_per_op", v), 0);
	json_decref(v);
	v = json_real(TB_RESULT_MIN_NS);
	CU_ASSERT_EQUAL(try_value("cells[0].samples[4].ns_per_op", v), 0);
	json_decref(v);
	v = json_real(TB_RESULT_MIN_NS / 2);
	CU_ASSERT_EQUAL(try_value("cells[0].samples[4].ns_per_op", v), 1);
	json_decref(v);
}

/*
 * What the reader's bounds keep out must still not abort the statistics: GSL's handler is off
 * (tb_stats_init, as in main), so its special functions give NAN and the verdict says so.
 */
static void test_gsl_does_not_abort(void)
{
	double x[] = {1e100, 2, 3, 4, 5, 6}, y[] = {1, 2, 3, 4, 5, 1e-100}, p;

	p = tb_stats_welch_p(x, 6, y, 6);
	CU_ASSERT(isnan(p) || (p >= 0 && p <= 1));
	p = tb_stats_welch_p(y, 6, x, 6);
	CU_ASSERT(isnan(p) || (p >= 0 && p <= 1));
	p = tb_stats_mde(1e200, 6, 1e200, 6, 0.05, 0.8);
	CU_ASSERT(!isinf(p) || p > 0);
	/* What aborted `gate` on 1e100 (gsl_sf_lnbeta, via tb_stats_welch_p): NAN degrees of
	 * freedom. With the default handler this is SIGABRT. */
	CU_ASSERT(isnan(gsl_cdf_tdist_Q(1.0, NAN)));
}

static CU_TestInfo values_tests[] = {
	{"GSL errors are statuses, not aborts", test_gsl_does_not_abort},
	{"crafted numbers in every key", test_every_key},
	{"crafted numbers in the latency keys", test_latency_keys},
	{"values at the bounds", test_bounds_accepted},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE_BESIDE("model-json-values", values_init, values_clean, values_tests);
