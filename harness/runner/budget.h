/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A run's time budget ([global] max-time): what the runner measures to honour it, and how it
 * decides (METHODOLOGY.md 2.1 and 2.8). After calibration, each traced cell whose batch is a
 * number of ops gets one short probe sample under its tracer (TB_PLAN_PROBE_NS of baseline
 * ops, its tracer set up; a tracer the run keeps is parked and a second probe rearms it): its
 * ns/op over the baseline's is the cell's slowdown, the time beside the batches its fixed cost
 * (a fresh sample's, a rearmed one's). With the duration the run's to choose, the other cells
 * are probed for their fixed cost too, and the plan's rule is applied again to the measured
 * costs (each cell's declared one the least): a longer duration replaces the plan's.
 * A cell at least TB_PLAN_SIZE_SLOWDOWN times slower gets its own op count, the baseline's
 * divided by its slowdown, so that its samples last about the duration instead of that many
 * durations. With the duration the run's to choose (plan/plan.h, tb_plan_auto_length), it is
 * shortened until the warmups and the rounds asked fit. Then the rounds that fit are said, and
 * a warning names the max-time the rounds asked need when they do not. Before every round the
 * stop rule weighs the next round's time (each cell's samples as they took so far) and what
 * must follow the rounds (the held tracers' teardown, the explain phase): no round starts
 * that would not end within max-time.
 */
#ifndef TB_RUNNER_BUDGET_H
#define TB_RUNNER_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "runner/sample.h" /* struct tb_runner and its budget */

/*
 * After calibration, before the disk check and the warmups: with a max-time, probe the traced
 * cells, size their op counts, fit the duration, set every cell's ops_per_sample and slowdown
 * and r's max_time_needed_s, fill rn->budget, warn when the rounds asked do not fit. Without
 * one, only the cells' ops_per_sample. Returns 0, -EINTR (a stop was requested) or -ENOMEM.
 */
int tb_runner_budget_start(struct tb_runner *rn);

/*
 * The next measured round's wall time: each live cell's sample at the mean wall time of its
 * samples so far (the budget's prediction for a cell not yet timed), and each accounting
 * sample likewise when the round takes them (accounting-every).
 */
double tb_runner_round_s(const struct tb_runner *rn);
/* What must follow the rounds: the held tracers' teardown and the explain phase (s). */
double tb_runner_tail_s(const struct tb_runner *rn);
/* Does one more round and the tail fit max-time, elapsed_ns after the runner's start (true
 * without a max-time). */
bool tb_runner_round_fits(const struct tb_runner *rn, uint64_t elapsed_ns);

#endif /* TB_RUNNER_BUDGET_H */
