/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample, in a fresh workload process: the fork protocol between the runner and the
 * workload child, and the tracer's arm / measure / disarm around the child's timed batch.
 *
 *	parent                                  child (fork)
 *	                                        tb_measure_prepare (setup, park)  -> "ready"
 *	tracer setup                            parked in a pipe read
 *	"arm"                                -> counters read, spins on a shared gate
 *	tracer start, settle (untimed)
 *	gate GO                              -> tb_measure_go_gated (the timed batch), DONE
 *	settle, stop; gate STOPPED           -> counters read                    -> result
 *	collect, teardown
 *	record the sample into the cell; reap the child
 *
 * The tracer's pid filter therefore sees exactly the workload's process, the tracer's own
 * setup and teardown never fall inside the timed window, and while the tracer is live the
 * workload process makes no syscall of the harness's (runner/measure.h).
 */
#ifndef TB_CHILD_H
#define TB_CHILD_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/outdir.h"
#include "model/result.h"
#include "runner/measure.h"
#include "parse/scenario.h"

/* What one sample of a cell needs; the runner fills it. */
struct tb_measure_job {
	const struct tb_scn_workload *w; /* the workload section */
	const struct tb_scn_tracer *t;	 /* the tracer section ("none" for the baseline) */
	struct tb_measure_req req;	 /* what the workload process runs */
	const struct tb_dir *tracer_dir; /* <run dir>/tracers/<tracer section>, open */
	int consumer_cpu;		 /* for the tracer's reader threads, -1: any */
	uint64_t timeout_ns;		 /* for the child's setup and for its batch */
	int round;			 /* measured round, -1 for a warmup */
	bool warmup;
	unsigned int order;		     /* the sample's position in the whole run */
	const struct tb_hook_expect *expect; /* the cell's expected events per op (proof.h) */
	size_t nexpect;
	/*
	 * NULL: the tracer is set up and torn down around this sample. Else the runner's slot for
	 * the cell's tracer kept set up across its samples (its ops have a rearm): when held->priv
	 * is set the sample rearms that tracer for its own workload process instead of setting
	 * one up; after a sample that completed it stays set up in *held (the sample's teardown_s
	 * then holds stop and collect only), else it is torn down and held->priv is NULL. The
	 * runner tears it down at the end with tb_child_release.
	 */
	struct tb_tracer *held;
	/* An accounting sample (tracer.h, accounts): the tracer's accounting on, the sample
	 * marked as such and kept out of the overhead statistics and the latency histogram. */
	bool accounting;
	/* The cell has accounting samples: its BPF programs' table comes from them alone (the
	 * timed samples know no run figures). */
	bool split;
};

/*
 * Calibrate req's workload in a child process: *ops per thread for a sample of target_ns
 * (tb_measure_calibrate). Returns 0, -EINTR when a stop was requested, or -errno (said, naming
 * the workload section).
 */
int tb_child_calibrate(const struct tb_measure_req *req, uint64_t target_ns, uint64_t timeout_ns,
		       uint64_t *ops);

/*
 * A sample without a tracer whose batch the caller brackets (the counting pass, runner/count.c):
 * ready is called once the workload process is set up, with the process a tracer would follow
 * (its target, or the workload process), begin just before its batch is released and end
 * right after it (when begin returned 0). A non-zero return of ready or begin ends the sample
 * with it.
 */
struct tb_child_bracket {
	void *ctx;
	int (*ready)(void *ctx, pid_t target);
	int (*begin)(void *ctx);
	void (*end)(void *ctx);
};

/*
 * One bracketed batch of req's workload in a child process; *ops: the ops it completed (a
 * service's requests). Returns 0, -EINTR when a stop was requested, or -errno (a failure of
 * the workload said).
 */
int tb_child_bracketed(const struct tb_measure_req *req, uint64_t timeout_ns,
		       const struct tb_child_bracket *b, uint64_t *ops);

/*
 * Run one sample of job into cell: a new sample is appended (failed until it completes, or
 * abandoned when a stop request cut it short), the tracer's figures recorded, the latency histogram of a measured sample merged into *hist
 * (allocated on first use; the caller frees it). A failure is recorded in cell->error (the
 * first one only) and, when the cell cannot work again (setup or start failed), *dead is set.
 * Returns 0 (also when the sample failed), -EINTR when a stop was requested, or -ENOMEM.
 */
int tb_child_sample(const struct tb_measure_job *job, struct tb_cell *cell, struct tb_hist **hist,
		    bool *dead);

/*
 * Tear down a tracer held across a cell's samples (tb_measure_job.held), if one is set up, and
 * add the time it took to the teardown_s of the cell's last sample, so that the run's
 * recorded setup and teardown times stay complete. Idempotent.
 */
void tb_child_release(struct tb_tracer *held, struct tb_cell *cell);

/* The gate's poll near a batch's expected end (child.c says why). */
#define TB_GATE_POLL_NEAR_NS 500000ull

/*
 * How long the parent sleeps el ns into a wait at the gate, its doubling period at poll, the
 * batch expected to end at expect_ns (0: not known): poll, shortened to wake at the expected
 * end's window (a sixteenth of it and a millisecond either side), TB_GATE_POLL_NEAR_NS within
 * the window.
 */
uint64_t tb_child_gate_sleep_ns(uint64_t el, uint64_t poll, uint64_t expect_ns);
/*
 * While a batch is timed the parent's waiting thread stays off the workload's CPUs: the
 * calling thread's affinity without cpus[0..ncpus), its own mask saved into *old. Returns true
 * when it moved, false (nothing changed) when it has no other CPU to go to or no cpus were
 * given; tb_child_step_back(moved, old) restores it.
 */
bool tb_child_step_aside(const int *cpus, size_t ncpus, cpu_set_t *old);
void tb_child_step_back(bool moved, const cpu_set_t *old);

#endif /* TB_CHILD_H */
