/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The added cost by function: from a cell's baseline and traced profiles (normalised folds,
 * fold.h), every function's self time (samples of stacks that end in it) and inclusive time
 * (samples of stacks through it, once per stack however often it recurses) per operation on
 * both sides, and the difference, which is the tracer's; and the explained-share check, which
 * sets the profiles' added time per op against the overhead the measured rounds found.
 *
 * Times per op are counts / per_ops x period_ns: cpu-clock samples a fixed period of the
 * workload's CPU time, so samples per op x period is on-CPU ns per op. The root frame of each
 * stack (the process name) and TB_FOLD_TRUNCATED are not functions and are left out.
 */
#ifndef TB_EXPLAIN_ATTRIBUTE_H
#define TB_EXPLAIN_ATTRIBUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "explain/fold.h"

struct tb_attr_fn {
	char *name;		       /* without the kernel mark */
	bool kernel;		       /* a kernel frame (BPF programs included) */
	double self_base, self_traced; /* ns per op */
	double incl_base, incl_traced; /* ns per op */
};

struct tb_attr {
	struct tb_attr_fn *fns; /* the top functions, by added self time, largest first */
	size_t nfns;
	double base_ns, traced_ns; /* the profiles' totals, ns per op */
};

/*
 * The top functions of base -> traced: the `top` largest by added self time and the `top`
 * largest by added inclusive time (the union, so at most 2 x top rows), sorted by added self
 * time. Returns 0 or -ENOMEM; free with tb_attr_free.
 */
int tb_attr_build(const struct tb_fold *base, const struct tb_fold *traced, double per_ops,
		  double period_ns, size_t top, struct tb_attr *out);
void tb_attr_free(struct tb_attr *a);

/* How much of the measured overhead the profiles account for. */
struct tb_attr_share {
	double share;	/* added_ns / overhead_ns; NAN when there is no overhead to explain */
	double lo, hi;	/* over the overhead's CI and the profile's noise (+-2 se) */
	bool within;	/* |share - 1| <= tolerance, or lo <= 1 <= hi */
	char text[320]; /* "the profile explains 97% of the measured overhead (...)" */
};

/*
 * The check of added_ns (+- se_ns) against the measured overhead ovh_ns [ovh_lo, ovh_hi] with a
 * tolerance (a fraction, e.g. 0.25). Never fails: without a positive overhead it says so.
 */
void tb_attr_share(double added_ns, double se_ns, double ovh_ns, double ovh_lo, double ovh_hi,
		   double tolerance, struct tb_attr_share *out);

#endif /* TB_EXPLAIN_ATTRIBUTE_H */
