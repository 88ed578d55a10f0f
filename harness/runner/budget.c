// SPDX-License-Identifier: GPL-2.0
/*
 * A run's time budget (budget.h): the traced cells' slowdown probed, their op counts sized,
 * the duration fitted, the rounds that fit, and the next round's time for the stop rule.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "runner/budget.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

static double to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* Is workload w's batch a number of ops that its duration sizes (calibrated)? */
static bool ops_sized(const struct tb_scn_workload *w)
{
	return !(w->ops->flags & TB_WL_ONESHOT) && !w->ops->batch_ns;
}

/* Will plan cell cr's tracer be kept set up across its samples (runner.c, hold_tracers)? */
static bool will_hold(const struct tb_runner *rn, const struct tb_plan_cell *cr)
{
	const struct tb_scn_tracer *t = &rn->plan->s->tracers[cr->tr];

	return rn->plan->s->reuse_tracers && !rn->r->cells[cr->cell].baseline &&
	       tb_tracer_rearms(t->ops, t->cfg);
}

/* Its batch has its own op count, sized to its slowdown. */
static bool sized(const struct tb_runner *rn, const struct tb_plan_cell *cr)
{
	return !rn->r->cells[cr->cell].baseline && cr->slowdown >= TB_PLAN_SIZE_SLOWDOWN &&
	       ops_sized(&rn->plan->s->workloads[cr->wl]);
}

/* The fixed costs of a sample before any is measured: the plan's, per sample or rearmed. */
static void declared_fixed(const struct tb_runner *rn, struct tb_plan_cell *cr)
{
	const struct tb_scn_tracer *t = &rn->plan->s->tracers[cr->tr];
	double f = TB_PLAN_PROCESS_S + 2 * to_s(t->settle_ns);

	cr->fresh_s = f + (t->ops->est_cost_ns ? to_s(t->ops->est_cost_ns(t->cfg)) : 0);
	cr->fixed_s = cr->fresh_s;
	if (will_hold(rn, cr) && t->ops->est_rearm_ns)
		cr->fixed_s = f + to_s(t->ops->est_rearm_ns(t->cfg));
	cr->release_s = 0;
}

/*
 * One probe sample of plan cell i into scratch cell sc: TB_PLAN_PROBE_NS of its baseline's
 * calibrated ops under its own tracer, set up and torn down in the sample (as the explain
 * phase's). Its ns/op over the baseline's is the slowdown; its wall time beside the batch a
 * fresh sample's fixed cost; its teardown what releasing a held tracer takes. A failed probe
 * leaves the declared figures: the cell's own samples will say what fails.
 */
static int probe(struct tb_runner *rn, size_t i, struct tb_cell *sc)
{
	struct tb_plan *p = rn->plan;
	struct tb_plan_cell *real = &p->cells[i], cr = *real;
	const struct tb_scn_workload *w = &p->s->workloads[cr.wl];
	const struct tb_scn_tracer *t = &p->s->tracers[cr.tr];
	double ops = (double)p->wls[cr.wl].ops, base_ns = (double)w->duration_ns / ops, wall;
	const struct tb_sample *smp;
	uint64_t t0;
	int ret;

	cr.ops = (uint64_t)fmax(1, floor(ops * (double)TB_PLAN_PROBE_NS / (double)w->duration_ns));
	cr.hist = NULL;
	cr.dead = false;
	cr.held = NULL;
	t0 = tb_now_ns();
	ret = tb_runner_sample(rn, &cr, -1, true, false, NULL, sc);
	wall = to_s(tb_now_ns() - t0);
	free(cr.hist);
	smp = sc->nsamples ? &sc->samples[sc->nsamples - 1] : NULL;
	if (ret || !smp || smp->failed || !(smp->ns_per_op > 0) || !(base_ns > 0))
		return ret;
	real->slowdown = smp->ns_per_op / base_ns;
	real->fresh_s = fmax(wall - smp->elapsed_ns / 1e9, 0);
	/* a held tracer's rearm as declared, when it is declared and below a fresh one here */
	if (!will_hold(rn, real) || !t->ops->est_rearm_ns || real->fixed_s > real->fresh_s)
		real->fixed_s = real->fresh_s;
	real->release_s = will_hold(rn, real) && isfinite(smp->teardown_s) ? smp->teardown_s : 0;
	return 0;
}

/* The traced cells whose batch is sized in ops and whose tracer is not a baseline's (A/A's
 * second none), probed; how many measured into *n. */
static int probe_all(struct tb_runner *rn, size_t *n)
{
	struct tb_plan *p = rn->plan;
	struct tb_result *scratch = tb_result_new();
	int ret = scratch ? 0 : -ENOMEM;

	*n = 0;
	for (size_t i = 0; !ret && i < p->ncells; i++) {
		const struct tb_cell *c = &rn->r->cells[p->cells[i].cell];
		struct tb_cell *sc;

		if (c->baseline || p->cells[i].dead ||
		    (p->s->tracers[p->cells[i].tr].ops->flags & TB_TR_BASELINE) ||
		    !ops_sized(&p->s->workloads[p->cells[i].wl]))
			continue;
		sc = tb_result_add_cell(scratch);
		/* named as the cell, for the messages of a probe that fails */
		if (!sc || !(sc->id = strdup(c->id)) || !(sc->workload = strdup(c->workload)) ||
		    !(sc->tracer = strdup(c->tracer)))
			ret = -ENOMEM;
		if (!ret)
			ret = probe(rn, i, sc);
		if (!ret && tb_stop_requested())
			ret = -EINTR;
		*n += !ret && isfinite(p->cells[i].slowdown);
	}
	tb_result_free(scratch);
	return ret;
}

/* Seconds as fixed + per_d x the duration of the workloads whose duration is free. */
struct model {
	double fixed, per_d;
};

/* n samples of plan cell i, each with fixed_s beside its batch. */
static void add_samples(const struct tb_runner *rn, size_t i, double n, double fixed_s,
			struct model *m)
{
	const struct tb_plan *p = rn->plan;
	const struct tb_plan_cell *cr = &p->cells[i];
	const struct tb_scn_workload *w = &p->s->workloads[cr->wl];
	double unit = sized(rn, cr) || !isfinite(cr->slowdown) ? 1 : cr->slowdown;

	m->fixed += n * fixed_s;
	if (tb_plan_duration_free(p, cr->wl))
		m->per_d += n * unit;
	else if (ops_sized(w))
		m->fixed += n * unit * to_s(w->duration_ns);
	else /* a client's whole seconds, or one run of a program: what the plan takes */
		m->fixed += n * to_s(w->ops->batch_ns ? w->ops->batch_ns(w->cfg, w->duration_ns)
						      : w->duration_ns);
}

/* A round (warmup: the first, its held tracers set up; else a measured one, its accounting
 * samples, on the held tracers too, in at their share of the rounds, accounting-every), and
 * what follows the rounds (tail). */
static void model_of(const struct tb_runner *rn, struct model *warm, struct model *rnd,
		     struct model *tail)
{
	const struct tb_plan *p = rn->plan;

	memset(warm, 0, sizeof(*warm));
	memset(rnd, 0, sizeof(*rnd));
	memset(tail, 0, sizeof(*tail));
	for (size_t i = 0; i < p->ncells; i++) {
		const struct tb_plan_cell *cr = &p->cells[i];

		if (cr->dead)
			continue;
		add_samples(rn, i, 1, cr->fresh_s, warm);
		add_samples(rn, i, 1, cr->fixed_s, rnd);
		if (tb_runner_accounts(rn, cr))
			add_samples(rn, i, 1.0 / p->s->accounting_every, cr->fixed_s, rnd);
		tail->fixed += cr->release_s;
		if (tb_runner_explain_sampled(p, i))
			add_samples(rn, i, p->s->explain_samples, cr->fresh_s + 0.1, tail);
	}
}

static double at(const struct model *m, uint64_t d)
{
	return m->fixed + m->per_d * to_s(d);
}

/* The rounds that fit in left_s after the warmups and what follows, at the scenario's duration. */
static unsigned int rounds_fit(const struct tb_scenario *s, const struct model *warm,
			       const struct model *rnd, const struct model *tail, double left_s)
{
	double round = at(rnd, s->duration_ns), left = left_s - at(tail, s->duration_ns);

	if (s->warmup)
		left -= at(warm, s->duration_ns) + (s->warmup - 1) * round;
	return left > 0 && round > 0 ? (unsigned int)fmin(floor(left / round), 1e6) : 0;
}

/*
 * A min-rounds the plan chose comes down to the rounds that fit at the duration it chose
 * (plan.h, tb_plan_fit_min_rounds) before fit_duration looks at it: the duration is shortened
 * for a minimum the scenario asked, never for a chosen one, which is not worth samples that
 * spend their time on a slow tracer's fixed costs.
 */
static int fit_chosen_rounds(struct tb_runner *rn, double left_s)
{
	struct model warm, rnd, tail;

	model_of(rn, &warm, &rnd, &tail);
	return tb_plan_fit_min_rounds(rn->plan, rn->r,
				      rounds_fit(rn->plan->s, &warm, &rnd, &tail, left_s));
}

/*
 * With the duration the run's to choose: the longest (not above the plan's, nor below
 * TB_PLAN_AUTO_MIN_NS) at which the warmups and the rounds asked fit what is left; the
 * workloads' calibrated ops scaled to it, said in settings.sample_length.
 */
static int fit_duration(struct tb_runner *rn, double left_s)
{
	struct tb_plan *p = rn->plan;
	struct tb_scenario *s = p->s;
	uint64_t d0 = s->duration_ns, d;
	double rounds = tb_scenario_first_rounds(s), warmups = s->warmup;
	struct model warm, rnd, tail, all;
	char why[320];

	if (!(s->precision > 0) || s->duration_set)
		return 0;
	model_of(rn, &warm, &rnd, &tail);
	all.fixed = (warmups ? warm.fixed + (warmups - 1) * rnd.fixed : 0) + rounds * rnd.fixed +
		    tail.fixed;
	all.per_d = (warmups ? warm.per_d + (warmups - 1) * rnd.per_d : 0) + rounds * rnd.per_d +
		    tail.per_d;
	d = tb_plan_fit_duration_ns(left_s, all.fixed, all.per_d, d0);
	if (d >= d0)
		return 0;
	for (size_t i = 0; i < s->nworkloads; i++)
		if (s->workloads[i].used && tb_plan_duration_free(p, i))
			p->wls[i].ops = (uint64_t)fmax(
				1, round((double)p->wls[i].ops * (double)d / (double)d0));
	snprintf(why, sizeof(why),
		 "shortened to %.3g s once the traced cells' slowdown was measured, %s the %u "
		 "warmup and %u minimum rounds fit max-time (%.3g s would need about %.0f s)",
		 to_s(d),
		 at(&all, d) <= left_s ? "so that" : "the shortest it takes, where not even",
		 s->warmup, tb_scenario_first_rounds(s), to_s(d0),
		 ceil(to_s(s->max_time_ns) - left_s + at(&all, d0)));
	rn->budget.shortened = true;
	return tb_plan_set_duration(p, rn->r, d, why);
}

/*
 * The rounds that fit, what the rounds asked need, said (warned when they do not fit). A
 * chosen minimum already came down to what fits (fit_chosen_rounds): the final duration is no
 * longer than the one it was fitted at, so at least as many rounds fit now.
 */
static void fit_rounds(struct tb_runner *rn)
{
	const struct tb_scenario *s = rn->plan->s;
	struct tb_runner_budget *b = &rn->budget;
	struct model warm, rnd, tail;

	model_of(rn, &warm, &rnd, &tail);
	b->round_s = at(&rnd, s->duration_ns);
	b->warmups_s =
		s->warmup ? at(&warm, s->duration_ns) + (s->warmup - 1) * at(&rnd, s->duration_ns)
			  : 0;
	b->tail_s = at(&tail, s->duration_ns);
	b->duration_ns = s->duration_ns;
	b->fit = rounds_fit(s, &warm, &rnd, &tail, b->max_time_s - b->elapsed_s);
	b->asked = tb_scenario_first_rounds(s);
	rn->r->rounds_asked = b->asked;
	b->need_s = b->elapsed_s + b->warmups_s + b->asked * b->round_s + b->tail_s;
	rn->r->max_time_needed_s = b->need_s;
	if (b->fit >= b->asked)
		return;
	tb_warn("max-time %.3g s fits %u of the %u rounds asked: a round takes about %.2g s with "
		"the traced cells' slowdown, the %u warmup%s %.2g s, calibration and the probes "
		"took %.2g s%s; they need max-time >= %.0f s, or fewer rounds, or shorter samples",
		b->max_time_s, b->fit, b->asked, b->round_s, s->warmup, s->warmup == 1 ? "" : "s",
		b->warmups_s, b->elapsed_s,
		b->tail_s >= 0.05 ? ", and what follows the rounds more" : "", ceil(b->need_s));
}

int tb_runner_budget_start(struct tb_runner *rn)
{
	struct tb_plan *p = rn->plan;
	struct tb_runner_budget *b = &rn->budget;
	int ret = 0;

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < p->ncells; i++) {
		struct tb_plan_cell *cr = &p->cells[i];

		cr->ops = 0;
		cr->slowdown = rn->r->cells[cr->cell].baseline ? 1 : NAN;
		declared_fixed(rn, cr);
	}
	if (p->s->max_time_ns) {
		b->max_time_s = to_s(p->s->max_time_ns);
		rn->r->max_time_s = b->max_time_s;
		rn->r->rounds_asked = tb_scenario_first_rounds(p->s);
		ret = probe_all(rn, &b->nprobed);
		b->elapsed_s = to_s(tb_now_ns() - rn->t_start);
		if (!ret)
			ret = fit_chosen_rounds(rn, b->max_time_s - b->elapsed_s);
		if (!ret)
			ret = fit_duration(rn, b->max_time_s - b->elapsed_s);
	}
	for (size_t i = 0; !ret && i < p->ncells; i++) {
		struct tb_plan_cell *cr = &p->cells[i];
		struct tb_cell *c = &rn->r->cells[cr->cell];

		if (sized(rn, cr)) {
			cr->ops =
				(uint64_t)fmax(1, round((double)p->wls[cr->wl].ops / cr->slowdown));
			b->nsized++;
		}
		c->ops_per_sample = cr->ops ? cr->ops : p->wls[cr->wl].ops;
		c->slowdown = c->baseline ? NAN : cr->slowdown;
	}
	if (ret || !p->s->max_time_ns)
		return ret;
	fit_rounds(rn);
	if (rn->on_budget)
		rn->on_budget(rn->ctx, b);
	return 0;
}

double tb_runner_round_s(const struct tb_runner *rn)
{
	const struct tb_plan *p = rn->plan;
	bool accounts = tb_scenario_accounting_round(p->s, rn->r->rounds); /* the next round */
	double s = 0;

	for (size_t i = 0; i < p->ncells; i++) {
		const struct tb_plan_cell *cr = &p->cells[i];
		struct model one = {0};

		if (cr->dead)
			continue;
		if (cr->nwall) {
			s += cr->wall_s / cr->nwall;
		} else {
			add_samples(rn, i, 1, cr->fixed_s, &one);
			s += at(&one, p->s->duration_ns);
		}
		if (!accounts || !tb_runner_accounts(rn, cr))
			continue;
		if (cr->nacct) {
			s += cr->acct_wall_s / cr->nacct;
		} else {
			memset(&one, 0, sizeof(one));
			add_samples(rn, i, 1, cr->fresh_s, &one);
			s += at(&one, p->s->duration_ns);
		}
	}
	return s;
}

double tb_runner_tail_s(const struct tb_runner *rn)
{
	const struct tb_plan *p = rn->plan;
	double s = tb_runner_explain_left_s(rn);

	for (size_t i = 0; i < p->ncells; i++)
		if (p->cells[i].held && p->cells[i].held->priv)
			s += p->cells[i].release_s;
	return s;
}

bool tb_runner_round_fits(const struct tb_runner *rn, uint64_t elapsed_ns)
{
	uint64_t max = rn->plan->s->max_time_ns;

	return !max || to_s(elapsed_ns) + tb_runner_round_s(rn) + tb_runner_tail_s(rn) <= to_s(max);
}
