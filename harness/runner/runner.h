/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runner: executes a plan (plan/plan.h). Each workload is calibrated once; then warmup
 * rounds and measured rounds run every live cell once each, in a fresh shuffled order per round
 * (runner/child.h runs one sample), until the stop rule says enough. After every measured round
 * the result's totals and statistics are brought up to date and the caller is told, so that it
 * can persist what was measured. The runner prints nothing but warnings: progress and results
 * go to the caller's callbacks.
 */
#ifndef TB_RUNNER_H
#define TB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "runner/sample.h"

/*
 * Execute rn->plan: calibrate, warmups, measured rounds with the scenario's stop rule (stop
 * reason and rounds in rn->r), the explain phase when cells ask for it, then the latency
 * histograms into the cells. Returns 0, -EINTR when a stop was requested (rn->r->rounds counts
 * the completed rounds; the samples of the round in progress are kept marked partial_round, the
 * one cut short is abandoned), or -errno.
 */
int tb_runner_run(struct tb_runner *rn, uint64_t seed);

/* Free what the runner made (its rng, the tracers' directories); the plan and result stay the
 * caller's. */
void tb_runner_free(struct tb_runner *rn);

struct tb_runner_stop_rule {
	unsigned int rounds;		     /* fixed rounds (precision 0) */
	unsigned int min_rounds, max_rounds; /* adaptive bounds */
	double precision;     /* CI half-width target as a fraction; 0: fixed rounds */
	uint64_t max_time_ns; /* 0: none */
	uint64_t next_ns;     /* the next round and what must follow the rounds (budget.h) */
};

/*
 * After `done` measured rounds of an analysed result: why to stop ("rounds", "precision",
 * "max-rounds", "max-time"), or NULL to run another round. Precision is met when every traced
 * cell that did not fail has an overhead CI whose half-width is below precision x 100
 * percentage points; max-time when another round (next_ns) would not end within it.
 */
const char *tb_runner_stop_reason(const struct tb_result *r, unsigned int done,
				  const struct tb_runner_stop_rule *rule, uint64_t elapsed_ns);

#endif /* TB_RUNNER_H */
