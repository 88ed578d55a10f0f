// SPDX-License-Identifier: GPL-2.0
/* The rounds, the shuffle and the stop rule (runner.h). */
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/tb.h"
#include "model/measured.h"
#include "model/proof.h"
#include "runner/child.h"
#include "runner/runner.h"
#include "stats/stats.h"
#include "tracers/tracer.h"

static double to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

static uint64_t sample_timeout(const struct tb_scenario *s, const struct tb_scn_workload *w)
{
	if (s->sample_timeout_ns)
		return s->sample_timeout_ns;
	return 20 * w->duration_ns + 60000000000ull;
}

/* What the workload process of section wi runs. */
static void fill_req(const struct tb_plan *p, size_t wi, struct tb_measure_req *req)
{
	const struct tb_scn_workload *w = &p->s->workloads[wi];

	memset(req, 0, sizeof(*req));
	req->wl = w->ops;
	req->name = w->name;
	req->cfg = w->cfg;
	req->tmpdir = p->wls[wi].tmpdir;
	req->threads = w->threads;
	req->cpus = p->wls[wi].cpus;
	req->ncpus = p->wls[wi].ncpus;
	req->ops = p->wls[wi].ops;
	req->latency = w->latency;
	req->latency_every = w->latency_every;
	req->mlock = p->s->mlock;
	req->perf_counts = p->s->perf_counts;
}

static int calibrate(struct tb_runner *rn, size_t wi)
{
	struct tb_plan *p = rn->plan;
	struct tb_scn_workload *w = &p->s->workloads[wi];
	struct tb_measure_req req;

	if (w->ops->flags & TB_WL_ONESHOT) {
		p->wls[wi].ops = 1;
		return 0;
	}
	fill_req(p, wi, &req);
	return tb_child_calibrate(&req, w->duration_ns, sample_timeout(p->s, w), &p->wls[wi].ops);
}

struct tb_runner_dirs {
	struct tb_dir tracers; /* <run dir>/tracers/ */
	size_t n;	       /* the scenario's tracer sections */
	struct tb_dir sub[];   /* sub[i]: tracers/<section i>/, fd -1 until its first sample */
};

/*
 * <run dir>/tracers/<name>/ for the files of tracer section tr (name: its name), made without
 * following links (core/outdir.h) and opened once, so that every sample's tracer, held ones
 * included, writes into the directory made here even if the run directory's path is swapped
 * for a link later. Into *out; 0 or -errno (said).
 */
static int tracer_dir(struct tb_runner *rn, size_t tr, const char *name, const struct tb_dir **out)
{
	struct tb_runner_dirs *d = rn->dirs;
	size_t i, n = rn->plan->s->ntracers;
	int ret;

	if (!d) {
		d = calloc(1, sizeof(*d) + n * sizeof(d->sub[0]));
		if (!d)
			return -ENOMEM;
		d->tracers.fd = -1;
		d->n = n;
		for (i = 0; i < n; i++)
			d->sub[i].fd = -1;
		rn->dirs = d;
	}
	if (tr >= d->n)
		return -EINVAL;
	if (d->tracers.fd < 0) {
		ret = tb_dir_sub(rn->dir, "tracers", TB_DIR_CREATE, 0755, &d->tracers);
		if (ret)
			return ret;
	}
	if (d->sub[tr].fd < 0) {
		ret = tb_dir_sub(&d->tracers, name, TB_DIR_CREATE, 0755, &d->sub[tr]);
		if (ret)
			return ret;
	}
	*out = &d->sub[tr];
	return 0;
}

int tb_runner_sample(struct tb_runner *rn, struct tb_plan_cell *cr, int round, bool warmup,
		     const struct tb_scn_tracer *tracer, struct tb_cell *into)
{
	struct tb_plan *p = rn->plan;
	struct tb_cell *cell = into ? into : &rn->r->cells[cr->cell];
	struct tb_measure_job job = {
		.w = &p->s->workloads[cr->wl],
		.t = tracer ? tracer : &p->s->tracers[cr->tr],
		.consumer_cpu = p->consumer_cpu,
		.timeout_ns = sample_timeout(p->s, &p->s->workloads[cr->wl]),
		.round = round,
		.warmup = warmup,
		.order = rn->order++,
	};
	int ret;

	/* The explain phase's tracer is a copy of section cr->tr (runner/explain.c): its name. */
	ret = tracer_dir(rn, cr->tr, job.t->name, &job.tracer_dir);
	if (ret)
		return ret;
	fill_req(p, cr->wl, &job.req);
	job.expect = cell->expected.items;
	job.nexpect = cell->expected.nitems;
	job.held = cr->held;
	ret = tb_child_sample(&job, cell, &cr->hist, &cr->dead);
	if (cell->nsamples && cell->samples[cell->nsamples - 1].failed)
		cr->failures++;
	return ret;
}

static void progress(struct tb_runner *rn, const char *phase, unsigned int round,
		     unsigned int rounds, const struct tb_cell *cell)
{
	size_t left = rn->planned > rn->samples_done ? rn->planned - rn->samples_done : 0;
	struct tb_runner_progress pr = {
		.phase = phase,
		.round = round,
		.rounds = rounds,
		.cell = cell,
		/* no estimate of a sample's cost before the first */
		.eta_s = rn->samples_done ? rn->sample_cost_s * (double)left : NAN,
	};

	if (rn->on_progress)
		rn->on_progress(rn->ctx, &pr);
}

void tb_runner_round_order(gsl_rng *rng, size_t n, size_t *order)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	/* A fresh order every round, so drift hits baseline and traced cells alike. */
	gsl_ran_shuffle(rng, order, n, sizeof(order[0]));
}

static bool precise_enough(const struct tb_result *r, double precision)
{
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->baseline || c->error)
			continue;
		if (!c->has_overhead || !isfinite(c->overhead.ci_lo) ||
		    !isfinite(c->overhead.ci_hi))
			return false;
		if ((c->overhead.ci_hi - c->overhead.ci_lo) / 2 > precision * 100)
			return false;
	}
	return true;
}

const char *tb_runner_stop_reason(const struct tb_result *r, unsigned int done,
				  const struct tb_runner_stop_rule *rule, uint64_t elapsed_ns)
{
	if (rule->precision <= 0) {
		if (done >= rule->rounds)
			return "rounds";
	} else {
		if (done >= rule->min_rounds && precise_enough(r, rule->precision))
			return "precision";
		if (done >= rule->max_rounds)
			return "max-rounds";
	}
	if (rule->max_time_ns && elapsed_ns >= rule->max_time_ns)
		return "max-time";
	return NULL;
}

/* A cell that failed for good; its error once: a tracer's own message was printed already. */
static void say_dead(const struct tb_cell *c)
{
	if (c->error && !strcmp(c->error, tb_log_last_error()))
		tb_warn("%s: the cell is skipped from now on (the error above)", c->id);
	else
		tb_err("%s: %s; the cell is skipped from now on", c->id, c->error);
}

static int run_round(struct tb_runner *rn, int round, bool warmup, unsigned int nround,
		     unsigned int nrounds)
{
	struct tb_plan *p = rn->plan;
	size_t order[p->ncells], i;
	int ret;

	tb_runner_round_order(rn->rng, p->ncells, order);
	for (i = 0; i < p->ncells; i++) {
		struct tb_plan_cell *cr = &p->cells[order[i]];
		uint64_t t0 = tb_now_ns();

		if (cr->dead)
			continue;
		progress(rn, warmup ? "warmup" : "round", nround, nrounds, &rn->r->cells[cr->cell]);
		ret = tb_runner_sample(rn, cr, round, warmup, NULL, NULL);
		if (ret)
			return ret;
		rn->samples_done++;
		rn->sample_cost_s +=
			(to_s(tb_now_ns() - t0) - rn->sample_cost_s) / rn->samples_done;
		if (cr->dead)
			say_dead(&rn->r->cells[cr->cell]);
	}
	return 0;
}

/*
 * What every traced cell should record per op (model/proof.h): its workload's events per op
 * matched with its tracer's hooks and the harness's own window (runner/measure.h). A plugin
 * that cannot say leaves the expectation unknown, which the proof treats as such.
 */
static void expect_cell(struct tb_runner *rn, const struct tb_plan_cell *cr)
{
	struct tb_plan *p = rn->plan;
	const struct tb_scn_workload *w = &p->s->workloads[cr->wl];
	const struct tb_scn_tracer *t = &p->s->tracers[cr->tr];
	struct tb_cell *cell = &rn->r->cells[cr->cell];
	struct tb_op_context ctx = {
		.threads = w->threads ? w->threads : 1,
		.one_cpu = p->wls[cr->wl].ncpus == 1,
	};
	struct tb_op_events ops, harness;
	struct tb_measure_req req;
	struct tb_hooks h;
	int ret;

	tb_op_events_init(&ops);
	ret = w->ops->events ? w->ops->events(w->cfg, &ctx, &ops) : -ENOTSUP;
	if (ret) {
		tb_warn("[workload %s]: what one op does is unknown: %s", w->name, strerror(-ret));
		tb_op_events_init(&ops);
	}
	tb_hooks_init(&h);
	ret = t->ops->hooks ? t->ops->hooks(t->cfg, &h) : -ENOTSUP;
	if (ret) {
		tb_warn("[tracer %s]: what it hooks is unknown: %s", t->name, strerror(-ret));
		tb_hooks_free(&h);
		tb_hooks_init(&h);
		h.kind = TB_HOOK_UNKNOWN;
	}
	fill_req(p, cr->wl, &req);
	tb_measure_window_events(&req, &harness);
	tb_proof_expect(&ops, &h, &harness, &cell->expected);
	tb_hooks_free(&h);
}

static int calibrate_all(struct tb_runner *rn)
{
	struct tb_plan *p = rn->plan;
	size_t i;
	int ret;

	for (i = 0; i < p->s->nworkloads; i++) {
		if (!p->s->workloads[i].used)
			continue;
		ret = calibrate(rn, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < p->ncells; i++) {
		rn->r->cells[p->cells[i].cell].ops_per_sample = p->wls[p->cells[i].wl].ops;
		if (!rn->r->cells[p->cells[i].cell].baseline)
			expect_cell(rn, &p->cells[i]);
	}
	return 0;
}

/* The samples of the measured round a stop interrupted: kept, never analysed (measured.h). */
static void mark_partial_round(struct tb_result *r, unsigned int round)
{
	size_t i, j;

	for (i = 0; i < r->ncells; i++)
		for (j = 0; j < r->cells[i].nsamples; j++) {
			struct tb_sample *s = &r->cells[i].samples[j];

			if (!s->warmup && s->round == (int)round)
				s->partial_round = true;
		}
}

/* The latency histograms as of a completed round (hist_done), for the result. */
static int commit_histograms(struct tb_plan *p)
{
	size_t i;

	for (i = 0; i < p->ncells; i++) {
		struct tb_plan_cell *cr = &p->cells[i];

		if (!cr->hist)
			continue;
		if (!cr->hist_done && !(cr->hist_done = malloc(sizeof(*cr->hist_done))))
			return -ENOMEM;
		*cr->hist_done = *cr->hist;
	}
	return 0;
}

/* Measured rounds until the stop rule says why to stop. */
static int measured_rounds(struct tb_runner *rn)
{
	struct tb_scenario *s = rn->plan->s;
	unsigned int done = 0, target = tb_scenario_first_rounds(s);
	struct tb_runner_stop_rule rule = {
		.rounds = s->rounds,
		.min_rounds = s->min_rounds,
		.max_rounds = s->max_rounds,
		.precision = s->precision,
		.max_time_ns = s->max_time_ns,
	};
	int ret;

	for (;;) {
		const char *why;

		if (done >= target) /* adaptive stopping asked for another round */
			rn->planned += rn->plan->ncells;
		ret = run_round(rn, (int)done, false, done + 1, target > done ? target : done + 1);
		if (ret == -EINTR)
			mark_partial_round(rn->r, done); /* r->rounds stays the completed rounds */
		if (ret)
			return ret;
		done++;
		rn->r->rounds = done;
		ret = commit_histograms(rn->plan);
		if (ret)
			return ret;
		tb_result_update_totals(rn->r);
		tb_stats_analyze(rn->r);
		if (rn->on_round) {
			ret = rn->on_round(rn->ctx, rn->r);
			if (ret)
				return ret;
		}
		why = tb_runner_stop_reason(rn->r, done, &rule, tb_now_ns() - rn->t_start);
		if (why) {
			free(rn->r->stop_reason);
			rn->r->stop_reason = strdup(why);
			return 0;
		}
	}
}

/* Copy a cell's merged histogram into its result fields (quantiles and non-empty buckets). */
static int fill_latency(struct tb_cell *c, const struct tb_hist *h)
{
	struct tb_latency *l = &c->latency;
	uint64_t upper, count;
	unsigned int pos = 0;
	size_t n = 0;

	l->present = true;
	l->count = h->count;
	l->p50 = tb_hist_quantile(h, 0.50);
	l->p90 = tb_hist_quantile(h, 0.90);
	l->p99 = tb_hist_quantile(h, 0.99);
	l->p999 = tb_hist_quantile(h, 0.999);
	l->max = (double)tb_hist_max(h);
	free(l->bucket_ns);
	free(l->bucket_count);
	l->bucket_ns = calloc(TB_RESULT_MAX_BUCKETS, sizeof(*l->bucket_ns));
	l->bucket_count = calloc(TB_RESULT_MAX_BUCKETS, sizeof(*l->bucket_count));
	if (!l->bucket_ns || !l->bucket_count)
		return -ENOMEM;
	while (n < TB_RESULT_MAX_BUCKETS && tb_hist_next(h, &pos, &upper, &count)) {
		l->bucket_ns[n] = (double)upper;
		l->bucket_count[n] = count;
		n++;
	}
	l->nbuckets = n;
	return 0;
}

/*
 * [global] reuse-tracers: a slot for every traced cell whose tracer can rearm, so that its
 * instance or loaded object is made once and reset exactly between the cell's samples
 * (tracer.h, rearm): the fixed cost of a sample drops from an instance's creation and removal
 * to a buffer reset, and every measured sample still starts from the same tracer state.
 */
static int hold_tracers(struct tb_runner *rn)
{
	struct tb_plan *p = rn->plan;
	size_t i;

	if (!p->s->reuse_tracers)
		return 0;
	for (i = 0; i < p->ncells; i++) {
		const struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];

		if (!t->ops->rearm || rn->r->cells[p->cells[i].cell].baseline)
			continue;
		p->cells[i].held = calloc(1, sizeof(*p->cells[i].held));
		if (!p->cells[i].held)
			return -ENOMEM;
	}
	return 0;
}

int tb_runner_run(struct tb_runner *rn, uint64_t seed)
{
	struct tb_plan *p = rn->plan;
	unsigned int w, target = tb_scenario_first_rounds(p->s);
	size_t i;
	int ret;

	rn->rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rn->rng)
		return -ENOMEM;
	gsl_rng_set(rn->rng, seed);
	rn->t_start = tb_now_ns();
	ret = calibrate_all(rn);
	rn->planned = (size_t)(p->s->warmup + target) * p->ncells;
	if (!ret)
		ret = hold_tracers(rn);
	for (w = 0; !ret && w < p->s->warmup; w++)
		ret = run_round(rn, -1, true, w + 1, p->s->warmup);
	if (!ret)
		ret = measured_rounds(rn);
	for (i = 0; i < p->ncells; i++) { /* before explain: its samples set their tracers up */
		tb_child_release(p->cells[i].held, &rn->r->cells[p->cells[i].cell]);
		free(p->cells[i].held);
		p->cells[i].held = NULL;
	}
	if (!ret)
		ret = tb_runner_explain(rn);
	for (i = 0; i < p->ncells; i++)
		if (p->cells[i].hist_done)
			fill_latency(&rn->r->cells[p->cells[i].cell], p->cells[i].hist_done);
	return ret;
}

void tb_runner_free(struct tb_runner *rn)
{
	size_t i;

	if (rn->rng)
		gsl_rng_free(rn->rng);
	rn->rng = NULL;
	if (rn->dirs) {
		for (i = 0; i < rn->dirs->n; i++)
			tb_dir_close(&rn->dirs->sub[i]);
		tb_dir_close(&rn->dirs->tracers);
		free(rn->dirs);
		rn->dirs = NULL;
	}
}
