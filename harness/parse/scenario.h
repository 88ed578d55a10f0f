/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scenario files: INI (libinih), fio-like. [global] defaults, [workload NAME] and [tracer NAME]
 * sections with a type and the plugin's options, [matrix] of workloads x tracers, optional [gate].
 * Parsing is strict: every problem is reported as "file:line: message" before anything runs.
 */
#ifndef TB_SCENARIO_H
#define TB_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "core/tb.h"
#include "workloads/workload.h"
#include "tracers/tracer.h"

/*
 * A section a sweep made (parse/sweep.c): the swept section `[workload NAME]` with `sweep = KEY:
 * ...` becomes one section per value, named `NAME[KEY=VALUE]`, that is the swept one with KEY
 * set to VALUE; the swept section itself never runs (its `swept` is true).
 */
struct tb_scn_point {
	char *of;    /* the swept section's name; NULL: not made by a sweep */
	char *key;   /* the swept option */
	char *value; /* its value as written (lists) or generated (ranges) */
	char *unit; /* what one of x is: "byte" (sizes), "ns" (durations), else the key's singular */
	double x;   /* the value as a number in the option's unit (bytes, ns); NAN: not one */
	int line;   /* of the sweep key */
};

struct tb_scn_workload {
	char *name;
	const struct tb_workload_ops *ops;
	void *cfg; /* ops->cfg_size bytes, defaults then the section's keys */
	int line;  /* of the section header */
	/* The harness's keys of the section (tb_scenario_keys(TB_SCN_WORKLOAD)); those it does
	 * not set are [global]'s. */
	unsigned int threads;
	bool latency; /* also when [global] latency is true */
	unsigned int latency_every;
	uint64_t duration_ns;
	bool duration_set; /* by its own key (else [global]'s, or the plan's choice) */
	bool rate_sweep;   /* cells of this workload feed the rate model */
	char *sweep;	   /* its 'sweep' key as written, NULL: none */
	bool swept;	   /* expanded into sections of its values: it never runs itself */
	struct tb_scn_point pt;
	bool used;
};

struct tb_scn_tracer {
	char *name;
	const struct tb_tracer_ops *ops;
	void *cfg;
	int line;
	/* The harness's keys (tb_scenario_keys(TB_SCN_TRACER)); unset: [global]'s */
	uint64_t settle_ns;
	bool settle_set; /* by its own key (else [global]'s, or the plan's choice) */
	struct tb_strlist
		only; /* its 'workloads' key: the matrix's workloads it runs on; empty: all */
	bool explain; /* profile where its cost lands (explain/) */
	char *sweep;  /* its 'sweep' key as written, NULL: none */
	bool swept;   /* expanded into sections of its values: it never runs itself */
	struct tb_scn_point pt;
	bool used;
};

struct tb_scenario {
	char *path;
	char *name; /* [global] name, else the file's base name without .ini */
	char *description;
	char *text; /* the whole file, for the result */
	/* [global]: its keys (tb_scenario_keys(TB_SCN_GLOBAL)) fill these fields, and name and
	 * description above, directly */
	unsigned int rounds; /* repetitions */
	unsigned int min_rounds, max_rounds;
	unsigned int warmup;
	uint64_t duration_ns;
	uint64_t max_time_ns; /* 0: unlimited */
	uint64_t settle_ns;
	/* duration, settle, min-rounds and max-rounds given by [global] (or the command line):
	 * with a precision target and a max-time the plan chooses those left unset
	 * (plan/length.c) */
	bool duration_set, settle_set, min_rounds_set, max_rounds_set, accounting_every_set;
	/* an accounting sample in every Nth measured round, from the first (1: every round; the
	 * key's range keeps it >= 1) */
	unsigned int accounting_every;
	uint64_t sample_timeout_ns;
	struct tb_strlist cpus; /* CPU ids for workload threads ("none" = no pinning) */
	int consumer_cpu;	/* -1: pick one not used by the workload, when there is one */
	unsigned int threads;
	bool latency;
	unsigned int latency_every;
	bool mlock;
	bool perf_counts;
	bool reuse_tracers; /* keep tracers with a rearm set up across a cell's samples */
	bool aa;
	bool skip_unsupported; /* leave out unsupported sections instead of refusing the run */
	int64_t seed;	       /* -1: none given (the run takes one from the clock) */
	double precision, noise_threshold, alpha, power, confidence, max_cv;
	double contended_share; /* a round with a sample this contended is run again; 0: never */
	unsigned int resamples;
	unsigned int max_cells; /* the most cells a scenario with sweeps may make */
	/* the explain phase (runner/explain.c): after the measured rounds */
	bool explain;		      /* the default of every tracer section */
	unsigned int explain_samples; /* profiled samples per cell and side */
	unsigned int explain_hz;      /* cpu-clock samples per second of CPU time */
	double explain_tolerance;     /* of the explained-share check, a fraction */
	/* sections */
	struct tb_scn_workload *workloads;
	size_t nworkloads;
	struct tb_scn_tracer *tracers; /* tracers[0] is the implicit "none" */
	size_t ntracers;
	/* [matrix], in order of appearance */
	size_t *mx_workloads, nmx_workloads;
	size_t *mx_tracers, nmx_tracers;
	struct tb_strlist mx_exclude; /* WORKLOAD/TRACER glob patterns of cells left out */
	/* [gate]: raw key/values, interpreted by the gate */
	char **gate_keys, **gate_vals;
	size_t ngate;
	/* [limit]: run --find-limit after the rounds (the command line's overrides it), with its
	 * rate (events/s; NAN: none, the highest rate per buffer size) */
	bool limit;
	double limit_rate;
};

/*
 * Parse and check path. Returns 0 and *out (free with tb_scenario_free), -ENOENT/-EIO when the
 * file cannot be read, -EINVAL with "path:line: message" printed for every problem found.
 */
int tb_scenario_load(const char *path, struct tb_scenario **out);
/* Whether tracer t runs on workload (its 'workloads' key, when set, names it). */
bool tb_scenario_runs_on(const struct tb_scn_tracer *t, const char *workload);
/* The same from text (what is the file name used in messages). */
int tb_scenario_parse(const char *text, const char *what, struct tb_scenario **out);
void tb_scenario_free(struct tb_scenario *s);
/* Index of a workload or tracer section by name, or -1. */
int tb_scenario_workload(const struct tb_scenario *s, const char *name);
int tb_scenario_tracer(const struct tb_scenario *s, const char *name);
/* True when [matrix] exclude leaves out the cell of workload wi under tracer ti (never a
 * baseline). */
bool tb_scenario_excluded(const struct tb_scenario *s, size_t wi, size_t ti);
/*
 * The measured rounds a run makes before its stop rule may end it: repetitions, or with a
 * precision target min-rounds (the rule then decides, up to max-rounds and max-time).
 */
unsigned int tb_scenario_first_rounds(const struct tb_scenario *s);
/*
 * Whether measured round 'round' (from 0) takes its cells' accounting samples: every
 * accounting-every'th, from the first; and how many of 'rounds' measured rounds do.
 */
bool tb_scenario_accounting_round(const struct tb_scenario *s, unsigned int round);
unsigned int tb_scenario_accounting_rounds(const struct tb_scenario *s, unsigned int rounds);

/* The keys the harness owns (for `list --man`): [global], and in [workload] and [tracer]
 * sections those besides the plugin's own. */
enum tb_scn_section { TB_SCN_GLOBAL, TB_SCN_WORKLOAD, TB_SCN_TRACER };
const struct tb_option *tb_scenario_keys(enum tb_scn_section section);
/* The [gate] section's keys, ending with a NULL name. */
struct tb_scn_gate_key {
	const char *name, *help;
};
extern const struct tb_scn_gate_key tb_scenario_gate_keys[];

#endif
