// SPDX-License-Identifier: GPL-2.0
/*
 * result.json: the result model (result.h) to and from JSON, with strict validation on load.
 *
 * Required keys: schema, cells; per cell id, workload, tracer, baseline, samples; per sample
 * ns_per_op. Every other key is optional, but when present it must have the right type and a
 * sane value. Unknown keys are ignored so that newer writers stay readable.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "result/result.h"
#include "core/tb.h"

/* A result file larger than this is refused before parsing (jansson holds it all in memory). */
#define TB_RESULT_MAX_FILE_BYTES (1024ull * 1024 * 1024)

static const char *const verdict_names[] = {
	[TB_VERDICT_NONE] = "",
	[TB_VERDICT_NO_OVERHEAD] = "no-detectable-overhead",
	[TB_VERDICT_OVERHEAD] = "overhead",
	[TB_VERDICT_UNTRUSTWORTHY] = "untrustworthy",
};

static __thread char last_error[512];

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

const char *tb_result_last_error(void)
{
	return last_error;
}

/* ---- construction ---------------------------------------------------------------------------- */

static void overhead_init(struct tb_overhead *o)
{
	memset(o, 0, sizeof(*o));
	o->pct = o->ci_lo = o->ci_hi = o->mean_pct = NAN;
	o->ns_per_op = o->ns_ci_lo = o->ns_ci_hi = NAN;
	o->events_per_op = o->ns_per_event = o->nse_ci_lo = o->nse_ci_hi = NAN;
	o->bpf_ns_per_run = o->p_mannwhitney = o->p_welch = o->hl_shift_ns = o->mde_pct = NAN;
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
	r->warnings = json_array();
	if (!r->schema || !r->tool_version || !r->foreign || !r->warnings) {
		tb_result_free(r);
		return NULL;
	}
	r->noise_threshold = 0.01;
	r->alpha = 0.05;
	r->power = 0.8;
	r->confidence = 0.95;
	r->resamples = 10000;
	r->precision = 0;
	r->max_cv = 0.10;
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
	free(c->error);
	free(c->summary.outlier);
	free(c->latency.bucket_ns);
	free(c->latency.bucket_count);
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
	json_decref(r->system);
	json_decref(r->foreign);
	json_decref(r->warnings);
	json_decref(r->gate);
	for (size_t i = 0; i < r->ncells; i++)
		cell_free(&r->cells[i]);
	free(r->cells);
	tb_result_rate_models_free(r);
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
	c->events_recorded = -1;
	c->events_lost = -1;
	c->tracer_cpu_s = NAN;
	c->tracer_mem_bytes = -1;
	summary_init(&c->summary);
	c->latency.clock_cost_ns = NAN;
	c->latency.p50 = c->latency.p90 = c->latency.p99 = c->latency.p999 = NAN;
	c->latency.max = NAN;
	overhead_init(&c->overhead);
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
	s->nvcsw = s->nivcsw = s->minflt = -1;
	s->setup_s = s->teardown_s = NAN;
	s->metric = NAN;
	s->bpf_run_cnt = s->bpf_run_time_ns = -1;
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

/* ---- to JSON --------------------------------------------------------------------------------- */

/* Builders that record allocation failure in *bad instead of checking every call. */
struct jb {
	bool bad;
};

static json_t *jnum(double d)
{
	/* jansson refuses NaN and infinities: they mean "unknown" here. */
	return isfinite(d) ? json_real(d) : json_null();
}

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

static json_t *jpair(double a, double b)
{
	json_t *x = jnum(a), *y = jnum(b), *arr = json_array();

	if (!x || !y || !arr || json_array_append_new(arr, x) || json_array_append_new(arr, y)) {
		json_decref(arr);
		return NULL;
	}
	return arr;
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
	set(b, o, "ns_per_op", jnum(s->ns_per_op));
	set(b, o, "ops", juint(s->ops));
	set(b, o, "elapsed_ns", jnum(s->elapsed_ns));
	set(b, o, "events", jcount(s->events));
	set(b, o, "lost", jcount(s->lost));
	set(b, o, "tracer_cpu_s", jnum(s->tracer_cpu_s));
	set(b, o, "workload_cpu_s", jnum(s->wl_cpu_s));
	set(b, o, "voluntary_ctxsw", jcount(s->nvcsw));
	set(b, o, "involuntary_ctxsw", jcount(s->nivcsw));
	set(b, o, "minor_faults", jcount(s->minflt));
	set(b, o, "tracer_setup_s", jnum(s->setup_s));
	set(b, o, "tracer_teardown_s", jnum(s->teardown_s));
	set(b, o, "metric", jnum(s->metric));
	set(b, o, "failed", json_boolean(s->failed));
	set(b, o, "bpf_run_cnt", jcount(s->bpf_run_cnt));
	set(b, o, "bpf_run_time_ns", jcount(s->bpf_run_time_ns));
	if (c->summary.outlier && i < c->summary.noutlier && c->summary.outlier[i])
		set(b, o, "outlier", json_true());
	return o;
}

static json_t *summary_to_json(struct jb *b, const struct tb_cell *c)
{
	const struct tb_summary *s = &c->summary;
	json_t *o = json_object();

	set(b, o, "n", json_integer((json_int_t)s->n));
	set(b, o, "median", jnum(s->median));
	set(b, o, "mean", jnum(s->mean));
	set(b, o, "sd", jnum(s->sd));
	set(b, o, "cv", jnum(s->cv));
	set(b, o, "min", jnum(s->min));
	set(b, o, "max", jnum(s->max));
	set(b, o, "mad", jnum(s->mad));
	set(b, o, "outliers", json_integer((json_int_t)s->outliers));
	if (c->latency.present) {
		/* Copies for consumers that only read the summary (ARCHITECTURE.md). */
		set(b, o, "p50", jnum(c->latency.p50));
		set(b, o, "p99", jnum(c->latency.p99));
		set(b, o, "p999", jnum(c->latency.p999));
	}
	return o;
}

static json_t *latency_to_json(struct jb *b, const struct tb_latency *l)
{
	json_t *o = json_object(), *buckets = json_array();

	set(b, o, "clock_cost_ns", jnum(l->clock_cost_ns));
	set(b, o, "count", juint(l->count));
	set(b, o, "p50", jnum(l->p50));
	set(b, o, "p90", jnum(l->p90));
	set(b, o, "p99", jnum(l->p99));
	set(b, o, "p999", jnum(l->p999));
	set(b, o, "max", jnum(l->max));
	for (size_t i = 0; buckets && i < l->nbuckets; i++) {
		json_t *pair = json_array();

		if (!pair || json_array_append_new(pair, jnum(l->bucket_ns[i])) ||
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

	set(b, o, "pct", jnum(v->pct));
	set(b, o, "ci", jpair(v->ci_lo, v->ci_hi));
	set(b, o, "mean_pct", jnum(v->mean_pct));
	set(b, o, "ns_per_op", jnum(v->ns_per_op));
	set(b, o, "ns_per_op_ci", jpair(v->ns_ci_lo, v->ns_ci_hi));
	set(b, o, "events_per_op", jnum(v->events_per_op));
	set(b, o, "ns_per_event", jnum(v->ns_per_event));
	set(b, o, "ns_per_event_ci", jpair(v->nse_ci_lo, v->nse_ci_hi));
	set(b, o, "bpf_ns_per_run", jnum(v->bpf_ns_per_run));
	set(b, o, "p_mannwhitney", jnum(v->p_mannwhitney));
	/* ARCHITECTURE.md promises a p_value: the rank test's, which assumes no normality. */
	set(b, o, "p_value", jnum(v->p_mannwhitney));
	set(b, o, "p_welch", jnum(v->p_welch));
	set(b, o, "hodges_lehmann_ns", jnum(v->hl_shift_ns));
	set(b, o, "mde_pct", jnum(v->mde_pct));
	set(b, o, "verdict", json_string(tb_verdict_name(v->verdict)));
	set(b, o, "reason", jstr(v->reason));
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
	set(b, o, "event_rate", jnum(c->rate));
	for (size_t i = 0; samples && i < c->nsamples; i++)
		if (json_array_append_new(samples, sample_to_json(b, c, i)))
			b->bad = true;
	set(b, o, "samples", samples);
	set(b, o, "events_recorded", jcount(c->events_recorded));
	set(b, o, "events_lost", jcount(c->events_lost));
	set(b, o, "tracer_cpu_s", jnum(c->tracer_cpu_s));
	set(b, o, "tracer_mem_bytes", jcount(c->tracer_mem_bytes));
	set(b, o, "tracer_extra", jref(c->tracer_extra));
	set(b, o, "error", jstr(c->error));
	set(b, o, "summary", summary_to_json(b, c));
	if (c->latency.present)
		set(b, o, "latency", latency_to_json(b, &c->latency));
	if (c->has_overhead)
		set(b, o, "overhead", overhead_to_json(b, &c->overhead));
	return o;
}

static json_t *rate_model_to_json(struct jb *b, const struct tb_rate_model *m)
{
	json_t *o = json_object();

	set(b, o, "workload_type", jstr(m->workload_type));
	set(b, o, "tracer", jstr(m->tracer));
	set(b, o, "points", json_integer((json_int_t)m->npoints));
	set(b, o, "fixed_ns", jnum(m->fixed_ns));
	set(b, o, "fixed_ns_ci", jpair(m->fixed_ci_lo, m->fixed_ci_hi));
	set(b, o, "cost_ns_per_event", jnum(m->cost_ns));
	set(b, o, "cost_ns_per_event_ci", jpair(m->cost_ci_lo, m->cost_ci_hi));
	set(b, o, "r2", jnum(m->r2));
	set(b, o, "pct_fixed", jnum(m->pct_fixed));
	set(b, o, "pct_per_mevents_s", jnum(m->pct_per_mevent_s));
	set(b, o, "p_quadratic", jnum(m->p_quadratic));
	set(b, o, "nonlinear", json_boolean(m->nonlinear));
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
	set(&b, o, "noise_threshold", jnum(r->noise_threshold));
	set(&b, o, "alpha", jnum(r->alpha));
	set(&b, o, "power", jnum(r->power));
	set(&b, o, "bootstrap_resamples", json_integer(r->resamples));
	set(&b, o, "confidence", jnum(r->confidence));
	set(&b, o, "precision", jnum(r->precision));
	set(&b, o, "max_cv", jnum(r->max_cv));
	set(&b, o, "aa", json_boolean(r->aa));
	set(&b, doc, "settings", o);
	set(&b, doc, "foreign_instrumentation",
	    r->foreign ? json_incref(r->foreign) : json_array());
	set(&b, doc, "warnings", r->warnings ? json_incref(r->warnings) : json_array());
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
		set(&b, o, "false_positive_rate", jnum(a->fp_rate));
		set(&b, o, "noise_floor_pct", jnum(a->noise_floor_pct));
		set(&b, o, "max_abs_pct", jnum(a->max_abs_pct));
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

int tb_result_save(const struct tb_result *r, const char *path)
{
	json_t *doc = tb_result_to_json(r);
	char *text = NULL;
	int ret;

	if (!doc) {
		tb_err("%s: out of memory building the result JSON", path);
		return -ENOMEM;
	}
	text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (!text) {
		tb_err("%s: out of memory serialising the result", path);
		return -ENOMEM;
	}
	ret = tb_write_atomic(path, text, strlen(text), 0644);
	if (ret)
		tb_err("%s: cannot write the result: %s", path, strerror(-ret));
	free(text);
	return ret;
}

/* ---- from JSON, validating ------------------------------------------------------------------- */

struct ld {
	const char *what; /* file name, for messages */
	char path[160];	  /* key path of the current object: "cells[2].samples[0]" */
};

static int __attribute__((format(printf, 3, 4)))
bad(const struct ld *l, const char *key, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(last_error, sizeof(last_error), "%s: %s%s%s%s%s", l->what, l->path,
		 (*l->path && key) ? "." : "", key ? key : "", (*l->path || key) ? ": " : "", msg);
	tb_err("%s", last_error);
	return -EINVAL;
}

enum { REQ = 1, OPT = 0 };

/* The value of key, or NULL when absent; absent and required is an error (ret set). */
static json_t *field(const struct ld *l, json_t *o, const char *key, int req, int *ret)
{
	json_t *v = json_object_get(o, key);

	*ret = 0;
	if (!v && req)
		*ret = bad(l, key, "required key missing");
	return v;
}

static int get_str(const struct ld *l, json_t *o, const char *key, int req, char **out)
{
	int ret;
	json_t *v = field(l, o, key, req, &ret);

	if (ret || !v || (json_is_null(v) && !req))
		return ret;
	if (!json_is_string(v))
		return bad(l, key, "expected a string");
	if (req && !json_string_length(v))
		return bad(l, key, "must not be empty");
	free(*out);
	*out = strdup(json_string_value(v));
	return *out ? 0 : -ENOMEM;
}

/* A number, or null for unknown (NAN); min is the lowest acceptable value (-INFINITY: any). */
static int get_num(const struct ld *l, json_t *o, const char *key, int req, double min, double *out)
{
	int ret;
	json_t *v = field(l, o, key, req, &ret);
	double d;

	if (ret || !v)
		return ret;
	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return bad(l, key, "expected a number");
	d = json_number_value(v);
	if (!isfinite(d))
		return bad(l, key, "expected a finite number");
	if (d < min)
		return bad(l, key, "must be >= %g, found %g", min, d);
	*out = d;
	return 0;
}

/* A probability-like setting in the open interval (0, 1). */
static int get_unit(const struct ld *l, json_t *o, const char *key, double *out)
{
	double d = *out;
	int ret = get_num(l, o, key, OPT, -INFINITY, &d);

	if (ret)
		return ret;
	if (!(d > 0 && d < 1))
		return bad(l, key, "must be between 0 and 1 (exclusive), found %g", d);
	*out = d;
	return 0;
}

/* A count: non-negative integer, or null or -1 for unknown (-1). */
static int get_count(const struct ld *l, json_t *o, const char *key, int req, int64_t *out)
{
	int ret;
	json_t *v = field(l, o, key, req, &ret);

	if (ret || !v)
		return ret;
	if (json_is_null(v)) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v))
		return bad(l, key, "expected an integer");
	/* -1 is the in-memory "unknown" and some writers use it instead of null. */
	if (json_integer_value(v) < -1)
		return bad(l, key, "must be >= 0 (or null/-1 for unknown), found %lld",
			   (long long)json_integer_value(v));
	*out = json_integer_value(v);
	return 0;
}

/* An unsigned integer up to max; a decimal string is accepted too (what juint() writes). */
static int get_uint(const struct ld *l, json_t *o, const char *key, int req, uint64_t max,
		    uint64_t *out)
{
	int ret;
	json_t *v = field(l, o, key, req, &ret);
	uint64_t u;

	if (ret || !v)
		return ret;
	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return bad(l, key, "must be >= 0, found %lld",
				   (long long)json_integer_value(v));
		u = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;

		errno = 0;
		u = strtoull(s, &end, 10);
		if (!*s || *end || errno || *s == '-')
			return bad(l, key, "expected an unsigned integer, found \"%.40s\"", s);
	} else {
		return bad(l, key, "expected an integer");
	}
	if (u > max)
		return bad(l, key, "too large (%llu > %llu)", (unsigned long long)u,
			   (unsigned long long)max);
	*out = u;
	return 0;
}

static int get_uint32(const struct ld *l, json_t *o, const char *key, unsigned int *out)
{
	uint64_t u = *out;
	int ret = get_uint(l, o, key, OPT, UINT_MAX, &u);

	if (!ret)
		*out = (unsigned int)u;
	return ret;
}

static int get_bool(const struct ld *l, json_t *o, const char *key, int req, bool *out)
{
	int ret;
	json_t *v = field(l, o, key, req, &ret);

	if (ret || !v)
		return ret;
	if (!json_is_boolean(v))
		return bad(l, key, "expected true or false");
	*out = json_is_true(v);
	return 0;
}

/* An object (new reference in *out) or null/absent (NULL). */
static int get_obj(const struct ld *l, json_t *o, const char *key, int req, json_t **out)
{
	int ret;
	json_t *v = field(l, o, key, req, &ret);

	if (ret || !v || json_is_null(v))
		return ret;
	if (!json_is_object(v))
		return bad(l, key, "expected an object");
	json_decref(*out);
	*out = json_incref(v);
	return 0;
}

/* An array of at most max elements, borrowed, or NULL when absent. */
static int get_arr(const struct ld *l, json_t *o, const char *key, int req, size_t max,
		   json_t **out)
{
	int ret;
	json_t *v = field(l, o, key, req, &ret);

	*out = NULL;
	if (ret || !v)
		return ret;
	if (!json_is_array(v))
		return bad(l, key, "expected an array");
	if (json_array_size(v) > max)
		return bad(l, key, "too many elements (%zu, the limit is %zu)", json_array_size(v),
			   max);
	*out = v;
	return 0;
}

static int get_strarray(const struct ld *l, json_t *o, const char *key, json_t **out)
{
	json_t *a, *v;
	size_t i;
	int ret = get_arr(l, o, key, OPT, 65536, &a);

	if (ret || !a)
		return ret;
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v)) {
			char k[64];

			snprintf(k, sizeof(k), "%s[%zu]", key, i);
			return bad(l, k, "expected a string");
		}
	}
	json_decref(*out);
	*out = json_incref(a);
	return 0;
}

/* [lo, hi] of numbers or nulls. */
static int get_pair(const struct ld *l, json_t *o, const char *key, double *lo, double *hi)
{
	json_t *a, *x, *y;
	int ret = get_arr(l, o, key, OPT, 2, &a);

	if (ret || !a)
		return ret;
	if (json_array_size(a) != 2)
		return bad(l, key, "expected [lo, hi]");
	x = json_array_get(a, 0);
	y = json_array_get(a, 1);
	if ((!json_is_null(x) && !json_is_number(x)) || (!json_is_null(y) && !json_is_number(y)))
		return bad(l, key, "expected [lo, hi] of numbers or nulls");
	*lo = json_is_null(x) ? NAN : json_number_value(x);
	*hi = json_is_null(y) ? NAN : json_number_value(y);
	if (isfinite(*lo) && isfinite(*hi) && *lo > *hi)
		return bad(l, key, "lo %g is above hi %g", *lo, *hi);
	return 0;
}

/* Enter a child object: path becomes path.key or path.key[i]; returns the old length. */
static size_t push(struct ld *l, const char *key, long idx)
{
	size_t n = strlen(l->path);

	snprintf(l->path + n, sizeof(l->path) - n, "%s%s", n ? "." : "", key);
	if (idx >= 0) {
		size_t m = strlen(l->path);

		snprintf(l->path + m, sizeof(l->path) - m, "[%ld]", idx);
	}
	return n;
}

static void pop(struct ld *l, size_t n)
{
	l->path[n] = '\0';
}

static int want_object(const struct ld *l, json_t *v)
{
	if (json_is_object(v))
		return 0;
	return bad(l, NULL, "expected an object");
}

static int load_sample(struct ld *l, json_t *o, struct tb_cell *c, bool *outlier)
{
	struct tb_sample *s = tb_cell_add_sample(c);
	int64_t round = -1;
	uint64_t ops = 0, order;
	int ret;

	if (!s)
		return -ENOMEM;
	order = s->order;
	if ((ret = want_object(l, o)) || (ret = get_bool(l, o, "failed", OPT, &s->failed)) ||
	    (ret = get_bool(l, o, "warmup", OPT, &s->warmup)))
		return ret;
	if (json_object_get(o, "round")) {
		json_t *v = json_object_get(o, "round");

		if (!json_is_integer(v))
			return bad(l, "round", "expected an integer");
		round = json_integer_value(v);
		if (round < -1 || round > INT_MAX)
			return bad(l, "round", "must be -1 (warmup) or a round number, found %lld",
				   (long long)round);
	}
	s->round = (int)round;
	if ((ret = get_uint(l, o, "order", OPT, UINT_MAX, &order)))
		return ret;
	s->order = (unsigned int)order;
	if ((ret = get_num(l, o, "ns_per_op", REQ, 0, &s->ns_per_op)))
		return ret;
	if (isnan(s->ns_per_op) && !s->failed)
		return bad(l, "ns_per_op", "null is only allowed for a failed sample");
	if ((ret = get_uint(l, o, "ops", OPT, UINT64_MAX, &ops)))
		return ret;
	s->ops = ops;
	if ((ret = get_num(l, o, "elapsed_ns", OPT, 0, &s->elapsed_ns)) ||
	    (ret = get_count(l, o, "events", OPT, &s->events)) ||
	    (ret = get_count(l, o, "lost", OPT, &s->lost)) ||
	    (ret = get_num(l, o, "tracer_cpu_s", OPT, 0, &s->tracer_cpu_s)) ||
	    (ret = get_num(l, o, "workload_cpu_s", OPT, 0, &s->wl_cpu_s)) ||
	    (ret = get_count(l, o, "voluntary_ctxsw", OPT, &s->nvcsw)) ||
	    (ret = get_count(l, o, "involuntary_ctxsw", OPT, &s->nivcsw)) ||
	    (ret = get_count(l, o, "minor_faults", OPT, &s->minflt)) ||
	    (ret = get_num(l, o, "tracer_setup_s", OPT, 0, &s->setup_s)) ||
	    (ret = get_num(l, o, "tracer_teardown_s", OPT, 0, &s->teardown_s)) ||
	    (ret = get_num(l, o, "metric", OPT, -INFINITY, &s->metric)) ||
	    (ret = get_count(l, o, "bpf_run_cnt", OPT, &s->bpf_run_cnt)) ||
	    (ret = get_count(l, o, "bpf_run_time_ns", OPT, &s->bpf_run_time_ns)) ||
	    (ret = get_bool(l, o, "outlier", OPT, outlier)))
		return ret;
	return 0;
}

static int load_summary(struct ld *l, json_t *o, struct tb_summary *s)
{
	uint64_t n = 0, outliers = 0;
	int ret;

	if ((ret = want_object(l, o)) ||
	    (ret = get_uint(l, o, "n", OPT, TB_RESULT_MAX_SAMPLES, &n)) ||
	    (ret = get_num(l, o, "median", OPT, 0, &s->median)) ||
	    (ret = get_num(l, o, "mean", OPT, 0, &s->mean)) ||
	    (ret = get_num(l, o, "sd", OPT, 0, &s->sd)) ||
	    (ret = get_num(l, o, "cv", OPT, 0, &s->cv)) ||
	    (ret = get_num(l, o, "min", OPT, 0, &s->min)) ||
	    (ret = get_num(l, o, "max", OPT, 0, &s->max)) ||
	    (ret = get_num(l, o, "mad", OPT, 0, &s->mad)) ||
	    (ret = get_uint(l, o, "outliers", OPT, TB_RESULT_MAX_SAMPLES, &outliers)))
		return ret;
	s->n = (size_t)n;
	s->outliers = (size_t)outliers;
	return 0;
}

static int load_latency(struct ld *l, json_t *o, struct tb_latency *lat)
{
	json_t *buckets, *b;
	uint64_t count = 0;
	size_t i;
	int ret;

	if ((ret = want_object(l, o)) ||
	    (ret = get_num(l, o, "clock_cost_ns", OPT, 0, &lat->clock_cost_ns)) ||
	    (ret = get_uint(l, o, "count", OPT, UINT64_MAX, &count)) ||
	    (ret = get_num(l, o, "p50", OPT, 0, &lat->p50)) ||
	    (ret = get_num(l, o, "p90", OPT, 0, &lat->p90)) ||
	    (ret = get_num(l, o, "p99", OPT, 0, &lat->p99)) ||
	    (ret = get_num(l, o, "p999", OPT, 0, &lat->p999)) ||
	    (ret = get_num(l, o, "max", OPT, 0, &lat->max)) ||
	    (ret = get_arr(l, o, "buckets", OPT, TB_RESULT_MAX_BUCKETS, &buckets)))
		return ret;
	lat->present = true;
	lat->count = count;
	if (!buckets || !json_array_size(buckets))
		return 0;
	lat->bucket_ns = calloc(json_array_size(buckets), sizeof(*lat->bucket_ns));
	lat->bucket_count = calloc(json_array_size(buckets), sizeof(*lat->bucket_count));
	if (!lat->bucket_ns || !lat->bucket_count)
		return -ENOMEM;
	json_array_foreach(buckets, i, b)
	{
		json_t *u = json_array_get(b, 0), *n = json_array_get(b, 1);
		char k[32];

		snprintf(k, sizeof(k), "buckets[%zu]", i);
		if (!json_is_array(b) || json_array_size(b) != 2 || !json_is_number(u) ||
		    !json_is_integer(n))
			return bad(l, k, "expected [upper_ns, count]");
		if (json_number_value(u) < 0 || json_integer_value(n) < 0)
			return bad(l, k, "negative bound or count");
		if (i && json_number_value(u) <= lat->bucket_ns[i - 1])
			return bad(l, k, "buckets must be sorted by upper_ns");
		lat->bucket_ns[i] = json_number_value(u);
		lat->bucket_count[i] = (uint64_t)json_integer_value(n);
		lat->nbuckets = i + 1;
	}
	return 0;
}

static int load_overhead(struct ld *l, json_t *o, struct tb_overhead *v)
{
	char *verdict = NULL, *reason = NULL;
	int ret;

	if ((ret = want_object(l, o)) || (ret = get_num(l, o, "pct", OPT, -100, &v->pct)) ||
	    (ret = get_pair(l, o, "ci", &v->ci_lo, &v->ci_hi)) ||
	    (ret = get_num(l, o, "mean_pct", OPT, -100, &v->mean_pct)) ||
	    (ret = get_num(l, o, "ns_per_op", OPT, -INFINITY, &v->ns_per_op)) ||
	    (ret = get_pair(l, o, "ns_per_op_ci", &v->ns_ci_lo, &v->ns_ci_hi)) ||
	    (ret = get_num(l, o, "events_per_op", OPT, 0, &v->events_per_op)) ||
	    (ret = get_num(l, o, "ns_per_event", OPT, -INFINITY, &v->ns_per_event)) ||
	    (ret = get_pair(l, o, "ns_per_event_ci", &v->nse_ci_lo, &v->nse_ci_hi)) ||
	    (ret = get_num(l, o, "bpf_ns_per_run", OPT, 0, &v->bpf_ns_per_run)) ||
	    (ret = get_num(l, o, "p_mannwhitney", OPT, 0, &v->p_mannwhitney)) ||
	    (ret = get_num(l, o, "p_welch", OPT, 0, &v->p_welch)) ||
	    (ret = get_num(l, o, "hodges_lehmann_ns", OPT, -INFINITY, &v->hl_shift_ns)) ||
	    (ret = get_num(l, o, "mde_pct", OPT, 0, &v->mde_pct)) ||
	    (ret = get_str(l, o, "verdict", OPT, &verdict)) ||
	    (ret = get_str(l, o, "reason", OPT, &reason)))
		goto out;
	if (v->p_mannwhitney > 1 || v->p_welch > 1) {
		ret = bad(l, v->p_welch > 1 ? "p_welch" : "p_mannwhitney", "a p-value above 1");
		goto out;
	}
	if (verdict && tb_verdict_parse(verdict, &v->verdict)) {
		ret = bad(l, "verdict", "unknown verdict \"%.40s\"", verdict);
		goto out;
	}
	if (reason)
		snprintf(v->reason, sizeof(v->reason), "%s", reason);
out:
	free(verdict);
	free(reason);
	return ret;
}

static int load_cell(struct ld *l, json_t *o, struct tb_cell *c)
{
	json_t *samples, *v;
	uint64_t ops = 0;
	bool *flags = NULL;
	size_t i, n;
	int ret;

	if ((ret = want_object(l, o)) || (ret = get_str(l, o, "id", REQ, &c->id)) ||
	    (ret = get_str(l, o, "workload", REQ, &c->workload)) ||
	    (ret = get_str(l, o, "workload_type", OPT, &c->workload_type)) ||
	    (ret = get_obj(l, o, "workload_config", OPT, &c->workload_config)) ||
	    (ret = get_str(l, o, "tracer", REQ, &c->tracer)) ||
	    (ret = get_str(l, o, "tracer_type", OPT, &c->tracer_type)) ||
	    (ret = get_obj(l, o, "tracer_config", OPT, &c->tracer_config)) ||
	    (ret = get_bool(l, o, "baseline", REQ, &c->baseline)) ||
	    (ret = get_uint32(l, o, "threads", &c->threads)) ||
	    (ret = get_bool(l, o, "latency_mode", OPT, &c->latency_mode)) ||
	    (ret = get_uint(l, o, "ops_per_sample", OPT, UINT64_MAX, &ops)) ||
	    (ret = get_num(l, o, "event_rate", OPT, 0, &c->rate)) ||
	    (ret = get_count(l, o, "events_recorded", OPT, &c->events_recorded)) ||
	    (ret = get_count(l, o, "events_lost", OPT, &c->events_lost)) ||
	    (ret = get_num(l, o, "tracer_cpu_s", OPT, 0, &c->tracer_cpu_s)) ||
	    (ret = get_count(l, o, "tracer_mem_bytes", OPT, &c->tracer_mem_bytes)) ||
	    (ret = get_obj(l, o, "tracer_extra", OPT, &c->tracer_extra)) ||
	    (ret = get_str(l, o, "error", OPT, &c->error)) ||
	    (ret = get_arr(l, o, "samples", REQ, TB_RESULT_MAX_SAMPLES, &samples)))
		return ret;
	c->ops_per_sample = ops;
	if (!c->threads)
		return bad(l, "threads", "must be >= 1");
	n = json_array_size(samples);
	if (n) {
		flags = calloc(n, sizeof(*flags));
		if (!flags)
			return -ENOMEM;
	}
	json_array_foreach(samples, i, v)
	{
		size_t old = push(l, "samples", (long)i);

		ret = load_sample(l, v, c, &flags[i]);
		pop(l, old);
		if (ret)
			goto out;
	}
	for (i = 0; i < n; i++)
		if (flags[i])
			break;
	if (i < n) { /* keep the flags only when some sample is flagged */
		c->summary.outlier = flags;
		c->summary.noutlier = n;
		flags = NULL;
	}
	if ((v = json_object_get(o, "summary")) && !json_is_null(v)) {
		size_t old = push(l, "summary", -1);

		ret = load_summary(l, v, &c->summary);
		pop(l, old);
		if (ret)
			goto out;
	}
	if ((v = json_object_get(o, "latency")) && !json_is_null(v)) {
		size_t old = push(l, "latency", -1);

		ret = load_latency(l, v, &c->latency);
		pop(l, old);
		if (ret)
			goto out;
	}
	if ((v = json_object_get(o, "overhead")) && !json_is_null(v)) {
		size_t old = push(l, "overhead", -1);

		ret = load_overhead(l, v, &c->overhead);
		pop(l, old);
		if (ret)
			goto out;
		c->has_overhead = true;
	}
out:
	free(flags);
	return ret;
}

static int load_settings(struct ld *l, json_t *o, struct tb_result *r)
{
	uint64_t seed = r->seed, dur = r->duration_ns;
	unsigned int resamples = r->resamples;
	int ret;

	if ((ret = want_object(l, o)) || (ret = get_uint(l, o, "seed", OPT, UINT64_MAX, &seed)) ||
	    (ret = get_uint32(l, o, "rounds", &r->rounds)) ||
	    (ret = get_uint32(l, o, "warmup", &r->warmup)) ||
	    (ret = get_uint(l, o, "duration_ns", OPT, UINT64_MAX, &dur)) ||
	    (ret = get_num(l, o, "noise_threshold", OPT, 0, &r->noise_threshold)) ||
	    (ret = get_unit(l, o, "alpha", &r->alpha)) ||
	    (ret = get_unit(l, o, "power", &r->power)) ||
	    (ret = get_unit(l, o, "confidence", &r->confidence)) ||
	    (ret = get_uint32(l, o, "bootstrap_resamples", &resamples)) ||
	    (ret = get_num(l, o, "precision", OPT, 0, &r->precision)) ||
	    (ret = get_num(l, o, "max_cv", OPT, 0, &r->max_cv)) ||
	    (ret = get_bool(l, o, "aa", OPT, &r->aa)))
		return ret;
	if (isnan(r->noise_threshold))
		r->noise_threshold = 0.01;
	if (isnan(r->max_cv) || r->max_cv <= 0)
		r->max_cv = 0.10;
	if (isnan(r->precision))
		r->precision = 0;
	if (resamples > 10000000)
		return bad(l, "bootstrap_resamples", "too large (%u > 10000000)", resamples);
	r->seed = seed;
	r->duration_ns = dur;
	r->resamples = resamples;
	return 0;
}

static int load_aa(struct ld *l, json_t *o, struct tb_aa_summary *a)
{
	uint64_t n = 0, fp = 0;
	int ret;

	if ((ret = want_object(l, o)) ||
	    (ret = get_uint(l, o, "cells", OPT, TB_RESULT_MAX_CELLS, &n)) ||
	    (ret = get_uint(l, o, "false_positives", OPT, TB_RESULT_MAX_CELLS, &fp)) ||
	    (ret = get_num(l, o, "false_positive_rate", OPT, 0, &a->fp_rate)) ||
	    (ret = get_num(l, o, "noise_floor_pct", OPT, 0, &a->noise_floor_pct)) ||
	    (ret = get_num(l, o, "max_abs_pct", OPT, 0, &a->max_abs_pct)))
		return ret;
	a->present = true;
	a->ncells = (size_t)n;
	a->false_positives = (size_t)fp;
	return 0;
}

static int load_rate_model(struct ld *l, json_t *o, struct tb_rate_model *m)
{
	uint64_t n = 0;
	int ret;

	if ((ret = want_object(l, o)) ||
	    (ret = get_str(l, o, "workload_type", OPT, &m->workload_type)) ||
	    (ret = get_str(l, o, "tracer", REQ, &m->tracer)) ||
	    (ret = get_uint(l, o, "points", OPT, TB_RESULT_MAX_CELLS, &n)) ||
	    (ret = get_num(l, o, "fixed_ns", OPT, -INFINITY, &m->fixed_ns)) ||
	    (ret = get_pair(l, o, "fixed_ns_ci", &m->fixed_ci_lo, &m->fixed_ci_hi)) ||
	    (ret = get_num(l, o, "cost_ns_per_event", OPT, -INFINITY, &m->cost_ns)) ||
	    (ret = get_pair(l, o, "cost_ns_per_event_ci", &m->cost_ci_lo, &m->cost_ci_hi)) ||
	    (ret = get_num(l, o, "r2", OPT, -INFINITY, &m->r2)) ||
	    (ret = get_num(l, o, "pct_fixed", OPT, -INFINITY, &m->pct_fixed)) ||
	    (ret = get_num(l, o, "pct_per_mevents_s", OPT, -INFINITY, &m->pct_per_mevent_s)) ||
	    (ret = get_num(l, o, "p_quadratic", OPT, 0, &m->p_quadratic)) ||
	    (ret = get_bool(l, o, "nonlinear", OPT, &m->nonlinear)))
		return ret;
	m->npoints = (size_t)n;
	return 0;
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

static int load_top(struct ld *l, json_t *doc, struct tb_result *r)
{
	json_t *o, *cells, *v;
	size_t i;
	int ret;

	if (!json_is_object(doc))
		return bad(l, NULL, "expected a JSON object at the top level");
	o = json_object_get(doc, "schema");
	if (!o)
		return bad(l, "schema", "required key missing (not a tracebench result?)");
	if (!json_is_string(o))
		return bad(l, "schema", "expected a string");
	if (strcmp(json_string_value(o), TB_RESULT_SCHEMA))
		return bad(l, "schema", "unsupported schema \"%.60s\" (expected \"%s\")",
			   json_string_value(o), TB_RESULT_SCHEMA);
	if ((o = json_object_get(doc, "tool")) && !json_is_null(o)) {
		size_t old = push(l, "tool", -1);

		if (!(ret = want_object(l, o)))
			ret = get_str(l, o, "version", OPT, &r->tool_version);
		pop(l, old);
		if (ret)
			return ret;
	}
	if ((o = json_object_get(doc, "scenario")) && !json_is_null(o)) {
		size_t old = push(l, "scenario", -1);

		if (!(ret = want_object(l, o)) &&
		    !(ret = get_str(l, o, "name", OPT, &r->scenario_name)) &&
		    !(ret = get_str(l, o, "path", OPT, &r->scenario_path)))
			ret = get_str(l, o, "text", OPT, &r->scenario_text);
		pop(l, old);
		if (ret)
			return ret;
	}
	if ((ret = get_str(l, doc, "command_line", OPT, &r->command_line)) ||
	    (ret = get_str(l, doc, "started", OPT, &r->started)) ||
	    (ret = get_str(l, doc, "finished", OPT, &r->finished)) ||
	    (ret = get_bool(l, doc, "partial", OPT, &r->partial)) ||
	    (ret = get_str(l, doc, "stop_reason", OPT, &r->stop_reason)) ||
	    (ret = get_obj(l, doc, "system", OPT, &r->system)) ||
	    (ret = get_strarray(l, doc, "foreign_instrumentation", &r->foreign)) ||
	    (ret = get_strarray(l, doc, "warnings", &r->warnings)) ||
	    (ret = get_obj(l, doc, "gate", OPT, &r->gate)))
		return ret;
	if ((o = json_object_get(doc, "settings")) && !json_is_null(o)) {
		size_t old = push(l, "settings", -1);

		ret = load_settings(l, o, r);
		pop(l, old);
		if (ret)
			return ret;
	}
	if ((ret = get_arr(l, doc, "cells", REQ, TB_RESULT_MAX_CELLS, &cells)))
		return ret;
	json_array_foreach(cells, i, v)
	{
		size_t old = push(l, "cells", (long)i);
		struct tb_cell *c = tb_result_add_cell(r);

		ret = c ? load_cell(l, v, c) : -ENOMEM;
		if (!ret) {
			for (size_t j = 0; j < i; j++) {
				if (!strcmp(r->cells[j].id, c->id)) {
					ret = bad(l, "id",
						  "duplicate cell id \"%.60s\" (also cells[%zu])",
						  c->id, j);
					break;
				}
			}
		}
		pop(l, old);
		if (ret)
			return ret;
	}
	if ((o = json_object_get(doc, "aa_calibration")) && !json_is_null(o)) {
		size_t old = push(l, "aa_calibration", -1);

		ret = load_aa(l, o, &r->aa_summary);
		pop(l, old);
		if (ret)
			return ret;
	}
	if ((ret = get_arr(l, doc, "rate_models", OPT, TB_RESULT_MAX_CELLS, &o)))
		return ret;
	json_array_foreach(o, i, v)
	{
		size_t old = push(l, "rate_models", (long)i);
		struct tb_rate_model *m = tb_result_add_rate_model(r);

		ret = m ? load_rate_model(l, v, m) : -ENOMEM;
		pop(l, old);
		if (ret)
			return ret;
	}
	return 0;
}

int tb_result_from_json(json_t *doc, const char *what, struct tb_result **out)
{
	struct ld l = {.what = what ? what : "result"};
	struct tb_result *r;
	int ret;

	*out = NULL;
	last_error[0] = '\0';
	r = tb_result_new();
	if (!r)
		return -ENOMEM;
	ret = load_top(&l, doc, r);
	if (ret) {
		if (ret == -ENOMEM)
			tb_err("%s: out of memory", l.what);
		tb_result_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

int tb_result_load(const char *path, struct tb_result **out)
{
	json_error_t jerr;
	struct stat st;
	json_t *doc;
	int ret;

	*out = NULL;
	last_error[0] = '\0';
	if (stat(path, &st)) {
		ret = -errno;
		snprintf(last_error, sizeof(last_error), "%s: cannot read: %s", path,
			 strerror(errno));
		tb_err("%s", last_error);
		return ret == -ENOENT ? -ENOENT : -EIO;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > TB_RESULT_MAX_FILE_BYTES) {
		snprintf(last_error, sizeof(last_error), "%s: %s", path,
			 S_ISREG(st.st_mode) ? "too large for a result file (over 1 GiB)"
					     : "not a regular file");
		tb_err("%s", last_error);
		return -EINVAL;
	}
	/* Duplicate keys would make "which value counts" ambiguous: refuse them. */
	doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		if (json_error_code(&jerr) == json_error_cannot_open_file) {
			snprintf(last_error, sizeof(last_error), "%s: cannot read: %s", path,
				 jerr.text);
			tb_err("%s", last_error);
			return -EIO;
		}
		snprintf(last_error, sizeof(last_error), "%s:%d:%d: malformed JSON: %s", path,
			 jerr.line, jerr.column, jerr.text);
		tb_err("%s", last_error);
		return json_error_code(&jerr) == json_error_out_of_memory ? -ENOMEM : -EINVAL;
	}
	ret = tb_result_from_json(doc, path, out);
	json_decref(doc);
	return ret;
}
