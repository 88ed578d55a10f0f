// SPDX-License-Identifier: GPL-2.0
/*
 * The sweep plots: one per sweep (r->sweeps, stats/sweep.c), sweep-<k>.{png,svg}, its points'
 * overhead ns/op against the swept value with their CIs as error bars and, when the model was
 * accepted, its fitted line with the figures the terminal prints (else its knee model's two
 * lines when that was accepted). Drawn by plots/rate.gp, the
 * rate model's script, with the swept key as the x axis's label. saturation.{png,svg}: the
 * share of events lost against the rate offered, a series per workload sweep that knows both.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "model/result.h"
#include "render/gnuplot/gnuplot.h"
#include "render/gnuplot/plot.h"

#define LINE_STEPS 40 /* segments of the fitted line (curved on a log axis) */

/* The points of sw with a number into f; their range into *lo, *hi. Returns how many. */
static size_t write_points(FILE *f, const struct tb_sweep *sw, double *lo, double *hi)
{
	size_t n = 0;

	for (size_t i = 0; i < sw->npoints; i++) {
		const struct tb_sweep_point *p = &sw->points[i];

		if (!isfinite(p->x) || !isfinite(p->ns_per_op))
			continue;
		tb_gp_row(f, "ddddss", p->x, p->ns_per_op,
			  isfinite(p->ns_lo) ? p->ns_lo : p->ns_per_op,
			  isfinite(p->ns_hi) ? p->ns_hi : p->ns_per_op, p->cell,
			  p->used ? "used" : "not-used");
		*lo = fmin(*lo, p->x);
		*hi = fmax(*hi, p->x);
		n++;
	}
	return n;
}

/* The model drawn at x: the line when accepted, else the knee model when it is (knee()). */
static double model_at(const struct tb_sweep *sw, double x)
{
	const struct tb_knee_model *k = &sw->knee;

	if (sw->fit.accepted)
		return sw->fit.fixed_ns + sw->fit.cost_ns * x;
	return k->fixed_ns + k->before_ns * x +
	       (k->after_ns - k->before_ns) * fmax(0, x - k->knee_x);
}

static bool knee(const struct tb_sweep *sw)
{
	return !sw->fit.accepted && sw->has_knee && sw->knee.accepted;
}

/* Sweep k's plot. Returns 1 (drawn), 0 (no point with a number) or -errno. */
static int plot_one(struct tb_gp *g, const struct tb_sweep *sw, int k)
{
	const struct tb_rate_model *m = &sw->fit;
	char name[32], fit[32], t[400];
	double lo = INFINITY, hi = -INFINITY;
	struct tb_gp_vars v = {0};
	FILE *fd, *ff;
	bool logx;
	size_t n;
	int ret;

	snprintf(name, sizeof(name), "sweep-%d", k);
	snprintf(fit, sizeof(fit), "sweep-%d-fit", k);
	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	fd = tb_gp_dat_open(g, name, "a sweep's points: overhead ns/op against the swept value",
			    "x\tns_per_op\tci_lo\tci_hi\tcell\tused");
	ff = tb_gp_dat_open(g, fit, "the sweep's fitted model: its line, or its knee's two",
			    "x\tns_per_op_fitted");
	n = fd && ff ? write_points(fd, sw, &lo, &hi) : 0;
	logx = n && lo > 0 && hi / lo > 20;
	if (n && (m->accepted || knee(sw)) && hi > lo)
		for (int s = 0; s <= LINE_STEPS; s++) {
			double x = logx ? lo * pow(hi / lo, s / (double)LINE_STEPS)
					: lo + (hi - lo) * s / (double)LINE_STEPS;

			fprintf(ff, "%.6g\t%.6g\n", x, model_at(sw, x));
		}
	if (fd && ff) {
		ret = tb_gp_dat_close_both(g, fd, name, ff, fit);
	} else {
		ret = -EIO;
		if (fd)
			fclose(fd);
		if (ff)
			fclose(ff);
	}
	if (ret || !n)
		goto out;
	tb_gp_var_dat(&v, g, "datafile", name);
	tb_gp_var_dat(&v, g, "fitfile", fit);
	snprintf(t, sizeof(t), "%s against %s (%zu points)", sw->section, sw->against, n);
	tb_gp_var_s(&v, "g0", t);
	if (m->accepted)
		snprintf(t, sizeof(t),
			 "model: %.1f [%.1f, %.1f] ns + %.3g [%.3g, %.3g] ns per %s, R^2 %.3f",
			 m->fixed_ns, m->fixed_ci_lo, m->fixed_ci_hi, m->cost_ns, m->cost_ci_lo,
			 m->cost_ci_hi, sw->unit, m->r2);
	else if (knee(sw))
		snprintf(
			t, sizeof(t),
			"model: a knee at %.4g: %.3g [%.3g, %.3g] ns per %s before, %.3g [%.3g, %.3g] "
			"after, R^2 %.3f",
			sw->knee.knee_x, sw->knee.before_ns, sw->knee.before_lo, sw->knee.before_hi,
			sw->unit, sw->knee.after_ns, sw->knee.after_lo, sw->knee.after_hi,
			sw->knee.r2);
	tb_gp_var_s(&v, "f0", m->accepted || knee(sw) ? t : "");
	tb_gp_var_d(&v, "fl0", 3);
	tb_gp_var_d(&v, "ng", 1);
	tb_gp_var_d(&v, "nf", (m->accepted || knee(sw)) && hi > lo);
	tb_gp_var_d(&v, "logx", logx);
	tb_gp_var_d(&v, "xmin", logx ? lo / 1.6 : lo - 0.05 * (hi - lo + 1));
	tb_gp_var_d(&v, "xmax", logx ? hi * 1.6 : hi + 0.05 * (hi - lo + 1));
	snprintf(t, sizeof(t), "%s%s (swept)", sw->key, logx ? " (log scale)" : "");
	tb_gp_var_s(&v, "xname", t);
	snprintf(t, sizeof(t), "Overhead against %s (sweep of [%s %s])", sw->key, sw->kind,
		 sw->section);
	tb_gp_main_title(&v, g, t);
	ret = tb_gp_run_as(g, "rate", name, &v, 1100, 600);
out:
	tb_gp_vars_free(&v);
	return ret < 0 ? ret : n ? ret : 0;
}

/* Whether workload sweep sw knows what its tracer lost at each rate, beside a loss (the
 * saturation plot). */
static bool has_rates(const struct tb_sweep *sw)
{
	if (sw->kind[0] != 'w' || !(isfinite(sw->held_rate) || isfinite(sw->lost_rate)))
		return false;
	for (size_t i = 0; i < sw->npoints; i++)
		if (isfinite(sw->points[i].events_per_s) && isfinite(sw->points[i].lost_share))
			return true;
	return false;
}

FILE *tb_plot_lost_rate_open(struct tb_gp *g, const char *name, const char *by)
{
	char what[96];

	snprintf(what, sizeof(what), "events lost against the rate offered, %s", by);
	return tb_gp_dat_open(g, name, what, "events_per_s\tlost_pct\tlo\thi");
}

int tb_plot_lost_rate_draw(struct tb_gp *g, FILE *fd, struct tb_gp_vars *v, const char *name,
			   int ng, double lo, double hi, const char *title)
{
	int ret = fd ? tb_gp_dat_close(g, fd, name) : -EIO;

	if (ret || !(hi > 0))
		return ret;
	tb_gp_var_dat(v, g, "datafile", name);
	tb_gp_var_dat(v, g, "fitfile", name);
	tb_gp_var_d(v, "ng", ng);
	tb_gp_var_d(v, "nf", 0);
	tb_gp_var_d(v, "logx", 1);
	tb_gp_var_d(v, "xmin", lo / 1.6);
	tb_gp_var_d(v, "xmax", hi * 1.6);
	tb_gp_var_s(v, "xname", "events offered per second (log scale)");
	tb_gp_var_s(v, "yname", "events lost (% of those offered)");
	tb_gp_main_title(v, g, title);
	return tb_gp_run_as(g, "rate", name, v, 1100, 600);
}

/* saturation.{png,svg}: the share of events lost against the rate offered, a series per
 * workload sweep (a tracer at one buffer size). Returns 1 (drawn), 0 (none) or -errno. */
static int plot_saturation(struct tb_gp *g, const struct tb_result *r)
{
	double lo = INFINITY, hi = -INFINITY;
	struct tb_gp_vars v = {0};
	int ng = 0, ret;
	FILE *fd;

	for (size_t i = 0; i < r->nsweeps; i++)
		ng += has_rates(&r->sweeps[i]);
	if (!ng)
		return tb_gp_remove_images(g, TB_PLOT_SATURATION);
	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	fd = tb_plot_lost_rate_open(g, TB_PLOT_SATURATION, "by sweep");
	ng = 0;
	for (size_t i = 0; fd && i < r->nsweeps; i++) {
		const struct tb_sweep *sw = &r->sweeps[i];
		char t[200];

		if (!has_rates(sw))
			continue;
		for (size_t k = 0; k < sw->npoints; k++) {
			const struct tb_sweep_point *p = &sw->points[k];
			double y = 100 * p->lost_share;

			if (!isfinite(p->events_per_s) || !isfinite(y) || !(p->events_per_s > 0))
				continue;
			tb_gp_row(fd, "dddd", p->events_per_s, y, y, y);
			lo = fmin(lo, p->events_per_s);
			hi = fmax(hi, p->events_per_s);
		}
		fprintf(fd, "\n\n");
		snprintf(t, sizeof(t), "%s against %s", sw->section, sw->against);
		tb_gp_var_si(&v, "g%d", ng++, t);
	}
	ret = tb_plot_lost_rate_draw(g, fd, &v, TB_PLOT_SATURATION, ng, lo, hi,
				     "Events lost against the event rate (workload sweeps)");
	tb_gp_vars_free(&v);
	return ret;
}

int tb_plot_sweeps(struct tb_gp *g, const struct tb_result *r)
{
	int ret, drawn = 0;

	/* An earlier drawing's sweeps beyond this result's are not left behind as if its own. */
	for (int k = (int)r->nsweeps + 1; k <= TB_PLOT_MAX_SWEEPS; k++) {
		char name[32];

		snprintf(name, sizeof(name), "sweep-%d", k);
		ret = tb_gp_remove_images(g, name);
		if (ret)
			return ret;
	}

	for (size_t i = 0; i < r->nsweeps && i < TB_PLOT_MAX_SWEEPS; i++) {
		ret = plot_one(g, &r->sweeps[i], (int)i + 1);
		if (ret < 0)
			return ret;
		drawn |= ret > 0;
	}
	ret = plot_saturation(g, r);
	return ret < 0 ? ret : drawn | (ret > 0);
}
