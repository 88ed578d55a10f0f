/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The explain profiler: cpu-clock sampling of one workload process with kernel and user call
 * chains (libperf, PERF_SAMPLE_CALLCHAIN), on the workload's CPUs, for one window (a sample's
 * tracer start .. stop). CPU-wide events on those CPUs, whose timer runs whatever task is on
 * the CPU (a per-task event's restarts at every context switch, which in a VM costs several
 * microseconds of timer programming and slowed a pipe ping-pong 15-fold here); samples of the
 * workload's tree are kept: its threads and the processes it has forked when the profiler
 * opens, and those they create later (FORK records). Other tasks' samples and idle are counted.
 * A fixed period (not a frequency), so that samples x period is CPU time.
 *
 *	tb_profile_open(&opts, &p, why, len);   untimed: the events, ring buffers, process table
 *	tb_profile_start(p);                     enable, reader thread
 *	... the workload's timed batch ...
 *	tb_profile_stop(p);                      disable, drain
 *	tb_profile_fold(p, &ksyms, usyms, &fold, &stats);   symbolised stacks, raw sample counts
 *	tb_profile_close(p);
 *
 * Stacks are folded root first: the process's name (comm), then the user frames from the
 * outermost caller, then the kernel frames (TB_FOLD_KERNEL marked); a chain cut at
 * kernel.perf_event_max_stack gets TB_FOLD_TRUNCATED under the process name. User chains are
 * walked by frame pointers (the kernel's only user unwinder without copying stacks): tracebench
 * is built with them; a library built without them loses its callers' frames, not the sample.
 *
 * Limits are said, not hidden: when the kernel refuses CPU-wide events (perf_event_paranoid
 * above 0 without CAP_PERFMON) the profile falls back to per-task events (inherited), and when
 * it refuses kernel samples (above 1) to user space only; stats.per_task and stats.user_only
 * say so and why. Lost and throttled samples and truncated chains are counted.
 */
#ifndef TB_EXPLAIN_PROFILE_H
#define TB_EXPLAIN_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "explain/fold.h"
#include "explain/symbols.h"

#define TB_PROFILE_DEFAULT_HZ 4000 /* cpu-clock samples per second of CPU time */

struct tb_profile_opts {
	pid_t pid;	    /* the workload process (root of the profiled tree) */
	const int *cpus;    /* the workload's CPUs */
	size_t ncpus;	    /* 0: every online CPU */
	uint64_t period_ns; /* cpu-clock sample period */
	int reader_cpu;	    /* CPU for the reader thread, -1: any */
	bool user_only;	    /* ask for user space only (else kernel and user, falling back) */
};

/* What one or more windows saw. */
struct tb_profile_stats {
	uint64_t samples;	 /* PERF_RECORD_SAMPLE of the profiled processes */
	uint64_t kernel_samples; /* of those, taken in kernel mode */
	uint64_t lost;		 /* samples the kernel dropped (ring buffer full) */
	uint64_t throttled;	 /* PERF_RECORD_THROTTLE: the kernel slowed sampling */
	uint64_t truncated;	 /* chains cut at max_stack */
	unsigned int max_stack;	 /* kernel.perf_event_max_stack when the profile opened */
	uint64_t other_samples;	 /* CPU-wide: of other tasks on the workload's CPUs (not kept) */
	uint64_t idle_samples;	 /* CPU-wide: of the idle task (the workload waited, or settled) */
	bool user_only;		 /* kernel samples were refused (or not asked for) */
	char user_only_why[200]; /* why, when refused */
	bool per_task;		 /* CPU-wide events were refused: per-task events */
	char per_task_why[200];
};

struct tb_profile;

/*
 * Open a profile of opts->pid's process tree: disabled events, ring buffers and the tree's
 * names and mappings. Returns 0 and *out, or -errno with the reason in why (permission, with
 * kernel.perf_event_paranoid; no such process; the event refused).
 */
int tb_profile_open(const struct tb_profile_opts *opts, struct tb_profile **out, char *why,
		    size_t len);
/* Enable sampling (and start the reader thread). Returns 0 or -errno (said). */
int tb_profile_start(struct tb_profile *p);
/* Disable sampling and read what is left. Returns 0 (idempotent). */
int tb_profile_stop(struct tb_profile *p);
/*
 * Add every stack of the window, symbolised (k for the kernel, u for user files), to f with
 * its raw sample count, and the window's figures to st (added to what st holds). Returns 0 or
 * -ENOMEM.
 */
int tb_profile_fold(struct tb_profile *p, const struct tb_ksyms *k, struct tb_usyms *u,
		    struct tb_fold *f, struct tb_profile_stats *st);
/* Close everything (stopping first when needed). NULL: no-op. */
void tb_profile_close(struct tb_profile *p);

/*
 * Can this process profile with kernel call chains here? Returns 0, or -errno with the limit in
 * why (perf events refused, kernel samples refused by perf_event_paranoid).
 */
int tb_profile_probe(char *why, size_t len);

#endif /* TB_EXPLAIN_PROFILE_H */
