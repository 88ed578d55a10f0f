// SPDX-License-Identifier: GPL-2.0
/* Change-point detection over one series: split, then merge (detect.h has the rules). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "core/tb.h"
#include "history/detect.h"
#include "stats/stats.h"

#define MIN_SEG TB_DETECT_MIN_SEGMENT

void tb_detect_opts_init(struct tb_detect_opts *o)
{
	o->window = TB_DETECT_WINDOW;
	o->p_value = TB_DETECT_P_VALUE;
	o->min_magnitude = TB_DETECT_MIN_MAGNITUDE;
	o->confidence = 0.95;
	o->resamples = 10000;
	o->seed = 20261201;
}

/* Welch's p between points [a, k) and [k, b); 1 when it cannot be computed. */
static double points_p(const struct tb_detect_input *in, size_t a, size_t k, size_t b)
{
	double p = tb_stats_welch_p(in->value + a, k - a, in->value + k, b - k);

	return isfinite(p) ? p : 1.0;
}

/* Welch's p between the pooled samples of points [a, k) and [k, b); NAN without samples. */
static double samples_p(const struct tb_detect_input *in, size_t a, size_t k, size_t b)
{
	const size_t *off = in->sample_off;

	if (!in->samples || !off || off[k] - off[a] < 2 || off[b] - off[k] < 2)
		return NAN;
	return tb_stats_welch_p(in->samples + off[a], off[k] - off[a], in->samples + off[k],
				off[b] - off[k]);
}

/* ---- split ----------------------------------------------------------------------------------- */

struct cands {
	size_t *v;
	size_t n, cap;
};

static int cand_add(struct cands *c, size_t k)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		size_t *grown = realloc(c->v, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->v = grown;
		c->cap = cap;
	}
	c->v[c->n++] = k;
	return 0;
}

/* Binary segmentation of [a, b): the best split below thr, then each side again. */
static int split_segment(const struct tb_detect_input *in, size_t a, size_t b, double thr,
			 struct cands *c)
{
	size_t best = 0;
	double best_p = 2;
	int ret;

	if (b - a < 2 * MIN_SEG)
		return 0;
	for (size_t k = a + MIN_SEG; k + MIN_SEG <= b; k++) {
		double p = points_p(in, a, k, b);

		if (p < best_p) {
			best_p = p;
			best = k;
		}
	}
	if (!(best_p < thr))
		return 0;
	ret = cand_add(c, best);
	if (!ret)
		ret = split_segment(in, a, best, thr, c);
	if (!ret)
		ret = split_segment(in, best, b, thr, c);
	return ret;
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return (a > b) - (a < b);
}

/* Windows of o->window points sliding by half a window, each split; candidates sorted, once. */
static int split(const struct tb_detect_input *in, const struct tb_detect_opts *o, struct cands *c)
{
	size_t start = 0, step = o->window / 2, w = 0;
	int ret = 0;

	while (!ret && start < in->n) {
		size_t end = start + o->window < in->n ? start + o->window : in->n, first = c->n;
		size_t last = 0;

		ret = split_segment(in, start, end, 10 * o->p_value, c);
		for (size_t i = first; i < c->n; i++)
			if (c->v[i] > last)
				last = c->v[i];
		if (end == in->n)
			break;
		start = last > start + step ? last : start + step;
	}
	if (ret || !c->n)
		return ret;
	qsort(c->v, c->n, sizeof(*c->v), cmp_size);
	for (size_t i = 0; i < c->n; i++)
		if (!w || c->v[w - 1] != c->v[i])
			c->v[w++] = c->v[i];
	c->n = w;
	return 0;
}

/* ---- merge ----------------------------------------------------------------------------------- */

static double median_of(const double *v, size_t n)
{
	return tb_stats_median(v, n);
}

/* The size of a change from before to after, as in's metric judges it (tb_hmag). */
static double magnitude(const struct tb_detect_input *in, double before, double after, double scale)
{
	switch (in->mag) {
	case TB_HMAG_POINTS:
		return fabs(after - before) / 100;
	case TB_HMAG_SCALED:
		if (isfinite(scale) && scale > 0)
			return fabs(after - before) / scale;
		/* no scale known: judge it relative to itself */
		__attribute__((fallthrough));
	default:
		if (before == 0)
			return after == 0 ? 0 : INFINITY;
		return fabs(after / before - 1);
	}
}

/* The median scale of points [a, b), NAN when none is known. */
static double scale_of(const struct tb_detect_input *in, size_t a, size_t b)
{
	double *v, s;
	size_t n = 0;

	if (!in->scale || !(v = malloc((b - a) * sizeof(*v))))
		return NAN;
	for (size_t i = a; i < b; i++)
		if (isfinite(in->scale[i]))
			v[n++] = in->scale[i];
	s = n ? median_of(v, n) : NAN;
	free(v);
	return s;
}

/* The statistics of the change at k between [a, k) and [k, b), without the CIs. */
static void test_change(const struct tb_detect_input *in, size_t a, size_t k, size_t b,
			struct tb_change *ch)
{
	memset(ch, 0, sizeof(*ch));
	ch->index = k;
	ch->start = a;
	ch->end = b;
	ch->before = median_of(in->value + a, k - a);
	ch->after = median_of(in->value + k, b - k);
	ch->change = ch->after - ch->before;
	ch->change_pct = ch->before > 0 ? 100 * (ch->after / ch->before - 1) : NAN;
	ch->ci_lo = ch->ci_hi = ch->pct_lo = ch->pct_hi = NAN;
	ch->p = points_p(in, a, k, b);
	ch->p_samples = samples_p(in, a, k, b);
	ch->magnitude = magnitude(in, ch->before, ch->after, scale_of(in, a, k));
}

/* The larger of a change's two p-values (the samples' counts where there are samples). */
static double worst_p(const struct tb_change *ch)
{
	return isfinite(ch->p_samples) && ch->p_samples > ch->p ? ch->p_samples : ch->p;
}

/* Test every candidate between its neighbours into ch[]. */
static void test_all(const struct tb_detect_input *in, const struct cands *c, struct tb_change *ch)
{
	for (size_t i = 0; i < c->n; i++)
		test_change(in, i ? c->v[i - 1] : 0, c->v[i], i + 1 < c->n ? c->v[i + 1] : in->n,
			    &ch[i]);
}

/* The index of the candidate to drop, or c->n when every one stands. */
static size_t weakest(const struct tb_change *ch, size_t n, const struct tb_detect_opts *o)
{
	size_t w = 0;

	for (size_t i = 1; i < n; i++)
		if (worst_p(&ch[i]) > worst_p(&ch[w]))
			w = i;
	if (worst_p(&ch[w]) >= o->p_value)
		return w;
	w = 0;
	for (size_t i = 1; i < n; i++)
		if (ch[i].magnitude < ch[w].magnitude)
			w = i;
	return ch[w].magnitude < o->min_magnitude ? w : n;
}

/* The bootstrap CIs of a surviving change's size (fixed seed per index: deterministic). */
static int change_ci(const struct tb_detect_input *in, const struct tb_detect_opts *o,
		     struct tb_change *ch)
{
	double pct[2], abs_ci[2];
	int ret;

	ret = tb_stats_bootstrap(in->value + ch->start, ch->index - ch->start,
				 in->value + ch->index, ch->end - ch->index, false, o->resamples,
				 o->confidence, tb_stats_seed(o->seed, ch->index), pct, abs_ci);
	if (ret == -ENOMEM)
		return ret;
	ch->ci_lo = abs_ci[0];
	ch->ci_hi = abs_ci[1];
	if (isfinite(ch->change_pct)) {
		ch->pct_lo = pct[0];
		ch->pct_hi = pct[1];
	}
	return 0;
}

int tb_detect(const struct tb_detect_input *in, const struct tb_detect_opts *o,
	      struct tb_change **out, size_t *n)
{
	struct cands c = {0};
	struct tb_change *ch = NULL;
	int ret;

	*out = NULL;
	*n = 0;
	if (o->window < 2 * MIN_SEG || !(o->p_value > 0 && o->p_value < 1) ||
	    !(o->min_magnitude >= 0) || !(o->confidence > 0 && o->confidence < 1) || !o->resamples)
		return -EINVAL;
	if (in->n < 2 * MIN_SEG)
		return 0;
	ret = split(in, o, &c);
	if (ret || !c.n)
		goto out;
	ch = malloc(c.n * sizeof(*ch));
	if (!ch) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		size_t w;

		test_all(in, &c, ch);
		w = c.n ? weakest(ch, c.n, o) : 0;
		if (w >= c.n)
			break;
		memmove(&c.v[w], &c.v[w + 1], (c.n - w - 1) * sizeof(*c.v));
		c.n--;
	}
	for (size_t i = 0; !ret && i < c.n; i++)
		ret = change_ci(in, o, &ch[i]);
	if (!ret && c.n) {
		*out = ch;
		*n = c.n;
		ch = NULL;
	}
out:
	free(ch);
	free(c.v);
	return ret;
}

/* ---- a new point against a segment ----------------------------------------------------------- */

void tb_detect_vs_segment(const struct tb_detect_input *in, size_t start, size_t end, double value,
			  double scale, const double *samples, size_t nsamples, double alpha,
			  double power, struct tb_detect_vs *vs)
{
	const double *v = in->value + start;
	size_t n = end > start ? end - start : 0;
	double se, h, t;

	memset(vs, 0, sizeof(*vs));
	vs->npoints = n;
	vs->median = n ? median_of(v, n) : NAN;
	vs->mean = n ? gsl_stats_mean(v, 1, n) : NAN;
	vs->sd = n >= 2 ? gsl_stats_sd_m(v, 1, n, vs->mean) : NAN;
	vs->change = value - vs->mean;
	vs->ci_lo = vs->ci_hi = vs->p = vs->p_samples = NAN;
	vs->change_pct = vs->pct_lo = vs->pct_hi = vs->mde = vs->mde_pct = NAN;
	vs->magnitude = magnitude(in, vs->mean, value, scale);
	if (n < 2)
		return;
	/* The prediction interval for one more point from the segment. */
	se = vs->sd * sqrt(1 + 1.0 / (double)n);
	h = gsl_cdf_tdist_Qinv(alpha / 2, (double)(n - 1)) * se;
	t = se > 0 ? fabs(vs->change) / se : (vs->change ? INFINITY : 0);
	vs->p = isinf(t) ? 0 : 2 * gsl_cdf_tdist_Q(t, (double)(n - 1));
	vs->ci_lo = vs->change - h;
	vs->ci_hi = vs->change + h;
	if (power > 0 && power < 1)
		vs->mde = h + gsl_cdf_tdist_Pinv(power, (double)(n - 1)) * se;
	if (vs->mean > 0) {
		vs->change_pct = 100 * vs->change / vs->mean;
		vs->pct_lo = 100 * vs->ci_lo / vs->mean;
		vs->pct_hi = 100 * vs->ci_hi / vs->mean;
		vs->mde_pct = 100 * vs->mde / vs->mean;
	}
	if (samples && nsamples >= 2 && in->samples && in->sample_off &&
	    in->sample_off[end] - in->sample_off[start] >= 2)
		vs->p_samples =
			tb_stats_welch_p(samples, nsamples, in->samples + in->sample_off[start],
					 in->sample_off[end] - in->sample_off[start]);
}
