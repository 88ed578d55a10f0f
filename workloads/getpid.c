// SPDX-License-Identifier: GPL-2.0
/*
 * getpid: the cheapest real syscall, the syscall entry/exit floor (compare with
 * `perf bench syscall basic`, which calls getppid: `call = getppid` compares like with like).
 * syscall(SYS_getpid), since glibc versions have cached getpid().
 *
 * `calls` makes one op several syscalls and `work` adds computation after them: a sweep over
 * calls at a fixed work varies the traced events per op while the untraced work stays the same,
 * which is what the rate model needs (scenarios/rate-sweep.ini).
 *
 * `other-calls` makes that many of an op's calls the other syscall (getppid for getpid and
 * back): a filter that keeps only `call` (an ftrace `id == 39`, a BPF program's syscall-nr)
 * rejects exactly them, and the proof expects only the rest. A sweep over it at calls = 100
 * sets the share a filter rejects (0, 50, 90, 99, 100%) at a fixed number of syscalls, so its
 * slope is what a filtered-out event costs beyond an accepted one (scenarios/sweeps.ini).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workloads/common.h"
#include "core/inject.h"
#include "workloads/workload.h"

struct getpid_cfg {
	int call;
	int64_t calls;
	int64_t other_calls;
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
	{"other-calls", TB_OPT_INT, offsetof(struct getpid_cfg, other_calls), "0",
	 "of the op's calls, how many make the other syscall (getppid for getpid and back): a "
	 "filter on `call` rejects them (a selectivity sweep)",
	 0, 1000000, .unit = TB_UNIT_FILTERED},
	TB_WL_WORK_OPT(struct getpid_cfg, work),
	TB_OPT_END,
};

static int getpid_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct getpid_cfg *c = w->cfg;
	const long nr = call_nr[c->call], other = call_nr[!c->call];
	uint64_t i;
	int64_t k;

	/* tb_inject_point: the delay tracer's known cost; a load and a branch when off */
	if (c->other_calls) {
		for (i = 0; i < n; i++) {
			for (k = 0; k < c->calls; k++)
				syscall(k < c->other_calls ? other : nr);
			tb_inject_point();
			tb_wl_compute(c->work);
		}
		return 0;
	}
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

static int getpid_validate(const void *cfg, char *err, size_t len)
{
	const struct getpid_cfg *c = cfg;

	if (c->other_calls > c->calls) {
		snprintf(err, len, "other-calls: %lld is more than the op's calls (%lld)",
			 (long long)c->other_calls, (long long)c->calls);
		return -EINVAL;
	}
	return 0;
}

static const char *const call_names[] = {"syscall:getpid", "syscall:getppid"};

/* calls getpid (or getppid) syscalls per op, other-calls of them the other one, nothing else. */
static int getpid_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct getpid_cfg *c = cfg;
	const double own = (double)(c->calls - c->other_calls), other = (double)c->other_calls;
	int ret = 0;

	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	if (own > 0)
		ret = tb_op_events_syscall(ev, call_names[c->call], (int)call_nr[c->call], own, own,
					   TB_EV_SELF, 0);
	if (!ret && other > 0)
		ret = tb_op_events_syscall(ev, call_names[!c->call], (int)call_nr[!c->call], other,
					   other, TB_EV_SELF, 0);
	return ret;
}

const struct tb_workload_ops tb_workload_getpid = {
	.name = "getpid",
	.help = "raw syscall(SYS_getpid) (or getppid) per op: the syscall entry/exit floor (cf. "
		"perf bench syscall basic)",
	.opts = getpid_opts,
	.cfg_size = sizeof(struct getpid_cfg),
	.validate = getpid_validate,
	.run_batch = getpid_run_batch,
	.events = getpid_events,
};
