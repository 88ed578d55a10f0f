// SPDX-License-Identifier: GPL-2.0
/*
 * Series identity (history/series.c, model/system.c): what splits a series and what does not,
 * the points a result gives, the stored form of per-sample values, SERIES arguments.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "history/series.h"
#include "model/result.h"
#include "model/system.h"
#include "stats/stats.h"
#include "tb_test.h"

static void test_variant(void)
{
	char a[13], b[13], c[13], d[13];

	CU_ASSERT_EQUAL(tb_hscenario_variant("[global]\nrepetitions = 5\n\n[workload g]\ntype = "
					     "getpid\n",
					     a),
			0);
	/* comments, blank lines, spaces around '=' and at the ends do not count */
	CU_ASSERT_EQUAL(tb_hscenario_variant("; a comment\n[global]\n  repetitions=5   ; rounds\n"
					     "# another\n[workload g]\ntype=getpid",
					     b),
			0);
	CU_ASSERT_STRING_EQUAL(a, b);
	/* a value does */
	CU_ASSERT_EQUAL(tb_hscenario_variant("[global]\nrepetitions = 6\n[workload g]\ntype = "
					     "getpid\n",
					     c),
			0);
	CU_ASSERT_STRING_NOT_EQUAL(a, c);
	CU_ASSERT_EQUAL(tb_hscenario_variant(NULL, d), 0);
	CU_ASSERT_EQUAL(strlen(d), 12);
}

/* The hardware class ignores the kernel and tools, not the CPU or the virtualization. */
static void test_hardware_class(void)
{
	json_t *sys = json_pack("{s:{s:s, s:s}, s:{s:i}, s:{s:s}, s:{s:s}, s:{s:s}}", "cpu",
				"model", "Xeon", "vendor", "GenuineIntel", "topology", "pus", 2,
				"kernel", "release", "6.18.0", "virtualization", "type", "kvm",
				"tools", "perf", "6.1");
	char h1[17], h2[17], h3[17], h4[17], desc[160];

	CU_ASSERT_EQUAL_FATAL(tb_system_hardware_class(sys, h1, desc, sizeof(desc)), 0);
	CU_ASSERT_STRING_EQUAL(desc, "Xeon, 2 PUs, kvm");
	json_object_set_new(json_object_get(sys, "kernel"), "release", json_string("6.19.1"));
	json_object_set_new(json_object_get(sys, "tools"), "perf", json_string("6.2"));
	CU_ASSERT_EQUAL(tb_system_hardware_class(sys, h2, NULL, 0), 0);
	CU_ASSERT_STRING_EQUAL(h1, h2);
	json_object_set_new(json_object_get(sys, "virtualization"), "type", json_string("none"));
	CU_ASSERT_EQUAL(tb_system_hardware_class(sys, h3, NULL, 0), 0);
	CU_ASSERT_STRING_NOT_EQUAL(h1, h3);
	json_object_set_new(json_object_get(sys, "cpu"), "model", json_string("EPYC"));
	CU_ASSERT_EQUAL(tb_system_hardware_class(sys, h4, NULL, 0), 0);
	CU_ASSERT_STRING_NOT_EQUAL(h3, h4);
	CU_ASSERT_TRUE(tb_system_key_is_hardware("topology.caches"));
	CU_ASSERT_FALSE(tb_system_key_is_hardware("kernel.release"));
	CU_ASSERT_TRUE(tb_system_key_is_transient("load.loadavg"));
	json_decref(sys);
}

/* The content hash ignores labels and layout, not a sample. */
static void test_run_hash(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_RATE);
	json_t *doc = tb_result_to_json(r), *copy;
	char h1[65], h2[65], h3[65];

	CU_ASSERT_EQUAL_FATAL(tb_hrun_hash(doc, h1), 0);
	copy = json_deep_copy(doc);
	json_object_set_new(copy, "labels", json_pack("{s:s}", "commit", "abc"));
	CU_ASSERT_EQUAL(tb_hrun_hash(copy, h2), 0);
	CU_ASSERT_STRING_EQUAL(h1, h2);
	r->cells[0].samples[2].ns_per_op += 0.001;
	json_decref(copy);
	copy = tb_result_to_json(r);
	CU_ASSERT_EQUAL(tb_hrun_hash(copy, h3), 0);
	CU_ASSERT_STRING_NOT_EQUAL(h1, h3);
	json_decref(copy);
	json_decref(doc);
	tb_result_free(r);
}

static const struct tb_hpoint *point(const struct tb_hpoints *p, const char *cell, const char *m)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->p[i].cell, cell) && !strcmp(p->p[i].metric->name, m))
			return &p->p[i];
	return NULL;
}

static void test_points_of_result(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_RATE);
	const struct tb_hpoint *p;
	struct tb_hpoints pts;

	CU_ASSERT_EQUAL_FATAL(tb_hpoints_of_result(r, &pts), 0);
	/* a baseline: its median ns/op with the median's CI and every measured sample */
	p = point(&pts, "getpid/none", "ns_per_op");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_DOUBLE_EQUAL(p->value, r->cells[0].summary.median, 1e-9);
	CU_ASSERT(p->ci_lo <= p->value && p->value <= p->ci_hi);
	CU_ASSERT_EQUAL(p->nsamples, r->cells[0].summary.n);
	CU_ASSERT_PTR_NULL(point(&pts, "getpid/none", "overhead_pct"));
	/* a traced cell: the result's overhead and CI, per-round overheads */
	p = point(&pts, "getpid/tp-getpid", "overhead_pct");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_DOUBLE_EQUAL(p->value, r->cells[1].overhead.pct, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(p->ci_lo, r->cells[1].overhead.ci_lo, 1e-9);
	CU_ASSERT_EQUAL(p->nsamples, 10);
	CU_ASSERT_DOUBLE_EQUAL(tb_stats_median(p->samples, p->nsamples), p->value, 15);
	CU_ASSERT_STRING_EQUAL(p->verdict, "overhead");
	p = point(&pts, "getpid/tp-getpid", "overhead_ns");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_DOUBLE_EQUAL(p->scale, r->cells[0].summary.median, 1e-9);
	CU_ASSERT_PTR_NOT_NULL(point(&pts, "getpid/tp-getpid", "ns_per_event"));
	CU_ASSERT_PTR_NOT_NULL(point(&pts, "getpid/tp-getpid", "events_lost"));
	/* latency mode: the percentiles, without CI or samples */
	p = point(&pts, "getpid-latency/none", "latency_p99");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT(isnan(p->ci_lo) && !p->samples);
	tb_hpoints_free(&pts);
	tb_result_free(r);
}

/* A service cell: its throughput, p50 and p99 each a series, the median of its samples. */
static void test_service_points(void)
{
	struct tb_result *r = NULL;
	const struct tb_hpoint *p;
	struct tb_hpoints pts;
	char path[512];

	snprintf(path, sizeof(path), "%s/results/svc-a.json", tb_test_data_dir());
	CU_ASSERT_EQUAL_FATAL(tb_result_load(path, &r), 0);
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	CU_ASSERT_EQUAL_FATAL(tb_hpoints_of_result(r, &pts), 0);
	p = point(&pts, "nginx/bpf-count", "service_rps");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_DOUBLE_EQUAL(p->value, r->cells[1].service.rps, 1e-6);
	CU_ASSERT(p->ci_lo <= p->value && p->value <= p->ci_hi);
	CU_ASSERT_EQUAL(p->nsamples, 10);
	p = point(&pts, "nginx/none", "service_p99");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_DOUBLE_EQUAL(p->value, r->cells[0].service.p99_ns, 1e-6);
	CU_ASSERT_PTR_NOT_NULL(point(&pts, "nginx/none", "service_p50"));
	tb_hpoints_free(&pts);
	tb_result_free(r);
}

/*
 * A sweep's accepted line: its slope is a point of the series of the swept section against the
 * other side; a refused line gives none (sweep-slope history, issue 31).
 */
static void test_sweep_points(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_RATE);
	struct tb_sweep *sw = tb_result_add_sweep(r), *refused;
	const struct tb_hpoint *p;
	struct tb_hpoints pts;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sw);
	sw->kind = strdup("tracer");
	sw->section = strdup("tp-idle");
	sw->against = strdup("getpid");
	sw->fit.accepted = true;
	sw->fit.cost_ns = 12.5;
	sw->fit.cost_ci_lo = 11;
	sw->fit.cost_ci_hi = 14;
	refused = tb_result_add_sweep(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(refused);
	refused->kind = strdup("workload");
	refused->section = strdup("getpid-mix");
	refused->against = strdup("ft-filter");
	refused->fit.cost_ns = 3;
	CU_ASSERT_EQUAL_FATAL(tb_hpoints_of_result(r, &pts), 0);
	p = point(&pts, "tp-idle", "sweep_slope");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(p->workload, "getpid");
	CU_ASSERT_STRING_EQUAL(p->tracer, "tp-idle");
	CU_ASSERT_DOUBLE_EQUAL(p->value, 12.5, 0);
	CU_ASSERT_DOUBLE_EQUAL(p->ci_lo, 11, 0);
	CU_ASSERT_DOUBLE_EQUAL(p->ci_hi, 14, 0);
	CU_ASSERT_PTR_NULL(point(&pts, "getpid-mix", "sweep_slope"));
	tb_hpoints_free(&pts);
	tb_result_free(r);
}

static void test_samples_text(void)
{
	static const double v[] = {1.5, -2.25, 1e-9, 123456.789};
	double *back = NULL;
	size_t n = 0;
	char *t = tb_hsamples_text(v, 4);

	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_EQUAL(tb_hsamples_parse(t, &back, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT_DOUBLE_EQUAL(back[i], v[i], fabs(v[i]) * 1e-9);
	free(back);
	free(t);
	CU_ASSERT_EQUAL(tb_hsamples_parse("[]", &back, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(tb_hsamples_parse("[1, 2", &back, &n), -EINVAL);
	CU_ASSERT_EQUAL(tb_hsamples_parse("[1, nan]", &back, &n), -EINVAL);
	CU_ASSERT_EQUAL(tb_hsamples_parse("{}", &back, &n), -EINVAL);
	CU_ASSERT_EQUAL(tb_hsamples_parse("[1,,2]", &back, &n), -EINVAL);
}

static void test_series_match(void)
{
	struct tb_hseries s = {0};

	s.scenario = strdup("quick");
	s.workload = strdup("getpid");
	s.tracer = strdup("tp");
	s.metric_name = strdup("overhead_pct");
	s.hw_class = strdup("0123456789abcdef");
	s.variant = strdup("aaaaaaaaaaaa");
	CU_ASSERT_EQUAL_FATAL(tb_hseries_name(&s), 0);
	CU_ASSERT_STRING_EQUAL(s.name, "quick/getpid/tp/overhead_pct");
	CU_ASSERT_EQUAL(strlen(s.id), 12);
	CU_ASSERT_PTR_NOT_NULL(s.metric);
	CU_ASSERT_TRUE(tb_hseries_match(&s, "quick/*/overhead_pct"));
	CU_ASSERT_TRUE(tb_hseries_match(&s, "*"));
	CU_ASSERT_FALSE(tb_hseries_match(&s, "quick/read/*"));
	CU_ASSERT_TRUE(tb_hseries_match(&s, (char[]){s.id[0], s.id[1], s.id[2], s.id[3], 0}));
	CU_ASSERT_FALSE(tb_hseries_match(&s, (char[]){s.id[0], s.id[1], s.id[2], 0}));
	/* joined scenario texts are another series */
	{
		char id[13];

		memcpy(id, s.id, sizeof(id));
		free(s.variant);
		s.variant = NULL;
		CU_ASSERT_EQUAL(tb_hseries_name(&s), 0);
		CU_ASSERT_STRING_NOT_EQUAL(id, s.id);
	}
	tb_hseries_free_fields(&s);
}

static CU_TestInfo series_tests[] = {
	{"service cells: a series per service metric", test_service_points},
	{"sweeps: a series of each accepted line's slope", test_sweep_points},
	{"scenario variant: comments and spaces do not count", test_variant},
	{"hardware class: CPU and virtualization, not software", test_hardware_class},
	{"content hash: labels aside", test_run_hash},
	{"the points of a result", test_points_of_result},
	{"per-sample values as stored", test_samples_text},
	{"series names, ids and globs", test_series_match},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("history-series", NULL, NULL, series_tests);
