// SPDX-License-Identifier: GPL-2.0
/* Lines fitted over cells (fit.h): the rate models' and the sweeps' one fit and acceptance. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_statistics_double.h>

#include "model/measured.h"
#include "stats/fit.h"
#include "stats/stats.h"

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
	gsl_matrix *X = gsl_matrix_alloc(n, 3), *cov = gsl_matrix_alloc(3, 3);
	gsl_vector *yv = gsl_vector_alloc(n), *coef = gsl_vector_alloc(3);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, 3);
	double chisq;

	old = gsl_set_error_handler_off();
	if (X && cov && yv && coef && w) {
		for (size_t i = 0; i < n; i++) {
			gsl_matrix_set(X, i, 0, 1);
			gsl_matrix_set(X, i, 1, x[i]);
			gsl_matrix_set(X, i, 2, x[i] * x[i]);
			gsl_vector_set(yv, i, y[i]);
		}
		if (!gsl_multifit_linear(X, yv, coef, cov, &chisq, w)) {
			double se = sqrt(gsl_matrix_get(cov, 2, 2)), c2 = gsl_vector_get(coef, 2);

			if (!(se > 0))
				m->p_quadratic = 1;
			else
				m->p_quadratic = tb_stats_probability(fmin(
					1, 2 * gsl_cdf_tdist_Q(fabs(c2 / se), (double)(n - 3))));
			m->nonlinear = m->p_quadratic < alpha;
		}
	}
	gsl_set_error_handler(old);
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(yv);
	gsl_vector_free(coef);
	gsl_multifit_linear_free(w);
	return 0;
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
