// SPDX-License-Identifier: GPL-2.0
/*
 * cpu: pure computation, no syscalls, no memory traffic. A control: a syscall tracer must
 * show no overhead here (a sampling profiler will).
 */
#include <stddef.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct cpu_cfg {
	int64_t iterations;
};

static const struct tb_option cpu_opts[] = {
	{"iterations", TB_OPT_INT, offsetof(struct cpu_cfg, iterations), "1000",
	 "multiply-add steps per op (1-3 ns each)", 1, 1e9},
	TB_OPT_END,
};

static int cpu_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct cpu_cfg *c = w->cfg;
	uint64_t i;

	for (i = 0; i < n; i++)
		tb_wl_compute(c->iterations);
	return 0;
}

/* Computation only: no syscall and no scheduler event per op (the control). */
static int cpu_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	return 0;
}

const struct tb_workload_ops tb_workload_cpu = {
	.name = "cpu",
	.help = "pure computation per op, no syscalls (control: syscall tracers add nothing)",
	.opts = cpu_opts,
	.cfg_size = sizeof(struct cpu_cfg),
	.run_batch = cpu_run_batch,
	.events = cpu_events,
};
