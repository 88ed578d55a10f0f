/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plan: what a scenario asks for, made concrete for this machine before anything is
 * measured. The matrix becomes cells (workload x tracer), plugins unsupported here are dropped
 * or refused, workload threads get their CPUs and consumers a CPU of their own, and the run's
 * length is estimated. The runner (runner/runner.h) executes a plan.
 */
#ifndef TB_PLAN_H
#define TB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/result.h"
#include "parse/scenario.h"

#define TB_PLAN_MAX_CPUS 256

struct tb_hist;
struct tb_tracer;

/* One planned cell: which scenario sections it pairs, and its place in the result. */
struct tb_plan_cell {
	size_t wl, tr;		   /* scenario indices */
	size_t cell;		   /* index into r->cells */
	bool explain;		   /* a traced cell the explain phase profiles (runner/explain.c) */
	bool dead;		   /* setup failed for good: skipped in later rounds */
	unsigned int failures;	   /* samples of this cell that did not complete */
	struct tb_hist *hist;	   /* latency mode: merged over measured samples (runner's) */
	struct tb_hist *hist_done; /* hist as of the last completed round: what the result gets,
				      so that a stopped round's samples are not in it */
	struct tb_tracer *held;	   /* the tracer kept set up across its samples (runner's) */
	double wall_s;		   /* wall time of its samples in the rounds so far (runner's) */
	unsigned int nwall;	   /* how many samples wall_s sums */
	double acct_wall_s;	   /* wall time of its accounting samples so far (runner's) */
	unsigned int nacct;	   /* how many acct_wall_s sums */
	/* Under a max-time (runner/budget.h): its ops per thread and sample when its own (a
	 * traced cell whose slowdown is at least TB_PLAN_SIZE_SLOWDOWN, sized to last about its
	 * duration), 0: its workload's; the slowdown measured (traced / baseline ns/op, NAN: not
	 * measured); the wall time of one of its samples besides the batch, steady (a held
	 * tracer rearmed) and fresh (its tracer set up and torn down), and of the teardown of its
	 * held tracer after the rounds (s) */
	uint64_t ops;
	double slowdown, fixed_s, fresh_s, release_s;
};

/* Per workload section: what every sample of it runs with. */
struct tb_plan_workload {
	uint64_t ops;	  /* per thread and sample, calibrated once by the runner */
	char tmpdir[256]; /* its scratch directory (the runner creates it) */
	int cpus[TB_PLAN_MAX_CPUS];
	size_t ncpus; /* 0: not pinned */
};

struct tb_plan {
	struct tb_scenario *s;	    /* borrowed */
	struct tb_plan_cell *cells; /* in r->cells order */
	size_t ncells;
	struct tb_plan_workload *wls; /* one per s->workloads[] */
	int consumer_cpu;	      /* for tracer reader threads, -1: none free */
};

/*
 * Drop (skip = true or [global] skip-unsupported, with a warning each) or refuse the sections
 * whose plugin, or whose tracer configuration (tb_tracer_ops.supported_cfg: a BPF attach type
 * the kernel refuses, a command's tool that cannot run here), is unsupported here; each is
 * named with file:line and the reason, and appended as a string to unsupported (a JSON array;
 * NULL: not kept). Returns 0, or -EOPNOTSUPP when something is unsupported and not skipped.
 */
int tb_plan_check_supported(struct tb_scenario *s, bool skip, json_t *unsupported);

/*
 * Expand the scenario's matrix into r's cells (workload-major, the baseline first, every pair
 * once; in A/A mode the baseline and a second baseline "none-aa" per workload) and the plan
 * *cells (caller frees). Sections marked unused (unsupported here) are left out, and so are
 * the pairs [matrix] exclude names and the workloads a tracer's 'workloads' key does not name.
 * Returns 0, -ENOMEM, or -EINVAL when nothing is left to run.
 */
int tb_plan_expand(struct tb_scenario *s, struct tb_result *r, struct tb_plan_cell **cells,
		   size_t *ncells);

/*
 * The whole plan: expand the matrix into r (as tb_plan_expand), choose the workloads' CPUs
 * ([global] cpus: auto is the last CPU we may use, none is no pinning) and a consumer CPU not
 * used by any workload. Returns 0, -ENOMEM, or -EINVAL (bad cpus, nothing to run; said).
 * Free with tb_plan_free.
 */
int tb_plan_build(struct tb_scenario *s, struct tb_result *r, struct tb_plan *p);
void tb_plan_free(struct tb_plan *p);

/*
 * A run's result before its first sample (header.c): a new result whose header says what was
 * asked for and how to reproduce it (the scenario's name, path and text, command_line, the
 * settings and seed, [gate], labels: a JSON object merged in, may be NULL), whose unsupported
 * list says what was left out (tb_plan_check_supported with skip), and whose cells are p's
 * (tb_plan_build). Returns 0, -ENOMEM, -EOPNOTSUPP (something unsupported and not skipped:
 * each said) or what tb_plan_build returns.
 * Ownership: *out is the caller's (tb_result_free) whenever it is not NULL, also on failure;
 * p is the caller's (tb_plan_free, also on failure); p borrows s, so s outlives p; labels and
 * command_line are copied.
 */
int tb_plan_result(struct tb_scenario *s, bool skip, const char *command_line, json_t *labels,
		   struct tb_plan *p, struct tb_result **out);
/*
 * The moment measuring starts (after the run lock and the cleanup of a dead run, so that what
 * a dead run left is not taken for foreign): r's started time, the system's fingerprint and
 * the foreign instrumentation active now (each said as a warning). Returns 0 or -ENOMEM.
 */
int tb_plan_result_start(struct tb_result *r);

/* Does the plan need root: any traced cell whose tracer is not `none`. */
bool tb_plan_needs_root(const struct tb_plan *p, const struct tb_result *r);

/*
 * The estimated wall time of the plan's minimum rounds, in its parts (seconds): every sample's
 * batch at the calibrated duration (tb_plan_batch_s), its two settle delays, its workload
 * process (fork, setup, reap: tb_plan_process_s), its tracer's declared setup and teardown
 * (est_cost_ns), and the
 * calibration of each workload, and with explained cells the explain phase (explain_s: its
 * samples of each explained cell and baseline, each also reading the kernel's symbols). The batch is taken as long traced as untraced: a tracer that
 * slows the workload lengthens the run by its overhead.
 */
#define TB_PLAN_PROCESS_S 0.01 /* fork + workload setup + reap, beside the settle delays */
#define TB_PLAN_CALIB_S	  0.3  /* one workload's calibration */
/* A sample's batch of section w as it runs: its duration, or what its client makes of it. */
double tb_plan_batch_s(const struct tb_scn_workload *w);
/* A sample's workload process beside its batch: TB_PLAN_PROCESS_S, and a server's setup. */
double tb_plan_process_s(const struct tb_scn_workload *w);
/*
 * Under a max-time, each traced cell's slowdown is measured after calibration by one sample
 * under its tracer of TB_PLAN_PROBE_NS of baseline ops (runner/budget.h); a cell at least
 * TB_PLAN_SIZE_SLOWDOWN times slower than its baseline then gets its own op count, so that its
 * samples last about its duration (METHODOLOGY.md 2.1).
 */
#define TB_PLAN_PROBE_NS      10000000ull
#define TB_PLAN_SIZE_SLOWDOWN 2.0
struct tb_plan_estimate {
	size_t nsamples; /* (warmup + rounds) x cells */
	double batch_s, settle_s, process_s, tracer_s, calib_s, explain_s;
	double total_s; /* the sum of the parts */
	size_t nprobes; /* under a max-time: the traced cells whose slowdown is measured (in
			   calib_s: a sample each with its tracer set up and torn down) */
};
void tb_plan_estimate(const struct tb_plan *p, struct tb_plan_estimate *e);
double tb_plan_estimate_s(const struct tb_plan *p);
/* Cells the explain phase samples: the explained traced cells and their workloads' baselines. */
size_t tb_plan_explain_cells(const struct tb_plan *p, size_t *explained);

/*
 * The sample length and settle a run chooses itself (length.c). With a precision target and a
 * max-time, [global] duration and settle left unset (also on the command line; --quick sets
 * its own) are chosen: settle 0 for the tracers that need none (TB_TR_NOSETTLE) and set none,
 * and the shortest duration, in steps of TB_PLAN_AUTO_STEP_NS within [TB_PLAN_AUTO_MIN_NS,
 * TB_PLAN_AUTO_MAX_NS], whose fixed costs per sample (the workload process, two settles, the
 * tracer's declared setup and teardown, or its rearm when it is kept) stay within
 * TB_PLAN_AUTO_SHARE of the sample's wall time, on the cells' mean. The minimum is where the
 * paired rounds were measured independent (lag-1 autocorrelation -0.01 at 200 ms, 0.19 at
 * 20 ms: METHODOLOGY.md section 9); the maximum is the default duration. A workload or tracer
 * section's own key wins over the choice. The choice and why go to r->sample_length (printed
 * by tb_plan_print, kept as settings.sample_length); nothing when the scenario fixed both.
 * The same run chooses [global] min-rounds and max-rounds left unset: at least
 * TB_PLAN_AUTO_MIN_ROUNDS before it may stop on precision (precision.ini's: the fewest pairs
 * whose percentile bootstrap section 9's coverage study measured), never above a max-rounds
 * set, and then up to TB_PLAN_AUTO_MAX_ROUNDS (the key's bound), so that the precision or the
 * max-time ends the run, not a round count (r->rounds_chosen, settings.rounds_chosen).
 * Called by tb_plan_build. Returns 0 or -ENOMEM.
 */
#define TB_PLAN_AUTO_SHARE	0.15
#define TB_PLAN_AUTO_MIN_NS	200000000ull
#define TB_PLAN_AUTO_MAX_NS	1000000000ull
#define TB_PLAN_AUTO_STEP_NS	50000000ull
#define TB_PLAN_AUTO_MIN_ROUNDS 30u
#define TB_PLAN_AUTO_MAX_ROUNDS 100000u
/* ... and accounting-every left unset: accounting samples in every Nth measured round, N the
 * largest up to this that leaves their CI its samples in min-rounds (plan/length.c) */
#define TB_PLAN_AUTO_ACCOUNTING_EVERY 5u
int tb_plan_auto_length(struct tb_plan *p, struct tb_result *r);
/*
 * A min-rounds the plan chose (above), once the runner knows how many rounds fit the max-time
 * (runner/budget.h): lowered to fit, never below TB_PLAN_AUTO_MIN_ROUNDS_FLOOR (the key's
 * default, which a scenario gets without a max-time), and why appended to r->rounds_chosen.
 * Nothing for a min-rounds the scenario set, or when they fit. Returns 0 or -ENOMEM.
 */
#define TB_PLAN_AUTO_MIN_ROUNDS_FLOOR 5u
int tb_plan_fit_min_rounds(struct tb_plan *p, struct tb_result *r, unsigned int fit);
/* Plan cell i's declared fixed cost per sample beside its batch (s), what the rule weighs:
 * process (a server's setup too), two settles, its tracer's declared setup and teardown, or its
 * rearm when the tracer is kept. */
double tb_plan_cell_fixed_s(const struct tb_plan *p, size_t i);
/* The same with its tracer set up and torn down (a fresh sample's, kept tracer or not). */
double tb_plan_cell_fresh_s(const struct tb_plan *p, size_t i);
/* The rule on its own: the duration for cells of these fixed costs per sample (s), n > 0. */
uint64_t tb_plan_auto_duration_ns(const double *fixed_s, size_t n, double share);

/*
 * The duration that fits a budget (length.c): the run needs fixed_s + per_d_s x duration (in
 * seconds, the duration too) for what it must still do, and has avail_s. The longest duration,
 * in steps of TB_PLAN_AUTO_STEP_NS, that fits, never above d0_ns nor below
 * TB_PLAN_AUTO_MIN_NS (where paired rounds were measured independent); d0_ns when it fits
 * already, TB_PLAN_AUTO_MIN_NS when even that does not.
 */
uint64_t tb_plan_fit_duration_ns(double avail_s, double fixed_s, double per_d_s, uint64_t d0_ns);

/*
 * The duration re-chosen by the runner once the traced cells' slowdown is measured (under a
 * max-time, with the duration the plan's to choose: runner/budget.h): d into the scenario, its
 * workloads without their own duration and the result's cells; why appended to
 * r->sample_length. Returns 0 or -ENOMEM.
 */
int tb_plan_set_duration(struct tb_plan *p, struct tb_result *r, uint64_t d, const char *why);

/* Can the duration of workload section wi's samples be chosen: its own or [global]'s unset, a
 * batch of ops that the duration sizes (not one-shot, not a client's whole seconds). */
bool tb_plan_duration_free(const struct tb_plan *p, size_t wi);

/* The plan as text: the cells, the rounds and the estimate (`run --dry-run`, and stderr). */
void tb_plan_print(FILE *f, const struct tb_plan *p, const struct tb_result *r);

#endif /* TB_PLAN_H */
