/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The derived facts of a cell that more than one stage needs, computed in one place: which
 * samples count, and the totals over them. The runner's aggregation, the statistics, the plots
 * and the reports all call these, so they cannot disagree.
 */
#ifndef TB_MEASURED_H
#define TB_MEASURED_H

#include <stdbool.h>
#include <stdint.h>

#include "model/result.h"

/* A sample counts in statistics: a completed measured round (not a warmup, not the round a
 * stop interrupted, not a contended round run again), the sample completed (not failed, not
 * abandoned), finite ns/op. */
bool tb_sample_measured(const struct tb_sample *s);
/* An accounting sample that completed in a completed round: the accounting's own figures. */
bool tb_sample_accounted(const struct tb_sample *s);
/*
 * s is one of the samples c's event counts come from: its measured samples, or, when none of
 * them knows its count (a command tracer's BPF runs: run_cnt is counted only while the stats
 * are on, which the timed samples run without), its accounting samples.
 */
bool tb_sample_counts_events(const struct tb_cell *c, const struct tb_sample *s);
/* How many samples c's event counts come from (tb_sample_counts_events). */
size_t tb_cell_nevent_samples(const struct tb_cell *c);
/* Measured samples of c. */
size_t tb_cell_nmeasured(const struct tb_cell *c);
/*
 * Events recorded (lost) over the samples c's counts come from (tb_sample_counts_events),
 * summed; -1 when none knows its count. The runner stores these as the cell's totals.
 */
int64_t tb_cell_events_sum(const struct tb_cell *c);
int64_t tb_cell_lost_sum(const struct tb_cell *c);
/* The cell's totals: events_recorded (events_lost) when known, else the sums above. */
int64_t tb_cell_events(const struct tb_cell *c);
int64_t tb_cell_lost(const struct tb_cell *c);
/*
 * The workload's own share of a system-wide count over c's measured samples (tracers that
 * attribute one, core/events.h); -1 when no measured sample knows it.
 */
int64_t tb_cell_workload_events(const struct tb_cell *c);
/*
 * Context switches (voluntary and involuntary) of the workload process per op and thread
 * over c's measured samples, from getrusage; NAN when unknown.
 */
double tb_cell_ctxsw_per_op(const struct tb_cell *c);
/*
 * The share of c's measured thread time its workload spent waiting, runnable, for a CPU that
 * another task held (samples' cpu_wait_ns over elapsed times threads); NAN when unknown, and
 * for a workload whose own tasks take turns on its CPU (c->partner_cpu: the wait is theirs).
 */
double tb_cell_cpu_wait_share(const struct tb_cell *c);
/*
 * The share of sample s of cell c's batch the machine took from its workload: the larger of its
 * threads' CPU wait (cpu_wait_ns over elapsed times c's threads; not for c->partner_cpu, whose
 * own tasks wait for each other there) and the steal on the ncpus CPUs it was pinned to (0: none
 * named); NAN when neither is known. *why (may be NULL) names the larger: "cpu-wait" or "steal".
 */
double tb_sample_contended_share(const struct tb_cell *c, const struct tb_sample *s,
				 unsigned int ncpus, const char **why);
/*
 * In-kernel ns per run of program p of c (run_time_ns / runs; p NULL: of all c's programs);
 * NAN when unknown or without a run.
 */
double tb_cell_bpf_ns_per_run(const struct tb_cell *c, const struct tb_cell_prog *p);
/*
 * Runs per op and thread of program p of c (NULL: all of c's programs): its runs over the ops
 * of the measured samples it was found in. NAN when unknown.
 */
double tb_cell_bpf_runs_per_op(const struct tb_cell *c, const struct tb_cell_prog *p);
/*
 * The share of the measured overhead that the program's own run time accounts for: runs/op x
 * ns/run against the overhead in ns/op (p NULL: all of c's programs). Above 1 when the runs
 * cost more than the workload lost (other tasks' runs, noise); NAN without a positive
 * overhead or run figures.
 */
double tb_cell_bpf_share(const struct tb_cell *c, const struct tb_cell_prog *p);
/* The tracer's CPU seconds over c's measured samples; NAN when unknown. */
double tb_cell_tracer_cpu_s(const struct tb_cell *c);
/*
 * The consumer's CPU per event in ns: tracer_cpu_s (reader thread, pipe reader, child
 * processes) over the events of the same samples: a sample's own, a cell's summed over its
 * measured samples. NAN without CPU time or events; 0 for a tracer with no consumer.
 */
double tb_sample_consumer_ns_per_event(const struct tb_sample *s);
double tb_cell_consumer_ns_per_event(const struct tb_cell *c);
/* The bytes the tracer wrote to files per event, over c's measured samples that know both;
 * NAN when none does. */
double tb_cell_disk_bytes_per_event(const struct tb_cell *c);
/*
 * Events per second the traced workload achieved: the cell's events (tb_cell_events) over its
 * measured samples' elapsed time. NAN when there are no events or no elapsed time.
 */
double tb_cell_event_rate(const struct tb_cell *c);
/* The x of a rate sweep: tb_cell_event_rate, else the cell's target rate (NAN when neither). */
double tb_cell_sweep_rate(const struct tb_cell *c);
/* True when c's workload is part of a rate sweep (its config says rate-sweep = true). */
bool tb_cell_in_sweep(const struct tb_cell *c);

/*
 * Set every cell's totals from its measured samples: events_recorded, events_lost,
 * tracer_cpu_s, and for rate-sweep cells the achieved event rate as the cell's rate. The
 * runner calls this after every round; the statistics read the totals.
 */
void tb_result_update_totals(struct tb_result *r);
/* The rate model the statistics fitted for c's (tracer, workload type), or NULL. */
const struct tb_rate_model *tb_result_rate_model(const struct tb_result *r,
						 const struct tb_cell *c);

/* Bytes r's tracers wrote to files over every sample (warmups too: they were written), kept or
 * deleted (keep-raw); -1 when no sample knows. */
int64_t tb_result_disk_bytes(const struct tb_result *r);

/*
 * What a traced cell's tracer hooks, in a few words, for tables and plots that rank probe
 * types: its tracer's label (tracers/tracer.h tb_tracer_label, from the cell's tracer_config
 * and tracer_extra; the type name for a tracer without one). Into buf (always terminated);
 * returns buf.
 */
const char *tb_cell_probe_label(const struct tb_cell *c, char *buf, size_t len);

/* The host a result was measured on: system.hostname, or "unknown host". Never NULL. */
const char *tb_result_host(const struct tb_result *r);
/* Its kernel release (system.kernel.release, older layouts' kernel_release, kernel.version or
 * kernel), or NULL when the result does not say. */
const char *tb_result_kernel(const struct tb_result *r);

#endif /* TB_MEASURED_H */
