// SPDX-License-Identifier: GPL-2.0
/* The gate's thresholds and its verdict on each cell (gate.h states the rules). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/result.h"
#include "stats/compare.h"
#include "stats/gate.h"
#include "stats/stats.h"

void tb_gate_opts_init(struct tb_gate_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_overhead = o->max_regression = o->alpha = o->max_thr_loss = o->max_p99_rise = NAN;
	o->max_slope_rise = NAN;
	o->allow_untrustworthy = o->allow_faster = o->allow_partial = o->allow_foreign = -1;
}

/* ---- thresholds ------------------------------------------------------------------------------ */

/*
 * "5%", "1.05x", a JSON number (a fraction, as a program writes it) or "none" from the result's
 * gate object (the scenario's text: a bare number there is refused as it is in the scenario);
 * absent leaves *out alone.
 */
static int gate_pct(const char *what, json_t *g, const char *key, double *out)
{
	json_t *v = g ? json_object_get(g, key) : NULL;
	char why[200];
	double d;
	int ret;

	if (!v)
		return 0;
	if (json_is_number(v)) {
		d = json_number_value(v);
	} else if (json_is_string(v) && (!strcmp(json_string_value(v), "none") ||
					 !strcmp(json_string_value(v), "off"))) {
		d = INFINITY;
	} else if (!json_is_string(v)) {
		tb_err("%s: gate.%s: expected a percentage like \"5%%\" or \"none\"", what, key);
		return -EINVAL;
	} else if ((ret = tb_parse_threshold(json_string_value(v), &d))) {
		tb_err("%s: gate.%s", what,
		       tb_percent_why(ret, key, json_string_value(v), true, why, sizeof(why)));
		return -EINVAL;
	}
	if (!(d >= 0)) {
		tb_err("%s: gate.%s: must not be negative", what, key);
		return -EINVAL;
	}
	*out = d;
	return 0;
}

/* true/false (or their text) from the result's gate object; absent leaves *out alone. */
static int gate_bool(const char *what, json_t *g, const char *key, bool *out)
{
	json_t *v = g ? json_object_get(g, key) : NULL;

	if (!v)
		return 0;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	if (json_is_string(v) && !tb_parse_bool(json_string_value(v), out))
		return 0;
	tb_err("%s: gate.%s: expected true or false", what, key);
	return -EINVAL;
}

static int resolve(struct tb_gate *g, const struct tb_result *r, const struct tb_gate_opts *o)
{
	json_t *j = r->gate, *v;
	double mo = TB_GATE_DEFAULT_MAX_OVERHEAD, mr = TB_GATE_DEFAULT_MAX_REGRESSION;
	double alpha = TB_GATE_DEFAULT_ALPHA, tl = INFINITY, p99 = INFINITY, slope = INFINITY;
	bool allow = false, power = false, faster = false, partial = false, foreign = false;

	if (gate_pct(g->name, j, "max-overhead", &mo) ||
	    gate_pct(g->name, j, "max-regression", &mr) ||
	    gate_pct(g->name, j, "max-throughput-loss", &tl) ||
	    gate_pct(g->name, j, "max-p99-increase", &p99) ||
	    gate_pct(g->name, j, "max-slope-increase", &slope))
		return -EINVAL;
	if (j && (v = json_object_get(j, "alpha"))) {
		if (!(json_is_number(v) ? (alpha = json_number_value(v), true)
					: json_is_string(v) &&
						  !tb_parse_double(json_string_value(v), &alpha)) ||
		    !(alpha > 0 && alpha < 0.5)) {
			tb_err("%s: gate.alpha: expected a probability in (0, 0.5)", g->name);
			return -EINVAL;
		}
	}
	if (gate_bool(g->name, j, "allow-untrustworthy", &allow) ||
	    gate_bool(g->name, j, "require-power", &power) ||
	    gate_bool(g->name, j, "allow-faster", &faster) ||
	    gate_bool(g->name, j, "allow-partial", &partial) ||
	    gate_bool(g->name, j, "allow-foreign", &foreign))
		return -EINVAL;
	g->allow_faster = o->allow_faster < 0 ? faster : o->allow_faster;
	g->allow_partial = o->allow_partial < 0 ? partial : o->allow_partial;
	g->allow_foreign = o->allow_foreign < 0 ? foreign : o->allow_foreign;
	g->max_overhead = isnan(o->max_overhead) ? mo : o->max_overhead;
	g->max_regression = isnan(o->max_regression) ? mr : o->max_regression;
	g->alpha = isnan(o->alpha) ? alpha : o->alpha;
	g->max_thr_loss = isnan(o->max_thr_loss) ? tl : o->max_thr_loss;
	g->max_p99_rise = isnan(o->max_p99_rise) ? p99 : o->max_p99_rise;
	g->max_slope_rise = isnan(o->max_slope_rise) ? slope : o->max_slope_rise;
	g->allow = o->allow_untrustworthy < 0 ? allow : o->allow_untrustworthy;
	g->require_power = o->require_power || power;
	return 0;
}

int tb_gate_alpha(const struct tb_result *r, const struct tb_gate_opts *o, double *alpha)
{
	struct tb_gate g = {.name = o->name ? o->name : "result"};

	if (resolve(&g, r, o))
		return -EINVAL;
	*alpha = g.alpha;
	return 0;
}

/* ---- evaluation ------------------------------------------------------------------------------ */

static void add_msg(struct tb_gate_cell *gc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_msg(struct tb_gate_cell *gc, const char *fmt, ...)
{
	size_t n = strlen(gc->msg);
	va_list ap;

	if (n && n + 2 < sizeof(gc->msg)) {
		strcat(gc->msg, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(gc->msg + n, sizeof(gc->msg) - n, fmt, ap);
	va_end(ap);
}

static void fail(struct tb_gate_cell *gc, const char *type)
{
	if (gc->st != TB_GATE_FAIL)
		gc->type = type;
	gc->st = TB_GATE_FAIL;
}

/*
 * The check of a value against a limit lim (percent or percentage points; not finite: none):
 * fail with type when the CI's lower bound lo is above it, warn when only the point estimate
 * is. over and near are the messages, each with one %g for the limit. Returns whether it failed.
 */
static bool check_limit(struct tb_gate_cell *gc, double point, double lo, double lim,
			const char *type, const char *over, const char *near)
{
	if (isfinite(lim) && lo > lim) {
		fail(gc, type);
		add_msg(gc, over, lim);
		return true;
	}
	if (isfinite(lim) && point > lim) {
		gc->warn = true;
		add_msg(gc, near, lim);
	}
	return false;
}

#define MORE_ROUNDS "more rounds or longer samples"

/*
 * Power: can this check see an effect of the limit's size? mde (same unit as lim) above a
 * finite limit makes the cell underpowered, a warning or, with --require-power, a failure.
 * remedy says what would narrow the check.
 */
static void check_power(const struct tb_gate *g, struct tb_gate_cell *gc, double mde, double lim,
			const char *what, const char *unit, const char *remedy)
{
	if (!isfinite(mde) || !isfinite(lim) || mde <= lim)
		return;
	if (!gc->underpowered || mde - lim > gc->mde - gc->mde_limit) {
		gc->mde = mde;
		gc->mde_limit = lim;
		gc->mde_unit = unit;
	}
	gc->underpowered = true;
	add_msg(gc,
		"underpowered: MDE %.1f%s exceeds %s %g%s, so an effect up to the limit could "
		"pass unseen (%s)%s",
		mde, unit, what, lim, unit, remedy,
		g->require_power ? "; fails with --require-power" : "");
	if (g->require_power)
		fail(gc, "underpowered");
	else
		gc->warn = true;
}

/* The cell on its own: its baseline measured, its overhead against max-overhead. */
static void judge_cell(const struct tb_gate *g, struct tb_gate_cell *gc)
{
	const struct tb_cell *c = gc->c;
	const struct tb_overhead *o = &c->overhead;
	bool untrusted = false;

	if (c->baseline && c->error) {
		untrusted = true;
		add_msg(gc, "untrustworthy: baseline cell failed: %s", c->error);
	} else if (c->baseline && !c->summary.n) {
		untrusted = true;
		add_msg(gc, "untrustworthy: the baseline cell has no measured samples");
	} else if (c->baseline) {
		add_msg(gc, "baseline %.1f ns/op", c->summary.median);
	} else if (o->verdict == TB_VERDICT_UNTRUSTWORTHY) {
		untrusted = true;
		add_msg(gc, "untrustworthy: %s", o->reason);
	} else if (o->verdict == TB_VERDICT_FASTER) {
		/* not a pass: a speedup says the measurement is wrong, not that tracing is free */
		add_msg(gc, "faster than its baseline: %s", o->reason);
		if (g->allow_faster) {
			gc->st = TB_GATE_SKIP;
			add_msg(gc, "allowed by --allow-faster");
		} else {
			fail(gc, "faster-than-baseline");
		}
	} else {
		add_msg(gc, "overhead %+.2f%% [%+.2f%%, %+.2f%%] at %.0f%% confidence (%s)", o->pct,
			o->ci_lo, o->ci_hi, 100 * (1 - g->alpha), tb_verdict_name(o->verdict));
		check_limit(gc, o->pct, o->ci_lo, 100 * g->max_overhead, "overhead",
			    "exceeds max-overhead %g%%: the CI's lower bound is above it",
			    "above max-overhead %g%% but not significantly: measure more rounds");
		/* A cell that failed already needs no word on what it could have missed. */
		if (gc->st != TB_GATE_FAIL)
			check_power(g, gc, o->mde_pct, 100 * g->max_overhead, "max-overhead", "%",
				    MORE_ROUNDS);
	}
	if (!untrusted)
		return;
	if (g->allow) {
		gc->st = TB_GATE_SKIP;
		add_msg(gc, "allowed by --allow-untrustworthy");
	} else {
		fail(gc, "untrustworthy");
	}
}

/*
 * A traced service cell's throughput loss and p99 rise against their limits (stats/service.h
 * computes them; the p99 rise in % of the baseline's median p99). An untrustworthy cell was
 * judged already: its figures decide nothing.
 */
static void judge_service(const struct tb_gate *g, struct tb_gate_cell *gc,
			  const struct tb_result *r)
{
	const struct tb_service_overhead *s = &gc->c->service;
	const struct tb_cell *b = tb_result_baseline(r, gc->c);
	double bp99 = b ? b->service.p99_ns : NAN, k = bp99 > 0 ? 100 / bp99 : NAN;

	if (!s->traced || gc->c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY ||
	    (!isfinite(g->max_thr_loss) && !isfinite(g->max_p99_rise)))
		return;
	if (isfinite(g->max_thr_loss) && !isfinite(s->loss_lo)) {
		add_msg(gc, "no throughput loss CI: max-throughput-loss not checked");
	} else if (isfinite(g->max_thr_loss)) {
		add_msg(gc, "throughput loss %+.2f%% [%+.2f%%, %+.2f%%] (%s)", s->loss_pct,
			s->loss_lo, s->loss_hi, tb_verdict_name(s->thr_verdict));
		check_limit(
			gc, s->loss_pct, s->loss_lo, 100 * g->max_thr_loss, "throughput-loss",
			"exceeds max-throughput-loss %g%%: the CI's lower bound is above it",
			"above max-throughput-loss %g%% but not significantly: measure more rounds");
	}
	if (isfinite(g->max_p99_rise) && !(isfinite(s->p99_lo) && isfinite(k))) {
		add_msg(gc, "no p99 delta CI: max-p99-increase not checked");
	} else if (isfinite(g->max_p99_rise)) {
		add_msg(gc, "p99 %+.2f%% [%+.2f%%, %+.2f%%] of the baseline's %.1f us (%s)",
			k * s->p99_delta, k * s->p99_lo, k * s->p99_hi, bp99 / 1e3,
			tb_verdict_name(s->p99_verdict));
		check_limit(
			gc, k * s->p99_delta, k * s->p99_lo, 100 * g->max_p99_rise, "p99-increase",
			"exceeds max-p99-increase %g%%: the CI's lower bound is above it",
			"above max-p99-increase %g%% but not significantly: measure more rounds");
	}
}

/*
 * The MDE of the regression check of row w, in its unit: for a baseline cell the ns/op change
 * in % (a two-sample test of the two sample sets), for a traced cell the overhead change in
 * percentage points (two independent estimates: the root of the sum of their squared MDEs).
 */
static double change_mde(const struct tb_gate *g, const struct tb_cmp_row *w)
{
	const struct tb_cell *a = w->a, *b = w->b;
	double power = g->r->power > 0 && g->r->power < 1 ? g->r->power : 0.8;

	if (a->baseline)
		return a->summary.median > 0
			       ? 100 *
					 tb_stats_mde(a->summary.sd, a->summary.n, b->summary.sd,
						      b->summary.n, g->alpha, power) /
					 a->summary.median
			       : NAN;
	return hypot(a->overhead.mde_pct, b->overhead.mde_pct);
}

/* The cell against the baseline result (w: its row in the comparison, NULL when absent). */
static void judge_regression(const struct tb_gate *g, struct tb_gate_cell *gc,
			     const struct tb_cmp_row *w)
{
	double lim = 100 * g->max_regression;
	char note[768];

	if (w && w->caveats)
		add_msg(gc, "note: %s", tb_cmp_row_note(g->cmp, w, note, sizeof(note)));
	if (!w) {
		add_msg(gc, "not in %s: no regression check", g->old_name);
	} else if (gc->c->baseline) {
		add_msg(gc, "ns/op %+.2f%% [%+.2f%%, %+.2f%%] vs %s (p %.2g)", w->ns_pct,
			w->ns_ci_lo, w->ns_ci_hi, g->old_name, w->p);
		gc->regressed |=
			check_limit(gc, w->ns_pct, w->ns_ci_lo, lim, "regression",
				    "baseline ns/op regressed by more than max-regression %g%%",
				    "above max-regression %g%% but not significantly");
		if (gc->st != TB_GATE_FAIL)
			check_power(g, gc, change_mde(g, w), lim, "max-regression", "%",
				    MORE_ROUNDS);
	} else if (w->traced) {
		add_msg(gc, "overhead change %+.2fpp [%+.2f, %+.2f] vs %s", w->ovh_change,
			w->ovh_ci_lo, w->ovh_ci_hi, g->old_name);
		gc->regressed |= check_limit(
			gc, w->ovh_change, w->ovh_ci_lo, lim, "regression",
			"overhead regressed by more than max-regression %g percentage points",
			"above max-regression %g pp but not significantly");
		if (gc->st != TB_GATE_FAIL)
			check_power(g, gc, change_mde(g, w), lim, "max-regression", " pp",
				    MORE_ROUNDS);
	}
}

/* Whether h holds enough of the history to judge the cell: a last stable segment of at least
 * TB_GATE_HISTORY_MIN_RUNS runs with an interval of the change against it. */
static bool history_enough(const struct tb_gate_ref *h)
{
	return h->c && h->found && h->npoints >= TB_GATE_HISTORY_MIN_RUNS && isfinite(h->ci_lo);
}

/* Whether the run's own samples, where the history kept the segment's, do not differ from
 * them at alpha: then no change against the history is taken as real. */
static bool history_samples_agree(const struct tb_gate *g, const struct tb_gate_ref *h)
{
	return isfinite(h->p_samples) && !(h->p_samples < g->alpha);
}

/* The cell against the last stable segment of its series in the history. */
static void judge_history(const struct tb_gate *g, struct tb_gate_cell *gc,
			  const struct tb_gate_ref *h)
{
	double lim = 100 * g->max_regression;
	const char *u = h->relative ? "%" : "pp";
	char ps[48] = "";

	if (!h->c)
		return;
	if (!h->found) {
		add_msg(gc, "new in %s: no regression check", g->history_name);
		return;
	}
	if (!history_enough(h)) {
		add_msg(gc,
			"%zu run%s in the last stable segment of %s: no regression check (needs %d)",
			h->npoints, h->npoints == 1 ? "" : "s", g->history_name,
			TB_GATE_HISTORY_MIN_RUNS);
		return;
	}
	if (isfinite(h->p_samples))
		snprintf(ps, sizeof(ps), ", samples p %.2g", h->p_samples);
	add_msg(gc,
		"%s %+.2f%s [%+.2f, %+.2f] vs the last stable segment (%zu runs since %s, %zu change point%s before; p %.2g%s)",
		h->relative ? "ns/op" : "overhead", h->change, u, h->ci_lo, h->ci_hi, h->npoints,
		h->since, h->nchanges, h->nchanges == 1 ? "" : "s", h->p, ps);
	if (history_samples_agree(g, h)) {
		if (isfinite(lim) && h->ci_lo > lim)
			add_msg(gc,
				"the run's samples do not differ from the segment's at alpha %g",
				g->alpha);
		return;
	}
	gc->regressed |= check_limit(
		gc, h->change, h->ci_lo, lim, "regression",
		h->relative
			? "regressed by more than max-regression %g%% against the history"
			: "overhead regressed by more than max-regression %g percentage points against the history",
		"above max-regression %g but not significantly against the history");
	if (gc->st != TB_GATE_FAIL)
		check_power(g, gc, h->mde, lim, "max-regression", h->relative ? "%" : " pp",
			    MORE_ROUNDS);
}

/*
 * One sweep of the baseline result against the gated result: its slope's change in % of the
 * baseline's slope, whose CI is the change's (the two slopes' CIs as independent: sweep.h) over
 * that slope, taken as exact (the rule METHODOLOGY.md "Sweeps" states). Fails when the CI's
 * lower end is above max-slope-increase; a change that cannot be judged is skipped, said.
 */
static void judge_sweep(const struct tb_gate *g, struct tb_gate_sweep *s)
{
	struct tb_gate_cell *v = &s->v;
	const struct tb_cmp_sweep *d = s->d;
	double ref = s->a->fit.cost_ns;

	v->st = TB_GATE_PASS;
	v->type = "";
	s->pct = s->ci_lo = s->ci_hi = NAN;
	if (!d)
		add_msg(v, "not in %s: its slope not checked", g->name);
	else if (!isfinite(d->change))
		add_msg(v, "slope not compared: %s", d->why[0] ? d->why : "no change computed");
	else if (!(ref > 0))
		add_msg(v, "%s's slope %.3g ns per %s is not positive: no relative change",
			g->old_name, ref, s->a->unit);
	if (v->msg[0]) {
		v->st = TB_GATE_SKIP;
		return;
	}
	s->pct = 100 * d->change / ref;
	s->ci_lo = 100 * d->ci_lo / ref;
	s->ci_hi = 100 * d->ci_hi / ref;
	add_msg(v, "slope %.3g -> %.3g ns per %s, %+.1f%% [%+.1f%%, %+.1f%%] of %s's", ref,
		d->b->fit.cost_ns, s->a->unit, s->pct, s->ci_lo, s->ci_hi, g->old_name);
	check_limit(v, s->pct, s->ci_lo, 100 * g->max_slope_rise, "slope-increase",
		    "exceeds max-slope-increase %g%%: the CI's lower bound is above it",
		    "above max-slope-increase %g%% but not significantly: more rounds or points");
}

/*
 * One sweep of the gated result against its sweep_slope series in the history (s->h, from
 * history/analysis.h): the slope's change in % of the last stable segment's mean, with the
 * prediction interval, as a cell's history check has it (judge_history). Fails when the
 * interval's lower end is above max-slope-increase, warns when only the point is or when it is
 * underpowered; a sweep it cannot judge is skipped, said.
 */
static void judge_sweep_history(const struct tb_gate *g, struct tb_gate_sweep *s)
{
	const struct tb_gate_ref *h = s->h;
	const struct tb_sweep *b = s->b;
	struct tb_gate_cell *v = &s->v;
	double lim = 100 * g->max_slope_rise;

	v->st = TB_GATE_PASS;
	v->type = "";
	s->pct = s->ci_lo = s->ci_hi = NAN;
	if (!b->fit.accepted)
		add_msg(v, "no accepted line in %s (%s): its slope not checked", g->name,
			b->fit.why_not[0] ? b->fit.why_not : "refused");
	else if (!h->found)
		add_msg(v, "new in %s: its slope not checked", g->history_name);
	else if (h->npoints < TB_GATE_HISTORY_MIN_RUNS)
		add_msg(v,
			"%zu run%s in the last stable segment of %s: its slope not checked (needs %d)",
			h->npoints, h->npoints == 1 ? "" : "s", g->history_name,
			TB_GATE_HISTORY_MIN_RUNS);
	else if (!(h->mean > 0) || !isfinite(h->ci_lo))
		add_msg(v, "the history's slope %.3g ns per %s is not positive: no relative change",
			h->mean, b->unit);
	if (v->msg[0]) {
		v->st = TB_GATE_SKIP;
		return;
	}
	s->pct = h->change;
	s->ci_lo = h->ci_lo;
	s->ci_hi = h->ci_hi;
	add_msg(v,
		"slope %.3g ns per %s, %+.1f%% [%+.1f%%, %+.1f%%] of the last stable segment's mean %.3g (%zu runs since %s, %zu change point%s before; p %.2g)",
		b->fit.cost_ns, b->unit, s->pct, s->ci_lo, s->ci_hi, h->mean, h->npoints, h->since,
		h->nchanges, h->nchanges == 1 ? "" : "s", h->p);
	check_limit(v, s->pct, s->ci_lo, lim, "slope-increase",
		    "exceeds max-slope-increase %g%% against the history: the interval's lower "
		    "bound is above it",
		    "above max-slope-increase %g%% but not significantly against the history");
	if (v->st != TB_GATE_FAIL)
		check_power(g, v, h->mde, lim, "max-slope-increase", "%",
			    "more runs in the history, or less noise in each run's slope");
}

/*
 * With a slope limit: every sweep of the baseline result judged, or, against the history
 * instead (hist: one reference per cell, then one per sweep), every sweep of the gated
 * result; none without a limit.
 */
static int judge_sweeps(struct tb_gate *g, const struct tb_gate_ref *hist)
{
	const struct tb_result *a = g->old ? g->old : hist ? g->r : NULL;

	if (!isfinite(g->max_slope_rise) || !a || !a->nsweeps)
		return 0;
	g->sweeps = calloc(a->nsweeps, sizeof(*g->sweeps));
	if (!g->sweeps)
		return -ENOMEM;
	for (size_t i = 0; i < a->nsweeps; i++) {
		struct tb_gate_sweep *s = &g->sweeps[g->nsweeps++];
		const struct tb_sweep *sw = &a->sweeps[i];

		/* against too: a workload sweep under two tracers is two sweeps */
		snprintf(s->name, sizeof(s->name),
			 "%.16s %.80s: %.80s against %.80s: slope per %.60s", sw->kind, sw->section,
			 sw->key, sw->against, sw->unit);
		if (g->old) {
			s->a = sw;
			for (size_t k = 0; g->cmp && k < g->cmp->nsweeps_both; k++)
				if (g->cmp->sweeps[k].a == s->a)
					s->d = &g->cmp->sweeps[k];
			s->b = s->d ? s->d->b : NULL;
			judge_sweep(g, s);
		} else {
			s->b = sw;
			s->h = &hist[g->r->ncells + i];
			judge_sweep_history(g, s);
		}
		g->nsweep_fail += s->v.st == TB_GATE_FAIL;
		g->nsweep_skip += s->v.st == TB_GATE_SKIP;
	}
	return 0;
}

/*
 * The run as a whole: every shortfall said (stats/shortfall.h); a partial result and foreign
 * instrumentation fail it unless allowed, the others are said as a warning (their cells fail
 * on their own).
 */
static void judge_run(struct tb_gate *g, const struct tb_result *r)
{
	struct tb_gate_cell *run = &g->run;
	bool foreign = json_is_array(r->foreign) && json_array_size(r->foreign);

	run->st = TB_GATE_PASS;
	run->type = "";
	/* what fails it first: the shortfalls after it may fill the message */
	if (foreign && g->allow_foreign) {
		add_msg(run, "foreign instrumentation allowed by --allow-foreign");
	} else if (foreign) {
		fail(run, "foreign-instrumentation");
		add_msg(run,
			"foreign instrumentation fails the gate: stop it and run again, or gate with --allow-foreign");
	}
	if (r->partial && g->allow_partial) {
		add_msg(run, "partial result allowed by --allow-partial");
	} else if (r->partial) {
		fail(run, "partial");
		add_msg(run,
			"a partial result fails the gate: run it to its end, or gate with --allow-partial");
	}
	for (size_t i = 0; json_is_array(r->shortfalls) && i < json_array_size(r->shortfalls); i++)
		add_msg(run, "%s", json_string_value(json_array_get(r->shortfalls, i)));
	if (isfinite(g->max_slope_rise) && !g->has_old && !g->history_name)
		add_msg(run,
			"max-slope-increase needs --baseline or --history: no sweep's slope checked");
	g->has_run = run->msg[0] != '\0';
	run->warn = g->has_run && run->st != TB_GATE_FAIL;
}

/*
 * The baseline cell b's significant move against the gate's reference, into pct [lo, hi] and
 * vs (what it was compared with): the history's last stable segment when there is one, else
 * the baseline result. Returns false when it did not move, or cannot be judged.
 */
static bool baseline_moved(const struct tb_gate *g, const struct tb_result *r,
			   const struct tb_cell *b, const struct tb_gate_ref *hist, double ci[3],
			   const char **vs)
{
	const struct tb_gate_ref *h = hist ? &hist[b - r->cells] : NULL;
	const struct tb_cmp_row *w;

	if (h && history_enough(h) && (h->ci_lo > 0 || h->ci_hi < 0) &&
	    !history_samples_agree(g, h)) {
		ci[0] = h->change;
		ci[1] = h->ci_lo;
		ci[2] = h->ci_hi;
		*vs = "the last stable segment";
		return true;
	}
	w = g->cmp ? tb_compare_find(g->cmp, b) : NULL;
	if (!w || !w->ns_significant)
		return false;
	ci[0] = w->ns_pct;
	ci[1] = w->ns_ci_lo;
	ci[2] = w->ns_ci_hi;
	*vs = g->old_name;
	return true;
}

/*
 * A traced cell that regressed while its workload's baseline moved significantly too, either
 * way, gets a note: the machine's speed differs between the runs, and a tracer's cost can move
 * with it far more than the workload's (METHODOLOGY.md 9's episodes). The verdict stands: only
 * a rerun tells the machine from the tracer.
 */
static void note_machine_moved(struct tb_gate *g, const struct tb_result *r,
			       const struct tb_gate_ref *hist)
{
	for (size_t i = 0; i < g->ncells; i++) {
		struct tb_gate_cell *gc = &g->cells[i];
		const struct tb_cell *b = gc->c->baseline ? NULL : tb_result_baseline(r, gc->c);
		const char *vs;
		double ci[3];

		if (!gc->regressed || !b || !baseline_moved(g, r, b, hist, ci, &vs))
			continue;
		add_msg(gc,
			"note: its baseline's ns/op moved too (%+.2f%% [%+.2f%%, %+.2f%%] vs %s): the machine's speed differs between the runs, and a tracer's cost can move with it more than the workload's; rerun before taking this for the tracer's",
			ci[0], ci[1], ci[2], vs);
	}
}

static void evaluate(struct tb_gate *g, const struct tb_result *r, const struct tb_gate_ref *hist)
{
	judge_run(g, r);
	for (size_t i = 0; i < r->ncells; i++) {
		struct tb_gate_cell *gc = &g->cells[i];

		gc->c = &r->cells[i];
		gc->st = TB_GATE_PASS;
		gc->type = "";
		judge_cell(g, gc);
		judge_service(g, gc, r);
		if (g->has_old)
			judge_regression(g, gc, g->cmp ? tb_compare_find(g->cmp, gc->c) : NULL);
		if (hist)
			judge_history(g, gc, &hist[i]);
		g->nfail += gc->st == TB_GATE_FAIL;
		g->nskip += gc->st == TB_GATE_SKIP;
		g->nunderpowered += gc->underpowered;
	}
	note_machine_moved(g, r, hist);
}

/* Analyse r at alpha, keeping its own settings for tb_gate_release. */
static void set_alpha(struct tb_result *r, double alpha, double *own_alpha, double *own_conf)
{
	*own_alpha = r->alpha;
	*own_conf = r->confidence;
	tb_stats_set_alpha(r, alpha);
}

int tb_gate_evaluate(struct tb_gate *g, struct tb_result *r, struct tb_result *old,
		     const struct tb_gate_opts *o)
{
	memset(g, 0, sizeof(*g));
	g->name = o->name ? o->name : "result";
	g->old_name = o->baseline_name ? o->baseline_name : "the baseline result";
	g->has_old = old != NULL;
	g->history_name = o->history ? (o->history_name ? o->history_name : "the history") : NULL;
	if (resolve(g, r, o))
		return -EINVAL;
	/* Analyse at the gate's confidence; tb_gate_release restores (and re-analyses). */
	g->r = r;
	set_alpha(r, g->alpha, &g->r_alpha, &g->r_conf);
	if (old) {
		g->old = old;
		set_alpha(old, g->alpha, &g->old_alpha, &g->old_conf);
		if (tb_compare_build(old, r, g->old_name, g->name, g->alpha, &g->cmp)) {
			tb_err("gate: out of memory comparing with %s", g->old_name);
			return -ENOMEM;
		}
	} else if (tb_stats_analyze(r)) {
		tb_err("gate: out of memory analysing %s", g->name);
		return -ENOMEM;
	}
	g->ncells = r->ncells;
	g->cells = calloc(r->ncells ? r->ncells : 1, sizeof(*g->cells));
	if (!g->cells) {
		tb_err("gate: out of memory gating %s", g->name);
		return -ENOMEM;
	}
	evaluate(g, r, o->history);
	if (judge_sweeps(g, o->history)) {
		tb_err("gate: out of memory gating the sweeps of %s", g->name);
		return -ENOMEM;
	}
	return 0;
}

/* Analyse r at its own settings again when the gate changed them. */
static void restore(struct tb_result *r, double alpha, double conf)
{
	if (r && (r->alpha != alpha || r->confidence != conf)) {
		r->alpha = alpha;
		r->confidence = conf;
		tb_stats_analyze(r);
	}
}

void tb_gate_release(struct tb_gate *g)
{
	tb_compare_free(g->cmp);
	free(g->cells);
	free(g->sweeps);
	restore(g->r, g->r_alpha, g->r_conf);
	restore(g->old, g->old_alpha, g->old_conf);
	memset(g, 0, sizeof(*g));
}

bool tb_gate_passed(const struct tb_gate *g)
{
	return !g->nfail && !g->nsweep_fail && g->ncells && g->run.st != TB_GATE_FAIL;
}
