// SPDX-License-Identifier: GPL-2.0
/*
 * result.json from the model (result.h): every field under its documented key, unknown values
 * as null; written atomically.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "model/bpf-progs.h"
#include "model/explain.h"
#include "model/json-util.h"
#include "model/proof.h"
#include "model/result.h"

/* ---- to JSON --------------------------------------------------------------------------------- */

/* Builders that record allocation failure in *bad instead of checking every call. */
struct jb {
	bool bad;
};

static json_t *jcount(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *juint(uint64_t v)
{
	/* JSON integers in jansson are signed 64-bit; larger values go out as decimal strings. */
	char buf[32];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

static json_t *jstr(const char *s)
{
	json_t *j;
	char *copy;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	/* Not UTF-8 (a scenario or command line from elsewhere): keep ASCII, mark the rest. */
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static void set(struct jb *b, json_t *o, const char *key, json_t *v)
{
	if (!v || !o || json_object_set_new(o, key, v))
		b->bad = true;
}

/* Reference a borrowed object (or null). */
static json_t *jref(json_t *v)
{
	return v ? json_incref(v) : json_null();
}

static json_t *sample_to_json(struct jb *b, const struct tb_cell *c, size_t i)
{
	const struct tb_sample *s = &c->samples[i];
	json_t *o = json_object();

	set(b, o, "round", json_integer(s->round));
	set(b, o, "warmup", json_boolean(s->warmup));
	set(b, o, "order", json_integer(s->order));
	set(b, o, "ns_per_op", tb_json_num(s->ns_per_op));
	set(b, o, "ops", juint(s->ops));
	set(b, o, "elapsed_ns", tb_json_num(s->elapsed_ns));
	set(b, o, "events", jcount(s->events));
	set(b, o, "lost", jcount(s->lost));
	set(b, o, "tracer_cpu_s", tb_json_num(s->tracer_cpu_s));
	set(b, o, "workload_cpu_s", tb_json_num(s->wl_cpu_s));
	set(b, o, "voluntary_ctxsw", jcount(s->nvcsw));
	set(b, o, "involuntary_ctxsw", jcount(s->nivcsw));
	set(b, o, "minor_faults", jcount(s->minflt));
	set(b, o, "tracer_setup_s", tb_json_num(s->setup_s));
	set(b, o, "tracer_teardown_s", tb_json_num(s->teardown_s));
	set(b, o, "metric", tb_json_num(s->metric));
	set(b, o, "failed", json_boolean(s->failed));
	if (s->abandoned)
		set(b, o, "abandoned", json_true());
	if (s->partial_round)
		set(b, o, "partial_round", json_true());
	set(b, o, "bpf_run_cnt", jcount(s->bpf_run_cnt));
	set(b, o, "bpf_run_time_ns", jcount(s->bpf_run_time_ns));
	set(b, o, "tracer_disk_bytes", jcount(s->disk_bytes));
	if (s->workload_events >= 0)
		set(b, o, "workload_events", jcount(s->workload_events));
	if (c->summary.outlier && i < c->summary.noutlier && c->summary.outlier[i])
		set(b, o, "outlier", json_true());
	return o;
}

static json_t *summary_to_json(struct jb *b, const struct tb_cell *c)
{
	const struct tb_summary *s = &c->summary;
	json_t *o = json_object();

	set(b, o, "n", json_integer((json_int_t)s->n));
	set(b, o, "median", tb_json_num(s->median));
	set(b, o, "mean", tb_json_num(s->mean));
	set(b, o, "sd", tb_json_num(s->sd));
	set(b, o, "cv", tb_json_num(s->cv));
	set(b, o, "min", tb_json_num(s->min));
	set(b, o, "max", tb_json_num(s->max));
	set(b, o, "mad", tb_json_num(s->mad));
	set(b, o, "outliers", json_integer((json_int_t)s->outliers));
	if (c->latency.present) {
		/* Copies for consumers that only read the summary (the result contract, doc/architecture.md). */
		set(b, o, "p50", tb_json_num(c->latency.p50));
		set(b, o, "p99", tb_json_num(c->latency.p99));
		set(b, o, "p999", tb_json_num(c->latency.p999));
	}
	return o;
}

static json_t *latency_to_json(struct jb *b, const struct tb_latency *l)
{
	json_t *o = json_object(), *buckets = json_array();

	set(b, o, "clock_cost_ns", tb_json_num(l->clock_cost_ns));
	set(b, o, "count", juint(l->count));
	set(b, o, "p50", tb_json_num(l->p50));
	set(b, o, "p90", tb_json_num(l->p90));
	set(b, o, "p99", tb_json_num(l->p99));
	set(b, o, "p999", tb_json_num(l->p999));
	set(b, o, "max", tb_json_num(l->max));
	for (size_t i = 0; buckets && i < l->nbuckets; i++) {
		json_t *pair = json_array();

		if (!pair || json_array_append_new(pair, tb_json_num(l->bucket_ns[i])) ||
		    json_array_append_new(pair, juint(l->bucket_count[i])) ||
		    json_array_append_new(buckets, pair))
			b->bad = true;
	}
	set(b, o, "buckets", buckets);
	return o;
}

static json_t *overhead_to_json(struct jb *b, const struct tb_overhead *v)
{
	json_t *o = json_object();

	set(b, o, "pct", tb_json_num(v->pct));
	set(b, o, "ci", tb_json_pair(v->ci_lo, v->ci_hi));
	set(b, o, "mean_pct", tb_json_num(v->mean_pct));
	set(b, o, "ns_per_op", tb_json_num(v->ns_per_op));
	set(b, o, "ns_per_op_ci", tb_json_pair(v->ns_ci_lo, v->ns_ci_hi));
	set(b, o, "events_per_op", tb_json_num(v->events_per_op));
	set(b, o, "ns_per_event", tb_json_num(v->ns_per_event));
	set(b, o, "ns_per_event_ci", tb_json_pair(v->nse_ci_lo, v->nse_ci_hi));
	set(b, o, "bpf_ns_per_run", tb_json_num(v->bpf_ns_per_run));
	set(b, o, "p_mannwhitney", tb_json_num(v->p_mannwhitney));
	/* The result contract (doc/architecture.md) promises a p_value: the rank test's, which assumes no normality. */
	set(b, o, "p_value", tb_json_num(v->p_mannwhitney));
	set(b, o, "p_welch", tb_json_num(v->p_welch));
	set(b, o, "hodges_lehmann_ns", tb_json_num(v->hl_shift_ns));
	set(b, o, "mde_pct", tb_json_num(v->mde_pct));
	set(b, o, "verdict", json_string(tb_verdict_name(v->verdict)));
	set(b, o, "reason", jstr(v->reason));
	if (v->nse_reason[0])
		set(b, o, "ns_per_event_reason", jstr(v->nse_reason));
	if (v->driver[0]) {
		json_t *d = json_object();

		set(b, d, "unit", jstr(v->driver));
		set(b, d, "per_op", tb_json_num(v->driver_per_op));
		set(b, d, "ns", tb_json_num(v->ns_per_driver));
		set(b, d, "ci", tb_json_pair(v->npd_lo, v->npd_hi));
		set(b, o, "cost_driver", d);
	} else {
		set(b, o, "cost_driver", json_null());
	}
	if (v->driver_reason[0])
		set(b, o, "cost_driver_reason", jstr(v->driver_reason));
	return o;
}

static json_t *expected_to_json(struct jb *b, const struct tb_expected *x)
{
	json_t *o = json_object(), *items = json_array(), *near = json_array();
	size_t i;

	set(b, o, "kind", json_string(tb_hook_kind_name(x->kind)));
	set(b, o, "scope", json_string(tb_hook_scope_name(x->scope)));
	set(b, o, "per_op", tb_json_num(x->exact_per_op + x->approx_per_op));
	set(b, o, "exact_per_op", tb_json_num(x->exact_per_op));
	set(b, o, "approx_per_op", tb_json_num(x->approx_per_op));
	set(b, o, "approx_zero", json_integer(x->approx_zero));
	set(b, o, "unknown", json_boolean(x->unknown));
	set(b, o, "counted_hooks", json_integer(x->ncounted));
	set(b, o, "at_least", json_boolean(x->at_least));
	set(b, o, "filtered", json_boolean(x->filtered));
	set(b, o, "attributes", json_boolean(x->attributes));
	set(b, o, "harness_per_sample", tb_json_num(x->harness_per_sample));
	for (i = 0; items && i < x->nitems; i++)
		if (json_array_append_new(items,
					  json_pack("{s:s, s:o, s:b}", "event", x->items[i].name,
						    "per_op", tb_json_num(x->items[i].per_op),
						    "approx", x->items[i].approx)))
			b->bad = true;
	set(b, o, "events", items);
	for (i = 0; near && i < x->nnear; i++)
		if (json_array_append_new(
			    near, json_pack("{s:s, s:s, s:s, s:o}", "hooked", x->near[i].hooked,
					    "does", x->near[i].does, "hook", x->near[i].hook,
					    "per_op", tb_json_num(x->near[i].per_op))))
			b->bad = true;
	set(b, o, "near_misses", near);
	set(b, o, "hooks", jstr(x->hooks));
	set(b, o, "does", jstr(x->does));
	if (x->unknown_hook[0])
		set(b, o, "unknown_hook", jstr(x->unknown_hook));
	return o;
}

static json_t *proof_to_json(struct jb *b, const struct tb_proof *p)
{
	json_t *o = json_object();

	set(b, o, "outcome", json_string(tb_proof_outcome_name(p->outcome)));
	set(b, o, "events_per_op", tb_json_num(p->events_per_op));
	set(b, o, "expected_per_op", tb_json_num(p->expected_per_op));
	set(b, o, "range", tb_json_pair(p->lo, p->hi));
	set(b, o, "blocks", json_boolean(p->blocks));
	set(b, o, "message", jstr(p->message));
	return o;
}

static json_t *cell_to_json(struct jb *b, const struct tb_cell *c)
{
	json_t *o = json_object(), *samples = json_array();

	set(b, o, "id", jstr(c->id));
	set(b, o, "workload", jstr(c->workload));
	set(b, o, "workload_type", jstr(c->workload_type));
	set(b, o, "workload_config", jref(c->workload_config));
	set(b, o, "tracer", jstr(c->tracer));
	set(b, o, "tracer_type", jstr(c->tracer_type));
	set(b, o, "tracer_config", jref(c->tracer_config));
	set(b, o, "baseline", json_boolean(c->baseline));
	set(b, o, "threads", json_integer(c->threads));
	set(b, o, "latency_mode", json_boolean(c->latency_mode));
	set(b, o, "ops_per_sample", juint(c->ops_per_sample));
	set(b, o, "event_rate", tb_json_num(c->rate));
	for (size_t i = 0; samples && i < c->nsamples; i++)
		if (json_array_append_new(samples, sample_to_json(b, c, i)))
			b->bad = true;
	set(b, o, "samples", samples);
	set(b, o, "events_recorded", jcount(c->events_recorded));
	set(b, o, "events_lost", jcount(c->events_lost));
	set(b, o, "tracer_cpu_s", tb_json_num(c->tracer_cpu_s));
	set(b, o, "tracer_mem_bytes", jcount(c->tracer_mem_bytes));
	set(b, o, "tracer_extra", tb_cell_extra_json(c));
	set(b, o, "error", jstr(c->error));
	set(b, o, "summary", summary_to_json(b, c));
	if (c->latency.present)
		set(b, o, "latency", latency_to_json(b, &c->latency));
	if (c->has_overhead)
		set(b, o, "overhead", overhead_to_json(b, &c->overhead));
	if (c->expected.present)
		set(b, o, "expected_events", expected_to_json(b, &c->expected));
	if (c->proof.outcome != TB_PROOF_NONE)
		set(b, o, "proof", proof_to_json(b, &c->proof));
	if (c->explain)
		set(b, o, "explain", tb_cell_explain_to_json(c->explain));
	return o;
}

static json_t *rate_model_to_json(struct jb *b, const struct tb_rate_model *m)
{
	json_t *o = json_object();

	set(b, o, "workload_type", jstr(m->workload_type));
	set(b, o, "tracer", jstr(m->tracer));
	set(b, o, "points", json_integer((json_int_t)m->npoints));
	set(b, o, "fixed_ns", tb_json_num(m->fixed_ns));
	set(b, o, "fixed_ns_ci", tb_json_pair(m->fixed_ci_lo, m->fixed_ci_hi));
	set(b, o, "cost_ns_per_event", tb_json_num(m->cost_ns));
	set(b, o, "cost_ns_per_event_ci", tb_json_pair(m->cost_ci_lo, m->cost_ci_hi));
	set(b, o, "r2", tb_json_num(m->r2));
	set(b, o, "pct_fixed", tb_json_num(m->pct_fixed));
	set(b, o, "pct_per_mevents_s", tb_json_num(m->pct_per_mevent_s));
	set(b, o, "p_quadratic", tb_json_num(m->p_quadratic));
	set(b, o, "nonlinear", json_boolean(m->nonlinear));
	set(b, o, "accepted", json_boolean(m->accepted));
	if (m->why_not[0])
		set(b, o, "why_not", jstr(m->why_not));
	return o;
}

json_t *tb_result_to_json(const struct tb_result *r)
{
	struct jb b = {false};
	json_t *doc = json_object(), *o, *cells;

	set(&b, doc, "schema", json_string(TB_RESULT_SCHEMA));
	o = json_object();
	set(&b, o, "name", json_string(TB_NAME));
	set(&b, o, "version", jstr(r->tool_version));
	set(&b, doc, "tool", o);
	o = json_object();
	set(&b, o, "name", jstr(r->scenario_name));
	set(&b, o, "path", jstr(r->scenario_path));
	set(&b, o, "text", jstr(r->scenario_text));
	set(&b, doc, "scenario", o);
	set(&b, doc, "command_line", jstr(r->command_line));
	set(&b, doc, "started", jstr(r->started));
	set(&b, doc, "finished", jstr(r->finished));
	set(&b, doc, "partial", json_boolean(r->partial));
	set(&b, doc, "stop_reason", jstr(r->stop_reason));
	set(&b, doc, "system", jref(r->system));
	o = json_object();
	set(&b, o, "seed", juint(r->seed));
	set(&b, o, "rounds", json_integer(r->rounds));
	set(&b, o, "warmup", json_integer(r->warmup));
	set(&b, o, "duration_ns", juint(r->duration_ns));
	set(&b, o, "noise_threshold", tb_json_num(r->noise_threshold));
	set(&b, o, "alpha", tb_json_num(r->alpha));
	set(&b, o, "power", tb_json_num(r->power));
	set(&b, o, "bootstrap_resamples", json_integer(r->resamples));
	set(&b, o, "confidence", tb_json_num(r->confidence));
	set(&b, o, "precision", tb_json_num(r->precision));
	set(&b, o, "max_cv", tb_json_num(r->max_cv));
	set(&b, o, "aa", json_boolean(r->aa));
	set(&b, doc, "settings", o);
	set(&b, doc, "foreign_instrumentation",
	    r->foreign ? json_incref(r->foreign) : json_array());
	set(&b, doc, "warnings", r->warnings ? json_incref(r->warnings) : json_array());
	set(&b, doc, "unsupported", r->unsupported ? json_incref(r->unsupported) : json_array());
	set(&b, doc, "labels", r->labels ? json_incref(r->labels) : json_object());
	if (r->gate)
		set(&b, doc, "gate", json_incref(r->gate));
	cells = json_array();
	for (size_t i = 0; cells && i < r->ncells; i++)
		if (json_array_append_new(cells, cell_to_json(&b, &r->cells[i])))
			b.bad = true;
	set(&b, doc, "cells", cells);
	if (r->aa_summary.present) {
		const struct tb_aa_summary *a = &r->aa_summary;

		o = json_object();
		set(&b, o, "cells", json_integer((json_int_t)a->ncells));
		set(&b, o, "false_positives", json_integer((json_int_t)a->false_positives));
		set(&b, o, "false_positive_rate", tb_json_num(a->fp_rate));
		set(&b, o, "noise_floor_pct", tb_json_num(a->noise_floor_pct));
		set(&b, o, "max_abs_pct", tb_json_num(a->max_abs_pct));
		set(&b, doc, "aa_calibration", o);
	}
	if (r->nrate_models) {
		json_t *arr = json_array();

		for (size_t i = 0; arr && i < r->nrate_models; i++)
			if (json_array_append_new(arr, rate_model_to_json(&b, &r->rate_models[i])))
				b.bad = true;
		set(&b, doc, "rate_models", arr);
	}
	if (b.bad) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* The document as text (the caller frees it), or NULL (said, naming what). */
static char *result_text(const struct tb_result *r, const char *what)
{
	json_t *doc = tb_result_to_json(r);
	char *text;

	if (!doc) {
		tb_err("%s: out of memory building the result JSON", what);
		return NULL;
	}
	text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (!text)
		tb_err("%s: out of memory serialising the result", what);
	return text;
}

int tb_result_save(const struct tb_result *r, const char *path)
{
	char *text = result_text(r, path);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = tb_write_atomic(path, text, strlen(text), 0644); /* says why it failed */
	free(text);
	return ret;
}

int tb_result_save_at(const struct tb_result *r, const struct tb_dir *d, const char *name)
{
	char *text = result_text(r, name);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = tb_dir_write(d, name, text, strlen(text), 0644); /* says why it failed */
	free(text);
	return ret;
}
