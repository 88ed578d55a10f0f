// SPDX-License-Identifier: GPL-2.0
/* The timeline plot: every completed sample in run order, a panel per workload. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/result.h"

#define TIMELINE_MAX_KEY 12 /* beyond a dozen series a key cannot be read */

struct timeline {
	FILE *f;
	int nwarm;	       /* warm-up samples in the current panel */
	unsigned int maxorder; /* the last sample's position */
};

/* tb_gp_series write: cell c's completed samples, warm-ups included. */
static int write_cell(void *ctx, const struct tb_cell *c, int block, size_t ncells, char *title,
		      size_t len)
{
	struct timeline *tl = ctx;
	size_t k, n = 0;

	for (k = 0; k < c->nsamples; k++)
		n += !c->samples[k].failed && !c->samples[k].accounting &&
		     isfinite(c->samples[k].ns_per_op);
	if (!n)
		return 0;
	if (block)
		fputs("\n\n", tl->f);
	fprintf(tl->f, "# %s\n", c->id ? c->id : "");
	for (k = 0; k < c->nsamples; k++) {
		const struct tb_sample *s = &c->samples[k];

		if (s->failed || s->accounting || !isfinite(s->ns_per_op))
			continue; /* accounting samples are not the cell's timing */
		fprintf(tl->f, "%u\t%.6g\t%d\t%d\n", s->order, s->ns_per_op, s->warmup, s->round);
		tl->nwarm += s->warmup;
		if (s->order > tl->maxorder)
			tl->maxorder = s->order;
	}
	/* Without a key the panel title says why. */
	if (ncells > TIMELINE_MAX_KEY)
		title[0] = '\0';
	else
		tb_gp_cell_label(c, title, len);
	return 1;
}

/* tb_gp_series panel: the panel's warm-ups, and a title that says why it has no key. */
static void panel(void *ctx, struct tb_gp_vars *v, int i, const char *wl, size_t ncells)
{
	struct timeline *tl = ctx;

	if (ncells > TIMELINE_MAX_KEY) {
		char tt[600], sn[TB_GP_NAME_MAX + 8];

		snprintf(tt, sizeof(tt), "workload %s, %zu cells (too many to name here)",
			 tb_shorten(sn, sizeof(sn), wl, TB_GP_NAME_MAX), ncells);
		tb_gp_var_si(v, "t%d", i, tt);
	}
	tb_gp_var_di(v, "nwarm%d", i, tl->nwarm);
	tl->nwarm = 0;
}

int tb_plot_timeline(struct tb_gp *g, const struct tb_result *r)
{
	struct timeline tl = {0};
	struct tb_gp_series s = {.write = write_cell, .panel = panel, .ctx = &tl};
	struct tb_gp_vars v = {0};
	int ret, npanels;

	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	tl.f = tb_gp_dat_open(g, "timeline", "per cell (block): every sample in run order",
			      "order\tns_per_op\twarmup\tround");
	if (!tl.f) {
		ret = -EIO;
		goto out;
	}
	npanels = tb_gp_series_panels(g, r, &v, &s);
	ret = tb_gp_dat_close(g, tl.f, "timeline");
	tl.f = NULL;
	if (ret || npanels <= 0) {
		ret = ret ? ret : npanels;
		goto out;
	}
	tb_gp_var_dat(&v, g, "datafile", "timeline");
	tb_gp_var_d(&v, "nw", npanels);
	tb_gp_var_d(&v, "ncol", npanels > 2 ? 2 : 1);
	tb_gp_var_d(&v, "xmax", tl.maxorder + 1.0);
	tb_gp_main_title(&v, g, "Every sample in run order");
	ret = tb_gp_run(g, "timeline", &v, npanels > 2 ? 1600 : 1100,
			90 + 330 * ((npanels + (npanels > 2)) / (npanels > 2 ? 2 : 1)));
out:
	if (tl.f)
		fclose(tl.f);
	tb_gp_vars_free(&v);
	return ret;
}
