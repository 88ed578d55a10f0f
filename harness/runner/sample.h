/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The runner's state and one child of a workload: a calibration, or one sample of a cell
 * (runner/child.h runs it), shared by the rounds (runner/runner.h) and the explain phase
 * (runner/explain.h).
 */
#ifndef TB_RUNNER_SAMPLE_H
#define TB_RUNNER_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "core/outdir.h"
#include "explain/explain.h"
#include "model/result.h"
#include "plan/plan.h"
#include "runner/measure.h"

struct tb_runner_dirs; /* runner.c: the tracers' directories, opened once */

/* Where the run is, for a progress display. */
struct tb_runner_progress {
	const char *phase;	    /* "warmup", "round" or "explain" */
	unsigned int round, rounds; /* 1-based round of the phase, and its planned count */
	const struct tb_cell *cell; /* the cell about to run */
	double eta_s;		    /* estimated seconds left; NAN before the first sample */
	size_t done, planned;	    /* samples of the rounds done, and planned so far */
	double elapsed_s;	    /* since the runner started (calibration included) */
};

/* What the run will write at most at once (tracer.h est_write_bytes), after calibration. */
struct tb_runner_disk {
	double peak_bytes;	       /* kept files of every sample + the largest deleted one */
	double kept_bytes;	       /* of those, what stays (keep-raw) */
	double largest_bytes;	       /* the largest one sample writes and deletes after it */
	const struct tb_cell *largest; /* its cell, or NULL when nothing is written */
};

/* A max-time's budget as the runner found it before the warmups (runner/budget.h). */
struct tb_runner_budget {
	double max_time_s;  /* 0: no budget (nothing below is set) */
	double elapsed_s;   /* calibration and the probes, from the runner's start */
	double round_s;	    /* a measured round, predicted */
	double warmups_s;   /* the warmup rounds, predicted */
	double tail_s;	    /* after the rounds: held tracers' teardown, the explain phase */
	double need_s;	    /* elapsed + warmups + the rounds asked + tail */
	unsigned int asked; /* rounds asked: min-rounds with a precision target, else repetitions */
	unsigned int fit;   /* measured rounds that fit */
	size_t nprobed;	    /* traced cells whose slowdown was measured */
	size_t nsized;	    /* of those, the ones given their own op count */
	uint64_t duration_ns; /* [global] duration after the fit */
	bool shortened;	      /* the run shortened it to fit (settings.sample_length says) */
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
	/* Once, after the first round (a warmup or a measured one) has timed every cell: the
	 * run's total wall time re-estimated from what each cell's samples took (traced ones
	 * include their tracer's slowdown, which the plan's estimate cannot know). May be NULL. */
	void (*on_estimate)(void *ctx, double total_s, double elapsed_s);
	/* After calibration, before the first sample: what the tracers will write. A non-zero
	 * return (-ENOSPC: not enough free) stops the run before anything is measured. May be
	 * NULL. */
	int (*on_disk)(void *ctx, const struct tb_runner_disk *d);
	/* With a max-time, after calibration and the slowdown probes, before the disk check:
	 * what the budget allows (runner/budget.h). May be NULL. */
	void (*on_budget)(void *ctx, const struct tb_runner_budget *b);
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
	bool estimated; /* on_estimate was called */
	/* the rounds expected so far: warmups, measured ones (targeted, asked for by adaptive
	 * stopping, run again), and of them the measured ones, each with an accounting sample
	 * per cell that has them (tb_runner_planned) */
	unsigned int planned_rounds, planned_measured;
	struct tb_runner_dirs *dirs;	/* dir/tracers/ and its sections' directories, or NULL */
	struct tb_runner_budget budget; /* max-time's (runner/budget.h) */
	/* [workload section]: what its counting pass counted per op (runner/count.h); NULL
	 * entries where none ran; the array NULL until one does */
	struct tb_op_events **counted;
};

/*
 * One sample of plan cell cr (runner.c), with tracer instead of the cell's own (NULL: its own)
 * and into another cell than the result's (NULL: the result's); with accounting, an
 * accounting sample (tracer.h, accounts), on the cell's held tracer like a timed one. Returns as
 * tb_child_sample.
 */
int tb_runner_sample(struct tb_runner *rn, struct tb_plan_cell *cr, int round, bool warmup,
		     bool accounting, const struct tb_scn_tracer *tracer, struct tb_cell *into);
/* The cell's tracer section has accounting samples (tracer.h, accounts). */
bool tb_runner_accounts(const struct tb_runner *rn, const struct tb_plan_cell *cr);
/* What the workload process of workload section wi runs, into req. */
void tb_runner_fill_req(const struct tb_plan *p, size_t wi, struct tb_measure_req *req);
/* Calibrate workload section wi: its ops per sample into rn->plan->wls[wi].ops. Returns as
 * tb_child_calibrate. */
int tb_runner_calibrate(struct tb_runner *rn, size_t wi);
/* The samples of plan cell cr expected in the rounds planned so far (cr NULL: of every cell). */
size_t tb_runner_planned(const struct tb_runner *rn, const struct tb_plan_cell *cr);
/* What the plan's samples will write into the tracers' directories (tb_runner_planned). */
void tb_runner_disk_need(const struct tb_runner *rn, struct tb_runner_disk *d);
/* Seconds left in the rounds planned so far and the explain phase: each live cell's remaining
 * samples at the mean wall time of its own samples (the mean of all samples for a cell not yet
 * timed, the plan's figure before any), its remaining accounting samples at their own mean (a
 * timed sample's, its held tracer's setup added, before any), and each explain sample at that
 * mean plus its tracer's setup and the symbols' reading. */
double tb_runner_left_s(const struct tb_runner *rn);
/* Does the explain phase sample plan cell i: an explained cell, or the baseline of one. */
bool tb_runner_explain_sampled(const struct tb_plan *p, size_t i);
/* Of those, the explain phase's seconds. */
double tb_runner_explain_left_s(const struct tb_runner *rn);
/* Tell rn->on_progress where the run is (phase "warmup", "round" or "explain"), with the ETA
 * from the samples done so far. */
void tb_runner_progress_say(struct tb_runner *rn, const char *phase, unsigned int round,
			    unsigned int rounds, const struct tb_cell *cell);
/* The order of the n cells in one round: a permutation drawn from rng (seeded with the
 * recorded seed, so a run's order can be reproduced). */
void tb_runner_round_order(gsl_rng *rng, size_t n, size_t *order);

/* How long workload section w's child may take to set up, and its batch to run: [global]
 * sample-timeout, else 20 durations and a minute. */
uint64_t tb_runner_sample_timeout(const struct tb_scenario *s, const struct tb_scn_workload *w);

/* Close and free the tracers' directories (tb_runner_free). */
void tb_runner_dirs_free(struct tb_runner *rn);

#endif
