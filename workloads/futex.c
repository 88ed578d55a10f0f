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

const struct tb_workload_ops tb_workload_futex = {
	.name = "futex",
	.help = "FUTEX_WAKE/FUTEX_WAIT round trip with a partner thread (futex and wakeup paths)",
	.setup = futex_setup,
	.run_batch = futex_run_batch,
	.teardown = futex_teardown,
};
