// SPDX-License-Identifier: GPL-2.0
/*
 * A max-time is honoured (runner/budget.h; tracebench issues 28 and 32: a precision and
 * max-time = 15s scenario under a uprobe, each traced op 5-65x its baseline's, ran 1 round in
 * 40-60 s). The budget's arithmetic on synthetic cells, and a real run whose traced cell is the
 * delay tracer's known cost (5 us an op: many times a getpid): its slowdown is measured, its
 * samples get their own op count, and the run ends within max-time plus a sample's slack.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/inject.h"
#include "core/tb.h"
#include "model/measured.h"
#include "model/result.h"
#include "parse/scenario.h"
#include "plan/plan.h"
#include "runner/budget.h"
#include "runner/runner.h"
#include "stats/stats.h"
#include "tb_test.h"

#define S 1000000000ull

/* A plan of text into *s, *r, *p (the caller's), with its scratch directories. */
static void plan_of(const char *text, struct tb_scenario **s, struct tb_result **r,
		    struct tb_plan *p)
{
	*r = tb_result_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(*r);
	CU_ASSERT_EQUAL_FATAL(tb_scenario_parse(text, "budget.ini", s), 0);
	CU_ASSERT_EQUAL_FATAL(tb_plan_build(*s, *r, p), 0);
	for (size_t i = 0; i < (*s)->nworkloads; i++)
		snprintf(p->wls[i].tmpdir, sizeof(p->wls[i].tmpdir), "%s", tb_test_tmpdir());
}

static void done(struct tb_scenario *s, struct tb_result *r, struct tb_plan *p)
{
	tb_plan_free(p);
	tb_result_free(r);
	tb_scenario_free(s);
}

/*
 * The stop rule weighs the next round: at one simulated second per round and a 12 s budget,
 * a round predicted at 1 s starts only while it ends by 12 s (12 rounds, as before: the
 * twelfth ends at 12 s), one predicted at 2.5 s stops the run at 10 rounds, never past 12 s.
 */
static void test_stop_rule(void)
{
	struct tb_runner_stop_rule rule = {
		.min_rounds = 5, .max_rounds = 100, .precision = 0.001, .max_time_ns = 12 * S};
	struct tb_result *r = tb_result_new();
	struct tb_cell *c;
	unsigned int n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	c = tb_result_add_cell(r); /* a traced cell without an interval: precision not met */
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (n = 1; n < 100; n++) {
		rule.next_ns = 1 * S;
		if (tb_runner_stop_reason(r, n, &rule, n * S))
			break;
	}
	CU_ASSERT_EQUAL(n, 12); /* after 11 s the twelfth ends at 12 s: run; after 12 s, none */
	for (n = 1; n < 100; n++) {
		rule.next_ns = 2500000000ull;
		if (tb_runner_stop_reason(r, n, &rule, n * S))
			break;
	}
	CU_ASSERT_EQUAL(n, 10); /* 10 + 2.5 > 12 */
	CU_ASSERT_STRING_EQUAL(tb_runner_stop_reason(r, n, &rule, n * S), "max-time");
	/* below min-rounds too: the budget wins over the rounds asked */
	CU_ASSERT_STRING_EQUAL(tb_runner_stop_reason(r, 2, &rule, 10 * S), "max-time");
	/* without a max-time the next round's time means nothing */
	rule.max_time_ns = 0;
	CU_ASSERT_PTR_NULL(tb_runner_stop_reason(r, 50, &rule, 1000 * S));
	tb_result_free(r);
}

/* The duration that fits: the longest step at or under the plan's, never below the floor. */
static void test_fit_duration(void)
{
	const uint64_t ms = 1000000ull;

	/* fits already: unchanged */
	CU_ASSERT_EQUAL(tb_plan_fit_duration_ns(15, 2, 10, 1000 * ms), 1000 * ms);
	/* 15 s left, 3 s fixed, 30 s per second of duration: 0.4 s */
	CU_ASSERT_EQUAL(tb_plan_fit_duration_ns(15, 3, 30, 1000 * ms), 400 * ms);
	/* 0.43 s rounds down to the 50 ms step */
	CU_ASSERT_EQUAL(tb_plan_fit_duration_ns(15.9, 3, 30, 1000 * ms), 400 * ms);
	/* cannot fit even at the floor: the floor (the run then says what it needs) */
	CU_ASSERT_EQUAL(tb_plan_fit_duration_ns(5, 3, 30, 1000 * ms), TB_PLAN_AUTO_MIN_NS);
	CU_ASSERT_EQUAL(tb_plan_fit_duration_ns(1, 3, 30, 1000 * ms), TB_PLAN_AUTO_MIN_NS);
	/* never longer than the plan's */
	CU_ASSERT_EQUAL(tb_plan_fit_duration_ns(100, 3, 30, 250 * ms), 250 * ms);
	CU_ASSERT_EQUAL(tb_plan_fit_duration_ns(10, 0, 0, 250 * ms), 250 * ms);
}

/*
 * A service's round before any sample is timed: each sample starts its server and warms its
 * client (the workload's setup_ns), which the plan's figure holds (tb_plan_process_s) and the
 * budget's prediction must too. Nothing runs: a service's batch is its client's seconds, not
 * probed. Once the budget took the process alone (TB_PLAN_PROCESS_S): 0.43 s a round short.
 */
static void test_service_round(void)
{
	struct tb_runner rn = {.t_start = tb_now_ns()};
	struct tb_scenario *s = NULL;
	struct tb_result *r = NULL;
	double want = 0;
	struct tb_plan p;

	plan_of("[global]\nmax-time = 60s\nduration = 1s\nsettle = 10ms\n[workload r]\n"
		"type = redis\n[tracer t]\ntype = ftrace-events\n"
		"events = syscalls:sys_enter_getpid\n[matrix]\nworkloads = r\ntracers = none, t\n",
		&s, &r, &p);
	CU_ASSERT_EQUAL_FATAL(p.ncells, 2);
	rn.plan = &p;
	rn.r = r;
	CU_ASSERT_EQUAL_FATAL(tb_runner_budget_start(&rn), 0);
	CU_ASSERT_EQUAL(rn.budget.nprobed, 0);
	for (size_t i = 0; i < p.ncells; i++) {
		const struct tb_scn_workload *w = &s->workloads[p.cells[i].wl];

		CU_ASSERT(tb_plan_process_s(w) > TB_PLAN_PROCESS_S + 0.1); /* a server's start */
		CU_ASSERT_DOUBLE_EQUAL(p.cells[i].fresh_s, tb_plan_cell_fresh_s(&p, i), 1e-12);
		CU_ASSERT_DOUBLE_EQUAL(p.cells[i].fixed_s, tb_plan_cell_fixed_s(&p, i), 1e-12);
		want += tb_plan_cell_fixed_s(&p, i) + tb_plan_batch_s(w);
	}
	CU_ASSERT_DOUBLE_EQUAL(rn.budget.round_s, want, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(tb_runner_round_s(&rn), want, 1e-9);
	tb_runner_free(&rn);
	done(s, r, &p);
}

/* What --dry-run prints for p (the caller frees it). */
static char *printed(const struct tb_plan *p, const struct tb_result *r)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	tb_plan_print(f, p, r);
	fclose(f);
	return out;
}

/*
 * --dry-run: the probes are in the estimate, what max-time does is said, and a minimum that
 * cannot fit even before the tracers' slowdown is said with the max-time it needs.
 */
static void test_dry_run(void)
{
	static const char *const base =
		"[global]\nprecision = 1%%\nmax-time = %s\nmin-rounds = %s\nmax-rounds = 1000\n"
		"[workload g]\ntype = getpid\n[tracer d]\ntype = delay\nns = 5us\n"
		"[matrix]\nworkloads = g\ntracers = none, d\n";
	struct tb_scenario *s = NULL;
	struct tb_result *r = NULL;
	struct tb_plan_estimate e, without;
	char text[512], *out = NULL;
	struct tb_plan p;

	snprintf(text, sizeof(text), base, "60s", "5");
	plan_of(text, &s, &r, &p);
	tb_plan_estimate(&p, &e);
	CU_ASSERT_EQUAL(e.nprobes, 1);
	s->max_time_ns = 0;
	tb_plan_estimate(&p, &without);
	CU_ASSERT_EQUAL(without.nprobes, 0);
	/* the traced cell's probe, and the baseline's for its fixed cost (the duration is the
	 * run's to choose); the delay tracer is set up for every sample, so no rearm probe */
	CU_ASSERT_DOUBLE_EQUAL(e.calib_s - without.calib_s,
			       2 * ((double)TB_PLAN_PROBE_NS / 1e9 + TB_PLAN_PROCESS_S), 1e-9);
	s->max_time_ns = 60 * S;
	out = printed(&p, r);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "max-time 60 s: after calibration each traced cell's "
					   "slowdown is measured (1 short sample"));
	CU_ASSERT_PTR_NULL(strstr(out, "too short"));
	free(out);
	done(s, r, &p);

	/* 1 warmup + 200 rounds of two 200 ms samples: about 80 s, more than 30 s */
	snprintf(text, sizeof(text), base, "30s", "200");
	plan_of(text, &s, &r, &p);
	out = printed(&p, r);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "max-time 30 s is too short: the warmup and the 200 "
					   "rounds asked need about 8"));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "set max-time >= 8"));
	free(out);
	done(s, r, &p);
}

/*
 * A real run: getpid against the delay tracer's 5 us an op (a traced sample at the baseline's
 * op count would last 5-60 durations; the delay's setup measures its spin, about a second),
 * precision out of reach, max-time 8 s, 30 rounds asked (they cannot fit). The traced cell is
 * probed and sized, the rounds asked are said not to fit with the max-time they need, the run
 * stops for max-time within it plus a sample's slack, and the shortfall says max-time cut it.
 */
static void test_real_run(void)
{
	static const char text[] =
		"[global]\nprecision = 0.1%\nmax-time = 8s\nmin-rounds = 30\nseed = 3\n"
		"contended-share = 0%\n"
		"[workload g]\ntype = getpid\n[tracer d]\ntype = delay\nns = 5us\n"
		"[matrix]\nworkloads = g\ntracers = none, d\n";
	struct tb_scenario *s = NULL;
	struct tb_result *r = NULL;
	struct tb_runner rn = {0};
	const struct tb_cell *base, *traced;
	double elapsed, slack = 0;
	char *err, *cut = NULL;
	const char *lengthened;
	struct tb_plan p;
	uint64_t t0;
	int ret;

	CU_ASSERT_EQUAL_FATAL(tb_inject_init(), 0); /* before the children fork, as run does */
	plan_of(text, &s, &r, &p);
	CU_ASSERT_EQUAL_FATAL(p.ncells, 2);
	CU_ASSERT_EQUAL(s->duration_ns, TB_PLAN_AUTO_MIN_NS); /* chosen: the delay costs nothing */
	rn.plan = &p;
	rn.r = r;
	rn.dir = tb_test_tmpdir_open();
	CU_ASSERT_PTR_NOT_NULL_FATAL(rn.dir);
	tb_test_stderr_begin();
	t0 = tb_now_ns();
	ret = tb_runner_run(&rn, 3);
	elapsed = (double)(tb_now_ns() - t0) / 1e9;
	err = tb_test_stderr_end();
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	base = &r->cells[p.cells[0].cell];
	traced = &r->cells[p.cells[1].cell];
	CU_ASSERT_TRUE(base->baseline);
	/* measured, and sized: its op count the baseline's over its slowdown */
	CU_ASSERT(traced->slowdown >= TB_PLAN_SIZE_SLOWDOWN);
	CU_ASSERT_EQUAL(p.cells[1].ops, traced->ops_per_sample);
	CU_ASSERT(fabs((double)traced->ops_per_sample -
		       (double)base->ops_per_sample / traced->slowdown) <= 1);
	CU_ASSERT_EQUAL(rn.budget.nprobed, 1);
	CU_ASSERT_EQUAL(rn.budget.nsized, 1);
	/* the delay's setup measures its spin in every sample (about a second, not declared):
	 * the probes' fixed costs lengthen the chosen duration to the rule's most, then the
	 * budget shortens it to the least, where the rounds asked still do not fit */
	lengthened = r->sample_length
			     ? strstr(r->sample_length, "; lengthened to 1 s by the same "
							"rule once the probes had measured")
			     : NULL;
	CU_ASSERT_PTR_NOT_NULL(lengthened);
	CU_ASSERT(lengthened && strstr(lengthened, "; shortened to 0.2 s once the traced cells'"));
	CU_ASSERT_EQUAL(s->duration_ns, TB_PLAN_AUTO_MIN_NS);
	CU_ASSERT_EQUAL(rn.budget.asked, 30);
	CU_ASSERT(rn.budget.fit < 30);
	CU_ASSERT(r->max_time_needed_s > 8);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "max-time 8 s fits "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "of the 30 rounds asked"));
	CU_ASSERT_STRING_EQUAL(r->stop_reason, "max-time");
	CU_ASSERT(r->rounds >= 1 && r->rounds < 30);
	/* within max-time, plus one sample's slack: the longest sample's batch, tracer setup and
	 * teardown, and its process */
	for (size_t c = 0; c < r->ncells; c++)
		for (size_t i = 0; i < r->cells[c].nsamples; i++) {
			const struct tb_sample *x = &r->cells[c].samples[i];

			slack = fmax(slack, x->elapsed_ns / 1e9 +
						    (isfinite(x->setup_s) ? x->setup_s : 0) +
						    (isfinite(x->teardown_s) ? x->teardown_s : 0) +
						    TB_PLAN_PROCESS_S);
		}
	CU_ASSERT(elapsed <= 8 + slack);
	if (elapsed > 8 + slack)
		printf("\n    the run took %.2f s against max-time 8 s + %.2f s\n", elapsed, slack);
	/* the result says max-time cut it, and what it needed */
	tb_result_update_totals(r);
	CU_ASSERT_EQUAL(tb_stats_analyze(r), 0);
	for (size_t i = 0; i < json_array_size(r->shortfalls); i++) {
		const char *t = json_string_value(json_array_get(r->shortfalls, i));

		if (strstr(t, "max-time (8 s) cut the run at "))
			cut = (char *)t;
	}
	CU_ASSERT_PTR_NOT_NULL(cut);
	CU_ASSERT(cut && strstr(cut, "of the 30 rounds asked") &&
		  strstr(cut, "needed max-time >="));
	free(err);
	tb_runner_free(&rn);
	done(s, r, &p);
}

static CU_TestInfo tests[] = {
	{"the stop rule weighs the next round", test_stop_rule},
	{"the duration that fits the budget", test_fit_duration},
	{"a service's round holds its server's start", test_service_round},
	{"--dry-run: the probes and what max-time does", test_dry_run},
	{"a slow traced cell is sized and the run ends within max-time", test_real_run},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("runner-budget", NULL, NULL, tests);
