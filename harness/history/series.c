// SPDX-License-Identifier: GPL-2.0
/* Series identity and the points of a result (series.h). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "history/series.h"
#include "model/measured.h"
#include "model/result.h"
#include "model/system.h"
#include "stats/service.h"
#include "stats/stats.h"

const struct tb_hmetric tb_hmetrics[] = {
	{"ns_per_op", "ns", "baseline ns/op", TB_HMAG_RELATIVE, true},
	{"overhead_pct", "%", "overhead %", TB_HMAG_POINTS, true},
	{"overhead_ns", "ns", "overhead ns/op", TB_HMAG_SCALED, false},
	{"ns_per_event", "ns", "ns per event", TB_HMAG_RELATIVE, false},
	{"events_lost", "events", "events lost", TB_HMAG_RELATIVE, false},
	{"tracer_cpu_pct", "%", "tracer CPU % of the sample time", TB_HMAG_POINTS, false},
	{"latency_p50", "ns", "latency p50 (ns)", TB_HMAG_RELATIVE, false},
	{"latency_p99", "ns", "latency p99 (ns)", TB_HMAG_RELATIVE, false},
	{"latency_p999", "ns", "latency p99.9 (ns)", TB_HMAG_RELATIVE, false},
	/* service cells (stats/service.h): the client's figures, every cell */
	{"service_rps", "req/s", "service throughput (req/s)", TB_HMAG_RELATIVE, false},
	{"service_p50", "ns", "service p50 (ns)", TB_HMAG_RELATIVE, false},
	{"service_p99", "ns", "service p99 (ns)", TB_HMAG_RELATIVE, false},
	/* a sweep's accepted line (stats/sweep.h): its per-unit cost, a series per sweep */
	{"sweep_slope", "ns", "a sweep's cost per unit (ns)", TB_HMAG_RELATIVE, false},
	{NULL, NULL, NULL, TB_HMAG_RELATIVE, false},
};

enum {
	M_NS_PER_OP,
	M_OVERHEAD_PCT,
	M_OVERHEAD_NS,
	M_NS_PER_EVENT,
	M_EVENTS_LOST,
	M_TRACER_CPU,
	M_P50,
	M_P99,
	M_P999,
	M_SVC, /* M_SVC + enum tb_stats_svc */
	M_SWEEP_SLOPE = M_SVC + TB_STATS_SVC_N,
};

const struct tb_hmetric *tb_hmetric_find(const char *name)
{
	for (const struct tb_hmetric *m = tb_hmetrics; name && m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/* ---- run identity --------------------------------------------------------------------------- */

int tb_hscenario_variant(const char *text, char variant[13])
{
	char *norm = malloc(strlen(text ? text : "") + 2), *o = norm, hex[65];
	const char *p = text ? text : "";

	variant[0] = '\0';
	if (!norm)
		return -ENOMEM;
	while (*p) {
		const char *eol = p + strcspn(p, "\n"), *a = p, *b = eol;

		while (a < b && isspace((unsigned char)*a))
			a++;
		/* An inline comment (libinih: ';' after whitespace) ends the line. */
		for (const char *q = a; q < b; q++)
			if (*q == ';' && q > a && isspace((unsigned char)q[-1])) {
				b = q;
				break;
			}
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (a < b && *a != ';' && *a != '#') {
			for (const char *q = a; q < b; q++) {
				/* "key = value" and "key=value" are the same line. */
				if (isspace((unsigned char)*q) &&
				    (q[1] == '=' || (o > norm && o[-1] == '=') ||
				     isspace((unsigned char)q[1])))
					continue;
				*o++ = *q;
			}
			*o++ = '\n';
		}
		p = *eol ? eol + 1 : eol;
	}
	*o = '\0';
	if (tb_sha256_hex(norm, (size_t)(o - norm), hex)) {
		free(norm);
		return -ENOMEM;
	}
	free(norm);
	memcpy(variant, hex, 12);
	variant[12] = '\0';
	return 0;
}

int tb_hrun_hash(const json_t *doc, char hash[65])
{
	json_t *copy = json_copy((json_t *)doc);
	int ret;

	hash[0] = '\0';
	if (!copy)
		return -ENOMEM;
	json_object_del(copy, "labels");
	ret = tb_sha256_json(copy, hash);
	json_decref(copy);
	return ret;
}

int tb_hrun_identity(const struct tb_result *r, const json_t *doc, struct tb_hrun_id *id)
{
	int ret;

	memset(id, 0, sizeof(*id));
	if (!r->scenario_name || !*r->scenario_name || !r->started || !*r->started) {
		tb_err("history: the result has no %s: it cannot be placed in a series",
		       r->started && *r->started ? "scenario name" : "start time");
		return -EINVAL;
	}
	snprintf(id->scenario, sizeof(id->scenario), "%s", r->scenario_name);
	snprintf(id->started, sizeof(id->started), "%s", r->started);
	ret = tb_hscenario_variant(r->scenario_text, id->variant);
	if (!ret)
		ret = tb_system_hardware_class(r->system, id->hw_class, id->hw_desc,
					       sizeof(id->hw_desc));
	if (!ret)
		ret = tb_hrun_hash(doc, id->hash);
	return ret;
}

/* ---- points of a result ---------------------------------------------------------------------- */

struct pts {
	struct tb_hpoints *out;
	size_t cap;
};

/*
 * Append a point named cell (workload, tracer: its series); v (n values, owned) becomes its
 * samples, freed on failure. *pp is the point, NULL when none was added.
 */
static int append(struct pts *ps, const char *cell, const char *workload, const char *tracer,
		  int metric, double value, double lo, double hi, double *v, size_t n,
		  struct tb_hpoint **pp)
{
	struct tb_hpoints *out = ps->out;
	struct tb_hpoint *p;

	*pp = NULL;
	if (!isfinite(value)) {
		free(v);
		return 0;
	}
	if (out->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 16;
		struct tb_hpoint *grown = realloc(out->p, cap * sizeof(*grown));

		if (!grown) {
			free(v);
			return -ENOMEM;
		}
		out->p = grown;
		ps->cap = cap;
	}
	p = &out->p[out->n++];
	memset(p, 0, sizeof(*p));
	p->cell = cell;
	p->workload = workload;
	p->tracer = tracer;
	p->metric = &tb_hmetrics[metric];
	p->value = value;
	p->ci_lo = isfinite(lo) ? lo : NAN;
	p->ci_hi = isfinite(hi) ? hi : NAN;
	p->scale = NAN;
	p->samples = n ? v : NULL;
	p->nsamples = n;
	if (!n)
		free(v);
	*pp = p;
	return 0;
}

/* Append a point of cell c, with its verdict. */
static int add_point(struct pts *ps, const struct tb_cell *c, int metric, double value, double lo,
		     double hi, double *v, size_t n)
{
	struct tb_hpoint *p;
	int ret = append(ps, c->id, c->workload, c->tracer, metric, value, lo, hi, v, n, &p);

	if (!ret && p && !c->baseline && c->has_overhead)
		snprintf(p->verdict, sizeof(p->verdict), "%s",
			 tb_verdict_name(c->overhead.verdict));
	return ret;
}

/* A metric whose point is the median of its per-sample values, with the median's CI. */
static int add_median_point(struct pts *ps, const struct tb_result *r, const struct tb_cell *c,
			    int metric, double *v, size_t n)
{
	double ci[2] = {NAN, NAN};

	if (!n) {
		free(v);
		return 0;
	}
	tb_stats_median_ci(v, n, r->confidence > 0 ? r->confidence : 0.95, ci);
	return add_point(ps, c, metric, tb_stats_median(v, n), ci[0], ci[1], v, n);
}

static int latency_points(struct pts *ps, const struct tb_cell *c)
{
	const struct tb_latency *l = &c->latency;
	int ret = 0;

	if (!l->present || !l->count)
		return 0;
	ret = add_point(ps, c, M_P50, l->p50, NAN, NAN, NULL, 0);
	if (!ret)
		ret = add_point(ps, c, M_P99, l->p99, NAN, NAN, NULL, 0);
	if (!ret)
		ret = add_point(ps, c, M_P999, l->p999, NAN, NAN, NULL, 0);
	return ret;
}

static int baseline_points(struct pts *ps, const struct tb_result *r, const struct tb_cell *c)
{
	double *v = NULL, ci[2] = {NAN, NAN}, med;
	size_t n;
	int ret;

	if (tb_stats_measured(c, &v, &n))
		return -ENOMEM;
	if (n)
		tb_stats_median_ci(v, n, r->confidence > 0 ? r->confidence : 0.95, ci);
	med = isfinite(c->summary.median) ? c->summary.median : tb_stats_median(v, n);
	ret = add_point(ps, c, M_NS_PER_OP, n ? med : NAN, ci[0], ci[1], v, n);
	return ret ? ret : latency_points(ps, c);
}

/* Per-sample overhead of the traced cell: % and ns/op against its round's baseline sample
 * (or the baseline's median when the rounds do not pair). */
static int overhead_samples(const struct tb_cellpair *pr, double **pct, double **ns, size_t *n)
{
	double bmed = tb_stats_median(pr->base, pr->nb);

	*n = 0;
	*pct = malloc((pr->nt ? pr->nt : 1) * sizeof(**pct));
	*ns = malloc((pr->nt ? pr->nt : 1) * sizeof(**ns));
	if (!*pct || !*ns) {
		free(*pct);
		free(*ns);
		*pct = *ns = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < pr->nt && pr->nb; i++) {
		double b = pr->paired ? pr->base[i] : bmed;

		if (!(b > 0))
			continue;
		(*pct)[*n] = 100 * (pr->traced[i] / b - 1);
		(*ns)[*n] = pr->traced[i] - b;
		(*n)++;
	}
	return 0;
}

/* Per-sample count or share of the sample's time, over the measured samples. */
static double *per_sample(const struct tb_cell *c, bool cpu, size_t *n)
{
	double *v = malloc((c->nsamples ? c->nsamples : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (!tb_sample_measured(s))
			continue;
		if (cpu && isfinite(s->tracer_cpu_s) && s->elapsed_ns > 0)
			v[(*n)++] = 100 * s->tracer_cpu_s / (s->elapsed_ns / 1e9);
		else if (!cpu && s->lost >= 0)
			v[(*n)++] = (double)s->lost;
	}
	return v;
}

static int lost_and_cpu(struct pts *ps, const struct tb_result *r, const struct tb_cell *c)
{
	size_t n;
	double *v = per_sample(c, false, &n);
	int ret;

	if (!v)
		return -ENOMEM;
	ret = add_point(ps, c, M_EVENTS_LOST, tb_cell_lost(c) >= 0 ? (double)tb_cell_lost(c) : NAN,
			NAN, NAN, v, n);
	if (ret)
		return ret;
	v = per_sample(c, true, &n);
	if (!v)
		return -ENOMEM;
	return add_median_point(ps, r, c, M_TRACER_CPU, v, n);
}

static int traced_points(struct pts *ps, const struct tb_result *r, const struct tb_cell *c)
{
	const struct tb_cell *b = tb_result_baseline(r, c);
	const struct tb_overhead *o = &c->overhead;
	double *pct = NULL, *ns = NULL, *nse = NULL;
	struct tb_cellpair pr = {0};
	size_t n = 0, before;
	int ret = -ENOMEM;

	if (!b || !c->has_overhead)
		return lost_and_cpu(ps, r, c);
	if (tb_stats_cellpair(b, c, &pr) || overhead_samples(&pr, &pct, &ns, &n))
		goto out;
	if (isfinite(o->events_per_op) && o->events_per_op > 0) {
		nse = malloc((n ? n : 1) * sizeof(*nse));
		if (!nse)
			goto out;
		for (size_t i = 0; i < n; i++)
			nse[i] = ns[i] / o->events_per_op;
	}
	ret = add_point(ps, c, M_OVERHEAD_PCT, o->pct, o->ci_lo, o->ci_hi, pct, n);
	pct = NULL;
	before = ps->out->n;
	if (!ret)
		ret = add_point(ps, c, M_OVERHEAD_NS, o->ns_per_op, o->ns_ci_lo, o->ns_ci_hi, ns,
				n);
	ns = NULL;
	if (!ret && ps->out->n > before)
		ps->out->p[ps->out->n - 1].scale = b->summary.median;
	if (!ret)
		ret = add_point(ps, c, M_NS_PER_EVENT, o->ns_per_event, o->nse_ci_lo, o->nse_ci_hi,
				nse, nse ? n : 0);
	nse = NULL;
	if (!ret)
		ret = lost_and_cpu(ps, r, c);
	if (!ret)
		ret = latency_points(ps, c);
out:
	free(pct);
	free(ns);
	free(nse);
	tb_stats_cellpair_free(&pr);
	return ret;
}

/* A service cell's throughput, p50 and p99: each the median of its samples' with its CI. */
static int service_points(struct pts *ps, const struct tb_result *r, const struct tb_cell *c)
{
	int ret = 0;

	for (int m = 0; !ret && c->service.present && m < TB_STATS_SVC_N; m++) {
		double *v;
		size_t n;

		if (tb_stats_service_values(c, (enum tb_stats_svc)m, &v, &n))
			return -ENOMEM;
		ret = add_median_point(ps, r, c, M_SVC + m, v, n);
	}
	return ret;
}

bool tb_hpoint_of_sweep(const struct tb_sweep *sw, struct tb_hpoint *pt)
{
	bool wl = sw->kind && !strcmp(sw->kind, "workload");

	if (!sw->section || !sw->against || !isfinite(sw->fit.cost_ns))
		return false;
	memset(pt, 0, sizeof(*pt));
	pt->cell = sw->section;
	pt->workload = wl ? sw->section : sw->against;
	pt->tracer = wl ? sw->against : sw->section;
	pt->metric = &tb_hmetrics[M_SWEEP_SLOPE];
	pt->value = sw->fit.cost_ns;
	pt->ci_lo = isfinite(sw->fit.cost_ci_lo) ? sw->fit.cost_ci_lo : NAN;
	pt->ci_hi = isfinite(sw->fit.cost_ci_hi) ? sw->fit.cost_ci_hi : NAN;
	pt->scale = NAN;
	return true;
}

/* Each sweep's accepted line: its slope with its CI (tb_hpoint_of_sweep's series). */
static int sweep_points(struct pts *ps, const struct tb_result *r)
{
	struct tb_hpoint *p, sp;
	int ret = 0;

	for (size_t i = 0; !ret && i < r->nsweeps; i++) {
		if (!r->sweeps[i].fit.accepted || !tb_hpoint_of_sweep(&r->sweeps[i], &sp))
			continue;
		ret = append(ps, sp.cell, sp.workload, sp.tracer, M_SWEEP_SLOPE, sp.value, sp.ci_lo,
			     sp.ci_hi, NULL, 0, &p);
	}
	return ret;
}

void tb_hpoints_free(struct tb_hpoints *pts)
{
	for (size_t i = 0; pts && i < pts->n; i++)
		free(pts->p[i].samples);
	if (pts)
		free(pts->p);
	if (pts)
		memset(pts, 0, sizeof(*pts));
}

int tb_hpoints_of_result(const struct tb_result *r, struct tb_hpoints *out)
{
	struct pts ps = {.out = out};
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !ret && i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->error || !c->id || !c->workload || !c->tracer || !tb_cell_nmeasured(c))
			continue;
		ret = c->baseline ? baseline_points(&ps, r, c) : traced_points(&ps, r, c);
		if (!ret)
			ret = service_points(&ps, r, c);
	}
	if (!ret)
		ret = sweep_points(&ps, r);
	if (ret)
		tb_hpoints_free(out);
	return ret;
}

/* ---- per-sample values as text -------------------------------------------------------------- */

char *tb_hsamples_text(const double *v, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('[', f);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%.10g", i ? "," : "", isfinite(v[i]) ? v[i] : 0.0);
	fputc(']', f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int tb_hsamples_parse(const char *text, double **v, size_t *n)
{
	const char *p = text;
	size_t cap = 0;
	double *a = NULL;

	*v = NULL;
	*n = 0;
	if (!text)
		return 0;
	while (isspace((unsigned char)*p))
		p++;
	if (*p++ != '[')
		return -EINVAL;
	for (;;) {
		char *end;
		double d;

		while (isspace((unsigned char)*p))
			p++;
		if (*p == ']' && !*n)
			break;
		d = strtod(p, &end);
		if (end == p || !isfinite(d) || fabs(d) > TB_RESULT_MAX_VALUE)
			goto bad;
		if (*n == cap) {
			double *grown = realloc(a, (cap = cap ? 2 * cap : 16) * sizeof(*a));

			if (!grown) {
				free(a);
				return -ENOMEM;
			}
			a = grown;
		}
		a[(*n)++] = d;
		p = end;
		while (isspace((unsigned char)*p))
			p++;
		if (*p == ']')
			break;
		if (*p++ != ',')
			goto bad;
	}
	*v = a;
	return 0;
bad:
	free(a);
	*n = 0;
	return -EINVAL;
}

/* ---- series names ---------------------------------------------------------------------------- */

int tb_hseries_name(struct tb_hseries *s)
{
	char *key = NULL, hex[65];

	free(s->name);
	s->name = NULL;
	s->metric = tb_hmetric_find(s->metric_name);
	if (asprintf(&s->name, "%s/%s/%s/%s", s->scenario, s->workload, s->tracer, s->metric_name) <
	    0) {
		s->name = NULL;
		return -ENOMEM;
	}
	if (asprintf(&key, "%s\n%s\n%s\n%s\n%s\n%s", s->scenario, s->variant ? s->variant : "*",
		     s->hw_class, s->workload, s->tracer, s->metric_name) < 0)
		return -ENOMEM;
	if (tb_sha256_hex(key, strlen(key), hex)) {
		free(key);
		return -ENOMEM;
	}
	free(key);
	memcpy(s->id, hex, 12);
	s->id[12] = '\0';
	return 0;
}

void tb_hseries_free_fields(struct tb_hseries *s)
{
	free(s->scenario);
	free(s->workload);
	free(s->tracer);
	free(s->metric_name);
	free(s->variant);
	free(s->hw_class);
	free(s->hw_desc);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

bool tb_hseries_match(const struct tb_hseries *s, const char *pattern)
{
	size_t n = strlen(pattern);

	if (n >= 4 && n <= 12 && strspn(pattern, "0123456789abcdef") == n &&
	    !strncmp(s->id, pattern, n))
		return true;
	return s->name && !fnmatch(pattern, s->name, 0);
}
