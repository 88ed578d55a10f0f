/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting pass (count.c; METHODOLOGY.md "The proof for a service"): for a workload whose
 * op is not declared but counted (TB_WL_COUNTED: the services), one untimed sample of it with
 * no tracer, in which the kernel counts the tracepoints its cells' tracers hook in the cgroup
 * of the process they follow (host/cgroup-count.h). The counts per op become the entries
 * (TB_EV_COUNTED) that the proof's expectation matches with each cell's hooks, as a bundled
 * workload's declared table is. Runs once per such workload, after calibration; the counters
 * are never open during a timed sample.
 */
#ifndef TB_RUNNER_COUNT_H
#define TB_RUNNER_COUNT_H

#include <stddef.h>

#include "runner/sample.h"

/*
 * Count workload section wi's hooked tracepoints per op into rn->counted[wi] (said at info
 * level). A workload that is not counted, or whose cells hook no tracepoint, is left alone; a
 * pass that cannot count (no perf cgroup counters, the sample failed) is said as a warning and
 * leaves the expectation unknown. Returns 0, -EINTR when a stop was requested, or -ENOMEM.
 */
int tb_runner_count(struct tb_runner *rn, size_t wi);
/* Free rn->counted (tb_runner_free). */
void tb_runner_count_free(struct tb_runner *rn);

#endif /* TB_RUNNER_COUNT_H */
