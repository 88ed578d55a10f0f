// SPDX-License-Identifier: GPL-2.0
/*
 * result.json into the model (result.h), with strict validation.
 *
 * Required keys: schema, cells; per cell id, workload, tracer, baseline, samples; per sample
 * ns_per_op. Every other key is optional, but when present it must have the right type and a
 * sane value. Unknown keys are ignored so that newer writers stay readable.
 *
 * What a value may be is decided here, once, so that nothing downstream (GSL, the plots, the
 * report) meets a number it cannot handle: every number is finite and at most
 * TB_RESULT_MAX_VALUE in magnitude, ns/op of a completed sample at least TB_RESULT_MIN_NS,
 * counts are integers (-1 or null for unknown), probabilities within [0, 1]. Strings keep no
 * control character: each is escaped as text ("\x1b"), so that no ESC sequence from a result
 * reaches a terminal, a page or a data file; an object key with one is refused.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tb.h"
#include "model/bpf-progs.h"
#include "model/explain.h"
#include "core/utf8.h"
#include "model/labels.h"
#include "model/proof.h"
#include "model/result.h"

/* A result file larger than this is refused before parsing (jansson holds it all in memory). */
#define TB_RESULT_MAX_FILE_BYTES (1024ull * 1024 * 1024)

static __thread char last_error[512];

const char *tb_result_last_error(void)
{
	return last_error;
}

/* ---- from JSON, validating ------------------------------------------------------------------- */

struct ld {
	const char *what; /* file name, for messages */
	char path[160];	  /* key path of the current object: "cells[2].samples[0]" */
};

static int __attribute__((format(printf, 3, 4)))
bad(const struct ld *l, const char *key, const char *fmt, ...)
{
	char msg[320], raw[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(raw, sizeof(raw), "%s: %s%s%s%s%s", l->what, l->path, (*l->path && key) ? "." : "",
		 key ? key : "", (*l->path || key) ? ": " : "", msg);
	/* The message may quote the file's own strings. */
	tb_escape_controls_buf(raw, false, last_error, sizeof(last_error));
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

/* Only the scenario's text and the warnings hold lines; other strings are one line. */
static bool multiline_key(const char *key)
{
	return !strcmp(key, "text");
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
	*out = tb_escape_controls(json_string_value(v), multiline_key(key));
	return *out ? 0 : -ENOMEM;
}

/* Escape the controls of every string in the tree j (in place); a key with one is refused. */
static int clean_tree(const struct ld *l, const char *where, json_t *j, bool multiline)
{
	const char *k;
	json_t *v;
	size_t i;
	int ret;

	if (json_is_string(j)) {
		char *s;

		if (tb_control_at(json_string_value(j), multiline) < 0)
			return 0;
		s = tb_escape_controls(json_string_value(j), multiline);
		ret = !s || json_string_set(j, s) ? -ENOMEM : 0;
		free(s);
		return ret;
	}
	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
		{
			if ((ret = clean_tree(l, where, v, multiline)))
				return ret;
		}
	} else if (json_is_object(j)) {
		json_object_foreach(j, k, v)
		{
			if (tb_control_at(k, false) >= 0)
				return bad(l, where, "a key with a control character");
			if ((ret = clean_tree(l, where, v, multiline)))
				return ret;
		}
	}
	return 0;
}

/* A number in [min, max], or null for unknown (NAN). */
static int get_range(const struct ld *l, json_t *o, const char *key, int req, double min,
		     double max, double *out)
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
	if (d > max)
		return bad(l, key, "must be <= %g, found %g", max, d);
	*out = d;
	return 0;
}

/* A number of at most TB_RESULT_MAX_VALUE in magnitude; min is the lowest acceptable value
 * (-INFINITY: down to -TB_RESULT_MAX_VALUE). */
static int get_num(const struct ld *l, json_t *o, const char *key, int req, double min, double *out)
{
	return get_range(l, o, key, req, fmax(min, -TB_RESULT_MAX_VALUE), TB_RESULT_MAX_VALUE, out);
}

/* A probability, or null. */
static int get_prob(const struct ld *l, json_t *o, const char *key, double *out)
{
	return get_range(l, o, key, OPT, 0, 1, out);
}

/* A string into a fixed buffer of the model; too long for it is an error, not a truncation. */
static int get_text(const struct ld *l, json_t *o, const char *key, char *buf, size_t size)
{
	int ret;
	json_t *v = field(l, o, key, OPT, &ret);

	if (ret || !v || json_is_null(v))
		return ret;
	if (!json_is_string(v))
		return bad(l, key, "expected a string");
	if (json_string_length(v) >= size)
		return bad(l, key, "longer than %zu bytes", size - 1);
	/* Its controls written out as text, as every string the reader keeps. */
	tb_escape_controls_buf(json_string_value(v), false, buf, size);
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
	if ((ret = clean_tree(l, key, v, false)))
		return ret;
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
	if ((ret = clean_tree(l, key, a, true)))
		return ret;
	json_decref(*out);
	*out = json_incref(a);
	return 0;
}

/* labels: an object of strings, each label checked as `run --label` checks it. */
static int get_labels(const struct ld *l, json_t *o, json_t **out)
{
	json_t *a = json_object_get(o, "labels"), *v;
	char err[256];
	const char *k;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_object(a))
		return bad(l, "labels", "expected an object");
	if (json_object_size(a) > TB_LABELS_MAX)
		return bad(l, "labels", "more than %d labels", TB_LABELS_MAX);
	json_object_foreach(a, k, v)
	{
		if (!json_is_string(v))
			return bad(l, "labels", "%.64s: expected a string", k);
		if (tb_label_check(k, json_string_value(v), err, sizeof(err)))
			return bad(l, "labels", "%s", err);
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
	if (fabs(*lo) > TB_RESULT_MAX_VALUE || fabs(*hi) > TB_RESULT_MAX_VALUE)
		return bad(l, key, "a bound beyond %g", TB_RESULT_MAX_VALUE);
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
	    (ret = get_bool(l, o, "warmup", OPT, &s->warmup)) ||
	    (ret = get_bool(l, o, "abandoned", OPT, &s->abandoned)) ||
	    (ret = get_bool(l, o, "partial_round", OPT, &s->partial_round)))
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
	if (isnan(s->ns_per_op) && !s->failed && !s->abandoned)
		return bad(l, "ns_per_op", "null is only allowed for a failed sample");
	/* A completed sample took time: 0 (or a denormal) would make every ratio infinite. */
	if (!s->failed && !s->abandoned && s->ns_per_op < TB_RESULT_MIN_NS)
		return bad(l, "ns_per_op", "must be >= %g for a completed sample, found %g",
			   TB_RESULT_MIN_NS, s->ns_per_op);
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
	    (ret = get_range(l, o, "metric", OPT, -TB_RESULT_MAX_METRIC, TB_RESULT_MAX_METRIC,
			     &s->metric)) ||
	    (ret = get_count(l, o, "bpf_run_cnt", OPT, &s->bpf_run_cnt)) ||
	    (ret = get_count(l, o, "bpf_run_time_ns", OPT, &s->bpf_run_time_ns)) ||
	    (ret = get_count(l, o, "tracer_disk_bytes", OPT, &s->disk_bytes)) ||
	    (ret = get_count(l, o, "workload_events", OPT, &s->workload_events)) ||
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
		if (json_number_value(u) > TB_RESULT_MAX_VALUE)
			return bad(l, k, "a bound beyond %g ns", TB_RESULT_MAX_VALUE);
		if (i && json_number_value(u) <= lat->bucket_ns[i - 1])
			return bad(l, k, "buckets must be sorted by upper_ns");
		lat->bucket_ns[i] = json_number_value(u);
		lat->bucket_count[i] = (uint64_t)json_integer_value(n);
		lat->nbuckets = i + 1;
	}
	return 0;
}

/* overhead's ns_per_event_reason, cost_driver {unit, per_op, ns, ci} and its reason. */
static int load_driver(struct ld *l, json_t *o, struct tb_overhead *v)
{
	json_t *d = json_object_get(o, "cost_driver");
	size_t old;
	int ret;

	if ((ret = get_text(l, o, "ns_per_event_reason", v->nse_reason, sizeof(v->nse_reason))) ||
	    (ret = get_text(l, o, "cost_driver_reason", v->driver_reason,
			    sizeof(v->driver_reason))))
		return ret;
	if (!d || json_is_null(d))
		return 0;
	old = push(l, "cost_driver", -1);
	if (!(ret = want_object(l, d)) &&
	    !(ret = get_text(l, d, "unit", v->driver, sizeof(v->driver))) &&
	    !(ret = get_num(l, d, "per_op", OPT, 0, &v->driver_per_op)) &&
	    !(ret = get_num(l, d, "ns", OPT, -INFINITY, &v->ns_per_driver)))
		ret = get_pair(l, d, "ci", &v->npd_lo, &v->npd_hi);
	pop(l, old);
	return ret;
}

/* One entry of expected_events.events or .near_misses. */
static int load_expect_item(struct ld *l, json_t *o, struct tb_expected *x, bool near)
{
	struct tb_near_miss *nm = near ? &x->near[x->nnear] : NULL;
	struct tb_hook_expect *it = near ? NULL : &x->items[x->nitems];
	int ret;

	if ((ret = want_object(l, o)))
		return ret;
	if (near) {
		if ((ret = get_text(l, o, "hooked", nm->hooked, sizeof(nm->hooked))) ||
		    (ret = get_text(l, o, "does", nm->does, sizeof(nm->does))) ||
		    (ret = get_text(l, o, "hook", nm->hook, sizeof(nm->hook))) ||
		    (ret = get_num(l, o, "per_op", OPT, 0, &nm->per_op)))
			return ret;
		x->nnear++;
		return 0;
	}
	it->per_op = NAN;
	if ((ret = get_text(l, o, "event", it->name, sizeof(it->name))) ||
	    (ret = get_num(l, o, "per_op", OPT, 0, &it->per_op)) ||
	    (ret = get_bool(l, o, "approx", OPT, &it->approx)))
		return ret;
	x->nitems++;
	return 0;
}

static int load_expect_items(struct ld *l, json_t *o, const char *key, struct tb_expected *x)
{
	bool near = !strcmp(key, "near_misses");
	json_t *a, *v;
	size_t i;
	int ret = get_arr(l, o, key, OPT, near ? TB_NEAR_MISSES : TB_EXPECT_ITEMS, &a);

	json_array_foreach(ret ? NULL : a, i, v)
	{
		size_t old = push(l, key, (long)i);

		ret = load_expect_item(l, v, x, near);
		pop(l, old);
		if (ret)
			return ret;
	}
	return ret;
}

/* A name of core/events.h's (kind, scope) into *out. */
static int get_name(const struct ld *l, json_t *o, const char *key, int (*parse)(const char *),
		    int *out)
{
	char buf[32] = "";
	int ret = get_text(l, o, key, buf, sizeof(buf)), v;

	if (ret || !buf[0])
		return ret;
	v = parse(buf);
	if (v < 0)
		return bad(l, key, "unknown value \"%s\"", buf);
	*out = v;
	return 0;
}

static int load_expected(struct ld *l, json_t *o, struct tb_expected *x)
{
	double approx_zero = 0, ncounted = 1;
	int ret;

	memset(x, 0, sizeof(*x));
	x->scope = TB_SCOPE_SYSTEM;
	if ((ret = want_object(l, o)) ||
	    (ret = get_name(l, o, "kind", tb_hook_kind_parse, &x->kind)) ||
	    (ret = get_name(l, o, "scope", tb_hook_scope_parse, &x->scope)) ||
	    (ret = get_num(l, o, "exact_per_op", OPT, 0, &x->exact_per_op)) ||
	    (ret = get_num(l, o, "approx_per_op", OPT, 0, &x->approx_per_op)) ||
	    (ret = get_num(l, o, "approx_zero", OPT, 0, &approx_zero)) ||
	    (ret = get_num(l, o, "counted_hooks", OPT, 0, &ncounted)) ||
	    (ret = get_bool(l, o, "unknown", OPT, &x->unknown)) ||
	    (ret = get_bool(l, o, "at_least", OPT, &x->at_least)) ||
	    (ret = get_bool(l, o, "filtered", OPT, &x->filtered)) ||
	    (ret = get_bool(l, o, "attributes", OPT, &x->attributes)) ||
	    (ret = get_num(l, o, "harness_per_sample", OPT, 0, &x->harness_per_sample)) ||
	    (ret = load_expect_items(l, o, "events", x)) ||
	    (ret = load_expect_items(l, o, "near_misses", x)) ||
	    (ret = get_text(l, o, "hooks", x->hooks, sizeof(x->hooks))) ||
	    (ret = get_text(l, o, "does", x->does, sizeof(x->does))) ||
	    (ret = get_text(l, o, "unknown_hook", x->unknown_hook, sizeof(x->unknown_hook))))
		return ret;
	if (approx_zero > 1e6 || approx_zero != floor(approx_zero))
		return bad(l, "approx_zero", "expected a small integer, found %g", approx_zero);
	if (ncounted > 1e6 || ncounted != floor(ncounted))
		return bad(l, "counted_hooks", "expected a small integer, found %g", ncounted);
	x->ncounted = (unsigned int)ncounted;
	/* null (unknown) sums mean nothing expected of that kind */
	if (isnan(x->exact_per_op))
		x->exact_per_op = 0;
	if (isnan(x->approx_per_op))
		x->approx_per_op = 0;
	if (isnan(x->harness_per_sample))
		x->harness_per_sample = 0;
	x->approx_zero = (unsigned int)approx_zero;
	x->present = true;
	return 0;
}

static int load_proof(struct ld *l, json_t *o, struct tb_proof *p)
{
	char outcome[32] = "";
	int ret, v;

	tb_proof_init(p);
	if ((ret = want_object(l, o)) ||
	    (ret = get_text(l, o, "outcome", outcome, sizeof(outcome))) ||
	    (ret = get_num(l, o, "events_per_op", OPT, 0, &p->events_per_op)) ||
	    (ret = get_num(l, o, "expected_per_op", OPT, 0, &p->expected_per_op)) ||
	    (ret = get_bool(l, o, "blocks", OPT, &p->blocks)) ||
	    (ret = get_text(l, o, "message", p->message, sizeof(p->message))))
		return ret;
	v = tb_proof_outcome_parse(outcome);
	if (v < 0)
		return bad(l, "outcome", "unknown outcome \"%s\"", outcome);
	p->outcome = (enum tb_proof_outcome)v;
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
	    (ret = get_prob(l, o, "p_mannwhitney", &v->p_mannwhitney)) ||
	    (ret = get_prob(l, o, "p_welch", &v->p_welch)) ||
	    (ret = get_num(l, o, "hodges_lehmann_ns", OPT, -INFINITY, &v->hl_shift_ns)) ||
	    (ret = get_num(l, o, "mde_pct", OPT, 0, &v->mde_pct)) ||
	    (ret = get_str(l, o, "verdict", OPT, &verdict)) ||
	    (ret = get_str(l, o, "reason", OPT, &reason)))
		goto out;
	if (verdict && tb_verdict_parse(verdict, &v->verdict)) {
		ret = bad(l, "verdict", "unknown verdict \"%.40s\"", verdict);
		goto out;
	}
	if (reason)
		snprintf(v->reason, sizeof(v->reason), "%s", reason);
	ret = load_driver(l, o, v);
out:
	free(verdict);
	free(reason);
	return ret;
}

/* An optional object member through its loader, with the key on the error path. */
static int load_member(struct ld *l, json_t *doc, const char *key,
		       int (*load)(struct ld *l, json_t *o, void *arg), void *arg)
{
	json_t *o = json_object_get(doc, key);
	size_t old;
	int ret;

	if (!o || json_is_null(o))
		return 0;
	old = push(l, key, -1);
	ret = load(l, o, arg);
	pop(l, old);
	return ret;
}

static int load_expected_arg(struct ld *l, json_t *o, void *x)
{
	return load_expected(l, o, x);
}

static int load_proof_arg(struct ld *l, json_t *o, void *p)
{
	return load_proof(l, o, p);
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
	if (c->tracer_extra) {
		char why[256];

		ret = tb_cell_bpf_load(c, c->tracer_extra, why, sizeof(why));
		if (ret == -EINVAL)
			return bad(l, "tracer_extra", "%s", why);
		if (ret)
			return ret;
	}
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
	if (!(ret = load_member(l, o, "expected_events", load_expected_arg, &c->expected)))
		ret = load_member(l, o, "proof", load_proof_arg, &c->proof);
	if (!ret && (v = json_object_get(o, "explain")) && !json_is_null(v)) {
		char err[320];

		ret = tb_cell_explain_from_json(v, &c->explain, err, sizeof(err));
		if (ret == -EINVAL)
			ret = bad(l, "explain", "%s", err);
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
	    (ret = get_range(l, o, "noise_threshold", OPT, 0, 10, &r->noise_threshold)) ||
	    (ret = get_unit(l, o, "alpha", &r->alpha)) ||
	    (ret = get_unit(l, o, "power", &r->power)) ||
	    (ret = get_unit(l, o, "confidence", &r->confidence)) ||
	    (ret = get_uint32(l, o, "bootstrap_resamples", &resamples)) ||
	    (ret = get_range(l, o, "precision", OPT, 0, 1, &r->precision)) ||
	    (ret = get_range(l, o, "max_cv", OPT, 0, 10, &r->max_cv)) ||
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
	    (ret = get_prob(l, o, "false_positive_rate", &a->fp_rate)) ||
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
	    (ret = get_prob(l, o, "p_quadratic", &m->p_quadratic)) ||
	    (ret = get_bool(l, o, "nonlinear", OPT, &m->nonlinear)) ||
	    (ret = get_bool(l, o, "accepted", OPT, &m->accepted)) ||
	    (ret = get_text(l, o, "why_not", m->why_not, sizeof(m->why_not))))
		return ret;
	m->npoints = (size_t)n;
	/* results from before the acceptance rule: a fitted slope was shown */
	if (!json_object_get(o, "accepted"))
		m->accepted = isfinite(m->cost_ns);
	return 0;
}

/* schema, tool, scenario and the run's top-level strings. */
static int load_header(struct ld *l, json_t *doc, struct tb_result *r)
{
	json_t *o;
	int ret;

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
	    (ret = get_strarray(l, doc, "unsupported", &r->unsupported)) ||
	    (ret = get_obj(l, doc, "gate", OPT, &r->gate)) ||
	    (ret = get_labels(l, doc, &r->labels)))
		return ret;
	return 0;
}

static int load_settings_arg(struct ld *l, json_t *o, void *r)
{
	return load_settings(l, o, r);
}

static int load_aa_arg(struct ld *l, json_t *o, void *a)
{
	return load_aa(l, o, a);
}

static int load_cells(struct ld *l, json_t *doc, struct tb_result *r)
{
	json_t *cells, *v;
	size_t i;
	int ret;

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
	return 0;
}

static int load_rate_models(struct ld *l, json_t *doc, struct tb_result *r)
{
	json_t *o, *v;
	size_t i;
	int ret;

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

static int load_top(struct ld *l, json_t *doc, struct tb_result *r)
{
	int ret;

	if (!json_is_object(doc))
		return bad(l, NULL, "expected a JSON object at the top level");
	if ((ret = load_header(l, doc, r)) ||
	    (ret = load_member(l, doc, "settings", load_settings_arg, r)) ||
	    (ret = load_cells(l, doc, r)) ||
	    (ret = load_member(l, doc, "aa_calibration", load_aa_arg, &r->aa_summary)))
		return ret;
	return load_rate_models(l, doc, r);
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

/* The directory of path, new string ("." for a bare name), or NULL on ENOMEM. */
static char *dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

int tb_result_load(const char *path, struct tb_result **out)
{
	return tb_result_load_doc(path, out, NULL);
}

int tb_result_load_doc(const char *path, struct tb_result **out, json_t **docp)
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
	if (!ret && !((*out)->dir = dir_of(path))) {
		tb_result_free(*out);
		*out = NULL;
		ret = -ENOMEM;
	}
	if (!ret && docp)
		*docp = doc;
	else
		json_decref(doc);
	return ret;
}
