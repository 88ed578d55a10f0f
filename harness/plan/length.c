// SPDX-License-Identifier: GPL-2.0
/*
 * The sample length, settle and rounds a run chooses itself (plan.h, tb_plan_auto_length): with
 * a precision target and a max-time, the keys the scenario left at their defaults. METHODOLOGY.md
 * section 9 has the measurements the rule's constants come from. Also what one sample of a
 * section lasts as its workload runs it (its batch, its process), which the estimate and the
 * rule share.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "plan/plan.h"
#include "stats/stats.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

static double to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

double tb_plan_batch_s(const struct tb_scn_workload *w)
{
	return to_s(w->ops->batch_ns ? w->ops->batch_ns(w->cfg, w->duration_ns) : w->duration_ns);
}

double tb_plan_process_s(const struct tb_scn_workload *w)
{
	return TB_PLAN_PROCESS_S +
	       (w->ops->setup_ns ? to_s(w->ops->setup_ns(w->cfg, w->duration_ns)) : 0);
}

uint64_t tb_plan_auto_duration_ns(const double *fixed_s, size_t n, double share)
{
	double sum = 0, d;
	size_t i;

	for (i = 0; i < n; i++)
		sum += fixed_s[i] > 0 ? fixed_s[i] : 0;
	if (!n || !(share > 0 && share < 1))
		return TB_PLAN_AUTO_MIN_NS;
	/* fixed / (d + fixed) <= share, on the cells' mean fixed cost */
	d = sum / (double)n * (1 - share) / share * 1e9;
	d = ceil(d / TB_PLAN_AUTO_STEP_NS - 1e-9) * TB_PLAN_AUTO_STEP_NS;
	if (d < TB_PLAN_AUTO_MIN_NS)
		return TB_PLAN_AUTO_MIN_NS;
	return d > TB_PLAN_AUTO_MAX_NS ? TB_PLAN_AUTO_MAX_NS : (uint64_t)d;
}

uint64_t tb_plan_fit_duration_ns(double avail_s, double fixed_s, double per_d_s, uint64_t d0_ns)
{
	double d;

	if (!(per_d_s > 0) || fixed_s + per_d_s * to_s(d0_ns) <= avail_s)
		return d0_ns;
	d = (avail_s - fixed_s) / per_d_s * 1e9;
	d = floor(d / TB_PLAN_AUTO_STEP_NS + 1e-9) * TB_PLAN_AUTO_STEP_NS;
	if (!(d >= TB_PLAN_AUTO_MIN_NS))
		return d0_ns < TB_PLAN_AUTO_MIN_NS ? d0_ns : TB_PLAN_AUTO_MIN_NS;
	return d < (double)d0_ns ? (uint64_t)d : d0_ns;
}

bool tb_plan_duration_free(const struct tb_plan *p, size_t wi)
{
	const struct tb_scn_workload *w = &p->s->workloads[wi];

	return !p->s->duration_set && !w->duration_set && !(w->ops->flags & TB_WL_ONESHOT) &&
	       !w->ops->batch_ns;
}

/* Process and settles: what every sample of plan cell i pays beside its batch and tracer. */
static double cell_base_s(const struct tb_plan *p, size_t i)
{
	return tb_plan_process_s(&p->s->workloads[p->cells[i].wl]) +
	       2 * to_s(p->s->tracers[p->cells[i].tr].settle_ns);
}

double tb_plan_cell_fresh_s(const struct tb_plan *p, size_t i)
{
	const struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];

	return cell_base_s(p, i) + (t->ops->est_cost_ns ? to_s(t->ops->est_cost_ns(t->cfg)) : 0);
}

double tb_plan_cell_fixed_s(const struct tb_plan *p, size_t i)
{
	const struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];

	if (p->s->reuse_tracers && tb_tracer_rearms(t->ops, t->cfg) && t->ops->est_rearm_ns)
		return cell_base_s(p, i) + to_s(t->ops->est_rearm_ns(t->cfg));
	return tb_plan_cell_fresh_s(p, i);
}

/* Settle 0 for the used tracers that need none (TB_TR_NOSETTLE) and set none; their names. */
static void choose_settle(struct tb_scenario *s, char *names, size_t len)
{
	size_t i, n = 0;

	names[0] = '\0';
	for (i = 0; i < s->ntracers; i++) {
		struct tb_scn_tracer *t = &s->tracers[i];

		if (t->settle_set || !(t->ops->flags & TB_TR_NOSETTLE) || (i && !t->used))
			continue;
		t->settle_ns = 0;
		n += (size_t)snprintf(names + n, n < len ? len - n : 0, "%s%s", n ? ", " : "",
				      t->name);
	}
	if (!s->settle_set)
		s->settle_ns = s->tracers[0].settle_ns;
}

/* The chosen duration into the workloads without their own, and their cells. */
static void apply_duration(struct tb_plan *p, struct tb_result *r, uint64_t d)
{
	size_t i;

	p->s->duration_ns = d;
	r->duration_ns = d;
	for (i = 0; i < p->s->nworkloads; i++)
		if (!p->s->workloads[i].duration_set)
			p->s->workloads[i].duration_ns = d;
	for (i = 0; i < p->ncells; i++)
		r->cells[p->cells[i].cell].duration_ns =
			p->s->workloads[p->cells[i].wl].duration_ns;
}

/* min-rounds and max-rounds left unset (tb_plan_auto_length): the precision or the max-time
 * ends the run, after enough pairs for its bootstrap. */
static int choose_rounds(struct tb_scenario *s, struct tb_result *r)
{
	char *why = NULL;

	if (s->min_rounds_set && s->max_rounds_set)
		return 0;
	if (!s->max_rounds_set)
		s->max_rounds = TB_PLAN_AUTO_MAX_ROUNDS;
	if (!s->min_rounds_set)
		s->min_rounds = s->max_rounds < TB_PLAN_AUTO_MIN_ROUNDS ? s->max_rounds
									: TB_PLAN_AUTO_MIN_ROUNDS;
	if (asprintf(
		    &why,
		    "chosen for precision = %.3g%% within max-time = %.3g s: min-rounds %u%s; "
		    "max-rounds %u%s; set min-rounds or max-rounds to choose them",
		    100 * s->precision, to_s(s->max_time_ns), s->min_rounds,
		    s->min_rounds_set ? " as the scenario sets it"
		    : s->max_rounds_set && s->min_rounds < TB_PLAN_AUTO_MIN_ROUNDS
			    ? ", the scenario's max-rounds"
			    : ", the rounds before it may stop on precision (a percentile bootstrap "
			      "of fewer pairs is not to be trusted)",
		    s->max_rounds,
		    s->max_rounds_set
			    ? " as the scenario sets it"
			    : ", so that the precision or the max-time ends the run, not a "
			      "round count") < 0)
		return -ENOMEM;
	free(r->rounds_chosen);
	r->rounds_chosen = why;
	return 0;
}

/* Whether a traced cell's tracer takes accounting samples (runner/sample.c,
 * tb_runner_accounts). */
static bool any_accounts(const struct tb_plan *p, const struct tb_result *r)
{
	for (size_t i = 0; i < p->ncells; i++) {
		const struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];

		if (!r->cells[p->cells[i].cell].baseline && t->ops->accounts &&
		    t->ops->accounts(t->cfg))
			return true;
	}
	return false;
}

/*
 * accounting-every left unset with a precision and a max-time: the largest, up to
 * TB_PLAN_AUTO_ACCOUNTING_EVERY, that leaves TB_ACCOUNTING_CI_MIN accounting samples (what
 * their CI needs, stats.h) in the rounds before the run may stop; why appended to
 * r->rounds_chosen (after 'how', which is non-empty for a lowered min-rounds: a kept choice is
 * then restated with its new count). 0 or -ENOMEM.
 */
static int choose_accounting(struct tb_plan *p, struct tb_result *r, const char *how)
{
	struct tb_scenario *s = p->s;
	unsigned int e = s->min_rounds / TB_ACCOUNTING_CI_MIN;
	char *text = NULL, nth[16] = "";

	e = e < 1 ? 1 : e > TB_PLAN_AUTO_ACCOUNTING_EVERY ? TB_PLAN_AUTO_ACCOUNTING_EVERY : e;
	if (s->accounting_every_set || !any_accounts(p, r))
		return 0;
	if (e == s->accounting_every) {
		/* the default (every round) is not a choice to say; a kept choice is restated for
		 * the lowered min-rounds, whose count of accounting rounds changed */
		if (e == 1 || !*how)
			return 0;
		if (asprintf(&text, "%s; accounting-every %u kept: %u of them in the %u rounds",
			     r->rounds_chosen ? r->rounds_chosen : "", e,
			     tb_scenario_accounting_rounds(s, s->min_rounds), s->min_rounds) < 0)
			return -ENOMEM;
		goto said;
	}
	s->accounting_every = e;
	r->accounting_every = e;
	if (e > 1)
		snprintf(nth, sizeof(nth), "%u%s ", e, e == 2 ? "nd" : e == 3 ? "rd" : "th");
	if (asprintf(
		    &text,
		    "%s%saccounting-every %u%s: the accounting samples in every %smeasured round "
		    "from the first, %u of them in the %u rounds before it may stop (%u needed for "
		    "their CI), the time of the others on timed samples",
		    r->rounds_chosen ? r->rounds_chosen : "", r->rounds_chosen ? "; " : "", e, how,
		    nth, tb_scenario_accounting_rounds(s, s->min_rounds), s->min_rounds,
		    TB_ACCOUNTING_CI_MIN) < 0)
		return -ENOMEM;
said:
	free(r->rounds_chosen);
	r->rounds_chosen = text;
	return 0;
}

int tb_plan_fit_min_rounds(struct tb_plan *p, struct tb_result *r, unsigned int fit)
{
	struct tb_scenario *s = p->s;
	unsigned int m = fit > TB_PLAN_AUTO_MIN_ROUNDS_FLOOR ? fit : TB_PLAN_AUTO_MIN_ROUNDS_FLOOR;
	char *text = NULL;

	if (s->min_rounds_set || !r->rounds_chosen || m >= s->min_rounds)
		return 0;
	if (asprintf(&text,
		     "%s; min-rounds lowered to %u once the traced cells' slowdown was measured: "
		     "%u fit max-time",
		     r->rounds_chosen, m, fit) < 0)
		return -ENOMEM;
	s->min_rounds = m;
	free(r->rounds_chosen);
	r->rounds_chosen = text;
	return choose_accounting(p, r, " for them");
}

int tb_plan_auto_length(struct tb_plan *p, struct tb_result *r)
{
	struct tb_scenario *s = p->s;
	char settled[512], why[1024];
	double *fixed, mean = 0;
	uint64_t d = s->duration_ns;
	size_t i;
	int ret;

	if (!(s->precision > 0) || !s->max_time_ns)
		return 0;
	ret = choose_rounds(s, r);
	if (!ret)
		ret = choose_accounting(p, r, "");
	if (ret || (s->duration_set && s->settle_set))
		return ret;
	if (!s->settle_set)
		choose_settle(s, settled, sizeof(settled));
	fixed = calloc(p->ncells + 1, sizeof(*fixed));
	if (!fixed)
		return -ENOMEM;
	for (i = 0; i < p->ncells; i++) {
		fixed[i] = tb_plan_cell_fixed_s(p, i);
		mean += fixed[i] / (double)p->ncells;
	}
	if (!s->duration_set) {
		d = tb_plan_auto_duration_ns(fixed, p->ncells, TB_PLAN_AUTO_SHARE);
		apply_duration(p, r, d);
	}
	free(fixed);
	snprintf(
		why, sizeof(why),
		"chosen for precision = %.3g%% within max-time = %.3g s: %s%.3g s samples, the "
		"shortest of at least %.3g s (where paired rounds stay independent) whose fixed "
		"costs (workload process, settles, the tracers' declared setup or rearm: %.1f ms a "
		"sample, the mean over %zu cells) stay within %.0f%% of its wall time; settle %s%s%s; "
		"set duration or settle to choose them",
		100 * s->precision, to_s(s->max_time_ns), s->duration_set ? "the scenario's " : "",
		to_s(d), to_s(TB_PLAN_AUTO_MIN_NS), 1e3 * mean, p->ncells, 100 * TB_PLAN_AUTO_SHARE,
		s->settle_set ? "as the scenario sets it" : "0 for ",
		s->settle_set ? "" : (*settled ? settled : "no tracer"),
		s->settle_set ? "" : " (live when started), the others' as set");
	free(r->sample_length);
	r->sample_length = strdup(why);
	return r->sample_length ? 0 : -ENOMEM;
}

int tb_plan_set_duration(struct tb_plan *p, struct tb_result *r, uint64_t d, const char *why)
{
	char *text = NULL;

	apply_duration(p, r, d);
	if (asprintf(&text, "%s%s%s", r->sample_length ? r->sample_length : "",
		     r->sample_length ? "; " : "", why) < 0)
		return -ENOMEM;
	free(r->sample_length);
	r->sample_length = text;
	return 0;
}
