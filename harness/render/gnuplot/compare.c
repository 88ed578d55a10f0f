// SPDX-License-Identifier: GPL-2.0
/* The compare plot: the overhead of every traced cell, side by side for each result set. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/gnuplot/plot.h"
#include "render/gnuplot/gnuplot.h"
#include "render/text.h"
#include "model/result.h"
#include "model/measured.h"

/* The rows: every traced cell id with an overhead, in order of first appearance. */
struct rows {
	const char **id;
	size_t n, cap;
	size_t maxlbl;	/* the longest row label, as cut */
	double lo, hi;	/* the range of every overhead and CI */
	double maxtx;	/* the rightmost start of a bar's text */
	size_t maxtext; /* the longest bar text */
};

static bool has_overhead(const struct tb_cell *c)
{
	return !c->baseline && c->has_overhead && isfinite(c->overhead.pct) && c->id;
}

static int add_row(struct rows *rw, const char *id)
{
	for (size_t j = 0; j < rw->n; j++)
		if (!strcmp(rw->id[j], id))
			return 0;
	if (rw->n == rw->cap) {
		size_t cap = rw->cap ? rw->cap * 2 : 16;
		const char **nr = realloc(rw->id, cap * sizeof(*rw->id));

		if (!nr)
			return -ENOMEM;
		rw->id = nr;
		rw->cap = cap;
	}
	rw->id[rw->n++] = id;
	return 0;
}

static int collect_rows(struct rows *rw, const struct tb_result *const *rs, size_t n)
{
	for (size_t s = 0; s < n; s++) {
		for (size_t i = 0; i < rs[s]->ncells; i++) {
			const struct tb_cell *c = &rs[s]->cells[i];

			if (!has_overhead(c))
				continue;
			rw->hi = tb_gp_fmax3(rw->hi, c->overhead.pct, c->overhead.ci_hi);
			rw->lo = tb_gp_fmin3(rw->lo, c->overhead.pct, c->overhead.ci_lo);
			if (add_row(rw, c->id))
				return -ENOMEM;
		}
	}
	return 0;
}

/* compare-rows.dat: each row's cell, cut to two names' length. */
static void write_rows(FILE *f, struct rows *rw)
{
	for (size_t j = 0; j < rw->n; j++) {
		char sn[2 * TB_GP_NAME_MAX + 8];
		size_t len = strlen(rw->id[j]);

		tb_gp_row(f, "zs", j, tb_shorten(sn, sizeof(sn), rw->id[j], 2 * TB_GP_NAME_MAX));
		if (len > rw->maxlbl)
			rw->maxlbl = len > 2 * TB_GP_NAME_MAX ? 2 * TB_GP_NAME_MAX + 3 : len;
	}
}

/* Block of set s: its bar for each row it has. Returns whether it has any. */
static bool write_set(FILE *f, struct rows *rw, const struct tb_result *r, size_t s, bool first)
{
	bool wrote = false;

	for (size_t j = 0; j < rw->n; j++) {
		for (size_t i = 0; i < r->ncells; i++) {
			const struct tb_cell *c = &r->cells[i];
			const struct tb_overhead *o = &c->overhead;
			double tx = tb_gp_fmax3(0, o->pct, o->ci_hi);
			char text[128];

			if (!has_overhead(c) || strcmp(c->id, rw->id[j]))
				continue;
			if (!wrote && !first)
				fputs("\n\n", f);
			if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
				snprintf(text, sizeof(text), "%+.1f%% [%+.1f, %+.1f]", o->pct,
					 o->ci_lo, o->ci_hi);
			else
				snprintf(text, sizeof(text), "%+.1f%%", o->pct);
			tb_gp_row(f, "zdddrdzs", j, o->pct, isfinite(o->ci_lo) ? o->ci_lo : o->pct,
				  isfinite(o->ci_hi) ? o->ci_hi : o->pct, text, tx, s, c->id);
			/* the widest text at the rightmost start bounds the axis */
			if (tx > rw->maxtx)
				rw->maxtx = tx;
			if (strlen(text) > rw->maxtext)
				rw->maxtext = strlen(text);
			wrote = true;
			break;
		}
	}
	return wrote;
}

/* system.<a>.<b> (or system.<a> without b, or when it is not an object) when it is a string. */
/* The key title of set s: labels[s], else "#<s+1> host kernel". */
static void set_label(struct tb_gp_vars *v, int k, const struct tb_result *r,
		      const char *const *labels, size_t s)
{
	char lbl[512];

	if (labels && labels[s]) {
		snprintf(lbl, sizeof(lbl), "%s", labels[s]);
	} else {
		const char *kernel = tb_result_kernel(r);

		snprintf(lbl, sizeof(lbl), "#%zu %s%s%s", s + 1, tb_result_host(r),
			 kernel ? " " : "", kernel ? kernel : "");
	}
	tb_gp_var_si(v, "l%d", k, lbl);
}

/* The variables of compare.gp for nsets sets, and the run. */
static int draw(struct tb_gp *g, struct tb_gp_vars *v, const struct rows *rw, int nsets,
		double confidence)
{
	struct tb_gp_room room;
	char t[512];

	tb_gp_var_dat(v, g, "datafile", "compare");
	tb_gp_var_dat(v, g, "rowfile", "compare-rows");
	tb_gp_var_d(v, "n", (double)rw->n);
	tb_gp_var_d(v, "ns", nsets);
	tb_gp_var_d(v, "conf", 100.0 * (confidence > 0 ? confidence : 0.95));
	room.xmin = rw->lo - 0.04 * (rw->hi - rw->lo + 1);
	room.xmax = rw->hi + 0.05 * (rw->hi - rw->lo + 1);
	room.plot_px = tb_gp_plot_width_px(1000, rw->maxlbl);
	room.logx = false;
	tb_gp_room_for(&room, rw->maxtx, rw->maxtext);
	tb_gp_var_d(v, "xmin", room.xmin);
	tb_gp_var_d(v, "xmax", room.xmax);
	snprintf(t, sizeof(t), "Overhead per cell, %d result sets compared", nsets);
	tb_gp_var_s(v, "title", t);
	return tb_gp_run(g, "compare", v, 1000, 200 + (int)rw->n * (20 + 18 * nsets));
}

int tb_plot_draw_compare(struct tb_gp *g, const struct tb_result *const *rs,
			 const char *const *labels, size_t n)
{
	struct rows rw = {0};
	struct tb_gp_vars v = {0};
	FILE *fd = NULL, *fr = NULL;
	int ret, nsets = 0;

	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	ret = collect_rows(&rw, rs, n);
	if (ret)
		goto out;
	fd = tb_gp_dat_open(g, "compare", "per result set (block): overhead per cell",
			    "row\tpct\tci_lo\tci_hi\ttext\ttext_x\tset\tcell");
	fr = tb_gp_dat_open(g, "compare-rows", "the cells compared", "row\tcell");
	if (!fd || !fr) {
		ret = -EIO;
		goto out;
	}
	write_rows(fr, &rw);
	for (size_t s = 0; s < n; s++)
		if (write_set(fd, &rw, rs[s], s, !nsets))
			set_label(&v, nsets++, rs[s], labels, s);
	ret = tb_gp_dat_close_both(g, fd, "compare", fr, "compare-rows");
	fd = fr = NULL;
	if (ret || !nsets)
		goto out;
	ret = draw(g, &v, &rw, nsets, rs[0]->confidence);
out:
	if (fd)
		fclose(fd);
	if (fr)
		fclose(fr);
	tb_gp_vars_free(&v);
	free(rw.id);
	return ret;
}
