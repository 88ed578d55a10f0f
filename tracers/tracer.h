/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer plugin contract: an ops table per tracer type (tracers/<name>.c, registered by one
 * line in tracers/registry.h), the instance the harness hands to its callbacks and what a
 * tracer reports for one window. doc/architecture.md describes the plugin shape.
 */
#ifndef TB_TRACER_H
#define TB_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/options.h"

struct tb_tracer_ops;

/* What a tracer reports for one start..stop window. -1 (or < 0 for doubles) means unknown. */
struct tb_tracer_stats {
	int64_t events;	     /* events recorded (ftrace entries, map counts, samples, ...) */
	int64_t lost;	     /* events lost (overrun + dropped, ring-buffer drops, LOST records) */
	double cpu_s;	     /* the tracer's own CPU time: consumer threads, child processes */
	int64_t mem_bytes;   /* buffers, maps, RSS */
	int64_t bpf_run_cnt; /* BPF programs' run_cnt during the window (bpf_enable_stats) */
	int64_t bpf_run_time_ns; /* BPF programs' run_time_ns during the window */
	void *extra;		 /* optional json_t * object (jansson) of tracer-specific figures;
				    ownership passes to the caller */
};

/* One tracer instance, as a tracer plugin sees it. The harness owns every field but priv. */
struct tb_tracer {
	const struct tb_tracer_ops *ops;
	const char *name; /* scenario section name, for messages and file names */
	void *cfg;
	void *priv;
	pid_t target;	    /* the workload process to filter on (pid-filter = workload), or 0 */
	const char *outdir; /* existing directory for the tracer's own output files */
	int consumer_cpu;   /* CPU for reader threads (not a workload CPU), or -1 */
	uint64_t settle_ns; /* delay the harness waits after start and before stop */
	char error[512];    /* why a callback failed, for the cell's error (tb_tracer_fail); the
			       plugin's, "" when it only returned -errno */
};

/*
 * A callback failed: the reason, in words a user acts on ("the tracer command exited with
 * status 1 before it was ready: <its last output>"), into t->error for the result and logged
 * as "[tracer NAME] reason". The callback then returns its -errno as usual.
 */
void tb_tracer_fail(struct tb_tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

enum {
	TB_TR_BASELINE = 1 << 0, /* the "none" tracer: cells with it are the baseline */
	TB_TR_NOEVENTS = 1 << 1, /* events are not counted by design (cannot prove tracing) */
};

struct tb_tracer_ops {
	const char *name; /* type name: "none", "ftrace-events", "bpf", "perf-sample", ... */
	const char *help;
	const struct tb_option *opts;
	size_t cfg_size;
	unsigned int flags;
	int (*supported)(char *why, size_t len);
	int (*validate)(const void *cfg, char *err, size_t len);
	/* Untimed: create instance, load programs, open fds; nothing live yet. target is set. */
	int (*setup)(struct tb_tracer *t);
	/* Make it live (enable events, attach, start the command and wait for readiness). */
	int (*start)(struct tb_tracer *t);
	/* Stop tracing; consumers drain what is left. */
	int (*stop)(struct tb_tracer *t);
	/* Report the last start..stop window into st (harness pre-fills every field with -1). */
	int (*collect)(struct tb_tracer *t, struct tb_tracer_stats *st);
	/* Remove everything setup made. Idempotent; also runs on error and signal paths. */
	void (*teardown)(struct tb_tracer *t);
};

/* The registry (tracers/registry.c, from tracers/registry.h): NULL-terminated, and lookup by
 * type name. */
extern const struct tb_tracer_ops *const tb_tracers[];
const struct tb_tracer_ops *tb_tracer_find(const char *name);

/*
 * Refuse malformed ops tables, as fio checks its option tables at start-up: each table of the
 * NULL-terminated list (normally tb_tracers) needs a name no other table has, help, all five
 * callbacks (setup to teardown) and a well-formed option table (tb_opts_check). Each defect is
 * logged, naming the table. Returns 0 or -EINVAL.
 */
int tb_tracer_ops_check(const struct tb_tracer_ops *const *list);

#endif /* TB_TRACER_H */
