// SPDX-License-Identifier: GPL-2.0
/* The workload registry, expanded from the one-line-per-workload list in workloads/registry.h. */
#include <string.h>

#include "core/registry.h"
#include "workloads/workload.h"

#define TB_WORKLOAD(x) extern const struct tb_workload_ops tb_workload_##x;
#include "workloads/registry.h"
#undef TB_WORKLOAD

const struct tb_workload_ops *const tb_workloads[] = {
#define TB_WORKLOAD(x) &tb_workload_##x,
#include "workloads/registry.h"
#undef TB_WORKLOAD
	NULL,
};

const struct tb_workload_ops *tb_workload_find(const char *name)
{
	size_t i;

	for (i = 0; tb_workloads[i]; i++)
		if (!strcmp(tb_workloads[i]->name, name))
			return tb_workloads[i];
	return NULL;
}

static bool describe(const void *ctx, size_t i, struct tb_plugin_desc *d)
{
	const struct tb_workload_ops *const *list = ctx, *ops = list[i];

	if (!ops)
		return false;
	*d = TB_PLUGIN_DESC(ops, !ops->run_batch		? "no run_batch"
				 : !ops->events			? "no events (what one op does)"
				 : ops->setup && !ops->teardown ? "setup without teardown"
								: NULL);
	return true;
}

int tb_workload_ops_check(const struct tb_workload_ops *const *list)
{
	return tb_plugins_check("workload", list, describe);
}
