/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared tracefs helpers (on libtracefs): mounting, tracebench's private instances, event list
 * expansion, ring-buffer statistics, a raw stream consumer, and the tracing-state snapshot and
 * foreign-instrumentation check used around every run.
 */
#ifndef TB_TRACEFS_H
#define TB_TRACEFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <tracefs.h>

#include "core/tb.h"
#include "tracers/tracer.h"

struct json_t;

#define TB_TRACEFS_MOUNT   "/sys/kernel/tracing"
#define TB_INSTANCE_PREFIX "tracebench-"

/*
 * Make sure tracefs is mounted; mount it at /sys/kernel/tracing when it is not (and say so on
 * stderr). Returns 0 or -errno with the reason logged.
 */
int tb_tracefs_ensure(void);

/* "tracebench-<owner>-<section with anything but [A-Za-z0-9_.-] replaced by '_'>". */
void tb_tracefs_instance_name(char *buf, size_t len, pid_t owner, const char *section);
/* Owner pid of a tracebench instance name, or 0 when name is not one of ours. */
pid_t tb_tracefs_instance_owner(const char *name);

/*
 * Create this process's private instance for section (recorded in the armed record first, so
 * a crash right after leaves something cleanup can find). -EEXIST when it exists already.
 * Returns 0 with *out set (free with tb_tracefs_instance_remove), or -errno (logged).
 */
int tb_tracefs_instance_new(const char *section, struct tracefs_instance **out);
/*
 * Switch the instance off (tracing_on 0, every event disabled, tracer nop), remove it, free it
 * and drop it from the armed record. Idempotent: *inst is NULL afterwards; NULL is a no-op.
 * Returns 0 or -errno (the instance could not be removed; logged).
 */
int tb_tracefs_instance_remove(struct tracefs_instance **inst);
/* The same for an instance known by name only (cleanup). 0 when it is gone (or never was). */
int tb_tracefs_instance_destroy_name(const char *name);

/*
 * Expand event specs ("system:event", globs in either part like "syscalls:sys_enter_*",
 * "sched:*") into concrete "system:event" names, sorted and without duplicates. A spec that
 * matches nothing is an error: -ENOENT with "unknown event 'spec'" in err.
 */
int tb_tracefs_events_expand(const struct tb_strlist *specs, struct tb_strlist *out, char *err,
			     size_t errlen);

/*
 * Write the thread ids of pid (every entry of /proc/<pid>/task) to the instance file
 * (set_event_pid or set_ftrace_pid), replacing its content. Returns 0 or -errno (logged).
 */
int tb_tracefs_set_pids(struct tracefs_instance *inst, const char *file, pid_t pid);

/* Sums over every CPU of per_cpu/cpuN/stats. */
struct tb_ftrace_bufstats {
	int64_t entries;	/* events in the buffer, not yet read */
	int64_t overrun;	/* overwritten (overwrite mode) */
	int64_t commit_overrun; /* lost by nested writers on a full page */
	int64_t dropped;	/* refused because the buffer was full (overwrite off) */
	int64_t read;		/* consumed by a reader (trace_pipe_raw) */
	int64_t bytes;		/* bytes in the buffer */
	int ncpus;
};
/* Fill st; also the per-CPU figures as a new JSON array into *percpu when not NULL. */
int tb_ftrace_bufstats_read(struct tracefs_instance *inst, struct tb_ftrace_bufstats *st,
			    struct json_t **percpu);

/*
 * Prepare a fresh instance for a measurement: tracing_on 0, buffer_size_kb = buffer_size / 1024
 * per CPU (when buffer_size > 0), the overwrite option. Returns 0 or -errno (logged).
 */
int tb_ftrace_instance_config(struct tracefs_instance *inst, uint64_t buffer_size, bool overwrite);
/*
 * How an instance's events are consumed: left in the buffer ("discard"), or drained by a
 * reader thread into a file ("stream"). Both ftrace tracers embed one; set stream and overwrite
 * at setup, the rest is owned by the functions below.
 */
struct tb_ftrace_consumer {
	bool stream;	 /* a reader thread drains the buffer into path */
	bool overwrite;	 /* the buffer overwrites its oldest events when full */
	char path[4096]; /* <outdir>/<tracer>.raw, while streaming */
	struct tb_ftrace_stream *reader;
	uint64_t bytes; /* what the reader wrote, after stop */
	double cpu_s;	/* the reader thread's CPU time, after stop */
};

/*
 * Start the reader of a stream consumer (nothing for discard), writing <t->outdir>/<t->name>.raw
 * and pinned to t->consumer_cpu. Returns 0 or -errno, said.
 */
int tb_ftrace_consumer_start(struct tb_ftrace_consumer *c, struct tracefs_instance *inst,
			     const struct tb_tracer *t);
/* Drain what is left and stop the reader; idempotent. Returns 0 or the reader's error. */
int tb_ftrace_consumer_stop(struct tb_ftrace_consumer *c);

/*
 * Fill st from the instance's buffer statistics: events = entries + read (what was recorded
 * and kept, whether a reader consumed it or not), lost = overrun + dropped + commit overrun,
 * mem_bytes = buffer_total_size_kb, cpu_s = the stream reader's CPU (0 without one).
 * A flight recorder (no stream, overwrite on) writes every event and then overwrites the
 * oldest: the tracing cost was paid in full and nobody wanted the old events, so overwritten
 * events count as recorded, not lost. Dropped events (overwrite off) and events a streaming
 * reader did not keep up with are lost: they bias the overhead or the recording.
 * extra (a JSON object, may be NULL) gets the details. Returns 0 or -errno.
 */
int tb_ftrace_collect(struct tracefs_instance *inst, struct tb_tracer_stats *st,
		      struct json_t *extra, const struct tb_ftrace_consumer *cons);

/*
 * A consumer thread draining every CPU's trace_pipe_raw of an instance into one file (pages of
 * the binary ring-buffer format, each preceded by an 8-byte header: u32 cpu, u32 length).
 * start: open the per-CPU files, create the file, start the thread (pinned to cpu when >= 0).
 * stop: tell it to drain what is left and finish, join it. Figures are valid after stop.
 */
struct tb_ftrace_stream;
int tb_ftrace_stream_start(struct tracefs_instance *inst, const char *path, int cpu,
			   struct tb_ftrace_stream **out);
/* Stops and frees; bytes written and the thread's CPU seconds. Idempotent on NULL. */
int tb_ftrace_stream_stop(struct tb_ftrace_stream **s, uint64_t *bytes, double *cpu_s);

/*
 * Compose the text written to set_ftrace_filter from a list of function names or globs
 * (each checked: no whitespace, no empty item, no "!" negation, at most 255 characters).
 * Returns a new string (newline-separated, caller frees) or NULL with the reason in err.
 */
char *tb_ftrace_filter_compose(const struct tb_strlist *funcs, char *err, size_t errlen);

/*
 * Probe the function tracer by trying it in a scratch instance that is removed afterwards.
 * Returns 0 when it works, else -errno with "writing 'function' to current_tracer: <strerror>"
 * (or what else failed) in why. The result is cached for the life of the process.
 */
int tb_ftrace_function_probe(char *why, size_t len);

/* ---- BPF programs (libbpf) ---- */

/* Number of loaded BPF programs (bpf_prog_get_next_id walk), or -errno. */
int tb_bpf_prog_count(void);

/* ---- tracing state ---- */

/*
 * Snapshot of the machine's tracing state as a new JSON object (caller owns):
 *   current_tracer, tracing_on, set_event (array), set_event_pid, set_ftrace_pid (string, or
 *   "error: <reason>" when unreadable), instances (sorted array of names), bpf_progs (array of
 *   {id, type, name}). NULL on failure (logged).
 */
struct json_t *tb_tracing_state_capture(void);
/*
 * Differences between two snapshots as text, one "key: before -> after" (or "instances: +x",
 * "bpf_progs: -12 (tracepoint name)") line each; NULL when equal. Caller frees.
 */
char *tb_tracing_state_diff(const struct json_t *a, const struct json_t *b);
/*
 * The same, restricted: only instances whose names start with instance_prefix (NULL: all),
 * and BPF programs only when with_bpf. For tests on a machine where others trace meanwhile.
 */
char *tb_tracing_state_diff_filtered(const struct json_t *a, const struct json_t *b,
				     const char *instance_prefix, bool with_bpf);

/*
 * Instrumentation not ours that biases a baseline, as a new JSON array of strings (caller
 * owns): top-level events enabled, top-level current_tracer not nop, instances not made by this
 * process, BPF programs of tracing types (tracepoint, raw_tracepoint, kprobe, perf_event,
 * tracing) not registered in our armed record. Empty array when clean; NULL on ENOMEM.
 */
struct json_t *tb_foreign_instrumentation(void);

#endif /* TB_TRACEFS_H */
