// SPDX-License-Identifier: GPL-2.0
/*
 * futex: wake/wait ping-pong between this thread and a partner thread on one futex word. One
 * op is one round trip: FUTEX_WAKE the partner, FUTEX_WAIT until it wakes us back (the futex
 * hash, wakeup and scheduler paths, without the pipe's VFS layer).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct futex_priv {
	_Atomic uint32_t turn; /* 0: ours (partner waits), 1: the partner's (we wait) */
	_Atomic bool stop;
	pthread_t partner;
	bool started;
};

static long futex(_Atomic uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void *futex_partner(void *arg)
{
	struct futex_priv *p = arg;

	for (;;) {
		while (atomic_load(&p->turn) == 0)
			futex(&p->turn, FUTEX_WAIT_PRIVATE, 0);
		if (atomic_load(&p->stop))
			break;
		atomic_store(&p->turn, 0);
		futex(&p->turn, FUTEX_WAKE_PRIVATE, 1);
	}
	return NULL;
}

static int futex_setup(struct tb_workload *w)
{
	struct futex_priv *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	ret = -pthread_create(&p->partner, NULL, futex_partner, p);
	if (ret) {
		tb_err("%s: cannot start the partner thread: %s", w->name, strerror(-ret));
		return ret;
	}
	p->started = true;
	return 0;
}

static int futex_run_batch(struct tb_workload *w, uint64_t n)
{
	struct futex_priv *p = w->priv;
	uint64_t i;

	for (i = 0; i < n; i++) {
		atomic_store(&p->turn, 1);
		futex(&p->turn, FUTEX_WAKE_PRIVATE, 1);
		while (atomic_load(&p->turn) == 1)
			futex(&p->turn, FUTEX_WAIT_PRIVATE, 1);
	}
	return 0;
}

static void futex_teardown(struct tb_workload *w)
{
	struct futex_priv *p = w->priv;

	if (!p)
		return;
	if (p->started) {
		atomic_store(&p->stop, true);
		atomic_store(&p->turn, 1);
		futex(&p->turn, FUTEX_WAKE_PRIVATE, 1);
		pthread_join(p->partner, NULL);
	}
	free(p);
	w->priv = NULL;
}

/*
 * FUTEX_WAKE and FUTEX_WAIT on both threads, but a side that is preempted by the wakeup it
 * caused finds its turn already come and skips its wait: 3 to 4 futex calls per op, each
 * hand-over a wakeup and a switch (both threads are the workload's).
 */
static int futex_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	static const char *const sched[] = {"sched:sched_switch", "sched:sched_wakeup",
					    "sched:sched_waking", "task:switches", "task:wakeups"};
	size_t i;
	int ret;

	ev->syscalls_known = TB_EV_KNOWN_ALL;
	ret = tb_op_events_syscall(ev, "syscall:futex", SYS_futex, 3.5, 3.5, TB_EV_SELF,
				   TB_EV_APPROX);
	if (ret || !ctx->one_cpu)
		return ret;
	ev->sched_known = TB_EV_KNOWN_ALL;
	for (i = 0; !ret && i < TB_ARRAY_SIZE(sched); i++)
		ret = tb_op_events_add(ev, sched[i], 2, TB_EV_SELF, TB_EV_APPROX);
	return ret;
}

const struct tb_workload_ops tb_workload_futex = {
	.name = "futex",
	.help = "FUTEX_WAKE/FUTEX_WAIT round trip with a partner thread (futex and wakeup paths)",
	.setup = futex_setup,
	.run_batch = futex_run_batch,
	.teardown = futex_teardown,
	.events = futex_events,
	.flags = TB_WL_PARTNER_CPU, /* the partner inherits its CPU */
};
