/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload plugin contract: an ops table per workload type (workloads/<name>.c, registered
 * by one line in workloads/registry.h) and the instance the harness hands to its callbacks.
 * doc/architecture.md describes the plugin shape.
 */
#ifndef TB_WORKLOAD_H
#define TB_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/events.h"
#include "core/options.h"
#include "core/service.h"

struct tb_workload_ops;

/* One workload instance, as a workload plugin sees it. The harness owns every field but priv. */
struct tb_workload {
	const struct tb_workload_ops *ops;
	const char *name;    /* scenario section name, for messages */
	void *cfg;	     /* ops->cfg_size bytes, filled from ops->opts */
	void *priv;	     /* the workload's own state: set in setup, freed in teardown */
	const char *tmpdir;  /* scratch directory that exists and is removed by the harness */
	int cpu;	     /* CPU this thread is pinned to, or -1 */
	unsigned int thread; /* 0..threads-1 when the harness runs several instances */
	/* Set by one-shot workloads (command) from run_batch: */
	bool has_metric; /* metric holds a value taken from the program's output */
	double metric;	 /* e.g. ops/s reported by the program itself */
	int exit_status; /* wait status of the program's last run */
	/* Set by one-shot workloads that count their own ops (services: requests completed);
	 * 0: the batch was one op. */
	uint64_t ops_done;
	struct tb_svc_figures svc; /* service workloads' figures (present: false otherwise) */
	/* Set by setup when the tracer must follow another process than the workload's (services:
	 * the server's main pid; its forks are its descendants); 0: the workload process. */
	pid_t target_pid;
	uint64_t duration_ns; /* the sample's duration (the section's `duration`) */
};

enum {
	TB_WL_ONESHOT = 1 << 0,	  /* one op is one run of an external program; never calibrated */
	TB_WL_NOLATENCY = 1 << 1, /* latency mode makes no sense (ops are not individually timed) */
	/* What an op does is not declared but counted: before the rounds the runner counts the
	 * hooked tracepoints in the target's cgroup over one untimed sample (runner/count.c). */
	TB_WL_COUNTED = 1 << 2,
	/* Its own tasks take turns on its CPU (a partner it wakes and waits for): their wait for
	 * that CPU is the workload's, 10-55% of its time, not another task's; contention is then
	 * judged by steal only (runner/contended.h). */
	TB_WL_PARTNER_CPU = 1 << 3,
};

struct tb_workload_ops {
	const char *name; /* type name used in scenarios: "getpid", "pipe-pingpong", ... */
	const char *help; /* one line */
	const struct tb_option *opts;
	size_t cfg_size;
	unsigned int flags;
	/* 0 when usable on this machine; else -errno with the reason in why. NULL: always. */
	int (*supported)(char *why, size_t len);
	/*
	 * Check a filled config before anything runs (files exist, sizes sane). Returns 0 or
	 * -EINVAL with "key: reason" in err. NULL: nothing to check.
	 */
	int (*validate)(const void *cfg, char *err, size_t len);
	/* Untimed: create files, threads, sockets. Runs in the process that will run batches. */
	int (*setup)(struct tb_workload *w);
	/* Do n operations. No clock reads, no allocation, no printing. Returns 0 or -errno. */
	int (*run_batch)(struct tb_workload *w, uint64_t n);
	/*
	 * Untimed: after a successful batch's end timestamp (and its usage counters), before the
	 * runner takes the batch's figures (ops_done, metric, svc), in the measuring thread, once
	 * per instance: post-processing such as parsing a client's output. Returns 0 or -errno
	 * (said). NULL: nothing to finish.
	 */
	int (*finish_batch)(struct tb_workload *w);
	/* Undo setup. Called after a failed setup too; must cope with partial state. */
	void (*teardown)(struct tb_workload *w);
	/*
	 * What one op does in kernel terms (core/events.h), for the proof of tracing: every
	 * syscall of the op by name and number, and the scheduler events where they are known,
	 * for the filled config cfg run as ctx says. Fills ev (initialised by the caller) and
	 * returns 0, or -errno. Mandatory: tests/unit/workloads-registry.c checks every table against the
	 * kernel's own counts.
	 */
	int (*events)(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev);
	/*
	 * The wall time (ns) of one sample's batch for a section duration of duration_ns, when the
	 * workload cannot hold that duration (a client that takes whole seconds), for the plan's
	 * estimate. NULL: duration_ns.
	 */
	uint64_t (*batch_ns)(const void *cfg, uint64_t duration_ns);
	/*
	 * The untimed setup and teardown of one sample's workload process (ns) when they are
	 * long (a server's start, its client's warm-up, its stop), for a section duration of
	 * duration_ns, for the plan's estimate. NULL: the plan's fixed process cost covers them.
	 */
	uint64_t (*setup_ns)(const void *cfg, uint64_t duration_ns);
};

/* The registry (workloads/registry.c, from workloads/registry.h): NULL-terminated, and lookup by
 * type name. */
extern const struct tb_workload_ops *const tb_workloads[];
const struct tb_workload_ops *tb_workload_find(const char *name);

/*
 * Refuse malformed ops tables, as fio checks its option tables at start-up: each table of the
 * NULL-terminated list (normally tb_workloads) needs a name no other table has, help,
 * run_batch, events, teardown when it has setup, and a well-formed option table (tb_opts_check). Each
 * defect is logged, naming the table. Returns 0 or -EINVAL.
 */
int tb_workload_ops_check(const struct tb_workload_ops *const *list);

#endif /* TB_WORKLOAD_H */
