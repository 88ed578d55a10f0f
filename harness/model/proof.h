/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The proof of tracing, in one place: what a traced cell should record per op (matching its
 * workload's events per op with its tracer's hooks, core/events.h), whether what it recorded
 * proves that it traced the workload, whether its ns/event means a cost per event of the
 * workload, and what else drives its cost when that is not per event.
 *
 * The runner computes the expectation once per cell (tb_proof_expect) and stores it in the
 * result ([expected_events]); the statistics judge it from the stored figures alone
 * (tb_proof_judge), so gate, compare and report reach the same conclusion from result files.
 * doc/statistics.md ("Proof of tracing") states the rules.
 */
#ifndef TB_PROOF_H
#define TB_PROOF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/events.h"
#include "model/result.h"

/* Tolerances of the proof (doc/statistics.md). */
#define TB_PROOF_EXACT_TOL     0.01  /* exact entries: within 1% */
#define TB_PROOF_APPROX_FACTOR 2.0   /* approximate entries: within a factor of 2 */
#define TB_PROOF_BG_PER_OP     0.002 /* a scheduler hook expected 0: preemptions, per op ... */
#define TB_PROOF_BG_PER_NS     5e-6  /* ... plus this per ns of the op (5000 per second) */
#define TB_PROOF_DRIVER_MIN    0.01  /* context switches per op below this: none to speak of */
#define TB_PROOF_DRIVER_RATIO  10.0  /* one driver must outnumber the other this much */

/*
 * Match what one op does (ops, for every thread of the cell) with what the tracer hooks (h),
 * plus what the harness itself does in a traced window (harness, per sample, may be NULL),
 * into *out (zeroed first, present set). Never fails: what neither side can say is recorded as
 * unknown.
 */
void tb_proof_expect(const struct tb_op_events *ops, const struct tb_hooks *h,
		     const struct tb_op_events *harness, struct tb_expected *out);

/*
 * Judge a traced cell from its stored figures: its expectation, its events over its measured
 * samples (the workload's share when the tracer attributes one), its ops, and ns_per_op (the
 * traced median, for the preemption allowance; NAN: none). noevents: the tracer counts nothing
 * by design (TB_TR_NOEVENTS). Fills *p (initialised first).
 */
void tb_proof_judge(const struct tb_cell *c, double ns_per_op, bool noevents, struct tb_proof *p);

/*
 * Whether the cell's ns/event is a cost per event of the workload: a per-event tracer (or a
 * counter of occurrences on a workload that does not switch), a proof that matched, and a
 * count of the workload's events only. Returns true, or false with the reason in why.
 */
bool tb_proof_ns_per_event_ok(const struct tb_cell *c, const struct tb_proof *p, char *why,
			      size_t len);

/*
 * Whether the outputs quote c's cost figures (its ns/event, or its cost per context switch or
 * sample): only a traced cell whose verdict is "overhead". A cost per event of an effect the
 * data cannot tell from zero (or cannot trust) is noise divided by a count, no figure anyone
 * should quote. Returns true, or false with why (static text; why may be NULL). The terminal
 * summary, the HTML report, the gate's figures, the ns/event ranking and the ns-per-event plot
 * all ask this instead of deciding themselves.
 */
bool tb_proof_cost_shown(const struct tb_cell *c, const char **why);
/*
 * Whether the outputs quote c's ns/event: a cost per event of the workload (the statistics
 * left ns_per_event finite, tb_proof_ns_per_event_ok) whose cost figures are shown
 * (tb_proof_cost_shown). Returns true, or false with why: the statistics' reason first (the
 * cost is not per event, whatever the verdict), else tb_proof_cost_shown's (why may be NULL).
 */
bool tb_proof_ns_per_event_shown(const struct tb_cell *c, const char **why);

/*
 * What drives the cost of a tracer that is not per event: "context switch" (a per-task perf
 * event is switched with the workload's tasks) or "sample", with how many per op and thread.
 * Returns true and the unit (static) and *per_op, or false with the reason in why.
 */
bool tb_proof_driver(const struct tb_cell *c, const struct tb_proof *p, const char **unit,
		     double *per_op, char *why, size_t len);

/* The JSON names of the outcomes ("match", ...; "" for none) and back (-1: unknown). */
const char *tb_proof_outcome_name(enum tb_proof_outcome o);
int tb_proof_outcome_parse(const char *s);

#endif /* TB_PROOF_H */
