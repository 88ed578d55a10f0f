// SPDX-License-Identifier: GPL-2.0
/*
 * Repeated runs combined (stats/combine.c), on numbers worked by hand and on synthetic runs of
 * known truth with a fixed seed: the random-effects figures of a worked example (fixed and
 * random means, Q and its p, DerSimonian-Laird's tau, I², the Hartung-Knapp interval on t);
 * runs that agree get tau 0 and an interval no narrower than their own standard errors give on
 * t (the factor kept at 1 where their spread is smaller); with a run-to-run component the
 * combined interval covers the truth about as often as it says, where the fixed-effect
 * interval (what pooling the runs' samples amounts to) does not; two groups' figures are
 * differenced on t with the Welch-Satterthwaite degrees of freedom; one run far more precise
 * than the rest does not cancel the run-to-run variance away; and bad input is refused.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "stats/combine.h"
#include "tb_test.h"

/* The worked example: five runs, unequal standard errors, one run far off (Python, by hand:
 * the formulas of doc/statistics.md "combine"; t(4) 0.975 = 2.7764451). */
static void test_worked(void)
{
	const double y[] = {10, 12, 9, 15, 11}, se[] = {1, 2, 1.5, 1, 0.5};
	struct tb_meta m;

	CU_ASSERT_EQUAL_FATAL(tb_meta_combine(y, se, 5, 0.05, &m), 0);
	CU_ASSERT_EQUAL(m.k, 5);
	CU_ASSERT_DOUBLE_EQUAL(m.fixed, 11.3526971, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(m.fixed_se, 0.3864939758, 1e-8);
	CU_ASSERT_DOUBLE_EQUAL(m.q, 18.19502075, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(m.q_p, 0.001130357327, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(m.tau, 1.891679646, 1e-7);
	CU_ASSERT_DOUBLE_EQUAL(m.i2, 0.7801596351, 1e-8);
	CU_ASSERT_DOUBLE_EQUAL(m.est, 11.4433621, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(m.lo, 8.555433354, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(m.hi, 14.33129084, 1e-5);
	CU_ASSERT_DOUBLE_EQUAL(m.min, 9, 0);
	CU_ASSERT_DOUBLE_EQUAL(m.max, 15, 0);
}

/* Runs closer together than their intervals: no run-to-run component, and the interval is
 * the fixed-effect one on t(2), not narrower (Hartung-Knapp's raw factor here is 0.093). */
static void test_agree(void)
{
	const double y[] = {5.0, 5.2, 4.9}, se[] = {0.5, 0.5, 0.5};
	struct tb_meta m;

	CU_ASSERT_EQUAL_FATAL(tb_meta_combine(y, se, 3, 0.05, &m), 0);
	CU_ASSERT_DOUBLE_EQUAL(m.tau, 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(m.i2, 0, 0);
	CU_ASSERT_DOUBLE_EQUAL(m.est, m.fixed, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(m.lo, 3.791264477, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(m.hi, 6.275402189, 1e-6);
	CU_ASSERT(m.q_p > 0.9);
	/* a normal interval from the standard errors */
	CU_ASSERT_DOUBLE_EQUAL(tb_meta_se(-1.959963985, 1.959963985, 0.05), 1, 1e-9);
}

/* xorshift64* and Box-Muller: the same draws on every machine. */
static uint64_t rng_state = 0x5eed2026120701ull;

static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2 * log(u > 0 ? u : 0x1.0p-53)) * cos(2 * M_PI * v);
}

/* Of trials sets of k runs around truth 0 with a run-to-run sd tau and per-run standard
 * errors in [0.5, 1.5] (each run's estimate drawn with its own), how many the combined
 * interval covers; *fixed gets how many the fixed-effect normal interval covers, *dl how many
 * DerSimonian-Laird's normal interval (the same mean, z instead of t, no factor). */
static int cover(int trials, size_t k, double tau, int *fixed, int *dl)
{
	double y[16], se[16];
	struct tb_meta m;
	int hit = 0;

	*fixed = *dl = 0;
	for (int t = 0; t < trials; t++) {
		double shift, sw;

		for (size_t i = 0; i < k; i++) {
			se[i] = 0.5 + uniform();
			shift = tau * gauss();
			y[i] = shift + se[i] * gauss();
		}
		CU_ASSERT_EQUAL_FATAL(tb_meta_combine(y, se, k, 0.05, &m), 0);
		hit += m.lo <= 0 && 0 <= m.hi;
		*fixed += fabs(m.fixed) <= 1.959963985 * m.fixed_se;
		sw = 0;
		for (size_t i = 0; i < k; i++)
			sw += 1 / (se[i] * se[i] + m.tau * m.tau);
		*dl += fabs(m.est) <= 1.959963985 / sqrt(sw);
	}
	return hit;
}

/*
 * Coverage: 400 sets each (binomial sd at 95% over 400: 1.1 points). With a run-to-run sd of
 * twice a typical run's standard error, the fixed-effect interval covers far less than 95%
 * and the combined one about 95%; without one both cover (the combined more than 95%, its
 * factor kept at 1).
 */
static void test_coverage(void)
{
	int fixed, dl, hit;

	hit = cover(400, 5, 2.0, &fixed, &dl);
	printf("\n    tau 2, 5 runs: combined %d/400, DerSimonian-Laird normal %d/400, fixed-effect "
	       "%d/400",
	       hit, dl, fixed);
	CU_ASSERT(hit >= 360 && hit <= 396);
	CU_ASSERT(dl < hit);
	CU_ASSERT(fixed < 260);
	hit = cover(400, 10, 2.0, &fixed, &dl);
	printf("\n    tau 2, 10 runs: combined %d/400, DerSimonian-Laird normal %d/400, "
	       "fixed-effect %d/400",
	       hit, dl, fixed);
	CU_ASSERT(hit >= 360 && hit <= 396);
	CU_ASSERT(fixed < 260);
	hit = cover(400, 5, 0.0, &fixed, &dl);
	printf("\n    tau 0, 5 runs: combined %d/400, fixed-effect %d/400\n", hit, fixed);
	CU_ASSERT(hit >= 376);
	CU_ASSERT(fixed >= 360 && fixed <= 396);
}

/* Two groups' figures differenced: equal standard errors and run counts give the pooled df
 * (Welch-Satterthwaite: 8 for two groups of 5), t(8) 0.975 = 2.306004135; p by integrating
 * t(8)'s density (Python, Simpson's rule). */
static void test_diff(void)
{
	struct tb_meta a = {.k = 5, .est = 10, .se = 1}, b = {.k = 5, .est = 15, .se = 1};
	struct tb_meta_diff d;

	tb_meta_diff(&a, &b, 0.05, &d);
	CU_ASSERT_DOUBLE_EQUAL(d.diff, 5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(d.df, 8, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(d.hi - d.diff, 2.306004135 * sqrt(2), 1e-7);
	CU_ASSERT_DOUBLE_EQUAL(d.p, 0.007669728, 1e-7);
	CU_ASSERT(d.significant);
	/* one side far less certain: the df fall towards its own k - 1 */
	b.se = 10;
	b.k = 3;
	tb_meta_diff(&a, &b, 0.05, &d);
	CU_ASSERT(d.df > 2 && d.df < 2.2);
	CU_ASSERT(!d.significant);
	CU_ASSERT(d.lo < 0 && d.hi > 10);
}

/* One run far more precise than the others: DerSimonian-Laird's denominator, sum w - sum w^2 /
 * sum w, cancels to 0 in doubles when summed that way (tau 0, Q 400); summed per run it is 8,
 * and tau^2 = (400 - 4) / 8. */
static void test_one_precise(void)
{
	const double y[] = {0, 10, 10, 10, 10}, se[] = {1e-9, 1, 1, 1, 1};
	struct tb_meta m;

	CU_ASSERT_EQUAL_FATAL(tb_meta_combine(y, se, 5, 0.05, &m), 0);
	CU_ASSERT_DOUBLE_EQUAL(m.q, 400, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(m.tau, sqrt(49.5), 1e-6);
	CU_ASSERT(m.lo < 0 && m.hi > 5);
}

static void test_bad(void)
{
	const double y[] = {1, 2, NAN}, se[] = {1, 0, 1}, ok[] = {1, 1, 1};
	struct tb_meta m;

	CU_ASSERT_EQUAL(tb_meta_combine(y, ok, 1, 0.05, &m), -EINVAL);
	CU_ASSERT_EQUAL(tb_meta_combine(y, se, 2, 0.05, &m), -EINVAL);
	CU_ASSERT_EQUAL(tb_meta_combine(y, ok, 3, 0.05, &m), -EINVAL);
	CU_ASSERT_EQUAL(tb_meta_combine(y, ok, 2, 0, &m), -EINVAL);
	/* a weight that is not finite (se^2 underflows) */
	CU_ASSERT_EQUAL(tb_meta_combine(y, (const double[]){1e-200, 1}, 2, 0.05, &m), -EINVAL);
	CU_ASSERT_EQUAL(tb_meta_combine(y, ok, 2, 0.05, &m), 0);
	CU_ASSERT_EQUAL(tb_combine_build(NULL, NULL, 1, 0.05, &(struct tb_combination *){NULL}),
			-EINVAL);
}

static CU_TestInfo tests[] = {
	{"a worked example's random-effects figures", test_worked},
	{"runs that agree: tau 0, no narrower than their errors", test_agree},
	{"coverage with and without a run-to-run component", test_coverage},
	{"two groups differenced (Welch-Satterthwaite)", test_diff},
	{"one run far more precise: no cancellation", test_one_precise},
	{"bad input refused", test_bad},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("stats-combine", NULL, NULL, tests);
