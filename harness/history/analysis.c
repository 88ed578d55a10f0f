// SPDX-License-Identifier: GPL-2.0
/* A series read and analysed; the gate's view of the history (analysis.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "history/analysis.h"
#include "history/detect.h"
#include "history/series.h"
#include "history/store.h"
#include "model/system.h"
#include "stats/gate.h"
#include "stats/stats.h"

/* ---- one series in memory -------------------------------------------------------------------- */

void tb_hdata_free(struct tb_hdata *d)
{
	free(d->rec);
	free(d->value);
	free(d->scale);
	free(d->samples);
	free(d->off);
	memset(d, 0, sizeof(*d));
}

struct load {
	struct tb_hdata *d;
	const char *until;
	int64_t exclude;
};

static int grow(void **p, size_t n, size_t size)
{
	void *q = realloc(*p, n * size);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

static int load_point(void *ctx, const struct tb_hpoint *p)
{
	struct load *l = ctx;
	struct tb_hdata *d = l->d;
	struct tb_hrec *r;
	size_t have = d->off[d->n];

	if (p->run_id == l->exclude || (l->until && strcmp(p->started, l->until) > 0))
		return 0;
	if (d->n + 1 >= d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 64;

		if (grow((void **)&d->rec, cap, sizeof(*d->rec)) ||
		    grow((void **)&d->value, cap, sizeof(*d->value)) ||
		    grow((void **)&d->scale, cap, sizeof(*d->scale)) ||
		    grow((void **)&d->off, cap + 1, sizeof(*d->off)))
			return -ENOMEM;
		d->cap = cap;
	}
	if (have + p->nsamples > d->scap) {
		size_t cap = d->scap ? 2 * d->scap : 256;

		while (cap < have + p->nsamples)
			cap *= 2;
		if (grow((void **)&d->samples, cap, sizeof(*d->samples)))
			return -ENOMEM;
		d->scap = cap;
	}
	r = &d->rec[d->n];
	r->run_id = p->run_id;
	snprintf(r->started, sizeof(r->started), "%s", p->started);
	r->value = p->value;
	r->ci_lo = p->ci_lo;
	r->ci_hi = p->ci_hi;
	snprintf(r->verdict, sizeof(r->verdict), "%s", p->verdict);
	d->value[d->n] = p->value;
	d->scale[d->n] = p->scale;
	if (p->nsamples)
		memcpy(d->samples + have, p->samples, p->nsamples * sizeof(*p->samples));
	d->n++;
	d->off[d->n] = have + p->nsamples;
	return 0;
}

int tb_hdata_load(struct tb_history *h, const struct tb_hseries *s, const char *until,
		  int64_t exclude, struct tb_hdata *d)
{
	struct load l = {.d = d, .until = until, .exclude = exclude};
	int ret;

	memset(d, 0, sizeof(*d));
	d->off = calloc(1, sizeof(*d->off));
	if (!d->off)
		return -ENOMEM;
	ret = tb_history_points(h, s, load_point, &l);
	if (ret == -ENOMEM)
		tb_err("%s: out of memory reading %s", tb_history_name(h), s->name);
	if (ret)
		tb_hdata_free(d);
	return ret;
}

void tb_hdata_input(const struct tb_hdata *d, enum tb_hmag mag, struct tb_detect_input *in)
{
	in->n = d->n;
	in->value = d->value;
	in->scale = d->scale;
	in->samples = d->off && d->off[d->n] ? d->samples : NULL;
	in->sample_off = d->off;
	in->mag = mag;
}

/* ---- what changed at a change point ---------------------------------------------------------- */

/* The environment leaves that differ from run a to run b, transient ones left out. */
static int run_diffs(struct tb_history *h, int64_t a, int64_t b, struct tb_hdiffs *out)
{
	struct tb_history_run ra, rb;
	struct tb_fp_diff *d = NULL;
	size_t n = 0, w = 0;
	int ret;

	ret = tb_history_run_get(h, a, &ra);
	if (ret)
		return ret;
	ret = tb_history_run_get(h, b, &rb);
	if (ret) {
		tb_history_run_release(&ra);
		return ret;
	}
	ret = tb_system_diff(ra.system, rb.system, &d, &n);
	for (size_t i = 0; !ret && i < n; i++) {
		if (d[i].transient) {
			free(d[i].key);
			free(d[i].a);
			free(d[i].b);
			continue;
		}
		d[w++] = d[i];
	}
	if (!ret) {
		out->d = d;
		out->n = w;
	} else {
		tb_fp_diffs_free(d, n);
	}
	tb_history_run_release(&ra);
	tb_history_run_release(&rb);
	return ret;
}

/* Labels and scenario hashes of the runs around the change, the diffs at offsets -1, 0, +1. */
static int explain(struct tb_history *h, const struct tb_hdata *d, struct tb_hchange *x)
{
	size_t k = x->c.index;
	struct tb_history_run run;
	int ret;

	x->run_id = d->rec[k].run_id;
	snprintf(x->started, sizeof(x->started), "%s", d->rec[k].started);
	for (int i = 0; i < 2; i++) {
		ret = tb_history_run_get(h, d->rec[k - 1 + i].run_id, &run);
		if (ret)
			return ret;
		snprintf(i ? x->variant_after : x->variant_before, 13, "%s",
			 run.variant ? run.variant : "");
		if (i) {
			x->labels = run.labels;
			run.labels = NULL;
		}
		tb_history_run_release(&run);
	}
	for (int off = -1; off <= 1; off++) {
		struct tb_hdiffs *df = &x->diffs[off + 1];

		df->offset = off;
		if ((off < 0 && k < 2) || (off > 0 && k + 1 >= d->n))
			continue;
		ret = run_diffs(h, d->rec[k - 1 + off].run_id, d->rec[k + off].run_id, df);
		if (ret)
			return ret;
	}
	return 0;
}

void tb_hanalysis_free(struct tb_hanalysis *a)
{
	for (size_t i = 0; a->ch && i < a->nch; i++) {
		json_decref(a->ch[i].labels);
		for (int k = 0; k < 3; k++)
			tb_fp_diffs_free(a->ch[i].diffs[k].d, a->ch[i].diffs[k].n);
	}
	free(a->ch);
	free(a->seg_median);
	tb_hdata_free(&a->data);
	memset(a, 0, sizeof(*a));
}

int tb_history_analyze(struct tb_history *h, const struct tb_hseries *s,
		       const struct tb_detect_opts *o, bool keep_points, struct tb_hanalysis *a)
{
	struct tb_detect_input in;
	struct tb_change *ch = NULL;
	size_t n = 0;
	int ret;

	memset(a, 0, sizeof(*a));
	a->s = s;
	ret = tb_hdata_load(h, s, NULL, 0, &a->data);
	if (ret)
		return ret;
	tb_hdata_input(&a->data, s->metric ? s->metric->mag : TB_HMAG_RELATIVE, &in);
	ret = tb_detect(&in, o, &ch, &n);
	if (!ret && n) {
		a->ch = calloc(n, sizeof(*a->ch));
		ret = a->ch ? 0 : -ENOMEM;
		a->nch = a->ch ? n : 0;
	}
	for (size_t i = 0; !ret && i < n; i++) {
		a->ch[i].c = ch[i];
		ret = explain(h, &a->data, &a->ch[i]);
	}
	if (!ret && !(a->seg_median = malloc((n + 1) * sizeof(*a->seg_median))))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i <= n; i++) {
		size_t from = i ? ch[i - 1].index : 0, to = i < n ? ch[i].index : a->data.n;

		a->seg_median[i] =
			to > from ? tb_stats_median(a->data.value + from, to - from) : NAN;
	}
	free(ch);
	if (ret == -ENOMEM)
		tb_err("%s: out of memory analysing %s", tb_history_name(h), s->name);
	if (ret)
		tb_hanalysis_free(a);
	else if (!keep_points)
		tb_hdata_free(&a->data);
	return ret;
}

/* ---- the gate's view ------------------------------------------------------------------------- */

/* The series of point pt of a run with identity id (strings borrowed; no name). */
static void series_of(const struct tb_hrun_id *id, const struct tb_hpoint *pt, bool comparable,
		      struct tb_hseries *s)
{
	memset(s, 0, sizeof(*s));
	s->scenario = (char *)id->scenario;
	s->workload = (char *)pt->workload;
	s->tracer = (char *)pt->tracer;
	s->metric_name = (char *)pt->metric->name;
	s->variant = comparable ? NULL : (char *)id->variant;
	s->hw_class = (char *)id->hw_class;
	s->metric = pt->metric;
	s->name = (char *)pt->cell;
}

/* The reference of one cell's gated point against its series' last stable segment. */
static int gate_ref(struct tb_history *h, const struct tb_hrun_id *id, const struct tb_hpoint *pt,
		    bool comparable, const struct tb_detect_opts *o, double alpha, double power,
		    int64_t self, struct tb_gate_ref *ref)
{
	struct tb_detect_input in;
	struct tb_change *ch = NULL;
	struct tb_detect_vs vs;
	struct tb_hseries s;
	struct tb_hdata d;
	size_t n = 0, start;
	int ret;

	series_of(id, pt, comparable, &s);
	ret = tb_hdata_load(h, &s, id->started, self, &d);
	if (ret)
		return ret;
	ref->found = d.n > 0;
	tb_hdata_input(&d, pt->metric->mag, &in);
	ret = tb_detect(&in, o, &ch, &n);
	if (ret)
		goto out;
	start = n ? ch[n - 1].index : 0;
	ref->nchanges = n;
	if (d.n)
		snprintf(ref->since, sizeof(ref->since), "%s", d.rec[start].started);
	tb_detect_vs_segment(&in, start, d.n, pt->value, pt->scale, pt->samples, pt->nsamples,
			     alpha, power, &vs);
	ref->npoints = vs.npoints;
	ref->mean = vs.mean;
	ref->value = pt->value;
	ref->p = vs.p;
	ref->p_samples = vs.p_samples;
	if (ref->relative) {
		ref->change = vs.change_pct;
		ref->ci_lo = vs.pct_lo;
		ref->ci_hi = vs.pct_hi;
		ref->mde = vs.mde_pct;
	} else {
		ref->change = vs.change;
		ref->ci_lo = vs.ci_lo;
		ref->ci_hi = vs.ci_hi;
		ref->mde = vs.mde;
	}
out:
	free(ch);
	tb_hdata_free(&d);
	return ret;
}

int tb_history_gate_refs(struct tb_history *h, const struct tb_result *r, const json_t *doc,
			 bool comparable, const struct tb_detect_opts *o, double alpha,
			 struct tb_gate_ref **refs)
{
	struct tb_hpoints pts = {0};
	struct tb_hrun_id id;
	double power = r->power > 0 && r->power < 1 ? r->power : 0.8;
	int64_t self = 0;
	int ret;

	*refs = calloc(r->ncells + r->nsweeps ? r->ncells + r->nsweeps : 1, sizeof(**refs));
	if (!*refs)
		return -ENOMEM;
	ret = tb_hrun_identity(r, doc, &id);
	if (!ret && tb_history_find_hash(h, id.hash, &self) < 0)
		ret = -EIO;
	if (!ret)
		ret = tb_hpoints_of_result(r, &pts);
	for (size_t i = 0; !ret && i < pts.n; i++) {
		const struct tb_hpoint *pt = &pts.p[i];
		size_t c;

		if (!pt->metric->gated)
			continue;
		for (c = 0; c < r->ncells && strcmp(r->cells[c].id, pt->cell); c++)
			;
		if (c == r->ncells)
			continue;
		(*refs)[c].c = &r->cells[c];
		(*refs)[c].relative = pt->metric->mag == TB_HMAG_RELATIVE;
		ret = gate_ref(h, &id, pt, comparable, o, alpha, power, self, &(*refs)[c]);
	}
	/* Every sweep with a slope, accepted here or not: the gate decides at its own alpha. */
	for (size_t k = 0; !ret && k < r->nsweeps; k++) {
		struct tb_gate_ref *ref = &(*refs)[r->ncells + k];
		struct tb_hpoint sp;

		if (!tb_hpoint_of_sweep(&r->sweeps[k], &sp))
			continue;
		ref->relative = true;
		ret = gate_ref(h, &id, &sp, comparable, o, alpha, power, self, ref);
	}
	tb_hpoints_free(&pts);
	if (ret) {
		free(*refs);
		*refs = NULL;
	}
	return ret;
}
