// SPDX-License-Identifier: GPL-2.0
/*
 * Sweeps' models (stats/sweep.c) on synthetic cells with a fixed seed: a known slope is
 * recovered within its CI, a series that does not depend on the swept value yields no slope
 * (refused, or a CI that includes 0), points that cannot be trusted are left out with their
 * reason, and result.json's sweeps read back as written, strictly. The knee model: found where a
 * cost stops, refused in a line and in noise; a filter's kept and rejected event's cost; the
 * event rate a tracer held without a loss and the one it lost at; compare's change of a slope.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "core/options.h"
#include "model/result.h"
#include "stats/fit.h"
#include "stats/stats.h"
#include "stats/sweep.h"
#include "tb_test.h"

#define NPTS 5

static const double xs[NPTS] = {1, 2, 4, 8, 16};

/* A traced cell "w[probes=X]/t" of a tracer sweep over probes, its overhead ns/op y. */
static void add_cell(struct tb_result *r, double x, double y, enum tb_verdict verdict)
{
	struct tb_cell *c = tb_result_add_cell(r);
	char id[64], v[16];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	snprintf(v, sizeof(v), "%g", x);
	snprintf(id, sizeof(id), "w/t[probes=%s]", v);
	c->id = strdup(id);
	c->workload = strdup("w");
	c->workload_type = strdup("getpid");
	c->tracer = strdup(id + 2);
	c->tracer_type = strdup("ftrace-events");
	c->has_overhead = true;
	tb_overhead_init(&c->overhead);
	c->overhead.ns_per_op = y;
	c->overhead.ns_ci_lo = y - 5;
	c->overhead.ns_ci_hi = y + 5;
	c->overhead.verdict = verdict;
	snprintf(c->overhead.reason, sizeof(c->overhead.reason), "CV 40%% > 10%%");
	c->tsweep.present = true;
	c->tsweep.section = strdup("t");
	c->tsweep.key = strdup("probes");
	c->tsweep.value = strdup(v);
	c->tsweep.unit = strdup("probe");
	c->tsweep.x = x;
}

/* y = 40 + 12 x plus noise (sd 3): the slope is recovered, named per probe. */
static void test_known_slope(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tb_result *r = tb_result_new();
	const struct tb_sweep *sw;

	gsl_rng_set(rng, 7);
	/* added in a shuffled order: the points come back by rising x */
	for (int i = NPTS - 1; i >= 0; i--)
		add_cell(r, xs[i], 40 + 12 * xs[i] + gsl_ran_gaussian(rng, 3), TB_VERDICT_OVERHEAD);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	CU_ASSERT_EQUAL_FATAL(r->nsweeps, 1);
	sw = &r->sweeps[0];
	CU_ASSERT_STRING_EQUAL(sw->kind, "tracer");
	CU_ASSERT_STRING_EQUAL(sw->section, "t");
	CU_ASSERT_STRING_EQUAL(sw->against, "w");
	CU_ASSERT_STRING_EQUAL(sw->unit, "probe");
	CU_ASSERT_EQUAL_FATAL(sw->npoints, NPTS);
	for (size_t i = 0; i < NPTS; i++) {
		CU_ASSERT_DOUBLE_EQUAL(sw->points[i].x, xs[i], 0);
		CU_ASSERT_TRUE(sw->points[i].used);
	}
	CU_ASSERT_TRUE(sw->fit.accepted);
	CU_ASSERT(sw->fit.cost_ci_lo < 12 && 12 < sw->fit.cost_ci_hi);
	CU_ASSERT_DOUBLE_EQUAL(sw->fit.cost_ns, 12, 1.0);
	CU_ASSERT(sw->fit.fixed_ci_lo < 40 && 40 < sw->fit.fixed_ci_hi);
	CU_ASSERT_EQUAL(sw->fit.npoints, NPTS);
	tb_result_free(r);
	gsl_rng_free(rng);
}

/* A flat series (what the value does not change): no slope in >= 95% of 200 repeats. */
static void test_flat_refused(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int slopes = 0;

	gsl_rng_set(rng, 42);
	for (int trial = 0; trial < 200; trial++) {
		struct tb_result *r = tb_result_new();
		const struct tb_rate_model *m;

		for (int i = 0; i < NPTS; i++)
			add_cell(r, xs[i], 300 + gsl_ran_gaussian(rng, 20), TB_VERDICT_OVERHEAD);
		CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
		m = &r->sweeps[0].fit;
		if (m->accepted && (m->cost_ci_lo > 0 || m->cost_ci_hi < 0))
			slopes++;
		else
			CU_ASSERT(!m->accepted && m->why_not[0]);
		if (!trial && !m->accepted)
			CU_ASSERT_PTR_NOT_NULL(strstr(m->why_not, "per probe"));
		tb_result_free(r);
	}
	printf("\n    a slope from a flat series %d times in 200", slopes);
	CU_ASSERT(slopes <= 10);
	gsl_rng_free(rng);
}

/* Untrustworthy points are not fitted, with their reason; too few left: refused, said so. */
static void test_unusable_points(void)
{
	struct tb_result *r = tb_result_new();
	const struct tb_sweep *sw;

	for (int i = 0; i < NPTS; i++)
		add_cell(r, xs[i], 40 + 12 * xs[i],
			 i < 3 ? TB_VERDICT_UNTRUSTWORTHY : TB_VERDICT_OVERHEAD);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	sw = &r->sweeps[0];
	CU_ASSERT_FALSE(sw->points[0].used);
	CU_ASSERT_PTR_NOT_NULL(strstr(sw->points[0].why_not, "untrustworthy: CV 40%"));
	CU_ASSERT_TRUE(sw->points[4].used);
	CU_ASSERT_FALSE(sw->fit.accepted);
	CU_ASSERT_PTR_NOT_NULL(strstr(sw->fit.why_not, "2 of 5 points usable"));
	tb_result_free(r);
}

/* result.json's sweeps: written and read back as they were; a bad kind is refused by key. */
static void test_json(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	json_t *doc, *sweeps;

	for (int i = 0; i < NPTS; i++)
		add_cell(r, xs[i], 40 + 12 * xs[i] + (i % 2 ? 1 : -1), TB_VERDICT_OVERHEAD);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	CU_ASSERT_EQUAL_FATAL(back->nsweeps, 1);
	CU_ASSERT_STRING_EQUAL(back->sweeps[0].unit, "probe");
	CU_ASSERT_EQUAL(back->sweeps[0].npoints, NPTS);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].fit.cost_ns, r->sweeps[0].fit.cost_ns, 1e-9);
	CU_ASSERT_EQUAL(back->sweeps[0].fit.accepted, r->sweeps[0].fit.accepted);
	CU_ASSERT_STRING_EQUAL(back->sweeps[0].points[2].cell, "w/t[probes=4]");
	CU_ASSERT_TRUE(back->cells[2].tsweep.present);
	CU_ASSERT_STRING_EQUAL(back->cells[2].tsweep.value, "4");
	tb_result_free(back);
	back = NULL;
	sweeps = json_object_get(doc, "sweeps");
	json_object_set_new(json_array_get(sweeps, 0), "kind", json_string("cell"));
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "r.json", &back), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), "sweeps[0].kind"));
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
}

#define NKNEE 16

/* y at x = 1..16 with noise sd: a line bent at 8 (after: slope after), or none when bend 0. */
static void knee_series(gsl_rng *rng, double *x, double *y, double before, double after, double sd)
{
	for (int i = 0; i < NKNEE; i++) {
		x[i] = i + 1;
		y[i] = 50 + before * fmin(x[i], 8) + after * fmax(0, x[i] - 8) +
		       gsl_ran_gaussian(rng, sd);
	}
}

/* A cost that stops at 8: the knee is found there, its slopes within their CIs, saturated. */
static void test_knee_found(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[NKNEE], y[NKNEE];
	struct tb_knee_model k;
	int found = 0;

	gsl_rng_set(rng, 11);
	for (int trial = 0; trial < 50; trial++) {
		knee_series(rng, x, y, 20, 0, 4);
		CU_ASSERT_EQUAL_FATAL(tb_stats_knee_fit(x, y, NKNEE, 0.05, &k), 0);
		if (!k.accepted)
			continue;
		found++;
		CU_ASSERT(fabs(k.knee_x - 8) <= 1);
		CU_ASSERT(k.saturating || fabs(k.knee_x - 8) == 1);
		CU_ASSERT_DOUBLE_EQUAL(k.before_ns, 20, 3);
	}
	printf("\n    the knee accepted %d times in 50", found);
	CU_ASSERT(found >= 48);
	/* the same through a sweep: its line is bent, the knee is said */
	struct tb_result *r = tb_result_new();

	knee_series(rng, x, y, 20, 0, 4);
	for (int i = 0; i < NKNEE; i++)
		add_cell(r, x[i], y[i], TB_VERDICT_OVERHEAD);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	CU_ASSERT_TRUE(r->sweeps[0].has_knee);
	CU_ASSERT_TRUE(r->sweeps[0].knee.accepted);
	CU_ASSERT_DOUBLE_EQUAL(r->sweeps[0].knee.knee_x, 8, 1);
	tb_result_free(r);
	gsl_rng_free(rng);
}

/* A straight line and pure noise: no knee in >= 95% of 200 repeats each. */
static void test_knee_refused(void)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[NKNEE], y[NKNEE];
	struct tb_knee_model k;
	int line = 0, noise = 0;

	gsl_rng_set(rng, 5);
	for (int trial = 0; trial < 200; trial++) {
		knee_series(rng, x, y, 12, 12, 4);
		CU_ASSERT_EQUAL_FATAL(tb_stats_knee_fit(x, y, NKNEE, 0.05, &k), 0);
		line += k.accepted;
		knee_series(rng, x, y, 0, 0, 20);
		CU_ASSERT_EQUAL_FATAL(tb_stats_knee_fit(x, y, NKNEE, 0.05, &k), 0);
		noise += k.accepted;
		if (!k.accepted)
			CU_ASSERT(k.why_not[0] != '\0');
	}
	printf("\n    a knee in a line %d, in noise %d times in 200", line, noise);
	CU_ASSERT(line <= 10);
	CU_ASSERT(noise <= 10);
	CU_ASSERT_EQUAL(tb_stats_knee_fit(x, y, 4, 0.05, &k), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(k.why_not, "fewer than 5"));
	gsl_rng_free(rng);
}

/*
 * The slope's CI from the rounds the points share. Each trial: a baseline cell of B = 1000 ns/op
 * and five points x = 50..800 costing B + x, 6 rounds, each round's machine speed off by its own
 * 8% for every cell of it and every sample by another 4% (lognormal), as a noisy machine's were:
 * the five medians lie close to a line whose slope the rounds' speed moves, and the line's CI
 * from their residuals misses the truth (slope 1) far more often than its 95% says. The model's CI, widened by the rounds' bootstrap, holds it in at least
 * 85% of 200 trials (fixed seed) and the line's alone in fewer; the bootstrap's CI is written as
 * slope_ns_ci_rounds and read back.
 */
static void test_rounds_ci(void)
{
	static const double x[NPTS] = {50, 100, 200, 400, 800};
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int line_hits = 0, hits = 0, trials = 200, rounds = 6;

	gsl_rng_set(rng, 11);
	for (int trial = 0; trial < trials; trial++) {
		struct tb_result *r = tb_result_new();
		struct tb_cell *b = tb_result_add_cell(r);
		struct tb_rate_model line;
		double y[NPTS], vb[8], vt[8];

		double speed[8];

		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		for (int k = 0; k < rounds; k++)
			speed[k] = exp(gsl_ran_gaussian(rng, 0.08));
		b->id = strdup("w/none");
		b->workload = strdup("w");
		b->tracer = strdup("none");
		b->baseline = true;
		for (int k = 0; k < rounds; k++) {
			struct tb_sample *sm = tb_cell_add_sample(b);

			sm->round = k;
			sm->ns_per_op = vb[k] = 1000 * speed[k] * exp(gsl_ran_gaussian(rng, 0.04));
		}
		for (int i = 0; i < NPTS; i++) {
			struct tb_cell *c;

			add_cell(r, x[i], 0, TB_VERDICT_OVERHEAD);
			c = &r->cells[r->ncells - 1];
			for (int k = 0; k < rounds; k++) {
				struct tb_sample *sm = tb_cell_add_sample(c);

				sm->round = k;
				sm->ns_per_op = vt[k] =
					(1000 + x[i]) * speed[k] * exp(gsl_ran_gaussian(rng, 0.04));
			}
			c->overhead.ns_per_op = y[i] =
				gsl_stats_median(vt, 1, rounds) - gsl_stats_median(vb, 1, rounds);
		}
		CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
		CU_ASSERT_TRUE_FATAL(isfinite(r->sweeps[0].rounds_lo));
		CU_ASSERT(r->sweeps[0].fit.cost_ci_lo <= r->sweeps[0].rounds_lo);
		CU_ASSERT(r->sweeps[0].fit.cost_ci_hi >= r->sweeps[0].rounds_hi);
		hits += r->sweeps[0].fit.cost_ci_lo <= 1 && 1 <= r->sweeps[0].fit.cost_ci_hi;
		tb_stats_line_fit(x, y, NPTS, 0.05, "ns", "ns values", "flat", &line);
		line_hits += line.cost_ci_lo <= 1 && 1 <= line.cost_ci_hi;
		if (trial == 0) {
			struct tb_result *back = NULL;
			json_t *doc = tb_result_to_json(r);

			CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
			CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].rounds_lo, r->sweeps[0].rounds_lo,
					       1e-9);
			CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].rounds_hi, r->sweeps[0].rounds_hi,
					       1e-9);
			tb_result_free(back);
			json_decref(doc);
		}
		tb_result_free(r);
	}
	printf("\n    a slope of 1 in the model's CI %d times in %d, in the line's alone %d", hits,
	       trials, line_hits);
	CU_ASSERT(hits >= 0.85 * trials);
	CU_ASSERT(line_hits < hits);
	gsl_rng_free(rng);
}

/* A filter's selectivity sweep of five points into r: rejected shares 0..100%, ns/op y[i], a
 * kept event costing 60 ns at the x = 0 point. */
static const double filter_share[] = {0, 50, 90, 99, 100};

static void filter_cells(struct tb_result *r, const double *y)
{
	for (int i = 0; i < 5; i++) {
		add_cell(r, filter_share[i], y[i], TB_VERDICT_OVERHEAD);
		free(r->cells[i].tsweep.unit);
		r->cells[i].tsweep.unit = strdup(TB_UNIT_FILTERED);
		if (!i)
			r->cells[i].overhead.ns_per_event = 60;
	}
}

/* The line 6000 - 45 x share, +-2 ns of noise: a rejected event costs 15 ns. */
static void filter_line(double *y)
{
	for (int i = 0; i < 5; i++)
		y[i] = 100 * 60 - 45 * filter_share[i] + (i % 2 ? 2 : -2);
}

/* A filter's selectivity sweep: a kept event's cost from the x = 0 point, a rejected one's from
 * the slope; both and the knee read back from result.json. */
static void test_filter_sweep(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	const struct tb_sweep *sw;
	double y[5];
	json_t *doc;

	filter_line(y);
	filter_cells(r, y);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	sw = &r->sweeps[0];
	CU_ASSERT_TRUE_FATAL(sw->fit.accepted);
	CU_ASSERT_FALSE(sw->rejected_within_noise);
	CU_ASSERT_DOUBLE_EQUAL(sw->accepted_ns, 60, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sw->rejected_ns, 15, 0.5);
	CU_ASSERT(sw->rej_lo < 15 && 15 < sw->rej_hi);
	CU_ASSERT_FALSE(sw->has_knee);
	doc = tb_result_to_json(r);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].rejected_ns, sw->rejected_ns, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].rej_hi, sw->rej_hi, 1e-9);
	CU_ASSERT_FALSE(back->sweeps[0].has_knee);
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
}

/*
 * A filter that saves nothing this run resolves: the line is refused (its slope's CI includes
 * 0), but a rejected event's cost is still measured, the same as a kept one within that CI,
 * and said to be within the noise (it was "unknown" before, for every filter on a noisy
 * machine). Read back as written. A line refused for its r2 gives one too; a bent line one read
 * off the point that rejects every event, where there is such a point.
 */
static void test_filter_within_noise(void)
{
	static const double flat[] = {5700, 6300, 5700, 6300, 5700};
	struct tb_result *r = tb_result_new(), *back = NULL;
	const struct tb_sweep *sw;
	double y[5];
	json_t *doc;

	filter_cells(r, flat);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	sw = &r->sweeps[0];
	CU_ASSERT_FALSE_FATAL(sw->fit.accepted);
	CU_ASSERT_PTR_NOT_NULL(strstr(sw->fit.why_not, "includes 0"));
	CU_ASSERT_TRUE(isfinite(sw->rejected_ns));
	CU_ASSERT(sw->rej_lo <= 60 && 60 <= sw->rej_hi);
	CU_ASSERT_TRUE(sw->rejected_within_noise);
	doc = tb_result_to_json(r);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	CU_ASSERT_TRUE(back->sweeps[0].rejected_within_noise);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].rejected_ns, sw->rejected_ns, 1e-9);
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
	/* a significant slope refused for its r2 (0.88: scattered points, not a bend): a
	 * selectivity line is a line by construction, so the rejected event is still given,
	 * from the slope's CI, which carries the scatter, and it is told apart */
	r = tb_result_new();
	filter_line(y);
	for (int i = 1; i < 5; i++)
		y[i] += i % 2 ? 800 : -800;
	filter_cells(r, y);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	sw = &r->sweeps[0];
	CU_ASSERT_FALSE(sw->fit.accepted);
	CU_ASSERT_FALSE(sw->fit.nonlinear);
	CU_ASSERT_PTR_NOT_NULL(strstr(sw->fit.why_not, "r2"));
	CU_ASSERT_TRUE(isfinite(sw->rejected_ns));
	CU_ASSERT(sw->rej_lo < sw->rejected_ns && sw->rejected_ns < sw->rej_hi);
	CU_ASSERT_DOUBLE_EQUAL(sw->rej_hi - sw->rej_lo, sw->fit.cost_ci_hi - sw->fit.cost_ci_lo,
			       1e-9);
	CU_ASSERT_FALSE(sw->rejected_within_noise);
	tb_result_free(r);
	/* a bent line (a significant quadratic term): no rejected event from the line, but the
	 * point that rejects all 100 events per op (6000 - 3000 ns/op) gives one, 30 ns, its CI
	 * the point's per event; read back as written */
	r = tb_result_new();
	for (int i = 0; i < 5; i++)
		y[i] = 6000 - 30 * filter_share[i] * filter_share[i] / 100;
	y[2] += 1;
	filter_cells(r, y);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	sw = &r->sweeps[0];
	CU_ASSERT_TRUE(sw->fit.nonlinear);
	CU_ASSERT_TRUE(sw->rejected_from_point);
	CU_ASSERT_DOUBLE_EQUAL(sw->rejected_ns, 30, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sw->rej_lo, 29.95, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sw->rej_hi, 30.05, 1e-9);
	CU_ASSERT_FALSE(sw->rejected_within_noise);
	doc = tb_result_to_json(r);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	CU_ASSERT_TRUE(back->sweeps[0].rejected_from_point);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].rejected_ns, 30, 1e-9);
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
	/* without a point that rejects every event (the sweep stops at 99 of 100): none */
	r = tb_result_new();
	filter_cells(r, y);
	r->cells[4].tsweep.x = 99;
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	CU_ASSERT_FALSE(isfinite(r->sweeps[0].rejected_ns));
	CU_ASSERT_FALSE(r->sweeps[0].rejected_from_point);
	tb_result_free(r);
}

/* A knee read back as written. */
static void test_knee_json(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[NKNEE], y[NKNEE];
	json_t *doc;

	gsl_rng_set(rng, 3);
	knee_series(rng, x, y, 20, 0, 2);
	for (int i = 0; i < NKNEE; i++)
		add_cell(r, x[i], y[i], TB_VERDICT_OVERHEAD);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	CU_ASSERT_TRUE_FATAL(r->sweeps[0].has_knee);
	doc = tb_result_to_json(r);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	CU_ASSERT_TRUE(back->sweeps[0].has_knee);
	CU_ASSERT_EQUAL(back->sweeps[0].knee.accepted, r->sweeps[0].knee.accepted);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].knee.knee_x, r->sweeps[0].knee.knee_x, 0);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].knee.after_hi, r->sweeps[0].knee.after_hi, 1e-9);
	CU_ASSERT_EQUAL(back->sweeps[0].knee.saturating, r->sweeps[0].knee.saturating);
	CU_ASSERT_FALSE(isfinite(back->sweeps[0].rejected_ns));
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
	gsl_rng_free(rng);
}

/* A workload sweep's cells offered rate events/s, losing lost of them per sample: the fastest
 * lossless point is held with its tracer CPU, the slowest lossy one is where losses start. */
static void test_saturation(void)
{
	static const double rate[] = {1e5, 4e5, 8e5, 1.6e6}, lost[] = {0, 0, 300, 9000};
	struct tb_result *r = tb_result_new(), *back = NULL;
	const struct tb_sweep *sw;
	json_t *doc;

	for (int i = 0; i < 4; i++) {
		struct tb_cell *c;
		char v[16];

		add_cell(r, i + 1, 100, TB_VERDICT_OVERHEAD);
		c = &r->cells[i];
		c->tsweep.present = false;
		free(c->tracer);
		c->tracer = strdup("t"); /* one tracer: one sweep */
		snprintf(v, sizeof(v), "%d", i + 1);
		c->wsweep.present = true;
		c->wsweep.section = strdup("w");
		c->wsweep.key = strdup("work");
		c->wsweep.value = strdup(v);
		c->wsweep.unit = strdup("work");
		c->wsweep.x = i + 1;
		for (int k = -1; k < 3; k++) {
			struct tb_sample *sm = tb_cell_add_sample(c);

			CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
			sm->round = k;
			sm->warmup = k < 0;
			sm->ops = 1000;
			sm->ns_per_op = 100;
			sm->elapsed_ns = 2e8;
			sm->lost = (int64_t)lost[i];
			sm->events = (int64_t)(rate[i] * 0.2) - sm->lost;
			sm->tracer_cpu_s = 0.02 * (i + 1);
		}
	}
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	CU_ASSERT_EQUAL_FATAL(r->nsweeps, 1);
	sw = &r->sweeps[0];
	CU_ASSERT_STRING_EQUAL(sw->kind, "workload");
	CU_ASSERT_DOUBLE_EQUAL(sw->points[1].events_per_s, 4e5, 1);
	CU_ASSERT_EQUAL(sw->points[3].lost, 27000);
	CU_ASSERT_DOUBLE_EQUAL(sw->held_rate, 4e5, 1);
	CU_ASSERT_DOUBLE_EQUAL(sw->held_cpu, 0.2, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(sw->lost_rate, 8e5, 1);
	doc = tb_result_to_json(r);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].held_rate, sw->held_rate, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].lost_rate, sw->lost_rate, 1e-6);
	CU_ASSERT_EQUAL(back->sweeps[0].points[2].lost, 900);
	CU_ASSERT_DOUBLE_EQUAL(back->sweeps[0].points[2].tracer_cpu, 0.3, 1e-9);
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
}

/* A tracer sweep over buffer-size at one rate: the smallest size that lost nothing is held,
 * and the lossy points' lost-events reasons name it. */
static void test_smallest_buffer(void)
{
	static const double size[] = {8192, 65536, 524288}, lost[] = {500, 20, 0};
	static const char *const value[] = {"8K", "64K", "512K"};
	struct tb_result *r = tb_result_new();
	const struct tb_sweep *sw;

	for (int i = 0; i < 3; i++) {
		struct tb_cell *c;

		add_cell(r, size[i], 100, i < 2 ? TB_VERDICT_UNTRUSTWORTHY : TB_VERDICT_OVERHEAD);
		c = &r->cells[i];
		free(c->tsweep.key);
		free(c->tsweep.unit);
		free(c->tsweep.value);
		c->tsweep.key = strdup("buffer-size");
		c->tsweep.unit = strdup("byte");
		c->tsweep.value = strdup(value[i]);
		snprintf(c->overhead.reason, sizeof(c->overhead.reason), "%g events lost", lost[i]);
		for (int k = 0; k < 2; k++) {
			struct tb_sample *sm = tb_cell_add_sample(c);

			CU_ASSERT_PTR_NOT_NULL_FATAL(sm);
			sm->round = k;
			sm->ops = 1000;
			sm->ns_per_op = 100;
			sm->elapsed_ns = 1e8;
			sm->lost = (int64_t)lost[i];
			sm->events = 10000 - sm->lost;
			sm->tracer_cpu_s = 0.01;
		}
	}
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	CU_ASSERT_EQUAL_FATAL(r->nsweeps, 1);
	sw = &r->sweeps[0];
	CU_ASSERT_STRING_EQUAL(sw->held_value, "512K");
	CU_ASSERT_DOUBLE_EQUAL(sw->held_rate, 1e5, 1);
	CU_ASSERT_DOUBLE_EQUAL(sw->held_cpu, 0.1, 1e-9);
	CU_ASSERT_FALSE(isfinite(sw->lost_rate));
	CU_ASSERT_PTR_NOT_NULL(strstr(r->cells[0].overhead.reason,
				      "500 events lost; in this run buffer-size = 512K held it"));
	CU_ASSERT_PTR_NULL(strstr(r->cells[2].overhead.reason, "held it"));
	/* nothing lost anywhere: no smallest size to speak of */
	for (size_t i = 0; i < r->ncells; i++)
		for (size_t k = 0; k < r->cells[i].nsamples; k++) {
			r->cells[i].samples[k].lost = 0;
			r->cells[i].overhead.verdict = TB_VERDICT_OVERHEAD;
		}
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweeps(r), 0);
	CU_ASSERT_STRING_EQUAL(r->sweeps[0].held_value, "");
	tb_result_free(r);
}

/* A result with one tracer sweep of slope `slope` (noise sd 1, seed seed); flat: none. */
static struct tb_result *sloped(double slope, unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct tb_result *r = tb_result_new();

	gsl_rng_set(rng, seed);
	for (int i = 0; i < NPTS; i++)
		add_cell(r, xs[i], 40 + slope * xs[i] + gsl_ran_gaussian(rng, 1),
			 TB_VERDICT_OVERHEAD);
	CU_ASSERT_EQUAL(tb_stats_sweeps(r), 0);
	gsl_rng_free(rng);
	return r;
}

/* compare's sweeps: a slope that grew is worse, one that fell better, the same slope same, a
 * significant change inside the noise threshold same, a refused line refused (naming the
 * side), a sweep of one side listed as such. */
static void test_sweep_changes(void)
{
	struct tb_result *a = sloped(12, 1), *b = sloped(20, 2), *same = sloped(12, 3),
			 *flat = sloped(0, 4);
	struct tb_cmp_sweep *d;
	size_t n, both;

	CU_ASSERT_EQUAL_FATAL(tb_stats_sweep_changes(a, b, &d, &n, &both), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(both, 1);
	CU_ASSERT_DOUBLE_EQUAL(d[0].change, 8, 1);
	CU_ASSERT(d[0].ci_lo < d[0].change && d[0].change < d[0].ci_hi);
	CU_ASSERT_TRUE(d[0].significant);
	CU_ASSERT_EQUAL(d[0].dir, TB_CMP_SWEEP_WORSE);
	CU_ASSERT_STRING_EQUAL(tb_cmp_sweep_dir_name(d[0].dir), "worse");
	free(d);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweep_changes(b, a, &d, &n, &both), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_EQUAL(d[0].dir, TB_CMP_SWEEP_BETTER);
	free(d);
	/* the same rise inside a noise threshold of 100% of A's slope is no change */
	a->noise_threshold = 1.0;
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweep_changes(a, b, &d, &n, &both), 0);
	CU_ASSERT_TRUE(d[0].significant);
	CU_ASSERT_EQUAL(d[0].dir, TB_CMP_SWEEP_SAME);
	free(d);
	a->noise_threshold = 0.01;
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweep_changes(a, same, &d, &n, &both), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_FALSE(d[0].significant);
	CU_ASSERT_EQUAL(d[0].dir, TB_CMP_SWEEP_SAME);
	free(d);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweep_changes(a, flat, &d, &n, &both), 0);
	CU_ASSERT_EQUAL_FATAL(n, 1);
	CU_ASSERT_FALSE(isfinite(d[0].change));
	CU_ASSERT_EQUAL(d[0].dir, TB_CMP_SWEEP_REFUSED);
	CU_ASSERT_STRING_EQUAL(d[0].why, "no accepted line in B");
	free(d);
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweep_changes(flat, a, &d, &n, &both), 0);
	CU_ASSERT_STRING_EQUAL(d[0].why, "no accepted line in A");
	free(d);
	free(flat->sweeps[0].section);
	flat->sweeps[0].section = strdup("other");
	CU_ASSERT_EQUAL_FATAL(tb_stats_sweep_changes(a, flat, &d, &n, &both), 0);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL(both, 0);
	CU_ASSERT_EQUAL(d[0].dir, TB_CMP_SWEEP_ONLY_A);
	CU_ASSERT_PTR_EQUAL(d[0].a, &a->sweeps[0]);
	CU_ASSERT_PTR_NULL(d[0].b);
	CU_ASSERT_EQUAL(d[1].dir, TB_CMP_SWEEP_ONLY_B);
	CU_ASSERT_PTR_NULL(d[1].a);
	CU_ASSERT_PTR_EQUAL(d[1].b, &flat->sweeps[0]);
	CU_ASSERT_FALSE(isfinite(d[1].change));
	free(d);
	tb_result_free(a);
	tb_result_free(b);
	tb_result_free(same);
	tb_result_free(flat);
}

static CU_TestInfo tests[] = {
	{"a known slope is recovered", test_known_slope},
	{"a flat series gives no slope", test_flat_refused},
	{"unusable points are said, not fitted", test_unusable_points},
	{"result.json's sweeps", test_json},
	{"a knee is found where the cost stops", test_knee_found},
	{"no knee in a line or in noise", test_knee_refused},
	{"the slope's CI from the rounds holds a known slope the line's misses", test_rounds_ci},
	{"a filter's kept and rejected event", test_filter_sweep},
	{"a filter that saves nothing resolved: rejected as kept, within the noise",
	 test_filter_within_noise},
	{"result.json's knee", test_knee_json},
	{"the rate a tracer held and lost at", test_saturation},
	{"compare: a sweep's slope changed or not", test_sweep_changes},
	{"the smallest buffer that held a rate", test_smallest_buffer},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE_BESIDE("stats-sweep", NULL, NULL, tests);
