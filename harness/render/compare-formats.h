/* SPDX-License-Identifier: GPL-2.0 */
/* The outputs of `tracebench compare`: a comparison (stats/compare.h) as JSON, table, Markdown. */
#ifndef TB_COMPARE_FORMATS_H
#define TB_COMPARE_FORMATS_H

#include <jansson.h>
#include <stdio.h>

#include "stats/service.h" /* enum tb_stats_svc */

struct tb_comparison;
struct tb_cmp_row;
struct tb_cmp_sweep;

/* One compared sweep as every output words it: its name ("tracer d: probes against w, per
 * probe"), A's and B's slope with its CI ("-" absent, "refused"), the change [CI] or why none. */
struct tb_render_sweep_row {
	char name[160], a[64], b[64], change[128];
};
void tb_render_compare_sweep_text(struct tb_render_sweep_row *t, const struct tb_cmp_sweep *d);

/* Service metric m of matched row w (stats/compare.h, has_svc) as every output words it: its
 * name ("throughput", "p50", "p99"), A's and B's medians in unit ("req/s"; latencies in "us"),
 * the change ("-10.00% [-11.02, -8.97]"), Mann-Whitney's p and the verdict ("worse"). */
struct tb_render_svc_row {
	const char *name, *unit, *verdict; /* static strings */
	char a[32], b[32], change[64], p[32];
};
void tb_render_compare_svc_text(struct tb_render_svc_row *t, const struct tb_cmp_row *w,
				enum tb_stats_svc m);

/* The comparison as a JSON object: a new reference (the caller owns it), NULL on ENOMEM. */
json_t *tb_render_compare_json(const struct tb_comparison *c);
/* The terminal table: environment differences, then one line per matched cell. */
void tb_render_compare_print(FILE *f, const struct tb_comparison *c);
/* The same as Markdown (a pull-request comment); names are escaped for table cells. */
void tb_render_compare_markdown(FILE *f, const struct tb_comparison *c);

#endif /* TB_COMPARE_FORMATS_H */
