// SPDX-License-Identifier: GPL-2.0
/* The overhead plot: one bar per traced cell with its CI, sorted, the verdict as fill and text. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/gnuplot/gnuplot.h"
#include "model/result.h"

/* The rows of the chart: traced cells with an overhead, largest first. */
struct bars {
	size_t *idx, n; /* cells of the result */
	double *tx;	/* where each row's text starts (axis units) */
	size_t *tlen;	/* and its length */
	size_t maxlbl;	/* the longest row label */
	int nv[4];	/* rows per verdict code */
};

static int verdict_code(enum tb_verdict v)
{
	switch (v) {
	case TB_VERDICT_OVERHEAD:
		return 0;
	case TB_VERDICT_NO_OVERHEAD:
		return 1;
	case TB_VERDICT_UNTRUSTWORTHY:
	case TB_VERDICT_FASTER: /* drawn as suspect as an untrustworthy one */
		return 2;
	default:
		return 3;
	}
}

static const char *verdict_text(enum tb_verdict v)
{
	switch (v) {
	case TB_VERDICT_OVERHEAD:
		return "overhead";
	case TB_VERDICT_NO_OVERHEAD:
		return "not detectable";
	case TB_VERDICT_UNTRUSTWORTHY:
		return "untrustworthy";
	case TB_VERDICT_FASTER:
		return "faster: suspect";
	default:
		return "not analysed";
	}
}

static double overhead_pct(const struct tb_cell *c)
{
	return c->overhead.pct;
}

/* Row i of overhead.dat: cell c. */
static void write_row(FILE *f, struct bars *b, size_t i, const struct tb_cell *c)
{
	const struct tb_overhead *o = &c->overhead;
	char lbl[600], text[400];
	int vc = verdict_code(o->verdict);

	b->nv[vc]++;
	if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
		snprintf(text, sizeof(text), "%+.1f%% [%+.1f, %+.1f] %s", o->pct, o->ci_lo,
			 o->ci_hi, verdict_text(o->verdict));
	else
		snprintf(text, sizeof(text), "%+.1f%% %s", o->pct, verdict_text(o->verdict));
	tb_gp_row_label(c, lbl, sizeof(lbl));
	b->tx[i] = tb_gp_fmax3(0, o->pct, o->ci_hi);
	b->tlen[i] = strlen(text);
	if (strlen(lbl) > b->maxlbl)
		b->maxlbl = strlen(lbl);
	tb_gp_row(f, "zsssdddrisd", i, c->workload, c->tracer, lbl, o->pct, o->ci_lo, o->ci_hi,
		  o->verdict ? tb_verdict_name(o->verdict) : "-", vc, text, b->tx[i]);
}

/* The variables of overhead.gp: the x axis holds every bar, the noise band and the texts. */
static int draw(struct tb_gp *g, const struct tb_result *r, struct tb_gp_vars *v,
		const struct bars *b, double thr)
{
	struct tb_gp_room room;
	double lo = 0, hi = 0;
	size_t i;

	for (i = 0; i < b->n; i++) {
		const struct tb_overhead *o = &r->cells[b->idx[i]].overhead;

		hi = tb_gp_fmax3(hi, o->pct, o->ci_hi);
		lo = tb_gp_fmin3(lo, o->pct, o->ci_lo);
	}
	if (hi < thr)
		hi = thr;
	if (lo > -thr)
		lo = -thr;
	tb_gp_var_dat(v, g, "datafile", "overhead");
	tb_gp_var_d(v, "n", (double)b->n);
	tb_gp_var_d(v, "thr", thr);
	tb_gp_var_d(v, "conf", 100.0 * (r->confidence > 0 ? r->confidence : 0.95));
	/* Room on the right for the value text beside each bar. */
	room.xmin = lo - 0.04 * (hi - lo);
	room.xmax = hi + 0.05 * (hi - lo);
	room.plot_px = tb_gp_plot_width_px(1000, b->maxlbl);
	room.logx = false;
	for (i = 0; i < b->n; i++)
		tb_gp_room_for(&room, b->tx[i], b->tlen[i]);
	tb_gp_var_d(v, "xmin", room.xmin);
	tb_gp_var_d(v, "xmax", room.xmax);
	tb_gp_var_d(v, "n0", b->nv[0]);
	tb_gp_var_d(v, "n1", b->nv[1]);
	tb_gp_var_d(v, "n2", b->nv[2]);
	tb_gp_main_title(v, g, "Overhead of each tracer");
	return tb_gp_run(g, "overhead", v, 1000, 200 + 34 * (int)b->n);
}

int tb_plot_overhead(struct tb_gp *g, const struct tb_result *r)
{
	double thr = 100.0 * (r->noise_threshold > 0 ? r->noise_threshold : 0.01);
	struct bars b = {0};
	struct tb_gp_vars v = {0};
	FILE *f = NULL;
	size_t i;
	int ret;

	b.idx = calloc(r->ncells + 1, sizeof(*b.idx));
	b.tx = calloc(r->ncells + 1, sizeof(*b.tx));
	b.tlen = calloc(r->ncells + 1, sizeof(*b.tlen));
	if (!b.idx || !b.tx || !b.tlen || tb_gp_vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->ncells; i++)
		if (!r->cells[i].baseline && r->cells[i].has_overhead &&
		    isfinite(r->cells[i].overhead.pct))
			b.idx[b.n++] = i;
	tb_gp_sort_desc(b.idx, b.n, r, overhead_pct);
	f = tb_gp_dat_open(
		g, "overhead", "one row per traced cell, sorted by overhead (largest first)",
		"row\tworkload\ttracer\tlabel\tpct\tci_lo\tci_hi\tverdict\tverdict_code\ttext\t"
		"text_x");
	if (!f) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < b.n; i++)
		write_row(f, &b, i, &r->cells[b.idx[i]]);
	ret = tb_gp_dat_close(g, f, "overhead");
	f = NULL;
	if (ret || !b.n)
		goto out;
	ret = draw(g, r, &v, &b, thr);
out:
	if (f)
		fclose(f);
	tb_gp_vars_free(&v);
	free(b.idx);
	free(b.tx);
	free(b.tlen);
	return ret;
}
