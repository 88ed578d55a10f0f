// SPDX-License-Identifier: GPL-2.0
/* result.json: a full round trip of every field, and strict validation with named key paths. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/measured.h"
#include "model/result.h"
#include "core/tb.h"
#include "tb_test.h"

/* Equal, treating NAN == NAN (unknowns must stay unknown). */
static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static struct tb_result *build(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_cell *c;
	struct tb_sample *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->scenario_name = strdup("quick");
	r->scenario_path = strdup("scenarios/quick.ini");
	r->scenario_text = strdup("[global]\nrepetitions = 10\n\xff not utf8");
	r->command_line = strdup("tracebench run scenarios/quick.ini");
	r->started = strdup("2026-11-29T10:00:00Z");
	r->finished = strdup("2026-11-29T10:01:00Z");
	r->partial = true;
	r->stop_reason = strdup("interrupted");
	r->system = json_pack("{s:s, s:{s:s}}", "fingerprint", "abc", "kernel", "release", "6.18");
	r->seed = 18446744073709551557ull; /* above INT64_MAX: goes out as a string */
	r->rounds = 12;
	r->warmup = 2;
	r->duration_ns = 2000000000ull;
	r->noise_threshold = 0.02;
	r->alpha = 0.01;
	r->power = 0.9;
	r->confidence = 0.99;
	r->resamples = 20000;
	r->precision = 0.005;
	r->aa = true;
	json_array_append_new(r->foreign, json_string("bpf prog 12 on sys_enter"));
	json_array_append_new(r->warnings, json_string("governor is powersave"));
	r->gate = json_pack("{s:s}", "max-overhead", "5%");
	r->aa_summary.present = true;
	r->aa_summary.ncells = 3;
	r->aa_summary.false_positives = 1;
	r->aa_summary.fp_rate = 1.0 / 3;
	r->aa_summary.noise_floor_pct = 0.75;
	r->aa_summary.max_abs_pct = 0.5;
	struct tb_rate_model *m = tb_result_add_rate_model(r);
	m->workload_type = strdup("rate");
	m->tracer = strdup("tp");
	m->npoints = 5;
	m->fixed_ns = 1.5;
	m->fixed_ci_lo = 1;
	m->fixed_ci_hi = 2;
	m->cost_ns = 120;
	m->cost_ci_lo = 110;
	m->cost_ci_hi = 130;
	m->r2 = 0.99;
	m->pct_fixed = 0.1;
	m->pct_per_mevent_s = 12.5;
	m->p_quadratic = 0.3;
	m->nonlinear = true;

	c = tb_result_add_cell(r);
	c->id = strdup("getpid/none");
	c->workload = strdup("getpid");
	c->workload_type = strdup("getpid");
	c->workload_config = json_pack("{s:i}", "iterations", 0);
	c->tracer = strdup("none");
	c->tracer_type = strdup("none");
	c->baseline = true;
	c->ops_per_sample = 1000000;
	c = tb_result_add_cell(r);
	c->id = strdup("getpid/tp");
	c->workload = strdup("getpid");
	c->workload_type = strdup("getpid");
	c->tracer = strdup("tp");
	c->tracer_type = strdup("ftrace-events");
	c->tracer_config = json_pack("{s:s}", "events", "syscalls:sys_enter_getpid");
	c->threads = 2;
	c->latency_mode = true;
	c->partner_cpu = true;
	c->ops_per_sample = 5000;
	c->rate = 1000.5;
	c->events_recorded = 123456789012ll;
	c->events_lost = 0;
	c->tracer_cpu_s = 0.25;
	c->tracer_mem_bytes = 1 << 20;
	c->tracer_extra = json_pack("{s:i}", "overruns", 0);
	c->error = strdup("setup failed: EPERM");
	for (int i = 0; i < 3; i++) {
		s = tb_cell_add_sample(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		s->round = i - 1;
		s->warmup = i == 0;
		s->order = 7 + (unsigned int)i;
		s->ns_per_op = 200.125 + i;
		s->ops = 5000;
		s->elapsed_ns = 1e6 + i;
		s->events = 5000;
		s->lost = i;
		s->tracer_cpu_s = 0.01;
		s->wl_cpu_s = 0.99;
		s->nvcsw = 3;
		s->nivcsw = 4;
		s->minflt = 5;
		s->setup_s = 0.1;
		s->teardown_s = 0.2;
		s->metric = i == 2 ? -1.5 : NAN;
		s->failed = i == 2;
		s->rearmed = i > 0; /* a kept tracer rearmed after the first sample */
		s->bpf_run_cnt = 100;
		s->bpf_run_time_ns = 2500;
	}
	c->summary.n = 2;
	c->summary.median = 201;
	c->summary.mean = 201.5;
	c->summary.sd = 0.7;
	c->summary.cv = 0.0035;
	c->summary.min = 200;
	c->summary.max = 203;
	c->summary.mad = 0.5;
	c->summary.outliers = 1;
	c->summary.outlier = calloc(3, sizeof(bool));
	c->summary.outlier[1] = true;
	c->summary.noutlier = 3;
	c->latency.present = true;
	c->latency.clock_cost_ns = 25;
	c->latency.count = 99;
	c->latency.p50 = 100;
	c->latency.p90 = 150;
	c->latency.p99 = 300;
	c->latency.p999 = 900;
	c->latency.max = 1200;
	c->latency.nbuckets = 2;
	c->latency.bucket_ns = calloc(2, sizeof(double));
	c->latency.bucket_count = calloc(2, sizeof(uint64_t));
	c->latency.bucket_ns[0] = 128;
	c->latency.bucket_ns[1] = 256;
	c->latency.bucket_count[0] = 90;
	c->latency.bucket_count[1] = 9;
	c->has_overhead = true;
	c->overhead.pct = 150.25;
	c->overhead.ci_lo = 140;
	c->overhead.ci_hi = 160;
	c->overhead.mean_pct = 151;
	c->overhead.ns_per_op = 300.5;
	c->overhead.ns_ci_lo = 280;
	c->overhead.ns_ci_hi = 320;
	c->overhead.events_per_op = 1;
	c->overhead.ns_per_event = 300.5;
	c->overhead.nse_ci_lo = 280;
	c->overhead.nse_ci_hi = 320;
	c->overhead.bpf_ns_per_run = NAN;
	c->overhead.p_mannwhitney = 0.0001;
	c->overhead.p_welch = 1e-9;
	c->overhead.hl_shift_ns = 299;
	c->overhead.mde_pct = 1.2;
	c->overhead.verdict = TB_VERDICT_OVERHEAD;
	snprintf(c->overhead.reason, sizeof(c->overhead.reason), "CI [140%%, 160%%] excludes 0");
	return r;
}

static void check_equal(const struct tb_result *a, const struct tb_result *b)
{
	CU_ASSERT_STRING_EQUAL(b->schema, TB_RESULT_SCHEMA);
	CU_ASSERT(same_str(a->tool_version, b->tool_version));
	CU_ASSERT(same_str(a->scenario_name, b->scenario_name));
	CU_ASSERT(same_str(a->scenario_path, b->scenario_path));
	/* Invalid UTF-8 is replaced with '?', the rest kept. */
	CU_ASSERT_STRING_EQUAL(b->scenario_text, "[global]\nrepetitions = 10\n? not utf8");
	CU_ASSERT(same_str(a->command_line, b->command_line));
	CU_ASSERT(same_str(a->started, b->started));
	CU_ASSERT(same_str(a->finished, b->finished));
	CU_ASSERT_EQUAL(a->partial, b->partial);
	CU_ASSERT(same_str(a->stop_reason, b->stop_reason));
	CU_ASSERT(json_equal(a->system, b->system));
	CU_ASSERT_EQUAL(a->seed, b->seed);
	CU_ASSERT_EQUAL(a->rounds, b->rounds);
	CU_ASSERT_EQUAL(a->warmup, b->warmup);
	CU_ASSERT_EQUAL(a->duration_ns, b->duration_ns);
	CU_ASSERT(same(a->noise_threshold, b->noise_threshold));
	CU_ASSERT(same(a->alpha, b->alpha));
	CU_ASSERT(same(a->power, b->power));
	CU_ASSERT(same(a->confidence, b->confidence));
	CU_ASSERT_EQUAL(a->resamples, b->resamples);
	CU_ASSERT(same(a->precision, b->precision));
	CU_ASSERT_EQUAL(a->aa, b->aa);
	CU_ASSERT(json_equal(a->foreign, b->foreign));
	CU_ASSERT(json_equal(a->warnings, b->warnings));
	CU_ASSERT(json_equal(a->gate, b->gate));
	CU_ASSERT_EQUAL(a->aa_summary.present, b->aa_summary.present);
	CU_ASSERT_EQUAL(a->aa_summary.ncells, b->aa_summary.ncells);
	CU_ASSERT_EQUAL(a->aa_summary.false_positives, b->aa_summary.false_positives);
	CU_ASSERT(same(a->aa_summary.fp_rate, b->aa_summary.fp_rate));
	CU_ASSERT(same(a->aa_summary.noise_floor_pct, b->aa_summary.noise_floor_pct));
	CU_ASSERT(same(a->aa_summary.max_abs_pct, b->aa_summary.max_abs_pct));
	CU_ASSERT_EQUAL_FATAL(a->nrate_models, b->nrate_models);
	for (size_t i = 0; i < a->nrate_models; i++) {
		const struct tb_rate_model *x = &a->rate_models[i], *y = &b->rate_models[i];

		CU_ASSERT(same_str(x->workload_type, y->workload_type));
		CU_ASSERT(same_str(x->tracer, y->tracer));
		CU_ASSERT_EQUAL(x->npoints, y->npoints);
		CU_ASSERT(same(x->fixed_ns, y->fixed_ns) && same(x->fixed_ci_lo, y->fixed_ci_lo) &&
			  same(x->fixed_ci_hi, y->fixed_ci_hi));
		CU_ASSERT(same(x->cost_ns, y->cost_ns) && same(x->cost_ci_lo, y->cost_ci_lo) &&
			  same(x->cost_ci_hi, y->cost_ci_hi));
		CU_ASSERT(same(x->r2, y->r2) && same(x->pct_fixed, y->pct_fixed) &&
			  same(x->pct_per_mevent_s, y->pct_per_mevent_s) &&
			  same(x->p_quadratic, y->p_quadratic));
		CU_ASSERT_EQUAL(x->nonlinear, y->nonlinear);
	}
	CU_ASSERT_EQUAL_FATAL(a->ncells, b->ncells);
	for (size_t i = 0; i < a->ncells; i++) {
		const struct tb_cell *x = &a->cells[i], *y = &b->cells[i];

		CU_ASSERT(same_str(x->id, y->id));
		CU_ASSERT(same_str(x->workload, y->workload));
		CU_ASSERT(same_str(x->workload_type, y->workload_type));
		CU_ASSERT(json_equal(x->workload_config, y->workload_config) ||
			  (!x->workload_config && !y->workload_config));
		CU_ASSERT(same_str(x->tracer, y->tracer));
		CU_ASSERT(same_str(x->tracer_type, y->tracer_type));
		CU_ASSERT(json_equal(x->tracer_config, y->tracer_config) ||
			  (!x->tracer_config && !y->tracer_config));
		CU_ASSERT_EQUAL(x->baseline, y->baseline);
		CU_ASSERT_EQUAL(x->threads, y->threads);
		CU_ASSERT_EQUAL(x->latency_mode, y->latency_mode);
		CU_ASSERT_EQUAL(x->partner_cpu, y->partner_cpu);
		CU_ASSERT_EQUAL(x->ops_per_sample, y->ops_per_sample);
		CU_ASSERT(same(x->rate, y->rate));
		CU_ASSERT_EQUAL(x->events_recorded, y->events_recorded);
		CU_ASSERT_EQUAL(x->events_lost, y->events_lost);
		CU_ASSERT(same(x->tracer_cpu_s, y->tracer_cpu_s));
		CU_ASSERT_EQUAL(x->tracer_mem_bytes, y->tracer_mem_bytes);
		CU_ASSERT(json_equal(x->tracer_extra, y->tracer_extra) ||
			  (!x->tracer_extra && !y->tracer_extra));
		CU_ASSERT(same_str(x->error, y->error));
		CU_ASSERT_EQUAL_FATAL(x->nsamples, y->nsamples);
		for (size_t j = 0; j < x->nsamples; j++) {
			const struct tb_sample *s = &x->samples[j], *t = &y->samples[j];

			CU_ASSERT_EQUAL(s->round, t->round);
			CU_ASSERT_EQUAL(s->warmup, t->warmup);
			CU_ASSERT_EQUAL(s->order, t->order);
			CU_ASSERT(same(s->ns_per_op, t->ns_per_op));
			CU_ASSERT_EQUAL(s->ops, t->ops);
			CU_ASSERT(same(s->elapsed_ns, t->elapsed_ns));
			CU_ASSERT_EQUAL(s->events, t->events);
			CU_ASSERT_EQUAL(s->lost, t->lost);
			CU_ASSERT(same(s->tracer_cpu_s, t->tracer_cpu_s));
			CU_ASSERT(same(s->wl_cpu_s, t->wl_cpu_s));
			CU_ASSERT_EQUAL(s->nvcsw, t->nvcsw);
			CU_ASSERT_EQUAL(s->nivcsw, t->nivcsw);
			CU_ASSERT_EQUAL(s->minflt, t->minflt);
			CU_ASSERT(same(s->setup_s, t->setup_s));
			CU_ASSERT(same(s->teardown_s, t->teardown_s));
			CU_ASSERT(same(s->metric, t->metric));
			CU_ASSERT_EQUAL(s->failed, t->failed);
			CU_ASSERT_EQUAL(s->rearmed, t->rearmed);
			CU_ASSERT_EQUAL(s->bpf_run_cnt, t->bpf_run_cnt);
			CU_ASSERT_EQUAL(s->bpf_run_time_ns, t->bpf_run_time_ns);
			CU_ASSERT_EQUAL(x->summary.outlier && j < x->summary.noutlier &&
						x->summary.outlier[j],
					y->summary.outlier && j < y->summary.noutlier &&
						y->summary.outlier[j]);
		}
		CU_ASSERT_EQUAL(x->summary.n, y->summary.n);
		CU_ASSERT(same(x->summary.median, y->summary.median));
		CU_ASSERT(same(x->summary.mean, y->summary.mean));
		CU_ASSERT(same(x->summary.sd, y->summary.sd));
		CU_ASSERT(same(x->summary.cv, y->summary.cv));
		CU_ASSERT(same(x->summary.min, y->summary.min));
		CU_ASSERT(same(x->summary.max, y->summary.max));
		CU_ASSERT(same(x->summary.mad, y->summary.mad));
		CU_ASSERT_EQUAL(x->summary.outliers, y->summary.outliers);
		CU_ASSERT_EQUAL(x->latency.present, y->latency.present);
		CU_ASSERT(same(x->latency.clock_cost_ns, y->latency.clock_cost_ns));
		CU_ASSERT_EQUAL(x->latency.count, y->latency.count);
		CU_ASSERT(same(x->latency.p50, y->latency.p50) &&
			  same(x->latency.p90, y->latency.p90) &&
			  same(x->latency.p99, y->latency.p99) &&
			  same(x->latency.p999, y->latency.p999) &&
			  same(x->latency.max, y->latency.max));
		CU_ASSERT_EQUAL_FATAL(x->latency.nbuckets, y->latency.nbuckets);
		for (size_t j = 0; j < x->latency.nbuckets; j++) {
			CU_ASSERT(same(x->latency.bucket_ns[j], y->latency.bucket_ns[j]));
			CU_ASSERT_EQUAL(x->latency.bucket_count[j], y->latency.bucket_count[j]);
		}
		CU_ASSERT_EQUAL(x->has_overhead, y->has_overhead);
		if (!x->has_overhead)
			continue;
		const struct tb_overhead *o = &x->overhead, *p = &y->overhead;

		CU_ASSERT(same(o->pct, p->pct) && same(o->ci_lo, p->ci_lo) &&
			  same(o->ci_hi, p->ci_hi));
		CU_ASSERT(same(o->mean_pct, p->mean_pct));
		CU_ASSERT(same(o->ns_per_op, p->ns_per_op) && same(o->ns_ci_lo, p->ns_ci_lo) &&
			  same(o->ns_ci_hi, p->ns_ci_hi));
		CU_ASSERT(same(o->events_per_op, p->events_per_op));
		CU_ASSERT(same(o->ns_per_event, p->ns_per_event) &&
			  same(o->nse_ci_lo, p->nse_ci_lo) && same(o->nse_ci_hi, p->nse_ci_hi));
		CU_ASSERT(same(o->bpf_ns_per_run, p->bpf_ns_per_run));
		CU_ASSERT(same(o->p_mannwhitney, p->p_mannwhitney));
		CU_ASSERT(same(o->p_welch, p->p_welch));
		CU_ASSERT(same(o->hl_shift_ns, p->hl_shift_ns));
		CU_ASSERT(same(o->mde_pct, p->mde_pct));
		CU_ASSERT_EQUAL(o->verdict, p->verdict);
		CU_ASSERT_STRING_EQUAL(o->reason, p->reason);
	}
}

static void test_roundtrip(void)
{
	struct tb_result *r = build(), *back = NULL, *again = NULL;
	const char *dir = tb_test_tmpdir();
	char path[256];
	struct stat st;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/r.json", dir);
	CU_ASSERT_EQUAL_FATAL(tb_result_save(r, path), 0);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0644);
	CU_ASSERT_EQUAL_FATAL(tb_result_load(path, &back), 0);
	check_equal(r, back);
	/* A second trip changes nothing (the '?' replacement is stable). */
	CU_ASSERT_EQUAL_FATAL(tb_result_save(back, path), 0);
	CU_ASSERT_EQUAL_FATAL(tb_result_load(path, &again), 0);
	check_equal(back, again);
	tb_result_free(r);
	tb_result_free(back);
	tb_result_free(again);
}

static void test_defaults(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_cell *c, *b;
	struct tb_sample *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_DOUBLE_EQUAL(r->alpha, 0.05, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r->power, 0.8, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r->confidence, 0.95, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(r->noise_threshold, 0.01, 1e-12);
	CU_ASSERT_EQUAL(r->resamples, 10000);
	/* Many cells and samples: growth keeps earlier content. */
	for (int i = 0; i < 100; i++) {
		char id[16];

		c = tb_result_add_cell(r);
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		snprintf(id, sizeof(id), "c%d", i);
		c->id = strdup(id);
		c->workload = strdup(i < 50 ? "a" : "b");
		c->baseline = i == 10 || i == 60;
		CU_ASSERT_EQUAL(c->events_recorded, -1);
		CU_ASSERT(isnan(c->rate));
	}
	CU_ASSERT_STRING_EQUAL(r->cells[37].id, "c37");
	c = &r->cells[99];
	for (int i = 0; i < 1000; i++) {
		s = tb_cell_add_sample(c);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		s->ns_per_op = i;
	}
	CU_ASSERT_EQUAL(c->nsamples, 1000);
	CU_ASSERT_EQUAL(c->samples[999].order, 999);
	CU_ASSERT_EQUAL(c->samples[500].ns_per_op, 500);
	CU_ASSERT_EQUAL(c->samples[3].events, -1);
	CU_ASSERT(isnan(c->samples[3].metric));
	b = tb_result_baseline(r, &r->cells[3]);
	CU_ASSERT_PTR_EQUAL(b, &r->cells[10]);
	b = tb_result_baseline(r, &r->cells[70]);
	CU_ASSERT_PTR_EQUAL(b, &r->cells[60]);
	CU_ASSERT_STRING_EQUAL(tb_verdict_name(TB_VERDICT_UNTRUSTWORTHY), "untrustworthy");
	enum tb_verdict v;
	CU_ASSERT_EQUAL(tb_verdict_parse("no-detectable-overhead", &v), 0);
	CU_ASSERT_EQUAL(v, TB_VERDICT_NO_OVERHEAD);
	CU_ASSERT_EQUAL(tb_verdict_parse("bogus", &v), -EINVAL);
	tb_result_free(r);
}

/* Parse text, expect -EINVAL and a message containing want. */
static void refuse(const char *text, const char *want)
{
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);
	struct tb_result *r = (void *)1;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	ret = tb_result_from_json(doc, "r.json", &r);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NULL(r);
	if (!strstr(tb_result_last_error(), want)) {
		printf("\n    wanted \"%s\" in \"%s\"\n", want, tb_result_last_error());
		CU_FAIL("message does not name the problem");
	}
	json_decref(doc);
}

#define HEAD "{\"schema\": \"tracebench-result/1\", "
#define CELL "\"id\": \"w/t\", \"workload\": \"w\", \"tracer\": \"t\", \"baseline\": false, "

static void test_validation(void)
{
	struct tb_result *r;
	json_t *doc;

	refuse("[1, 2]", "r.json: expected a JSON object at the top level");
	refuse("{\"cells\": []}", "r.json: schema: required key missing");
	refuse("{\"schema\": \"other/2\", \"cells\": []}", "r.json: schema: unsupported schema");
	refuse("{\"schema\": 1, \"cells\": []}", "r.json: schema: expected a string");
	refuse(HEAD "\"cells\": {}}", "r.json: cells: expected an array");
	refuse(HEAD "\"partial\": 1, \"cells\": []}", "r.json: partial: expected true or false");
	refuse(HEAD "\"cells\": [1]}", "r.json: cells[0]: expected an object");
	refuse(HEAD "\"cells\": [{\"id\": \"x\"}]}", "r.json: cells[0].workload: required key");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [{\"ns_per_op\": 1}, {\"ns_per_op\": "
		    "\"x\"}]}]}",
	       "r.json: cells[0].samples[1].ns_per_op: expected a number");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [{\"ns_per_op\": -1}]}]}",
	       "r.json: cells[0].samples[0].ns_per_op: must be >= 0");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [{\"ns_per_op\": null}]}]}",
	       "cells[0].samples[0].ns_per_op: null is only allowed for a failed sample");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [{}]}]}",
	       "cells[0].samples[0].ns_per_op: required key missing");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [], \"events_lost\": -3}]}",
	       "r.json: cells[0].events_lost: must be >= 0");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [], \"events_lost\": 1.5}]}",
	       "r.json: cells[0].events_lost: expected an integer");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": []}, {" CELL "\"samples\": []}]}",
	       "r.json: cells[1].id: duplicate cell id \"w/t\" (also cells[0])");
	refuse(HEAD "\"settings\": {\"alpha\": 1.5}, \"cells\": []}",
	       "r.json: settings.alpha: must be between 0 and 1");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [], \"overhead\": {\"verdict\": \"meh\"}}]}",
	       "r.json: cells[0].overhead.verdict: unknown verdict");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [], \"overhead\": {\"ci\": [3, 1]}}]}",
	       "r.json: cells[0].overhead.ci: lo 3 is above hi 1");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [], \"latency\": {\"buckets\": [[1, 2], "
		    "[1, 3]]}}]}",
	       "cells[0].latency.buckets[1]: buckets must be sorted");
	refuse(HEAD "\"foreign_instrumentation\": [\"a\", 3], \"cells\": []}",
	       "r.json: foreign_instrumentation[1]: expected a string");
	refuse(HEAD "\"cells\": [{" CELL "\"samples\": [], \"threads\": 0}]}",
	       "cells[0].threads: must be >= 1");

	/* Unknown keys are fine; a failed sample may have no ns/op. */
	doc = json_loads(HEAD
			 "\"future\": {\"x\": 1}, \"cells\": [{" CELL
			 "\"samples\": [{\"ns_per_op\": null, \"failed\": true, \"new\": 1}]}]}",
			 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "r.json", &r), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(r->ncells, 1);
	CU_ASSERT(isnan(r->cells[0].samples[0].ns_per_op));
	CU_ASSERT(r->cells[0].samples[0].failed);
	CU_ASSERT_EQUAL(r->cells[0].events_recorded, -1);
	CU_ASSERT_EQUAL(r->cells[0].threads, 1);
	tb_result_free(r);
	json_decref(doc);
}

static void test_enormous(void)
{
	/* One more cell / sample than the limit is refused before anything is allocated. */
	size_t n = TB_RESULT_MAX_SAMPLES + 1;
	json_t *doc, *cell, *samples = json_array();
	struct tb_result *r;

	for (size_t i = 0; i < n; i++)
		json_array_append_new(samples, json_pack("{s:f}", "ns_per_op", 1.0));
	cell = json_pack("{s:s, s:s, s:s, s:b, s:o}", "id", "a", "workload", "w", "tracer", "t",
			 "baseline", 0, "samples", samples);
	doc = json_pack("{s:s, s:[o]}", "schema", TB_RESULT_SCHEMA, "cells", cell);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "big.json", &r), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(),
				      "big.json: cells[0].samples: too many elements (100001"));
	json_decref(doc);
}

static void load_fixture(const char *name, int want, const char *msg)
{
	char path[512];
	struct tb_result *r = NULL;

	snprintf(path, sizeof(path), "%s/results/%s", tb_test_data_dir(), name);
	CU_ASSERT_EQUAL(tb_result_load(path, &r), want);
	if (msg && !strstr(tb_result_last_error(), msg)) {
		printf("\n    %s: wanted \"%s\" in \"%s\"\n", name, msg, tb_result_last_error());
		CU_FAIL("message does not name the problem");
	}
	if (!want)
		CU_ASSERT_PTR_NOT_NULL(r);
	tb_result_free(r);
}

static void test_fixtures(void)
{
	load_fixture("a.json", 0, NULL);
	load_fixture("b.json", 0, NULL);
	load_fixture("pass.json", 0, NULL);
	load_fixture("bad-malformed.json", -EINVAL, "bad-malformed.json:2:");
	load_fixture("bad-malformed.json", -EINVAL, "malformed JSON");
	load_fixture("bad-schema.json", -EINVAL, "bad-schema.json: schema: unsupported schema");
	load_fixture("bad-type.json", -EINVAL,
		     "bad-type.json: cells[1].samples[3].ns_per_op: expected a number");
	load_fixture("bad-missing.json", -EINVAL, "cells[0].workload: required key missing");
	load_fixture("bad-negative.json", -EINVAL, "cells[1].samples[2].ns_per_op: must be >= 0");
	load_fixture("bad-duplicate.json", -EINVAL, "cells[1].id: duplicate cell id");
	load_fixture("bad-huge.json", -EINVAL, "bad-huge.json: cells: too many elements (4097");
	load_fixture("does-not-exist.json", -ENOENT, "does-not-exist.json: cannot read");
}

/* A stopped run's samples: abandoned and partial_round survive the file and never count. */
static void test_interrupted_samples(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	struct tb_cell *c = tb_result_add_cell(r);
	struct tb_sample *s;
	json_t *doc;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	c->id = strdup("w/none");
	c->workload = strdup("w");
	c->tracer = strdup("none");
	c->baseline = true;
	c->threads = 1;
	for (i = 0; i < 4; i++) {
		s = tb_cell_add_sample(c);
		s->round = i < 3 ? i : 3;
		s->ns_per_op = 100 + i;
		s->ops = 10;
		s->failed = false;
	}
	s->partial_round = true; /* round 3 was in progress */
	s = tb_cell_add_sample(c);
	s->round = 3;
	s->abandoned = true; /* the sample the stop cut short */
	r->rounds = 3;
	CU_ASSERT_EQUAL(tb_cell_nmeasured(c), 3);
	doc = tb_result_to_json(r);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "i.json", &back), 0);
	CU_ASSERT_EQUAL(back->cells[0].nsamples, 5);
	CU_ASSERT(back->cells[0].samples[3].partial_round && !back->cells[0].samples[3].failed);
	CU_ASSERT(back->cells[0].samples[4].abandoned && !back->cells[0].samples[4].failed);
	CU_ASSERT_EQUAL(tb_cell_nmeasured(&back->cells[0]), 3);
	CU_ASSERT(!back->cells[0].samples[2].partial_round && !back->cells[0].samples[2].abandoned);
	json_decref(doc);
	tb_result_free(back);
	tb_result_free(r);
}

static CU_TestInfo result_tests[] = {
	{"samples of a stopped run", test_interrupted_samples},
	{"round trip of every field", test_roundtrip},
	{"defaults, growth, baseline lookup", test_defaults},
	{"validation names file and key", test_validation},
	{"enormous arrays refused", test_enormous},
	{"fixture files", test_fixtures},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("model-json", NULL, NULL, result_tests);
