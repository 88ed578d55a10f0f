// SPDX-License-Identifier: GPL-2.0
/*
 * The report's "where the overhead lands" section (report.h): per explained cell the share
 * check, the profile's limits, the added cost by function and the differential flame graph,
 * drawn from the cell's stored folded files (validated input, never the stored SVG) and
 * inlined, with the traced profile's graph folded away.
 */
#include <math.h>
#include <stdio.h>

#include "explain/explain.h"
#include "render/html/html.h"
#include "render/html/report.h"
#include "model/explain.h"

static void fn_row(FILE *f, const struct tb_cell_explain_fn *fn)
{
	fputs("<tr><td><code>", f);
	tb_html_esc(f, fn->name);
	fprintf(f, "</code></td><td>%s</td>", fn->kernel ? "kernel" : "user");
	tb_html_num(f, fn->self_base, "%.1f");
	tb_html_num(f, fn->self_traced, "%.1f");
	tb_html_num(f, fn->self_traced - fn->self_base, "%+.1f");
	tb_html_num(f, 100 * fn->self_share, "%.0f%%");
	tb_html_num(f, fn->incl_base, "%.1f");
	tb_html_num(f, fn->incl_traced, "%.1f");
	tb_html_num(f, fn->incl_traced - fn->incl_base, "%+.1f");
	tb_html_num(f, 100 * fn->incl_share, "%.0f%%");
	fputs("</tr>\n", f);
}

static void fn_table(FILE *f, const struct tb_cell_explain *e, size_t idx)
{
	fprintf(f,
		"<table class=\"explain-table\" id=\"explain-table-%zu\">\n<thead><tr>"
		"<th rowspan=\"2\">function</th><th rowspan=\"2\">where</th>"
		"<th colspan=\"4\">self ns/op</th><th colspan=\"4\">inclusive ns/op</th></tr>"
		"<tr><th>baseline</th><th>traced</th><th>added</th><th>of overhead</th>"
		"<th>baseline</th><th>traced</th><th>added</th><th>of overhead</th></tr>"
		"</thead>\n<tbody>\n",
		idx);
	for (size_t k = 0; k < e->nfns; k++)
		fn_row(f, &e->fns[k]);
	fputs("</tbody>\n</table>\n", f);
}

static void limits(FILE *f, const struct tb_cell_explain *e)
{
	if (!json_array_size(e->limits))
		return;
	fputs("<ul class=\"warn\">\n", f);
	for (size_t k = 0; k < json_array_size(e->limits); k++) {
		fputs("<li>", f);
		tb_html_esc(f, json_string_value(json_array_get(e->limits, k)));
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void graphs(FILE *f, const struct tb_result *r, const struct tb_cell *c, size_t idx)
{
	fprintf(f, "<figure id=\"flamegraph-%zu\">\n", idx);
	if (tb_explain_svg_inline(f, r, c, true))
		fputs("<p class=\"note\">The flame graph cannot be drawn: the cell's folded files "
		      "are missing or invalid next to the result (the log says which).</p>\n",
		      f);
	fputs("<figcaption>Differential flame graph: frame widths are the traced profile's CPU "
	      "time per operation; colour is each frame's own time against the baseline (red "
	      "more, blue less). Hover a frame for its figures. Files: <code>",
	      f);
	tb_html_esc(f, c->explain->dir);
	fputs("/</code> (folded stacks for flamegraph.pl, inferno or speedscope).</figcaption>\n"
	      "</figure>\n<details><summary>The traced profile alone</summary>\n<figure>\n",
	      f);
	if (tb_explain_svg_inline(f, r, c, false))
		fputs("<p class=\"note\">The flame graph cannot be drawn.</p>\n", f);
	fputs("</figure>\n</details>\n", f);
}

static void cell_section(FILE *f, const struct tb_result *r, const struct tb_cell *c, size_t idx)
{
	const struct tb_cell_explain *e = c->explain;

	fprintf(f, "<h3 id=\"explain-%zu\">", idx);
	tb_html_esc(f, c->id);
	fputs("</h3>\n<p>", f);
	if (e->error) {
		fputs("<b>Not explained:</b> ", f);
		tb_html_esc(f, e->error);
		fputs("</p>\n", f);
		limits(f, e);
		return;
	}
	fprintf(f, "<b>%s</b> ", e->explained ? "Explained:" : "Not fully explained:");
	tb_html_esc(f, e->statement);
	fprintf(f,
		". Profiled: %u baseline and %u traced samples, %.0f Hz cpu-clock; the "
		"workload's CPU time %.1f &rarr; %.1f ns/op.</p>\n",
		e->base.runs, e->traced.runs, e->frequency_hz, e->base.cpu_ns_per_op,
		e->traced.cpu_ns_per_op);
	limits(f, e);
	fn_table(f, e, idx);
	graphs(f, r, c, idx);
}

void tb_report_explain_section(FILE *f, const struct tb_result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ncells; i++)
		n += r->cells[i].explain != NULL;
	if (!n)
		return;
	fputs("<h2 id=\"explain\">Where the overhead lands</h2>\n<p>After the measured rounds, "
	      "extra samples of each explained cell and of its baseline ran with a cpu-clock "
	      "profiler (kernel and user call chains); the difference between the two profiles "
	      "is the tracer's. Times are CPU time per operation (samples &times; period / "
	      "operations); the share is of the overhead the measured rounds found.</p>\n",
	      f);
	for (size_t i = 0; i < r->ncells; i++)
		if (r->cells[i].explain)
			cell_section(f, r, &r->cells[i], i);
}
