/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service runner the service workloads share (service.c; nginx.c, redis.c, postgres.c;
 * METHODOLOGY.md "Services"). Each sample is a fresh workload process (runner/child.c), so its
 * setup starts a fresh server: its own directory under the scratch directory (config, data,
 * log), a free loopback port, its own cgroup (host/cgroup.h: accounted, killed as a whole,
 * removed by `tracebench cleanup` when its owner died), pinned to the workload's CPU; it waits
 * until the server answers and warms it with a short client run, whose rate sizes the sample's
 * requests. The timed batch is one client run of that many requests (wrk: of the sample's
 * duration in whole seconds), in a cgroup of its own, pinned to another CPU; the untimed
 * finish_batch after it parses its output (service-parse.h) into the sample's requests (its
 * ops) and figures. Teardown kills both cgroups.
 */
#ifndef TB_WL_SERVICE_H
#define TB_WL_SERVICE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/proc.h"
#include "host/cgroup.h"
#include "workloads/service-parse.h"
#include "workloads/workload.h"

/* The options every service workload has, first in its table (struct tb_wl_svc_cfg first in
 * its config). */
struct tb_wl_svc_cfg {
	int64_t connections;	/* the client's concurrent connections */
	uint64_t client_warmup; /* ns of client load in setup, untimed */
	uint64_t ready_timeout; /* ns the server has to answer */
	int decides;		/* TB_WL_SVC_DECIDES_* */
};

enum {
	TB_WL_SVC_DECIDES_AUTO,
	TB_WL_SVC_DECIDES_THROUGHPUT,
	TB_WL_SVC_DECIDES_P50,
	TB_WL_SVC_DECIDES_P99
};
extern const char *const tb_wl_svc_decides[]; /* "auto", "throughput", "p50", "p99" */

/* clang-format off */
#define TB_WL_SVC_OPTS(type, conns)                                                              \
	{"connections", TB_OPT_INT, offsetof(type, svc.connections), conns,                      \
	 "the client's concurrent connections", 1, 10000},                                        \
	{"client-warmup", TB_OPT_DURATION, offsetof(type, svc.client_warmup), "300ms",             \
	 "client load on the fresh server before the timed run (untimed; at most the sample's "   \
	 "duration), whose rate sizes the sample's requests; 0: only the 2000 requests that "     \
	 "measure the rate", 0, 600e9},                                                            \
	{"ready-timeout", TB_OPT_DURATION, offsetof(type, svc.ready_timeout), "20s",               \
	 "how long the server has to start answering", 1e6, 600e9},                               \
	{"decides", TB_OPT_CHOICE, offsetof(type, svc.decides), "auto",                            \
	 "the metric whose verdict is the cell's: throughput, p50 or p99; auto: throughput in a "  \
	 "closed loop, p99 in an open loop (a fixed rate)", 0, 0, tb_wl_svc_decides}
/* clang-format on */

/* A client's output parser (service-parse.h). */
typedef int (*tb_wl_svc_parse_fn)(const char *text, struct tb_wl_svc_figs *f, char *err,
				  size_t len);

/* One service instance of a sample. */
struct tb_wl_svc {
	struct tb_cgroup cg, client_cg;
	struct tb_proc server;
	bool running;
	int port;
	int server_cpu, client_cpu; /* -1: not pinned */
	char dir[PATH_MAX];	    /* <tmpdir>/<tag>-<pid>: config, data, logs */
	char log[PATH_MAX];	    /* the server's stdout+stderr */
	char out[PATH_MAX];	    /* the client's */
	/* Kept by tb_wl_svc_measure for tb_wl_svc_finish: */
	double cpu0; /* the server cgroup's CPU time and context switches at the mark */
	int64_t sw0;
	bool measured;	       /* a client run awaits its finish */
	uint64_t t_init, t_up; /* when setup began, when the server answered (said by -v) */
	bool open;
	tb_wl_svc_parse_fn parse, parse_log;
	char log_glob[PATH_MAX]; /* "": none */
};

/*
 * 0 when every program of progs (NULL-terminated; a name on PATH or an absolute path) can run
 * here; else -ENOENT with "needs PROG: apt-get install PKG" in why.
 */
int tb_wl_svc_supported(const char *const *progs, const char *pkg, char *why, size_t len);
/* s initialised for w: its directory made, its cgroups, its CPUs and a free loopback port
 * (bound and released: a port in use is never chosen). Returns 0 or -errno (said). */
int tb_wl_svc_init(struct tb_wl_svc *s, struct tb_workload *w, const char *tag);
/* A path in s's directory into buf; -ENAMETOOLONG (said). */
int tb_wl_svc_path(const struct tb_wl_svc *s, const char *name, char *buf, size_t len);
/*
 * Start the server argv in s's cgroup on its CPU and wait until it answers: ready_argv (NULL:
 * a TCP connect to the port) exits 0. A server that exits, or does not answer within the
 * timeout, fails with the last lines of its log. Returns 0 or -errno.
 */
int tb_wl_svc_start(struct tb_wl_svc *s, struct tb_workload *w, char *const *argv,
		    char *const *ready_argv);
/*
 * Run the client argv to completion (in its cgroup, on the client CPU, within timeout_ns; 0:
 * no limit but the harness's sample timeout) and
 * parse its output with parse (NULL: not parsed). A client that fails, times out or prints what parse refuses fails with its
 * message and last output. Fills f. Returns 0 or -errno.
 */
int tb_wl_svc_client(struct tb_wl_svc *s, struct tb_workload *w, char *const *argv,
		     uint64_t timeout_ns, tb_wl_svc_parse_fn parse, struct tb_wl_svc_figs *f);
/*
 * The baseline of the server cgroup's CPU time and context switches, taken untimed at the end of
 * setup (after the warm-up): tb_wl_svc_finish takes the figures over the span from it, in which
 * the server is idle but for the client run.
 */
void tb_wl_svc_mark(struct tb_wl_svc *s);

/*
 * The timed part of a sample: the client run only. Its output is kept for tb_wl_svc_finish,
 * with parse, log (NULL: none; a glob matching the one per-request log the client writes,
 * parsed by parse_log) and open (a fixed rate: the latency then decides under auto). Returns 0
 * or -errno.
 */
int tb_wl_svc_measure(struct tb_wl_svc *s, struct tb_workload *w, char *const *argv,
		      tb_wl_svc_parse_fn parse, const char *log, tb_wl_svc_parse_fn parse_log,
		      bool open);

/*
 * The untimed finish of that batch (a service's finish_batch): the server's cgroup and /proc
 * read, the client's output and log parsed, into w->svc and w->ops_done (its completed
 * requests); the mark moved to now. Returns 0 or -errno (said).
 */
int tb_wl_svc_finish(struct tb_wl_svc *s, struct tb_workload *w);

/* Kill everything in both cgroups and remove them. Idempotent; s may be half initialised. */
void tb_wl_svc_stop(struct tb_wl_svc *s);
/*
 * The fewest requests a sample's client runs, and the warm-up's first run: by nearest rank the
 * p99 of 2000 latencies is the 1980th, with 20 beyond it (the p99.9 has 2 beyond it: a rough
 * figure below 10,000 requests). METHODOLOGY.md "Services".
 */
#define TB_WL_SVC_MIN_REQUESTS 2000

/*
 * Every service workload's flags: one op is a request of the client's run (oneshot, no
 * per-op latency), what a request does is counted, and the server inherits the workload's CPU,
 * where the workload process waits parked: its wait for that CPU is the server's turn (3-4% of
 * every PostgreSQL sample, in none cells too), not another task's (TB_WL_PARTNER_CPU).
 */
#define TB_WL_SVC_FLAGS (TB_WL_ONESHOT | TB_WL_NOLATENCY | TB_WL_COUNTED | TB_WL_PARTNER_CPU)
/* The fastest rate a warm-up may report (requests/s): above it, the client's output is wrong. */
#define TB_WL_SVC_MAX_RPS 1e8
/*
 * The requests of a sample of duration_ns at rps requests per second (the warm-up's rate), at
 * least TB_WL_SVC_MIN_REQUESTS; 0 when rps is not a rate (not finite, not above 0, or above
 * TB_WL_SVC_MAX_RPS).
 */
uint64_t tb_wl_svc_requests(double rps, uint64_t duration_ns);

/* One client run of n requests (a count-sized client: h2load -n, redis-benchmark -n, pgbench -t)
 * with its figures into f; 0 or -errno (said). */
typedef int (*tb_wl_svc_run_fn)(struct tb_workload *w, uint64_t n, struct tb_wl_svc_figs *f);
/*
 * The warm-up of a count-sized client (untimed, at the end of setup): run TB_WL_SVC_MIN_REQUESTS
 * requests, then, when the warm-up (tb_wl_svc_warm_ns) is longer than they took, as many more
 * as their rate says fill the rest. The sample's requests from the last run's rate into *n
 * (tb_wl_svc_requests); a rate that is none fails with it said. Returns 0 or -errno.
 */
int tb_wl_svc_warm_up(struct tb_workload *w, tb_wl_svc_run_fn run, uint64_t *n);
/* The warm-up's length: client-warmup, at most the sample's duration (a 200 ms --quick sample
 * is not preceded by a longer untimed run). */
uint64_t tb_wl_svc_warm_ns(const struct tb_wl_svc_cfg *c, uint64_t duration_ns);

/*
 * A sample's setup beside its batch, for the plan's estimate (a service's setup_ns): start_ns
 * for the server to answer (declared by each service, as measured on the development VM), then
 * the warm-up (tb_wl_svc_warm_ns, or when shorter the TB_WL_SVC_MIN_REQUESTS that give the
 * rate, taken as 100 ms), and 30 ms for the client runs' starts and the cgroups' removal.
 */
uint64_t tb_wl_svc_setup_ns(const struct tb_wl_svc_cfg *c, uint64_t duration_ns, uint64_t start_ns);

/* The sample's client duration in whole seconds, at least 1 (pgbench -T, wrk -d take seconds) */
unsigned int tb_wl_svc_seconds(const struct tb_workload *w);
/* duration_ns as a client that takes whole seconds runs it: rounded, at least 1 s, in ns. */
uint64_t tb_wl_svc_whole_seconds_ns(uint64_t duration_ns);

/*
 * What a service's op (a request) does in kernel terms is not known ahead: syscalls and
 * scheduler events unknown here; the runner's counting pass (TB_WL_COUNTED, runner/count.h)
 * counts the hooked tracepoints in the server's cgroup instead.
 */
int tb_wl_svc_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev);

#endif /* TB_WL_SERVICE_H */
