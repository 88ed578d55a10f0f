// SPDX-License-Identifier: GPL-2.0
/* Derived facts of a cell (measured.h): one definition each. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "tracers/tracer.h"

bool tb_sample_measured(const struct tb_sample *s)
{
	return !s->warmup && !s->accounting && !s->failed && !s->abandoned && !s->partial_round &&
	       !s->rerun[0] && isfinite(s->ns_per_op);
}

bool tb_sample_accounted(const struct tb_sample *s)
{
	return s->accounting && !s->failed && !s->abandoned && !s->partial_round && !s->rerun[0] &&
	       isfinite(s->ns_per_op);
}

double tb_sample_contended_share(const struct tb_cell *c, const struct tb_sample *s,
				 unsigned int ncpus, const char **why)
{
	double wait = NAN, steal = NAN;

	if (!(s->elapsed_ns > 0))
		return NAN;
	if (s->wait_ns >= 0 && !c->partner_cpu)
		wait = (double)s->wait_ns / (s->elapsed_ns * (c->threads ? c->threads : 1));
	if (s->steal_ns >= 0 && ncpus)
		steal = (double)s->steal_ns / (s->elapsed_ns * ncpus);
	if (why)
		*why = isnan(steal) || wait >= steal ? "cpu-wait" : "steal";
	if (isnan(wait))
		return steal;
	return isnan(steal) || wait >= steal ? wait : steal;
}

/* No measured sample knows its events (run_cnt needs the stats that they run without). */
static bool events_from_accounting(const struct tb_cell *c)
{
	bool acct = false;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (tb_sample_measured(s) && s->events >= 0)
			return false;
		acct |= tb_sample_accounted(s) && s->events >= 0;
	}
	return acct;
}

bool tb_sample_counts_events(const struct tb_cell *c, const struct tb_sample *s)
{
	return events_from_accounting(c) ? tb_sample_accounted(s) : tb_sample_measured(s);
}

size_t tb_cell_nevent_samples(const struct tb_cell *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nsamples; i++)
		n += tb_sample_counts_events(c, &c->samples[i]);
	return n;
}

size_t tb_cell_nmeasured(const struct tb_cell *c)
{
	size_t i, n = 0;

	for (i = 0; i < c->nsamples; i++)
		n += tb_sample_measured(&c->samples[i]);
	return n;
}

enum { SUM_EVENTS, SUM_LOST, SUM_WORKLOAD };

/* Sum of a per-sample count over the samples that count events; -1 when none knows it. */
static int64_t sum_count(const struct tb_cell *c, int which)
{
	bool acct = events_from_accounting(c);
	int64_t sum = -1;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];
		int64_t v = which == SUM_LOST	    ? s->lost
			    : which == SUM_WORKLOAD ? s->workload_events
						    : s->events;

		if ((acct ? tb_sample_accounted(s) : tb_sample_measured(s)) && v >= 0)
			sum = tb_add_sat(sum < 0 ? 0 : sum, v); /* a crafted count must not wrap */
	}
	return sum;
}

int64_t tb_cell_events_sum(const struct tb_cell *c)
{
	return sum_count(c, SUM_EVENTS);
}

int64_t tb_cell_lost_sum(const struct tb_cell *c)
{
	return sum_count(c, SUM_LOST);
}

int64_t tb_cell_events(const struct tb_cell *c)
{
	return c->events_recorded >= 0 ? c->events_recorded : sum_count(c, SUM_EVENTS);
}

int64_t tb_cell_lost(const struct tb_cell *c)
{
	return c->events_lost >= 0 ? c->events_lost : sum_count(c, SUM_LOST);
}

int64_t tb_cell_workload_events(const struct tb_cell *c)
{
	return sum_count(c, SUM_WORKLOAD);
}

double tb_cell_ctxsw_per_op(const struct tb_cell *c)
{
	double sw = 0, ops = 0;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (!tb_sample_measured(s) || s->nvcsw < 0 || s->nivcsw < 0)
			continue;
		sw += (double)(s->nvcsw + s->nivcsw);
		ops += (double)s->ops * (double)(c->threads ? c->threads : 1);
	}
	return ops > 0 ? sw / ops : NAN;
}

double tb_cell_cpu_wait_share(const struct tb_cell *c)
{
	double wait = 0, t = 0;
	size_t i;

	if (c->partner_cpu) /* its own tasks' turns, not another task's */
		return NAN;
	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (!tb_sample_measured(s) || s->wait_ns < 0 || !(s->elapsed_ns > 0))
			continue;
		wait += (double)s->wait_ns;
		t += s->elapsed_ns * (double)(c->threads ? c->threads : 1);
	}
	return t > 0 ? wait / t : NAN;
}

/* Ops (per thread, times threads) of an average measured sample of c; NAN without one. */
static double ops_per_sample(const struct tb_cell *c)
{
	double ops = 0;
	size_t n = 0;

	for (size_t i = 0; i < c->nsamples; i++) {
		if (!tb_sample_measured(&c->samples[i]))
			continue;
		ops += (double)c->samples[i].ops * (double)(c->threads ? c->threads : 1);
		n++;
	}
	return n && ops > 0 ? ops / (double)n : NAN;
}

/*
 * Runs and run time of p, or of all of c's programs, and the ops of the measured samples they
 * span (NAN without measured samples). False when a figure is unknown or there is no program.
 */
static bool bpf_figures(const struct tb_cell *c, const struct tb_cell_prog *p, double *runs,
			double *ns, double *ops)
{
	size_t i, n = p ? 1 : c->nbpf_progs;
	unsigned int samples = 0;

	*runs = *ns = 0;
	*ops = NAN;
	for (i = 0; i < n; i++) {
		const struct tb_cell_prog *q = p ? p : &c->bpf_progs[i];

		if (q->runs < 0 || q->run_time_ns < 0)
			return false;
		*runs += (double)q->runs;
		*ns += (double)q->run_time_ns;
		if (q->samples > samples)
			samples = q->samples;
	}
	*ops = ops_per_sample(c) * samples;
	return n > 0;
}

double tb_cell_bpf_ns_per_run(const struct tb_cell *c, const struct tb_cell_prog *p)
{
	double runs, ns, ops;

	return bpf_figures(c, p, &runs, &ns, &ops) && runs > 0 ? ns / runs : NAN;
}

double tb_cell_bpf_runs_per_op(const struct tb_cell *c, const struct tb_cell_prog *p)
{
	double runs, ns, ops;

	return bpf_figures(c, p, &runs, &ns, &ops) && ops > 0 ? runs / ops : NAN;
}

double tb_cell_bpf_share(const struct tb_cell *c, const struct tb_cell_prog *p)
{
	double runs, ns, ops, over = c->has_overhead ? c->overhead.ns_per_op : NAN;

	if (!(over > 0) || !bpf_figures(c, p, &runs, &ns, &ops) || !(ops > 0))
		return NAN;
	return ns / ops / over;
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

double tb_sample_consumer_ns_per_event(const struct tb_sample *s)
{
	return isfinite(s->tracer_cpu_s) && s->events > 0
		       ? s->tracer_cpu_s * 1e9 / (double)s->events
		       : NAN;
}

double tb_cell_consumer_ns_per_event(const struct tb_cell *c)
{
	double cpu = 0;
	int64_t ev = 0;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (tb_sample_measured(s) && isfinite(tb_sample_consumer_ns_per_event(s))) {
			cpu += s->tracer_cpu_s;
			ev += s->events;
		}
	}
	return ev > 0 ? cpu * 1e9 / (double)ev : NAN;
}

double tb_cell_disk_bytes_per_event(const struct tb_cell *c)
{
	int64_t bytes = 0, ev = 0;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (tb_sample_measured(s) && s->disk_bytes >= 0 && s->events > 0) {
			bytes += s->disk_bytes;
			ev += s->events;
		}
	}
	return ev > 0 ? (double)bytes / (double)ev : NAN;
}

double tb_cell_event_rate(const struct tb_cell *c)
{
	int64_t ev = tb_cell_events(c);
	double el = 0;
	size_t i;

	for (i = 0; i < c->nsamples; i++)
		if (tb_sample_counts_events(c, &c->samples[i]) && c->samples[i].elapsed_ns > 0)
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
		for (size_t j = 0; j < c->nsamples; j++)
			c->samples[j].consumer_ns_per_event =
				tb_sample_consumer_ns_per_event(&c->samples[j]);
		c->consumer_ns_per_event = tb_cell_consumer_ns_per_event(c);
		c->disk_bytes_per_event = tb_cell_disk_bytes_per_event(c);
		/* Rate sweeps: the event rate the traced workload achieved feeds the rate model. */
		if (!c->baseline && c->events_recorded >= 0 && tb_cell_in_sweep(c))
			c->rate = tb_cell_event_rate(c);
	}
}

int64_t tb_result_disk_bytes(const struct tb_result *r)
{
	int64_t sum = -1;

	for (size_t i = 0; i < r->ncells; i++)
		for (size_t k = 0; k < r->cells[i].nsamples; k++)
			if (r->cells[i].samples[k].disk_bytes >= 0)
				sum = (sum < 0 ? 0 : sum) + r->cells[i].samples[k].disk_bytes;
	return sum;
}

const char *tb_cell_probe_label(const struct tb_cell *c, char *buf, size_t len)
{
	const struct tb_tracer_record rec = {c->tracer_config, c->tracer_extra};

	return tb_tracer_label(c->tracer_type, &rec, buf, len);
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
