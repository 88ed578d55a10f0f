// SPDX-License-Identifier: GPL-2.0
/*
 * fork-exit: fork(), the child _exit(0)s at once, the parent waitpid()s it. One op is one
 * process created, exited and reaped (copy of the mm, exit, wait; sched_process_* tracepoints).
 * `memory` maps and touches that much first, so that fork has page tables to copy.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct fork_cfg {
	uint64_t memory;
};

struct fork_priv {
	void *mem;
	size_t len;
};

static const struct tb_option fork_opts[] = {
	{"memory", TB_OPT_SIZE, offsetof(struct fork_cfg, memory), "0",
	 "anonymous memory mapped and touched before the batch (more page tables to copy)", 0,
	 16ull << 30},
	TB_OPT_END,
};

static int fork_setup(struct tb_workload *w)
{
	const struct fork_cfg *c = w->cfg;
	struct fork_priv *p;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	if (!c->memory)
		return 0;
	p->mem = mmap(NULL, c->memory, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->mem == MAP_FAILED) {
		int ret = -errno;

		p->mem = NULL;
		tb_err("%s: memory: mmap of %llu bytes: %s", w->name, (unsigned long long)c->memory,
		       strerror(errno));
		return ret;
	}
	p->len = c->memory;
	memset(p->mem, 1, p->len);
	return 0;
}

static int fork_run_batch(struct tb_workload *w, uint64_t n)
{
	uint64_t i;
	pid_t pid;
	int st;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return -errno;
		if (pid == 0)
			_exit(0);
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				return -errno;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return -ECHILD;
	}
	return 0;
}

static void fork_teardown(struct tb_workload *w)
{
	struct fork_priv *p = w->priv;

	if (!p)
		return;
	if (p->mem)
		munmap(p->mem, p->len);
	free(p);
	w->priv = NULL;
}

/*
 * The parent: clone (fork) and wait4. The child: the return from clone, glibc's
 * set_robust_list and exit_group, which never returns. The scheduler: the child is created,
 * runs and exits, and wakes its waiting parent.
 */
static int fork_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	static const struct tb_op_spec op[] = {
		TB_OP_SC(clone, 1, TB_EV_SELF),
		TB_OP_SC(wait4, 1, TB_EV_SELF),
		TB_OP_SC_EXITS(clone, 0, 1, TB_EV_CHILD),
		TB_OP_SC(set_robust_list, 1, TB_EV_CHILD),
		TB_OP_SC_EXITS(exit_group, 1, 0, TB_EV_CHILD),
		TB_OP_EV("sched:sched_process_fork", 1, TB_EV_SELF, 0),
		TB_OP_EV("sched:sched_process_exit", 1, TB_EV_SELF, 0),
		TB_OP_EV("sched:sched_process_wait", 1, TB_EV_SELF, 0),
		TB_OP_EV("sched:sched_wakeup_new", 1, TB_EV_SELF, 0),
		TB_OP_EV("sched:sched_switch", 2, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("sched:sched_wakeup", 1, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("sched:sched_waking", 1, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("task:switches", 2, TB_EV_SELF, TB_EV_APPROX),
		TB_OP_EV("task:wakeups", 2, TB_EV_SELF, TB_EV_APPROX),
	};

	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	return tb_op_events_table(ev, op, TB_ARRAY_SIZE(op));
}

const struct tb_workload_ops tb_workload_fork_exit = {
	.name = "fork-exit",
	.help = "fork(), child _exit(0), parent waitpid() per op (process creation and exit)",
	.opts = fork_opts,
	.cfg_size = sizeof(struct fork_cfg),
	.setup = fork_setup,
	.run_batch = fork_run_batch,
	.teardown = fork_teardown,
	.events = fork_events,
};
