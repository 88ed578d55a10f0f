// SPDX-License-Identifier: GPL-2.0
/*
 * nanosleep: clock_nanosleep(CLOCK_MONOTONIC, relative `sleep`) per op: the hrtimer path,
 * a sleep and a timer wakeup (sched_switch, sched_wakeup, hrtimer_* tracepoints). The key is
 * `sleep`, not `duration`: `duration` is the harness's per-sample duration in every workload
 * section, this one's too.
 *
 * Wakeup lateness (time slept beyond `sleep`) is ns/op - sleep, and per op in latency mode. It is also reported as the sample's metric (mean lateness in ns), from one clock read
 * pair per run_batch call, never per op. Linux adds the thread's timer slack (50 us by default
 * for normal threads) to every sleep; `slack` sets it (prctl PR_SET_TIMERSLACK) for the run.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct ns_cfg {
	uint64_t sleep_ns;
	int64_t slack;
};

struct ns_priv {
	struct timespec ts;
	double late_sum; /* ns slept beyond sleep_ns, since the harness last cleared has_metric */
	uint64_t late_n;
	int old_slack;
};

static const struct tb_option ns_opts[] = {
	{"sleep", TB_OPT_DURATION, offsetof(struct ns_cfg, sleep_ns), "50us",
	 "the time each op sleeps (relative clock_nanosleep)", 1, 10e9},
	{"slack", TB_OPT_INT, offsetof(struct ns_cfg, slack), "-1",
	 "timer slack in ns for the sleeping thread (PR_SET_TIMERSLACK; -1: leave the default, "
	 "50 us for normal threads)",
	 -1, 1e9},
	TB_OPT_END,
};

static int ns_setup(struct tb_workload *w)
{
	const struct ns_cfg *c = w->cfg;
	struct ns_priv *p;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	p->ts.tv_sec = (time_t)(c->sleep_ns / 1000000000ull);
	p->ts.tv_nsec = (long)(c->sleep_ns % 1000000000ull);
	p->old_slack = -1;
	if (c->slack >= 0) {
		p->old_slack = prctl(PR_GET_TIMERSLACK);
		/* 0 would mean "back to the default": the smallest slack is 1 ns */
		if (prctl(PR_SET_TIMERSLACK, c->slack ? (unsigned long)c->slack : 1ul)) {
			int ret = -errno;

			tb_err("%s: slack: PR_SET_TIMERSLACK: %s", w->name, strerror(errno));
			return ret;
		}
	}
	return 0;
}

static inline uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int ns_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct ns_cfg *c = w->cfg;
	struct ns_priv *p = w->priv;
	uint64_t i, t0, t1;
	int ret;

	t0 = mono_ns();
	for (i = 0; i < n; i++) {
		ret = clock_nanosleep(CLOCK_MONOTONIC, 0, &p->ts, NULL);
		if (ret && ret != EINTR)
			return -ret;
	}
	t1 = mono_ns();
	if (!w->has_metric) {
		p->late_sum = 0;
		p->late_n = 0;
	}
	p->late_sum += (double)(t1 - t0) - (double)n * (double)c->sleep_ns;
	p->late_n += n;
	w->has_metric = p->late_n > 0;
	w->metric = p->late_n ? p->late_sum / (double)p->late_n : 0;
	return 0;
}

static void ns_teardown(struct tb_workload *w)
{
	struct ns_priv *p = w->priv;

	if (!p)
		return;
	/* slack is per thread: restore it, this thread may be the caller's */
	if (p->old_slack > 0)
		prctl(PR_SET_TIMERSLACK, (unsigned long)p->old_slack);
	free(p);
	w->priv = NULL;
}

/*
 * One clock_nanosleep per op: the thread switches out to sleep and back in when the timer
 * wakes it (one wakeup, two switches involving it).
 */
static int ns_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	static const struct tb_op_spec op[] = {
		TB_OP_SC(clock_nanosleep, 1, TB_EV_SELF),
		TB_OP_EV("sched:sched_switch", 2, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("sched:sched_wakeup", 1, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("sched:sched_waking", 1, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("task:switches", 1, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("task:wakeups", 1, TB_EV_SELF, TB_EV_APPROX),
	};

	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	return tb_op_events_table(ev, op, TB_ARRAY_SIZE(op));
}

const struct tb_workload_ops tb_workload_nanosleep = {
	.name = "nanosleep",
	.help = "clock_nanosleep of sleep per op (timer path; metric: mean wakeup lateness, ns)",
	.opts = ns_opts,
	.cfg_size = sizeof(struct ns_cfg),
	.setup = ns_setup,
	.run_batch = ns_run_batch,
	.teardown = ns_teardown,
	.events = ns_events,
};
