/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics behind the verdicts (stats.c, GSL). doc/statistics.md defines each one.
 * Arrays are never modified; functions return NAN when a value cannot be computed (too few
 * samples, zero spread where it matters).
 */
#ifndef TB_STATS_H
#define TB_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/result.h"
#include "stats/fit.h"

/* Outlier rule: |x - median| > TB_OUTLIER_K * 1.4826 * MAD (Iglewicz & Hoaglin). */
#define TB_OUTLIER_K 3.5

/*
 * Turn GSL's default error handler (print and abort) off, once at start-up of every program
 * that computes statistics (main, the test runner, the fuzzers, the benchmarks): a value GSL
 * cannot handle must become NAN and an "untrustworthy" verdict, never a SIGABRT. Every GSL
 * status is checked where one is returned; special functions return NAN with the handler off.
 */
void tb_stats_init(void);

/*
 * Compute every cell's summary and every traced cell's overhead and verdict from its samples
 * and its workload's baseline, using r's settings (seed, alpha, ...). Returns 0 or -ENOMEM.
 */
int tb_stats_analyze(struct tb_result *r);
/* Set the level r is analysed at: its alpha and, to match, its confidence (1 - alpha), which
 * the bootstrap reads (gate's and combine's re-analyses). */
void tb_stats_set_alpha(struct tb_result *r, double alpha);
/* Fewer accounting or timed samples than this: the accounting's cost is a ratio of means
 * without a CI (result.h, struct tb_accounting). */
#define TB_ACCOUNTING_CI_MIN 5

double tb_stats_median(const double *x, size_t n);
/*
 * Distribution-free CI of the median from order statistics (the binomial rule): the narrowest
 * [x(j), x(n-j+1)] covering it with probability >= confidence, or [min, max] when n is too small
 * for that (n < 6 at 95%). Returns the interval's actual coverage, NAN (and NAN bounds) when
 * n < 2 or on ENOMEM.
 */
double tb_stats_median_ci(const double *x, size_t n, double confidence, double ci[2]);
/* Median absolute deviation from the median, unscaled. */
double tb_stats_mad(const double *x, size_t n);
/*
 * Fill s (n, median, mean, sd (n-1), cv, min, max, mad, outliers) from x. outlier, when not
 * NULL, receives one flag per element. Returns 0 (n may be 0: everything NAN).
 */
void tb_stats_summarize(const double *x, size_t n, struct tb_summary *s, bool *outlier);

/* A box plot's figures: quartiles, and whiskers at the last values within 1.5 IQR of the box. */
struct tb_stats_box {
	size_t n; /* values; 0: no box (the rest unset) */
	double min, q1, med, q3, max, wlo, whi;
};

/* The box of the n values of x, which it sorts in place. */
void tb_stats_box(double *x, size_t n, struct tb_stats_box *b);

/* Welch's unequal-variance t-test, two-sided p. */
double tb_stats_welch_p(const double *x, size_t nx, const double *y, size_t ny);
/*
 * The Welch-Satterthwaite degrees of freedom of va + vb, two variances of means on dfa and dfb
 * degrees of freedom (> 0), computed in the ratio vb / va so that tiny variances do not
 * underflow their squares; dfb when va is 0, dfa when vb is. NAN when both are 0.
 */
double tb_stats_welch_df(double va, double dfa, double vb, double dfb);
/* p when GSL's p-value is a probability, else NAN (cannot be computed). */
double tb_stats_probability(double p);
/*
 * Mann-Whitney U test, two-sided p. *u (may be NULL) receives U of x (the number of pairs with
 * x > y, ties counting 1/2). Exact distribution when there are no ties and nx, ny <= 30;
 * otherwise the normal approximation with tie correction and continuity correction.
 */
double tb_stats_mannwhitney(const double *x, size_t nx, const double *y, size_t ny, double *u);
/* Hodges-Lehmann shift: the median of all differences y[j] - x[i]. */
double tb_stats_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny);
/*
 * Smallest true difference of means (in x's unit) a two-sided two-sample test at alpha detects
 * with the given power: (t[1-alpha/2, df] + t[power, df]) * sp * sqrt(1/n1 + 1/n2), with sp the
 * pooled sd and df = n1 + n2 - 2.
 */
double tb_stats_mde(double sd1, size_t n1, double sd2, size_t n2, double alpha, double power);

/*
 * Percentile bootstrap CI at confidence of pct = 100 * (median(y) / median(x) - 1) and of
 * ns = median(y) - median(x). paired: nx == ny and x[i], y[i] come from the same round, and
 * rounds are resampled as pairs; otherwise x and y are resampled independently.
 * Returns 0, -EINVAL (fewer than 2 values), -ENOMEM.
 */
int tb_stats_bootstrap(const double *x, size_t nx, const double *y, size_t ny, bool paired,
		       unsigned int resamples, double confidence, uint64_t seed, double pct_ci[2],
		       double ns_ci[2]);

/* Measured samples of a traced cell and its baseline, aligned by round when possible. */
struct tb_cellpair {
	double *base, *traced; /* measured ns/op */
	size_t nb, nt;
	bool paired; /* base[i] and traced[i] share a round; nb == nt */
};
/* Returns 0 or -ENOMEM; free with tb_stats_cellpair_free. */
int tb_stats_cellpair(const struct tb_cell *base, const struct tb_cell *traced,
		      struct tb_cellpair *p);
void tb_stats_cellpair_free(struct tb_cellpair *p);
/* Measured ns/op values of a cell (new array, caller frees; *n may be 0). -ENOMEM. */
int tb_stats_measured(const struct tb_cell *c, double **out, size_t *n);

/*
 * Bootstrap CI of the change of overhead between two results, in percentage points:
 * pct(b) - pct(a), each pair resampled as tb_stats_bootstrap does. Returns 0, -EINVAL, -ENOMEM.
 */
int tb_stats_bootstrap_pct_change(const struct tb_cellpair *a, const struct tb_cellpair *b,
				  unsigned int resamples, double confidence, uint64_t seed,
				  double ci[2]);

/*
 * Percentile bootstrap CI at confidence of the least-squares slope through np points (x[p],
 * median(traced[p]) - median(base[p])), where base and traced hold np rows of nr values, column
 * k of every row from the same round: each resample draws nr rounds once for all points, so a
 * round's shift reaches every point as it did in the run. Returns 0, -EINVAL (np < 3, nr < 2,
 * or no finite slope), -ENOMEM.
 */
int tb_stats_bootstrap_slope(const double *x, const double *base, const double *traced, size_t np,
			     size_t nr, unsigned int resamples, double confidence, uint64_t seed,
			     double ci[2]);

/* Combine seed with a stream number into a generator seed (cells get independent streams). */
uint64_t tb_stats_seed(uint64_t seed, uint64_t stream);

#endif /* TB_STATS_H */
