// SPDX-License-Identifier: GPL-2.0
/*
 * getpid: the cheapest real syscall, the syscall entry/exit floor (compare with
 * `perf bench syscall basic`, which calls getppid: `call = getppid` compares like with like).
 * syscall(SYS_getpid), since glibc versions have cached getpid().
 *
 * `calls` makes one op several syscalls and `work` adds computation after them: a sweep over
 * calls at a fixed work varies the traced events per op while the untraced work stays the same,
 * which is what the rate model needs (scenarios/rate-sweep.ini).
 */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workloads/common.h"
#include "core/inject.h"
#include "workloads/workload.h"

struct getpid_cfg {
	int call;
	int64_t calls;
	int64_t work;
};

/* getppid: what `perf bench syscall basic` calls, for a like-for-like comparison. */
static const char *const calls[] = {"getpid", "getppid", NULL};
static const long call_nr[] = {SYS_getpid, SYS_getppid};

static const struct tb_option getpid_opts[] = {
	{"call", TB_OPT_CHOICE, offsetof(struct getpid_cfg, call), "getpid",
	 "the syscall made: getpid, or getppid (as perf bench syscall basic)", 0, 0, calls},
	{"calls", TB_OPT_INT, offsetof(struct getpid_cfg, calls), "1",
	 "syscalls per op (a rate sweep varies them at a fixed work)", 1, 1000000},
	TB_WL_WORK_OPT(struct getpid_cfg, work),
	TB_OPT_END,
};

static int getpid_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct getpid_cfg *c = w->cfg;
	const long nr = call_nr[c->call];
	uint64_t i;
	int64_t k;

	/* tb_inject_point: the delay tracer's known cost; a load and a branch when off */
	if (!c->work && c->calls == 1) {
		for (i = 0; i < n; i++) {
			syscall(nr);
			tb_inject_point();
		}
		return 0;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < c->calls; k++)
			syscall(nr);
		tb_inject_point();
		tb_wl_compute(c->work);
	}
	return 0;
}

/* calls getpid (or getppid) syscalls per op, nothing else. */
static int getpid_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct getpid_cfg *c = cfg;

	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	return tb_op_events_syscall(ev, c->call ? "syscall:getppid" : "syscall:getpid",
				    (int)call_nr[c->call], (double)c->calls, (double)c->calls,
				    TB_EV_SELF, 0);
}

const struct tb_workload_ops tb_workload_getpid = {
	.name = "getpid",
	.help = "raw syscall(SYS_getpid) (or getppid) per op: the syscall entry/exit floor (cf. "
		"perf bench syscall basic)",
	.opts = getpid_opts,
	.cfg_size = sizeof(struct getpid_cfg),
	.run_batch = getpid_run_batch,
	.events = getpid_events,
};
