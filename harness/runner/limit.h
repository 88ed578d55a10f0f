/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `run --find-limit` (limit.c; METHODOLOGY.md "Sweeps", "Saturation by bisection"): after the
 * measured rounds, each traced cell whose tracer loses events in a buffer it names (tracer.h
 * buffer_key) is searched by bisection (plan/limit.h), each probe a short measured run of the
 * cell and its baseline through the runner, with the normal proofs. The rate search raises the
 * workload's offered event rate along a chain of its knobs (plan/limit.h): less `work` after
 * each op's calls, then more `calls` per op, then more `threads` while each has a CPU of its
 * own, until its buffer loses events; the buffer search finds the setting that offers a named
 * rate the same way, then the smallest buffer (powers of two) that holds it there. What the
 * probes say is stats/limit.h's to conclude.
 */
#ifndef TB_RUNNER_LIMIT_H
#define TB_RUNNER_LIMIT_H

#include "runner/sample.h"

/* The workload options a search varies, in the chain's order: computation after each op's calls
 * (workloads/common.h), then calls per op; then the section's threads. */
#define TB_LIMIT_KNOB  "work"
#define TB_LIMIT_CALLS "calls"
/* The first work when the section sets none (~100k events/s at calls = 10 here). */
#define TB_LIMIT_START_WORK 65536
/* Measured rounds of a probe: its samples are the loss figure, not an overhead's CI. */
#define TB_LIMIT_ROUNDS 2

struct tb_runner_limit_req {
	double target; /* events/s: the smallest buffer that holds it; NAN: the rate search */
	/* After every probe (may be NULL): the search and the probe just added to it. */
	void (*on_probe)(void *ctx, const struct tb_limit *l, const struct tb_limit_probe *p);
	void *ctx;
};

/*
 * Which traced cells of the plan can be searched. A cell cannot when its tracer counts no
 * events, has no buffer knob (tracer.h buffer_key), loses none in a buffer in this
 * configuration, has its buffer at auto, or its workload has no knob of the chain (no work, no
 * calls, and no CPU for another thread): said as a
 * warning for each, and when no cell is left each is an error and -EINVAL (exit 2). 0 when
 * at least one can.
 */
int tb_runner_limit_check(const struct tb_plan *p, const struct tb_result *r);

/*
 * What the searches will add to the run (seconds), for the plan's text: a probe is a
 * calibration and TB_LIMIT_ROUNDS rounds of two of the plan's mean samples, a rate search
 * typically TB_LIMIT_TYPICAL_PROBES of them (a buffer search twice that). The cells it will
 * search into *ncells.
 */
#define TB_LIMIT_TYPICAL_PROBES 8
double tb_runner_limit_estimate_s(const struct tb_plan *p, const struct tb_result *r, bool buffer,
				  size_t *ncells);

/*
 * Search every cell tb_runner_limit_check accepts into rn->r->limits (one per cell), with
 * rn's plan, result and run directory (the probes' tracers write under it as the run's do).
 * The scenario's sections and rounds are changed for each probe and restored after it.
 * Returns 0, -EINTR on a stop request, or -errno (said).
 */
int tb_runner_limits(struct tb_runner *rn, const struct tb_runner_limit_req *req);

#endif /* TB_RUNNER_LIMIT_H */
