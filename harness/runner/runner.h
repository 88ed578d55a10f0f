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

#include "explain/explain.h"
#include "core/outdir.h"
#include "plan/plan.h"
#include "model/result.h"

struct tb_runner_dirs; /* runner.c: the tracers' directories, opened once */

/* Where the run is, for a progress display. */
struct tb_runner_progress {
	const char *phase;	    /* "warmup", "round" or "explain" */
	unsigned int round, rounds; /* 1-based round of the phase, and its planned count */
	const struct tb_cell *cell; /* the cell about to run */
	double eta_s;		    /* estimated seconds left; NAN before the first sample */
};

struct tb_runner {
	/* set by the caller */
	struct tb_plan *plan;	  /* the plan (and its scenario) to execute */
	struct tb_result *r;	  /* the result the plan's cells live in */
	const struct tb_dir *dir; /* the run directory: tracers write under dir/tracers/<name>/ */
	void *ctx;		  /* passed to the callbacks */
	void (*on_progress)(void *ctx, const struct tb_runner_progress *p); /* may be NULL */
	/* After each measured round, with r's totals and statistics up to date. A non-zero
	 * return stops the run with that error. May be NULL. */
	int (*on_round)(void *ctx, struct tb_result *r);
	/* After the explain phase profiled r->cells[cell] and its baseline (runner/explain.c);
	 * base and traced are the runner's. A non-zero return stops the run. May be NULL. */
	int (*on_explained)(void *ctx, struct tb_result *r, size_t cell,
			    const struct tb_explain_run *base, const struct tb_explain_run *traced,
			    const struct tb_explain_settings *set);
	/* the runner's own */
	gsl_rng *rng;
	uint64_t t_start;
	unsigned int order;   /* the next sample's position in the run */
	double sample_cost_s; /* running mean of a sample's wall time, for the ETA */
	unsigned int samples_done;
	size_t planned;		     /* samples expected: warmups and the rounds targeted so far */
	struct tb_runner_dirs *dirs; /* dir/tracers/ and its sections' directories, or NULL */
};

/*
 * Execute rn->plan: calibrate, warmups, measured rounds with the scenario's stop rule (stop
 * reason and rounds in rn->r), the explain phase when cells ask for it, then the latency
 * histograms into the cells. Returns 0, -EINTR when a stop was requested (rn->r->rounds counts
 * the completed rounds; the samples of the round in progress are kept marked partial_round, the
 * one cut short is abandoned), or -errno.
 */
int tb_runner_run(struct tb_runner *rn, uint64_t seed);

/*
 * One sample of plan cell cr (runner.c), with tracer instead of the cell's own (NULL: its own)
 * and into another cell than the result's (NULL: the result's). Returns as tb_child_sample.
 */
int tb_runner_sample(struct tb_runner *rn, struct tb_plan_cell *cr, int round, bool warmup,
		     const struct tb_scn_tracer *tracer, struct tb_cell *into);
/*
 * The explain phase (runner/explain.c), after the measured rounds so that it never touches a
 * measured sample: explain_samples rounds, each running every explained cell and its
 * workload's baseline once in a fresh shuffled order, with the explain profiler around each
 * sample's batch; then rn->on_explained per explained cell. A cell whose profiles cannot be
 * taken is handed over with the reason. Returns 0 (also when nothing is explained), -EINTR, or
 * -ENOMEM.
 */
int tb_runner_explain(struct tb_runner *rn);
void tb_runner_free(struct tb_runner *rn);

/* The order of the n cells in one round: a permutation drawn from rng (seeded with the
 * recorded seed, so a run's order can be reproduced). */
void tb_runner_round_order(gsl_rng *rng, size_t n, size_t *order);

struct tb_runner_stop_rule {
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
				  const struct tb_runner_stop_rule *rule, uint64_t elapsed_ns);

#endif /* TB_RUNNER_H */
