// SPDX-License-Identifier: GPL-2.0
/*
 * The bisection of a saturation search (limit.h). Every value probed after the first lies
 * outside what is known (the bracket's doubling) or strictly inside the bracket, so each
 * result moves one end and the bracket only shrinks: a predicate that is not monotone still
 * ends with a true end above a false one (one of its changes), never a contradiction here; a
 * figure measured at the probes that is not monotone is the conclusion's to say (stats/limit.c).
 * The knob chain runs one such bisection per knob, the next knob's from the setting the last
 * one ended on (limit.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan/limit.h"

void tb_plan_bisect_init(struct tb_plan_bisect *b, double start, double lo, double hi, bool pow2)
{
	*b = (struct tb_plan_bisect){
		.start = start,
		.lo = lo,
		.hi = hi,
		.pow2 = pow2,
		.max_probes = TB_LIMIT_MAX_PROBES,
		.yes = NAN,
		.no = NAN,
	};
}

bool tb_plan_bisect_bracketed(const struct tb_plan_bisect *b)
{
	return !isnan(b->yes) && !isnan(b->no);
}

bool tb_plan_bisect_fine(const struct tb_plan_bisect *b, double at_yes, double at_no,
			 double resolution)
{
	return tb_plan_bisect_bracketed(b) &&
	       (!(at_no > at_yes * (1 + resolution)) || b->yes <= b->no * (1 + resolution));
}

/* Between no and yes (no < yes): the geometric middle, as a power of two or an integer; 0 when
 * there is none strictly inside. */
static double middle(const struct tb_plan_bisect *b)
{
	double v;

	if (b->pow2) {
		v = exp2(floor((log2(b->yes) + log2(b->no)) / 2));
		return v > b->no && v < b->yes ? v : 0;
	}
	v = b->no > 0 ? floor(sqrt(b->yes * b->no)) : floor(b->yes / 2);
	if (!(v > b->no && v < b->yes))
		v = floor((b->yes + b->no) / 2);
	return v > b->no && v < b->yes ? v : 0;
}

/* The bracket's next value beyond what is known, or NAN at a bound. */
static double outward(const struct tb_plan_bisect *b)
{
	double v;

	if (isnan(b->yes)) { /* all false so far: up */
		if (b->no >= b->hi)
			return NAN;
		v = b->no > 0 ? b->no * 2 : (b->pow2 ? fmax(b->lo, 1) : 1);
		return fmin(v, b->hi);
	}
	if (b->yes <= b->lo) /* all true so far: down */
		return NAN;
	v = b->pow2 ? b->yes / 2 : floor(b->yes / 2);
	return fmax(v, b->lo);
}

bool tb_plan_bisect_next(struct tb_plan_bisect *b, double *v)
{
	double x;

	if (b->done || b->probes >= b->max_probes) {
		b->done = true;
		return false;
	}
	if (!b->probes)
		x = b->start;
	else if (!tb_plan_bisect_bracketed(b))
		x = outward(b);
	else
		x = middle(b);
	if (isnan(x) || (tb_plan_bisect_bracketed(b) && x == 0)) {
		b->done = true;
		return false;
	}
	*v = x;
	return true;
}

void tb_plan_bisect_record(struct tb_plan_bisect *b, double v, bool yes)
{
	b->probes++;
	if (yes && !(v >= b->yes))
		b->yes = v;
	if (!yes && !(v <= b->no))
		b->no = v;
}

/* ---- the knob chain ------------------------------------------------------------------------- */

/* The rate the stage measured at v (the last such probe), NAN when none did. */
static double stage_rate(const struct tb_plan_chain *c, double v)
{
	double rate = NAN;

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i] == v)
			rate = c->rate[i];
	return rate;
}

static void stage_add(struct tb_plan_chain *c, double v, double rate)
{
	if (c->n < sizeof(c->v) / sizeof(c->v[0])) {
		c->v[c->n] = v;
		c->rate[c->n++] = rate;
	}
}

/* The stage's probes so far all on its slow side: held (or below the target). */
static bool slow_side(const struct tb_plan_chain *c)
{
	return c->knobs[c->stage].falling ? isnan(c->b.no) : isnan(c->b.yes);
}

/* Knob stage from its start; seed: the rate already measured there (NAN: none, stage 0). */
static void start_stage(struct tb_plan_chain *c, double seed)
{
	const struct tb_plan_knob *k = &c->knobs[c->stage];
	double start = fmin(fmax(k->start, k->lo), k->hi);

	tb_plan_bisect_init(&c->b, start, k->lo, k->hi, false);
	c->b.max_probes = c->max_probes - c->probes;
	c->n = 0;
	c->jump = false;
	c->at[c->stage] = start;
	if (isnan(seed))
		return;
	/* the probe the previous stage ended on, at this knob's start: held (below the target) */
	c->b.max_probes++;
	tb_plan_bisect_record(&c->b, start, k->falling);
	stage_add(c, start, seed);
}

void tb_plan_chain_init(struct tb_plan_chain *c, const struct tb_plan_knob *knobs, size_t n,
			double target, double resolution)
{
	*c = (struct tb_plan_chain){
		.nknobs = n < TB_LIMIT_MAX_KNOBS ? n : TB_LIMIT_MAX_KNOBS,
		.target = target,
		.resolution = resolution,
		.max_probes = TB_LIMIT_MAX_PROBES,
		.best_rate = NAN,
	};
	for (size_t i = 0; i < c->nknobs; i++) {
		c->knobs[i] = knobs[i];
		c->at[i] = fmin(fmax(knobs[i].start, knobs[i].lo), knobs[i].hi);
	}
	if (!c->nknobs)
		c->done = true;
	else
		start_stage(c, NAN);
}

static void say(struct tb_plan_chain *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct tb_plan_chain *c, const char *fmt, ...)
{
	size_t len = strlen(c->why);
	va_list ap;

	if (len && len + 2 < sizeof(c->why))
		len += (size_t)snprintf(c->why + len, sizeof(c->why) - len, "; ");
	if (len >= sizeof(c->why))
		return;
	va_start(ap, fmt);
	vsnprintf(c->why + len, sizeof(c->why) - len, fmt, ap);
	va_end(ap);
}

/*
 * The stage's bisection is over: a bracket ends the chain; every probe on the slow side with
 * the knob at its end (or spent) hands over to the next knob, from the probe it ended on.
 * True when a next stage started.
 */
static bool stage_end(struct tb_plan_chain *c, bool spent)
{
	const struct tb_plan_knob *k = &c->knobs[c->stage];
	double end;

	if (tb_plan_bisect_bracketed(&c->b) || !slow_side(c)) {
		/* a bracket, or every probe lost (reached the target) from the knob's start */
		c->found = tb_plan_bisect_bracketed(&c->b);
		c->done = true;
		return false;
	}
	end = k->falling ? c->b.yes : c->b.no;
	if (!spent && (k->falling ? end > k->lo : end < k->hi)) {
		say(c, "the probes ran out at %s = %.0f", k->name, end);
		c->done = true;
		return false;
	}
	if (!spent)
		say(c, "%s = %.0f %s, the end of its range", k->name, end,
		    isnan(c->target) ? "held" : "offered less than the target");
	c->at[c->stage] = end;
	if (c->stage + 1 >= c->nknobs || c->probes >= c->max_probes) {
		c->done = true;
		return false;
	}
	c->stage++;
	start_stage(c, stage_rate(c, end));
	return true;
}

bool tb_plan_chain_next(struct tb_plan_chain *c)
{
	const struct tb_plan_knob *k;
	double v;

	while (!c->done) {
		k = &c->knobs[c->stage];
		if (c->probes >= c->max_probes) {
			say(c, "the probes ran out (%u) at %s = %.0f", c->max_probes, k->name,
			    c->at[c->stage]);
			c->done = true;
			break;
		}
		if (c->jump && slow_side(c) && c->b.yes > k->lo) {
			c->jump = false;
			c->at[c->stage] = k->lo;
			return true;
		}
		c->jump = false;
		if (tb_plan_bisect_next(&c->b, &v)) {
			c->at[c->stage] = v;
			return true;
		}
		stage_end(c, false);
	}
	return false;
}

/*
 * Spent: a step toward more rate, every probe still on the slow side, that raised the rate by
 * less than the resolution over the stage's previous probe (a rising knob's is said in c->why).
 */
static bool spent(struct tb_plan_chain *c, double v, double rate)
{
	const struct tb_plan_knob *k = &c->knobs[c->stage];
	double pv, pr;

	if (!c->n || !slow_side(c))
		return false;
	pv = c->v[c->n - 1];
	pr = c->rate[c->n - 1];
	if (!(k->falling ? v < pv && v > k->lo : v > pv) || !(rate < pr * (1 + c->resolution)))
		return false;
	/* a falling knob's end is probed next, and said when it held */
	if (!k->falling)
		say(c,
		    "%s = %.0f offered %.3g events/s, within %.0f%% of %s = %.0f's %.3g: %s no longer raises the rate",
		    k->name, v, rate, 100 * c->resolution, k->name, pv, pr, k->name);
	return true;
}

void tb_plan_chain_record(struct tb_plan_chain *c, double rate, bool lost)
{
	const struct tb_plan_knob *k;
	double v;
	bool yes, used_up;

	if (c->done)
		return;
	k = &c->knobs[c->stage];
	v = c->at[c->stage];
	if (!isfinite(rate)) {
		say(c, "the probe at %s = %.0f measured no rate", k->name, v);
		c->done = true;
		return;
	}
	c->probes++;
	if (isnan(c->target))
		yes = k->falling ? !lost : lost;
	else
		yes = k->falling ? rate < c->target : rate >= c->target;
	tb_plan_bisect_record(&c->b, v, yes);
	used_up = spent(c, v, rate);
	stage_add(c, v, rate);
	if (!isnan(c->target) && rate >= c->target && !(rate >= c->best_rate)) {
		c->best_rate = rate;
		memcpy(c->best, c->at, sizeof(c->best));
	}
	if (!isnan(c->target) && rate >= c->target && rate <= c->target * (1 + c->resolution)) {
		c->found = c->done = true; /* close enough above the target: this setting */
		return;
	}
	if (tb_plan_bisect_bracketed(&c->b)) {
		double slow = stage_rate(c, k->falling ? c->b.yes : c->b.no),
		       fast = stage_rate(c, k->falling ? c->b.no : c->b.yes);

		if (tb_plan_bisect_fine(&c->b, slow, fast, c->resolution))
			c->b.done = true;
	} else if (used_up && k->falling) {
		c->jump = true;
	} else if (used_up) {
		c->b.done = true;
		stage_end(c, true);
	}
}

bool tb_plan_chain_reached(const struct tb_plan_chain *c, double *at)
{
	if (isnan(c->best_rate))
		return false;
	memcpy(at, c->best, sizeof(c->best));
	return true;
}
