// SPDX-License-Identifier: GPL-2.0
/* The plugin registries, expanded from workloads/list.h and tracers/list.h. */
#include <string.h>

#include "core/tb.h"

#define TB_WORKLOAD(x) extern const struct tb_workload tb_workload_##x;
#include "workloads/registry.h"
#undef TB_WORKLOAD
#define TB_TRACER(x) extern const struct tb_tracer tb_tracer_##x;
#include "tracers/registry.h"
#undef TB_TRACER

const struct tb_workload *const tb_workloads[] = {
#define TB_WORKLOAD(x) &tb_workload_##x,
#include "workloads/registry.h"
#undef TB_WORKLOAD
	NULL,
};

const struct tb_tracer *const tb_tracers[] = {
#define TB_TRACER(x) &tb_tracer_##x,
#include "tracers/registry.h"
#undef TB_TRACER
	NULL,
};

const struct tb_workload *tb_workload_find(const char *name)
{
	size_t i;

	for (i = 0; tb_workloads[i]; i++)
		if (!strcmp(tb_workloads[i]->name, name))
			return tb_workloads[i];
	return NULL;
}

const struct tb_tracer *tb_tracer_find(const char *name)
{
	size_t i;

	for (i = 0; tb_tracers[i]; i++)
		if (!strcmp(tb_tracers[i]->name, name))
			return tb_tracers[i];
	return NULL;
}
