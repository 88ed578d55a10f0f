// SPDX-License-Identifier: GPL-2.0
/*
 * Accounting samples (result.h, tb_sample.accounting): a cell's timed samples run with the BPF
 * stats off, one accounting sample per round with them on. They never reach the overhead
 * statistics, the accounting's own cost is measured against the timed samples of the same
 * rounds (a CI from TB_ACCOUNTING_CI_MIN points, else a ratio of means that says so), the
 * proof's counts come from them when the timed samples know none, and result.json's new keys
 * (samples' bpf_stats and accounting, the cell's accounting object) are written and read back
 * strictly. Synthetic data from the fixture (fixed seed, no timing).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "fixture.h"
#include "model/measured.h"
#include "model/result.h"
#include "stats/stats.h"
#include "tb_test.h"

#define DUMP_FLAGS  (JSON_INDENT(1) | JSON_REAL_PRECISION(17))
#define STATS_COST  1.7 /* an accounting sample's ns/op against its round's timed one */
#define RUNS_PER_OP 1.0

/*
 * The README fixture (getpid x none, tp-getpid), its traced cell given nacct accounting samples
 * (rounds 0 to nacct - 1) at STATS_COST x its round's ns/op, with RUNS_PER_OP runs per op at
 * 100 ns each; its timed samples have the stats off and know no events, as a command tracer's
 * BPF runs are without the stats.
 */
static struct tb_result *with_accounting(unsigned int nacct, struct tb_cell **cell)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_README);
	struct tb_cell *c;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(r->ncells, 2);
	c = &r->cells[1];
	CU_ASSERT_FALSE_FATAL(c->baseline);
	n = c->nsamples;
	for (size_t i = 0; i < n; i++) {
		c->samples[i].bpf_stats = 0;
		c->samples[i].events = -1;
	}
	c->events_recorded = c->events_lost = -1;
	for (unsigned int k = 0; k < nacct; k++) {
		size_t ti = n;
		struct tb_sample *s;

		for (size_t i = 0; i < n && ti == n; i++)
			if (!c->samples[i].warmup && c->samples[i].round == (int)k)
				ti = i;
		CU_ASSERT_TRUE_FATAL(ti < n);
		s = tb_cell_add_sample(c); /* the array may move: the timed one by its index */
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		s->round = (int)k;
		s->order = 100000 + k; /* after every sample of the fixture's run */
		s->accounting = true;
		s->bpf_stats = 1;
		s->ns_per_op = c->samples[ti].ns_per_op * STATS_COST;
		s->ops = c->samples[ti].ops;
		s->elapsed_ns = s->ns_per_op * (double)s->ops;
		s->events = s->bpf_run_cnt = (int64_t)(RUNS_PER_OP * (double)s->ops);
		s->bpf_run_time_ns = 100 * s->bpf_run_cnt;
	}
	*cell = c;
	return r;
}

/* The accounting samples change neither the summary nor the overhead. */
static void test_never_in_overhead(void)
{
	struct tb_cell *c, *c0;
	struct tb_result *r = with_accounting(10, &c), *r0 = with_accounting(0, &c0);

	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r0), 0);
	CU_ASSERT_EQUAL(tb_cell_nmeasured(c), tb_cell_nmeasured(c0));
	CU_ASSERT_EQUAL(c->summary.n, c0->summary.n);
	CU_ASSERT_DOUBLE_EQUAL(c->summary.median, c0->summary.median, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c->overhead.pct, c0->overhead.pct, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c->overhead.ci_lo, c0->overhead.ci_lo, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c->overhead.ci_hi, c0->overhead.ci_hi, 1e-9);
	CU_ASSERT_FALSE(c0->accounting.present);
	tb_result_free(r);
	tb_result_free(r0);
}

/* Ten rounds: the cost with its CI, the run figures, the proof's counts from them. */
static void test_cost_with_ci(void)
{
	struct tb_cell *c;
	struct tb_result *r = with_accounting(10, &c);
	const struct tb_accounting *a = &c->accounting;

	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	CU_ASSERT_TRUE_FATAL(a->present);
	CU_ASSERT_EQUAL(a->samples, 10);
	CU_ASSERT_DOUBLE_EQUAL(a->cost_pct, 100 * (STATS_COST - 1), 2);
	CU_ASSERT_TRUE(a->ci_lo <= a->cost_pct && a->cost_pct <= a->ci_hi);
	CU_ASSERT_TRUE(a->ci_hi - a->ci_lo < 10);
	CU_ASSERT_EQUAL(a->ci_reason[0], '\0');
	CU_ASSERT_DOUBLE_EQUAL(a->bpf_runs_per_op, RUNS_PER_OP, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a->bpf_ns_per_run, 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(a->cost_ns_per_run, a->cost_ns_per_op / RUNS_PER_OP, 1e-9);
	/* The timed samples know no events: the counts are the accounting samples'. */
	CU_ASSERT_EQUAL(tb_cell_nevent_samples(c), 10);
	CU_ASSERT_DOUBLE_EQUAL(c->overhead.events_per_op, RUNS_PER_OP, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c->overhead.bpf_ns_per_run, 100, 1e-9);
	tb_result_free(r);
}

/* Three rounds: too few for a CI; a ratio of means, and the reason says so. */
static void test_few_points(void)
{
	struct tb_cell *c;
	struct tb_result *r = with_accounting(3, &c);
	const struct tb_accounting *a = &c->accounting;

	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	CU_ASSERT_TRUE_FATAL(a->present);
	CU_ASSERT_EQUAL(a->samples, 3);
	CU_ASSERT_TRUE(isnan(a->ci_lo) && isnan(a->ci_hi));
	CU_ASSERT_PTR_NOT_NULL(strstr(a->ci_reason, "ratio of the means of 3 accounting"));
	CU_ASSERT_TRUE(a->cost_pct > 50 && a->cost_pct < 90);
	tb_result_free(r);
}

static json_t *cell_json(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "cells"), i);
}

/* Written: bpf_stats on every sample of the cell, accounting on its accounting samples, the
 * accounting object; read back strictly into the same model, and written the same again. */
static void test_keys_round_trip(void)
{
	struct tb_cell *c;
	struct tb_result *r = with_accounting(10, &c), *back = NULL;
	json_t *doc, *again, *samples, *a, *s;
	size_t i, nacct = 0;
	char *x, *y;

	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	samples = json_object_get(cell_json(doc, 1), "samples");
	json_array_foreach(samples, i, s)
	{
		bool acct = json_is_true(json_object_get(s, "accounting"));

		nacct += acct;
		CU_ASSERT_TRUE(acct ? json_is_true(json_object_get(s, "bpf_stats"))
				    : json_is_false(json_object_get(s, "bpf_stats")));
		CU_ASSERT_TRUE(acct || !json_object_get(s, "accounting"));
	}
	CU_ASSERT_EQUAL(nacct, 10);
	/* The baseline holds no BPF account: neither key. */
	s = json_array_get(json_object_get(cell_json(doc, 0), "samples"), 0);
	CU_ASSERT_PTR_NULL(json_object_get(s, "bpf_stats"));
	CU_ASSERT_PTR_NULL(json_object_get(cell_json(doc, 0), "accounting"));
	a = json_object_get(cell_json(doc, 1), "accounting");
	CU_ASSERT_TRUE_FATAL(json_is_object(a));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(a, "samples")), 10);
	CU_ASSERT_TRUE(json_is_array(json_object_get(a, "cost_ci")));
	CU_ASSERT_TRUE(json_is_number(json_object_get(a, "bpf_ns_per_run")));
	/* listed apart: the orders of the accounting samples, and only theirs */
	a = json_object_get(cell_json(doc, 1), "accounting_samples");
	CU_ASSERT_EQUAL(json_array_size(a), 10);
	json_array_foreach(a, i, s)
	{
		json_t *smp = NULL, *e;
		size_t k;

		json_array_foreach(samples, k, e)
		{
			if (json_integer_value(json_object_get(e, "order")) ==
			    json_integer_value(s))
				smp = e;
		}
		CU_ASSERT_TRUE(smp && json_is_true(json_object_get(smp, "accounting")));
	}
	CU_ASSERT_PTR_NULL(json_object_get(cell_json(doc, 0), "accounting_samples"));
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "acct.json", &back), 0);
	CU_ASSERT_TRUE(back->cells[1].accounting.present);
	CU_ASSERT_DOUBLE_EQUAL(back->cells[1].accounting.cost_pct, c->accounting.cost_pct, 1e-9);
	CU_ASSERT_EQUAL(back->cells[1].samples[back->cells[1].nsamples - 1].accounting, true);
	CU_ASSERT_EQUAL(back->cells[1].samples[0].bpf_stats, 0);
	CU_ASSERT_EQUAL(back->cells[0].samples[0].bpf_stats, -1);
	again = tb_result_to_json(back);
	x = json_dumps(doc, DUMP_FLAGS);
	y = json_dumps(again, DUMP_FLAGS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	CU_ASSERT_PTR_NOT_NULL_FATAL(y);
	CU_ASSERT_STRING_EQUAL(x, y);
	free(x);
	free(y);
	json_decref(again);
	json_decref(doc);
	tb_result_free(back);
	tb_result_free(r);
}

/* A bad value under one of the new keys is refused, naming its path. */
static void refused(const char *path, void (*spoil)(json_t *cell))
{
	struct tb_cell *c;
	struct tb_result *r = with_accounting(10, &c), *back = NULL;
	json_t *doc;

	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	spoil(cell_json(doc, 1));
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "bad.json", &back), -EINVAL);
	tb_log_set_level(TB_LOG_INFO);
	if (!strstr(tb_result_last_error(), path))
		printf("\n    expected %s in: %s", path, tb_result_last_error());
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), path));
	json_decref(doc);
	tb_result_free(back);
	tb_result_free(r);
}

static void spoil_bpf_stats(json_t *cell)
{
	json_object_set_new(json_array_get(json_object_get(cell, "samples"), 2), "bpf_stats",
			    json_string("on"));
}

static void spoil_accounting_flag(json_t *cell)
{
	json_object_set_new(json_array_get(json_object_get(cell, "samples"), 2), "accounting",
			    json_integer(1));
}

static void spoil_ci(json_t *cell)
{
	json_object_set_new(json_object_get(cell, "accounting"), "cost_ci",
			    json_pack("[f, f]", 9.0, 1.0));
}

static void spoil_count(json_t *cell)
{
	json_object_set_new(json_object_get(cell, "accounting"), "samples", json_integer(-3));
}

static void spoil_ns_per_run(json_t *cell)
{
	json_object_set_new(json_object_get(cell, "accounting"), "bpf_ns_per_run", json_real(-5.0));
}

static void test_bad_values(void)
{
	refused("cells[1].samples[2].bpf_stats", spoil_bpf_stats);
	refused("cells[1].samples[2].accounting", spoil_accounting_flag);
	refused("cells[1].accounting.cost_ci", spoil_ci);
	refused("cells[1].accounting.samples", spoil_count);
	refused("cells[1].accounting.bpf_ns_per_run", spoil_ns_per_run);
}

static CU_TestInfo accounting_tests[] = {
	{"accounting samples are never in the overhead", test_never_in_overhead},
	{"the accounting's cost with its CI, run figures and counts", test_cost_with_ci},
	{"with too few points, a ratio of means that says so", test_few_points},
	{"the new keys written, read back strictly, written the same", test_keys_round_trip},
	{"a bad value under a new key is refused, naming it", test_bad_values},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("stats-accounting", NULL, NULL, accounting_tests);
