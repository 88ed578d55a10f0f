/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bisection of a saturation search (limit.c; runner/limit.h runs the probes): over one
 * number v (a workload knob, a buffer size) whose predicate is monotone, false below some v
 * and true from it on (a buffer that large holds the rate; a knob value that slow holds the
 * buffer). A bracket first: from the start, v doubled (or halved) until the predicate changes;
 * then the bracket halved (geometrically: the figures span decades) until the caller says it
 * is fine enough, its two ends are neighbours, or the probes run out. It decides nothing but
 * the next value: which ends count as held and lost is the caller's.
 */
#ifndef TB_PLAN_LIMIT_H
#define TB_PLAN_LIMIT_H

#include <stdbool.h>

/* The search stops when the bracket's two rates are within this of each other. */
#define TB_LIMIT_RESOLUTION 0.10
/* Probes a search may make at most: a doubling bracket over 2^-20..2^20 and ~10 halvings. */
#define TB_LIMIT_MAX_PROBES 24

struct tb_plan_bisect {
	/* set by the caller */
	double start;  /* the first value probed, within [lo, hi] */
	double lo, hi; /* the bounds; lo may be 0 (the doubling down then ends at 0) */
	bool pow2;     /* values are powers of two (buffer sizes); else integers */
	unsigned int max_probes;
	/* the search's */
	double yes, no; /* the least v seen true, the greatest seen false below it; NAN: none */
	unsigned int probes;
	bool done; /* over: also set by the caller when the bracket is fine enough */
};

/* A search from start within [lo, hi] (max_probes TB_LIMIT_MAX_PROBES). */
void tb_plan_bisect_init(struct tb_plan_bisect *b, double start, double lo, double hi, bool pow2);
/* The next value to probe into *v, or false when the search is over. */
bool tb_plan_bisect_next(struct tb_plan_bisect *b, double *v);
/* The predicate at v (the value tb_plan_bisect_next gave). */
void tb_plan_bisect_record(struct tb_plan_bisect *b, double v, bool yes);
/* Has the search bracketed the change: a value true with a false one below it. */
bool tb_plan_bisect_bracketed(const struct tb_plan_bisect *b);
/*
 * Is the bracket fine enough to stop: bracketed, and the figures measured at its two ends
 * (at_yes, at_no: the rates, the slower at yes) within resolution of each other, or its two
 * values are (a rate about inverse to the value, measured with more noise than the
 * resolution on a busy machine). The caller then sets done.
 */
bool tb_plan_bisect_fine(const struct tb_plan_bisect *b, double at_yes, double at_no,
			 double resolution);

#endif /* TB_PLAN_LIMIT_H */
