// SPDX-License-Identifier: GPL-2.0
/*
 * The service cells' figures and overheads (service.h). Throughput is the client's own
 * requests/s, the latencies its percentiles; each overhead is a percentile bootstrap of the
 * medians' change over the samples, paired by round when every round has both (as the ns/op
 * overhead, tb_stats_bootstrap), else unpaired.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/measured.h"
#include "stats/service.h"
#include "stats/stats.h"

/* A sample's figure: throughput, p50 or p99. */
typedef double (*figure_fn)(const struct tb_sample *s);

static double rps(const struct tb_sample *s)
{
	return s->svc.rps;
}

static double p50(const struct tb_sample *s)
{
	return s->svc.p50_ns;
}

static double p99(const struct tb_sample *s)
{
	return s->svc.p99_ns;
}

static double p999(const struct tb_sample *s)
{
	return s->svc.p999_ns;
}

const char *const tb_stats_svc_names[TB_STATS_SVC_N] = {"throughput", "p50", "p99"};
static const figure_fn metric_fns[TB_STATS_SVC_N] = {rps, p50, p99};

static bool counted(const struct tb_sample *s, figure_fn fig)
{
	return tb_sample_measured(s) && s->svc.present && isfinite(fig(s));
}

/* The finite figures of c's measured samples (new array in *out, n in *n); -ENOMEM. */
static int figures(const struct tb_cell *c, figure_fn fig, double **out, size_t *n)
{
	*n = 0;
	*out = malloc((c->nsamples ? c->nsamples : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < c->nsamples; i++)
		if (counted(&c->samples[i], fig))
			(*out)[(*n)++] = fig(&c->samples[i]);
	return 0;
}

int tb_stats_service_values(const struct tb_cell *c, enum tb_stats_svc m, double **out, size_t *n)
{
	return figures(c, metric_fns[m], out, n);
}

static double median_of(const struct tb_cell *c, figure_fn fig)
{
	double *x, m;
	size_t n;

	if (figures(c, fig, &x, &n))
		return NAN;
	m = n ? tb_stats_median(x, n) : NAN;
	free(x);
	return m;
}

/*
 * base's and c's figures, paired by round when every sample of the smaller side has its
 * round's partner (*paired), else each side's own. Returns 0 or -ENOMEM.
 */
static int pair_up(const struct tb_cell *base, const struct tb_cell *c, figure_fn fig, double **xb,
		   size_t *nb, double **xt, size_t *nt, bool *paired)
{
	size_t m = 0;
	double *pb, *pt;

	*paired = false;
	if (figures(base, fig, xb, nb) || figures(c, fig, xt, nt))
		return -ENOMEM;
	pb = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*pb));
	pt = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*pt));
	if (!pb || !pt) {
		free(pb);
		free(pt);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *t = &c->samples[i];

		if (!counted(t, fig) || t->round < 0)
			continue;
		for (size_t j = 0; j < base->nsamples; j++)
			if (counted(&base->samples[j], fig) && base->samples[j].round == t->round) {
				pb[m] = fig(&base->samples[j]);
				pt[m++] = fig(t);
				break;
			}
	}
	if (m >= 2 && m == (*nb < *nt ? *nb : *nt)) {
		free(*xb);
		free(*xt);
		*xb = pb;
		*xt = pt;
		*nb = *nt = m;
		*paired = true;
		return 0;
	}
	free(pb);
	free(pt);
	return 0;
}

/*
 * The change of fig from base to c: its point (pct or ns), its CI, and the verdict by the
 * overhead's rules: fewer than 2 samples a side untrustworthy; a CI clear of 0 with a change
 * beyond the noise threshold (relative to the baseline's median) an overhead, or faster when
 * in the good direction; else none detectable. worse_up: a rise is the cost (latency); a fall
 * is (throughput, whose loss is -pct).
 */
static int change(const struct tb_result *r, size_t idx, const struct tb_cell *base,
		  const struct tb_cell *c, figure_fn fig, bool latency, double *point, double ci[2],
		  int *verdict)
{
	double *xb = NULL, *xt = NULL, pci[2] = {NAN, NAN}, nci[2] = {NAN, NAN}, mb, mt, rel;
	double thr = 100 * r->noise_threshold;
	size_t nb, nt;
	bool paired;
	int ret;

	*point = ci[0] = ci[1] = NAN;
	*verdict = TB_VERDICT_UNTRUSTWORTHY;
	ret = pair_up(base, c, fig, &xb, &nb, &xt, &nt, &paired);
	if (ret || nb < 2 || nt < 2)
		goto out;
	mb = tb_stats_median(xb, nb);
	mt = tb_stats_median(xt, nt);
	ret = tb_stats_bootstrap(xb, nb, xt, nt, paired, r->resamples ? r->resamples : 10000,
				 r->confidence, tb_stats_seed(r->seed, 1000 + idx), pci, nci);
	if (ret) {
		ret = ret == -ENOMEM ? ret : 0;
		goto out;
	}
	if (latency) {
		*point = mt - mb;
		ci[0] = nci[0];
		ci[1] = nci[1];
		rel = mb > 0 ? 100 * *point / mb : NAN;
	} else { /* the loss is the fall */
		*point = mb > 0 ? 100 * (1 - mt / mb) : NAN;
		ci[0] = -pci[1];
		ci[1] = -pci[0];
		rel = *point;
	}
	if (ci[0] > 0 && rel > thr)
		*verdict = TB_VERDICT_OVERHEAD;
	else if (ci[1] < 0 && rel < -thr)
		*verdict = TB_VERDICT_FASTER;
	else
		*verdict = TB_VERDICT_NO_OVERHEAD;
out:
	free(xb);
	free(xt);
	return ret;
}

void tb_stats_service_ops(struct tb_cell *c)
{
	double ops = 0;
	size_t n = 0;

	for (size_t i = 0; i < c->nsamples; i++)
		if (tb_sample_measured(&c->samples[i]) && c->samples[i].svc.present) {
			ops += (double)c->samples[i].ops;
			n++;
		}
	if (n && ops >= (double)n)
		c->ops_per_sample = (uint64_t)llround(ops / (double)n);
}

/* The cell's own figures: medians, errors, the server's CPU and switches per request. */
static void own_figures(struct tb_cell *c, struct tb_service_overhead *s)
{
	double cpu = 0, sw = 0, reqs = 0, reqs_sw = 0;

	s->rps = median_of(c, rps);
	s->p50_ns = median_of(c, p50);
	s->p99_ns = median_of(c, p99);
	s->p999_ns = median_of(c, p999);
	s->errors = 0;
	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *x = &c->samples[i];

		if (!tb_sample_measured(x) || !x->svc.present)
			continue;
		if (!s->decides[0])
			snprintf(s->decides, sizeof(s->decides), "%s", x->svc.decides);
		if (x->svc.errors > 0)
			s->errors += x->svc.errors;
		if (isfinite(x->svc.server_cpu_s)) {
			cpu += x->svc.server_cpu_s * 1e9;
			reqs += (double)x->ops;
		}
		if (x->svc.server_ctxsw >= 0) {
			sw += (double)x->svc.server_ctxsw;
			reqs_sw += (double)x->ops;
		}
	}
	s->cpu_ns_per_req = reqs > 0 ? cpu / reqs : NAN;
	s->ctxsw_per_req = reqs_sw > 0 ? sw / reqs_sw : NAN;
}

/* The deciding latency's verdict becomes the cell's, with the figures in its reason. */
static void decide(const struct tb_result *r, struct tb_cell *c,
		   const struct tb_service_overhead *s)
{
	struct tb_overhead *o = &c->overhead;
	bool is99 = !strcmp(s->decides, "p99");
	double d = is99 ? s->p99_delta : s->p50_delta, lo = is99 ? s->p99_lo : s->p50_lo,
	       hi = is99 ? s->p99_hi : s->p50_hi;
	char was[sizeof(o->reason)];

	if (o->verdict == TB_VERDICT_UNTRUSTWORTHY || (!is99 && strcmp(s->decides, "p50")))
		return;
	snprintf(was, sizeof(was), "%s", o->reason);
	o->verdict = is99 ? s->p99_verdict : s->p50_verdict;
	snprintf(
		o->reason, sizeof(o->reason),
		"decided by %s: %+.1f us [%+.1f, %+.1f] at %.0f%% confidence; time per request %.240s",
		s->decides, d / 1e3, lo / 1e3, hi / 1e3, 100 * r->confidence, was);
}

int tb_stats_service(const struct tb_result *r, size_t idx, const struct tb_cell *base,
		     struct tb_cell *c)
{
	struct tb_service_overhead *s = &c->service;
	double ci[2];
	int ret;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < c->nsamples && !s->present; i++)
		s->present = c->samples[i].svc.present;
	if (!s->present)
		return 0;
	own_figures(c, s);
	s->loss_pct = s->loss_lo = s->loss_hi = NAN;
	s->p50_delta = s->p50_lo = s->p50_hi = s->p99_delta = s->p99_lo = s->p99_hi = NAN;
	if (c->baseline || !base || !base->nsamples)
		return 0;
	s->traced = true;
	ret = change(r, idx, base, c, rps, false, &s->loss_pct, ci, &s->thr_verdict);
	s->loss_lo = ci[0];
	s->loss_hi = ci[1];
	if (!ret)
		ret = change(r, idx, base, c, p50, true, &s->p50_delta, ci, &s->p50_verdict);
	s->p50_lo = ci[0];
	s->p50_hi = ci[1];
	if (!ret)
		ret = change(r, idx, base, c, p99, true, &s->p99_delta, ci, &s->p99_verdict);
	s->p99_lo = ci[0];
	s->p99_hi = ci[1];
	/* The cell's trust rules (rounds, noise, lost events, the proof) hold for all of them */
	if (!ret && c->has_overhead && c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY)
		s->thr_verdict = s->p50_verdict = s->p99_verdict = TB_VERDICT_UNTRUSTWORTHY;
	if (!ret && c->has_overhead)
		decide(r, c, s);
	return ret;
}
