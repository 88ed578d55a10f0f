// SPDX-License-Identifier: GPL-2.0
/* Lines fitted over cells (fit.h): the rate models' and the sweeps' one fit and acceptance. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_statistics_double.h>

#include "model/measured.h"
#include "stats/fit.h"
#include "stats/stats.h"

/* A least-squares fit of y = c0 + c1 x + c2 third(x, arg) over n points, and its workspace. */
struct fit3 {
	gsl_matrix *X, *cov;
	gsl_vector *yv, *coef;
	gsl_multifit_linear_workspace *w;
	double sse;
};

static void fit3_free(struct fit3 *f)
{
	gsl_matrix_free(f->X);
	gsl_matrix_free(f->cov);
	gsl_vector_free(f->yv);
	gsl_vector_free(f->coef);
	gsl_multifit_linear_free(f->w);
	*f = (struct fit3){0};
}

/* 0, or -ENOMEM (f is freed either way by fit3_free). */
static int fit3_alloc(struct fit3 *f, size_t n)
{
	f->X = gsl_matrix_alloc(n, 3);
	f->cov = gsl_matrix_alloc(3, 3);
	f->yv = gsl_vector_alloc(n);
	f->coef = gsl_vector_alloc(3);
	f->w = gsl_multifit_linear_alloc(n, 3);
	return f->X && f->cov && f->yv && f->coef && f->w ? 0 : -ENOMEM;
}

/* Fit f's model with third(x, arg) as its third column: f->coef, f->cov, f->sse. 0 or -1. */
static int fit3_run(struct fit3 *f, const double *x, const double *y, size_t n,
		    double (*third)(double x, double arg), double arg)
{
	for (size_t i = 0; i < n; i++) {
		gsl_matrix_set(f->X, i, 0, 1);
		gsl_matrix_set(f->X, i, 1, x[i]);
		gsl_matrix_set(f->X, i, 2, third(x[i], arg));
		gsl_vector_set(f->yv, i, y[i]);
	}
	return gsl_multifit_linear(f->X, f->yv, f->coef, f->cov, &f->sse, f->w) ? -1 : 0;
}

static double square(double x, double arg)
{
	(void)arg;
	return x * x;
}

/* The knee model's bend: max(0, x - knee). */
static double past(double x, double knee)
{
	return x > knee ? x - knee : 0;
}

/* Whether a fitted line says something (tb_stats_line_fit's comment); per and range word
 * its refusal ("event", "events per op"). */
static void rate_accept(struct tb_rate_model *m, const char *per, const char *range)
{
	m->why_not[0] = '\0';
	if (!(m->cost_ci_lo > 0 || m->cost_ci_hi < 0))
		snprintf(
			m->why_not, sizeof(m->why_not),
			"the cost per %s's CI [%.3g, %.3g] includes 0: noise (more repetitions, or a wider range of %s)",
			per, m->cost_ci_lo, m->cost_ci_hi, range);
	else if (!(m->r2 >= TB_RATE_MIN_R2))
		snprintf(m->why_not, sizeof(m->why_not),
			 "r2 %.3f < %.2f: the points do not follow a line (noise or saturation)",
			 m->r2, TB_RATE_MIN_R2);
	m->accepted = !m->why_not[0];
}

int tb_stats_rate_fit(const double *x, const double *y, size_t n, double alpha,
		      struct tb_rate_model *m)
{
	return tb_stats_line_fit(
		x, y, n, alpha, "event", "events per op",
		"the sweep's events/op do not vary: vary the traced events per op (getpid's calls, e.g. 1 to 16)",
		m);
}

int tb_stats_line_fit(const double *x, const double *y, size_t n, double alpha, const char *per,
		      const char *range, const char *flat, struct tb_rate_model *m)
{
	double c0, c1, cov00, cov01, cov11, sumsq, t, tss, ym;
	gsl_error_handler_t *old;

	m->npoints = n;
	m->accepted = false;
	if (n < 3 || !(gsl_stats_variance(x, 1, n) > 0)) {
		snprintf(m->why_not, sizeof(m->why_not), "%s",
			 n < 3 ? "fewer than 3 points" : flat);
		return -EINVAL;
	}
	if (gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) ||
	    !isfinite(c0) || !isfinite(c1))
		return -EINVAL;
	t = gsl_cdf_tdist_Pinv(1 - alpha / 2, (double)(n - 2));
	m->fixed_ns = c0;
	m->fixed_ci_lo = c0 - t * sqrt(cov00);
	m->fixed_ci_hi = c0 + t * sqrt(cov00);
	m->cost_ns = c1;
	m->cost_ci_lo = c1 - t * sqrt(cov11);
	m->cost_ci_hi = c1 + t * sqrt(cov11);
	ym = gsl_stats_mean(y, 1, n);
	tss = 0;
	for (size_t i = 0; i < n; i++)
		tss += (y[i] - ym) * (y[i] - ym);
	m->r2 = tss > 0 ? 1 - sumsq / tss : NAN;
	m->p_quadratic = NAN;
	m->nonlinear = false;
	rate_accept(m, per, range);
	if (n < 4)
		return 0;
	if (sumsq <= 1e-12 * tss) {
		m->p_quadratic = 1; /* exactly linear: nothing left for a curve to explain */
		return 0;
	}
	/* Non-linearity: is a quadratic term significant (t-test on its coefficient)? */
	struct fit3 f;

	old = gsl_set_error_handler_off();
	if (!fit3_alloc(&f, n) && !fit3_run(&f, x, y, n, square, 0)) {
		double se = sqrt(gsl_matrix_get(f.cov, 2, 2)), c2 = gsl_vector_get(f.coef, 2);

		if (!(se > 0))
			m->p_quadratic = 1;
		else
			m->p_quadratic = tb_stats_probability(
				fmin(1, 2 * gsl_cdf_tdist_Q(fabs(c2 / se), (double)(n - 3))));
		m->nonlinear = m->p_quadratic < alpha;
	}
	gsl_set_error_handler(old);
	fit3_free(&f);
	return 0;
}

void tb_stats_line_widen(struct tb_rate_model *m, const double ci[2], const char *per,
			 const char *range)
{
	if (!isfinite(ci[0]) || !isfinite(ci[1]) || !isfinite(m->cost_ci_lo) ||
	    !isfinite(m->cost_ci_hi))
		return;
	m->cost_ci_lo = fmin(m->cost_ci_lo, ci[0]);
	m->cost_ci_hi = fmax(m->cost_ci_hi, ci[1]);
	rate_accept(m, per, range);
}

/* A cell's measured ns/op by round into v[0..nr) (NAN where the round has none; the
 * first sample of a round, as tb_stats_cellpair pairs them). */
static void by_round(const struct tb_cell *c, double *v, size_t nr)
{
	for (size_t k = 0; k < nr; k++)
		v[k] = NAN;
	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (tb_sample_measured(s) && s->round >= 0 && (size_t)s->round < nr &&
		    isnan(v[s->round]))
			v[s->round] = s->ns_per_op;
	}
}

/* Whether column k of nrows rows of nr values has a value in every row. */
static bool every_row(const double *rows, size_t nrows, size_t nr, size_t k)
{
	for (size_t p = 0; p < nrows; p++)
		if (!isfinite(rows[p * nr + k]))
			return false;
	return true;
}

int tb_stats_rounds_slope_ci(const struct tb_result *r, const struct tb_cell *const *traced,
			     const double *x, size_t n, uint64_t stream, double ci[2])
{
	const struct tb_cell **cells = calloc(2 * n + 1, sizeof(*cells));
	double *rows = NULL, *bt = NULL;
	size_t nr = 0, p = 0, shared = 0;
	int ret = -ENOMEM;

	ci[0] = ci[1] = NAN;
	if (!cells)
		goto out;
	ret = 0;
	/* cells[2p] the baseline of point p, cells[2p + 1] its traced cell */
	for (p = 0; p < n; p++) {
		cells[2 * p + 1] = traced[p];
		cells[2 * p] = tb_result_baseline(r, traced[p]);
		if (!cells[2 * p])
			goto out;
	}
	for (p = 0; p < 2 * n; p++)
		for (size_t i = 0; i < cells[p]->nsamples; i++)
			if (cells[p]->samples[i].round >= 0 &&
			    (size_t)cells[p]->samples[i].round >= nr)
				nr = (size_t)cells[p]->samples[i].round + 1;
	if (nr < 2 || nr > 100000)
		goto out;
	ret = -ENOMEM;
	rows = malloc(2 * n * nr * sizeof(*rows));
	bt = malloc(2 * n * nr * sizeof(*bt));
	if (!rows || !bt)
		goto out;
	for (p = 0; p < 2 * n; p++)
		by_round(cells[p], rows + p * nr, nr);
	/* the rounds every row measured, column by column into bt: n baseline rows of shared
	 * values, then n traced rows */
	for (size_t k = 0; k < nr; k++)
		shared += every_row(rows, 2 * n, nr, k);
	for (size_t k = 0, j = 0; k < nr && shared; k++) {
		if (!every_row(rows, 2 * n, nr, k))
			continue;
		for (p = 0; p < n; p++) {
			bt[p * shared + j] = rows[2 * p * nr + k];
			bt[(n + p) * shared + j] = rows[(2 * p + 1) * nr + k];
		}
		j++;
	}
	ret = tb_stats_bootstrap_slope(x, bt, bt + n * shared, n, shared,
				       r->resamples ? r->resamples : 10000, r->confidence,
				       tb_stats_seed(r->seed, stream), ci);
	ret = ret == -ENOMEM ? -ENOMEM : 0;
out:
	free(rows);
	free(bt);
	free(cells);
	return ret;
}

/* The knee model's numbers from the best hinge's coef and cov (t: the CI's quantile). */
static void knee_figures(struct tb_knee_model *k, const gsl_vector *coef, const gsl_matrix *cov,
			 double t)
{
	double b = gsl_vector_get(coef, 1), c = gsl_vector_get(coef, 2);
	double sb = sqrt(gsl_matrix_get(cov, 1, 1));
	double sa = sqrt(fmax(0, gsl_matrix_get(cov, 1, 1) + gsl_matrix_get(cov, 2, 2) +
					 2 * gsl_matrix_get(cov, 1, 2)));

	k->fixed_ns = gsl_vector_get(coef, 0);
	k->before_ns = b;
	k->before_lo = b - t * sb;
	k->before_hi = b + t * sb;
	k->after_ns = b + c;
	k->after_lo = b + c - t * sa;
	k->after_hi = b + c + t * sa;
	k->saturating = k->after_lo <= 0;
}

int tb_stats_knee_fit(const double *x, const double *y, size_t n, double alpha,
		      struct tb_knee_model *k)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	double best = INFINITY, c0, c1, c00, c01, c11, sse_line, tss = 0, ym, f;
	struct fit3 h = {0};
	size_t tried = 0;
	int ret = -EINVAL;

	tb_knee_model_init(k);
	k->npoints = n;
	snprintf(k->why_not, sizeof(k->why_not), "fewer than 5 points: a knee needs 5");
	if (n < 5 || gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &c00, &c01, &c11, &sse_line))
		goto out;
	ret = fit3_alloc(&h, n);
	if (ret)
		goto out;
	/* Knees at the points that leave two from the first to it and two from it to the last. */
	for (size_t i = 1; i < n - 1; i++) {
		if (x[i] == x[i - 1] || x[i] == x[n - 1])
			continue;
		tried++;
		if (!fit3_run(&h, x, y, n, past, x[i]) && h.sse < best) {
			best = h.sse;
			k->knee_x = x[i];
		}
	}
	ret = -EINVAL;
	snprintf(k->why_not, sizeof(k->why_not), "no knee leaves two points on each side");
	if (!tried || !isfinite(k->knee_x) || fit3_run(&h, x, y, n, past, k->knee_x))
		goto out;
	ym = gsl_stats_mean(y, 1, n);
	for (size_t i = 0; i < n; i++)
		tss += (y[i] - ym) * (y[i] - ym);
	k->r2 = tss > 0 ? 1 - h.sse / tss : NAN;
	knee_figures(k, h.coef, h.cov, gsl_cdf_tdist_Pinv(1 - alpha / 2, (double)(n - 3)));
	/* The bend's F-test (1 and n - 3 df), Bonferroni over the knees tried: a knee picked
	 * as the best of several would otherwise fit noise. */
	f = h.sse > 0 ? (sse_line - h.sse) / (h.sse / (double)(n - 3)) : INFINITY;
	k->p_bend = tb_stats_probability(fmin(
		1, (double)tried *
			   (isfinite(f) ? gsl_cdf_fdist_Q(fmax(f, 0), 1, (double)(n - 3)) : 0)));
	k->why_not[0] = '\0';
	if (!(k->p_bend < alpha))
		snprintf(k->why_not, sizeof(k->why_not),
			 "the bend at %.4g is not significant (p %.2g over %zu knees tried): noise",
			 k->knee_x, k->p_bend, tried);
	else if (!(k->r2 >= TB_RATE_MIN_R2))
		snprintf(k->why_not, sizeof(k->why_not),
			 "r2 %.3f < %.2f: the points follow neither a line nor two", k->r2,
			 TB_RATE_MIN_R2);
	k->accepted = !k->why_not[0];
	ret = 0;
out:
	gsl_set_error_handler(old);
	fit3_free(&h);
	return ret;
}

bool tb_stats_fit_point(const struct tb_cell *c, char *why, size_t len)
{
	const char *w = NULL;

	if (why && len && c->has_overhead && c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY &&
	    !c->baseline && !c->error) {
		snprintf(why, len, "untrustworthy: %s", c->overhead.reason);
		return false;
	}
	if (c->baseline || !c->has_overhead || !isfinite(c->overhead.ns_per_op))
		w = "no overhead figure";
	else if (c->error)
		w = "the cell failed";
	else if (c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY)
		w = "untrustworthy";
	else if (c->overhead.verdict == TB_VERDICT_FASTER)
		w = "faster than its baseline";
	else if (c->proof.blocks)
		w = "its proof of tracing blocks it";
	else if (tb_cell_lost(c) > 0)
		w = "it lost events (its cost would be too low)";
	if (why && len)
		snprintf(why, len, "%s", w ? w : "");
	return !w;
}
