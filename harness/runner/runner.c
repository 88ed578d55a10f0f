// SPDX-License-Identifier: GPL-2.0
/* The rounds, the shuffle and the stop rule (runner.h). */
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/tb.h"
#include "host/elf-sites.h"
#include "model/bpf-progs.h"
#include "model/measured.h"
#include "model/proof.h"
#include "runner/budget.h"
#include "runner/child.h"
#include "runner/contended.h"
#include "runner/count.h"
#include "runner/explain.h"
#include "runner/runner.h"
#include "runner/sample.h"
#include "stats/stats.h"
#include "tracers/tracer.h"

static double to_s(uint64_t ns)
{
	return (double)ns / 1e9;
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
	if (rule->max_time_ns &&
	    (elapsed_ns >= rule->max_time_ns || elapsed_ns + rule->next_ns > rule->max_time_ns))
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

/*
 * A sample's wall time as the cell's later samples will take it: a held tracer (reuse-tracers)
 * is set up in its first sample only, so that sample's setup does not come again.
 */
static double steady_wall_s(const struct tb_plan_cell *cr, const struct tb_cell *c, double wall)
{
	const struct tb_sample *last = c->nsamples ? &c->samples[c->nsamples - 1] : NULL;

	if (cr->held && !cr->nwall && last && isfinite(last->setup_s) && last->setup_s < wall)
		return wall - last->setup_s;
	return wall;
}

/*
 * The cells with accounting samples (tracer.h, accounts) into acct (room for ncells); returns
 * how many.
 */
static size_t accounting_cells(const struct tb_runner *rn, size_t *acct)
{
	size_t n = 0;

	for (size_t i = 0; i < rn->plan->ncells; i++)
		if (tb_runner_accounts(rn, &rn->plan->cells[i]))
			acct[n++] = i;
	return n;
}

/*
 * One round: every cell's sample and, in a measured round of accounting-every's, one
 * accounting sample of each cell that has them, all in one shuffled order, so that the
 * accounting samples meet the same drift as the timed ones they are compared with
 * (METHODOLOGY.md, "The measurer never inflates the measured"). Without accounting cells the
 * order is the one it always was.
 */
static int run_round(struct tb_runner *rn, int round, bool warmup, unsigned int nround,
		     unsigned int nrounds)
{
	struct tb_plan *p = rn->plan;
	bool accounts = !warmup && tb_scenario_accounting_round(p->s, (unsigned int)round);
	size_t acct[p->ncells ? p->ncells : 1], nacct = accounts ? accounting_cells(rn, acct) : 0;
	size_t order[p->ncells + nacct], i;
	int ret;

	tb_runner_round_order(rn->rng, p->ncells + nacct, order);
	for (i = 0; i < p->ncells + nacct; i++) {
		bool accounting = order[i] >= p->ncells;
		struct tb_plan_cell *cr =
			&p->cells[accounting ? acct[order[i] - p->ncells] : order[i]];
		uint64_t t0 = tb_now_ns();

		if (cr->dead)
			continue;
		tb_runner_progress_say(rn, warmup ? "warmup" : "round", nround, nrounds,
				       &rn->r->cells[cr->cell]);
		ret = tb_runner_sample(rn, cr, round, warmup, accounting, NULL, NULL);
		if (ret)
			return ret;
		rn->samples_done++;
		if (!accounting) { /* an accounting sample's tracer runs with its stats: apart */
			cr->wall_s +=
				steady_wall_s(cr, &rn->r->cells[cr->cell], to_s(tb_now_ns() - t0));
			cr->nwall++;
		} else {
			cr->acct_wall_s += to_s(tb_now_ns() - t0);
			cr->nacct++;
		}
		rn->sample_cost_s +=
			(to_s(tb_now_ns() - t0) - rn->sample_cost_s) / rn->samples_done;
		if (cr->dead)
			say_dead(&rn->r->cells[cr->cell]);
	}
	if (!rn->estimated && rn->on_estimate) {
		double elapsed = to_s(tb_now_ns() - rn->t_start);

		rn->on_estimate(rn->ctx, elapsed + tb_runner_left_s(rn), elapsed);
	}
	rn->estimated = true;
	return 0;
}

/*
 * What every traced cell should record per op (model/proof.h): its workload's events per op
 * matched with its tracer's hooks (found: the hooks found in the run instead, else the
 * tracer's own) and the harness's own window (runner/measure.h). A plugin that cannot say
 * leaves the expectation unknown, which the proof treats as such.
 */
static void expect_cell(struct tb_runner *rn, const struct tb_plan_cell *cr,
			const struct tb_hooks *found)
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
	if (rn->counted && rn->counted[cr->wl]) /* the counting pass's, beside what it declares */
		for (size_t i = 0; i < rn->counted[cr->wl]->n; i++) {
			const struct tb_op_event *e = &rn->counted[cr->wl]->ev[i];

			tb_op_events_add(&ops, e->name, e->per_op, e->who, e->flags);
		}
	tb_hooks_init(&h);
	ret = found ? 0 : t->ops->hooks ? t->ops->hooks(t->cfg, &h) : -ENOTSUP;
	if (ret) {
		tb_warn("[tracer %s]: what it hooks is unknown: %s", t->name, strerror(-ret));
		tb_hooks_free(&h);
		tb_hooks_init(&h);
		h.kind = TB_HOOK_UNKNOWN;
	}
	tb_runner_fill_req(p, cr->wl, &req);
	tb_measure_window_events(&req, &harness);
	tb_proof_expect(&ops, found ? found : &h, &harness, &cell->expected);
	tb_hooks_free(&h);
}

/* Every sample that counted its tracer's BPF runs recorded them as its events. */
static bool events_are_bpf_runs(const struct tb_cell *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (s->bpf_run_cnt < 0)
			continue;
		if (s->events != s->bpf_run_cnt)
			return false;
		n++;
	}
	return n > 0;
}

/*
 * A tracer that did not say what it hooks (a command without hooks): where its BPF programs
 * were found attached says it, when its events are their runs (model/bpf-progs.h), so that a
 * cell whose hooks its workload never reaches is a control and a mismatch names the hook.
 */
static void expect_from_attach(struct tb_runner *rn)
{
	struct tb_plan *p = rn->plan;

	for (size_t i = 0; i < p->ncells; i++) {
		struct tb_cell *cell = &rn->r->cells[p->cells[i].cell];
		struct tb_hooks h;
		size_t n;

		if (cell->baseline || !cell->expected.present ||
		    cell->expected.kind != TB_HOOK_UNKNOWN || !events_are_bpf_runs(cell))
			continue;
		tb_hooks_init(&h);
		if (tb_cell_bpf_hooks(cell, tb_elf_site_name, &h) == 1) {
			expect_cell(rn, &p->cells[i], &h);
			n = strlen(cell->expected.hooks);
			snprintf(cell->expected.hooks + n, sizeof(cell->expected.hooks) - n,
				 " (found attached)");
		}
		tb_hooks_free(&h);
	}
}

static int calibrate_all(struct tb_runner *rn)
{
	struct tb_plan *p = rn->plan;
	size_t i;
	int ret;

	for (i = 0; i < p->s->nworkloads; i++) {
		if (!p->s->workloads[i].used)
			continue;
		ret = tb_runner_calibrate(rn, i);
		if (!ret)
			ret = tb_runner_count(rn, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < p->ncells; i++)
		if (!rn->r->cells[p->cells[i].cell].baseline)
			expect_cell(rn, &p->cells[i], NULL);
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

/*
 * Round `done` just completed: run it again when it was contended (runner/contended.h), once,
 * and while the run's bound holds. Its latency histograms go back to the last completed
 * round's, and the samples it adds are planned. Returns true when it is to be run again.
 */
static bool again_if_contended(struct tb_runner *rn, unsigned int done, bool *again_done,
			       unsigned int *reruns)
{
	struct tb_plan *p = rn->plan;
	const struct tb_scenario *s = p->s;
	unsigned int ncpus[rn->r->ncells ? rn->r->ncells : 1];
	size_t i;
	bool allowed = !*again_done &&
		       *reruns < tb_contended_cap(s->precision > 0 ? s->max_rounds : s->rounds) &&
		       tb_runner_round_fits(rn, tb_now_ns() - rn->t_start);

	memset(ncpus, 0, sizeof(ncpus));
	for (i = 0; i < p->ncells; i++)
		ncpus[p->cells[i].cell] = (unsigned int)p->wls[p->cells[i].wl].ncpus;
	if (!tb_contended_round(rn->r, ncpus, done, allowed))
		return false;

	for (i = 0; i < p->ncells; i++) {
		struct tb_plan_cell *cr = &p->cells[i];

		if (!cr->hist)
			continue;
		if (cr->hist_done)
			*cr->hist = *cr->hist_done;
		else
			tb_hist_init(cr->hist);
	}
	rn->planned_rounds++; /* measured: with its accounting samples, if it has them */
	rn->planned_measured++;
	*again_done = true;
	(*reruns)++;
	return true;
}

/* Measured rounds until the stop rule says why to stop. */
static int measured_rounds(struct tb_runner *rn)
{
	struct tb_scenario *s = rn->plan->s;
	unsigned int done = 0, target = tb_scenario_first_rounds(s), reruns = 0;
	bool again_done = false;
	struct tb_runner_stop_rule rule = {
		.rounds = s->rounds,
		.min_rounds = s->min_rounds,
		.max_rounds = s->max_rounds,
		.precision = s->precision,
		.max_time_ns = s->max_time_ns,
	};
	int ret;

	tb_contended_start(rn->r);
	for (;;) {
		const char *why;

		if (!done && !again_done && !tb_runner_round_fits(rn, tb_now_ns() - rn->t_start)) {
			free(rn->r->stop_reason); /* max-time fits no measured round */
			rn->r->stop_reason = strdup("max-time");
			return 0;
		}
		if (done >= target && !again_done) { /* adaptive stopping asked for another round */
			rn->planned_rounds++;
			rn->planned_measured++;
		}
		ret = run_round(rn, (int)done, false, done + 1, target > done ? target : done + 1);
		if (ret == -EINTR)
			mark_partial_round(rn->r, done); /* r->rounds stays the completed rounds */
		if (ret)
			return ret;
		if (again_if_contended(rn, done, &again_done, &reruns))
			continue;
		again_done = false;
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
		if (rule.max_time_ns)
			rule.next_ns =
				(uint64_t)(1e9 * (tb_runner_round_s(rn) + tb_runner_tail_s(rn)));
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

		if (!tb_tracer_rearms(t->ops, t->cfg) || rn->r->cells[p->cells[i].cell].baseline)
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
	if (!ret)
		ret = tb_runner_budget_start(rn);
	rn->planned_rounds = p->s->warmup + target;
	rn->planned_measured = target;
	if (!ret && rn->on_disk) {
		struct tb_runner_disk d;

		tb_runner_disk_need(rn, &d);
		ret = rn->on_disk(rn->ctx, &d);
	}
	if (!ret)
		ret = hold_tracers(rn);
	if (!ret && rn->budget.max_time_s && !rn->budget.fit) {
		/* no measured round fits after the warmups: nothing is run (budget.h said so) */
		free(rn->r->stop_reason);
		rn->r->stop_reason = strdup("max-time");
	} else {
		for (w = 0; !ret && w < p->s->warmup; w++)
			ret = run_round(rn, -1, true, w + 1, p->s->warmup);
		if (!ret)
			ret = measured_rounds(rn);
	}
	expect_from_attach(rn);		  /* the samples found the tracers' programs */
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
	if (rn->rng)
		gsl_rng_free(rn->rng);
	rn->rng = NULL;
	tb_runner_dirs_free(rn);
	tb_runner_count_free(rn);
}
