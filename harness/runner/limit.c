// SPDX-License-Identifier: GPL-2.0
/*
 * `run --find-limit` (limit.h): the searches and their probes. A probe is the run in small:
 * the scenario's sections with the knob and the buffer set, a plan of the cell and its
 * baseline, TB_LIMIT_ROUNDS measured rounds through tb_runner_run, the result analysed (the
 * proof judged), and the traced cell's offered rate, loss and tracer CPU kept as the probe.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "model/proof.h"
#include "plan/limit.h"
#include "runner/limit.h"
#include "runner/rundir.h"
#include "runner/runner.h"
#include "stats/stats.h"
#include "stats/sweep.h"

/* One search: the cell's sections, its two options and their values before it. */
struct search {
	struct tb_runner *rn; /* the run's */
	const struct tb_runner_limit_req *req;
	size_t wl, tr, base; /* scenario indices of the workload, tracer and baseline sections */
	const struct tb_option *knob, *buf;
	double knob0, buf0;
	struct tb_limit *l;
	/* what the probes measured, by probe: the value probed and its offered rate */
	double v[TB_LIMIT_MAX_PROBES * 2], rate[TB_LIMIT_MAX_PROBES * 2];
	size_t n;
};

/* ---- options as numbers ----------------------------------------------------------------- */

static double opt_get(const struct tb_option *o, const void *cfg)
{
	const char *at = (const char *)cfg + o->offset;
	uint64_t u;
	int64_t i;

	if (o->type == TB_OPT_SIZE) {
		memcpy(&u, at, sizeof(u));
		return (double)u;
	}
	memcpy(&i, at, sizeof(i));
	return (double)i;
}

/* v as the scenario would write it: a size in its largest exact unit, else an integer. */
static void opt_text(const struct tb_option *o, double v, char *buf, size_t len)
{
	static const char units[] = "GMK";
	uint64_t u = (uint64_t)v;

	for (int k = 0; o->type == TB_OPT_SIZE && u && k < 3; k++) {
		uint64_t unit = 1ull << (10 * (3 - k));

		if (u % unit == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(u / unit), units[k]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)u);
}

/* Key o of a section (ops opts, cfg, validate) to v, checked as the parser checks it. */
static int opt_put(const char *section, const struct tb_option *opts, void *cfg,
		   int (*validate)(const void *, char *, size_t), const struct tb_option *o,
		   double v)
{
	char val[32], err[256];
	int ret;

	opt_text(o, v, val, sizeof(val));
	ret = tb_opts_set(opts, cfg, o->name, val, err, sizeof(err));
	if (!ret && validate)
		ret = validate(cfg, err, sizeof(err));
	if (ret)
		tb_err("find-limit: [%s] %s = %s: %s", section, o->name, val, err);
	return ret ? -EINVAL : 0;
}

static bool int_opt(const struct tb_option *o)
{
	return o && (o->type == TB_OPT_INT || o->type == TB_OPT_SIZE);
}

/* ---- which cells ---------------------------------------------------------------------------- */

/* Why cell c (plan cell pc) cannot be searched, or NULL; the buffer option into *buf. */
static const char *why_not(const struct tb_scenario *s, const struct tb_plan_cell *pc,
			   const struct tb_option **buf, char *why, size_t len)
{
	const struct tb_scn_workload *w = &s->workloads[pc->wl];
	const struct tb_scn_tracer *t = &s->tracers[pc->tr];
	const char *key;

	if (t->ops->flags & TB_TR_NOEVENTS)
		snprintf(why, len, "a %s tracer counts no events, so it cannot lose any",
			 t->ops->name);
	else if (!t->ops->buffer_key)
		snprintf(why, len, "a %s tracer has no buffer knob whose size decides its loss",
			 t->ops->name);
	else if (!(key = t->ops->buffer_key(t->cfg)))
		snprintf(
			why, len,
			"this %s configuration loses no events in a buffer (it counts in maps or counters)",
			t->ops->name);
	else if (!int_opt(*buf = tb_opts_find(t->ops->opts, key)))
		snprintf(why, len, "its buffer option %s is not a size", key);
	else if (!(opt_get(*buf, t->cfg) > 0))
		snprintf(
			why, len,
			"%s = auto sizes the buffer for the rate: set a size (e.g. %s = 64K) to find the rate it holds",
			key, key);
	else if (!int_opt(tb_opts_find(w->ops->opts, TB_LIMIT_KNOB)))
		snprintf(
			why, len,
			"workload [%s] (%s) has no knob to raise the event rate ('%s' after each op)",
			w->name, w->ops->name, TB_LIMIT_KNOB);
	else
		return NULL;
	return why;
}

int tb_runner_limit_check(const struct tb_plan *p, const struct tb_result *r)
{
	const struct tb_option *buf;
	size_t i, ok = 0, traced = 0;
	char why[256];

	for (i = 0; i < p->ncells; i++) {
		traced += !r->cells[p->cells[i].cell].baseline;
		ok += !r->cells[p->cells[i].cell].baseline &&
		      !why_not(p->s, &p->cells[i], &buf, why, sizeof(why));
	}
	for (i = 0; i < p->ncells; i++) {
		const struct tb_cell *c = &r->cells[p->cells[i].cell];

		if (c->baseline || !why_not(p->s, &p->cells[i], &buf, why, sizeof(why)))
			continue;
		if (ok)
			tb_warn("find-limit: %s is not searched: %s", c->id, why);
		else
			tb_err("find-limit: %s: %s", c->id, why);
	}
	if (!traced)
		tb_err("find-limit: %s has no traced cell to search", p->s->path);
	return ok ? 0 : -EINVAL;
}

double tb_runner_limit_estimate_s(const struct tb_plan *p, const struct tb_result *r, bool buffer,
				  size_t *ncells)
{
	const struct tb_option *buf;
	struct tb_plan_estimate e;
	double probe_s;
	char why[256];

	*ncells = 0;
	for (size_t i = 0; i < p->ncells; i++)
		*ncells += !r->cells[p->cells[i].cell].baseline &&
			   !why_not(p->s, &p->cells[i], &buf, why, sizeof(why));
	tb_plan_estimate(p, &e);
	probe_s = TB_PLAN_CALIB_S +
		  2.0 * TB_LIMIT_ROUNDS * (e.nsamples ? (e.total_s - e.calib_s) / e.nsamples : 0);
	return (double)*ncells * TB_LIMIT_TYPICAL_PROBES * (buffer ? 2 : 1) * probe_s;
}

/* ---- one probe --------------------------------------------------------------------------- */

/* The probe's settings from the run's result: what the analysis of its cells uses. */
static void settings(struct tb_result *to, const struct tb_result *from,
		     const struct tb_scenario *s)
{
	to->alpha = from->alpha;
	to->power = from->power;
	to->confidence = from->confidence;
	to->noise_threshold = from->noise_threshold;
	to->max_cv = from->max_cv;
	to->resamples = from->resamples;
	to->duration_ns = s->duration_ns;
}

/* The traced cell of a probe's result into a new probe of x's search. 0 or -ENOMEM. */
static int keep(struct search *x, const struct tb_result *r, double knob, double buffer)
{
	struct tb_limit_probe *p = tb_limit_add_probe(x->l);
	struct tb_sweep_point pt = {
		.events_per_s = NAN, .lost = -1, .lost_share = NAN, .tracer_cpu = NAN};
	const struct tb_cell *c = NULL;
	char text[32];

	for (size_t i = 0; i < r->ncells; i++)
		if (!r->cells[i].baseline)
			c = &r->cells[i];
	if (!p)
		return -ENOMEM;
	opt_text(x->knob, knob, text, sizeof(text));
	p->knob_value = strdup(text);
	opt_text(x->buf, buffer, text, sizeof(text));
	p->buffer = strdup(text);
	if (!p->knob_value || !p->buffer)
		return -ENOMEM;
	p->buffer_x = buffer;
	if (c) {
		tb_stats_offered(c, &pt);
		p->events = c->events_recorded;
		snprintf(p->proof, sizeof(p->proof), "%s", tb_proof_outcome_name(c->proof.outcome));
	}
	p->events_per_s = pt.events_per_s;
	p->lost = pt.lost;
	p->lost_share = pt.lost_share;
	p->tracer_cpu = pt.tracer_cpu;
	if (x->n < sizeof(x->v) / sizeof(x->v[0])) {
		x->v[x->n] = knob;
		x->rate[x->n++] = p->events_per_s;
	}
	if (x->req->on_probe)
		x->req->on_probe(x->req->ctx, x->l, p);
	return 0;
}

/*
 * The cell at knob and buffer, run as a plan of its own (the cell and its baseline) and
 * kept as a probe. Long because it is the run in small: sections set, plan, scratch
 * directories, runner, analysis, and everything undone on every path.
 */
static int probe(struct search *x, double knob, double buffer)
{
	struct tb_scenario *s = x->rn->plan->s;
	struct tb_scn_workload *w = &s->workloads[x->wl];
	struct tb_scn_tracer *t = &s->tracers[x->tr];
	size_t *mw = s->mx_workloads, *mt = s->mx_tracers, nmw = s->nmx_workloads,
	       nmt = s->nmx_tracers;
	size_t one_w[1] = {x->wl}, two_t[2] = {x->base, x->tr};
	struct tb_result *r = tb_result_new();
	struct tb_plan plan = {0};
	struct tb_runner rn = {0};
	char scratch[64] = "";
	int ret;

	if (!r)
		return -ENOMEM;
	ret = opt_put(w->name, w->ops->opts, w->cfg, w->ops->validate, x->knob, knob);
	if (!ret)
		ret = opt_put(t->name, t->ops->opts, t->cfg, t->ops->validate, x->buf, buffer);
	s->mx_workloads = one_w;
	s->nmx_workloads = 1;
	s->mx_tracers = two_t;
	s->nmx_tracers = 2;
	settings(r, x->rn->r, s);
	if (!ret)
		ret = tb_plan_build(s, r, &plan);
	if (!ret)
		ret = tb_scratch_create(&plan, scratch, sizeof(scratch));
	rn.plan = &plan;
	rn.r = r;
	rn.dir = x->rn->dir;
	if (!ret)
		ret = tb_runner_run(&rn, (uint64_t)s->seed + 1 + x->n);
	if (!ret) {
		tb_result_update_totals(r);
		ret = tb_stats_analyze(r);
	}
	if (!ret)
		ret = keep(x, r, knob, buffer);
	s->mx_workloads = mw;
	s->nmx_workloads = nmw;
	s->mx_tracers = mt;
	s->nmx_tracers = nmt;
	tb_scratch_remove(scratch);
	tb_runner_free(&rn);
	tb_plan_free(&plan);
	tb_result_free(r);
	return ret;
}

/* ---- the searches ------------------------------------------------------------------------- */

/* The rate the probe at v measured (the last such probe), NAN when none did. */
static double rate_at(const struct search *x, double v)
{
	double rate = NAN;

	for (size_t i = 0; i < x->n; i++)
		if (x->v[i] == v)
			rate = x->rate[i];
	return rate;
}

/* The bracket over the knob is fine enough (plan/limit.h): from the rates at its ends. */
static bool fine(const struct search *x, const struct tb_plan_bisect *b)
{
	return tb_plan_bisect_fine(b, rate_at(x, b->yes), rate_at(x, b->no), TB_LIMIT_RESOLUTION);
}

static double knob_max(const struct tb_option *o)
{
	return o->max > o->min ? o->max : 1e9;
}

/*
 * Over the knob at the section's buffer: the predicate is "held" (no loss) for the rate
 * search, "below the target" for the buffer search's first step; a larger knob is a slower
 * rate, so both are true from some knob on. The knob that offered at least the target into
 * *at (NAN: none did).
 */
static int search_knob(struct search *x, bool to_target, double *at)
{
	const double target = x->req->target;
	struct tb_plan_bisect b;
	double v;
	int ret;

	tb_plan_bisect_init(&b, x->knob0 > 0 ? x->knob0 : TB_LIMIT_START_WORK, 0, knob_max(x->knob),
			    false);
	while (tb_plan_bisect_next(&b, &v)) {
		const struct tb_limit_probe *p;

		if (tb_stop_requested())
			return -EINTR;
		ret = probe(x, v, x->buf0);
		if (ret)
			return ret;
		p = &x->l->probes[x->l->nprobes - 1];
		if (!isfinite(p->events_per_s) || p->lost < 0) {
			tb_warn("find-limit: %s: the probe at %s = %s counted no events: the search stops",
				x->l->cell, x->knob->name, p->knob_value);
			break;
		}
		tb_plan_bisect_record(&b, v, to_target ? p->events_per_s < target : !p->lost);
		if (to_target && p->events_per_s >= target &&
		    p->events_per_s <= target * (1 + TB_LIMIT_RESOLUTION))
			b.done = true;
		if (fine(x, &b))
			b.done = true;
	}
	*at = b.no;
	if (to_target && !isnan(b.no) && !(rate_at(x, b.no) >= target))
		*at = NAN;
	return 0;
}

static double pow2_at_least(double v)
{
	return exp2(ceil(log2(fmax(v, 1))));
}

/* Over the buffer at knob, in powers of two within the option's range: "held" (no loss). */
static int search_buffer(struct search *x, double knob)
{
	double lo = x->buf->max > x->buf->min ? fmax(x->buf->min, 1) : 1;
	double hi = x->buf->max > x->buf->min ? x->buf->max : 1e12, v;
	struct tb_plan_bisect b;
	int ret;

	tb_plan_bisect_init(&b, fmin(pow2_at_least(x->buf0), hi), pow2_at_least(lo), hi, true);
	while (tb_plan_bisect_next(&b, &v)) {
		const struct tb_limit_probe *p;

		if (tb_stop_requested())
			return -EINTR;
		ret = probe(x, knob, v);
		if (ret)
			return ret;
		p = &x->l->probes[x->l->nprobes - 1];
		if (p->lost < 0)
			break;
		tb_plan_bisect_record(&b, v, !p->lost);
	}
	return 0;
}

/* The search of plan cell pc into a new limit of rn->r. */
static int search_cell(struct tb_runner *rn, const struct tb_runner_limit_req *req,
		       const struct tb_plan_cell *pc, const struct tb_option *buf)
{
	struct tb_scenario *s = rn->plan->s;
	struct tb_scn_workload *w = &s->workloads[pc->wl];
	struct tb_scn_tracer *t = &s->tracers[pc->tr];
	struct search *x = calloc(1, sizeof(*x));
	char text[32];
	double at;
	int ret, undo;

	if (!x)
		return -ENOMEM;
	*x = (struct search){.rn = rn,
			     .req = req,
			     .wl = pc->wl,
			     .tr = pc->tr,
			     .buf = buf,
			     .base = s->mx_tracers[0]};
	x->knob = tb_opts_find(w->ops->opts, TB_LIMIT_KNOB);
	x->knob0 = opt_get(x->knob, w->cfg);
	x->buf0 = opt_get(buf, t->cfg);
	x->l = tb_result_add_limit(rn->r);
	ret = x->l ? 0 : -ENOMEM;
	if (!ret) {
		x->l->kind = strdup(isnan(req->target) ? "rate" : "buffer");
		x->l->cell = strdup(rn->r->cells[pc->cell].id);
		x->l->workload = strdup(w->name);
		x->l->tracer = strdup(t->name);
		x->l->knob = strdup(x->knob->name);
		x->l->buffer_key = strdup(buf->name);
		opt_text(buf, x->buf0, text, sizeof(text));
		x->l->buffer = strdup(text);
		x->l->target = req->target;
		x->l->resolution = TB_LIMIT_RESOLUTION;
		if (!x->l->kind || !x->l->cell || !x->l->workload || !x->l->tracer || !x->l->knob ||
		    !x->l->buffer_key || !x->l->buffer)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = search_knob(x, !isnan(req->target), &at);
	if (!ret && !isnan(req->target) && !isnan(at))
		ret = search_buffer(x, at);
	/* the sections as the scenario had them, whatever happened */
	undo = opt_put(w->name, w->ops->opts, w->cfg, NULL, x->knob, x->knob0);
	undo |= opt_put(t->name, t->ops->opts, t->cfg, NULL, buf, x->buf0);
	free(x);
	return ret ? ret : undo;
}

int tb_runner_limits(struct tb_runner *rn, const struct tb_runner_limit_req *req)
{
	struct tb_scenario *s = rn->plan->s;
	unsigned int rounds = s->rounds, min_rounds = s->min_rounds, warmup = s->warmup;
	double precision = s->precision;
	uint64_t max_time = s->max_time_ns;
	bool aa = s->aa, explain[s->ntracers + 1];
	const struct tb_option *buf;
	char why[256];
	int ret = 0;

	for (size_t i = 0; i < s->ntracers; i++) {
		explain[i] = s->tracers[i].explain;
		s->tracers[i].explain = false;
	}
	s->rounds = s->min_rounds = TB_LIMIT_ROUNDS;
	s->warmup = 0;
	s->precision = 0;
	s->max_time_ns = 0;
	s->aa = false;
	for (size_t i = 0; i < rn->plan->ncells && !ret; i++) {
		const struct tb_plan_cell *pc = &rn->plan->cells[i];

		if (!rn->r->cells[pc->cell].baseline && !why_not(s, pc, &buf, why, sizeof(why)))
			ret = search_cell(rn, req, pc, buf);
	}
	for (size_t i = 0; i < s->ntracers; i++)
		s->tracers[i].explain = explain[i];
	s->rounds = rounds;
	s->min_rounds = min_rounds;
	s->warmup = warmup;
	s->precision = precision;
	s->max_time_ns = max_time;
	s->aa = aa;
	return ret;
}
