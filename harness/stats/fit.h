/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lines fitted over cells (fit.c): the rate models' (stats.c) and the sweeps' (sweep.c), one
 * least-squares fit and one rule for when its slope is said, so that noise never prints as a
 * cost per event, per probe or per byte.
 */
#ifndef TB_STATS_FIT_H
#define TB_STATS_FIT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/result.h"

/* A rate model is shown only with a slope whose CI excludes 0 and at least this r2. */
#define TB_RATE_MIN_R2 0.9

/*
 * Least-squares fit y = fixed + cost * x (gsl_fit_linear) with CIs at 1 - alpha on both, r2, and
 * a quadratic term's two-sided p (n >= 4) flagging non-linearity when p < alpha. Fills m's
 * numbers and npoints (not its names), and accepted with why_not: a model is accepted only
 * when its slope's CI excludes 0 and r2 >= TB_RATE_MIN_R2, so that noise never prints as a
 * cost per event. Returns 0, -EINVAL when n < 3 or x has no spread (why_not says so).
 */
int tb_stats_rate_fit(const double *x, const double *y, size_t n, double alpha,
		      struct tb_rate_model *m);
/* The same fit and acceptance for any x (a sweep's values): a refusal words the slope as the
 * cost per per ("probe"), asks for a wider range of range ("probes"), and says flat when x
 * does not vary. */
int tb_stats_line_fit(const double *x, const double *y, size_t n, double alpha, const char *per,
		      const char *range, const char *flat, struct tb_rate_model *m);
/*
 * The CI of the slope through n points, each a traced cell of r (traced[p], its x x[p]) whose y
 * is its measured ns/op's median less its baseline's (tb_result_baseline), from a bootstrap of
 * the rounds every point and its baseline measured (tb_stats_bootstrap_slope; r's resamples,
 * confidence and seed with stream). The points share their rounds, and a line's own CI (from
 * its residuals) misses what a round's shift does to all of them: on a noisy guest five points
 * lay close to a line whose CI did not hold the truth. Returns 0 with ci filled, or NAN where it
 * cannot be had (a point without its baseline, fewer than 2 shared rounds); -ENOMEM.
 */
int tb_stats_rounds_slope_ci(const struct tb_result *r, const struct tb_cell *const *traced,
			     const double *x, size_t n, uint64_t stream, double ci[2]);
/*
 * Widens m's slope CI (from tb_stats_line_fit) to hold ci too, another CI of the same slope
 * (the rounds' bootstrap: the points' sampling noise, which the line's residuals miss when the
 * points share their rounds), and judges m again by the same rule (per, range as there).
 * Nothing when either CI is not finite.
 */
void tb_stats_line_widen(struct tb_rate_model *m, const double ci[2], const char *per,
			 const char *range);
/*
 * Two lines meeting at a knee through n points of rising x (struct tb_knee_model says the
 * model and when it is accepted), for where a line is refused: a cost per unit that stops at
 * a buffer's or a consumer's limit. Fills k (why_not says why not accepted). Returns 0,
 * -EINVAL when n < 5 or no knee leaves two points each side, -ENOMEM.
 */
int tb_stats_knee_fit(const double *x, const double *y, size_t n, double alpha,
		      struct tb_knee_model *k);
/*
 * Whether a traced cell's overhead may be a point of a fitted line: a figure, no error, a
 * verdict that trusts it (an untrustworthy or faster-than-baseline cell would fit a model from
 * noise), a proof of tracing that does not block, nothing lost (the cost would be too low).
 * why (len bytes, may be NULL) says why not.
 */
bool tb_stats_fit_point(const struct tb_cell *c, char *why, size_t len);

#endif /* TB_STATS_FIT_H */
