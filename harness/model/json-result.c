// SPDX-License-Identifier: GPL-2.0
/*
 * The field tables of result.json (json-fields.h): one per object of the model (result.h), in
 * the order the keys are written. json-write.c writes a result by them, json-read.c reads one
 * back. What a value may be is decided here, once, so that nothing downstream (GSL, the plots,
 * the report) meets a number it cannot handle: every number is finite and at most
 * TB_RESULT_MAX_VALUE in magnitude, ns/op of a completed sample at least TB_RESULT_MIN_NS,
 * counts are integers (-1 or null for unknown), probabilities within [0, 1].
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/bpf-progs.h"
#include "model/explain.h"
#include "model/json-util.h"
#include "model/json-result.h"
#include "model/labels.h"
#include "model/proof.h"

#include "model/json-rows.h"

/* ---- a sample -------------------------------------------------------------------------------- */

/* [round]: -1 (a warmup) or a round number. */
static int round_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	return tb_json_set(o, f->key, json_integer(((const struct tb_sample *)base)->round));
}

static int round_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		      void *base)
{
	json_int_t round;

	if (!v)
		return 0;
	if (!json_is_integer(v))
		return tb_json_bad(rd, f->key, "expected an integer");
	round = json_integer_value(v);
	if (round < -1 || round > INT_MAX)
		return tb_json_bad(rd, f->key, "must be -1 (warmup) or a round number, found %lld",
				   (long long)round);
	((struct tb_sample *)base)->round = (int)round;
	return 0;
}

static const struct tb_json_custom round_io = {round_write, round_read};

/* [bpf_stats]: true or false when the tracer held a BPF account, absent (-1) otherwise. */
static int bpf_stats_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	int v = ((const struct tb_sample *)base)->bpf_stats;

	return v < 0 ? 0 : tb_json_set(o, f->key, json_boolean(v));
}

static int bpf_stats_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
			  void *base)
{
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_boolean(v))
		return tb_json_bad(rd, f->key, "expected true, false or null");
	((struct tb_sample *)base)->bpf_stats = json_is_true(v);
	return 0;
}

static const struct tb_json_custom bpf_stats_io = {bpf_stats_write, bpf_stats_read};

/* A completed sample took time: 0 (or a denormal) would make every ratio infinite. */
static int sample_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	const struct tb_sample *s = base;

	(void)o;
	if (isnan(s->ns_per_op) && !s->failed && !s->abandoned)
		return tb_json_bad(rd, "ns_per_op", "null is only allowed for a failed sample");
	if (!s->failed && !s->abandoned && s->ns_per_op < TB_RESULT_MIN_NS)
		return tb_json_bad(rd, "ns_per_op",
				   "must be >= %g for a completed sample, found %g",
				   TB_RESULT_MIN_NS, s->ns_per_op);
	return 0;
}

#define T struct tb_sample
static const struct tb_json_field sample_fields[] = {
	F_CUSTOM("round", &round_io, 0),
	F_BOOL("warmup", warmup, 0),
	F_UINT("order", order, UINT_MAX),
	F_RANGE("ns_per_op", ns_per_op, 0, MAXV, TB_JSON_REQ),
	F_UINT("ops", ops, UINT64_MAX),
	F_NUM("elapsed_ns", elapsed_ns, 0),
	F_COUNT("events", events, 0),
	F_COUNT("lost", lost, 0),
	F_NUM("tracer_cpu_s", tracer_cpu_s, 0),
	F_RANGE("consumer_ns_per_event", consumer_ns_per_event, 0, MAXV,
		TB_JSON_OMIT | TB_JSON_OUT),
	F_NUM("workload_cpu_s", wl_cpu_s, 0),
	F_COUNT("voluntary_ctxsw", nvcsw, 0),
	F_COUNT("involuntary_ctxsw", nivcsw, 0),
	F_COUNT("minor_faults", minflt, 0),
	F_NUM("tracer_setup_s", setup_s, 0),
	F_NUM("tracer_teardown_s", teardown_s, 0),
	F_RANGE("metric", metric, -TB_RESULT_MAX_METRIC, TB_RESULT_MAX_METRIC, 0),
	F_BOOL("failed", failed, 0),
	F_BOOL("abandoned", abandoned, TB_JSON_OMIT),
	F_BOOL("partial_round", partial_round, TB_JSON_OMIT),
	F_COUNT("bpf_run_cnt", bpf_run_cnt, 0),
	F_COUNT("bpf_run_time_ns", bpf_run_time_ns, 0),
	F_COUNT("tracer_disk_bytes", disk_bytes, 0),
	F_COUNT("workload_events", workload_events, TB_JSON_OMIT),
	F_BOOL("accounting", accounting, TB_JSON_OMIT),
	F_BOOL("rearmed", rearmed, TB_JSON_OMIT),
	F_CUSTOM("bpf_stats", &bpf_stats_io, 0),
	F_COUNT("cpu_wait_ns", wait_ns, TB_JSON_OMIT),
	F_COUNT("cpu_steal_ns", steal_ns, TB_JSON_OMIT),
	F_CHILD_SEEN("service", svc, svc.present, &tb_json_sample_service_table),
	F_TEXT("rerun", rerun, TB_JSON_OMIT),
	F_END,
};
#undef T

static const struct tb_json_table sample_table = {sample_fields, NULL, sample_check};

/* [outlier] of a sample, kept in the cell's summary: a table of one bool at its own address. */
static const struct tb_json_field outlier_fields[] = {
	{.key = "outlier", .kind = TB_JSON_BOOL, .size = sizeof(bool)},
	F_END,
};
static const struct tb_json_table outlier_table = {outlier_fields, NULL, NULL};

/* [samples] with each one's [outlier] mark from the summary. */
static int samples_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	const struct tb_cell *c = base;
	const struct tb_summary *sum = &c->summary;
	json_t *arr = json_array(), *s;
	int ret = arr ? 0 : -ENOMEM;

	for (size_t i = 0; !ret && i < c->nsamples; i++) {
		s = tb_json_write(&sample_table, &c->samples[i]);
		if (s && sum->outlier && i < sum->noutlier && sum->outlier[i] &&
		    json_object_set_new(s, "outlier", json_true()))
			ret = -ENOMEM;
		if (!s || json_array_append_new(arr, s))
			ret = -ENOMEM;
	}
	if (ret) {
		json_decref(arr);
		return ret;
	}
	return tb_json_set(o, f->key, arr);
}

static int samples_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *a,
			void *base)
{
	struct tb_cell *c = base;
	bool *flags = NULL;
	size_t i, n = json_array_size(a);
	json_t *v;
	int ret = tb_json_array_ok(rd, a, f->key, TB_RESULT_MAX_SAMPLES);

	if (ret)
		return ret;
	if (n && !(flags = calloc(n, sizeof(*flags))))
		return -ENOMEM;
	json_array_foreach(a, i, v)
	{
		size_t old = tb_json_push(rd, f->key, (long)i);
		struct tb_sample *s = tb_cell_add_sample(c);

		ret = s ? tb_json_read(rd, v, &sample_table, s) : -ENOMEM;
		if (!ret)
			ret = tb_json_read(rd, v, &outlier_table, &flags[i]);
		tb_json_pop(rd, old);
		if (ret)
			goto out;
	}
	for (i = 0; i < n && !flags[i]; i++)
		;
	if (i < n) { /* keep the flags only when some sample is flagged */
		c->summary.outlier = flags;
		c->summary.noutlier = n;
		flags = NULL;
	}
out:
	free(flags);
	return ret;
}

static const struct tb_json_custom samples_io = {samples_write, samples_read};

/* ---- a cell's summary and latency ------------------------------------------------------------ */

static bool latency_present(const void *cell)
{
	return ((const struct tb_cell *)cell)->latency.present;
}

/* The summary's table is the cell's: its percentiles are copies of the latency's. */
#define T struct tb_cell
static const struct tb_json_field summary_fields[] = {
	F_UINT("n", summary.n, TB_RESULT_MAX_SAMPLES),
	F_NUM("median", summary.median, 0),
	F_NUM("mean", summary.mean, 0),
	F_NUM("sd", summary.sd, 0),
	F_NUM("cv", summary.cv, 0),
	F_NUM("min", summary.min, 0),
	F_NUM("max", summary.max, 0),
	F_NUM("mad", summary.mad, 0),
	F_UINT("outliers", summary.outliers, TB_RESULT_MAX_SAMPLES),
	/* Copies for consumers that only read the summary (the result contract,
	 * doc/architecture.md). */
	{.key = "p50",
	 .kind = TB_JSON_NUM,
	 .flags = TB_JSON_OUT,
	 AT(latency.p50),
	 .when = latency_present},
	{.key = "p99",
	 .kind = TB_JSON_NUM,
	 .flags = TB_JSON_OUT,
	 AT(latency.p99),
	 .when = latency_present},
	{.key = "p999",
	 .kind = TB_JSON_NUM,
	 .flags = TB_JSON_OUT,
	 AT(latency.p999),
	 .when = latency_present},
	F_END,
};
#undef T

static const struct tb_json_table summary_table = {summary_fields, NULL, NULL};

/* [buckets] [[upper_ns, count], ...] sorted by upper_ns. */
static int buckets_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	const struct tb_latency *l = base;
	json_t *buckets = json_array();

	for (size_t i = 0; buckets && i < l->nbuckets; i++) {
		json_t *pair = json_array();

		/* json_array_append_new takes the value even when it fails, and refuses NULL. */
		if (!pair || json_array_append_new(pair, tb_json_num(l->bucket_ns[i])) ||
		    json_array_append_new(pair, tb_json_uint(l->bucket_count[i]))) {
			json_decref(pair);
			json_decref(buckets);
			return -ENOMEM;
		}
		if (json_array_append_new(buckets, pair)) {
			json_decref(buckets);
			return -ENOMEM;
		}
	}
	return tb_json_set(o, f->key, buckets);
}

static int buckets_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *a,
			void *base)
{
	struct tb_latency *lat = base;
	json_t *b;
	size_t i;
	int ret;

	if (!a)
		return 0;
	if ((ret = tb_json_array_ok(rd, a, f->key, TB_RESULT_MAX_BUCKETS)) || !json_array_size(a))
		return ret;
	lat->bucket_ns = calloc(json_array_size(a), sizeof(*lat->bucket_ns));
	lat->bucket_count = calloc(json_array_size(a), sizeof(*lat->bucket_count));
	if (!lat->bucket_ns || !lat->bucket_count)
		return -ENOMEM;
	json_array_foreach(a, i, b)
	{
		json_t *u = json_array_get(b, 0), *n = json_array_get(b, 1);
		char k[32];

		snprintf(k, sizeof(k), "buckets[%zu]", i);
		if (!json_is_array(b) || json_array_size(b) != 2 || !json_is_number(u) ||
		    !json_is_integer(n))
			return tb_json_bad(rd, k, "expected [upper_ns, count]");
		if (json_number_value(u) < 0 || json_integer_value(n) < 0)
			return tb_json_bad(rd, k, "negative bound or count");
		if (json_number_value(u) > TB_RESULT_MAX_VALUE)
			return tb_json_bad(rd, k, "a bound beyond %g ns", TB_RESULT_MAX_VALUE);
		if (i && json_number_value(u) <= lat->bucket_ns[i - 1])
			return tb_json_bad(rd, k, "buckets must be sorted by upper_ns");
		lat->bucket_ns[i] = json_number_value(u);
		lat->bucket_count[i] = (uint64_t)json_integer_value(n);
		lat->nbuckets = i + 1;
	}
	return 0;
}

static const struct tb_json_custom buckets_io = {buckets_write, buckets_read};

#define T struct tb_latency
static const struct tb_json_field latency_fields[] = {
	F_NUM("clock_cost_ns", clock_cost_ns, 0),
	F_UINT("count", count, UINT64_MAX),
	F_NUM("p50", p50, 0),
	F_NUM("p90", p90, 0),
	F_NUM("p99", p99, 0),
	F_NUM("p999", p999, 0),
	F_NUM("max", max, 0),
	F_CUSTOM("buckets", &buckets_io, 0),
	F_END,
};
#undef T

static const struct tb_json_table latency_table = {latency_fields, NULL, NULL};

/* ---- a traced cell's overhead ---------------------------------------------------------------- */

static const char *verdict_name(int v)
{
	return tb_verdict_name((enum tb_verdict)v);
}

static int verdict_parse(const char *s)
{
	enum tb_verdict v;

	return tb_verdict_parse(s, &v) ? -1 : (int)v;
}

const struct tb_json_enum tb_json_verdicts = {"verdict", verdict_name, verdict_parse};

static bool has_driver(const void *o)
{
	return ((const struct tb_overhead *)o)->driver[0] != '\0';
}

#define T struct tb_overhead
/* [cost_driver] {unit, per_op, ns, ci}: members of the overhead itself. */
static const struct tb_json_field driver_fields[] = {
	F_TEXT("unit", driver, 0),
	F_NUM("per_op", driver_per_op, 0),
	F_NUM("ns", ns_per_driver, -MAXV),
	F_PAIR("ci", npd_lo, npd_hi, 0),
	F_END,
};

static const struct tb_json_table driver_table = {driver_fields, NULL, NULL};

static const struct tb_json_field overhead_fields[] = {
	F_NUM("pct", pct, -100),
	F_PAIR("ci", ci_lo, ci_hi, 0),
	F_NUM("mean_pct", mean_pct, -100),
	F_NUM("ns_per_op", ns_per_op, -MAXV),
	F_PAIR("ns_per_op_ci", ns_ci_lo, ns_ci_hi, 0),
	F_NUM("events_per_op", events_per_op, 0),
	F_NUM("ns_per_event", ns_per_event, -MAXV),
	F_PAIR("ns_per_event_ci", nse_ci_lo, nse_ci_hi, 0),
	F_NUM("bpf_ns_per_run", bpf_ns_per_run, 0),
	F_PROB("p_mannwhitney", p_mannwhitney),
	/* The result contract (doc/architecture.md) promises a p_value: the rank test's, which
	 * assumes no normality. */
	{.key = "p_value", .kind = TB_JSON_NUM, .flags = TB_JSON_OUT, AT(p_mannwhitney)},
	F_PROB("p_welch", p_welch),
	F_NUM("hodges_lehmann_ns", hl_shift_ns, -MAXV),
	F_NUM("mde_pct", mde_pct, 0),
	F_ENUM("verdict", verdict, &tb_json_verdicts),
	F_TEXT("reason", reason, TB_JSON_CUT),
	F_TEXT("ns_per_event_reason", nse_reason, TB_JSON_OMIT),
	{.key = "cost_driver",
	 .kind = TB_JSON_CHILD,
	 .flags = TB_JSON_NULL,
	 .sub = &driver_table,
	 .when = has_driver},
	F_TEXT("cost_driver_reason", driver_reason, TB_JSON_OMIT),
	F_END,
};
#undef T

static const struct tb_json_table overhead_table = {overhead_fields, NULL, NULL};

/* ---- what a traced cell should record, and the proof ----------------------------------------- */

static const struct tb_json_enum hook_kinds = {"value", tb_hook_kind_name, tb_hook_kind_parse};
static const struct tb_json_enum hook_scopes = {"value", tb_hook_scope_name, tb_hook_scope_parse};

/* [per_op]: what is expected in all, exact and approximate. */
static int expected_sum_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	const struct tb_expected *x = base;

	return tb_json_set(o, f->key, tb_json_num(x->exact_per_op + x->approx_per_op));
}

static const struct tb_json_custom expected_sum_io = {expected_sum_write, NULL};

/* An unsigned int member at f->off that older writers stored as a number: a small integer. */
static int small_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	return tb_json_set(o, f->key,
			   json_integer(*(const unsigned int *)((const char *)base + f->off)));
}

static int small_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		      void *base)
{
	const struct tb_json_field num = {.key = f->key, .kind = TB_JSON_NUM, .max = MAXV};
	unsigned int *p = (unsigned int *)((char *)base + f->off);
	double d = *p;
	int ret;

	if (!v)
		return 0;
	if ((ret = tb_json_read_field(rd, &num, v, &d)))
		return ret;
	if (d > 1e6 || d != floor(d))
		return tb_json_bad(rd, f->key, "expected a small integer, found %g", d);
	*p = (unsigned int)d;
	return 0;
}

static const struct tb_json_custom small_io = {small_write, small_read};

#define T struct tb_hook_expect
static const struct tb_json_field item_fields[] = {
	F_TEXT("event", name, 0),
	F_NUM("per_op", per_op, 0),
	F_BOOL("approx", approx, 0),
	F_END,
};
#undef T

static void item_init(void *base)
{
	((struct tb_hook_expect *)base)->per_op = NAN;
}

static const struct tb_json_table item_table = {item_fields, item_init, NULL};

#define T struct tb_near_miss
static const struct tb_json_field near_fields[] = {
	F_TEXT("hooked", hooked, 0),
	F_TEXT("does", does, 0),
	F_TEXT("hook", hook, 0),
	F_NUM("per_op", per_op, 0),
	F_END,
};
#undef T

static const struct tb_json_table near_table = {near_fields, NULL, NULL};

static const struct tb_json_array items_array = {
	.elem = &item_table,
	.size = sizeof(struct tb_hook_expect),
	.count = offsetof(struct tb_expected, nitems),
	.max = TB_EXPECT_ITEMS,
	.in_place = true,
};

static const struct tb_json_array near_array = {
	.elem = &near_table,
	.size = sizeof(struct tb_near_miss),
	.count = offsetof(struct tb_expected, nnear),
	.max = TB_NEAR_MISSES,
	.in_place = true,
};

static void expected_init(void *base)
{
	struct tb_expected *x = base;

	memset(x, 0, sizeof(*x));
	x->scope = TB_SCOPE_SYSTEM;
	x->ncounted = 1;
}

/* null (unknown) sums mean nothing expected of that kind */
static int expected_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	struct tb_expected *x = base;

	(void)rd;
	(void)o;
	if (isnan(x->exact_per_op))
		x->exact_per_op = 0;
	if (isnan(x->approx_per_op))
		x->approx_per_op = 0;
	if (isnan(x->harness_per_sample))
		x->harness_per_sample = 0;
	return 0;
}

#define T struct tb_expected
static const struct tb_json_field expected_fields[] = {
	F_ENUM("kind", kind, &hook_kinds),
	F_ENUM("scope", scope, &hook_scopes),
	F_CUSTOM("per_op", &expected_sum_io, TB_JSON_OUT),
	F_NUM("exact_per_op", exact_per_op, 0),
	F_NUM("approx_per_op", approx_per_op, 0),
	{.key = "approx_zero", .kind = TB_JSON_CUSTOM, .io = &small_io, AT(approx_zero)},
	F_BOOL("unknown", unknown, 0),
	{.key = "counted_hooks", .kind = TB_JSON_CUSTOM, .io = &small_io, AT(ncounted)},
	F_BOOL("at_least", at_least, 0),
	F_BOOL("filtered", filtered, 0),
	F_BOOL("attributes", attributes, 0),
	F_NUM("harness_per_sample", harness_per_sample, 0),
	F_ARRAY("events", items, &items_array, 0),
	F_ARRAY("near_misses", near, &near_array, 0),
	F_TEXT("hooks", hooks, 0),
	F_TEXT("does", does, 0),
	F_TEXT("unknown_hook", unknown_hook, TB_JSON_OMIT),
	F_END,
};
#undef T

static const struct tb_json_table expected_table = {expected_fields, expected_init, expected_check};

static const char *outcome_name(int o)
{
	return tb_proof_outcome_name((enum tb_proof_outcome)o);
}

static const struct tb_json_enum outcomes = {"outcome", outcome_name, tb_proof_outcome_parse};

static void proof_init(void *base)
{
	tb_proof_init(base);
}

#define T struct tb_proof
static const struct tb_json_field proof_fields[] = {
	F_ENUM("outcome", outcome, &outcomes),
	F_NUM("events_per_op", events_per_op, 0),
	F_NUM("expected_per_op", expected_per_op, 0),
	F_PAIR("range", lo, hi, TB_JSON_OUT), /* hi may be +inf: not read back */
	F_BOOL("blocks", blocks, 0),
	F_TEXT("message", message, 0),
	F_END,
};
#undef T

static const struct tb_json_table proof_table = {proof_fields, proof_init, NULL};

/* ---- a cell's accounting samples --------------------------------------------------------------- */

static void accounting_init(void *base)
{
	tb_accounting_init(base);
}

#define T struct tb_accounting
static const struct tb_json_field accounting_fields[] = {
	F_UINT("samples", samples, TB_RESULT_MAX_SAMPLES),
	F_NUM("ns_per_op", ns_per_op, 0),
	F_RANGE("cost_pct", cost_pct, -100, MAXV, 0),
	F_PAIR("cost_ci", ci_lo, ci_hi, 0),
	F_RANGE("cost_ns_per_op", cost_ns_per_op, -MAXV, MAXV, 0),
	F_RANGE("cost_ns_per_run", cost_ns_per_run, -MAXV, MAXV, 0),
	F_NUM("bpf_runs_per_op", bpf_runs_per_op, 0),
	F_NUM("bpf_ns_per_run", bpf_ns_per_run, 0),
	F_TEXT("ci_reason", ci_reason, TB_JSON_OMIT),
	F_END,
};
#undef T

static const struct tb_json_table accounting_table = {accounting_fields, accounting_init, NULL};

#define T struct tb_cell_contention
static const struct tb_json_field contention_fields[] = {
	F_UINT("rounds_rerun", rerun, UINT_MAX),
	F_UINT("rounds_kept_contended", kept, UINT_MAX),
	F_END,
};
#undef T

static const struct tb_json_table contention_table = {contention_fields, NULL, NULL};

/* ---- a cell ---------------------------------------------------------------------------------- */

/* [tracer_extra] as written: with the cell's BPF programs and their derived figures. */
static int extra_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	return tb_json_set(o, f->key, tb_cell_extra_json(base));
}

static const struct tb_json_custom extra_io = {extra_write, NULL};

/* [explain] (model/explain.h validates it), named as a whole in its messages. */
static int explain_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	const struct tb_cell *c = base;

	return c->explain ? tb_json_set(o, f->key, tb_cell_explain_to_json(c->explain)) : 0;
}

static int explain_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
			void *base)
{
	struct tb_cell *c = base;
	char err[320];
	int ret;

	if (!v || json_is_null(v))
		return 0;
	ret = tb_cell_explain_from_json(v, &c->explain, err, sizeof(err));
	return ret == -EINVAL ? tb_json_bad(rd, f->key, "%s", err) : ret;
}

static const struct tb_json_custom explain_io = {explain_write, explain_read};

/* [accounting_samples]: the orders of the cell's accounting samples, listed apart from its
 * timed ones (derived from samples[].accounting: written, never read). */
static int acct_samples_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	const struct tb_cell *c = base;
	json_t *a = NULL;

	for (size_t i = 0; i < c->nsamples; i++) {
		if (!c->samples[i].accounting)
			continue;
		if (!a && !(a = json_array()))
			return -ENOMEM;
		if (json_array_append_new(a, json_integer(c->samples[i].order))) {
			json_decref(a);
			return -ENOMEM;
		}
	}
	return a ? tb_json_set(o, f->key, a) : 0;
}

static const struct tb_json_custom acct_samples_io = {acct_samples_write, NULL};

static bool proof_judged(const void *cell)
{
	return ((const struct tb_cell *)cell)->proof.outcome != TB_PROOF_NONE;
}

/* The BPF programs in tracer_extra, checked once the object is read. */
static int cell_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	struct tb_cell *c = base;
	char why[256];
	int ret;

	(void)o;
	if (!c->tracer_extra)
		return 0;
	ret = tb_cell_bpf_load(c, c->tracer_extra, why, sizeof(why));
	return ret == -EINVAL ? tb_json_bad(rd, "tracer_extra", "%s", why) : ret;
}

#define T struct tb_cell
static const struct tb_json_field cell_fields[] = {
	F_STR("id", id, TB_JSON_REQ),
	F_STR("workload", workload, TB_JSON_REQ),
	F_STR("workload_type", workload_type, 0),
	F_OBJ("workload_config", workload_config, 0),
	F_STR("tracer", tracer, TB_JSON_REQ),
	F_STR("tracer_type", tracer_type, 0),
	F_OBJ("tracer_config", tracer_config, 0),
	F_BOOL("baseline", baseline, TB_JSON_REQ),
	{.key = "threads", .kind = TB_JSON_UINT, AT(threads), .umin = 1, .umax = UINT_MAX},
	F_BOOL("latency_mode", latency_mode, 0),
	F_BOOL("partner_cpu", partner_cpu, 0),
	F_UINT("ops_per_sample", ops_per_sample, UINT64_MAX),
	F_UINT("duration_ns", duration_ns, UINT64_MAX), /* absent: settings' (cell_add) */
	F_RANGE("slowdown", slowdown, 0, MAXV, TB_JSON_OMIT),
	F_NUM("event_rate", rate, 0),
	F_CUSTOM("samples", &samples_io, TB_JSON_REQ),
	F_COUNT("events_recorded", events_recorded, 0),
	F_COUNT("events_lost", events_lost, 0),
	F_NUM("tracer_cpu_s", tracer_cpu_s, 0),
	F_RANGE("disk_bytes_per_event", disk_bytes_per_event, 0, MAXV, TB_JSON_OMIT | TB_JSON_OUT),
	F_RANGE("consumer_ns_per_event", consumer_ns_per_event, 0, MAXV,
		TB_JSON_OMIT | TB_JSON_OUT),
	F_COUNT("tracer_mem_bytes", tracer_mem_bytes, 0),
	{.key = "tracer_extra", .kind = TB_JSON_OBJ, AT(tracer_extra), .io = &extra_io},
	F_STR("error", error, 0),
	F_CHILD("summary", 0, &summary_table),
	F_CHILD_SEEN("latency", latency, latency.present, &latency_table),
	F_CHILD_SEEN("overhead", overhead, has_overhead, &overhead_table),
	F_CHILD_SEEN("expected_events", expected, expected.present, &expected_table),
	{.key = "proof",
	 .kind = TB_JSON_CHILD,
	 .off = offsetof(T, proof),
	 .sub = &proof_table,
	 .when = proof_judged},
	F_CUSTOM("explain", &explain_io, 0),
	F_CHILD_SEEN("accounting", accounting, accounting.present, &accounting_table),
	F_CUSTOM("accounting_samples", &acct_samples_io, TB_JSON_OUT),
	F_CHILD_SEEN("workload_sweep", wsweep, wsweep.present, &tb_json_cell_sweep_table),
	F_CHILD_SEEN("tracer_sweep", tsweep, tsweep.present, &tb_json_cell_sweep_table),
	F_CHILD_SEEN("service", service, service.present, &tb_json_cell_service_table),
	F_CHILD_SEEN("contention", contention, contention.present, &contention_table),
	F_END,
};
#undef T

static const struct tb_json_table cell_table = {cell_fields, NULL, cell_check};

/* A cell of a result whose settings are read: older results, without a cell's duration_ns,
 * had the one of settings for every cell. */
static void *cell_add(void *parent)
{
	struct tb_result *r = parent;
	struct tb_cell *c = tb_result_add_cell(r);

	if (c)
		c->duration_ns = r->duration_ns;
	return c;
}

static int cell_unique(struct tb_json_reader *rd, void *parent, size_t i)
{
	const struct tb_result *r = parent;

	for (size_t j = 0; j < i; j++)
		if (!strcmp(r->cells[j].id, r->cells[i].id))
			return tb_json_bad(rd, "id",
					   "duplicate cell id \"%.60s\" (also cells[%zu])",
					   r->cells[i].id, j);
	return 0;
}

static const struct tb_json_array cells_array = {
	.elem = &cell_table,
	.size = sizeof(struct tb_cell),
	.count = offsetof(struct tb_result, ncells),
	.max = TB_RESULT_MAX_CELLS,
	.add = cell_add,
	.check = cell_unique,
};

/* ---- a rate model, the A/A summary ----------------------------------------------------------- */

/* Results from before the acceptance rule: a fitted slope was shown. */
static int rate_model_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	struct tb_rate_model *m = base;

	(void)rd;
	if (!json_object_get(o, "accepted"))
		m->accepted = isfinite(m->cost_ns);
	return 0;
}

#define T struct tb_rate_model
static const struct tb_json_field rate_model_fields[] = {
	F_STR("workload_type", workload_type, 0),
	F_STR("tracer", tracer, TB_JSON_REQ),
	F_UINT("points", npoints, TB_RESULT_MAX_CELLS),
	F_NUM("fixed_ns", fixed_ns, -MAXV),
	F_PAIR("fixed_ns_ci", fixed_ci_lo, fixed_ci_hi, 0),
	F_NUM("cost_ns_per_event", cost_ns, -MAXV),
	F_PAIR("cost_ns_per_event_ci", cost_ci_lo, cost_ci_hi, 0),
	F_NUM("r2", r2, -MAXV),
	F_NUM("pct_fixed", pct_fixed, -MAXV),
	F_NUM("pct_per_mevents_s", pct_per_mevent_s, -MAXV),
	F_PROB("p_quadratic", p_quadratic),
	F_BOOL("nonlinear", nonlinear, 0),
	F_BOOL("accepted", accepted, 0),
	F_TEXT("why_not", why_not, TB_JSON_OMIT),
	F_END,
};
#undef T

static const struct tb_json_table rate_model_table = {rate_model_fields, NULL, rate_model_check};

static void *rate_model_add(void *r)
{
	return tb_result_add_rate_model(r);
}

static const struct tb_json_array rate_models_array = {
	.elem = &rate_model_table,
	.size = sizeof(struct tb_rate_model),
	.count = offsetof(struct tb_result, nrate_models),
	.max = TB_RESULT_MAX_CELLS,
	.add = rate_model_add,
};

#define T struct tb_aa_summary
static const struct tb_json_field aa_fields[] = {
	F_UINT("cells", ncells, TB_RESULT_MAX_CELLS),
	F_UINT("false_positives", false_positives, TB_RESULT_MAX_CELLS),
	F_PROB("false_positive_rate", fp_rate),
	F_NUM("noise_floor_pct", noise_floor_pct, 0),
	F_NUM("max_abs_pct", max_abs_pct, 0),
	F_END,
};
#undef T

static const struct tb_json_table aa_table = {aa_fields, NULL, NULL};

/* ---- the header and settings ----------------------------------------------------------------- */

static int schema_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	(void)base;
	return tb_json_set(o, f->key, json_string(TB_RESULT_SCHEMA));
}

static int schema_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		       void *base)
{
	(void)base;
	if (!v)
		return tb_json_bad(rd, f->key, "required key missing (not a tracebench result?)");
	if (!json_is_string(v))
		return tb_json_bad(rd, f->key, "expected a string");
	if (strcmp(json_string_value(v), TB_RESULT_SCHEMA))
		return tb_json_bad(rd, f->key, "unsupported schema \"%.60s\" (expected \"%s\")",
				   json_string_value(v), TB_RESULT_SCHEMA);
	return 0;
}

static const struct tb_json_custom schema_io = {schema_write, schema_read};

static int tool_name_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	(void)base;
	return tb_json_set(o, f->key, json_string(TB_NAME));
}

static const struct tb_json_custom tool_name_io = {tool_name_write, NULL};

/* [labels]: an object of strings, each label checked as `run --label` checks it. */
static int labels_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	const struct tb_result *r = base;

	return tb_json_set(o, f->key, r->labels ? json_incref(r->labels) : json_object());
}

static int labels_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *a,
		       void *base)
{
	struct tb_result *r = base;
	char err[256];
	const char *k;
	json_t *v;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_object(a))
		return tb_json_bad(rd, f->key, "expected an object");
	if (json_object_size(a) > TB_LABELS_MAX)
		return tb_json_bad(rd, f->key, "more than %d labels", TB_LABELS_MAX);
	json_object_foreach(a, k, v)
	{
		if (!json_is_string(v))
			return tb_json_bad(rd, f->key, "%.64s: expected a string", k);
		if (tb_label_check(k, json_string_value(v), err, sizeof(err)))
			return tb_json_bad(rd, f->key, "%s", err);
	}
	json_decref(r->labels);
	r->labels = json_incref(a);
	return 0;
}

static const struct tb_json_custom labels_io = {labels_write, labels_read};

/* What settings leave out (or null) is the default. */
static int settings_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	struct tb_result *r = base;

	(void)rd;
	(void)o;
	if (isnan(r->noise_threshold))
		r->noise_threshold = 0.01;
	if (isnan(r->max_cv) || r->max_cv <= 0)
		r->max_cv = 0.10;
	if (isnan(r->precision))
		r->precision = 0;
	if (isnan(r->contended_share)) /* older results: nothing was re-run */
		r->contended_share = 0;
	if (!r->accounting_every) /* older results: every round */
		r->accounting_every = 1;
	return 0;
}

#define T struct tb_result
static const struct tb_json_field tool_fields[] = {
	F_CUSTOM("name", &tool_name_io, TB_JSON_OUT),
	F_STR("version", tool_version, 0),
	F_END,
};

static const struct tb_json_field scenario_fields[] = {
	F_STR("name", scenario_name, 0),
	F_STR("path", scenario_path, 0),
	F_STR("text", scenario_text, TB_JSON_LINES),
	F_END,
};

static const struct tb_json_field settings_fields[] = {
	F_UINT("seed", seed, UINT64_MAX),
	F_UINT("rounds", rounds, UINT_MAX),
	F_UINT("warmup", warmup, UINT_MAX),
	F_UINT("duration_ns", duration_ns, UINT64_MAX),
	F_RANGE("noise_threshold", noise_threshold, 0, 10, 0),
	F_RANGE("alpha", alpha, 0, 1, TB_JSON_OPEN),
	F_RANGE("power", power, 0, 1, TB_JSON_OPEN),
	F_UINT("bootstrap_resamples", resamples, 10000000),
	F_RANGE("confidence", confidence, 0, 1, TB_JSON_OPEN),
	F_RANGE("precision", precision, 0, 1, 0),
	F_RANGE("max_cv", max_cv, 0, 10, 0),
	F_RANGE("contended_share", contended_share, 0, 1, TB_JSON_OMIT),
	F_UINT("accounting_every", accounting_every, 100000),
	F_BOOL("aa", aa, 0),
	F_BOOL("allow_foreign", allow_foreign, TB_JSON_OMIT),
	F_STR("sample_length", sample_length, TB_JSON_OMIT),
	F_STR("rounds_chosen", rounds_chosen, TB_JSON_OMIT),
	F_RANGE("max_time_s", max_time_s, 0, MAXV, TB_JSON_OMIT),
	F_COUNT("rounds_asked", rounds_asked, TB_JSON_OMIT),
	F_RANGE("max_time_needed_s", max_time_needed_s, 0, MAXV, TB_JSON_OMIT),
	F_END,
};

static const struct tb_json_table tool_table = {tool_fields, NULL, NULL};
static const struct tb_json_table scenario_table = {scenario_fields, NULL, NULL};
static const struct tb_json_table settings_table = {settings_fields, NULL, settings_check};

static const struct tb_json_field result_fields[] = {
	F_CUSTOM("schema", &schema_io, 0),
	F_CHILD("tool", 0, &tool_table),
	F_CHILD("scenario", 0, &scenario_table),
	F_STR("command_line", command_line, 0),
	F_STR("started", started, 0),
	F_STR("finished", finished, 0),
	F_BOOL("partial", partial, 0),
	F_STR("stop_reason", stop_reason, 0),
	F_OBJ("system", system, 0),
	F_CHILD("settings", 0, &settings_table),
	F_STRINGS("foreign_instrumentation", foreign),
	F_STRINGS("shortfalls", shortfalls),
	F_STRINGS("warnings", warnings),
	F_STRINGS("unsupported", unsupported),
	F_CUSTOM("labels", &labels_io, 0),
	F_OBJ("gate", gate, TB_JSON_OMIT),
	F_ARRAY("cells", cells, &cells_array, TB_JSON_REQ),
	F_CHILD_SEEN("aa_calibration", aa_summary, aa_summary.present, &aa_table),
	F_ARRAY("rate_models", rate_models, &rate_models_array, TB_JSON_OMIT),
	F_ARRAY("sweeps", sweeps, &tb_json_sweeps_array, TB_JSON_OMIT),
	F_ARRAY("limits", limits, &tb_json_limits_array, TB_JSON_OMIT),
	F_END,
};
#undef T

const struct tb_json_table tb_result_json_table = {result_fields, NULL, NULL};
