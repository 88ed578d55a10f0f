/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the ftrace tracers (tracers/ftrace-*.c) share, on host/tracefs.h's private instances:
 * ring-buffer statistics, the configuration of a fresh instance, the consumer (discard, or a
 * stream reader thread), the collect step, the set_ftrace_filter text and the function-tracer
 * probe.
 */
#ifndef TB_FTRACE_COMMON_H
#define TB_FTRACE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>

#include <tracefs.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "tracers/tracer.h"

struct json_t;

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
 * reader thread into a file ("stream"). tb_ftrace_open sets stream and overwrite, the rest is
 * owned by the functions below.
 */
struct tb_ftrace_consumer {
	bool stream;	/* a reader thread drains the buffer into path */
	bool overwrite; /* the buffer overwrites its oldest events when full */
	bool keep;	/* keep-raw: the stream file stays; else counted and deleted at stop */
	/* <outdir>/<tracer>.raw while streaming, for messages and the result */
	char path[PATH_MAX + NAME_MAX + 2];
	const struct tb_dir *dir; /* the tracer's directory the stream file is in (t->dir) */
	char name[NAME_MAX + 1];  /* the stream file's name in dir */
	struct tb_ftrace_stream *reader;
	uint64_t bytes; /* what the reader wrote, after stop */
	double cpu_s;	/* the reader thread's CPU time, after stop */
	uint64_t t0_ns; /* when the reader started */
	double wall_s;	/* how long it read, after stop */
};

/*
 * Start the reader of a stream consumer (nothing for discard), writing <t->name>.raw in t->dir
 * (through the handle) and pinned to t->consumer_cpu. Returns 0 or -errno, said.
 */
int tb_ftrace_consumer_start(struct tb_ftrace_consumer *c, struct tracefs_instance *inst,
			     const struct tb_tracer *t);
/* Drain what is left and stop the reader, then delete the stream file unless keep (its size
 * stays in bytes; deleted through the directory's handle); idempotent. Returns 0 or the
 * reader's error. */
int tb_ftrace_consumer_stop(struct tb_ftrace_consumer *c);

/*
 * A consumer thread draining every CPU's trace_pipe_raw of an instance into one file (pages of
 * the binary ring-buffer format, each preceded by an 8-byte header: u32 cpu, u32 length).
 * start: open the per-CPU files, create name in dir (through the handle, never a link), start
 * the thread (pinned to cpu when >= 0).
 * stop: tell it to drain what is left and finish, join it. Figures are valid after stop.
 */
struct tb_ftrace_stream;
int tb_ftrace_stream_start(struct tracefs_instance *inst, const struct tb_dir *dir,
			   const char *name, int cpu, struct tb_ftrace_stream **out);
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

/* ---- what every ftrace tracer has: its options, its instance, setup, collect, teardown ---- */

enum { TB_FTRACE_PID_WORKLOAD, TB_FTRACE_PID_NONE };
enum { TB_FTRACE_CONSUMER_DISCARD, TB_FTRACE_CONSUMER_STREAM };
extern const char *const tb_ftrace_pid_choices[];      /* "workload", "none" */
extern const char *const tb_ftrace_consumer_choices[]; /* "discard", "stream" */

/* The options every ftrace tracer has, embedded in its cfg struct. */
struct tb_ftrace_cfg {
	int pid_filter;	      /* TB_FTRACE_PID_*; its option's help names the tracer's pid file */
	uint64_t buffer_size; /* per CPU; 0: auto (tb_ftrace_auto_size) */
	bool overwrite;
	int consumer;  /* TB_FTRACE_CONSUMER_* */
	bool keep_raw; /* consumer = stream: keep <outdir>/<name>.raw (else counted, deleted) */
};

/* The pid-filter entry of an option table of an ftrace tracer using set_event_pid. */
#define TB_FTRACE_EVENT_PID_OPT(type, member)                                                            \
	{                                                                                                \
		"pid-filter", TB_OPT_CHOICE, offsetof(type, member.pid_filter), "workload",              \
			"workload: only the workload's threads (set_event_pid + event-fork); none: all " \
			"tasks",                                                                         \
			0, 0, tb_ftrace_pid_choices                                                      \
	}

/* Whose events an ftrace tracer records: the workload's tree (pid filter + fork) or all. */
int tb_ftrace_scope(const struct tb_ftrace_cfg *c);

/* buffer-size's word for automatic sizing. */
extern const char *const tb_ftrace_size_words[]; /* "auto" */

/*
 * buffer-size = auto: the bytes per CPU that hold a whole sample's events when they must not
 * be overwritten (overwrite off, or a stream consumer that may fall behind): ops per sample x
 * the threads on a CPU x the expected events per op of each hooked event x its size on the
 * ring buffer (from its format), with a margin, and TB_FTRACE_AUTO_MIN at least; a flight
 * recorder (overwrite on, no stream) gets TB_FTRACE_AUTO_MIN. The whole instance is capped at
 * a quarter of MemAvailable (*capped then says so, with what a sample needed in *need). Returns
 * the size per CPU for the workload's CPUs (every CPU when the scope is system-wide or the
 * workload is not pinned).
 */
#define TB_FTRACE_AUTO_MIN (2ull << 20)
/* A stream consumer's bytes for one sample (tracer.h est_write_bytes): what buffer-size = auto
 * sizes a whole sample at, on every CPU that records it; 0 for discard. */
uint64_t tb_ftrace_est_write_bytes(const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
				   bool *kept);
uint64_t tb_ftrace_auto_size(const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
			     uint64_t *need, bool *capped);

/* The buffer-size, overwrite and consumer entries of an option table, for type's member. */
/* (clang-format cannot lay out several initializers in one macro) */
/* clang-format off */
#define TB_FTRACE_BUFFER_OPTS(type, member)						\
	{"buffer-size", TB_OPT_SIZE, offsetof(type, member.buffer_size), "auto",	\
	 "ring buffer size per CPU; auto: a whole sample's events when they must not be "	\
	 "overwritten (overwrite off or consumer = stream), else 2M", 4096, 1ull << 32,	\
	 tb_ftrace_size_words},								\
	{"overwrite", TB_OPT_BOOL, offsetof(type, member.overwrite), "true",		\
	 "overwrite the oldest events when full (else drop new ones)"},			\
	{"consumer", TB_OPT_CHOICE, offsetof(type, member.consumer), "discard",		\
	 "discard: buffer only; stream: a thread drains trace_pipe_raw into a file", 0, 0, \
	 tb_ftrace_consumer_choices},							\
	{"keep-raw", TB_OPT_BOOL, offsetof(type, member.keep_raw), "false",		\
	 "consumer = stream: keep the stream file (else its size is counted and it is "	\
	 "deleted after each sample)"}
/* clang-format on */

/*
 * Declared setup + teardown of one sample (est_cost_ns, tracer.h): an instance made and removed
 * (TB_FTRACE_COST_NS), and with a stream consumer its drain at stop (TB_FTRACE_STREAM_COST_NS).
 * Measured on the reference VM (2 vCPUs, kernel 6.18) from `tracebench run scenarios/quick.ini`:
 * tracer_setup_s + tracer_teardown_s - 2 x settle, medians.
 */
#define TB_FTRACE_COST_NS	 100000000ull
#define TB_FTRACE_STREAM_COST_NS 160000000ull
uint64_t tb_ftrace_est_cost_ns(const struct tb_ftrace_cfg *c);

/*
 * Declared cost of one sample of a reused instance (est_rearm_ns, tracer.h): the rearm and the
 * park, whose pid-list clearing waits for an RCU grace period and whose buffer is drained
 * rather than reset (TB_FTRACE_REARM_COST_NS), plus the stream consumer's drain as above.
 * Measured on the reference VM with `tracebench run scenarios/precision.ini --max-time 20s`
 * (settle 0; load about 3): median tracer_setup_s + tracer_teardown_s of the traced samples,
 * 6.8 + 49.2 and 9.2 + 44.6 ms (5.4 + 59.1 ms with the reset, on a quiet machine).
 */
#define TB_FTRACE_REARM_COST_NS 55000000ull
uint64_t tb_ftrace_est_rearm_ns(const struct tb_ftrace_cfg *c);

/* The private instance of one ftrace tracer and its consumer, embedded in the tracer's priv. */
struct tb_ftrace {
	struct tracefs_instance *inst;
	struct tb_ftrace_consumer cons;
	bool pids; /* the pid file holds a target (tb_ftrace_open, tb_ftrace_rearm) */
	/* The counters as the window starts: a buffer drained at park (tb_ftrace_rearm) keeps its
	 * cumulative read, overrun and dropped counts, so the window's are differences; zero for
	 * a fresh instance and after a reset. */
	struct tb_ftrace_bufstats base;
	uint64_t auto_size; /* buffer-size = auto: what the workload's CPUs got; 0: not auto */
};

/*
 * The setup every ftrace tracer starts with: refuse pid-filter = workload without a workload
 * process, create t's private instance (tb_tracefs_instance_new), configure its buffer and
 * consumer from c, and with pid-filter = workload enable fork_option (event-fork or
 * function-fork, so that threads and children created later are followed) and write the
 * workload's threads to pid_file (set_event_pid or set_ftrace_pid). Returns 0 or -errno, said;
 * on error what was made is in f, for tb_ftrace_close.
 */
int tb_ftrace_open(struct tb_ftrace *f, const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
		   enum tracefs_option_id fork_option, const char *pid_file);

/*
 * Fill st from the instance's buffer statistics: events = entries + read (what was recorded
 * and kept, whether a reader consumed it or not), lost = overrun + dropped + commit overrun,
 * mem_bytes = buffer_total_size_kb, cpu_s = the stream reader's CPU (0 without one).
 * A flight recorder (no stream, overwrite on) writes every event and then overwrites the
 * oldest: the tracing cost was paid in full and nobody wanted the old events, so overwritten
 * events count as recorded, not lost. Dropped events (overwrite off) and events a streaming
 * reader did not keep up with are lost: they bias the overhead or the recording.
 * st->extra gets a new JSON object of the details (the caller owns it), with the tracer's own
 * figure count under count_key; its read, overrun, dropped and commit_overrun are the window's
 * (differences from f->base), its per_cpu array the kernel's counters as read (cumulative since
 * the instance's creation or last reset: a kept instance is drained, not reset). Returns 0, -EINVAL before setup, or -errno.
 */
int tb_ftrace_collect(struct tb_ftrace *f, struct tb_tracer_stats *st, const char *count_key,
		      int64_t count);

/*
 * The rearm every ftrace tracer shares (tracer.h), for an instance switched off. With
 * t->target == 0 it parks the instance: the buffer drained (every CPU's trace_pipe_raw read
 * until empty, which needs no RCU grace period as a reset does; its counters stay and become
 * f->base), a reset only if draining fails, and with pid-filter = workload pid_file emptied
 * and fork_option off, so that an idle instance leaves no sched probes registered (a pid list
 * and fork following hook sched_switch, wakeups, fork and exit for every task). With a target it
 * checks the buffer is empty with the counters park left (nothing written while parked),
 * turns fork_option on and writes the target's
 * threads to pid_file. Everything else setup wrote (buffer size, events' filters) stays. Returns
 * 0 or -errno (said).
 */
int tb_ftrace_rearm(struct tb_ftrace *f, const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
		    enum tracefs_option_id fork_option, const char *pid_file);

/*
 * Start tracing in f's instance: the consumer first (so that nothing is written before a
 * reader exists), then tracing_on. Returns 0 or -errno, said in t's name.
 */
int tb_ftrace_on(struct tb_ftrace *f, const struct tb_tracer *t);

/*
 * Stop tracing in f's instance: tracing_off first so that the counts stop moving, then write
 * value to the instance file that detaches the probes (file NULL: nothing to detach), then stop
 * the consumer. Every step runs; returns the first error (0 or -errno), said in t's name.
 */
int tb_ftrace_off(struct tb_ftrace *f, const struct tb_tracer *t, const char *file,
		  const char *value);

/* Stop the consumer and remove the instance; idempotent (teardown runs on every path). */
void tb_ftrace_close(struct tb_ftrace *f);

/*
 * lost_remedy of ftrace-events and ftrace-function: a ring buffer filled. The buffer-size a
 * sample needs (per_sample events of the record's bytes_per_event), what buffer-size = auto
 * gave (buffer_size_auto), the stream reader's pace, or overwrite.
 */
void tb_ftrace_lost_remedy(const struct tb_tracer_record *rec, int64_t per_sample, char *buf,
			   size_t len);
/* buffer_key of ftrace-events and ftrace-function: the per-CPU ring buffer, buffer-size. */
const char *tb_ftrace_buffer_key(const void *cfg);

#endif /* TB_FTRACE_COMMON_H */
