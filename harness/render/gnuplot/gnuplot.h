/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the plots (render/gnuplot/<name>.c) share, internal to render/gnuplot/: a plotting session
 * (where data and images go, and what draws them), the data files, the variables passed to
 * gnuplot and the run of plots/<name>.gp, and the labels and axis room of the plots.
 *
 * A plot function writes <datadir>/<name>.dat (tab-separated, a header comment naming the
 * columns, blocks separated by two blank lines), sets the script's variables and runs it
 * (tb_gp_run: nothing with TB_PLOT_DATA_ONLY). It returns 1 when it had data, 0 when it had
 * none (the plot is skipped), or -errno (printed).
 */
#ifndef TB_PLOT_GNUPLOT_H
#define TB_PLOT_GNUPLOT_H

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/outdir.h"
#include "model/result.h"

#define TB_GP_NAME_MAX 40 /* longer names are cut in plots (the report has them whole) */
/* Data files of one session: the other plots', and two for each of up to 64 sweeps (plot.h). */
#define TB_GP_MAX_DATS (16 + 2 * 64)

/*
 * One plotting session: where data and images go, and what draws them. gnuplot writes by
 * name, so it runs inside a fresh private directory of ours (work, in plots/) and reads and
 * writes there only; a finished image that is not empty, and at the end every data file, is
 * moved into plots/ and plots/data/ (core/outdir.h: no link is followed or replaced).
 */
struct tb_gp {
	struct tb_dir plots, data, work;
	char plotdir[PATH_MAX]; /* the paths of plots and data, for messages */
	char datadir[PATH_MAX];
	char dats[TB_GP_MAX_DATS][TB_GP_NAME_MAX + 8]; /* data files written into work */
	size_t ndats;
	int err; /* the first failed write's -errno (plots return -EIO; the session says why) */
	char scripts[PATH_MAX];
	char gnuplot[PATH_MAX];
	unsigned int flags; /* TB_PLOT_* (plot.h); DATA_ONLY is added when gnuplot is missing */
	const char *host;   /* the result's host and scenario, cut for titles */
	const char *scenario;
	char hostbuf[64], scenbuf[64];
};

/* A growing string for the variables passed with gnuplot -e. */
struct tb_gp_vars {
	char *buf;
	size_t len;
	FILE *f;
};

/* Open the output directory outdir the user named (as typed: links in it followed; created
 * with its parents when absent) into d, for tb_gp_open. Returns 0 or -errno (said). */
int tb_gp_outdir(struct tb_dir *d, const char *outdir);
/*
 * Start a session into plots/ of the directory out (created through the handle; a link where
 * one of its directories goes is refused), titles naming host and scenario (either may be
 * NULL). out may be closed once this returns. Returns 0, -ENOENT when the scripts cannot be
 * found (unless TB_PLOT_DATA_ONLY), or -errno; each printed. End it with tb_gp_finish, whatever
 * happened.
 */
int tb_gp_open(struct tb_gp *g, const struct tb_dir *out, unsigned flags, const char *host,
	       const char *scenario);
/* Remove g's images of the plot called name (name.png, name.svg, the failure note), if any; a
 * link or a directory there is refused (-ELOOP, -EISDIR). Returns 0 or -errno. */
int tb_gp_remove_images(struct tb_gp *g, const char *name);
/*
 * Start a session of r's plots into plots/ of out (tb_gp_open), removing earlier images of the
 * plots it draws: compare.* for a compare session, all others else. A link or a directory where
 * one of its files goes is refused before anything is written (-ELOOP, -EISDIR). Returns what
 * tb_gp_open does, or that error. End it with tb_gp_finish, whatever happened.
 */
int tb_gp_init(struct tb_gp *g, const struct tb_dir *out, unsigned flags, const struct tb_result *r,
	       bool compare);
/* Move the data files into plots/data/, remove the private directory, close. Returns 0 or
 * -errno (printed). */
int tb_gp_finish(struct tb_gp *g);
/* Find gnuplot for g. Returns 0, or -ENOENT (printed) and g only writes data from then on. */
int tb_gp_need_gnuplot(struct tb_gp *g);

/* Create <name>.dat (in the private directory; tb_gp_finish moves it to plots/data) with its
 * header: what it holds and its columns. NULL when it cannot be created (printed). */
FILE *tb_gp_dat_open(struct tb_gp *g, const char *name, const char *what, const char *cols);
/* Close a data file / two of them (both, whatever the first gives). Returns 0 or -errno of
 * the write (printed: ENOSPC is said as such). */
int tb_gp_dat_close(struct tb_gp *g, FILE *f, const char *name);
int tb_gp_dat_close_both(struct tb_gp *g, FILE *f1, const char *name1, FILE *f2, const char *name2);
/*
 * One row of tab-separated fields ended by a newline, one argument per character of cols:
 * 's' a string as one field gnuplot reads back whole (tabs and newlines as spaces, '"' as '\'',
 * "-" when empty or NULL), 'r' a string as it is, 'd' a double as %.6g (NaN when not finite),
 * 'f' a double as %.4f, 'i' an int, 'z' a size_t.
 */
void tb_gp_row(FILE *f, const char *cols, ...);

/* The variables: open (0 or -ENOMEM), free, and add name='value' / name=number (0 when not
 * finite) / the same with a name made of fmt and i ("t%d"). */
int tb_gp_vars_open(struct tb_gp_vars *v);
void tb_gp_vars_free(struct tb_gp_vars *v);
void tb_gp_var_s(struct tb_gp_vars *v, const char *name, const char *val);
void tb_gp_var_d(struct tb_gp_vars *v, const char *name, double val);
void tb_gp_var_si(struct tb_gp_vars *v, const char *fmt, int i, const char *val);
void tb_gp_var_di(struct tb_gp_vars *v, const char *fmt, int i, double val);
/* name='<dat>.dat' (gnuplot runs in the private directory that holds it). */
void tb_gp_var_dat(struct tb_gp_vars *v, struct tb_gp *g, const char *name, const char *dat);
/* title='what - scenario on host' / t<i>='workload wl (type), host h'. */
void tb_gp_main_title(struct tb_gp_vars *v, struct tb_gp *g, const char *what);
void tb_gp_panel_title(struct tb_gp_vars *v, struct tb_gp *g, int i, const struct tb_result *r,
		       const char *wl);
/* Run plots/<name>.gp with v for each wanted format, w x h pixels (nothing with
 * TB_PLOT_DATA_ONLY). Returns 1 (the plot function's "had data"), -EIO (gnuplot failed, or
 * warned with TB_PLOT_STRICT) or -errno; printed. */
int tb_gp_run(struct tb_gp *g, const char *name, struct tb_gp_vars *v, int w, int h);
/* The same with plots/<script>.gp drawing <plotdir>/<name>.{png,svg} (one script, many plots). */
int tb_gp_run_as(struct tb_gp *g, const char *script, const char *name, struct tb_gp_vars *v, int w,
		 int h);

/* Distinct workload names of r in order of first appearance into *out (the caller frees the
 * array; the strings belong to r). Returns the count, 0 with *out NULL on ENOMEM. */
size_t tb_gp_workloads(const struct tb_result *r, const char ***out);
/* The cells of workload wl, baseline first, into idx (r->ncells entries). Returns the count. */
size_t tb_gp_cells_of(const struct tb_result *r, const char *wl, size_t *idx);
/* idx[0..n) (cells of r) sorted by key, largest first, ties in cell order. */
void tb_gp_sort_desc(size_t *idx, size_t n, const struct tb_result *r,
		     double (*key)(const struct tb_cell *));
/*
 * A plot with a panel per workload and in it a series per cell (latency, timeline). For each
 * workload's cells (baseline first), write(ctx, c, block, ncells, title, len) writes the data
 * of c as block number block of its files (two blank lines before every block but the first)
 * and its key title into title, and returns 1; or it returns 0 when c has no data (nothing
 * written). ncells counts the cells of c's workload. Each series gets c<block> (its title) and
 * s<block> (its style: 1 for the baseline, then 2, 3, ... within the panel); each panel with a
 * series gets t<i> (tb_gp_panel_title), b<i> and e<i> (its first and last block), then
 * panel(ctx, v, i, wl, ncells) adds its own when not NULL.
 */
struct tb_gp_series {
	int (*write)(void *ctx, const struct tb_cell *c, int block, size_t ncells, char *title,
		     size_t len);
	void (*panel)(void *ctx, struct tb_gp_vars *v, int i, const char *wl, size_t ncells);
	void *ctx;
};

/* Returns the number of panels, or -ENOMEM. */
int tb_gp_series_panels(struct tb_gp *g, const struct tb_result *r, struct tb_gp_vars *v,
			const struct tb_gp_series *s);
/* "tracer" or "tracer (baseline)" / "workload / tracer", names cut to TB_GP_NAME_MAX. */
const char *tb_gp_cell_label(const struct tb_cell *c, char *buf, size_t len);
const char *tb_gp_row_label(const struct tb_cell *c, char *buf, size_t len);

/*
 * Horizontal bar charts put each value's text right of its bar; gnuplot does not make room
 * for such labels, so the axis is sized here. A label of len characters starting at x (axis
 * units) must end inside the plot area, which is about plot_px pixels wide; the labels' font
 * is about 7 px per character. tb_gp_room_for widens xmax until the label fits.
 */
struct tb_gp_room {
	double xmin, xmax, plot_px;
	bool logx;
};

void tb_gp_room_for(struct tb_gp_room *tr, double x, size_t len);
/* Pixels left for the plot area of a w-pixel-wide bar chart whose row labels are up to
 * label_chars long (the y tic labels at about 7 px a character, plus margins). */
double tb_gp_plot_width_px(int w, size_t label_chars);

/* The largest (smallest) of a and those of b, c that are finite. */
static inline double tb_gp_fmax3(double a, double b, double c)
{
	double m = a;

	if (isfinite(b) && b > m)
		m = b;
	if (isfinite(c) && c > m)
		m = c;
	return m;
}

static inline double tb_gp_fmin3(double a, double b, double c)
{
	double m = a;

	if (isfinite(b) && b < m)
		m = b;
	if (isfinite(c) && c < m)
		m = c;
	return m;
}

/* The plots of a result, in tb_plot_names order (plot.h), and the compare plot of n results
 * (labels may be NULL). */
int tb_plot_overhead(struct tb_gp *g, const struct tb_result *r);
int tb_plot_ns_per_op(struct tb_gp *g, const struct tb_result *r);
int tb_plot_ns_per_event(struct tb_gp *g, const struct tb_result *r);
int tb_plot_probe_types(struct tb_gp *g, const struct tb_result *r);
int tb_plot_latency(struct tb_gp *g, const struct tb_result *r);
int tb_plot_timeline(struct tb_gp *g, const struct tb_result *r);
int tb_plot_rate(struct tb_gp *g, const struct tb_result *r);
/* One plot per sweep, sweep-<k> (k from 1), drawn by plots/rate.gp. */
int tb_plot_sweeps(struct tb_gp *g, const struct tb_result *r);
/* The traced service cells' throughput loss and p99 delta with CIs (plots/service.gp). */
int tb_plot_service(struct tb_gp *g, const struct tb_result *r);
/* run --find-limit's probes: lost share against the rate offered, a series per search. */
int tb_plot_limits(struct tb_gp *g, const struct tb_result *r);
/*
 * A plot of the share of events lost against the rate offered, as saturation and limits draw
 * it (sweep.c): its data file (rows events_per_s, lost_pct, lo, hi; a blank pair between
 * series; NULL on failure), then the file closed and drawn by plots/rate.gp with ng series
 * over rates lo..hi (nothing drawn without a rate). Returns 1 (drawn), 0 or -errno.
 */
FILE *tb_plot_lost_rate_open(struct tb_gp *g, const char *name, const char *by);
int tb_plot_lost_rate_draw(struct tb_gp *g, FILE *fd, struct tb_gp_vars *v, const char *name,
			   int ng, double lo, double hi, const char *title);
int tb_plot_draw_compare(struct tb_gp *g, const struct tb_result *const *rs,
			 const char *const *labels, size_t n);
struct tb_hanalysis;
int tb_plot_draw_trend(struct tb_gp *g, const struct tb_hanalysis *a);

#endif /* TB_PLOT_GNUPLOT_H */
