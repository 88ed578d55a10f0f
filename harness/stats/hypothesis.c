// SPDX-License-Identifier: GPL-2.0
/*
 * The hypothesis tests and the power figure of stats.h, apart from the summaries, the
 * bootstrap and the analysis that use them: Welch's t, Mann-Whitney U (exact for small samples
 * without ties), the minimum detectable effect.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "stats/stats.h"

/* Exact Mann-Whitney distribution up to this many samples per side (and no ties). */
#define MW_EXACT_MAX 30

/* A p-value from GSL: NAN (cannot be computed) unless it is a probability. */
double tb_stats_probability(double p)
{
	return p >= 0 && p <= 1 ? p : NAN;
}

double tb_stats_welch_df(double va, double dfa, double vb, double dfb)
{
	double r;

	if (!(va > 0))
		return vb > 0 ? dfb : NAN;
	r = vb / va;
	return isfinite(r) ? (1 + r) * (1 + r) / (1 / dfa + r * r / dfb) : dfb;
}

double tb_stats_welch_p(const double *x, size_t nx, const double *y, size_t ny)
{
	double mx, my, vx, vy, se2, t, df;

	if (nx < 2 || ny < 2)
		return NAN;
	mx = gsl_stats_mean(x, 1, nx);
	my = gsl_stats_mean(y, 1, ny);
	vx = gsl_stats_variance_m(x, 1, nx, mx) / (double)nx;
	vy = gsl_stats_variance_m(y, 1, ny, my) / (double)ny;
	se2 = vx + vy;
	if (se2 <= 0)
		return mx == my ? 1.0 : 0.0;
	t = (mx - my) / sqrt(se2);
	df = tb_stats_welch_df(vx, (double)(nx - 1), vy, (double)(ny - 1));
	if (!isfinite(t) || !(df > 0) || !isfinite(df))
		return NAN;
	return tb_stats_probability(fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(t), df)));
}

/* P(U <= u) under H0 for sample sizes m, n without ties: counts of arrangements by U. */
static double mw_exact_cdf(size_t m, size_t n, double u)
{
	size_t w = m * n + 1;
	double *prev = calloc((n + 1) * w, sizeof(double));
	double *cur = calloc((n + 1) * w, sizeof(double));
	double total = 0, below = 0, p = NAN;

	if (!prev || !cur)
		goto out;
	/* c(i, j, u) = c(i - 1, j, u - j) + c(i, j - 1, u): the largest value is an x (it beats
	 * all j y's) or a y. c(0, j, 0) = c(i, 0, 0) = 1. */
	for (size_t j = 0; j <= n; j++)
		prev[j * w] = 1;
	for (size_t i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * w * sizeof(double));
		cur[0] = 1;
		for (size_t j = 1; j <= n; j++)
			for (size_t k = 0; k <= i * j; k++)
				cur[j * w + k] =
					(k >= j ? prev[j * w + k - j] : 0) + cur[(j - 1) * w + k];
		double *t = prev;

		prev = cur;
		cur = t;
	}
	for (size_t k = 0; k < w; k++) {
		total += prev[n * w + k];
		if ((double)k <= u + 1e-9)
			below += prev[n * w + k];
	}
	p = below / total;
out:
	free(prev);
	free(cur);
	return p;
}

double tb_stats_mannwhitney(const double *x, size_t nx, const double *y, size_t ny, double *u)
{
	size_t n = nx + ny, *idx = NULL;
	double *all = NULL, r1 = 0, ties = 0, u1, p = NAN;
	bool tied = false;

	if (u)
		*u = NAN;
	if (!nx || !ny)
		return NAN;
	all = malloc(n * sizeof(*all));
	idx = malloc(n * sizeof(*idx));
	if (!all || !idx)
		goto out;
	memcpy(all, x, nx * sizeof(*all));
	memcpy(all + nx, y, ny * sizeof(*all));
	gsl_sort_index(idx, all, 1, n);
	/* Average ranks over runs of ties; sum(t^3 - t) for the variance correction. */
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && all[idx[j + 1]] == all[idx[i]])
			j++;
		double rank = (double)(i + j + 2) / 2, t = (double)(j - i + 1);

		if (t > 1) {
			tied = true;
			ties += t * t * t - t;
		}
		for (size_t k = i; k <= j; k++)
			if (idx[k] < nx)
				r1 += rank;
		i = j + 1;
	}
	u1 = r1 - (double)nx * (double)(nx + 1) / 2;
	if (u)
		*u = u1;
	if (!tied && nx <= MW_EXACT_MAX && ny <= MW_EXACT_MAX) {
		double lo = mw_exact_cdf(nx, ny, u1);
		double hi = mw_exact_cdf(nx, ny, (double)(nx * ny) - u1); /* P(U >= u1) */

		p = fmin(1.0, 2 * fmin(lo, hi));
	} else {
		double mu = (double)nx * (double)ny / 2;
		double var = (double)nx * (double)ny / 12 *
			     ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
		double z;

		if (var <= 0) {
			p = 1.0; /* every value tied */
			goto out;
		}
		z = (fabs(u1 - mu) - 0.5) / sqrt(var);
		p = z <= 0 ? 1.0 : fmin(1.0, 2 * gsl_cdf_ugaussian_Q(z));
	}
out:
	free(all);
	free(idx);
	return p;
}

double tb_stats_mde(double sd1, size_t n1, double sd2, size_t n2, double alpha, double power)
{
	double df, sp;

	if (n1 < 2 || n2 < 2 || !isfinite(sd1) || !isfinite(sd2) || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return NAN;
	df = (double)(n1 + n2 - 2);
	sp = sqrt(((double)(n1 - 1) * sd1 * sd1 + (double)(n2 - 1) * sd2 * sd2) / df);
	return (gsl_cdf_tdist_Pinv(1 - alpha / 2, df) + gsl_cdf_tdist_Pinv(power, df)) * sp *
	       sqrt(1.0 / (double)n1 + 1.0 / (double)n2);
}
