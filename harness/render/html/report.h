/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTML report: one self-contained file (inline CSS and SVG plots, no scripts, no network)
 * with the verdict table first, the plots, the environment, the scenario, the warnings and the
 * command that reproduces the run. Every string taken from a result is HTML-escaped.
 * report.c writes the report of one result, report-compare.c those of several, fleet-report.c
 * that of a fleet run; html.h has the pieces they are made of.
 */
#ifndef TB_REPORT_H
#define TB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "model/result.h"

struct tb_dir;
/*
 * Write the report of r as name in d (atomically, through the handle; d NULL: name is the path
 * the user gave, render/html/html.h tb_html_finish). plots is the plots directory holding the
 * <name>.svg files drawn by tb_plot_result (a run's plots/); with NULL the plots are drawn into
 * a temporary directory and removed afterwards. Without gnuplot the report is still written
 * and says why it has no plots. Returns 0 or -errno (the error is printed).
 */
int tb_report_write(const struct tb_result *r, const struct tb_dir *plots, const struct tb_dir *d,
		    const char *name);

/*
 * The "where the overhead lands" section of r's explained cells (report-explain.c): the
 * share check, limits, the added cost by function and the flame graphs drawn from the cells'
 * folded files (r->dir). Nothing when no cell is explained.
 */
void tb_report_explain_section(FILE *f, const struct tb_result *r);

/* The "Services" section (report-service.c): the traced service cells' throughput loss and
 * p99 delta with CIs and verdicts, and the deciding metric. Nothing without service cells. */
void tb_report_service_section(FILE *f, const struct tb_result *r);

/*
 * A comparison of n results (named "#i host kernel"): a per-cell side-by-side table of
 * baseline ns/op, overhead [CI] and verdict, the compare plot, and each result's environment.
 * path is the user's (its directory opened as given). Returns 0 or -errno.
 */
int tb_report_compare_write(const struct tb_result *const *rs, size_t n, const char *path);

struct tb_comparison;
/*
 * The HTML of `tracebench compare A B [C...] --html FILE`: the n comparisons (each of the same
 * A against another result, from tb_compare_build) with ns/op and overhead changes and their
 * CIs, the service cells' throughput, p50 and p99 changes, environment differences, the compare plot over all results, each environment. path is
 * the user's FILE. Returns 0 or -errno.
 */
int tb_report_comparison_write(const struct tb_comparison *const *cs, size_t n, const char *path);

struct tb_fleet;
/*
 * The report of a merged fleet run (stats/fleet.h): every host with its state and reason, the
 * merged overheads with each host's hardware class and kernel, the comparisons within each
 * class, the compare plot (inlined from compare.svg in the plots directory plots; NULL: drawn
 * into a temporary directory) and each merged host's environment; written as name in d (d
 * NULL: name is a path, as for tb_report_write). Returns 0 or -errno.
 */
int tb_report_fleet_write(const struct tb_fleet *fl, const struct tb_dir *plots,
			  const struct tb_dir *d, const char *name);

#endif /* TB_REPORT_H */
