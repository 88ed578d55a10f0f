/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pieces the HTML reports (report.c, report-compare.c, fleet-report.c) are made of: the page around them,
 * escaped text, the cells of their tables, a result's environment and warnings, the inlined
 * plots. Every string taken from a result goes through tb_html_esc.
 */
#ifndef TB_HTML_H
#define TB_HTML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/result.h"

/* s (NULL writes nothing) as HTML text or attribute value. */
void tb_html_esc(FILE *f, const char *s);
/* The start of a page titled title, up to <body>, with the reports' inline style sheet. */
void tb_html_head(FILE *f, const char *title);
struct tb_dir;
/*
 * End the page in the memstream f (whose buffer is *buf, *len), close f, write the page
 * atomically as name in d (core/outdir.h: never through a link, and into the directory d
 * opened even if its path is a link by now) and free *buf. With d NULL, name is a path the user
 * gave (-o FILE), whose directory is opened as the user's path (tb_write_atomic); a directory
 * tracebench made is always passed as its handle. Returns 0 or -errno (printed).
 */
int tb_html_finish(FILE *f, char **buf, size_t *len, const struct tb_dir *d, const char *name);
/*
 * Copy the gnuplot SVG name in d into the page as inline <svg> (the prolog and xmlns dropped,
 * every id prefixed "p<k>-" so that plots on one page do not clash); a regular file only,
 * never through a link. Refuses a file with anything that could run or fetch. Returns 0 or
 * -errno (-EPERM for such a file).
 */
int tb_html_inline_svg(FILE *f, const struct tb_dir *d, const char *name, int k);
/* A fresh private directory /tmp/tracebench-<pid>-report-XXXXXX into dir (the name cleanup
 * recognises when this process dies). Returns 0 or -errno. */
int tb_html_tmpdir(char *dir, size_t len);
/* Inline every plot of the plots directory d that exists (the compare plot or all the others),
 * in tb_plot_names order, with its caption; read through d. Returns how many. */
int tb_html_plots_section(FILE *f, const struct tb_dir *d, bool compare);
/*
 * The plots of rs[0] (or with compare, the compare plot of the n results) inlined: drawn into a
 * temporary directory when plots is NULL (and removed afterwards), else taken from the plots
 * directory plots (a handle: what was drawn there, not what its path names now). Says in the
 * page why plots are missing (no gnuplot, gnuplot failed, nothing to plot).
 */
void tb_html_plots(FILE *f, const struct tb_result *const *rs, size_t n, const struct tb_dir *plots,
		   bool compare);

/* The environment fingerprint r records, or NULL. */
const char *tb_html_fingerprint(const struct tb_result *r);
/* A table (HTML id id) of r's host, kernel, CPU, fingerprint and version, then every recorded
 * field of its environment. */
void tb_html_environment(FILE *f, const struct tb_result *r, const char *id);
/* A list of what makes r's figures less reliable: a partial run, foreign instrumentation,
 * warnings, failed, lossy, noisy and untrustworthy cells (or that there is none). */
void tb_html_warnings(FILE *f, const struct tb_result *r);

/* The appendix of result set i, labelled label: its environment (HTML id environment-<i+1>),
 * warnings and command (report-compare.c). */
void tb_html_result_appendix(FILE *f, const struct tb_result *r, const char *label, size_t i);
struct tb_comparison;
/* Comparison k (HTML id comparison-<k+1>): its environment differences, one row per cell
 * with the ns/op and overhead changes and their CIs, the service cells' throughput, p50 and p99
 * changes (table compare-services-<k+1>) and the sweeps' slopes (report-compare.c). */
void tb_html_comparison_section(FILE *f, const struct tb_comparison *c, size_t k);

/*
 * The command tracers of r (report-command.c): per traced cell, where its events and losses
 * came from, its maps, RSS and CPU, and the table of its BPF programs (runs, runs/op, ns/run,
 * ns/op, share of the overhead). Nothing when r has none.
 */
void tb_html_command_tracers(FILE *f, const struct tb_result *r);
/* A text cell: s escaped, a dash when s is NULL or empty; right-aligned as a number's with num. */
void tb_html_text_td(FILE *f, const char *s, bool num);
/* A number cell: v with fmt, a dash when v is not finite. */
void tb_html_num(FILE *f, double v, const char *fmt);
/* The CSS class of a verdict's cell ("" for none). */
const char *tb_html_verdict_class(enum tb_verdict v);
/* A cell's overhead % with its CI / its verdict and reason (or why it has none). */
void tb_html_overhead_td(FILE *f, const struct tb_cell *c);
void tb_html_verdict_td(FILE *f, const struct tb_cell *c);
/*
 * A traced cell's cost column (render/text.h tb_fmt_cost: ns/event, or per context switch or
 * sample; a dash where model/proof.h quotes no cost), with what the figure is or why there is
 * none in its title; a dash for a baseline.
 */
void tb_html_cost_td(FILE *f, const struct tb_cell *c);
/* A cell's median ns/op; a dash when c is NULL or has no measured sample. */
void tb_html_median_td(FILE *f, const struct tb_cell *c);

#endif /* TB_HTML_H */
