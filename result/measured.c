// SPDX-License-Identifier: GPL-2.0
/* Derived facts of a cell (measured.h): one definition each. */
#include <math.h>

#include "core/tb.h"
#include "result/measured.h"

bool tb_sample_measured(const struct tb_sample *s)
{
	return !s->warmup && !s->failed && !s->abandoned && !s->partial_round &&
	       isfinite(s->ns_per_op);
}

size_t tb_cell_nmeasured(const struct tb_cell *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->nsamples; i++)
		n += tb_sample_measured(&c->samples[i]);
	return n;
}

/* Sum of a per-sample count over measured samples; -1 when none knows it. */
static int64_t sum_count(const struct tb_cell *c, bool lost)
{
	int64_t sum = -1;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];
		int64_t v = lost ? s->lost : s->events;

		if (tb_sample_measured(s) && v >= 0)
			sum = tb_add_sat(sum < 0 ? 0 : sum, v); /* a crafted count must not wrap */
	}
	return sum;
}

int64_t tb_cell_events_sum(const struct tb_cell *c)
{
	return sum_count(c, false);
}

int64_t tb_cell_lost_sum(const struct tb_cell *c)
{
	return sum_count(c, true);
}

int64_t tb_cell_events(const struct tb_cell *c)
{
	return c->events_recorded >= 0 ? c->events_recorded : sum_count(c, false);
}

int64_t tb_cell_lost(const struct tb_cell *c)
{
	return c->events_lost >= 0 ? c->events_lost : sum_count(c, true);
}

double tb_cell_tracer_cpu_s(const struct tb_cell *c)
{
	double sum = NAN;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (tb_sample_measured(s) && isfinite(s->tracer_cpu_s))
			sum = (isnan(sum) ? 0 : sum) + s->tracer_cpu_s;
	}
	return sum;
}

double tb_cell_event_rate(const struct tb_cell *c)
{
	int64_t ev = tb_cell_events(c);
	double el = 0;
	size_t i;

	for (i = 0; i < c->nsamples; i++)
		if (tb_sample_measured(&c->samples[i]) && c->samples[i].elapsed_ns > 0)
			el += c->samples[i].elapsed_ns;
	return ev > 0 && el > 0 ? (double)ev / (el / 1e9) : NAN;
}

double tb_cell_sweep_rate(const struct tb_cell *c)
{
	double rate = tb_cell_event_rate(c);

	return isfinite(rate) ? rate : c->rate;
}

bool tb_cell_in_sweep(const struct tb_cell *c)
{
	return json_is_true(json_object_get(c->workload_config, "rate-sweep"));
}

const struct tb_rate_model *tb_result_rate_model(const struct tb_result *r, const struct tb_cell *c)
{
	size_t i;

	for (i = 0; i < r->nrate_models; i++)
		if (tb_streq(r->rate_models[i].tracer, c->tracer) &&
		    tb_streq(r->rate_models[i].workload_type, c->workload_type))
			return &r->rate_models[i];
	return NULL;
}

void tb_result_update_totals(struct tb_result *r)
{
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		struct tb_cell *c = &r->cells[i];

		c->events_recorded = tb_cell_events_sum(c);
		c->events_lost = tb_cell_lost_sum(c);
		c->tracer_cpu_s = tb_cell_tracer_cpu_s(c);
		/* Rate sweeps: the event rate the traced workload achieved feeds the rate model. */
		if (!c->baseline && c->events_recorded >= 0 && tb_cell_in_sweep(c))
			c->rate = tb_cell_event_rate(c);
	}
}

const char *tb_result_host(const struct tb_result *r)
{
	json_t *h = r && r->system ? json_object_get(r->system, "hostname") : NULL;

	return json_is_string(h) && *json_string_value(h) ? json_string_value(h) : "unknown host";
}

const char *tb_result_kernel(const struct tb_result *r)
{
	static const char *const keys[][2] = {{"kernel", "release"},
					      {"kernel_release", NULL},
					      {"kernel", "version"},
					      {"kernel", NULL}};
	size_t i;

	for (i = 0; r && r->system && i < TB_ARRAY_SIZE(keys); i++) {
		json_t *o = json_object_get(r->system, keys[i][0]);

		if (keys[i][1])
			o = json_is_object(o) ? json_object_get(o, keys[i][1]) : NULL;
		if (json_is_string(o) && *json_string_value(o))
			return json_string_value(o);
	}
	return NULL;
}
