// SPDX-License-Identifier: GPL-2.0
/*
 * exec: fork() (or posix_spawn, which uses clone(CLONE_VM | CLONE_VFORK)), execve() of a tiny
 * static helper that exits at once, waitpid(). One op is one program executed: binfmt loading,
 * mm setup and teardown, sched_process_exec. The helper is build/helpers/tb-exit.
 */
#include <errno.h>
#include <spawn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/workload.h"

#define HELPER "tb-exit"

struct exec_cfg {
	char *path;
	int method;
};

struct exec_priv {
	char path[4096];
	char *argv[2];
	char *envp[1];
};

static const char *const methods[] = {"fork", "posix_spawn", NULL};

static const struct tb_option exec_opts[] = {
	{"path", TB_OPT_STRING, offsetof(struct exec_cfg, path), "",
	 "program to execute (no arguments); empty: the static helper " HELPER},
	{"method", TB_OPT_CHOICE, offsetof(struct exec_cfg, method), "fork",
	 "fork + execve, or posix_spawn (vfork-like clone)", 0, 0, methods},
	TB_OPT_END,
};

static int exec_supported(char *why, size_t len)
{
	char path[4096];

	return tb_wl_find_helper(HELPER, path, sizeof(path), why, len);
}

static int exec_validate(const void *cfg, char *err, size_t len)
{
	const struct exec_cfg *c = cfg;

	if (!c->path || !*c->path)
		return 0;
	return tb_wl_check_path("path", c->path, S_IFREG, X_OK, err, len);
}

static int exec_setup(struct tb_workload *w)
{
	const struct exec_cfg *c = w->cfg;
	struct exec_priv *p;
	char why[512];
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	if (c->path && *c->path) {
		snprintf(p->path, sizeof(p->path), "%s", c->path);
	} else {
		ret = tb_wl_find_helper(HELPER, p->path, sizeof(p->path), why, sizeof(why));
		if (ret) {
			tb_err("%s: %s", w->name, why);
			return ret;
		}
	}
	p->argv[0] = p->path;
	return 0;
}

static int exec_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct exec_cfg *c = w->cfg;
	struct exec_priv *p = w->priv;
	uint64_t i;
	pid_t pid;
	int st, ret;

	for (i = 0; i < n; i++) {
		if (c->method == 1) {
			ret = posix_spawn(&pid, p->path, NULL, NULL, p->argv, p->envp);
			if (ret)
				return -ret;
		} else {
			pid = fork();
			if (pid < 0)
				return -errno;
			if (pid == 0) {
				execve(p->path, p->argv, p->envp);
				_exit(127);
			}
		}
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				return -errno;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			w->exit_status = st;
			return -ECHILD;
		}
	}
	return 0;
}

static void exec_teardown(struct tb_workload *w)
{
	free(w->priv);
	w->priv = NULL;
}

/*
 * The parent's side is known: fork's clone (posix_spawn's clone3) and wait4, and with fork
 * the child's return from clone, set_robust_list and execve. What the executed program does
 * at start-up is its C library's business: the child's syscalls are a lower bound.
 */
static int exec_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	static const struct tb_op_spec by_fork[] = {
		TB_OP_SC(clone, 1, TB_EV_SELF),
		TB_OP_SC_EXITS(clone, 0, 1, TB_EV_CHILD),
	};
	static const struct tb_op_spec by_spawn[] = {
		TB_OP_SC(clone3, 1, TB_EV_SELF),
	};
	static const struct tb_op_spec op[] = {
		TB_OP_SC(wait4, 1, TB_EV_SELF),
		TB_OP_SC(execve, 1, TB_EV_CHILD),
		TB_OP_SC_EXITS(exit_group, 1, 0, TB_EV_CHILD),
		TB_OP_EV("sched:sched_process_exec", 1, TB_EV_SELF, 0),
		TB_OP_EV("sched:sched_process_fork", 1, TB_EV_SELF, 0),
		TB_OP_EV("sched:sched_process_exit", 1, TB_EV_SELF, 0),
	};
	const struct exec_cfg *c = cfg;
	int ret;

	ev->syscalls_known = TB_EV_KNOWN(TB_EV_SELF);
	ev->sched_known = 0;
	ret = c->method == 1 ? tb_op_events_table(ev, by_spawn, TB_ARRAY_SIZE(by_spawn))
			     : tb_op_events_table(ev, by_fork, TB_ARRAY_SIZE(by_fork));
	return ret ? ret : tb_op_events_table(ev, op, TB_ARRAY_SIZE(op));
}

const struct tb_workload_ops tb_workload_exec = {
	.name = "exec",
	.help = "fork + execve of a tiny static helper + waitpid per op (exec path, mm setup)",
	.opts = exec_opts,
	.cfg_size = sizeof(struct exec_cfg),
	.supported = exec_supported,
	.validate = exec_validate,
	.setup = exec_setup,
	.run_batch = exec_run_batch,
	.teardown = exec_teardown,
	.events = exec_events,
};
