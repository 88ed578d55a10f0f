// SPDX-License-Identifier: GPL-2.0
/*
 * The rate plot: what a traced op costs against the traced events it makes, for the cells of
 * rate sweeps, one series per (tracer, workload type) as stats.c groups its rate models, and
 * the line of the model it fitted (r->rate_models): the model's own space (overhead ns/op =
 * fixed_ns + cost_ns x events/op) and its own figures, the ones the terminal and the report
 * print (tb_fmt_rate_model). A series without a model gets its points only.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/util.h"
#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/measured.h"
#include "model/result.h"

#define LINE_STEPS 40 /* segments of a model's line (curved on a log axis) */

struct rate_pt {
	double x; /* traced events per op (the model's x) */
	const struct tb_cell *c;
};

/* The series being written. */
struct rate {
	FILE *fd, *ff; /* the points, the models' lines */
	struct tb_gp_vars *v;
	bool logx;
	int ng, nfit; /* series and lines so far */
};

static int by_x(const void *a, const void *b)
{
	double x = ((const struct rate_pt *)a)->x, y = ((const struct rate_pt *)b)->x;

	return (x > y) - (x < y);
}

/* The model's x for c: the workload's events per op (the proof's), else all of them. */
static double events_per_op(const struct tb_cell *c)
{
	return isfinite(c->proof.events_per_op) ? c->proof.events_per_op
						: c->overhead.events_per_op;
}

/* The cells of rate sweeps (a target rate, or in a sweep without one) with an overhead in ns
 * per op and events per op > 0, into pts. Returns the count; the range of x into *rmin, *rmax. */
static size_t sweep_points(const struct tb_result *r, struct rate_pt *pts, double *rmin,
			   double *rmax)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		double x = events_per_op(c);

		if (c->baseline || !c->has_overhead || !isfinite(c->overhead.ns_per_op) ||
		    !(isfinite(c->rate) || tb_cell_in_sweep(c)) || !(x > 0) || !isfinite(x))
			continue;
		pts[n].x = x;
		pts[n++].c = c;
		*rmin = fmin(*rmin, x);
		*rmax = fmax(*rmax, x);
	}
	return n;
}

/* Model m's line over [x0, x1] into the fit file, its key title (trs: the tracer) into the
 * variables; nothing when m has no line, was not accepted (noise) or the series no width. */
static void write_line(struct rate *rt, const struct tb_rate_model *m, const char *trs, double x0,
		       double x1)
{
	double a = m->fixed_ns, b = m->cost_ns;
	char t[600], fit[256];

	if (!(isfinite(a) && isfinite(b) && x1 > x0) || !m->accepted)
		return;
	snprintf(t, sizeof(t), "%s model: %s", trs, tb_fmt_rate_model(fit, sizeof(fit), m));
	if (rt->nfit)
		fputs("\n\n", rt->ff);
	for (int s = 0; s <= LINE_STEPS; s++) {
		double x = rt->logx ? x0 * pow(x1 / x0, s / (double)LINE_STEPS)
				    : x0 + (x1 - x0) * s / (double)LINE_STEPS;

		fprintf(rt->ff, "%.6g\t%.6g\n", x, a + b * x);
	}
	tb_gp_var_si(rt->v, "f%d", rt->nfit, t);
	tb_gp_var_di(rt->v, "fl%d", rt->nfit, (double)rt->ng + 2);
	rt->nfit++;
}

/* A series: the m points grp of one (tracer, workload type), sorted by x, and its model. */
static void write_series(struct rate *rt, const struct tb_result *r, struct rate_pt *grp, size_t m)
{
	const struct tb_rate_model *model = tb_result_rate_model(r, grp[0].c);
	char t[600], sn[TB_GP_NAME_MAX + 8];
	const char *trs = tb_shorten(sn, sizeof(sn), grp[0].c->tracer, TB_GP_NAME_MAX);

	qsort(grp, m, sizeof(*grp), by_x);
	if (rt->ng)
		fputs("\n\n", rt->fd);
	for (size_t j = 0; j < m; j++) {
		const struct tb_overhead *o = &grp[j].c->overhead;

		tb_gp_row(rt->fd, "ddddssd", grp[j].x, o->ns_per_op,
			  isfinite(o->ns_ci_lo) ? o->ns_ci_lo : o->ns_per_op,
			  isfinite(o->ns_ci_hi) ? o->ns_ci_hi : o->ns_per_op, grp[j].c->workload,
			  grp[j].c->tracer, tb_cell_sweep_rate(grp[j].c));
	}
	snprintf(t, sizeof(t), "%s (%zu cells)", trs, m);
	tb_gp_var_si(rt->v, "g%d", rt->ng, t);
	if (model)
		write_line(rt, model, trs, grp[0].x, grp[m - 1].x);
	rt->ng++;
}

/* Every series: the points of pts not done yet that share the first one's (tracer, workload
 * type), in order of first appearance. grp is room for n points. */
static void write_all(struct rate *rt, const struct tb_result *r, const struct rate_pt *pts,
		      size_t n, bool *done, struct rate_pt *grp)
{
	for (size_t i = 0; i < n; i++) {
		const struct tb_cell *c0 = pts[i].c;
		size_t m = 0;

		if (done[i])
			continue;
		for (size_t j = i; j < n; j++)
			if (!done[j] && tb_streq(pts[j].c->tracer, c0->tracer) &&
			    tb_streq(pts[j].c->workload_type, c0->workload_type)) {
				done[j] = true;
				grp[m++] = pts[j];
			}
		write_series(rt, r, grp, m);
	}
}

int tb_plot_rate(struct tb_gp *g, const struct tb_result *r)
{
	struct rate_pt *pts = calloc(r->ncells + 1, sizeof(*pts));
	struct rate_pt *grp = calloc(r->ncells + 1, sizeof(*grp));
	bool *done = calloc(r->ncells + 1, sizeof(*done));
	double rmin = INFINITY, rmax = -INFINITY;
	struct tb_gp_vars v = {0};
	struct rate rt = {.v = &v};
	int ret = 0;
	size_t n;

	if (!pts || !done || !grp || tb_gp_vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	n = sweep_points(r, pts, &rmin, &rmax);
	rt.logx = n && rmax / rmin > 20;
	rt.fd = tb_gp_dat_open(
		g, "rate", "per (tracer, workload type) (block): overhead ns/op against events/op",
		"events_per_op\tns_per_op\tci_lo\tci_hi\tworkload\ttracer\tevents_per_s");
	rt.ff = tb_gp_dat_open(
		g, "rate-fit",
		"per fitted series (block): overhead ns/op = fixed_ns + cost_ns * events/op",
		"events_per_op\tns_per_op_fitted");
	if (!rt.fd || !rt.ff) {
		ret = -EIO;
		goto out;
	}
	write_all(&rt, r, pts, n, done, grp);
	ret = tb_gp_dat_close_both(g, rt.fd, "rate", rt.ff, "rate-fit");
	rt.fd = rt.ff = NULL;
	if (ret || !n)
		goto out;
	tb_gp_var_dat(&v, g, "datafile", "rate");
	tb_gp_var_dat(&v, g, "fitfile", "rate-fit");
	tb_gp_var_d(&v, "ng", (double)rt.ng);
	tb_gp_var_d(&v, "nf", rt.nfit);
	tb_gp_var_d(&v, "logx", rt.logx);
	tb_gp_var_d(&v, "xmin", rt.logx ? rmin / 1.6 : fmax(0, rmin - 0.05 * (rmax - rmin + 1)));
	tb_gp_var_d(&v, "xmax", rt.logx ? rmax * 1.6 : rmax + 0.05 * (rmax - rmin + 1));
	tb_gp_main_title(&v, g, "Overhead against traced events per op (rate sweeps)");
	/* Taller by a line of key per series and per model line, under the axis (rate.gp). */
	ret = tb_gp_run(g, "rate", &v, 1100, 560 + 20 * (rt.ng + rt.nfit));
out:
	if (rt.fd)
		fclose(rt.fd);
	if (rt.ff)
		fclose(rt.ff);
	tb_gp_vars_free(&v);
	free(pts);
	free(done);
	free(grp);
	return ret;
}
