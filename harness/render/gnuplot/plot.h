/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plots of results: the harness writes tab-separated data files (<dir>/plots/data/NAME.dat, each
 * with a header comment naming its columns) and runs the gnuplot scripts plots/NAME.gp on them,
 * producing <dir>/plots/<name>.png (pngcairo) and <name>.svg.
 *
 * Scripts are looked up in $TB_PLOTS_DIR, then relative to the binary: <its dir>/plots (the
 * source tree), ../plots (build/run-tests) and ../share/tracebench/plots (an installed tree,
 * whatever PREFIX it was installed with), then TB_DATADIR/plots (the PREFIX of the build). gnuplot is $TB_GNUPLOT or
 * "gnuplot" in PATH.
 */
#ifndef TB_PLOT_H
#define TB_PLOT_H

#include <stddef.h>

#include "model/result.h"

struct tb_dir;

enum {
	TB_PLOT_NO_PNG = 1 << 0,    /* SVG only (what the report inlines) */
	TB_PLOT_NO_SVG = 1 << 1,    /* PNG only */
	TB_PLOT_STRICT = 1 << 2,    /* any gnuplot output (warnings) is an error: -EIO */
	TB_PLOT_DATA_ONLY = 1 << 3, /* write the data files, do not run gnuplot */
};

#define TB_PLOT_FAILED_EXT ".failed"
/* The "sweeps" plot is one image per sweep, sweep-<k>.{png,svg}, k from 1 to at most this. */
#define TB_PLOT_MAX_SWEEPS 64
/* The lost-events-against-rate plot of the workload sweeps that lost events (sweep.c). */
#define TB_PLOT_SATURATION "saturation"

/* Every plot name, in the order a report shows them; NULL-terminated. */
extern const char *const tb_plot_names[];

/*
 * Draw every plot of r that has data into outdir/plots (created; earlier plot files of the
 * same names are removed first, so a skipped plot leaves nothing stale). A plot whose gnuplot
 * run failed leaves outdir/plots/<name>.failed (TB_PLOT_FAILED_EXT): one line saying why. Plots without data
 * (no latency cells, no rate sweep) are skipped. Returns the number of plots drawn (>= 0;
 * 0 with TB_PLOT_DATA_ONLY), -ENOENT when gnuplot or the scripts cannot be found (data files
 * are still written; the error says what is missing), -EIO when gnuplot failed (or, with
 * TB_PLOT_STRICT, warned), or another -errno. Paths written are under outdir only.
 */
int tb_plot_result(const struct tb_result *r, const char *outdir, unsigned flags);
/*
 * The same into plots/ of the open directory out (core/outdir.h), for a directory tracebench
 * made (a run's): made and written through the handle, so the plots land in the directory out
 * opened even if its path is a link by now. tb_plot_result opens outdir as the user's path
 * (links in it followed, created when absent) and does this.
 */
int tb_plot_result_at(const struct tb_result *r, const struct tb_dir *out, unsigned flags);

/*
 * The compare plot: overhead per cell side by side for each of the n results (labels[i]
 * names set i; labels may be NULL: "#i host kernel"). Writes outdir/plots/compare.{png,svg}.
 * Returns 1 when drawn, 0 when no cell has an overhead (or TB_PLOT_DATA_ONLY), or the
 * errors of tb_plot_result.
 */
int tb_plot_compare(const struct tb_result *const *rs, const char *const *labels, size_t n,
		    const char *outdir, unsigned flags);
/* The same into plots/ of out, through the handle (as tb_plot_result_at): a fleet's. */
int tb_plot_compare_at(const struct tb_result *const *rs, const char *const *labels, size_t n,
		       const struct tb_dir *out, unsigned flags);

struct tb_hanalysis;
/*
 * The trend plot of an analysed history series (history/analysis.h, its points kept): every
 * run with its CI, segment medians as steps, change points marked and labelled. Writes
 * outdir/plots/trend-<series id>.{png,svg}. Returns 1 when drawn, 0 without points (or with
 * TB_PLOT_DATA_ONLY), or the errors of tb_plot_result.
 */
int tb_plot_trend(const struct tb_hanalysis *a, const char *outdir, unsigned flags);

/* Find gnuplot into path. Returns 0 or -ENOENT (nothing printed). */
int tb_plot_find_gnuplot(char *path, size_t len);
/* Find the scripts directory into dir. Returns 0 or -ENOENT (nothing printed). */
int tb_plot_find_scripts(char *dir, size_t len);

#endif /* TB_PLOT_H */
