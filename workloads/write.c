// SPDX-License-Identifier: GPL-2.0
/*
 * write: pwrite() of `size` bytes per op to a file in `dir` (default: the scratch directory),
 * walking the file and wrapping at file-size, optionally followed by fsync() or fdatasync()
 * (then the filesystem's journal and the block layer are in the path). The file is unlinked
 * as soon as it is open (O_TMPFILE where supported), so a killed run leaves nothing behind.
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

struct write_cfg {
	char *dir;
	uint64_t size;
	uint64_t file_size;
	int sync;
	int64_t work;
};

struct write_priv {
	struct tb_wl_pio io; /* limit: file-size */
};

enum { SYNC_NONE, SYNC_FSYNC, SYNC_FDATASYNC };
static const char *const syncs[] = {"none", "fsync", "fdatasync", NULL};

static const struct tb_option write_opts[] = {
	{"dir", TB_OPT_STRING, offsetof(struct write_cfg, dir), "",
	 "directory for the file (its filesystem is what is measured); empty: scratch directory"},
	{"size", TB_OPT_SIZE, offsetof(struct write_cfg, size), "4K", "bytes per write() (op)", 1,
	 64 << 20},
	{"file-size", TB_OPT_SIZE, offsetof(struct write_cfg, file_size), "1M",
	 "writes walk the file up to this size and wrap", 1, 4ull << 30},
	{"fsync", TB_OPT_CHOICE, offsetof(struct write_cfg, sync), "none",
	 "after every write: none, fsync or fdatasync", 0, 0, syncs},
	TB_WL_WORK_OPT(struct write_cfg, work),
	TB_OPT_END,
};

static int write_validate(const void *cfg, char *err, size_t len)
{
	const struct write_cfg *c = cfg;

	if (c->file_size < c->size) {
		snprintf(err, len, "file-size: %llu bytes is smaller than size (%llu)",
			 (unsigned long long)c->file_size, (unsigned long long)c->size);
		return -EINVAL;
	}
	if (c->dir && *c->dir)
		return tb_wl_check_path("dir", c->dir, S_IFDIR, W_OK, err, len);
	return 0;
}

static int write_setup(struct tb_workload *w)
{
	const struct write_cfg *c = w->cfg;
	const char *dir = c->dir && *c->dir ? c->dir : w->tmpdir;
	struct write_priv *p;
	char path[4096];
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	ret = tb_wl_pio_init(&p->io, c->size, 'w');
	if (ret)
		return ret;
	p->io.limit = c->file_size;
	p->io.fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (p->io.fd < 0) {
		snprintf(path, sizeof(path), "%s/tracebench-write-XXXXXX", dir);
		p->io.fd = mkostemp(path, O_CLOEXEC);
		if (p->io.fd >= 0)
			unlink(path);
	}
	if (p->io.fd < 0) {
		ret = -errno;
		tb_err("%s: dir: cannot create a file in %s: %s", w->name, dir, strerror(errno));
		return ret;
	}
	/* Allocate the blocks now: the batch overwrites, it does not extend the file. */
	ret = tb_wl_fill(p->io.fd, c->file_size);
	if (!ret && c->sync != SYNC_NONE && fsync(p->io.fd))
		ret = -errno;
	if (ret)
		tb_err("%s: writing %s: %s", w->name, dir, strerror(-ret));
	return ret;
}

static int write_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct write_cfg *c = w->cfg;
	struct write_priv *p = w->priv;
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = tb_wl_pio_op(&p->io, true);
		if (ret)
			return ret;
		if (c->sync == SYNC_FSYNC && fsync(p->io.fd))
			return -errno;
		if (c->sync == SYNC_FDATASYNC && fdatasync(p->io.fd))
			return -errno;
		if (c->work)
			tb_wl_compute(c->work);
	}
	return 0;
}

static void write_teardown(struct tb_workload *w)
{
	struct write_priv *p = w->priv;

	if (!p)
		return;
	tb_wl_pio_release(&p->io);
	free(p);
	w->priv = NULL;
}

/*
 * One pwrite64 per op, and the fsync or fdatasync after it; a sync may sleep on the journal,
 * so only a write without one has known scheduler events (none).
 */
static int write_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct write_cfg *c = cfg;
	int ret;

	ev->syscalls_known = TB_EV_KNOWN_ALL;
	ev->sched_known = c->sync == SYNC_NONE ? TB_EV_KNOWN_ALL : 0;
	ret = TB_OP_SYSCALL(ev, pwrite64, 1, TB_EV_SELF);
	if (!ret && c->sync == SYNC_FSYNC)
		ret = TB_OP_SYSCALL(ev, fsync, 1, TB_EV_SELF);
	if (!ret && c->sync == SYNC_FDATASYNC)
		ret = TB_OP_SYSCALL(ev, fdatasync, 1, TB_EV_SELF);
	return ret;
}

const struct tb_workload_ops tb_workload_write = {
	.name = "write",
	.help = "pwrite() of size bytes per op to a file in dir, optionally fsync'd (VFS write "
		"path, page cache, filesystem)",
	.opts = write_opts,
	.cfg_size = sizeof(struct write_cfg),
	.validate = write_validate,
	.setup = write_setup,
	.run_batch = write_run_batch,
	.teardown = write_teardown,
	.events = write_events,
};
