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
#include "runner/child.h"
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

/* The fixed costs of plan cell i's samples before any is measured: the plan's own figures
 * (plan.h), a server's setup included, per sample or rearmed. */
static void declared_fixed(const struct tb_runner *rn, size_t i)
{
	struct tb_plan_cell *cr = &rn->plan->cells[i];

	cr->fresh_s = tb_plan_cell_fresh_s(rn->plan, i);
	cr->fixed_s = will_hold(rn, cr) ? tb_plan_cell_fixed_s(rn->plan, i) : cr->fresh_s;
	cr->release_s = 0;
}

/* What one probe sample gave: ok when it completed, with its ns/op and its wall time beside
 * its batch (process, settles, tracer setup or rearm, stop and park or teardown). */
struct probed {
	bool ok;
	double ns_per_op, fixed_s;
};

/* One probe sample of cr (the caller's copy: its op count, held slot) into scratch cell sc.
 * Returns what tb_runner_sample returns. */
static int probe_sample(struct tb_runner *rn, struct tb_plan_cell *cr, struct tb_cell *sc,
			struct probed *pr)
{
	const struct tb_sample *smp;
	uint64_t t0 = tb_now_ns();
	double wall;
	int ret;

	ret = tb_runner_sample(rn, cr, -1, true, false, NULL, sc);
	wall = to_s(tb_now_ns() - t0);
	free(cr->hist);
	cr->hist = NULL;
	smp = sc->nsamples ? &sc->samples[sc->nsamples - 1] : NULL;
	pr->ok = !ret && smp && !smp->failed && smp->ns_per_op > 0;
	if (pr->ok) {
		pr->ns_per_op = smp->ns_per_op;
		pr->fixed_s = fmax(wall - smp->elapsed_ns / 1e9, 0);
	}
	return ret;
}

/*
 * The probes of plan cell i into scratch cell sc, each of TB_PLAN_PROBE_NS of its baseline's
 * calibrated ops. A traced cell's first sample sets its tracer up: its ns/op over the
 * baseline's is the slowdown, its wall time beside the batch a fresh sample's fixed cost. A
 * tracer the run will keep is parked by it as the run's first sample parks it, and a second
 * sample rearms it as every later one does: its wall time beside the batch is what each of the
 * cell's samples will cost besides its batch (the declared est_rearm_ns when it did not run);
 * the release after it, what releasing a held tracer takes. A baseline cell's sample (fixed
 * only) is its process and settles. A failed probe leaves the declared figures: the cell's own
 * samples will say what fails.
 */
static int probe(struct tb_runner *rn, size_t i, struct tb_cell *sc, bool fixed_only)
{
	struct tb_plan *p = rn->plan;
	struct tb_plan_cell *real = &p->cells[i], cr = *real;
	const struct tb_scn_workload *w = &p->s->workloads[cr.wl];
	const struct tb_scn_tracer *t = &p->s->tracers[cr.tr];
	double ops = (double)p->wls[cr.wl].ops, base_ns = (double)w->duration_ns / ops, release;
	bool hold = !fixed_only && will_hold(rn, real);
	struct probed fresh, again = {0};
	struct tb_tracer held = {0};
	const char *how;
	uint64_t t0;
	int ret;

	cr.ops = (uint64_t)fmax(1, floor(ops * (double)TB_PLAN_PROBE_NS / (double)w->duration_ns));
	cr.hist = NULL;
	cr.dead = false;
	cr.held = hold ? &held : NULL;
	ret = probe_sample(rn, &cr, sc, &fresh);
	if (!ret && fresh.ok && held.priv && !tb_stop_requested()) {
		/* its batch as long as the first one's would be at the baseline's speed */
		if (base_ns > 0 && fresh.ns_per_op > base_ns)
			cr.ops = (uint64_t)fmax(1,
						round((double)cr.ops * base_ns / fresh.ns_per_op));
		ret = probe_sample(rn, &cr, sc, &again);
	}
	t0 = tb_now_ns();
	tb_child_release(&held, NULL);
	release = to_s(tb_now_ns() - t0);
	if (ret || !fresh.ok)
		return ret;
	real->fresh_s = fresh.fixed_s;
	if (fixed_only) {
		real->fixed_s = fresh.fixed_s;
		tb_debug("%s: probed: fixed %.1f ms a sample", sc->id, 1e3 * real->fixed_s);
		return 0;
	}
	if (!(base_ns > 0))
		return 0;
	real->slowdown = fresh.ns_per_op / base_ns;
	if (again.ok)
		real->fixed_s = again.fixed_s;
	else if (!hold || !t->ops->est_rearm_ns || real->fixed_s > real->fresh_s)
		real->fixed_s = real->fresh_s;
	real->release_s = hold ? release : 0;
	how = again.ok			       ? "rearmed"
	      : real->fixed_s == real->fresh_s ? "set up afresh"
					       : "declared rearm";
	tb_debug("%s: probed: slowdown %.3g, fixed %.1f ms a sample (%s), fresh %.1f ms, release "
		 "%.1f ms",
		 sc->id, real->slowdown, 1e3 * real->fixed_s, how, 1e3 * real->fresh_s,
		 1e3 * real->release_s);
	return 0;
}

/* Will the run choose its duration again from the probes (rechoose_duration)? */
static bool rechooses(const struct tb_runner *rn)
{
	const struct tb_scenario *s = rn->plan->s;

	return s->precision > 0 && !s->duration_set && rn->r->sample_length;
}

/* The cells whose batch is sized in ops probed: the traced ones for their slowdown and fixed
 * costs (*n counts them), and, when the duration is chosen again from what the probes measure,
 * the others (a baseline, A/A's second none) for their fixed cost alone. */
static int probe_all(struct tb_runner *rn, size_t *n)
{
	struct tb_plan *p = rn->plan;
	struct tb_result *scratch = tb_result_new();
	int ret = scratch ? 0 : -ENOMEM;

	*n = 0;
	for (size_t i = 0; !ret && i < p->ncells; i++) {
		const struct tb_cell *c = &rn->r->cells[p->cells[i].cell];
		bool fixed_only =
			c->baseline || (p->s->tracers[p->cells[i].tr].ops->flags & TB_TR_BASELINE);
		struct tb_cell *sc;

		if (p->cells[i].dead || (fixed_only && !rechooses(rn)) ||
		    !ops_sized(&p->s->workloads[p->cells[i].wl]))
			continue;
		sc = tb_result_add_cell(scratch);
		/* named as the cell, for the messages of a probe that fails */
		if (!sc || !(sc->id = strdup(c->id)) || !(sc->workload = strdup(c->workload)) ||
		    !(sc->tracer = strdup(c->tracer)))
			ret = -ENOMEM;
		if (!ret)
			ret = probe(rn, i, sc, fixed_only);
		if (!ret && tb_stop_requested())
			ret = -EINTR;
		*n += !ret && !fixed_only && isfinite(p->cells[i].slowdown);
	}
	tb_result_free(scratch);
	return ret;
}

/* The workloads whose duration is free: their calibrated ops scaled from duration d0 to d. */
static void scale_ops(struct tb_plan *p, uint64_t d0, uint64_t d)
{
	for (size_t i = 0; i < p->s->nworkloads; i++)
		if (p->s->workloads[i].used && tb_plan_duration_free(p, i))
			p->wls[i].ops = (uint64_t)fmax(
				1, round((double)p->wls[i].ops * (double)d / (double)d0));
}

/*
 * With the duration the plan chose from the tracers' declared costs (plan.h,
 * tb_plan_auto_length): chosen again by the same rule from the fixed costs the probes measured,
 * each cell's declared figure (tb_plan_cell_fixed_s, the one the plan weighed) the least it
 * takes (a probe sees a tracer's first rearm, not its steady state: lttng-ust's second session,
 * whose clear is confirmed a window later, probed in one run at a third of what its samples
 * then took). So a tracer whose samples cost more than declared (on another machine or kernel,
 * or in a configuration the declaration did not measure: a BPF uprobe's per-process link,
 * attached and closed every sample) gets longer samples; none gets shorter ones. The
 * workloads' calibrated ops scaled to it, said in settings.sample_length. 0 or -ENOMEM.
 */
static int rechoose_duration(struct tb_runner *rn)
{
	struct tb_plan *p = rn->plan;
	uint64_t d0 = p->s->duration_ns, d;
	double *fixed, mean = 0;
	char why[320];

	if (!rechooses(rn) || !p->ncells)
		return 0;
	fixed = calloc(p->ncells, sizeof(*fixed));
	if (!fixed)
		return -ENOMEM;
	for (size_t i = 0; i < p->ncells; i++) {
		fixed[i] = fmax(p->cells[i].fixed_s, tb_plan_cell_fixed_s(p, i));
		mean += fixed[i] / (double)p->ncells;
	}
	d = tb_plan_auto_duration_ns(fixed, p->ncells, TB_PLAN_AUTO_SHARE);
	free(fixed);
	if (d <= d0)
		return 0;
	scale_ops(p, d0, d);
	snprintf(why, sizeof(why),
		 "lengthened to %.3g s by the same rule once the probes had measured the fixed "
		 "costs (a cell's declared figure the least): %.1f ms a sample, the mean over %zu "
		 "cells",
		 to_s(d), 1e3 * mean, p->ncells);
	return tb_plan_set_duration(p, rn->r, d, why);
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
	scale_ops(p, d0, d);
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
		declared_fixed(rn, i);
	}
	if (p->s->max_time_ns) {
		b->max_time_s = to_s(p->s->max_time_ns);
		rn->r->max_time_s = b->max_time_s;
		rn->r->rounds_asked = tb_scenario_first_rounds(p->s);
		ret = probe_all(rn, &b->nprobed);
		b->elapsed_s = to_s(tb_now_ns() - rn->t_start);
		if (!ret)
			ret = rechoose_duration(rn);
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
