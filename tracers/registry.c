// SPDX-License-Identifier: GPL-2.0
/* The tracer registry, expanded from the one-line-per-tracer list in tracers/registry.h. */
#include <string.h>

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

const struct tb_tracer_ops *tb_tracer_find(const char *name)
{
	size_t i;

	for (i = 0; tb_tracers[i]; i++)
		if (!strcmp(tb_tracers[i]->name, name))
			return tb_tracers[i];
	return NULL;
}
