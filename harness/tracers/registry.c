// SPDX-License-Identifier: GPL-2.0
/* The tracer registry, expanded from the one-line-per-tracer list in tracers/registry.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/registry.h"
#include "core/tb.h"
#include "tracers/tracer.h"

#define TB_TRACER(x) extern const struct tb_tracer_ops tb_tracer_##x;
#include "tracers/registry.h"
#undef TB_TRACER

const struct tb_tracer_ops *const tb_tracers[] = {
#define TB_TRACER(x) &tb_tracer_##x,
#include "tracers/registry.h"
#undef TB_TRACER
	NULL,
};

void tb_tracer_fail(struct tb_tracer *t, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tb_err("[tracer %s] %s", t->name, msg);
}

const struct tb_tracer_ops *tb_tracer_find(const char *name)
{
	size_t i;

	for (i = 0; tb_tracers[i]; i++)
		if (!strcmp(tb_tracers[i]->name, name))
			return tb_tracers[i];
	return NULL;
}

static bool describe(const void *ctx, size_t i, struct tb_plugin_desc *d)
{
	const struct tb_tracer_ops *const *list = ctx, *ops = list[i];

	if (!ops)
		return false;
	*d = TB_PLUGIN_DESC(
		ops, !(ops->setup && ops->start && ops->stop && ops->collect && ops->teardown)
			     ? "setup, start, stop, collect and teardown are all needed"
		     : !ops->hooks ? "no hooks (what it hooks and counts)"
		     : ops->est_rearm_ns && !ops->rearm
			     ? "est_rearm_ns is the cost of a rearm, but there is no rearm"
			     : NULL);
	return true;
}

int tb_tracer_ops_check(const struct tb_tracer_ops *const *list)
{
	return tb_plugins_check("tracer", list, describe);
}
