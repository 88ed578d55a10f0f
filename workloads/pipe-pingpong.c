// SPDX-License-Identifier: GPL-2.0
/*
 * pipe-pingpong: a message bounced over two pipes between this thread and a partner (a
 * process by default, as `perf bench sched pipe`; or a thread, as its -T). One op is one round
 * trip: write + read here, read + write there, so two wakeups and (on one CPU) two context
 * switches per op: the scheduler's wakeup and switch paths.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/io.h"
#include "workloads/common.h"
#include "workloads/workload.h"

struct pipe_cfg {
	int mode;
	uint64_t size;
};

struct pipe_priv {
	struct tb_wl_pipes pipes;
	size_t size;
	char buf[4096];
	char pbuf[4096]; /* the partner's (thread mode shares the process) */
};

static const struct tb_option pipe_opts[] = {
	{"mode", TB_OPT_CHOICE, offsetof(struct pipe_cfg, mode), "processes",
	 "partner is a forked process (as perf bench sched pipe) or a thread (its -T)", 0, 0,
	 tb_wl_partner_modes},
	{"size", TB_OPT_SIZE, offsetof(struct pipe_cfg, size), "4",
	 "bytes per message each way (perf bench uses 4; at most PIPE_BUF)", 1, 4096},
	TB_OPT_END,
};

static void *pipe_partner(void *arg)
{
	struct pipe_priv *p = arg;

	while (!tb_read_full(p->pipes.to[0], p->pbuf, p->size))
		if (tb_write_full(p->pipes.from[1], p->pbuf, p->size))
			break;
	return NULL;
}

static int pipe_setup(struct tb_workload *w)
{
	const struct pipe_cfg *c = w->cfg;
	struct pipe_priv *p;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	p->size = (size_t)c->size;
	return tb_wl_pipes_start(&p->pipes, w->name, c->mode == TB_WL_PARTNER_PROCESSES,
				 pipe_partner, p, p->buf, p->size);
}

static int pipe_run_batch(struct tb_workload *w, uint64_t n)
{
	struct pipe_priv *p = w->priv;
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = tb_wl_pipes_round_trip(&p->pipes, p->buf, p->size);
		if (ret)
			return ret;
	}
	return 0;
}

static void pipe_teardown(struct tb_workload *w)
{
	struct pipe_priv *p = w->priv;

	if (!p)
		return;
	tb_wl_pipes_stop(&p->pipes);
	free(p);
	w->priv = NULL;
}

/* write + read here, read + write in the partner; at most PIPE_BUF bytes: whole transfers. */
static int pipe_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct pipe_cfg *c = cfg;

	return tb_wl_pingpong_events(ev, ctx, c->mode == TB_WL_PARTNER_PROCESSES, "syscall:write",
				     SYS_write, "syscall:read", SYS_read, 0);
}

const struct tb_workload_ops tb_workload_pipe_pingpong = {
	.name = "pipe-pingpong",
	.help = "round trip of a message over two pipes with a partner process or thread "
		"(wakeups, context switches; cf. perf bench sched pipe)",
	.opts = pipe_opts,
	.cfg_size = sizeof(struct pipe_cfg),
	.setup = pipe_setup,
	.run_batch = pipe_run_batch,
	.teardown = pipe_teardown,
	.events = pipe_events,
	.flags = TB_WL_PARTNER_CPU, /* the partner inherits its CPU */
};
