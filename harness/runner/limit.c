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

/* The chain's knobs of one cell (plan/limit.h): their options (NULL: threads, a harness key). */
struct chain {
	struct tb_plan_knob k[TB_LIMIT_MAX_KNOBS];
	const struct tb_option *opt[TB_LIMIT_MAX_KNOBS];
	size_t n;
	char threads_why[200]; /* why threads is not in it ("": it is, or has no say) */
};

/* One search: the cell's sections, its options and their values before it. */
struct search {
	struct tb_runner *rn; /* the run's */
	const struct tb_runner_limit_req *req;
	size_t wl, tr, base; /* scenario indices of the workload, tracer and baseline sections */
	struct chain ch;
	double knob0[TB_LIMIT_MAX_KNOBS]; /* the section's values */
	const struct tb_option *buf;
	double buf0;
	size_t knob; /* the chain's knob a probe is said by (the stage's) */
	struct tb_limit *l;
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

static double knob_max(const struct tb_option *o)
{
	return o->max > o->min ? o->max : 1e9;
}

/* ---- which cells ---------------------------------------------------------------------------- */

/* CPUs the plan gives the workload's threads, each of its own, none the consumer's; why not more
 * than one into why. */
static unsigned int thread_cpus(const struct tb_plan *p, size_t wl, char *why, size_t len)
{
	const struct tb_plan_workload *pw = &p->wls[wl];
	char list[64] = "";
	size_t n = 0, at = 0;

	if (!pw->ncpus) {
		snprintf(
			why, len,
			"cpus = none leaves the threads unpinned: another thread may share a CPU with the first or the consumer and add no rate");
		return 0;
	}
	for (size_t i = 0; i < pw->ncpus; i++) {
		n += pw->cpus[i] != p->consumer_cpu;
		if (at < sizeof(list))
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%d", i ? "," : "",
					       pw->cpus[i]);
	}
	if (p->consumer_cpu < 0 && n)
		n--; /* one left to the consumer, which has no CPU of its own */
	if (n < 2) {
		const struct tb_strlist *c = &p->s->cpus;
		const char *how = !c->n || (c->n == 1 && !strcmp(c->v[0], "auto"))
					  ? "cpus = auto"
					  : "[global] cpus";

		if (p->consumer_cpu >= 0)
			snprintf(
				why, len,
				"no CPU left for another thread: the workload is pinned to CPU %s (%s) and CPU %d is the tracer consumer's",
				list, how, p->consumer_cpu);
		else
			snprintf(
				why, len,
				"no CPU left for another thread: the workload is pinned to CPU %s (%s) and the tracer's consumer needs one of them",
				list, how);
	}
	return (unsigned int)n;
}

/*
 * The chain of plan cell pc's workload, in its order: work (less is more rate), calls per op
 * (more), threads (more, while each has a CPU of its own: METHODOLOGY.md "Saturation by
 * bisection"). Each from the section's value; work = 0 starts at TB_LIMIT_START_WORK.
 */
static void chain_of(const struct tb_plan *p, const struct tb_plan_cell *pc, struct chain *ch)
{
	const struct tb_scn_workload *w = &p->s->workloads[pc->wl];
	const struct tb_option *o;
	unsigned int cpus;

	memset(ch, 0, sizeof(*ch));
	if (int_opt(o = tb_opts_find(w->ops->opts, TB_LIMIT_KNOB))) {
		double v = opt_get(o, w->cfg);

		ch->opt[ch->n] = o;
		ch->k[ch->n++] = (struct tb_plan_knob){o->name, v > 0 ? v : TB_LIMIT_START_WORK,
						       o->min, knob_max(o), true};
	}
	if (int_opt(o = tb_opts_find(w->ops->opts, TB_LIMIT_CALLS))) {
		ch->opt[ch->n] = o;
		ch->k[ch->n++] = (struct tb_plan_knob){o->name, opt_get(o, w->cfg),
						       o->min > 1 ? o->min : 1, knob_max(o), false};
	}
	if (w->ops->flags & (TB_WL_ONESHOT | TB_WL_COUNTED)) {
		snprintf(ch->threads_why, sizeof(ch->threads_why),
			 "a %s op is a program's or a server's, not a thread's of its own",
			 w->ops->name);
		return;
	}
	cpus = thread_cpus(p, pc->wl, ch->threads_why, sizeof(ch->threads_why));
	if (cpus > w->threads)
		ch->k[ch->n++] = (struct tb_plan_knob){"threads", w->threads, 1, cpus, false};
	else if (!ch->threads_why[0])
		snprintf(ch->threads_why, sizeof(ch->threads_why),
			 "the section's %u threads already take the %u CPUs there are for them",
			 w->threads, cpus);
}

/* Why cell c (plan cell pc) cannot be searched, or NULL; the buffer option into *buf. */
static const char *why_not(const struct tb_plan *p, const struct tb_plan_cell *pc,
			   const struct tb_option **buf, char *why, size_t len)
{
	const struct tb_scn_workload *w = &p->s->workloads[pc->wl];
	const struct tb_scn_tracer *t = &p->s->tracers[pc->tr];
	struct chain ch;
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
	else if (chain_of(p, pc, &ch), !ch.n)
		snprintf(
			why, len,
			"workload [%s] (%s) has no knob to raise the event rate ('%s' after each op, '%s' per op), and threads cannot: %s",
			w->name, w->ops->name, TB_LIMIT_KNOB, TB_LIMIT_CALLS, ch.threads_why);
	else
		return NULL;
	return why;
}

int tb_runner_limit_check(const struct tb_plan *p, const struct tb_result *r)
{
	const struct tb_option *buf;
	size_t i, ok = 0, traced = 0;
	char why[400];

	for (i = 0; i < p->ncells; i++) {
		traced += !r->cells[p->cells[i].cell].baseline;
		ok += !r->cells[p->cells[i].cell].baseline &&
		      !why_not(p, &p->cells[i], &buf, why, sizeof(why));
	}
	for (i = 0; i < p->ncells; i++) {
		const struct tb_cell *c = &r->cells[p->cells[i].cell];

		if (c->baseline || !why_not(p, &p->cells[i], &buf, why, sizeof(why)))
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
	char why[400];

	*ncells = 0;
	for (size_t i = 0; i < p->ncells; i++)
		*ncells += !r->cells[p->cells[i].cell].baseline &&
			   !why_not(p, &p->cells[i], &buf, why, sizeof(why));
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

/* Knob i of x's chain at v, in the workload section (threads: its harness key). */
static int knob_put(struct search *x, size_t i, double v)
{
	struct tb_scn_workload *w = &x->rn->plan->s->workloads[x->wl];

	if (!x->ch.opt[i]) {
		w->threads = (unsigned int)v;
		return 0;
	}
	return opt_put(w->name, w->ops->opts, w->cfg, w->ops->validate, x->ch.opt[i], v);
}

/* Knob i at v as the scenario writes it. */
static void knob_text(const struct search *x, size_t i, double v, char *buf, size_t len)
{
	if (x->ch.opt[i])
		opt_text(x->ch.opt[i], v, buf, len);
	else
		snprintf(buf, len, "%.0f", v);
}

/* Every knob of the chain at 'at' into p: the setting, and the stage's knob and its value. */
static int name_probe(struct search *x, struct tb_limit_probe *p, const double *at)
{
	char text[32], setting[160] = "";
	size_t len = 0;

	for (size_t i = 0; i < x->ch.n && len < sizeof(setting); i++) {
		knob_text(x, i, at[i], text, sizeof(text));
		len += (size_t)snprintf(setting + len, sizeof(setting) - len, "%s%s = %s",
					i ? ", " : "", x->ch.k[i].name, text);
	}
	knob_text(x, x->knob, at[x->knob], text, sizeof(text));
	p->knob = strdup(x->ch.k[x->knob].name);
	p->knob_value = strdup(text);
	p->setting = strdup(setting);
	return p->knob && p->knob_value && p->setting ? 0 : -ENOMEM;
}

/* The traced cell of a probe's result into a new probe of x's search. 0 or -ENOMEM. */
static int keep(struct search *x, const struct tb_result *r, const double *at, double buffer)
{
	struct tb_limit_probe *p = tb_limit_add_probe(x->l);
	struct tb_sweep_point pt = {
		.events_per_s = NAN, .lost = -1, .lost_share = NAN, .tracer_cpu = NAN};
	const struct tb_cell *c = NULL;
	char text[32];

	for (size_t i = 0; i < r->ncells; i++)
		if (!r->cells[i].baseline)
			c = &r->cells[i];
	if (!p || name_probe(x, p, at))
		return -ENOMEM;
	opt_text(x->buf, buffer, text, sizeof(text));
	p->buffer = strdup(text);
	if (!p->buffer)
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
	if (x->req->on_probe)
		x->req->on_probe(x->req->ctx, x->l, p);
	return 0;
}

/*
 * The cell at the setting 'at' and buffer, run as a plan of its own (the cell and its
 * baseline) and kept as a probe. Long because it is the run in small: sections set, plan,
 * scratch directories, runner, analysis, and everything undone on every path.
 */
static int probe(struct search *x, const double *at, double buffer)
{
	struct tb_scenario *s = x->rn->plan->s;
	struct tb_scn_tracer *t = &s->tracers[x->tr];
	size_t *mw = s->mx_workloads, *mt = s->mx_tracers, nmw = s->nmx_workloads,
	       nmt = s->nmx_tracers;
	size_t one_w[1] = {x->wl}, two_t[2] = {x->base, x->tr};
	struct tb_result *r = tb_result_new();
	struct tb_plan plan = {0};
	struct tb_runner rn = {0};
	char scratch[64] = "";
	int ret = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < x->ch.n && !ret; i++)
		ret = knob_put(x, i, at[i]);
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
		ret = tb_runner_run(&rn, (uint64_t)s->seed + 1 + x->l->nprobes);
	if (!ret) {
		tb_result_update_totals(r);
		ret = tb_stats_analyze(r);
	}
	if (!ret)
		ret = keep(x, r, at, buffer);
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

/*
 * Along the chain at the section's buffer (plan/limit.h): the rate search until a loss is
 * bracketed, or the buffer search's first step until a setting offers at least its target,
 * which goes into at (false into *reached when none did). Why the chain ended short of a
 * bracket goes to the limit's knob_note.
 */
static int search_chain(struct search *x, double *at, bool *reached)
{
	struct tb_plan_chain c;
	size_t len;
	int ret;

	tb_plan_chain_init(&c, x->ch.k, x->ch.n, x->req->target, TB_LIMIT_RESOLUTION);
	while (tb_plan_chain_next(&c)) {
		const struct tb_limit_probe *p;

		if (tb_stop_requested())
			return -EINTR;
		x->knob = c.stage;
		ret = probe(x, c.at, x->buf0);
		if (ret)
			return ret;
		p = &x->l->probes[x->l->nprobes - 1];
		if (!isfinite(p->events_per_s) || p->lost < 0) {
			tb_warn("find-limit: %s: the probe at %s counted no events: the search stops",
				x->l->cell, p->setting);
			break;
		}
		tb_plan_chain_record(&c, p->events_per_s, p->lost > 0);
	}
	x->knob = c.stage;
	*reached = tb_plan_chain_reached(&c, at);
	free(x->l->knob);
	x->l->knob = strdup(x->ch.k[c.stage].name);
	snprintf(x->l->knob_note, sizeof(x->l->knob_note), "%s", c.why);
	len = strlen(x->l->knob_note);
	if (!c.found && x->ch.threads_why[0] && len < sizeof(x->l->knob_note))
		snprintf(x->l->knob_note + len, sizeof(x->l->knob_note) - len, "%sthreads: %s",
			 len ? "; " : "", x->ch.threads_why);
	return x->l->knob ? 0 : -ENOMEM;
}

static double pow2_at_least(double v)
{
	return exp2(ceil(log2(fmax(v, 1))));
}

/* Over the buffer at the setting 'at', in powers of two within the option's range: "held". */
static int search_buffer(struct search *x, const double *at)
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
		ret = probe(x, at, v);
		if (ret)
			return ret;
		p = &x->l->probes[x->l->nprobes - 1];
		if (p->lost < 0)
			break;
		tb_plan_bisect_record(&b, v, !p->lost);
	}
	return 0;
}

/* The chain's knob names into the limit's knobs. 0 or -ENOMEM. */
static int name_knobs(struct search *x)
{
	x->l->knobs = json_array();
	for (size_t i = 0; x->l->knobs && i < x->ch.n; i++)
		if (json_array_append_new(x->l->knobs, json_string(x->ch.k[i].name)))
			return -ENOMEM;
	return x->l->knobs ? 0 : -ENOMEM;
}

/* The search of plan cell pc into a new limit of rn->r. */
static int search_cell(struct tb_runner *rn, const struct tb_runner_limit_req *req,
		       const struct tb_plan_cell *pc, const struct tb_option *buf)
{
	struct tb_scenario *s = rn->plan->s;
	struct tb_scn_workload *w = &s->workloads[pc->wl];
	struct tb_scn_tracer *t = &s->tracers[pc->tr];
	struct search *x = calloc(1, sizeof(*x));
	double at[TB_LIMIT_MAX_KNOBS];
	bool reached = false;
	char text[32];
	int ret, undo = 0;

	if (!x)
		return -ENOMEM;
	*x = (struct search){.rn = rn,
			     .req = req,
			     .wl = pc->wl,
			     .tr = pc->tr,
			     .buf = buf,
			     .base = s->mx_tracers[0]};
	chain_of(rn->plan, pc, &x->ch);
	for (size_t i = 0; i < x->ch.n; i++)
		x->knob0[i] = x->ch.opt[i] ? opt_get(x->ch.opt[i], w->cfg) : w->threads;
	x->buf0 = opt_get(buf, t->cfg);
	x->l = tb_result_add_limit(rn->r);
	ret = x->l ? 0 : -ENOMEM;
	if (!ret) {
		x->l->kind = strdup(isnan(req->target) ? "rate" : "buffer");
		x->l->cell = strdup(rn->r->cells[pc->cell].id);
		x->l->workload = strdup(w->name);
		x->l->tracer = strdup(t->name);
		x->l->knob = strdup(x->ch.k[0].name);
		x->l->buffer_key = strdup(buf->name);
		opt_text(buf, x->buf0, text, sizeof(text));
		x->l->buffer = strdup(text);
		x->l->target = req->target;
		x->l->resolution = TB_LIMIT_RESOLUTION;
		if (!x->l->kind || !x->l->cell || !x->l->workload || !x->l->tracer || !x->l->knob ||
		    !x->l->buffer_key || !x->l->buffer || name_knobs(x))
			ret = -ENOMEM;
	}
	if (!ret)
		ret = search_chain(x, at, &reached);
	if (!ret && !isnan(req->target) && reached)
		ret = search_buffer(x, at);
	/* the sections as the scenario had them, whatever happened */
	for (size_t i = 0; i < x->ch.n; i++) {
		if (x->ch.opt[i])
			undo |= opt_put(w->name, w->ops->opts, w->cfg, NULL, x->ch.opt[i],
					x->knob0[i]);
		else
			w->threads = (unsigned int)x->knob0[i];
	}
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
	char why[400];
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

		if (!rn->r->cells[pc->cell].baseline &&
		    !why_not(rn->plan, pc, &buf, why, sizeof(why)))
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
