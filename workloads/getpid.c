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
 *
 * `partner = process` hands each op, after its own calls, to a partner process over a pipe
 * (one byte each way, on the workload's CPU, as pipe-pingpong's processes mode) and waits:
 * the partner makes `partner-calls` of the op's calls. The partner is forked before any tracer
 * filters the workload, so a pid filter rejects its calls, and a sweep over partner-calls at
 * calls = 100 is the pid filter's selectivity sweep: the hand-over is in every point and in
 * the baseline, and cancels.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/inject.h"
#include "core/io.h"
#include "workloads/common.h"
#include "workloads/workload.h"

struct getpid_cfg {
	int call;
	int64_t calls;
	int64_t other_calls;
	int64_t work;
	int partner;
	int64_t partner_calls;
};

enum { PARTNER_NONE, PARTNER_PROCESS };
static const char *const partners[] = {"none", "process", NULL};

/* The partner of partner = process: the pipes' ends and the process. */
struct getpid_priv {
	struct tb_wl_pipes pipes;
	long nr;
	int64_t calls;
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
	{"partner", TB_OPT_CHOICE, offsetof(struct getpid_cfg, partner), "none",
	 "process: each op ends handing over to a partner process (a pipe round trip) that makes "
	 "partner-calls of its calls",
	 0, 0, partners},
	{"partner-calls", TB_OPT_INT, offsetof(struct getpid_cfg, partner_calls), "0",
	 "of the op's calls, how many the partner process makes (partner = process): a pid filter "
	 "on the workload rejects them (a selectivity sweep)",
	 0, 1000000, .unit = TB_UNIT_FILTERED},
	TB_WL_WORK_OPT(struct getpid_cfg, work),
	TB_OPT_END,
};

/* The partner: per byte received, its calls, then the byte back; returns at EOF. */
static void *getpid_partner(void *arg)
{
	struct getpid_priv *p = arg;
	char b;

	while (!tb_read_full(p->pipes.to[0], &b, 1)) {
		for (int64_t k = 0; k < p->calls; k++)
			syscall(p->nr);
		if (tb_write_full(p->pipes.from[1], &b, 1))
			break;
	}
	return NULL;
}

static void getpid_teardown(struct tb_workload *w)
{
	struct getpid_priv *p = w->priv;

	if (!p)
		return;
	tb_wl_pipes_stop(&p->pipes);
	free(p);
	w->priv = NULL;
}

static int getpid_setup(struct tb_workload *w)
{
	const struct getpid_cfg *c = w->cfg;
	struct getpid_priv *p;
	char b = 0;

	if (c->partner == PARTNER_NONE)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nr = call_nr[c->call];
	p->calls = c->partner_calls;
	w->priv = p;
	return tb_wl_pipes_start(&p->pipes, w->name, true, getpid_partner, p, &b, 1);
}

/* Ops with a partner: own calls here, then the partner's over a pipe round trip. */
static int partner_batch(struct tb_workload *w, uint64_t n)
{
	const struct getpid_cfg *c = w->cfg;
	struct getpid_priv *p = w->priv;
	const int64_t own = c->calls - c->partner_calls;
	char b = 0;
	int ret;

	for (uint64_t i = 0; i < n; i++) {
		for (int64_t k = 0; k < own; k++)
			syscall(p->nr);
		ret = tb_wl_pipes_round_trip(&p->pipes, &b, 1);
		if (ret)
			return ret;
		tb_inject_point();
		tb_wl_compute(c->work);
	}
	return 0;
}

static int getpid_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct getpid_cfg *c = w->cfg;
	const long nr = call_nr[c->call], other = call_nr[!c->call];
	uint64_t i;
	int64_t k;

	if (c->partner != PARTNER_NONE)
		return partner_batch(w, n);

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
	if (c->partner_calls && c->partner == PARTNER_NONE) {
		snprintf(err, len,
			 "partner-calls: needs partner = process (a partner to make them)");
		return -EINVAL;
	}
	if (c->partner_calls > c->calls) {
		snprintf(err, len, "partner-calls: %lld is more than the op's calls (%lld)",
			 (long long)c->partner_calls, (long long)c->calls);
		return -EINVAL;
	}
	if (c->partner != PARTNER_NONE && c->other_calls) {
		snprintf(err, len,
			 "other-calls and partner = process: one selectivity at a time (a syscall "
			 "filter's or a pid filter's)");
		return -EINVAL;
	}
	return 0;
}

static const char *const call_names[] = {"syscall:getpid", "syscall:getppid"};

/*
 * With a partner: calls - partner-calls calls here, partner-calls in the partner, and the pipe
 * round trip's (write + read here, read + write there, and its hand-overs).
 */
static int partner_events(const struct getpid_cfg *c, const struct tb_op_context *ctx,
			  struct tb_op_events *ev)
{
	const double own = (double)(c->calls - c->partner_calls), theirs = (double)c->partner_calls;
	int ret;

	ret = tb_wl_pingpong_events(ev, ctx, true, "syscall:write", SYS_write, "syscall:read",
				    SYS_read, 0);
	if (!ret && own > 0)
		ret = tb_op_events_syscall(ev, call_names[c->call], (int)call_nr[c->call], own, own,
					   TB_EV_SELF, 0);
	if (!ret && theirs > 0)
		ret = tb_op_events_syscall(ev, call_names[c->call], (int)call_nr[c->call], theirs,
					   theirs, TB_EV_PARTNER, 0);
	return ret;
}

/* calls getpid (or getppid) syscalls per op, other-calls of them the other one, nothing else. */
static int getpid_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct getpid_cfg *c = cfg;
	const double own = (double)(c->calls - c->other_calls), other = (double)c->other_calls;
	int ret = 0;

	if (c->partner != PARTNER_NONE)
		return partner_events(c, ctx, ev);
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
	.setup = getpid_setup,
	.run_batch = getpid_run_batch,
	.teardown = getpid_teardown,
	.events = getpid_events,
};
