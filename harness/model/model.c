// SPDX-License-Identifier: GPL-2.0
/* The result model (result.h): construction, growth and freeing; verdict names. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/explain.h"
#include "model/result.h"

static const char *const verdict_names[] = {
	[TB_VERDICT_NONE] = "",
	[TB_VERDICT_NO_OVERHEAD] = "no-detectable-overhead",
	[TB_VERDICT_OVERHEAD] = "overhead",
	[TB_VERDICT_UNTRUSTWORTHY] = "untrustworthy",
	[TB_VERDICT_FASTER] = "faster-than-baseline",
};

const char *tb_verdict_name(enum tb_verdict v)
{
	if ((unsigned int)v < TB_ARRAY_SIZE(verdict_names))
		return verdict_names[v];
	return "?";
}

int tb_verdict_parse(const char *s, enum tb_verdict *v)
{
	for (size_t i = 0; i < TB_ARRAY_SIZE(verdict_names); i++) {
		if (!strcmp(s, verdict_names[i])) {
			*v = (enum tb_verdict)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- construction ---------------------------------------------------------------------------- */

void tb_overhead_init(struct tb_overhead *o)
{
	memset(o, 0, sizeof(*o));
	o->pct = o->ci_lo = o->ci_hi = o->mean_pct = NAN;
	o->ns_per_op = o->ns_ci_lo = o->ns_ci_hi = NAN;
	o->events_per_op = o->ns_per_event = o->nse_ci_lo = o->nse_ci_hi = NAN;
	o->bpf_ns_per_run = o->p_mannwhitney = o->p_welch = o->hl_shift_ns = o->mde_pct = NAN;
	o->driver_per_op = o->ns_per_driver = o->npd_lo = o->npd_hi = NAN;
}

void tb_proof_init(struct tb_proof *p)
{
	memset(p, 0, sizeof(*p));
	p->events_per_op = p->expected_per_op = p->lo = p->hi = NAN;
}

void tb_accounting_init(struct tb_accounting *a)
{
	memset(a, 0, sizeof(*a));
	a->ns_per_op = a->cost_pct = a->ci_lo = a->ci_hi = a->cost_ns_per_op = NAN;
	a->cost_ns_per_run = a->bpf_runs_per_op = a->bpf_ns_per_run = NAN;
}

static void summary_init(struct tb_summary *s)
{
	s->n = 0;
	s->median = s->mean = s->sd = s->cv = s->min = s->max = s->mad = NAN;
	s->outliers = 0;
}

static void aa_init(struct tb_aa_summary *a)
{
	memset(a, 0, sizeof(*a));
	a->fp_rate = a->noise_floor_pct = a->max_abs_pct = NAN;
}

struct tb_result *tb_result_new(void)
{
	struct tb_result *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->schema = strdup(TB_RESULT_SCHEMA);
	r->tool_version = strdup(TB_VERSION);
	r->foreign = json_array();
	r->shortfalls = json_array();
	r->warnings = json_array();
	r->unsupported = json_array();
	r->labels = json_object();
	if (!r->schema || !r->tool_version || !r->foreign || !r->shortfalls || !r->warnings ||
	    !r->unsupported || !r->labels) {
		tb_result_free(r);
		return NULL;
	}
	r->noise_threshold = 0.01;
	r->alpha = 0.05;
	r->power = 0.8;
	r->confidence = 0.95;
	r->resamples = 10000;
	r->precision = 0;
	r->max_time_s = NAN;
	r->rounds_asked = -1;
	r->max_time_needed_s = NAN;
	r->max_cv = 0.10;
	r->contended_share = 0;
	r->accounting_every = 1;
	aa_init(&r->aa_summary);
	return r;
}

static void cell_free(struct tb_cell *c)
{
	free(c->id);
	free(c->workload);
	free(c->workload_type);
	json_decref(c->workload_config);
	free(c->tracer);
	free(c->tracer_type);
	json_decref(c->tracer_config);
	free(c->samples);
	json_decref(c->tracer_extra);
	free(c->bpf_progs);
	free(c->error);
	free(c->summary.outlier);
	free(c->latency.bucket_ns);
	free(c->latency.bucket_count);
	tb_cell_explain_free(c->explain);
	for (int k = 0; k < 2; k++) {
		struct tb_cell_sweep *cs = k ? &c->tsweep : &c->wsweep;

		free(cs->section);
		free(cs->key);
		free(cs->value);
		free(cs->unit);
	}
}

void tb_result_rate_models_free(struct tb_result *r)
{
	for (size_t i = 0; i < r->nrate_models; i++) {
		free(r->rate_models[i].workload_type);
		free(r->rate_models[i].tracer);
	}
	free(r->rate_models);
	r->rate_models = NULL;
	r->nrate_models = 0;
}

void tb_result_free(struct tb_result *r)
{
	if (!r)
		return;
	free(r->schema);
	free(r->tool_version);
	free(r->scenario_name);
	free(r->scenario_path);
	free(r->scenario_text);
	free(r->command_line);
	free(r->started);
	free(r->finished);
	free(r->stop_reason);
	free(r->sample_length);
	free(r->rounds_chosen);
	json_decref(r->system);
	json_decref(r->foreign);
	json_decref(r->shortfalls);
	json_decref(r->warnings);
	json_decref(r->unsupported);
	json_decref(r->labels);
	json_decref(r->gate);
	for (size_t i = 0; i < r->ncells; i++)
		cell_free(&r->cells[i]);
	free(r->cells);
	tb_result_rate_models_free(r);
	tb_result_sweeps_free(r);
	tb_result_limits_free(r);
	free(r->dir);
	free(r);
}

/* Arrays grow to the next power of two, so the capacity follows from the count alone. */
static int grow(void **arr, size_t n, size_t elem)
{
	void *p;

	if (n & (n - 1))
		return 0; /* not a power of two (and not 0): room is left */
	p = realloc(*arr, (n ? 2 * n : 1) * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

struct tb_cell *tb_result_add_cell(struct tb_result *r)
{
	struct tb_cell *c;

	if (grow((void **)&r->cells, r->ncells, sizeof(*r->cells)))
		return NULL;
	c = &r->cells[r->ncells++];
	memset(c, 0, sizeof(*c));
	c->threads = 1;
	c->rate = NAN;
	c->slowdown = NAN;
	c->events_recorded = -1;
	c->events_lost = -1;
	c->tracer_cpu_s = NAN;
	c->consumer_ns_per_event = NAN;
	c->disk_bytes_per_event = NAN;
	c->tracer_mem_bytes = -1;
	summary_init(&c->summary);
	c->latency.clock_cost_ns = NAN;
	c->latency.p50 = c->latency.p90 = c->latency.p99 = c->latency.p999 = NAN;
	c->latency.max = NAN;
	tb_overhead_init(&c->overhead);
	tb_proof_init(&c->proof);
	tb_accounting_init(&c->accounting);
	return c;
}

struct tb_sample *tb_cell_add_sample(struct tb_cell *c)
{
	struct tb_sample *s;

	if (grow((void **)&c->samples, c->nsamples, sizeof(*c->samples)))
		return NULL;
	s = &c->samples[c->nsamples];
	memset(s, 0, sizeof(*s));
	s->round = -1;
	s->order = (unsigned int)c->nsamples;
	s->ns_per_op = s->elapsed_ns = NAN;
	s->events = s->lost = -1;
	s->tracer_cpu_s = s->wl_cpu_s = NAN;
	s->consumer_ns_per_event = NAN;
	s->nvcsw = s->nivcsw = s->minflt = -1;
	s->wait_ns = s->steal_ns = -1;
	s->setup_s = s->teardown_s = NAN;
	s->metric = NAN;
	s->bpf_run_cnt = s->bpf_run_time_ns = s->disk_bytes = -1;
	s->workload_events = -1;
	s->bpf_stats = -1;
	c->nsamples++;
	return s;
}

struct tb_cell *tb_result_baseline(const struct tb_result *r, const struct tb_cell *c)
{
	for (size_t i = 0; i < r->ncells; i++) {
		struct tb_cell *b = &r->cells[i];

		if (b->baseline && b->workload && c->workload && !strcmp(b->workload, c->workload))
			return b;
	}
	return NULL;
}

static void rate_model_init(struct tb_rate_model *m)
{
	memset(m, 0, sizeof(*m));
	m->fixed_ns = m->fixed_ci_lo = m->fixed_ci_hi = NAN;
	m->cost_ns = m->cost_ci_lo = m->cost_ci_hi = NAN;
	m->r2 = m->pct_fixed = m->pct_per_mevent_s = m->p_quadratic = NAN;
}

struct tb_rate_model *tb_result_add_rate_model(struct tb_result *r)
{
	struct tb_rate_model *m;

	if (grow((void **)&r->rate_models, r->nrate_models, sizeof(*r->rate_models)))
		return NULL;
	m = &r->rate_models[r->nrate_models++];
	rate_model_init(m);
	return m;
}

void tb_knee_model_init(struct tb_knee_model *k)
{
	*k = (struct tb_knee_model){0};
	k->knee_x = k->fixed_ns = k->r2 = k->p_bend = NAN;
	k->before_ns = k->before_lo = k->before_hi = NAN;
	k->after_ns = k->after_lo = k->after_hi = NAN;
}

struct tb_sweep *tb_result_add_sweep(struct tb_result *r)
{
	struct tb_sweep *sw;

	if (grow((void **)&r->sweeps, r->nsweeps, sizeof(*r->sweeps)))
		return NULL;
	sw = &r->sweeps[r->nsweeps++];
	memset(sw, 0, sizeof(*sw));
	rate_model_init(&sw->fit);
	sw->accepted_ns = sw->rejected_ns = sw->rej_lo = sw->rej_hi = sw->kept_per_op = NAN;
	sw->held_rate = sw->held_cpu = sw->lost_rate = sw->rounds_lo = sw->rounds_hi = NAN;
	tb_knee_model_init(&sw->knee);
	return sw;
}

struct tb_sweep_point *tb_sweep_add_point(struct tb_sweep *sw)
{
	struct tb_sweep_point *pt;

	if (grow((void **)&sw->points, sw->npoints, sizeof(*sw->points)))
		return NULL;
	pt = &sw->points[sw->npoints++];
	memset(pt, 0, sizeof(*pt));
	pt->x = pt->ns_per_op = pt->ns_lo = pt->ns_hi = NAN;
	pt->events_per_s = pt->tracer_cpu = pt->lost_share = NAN;
	pt->lost = -1;
	return pt;
}

void tb_result_sweeps_free(struct tb_result *r)
{
	for (size_t i = 0; i < r->nsweeps; i++) {
		struct tb_sweep *sw = &r->sweeps[i];

		free(sw->kind);
		free(sw->section);
		free(sw->key);
		free(sw->against);
		free(sw->unit);
		for (size_t k = 0; k < sw->npoints; k++) {
			free(sw->points[k].cell);
			free(sw->points[k].value);
		}
		free(sw->points);
	}
	free(r->sweeps);
	r->sweeps = NULL;
	r->nsweeps = 0;
}

struct tb_limit *tb_result_add_limit(struct tb_result *r)
{
	struct tb_limit *l;

	if (grow((void **)&r->limits, r->nlimits, sizeof(*r->limits)))
		return NULL;
	l = &r->limits[r->nlimits++];
	memset(l, 0, sizeof(*l));
	l->target = l->resolution = NAN;
	l->held_rate = l->held_cpu = l->lost_rate = NAN;
	return l;
}

struct tb_limit_probe *tb_limit_add_probe(struct tb_limit *l)
{
	struct tb_limit_probe *p;

	if (grow((void **)&l->probes, l->nprobes, sizeof(*l->probes)))
		return NULL;
	p = &l->probes[l->nprobes++];
	memset(p, 0, sizeof(*p));
	p->buffer_x = p->events_per_s = p->lost_share = p->tracer_cpu = NAN;
	p->events = p->lost = -1;
	return p;
}

void tb_result_limits_free(struct tb_result *r)
{
	for (size_t i = 0; i < r->nlimits; i++) {
		struct tb_limit *l = &r->limits[i];

		free(l->kind);
		free(l->cell);
		free(l->workload);
		free(l->tracer);
		free(l->knob);
		json_decref(l->knobs);
		free(l->buffer_key);
		free(l->buffer);
		for (size_t k = 0; k < l->nprobes; k++) {
			free(l->probes[k].knob);
			free(l->probes[k].knob_value);
			free(l->probes[k].setting);
			free(l->probes[k].buffer);
		}
		free(l->probes);
	}
	free(r->limits);
	r->limits = NULL;
	r->nlimits = 0;
}
