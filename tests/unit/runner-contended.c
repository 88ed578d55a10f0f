// SPDX-License-Identifier: GPL-2.0
/*
 * Contended rounds (runner/contended.h) on synthetic samples: the share a sample lost, the
 * decision to run a round again (whole rounds only), the bound, what is recorded, and that a
 * quiet run changes nothing. Fixed data, no timing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/measured.h"
#include "model/result.h"
#include "render/summary.h"
#include "runner/contended.h"
#include "stats/shortfall.h"
#include "tb_test.h"
#include "workloads/workload.h"

#define ELAPSED 1e8 /* 100 ms batches */

/* A result of a baseline and a traced cell, each with one sample per round, waits in ns. */
static struct tb_result *two_cells(unsigned int rounds, const int64_t *wait_base,
				   const int64_t *wait_traced)
{
	struct tb_result *r = tb_result_new();

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->contended_share = 0.05;
	for (int k = 0; k < 2; k++) {
		struct tb_cell *c = tb_result_add_cell(r);

		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		c->id = strdup(k ? "w/t" : "w/none");
		c->baseline = !k;
		c->threads = 1;
		for (unsigned int i = 0; i < rounds; i++) {
			struct tb_sample *s = tb_cell_add_sample(c);

			CU_ASSERT_PTR_NOT_NULL_FATAL(s);
			s->round = (int)i;
			s->ns_per_op = 100;
			s->elapsed_ns = ELAPSED;
			s->wait_ns = k ? wait_traced[i] : wait_base[i];
		}
	}
	tb_contended_start(r);
	return r;
}

/* Another sample of cell c in round `round` (the round run again). */
static void add_again(struct tb_cell *c, int round, int64_t wait)
{
	struct tb_sample *s = tb_cell_add_sample(c);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	s->round = round;
	s->ns_per_op = 100;
	s->elapsed_ns = ELAPSED;
	s->wait_ns = wait;
}

static size_t measured(const struct tb_cell *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nsamples; i++)
		n += tb_sample_measured(&c->samples[i]);
	return n;
}

static void test_share(void)
{
	struct tb_sample s = {.elapsed_ns = ELAPSED, .wait_ns = 3000000, .steal_ns = -1};
	struct tb_cell one = {.threads = 1}, two = {.threads = 2};
	const char *why;

	CU_ASSERT_DOUBLE_EQUAL(tb_sample_contended_share(&one, &s, 1, &why), 0.03, 1e-12);
	CU_ASSERT_STRING_EQUAL(why, "cpu-wait");
	/* two threads: the wait is over both */
	CU_ASSERT_DOUBLE_EQUAL(tb_sample_contended_share(&two, &s, 2, NULL), 0.015, 1e-12);
	/* steal larger than the wait names it */
	s.steal_ns = 10000000;
	CU_ASSERT_DOUBLE_EQUAL(tb_sample_contended_share(&one, &s, 1, &why), 0.10, 1e-12);
	CU_ASSERT_STRING_EQUAL(why, "steal");
	/* no CPU named: steal unknown */
	CU_ASSERT_DOUBLE_EQUAL(tb_sample_contended_share(&one, &s, 0, &why), 0.03, 1e-12);
	/* neither known, or no batch */
	s.wait_ns = s.steal_ns = -1;
	CU_ASSERT(isnan(tb_sample_contended_share(&one, &s, 1, NULL)));
	s.wait_ns = 5;
	s.elapsed_ns = 0;
	CU_ASSERT(isnan(tb_sample_contended_share(&one, &s, 1, NULL)));
}

/*
 * A ping-pong workload waits for its CPU while its own partner runs there (pipe-pingpong,
 * futex, tcp-rr, udp-rr: 10-55% of every sample, measured): that wait is not contention, and
 * before the workloads said so every run with one ran a round again and blamed "another task".
 * Its steal still counts.
 */
static void test_partner_cpu(void)
{
	struct tb_sample s = {.elapsed_ns = ELAPSED, .wait_ns = 50000000, .steal_ns = -1};
	struct tb_cell c = {.threads = 1, .partner_cpu = true, .samples = &s, .nsamples = 1};
	const char *why = NULL;

	s.round = 0;
	s.ns_per_op = 100;
	CU_ASSERT(isnan(tb_sample_contended_share(&c, &s, 1, &why)));
	CU_ASSERT(isnan(tb_cell_cpu_wait_share(&c)));
	s.steal_ns = 8000000;
	CU_ASSERT_DOUBLE_EQUAL(tb_sample_contended_share(&c, &s, 1, &why), 0.08, 1e-12);
	CU_ASSERT_STRING_EQUAL(why, "steal");
	/* the same wait without the flag: contended, and the cell's wait share is known */
	c.partner_cpu = false;
	s.steal_ns = -1;
	CU_ASSERT_DOUBLE_EQUAL(tb_sample_contended_share(&c, &s, 1, &why), 0.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_cpu_wait_share(&c), 0.5, 1e-12);
	/* the four ping-pong workloads say so; a loop on its own does not */
	CU_ASSERT(tb_workload_find("pipe-pingpong")->flags & TB_WL_PARTNER_CPU);
	CU_ASSERT(tb_workload_find("futex")->flags & TB_WL_PARTNER_CPU);
	CU_ASSERT(tb_workload_find("tcp-rr")->flags & TB_WL_PARTNER_CPU);
	CU_ASSERT(tb_workload_find("udp-rr")->flags & TB_WL_PARTNER_CPU);
	CU_ASSERT_FALSE(tb_workload_find("getpid")->flags & TB_WL_PARTNER_CPU);
}

static void test_cap(void)
{
	CU_ASSERT_EQUAL(tb_contended_cap(0), 1);
	CU_ASSERT_EQUAL(tb_contended_cap(3), 1);
	CU_ASSERT_EQUAL(tb_contended_cap(10), 2);
	CU_ASSERT_EQUAL(tb_contended_cap(100), 25);
}

/* Quiet samples (1% wait, under the 5% rule): nothing is run again, nothing recorded. */
static void test_quiet(void)
{
	const int64_t quiet[3] = {1000000, 0, 1000000};
	const unsigned int ncpus[2] = {1, 1};
	struct tb_result *r = two_cells(3, quiet, quiet);

	for (unsigned int i = 0; i < 3; i++)
		CU_ASSERT_FALSE(tb_contended_round(r, ncpus, i, true));
	for (int k = 0; k < 2; k++) {
		CU_ASSERT(r->cells[k].contention.present);
		CU_ASSERT_EQUAL(r->cells[k].contention.rerun, 0);
		CU_ASSERT_EQUAL(r->cells[k].contention.kept, 0);
		CU_ASSERT_EQUAL(measured(&r->cells[k]), 3);
		for (size_t j = 0; j < r->cells[k].nsamples; j++)
			CU_ASSERT_EQUAL(r->cells[k].samples[j].rerun[0], '\0');
	}
	tb_result_free(r);
	/* the rule off: a contended sample changes nothing either */
	const int64_t busy[1] = {50000000};

	r = two_cells(1, busy, busy);
	r->contended_share = 0;
	CU_ASSERT_FALSE(tb_contended_round(r, ncpus, 0, true));
	CU_ASSERT_EQUAL(measured(&r->cells[0]), 1);
	tb_result_free(r);
}

/*
 * Round 1's traced sample waited 20%: both sides of round 1 are set aside with the reason
 * (never one side), both cells count it, and the samples that replace them are the round's.
 */
static void test_rerun(void)
{
	const int64_t base[3] = {0, 0, 0}, traced[3] = {0, 20000000, 0};
	const unsigned int ncpus[2] = {1, 1};
	struct tb_result *r = two_cells(3, base, traced);
	char line[2048];
	FILE *f;

	CU_ASSERT_FALSE(tb_contended_round(r, ncpus, 0, true));
	CU_ASSERT_TRUE(tb_contended_round(r, ncpus, 1, true));
	for (int k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL(r->cells[k].contention.rerun, 1);
		CU_ASSERT_EQUAL(measured(&r->cells[k]), 2);
		CU_ASSERT_EQUAL(r->cells[k].samples[0].rerun[0], '\0');
		CU_ASSERT_PTR_NOT_NULL(strstr(r->cells[k].samples[1].rerun,
					      "another task ran on the workload's CPU"));
		CU_ASSERT_PTR_NOT_NULL(
			strstr(r->cells[k].samples[1].rerun, "20.0% of w/t's sample"));
		CU_ASSERT_PTR_NOT_NULL(strstr(r->cells[k].samples[1].rerun, "round 2"));
	}
	/* the round run again, quiet this time: kept */
	add_again(&r->cells[0], 1, 0);
	add_again(&r->cells[1], 1, 1000000);
	CU_ASSERT_FALSE(tb_contended_round(r, ncpus, 1, false));
	for (int k = 0; k < 2; k++) {
		CU_ASSERT_EQUAL(measured(&r->cells[k]), 3);
		CU_ASSERT_EQUAL(r->cells[k].contention.kept, 0);
	}
	/* the summary says it */
	f = fmemopen(line, sizeof(line), "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	tb_render_summary_print(f, r);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(line, "1 round run again, contended (the first: another task"));
	tb_result_free(r);
}

/*
 * Contended again after its re-run (or past the cap): kept, counted in the cell whose sample
 * was contended, and said as a shortfall. The hypervisor's steal is named as such.
 */
static void test_bound(void)
{
	const int64_t base[2] = {0, 0}, traced[2] = {30000000, 0};
	const unsigned int ncpus[2] = {1, 1};
	struct tb_result *r = two_cells(2, base, traced);

	CU_ASSERT_TRUE(tb_contended_round(r, ncpus, 0, true));
	add_again(&r->cells[0], 0, 0);
	add_again(&r->cells[1], 0, 30000000);
	CU_ASSERT_FALSE(tb_contended_round(r, ncpus, 0, false));
	CU_ASSERT_EQUAL(r->cells[0].contention.kept, 0);
	CU_ASSERT_EQUAL(r->cells[1].contention.kept, 1);
	CU_ASSERT_EQUAL(measured(&r->cells[1]), 2);
	CU_ASSERT_EQUAL_FATAL(tb_stats_shortfalls(r), 0);
	CU_ASSERT_EQUAL_FATAL(json_array_size(r->shortfalls), 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_array_get(r->shortfalls, 0)),
				      "1 contended sample kept in the statistics (first: w/t)"));
	/* steal */
	r->cells[0].samples[1].steal_ns = 40000000;
	CU_ASSERT_TRUE(tb_contended_round(r, ncpus, 1, true));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->cells[1].samples[1].rerun, "the hypervisor stole"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->cells[1].samples[1].rerun, "40.0% of w/none's"));
	tb_result_free(r);
}

static CU_TestInfo tests[] = {
	{"the share a sample lost", test_share},
	{"a partner's turn on the CPU is not contention", test_partner_cpu},
	{"the bound on rounds run again", test_cap},
	{"a quiet run: nothing run again", test_quiet},
	{"a contended round: both sides run again", test_rerun},
	{"contended again: kept and said", test_bound},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("runner-contended", NULL, NULL, tests);
