// SPDX-License-Identifier: GPL-2.0
/* The ns-per-op plot: per workload a panel, per cell a box plot of its measured samples. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/measured.h"
#include "model/result.h"
#include "stats/stats.h"

/* The box of cell c's measured samples; x is room for TB_RESULT_MAX_SAMPLES values. */
static void box_of(const struct tb_cell *c, double *x, struct tb_stats_box *b)
{
	size_t n = 0;

	for (size_t k = 0; k < c->nsamples && n < TB_RESULT_MAX_SAMPLES; k++)
		if (tb_sample_measured(&c->samples[k]))
			x[n++] = c->samples[k].ns_per_op;
	tb_stats_box(x, n, b);
}

/* Cell c at box position xpos: its box into fb, its samples into fs. Returns the length of
 * its tick label. */
static size_t write_cell(FILE *fb, FILE *fs, const struct tb_cell *c, int xpos,
			 const struct tb_stats_box *b)
{
	char lbl[300], mt[32];
	const char *label = tb_gp_cell_label(c, lbl, sizeof(lbl));
	size_t k, n = 0;

	tb_gp_row(fb, "ssizdddddddr", c->workload, label, xpos, b->n, b->min, b->q1, b->med, b->q3,
		  b->max, b->wlo, b->whi, tb_fmt_ns(mt, sizeof(mt), b->med));
	/* Deterministic jitter (golden-ratio sequence) within +-0.18 of the box. */
	for (k = 0; k < c->nsamples; k++) {
		const struct tb_sample *s = &c->samples[k];
		double j = fmod((double)n * 0.6180339887, 1.0) - 0.5;

		if (!tb_sample_measured(s))
			continue;
		tb_gp_row(fs, "ssifdz", c->workload, c->tracer, xpos, xpos + 0.36 * j, s->ns_per_op,
			  k);
		n++;
	}
	return strlen(label);
}

/* The scratch of one plot: the workloads of the result, room for a workload's cells (idx)
 * and for a cell's samples (x, TB_RESULT_MAX_SAMPLES). */
struct scratch {
	const char **wls;
	size_t nw, *idx;
	double *x;
};

/*
 * A panel per workload with measured cells (blocks of both files), its title into v. Returns
 * the number of panels, the most boxes of one into *maxbox, the longest tick label's length
 * into maxlab[0] and the longest of a panel's last one into maxlab[1].
 */
static size_t write_panels(struct tb_gp *g, const struct tb_result *r, struct tb_gp_vars *v,
			   FILE *fb, FILE *fs, const struct scratch *sc, int *maxbox,
			   size_t maxlab[2])
{
	const char *const *wls = sc->wls;
	size_t *idx = sc->idx, w, i, npanels = 0;

	for (w = 0; w < sc->nw; w++) {
		size_t nidx = tb_gp_cells_of(r, wls[w], idx);
		size_t len = 0;
		int xpos = 0;

		for (i = 0; i < nidx; i++) {
			const struct tb_cell *c = &r->cells[idx[i]];
			struct tb_stats_box b;

			box_of(c, sc->x, &b);
			if (!b.n)
				continue;
			if (!xpos && npanels)
				fputs("\n\n", fb), fputs("\n\n", fs);
			len = write_cell(fb, fs, c, xpos, &b);
			maxlab[0] = fmax(maxlab[0], len);
			xpos++;
		}
		maxlab[1] = fmax(maxlab[1], len);
		if (xpos > *maxbox)
			*maxbox = xpos;
		if (xpos) {
			tb_gp_panel_title(v, g, (int)npanels, r, wls[w]);
			npanels++;
		}
	}
	return npanels;
}

int tb_plot_ns_per_op(struct tb_gp *g, const struct tb_result *r)
{
	struct scratch sc = {0};
	struct tb_gp_vars v = {0};
	FILE *fb = NULL, *fs = NULL;
	int ret = 0, maxbox = 0, rot, labpx, rightpx, rows;
	size_t npanels, maxlab[2] = {0, 0};

	sc.idx = calloc(r->ncells + 1, sizeof(*sc.idx));
	sc.x = calloc(TB_RESULT_MAX_SAMPLES, sizeof(*sc.x));
	sc.nw = tb_gp_workloads(r, &sc.wls);
	if (!sc.idx || !sc.x || !sc.wls || tb_gp_vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	fb = tb_gp_dat_open(g, "ns-per-op",
			    "per workload (block), per cell: box plot of measured ns/op",
			    "workload\tlabel\tx\tn\tmin\tq1\tmedian\tq3\tmax\twhisker_lo\t"
			    "whisker_hi\tmedian_text");
	fs = tb_gp_dat_open(g, "ns-per-op-samples", "per workload (block): every measured sample",
			    "workload\ttracer\tx\tx_jittered\tns_per_op\tsample");
	if (!fb || !fs) {
		ret = -EIO;
		goto out;
	}
	npanels = write_panels(g, r, &v, fb, fs, &sc, &maxbox, maxlab);
	ret = tb_gp_dat_close_both(g, fb, "ns-per-op", fs, "ns-per-op-samples");
	fb = fs = NULL;
	if (ret || !npanels)
		goto out;
	tb_gp_var_dat(&v, g, "datafile", "ns-per-op");
	tb_gp_var_dat(&v, g, "samplefile", "ns-per-op-samples");
	tb_gp_var_d(&v, "nw", (double)npanels);
	tb_gp_var_d(&v, "ncol", npanels > 2 ? 2 : 1);
	rot = maxbox > (npanels > 2 ? 4 : 7); /* slanted names when crowded */
	/* The room slanted names take under each panel (sin 30 deg of ~7 px a character at the
	 * tick font), given to the gaps between rows so no name runs into the panel below, and
	 * right of it for the last name (cos 30 deg). */
	labpx = rot ? (int)(0.5 * 7 * (double)maxlab[0]) + 10 : 0;
	rightpx = rot ? (int)(6 * (double)maxlab[1]) : 0;
	tb_gp_var_d(&v, "rot", rot);
	tb_gp_var_d(&v, "labpx", labpx);
	tb_gp_var_d(&v, "rightpx", rightpx);
	tb_gp_main_title(&v, g, "Time per operation, baseline and each tracer");
	rows = (int)((npanels + (npanels > 2)) / (npanels > 2 ? 2 : 1));
	ret = tb_gp_run(g, "ns-per-op", &v, npanels > 2 ? 1400 : 1000,
			90 + labpx + (330 + labpx) * rows);
out:
	if (fb)
		fclose(fb);
	if (fs)
		fclose(fs);
	tb_gp_vars_free(&v);
	free(sc.wls);
	free(sc.idx);
	free(sc.x);
	return ret;
}
