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

#include "core/events.h"
#include "core/options.h"

struct json_t;
struct tb_dir;
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
	int64_t workload_events; /* of events, those of the workload process (tracers that can
				    tell whose an event is: tb_hooks.attributes) */
	int64_t disk_bytes;	 /* bytes it wrote to files in the window (streams, a command's
				    output files), kept or not (keep-raw) */
	int bpf_stats;		 /* BPF_STATS_RUN_TIME was on over the window (1, 0), or -1: it
				    held no BPF account */
};

/* One tracer instance, as a tracer plugin sees it. The harness owns every field but priv. */
struct tb_tracer {
	const struct tb_tracer_ops *ops;
	const char *name; /* scenario section name, for messages and file names */
	/* Unique among the tracers live at once, for kernel object names (tracefs instances):
	 * the cell id when the harness keeps the tracer across samples (reuse-tracers), as
	 * several cells of one section then exist together; NULL: name. */
	const char *instance;
	void *cfg;
	void *priv;
	pid_t target; /* the workload process to filter on (pid-filter = workload), or 0 */
	/* target is a server that forked its workers already: a filter follows its descendants
	 * too (a workload's own partner process stays out) */
	bool target_tree;
	/* Its directory for its own files (tracers/<name>/ of the run), opened once through the
	 * run directory's handle: tracebench's opens, deletes and sizes go through it, so nothing
	 * lands in a link's target even if the run directory became one. NULL: no files. */
	const struct tb_dir *dir;
	const char *outdir; /* dir's path, for an external command's argv ({outdir}) and messages */
	int consumer_cpu;   /* CPU for reader threads (not a workload CPU), or -1 */
	uint64_t settle_ns; /* delay the harness waits after start and before stop */
	/* What a sample will produce, for sizing buffers (0 / NULL when unknown): */
	uint64_t sample_ops;		     /* ops per thread of the sample (calibrated) */
	unsigned int threads;		     /* workload threads doing them */
	const int *cpus;		     /* the CPUs the workload is pinned to */
	size_t ncpus;			     /* 0: not pinned */
	const struct tb_hook_expect *expect; /* per counted hook, what one op makes */
	size_t nexpect;
	unsigned int sample; /* the sample's position in the run (0-based, warmups included) */
	/* An accounting sample (ops->accounts): turn on the accounting that costs the measured
	 * (bpf_enable_stats); false in every timed sample, which must run without it. */
	bool accounting;
};

/*
 * One configuration of a tracer whose support here differs from its type's (a BPF attach type
 * the kernel refuses), as `list` reports it.
 */
struct tb_tracer_variant {
	char name[64]; /* "attach = kprobe" */
	int err;       /* 0 when usable here, else -errno */
	char why[512]; /* the reason when err */
};

/*
 * A callback failed: the reason, in words a user acts on ("the tracer command exited with
 * status 1 before it was ready: <its last output>"), logged as "[tracer NAME] reason"; the
 * runner makes the last logged error the cell's error (tb_log_last_error). The callback then
 * returns its -errno as usual.
 */
void tb_tracer_fail(struct tb_tracer *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * What a result keeps of a cell's tracer (result.json's tracer_config and tracer_extra), all
 * that the callbacks describing a cell (label, lost_remedy) may read: they run on result files
 * read back (`report`, `compare`, `history`) as well as on a run's own cells, so no live state.
 * Either member may be NULL, and a key may be absent (an older result, a hand-made one).
 */
struct tb_tracer_record {
	const struct json_t *config; /* tracer_config: every option by its key, as written */
	const struct json_t *extra;  /* tracer_extra: what collect() reported (the last sample) */
};

enum {
	TB_TR_BASELINE = 1 << 0, /* the "none" tracer: cells with it are the baseline */
	TB_TR_NOEVENTS = 1 << 1, /* events are not counted by design (cannot prove tracing) */
	/* live when start returns and silent when stop returns (an enable write, an attach, an
	 * ioctl): it needs no settle, and the plan's automatic choice gives it none */
	TB_TR_NOSETTLE = 1 << 2,
};

struct tb_tracer_ops {
	const char *name; /* type name: "none", "ftrace-events", "bpf", "perf-sample", ... */
	const char *help;
	const struct tb_option *opts;
	size_t cfg_size;
	unsigned int flags;
	int (*supported)(char *why, size_t len);
	int (*validate)(const void *cfg, char *err, size_t len);
	/*
	 * Optional: make the config's relative input paths (a script the tracer reads) absolute
	 * against dir, the scenario file's directory. The scenario parser calls it once per
	 * section, before validate. Returns 0, or -errno with the reason in err.
	 */
	int (*resolve)(void *cfg, const char *dir, char *err, size_t len);
	/*
	 * Optional: is this (validated) configuration usable here, beyond supported()? E.g. an
	 * attach type the kernel refuses, found by trying it, or an external command whose tool
	 * cannot run here (tracers/command-tools.h). 0, or -errno with the reason in why. The
	 * plan drops or refuses a section whose configuration is not usable.
	 */
	int (*supported_cfg)(const void *cfg, char *why, size_t len);
	/*
	 * Optional: the configurations whose support differs here, each probed (`list` prints
	 * them under the tracer). Fills up to max entries; returns how many there are.
	 */
	size_t (*variants)(struct tb_tracer_variant *v, size_t max);
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
	/*
	 * Optional, for a tracer kept set up across one cell's samples ([global] reuse-tracers).
	 * After a sample's stop and collect the harness calls it with t->target = 0: park, i.e.
	 * leave nothing that acts on the system while the other cells' samples run (buffers
	 * emptied, pid lists and fork following cleared: an idle ftrace pid list still hooks the
	 * scheduler). Before the next sample of the cell it calls it with the new t->target: make
	 * the state exactly what a fresh setup for that target would give (the pid filter
	 * re-pointed). Only for tracers that are not live at all between stop and start. Returns 0
	 * or -errno (said); on error the harness tears the tracer down.
	 */
	int (*rearm)(struct tb_tracer *t);
	/*
	 * Optional, with rearm: can this (validated) configuration rearm? (The bpf tracer's user
	 * objects and folded .rodata pid filters cannot.) NULL: every configuration of a type
	 * with a rearm can. The runner keeps only tracers that can; the estimate charges them so.
	 */
	bool (*can_rearm)(const void *cfg);
	/*
	 * Optional, for `run --dry-run`'s estimate: the declared time one sample's setup, start,
	 * stop, collect and teardown take with this cfg, beyond the settle delays, in ns. Each
	 * plugin states where its figure comes from (measured on the reference VM with
	 * `tracebench run scenarios/quick.ini`: the samples' tracer_setup_s + tracer_teardown_s
	 * minus 2 x settle). NULL: negligible.
	 */
	uint64_t (*est_cost_ns)(const void *cfg);
	/*
	 * Optional, with rearm: the declared time of one sample of a tracer kept set up
	 * ([global] reuse-tracers): rearm, start, stop, collect and park, in ns, measured as
	 * est_cost_ns is. The estimate charges est_cost_ns once per cell and this for every other
	 * sample. NULL: est_cost_ns for every sample.
	 */
	uint64_t (*est_rearm_ns)(const void *cfg);
	/*
	 * Optional: the bytes one sample writes into t->dir at most, given what the sample will
	 * produce (t's sample_ops, threads, CPUs and expect, as at setup), and whether they stay
	 * (*kept: keep-raw) or are deleted after the sample. The run states the peak it needs
	 * and refuses to start without that much free. NULL or 0: nothing worth counting.
	 */
	uint64_t (*est_write_bytes)(const struct tb_tracer *t, bool *kept);
	/*
	 * What it hooks and what its events figure counts (core/events.h), from the filled
	 * config cfg: the kind (per event, sampling, counter), whose events (scope), the hooked
	 * events (globs expanded). Runs in the runner before any setup. Fills h (initialised by
	 * the caller; the caller frees it with tb_hooks_free) and returns 0, or -errno.
	 * Mandatory: model/proof.h matches it with the workload's events per op.
	 */
	int (*hooks)(const void *cfg, struct tb_hooks *h);
	/*
	 * Optional: what a traced cell of this tracer hooks, in a few words, for the tables and
	 * plots that rank probe types ("bpf syscall-count (tp_btf)", "ftrace uprobe"), from the
	 * cell's record alone. Writes a terminated label into buf. NULL: the type name
	 * (tb_tracer_label). Not for the baseline, which hooks nothing.
	 */
	void (*label)(const struct tb_tracer_record *rec, char *buf, size_t len);
	/*
	 * Optional: the cell lost events; where they were lost and the setting that stops it,
	 * with a value from the run ("buffer-size >= 4M ..."), from the cell's record and
	 * per_sample, the most events (recorded + lost) one measured sample produced. Writes a
	 * terminated remedy into buf; the verdict quotes it. NULL: a generic remedy. Not for a
	 * tracer that counts no events (TB_TR_NOEVENTS): it cannot lose any.
	 */
	void (*lost_remedy)(const struct tb_tracer_record *rec, int64_t per_sample, char *buf,
			    size_t len);
	/*
	 * Optional, with lost_remedy: the option of this (validated) configuration that sizes the
	 * buffer it loses events in ("buffer-size", "ringbuf-size", "mmap-pages": a size or a
	 * count, searched in powers of two by `run --find-limit`, runner/limit.h), or NULL when
	 * this configuration loses none in a buffer (a BPF program that counts in maps).
	 */
	const char *(*buffer_key)(const void *cfg);
	/*
	 * Optional: this (validated) configuration has an accounting that inflates what it
	 * measures (the command and bpf tracers' bpf_enable_stats: two clock reads in every BPF
	 * program run). Its timed samples then run with it off (t->accounting false), and every measured
	 * round adds one accounting sample of the cell (t->accounting true) at a shuffled place:
	 * its run figures and the accounting's own cost, never in the overhead statistics.
	 */
	bool (*accounts)(const void *cfg);
};

/* The registry (tracers/registry.c, from tracers/registry.h): NULL-terminated, and lookup by
 * type name. */
extern const struct tb_tracer_ops *const tb_tracers[];
const struct tb_tracer_ops *tb_tracer_find(const char *name);

/*
 * The label of a cell of tracer type type (NULL: unknown) from its record: the type's label
 * callback, else (no callback, a type not registered here, an empty label) the type name, "?"
 * without one. Into buf (always terminated); returns buf.
 */
const char *tb_tracer_label(const char *type, const struct tb_tracer_record *rec, char *buf,
			    size_t len);
/*
 * The remedy for a cell of type type that lost events, from the type's lost_remedy callback
 * (per_sample as it takes it) into buf. Returns true when the type has one and it said
 * something; false (buf "") for the caller's generic remedy.
 */
bool tb_tracer_lost_remedy(const char *type, const struct tb_tracer_record *rec, int64_t per_sample,
			   char *buf, size_t len);
/* Does a tracer of ops with the (validated) configuration cfg rearm: ops->rearm, and its
 * can_rearm says yes when it has one. */
bool tb_tracer_rearms(const struct tb_tracer_ops *ops, const void *cfg);
/* The string at key of a record's object o (its config or extra; NULL: none), or NULL. */
const char *tb_tracer_rec_str(const struct json_t *o, const char *key);
/* The number at key of a record's object o (NULL: none), or NAN. */
double tb_tracer_rec_num(const struct json_t *o, const char *key);
/*
 * A size as a scenario writes it, rounded up to the unit: "512K", "3M", "2G" (a remedy's
 * suggested buffer size). Into buf; returns buf.
 */
const char *tb_tracer_size_text(char *buf, size_t len, double bytes);

/*
 * Refuse malformed ops tables, as fio checks its option tables at start-up: each table of the
 * NULL-terminated list (normally tb_tracers) needs a name no other table has, help, all five
 * callbacks (setup to teardown), hooks and a well-formed option table (tb_opts_check); of the
 * optional callbacks, est_rearm_ns and can_rearm only with rearm, label and lost_remedy not on the baseline,
 * lost_remedy not on a tracer that counts no events, buffer_key only with lost_remedy. Each defect is logged, naming the table.
 * Returns 0 or -EINVAL.
 */
int tb_tracer_ops_check(const struct tb_tracer_ops *const *list);

#endif /* TB_TRACER_H */
