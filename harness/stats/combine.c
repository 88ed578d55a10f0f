// SPDX-License-Identifier: GPL-2.0
/*
 * Repeated runs combined (combine.h). The model and why: doc/statistics.md, "combine".
 */
#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/system.h"
#include "stats/combine.h"
#include "stats/compare.h"
#include "stats/stats.h"

double tb_meta_se(double lo, double hi, double alpha)
{
	return (hi - lo) / (2 * gsl_cdf_ugaussian_Pinv(1 - alpha / 2));
}

int tb_meta_combine(const double *y, const double *se, size_t k, double alpha, struct tb_meta *m)
{
	double w, sw = 0, swy = 0, df = (double)k - 1, c, rw = 0, rwy = 0, hk = 0, t;
	size_t i;

	if (k < 2 || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	/* an se so small that its weight is not finite would make every figure NaN */
	for (i = 0; i < k; i++)
		if (!isfinite(y[i]) || !isfinite(se[i]) || !(se[i] > 0) ||
		    !isfinite(1 / (se[i] * se[i])))
			return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->k = k;
	m->min = m->max = y[0];
	for (i = 0; i < k; i++) {
		w = 1 / (se[i] * se[i]);
		sw += w;
		swy += w * y[i];
		m->min = fmin(m->min, y[i]);
		m->max = fmax(m->max, y[i]);
	}
	m->fixed = swy / sw;
	m->fixed_se = sqrt(1 / sw);
	for (i = 0; i < k; i++)
		m->q += (y[i] - m->fixed) * (y[i] - m->fixed) / (se[i] * se[i]);
	m->q_p = gsl_cdf_chisq_Q(m->q, df);
	m->i2 = m->q > df ? (m->q - df) / m->q : 0;
	/*
	 * DerSimonian-Laird: the moment estimate of the variance between runs. c = sum w - sum
	 * w^2 / sum w, summed as w_i (the others' weights) / sum w, the others' summed apart:
	 * sum w - w_i cancels to 0 when one weight dwarfs the others.
	 */
	c = 0;
	for (i = 0; i < k; i++) {
		double others = 0;

		for (size_t j = 0; j < k; j++)
			others += j == i ? 0 : 1 / (se[j] * se[j]);
		c += others / (se[i] * se[i]) / sw;
	}
	m->tau = c > 0 && m->q > df ? sqrt((m->q - df) / c) : 0;
	for (i = 0; i < k; i++) {
		w = 1 / (se[i] * se[i] + m->tau * m->tau);
		rw += w;
		rwy += w * y[i];
	}
	m->est = rwy / rw;
	for (i = 0; i < k; i++)
		hk += (y[i] - m->est) * (y[i] - m->est) / (se[i] * se[i] + m->tau * m->tau);
	/*
	 * Hartung-Knapp-Sidik-Jonkman: the spread of the runs about the random-effects mean
	 * scales the variance, on t with k - 1 df; its factor kept at least 1 (Röver, Knapp &
	 * Friede 2015), where runs that happen to agree would make it narrower than the normal
	 * interval their own standard errors give.
	 */
	hk = fmax(1, hk / df);
	m->se = sqrt(hk / rw);
	t = gsl_cdf_tdist_Pinv(1 - alpha / 2, df) * m->se;
	m->lo = m->est - t;
	m->hi = m->est + t;
	return 0;
}

void tb_meta_diff(const struct tb_meta *a, const struct tb_meta *b, double alpha,
		  struct tb_meta_diff *d)
{
	double va = a->se * a->se, vb = b->se * b->se, se = sqrt(va + vb), h, t;

	d->diff = b->est - a->est;
	/* each side's HKSJ variance on its own k - 1 degrees of freedom (both above 0: the
	 * factor is at least 1) */
	d->df = tb_stats_welch_df(va, (double)(a->k - 1), vb, (double)(b->k - 1));
	h = gsl_cdf_tdist_Pinv(1 - alpha / 2, d->df) * se;
	d->lo = d->diff - h;
	d->hi = d->diff + h;
	t = se > 0 ? fabs(d->diff) / se : d->diff ? INFINITY : 0;
	d->p = isinf(t) ? 0 : 2 * gsl_cdf_tdist_Q(t, d->df);
	d->significant = d->lo > 0 || d->hi < 0;
}

/* Cell x of a change, differenced where both sides combined a measure. */
static void change(struct tb_comb_change *x, const struct tb_comb_row *a,
		   const struct tb_comb_row *b, double alpha)
{
	x->a = a;
	x->b = b;
	x->has_pct = a && b && a->pct.present && b->pct.present;
	x->has_ns = a && b && a->ns.present && b->ns.present;
	if (x->has_pct)
		tb_meta_diff(&a->pct.m, &b->pct.m, alpha, &x->pct);
	if (x->has_ns)
		tb_meta_diff(&a->ns.m, &b->ns.m, alpha, &x->ns);
}

static const struct tb_comb_row *find_row(const struct tb_combination *c, const char *key)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].key, key))
			return &c->rows[i];
	return NULL;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* Whether results x and y are one run given twice: the same start, end and host. */
static bool same_run(const struct tb_result *x, const struct tb_result *y)
{
	return x->started && y->started && x->finished && y->finished &&
	       !strcmp(x->started, y->started) && !strcmp(x->finished, y->finished) &&
	       !strcmp(or_empty(json_string_value(json_object_get(x->system, "hostname"))),
		       or_empty(json_string_value(json_object_get(y->system, "hostname"))));
}

size_t tb_combine_shared(const struct tb_combination *a, const struct tb_combination *b)
{
	size_t n = 0;

	for (size_t j = 0; j < b->nres; j++)
		for (size_t i = 0; i < a->nres; i++)
			if (same_run(a->res[i], b->res[j])) {
				n++;
				break;
			}
	return n;
}

int tb_combine_changes(const struct tb_combination *a, const struct tb_combination *b,
		       struct tb_comb_change **out, size_t *n)
{
	struct tb_comb_change *v = calloc(a->nrows + b->nrows + 1, sizeof(*v));
	size_t k = 0;

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	/* the cells in both, in a's order; then a's only; then b's only */
	for (int pass = 0; pass < 3; pass++) {
		const struct tb_combination *from = pass < 2 ? a : b, *other = pass < 2 ? b : a;

		for (size_t i = 0; i < from->nrows; i++) {
			const struct tb_comb_row *r = &from->rows[i], *m = find_row(other, r->key);

			if (pass == 0 && m)
				change(&v[k++], r, m, a->alpha);
			else if (pass > 0 && !m)
				change(&v[k++], pass == 1 ? r : NULL, pass == 1 ? NULL : r,
				       a->alpha);
		}
	}
	*out = v;
	*n = k;
	return 0;
}

/* The row of key, added (with room for n runs) when new; NULL on ENOMEM. */
static struct tb_comb_row *row_get(struct tb_combination *c, const struct tb_cell *cell, char *key,
				   size_t n)
{
	struct tb_comb_row *rows, *w = (struct tb_comb_row *)find_row(c, key);

	if (w) {
		free(key);
		return w;
	}
	rows = realloc(c->rows, (c->nrows + 1) * sizeof(*rows));
	if (!rows) {
		free(key);
		return NULL;
	}
	c->rows = rows;
	w = memset(&rows[c->nrows++], 0, sizeof(*w));
	w->key = key;
	w->id = cell->id;
	w->run = calloc(n, sizeof(*w->run));
	w->pct.y = calloc(n, sizeof(double));
	w->pct.se = calloc(n, sizeof(double));
	w->ns.y = calloc(n, sizeof(double));
	w->ns.se = calloc(n, sizeof(double));
	return w->run && w->pct.y && w->pct.se && w->ns.y && w->ns.se ? w : NULL;
}

/* An estimate and its interval as one run's entry: y and se, NAN where unusable. */
static void entry(double y, double lo, double hi, double alpha, double *oy, double *ose)
{
	double se = tb_meta_se(lo, hi, alpha);
	bool ok = isfinite(y) && isfinite(se) && se > 0;

	*oy = ok ? y : NAN;
	*ose = ok ? se : NAN;
}

/* Combine one metric of a row over its runs with usable entries (copied into y and se, room
 * for every run), the unusable ones counted. */
static void combine_metric(struct tb_comb_metric *x, size_t nruns, double alpha, double *y,
			   double *se)
{
	size_t k = 0;

	for (size_t i = 0; i < nruns; i++)
		if (isfinite(x->y[i])) {
			y[k] = x->y[i];
			se[k++] = x->se[i];
		}
	x->nunusable = nruns - k;
	x->present = !tb_meta_combine(y, se, k, alpha, &x->m);
}

/* Each result's hardware class, the distinct classes and scenario names among the results, and
 * results that repeat an earlier one. 0 or -ENOMEM. */
static int count_kinds(struct tb_combination *c)
{
	struct tb_comb_class *hw = c->hw = calloc(c->nres, sizeof(*c->hw));

	if (!hw)
		return -ENOMEM;
	for (size_t i = 0; i < c->nres; i++) {
		const char *scn = or_empty(c->res[i]->scenario_name);
		size_t j;

		if (tb_system_hardware_class(c->res[i]->system, hw[i].hash, hw[i].desc,
					     sizeof(hw[i].desc))) {
			snprintf(hw[i].hash, sizeof(hw[i].hash), "?");
			snprintf(hw[i].desc, sizeof(hw[i].desc), "unknown hardware");
		}
		for (j = 0; j < i && strcmp(hw[j].hash, hw[i].hash); j++)
			;
		c->nclasses += j == i;
		for (j = 0; j < i && strcmp(scn, or_empty(c->res[j]->scenario_name)); j++)
			;
		c->nscenarios += j == i;
		for (j = 0; j < i && !same_run(c->res[j], c->res[i]); j++)
			;
		c->nrepeated += j < i;
	}
	return 0;
}

/* Every traced cell of result ri into its row. 0 or -ENOMEM. */
static int add_result(struct tb_combination *c, size_t ri)
{
	const struct tb_result *r = c->res[ri];

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *cell = &r->cells[i];
		const struct tb_overhead *o = &cell->overhead;
		struct tb_comb_row *w;
		char *key;
		size_t k;

		if (cell->baseline)
			continue;
		key = tb_compare_key(cell);
		if (!key || !(w = row_get(c, cell, key, c->nres)))
			return -ENOMEM;
		/* one entry per result: the first of cells that match in one file (ids differ,
		 * the workload and tracer sections and configurations do not), the others counted */
		if (w->last == ri + 1) {
			w->nduplicates++;
			continue;
		}
		w->last = ri + 1;
		if (cell->error || !cell->has_overhead) {
			w->nfailed++;
			continue;
		}
		k = w->nruns++;
		w->run[k] = ri;
		w->nuntrusted += o->verdict == TB_VERDICT_UNTRUSTWORTHY;
		w->nfaster += o->verdict == TB_VERDICT_FASTER;
		entry(o->pct, o->ci_lo, o->ci_hi, c->alpha, &w->pct.y[k], &w->pct.se[k]);
		entry(o->ns_per_op, o->ns_ci_lo, o->ns_ci_hi, c->alpha, &w->ns.y[k], &w->ns.se[k]);
	}
	return 0;
}

int tb_combine_build(struct tb_result **res, const char **names, size_t n, double alpha,
		     struct tb_combination **out)
{
	struct tb_combination *c;
	double *y = NULL, *se = NULL;
	int ret = 0;

	*out = NULL;
	if (n < 2)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->res = res;
	c->names = names;
	c->nres = n;
	c->alpha = alpha > 0 && alpha < 1 ? alpha : res[0]->alpha;
	/* the runs' intervals at the level their standard errors are read at */
	for (size_t i = 0; !ret && i < n; i++) {
		tb_stats_set_alpha(res[i], c->alpha);
		ret = tb_stats_analyze(res[i]);
	}
	for (size_t i = 0; !ret && i < n; i++)
		ret = add_result(c, i);
	if (!ret)
		ret = count_kinds(c);
	y = calloc(n, sizeof(*y));
	se = calloc(n, sizeof(*se));
	if (!ret && (!y || !se))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < c->nrows; i++) {
		combine_metric(&c->rows[i].pct, c->rows[i].nruns, c->alpha, y, se);
		combine_metric(&c->rows[i].ns, c->rows[i].nruns, c->alpha, y, se);
	}
	free(y);
	free(se);
	if (ret) {
		tb_combine_free(c);
		return ret;
	}
	*out = c;
	return 0;
}

void tb_combine_free(struct tb_combination *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrows; i++) {
		struct tb_comb_row *w = &c->rows[i];

		free(w->key);
		free(w->run);
		free(w->pct.y);
		free(w->pct.se);
		free(w->ns.y);
		free(w->ns.se);
	}
	free(c->rows);
	free(c->hw);
	free(c);
}

const char *tb_comb_agreement(const struct tb_combination *c, const struct tb_comb_metric *x,
			      const char *unit, char *buf, size_t len)
{
	if (!x->present)
		snprintf(buf, len, "fewer than two runs with an interval: nothing combined");
	else if (x->m.q_p >= c->alpha)
		snprintf(buf, len, "the runs agree within their intervals");
	else
		snprintf(buf, len,
			 "the runs differ by more than their intervals (run-to-run sd %.3g %s): "
			 "the combined interval includes that spread",
			 x->m.tau, unit);
	return buf;
}
