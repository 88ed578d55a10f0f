/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything compare, gate, plot and report do with a result that loaded, in one function, for
 * the result fuzzer (fuzz_result.c) and the table-driven test of crafted numbers
 * (tests/unit/model-json-values.c): the statistics, a comparison of the result with a second copy of
 * itself, the gate (with the copy as its baseline) and its three file formats, the terminal
 * table, the HTML reports, and the plot data files (TB_PLOT_DATA_ONLY) into dir. Outputs go to
 * /dev/null or into dir; only a crash, a sanitizer report or a leak can fail.
 *
 * Included by one file of each program (static functions, no object of its own). The caller
 * sets TB_GNUPLOT to a missing program so that the report does not run gnuplot per input.
 */
#ifndef TB_FUZZ_DRIVE_H
#define TB_FUZZ_DRIVE_H

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/compare-formats.h"
#include "render/gate-formats.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "render/summary.h"
#include "model/anonymize.h"
#include "model/result.h"
#include "stats/compare.h"
#include "stats/gate.h"
#include "stats/stats.h"

/* Bootstrap resamples per interval: enough to exercise the code, few enough to fuzz quickly. */
#define TB_DRIVE_RESAMPLES 200

static void tb_drive_gate(FILE *null, struct tb_result *r, struct tb_result *old)
{
	struct tb_gate_opts o;
	struct tb_gate g;
	json_t *j;

	tb_gate_opts_init(&o);
	o.name = "fuzz.json";
	o.baseline_name = "old.json";
	if (tb_gate_evaluate(&g, r, old, &o))
		return;
	tb_render_gate_print(null, &g);
	tb_render_gate_junit(null, &g);
	tb_render_gate_markdown(null, &g);
	j = tb_render_gate_benchmark_json(&g);
	json_decref(j);
	tb_gate_release(&g);
}

/*
 * Drive r (and b, a second load of the same document; both are analysed and changed) through
 * every consumer. Returns 0, or -ENOMEM when something could not even start.
 */
static int tb_drive_result(struct tb_result *r, struct tb_result *b, const char *dir)
{
	struct tb_comparison *cmp = NULL;
	char path[4096 + 32];
	FILE *null;
	json_t *j;

	if (strlen(dir) > 4000)
		return -ENAMETOOLONG;
	null = fopen("/dev/null", "w");
	if (!null)
		return -ENOMEM;
	if (r->resamples > TB_DRIVE_RESAMPLES || !r->resamples)
		r->resamples = TB_DRIVE_RESAMPLES;
	if (b->resamples > TB_DRIVE_RESAMPLES || !b->resamples)
		b->resamples = TB_DRIVE_RESAMPLES;
	tb_stats_analyze(r);
	tb_render_summary_print(null, r);
	if (!tb_compare_build(r, b, "a.json", "b.json", 0, &cmp)) {
		const struct tb_comparison *const cs[] = {cmp};

		tb_render_compare_print(null, cmp);
		tb_render_compare_markdown(null, cmp);
		j = tb_render_compare_json(cmp);
		json_decref(j);
		snprintf(path, sizeof(path), "%s/compare.html", dir);
		tb_report_comparison_write(cs, 1, path);
		tb_compare_free(cmp);
	}
	tb_drive_gate(null, r, b);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	tb_report_write(r, NULL, NULL, path);
	tb_plot_result(r, dir, TB_PLOT_DATA_ONLY);
	{
		const struct tb_result *const rs[] = {r, b};

		tb_plot_compare(rs, NULL, 2, dir, TB_PLOT_DATA_ONLY);
	}
	fclose(null);
	return 0;
}

#endif /* TB_FUZZ_DRIVE_H */
