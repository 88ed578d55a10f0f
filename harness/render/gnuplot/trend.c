// SPDX-License-Identifier: GPL-2.0
/*
 * The trend plot of one history series: every run's point with its CI, the median of each
 * segment between change points as a step, and each change point marked and labelled.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "history/analysis.h"
#include "render/gnuplot/plot.h"
#include "render/gnuplot/gnuplot.h"
#include "render/text.h"

#define TREND_MAX_LABELS 20 /* change points labelled; more are only marked */

/* "+14.2 pp, run 37 (commit=9f3e1a2)" for the label of change x. */
static void cp_label(char *buf, size_t len, const struct tb_hseries *s, const struct tb_hchange *x)
{
	const char *unit = s->metric ? s->metric->unit : "";
	json_t *commit = json_object_get(x->labels, "commit");
	char chg[64];

	if (s->metric && s->metric->mag == TB_HMAG_RELATIVE && isfinite(x->c.change_pct))
		snprintf(chg, sizeof(chg), "%+.1f%%", x->c.change_pct);
	else if (!strcmp(unit, "%"))
		snprintf(chg, sizeof(chg), "%+.2f pp", x->c.change);
	else
		snprintf(chg, sizeof(chg), "%+.3g %s", x->c.change, unit);
	snprintf(buf, len, "%s, run %zu%s%.12s%s", chg, x->c.index + 1,
		 json_is_string(commit) ? " (" : "",
		 json_is_string(commit) ? json_string_value(commit) : "",
		 json_is_string(commit) ? ")" : "");
}

/* Block 0: the points; block 1: the segments' medians as steps. Returns 0 or -EIO. */
static int write_data(struct tb_gp *g, const char *name, const struct tb_hanalysis *a, double *ymin,
		      double *ymax)
{
	const struct tb_hdata *d = &a->data;
	FILE *f = tb_gp_dat_open(g, name, "block 0: runs; block 1: segment medians (steps)",
				 "run\tvalue\tci_lo\tci_hi\tstarted");
	size_t seg = 0;

	if (!f)
		return -EIO;
	*ymin = INFINITY;
	*ymax = -INFINITY;
	for (size_t i = 0; i < d->n; i++) {
		const struct tb_hrec *r = &d->rec[i];
		double lo = isfinite(r->ci_lo) ? r->ci_lo : r->value;
		double hi = isfinite(r->ci_hi) ? r->ci_hi : r->value;

		tb_gp_row(f, "zddds", i + 1, r->value, lo, hi, r->started);
		*ymin = tb_gp_fmin3(*ymin, r->value, lo);
		*ymax = tb_gp_fmax3(*ymax, r->value, hi);
	}
	fputs("\n\n", f);
	for (size_t c = 0; c <= a->nch; c++) {
		size_t end = c < a->nch ? a->ch[c].c.index : d->n;
		double med = a->seg_median ? a->seg_median[c] : NAN;

		/* A step: the segment's median from its first run to its last, then a gap. */
		tb_gp_row(f, "dd", seg + 0.5, med);
		tb_gp_row(f, "dd", end + 0.5, med);
		fputc('\n', f);
		seg = end;
	}
	return tb_gp_dat_close(g, f, name);
}

int tb_plot_draw_trend(struct tb_gp *g, const struct tb_hanalysis *a)
{
	const struct tb_hseries *s = a->s;
	char name[64], title[600], yl[160], lbl[160], nb[TB_GP_NAME_MAX * 4 + 16];
	struct tb_gp_vars v = {0};
	double ymin, ymax;
	int ret;

	if (!a->data.n)
		return 0;
	snprintf(name, sizeof(name), "trend-%s", s->id);
	ret = tb_gp_remove_images(g, name);
	if (!ret)
		ret = write_data(g, name, a, &ymin, &ymax);
	if (ret)
		return ret;
	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	tb_gp_var_dat(&v, g, "datafile", name);
	snprintf(title, sizeof(title), "%s - %s",
		 tb_shorten(nb, sizeof(nb), s->name, 4 * TB_GP_NAME_MAX),
		 s->hw_desc ? s->hw_desc : "");
	tb_gp_var_s(&v, "title", title);
	/* the metric's description says its unit */
	snprintf(yl, sizeof(yl), "%s", s->metric ? s->metric->what : s->metric_name);
	tb_gp_var_s(&v, "ylabel", yl);
	snprintf(lbl, sizeof(lbl), "run, oldest first (%s to %s)", a->data.rec[0].started,
		 a->data.rec[a->data.n - 1].started);
	tb_gp_var_s(&v, "xlabel", lbl);
	tb_gp_var_d(&v, "xmax", (double)a->data.n);
	tb_gp_var_d(&v, "ymin", ymin);
	tb_gp_var_d(&v, "ymax", ymax);
	tb_gp_var_d(&v, "ncp", (double)a->nch);
	for (size_t i = 0; i < a->nch; i++) {
		tb_gp_var_di(&v, "cpx%d", (int)i, a->ch[i].c.index + 0.5);
		cp_label(lbl, sizeof(lbl), s, &a->ch[i]);
		tb_gp_var_si(&v, "cpl%d", (int)i, i < TREND_MAX_LABELS ? lbl : "");
	}
	ret = tb_gp_run_as(g, "trend", name, &v, 1100, 520);
	tb_gp_vars_free(&v);
	return ret;
}

int tb_plot_trend(const struct tb_hanalysis *a, const char *outdir, unsigned flags)
{
	struct tb_dir out;
	struct tb_gp g;
	int ret, missing, fin;

	ret = tb_gp_outdir(&out, outdir);
	if (ret)
		return ret;
	ret = tb_gp_open(&g, &out, flags, NULL, a->s->scenario);
	tb_dir_close(&out); /* the session holds plots/ */
	if (ret) {
		tb_gp_finish(&g);
		return ret;
	}
	missing = tb_gp_need_gnuplot(&g);
	ret = tb_plot_draw_trend(&g, a);
	fin = tb_gp_finish(&g);
	if (ret < 0)
		return ret;
	if (fin)
		return fin;
	if (missing)
		return missing;
	return ret && !(flags & TB_PLOT_DATA_ONLY) ? 1 : 0;
}
