/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Executing one timed workload sample: the harness's timing core.
 *
 * The runner forks a process per sample and, in it:
 *
 *	tb_measure_prepare(&req, &run);   untimed: pin, mlock, setup of every instance, threads
 *	                                 parked (handshake with the parent; tracers attach to
 *	                                 this process)
 *	tb_measure_go(run, &res);         the timed batch; res is flat and can be write()n to a pipe
 *	  or tb_measure_go_gated(...)     the same inside a traced window, without a syscall
 *	tb_measure_finish(run);           untimed: teardown of every instance
 *
 * Threads: instance 0 runs on the calling thread (so a tracer filtering on the process's pid
 * sees the single-threaded case exactly); instances 1..threads-1 run on pthreads created by
 * prepare (their tids: tb_measure_tids). Every instance does req->ops operations per go;
 * elapsed is from the release of the threads to the end of the last one, and
 * ns_per_op = elapsed / ops (per thread). One-shot workloads (TB_WL_ONESHOT) always do 1 op.
 *
 * Throughput mode reads CLOCK_MONOTONIC twice per go, never per op. Latency mode times the
 * first op of every latency_every individually (clock read pair around run_batch(w, 1)), with
 * the median cost of a clock read pair measured at prepare, stated in res.clock_cost_ns and
 * subtracted from every timed op (clamped at 0); the other ops run in batches of
 * latency_every - 1. elapsed_ns then includes the clock reads: compare latency-mode ns/op only
 * with latency-mode ns/op.
 *
 * The traced window (tb_measure_go_gated): the parent starts its tracer only once the process
 * spins (gate SPINNING), releases it (GO), and stops the tracer after the batch (DONE) before
 * it lets the process go on (STOPPED). In between, the process makes no syscall: the clock
 * reads are the vDSO's, the rusage and perf counter reads happen before SPINNING and after
 * STOPPED, and threads wait by spinning. Only threads that share a CPU park in a futex after
 * their batch (a spinner would slow the thread it shares with): tb_measure_window_events says
 * what that costs a tracer's count, at most.
 *
 * Nothing here leaves state behind when the process is killed: files live in req->tmpdir
 * (the runner removes it), workload children die with it (PR_SET_PDEATHSIG).
 */
#ifndef TB_SAMPLE_H
#define TB_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/events.h"
#include "core/hist.h"
#include "core/tb.h"
#include "workloads/workload.h"

#define TB_SAMPLE_MAX_THREADS 1024

struct tb_measure_req {
	const struct tb_workload_ops *wl;
	const char *name;     /* scenario section, for messages */
	void *cfg;	      /* filled and validated config of wl (shared by every thread) */
	const char *tmpdir;   /* existing scratch directory; the caller removes it */
	unsigned int threads; /* instances run in parallel; 0 means 1 */
	const int *cpus;      /* instance i is pinned to cpus[i % ncpus] (sched_setaffinity) */
	size_t ncpus;	      /* 0: no pinning */
	uint64_t ops;	      /* operations per thread per go (one-shot workloads: 1) */
	bool latency;	      /* time 1 op in latency_every individually into res.hist */
	unsigned int latency_every; /* 0 or 1: every op */
	bool mlock;		    /* mlockall(MCL_CURRENT | MCL_FUTURE) for the run */
	/* Software counters task-clock, context-switches, page-faults. They cost something on
	 * every context switch and fork (they are inherited): leave them off where that matters. */
	bool perf_counts;
	uint64_t duration_ns; /* the section's sample duration, for one-shot workloads that run a
				 client for that long (services) */
};

/* One sample's figures. Flat (no pointers): the sample process write()s it to its parent. */
struct tb_measure_res {
	int error;	  /* 0, or the negative errno that failed the sample */
	char errmsg[256]; /* why, when error != 0 */
	unsigned int threads;
	uint64_t ops;		   /* per thread */
	uint64_t elapsed_ns;	   /* first release to last thread done */
	struct tb_svc_figures svc; /* a service workload's figures (core/service.h) */
	double ns_per_op;	   /* elapsed_ns / ops */
	/* getrusage deltas over the batch: RUSAGE_SELF (every thread) + RUSAGE_CHILDREN (the
	 * workload's children reaped during the batch: fork-exit, exec, command) */
	double cpu_user_s, cpu_sys_s;
	int64_t nvcsw, nivcsw, minflt, majflt;
	/* libperf software counters over the batch (inherited by threads and children created
	 * after prepare opened them); -1 when not requested or they did not open */
	int64_t perf_task_clock_ns, perf_ctxsw, perf_faults;
	/* one-shot workloads (thread 0's instance after the batch) */
	bool has_metric;
	double metric;
	int exit_status;
	/* thread 0's spin-waits inside the traced window (before GO, after DONE); the cpu
	 * figures above exclude them for one thread */
	uint64_t spin_ns;
	/* latency mode */
	bool latency;
	unsigned int latency_every;
	double clock_cost_ns; /* median cost of a clock read pair, subtracted from each op */
	struct tb_hist hist;  /* per-op times of every thread, ns */
};

struct tb_measure_run;

/*
 * Untimed: check req, pin the calling thread, mlockall, open the perf counters, set up
 * instance 0 on the calling thread and start threads-1 pthreads that each pin themselves, set
 * up their instance and park. Returns 0 and *out (free with tb_measure_finish), or -errno
 * after tb_err() saying what failed (every instance set up so far is torn down).
 */
int tb_measure_prepare(const struct tb_measure_req *req, struct tb_measure_run **out);
/*
 * Run one timed batch of req->ops per thread and fill *res (zeroed first). May be called
 * again on the same run (calibration, warmups). Returns 0, or -errno when a run_batch failed
 * (res->error and res->errmsg say so; the timing fields are still filled) or ops is 0.
 */
int tb_measure_go(struct tb_measure_run *run, struct tb_measure_res *res);
/* Like tb_measure_go with ops per thread instead of req->ops. */
int tb_measure_go_ops(struct tb_measure_run *run, uint64_t ops, struct tb_measure_res *res);

/* States of the gate of a traced window, a word in memory shared with the parent. */
enum { TB_GATE_PARKED, TB_GATE_SPINNING, TB_GATE_GO, TB_GATE_DONE, TB_GATE_STOPPED };
/*
 * tb_measure_go_ops inside a traced window: the counters read, set *gate to SPINNING, spin
 * until the parent sets GO, the batch, DONE, spin until STOPPED, the counters read again.
 * gate NULL: no waits (tb_measure_go_ops). Returns as tb_measure_go.
 */
int tb_measure_go_gated(struct tb_measure_run *run, uint64_t ops, struct tb_measure_res *res,
			_Atomic uint32_t *gate);
/*
 * What the harness itself does inside a traced window of a sample of req, per sample and at
 * most (core/events.h, for model/proof.h): nothing, unless threads share a CPU.
 */
void tb_measure_window_events(const struct tb_measure_req *req, struct tb_op_events *ev);
/*
 * Untimed: every instance is torn down on the thread that set it up (threads then exit and are
 * joined), then affinity is restored, munlockall, free. NULL: no-op.
 */
void tb_measure_finish(struct tb_measure_run *run);
/* The process a tracer must follow for run, set by instance 0's setup (services: the server's
 * main pid); 0: the calling (workload) process. */
pid_t tb_measure_target(const struct tb_measure_run *run);
/* Kernel thread ids of the instances (tids[0] is the caller's); returns how many (<= max). */
size_t tb_measure_tids(const struct tb_measure_run *run, pid_t *tids, size_t max);

/*
 * In-process calibration (prepare, batches, finish): double the batch from 1 op until a batch
 * lasts >= max(target_ns / 10, 2 ms), repeat that batch once and take the lower ns per op of
 * the two (a preempted batch would underestimate ops), then *ops = target_ns / (ns per op),
 * at least 1.
 * One-shot workloads: *ops = 1 without running anything. req->ops is ignored.
 * Returns 0 or -errno.
 */
int tb_measure_calibrate(const struct tb_measure_req *req, uint64_t target_ns, uint64_t *ops);

/*
 * Send / receive a result over a pipe (the sample process to the runner), restarting on EINTR
 * and short transfers. Returns 0, -EPIPE when the other end closed before a whole result
 * (the sample process died), -errno else.
 */
int tb_measure_res_write(int fd, const struct tb_measure_res *res);
int tb_measure_res_read(int fd, struct tb_measure_res *res);

/* Median cost of a CLOCK_MONOTONIC read pair as the sample code reads it, in ns. */
double tb_measure_clock_cost(void);

#endif /* TB_SAMPLE_H */
