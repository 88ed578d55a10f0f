/* SPDX-License-Identifier: GPL-2.0 */
/* Sweeps' models (sweep.c): a line per sweep through its cells' per-op costs. */
#ifndef TB_STATS_SWEEP_H
#define TB_STATS_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "model/result.h"

/*
 * What c's tracer was offered and kept over its measured samples (timed, not accounting):
 * pt's events_per_s (recorded + lost per second of batch), lost, lost_share and tracer_cpu;
 * left as they are when no sample knows its counts. The saturation of sweeps and of
 * `run --find-limit`'s probes (stats/limit.h).
 */
void tb_stats_offered(const struct tb_cell *c, struct tb_sweep_point *pt);

/* Every sweep's points and model from the analysed cells (sweep.c): r->sweeps. 0 or -ENOMEM. */
int tb_stats_sweeps(struct tb_result *r);

/* What a sweep's slope did from A to B (the rule: METHODOLOGY.md "Sweeps"). */
enum tb_cmp_sweep_dir {
	TB_CMP_SWEEP_SAME,    /* the change's CI includes 0 or it is within the noise threshold */
	TB_CMP_SWEEP_WORSE,   /* significant rise beyond the noise threshold: costs more per unit */
	TB_CMP_SWEEP_BETTER,  /* significant fall beyond it */
	TB_CMP_SWEEP_REFUSED, /* a line was refused in A or B (why names which) */
	TB_CMP_SWEEP_UNCOMPARED, /* accepted in both but in different units */
	TB_CMP_SWEEP_ONLY_A,	 /* b is NULL */
	TB_CMP_SWEEP_ONLY_B,	 /* a is NULL */
};

/* "same", "worse", "better", "refused", "not compared", "only in A", "only in B". */
const char *tb_cmp_sweep_dir_name(enum tb_cmp_sweep_dir d);

/* A sweep of two results (matched by kind, section, key and against) and its slope's change. */
struct tb_cmp_sweep {
	const struct tb_sweep *a, *b; /* borrowed; one is NULL for a sweep of one side only */
	enum tb_cmp_sweep_dir dir;
	/* B's slope minus A's, ns per unit, with a CI at 1 - alpha from the two slopes' CIs taken
	 * as independent (their half widths added in quadrature); NAN unless both lines were
	 * accepted in the same unit (why says otherwise). */
	double change, ci_lo, ci_hi;
	bool significant; /* the change's CI excludes 0 */
	char why[96];
};

/*
 * The sweeps a and b both have (their r->sweeps, from tb_stats_sweeps), in a's order, then
 * those only in a (b NULL), then those only in b (a NULL), into *out (free()), their count
 * into *n, the count of the first kind into *nboth. The verdict's noise threshold is a's
 * noise_threshold (a fraction of A's slope). 0 or -ENOMEM.
 */
int tb_stats_sweep_changes(const struct tb_result *a, const struct tb_result *b,
			   struct tb_cmp_sweep **out, size_t *n, size_t *nboth);

#endif /* TB_STATS_SWEEP_H */
