// SPDX-License-Identifier: GPL-2.0
/*
 * The change-point detector (history/detect.c) on fixed synthetic series: Gaussian noise from
 * GSL's mt19937 with fixed seeds, steps of known size at known indices. Exact expected change
 * points, none on flat noise, the pooled-samples condition, the magnitude rules, the windows,
 * determinism; the gate's test of a new point against a segment; the median's CI.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "history/detect.h"
#include "history/series.h"
#include "stats/stats.h"
#include "tb_test.h"

#define MAXN 400
#define SPP  10 /* samples per point */

/* A synthetic series: point i is the median of SPP samples around level(i). */
struct syn {
	double value[MAXN], scale[MAXN], samples[MAXN * SPP];
	size_t off[MAXN + 1];
	struct tb_detect_input in;
};

/* n points: levels lv[k] from index at[k] on (at[0] = 0), point noise sd_pt (relative to the
 * level), sample noise sd_s; with_samples adds per-sample values. */
static void make(struct syn *s, size_t n, const size_t *at, const double *lv, size_t nlv,
		 double sd_pt, double sd_s, bool with_samples, unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t k = 0;

	gsl_rng_set(rng, seed);
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		double run, v[SPP];

		while (k + 1 < nlv && i >= at[k + 1])
			k++;
		/* a run-to-run effect, then the samples of the run around it */
		run = lv[k] * (1 + gsl_ran_gaussian(rng, sd_pt));
		for (size_t j = 0; j < SPP; j++)
			v[j] = run * (1 + gsl_ran_gaussian(rng, sd_s));
		s->value[i] = tb_stats_median(v, SPP);
		s->scale[i] = NAN;
		memcpy(s->samples + i * SPP, v, sizeof(v));
		s->off[i + 1] = (i + 1) * SPP;
	}
	gsl_rng_free(rng);
	s->in.n = n;
	s->in.value = s->value;
	s->in.scale = s->scale;
	s->in.samples = with_samples ? s->samples : NULL;
	s->in.sample_off = with_samples ? s->off : NULL;
	s->in.mag = TB_HMAG_RELATIVE;
}

static size_t detect(const struct syn *s, const struct tb_detect_opts *o, size_t *idx, size_t max)
{
	struct tb_change *ch = NULL;
	size_t n = 0;

	CU_ASSERT_EQUAL_FATAL(tb_detect(&s->in, o, &ch, &n), 0);
	for (size_t i = 0; i < n && i < max; i++)
		idx[i] = ch[i].index;
	free(ch);
	return n;
}

static void test_flat_noise(void)
{
	static struct syn s;
	static const size_t at[] = {0};
	static const double lv[] = {100};
	struct tb_detect_opts o;
	size_t idx[8], fp = 0, fp0 = 0;

	tb_detect_opts_init(&o);
	for (unsigned long seed = 1; seed <= 40; seed++) {
		make(&s, 60, at, lv, 1, 0.01, 0.02, true, seed);
		fp += detect(&s, &o, idx, 8);
		/* without the magnitude floor only the statistics protect */
		o.min_magnitude = 0;
		fp0 += detect(&s, &o, idx, 8);
		o.min_magnitude = TB_DETECT_MIN_MAGNITUDE;
	}
	CU_ASSERT_EQUAL(fp, 0);
	/*
	 * The best of ~55 splits is tested, so the nominal p is optimistic: these seeds give 2
	 * false changes in 40 series of 60 points (5%), which is why min-magnitude exists and why
	 * make validate-history measures the real rate.
	 */
	CU_ASSERT(fp0 <= 3);
}

static void test_one_step(void)
{
	static struct syn s;
	static const size_t at[] = {0, 20};
	static const double lv[] = {100, 110};
	struct tb_detect_opts o;
	struct tb_change *ch = NULL;
	size_t n = 0;

	tb_detect_opts_init(&o);
	for (unsigned long seed = 1; seed <= 10; seed++) {
		make(&s, 40, at, lv, 2, 0.01, 0.02, true, seed);
		CU_ASSERT_EQUAL_FATAL(tb_detect(&s.in, &o, &ch, &n), 0);
		CU_ASSERT_EQUAL_FATAL(n, 1);
		CU_ASSERT_EQUAL(ch[0].index, 20);
		CU_ASSERT_EQUAL(ch[0].start, 0);
		CU_ASSERT_EQUAL(ch[0].end, 40);
		/* +10%: the estimate and its CI */
		CU_ASSERT_DOUBLE_EQUAL(ch[0].change_pct, 10, 2);
		CU_ASSERT(ch[0].pct_lo < 10 + 2 && ch[0].pct_hi > 10 - 2);
		CU_ASSERT(ch[0].pct_lo <= ch[0].change_pct && ch[0].change_pct <= ch[0].pct_hi);
		CU_ASSERT(ch[0].ci_lo <= ch[0].change && ch[0].change <= ch[0].ci_hi);
		CU_ASSERT(ch[0].p < 1e-6);
		CU_ASSERT(ch[0].p_samples < 1e-6);
		CU_ASSERT_DOUBLE_EQUAL(ch[0].magnitude, 0.10, 0.02);
		free(ch);
		ch = NULL;
	}
}

static void test_two_steps_and_back(void)
{
	static struct syn s;
	static const size_t at[] = {0, 15, 35};
	static const double lv[] = {100, 120, 100};
	struct tb_detect_opts o;
	size_t idx[8], n;

	tb_detect_opts_init(&o);
	make(&s, 50, at, lv, 3, 0.01, 0.02, true, 7);
	n = detect(&s, &o, idx, 8);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(idx[0], 15);
	CU_ASSERT_EQUAL(idx[1], 35);
}

/* Longer than a window: the splits happen in windows, the merge over whole segments. */
static void test_long_series(void)
{
	static struct syn s;
	static const size_t at[] = {0, 100, 230};
	static const double lv[] = {200, 180, 190};
	struct tb_detect_opts o;
	size_t idx[8], n;

	tb_detect_opts_init(&o);
	make(&s, 300, at, lv, 3, 0.01, 0.02, true, 3);
	n = detect(&s, &o, idx, 8);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(idx[0], 100);
	CU_ASSERT_EQUAL(idx[1], 230);
}

/* A real but small step is reported only when min-magnitude allows it. */
static void test_min_magnitude(void)
{
	static struct syn s;
	static const size_t at[] = {0, 25};
	static const double lv[] = {100, 101};
	struct tb_detect_opts o;
	size_t idx[8], n;

	tb_detect_opts_init(&o);
	make(&s, 50, at, lv, 2, 0.001, 0.002, true, 5);
	CU_ASSERT_EQUAL(detect(&s, &o, idx, 8), 0);
	o.min_magnitude = 0.005;
	n = detect(&s, &o, idx, 8);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(idx[0], 25);
}

/*
 * The points step, but each run's samples are so noisy that their pooled values do not tell the
 * segments apart: no change point with samples, one without (points only).
 */
static void test_pooled_samples_decide(void)
{
	static struct syn s;
	static const size_t at[] = {0, 20};
	static const double lv[] = {100, 104};
	struct tb_detect_opts o;
	size_t idx[8], n;

	tb_detect_opts_init(&o);
	make(&s, 40, at, lv, 2, 0.002, 0.02, true, 11);
	/* the points: medians of 10 samples, but made exact so that only the samples are noisy */
	for (size_t i = 0; i < 40; i++)
		s.value[i] = i < 20 ? 100 + 0.05 * (double)(i % 3) : 104 + 0.05 * (double)(i % 3);
	for (size_t i = 0; i < 40 * SPP; i++)
		s.samples[i] = (i / SPP < 20 ? 100 : 104) * (1 + 0.6 * ((i * 7919) % 13 - 6) / 6.0);
	n = detect(&s, &o, idx, 8);
	CU_ASSERT_EQUAL(n, 0);
	s.in.samples = NULL;
	s.in.sample_off = NULL;
	n = detect(&s, &o, idx, 8);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(idx[0], 20);
}

/* Percentage-point metrics: a step of 1.5 pp passes 1%, not 2%, whatever the level. */
static void test_points_magnitude(void)
{
	static struct syn s;
	static const size_t at[] = {0, 20};
	static const double lv[] = {5, 6.5};
	struct tb_detect_opts o;
	size_t idx[8];

	tb_detect_opts_init(&o);
	make(&s, 40, at, lv, 2, 0.01, 0.02, false, 13);
	s.in.mag = TB_HMAG_POINTS;
	CU_ASSERT_EQUAL(detect(&s, &o, idx, 8), 0); /* +30% relative, but 1.5 pp < 2 pp */
	o.min_magnitude = 0.01;
	CU_ASSERT_EQUAL_FATAL(detect(&s, &o, idx, 8), 1);
	CU_ASSERT_EQUAL(idx[0], 20);
	/* scaled: 1.5 ns on a 100 ns baseline is 1.5% */
	for (size_t i = 0; i < 40; i++)
		s.scale[i] = 100;
	s.in.mag = TB_HMAG_SCALED;
	o.min_magnitude = 0.02;
	CU_ASSERT_EQUAL(detect(&s, &o, idx, 8), 0);
	o.min_magnitude = 0.01;
	CU_ASSERT_EQUAL(detect(&s, &o, idx, 8), 1);
}

static void test_deterministic(void)
{
	static struct syn s;
	static const size_t at[] = {0, 12, 30};
	static const double lv[] = {50, 56, 53};
	struct tb_change *a = NULL, *b = NULL;
	struct tb_detect_opts o;
	size_t na = 0, nb = 0;

	tb_detect_opts_init(&o);
	make(&s, 45, at, lv, 3, 0.01, 0.03, true, 17);
	CU_ASSERT_EQUAL_FATAL(tb_detect(&s.in, &o, &a, &na), 0);
	CU_ASSERT_EQUAL_FATAL(tb_detect(&s.in, &o, &b, &nb), 0);
	CU_ASSERT(na >= 1);
	CU_ASSERT_EQUAL_FATAL(na, nb);
	CU_ASSERT(!memcmp(a, b, na * sizeof(*a)));
	free(a);
	free(b);
}

static void test_edges(void)
{
	static const double v[] = {1, 2, 3};
	struct tb_detect_input in = {.n = 3, .value = v};
	struct tb_detect_opts o;
	struct tb_change *ch = NULL;
	size_t n = 5;

	tb_detect_opts_init(&o);
	CU_ASSERT_EQUAL(tb_detect(&in, &o, &ch, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_PTR_NULL(ch);
	o.window = 3;
	CU_ASSERT_EQUAL(tb_detect(&in, &o, &ch, &n), -EINVAL);
	tb_detect_opts_init(&o);
	o.p_value = 0;
	CU_ASSERT_EQUAL(tb_detect(&in, &o, &ch, &n), -EINVAL);
}

/* The gate's question: is a new point from the last segment? */
static void test_vs_segment(void)
{
	static struct syn s;
	static const size_t at[] = {0};
	static const double lv[] = {100};
	struct tb_detect_vs vs;
	double hi[SPP], same[SPP];

	make(&s, 30, at, lv, 1, 0.01, 0.01, true, 19);
	for (size_t j = 0; j < SPP; j++) {
		hi[j] = 110 + 0.1 * (double)j;
		same[j] = s.samples[j];
	}
	tb_detect_vs_segment(&s.in, 10, 30, 110, NAN, hi, SPP, 0.01, 0.8, &vs);
	CU_ASSERT_EQUAL(vs.npoints, 20);
	CU_ASSERT(vs.p < 1e-6);
	CU_ASSERT(vs.p_samples < 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(vs.change_pct, 10, 1.5);
	CU_ASSERT(vs.pct_lo > 5 && vs.pct_hi < 15);
	CU_ASSERT(vs.ci_lo < vs.change && vs.change < vs.ci_hi);
	/* the MDE at 80% power is wider than the interval's half-width */
	CU_ASSERT(vs.mde > (vs.ci_hi - vs.ci_lo) / 2 && vs.mde < 2 * (vs.ci_hi - vs.ci_lo));
	/* a point like the others */
	tb_detect_vs_segment(&s.in, 10, 30, s.value[0], NAN, same, SPP, 0.01, 0.8, &vs);
	CU_ASSERT(vs.p > 0.05);
	CU_ASSERT(vs.pct_lo < 0 && vs.pct_hi > 0);
	/* one point is no segment */
	tb_detect_vs_segment(&s.in, 29, 30, 110, NAN, hi, SPP, 0.01, 0.8, &vs);
	CU_ASSERT(isnan(vs.p));
}

static void test_median_ci(void)
{
	static const double x10[] = {7, 3, 1, 9, 5, 2, 10, 4, 8, 6};
	static const double x5[] = {5, 1, 4, 2, 3};
	double ci[2];

	/* n = 10: [x(2), x(9)], 1 - 2 * 11/1024 */
	CU_ASSERT_DOUBLE_EQUAL(tb_stats_median_ci(x10, 10, 0.95, ci), 1 - 22.0 / 1024, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ci[0], 2, 0);
	CU_ASSERT_DOUBLE_EQUAL(ci[1], 9, 0);
	/* n = 5 cannot reach 95%: the range, 1 - 2/32 */
	CU_ASSERT_DOUBLE_EQUAL(tb_stats_median_ci(x5, 5, 0.95, ci), 0.9375, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(ci[0], 1, 0);
	CU_ASSERT_DOUBLE_EQUAL(ci[1], 5, 0);
	CU_ASSERT(isnan(tb_stats_median_ci(x5, 1, 0.95, ci)));
	CU_ASSERT(isnan(ci[0]));
}

static CU_TestInfo detect_tests[] = {
	{"no change point on flat noise (40 seeds)", test_flat_noise},
	{"one step found at its index, size and CI", test_one_step},
	{"up and back down: both steps", test_two_steps_and_back},
	{"a series longer than the window", test_long_series},
	{"min-magnitude holds back a small real step", test_min_magnitude},
	{"the pooled samples must agree", test_pooled_samples_decide},
	{"percentage points and scaled magnitudes", test_points_magnitude},
	{"same input, same output", test_deterministic},
	{"short series and bad options", test_edges},
	{"a new point against a stable segment", test_vs_segment},
	{"the median's distribution-free CI", test_median_ci},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("history-detect", NULL, NULL, detect_tests);
