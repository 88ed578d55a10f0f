/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTML history page (`tracebench history report -o FILE.html`): one self-contained file
 * (inline CSS and SVG, no scripts, nothing fetched) listing every series with its latest change
 * point, newest first, the trend plot and every change point of the series that have one (with
 * what changed in the environment at that run), and a table of all series. Built one series at
 * a time: tb_hreport_begin, tb_hreport_add for each analysed series, tb_hreport_finish.
 */
#ifndef TB_HISTORY_REPORT_H
#define TB_HISTORY_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "history/analysis.h"
#include "history/detect.h"
#include "history/store.h"

struct tb_hreport;

/* Start a page about history db (its counts c), detected with o; at most max_plots trend plots.
 * Returns 0 and *out, or -ENOMEM. */
int tb_hreport_begin(struct tb_hreport **out, const char *db, const struct tb_history_counts *c,
		     const struct tb_detect_opts *o, bool comparable, size_t max_plots);
/* Add an analysed series (its points kept: tb_history_analyze with keep_points). Returns 0 or
 * -ENOMEM. */
int tb_hreport_add(struct tb_hreport *rep, const struct tb_hanalysis *a);
struct tb_dir;
/* Write the page atomically as name in d (d NULL: name is the path the user gave; render/html/html.h
 * tb_html_finish) and free rep (in every case). Returns 0 or -errno. */
int tb_hreport_finish(struct tb_hreport *rep, const struct tb_dir *d, const char *name);
/* Free rep without writing. */
void tb_hreport_free(struct tb_hreport *rep);

#endif /* TB_HISTORY_REPORT_H */
