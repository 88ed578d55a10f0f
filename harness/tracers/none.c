// SPDX-License-Identifier: GPL-2.0
/* The baseline: no tracer at all. Cells with it are what every traced cell is compared to. */
#include "core/tb.h"
#include "tracers/tracer.h"

/* Every callback exists (and does nothing) so the runner needs no special case. */
static int none_setup(struct tb_tracer *t)
{
	return 0;
}

static int none_start(struct tb_tracer *t)
{
	return 0;
}

static int none_stop(struct tb_tracer *t)
{
	return 0;
}

static int none_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	st->events = 0;
	st->lost = 0;
	st->cpu_s = 0;
	st->mem_bytes = 0;
	return 0;
}

static void none_teardown(struct tb_tracer *t)
{
}

static int none_hooks(const void *cfg, struct tb_hooks *h)
{
	h->kind = TB_HOOK_NONE;
	return 0;
}

static const struct tb_option none_opts[] = {
	TB_OPT_END,
};

const struct tb_tracer_ops tb_tracer_none = {
	.name = "none",
	.help = "no tracer: the baseline every traced cell is compared to",
	.opts = none_opts,
	.cfg_size = 0,
	.flags = TB_TR_BASELINE | TB_TR_NOEVENTS | TB_TR_NOSETTLE,
	.setup = none_setup,
	.start = none_start,
	.stop = none_stop,
	.collect = none_collect,
	.teardown = none_teardown,
	.hooks = none_hooks,
};
