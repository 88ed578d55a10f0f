// SPDX-License-Identifier: GPL-2.0
/*
 * The bisection of a saturation search (limit.h). Every value probed after the first lies
 * outside what is known (the bracket's doubling) or strictly inside the bracket, so each
 * result moves one end and the bracket only shrinks: a predicate that is not monotone still
 * ends with a true end above a false one (one of its changes), never a contradiction here; a
 * figure measured at the probes that is not monotone is the conclusion's to say (stats/limit.c).
 */
#include <math.h>

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
