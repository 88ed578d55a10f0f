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

/* Two groups (combine A... --against B...): each group's table, then B against A per cell in
 * both: each side's combined figure and the change with its interval and p ("*": the interval
 * excludes 0). */
void tb_render_combine_changes_print(FILE *f, const struct tb_combination *a,
				     const struct tb_combination *b,
				     const struct tb_comb_change *ch, size_t n);
/* The same as JSON (new reference; NULL on ENOMEM): {a, b, warnings, changes: [{id,
 * overhead_pct, ns_per_op: {diff, ci, df, p, significant} or null}], only_in_a, only_in_b}. */
json_t *tb_render_combine_changes_json(const struct tb_combination *a,
				       const struct tb_combination *b,
				       const struct tb_comb_change *ch, size_t n);

#endif /* TB_COMBINE_FORMATS_H */
