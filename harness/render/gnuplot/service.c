// SPDX-License-Identifier: GPL-2.0
/*
 * The service plot: for each traced service cell, its throughput loss % and its p99 delta (us)
 * with their CIs, side by side (stats/service.h computes them; METHODOLOGY.md "Services").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/gnuplot/gnuplot.h"
#include "model/result.h"

int tb_plot_service(struct tb_gp *g, const struct tb_result *r)
{
	double thr = 100.0 * (r->noise_threshold > 0 ? r->noise_threshold : 0.01);
	struct tb_gp_vars v = {0};
	size_t n = 0, maxlbl = 0;
	FILE *f;
	int ret;

	f = tb_gp_dat_open(g, "service", "one row per traced service cell",
			   "row\tlabel\tloss_pct\tloss_lo\tloss_hi\tthr_verdict\tp99_delta_us\t"
			   "p99_lo_us\tp99_hi_us\tp99_verdict");
	if (!f)
		return -EIO;
	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_service_overhead *s = &c->service;
		char lbl[600];

		if (!s->traced)
			continue;
		tb_gp_row_label(c, lbl, sizeof(lbl));
		if (strlen(lbl) > maxlbl)
			maxlbl = strlen(lbl);
		tb_gp_row(f, "zsdddsddds", n++, lbl, s->loss_pct, s->loss_lo, s->loss_hi,
			  tb_verdict_name(s->thr_verdict), s->p99_delta / 1e3, s->p99_lo / 1e3,
			  s->p99_hi / 1e3, tb_verdict_name(s->p99_verdict));
	}
	ret = tb_gp_dat_close(g, f, "service");
	if (ret || !n)
		return ret;
	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	tb_gp_var_dat(&v, g, "datafile", "service");
	tb_gp_var_d(&v, "n", (double)n);
	tb_gp_var_d(&v, "thr", thr);
	tb_gp_var_d(&v, "conf", 100.0 * (r->confidence > 0 ? r->confidence : 0.95));
	tb_gp_main_title(&v, g, "Service throughput loss and p99 delta");
	ret = tb_gp_run(g, "service", &v, 1000 + 7 * (int)maxlbl, 220 + 34 * (int)n);
	tb_gp_vars_free(&v);
	return ret;
}
