/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TB_RUN_H
#define TB_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "result/result.h"
#include "scenario/scenario.h"

/* One planned cell: which scenario sections it pairs, and its place in the result. */
struct tb_plan_cell {
	size_t wl, tr; /* scenario indices */
	size_t cell;   /* index into r->cells */
	bool dead;     /* setup failed for good: skipped in later rounds */
	unsigned int failures;
	struct tb_hist *hist; /* latency mode: merged over measured samples */
};

/*
 * Expand the scenario's matrix into r's cells (workload-major, the baseline first, every pair
 * once; in A/A mode the baseline and a second baseline "none-aa" per workload) and the plan
 * *cells (caller frees). Sections marked unused (unsupported here) are left out. Returns 0,
 * -ENOMEM, or -EINVAL when nothing is left to run.
 */
int tb_runner_plan(struct tb_scenario *s, struct tb_result *r, struct tb_plan_cell **cells,
		   size_t *ncells);

/* The order of the n cells in one round: a permutation drawn from rng (seeded with the
 * recorded seed, so a run's order can be reproduced). */
void tb_runner_round_order(gsl_rng *rng, size_t n, size_t *order);

struct tb_stop_rule {
	unsigned int rounds;		     /* fixed rounds (precision 0) */
	unsigned int min_rounds, max_rounds; /* adaptive bounds */
	double precision;     /* CI half-width target as a fraction; 0: fixed rounds */
	uint64_t max_time_ns; /* 0: none */
};

/*
 * After `done` measured rounds of an analysed result: why to stop ("rounds", "precision",
 * "max-rounds", "max-time"), or NULL to run another round. Precision is met when every traced
 * cell that did not fail has an overhead CI whose half-width is below precision x 100
 * percentage points.
 */
const char *tb_runner_stop_reason(const struct tb_result *r, unsigned int done,
				  const struct tb_stop_rule *rule, uint64_t elapsed_ns);

/* The terminal table: workload, tracer, baseline and traced ns/op, overhead with CI, ns/event,
 * events, lost, verdict (and the reason of untrustworthy or failed cells). */
void tb_runner_print_summary(FILE *f, const struct tb_result *r);

#endif
