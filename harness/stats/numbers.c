// SPDX-License-Identifier: GPL-2.0
/*
 * The numeric kernels stats.h declares (cut from stats.c so that the cell-level analyses,
 * stats.c and service.c, both stand on them): medians and their CI, MAD, summaries, box
 * figures, seeds, Hodges-Lehmann and the percentile bootstrap. doc/statistics.md defines them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include "model/result.h"
#include "stats/stats.h"
#include "core/tb.h"

/* Consistency constant: 1.4826 * MAD estimates sd for normal data. */
#define MAD_SCALE 1.4826
/* Hodges-Lehmann uses every pair up to this many; beyond, a fixed-seed random subset. */
#define HL_MAX_PAIRS 4000000

/* ---- small helpers ------------------------------------------------------------------------- */

double tb_stats_median(const double *x, size_t n)
{
	double *tmp, m;

	if (!n)
		return NAN;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return NAN;
	memcpy(tmp, x, n * sizeof(*tmp));
	m = gsl_stats_median(tmp, 1, n);
	free(tmp);
	return m;
}

double tb_stats_median_ci(const double *x, size_t n, double confidence, double ci[2])
{
	double *v, cover = NAN;
	size_t j;

	ci[0] = ci[1] = NAN;
	if (n < 2 || !(confidence > 0 && confidence < 1) || !(v = malloc(n * sizeof(*v))))
		return NAN;
	memcpy(v, x, n * sizeof(*v));
	gsl_sort(v, 1, n);
	/*
	 * [x(j), x(n-j+1)] (1-based) covers the median with probability 1 - 2 P(B <= j - 1),
	 * B ~ Binomial(n, 1/2): the largest j that still reaches the confidence, else the
	 * whole range.
	 */
	for (j = n / 2; j >= 1; j--) {
		cover = 1 - 2 * gsl_cdf_binomial_P((unsigned int)(j - 1), 0.5, (unsigned int)n);
		if (cover >= confidence)
			break;
	}
	if (j < 1) {
		j = 1;
		cover = 1 - 2 * gsl_cdf_binomial_P(0, 0.5, (unsigned int)n);
	}
	ci[0] = v[j - 1];
	ci[1] = v[n - j];
	free(v);
	return cover;
}

double tb_stats_mad(const double *x, size_t n)
{
	double *tmp, med, m;

	if (!n)
		return NAN;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return NAN;
	med = tb_stats_median(x, n);
	for (size_t i = 0; i < n; i++)
		tmp[i] = fabs(x[i] - med);
	m = gsl_stats_median(tmp, 1, n);
	free(tmp);
	return m;
}

void tb_stats_summarize(const double *x, size_t n, struct tb_summary *s, bool *outlier)
{
	s->n = n;
	s->outliers = 0;
	s->median = s->mean = s->sd = s->cv = s->min = s->max = s->mad = NAN;
	if (outlier)
		memset(outlier, 0, n * sizeof(*outlier));
	if (!n)
		return;
	s->median = tb_stats_median(x, n);
	s->mean = gsl_stats_mean(x, 1, n);
	gsl_stats_minmax(&s->min, &s->max, x, 1, n);
	s->mad = tb_stats_mad(x, n);
	if (n >= 2) {
		s->sd = gsl_stats_sd_m(x, 1, n, s->mean);
		s->cv = s->mean > 0 ? s->sd / s->mean : NAN;
	}
	/* Flag, never drop: a MAD of zero (half the values equal) flags nothing. */
	if (s->mad > 0) {
		for (size_t i = 0; i < n; i++) {
			if (fabs(x[i] - s->median) > TB_OUTLIER_K * MAD_SCALE * s->mad) {
				s->outliers++;
				if (outlier)
					outlier[i] = true;
			}
		}
	}
}

void tb_stats_box(double *x, size_t n, struct tb_stats_box *b)
{
	double iqr;
	size_t k;

	b->n = n;
	if (!n)
		return;
	gsl_sort(x, 1, n);
	b->q1 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
	b->med = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.5);
	b->q3 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
	b->min = b->wlo = x[0];
	b->max = b->whi = x[n - 1];
	iqr = b->q3 - b->q1;
	for (k = 0; k < n; k++)
		if (x[k] >= b->q1 - 1.5 * iqr) {
			b->wlo = x[k];
			break;
		}
	for (k = n; k-- > 0;)
		if (x[k] <= b->q3 + 1.5 * iqr) {
			b->whi = x[k];
			break;
		}
}

uint64_t tb_stats_seed(uint64_t seed, uint64_t stream)
{
	/* splitmix64 finaliser: nearby (seed, stream) give unrelated generator states. */
	uint64_t z = seed + (stream + 1) * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static gsl_rng *rng_new(uint64_t seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	if (rng)
		gsl_rng_set(rng, (unsigned long)seed);
	return rng;
}

/* ---- tests ------------------------------------------------------------------------------------
 */

void tb_stats_init(void)
{
	gsl_set_error_handler_off();
}

double tb_stats_hodges_lehmann(const double *x, size_t nx, const double *y, size_t ny)
{
	size_t npairs, k = 0;
	double *d, m;
	gsl_rng *rng = NULL;

	if (!nx || !ny)
		return NAN;
	npairs = nx * ny;
	if (npairs > HL_MAX_PAIRS || npairs / nx != ny) {
		npairs = HL_MAX_PAIRS;
		rng = rng_new(0x484c); /* fixed: the estimate must not change between runs */
		if (!rng)
			return NAN;
	}
	d = malloc(npairs * sizeof(*d));
	if (!d) {
		gsl_rng_free(rng);
		return NAN;
	}
	if (rng) {
		for (k = 0; k < npairs; k++)
			d[k] = y[gsl_rng_uniform_int(rng, ny)] - x[gsl_rng_uniform_int(rng, nx)];
	} else {
		for (size_t i = 0; i < nx; i++)
			for (size_t j = 0; j < ny; j++)
				d[k++] = y[j] - x[i];
	}
	m = gsl_stats_median(d, 1, npairs);
	free(d);
	gsl_rng_free(rng);
	return m;
}

/* ---- bootstrap --------------------------------------------------------------------------------
 */

/*
 * A sample set resampled by counts. A resample with replacement is fully told by how often it
 * drew each value, and its median is found by walking the values in sorted order weighted by
 * those counts: O(n) with no data moved, where a select per resample (gsl_stats_median) was most
 * of an analysis, which the runner repeats after every round. The median is the one
 * gsl_stats_median gives for the resample itself (the same middle values, averaged the same way).
 */
struct counted {
	const double *v;
	size_t n;
	size_t *order;	   /* v's indices by value */
	unsigned int *cnt; /* draws of each index in the current resample */
};

/* 0 or -ENOMEM; cnt (n entries) is the caller's, shared by a paired set. */
static int counted_init(struct counted *c, const double *v, size_t n, unsigned int *cnt)
{
	c->v = v;
	c->n = n;
	c->cnt = cnt;
	c->order = malloc(n * sizeof(*c->order));
	if (!c->order)
		return -ENOMEM;
	gsl_sort_index(c->order, v, 1, n);
	return 0;
}

static double counted_median(const struct counted *c)
{
	size_t lo = (c->n - 1) / 2, hi = c->n / 2, seen = 0;
	double a = NAN;

	for (size_t i = 0; i < c->n; i++) {
		size_t k = c->order[i];

		if (seen <= lo && seen + c->cnt[k] > lo)
			a = c->v[k];
		seen += c->cnt[k];
		if (seen > hi)
			return lo == hi ? a : 0.5 * (a + c->v[k]);
	}
	return NAN; /* counts that do not add up to n */
}

/* Two sets to resample together: paired ones share one draw of indices (and its counts). */
struct resampled {
	struct counted x, y;
	bool paired;
};

static void resampled_free(struct resampled *p)
{
	free(p->x.order);
	free(p->y.order);
	free(p->x.cnt);
	if (!p->paired)
		free(p->y.cnt);
	memset(p, 0, sizeof(*p));
}

/* 0 or -ENOMEM (p freed). Paired sets have nx == ny. */
static int resampled_init(struct resampled *p, const double *x, size_t nx, const double *y,
			  size_t ny, bool paired)
{
	unsigned int *cx = calloc(nx, sizeof(*cx)), *cy = paired ? cx : calloc(ny, sizeof(*cy));
	int ret;

	memset(p, 0, sizeof(*p));
	p->paired = paired;
	if (!cx || !cy) {
		free(cx);
		if (!paired)
			free(cy);
		return -ENOMEM;
	}
	p->x.cnt = cx;
	p->y.cnt = cy;
	ret = counted_init(&p->x, x, nx, cx);
	if (!ret)
		ret = counted_init(&p->y, y, ny, cy);
	if (ret)
		resampled_free(p);
	return ret;
}

/* One resample's medians: the draws in the order (and from the rng calls) they always had. */
static void draw(gsl_rng *rng, const struct resampled *p, double *mx, double *my)
{
	memset(p->x.cnt, 0, p->x.n * sizeof(*p->x.cnt));
	if (!p->paired)
		memset(p->y.cnt, 0, p->y.n * sizeof(*p->y.cnt));
	for (size_t i = 0; i < p->x.n; i++)
		p->x.cnt[gsl_rng_uniform_int(rng, p->x.n)]++;
	if (!p->paired)
		for (size_t i = 0; i < p->y.n; i++)
			p->y.cnt[gsl_rng_uniform_int(rng, p->y.n)]++;
	*mx = counted_median(&p->x);
	*my = counted_median(&p->y);
}

/* Ascending, NaN last: a total order, so any sort gives the same array. */
static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return (a > b) - (a < b);
}

static void percentile_ci(double *v, size_t n, double confidence, double ci[2])
{
	/* glibc's qsort merges: quicker here than gsl_sort's heap sort */
	qsort(v, n, sizeof(*v), cmp_double);
	ci[0] = gsl_stats_quantile_from_sorted_data(v, 1, n, (1 - confidence) / 2);
	ci[1] = gsl_stats_quantile_from_sorted_data(v, 1, n, (1 + confidence) / 2);
}

/* What one resample computes: nstat figures into out. */
typedef void (*resample_fn)(gsl_rng *rng, const void *ctx, double *out);

/*
 * The percentile bootstrap every interval kind shares: resamples draws of stat from one rng
 * seeded with seed, and the confidence interval of each of its nstat figures into ci[k].
 * Returns 0 or -ENOMEM.
 */
static int bootstrap(unsigned int resamples, uint64_t seed, double confidence, size_t nstat,
		     resample_fn stat, const void *ctx, double (*ci)[2])
{
	double *v = malloc((size_t)resamples * nstat * sizeof(*v)), out[2];
	gsl_rng *rng = rng_new(seed);
	int ret = -ENOMEM;

	if (!v || !rng || nstat > 2)
		goto out;
	for (unsigned int b = 0; b < resamples; b++) {
		stat(rng, ctx, out);
		for (size_t k = 0; k < nstat; k++)
			v[k * resamples + b] = out[k];
	}
	for (size_t k = 0; k < nstat; k++)
		percentile_ci(v + k * resamples, resamples, confidence, ci[k]);
	ret = 0;
out:
	free(v);
	gsl_rng_free(rng);
	return ret;
}

/* The change of y's median against x's, in percent and in y's unit. */
static void change(gsl_rng *rng, const void *ctx, double *out)
{
	double mx, my;

	draw(rng, ctx, &mx, &my);
	out[0] = 100 * (my / mx - 1);
	out[1] = my - mx;
}

int tb_stats_bootstrap(const double *x, size_t nx, const double *y, size_t ny, bool paired,
		       unsigned int resamples, double confidence, uint64_t seed, double pct_ci[2],
		       double ns_ci[2])
{
	struct resampled t;
	double ci[2][2];
	int ret;

	pct_ci[0] = pct_ci[1] = ns_ci[0] = ns_ci[1] = NAN;
	if (nx < 2 || ny < 2 || (paired && nx != ny) || !resamples)
		return -EINVAL;
	ret = resampled_init(&t, x, nx, y, ny, paired);
	if (ret)
		return ret;
	ret = bootstrap(resamples, seed, confidence, 2, change, &t, ci);
	resampled_free(&t);
	if (ret)
		return ret;
	memcpy(pct_ci, ci[0], sizeof(ci[0]));
	memcpy(ns_ci, ci[1], sizeof(ci[1]));
	return 0;
}

/*
 * A sweep's points, resampled by rounds: one draw of the nr rounds is every point's, so one set
 * of counts (cnt) serves all 2 x np rows (base[p], traced[p]), each walked in its own order.
 */
struct slope_sets {
	const double *x; /* np points */
	size_t np, nr;
	struct counted *base, *traced; /* np rows of nr rounds each */
	unsigned int *cnt;
	double *y; /* scratch: np points' differences */
};

/* One draw of rounds shared by every point, each point's difference of medians over them, and
 * the least-squares slope through the points. */
static void slope(gsl_rng *rng, const void *ctx, double *out)
{
	const struct slope_sets *s = ctx;
	double c0, c1, c00, c01, c11, sse;

	memset(s->cnt, 0, s->nr * sizeof(*s->cnt));
	for (size_t k = 0; k < s->nr; k++)
		s->cnt[gsl_rng_uniform_int(rng, s->nr)]++;
	for (size_t p = 0; p < s->np; p++)
		s->y[p] = counted_median(&s->traced[p]) - counted_median(&s->base[p]);
	if (gsl_fit_linear(s->x, 1, s->y, 1, s->np, &c0, &c1, &c00, &c01, &c11, &sse))
		c1 = NAN;
	out[0] = c1;
}

int tb_stats_bootstrap_slope(const double *x, const double *base, const double *traced, size_t np,
			     size_t nr, unsigned int resamples, double confidence, uint64_t seed,
			     double ci[2])
{
	struct slope_sets s = {.x = x, .np = np, .nr = nr};
	double out[1][2];
	int ret = -ENOMEM;

	ci[0] = ci[1] = NAN;
	if (np < 3 || nr < 2 || !resamples)
		return -EINVAL;
	s.base = calloc(2 * np, sizeof(*s.base));
	s.cnt = calloc(nr, sizeof(*s.cnt));
	s.y = malloc(np * sizeof(*s.y));
	if (!s.base || !s.cnt || !s.y)
		goto out;
	s.traced = s.base + np;
	ret = 0;
	for (size_t p = 0; !ret && p < np; p++) {
		ret = counted_init(&s.base[p], base + p * nr, nr, s.cnt);
		if (!ret)
			ret = counted_init(&s.traced[p], traced + p * nr, nr, s.cnt);
	}
	if (!ret)
		ret = bootstrap(resamples, seed, confidence, 1, slope, &s, out);
	if (!ret && isfinite(out[0][0]) && isfinite(out[0][1]))
		memcpy(ci, out[0], sizeof(out[0]));
	else if (!ret)
		ret = -EINVAL;
out:
	for (size_t p = 0; s.base && p < np; p++) {
		free(s.base[p].order);
		free(s.traced[p].order);
	}
	free(s.base);
	free(s.cnt);
	free(s.y);
	return ret;
}

/* The difference of two cells' overheads (b's less a's), in percentage points. */
static void pct_change(gsl_rng *rng, const void *ctx, double *out)
{
	const struct resampled *p = ctx;
	double ma, ta, mb, tb;

	draw(rng, &p[0], &ma, &ta);
	draw(rng, &p[1], &mb, &tb);
	out[0] = 100 * (tb / mb - 1) - 100 * (ta / ma - 1);
}

int tb_stats_bootstrap_pct_change(const struct tb_cellpair *a, const struct tb_cellpair *b,
				  unsigned int resamples, double confidence, uint64_t seed,
				  double ci[2])
{
	struct resampled p[2];
	double out[1][2];
	int ret;

	ci[0] = ci[1] = NAN;
	if (a->nb < 2 || a->nt < 2 || b->nb < 2 || b->nt < 2 || !resamples ||
	    (a->paired && a->nb != a->nt) || (b->paired && b->nb != b->nt))
		return -EINVAL;
	ret = resampled_init(&p[0], a->base, a->nb, a->traced, a->nt, a->paired);
	if (ret)
		return ret;
	ret = resampled_init(&p[1], b->base, b->nb, b->traced, b->nt, b->paired);
	if (!ret)
		ret = bootstrap(resamples, seed, confidence, 1, pct_change, p, out);
	if (!ret)
		memcpy(ci, out[0], sizeof(out[0]));
	resampled_free(&p[0]);
	resampled_free(&p[1]);
	return ret;
}
