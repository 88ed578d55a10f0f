// SPDX-License-Identifier: GPL-2.0
/*
 * read: pread() of `size` bytes per op from a file in the page cache (created in the scratch
 * directory, or a user's file read through once in setup), or from a device like /dev/zero.
 * The offset walks the file and wraps, so every op copies from cached pages: the VFS read
 * path and copy_to_user, no I/O (the classic read() latency histogram exercise).
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

struct read_cfg {
	char *path;
	uint64_t size;
	uint64_t file_size;
	int64_t work;
};

struct read_priv {
	struct tb_wl_pio io; /* limit: the file's size; 0 (never moves) on a device */
	char path[4096];     /* the file we created, or "" */
};

static const struct tb_option read_opts[] = {
	{"path", TB_OPT_STRING, offsetof(struct read_cfg, path), "",
	 "file or device to read (e.g. /dev/zero); empty: a file of file-size created in the "
	 "scratch directory, in the page cache"},
	{"size", TB_OPT_SIZE, offsetof(struct read_cfg, size), "4K", "bytes per read() (op)", 1,
	 64 << 20},
	{"file-size", TB_OPT_SIZE, offsetof(struct read_cfg, file_size), "1M",
	 "size of the created file (reads walk it and wrap)", 1, 4ull << 30},
	TB_WL_WORK_OPT(struct read_cfg, work),
	TB_OPT_END,
};

static int read_validate(const void *cfg, char *err, size_t len)
{
	const struct read_cfg *c = cfg;
	struct stat st;
	int ret;

	if (!c->path || !*c->path) {
		if (c->file_size < c->size) {
			snprintf(err, len, "file-size: %llu bytes is smaller than size (%llu)",
				 (unsigned long long)c->file_size, (unsigned long long)c->size);
			return -EINVAL;
		}
		return 0;
	}
	ret = tb_wl_check_path("path", c->path, 0, R_OK, err, len);
	if (ret)
		return ret;
	if (stat(c->path, &st) || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
		snprintf(err, len, "path: %s: not a regular file or character device", c->path);
		return -EINVAL;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < c->size) {
		snprintf(err, len, "path: %s has %lld bytes, fewer than size (%llu)", c->path,
			 (long long)st.st_size, (unsigned long long)c->size);
		return -EINVAL;
	}
	return 0;
}

static int read_setup(struct tb_workload *w)
{
	const struct read_cfg *c = w->cfg;
	struct read_priv *p;
	struct stat st;
	uint64_t off;
	ssize_t n;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	ret = tb_wl_pio_init(&p->io, c->size, 0);
	if (ret)
		return ret;
	if (c->path && *c->path) {
		p->io.fd = open(c->path, O_RDONLY | O_CLOEXEC);
		if (p->io.fd < 0)
			goto fail_errno;
	} else {
		ret = tb_wl_path(w, "read", p->path, sizeof(p->path));
		if (ret)
			return ret;
		p->io.fd = open(p->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (p->io.fd < 0) {
			p->path[0] = '\0';
			goto fail_errno;
		}
		ret = tb_wl_fill(p->io.fd, c->file_size);
		if (ret)
			return ret;
	}
	if (fstat(p->io.fd, &st))
		goto fail_errno;
	if (S_ISREG(st.st_mode)) {
		p->io.limit = (uint64_t)st.st_size;
		/* Read it all once so every op hits the page cache. */
		for (off = 0; off + c->size <= p->io.limit; off += c->size) {
			n = pread(p->io.fd, p->io.buf, c->size, (off_t)off);
			if (n < 0)
				goto fail_errno;
		}
	}
	return 0;
fail_errno:
	ret = -errno;
	tb_err("%s: read: %s: %s", w->name, c->path && *c->path ? c->path : p->path,
	       strerror(errno));
	return ret;
}

static int read_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct read_cfg *c = w->cfg;
	struct read_priv *p = w->priv;
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = tb_wl_pio_op(&p->io, false);
		if (ret)
			return ret;
		if (c->work)
			tb_wl_compute(c->work);
	}
	return 0;
}

static void read_teardown(struct tb_workload *w)
{
	struct read_priv *p = w->priv;

	if (!p)
		return;
	tb_wl_pio_release(&p->io);
	if (p->path[0])
		unlink(p->path);
	free(p);
	w->priv = NULL;
}

/* One pread64 per op, from the page cache: no sleep, no scheduler event. */
static int read_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	return TB_OP_SYSCALL(ev, pread64, 1, TB_EV_SELF);
}

const struct tb_workload_ops tb_workload_read = {
	.name = "read",
	.help = "pread() of size bytes per op from a page-cached file or a device (VFS read path)",
	.opts = read_opts,
	.cfg_size = sizeof(struct read_cfg),
	.validate = read_validate,
	.setup = read_setup,
	.run_batch = read_run_batch,
	.teardown = read_teardown,
	.events = read_events,
};
