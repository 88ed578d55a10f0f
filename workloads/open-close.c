// SPDX-License-Identifier: GPL-2.0
/*
 * open-close: open(O_RDONLY) + close() of an existing file per op: path lookup (one dentry per
 * component, `depth` directories deep under the scratch directory), file allocation and
 * release, fd table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct oc_cfg {
	char *path;
	int64_t depth;
	int64_t work;
};

struct oc_priv {
	char path[4096]; /* what each op opens */
	char top[4096];	 /* what we created ("" for a user path) */
};

static const struct tb_option oc_opts[] = {
	{"path", TB_OPT_STRING, offsetof(struct oc_cfg, path), "",
	 "existing file to open; empty: a file created `depth` directories deep in the scratch "
	 "directory"},
	{"depth", TB_OPT_INT, offsetof(struct oc_cfg, depth), "3",
	 "directories between the scratch directory and the created file (path components to "
	 "look up)",
	 0, 64},
	TB_WL_WORK_OPT(struct oc_cfg, work),
	TB_OPT_END,
};

static int oc_validate(const void *cfg, char *err, size_t len)
{
	const struct oc_cfg *c = cfg;

	if (c->path && *c->path)
		return tb_wl_check_path("path", c->path, 0, R_OK, err, len);
	return 0;
}

static int oc_setup(struct tb_workload *w)
{
	const struct oc_cfg *c = w->cfg;
	struct oc_priv *p;
	size_t n;
	int64_t i;
	int fd, ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	if (c->path && *c->path) {
		snprintf(p->path, sizeof(p->path), "%s", c->path);
	} else {
		ret = tb_wl_path(w, "open-close", p->top, sizeof(p->top));
		if (ret)
			return ret;
		snprintf(p->path, sizeof(p->path), "%s", p->top);
		if (mkdir(p->top, 0700) && errno != EEXIST)
			goto fail_errno;
		for (i = 0; i < c->depth; i++) {
			n = strlen(p->path);
			if (n + 8 >= sizeof(p->path))
				return -ENAMETOOLONG;
			snprintf(p->path + n, sizeof(p->path) - n, "/d%lld", (long long)i);
			if (mkdir(p->path, 0700) && errno != EEXIST)
				goto fail_errno;
		}
		n = strlen(p->path);
		snprintf(p->path + n, sizeof(p->path) - n, "/file");
		fd = open(p->path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0)
			goto fail_errno;
		close(fd);
	}
	fd = open(p->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail_errno;
	close(fd);
	return 0;
fail_errno:
	ret = -errno;
	tb_err("%s: %s: %s", w->name, p->path, strerror(errno));
	return ret;
}

static int oc_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct oc_cfg *c = w->cfg;
	const struct oc_priv *p = w->priv;
	uint64_t i;
	int fd;

	for (i = 0; i < n; i++) {
		fd = open(p->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		close(fd);
		if (c->work)
			tb_wl_compute(c->work);
	}
	return 0;
}

static void oc_teardown(struct tb_workload *w)
{
	struct oc_priv *p = w->priv;

	if (!p)
		return;
	if (p->top[0])
		tb_rm_rf(p->top);
	free(p);
	w->priv = NULL;
}

/* open() is openat() in glibc; one close. The path is cached: no sleep. */
static int oc_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	int ret;

	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	ret = TB_OP_SYSCALL(ev, openat, 1, TB_EV_SELF);
	return ret ? ret : TB_OP_SYSCALL(ev, close, 1, TB_EV_SELF);
}

const struct tb_workload_ops tb_workload_open_close = {
	.name = "open-close",
	.help = "open() + close() of an existing file per op (VFS path lookup, file lifetime)",
	.opts = oc_opts,
	.cfg_size = sizeof(struct oc_cfg),
	.validate = oc_validate,
	.setup = oc_setup,
	.run_batch = oc_run_batch,
	.teardown = oc_teardown,
	.events = oc_events,
};
