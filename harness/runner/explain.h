/* SPDX-License-Identifier: GPL-2.0 */
/* The explain phase of a run (runner/explain.c). */
#ifndef TB_RUNNER_EXPLAIN_H
#define TB_RUNNER_EXPLAIN_H

#include "runner/sample.h"

/*
 * The explain phase (runner/explain.c), after the measured rounds so that it never touches a
 * measured sample: explain_samples rounds, each running every explained cell and its
 * workload's baseline once in a fresh shuffled order, with the explain profiler around each
 * sample's batch; then rn->on_explained per explained cell. A cell whose profiles cannot be
 * taken is handed over with the reason. Returns 0 (also when nothing is explained), -EINTR, or
 * -ENOMEM.
 */
int tb_runner_explain(struct tb_runner *rn);
#endif
