// SPDX-License-Identifier: GPL-2.0
/* The start-up check of the plugin registries (registry.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/registry.h"
#include "core/tb.h"

/* What is wrong with table i (d), in err; 0 when nothing is. */
static int check_one(const void *ctx,
		     bool (*describe)(const void *ctx, size_t i, struct tb_plugin_desc *d),
		     size_t i, const struct tb_plugin_desc *d, char *err, size_t len)
{
	struct tb_plugin_desc other;
	size_t j;

	if (!d->name || !*d->name) {
		snprintf(err, len, "no name");
		return -EINVAL;
	}
	for (j = 0; j < i && describe(ctx, j, &other); j++) {
		if (other.name && !strcmp(other.name, d->name)) {
			snprintf(err, len, "table %zu has that name too", j);
			return -EINVAL;
		}
	}
	if (!d->help || !*d->help || d->defect) {
		snprintf(err, len, "%s", d->defect ? d->defect : "no help");
		return -EINVAL;
	}
	return tb_opts_check(d->opts, d->cfg_size, err, len);
}

int tb_plugins_check(const char *kind, const void *ctx,
		     bool (*describe)(const void *ctx, size_t i, struct tb_plugin_desc *d))
{
	struct tb_plugin_desc d;
	char err[256];
	int ret = 0;
	size_t i;

	for (i = 0; describe(ctx, i, &d); i++) {
		if (check_one(ctx, describe, i, &d, err, sizeof(err))) {
			tb_err("bug: %s ops table %zu '%s': %s", kind, i,
			       d.name && *d.name ? d.name : "?", err);
			ret = -EINVAL;
		}
	}
	return ret;
}
