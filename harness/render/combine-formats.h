/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `tracebench combine`'s outputs (stats/combine.h): the terminal table and the JSON document.
 * doc/statistics.md, "combine", defines every number.
 */
#ifndef TB_COMBINE_FORMATS_H
#define TB_COMBINE_FORMATS_H

#include <jansson.h>
#include <stdio.h>

#include "stats/combine.h"

/* The table: one block per traced cell, its two measures combined and what the runs say. */
void tb_render_combine_print(FILE *f, const struct tb_combination *c);
/* The JSON document (new reference; NULL on ENOMEM): {alpha, runs, hardware_classes,
 * scenarios, cells: [{id, runs, failed, untrustworthy, overhead_pct, ns_per_op}]}. */
json_t *tb_render_combine_json(const struct tb_combination *c);

#endif /* TB_COMBINE_FORMATS_H */
