// SPDX-License-Identifier: GPL-2.0
/* The latency plot: per workload a panel, per latency-mode cell its cumulative distribution. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/result.h"

struct latency {
	FILE *fc, *fm; /* the curves, the percentile marks */
	double ymax;   /* the tail axis up to the highest point */
};

/* y of the tail-stretched CDF axis: -log10(1 - F), capped at 5 (99.999%). */
static double tail_y(double frac)
{
	double q = 1.0 - frac;

	return q < 1e-5 ? 5.0 : -log10(q);
}

/*
 * Points (upper bound, fraction at or below) joined by straight lines: values spread evenly
 * within a bucket, as the histogram's percentiles assume. The curve starts at 0 one bucket
 * width below the first bound.
 */
static void write_curve(struct latency *lt, const struct tb_latency *l, uint64_t total)
{
	uint64_t cum = 0;

	if (l->nbuckets > 1 && l->bucket_ns[1] > l->bucket_ns[0] &&
	    2 * l->bucket_ns[0] - l->bucket_ns[1] > 0)
		fprintf(lt->fc, "%.6g\t0\t0\n", 2 * l->bucket_ns[0] - l->bucket_ns[1]);
	for (size_t k = 0; k < l->nbuckets; k++) {
		double y;

		cum += l->bucket_count[k];
		if (!(l->bucket_ns[k] > 0))
			continue;
		y = tail_y((double)cum / (double)total);
		if (y + 0.3 > lt->ymax)
			lt->ymax = y + 0.3;
		fprintf(lt->fc, "%.6g\t%.6g\t%.9g\n", l->bucket_ns[k], y,
			(double)cum / (double)total);
	}
}

/* tb_gp_series write: cell c's curve and marks, when it has a histogram. */
static int write_cell(void *ctx, const struct tb_cell *c, int block, size_t ncells, char *title,
		      size_t len)
{
	static const char *const pn[3] = {"p50", "p99", "p99.9"};
	const struct tb_latency *l = &c->latency;
	double pv[3] = {l->p50, l->p99, l->p999}, py[3] = {0.30103, 2, 3};
	char a[3][32], sn[TB_GP_NAME_MAX + 8];
	struct latency *lt = ctx;
	uint64_t total = 0;
	size_t k;

	if (!l->present || !l->nbuckets || !l->bucket_ns || !l->bucket_count)
		return 0;
	for (k = 0; k < l->nbuckets; k++)
		total += l->bucket_count[k];
	if (!total)
		return 0;
	if (block)
		fputs("\n\n", lt->fc), fputs("\n\n", lt->fm);
	fprintf(lt->fc, "# %s\n", c->id ? c->id : "");
	write_curve(lt, l, total);
	for (k = 0; k < 3; k++)
		if (isfinite(pv[k]) && pv[k] > 0)
			fprintf(lt->fm, "%.6g\t%.6g\t%s\n", pv[k], py[k], pn[k]);
		else
			fprintf(lt->fm, "NaN\t%.6g\t%s\n", py[k], pn[k]);
	snprintf(title, len, "%s: p50 %s, p99 %s, p99.9 %s",
		 c->baseline ? "baseline" : tb_shorten(sn, sizeof(sn), c->tracer, TB_GP_NAME_MAX),
		 tb_fmt_ns(a[0], 32, l->p50), tb_fmt_ns(a[1], 32, l->p99),
		 tb_fmt_ns(a[2], 32, l->p999));
	return 1;
}

int tb_plot_latency(struct tb_gp *g, const struct tb_result *r)
{
	struct latency lt = {.ymax = 3.3};
	struct tb_gp_series s = {.write = write_cell, .ctx = &lt};
	struct tb_gp_vars v = {0};
	int ret, npanels;

	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	lt.fc = tb_gp_dat_open(g, "latency",
			       "per latency-mode cell (block): cumulative distribution",
			       "latency_ns\ttail_y (-log10(1-F))\tfraction F");
	lt.fm = tb_gp_dat_open(g, "latency-marks", "per latency-mode cell (block): p50, p99, p99.9",
			       "latency_ns\ttail_y\tlabel");
	if (!lt.fc || !lt.fm) {
		ret = -EIO;
		goto out;
	}
	npanels = tb_gp_series_panels(g, r, &v, &s);
	ret = tb_gp_dat_close_both(g, lt.fc, "latency", lt.fm, "latency-marks");
	lt.fc = lt.fm = NULL;
	if (ret || npanels <= 0) {
		ret = ret ? ret : npanels;
		goto out;
	}
	tb_gp_var_dat(&v, g, "datafile", "latency");
	tb_gp_var_dat(&v, g, "markfile", "latency-marks");
	tb_gp_var_d(&v, "nw", npanels);
	tb_gp_var_d(&v, "ymax", lt.ymax > 5.3 ? 5.3 : lt.ymax);
	tb_gp_main_title(&v, g, "Latency per operation (latency-mode cells)");
	ret = tb_gp_run(g, "latency", &v, 1100, 90 + 360 * npanels);
out:
	if (lt.fc)
		fclose(lt.fc);
	if (lt.fm)
		fclose(lt.fm);
	tb_gp_vars_free(&v);
	return ret;
}
