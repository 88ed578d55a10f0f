// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for tracebench results (GSL): per-cell summaries, overhead with bootstrap CIs,
 * rank and t tests, Hodges-Lehmann, MDE, verdicts, A/A calibration, rate models.
 * doc/statistics.md is the reference for every definition here.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>

#include "model/result.h"
#include "model/measured.h"
#include "model/proof.h"
#include "stats/service.h"
#include "stats/fit.h"
#include "stats/shortfall.h"
#include "stats/stats.h"
#include "stats/limit.h"
#include "stats/sweep.h"
#include "stats/verdict.h"
#include "core/tb.h"

/* ---- cells ------------------------------------------------------------------------------------
 */

int tb_stats_measured(const struct tb_cell *c, double **out, size_t *n)
{
	double *v = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*v));

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->nsamples; i++)
		if (tb_sample_measured(&c->samples[i]))
			v[(*n)++] = c->samples[i].ns_per_op;
	*out = v;
	return 0;
}

void tb_stats_cellpair_free(struct tb_cellpair *p)
{
	free(p->base);
	free(p->traced);
	memset(p, 0, sizeof(*p));
}

int tb_stats_cellpair(const struct tb_cell *base, const struct tb_cell *traced,
		      struct tb_cellpair *p)
{
	size_t matched = 0, nmin;
	double *pb, *pt;

	memset(p, 0, sizeof(*p));
	if (tb_stats_measured(base, &p->base, &p->nb) ||
	    tb_stats_measured(traced, &p->traced, &p->nt)) {
		tb_stats_cellpair_free(p);
		return -ENOMEM;
	}
	nmin = p->nb < p->nt ? p->nb : p->nt;
	pb = malloc((nmin ? nmin : 1) * sizeof(*pb));
	pt = malloc((nmin ? nmin : 1) * sizeof(*pt));
	if (!pb || !pt) {
		free(pb);
		free(pt);
		tb_stats_cellpair_free(p);
		return -ENOMEM;
	}
	/* Join on the round number; each traced round takes the first baseline sample of it. */
	for (size_t i = 0; i < traced->nsamples && matched < nmin; i++) {
		const struct tb_sample *t = &traced->samples[i];

		if (!tb_sample_measured(t) || t->round < 0)
			continue;
		for (size_t j = 0; j < base->nsamples; j++) {
			const struct tb_sample *b = &base->samples[j];

			if (tb_sample_measured(b) && b->round == t->round) {
				pb[matched] = b->ns_per_op;
				pt[matched] = t->ns_per_op;
				matched++;
				break;
			}
		}
	}
	/* Pair only when every round of the smaller side found its partner (one sample per
	 * round); otherwise the pairing would silently drop data. */
	if (matched >= 2 && matched == nmin) {
		free(p->base);
		free(p->traced);
		p->base = pb;
		p->traced = pt;
		p->nb = p->nt = matched;
		p->paired = true;
	} else {
		free(pb);
		free(pt);
	}
	return 0;
}

/* Latency percentile from the histogram: the upper bound of the bucket reaching q. */
static double bucket_quantile(const struct tb_latency *l, double q)
{
	uint64_t total = 0, cum = 0;

	for (size_t i = 0; i < l->nbuckets; i++)
		total += l->bucket_count[i];
	if (!total)
		return NAN;
	for (size_t i = 0; i < l->nbuckets; i++) {
		cum += l->bucket_count[i];
		if ((double)cum >= q * (double)total)
			return l->bucket_ns[i];
	}
	return l->bucket_ns[l->nbuckets - 1];
}

static int summarize_cell(struct tb_cell *c)
{
	double *v;
	size_t n, k = 0;
	bool *flags;

	if (tb_stats_measured(c, &v, &n))
		return -ENOMEM;
	flags = calloc(n ? n : 1, sizeof(*flags));
	free(c->summary.outlier);
	c->summary.outlier = calloc(c->nsamples ? c->nsamples : 1, sizeof(bool));
	c->summary.noutlier = c->summary.outlier ? c->nsamples : 0;
	if (!flags || !c->summary.outlier) {
		free(v);
		free(flags);
		return -ENOMEM;
	}
	tb_stats_summarize(v, n, &c->summary, flags);
	for (size_t i = 0; i < c->nsamples; i++)
		if (tb_sample_measured(&c->samples[i]))
			c->summary.outlier[i] = flags[k++];
	if (c->latency.present && c->latency.nbuckets) {
		if (isnan(c->latency.p50))
			c->latency.p50 = bucket_quantile(&c->latency, 0.5);
		if (isnan(c->latency.p90))
			c->latency.p90 = bucket_quantile(&c->latency, 0.9);
		if (isnan(c->latency.p99))
			c->latency.p99 = bucket_quantile(&c->latency, 0.99);
		if (isnan(c->latency.p999))
			c->latency.p999 = bucket_quantile(&c->latency, 0.999);
	}
	free(v);
	free(flags);
	return 0;
}

/*
 * Σ run_time_ns / Σ run_cnt of the BPF programs over c's measured and accounting samples
 * (those with the stats on: the others know no run figures); NAN: none.
 */
static double bpf_ns_per_run(const struct tb_cell *c)
{
	int64_t cnt = 0, ns = 0;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if ((tb_sample_measured(s) || tb_sample_accounted(s)) && s->bpf_run_cnt >= 0 &&
		    s->bpf_run_time_ns >= 0) {
			cnt = tb_add_sat(cnt, s->bpf_run_cnt);
			ns = tb_add_sat(ns, s->bpf_run_time_ns);
		}
	}
	return cnt > 0 ? (double)ns / (double)cnt : NAN;
}

/*
 * The proof of tracing and what the cost figures mean (model/proof.h): events/op, ns/event
 * only where it is a cost per event of the workload, else the reason; the cost per context
 * switch or per sample where that drives a counter's or a sampler's cost.
 */
static void cost_figures(struct tb_cell *c, size_t nt)
{
	struct tb_overhead *o = &c->overhead;
	int64_t events = tb_cell_events(c);
	const char *unit;
	double per;

	tb_proof_judge(c, c->summary.median, tb_streq(c->tracer_type, "none"), &c->proof);
	if (events >= 0 && c->ops_per_sample && nt)
		o->events_per_op =
			(double)events / ((double)c->ops_per_sample *
					  (double)(c->threads ? c->threads : 1) * (double)nt);
	if (tb_proof_ns_per_event_ok(c, &c->proof, o->nse_reason, sizeof(o->nse_reason))) {
		per = c->proof.events_per_op;
		o->ns_per_event = o->ns_per_op / per;
		o->nse_ci_lo = o->ns_ci_lo / per;
		o->nse_ci_hi = o->ns_ci_hi / per;
	}
	if (tb_proof_driver(c, &c->proof, &unit, &per, o->driver_reason,
			    sizeof(o->driver_reason))) {
		snprintf(o->driver, sizeof(o->driver), "%s", unit);
		o->driver_per_op = per;
		o->ns_per_driver = o->ns_per_op / per;
		o->npd_lo = o->ns_ci_lo / per;
		o->npd_hi = o->ns_ci_hi / per;
	}
	o->bpf_ns_per_run = bpf_ns_per_run(c);
}

static int analyze_cell(struct tb_result *r, size_t idx, const struct tb_cell *base)
{
	struct tb_cell *c = &r->cells[idx];
	struct tb_overhead *o = &c->overhead;
	const struct tb_summary *sb, *st;
	struct tb_cellpair pair = {0};
	double *vb = NULL, *vt = NULL, ci[2], nci[2];
	size_t nb = 0, nt = 0;
	int ret = 0;

	tb_overhead_init(o);
	c->has_overhead = true;
	if (!base)
		goto verdict;
	sb = &base->summary;
	st = &c->summary;
	if (sb->n && st->n && sb->median > 0) {
		o->pct = 100 * (st->median / sb->median - 1);
		o->mean_pct = 100 * (st->mean / sb->mean - 1);
		o->ns_per_op = st->median - sb->median;
	}
	if (tb_stats_measured(base, &vb, &nb) || tb_stats_measured(c, &vt, &nt)) {
		ret = -ENOMEM;
		goto out;
	}
	if (nb >= 2 && nt >= 2) {
		o->p_mannwhitney = tb_stats_mannwhitney(vb, nb, vt, nt, NULL);
		o->p_welch = tb_stats_welch_p(vb, nb, vt, nt);
		o->hl_shift_ns = tb_stats_hodges_lehmann(vb, nb, vt, nt);
		o->mde_pct =
			100 * tb_stats_mde(sb->sd, nb, st->sd, nt, r->alpha, r->power) / sb->median;
		if ((ret = tb_stats_cellpair(base, c, &pair)))
			goto out;
		ret = tb_stats_bootstrap(pair.base, pair.nb, pair.traced, pair.nt, pair.paired,
					 r->resamples ? r->resamples : 10000, r->confidence,
					 tb_stats_seed(r->seed, idx), ci, nci);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
		o->ci_lo = ci[0];
		o->ci_hi = ci[1];
		o->ns_ci_lo = nci[0];
		o->ns_ci_hi = nci[1];
	}
verdict:
	cost_figures(c, tb_cell_nevent_samples(c));
	tb_stats_verdict(r, base, c);
out:
	tb_stats_cellpair_free(&pair);
	free(vb);
	free(vt);
	return ret;
}

static void aa_calibrate(struct tb_result *r)
{
	struct tb_aa_summary *a = &r->aa_summary;

	memset(a, 0, sizeof(*a));
	a->fp_rate = a->noise_floor_pct = a->max_abs_pct = NAN;
	if (!r->aa)
		return;
	a->present = true;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_overhead *o = &c->overhead;
		double half;

		if (c->baseline || !c->has_overhead || !isfinite(o->ci_lo) || !isfinite(o->ci_hi))
			continue;
		half = (o->ci_hi - o->ci_lo) / 2;
		a->ncells++;
		if (o->verdict == TB_VERDICT_OVERHEAD || o->verdict == TB_VERDICT_FASTER)
			a->false_positives++;
		if (!(a->noise_floor_pct >= half))
			a->noise_floor_pct = half;
		if (!(a->max_abs_pct >= fabs(o->pct)))
			a->max_abs_pct = fabs(o->pct);
	}
	if (a->ncells)
		a->fp_rate = (double)a->false_positives / (double)a->ncells;
}

/* A usable point of a rate sweep: a finite rate and events per op, and a usable fit point. */
static bool rate_point(const struct tb_cell *c)
{
	return isfinite(c->rate) && isfinite(c->overhead.events_per_op) &&
	       tb_stats_fit_point(c, NULL, 0);
}

/*
 * The x of a rate point: the workload's events per op. A system-wide count that the tracer
 * does not split holds other tasks' events too: the workload's own are then the expected ones,
 * when the proof found at least those (match or above) and the expectation is exact. Else
 * the proof's count, else all of them.
 */
static double rate_x(const struct tb_cell *c)
{
	const struct tb_expected *x = &c->expected;

	if (x->present && x->scope == TB_SCOPE_SYSTEM && !x->attributes && !x->unknown &&
	    !x->at_least && !x->filtered && c->proof.expected_per_op > 0 &&
	    (c->proof.outcome == TB_PROOF_MATCH || c->proof.outcome == TB_PROOF_ABOVE))
		return c->proof.expected_per_op;
	return isfinite(c->proof.events_per_op) ? c->proof.events_per_op
						: c->overhead.events_per_op;
}

static int rate_models(struct tb_result *r)
{
	bool *done = calloc(r->ncells ? r->ncells : 1, sizeof(bool));
	double *x = malloc((r->ncells ? r->ncells : 1) * sizeof(double) * 4);
	const struct tb_cell **pts = calloc(r->ncells ? r->ncells : 1, sizeof(*pts));
	int ret = 0;

	tb_result_rate_models_free(r);
	if (!done || !x || !pts) {
		ret = -ENOMEM;
		goto out;
	}
	double *y = x + r->ncells, *xs = y + r->ncells, *ys = xs + r->ncells;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		struct tb_rate_model *m;
		size_t n = 0;

		if (done[i] || !rate_point(c))
			continue;
		for (size_t j = i; j < r->ncells; j++) {
			const struct tb_cell *d = &r->cells[j];

			if (done[j] || !rate_point(d) || !tb_streq(c->tracer, d->tracer) ||
			    !tb_streq(c->workload_type, d->workload_type))
				continue;
			done[j] = true;
			pts[n] = d;
			x[n] = rate_x(d);
			y[n] = d->overhead.ns_per_op;
			xs[n] = tb_cell_sweep_rate(d) / 1e6;
			ys[n] = d->overhead.pct;
			n++;
		}
		if (n < 3)
			continue;
		m = tb_result_add_rate_model(r);
		if (!m) {
			ret = -ENOMEM;
			goto out;
		}
		m->tracer = c->tracer ? strdup(c->tracer) : NULL;
		m->workload_type = c->workload_type ? strdup(c->workload_type) : NULL;
		/* m->why_not says when it cannot; its slope's CI is widened by the rounds' */
		if (!tb_stats_rate_fit(x, y, n, r->alpha, m)) {
			double ci[2];

			if (tb_stats_rounds_slope_ci(r, pts, x, n, 0x7a0000 + i, ci)) {
				ret = -ENOMEM;
				goto out;
			}
			tb_stats_line_widen(m, ci, "event", "events per op");
		}
		if (gsl_stats_variance(xs, 1, n) > 0) {
			double c0, c1, c00, c01, c11, ss;

			if (!gsl_fit_linear(xs, 1, ys, 1, n, &c0, &c1, &c00, &c01, &c11, &ss)) {
				m->pct_fixed = c0;
				m->pct_per_mevent_s = c1;
			}
		}
	}
out:
	free(done);
	free(x);
	free(pts);
	return ret;
}

/* ---- accounting samples ---------------------------------------------------------------------- */

/* The programs' runs per op and thread and ns per run over the accounting samples. */
static void acct_bpf_figures(const struct tb_cell *c, struct tb_accounting *a)
{
	double runs = 0, ns = 0, ops = 0;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (!tb_sample_accounted(s) || s->bpf_run_cnt < 0 || s->bpf_run_time_ns < 0)
			continue;
		runs += (double)s->bpf_run_cnt;
		ns += (double)s->bpf_run_time_ns;
		ops += (double)s->ops * (double)(c->threads ? c->threads : 1);
	}
	if (ops > 0)
		a->bpf_runs_per_op = runs / ops;
	if (runs > 0)
		a->bpf_ns_per_run = ns / runs;
}

/*
 * The accounting samples' ns/op into acct and, of the same rounds, the timed samples' into
 * timed (the first timed sample of each round): paired when every accounting sample found
 * its round's timed one, as the cell's own rounds pair with the baseline's.
 */
static size_t pair_rounds(const struct tb_cell *c, double *acct, double *timed, bool *paired)
{
	size_t n = 0, matched = 0;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (!tb_sample_accounted(s))
			continue;
		acct[n] = s->ns_per_op;
		for (size_t j = 0; j < c->nsamples; j++) {
			const struct tb_sample *t = &c->samples[j];

			if (tb_sample_measured(t) && t->round == s->round) {
				timed[n] = t->ns_per_op;
				matched++;
				break;
			}
		}
		n++;
	}
	*paired = n >= 2 && matched == n;
	return n;
}

/*
 * Cell idx of r's [accounting] (result.h) from its accounting samples: the BPF programs' runs
 * per op and ns per run with the stats on, and what having them on cost against the cell's
 * timed samples, which run with them off (METHODOLOGY.md, "The measurer never inflates the
 * measured"). With fewer than TB_ACCOUNTING_CI_MIN of either, a ratio of means, said.
 */
static int accounting_figures(struct tb_result *r, size_t idx)
{
	struct tb_cell *c = &r->cells[idx];
	struct tb_accounting *a = &c->accounting;
	double *acct = NULL, *pt = NULL, *vt = NULL, ci[2], nci[2];
	size_t na, nt = 0;
	bool paired;
	int ret = 0;

	tb_accounting_init(a);
	acct = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*acct));
	pt = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*pt));
	if (!acct || !pt || tb_stats_measured(c, &vt, &nt)) {
		ret = -ENOMEM;
		goto out;
	}
	na = pair_rounds(c, acct, pt, &paired);
	if (!na)
		goto out;
	a->present = true;
	a->samples = (unsigned int)na;
	a->ns_per_op = tb_stats_median(acct, na);
	acct_bpf_figures(c, a);
	if (!nt) {
		snprintf(a->ci_reason, sizeof(a->ci_reason), "no timed sample to compare with");
		goto out;
	}
	if (na < TB_ACCOUNTING_CI_MIN || nt < TB_ACCOUNTING_CI_MIN) {
		/* Too few points for a median or a CI to mean much: the ratio of means, said. */
		a->cost_pct = 100 * (gsl_stats_mean(acct, 1, na) / gsl_stats_mean(vt, 1, nt) - 1);
		a->cost_ns_per_op = gsl_stats_mean(acct, 1, na) - gsl_stats_mean(vt, 1, nt);
		snprintf(a->ci_reason, sizeof(a->ci_reason),
			 "ratio of the means of %zu accounting and %zu timed samples: %d of each "
			 "are needed for a CI",
			 na, nt, TB_ACCOUNTING_CI_MIN);
	} else {
		double mt = tb_stats_median(vt, nt);

		a->cost_pct = 100 * (a->ns_per_op / mt - 1);
		a->cost_ns_per_op = a->ns_per_op - mt;
		ret = paired ? tb_stats_bootstrap(
				       pt, na, acct, na, true, r->resamples ? r->resamples : 10000,
				       r->confidence, tb_stats_seed(r->seed, idx), ci, nci)
			     : tb_stats_bootstrap(
				       vt, nt, acct, na, false, r->resamples ? r->resamples : 10000,
				       r->confidence, tb_stats_seed(r->seed, idx), ci, nci);
		if (ret == -ENOMEM)
			goto out;
		ret = 0;
		a->ci_lo = ci[0];
		a->ci_hi = ci[1];
	}
	if (a->bpf_runs_per_op > 0)
		a->cost_ns_per_run = a->cost_ns_per_op / a->bpf_runs_per_op;
out:
	free(acct);
	free(pt);
	free(vt);
	return ret;
}

void tb_stats_set_alpha(struct tb_result *r, double alpha)
{
	r->alpha = alpha;
	r->confidence = 1 - alpha;
}

int tb_stats_analyze(struct tb_result *r)
{
	int ret;

	for (size_t i = 0; i < r->ncells; i++) {
		tb_stats_service_ops(&r->cells[i]);
		if ((ret = summarize_cell(&r->cells[i])))
			return ret;
	}
	for (size_t i = 0; i < r->ncells; i++) {
		struct tb_cell *c = &r->cells[i];

		if (c->baseline) {
			c->has_overhead = false;
			if ((ret = tb_stats_service(r, i, NULL, c)))
				return ret;
			continue;
		}
		if ((ret = analyze_cell(r, i, tb_result_baseline(r, c))) ||
		    (ret = accounting_figures(r, i)) ||
		    (ret = tb_stats_service(r, i, tb_result_baseline(r, c), c)))
			return ret;
	}
	aa_calibrate(r);
	ret = rate_models(r);
	if (!ret)
		ret = tb_stats_sweeps(r);
	if (!ret)
		tb_stats_limits(r);
	return ret ? ret : tb_stats_shortfalls(r);
}
