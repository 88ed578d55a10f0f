/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bisection of a saturation search (limit.c; runner/limit.h runs the probes): over one
 * number v (a workload knob, a buffer size) whose predicate is monotone, false below some v
 * and true from it on (a buffer that large holds the rate; a knob value that slow holds the
 * buffer). A bracket first: from the start, v doubled (or halved) until the predicate changes;
 * then the bracket halved (geometrically: the figures span decades) until the caller says it
 * is fine enough, its two ends are neighbours, or the probes run out. It decides nothing but
 * the next value: which ends count as held and lost is the caller's. A rate search runs it over
 * a chain of knobs (below), one after the other.
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

/*
 * The knob chain of a rate search: the workload's ways to raise its offered event rate, in a
 * declared order (runner/limit.c: work, then calls, then threads), each moved in turn by a
 * bisection of its own. A knob's stage ends in a bracket (the answer: the chain is over), at
 * the knob's end of the range still short of it (work = 0 held, calls at its maximum), or
 * spent: a step toward more rate that raised the measured rate by less than the resolution (a
 * falling knob then jumps to its end, a rising one stays where it is). The next stage starts
 * with the knobs before it where their stages ended, from the probe they ended on, which is the
 * next knob's first value already measured. It decides the next setting only; the probes are
 * the caller's.
 */
#define TB_LIMIT_MAX_KNOBS 3

struct tb_plan_knob {
	const char *name; /* "work", "calls", "threads" (borrowed) */
	double start;	  /* its value in the section: where its stage starts */
	double lo, hi;	  /* its range */
	bool falling;	  /* a smaller value offers more (work); else a larger (calls, threads) */
};

struct tb_plan_chain {
	/* set by tb_plan_chain_init */
	struct tb_plan_knob knobs[TB_LIMIT_MAX_KNOBS];
	size_t nknobs;
	double target;	   /* events/s: the stages look for "offered at least target"; NAN: loss */
	double resolution; /* TB_LIMIT_RESOLUTION */
	unsigned int max_probes;
	/* the search's */
	size_t stage;		       /* the knob being moved */
	double at[TB_LIMIT_MAX_KNOBS]; /* the setting: to probe after next, probed after record */
	struct tb_plan_bisect b;       /* over the stage's knob, "true from some value up" */
	double v[TB_LIMIT_MAX_PROBES + 1], rate[TB_LIMIT_MAX_PROBES + 1]; /* the stage's rates */
	size_t n;
	bool jump;	     /* the falling knob is spent: its next value is its end */
	unsigned int probes; /* of the whole chain */
	bool done, found;    /* over; a bracket (a loss, or the target reached) */
	double best_rate;    /* target: the least rate probed at or above it, and its setting */
	double best[TB_LIMIT_MAX_KNOBS];
	char why[320]; /* how each stage ended short of a bracket, "calls: ...; threads: ..." */
};

/* A search over knobs[0..n) (n <= TB_LIMIT_MAX_KNOBS), each from its start. */
void tb_plan_chain_init(struct tb_plan_chain *c, const struct tb_plan_knob *knobs, size_t n,
			double target, double resolution);
/* The next setting into c->at (c->stage its knob), or false when the search is over. */
bool tb_plan_chain_next(struct tb_plan_chain *c);
/* What the probe of c->at measured: its offered rate (NAN: unknown, the search stops) and
 * whether it lost events. */
void tb_plan_chain_record(struct tb_plan_chain *c, double rate, bool lost);
/* The target search's answer: the probed setting that offered at least the target, the least
 * such rate, into at (TB_LIMIT_MAX_KNOBS values); false when none did. */
bool tb_plan_chain_reached(const struct tb_plan_chain *c, double *at);

#endif /* TB_PLAN_LIMIT_H */
