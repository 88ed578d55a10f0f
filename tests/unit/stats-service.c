// SPDX-License-Identifier: GPL-2.0
/*
 * stats/service.h on synthetic service cells (fixed seed): a 10% throughput loss and a p99 rise
 * are found with CIs that hold them and "overhead" verdicts, an unchanged p50 is not; the cells'
 * own figures are the samples' medians and sums; ops per sample become the samples' mean; the
 * deciding p99 gives the cell its verdict; a baseline gets figures but no overheads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "model/result.h"
#include "stats/stats.h"
#include "tb_test.h"

#define ROUNDS 12

/* A service cell: rounds samples of rps around rps0 and p99 around p99_0 (1% noise each). */
static void add(struct tb_result *r, gsl_rng *rng, const char *tr, bool base, double rps0,
		double p99_0, const char *decides)
{
	struct tb_cell *c = tb_result_add_cell(r);
	char id[64];

	snprintf(id, sizeof(id), "svc/%s", tr);
	c->id = strdup(id);
	c->workload = strdup("svc");
	c->workload_type = strdup("redis");
	c->tracer = strdup(tr);
	c->tracer_type = strdup(base ? "none" : "bpf");
	c->baseline = base;
	c->ops_per_sample = 1;
	if (!base) { /* it traced: events, none lost */
		c->events_recorded = 1000 * ROUNDS;
		c->events_lost = 0;
	}
	for (int i = 0; i < ROUNDS; i++) {
		struct tb_sample *s = tb_cell_add_sample(c);
		double rps = rps0 * (1 + gsl_ran_gaussian(rng, 0.01));

		s->round = i;
		s->ops = (uint64_t)llround(rps); /* one second of requests */
		s->elapsed_ns = 1e9;
		s->ns_per_op = 1e9 / (double)s->ops;
		if (!base) {
			s->events = 1000;
			s->lost = 0;
		}
		s->svc.present = true;
		s->svc.rps = rps;
		s->svc.p50_ns = 50e3 * (1 + gsl_ran_gaussian(rng, 0.003));
		s->svc.p99_ns = p99_0 * (1 + gsl_ran_gaussian(rng, 0.01));
		s->svc.p999_ns = 2 * s->svc.p99_ns;
		s->svc.errors = 1;
		s->svc.server_cpu_s = 0.5;
		s->svc.server_ctxsw = (int64_t)s->ops;
		snprintf(s->svc.decides, sizeof(s->svc.decides), "%s", decides);
	}
}

static struct tb_result *synth(const char *decides)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tb_result *r = tb_result_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	gsl_rng_set(rng, 11);
	r->seed = 5;
	r->resamples = 4000;
	add(r, rng, "none", true, 10000, 1e6, decides);
	add(r, rng, "bpf", false, 9000, 1.2e6, decides);
	gsl_rng_free(rng);
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	return r;
}

static void test_overheads(void)
{
	struct tb_result *r = synth("throughput");
	const struct tb_service_overhead *b = &r->cells[0].service, *t = &r->cells[1].service;

	CU_ASSERT(b->present && !b->traced);
	CU_ASSERT(isnan(b->loss_pct));
	CU_ASSERT(t->present && t->traced);
	CU_ASSERT_DOUBLE_EQUAL(t->loss_pct, 10, 1.5);
	CU_ASSERT(t->loss_lo <= t->loss_pct && t->loss_pct <= t->loss_hi && t->loss_lo > 0);
	if (t->thr_verdict != TB_VERDICT_OVERHEAD)
		printf("\n    cell: %s\n", r->cells[1].overhead.reason);
	CU_ASSERT_EQUAL(t->thr_verdict, TB_VERDICT_OVERHEAD);
	CU_ASSERT_DOUBLE_EQUAL(t->p99_delta, 0.2e6, 0.03e6);
	CU_ASSERT(t->p99_lo > 0 && t->p99_lo <= t->p99_delta && t->p99_delta <= t->p99_hi);
	CU_ASSERT_EQUAL(t->p99_verdict, TB_VERDICT_OVERHEAD);
	/* unchanged: within the noise threshold (1%) whatever its CI */
	CU_ASSERT(fabs(t->p50_delta) < 0.01 * 50e3);
	CU_ASSERT_EQUAL(t->p50_verdict, TB_VERDICT_NO_OVERHEAD);
	/* the cell's own figures */
	CU_ASSERT_DOUBLE_EQUAL(b->rps, 10000, 200);
	CU_ASSERT_EQUAL(b->errors, ROUNDS);
	CU_ASSERT_DOUBLE_EQUAL(b->cpu_ns_per_req, 0.5e9 / 10000, 0.5e9 / 10000 * 0.03);
	CU_ASSERT_DOUBLE_EQUAL(b->ctxsw_per_req, 1, 1e-9);
	CU_ASSERT_STRING_EQUAL(t->decides, "throughput");
	/* ops per sample: the samples' mean requests, so that events/op count per request */
	CU_ASSERT(llabs((long long)r->cells[0].ops_per_sample - 10000) < 200);
	tb_result_free(r);
}

static void test_p99_decides(void)
{
	struct tb_result *r = synth("p99");
	const struct tb_cell *c = &r->cells[1];

	if (c->overhead.verdict != TB_VERDICT_UNTRUSTWORTHY) {
		CU_ASSERT_EQUAL(c->overhead.verdict, c->service.p99_verdict);
		CU_ASSERT_PTR_NOT_NULL(strstr(c->overhead.reason, "decided by p99"));
	}
	tb_result_free(r);
}

/* Too few samples a side: untrustworthy, not a verdict from noise. */
static void test_too_few(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tb_result *r = tb_result_new();

	gsl_rng_set(rng, 3);
	add(r, rng, "none", true, 10000, 1e6, "throughput");
	add(r, rng, "bpf", false, 5000, 1e6, "throughput");
	r->cells[0].nsamples = r->cells[1].nsamples = 1;
	CU_ASSERT_EQUAL(tb_stats_analyze(r), 0);
	CU_ASSERT_EQUAL(r->cells[1].service.thr_verdict, TB_VERDICT_UNTRUSTWORTHY);
	gsl_rng_free(rng);
	tb_result_free(r);
}

static CU_TestInfo service_tests[] = {
	{"throughput loss and p99 rise found with CIs and verdicts", test_overheads},
	{"the deciding p99 gives the cell its verdict", test_p99_decides},
	{"one sample a side is untrustworthy", test_too_few},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("stats-service", NULL, NULL, service_tests);
