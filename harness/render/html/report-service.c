// SPDX-License-Identifier: GPL-2.0
/*
 * The report's service table (report.h): each traced service cell's requests/s beside its
 * baseline's, the throughput loss and p99 delta with their CIs and each metric's verdict, and
 * which metric decides the cell (stats/service.h computes them all; METHODOLOGY.md "Services").
 */
#include <math.h>
#include <stdio.h>

#include "render/html/html.h"
#include "render/html/report.h"
#include "model/result.h"

/* "<td>+1.2 [+0.3, +2.0]</td>" of a change scaled by 1/k; "-" when unknown. */
static void change_td(FILE *f, double v, double lo, double hi, double k)
{
	if (!isfinite(v)) {
		fputs("<td class=\"n\">&ndash;</td>", f);
		return;
	}
	fprintf(f, "<td class=\"n\">%+.1f", v / k);
	if (isfinite(lo) && isfinite(hi))
		fprintf(f, " [%+.1f, %+.1f]", lo / k, hi / k);
	fputs("</td>", f);
}

static void verdict_td(FILE *f, int v)
{
	fprintf(f, "<td class=\"%s\">", tb_html_verdict_class((enum tb_verdict)v));
	tb_html_esc(f, tb_verdict_name((enum tb_verdict)v));
	fputs("</td>", f);
}

void tb_report_service_section(FILE *f, const struct tb_result *r)
{
	bool head = false;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i], *b = tb_result_baseline(r, c);
		const struct tb_service_overhead *s = &c->service;

		if (!s->traced)
			continue;
		if (!head)
			fprintf(f,
				"<h2 id=\"services\">Services</h2>\n<p>Medians of the client's "
				"figures; CIs at %.3g%%, paired by round. The metric the cell's "
				"verdict comes from is the one it decides by.</p>\n"
				"<table id=\"service-table\">\n<thead><tr><th>workload</th>"
				"<th>tracer</th><th>baseline req/s</th><th>traced req/s</th>"
				"<th>throughput loss %% [CI]</th><th>verdict</th>"
				"<th>p99 delta us [CI]</th><th>verdict</th><th>p50 verdict</th>"
				"<th>decides</th></tr></thead>\n<tbody>\n",
				100 * (r->confidence > 0 ? r->confidence : 0.95));
		head = true;
		fputs("<tr><td>", f);
		tb_html_esc(f, c->workload);
		fputs("</td><td>", f);
		tb_html_esc(f, c->tracer);
		fputs("</td>", f);
		tb_html_num(f, b ? b->service.rps : NAN, "%.0f");
		tb_html_num(f, s->rps, "%.0f");
		change_td(f, s->loss_pct, s->loss_lo, s->loss_hi, 1);
		verdict_td(f, s->thr_verdict);
		change_td(f, s->p99_delta, s->p99_lo, s->p99_hi, 1e3);
		verdict_td(f, s->p99_verdict);
		verdict_td(f, s->p50_verdict);
		fputs("<td>", f);
		tb_html_esc(f, s->decides);
		fputs("</td></tr>\n", f);
	}
	if (head)
		fputs("</tbody>\n</table>\n", f);
}
