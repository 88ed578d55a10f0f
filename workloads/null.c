// SPDX-License-Identifier: GPL-2.0
/* null: an empty loop iteration per op, the floor of the harness's own cost per op. */
#include "core/tb.h"
#include "workloads/workload.h"

static int null_run_batch(struct tb_workload *w, uint64_t n)
{
	uint64_t i;

	/* The empty asm keeps the loop (and its counter) from being optimized away. */
	for (i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
	return 0;
}

/* Nothing but the loop: no syscall and no scheduler event per op. */
static int null_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	return 0;
}

const struct tb_workload_ops tb_workload_null = {
	.name = "null",
	.help = "empty loop iteration per op: the harness floor (loop + timing cost per op)",
	.run_batch = null_run_batch,
	.events = null_events,
};
