/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result model: what a run produces and what compare, gate, plot and report consume.
 * model.c builds and frees it; json-write.c and json-read.c map it to and from result.json
 * (schema "tracebench-result/1", jansson) by one table of fields per object (json-result.c:
 * a new key is one row there), the reader validating every field it reads;
 * stats/stats.c fills the summary and overhead parts; measured.h owns the derived totals.
 *
 * JSON key of each field in [brackets]. Unknown values are NAN (doubles) or -1 (counts) in
 * memory and null in JSON.
 */
#ifndef TB_RESULT_H
#define TB_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/events.h"
#include "core/service.h"

#define TB_RESULT_SCHEMA "tracebench-result/1"

struct tb_cell_explain;
/*
 * What a number in a result may be (json-read.c refuses the rest, naming the key): finite and
 * at most TB_RESULT_MAX_VALUE in magnitude. 1e15 ns is 11.6 days, longer than any sample the
 * harness can take (a command workload times out after a day at most), and squares of such
 * values stay far from overflow in the statistics. A completed sample's ns/op is at least
 * TB_RESULT_MIN_NS (no operation takes a thousandth of a nanosecond). A command workload's own
 * metric (bytes, requests) is only required to be finite.
 */
#define TB_RESULT_MAX_VALUE  1e15
#define TB_RESULT_MIN_NS     1e-3
#define TB_RESULT_MAX_METRIC 1e300

/* Hard limits on what a result file may hold, so a crafted file cannot exhaust memory. */
#define TB_RESULT_MAX_CELLS   4096
#define TB_RESULT_MAX_SAMPLES 100000 /* per cell */
#define TB_RESULT_MAX_BUCKETS 4096   /* latency histogram buckets per cell */

enum tb_verdict {
	TB_VERDICT_NONE = 0,	  /* baseline cells, or not analysed yet ["" / absent] */
	TB_VERDICT_NO_OVERHEAD,	  /* "no-detectable-overhead" */
	TB_VERDICT_OVERHEAD,	  /* "overhead" */
	TB_VERDICT_UNTRUSTWORTHY, /* "untrustworthy" */
	TB_VERDICT_FASTER,	  /* "faster-than-baseline": traced significantly faster than
				     its baseline, which a tracer cannot be: suspect the setup */
};
const char *tb_verdict_name(enum tb_verdict v);
int tb_verdict_parse(const char *s, enum tb_verdict *v);

/* One timed sample: one run of one cell. */
struct tb_sample {
	int round;		 /* [round] 0-based measured round; -1 for warmups */
	bool warmup;		 /* [warmup] discarded from statistics */
	unsigned int order;	 /* [order] position in the whole run (0-based), for the timeline */
	double ns_per_op;	 /* [ns_per_op] elapsed / ops (per thread) */
	uint64_t ops;		 /* [ops] operations per thread */
	double elapsed_ns;	 /* [elapsed_ns] wall time of the batch */
	int64_t events;		 /* [events] tracer events in this sample, -1 unknown */
	int64_t lost;		 /* [lost] */
	double tracer_cpu_s;	 /* [tracer_cpu_s] */
	double wl_cpu_s;	 /* [workload_cpu_s] user+sys of the workload process */
	int64_t nvcsw, nivcsw;	 /* [voluntary_ctxsw] [involuntary_ctxsw] */
	int64_t minflt;		 /* [minor_faults] */
	double setup_s;		 /* [tracer_setup_s] tracer setup+start time, untimed window */
	double teardown_s;	 /* [tracer_teardown_s] */
	double metric;		 /* [metric] command workloads: value taken from output, NAN */
	bool failed;		 /* [failed] the sample did not complete (reason in log) */
	bool abandoned;		 /* [abandoned] cut short by a stop request (Ctrl-C): neither
				    measured nor a failure of the cell */
	bool partial_round;	 /* [partial_round] of the round the stop interrupted: kept in the
				    file, never in the statistics (settings.rounds counts the
				    completed rounds only) */
	int64_t bpf_run_cnt;	 /* [bpf_run_cnt] */
	int64_t bpf_run_time_ns; /* [bpf_run_time_ns] */
	int64_t disk_bytes; /* [tracer_disk_bytes] what the tracer wrote to files, -1 unknown */
	int64_t workload_events; /* [workload_events] the workload's own share of a system-wide
				    count, -1 unknown (tracers that attribute: core/events.h) */
	bool rearmed;	 /* [rearmed] its tracer was the cell's kept one, rearmed for this sample's
			    process instead of set up (reuse-tracers, METHODOLOGY.md 2.4) */
	bool accounting; /* [accounting] an accounting sample: the tracer's costly accounting
			    (BPF run-time stats) on; never in the overhead statistics, only in the
			    cell's [accounting] object (METHODOLOGY.md, "The measurer never
			    inflates the measured") */
	int bpf_stats;	 /* [bpf_stats] BPF_STATS_RUN_TIME was on over the window: 1, 0, or -1
			    (absent) when the tracer holds no BPF account */
	/* [cpu_wait_ns] the workload's threads waited, runnable, for a CPU another task held
	 * (host/contention.h); [cpu_steal_ns] the hypervisor stole from its CPUs; -1 unknown */
	int64_t wait_ns;
	int64_t steal_ns;
	/* [consumer_ns_per_event] tracer_cpu_s per event, NAN (model/measured.h; written only) */
	double consumer_ns_per_event;
	struct tb_svc_figures svc; /* [service] service workloads only */
	/* [rerun] why this sample's round was run again ("" when it was not: runner/contended.h,
	 * contended rounds): kept in the file, never in the statistics */
	char rerun[160];
};

/*
 * [contention] {rounds_rerun, rounds_kept_contended}, present when contended rounds are re-run
 * (settings.contended_share > 0): the rounds whose samples of the cell were discarded and run
 * again because a sample of the round was contended, and the cell's contended samples kept
 * because the re-run bound was reached (runner/contended.c).
 */
struct tb_cell_contention {
	bool present;
	unsigned int rerun, kept;
};

/* Latency-mode histogram, merged over the cell's measured samples. */
struct tb_latency {
	bool present;	      /* [latency] object present */
	double clock_cost_ns; /* [clock_cost_ns] cost of one clock read pair, subtracted */
	uint64_t count;	      /* [count] */
	double p50, p90, p99, p999, max; /* [p50] [p90] [p99] [p999] [max] ns */
	size_t nbuckets;
	double *bucket_ns; /* [buckets] [[upper_ns, count], ...] sorted by upper_ns */
	uint64_t *bucket_count;
};

struct tb_summary {
	size_t n; /* [n] measured (non-warmup, non-failed) samples */
	double median, mean, sd, cv, min, max, mad; /* [median] ... ns/op; cv as a fraction */
	size_t outliers; /* [outliers] samples flagged by the MAD rule (|x-med| > 3.5 MAD') */
	bool *outlier;	 /* per sample index (not in JSON; JSON marks [outlier] on samples) */
	size_t noutlier; /* entries in outlier (samples added later have none) */
};

/*
 * A service cell's figures and, traced, its overheads against the baseline (stats/service.c):
 * [service] {requests_per_s, p50_ns, p99_ns, p999_ns, errors, server_cpu_ns_per_request,
 * server_ctxsw_per_request, decides, and for traced cells throughput_loss_pct,
 * throughput_loss_ci, p50_delta_ns, p50_delta_ci, p99_delta_ns, p99_delta_ci,
 * throughput_verdict, p50_verdict, p99_verdict}. Medians over the measured samples; the CIs
 * are paired bootstrap CIs as the overhead's (METHODOLOGY.md "Services").
 */
struct tb_service_overhead {
	bool present;
	double rps, p50_ns, p99_ns, p999_ns;	   /* medians of the samples' */
	int64_t errors;				   /* summed over the measured samples */
	double cpu_ns_per_req;			   /* [server_cpu_ns_per_request] */
	double ctxsw_per_req;			   /* [server_ctxsw_per_request] */
	char decides[16];			   /* [decides] */
	bool traced;				   /* the overheads below are set */
	double loss_pct, loss_lo, loss_hi;	   /* [throughput_loss_pct] [throughput_loss_ci] */
	double p50_delta, p50_lo, p50_hi;	   /* [p50_delta_ns] [p50_delta_ci] */
	double p99_delta, p99_lo, p99_hi;	   /* [p99_delta_ns] [p99_delta_ci] */
	int thr_verdict, p50_verdict, p99_verdict; /* enum tb_verdict */
};

struct tb_overhead {
	double pct;		     /* [pct] 100 * (median_traced / median_base - 1) */
	double ci_lo, ci_hi;	     /* [ci] [lo, hi] bootstrap CI of pct */
	double mean_pct;	     /* [mean_pct] ratio of means, % */
	double ns_per_op;	     /* [ns_per_op] median_traced - median_base */
	double ns_ci_lo, ns_ci_hi;   /* [ns_per_op_ci] */
	double events_per_op;	     /* [events_per_op] NAN when unknown */
	double ns_per_event;	     /* [ns_per_event] NAN when unknown */
	double nse_ci_lo, nse_ci_hi; /* [ns_per_event_ci] */
	double bpf_ns_per_run;	     /* [bpf_ns_per_run] run_time_ns / run_cnt, NAN when not BPF */
	double p_mannwhitney;	     /* [p_mannwhitney] two-sided */
	double p_welch;		     /* [p_welch] two-sided */
	double hl_shift_ns;	     /* [hodges_lehmann_ns] */
	double mde_pct;		     /* [mde_pct] smallest detectable effect at alpha, power */
	enum tb_verdict verdict;     /* [verdict] */
	char reason[384];	     /* [reason] */
	char nse_reason[192];	     /* [ns_per_event_reason] why ns_per_event is null */
	/* [cost_driver] {unit, per_op, ns, ci} for tracers whose cost is not per event: the
	 * cost per context switch or per sample, when that is what drives it. */
	char driver[24];		      /* [unit] "context switch", "sample"; "" none */
	double driver_per_op;		      /* [per_op] drivers per op and thread */
	double ns_per_driver, npd_lo, npd_hi; /* [ns] [ci] overhead ns/op / per_op */
	char driver_reason[160];	      /* [cost_driver_reason] why there is none */
};

/*
 * What a traced cell should record per op, from its workload's events (workloads/<x>.c) and
 * its tracer's hooks (tracers/<y>.c), matched by model/proof.h at run time. [expected_events]
 */
#define TB_EXPECT_ITEMS 16
#define TB_NEAR_MISSES	4
#define TB_EXPECT_TEXT	160

struct tb_near_miss {
	char hooked[TB_EV_NAME_MAX]; /* [hooked] a hook that sees nothing of the op */
	char does[TB_EV_NAME_MAX];   /* [does] the syscall of the same family the op makes */
	char hook[TB_EV_NAME_MAX];   /* [hook] the hook that would see it */
	double per_op;		     /* [per_op] */
};

struct tb_expected {
	bool present;	      /* computed (results of older versions have none) */
	int kind, scope;      /* [kind] [scope] the tracer's (core/events.h names) */
	bool attributes;      /* [attributes] it reports the workload's share of a system count */
	bool filtered;	      /* [filtered] an unread filter: the counts are upper bounds */
	double exact_per_op;  /* [exact_per_op] sum over counted hooks, exact entries */
	double approx_per_op; /* [approx_per_op] sum over counted hooks, approximate entries */
	unsigned int approx_zero;  /* [approx_zero] counted scheduler hooks expected 0 (they may
				     see preemptions) */
	bool unknown;		   /* [unknown] a counted hook the workload's table is silent on,
				      or none counted at all (what the figure counts is unknown) */
	unsigned int ncounted;	   /* [counted_hooks] hooks whose occurrences are the figure */
	bool at_least;		   /* [at_least] the table is incomplete there: a lower bound */
	double harness_per_sample; /* [harness_per_sample] the harness's own events in the
				      traced window, at most (threads sharing a CPU park) */
	struct tb_hook_expect items[TB_EXPECT_ITEMS]; /* [events] the counted hooks expected > 0 */
	size_t nitems;
	struct tb_near_miss near[TB_NEAR_MISSES]; /* [near_misses] */
	size_t nnear;
	char hooks[TB_EXPECT_TEXT];	   /* [hooks] the counted hooks, for messages */
	char does[TB_EXPECT_TEXT];	   /* [does] what the op does that they could see */
	char unknown_hook[TB_EV_NAME_MAX]; /* [unknown_hook] the first silent one */
};

/* The proof of tracing's outcome (model/proof.h judges it). [proof] {outcome, ...} */
enum tb_proof_outcome {
	TB_PROOF_NONE = 0,    /* not judged: a baseline, or no expectation stored ("") */
	TB_PROOF_MATCH,	      /* "match": events/op within the tolerance of the expected */
	TB_PROOF_ABOVE,	      /* "above": more (another task's events, an incomplete table) */
	TB_PROOF_CONTROL,     /* "control": 0 expected and none of the workload's recorded */
	TB_PROOF_MISSED,      /* "missed": expected > 0, nothing recorded */
	TB_PROOF_BELOW,	      /* "below": far fewer than expected */
	TB_PROOF_UNEXPECTED,  /* "unexpected": 0 expected, yet the workload's events recorded */
	TB_PROOF_UNVERIFIED,  /* "unverified": no expectation; events were recorded */
	TB_PROOF_NOTHING,     /* "nothing": no expectation, and nothing recorded */
	TB_PROOF_SAMPLED,     /* "sampled": a sampler took samples */
	TB_PROOF_UNCOUNTED,   /* "uncounted": the tracer reports no event count */
	TB_PROOF_NOT_COUNTED, /* "not-counted": the tracer counts nothing by design (delay) */
	TB_PROOF_NOUTCOMES,
};

struct tb_proof {
	enum tb_proof_outcome outcome; /* [outcome] */
	double events_per_op;	       /* [events_per_op] measured (the workload's share) */
	double expected_per_op;	       /* [expected_per_op] NAN: unknown */
	double lo, hi;		       /* [range] accepted events/op (hi may be +inf: null) */
	bool blocks;		       /* [blocks] the verdict is untrustworthy because of it */
	char message[320];	       /* [message] what was expected, seen, and what to change */
};

/*
 * One BPF program of a command tracer over the cell's measured samples (host/bpf-account.h
 * found it; model/bpf-progs.h merges the samples). The tracer starts anew in every sample, so
 * its programs get new ids: the samples' programs are matched by name, type and attach point.
 * [tracer_extra][bpf_programs] [{id, name, type, attach, runs, run_time_ns, ns_per_run,
 * samples, runs_per_op, overhead_share}]; the last three derived (model/measured.h).
 */
#define TB_CELL_BPF_PROGS_MAX 512
struct tb_cell_prog {
	uint32_t id;	      /* [id] in the last measured sample that had it */
	char name[64];	      /* [name] */
	char type[32];	      /* [type] "tracepoint", "perf_event", ... */
	char attach[160];     /* [attach] "tracepoint:syscalls:sys_enter_read", "" unknown */
	int64_t runs;	      /* [runs] run_cnt over the samples' windows, -1 unknown */
	int64_t run_time_ns;  /* [run_time_ns] run_time_ns over them, -1 unknown */
	unsigned int samples; /* [samples] measured samples in which it was found */
};

/*
 * What a cell's accounting samples (tb_sample.accounting) found, and what the accounting itself
 * cost: the accounting samples against the cell's timed ones, of the same rounds.
 * [accounting] {samples, ns_per_op, cost_pct, cost_ci, cost_ns_per_op, cost_ns_per_run,
 * bpf_runs_per_op, bpf_ns_per_run, ci_reason}; the cell's [accounting_samples] lists their
 * orders (written from samples[].accounting, never read).
 */
struct tb_accounting {
	bool present;
	unsigned int samples;	/* [samples] measured accounting samples */
	double ns_per_op;	/* [ns_per_op] their median ns/op */
	double cost_pct;	/* [cost_pct] 100 * (median accounting / median timed - 1) */
	double ci_lo, ci_hi;	/* [cost_ci] its bootstrap CI; null with too few points */
	double cost_ns_per_op;	/* [cost_ns_per_op] median accounting - median timed */
	double cost_ns_per_run; /* [cost_ns_per_run] cost_ns_per_op / bpf_runs_per_op */
	double bpf_runs_per_op; /* [bpf_runs_per_op] the programs' runs per op and thread */
	double bpf_ns_per_run;	/* [bpf_ns_per_run] run_time_ns / run_cnt in them */
	char ci_reason[128];	/* [ci_reason] why cost_ci is null ("mean of 2 points ...") */
};

/* The sweep point a cell is (parse/sweep.c): its swept section, the option and its value.
 * [workload_sweep] [tracer_sweep] {section, key, value, unit, x} */
struct tb_cell_sweep {
	bool present;
	char *section; /* [section] the swept section's name */
	char *key;     /* [key] the swept option */
	char *value;   /* [value] as written */
	char *unit;    /* [unit] what one of x is: "byte", "ns", "call", "probe" */
	double x;      /* [x] the value as a number in the option's unit, null when not one */
};

struct tb_cell {
	char *id;		   /* [id] "workload/tracer", unique in the result */
	char *workload;		   /* [workload] section name */
	char *workload_type;	   /* [workload_type] */
	json_t *workload_config;   /* [workload_config] object of every option's value */
	char *tracer;		   /* [tracer] section name ("none" for the baseline) */
	char *tracer_type;	   /* [tracer_type] */
	json_t *tracer_config;	   /* [tracer_config] */
	bool baseline;		   /* [baseline] */
	unsigned int threads;	   /* [threads] */
	bool latency_mode;	   /* [latency_mode] */
	bool partner_cpu;	   /* [partner_cpu] its workload's own tasks take turns on its CPU
				      (TB_WL_PARTNER_CPU): their wait for it is not contention */
	uint64_t ops_per_sample;   /* [ops_per_sample] */
	uint64_t duration_ns;	   /* [duration_ns] the cell's effective sample duration: its
				      workload section's duration, else [global]'s */
	double slowdown;	   /* [slowdown] under a max-time: the traced / baseline ns/op
				      the runner measured before the rounds (runner/budget.h),
				      which sized ops_per_sample; NAN (absent) otherwise */
	double rate;		   /* [event_rate] target events/s for rate sweeps, NAN otherwise */
	struct tb_sample *samples; /* [samples] in run order, warmups included */
	size_t nsamples;
	/* [disk_bytes_per_event] tracer_disk_bytes per event over the measured samples (a
	 * perf record cell: perf.data's bytes per record, its header included); written only */
	double disk_bytes_per_event;
	/* [consumer_ns_per_event] over the measured samples (model/measured.h; written only) */
	double consumer_ns_per_event;
	int64_t events_recorded;	/* [events_recorded] over measured samples, -1 unknown */
	int64_t events_lost;		/* [events_lost] */
	double tracer_cpu_s;		/* [tracer_cpu_s] */
	int64_t tracer_mem_bytes;	/* [tracer_mem_bytes] max over samples */
	json_t *tracer_extra;		/* [tracer_extra] what collect() reported, last sample */
	struct tb_cell_prog *bpf_progs; /* [tracer_extra][bpf_programs] over measured samples */
	size_t nbpf_progs;
	char bpf_method[24]; /* [tracer_extra][bpf_method] "fdinfo", "new-ids", "none", "mixed";
				"" when the tracer does not account BPF programs */
	char *error;	     /* [error] why the cell failed, NULL if it did not */
	struct tb_summary summary;	 /* [summary] */
	struct tb_latency latency;	 /* [latency] */
	bool has_overhead;		 /* traced cells once analysed */
	struct tb_overhead overhead;	 /* [overhead] */
	struct tb_expected expected;	 /* [expected_events] traced cells, from the run */
	struct tb_proof proof;		 /* [proof] traced cells once analysed */
	struct tb_cell_explain *explain; /* [explain] where the overhead lands (model/explain.h) */
	struct tb_accounting accounting; /* [accounting] cells with accounting samples */
	struct tb_cell_sweep wsweep;	 /* [workload_sweep] its workload is a sweep's point */
	struct tb_cell_sweep tsweep;	 /* [tracer_sweep] its tracer is a sweep's point */
	struct tb_service_overhead service;   /* [service] cells of a service workload */
	struct tb_cell_contention contention; /* [contention] */
};

/*
 * A/A calibration (settings.aa): every non-baseline cell is the baseline run against itself, so
 * each "overhead" verdict is a false positive and the CI widths are the noise floor.
 * [aa_calibration] {cells, false_positives, false_positive_rate, noise_floor_pct, max_abs_pct}
 */
struct tb_aa_summary {
	bool present;
	size_t ncells;		/* [cells] analysed A/A pairs */
	size_t false_positives; /* [false_positives] pairs whose verdict was "overhead" */
	double fp_rate;		/* [false_positive_rate] false_positives / cells */
	double noise_floor_pct; /* [noise_floor_pct] max CI half-width of pct over the pairs */
	double max_abs_pct;	/* [max_abs_pct] max |pct| point estimate */
};

/*
 * Rate model of one tracer over an event-rate sweep (cells with a finite event_rate):
 * overhead ns/op = fixed_ns + cost_ns * events/op by least squares, and overhead % against
 * achieved events/s. [rate_models] [{...}]
 */
struct tb_rate_model {
	char *workload_type;			   /* [workload_type] */
	char *tracer;				   /* [tracer] tracer section name */
	size_t npoints;				   /* [points] cells in the fit */
	double fixed_ns, fixed_ci_lo, fixed_ci_hi; /* [fixed_ns] [fixed_ns_ci] intercept */
	double cost_ns, cost_ci_lo,
		cost_ci_hi;		    /* [cost_ns_per_event] [cost_ns_per_event_ci] slope */
	double r2;			    /* [r2] */
	double pct_fixed, pct_per_mevent_s; /* [pct_fixed] [pct_per_mevents_s] % vs events/s/1e6 */
	double p_quadratic; /* [p_quadratic] p of a quadratic term (NAN when < 4 points) */
	bool nonlinear;	    /* [nonlinear] p_quadratic < alpha: e.g. buffer saturation */
	bool accepted;	    /* [accepted] the fit says something: its slope's CI excludes 0 and
			       r2 >= TB_RATE_MIN_R2 (stats.h); outputs show only accepted models */
	char why_not[192];  /* [why_not] why it was not accepted */
};

/*
 * A sweep's piecewise fit (stats/fit.c), tried where its line is refused or bent: two lines
 * meeting at a knee, y = fixed + before * x + (after - before) * max(0, x - knee_x), the knee
 * at one of the points. Accepted only when it explains the points (r2 >= TB_RATE_MIN_R2) and
 * bends significantly (the bend's F-test against the line, Bonferroni over the knees tried,
 * p < alpha); saturating when the slope after the knee's CI includes 0 or is below zero.
 */
struct tb_knee_model {
	size_t npoints;				/* [points] */
	double knee_x;				/* [knee_x] in the swept unit */
	double fixed_ns;			/* [fixed_ns] at x = 0 */
	double before_ns, before_lo, before_hi; /* [slope_before_ns] [..._ci] */
	double after_ns, after_lo, after_hi;	/* [slope_after_ns] [..._ci] */
	double r2;				/* [r2] */
	double p_bend;				/* [p_bend] vs the line */
	bool saturating;			/* [saturating] */
	bool accepted;				/* [accepted] */
	char why_not[192];			/* [why_not] */
};

/* One point of a sweep: a traced cell and its overhead against its own baseline. */
struct tb_sweep_point {
	char *cell;	     /* [cell] its id */
	char *value;	     /* [value] the swept value as written */
	double x;	     /* [x] as a number (null: not one) */
	double ns_per_op;    /* [ns_per_op] traced minus baseline, paired (the cell's overhead) */
	double ns_lo, ns_hi; /* [ns_per_op_ci] */
	bool used;	     /* [used] in the fit */
	char why_not[128];   /* [why_not] why it is not (untrustworthy, lost events, ...) */
	/* What the tracer was offered and kept (saturation): events recorded + lost per second
	 * of the measured samples' batches, the events lost over them (-1 unknown) and the
	 * tracer's CPU seconds per second there. */
	double events_per_s; /* [events_per_s] NAN unknown */
	int64_t lost;	     /* [lost] */
	double lost_share;   /* [lost_share] of the events offered */
	double tracer_cpu;   /* [tracer_cpu] */
};

/*
 * A sweep's model (stats/sweep.c): per-op cost (traced minus baseline) against the swept value,
 * y = fixed + slope * x by least squares over the usable points, accepted as tb_stats_rate_fit
 * accepts a rate model. One per swept section and the other side of its cells (a workload
 * sweep per tracer, a tracer sweep per workload). [sweeps] [{...}]
 */
struct tb_sweep {
	char *kind;		  /* [kind] "workload" or "tracer" */
	char *section;		  /* [section] the swept section */
	char *key;		  /* [key] the swept option */
	char *against;		  /* [against] the tracer (workload sweeps) or workload section */
	char *unit;		  /* [unit] what the slope is per: "call", "probe", "byte" */
	struct tb_rate_model fit; /* [model] {points, fixed_ns, fixed_ns_ci, slope_ns,
				       slope_ns_ci, r2, p_quadratic, nonlinear, accepted, why_not} */
	/* [slope_ns_ci_rounds] the slope's CI from a bootstrap of the rounds the points share
	 * (stats/fit.c, tb_stats_rounds_slope_ci); the model's slope CI is the wider of it and the
	 * line's own. NAN: none */
	double rounds_lo, rounds_hi;
	struct tb_sweep_point *points; /* [points] by rising x */
	size_t npoints;
	/* A filter's selectivity sweep (unit TB_UNIT_FILTERED, core/options.h): what an event the
	 * filter keeps costs (the x = 0 point's ns per event) and one it rejects (that plus the
	 * slope, with the slope's CI); NAN when there is no x = 0 point, or no line that was
	 * accepted or refused only because its slope's CI includes 0. In that case the rejected
	 * event's cost is still measured, but not told apart from a kept one's: within_noise.
	 * Where the line gives none (it bends) the point that rejects every event gives it, its
	 * ns/op and CI over the kept point's events per op: from_point. */
	double accepted_ns;		    /* [accepted_ns_per_event] */
	double rejected_ns, rej_lo, rej_hi; /* [rejected_ns_per_event] [rejected_ns_per_event_ci] */
	bool rejected_within_noise;	    /* [rejected_within_noise] */
	bool rejected_from_point;	    /* [rejected_from_point] */
	double kept_per_op; /* the x = 0 point's events per op (not written: derived again) */
	/* Saturation (a workload sweep that varies the event rate against one tracer): the
	 * highest rate of a point that lost nothing, the tracer's CPU there, and the lowest rate
	 * of a point that lost events; NAN when no point is of that kind. A tracer sweep: its
	 * smallest-x point that lost nothing, where another lost (lost_rate NAN). */
	double held_rate, held_cpu; /* [held_events_per_s] [held_tracer_cpu] */
	/* [held_value] that point's value; a tracer sweep (over buffer-size) holds its smallest
	 * value that lost nothing where another lost: the smallest buffer that held the rate */
	char held_value[40];
	double lost_rate; /* [lost_events_per_s] */
	bool has_knee;	  /* [knee] present: the line was refused or bent */
	struct tb_knee_model knee;
};

/* One probe of a saturation search (runner/limit.h): a short run of the cell at one setting of
 * the workload's knobs and one buffer, with the figures of struct tb_sweep_point's saturation. */
struct tb_limit_probe {
	char *knob;	      /* [knob] the knob its step moved ("work", "calls", "threads"); read
				 from a file without it: the search's knob */
	char *knob_value;     /* [knob_value] that knob as set ("4096") */
	char *setting;	      /* [setting] every knob of the chain as set ("work = 0, calls = 40");
				 from a file without it: "knob = knob_value" */
	char *buffer;	      /* [buffer] the buffer option as set ("64K", "128") */
	double buffer_x;      /* [buffer_x] as a number (bytes, pages) */
	double events_per_s;  /* [events_per_s] offered: recorded + lost per second of batch */
	int64_t events, lost; /* [events] recorded, [lost] over its measured samples (-1 unknown) */
	double lost_share;    /* [lost_share] of the events offered */
	double tracer_cpu;    /* [tracer_cpu] the tracer's CPU seconds per second */
	char proof[16];	      /* [proof] the cell's proof outcome ("match", ...; "" none) */
};

/*
 * A saturation search of one traced cell (runner/limit.h; METHODOLOGY.md "Sweeps"). Kind
 * "rate": the highest offered event rate its buffer held with no loss, by bisection along the
 * workload's chain of knobs. Kind "buffer": the smallest buffer (a power of two) that held a
 * named rate. The conclusion (found, held, lost, monotone) follows from the probes
 * (stats/limit.c).
 * [limits] [{...}]
 */
struct tb_limit {
	char *kind;	  /* [kind] "rate" or "buffer" */
	char *cell;	  /* [cell] the run's cell it searched (workload/tracer) */
	char *workload;	  /* [workload] section */
	char *tracer;	  /* [tracer] section */
	char *knob;	  /* [knob] the knob the search ended on, its bracket's ("work", "calls") */
	json_t *knobs;	  /* [knobs] the chain, in its order (["work", "calls"]); from a file
			      without it: [knob] */
	char *buffer_key; /* [buffer_key] the tracer option sizing its buffer */
	char *buffer;	  /* [buffer] kind rate: the buffer searched at, as written */
	double target;	  /* [target_events_per_s] kind buffer: the named rate; NAN: rate */
	double resolution; /* [resolution] the bracket's width at which the search stops */
	bool found;	   /* [found] a loss bracketed by a probe that held (rate), or a buffer
			      that held where a smaller lost (buffer) */
	/* [held_events_per_s] [held_tracer_cpu] [held_knob] the highest rate that held below
	 * the lowest that lost, the tracer's CPU there, the value of knob there; [held_at] that
	 * probe's whole setting; [lost_events_per_s] [lost_knob] [lost_at] that lowest lost rate
	 * (the bracket's top), knob's value and the setting there; kind buffer: [held_buffer] the
	 * smallest buffer that held, [lost_buffer] the largest that lost below it */
	double held_rate, held_cpu, lost_rate;
	char held_knob[32], held_buffer[32], lost_buffer[32], lost_knob[32];
	char held_at[160], lost_at[160];
	bool monotone;	/* [monotone] no probe held above a rate (or lost above a buffer) that
			    lost (held): loss looked monotone, as bisection assumes */
	char note[224]; /* [note] why nothing was found, or what was not monotone */
	/* [knob_note] how the chain ended short of a loss: a knob at the end of its range or no
	 * longer raising the rate, threads without a CPU */
	char knob_note[320];
	struct tb_limit_probe *probes; /* [probes] in the order run */
	size_t nprobes;
};

struct tb_result {
	char *schema;	     /* [schema] */
	char *tool_version;  /* [tool] {name, version} */
	char *scenario_name; /* [scenario] {name, path, text} */
	char *scenario_path;
	char *scenario_text;
	char *command_line;	  /* [command_line] how to reproduce it */
	char *started, *finished; /* [started] [finished] ISO 8601 UTC */
	bool partial;		  /* [partial] */
	char *stop_reason; /* [stop_reason] "rounds", "precision", "max-time", "interrupted" */
	json_t *system;	   /* [system] sysinfo object; its [fingerprint] and [hostname] */
	uint64_t seed;	   /* [settings] {seed, rounds, warmup, duration_ns, noise_threshold,
			      alpha, power, bootstrap_resamples, confidence, precision} */
	unsigned int rounds, warmup;
	uint64_t duration_ns;
	double noise_threshold; /* fraction, default 0.01 */
	double alpha;		/* default 0.05 */
	double power;		/* default 0.8 */
	double confidence;	/* default 0.95 */
	unsigned int resamples; /* default 10000 */
	double precision;	/* fraction, 0 = fixed rounds */
	double max_cv; /* [settings][max_cv] CV above which a cell is untrustworthy (0.10) */
	/* [settings][contended_share] a measured round with a sample that lost more than this
	 * share of its wall time to other tasks or the hypervisor is run again; 0: never */
	double contended_share;
	/* [settings][accounting_every] the cells' accounting samples were taken in every Nth
	 * measured round, from the first (1: every round, also for older results) */
	unsigned int accounting_every;
	bool aa; /* [settings][aa] A/A calibration run */
	/* [settings][allow_foreign] the user let the run go on with foreign instrumentation
	 * active (run --allow-foreign): its cells keep their verdicts, each reason says so */
	bool allow_foreign;
	/* [settings][sample_length] the duration and settle the run chose itself and why
	 * (plan/plan.h, tb_plan_auto_length); absent when the scenario set them */
	char *sample_length;
	/* [settings][rounds_chosen] min-rounds and max-rounds as the run chose them and why
	 * (plan/plan.h, tb_plan_auto_length); absent when the scenario set them */
	char *rounds_chosen;
	/* [settings][max_time_s] the run's time budget, NAN (absent): none; [rounds_asked] the
	 * rounds it was to reach at least (min-rounds with a precision target, else repetitions;
	 * -1, absent, without a max-time); [max_time_needed_s] the max-time the warmups and the
	 * rounds asked needed, as the runner predicted them once the traced cells' slowdown was
	 * measured (runner/budget.h), NAN (absent) unknown */
	double max_time_s;
	int64_t rounds_asked;
	double max_time_needed_s;
	json_t *foreign; /* [foreign_instrumentation] array of strings, may be empty */
	/* [shortfalls] array of strings: every way the run fell short of what was asked (partial,
	 * precision target missed, untrustworthy or faster cells, foreign instrumentation), one
	 * sentence each; stats/shortfall.h fills it, the summary, report and gate say it */
	json_t *shortfalls;
	json_t *warnings; /* [warnings] array of strings */
	/* [unsupported] array of strings: each section left out as unsupported here (a plugin, or
	 * a configuration such as a BPF attach type the kernel refuses), "file:line: [tracer
	 * NAME]: TYPE (KEY = VALUE): reason". */
	json_t *unsupported;
	json_t *gate;	       /* [gate] thresholds from the scenario, object, may be NULL */
	json_t *labels;	       /* [labels] {key: value} of the user's (model/labels.h); object */
	struct tb_cell *cells; /* [cells] */
	size_t ncells;
	struct tb_aa_summary aa_summary;   /* [aa_calibration] filled by stats.c when aa */
	struct tb_rate_model *rate_models; /* [rate_models] filled by stats.c */
	size_t nrate_models;
	struct tb_sweep *sweeps; /* [sweeps] filled by stats/sweep.c */
	size_t nsweeps;
	struct tb_limit *limits; /* [limits] run --find-limit's searches (runner/limit.h) */
	size_t nlimits;
	/* Not in JSON: the directory of the result file (set by tb_result_load and by `run`), where
	 * the files the result names (explain/...) are. NULL when unknown. */
	char *dir;
};

/* An empty result with defaults (alpha 0.05, ...). Returns NULL on ENOMEM. Free with
 * tb_result_free. */
struct tb_result *tb_result_new(void);
void tb_result_free(struct tb_result *r);
/* Add a cell; returns it zeroed with counts at -1, or NULL on ENOMEM (r->cells may move). */
struct tb_cell *tb_result_add_cell(struct tb_result *r);
/* Every figure of an overhead (a proof) unknown: NAN, empty strings, no verdict. */
void tb_overhead_init(struct tb_overhead *o);
void tb_proof_init(struct tb_proof *p);
void tb_accounting_init(struct tb_accounting *a);
/* Append a sample to a cell; returns it with unknowns preset, or NULL on ENOMEM. */
struct tb_sample *tb_cell_add_sample(struct tb_cell *c);
/* The baseline cell of c's workload, or NULL. */
struct tb_cell *tb_result_baseline(const struct tb_result *r, const struct tb_cell *c);

/* Build the JSON document (new reference) / write it atomically to path, or as name in the
 * directory d (mode 0644, core/outdir.h). The save functions say why they failed. */
json_t *tb_result_to_json(const struct tb_result *r);
int tb_result_save(const struct tb_result *r, const char *path);
struct tb_dir;
int tb_result_save_at(const struct tb_result *r, const struct tb_dir *d, const char *name);
/*
 * Load and validate path. Returns 0 and *out (caller frees), -ENOENT/-EIO when unreadable,
 * -EINVAL when malformed; the error names the file and the key ("r.json: cells[2].samples[0]
 * .ns_per_op: expected a number") and is printed with tb_err().
 */
int tb_result_load(const char *path, struct tb_result **out);
/* The same, also handing over the document as read (*doc, a new reference; NULL allowed), so
 * that keys this version does not model are not lost (the history stores it whole). */
int tb_result_load_doc(const char *path, struct tb_result **out, json_t **doc);
int tb_result_from_json(json_t *doc, const char *what, struct tb_result **out);
/* Append a rate model (NANs, zero counts) / free them all. NULL on ENOMEM. */
struct tb_rate_model *tb_result_add_rate_model(struct tb_result *r);
void tb_result_rate_models_free(struct tb_result *r);
/* Append a sweep (its model's numbers NAN) / a point of one (NAN) / free them all. NULL on
 * ENOMEM. */
/* Every figure of a knee model unknown (NAN), not accepted. */
void tb_knee_model_init(struct tb_knee_model *k);
struct tb_sweep *tb_result_add_sweep(struct tb_result *r);
struct tb_sweep_point *tb_sweep_add_point(struct tb_sweep *sw);
void tb_result_sweeps_free(struct tb_result *r);
/* Append a limit search (figures NAN) / a probe of one (NAN, counts -1) / free them all. NULL
 * on ENOMEM. */
struct tb_limit *tb_result_add_limit(struct tb_result *r);
struct tb_limit_probe *tb_limit_add_probe(struct tb_limit *l);
void tb_result_limits_free(struct tb_result *r);
/* The message of the last load/validation failure in this thread ("" when none). */
const char *tb_result_last_error(void);

#endif /* TB_RESULT_H */
