/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CI gate: pass/fail per cell from a result (and optionally an older result).
 * doc/statistics.md states the rules:
 *
 * A cell fails when (1) it is untrustworthy (unless allowed), (2) its overhead is significantly
 * above max-overhead: the lower end of its (1 - alpha) CI is above the limit, (3) against
 * --baseline, its baseline ns/op (baseline cells) or its overhead (traced cells) grew by
 * significantly more than max-regression: the lower end of the change's CI is above it, or
 * (4) against --history, the same against the last stable segment of its series: the lower end
 * of the prediction interval of the change is above max-regression and the run's samples differ
 * from the segment's pooled samples at p < alpha.
 * A sweep fails when its slope rose by significantly more than max-slope-increase: against
 * --baseline the change's CI, against --history the prediction interval of the last stable
 * segment of its sweep_slope series, in % of the reference slope.
 * "Significantly" keeps a noisy but acceptable tracer from failing builds at random; a point
 * estimate above the limit without significance passes with a warning to measure longer.
 * A cell whose minimal detectable effect (MDE) exceeds a limit it is gated against is
 * underpowered: an effect up to the limit could pass unseen. It passes with a warning in every
 * output, or fails with --require-power.
 *
 * gate.c evaluates (struct tb_gate); render/gate-formats.h writes the table, JUnit XML,
 * Markdown and github-action-benchmark JSON of an evaluated gate.
 */
#ifndef TB_GATE_H
#define TB_GATE_H

#include <stdbool.h>
#include <stdio.h>

#include "model/result.h"

struct tb_comparison;
struct tb_cmp_sweep;

/* Fewer runs than this in the last stable segment: no regression check against the history. */
#define TB_GATE_HISTORY_MIN_RUNS 3

/*
 * The gated run against the last stable segment of one of its history's series (gate
 * --history; history/analysis.h fills these, one per cell, c NULL where none applies, then one
 * per sweep of the result, c NULL, found false where its slope has no series).
 */
struct tb_gate_ref {
	const struct tb_cell *c;     /* the cell of the gated result (NULL for a sweep's) */
	bool found;		     /* the series has runs before this one */
	bool relative;		     /* change in % of the segment's mean (ns/op), else points */
	size_t npoints;		     /* runs in the last stable segment */
	size_t nchanges;	     /* change points in the series before it */
	char since[40];		     /* the time of the segment's first run */
	double mean, value;	     /* the segment's mean, the run's value */
	double change, ci_lo, ci_hi; /* % or percentage points; prediction interval at 1 - alpha */
	double p, p_samples;	     /* prediction t-test; samples vs pooled samples (NAN: none) */
	double mde;		     /* the smallest change it sees at the result's power */
};

#define TB_GATE_DEFAULT_MAX_OVERHEAD   0.05
#define TB_GATE_DEFAULT_MAX_REGRESSION 0.03
#define TB_GATE_DEFAULT_ALPHA	       0.01

/*
 * Thresholds: NAN (or -1 for allow_untrustworthy) means "not given": the result's `gate` object
 * ([gate] of the scenario) applies, then the defaults above. INFINITY disables a limit.
 */
struct tb_gate_opts {
	double max_overhead;	 /* fraction: 0.05 = 5% overhead against the baseline */
	double max_regression;	 /* fraction (baseline ns/op) / percentage points (overhead) */
	double alpha;		 /* CIs at 1 - alpha */
	int allow_untrustworthy; /* -1 unset, 0, 1 */
	int allow_faster;   /* -1 unset, 0, 1: faster-than-baseline cells skipped, not failed */
	int allow_partial;  /* -1 unset, 0, 1: a partial result passes on what it measured */
	int allow_foreign;  /* -1 unset, 0, 1: foreign instrumentation does not fail the run */
	bool require_power; /* an underpowered cell fails instead of warning */
	/* Service cells (stats/service.h), fractions, NAN unset (default: no limit): fail a
	 * traced service cell whose throughput loss / p99 rise (of its baseline's p99) is
	 * significantly above this; JUnit's failure type names the metric. */
	double max_thr_loss, max_p99_rise;
	/* Sweeps (stats/sweep.h), against --baseline or --history, a fraction, NAN unset
	 * (default: no limit): fail a sweep whose line's slope (its per-unit cost) rose
	 * significantly by more than this share of the baseline result's slope, or of its
	 * history's last stable segment's mean slope. */
	double max_slope_rise;
	const char *name; /* result file name for messages and reports ("result") */
	const char *baseline_name;
	const char *junit, *markdown, *benchmark_json; /* output files, NULL for none */
	/* One per cell of the result, then one per sweep of it (its sweeps' order), or NULL. */
	const struct tb_gate_ref *history;
	const char *history_name; /* the history database, for messages */
};

void tb_gate_opts_init(struct tb_gate_opts *o);

enum tb_gate_status {
	TB_GATE_PASS,
	TB_GATE_FAIL,
	TB_GATE_SKIP, /* untrustworthy but allowed: reported as skipped in JUnit */
};

/* The gate's verdict on one cell. */
struct tb_gate_cell {
	const struct tb_cell *c; /* borrowed from the gated result */
	enum tb_gate_status st;
	const char *type;      /* failure type for JUnit: "overhead", "regression", "untrustworthy",
			     "underpowered", "faster-than-baseline", "throughput-loss",
			     "p99-increase"; for the run: "partial", "foreign-instrumentation" */
	char msg[1024];	       /* what was checked and found, "; " between the checks */
	bool warn;	       /* passed, but the point estimate is over a limit, or underpowered */
	bool underpowered;     /* its MDE exceeds a limit it was gated against */
	bool regressed;	       /* failed a regression check (against a result or the history) */
	double mde, mde_limit; /* the largest MDE over its limit, that limit, in mde_unit */
	const char *mde_unit;  /* "%" or " pp" */
};

/*
 * The gate's verdict on one sweep (max-slope-increase): against --baseline, a sweep of the
 * baseline result, its slope in the gated result against the baseline result's; against
 * --history, a sweep of the gated result, its slope against the last stable segment of its
 * series. Passes, fails (type "slope-increase") or is skipped with the reason: a line refused
 * in either result, a sweep the gated result lacks, a sweep new to the history or with fewer
 * than TB_GATE_HISTORY_MIN_RUNS runs in its last stable segment, a reference slope that is
 * not positive (no relative change).
 */
struct tb_gate_sweep {
	const struct tb_sweep *a;     /* the baseline result's sweep (borrowed), NULL: history */
	const struct tb_cmp_sweep *d; /* its change (the gate's comparison), NULL: not in B */
	const struct tb_sweep *b;     /* the gated result's sweep (borrowed), NULL: not in it */
	const struct tb_gate_ref *h;  /* history: its reference, else NULL */
	char name[384];		      /* "tracer t: probes against w: slope per probe" */
	double pct, ci_lo, ci_hi;     /* the change in % of A's slope and its CI, NAN: none */
	struct tb_gate_cell v;	      /* v.c NULL */
};

/* An evaluated gate: the thresholds that applied and a verdict per cell of the result. */
struct tb_gate {
	const char *name, *old_name; /* the result and the baseline result, for messages */
	double max_overhead, max_regression, alpha; /* resolved; INFINITY: no limit */
	bool allow; /* untrustworthy cells are skipped, not failed */
	bool allow_faster, allow_partial, allow_foreign; /* tb_gate_opts' */
	double max_thr_loss, max_p99_rise;		 /* resolved; INFINITY: no limit */
	double max_slope_rise;				 /* resolved; INFINITY: no limit */
	/* With a finite max_slope_rise and a baseline result: its sweeps, judged; with the
	 * history instead: the gated result's sweeps. */
	struct tb_gate_sweep *sweeps;
	size_t nsweeps, nsweep_fail, nsweep_skip;
	/* The run as a whole (c NULL): its shortfalls (stats/shortfall.h) joined; fails when it
	 * is partial or ran beside foreign instrumentation and that is not allowed. Reported
	 * (JUnit: a test case "run") only when has_run. */
	struct tb_gate_cell run;
	bool has_run;
	bool require_power;	    /* underpowered cells fail */
	size_t nunderpowered;	    /* cells whose MDE exceeds a limit they were gated against */
	bool has_old;		    /* regressions checked against a baseline result */
	const char *history_name;   /* regressions checked against this history, or NULL */
	struct tb_gate_cell *cells; /* one per cell of the result, in its order */
	size_t ncells, nfail, nskip;
	/* What tb_gate_release undoes: the results analysed at the gate's alpha, their own
	 * settings, the comparison with the baseline result. */
	struct tb_result *r, *old;
	double r_alpha, r_conf, old_alpha, old_conf;
	struct tb_comparison *cmp;
};

/*
 * Evaluate r (and its regressions against old when not NULL) into g with the thresholds of o,
 * then r's gate object, then the defaults. r and old are analysed at the gate's alpha and stay
 * so until tb_gate_release, so that what is written about g shows the figures its verdicts
 * used. Returns 0, -EINVAL (bad thresholds in r's gate object) or -ENOMEM, the reason printed
 * through tb_err. Call tb_gate_release(g) afterwards in every case.
 */
int tb_gate_evaluate(struct tb_gate *g, struct tb_result *r, struct tb_result *old,
		     const struct tb_gate_opts *o);
/* The alpha a gate of r with o uses (o, then r's gate object, then the default). Returns 0,
 * or -EINVAL (printed) when r's gate object is bad. */
int tb_gate_alpha(const struct tb_result *r, const struct tb_gate_opts *o, double *alpha);
/* Free what g holds and analyse its results at their own settings again. */
void tb_gate_release(struct tb_gate *g);
/* The gate passed: no cell or sweep failed, the run did not, and there are cells (a run that
 * measured nothing fails). */
bool tb_gate_passed(const struct tb_gate *g);

#endif /* TB_GATE_H */
