// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-touch: mmap() `size` bytes of anonymous memory, write one byte per page, munmap(). One
 * op costs size / page size minor page faults plus the mmap/munmap syscalls (the page fault
 * path, page allocation and zeroing, TLB shootdown on unmap).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct mmap_cfg {
	uint64_t size;
	int64_t work;
};

struct mmap_priv {
	size_t page;
};

static const struct tb_option mmap_opts[] = {
	{"size", TB_OPT_SIZE, offsetof(struct mmap_cfg, size), "256K",
	 "bytes mapped per op, one write per page (faults per op = size / page size)", 1,
	 1ull << 30},
	TB_WL_WORK_OPT(struct mmap_cfg, work),
	TB_OPT_END,
};

static int mmap_setup(struct tb_workload *w)
{
	struct mmap_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->page = (size_t)sysconf(_SC_PAGESIZE);
	w->priv = p;
	return 0;
}

static int mmap_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct mmap_cfg *c = w->cfg;
	const struct mmap_priv *p = w->priv;
	size_t off, len = (size_t)c->size;
	volatile char *m;
	uint64_t i;

	for (i = 0; i < n; i++) {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -errno;
		for (off = 0; off < len; off += p->page)
			m[off] = 1;
		if (munmap((void *)m, len))
			return -errno;
		if (c->work)
			tb_wl_compute(c->work);
	}
	return 0;
}

static void mmap_teardown(struct tb_workload *w)
{
	free(w->priv);
	w->priv = NULL;
}

/* mmap, one minor fault per page touched, munmap. tests/unit/runner-window.c saw ~0.6 scheduler
 * events per op where none were expected. */
static int mmap_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct mmap_cfg *c = cfg;
	double pages = (double)((c->size + (uint64_t)sysconf(_SC_PAGESIZE) - 1) /
				(uint64_t)sysconf(_SC_PAGESIZE));
	int ret;

	/* Allocating and freeing pages may hand work to kworkers (wakeups, switches): the
	 * scheduler's events per op are not known. */
	ev->syscalls_known = TB_EV_KNOWN_ALL;
	ev->sched_known = 0;
	ret = TB_OP_SYSCALL(ev, mmap, 1, TB_EV_SELF);
	if (!ret)
		ret = TB_OP_SYSCALL(ev, munmap, 1, TB_EV_SELF);
	if (!ret)
		ret = tb_op_events_add(ev, "task:page-faults", pages, TB_EV_SELF, TB_EV_APPROX);
	if (!ret)
		ret = tb_op_events_add(ev, "exceptions:page_fault_user", pages, TB_EV_SELF,
				       TB_EV_APPROX);
	return ret;
}

const struct tb_workload_ops tb_workload_mmap_touch = {
	.name = "mmap-touch",
	.help = "mmap anonymous memory, touch every page, munmap per op (page faults)",
	.opts = mmap_opts,
	.cfg_size = sizeof(struct mmap_cfg),
	.setup = mmap_setup,
	.run_batch = mmap_run_batch,
	.teardown = mmap_teardown,
	.events = mmap_events,
};
