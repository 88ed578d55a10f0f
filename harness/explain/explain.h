/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A traced cell's explanation: from the explain phase's profiles of the cell and its baseline
 * (runner/explain.c) to the files in the run directory and the result's [explain] object
 * (model/explain.h); and back, from the stored folded files, for `tracebench explain` and the
 * HTML report. Per cell, in <run dir>/explain/<cell>/:
 *
 *	base.folded    the baseline's stacks, samples per `per_ops` operations (fold.h)
 *	traced.folded  the traced cell's, the same unit
 *	diff.folded    "stack base traced" (difffolded.pl's form)
 *	diff.svg       the differential flame graph (widths: traced; colour: growth per op)
 *	traced.svg     the traced profile's flame graph
 *
 * What limited a profile is said in the object's limits and never hidden: kernel samples
 * refused, kernel symbols hidden, too few samples to attribute, a difference within the
 * profiles' own noise, chains cut at perf_event_max_stack, samples lost or throttled.
 */
#ifndef TB_EXPLAIN_EXPLAIN_H
#define TB_EXPLAIN_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/outdir.h"
#include "explain/fold.h"
#include "explain/profile.h"
#include "model/explain.h"
#include "model/result.h"

#define TB_EXPLAIN_MIN_SAMPLES 200 /* per side, to attribute anything */
#define TB_EXPLAIN_NOISE_SE    3   /* an added time within this many sampling errors is noise */
#define TB_EXPLAIN_TOP	       10  /* functions by added self time, and by added inclusive */
#define TB_EXPLAIN_MAX_RUNS    1000

/* One side's explain samples, as the phase gathered them. */
struct tb_explain_run {
	struct tb_fold fold;		/* raw sample counts */
	struct tb_profile_stats st;	/* summed over the runs */
	uint64_t ops;			/* operations of every thread over the runs */
	double ns[TB_EXPLAIN_MAX_RUNS]; /* each run's ns/op (the profiler on) */
	unsigned int runs;
	char error[256]; /* why it has no profile ("" when it has one) */
};

/* How the phase profiled (the scenario's explain keys). */
struct tb_explain_settings {
	uint64_t period_ns;
	double tolerance;
	bool kallsyms_hidden; /* the kernel table read all zeros */
	bool bpf_from_info;   /* bpf_jit_kallsyms = 0: programs named from bpf_prog_info */
};

void tb_explain_run_init(struct tb_explain_run *x);
void tb_explain_run_free(struct tb_explain_run *x);

/*
 * Cell c's explanation from base (its baseline's runs) and traced: the files into
 * explain/<name>/ of the run directory rundir (name from c's id, unique in r; both created
 * through the handle, a link there refused: core/outdir.h) and c->explain (replaced). c's
 * measured overhead (c->overhead) is what the share is checked against. A side without a
 * profile gives an explanation that says why (c->explain->error) and no files. Returns 0 or
 * -errno (said).
 */
int tb_explain_publish(struct tb_result *r, struct tb_cell *c, const struct tb_dir *rundir,
		       const struct tb_explain_run *base, const struct tb_explain_run *traced,
		       const struct tb_explain_settings *set);

/*
 * The stored folded files of c (r->dir / c->explain->dir; both base.folded and traced.folded),
 * validated. Returns 0, -ENOENT when c has none, -EINVAL (said: file:line) or -ENOMEM.
 */
int tb_explain_load(const struct tb_result *r, const struct tb_cell *c, struct tb_fold *base,
		    struct tb_fold *traced);
/*
 * Recompute c->explain's table, profile totals and share check from the folds (normalised,
 * as tb_explain_load gives them), keeping what the run recorded (runs, ops, samples, limits).
 * Returns 0 or -ENOMEM.
 */
int tb_explain_recompute(struct tb_cell *c, const struct tb_fold *base,
			 const struct tb_fold *traced);
/* Write the two SVGs of c from the folds into dir (core/outdir.h). Returns 0 or -errno (said). */
int tb_explain_render(const struct tb_cell *c, const struct tb_fold *base,
		      const struct tb_fold *traced, const struct tb_dir *dir);
/*
 * The inline SVG (no XML prolog) of c's differential (diff) or traced flame graph, rendered
 * from its stored folded files, to f. Returns 0, or -errno when they cannot be read (said).
 */
int tb_explain_svg_inline(FILE *f, const struct tb_result *r, const struct tb_cell *c, bool diff);

#endif /* TB_EXPLAIN_EXPLAIN_H */
