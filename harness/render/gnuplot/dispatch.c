// SPDX-License-Identifier: GPL-2.0
/* Which plots there are, and the two sessions that draw them (plot.h). */
#include <errno.h>

#include "core/tb.h"
#include "render/gnuplot/plot.h"
#include "render/gnuplot/gnuplot.h"
#include "model/result.h"

const char *const tb_plot_names[] = {
	"overhead", "ns-per-op", "ns-per-event", "probe-types", "latency", "timeline",
	"rate",	    "sweeps",	 "service",	 "limits",	"compare", NULL,
};

/* The plots of one result, in tb_plot_names order (compare is tb_plot_compare's). */
static int (*const result_plots[])(struct tb_gp *, const struct tb_result *) = {
	tb_plot_overhead, tb_plot_ns_per_op, tb_plot_ns_per_event, tb_plot_probe_types,
	tb_plot_latency,  tb_plot_timeline,  tb_plot_rate,	   tb_plot_sweeps,
	tb_plot_service,  tb_plot_limits,
};

int tb_plot_result_at(const struct tb_result *r, const struct tb_dir *out, unsigned flags)
{
	int ret, drawn = 0, missing, first_err = 0;
	struct tb_gp g;
	size_t i;

	ret = tb_gp_init(&g, out, flags, r, false);
	if (ret) {
		tb_gp_finish(&g);
		return ret;
	}
	/* Without gnuplot the data files are still written, then -ENOENT. */
	missing = tb_gp_need_gnuplot(&g);
	for (i = 0; i < TB_ARRAY_SIZE(result_plots); i++) {
		ret = result_plots[i](&g, r);
		if (ret > 0)
			drawn++;
		else if (ret < 0 && !first_err)
			first_err = ret;
	}
	ret = tb_gp_finish(&g);
	if (ret && !first_err)
		first_err = ret;
	if (g.err) /* why a plot failed, rather than its -EIO */
		first_err = g.err;
	if (missing)
		return missing;
	if (first_err)
		return first_err;
	return (flags & TB_PLOT_DATA_ONLY) ? 0 : drawn;
}

int tb_plot_result(const struct tb_result *r, const char *outdir, unsigned flags)
{
	struct tb_dir d;
	int ret = tb_gp_outdir(&d, outdir);

	if (!ret)
		ret = tb_plot_result_at(r, &d, flags);
	tb_dir_close(&d);
	return ret;
}

int tb_plot_compare_at(const struct tb_result *const *rs, const char *const *labels, size_t n,
		       const struct tb_dir *out, unsigned flags)
{
	int ret, missing, fin;
	struct tb_gp g;

	if (!n)
		return 0;
	ret = tb_gp_init(&g, out, flags, rs[0], true);
	if (ret) {
		tb_gp_finish(&g);
		return ret;
	}
	/* Without gnuplot the data files are still written, then -ENOENT. */
	missing = tb_gp_need_gnuplot(&g);
	ret = tb_plot_draw_compare(&g, rs, labels, n);
	fin = tb_gp_finish(&g);
	if (ret >= 0 && fin)
		ret = fin;
	if (ret < 0 && g.err)
		ret = g.err;
	if (ret < 0)
		return ret;
	if (missing)
		return missing;
	return ret && !(flags & TB_PLOT_DATA_ONLY) ? 1 : 0;
}

int tb_plot_compare(const struct tb_result *const *rs, const char *const *labels, size_t n,
		    const char *outdir, unsigned flags)
{
	struct tb_dir d;
	int ret;

	if (!n)
		return 0;
	ret = tb_gp_outdir(&d, outdir);
	if (!ret)
		ret = tb_plot_compare_at(rs, labels, n, &d, flags);
	tb_dir_close(&d);
	return ret;
}
