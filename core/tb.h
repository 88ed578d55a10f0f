/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebench: the shared vocabulary of the harness and its plugins.
 *
 * Conventions: exported names carry the tb_ prefix; functions return 0 or a negative errno;
 * a function that fails says what failed and why through tb_err() before returning.
 */
#ifndef TB_H
#define TB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define TB_NAME	   "tracebench"
#define TB_VERSION "0.1.0"

/* Exit codes (the CLI contract in ARCHITECTURE.md). */
enum {
	TB_EXIT_OK = 0,		 /* success, gate passed */
	TB_EXIT_FAIL = 1,	 /* gate failed, measurement failed */
	TB_EXIT_USAGE = 2,	 /* bad usage or bad input (scenario, result file, option) */
	TB_EXIT_UNAVAILABLE = 3, /* not possible here: privileges, tracefs, BPF, lock held */
};

#define TB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- log.c ------------------------------------------------------------------------------- */

enum tb_log_level {
	TB_LOG_SILENT = -1, /* nothing at all (fuzz targets, tests of error paths) */
	TB_LOG_ERROR,
	TB_LOG_WARN,
	TB_LOG_INFO,
	TB_LOG_DEBUG,
};

/* Messages go to stderr as "tracebench: <text>" (warnings "tracebench: warning: <text>"). */
void tb_log_set_level(enum tb_log_level level);
enum tb_log_level tb_log_get_level(void);
void tb_log(enum tb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tb_vlog(enum tb_log_level level, const char *fmt, va_list ap);
#define tb_err(...)   tb_log(TB_LOG_ERROR, __VA_ARGS__)
#define tb_warn(...)  tb_log(TB_LOG_WARN, __VA_ARGS__)
#define tb_info(...)  tb_log(TB_LOG_INFO, __VA_ARGS__)
#define tb_debug(...) tb_log(TB_LOG_DEBUG, __VA_ARGS__)

/* ---- options.c: one declarative table per plugin drives scenario parsing and `list` ------ */

enum tb_opt_type {
	TB_OPT_STRING,	 /* char *, strdup'd; freed by tb_opts_free() */
	TB_OPT_BOOL,	 /* bool: true/false, yes/no, on/off, 1/0 */
	TB_OPT_INT,	 /* int64_t, checked against [min, max] when max > min */
	TB_OPT_SIZE,	 /* uint64_t bytes: 4096, 4K, 64k, 1M, 2G (powers of 1024) */
	TB_OPT_DURATION, /* uint64_t nanoseconds: 500ns, 5us, 10ms, 2s, 1m; a bare number is seconds
			  */
	TB_OPT_DOUBLE,	 /* double, checked against [min, max] when max > min */
	TB_OPT_CHOICE,	 /* int: index of the value in choices[] */
	TB_OPT_LIST, /* struct tb_strlist: comma-separated, each item trimmed, empty items refused
		      */
	TB_OPT_ARGV, /* struct tb_strlist: shell-like words (quotes, backslash), no expansion */
	TB_OPT_PERCENT, /* double fraction: "1%" -> 0.01, "0.5%" -> 0.005; a bare number is a
			   fraction */
};

struct tb_strlist {
	char **v;
	size_t n;
};

struct tb_option {
	const char *name; /* key in the scenario section */
	enum tb_opt_type type;
	size_t offset;	  /* offsetof(cfg struct, field) */
	const char *def;  /* default as text (parsed like a scenario value); NULL: zero */
	const char *help; /* one line for `tracebench list` */
	double min, max;  /* range for numeric types, in the type's unit; max <= min: none */
	const char *const *choices; /* NULL-terminated, for TB_OPT_CHOICE */
};

#define TB_OPT_END           \
	{                    \
		.name = NULL \
	}

int tb_parse_size(const char *s, uint64_t *bytes);
int tb_parse_duration(const char *s, uint64_t *ns);
int tb_parse_bool(const char *s, bool *out);
int tb_parse_int(const char *s, int64_t *out);
int tb_parse_double(const char *s, double *out);
int tb_parse_percent(const char *s, double *fraction);
/* Split s into words like a POSIX shell would, without any expansion. */
int tb_split_argv(const char *s, struct tb_strlist *out);
int tb_split_list(const char *s, struct tb_strlist *out);
void tb_strlist_free(struct tb_strlist *l);
/* Join a list with sep into a new string (caller frees); NULL on ENOMEM. */
char *tb_strlist_join(const struct tb_strlist *l, const char *sep);

/* Fill cfg with every option's default. Returns 0 or -EINVAL (a broken default is a bug). */
int tb_opts_defaults(const struct tb_option *opts, void *cfg);
/*
 * Set option key from text val. Returns 0, -ENOENT for an unknown key, -EINVAL for a bad value;
 * on error err holds a message without location ("bad size 'x' for key 'size': ...").
 */
int tb_opts_set(const struct tb_option *opts, void *cfg, const char *key, const char *val,
		char *err, size_t errlen);
const struct tb_option *tb_opts_find(const struct tb_option *opts, const char *key);
/* Free what the options own (strings, lists) and zero those fields. */
void tb_opts_free(const struct tb_option *opts, void *cfg);
/* "  name=<type> (default: x)  help" lines, for `tracebench list`. */
void tb_opts_print(FILE *f, const struct tb_option *opts, const char *indent);
/* Every option's current value as a new JSON object (jansson json_t *), NULL on ENOMEM. */
struct json_t;
struct json_t *tb_opts_to_json(const struct tb_option *opts, const void *cfg);

/* ---- workloads ---------------------------------------------------------------------------- */

struct tb_workload;

/* One workload instance, as a workload plugin sees it. The harness owns every field but priv. */
struct tb_wl {
	const struct tb_workload *ops;
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
};

enum {
	TB_WL_ONESHOT = 1 << 0,	  /* one op is one run of an external program; never calibrated */
	TB_WL_NOLATENCY = 1 << 1, /* latency mode makes no sense (ops are not individually timed) */
};

struct tb_workload {
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
	int (*setup)(struct tb_wl *w);
	/* Do n operations. No clock reads, no allocation, no printing. Returns 0 or -errno. */
	int (*run_batch)(struct tb_wl *w, uint64_t n);
	/* Undo setup. Called after a failed setup too; must cope with partial state. */
	void (*teardown)(struct tb_wl *w);
};

/* workloads/list.h registry: NULL-terminated array, and lookup by type name. */
extern const struct tb_workload *const tb_workloads[];
const struct tb_workload *tb_workload_find(const char *name);

/* ---- tracers ------------------------------------------------------------------------------ */

struct tb_tracer;

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
struct tb_tr {
	const struct tb_tracer *ops;
	const char *name; /* scenario section name, for messages and file names */
	void *cfg;
	void *priv;
	pid_t target;	    /* the workload process to filter on (pid-filter = workload), or 0 */
	const char *outdir; /* existing directory for the tracer's own output files */
	int consumer_cpu;   /* CPU for reader threads (not a workload CPU), or -1 */
	uint64_t settle_ns; /* delay the harness waits after start and before stop */
};

enum {
	TB_TR_BASELINE = 1 << 0, /* the "none" tracer: cells with it are the baseline */
	TB_TR_NOEVENTS = 1 << 1, /* events are not counted by design (cannot prove tracing) */
};

struct tb_tracer {
	const char *name; /* type name: "none", "ftrace-events", "bpf", "perf-sample", ... */
	const char *help;
	const struct tb_option *opts;
	size_t cfg_size;
	unsigned int flags;
	int (*supported)(char *why, size_t len);
	int (*validate)(const void *cfg, char *err, size_t len);
	/* Untimed: create instance, load programs, open fds; nothing live yet. target is set. */
	int (*setup)(struct tb_tr *t);
	/* Make it live (enable events, attach, start the command and wait for readiness). */
	int (*start)(struct tb_tr *t);
	/* Stop tracing; consumers drain what is left. */
	int (*stop)(struct tb_tr *t);
	/* Report the last start..stop window into st (harness pre-fills every field with -1). */
	int (*collect)(struct tb_tr *t, struct tb_tracer_stats *st);
	/* Remove everything setup made. Idempotent; also runs on error and signal paths. */
	void (*teardown)(struct tb_tr *t);
};

extern const struct tb_tracer *const tb_tracers[];
const struct tb_tracer *tb_tracer_find(const char *name);

/* ---- small utilities (util.c) -------------------------------------------------------------- */

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tb_now_ns(void);
/* Sleep ns nanoseconds (restarts after signals unless tb_stop_requested()). */
void tb_sleep_ns(uint64_t ns);
/* Read a whole small file into a new NUL-terminated buffer (trailing newline kept). */
int tb_read_file(const char *path, char **out, size_t *len);
/* Read the first line of a file, without newline, into buf. */
int tb_read_line(const char *path, char *buf, size_t len);
/* Write s to path (no O_CREAT/O_TRUNC games: for sysfs/procfs/tracefs files). */
int tb_write_file(const char *path, const char *s);
/* mkdir -p with mode; returns 0 when it exists already. */
int tb_mkdir_p(const char *path, mode_t mode);
/* rm -rf of a directory tree we created (does not follow symlinks). */
int tb_rm_rf(const char *path);
/* Write data to path atomically: path.tmp, fsync, rename, fsync of the directory. */
int tb_write_atomic(const char *path, const void *data, size_t len, mode_t mode);
/* UTC time as 2026-11-29T10:44:16Z into buf. */
void tb_utc_iso(char *buf, size_t len, time_t t);
/* Write at most n bytes of s (NUL stops early) escaped for HTML and XML text and attribute
 * values: & < > " ' as entities, control characters other than tab and newlines as '?'. */
void tb_fput_markup(FILE *f, const char *s, size_t n);
/* Set by the signal handler of `run`; long loops poll it. */
bool tb_stop_requested(void);
void tb_request_stop(void);

/* ---- command entry points (one per CLI command) -------------------------------------------- */

int tb_cmd_run(int argc, char **argv);
int tb_cmd_list(int argc, char **argv);
int tb_cmd_sysinfo(int argc, char **argv);
int tb_cmd_compare(int argc, char **argv);
int tb_cmd_gate(int argc, char **argv);
int tb_cmd_plot(int argc, char **argv);
int tb_cmd_report(int argc, char **argv);
int tb_cmd_cleanup(int argc, char **argv);

#endif /* TB_H */
