/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repeated runs of one question combined into one figure whose interval holds the spread
 * between runs (`tracebench combine`; doc/statistics.md "combine", METHODOLOGY.md 9): a run's
 * interval is right for the machine as it was during that run, and on a machine whose state
 * shifts between runs (the coverage study's episodes) it is narrower than the scatter of the
 * runs themselves (Kalibera & Jones, ISMM 2013). Each traced cell, matched across the results
 * as compare matches them (tb_compare_key), has its overhead % and ns/op added combined by a
 * random-effects model: DerSimonian-Laird's run-to-run variance, and the Hartung-Knapp-Sidik-
 * Jonkman interval on Student's t with k - 1 degrees of freedom, its variance factor never
 * below 1 (Röver, Knapp & Friede 2015), so that a few agreeing runs are not made narrower than
 * their own intervals allow. The outputs are render/combine-formats.h.
 */
#ifndef TB_COMBINE_H
#define TB_COMBINE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/result.h"

/* k estimates of one quantity, each with its standard error, combined. */
struct tb_meta {
	size_t k;
	double fixed, fixed_se; /* inverse-variance (fixed-effect) mean, its standard error */
	double q, q_p;		/* Cochran's Q about the fixed mean on k - 1 df; chi-square p */
	double i2;		/* share of Q beyond its df, max(0, (Q - df) / Q): 0..1 */
	double tau;		/* DerSimonian-Laird's run-to-run sd, in the estimates' unit */
	double est, lo, hi;	/* random-effects mean and its (1 - alpha) HKSJ interval */
	double se;		/* its HKSJ standard error (on t with k - 1 df) */
	double min, max;	/* the estimates' range */
};

/*
 * Combine y[0..k) with standard errors se[0..k) at level 1 - alpha into *m. Returns 0, or
 * -EINVAL when k < 2, alpha is not in (0, 1) or a value is not finite or an se not above 0.
 */
int tb_meta_combine(const double *y, const double *se, size_t k, double alpha, struct tb_meta *m);

/*
 * B's combined figure against A's: the difference b - a with a (1 - alpha) interval on t with
 * the Welch-Satterthwaite degrees of freedom of the two HKSJ variances, its two-sided p, and
 * whether the interval excludes 0.
 */
struct tb_meta_diff {
	double diff, lo, hi, df, p;
	bool significant;
};
void tb_meta_diff(const struct tb_meta *a, const struct tb_meta *b, double alpha,
		  struct tb_meta_diff *d);

/* The standard error a symmetric (1 - alpha) normal interval [lo, hi] implies. */
double tb_meta_se(double lo, double hi, double alpha);

/* One measure of a matched cell over the runs that have it. */
struct tb_comb_metric {
	bool present;	  /* combined: two or more runs with a finite estimate and interval */
	size_t nunusable; /* runs of the row without one (NaN, or an interval of no width) */
	double *y, *se;	  /* per run of the row (run[i]); NAN where that run has none */
	struct tb_meta m; /* when present */
};

/* One traced cell over the results. */
struct tb_comb_row {
	char *key;	    /* tb_compare_key: what matches it across results */
	const char *id;	    /* the first result's cell id (borrowed) */
	size_t nruns;	    /* results in which the cell was analysed (has an overhead) */
	size_t *run;	    /* their indices into tb_combination.res, in argument order */
	size_t nuntrusted;  /* of those, runs whose verdict is untrustworthy */
	size_t nfaster;	    /* of those, runs whose verdict is faster-than-baseline */
	size_t nduplicates; /* further cells of the same key in one file, left out */
	size_t last;	    /* 1 + the last result that gave an entry or a failure; 0 none */
	size_t nfailed;	    /* results in which the cell failed or has no overhead */
	struct tb_comb_metric pct, ns; /* overhead %, in points; ns/op added */
};

/* A result's hardware class (tb_system_hardware_class): "?" and "unknown hardware" when its
 * system object does not give one. */
struct tb_comb_class {
	char hash[17];
	char desc[160];
};

struct tb_combination {
	struct tb_result **res; /* borrowed, analysed at 1 - alpha */
	const char **names;	/* borrowed, for messages */
	size_t nres;
	double alpha;
	struct tb_comb_class *hw; /* per result: its hardware class */
	size_t nclasses;	  /* distinct classes among them */
	size_t nscenarios;	  /* distinct scenario names */
	size_t nrepeated; /* results that repeat an earlier one (same start, end and host) */
	struct tb_comb_row *rows; /* in order of first appearance */
	size_t nrows;
};

/*
 * Analyse each of res[0..n) at 1 - alpha (alpha <= 0: the first result's) and combine every
 * traced cell over the results that have it. Returns 0 and *out (free with
 * tb_combine_free; it borrows res and names, which must outlive it), -EINVAL for n < 2, or
 * -ENOMEM.
 */
int tb_combine_build(struct tb_result **res, const char **names, size_t n, double alpha,
		     struct tb_combination **out);
void tb_combine_free(struct tb_combination *c);

/* A cell of two groups of runs (tb_combine_changes): in both, or in one only. */
struct tb_comb_change {
	const struct tb_comb_row *a, *b; /* borrowed from the two combinations; NULL: not there */
	bool has_pct, has_ns;		 /* both sides combined that measure */
	struct tb_meta_diff pct, ns;	 /* B - A: overhead in points, ns/op added in ns */
};

/*
 * The cells of a also in b (matched by key, in a's order), each measure combined on both sides
 * differenced (tb_meta_diff at a's alpha); then a's cells not in b (b NULL), then b's not in a
 * (a NULL). Returns 0 and *out with *n entries (free()), or -ENOMEM.
 */
int tb_combine_changes(const struct tb_combination *a, const struct tb_combination *b,
		       struct tb_comb_change **out, size_t *n);

/* How many of b's results repeat one of a's (the same start, end and host): a run in both
 * groups. */
size_t tb_combine_shared(const struct tb_combination *a, const struct tb_combination *b);

/*
 * What the runs say of one metric, for every output: "the runs agree within their intervals"
 * when Q's p is at least alpha, else "the runs differ by more than their intervals (run-to-run
 * sd X unit): the combined interval includes that spread". Returns buf.
 */
const char *tb_comb_agreement(const struct tb_combination *c, const struct tb_comb_metric *x,
			      const char *unit, char *buf, size_t len);

#endif /* TB_COMBINE_H */
