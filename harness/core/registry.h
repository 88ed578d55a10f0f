/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The start-up check of the plugin registries (workloads/registry.c, tracers/registry.c): what
 * every ops table needs, whatever its kind. Each registry describes its tables; this checks them.
 */
#ifndef TB_REGISTRY_H
#define TB_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/options.h"

/* One ops table as the check sees it. */
struct tb_plugin_desc {
	const char *name, *help;
	const struct tb_option *opts;
	size_t cfg_size;
	const char *defect; /* what the registry found wrong with its callbacks, or NULL */
};

/* The description of an ops table (a workload's or a tracer's: both have these members). */
#define TB_PLUGIN_DESC(ops, defect_)                          \
	((struct tb_plugin_desc){.name = (ops)->name,         \
				 .help = (ops)->help,         \
				 .opts = (ops)->opts,         \
				 .cfg_size = (ops)->cfg_size, \
				 .defect = (defect_)})

/*
 * Check every table that describe(ctx, i, d) fills for i = 0, 1, ... until it returns false: a
 * name no other table has, help, no defect, a well-formed option table (tb_opts_check). Each
 * failure is logged as "bug: <kind> ops table <i> '<name>': <reason>". Returns 0 or -EINVAL.
 */
int tb_plugins_check(const char *kind, const void *ctx,
		     bool (*describe)(const void *ctx, size_t i, struct tb_plugin_desc *d));

#endif /* TB_REGISTRY_H */
