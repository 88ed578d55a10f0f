// SPDX-License-Identifier: GPL-2.0
/*
 * The sample length and settle the plan chooses (plan/length.c): the rule on synthetic fixed
 * costs, and on parsed scenarios: chosen only with a precision target and a max-time, only for
 * what the scenario left unset, and said in the result.
 */
#include <stdlib.h>
#include <string.h>

#include "model/result.h"
#include "parse/scenario.h"
#include "plan/plan.h"
#include "tb_test.h"

#define MS 1000000ull

/* fixed / (d + fixed) <= share on the mean, rounded up to the step, within [min, max]. */
static void test_rule(void)
{
	const double cheap[] = {0.01, 0.02};	 /* mean 15 ms: 85 ms -> the 200 ms floor */
	const double ftrace[] = {0.01, 0.075};	 /* mean 42.5 ms: 240.8 ms -> 250 ms */
	const double heavy[] = {0.01, 0.31};	 /* mean 160 ms: 906.7 ms -> 950 ms */
	const double command[] = {0.01, 2.5};	 /* mean 1.255 s: above the 1 s cap */
	const double exact[] = {0.0, 0.1, 0.05}; /* mean 50 ms at 20%: exactly 200 ms */

	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(cheap, 2, 0.15), 200 * MS);
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(ftrace, 2, 0.15), 250 * MS);
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(heavy, 2, 0.15), 950 * MS);
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(command, 2, 0.15), TB_PLAN_AUTO_MAX_NS);
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(exact, 3, 0.20), 200 * MS);
	/* a bigger share allows shorter samples, never below the floor */
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(heavy, 2, 0.30), 400 * MS);
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(ftrace, 2, 0.5), TB_PLAN_AUTO_MIN_NS);
	/* nonsense in: the floor, never 0 or a huge value */
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(ftrace, 0, 0.15), TB_PLAN_AUTO_MIN_NS);
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(ftrace, 2, 0), TB_PLAN_AUTO_MIN_NS);
	CU_ASSERT_EQUAL(tb_plan_auto_duration_ns(ftrace, 2, 1), TB_PLAN_AUTO_MIN_NS);
}

/* A plan of text, with the given [global] lines; *r and *s are the caller's. */
static void plan_of(const char *global, const char *sections, struct tb_scenario **s,
		    struct tb_result **r, struct tb_plan *p)
{
	char text[2048];

	snprintf(text, sizeof(text),
		 "[global]\n%s\n[workload getpid]\ntype = getpid\n%s\n"
		 "[tracer tp]\ntype = ftrace-events\nevents = syscalls:sys_enter_getpid\n"
		 "[tracer cmd]\ntype = command\ncommand = sleep 100\n"
		 "[matrix]\nworkloads = getpid\ntracers = none, tp, cmd\n",
		 global, sections);
	*r = tb_result_new();
	CU_ASSERT_PTR_NOT_NULL_FATAL(*r);
	CU_ASSERT_EQUAL_FATAL(tb_scenario_parse(text, "auto.ini", s), 0);
	CU_ASSERT_EQUAL_FATAL(tb_plan_build(*s, *r, p), 0);
}

static void done(struct tb_scenario *s, struct tb_result *r, struct tb_plan *p)
{
	tb_plan_free(p);
	tb_result_free(r);
	tb_scenario_free(s);
}

/* The settle of the tracer section named name. */
static uint64_t settle_of(const struct tb_scenario *s, const char *name)
{
	int i = tb_scenario_tracer(s, name);

	return i < 0 ? UINT64_MAX : s->tracers[i].settle_ns;
}

/*
 * precision and max-time with the rest at defaults: settle 0 for the tracers that need none
 * (the baseline and the ftrace event), 20 ms kept for the command tracer, and a duration from
 * the cells' declared costs, the same in the scenario, its workload, the cells and the result,
 * with the reason kept.
 */
static void test_chosen(void)
{
	struct tb_scenario *s;
	struct tb_result *r;
	struct tb_plan p;
	size_t i;

	plan_of("precision = 0.3%\nmax-time = 60s", "", &s, &r, &p);
	CU_ASSERT_EQUAL(settle_of(s, "none"), 0);
	CU_ASSERT_EQUAL(settle_of(s, "tp"), 0);
	CU_ASSERT_EQUAL(settle_of(s, "cmd"), 20 * MS);
	CU_ASSERT(s->duration_ns >= TB_PLAN_AUTO_MIN_NS && s->duration_ns <= TB_PLAN_AUTO_MAX_NS);
	CU_ASSERT(s->duration_ns != 1000 * MS || tb_tracer_find("command")->est_cost_ns);
	CU_ASSERT_EQUAL(s->duration_ns % TB_PLAN_AUTO_STEP_NS, 0);
	CU_ASSERT_EQUAL(s->workloads[0].duration_ns, s->duration_ns);
	CU_ASSERT_EQUAL(r->duration_ns, s->duration_ns);
	for (i = 0; i < r->ncells; i++)
		CU_ASSERT_EQUAL(r->cells[i].duration_ns, s->duration_ns);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sample_length);
	printf("\n    %s ", r->sample_length);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->sample_length, "settle 0 for none, tp"));
	CU_ASSERT_PTR_NULL(strstr(r->sample_length, "cmd"));
	done(s, r, &p);
}

/* The scenario's own values win: [global], a workload's duration, a tracer's settle. */
static void test_scenario_wins(void)
{
	struct tb_scenario *s;
	struct tb_result *r;
	struct tb_plan p;

	plan_of("precision = 0.3%\nmax-time = 60s\nduration = 700ms\nsettle = 5ms", "", &s, &r, &p);
	CU_ASSERT_EQUAL(s->duration_ns, 700 * MS);
	CU_ASSERT_EQUAL(settle_of(s, "tp"), 5 * MS);
	CU_ASSERT_PTR_NULL(r->sample_length);
	done(s, r, &p);

	plan_of("precision = 0.3%\nmax-time = 60s", "duration = 650ms", &s, &r, &p);
	CU_ASSERT_EQUAL(s->workloads[0].duration_ns, 650 * MS);
	CU_ASSERT_EQUAL(r->cells[0].duration_ns, 650 * MS);
	CU_ASSERT_NOT_EQUAL(s->duration_ns, 1000 * MS); /* [global]'s was still chosen */
	done(s, r, &p);

	plan_of("precision = 0.3%\nmax-time = 60s\nsettle = 7ms", "", &s, &r, &p);
	CU_ASSERT_EQUAL(settle_of(s, "tp"), 7 * MS);
	CU_ASSERT_EQUAL(settle_of(s, "none"), 7 * MS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sample_length);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->sample_length, "as the scenario sets it"));
	done(s, r, &p);
}

/*
 * min-rounds and max-rounds left unset with precision and max-time: 30 rounds before a stop
 * on precision, then up to the key's bound, said; a key set keeps its value and bounds the
 * other; without a max-time nothing changes.
 */
static void test_rounds(void)
{
	struct tb_scenario *s;
	struct tb_result *r;
	struct tb_plan p;

	plan_of("precision = 0.3%\nmax-time = 60s", "", &s, &r, &p);
	CU_ASSERT_EQUAL(s->min_rounds, TB_PLAN_AUTO_MIN_ROUNDS);
	CU_ASSERT_EQUAL(s->max_rounds, TB_PLAN_AUTO_MAX_ROUNDS);
	CU_ASSERT_EQUAL(tb_scenario_first_rounds(s), TB_PLAN_AUTO_MIN_ROUNDS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->rounds_chosen);
	printf("\n    %s ", r->rounds_chosen);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen, "min-rounds 30, the rounds before"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen, "max-rounds 100000, so that"));
	/* the command tracer takes accounting samples: one round in 5 (6 in the 30) */
	CU_ASSERT_EQUAL(s->accounting_every, TB_PLAN_AUTO_ACCOUNTING_EVERY);
	CU_ASSERT_EQUAL(r->accounting_every, 5);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen,
				      "accounting-every 5: the accounting samples in every 5th "
				      "measured round from the first, 6 of them in the 30 rounds"));
	CU_ASSERT_EQUAL(tb_scenario_accounting_rounds(s, 30), 6);
	CU_ASSERT_EQUAL(tb_scenario_accounting_rounds(s, 31), 7);
	CU_ASSERT_EQUAL(tb_scenario_accounting_rounds(s, 0), 0);
	CU_ASSERT_TRUE(tb_scenario_accounting_round(s, 0));
	CU_ASSERT_FALSE(tb_scenario_accounting_round(s, 4));
	CU_ASSERT_TRUE(tb_scenario_accounting_round(s, 5));
	/* fewer fit the max-time: the chosen minimum comes down to them, not below the floor */
	CU_ASSERT_EQUAL(tb_plan_fit_min_rounds(&p, r, 40), 0);
	CU_ASSERT_EQUAL(s->min_rounds, TB_PLAN_AUTO_MIN_ROUNDS);
	CU_ASSERT_PTR_NULL(strstr(r->rounds_chosen, "lowered"));
	/* lowered, but 25 still hold 5 accounting rounds at one in 5: kept, and its count said
	 * again for the 25 (the 6 said above were of the 30) */
	CU_ASSERT_EQUAL(tb_plan_fit_min_rounds(&p, r, 25), 0);
	CU_ASSERT_EQUAL(s->min_rounds, 25);
	CU_ASSERT_EQUAL(s->accounting_every, 5);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen, "min-rounds lowered to 25 once the traced "
							"cells' slowdown was measured: 25 fit "
							"max-time; accounting-every 5 kept: 5 of "
							"them in the 25 rounds"));
	CU_ASSERT_EQUAL(tb_plan_fit_min_rounds(&p, r, 12), 0);
	CU_ASSERT_EQUAL(s->min_rounds, 12);
	CU_ASSERT_EQUAL(tb_scenario_first_rounds(s), 12);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen, "min-rounds lowered to 12 once"));
	/* fewer rounds: accounting rounds closer together, so that the 12 still hold 6 */
	CU_ASSERT_EQUAL(s->accounting_every, 2);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen, "accounting-every 2 for them: the "
							"accounting samples in every 2nd "
							"measured round from the first, 6 of "
							"them in the 12 rounds"));
	CU_ASSERT_EQUAL(tb_plan_fit_min_rounds(&p, r, 2), 0);
	CU_ASSERT_EQUAL(s->min_rounds, TB_PLAN_AUTO_MIN_ROUNDS_FLOOR);
	CU_ASSERT_EQUAL(s->accounting_every, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen, "accounting-every 1 for them: the "
							"accounting samples in every measured "
							"round from the first, 5 of them"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->rounds_chosen, "lowered to 5 once the traced cells' "
							"slowdown was measured: 2 fit max-time"));
	done(s, r, &p);

	/* the keys' help (`tracebench list`, the man page) names the values the run chooses */
	unsigned int helped = 0;

	for (const struct tb_option *o = tb_scenario_keys(TB_SCN_GLOBAL); o->name; o++) {
		char want[64];

		if (!strcmp(o->name, "min-rounds"))
			snprintf(want, sizeof(want), "precision and max-time: %u)",
				 TB_PLAN_AUTO_MIN_ROUNDS);
		else if (!strcmp(o->name, "accounting-every"))
			snprintf(want, sizeof(want), "precision and max-time: %u)",
				 TB_PLAN_AUTO_ACCOUNTING_EVERY);
		else if (!strcmp(o->name, "max-rounds"))
			snprintf(want, sizeof(want), "precision and max-time: %u,",
				 TB_PLAN_AUTO_MAX_ROUNDS);
		else
			continue;
		CU_ASSERT_PTR_NOT_NULL(strstr(o->help, want));
		helped++;
	}
	CU_ASSERT_EQUAL(helped, 3);

	/* an accounting-every the scenario set is its own */
	plan_of("precision = 0.3%\nmax-time = 60s\naccounting-every = 3", "", &s, &r, &p);
	CU_ASSERT_EQUAL(s->accounting_every, 3);
	CU_ASSERT_PTR_NULL(strstr(r->rounds_chosen, "accounting"));
	CU_ASSERT_EQUAL(tb_plan_fit_min_rounds(&p, r, 12), 0);
	CU_ASSERT_EQUAL(s->accounting_every, 3);
	done(s, r, &p);

	/* a max-rounds set below the chosen minimum bounds it */
	plan_of("precision = 0.3%\nmax-time = 60s\nmax-rounds = 12", "", &s, &r, &p);
	CU_ASSERT_EQUAL(s->min_rounds, 12);
	CU_ASSERT_EQUAL(s->max_rounds, 12);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->rounds_chosen);
	CU_ASSERT_PTR_NOT_NULL(strstr(
		r->rounds_chosen,
		"min-rounds 12, the scenario's max-rounds; max-rounds 12 as the scenario sets it"));
	done(s, r, &p);

	plan_of("precision = 0.3%\nmax-time = 60s\nmin-rounds = 8", "", &s, &r, &p);
	CU_ASSERT_EQUAL(s->min_rounds, 8);
	CU_ASSERT_EQUAL(s->max_rounds, TB_PLAN_AUTO_MAX_ROUNDS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->rounds_chosen);
	CU_ASSERT_PTR_NOT_NULL(strstr(
		r->rounds_chosen, "min-rounds 8 as the scenario sets it; max-rounds 100000, so"));
	/* a minimum the scenario set is its own: never lowered */
	CU_ASSERT_EQUAL(tb_plan_fit_min_rounds(&p, r, 2), 0);
	CU_ASSERT_EQUAL(s->min_rounds, 8);
	done(s, r, &p);

	/* both set, or no max-time: the scenario's (or the defaults), nothing said */
	plan_of("precision = 0.3%\nmax-time = 60s\nmin-rounds = 8\nmax-rounds = 40", "", &s, &r,
		&p);
	CU_ASSERT_EQUAL(s->min_rounds, 8);
	CU_ASSERT_EQUAL(s->max_rounds, 40);
	CU_ASSERT_PTR_NULL(r->rounds_chosen);
	done(s, r, &p);
	plan_of("precision = 0.3%", "", &s, &r, &p);
	CU_ASSERT_EQUAL(s->min_rounds, 5);
	CU_ASSERT_EQUAL(s->max_rounds, 100);
	CU_ASSERT_EQUAL(s->accounting_every, 1); /* the key's default: every round */
	CU_ASSERT_FALSE(s->accounting_every_set);
	CU_ASSERT_PTR_NULL(r->rounds_chosen);
	done(s, r, &p);
}

/*
 * The duration re-chosen to fit the budget (runner/budget.h): the scenario, the workloads
 * without their own duration and their cells get it, a section's own duration keeps its, and
 * why is added to what the plan said.
 */
static void test_set_duration(void)
{
	struct tb_scenario *s;
	struct tb_result *r;
	struct tb_plan p;
	char *before;

	plan_of("precision = 0.3%\nmax-time = 60s", "", &s, &r, &p);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->sample_length);
	before = strdup(r->sample_length);
	CU_ASSERT_TRUE(tb_plan_duration_free(&p, 0));
	CU_ASSERT_EQUAL(tb_plan_set_duration(&p, r, 300 * MS, "shortened to fit"), 0);
	CU_ASSERT_EQUAL(s->duration_ns, 300 * MS);
	CU_ASSERT_EQUAL(s->workloads[0].duration_ns, 300 * MS);
	CU_ASSERT_EQUAL(r->duration_ns, 300 * MS);
	for (size_t i = 0; i < r->ncells; i++)
		CU_ASSERT_EQUAL(r->cells[i].duration_ns, 300 * MS);
	CU_ASSERT_EQUAL(strncmp(r->sample_length, before, strlen(before)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r->sample_length, "; shortened to fit"));
	free(before);
	done(s, r, &p);

	plan_of("precision = 0.3%\nmax-time = 60s", "duration = 650ms", &s, &r, &p);
	CU_ASSERT_FALSE(tb_plan_duration_free(&p, 0)); /* its own */
	CU_ASSERT_EQUAL(tb_plan_set_duration(&p, r, 300 * MS, "x"), 0);
	CU_ASSERT_EQUAL(s->workloads[0].duration_ns, 650 * MS);
	CU_ASSERT_EQUAL(r->cells[0].duration_ns, 650 * MS);
	done(s, r, &p);
}

/* Without a precision target or without a max-time nothing is chosen. */
static void test_not_asked(void)
{
	static const char *const globals[] = {"precision = 0.3%", "max-time = 60s", ""};
	struct tb_scenario *s;
	struct tb_result *r;
	struct tb_plan p;
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(globals); i++) {
		plan_of(globals[i], "", &s, &r, &p);
		CU_ASSERT_EQUAL(s->duration_ns, 1000 * MS);
		CU_ASSERT_EQUAL(settle_of(s, "tp"), 20 * MS);
		CU_ASSERT_PTR_NULL(r->sample_length);
		done(s, r, &p);
	}
}

static CU_TestInfo tests[] = {
	{"the rule on synthetic fixed costs", test_rule},
	{"chosen with precision and max-time", test_chosen},
	{"the scenario's own values win", test_scenario_wins},
	{"min-rounds and max-rounds chosen with precision and max-time", test_rounds},
	{"nothing chosen unless asked", test_not_asked},
	{"the duration re-chosen to fit the budget", test_set_duration},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("plan-length", NULL, NULL, tests);
