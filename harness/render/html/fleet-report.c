// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report of a fleet run (tb_report_fleet_write): every host with its state, the merged
 * overheads side by side with each host's hardware class and kernel, the comparisons within
 * each class, the compare plot and each merged host's environment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "render/html/html.h"
#include "render/html/report.h"
#include "model/measured.h"
#include "stats/fleet.h"

static void hosts_table(FILE *f, const struct tb_fleet *fl)
{
	fputs("<h2 id=\"hosts\">Hosts</h2>\n<table id=\"fleet-hosts\">\n<thead><tr><th>host</th>"
	      "<th>state</th><th>hardware</th><th>kernel</th><th>install</th>"
	      "<th>result, or why there is none</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < fl->nhosts; i++) {
		const struct tb_fleet_host *h = &fl->hosts[i];

		fputs("<tr><td>", f);
		tb_html_esc(f, h->name);
		fprintf(f, "</td><td class=\"%s\">%s</td><td>",
			h->state == TB_FLEET_OK ? "v-none" : "v-fail",
			tb_fleet_state_name(h->state));
		if (h->merged)
			fprintf(f, "class %c", fl->classes[h->cls].letter);
		fputs("</td><td>", f);
		tb_html_esc(f, h->merged ? tb_result_kernel(h->r) : NULL);
		fputs("</td><td>", f);
		tb_html_esc(f, h->install);
		fputs("</td><td>", f);
		if (h->reason) {
			tb_html_esc(f, h->stage);
			fputs(h->stage ? ": " : "", f);
			tb_html_esc(f, h->reason);
		} else {
			tb_html_esc(f, h->result_path ? h->result_path : "no result");
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* One header row of the merged table: for each merged host, cell(h) over two columns. */
static void header_row(FILE *f, const struct tb_fleet *fl, const char *label, int what)
{
	fputs("<tr><th>", f);
	tb_html_esc(f, label);
	fputs("</th>", f);
	for (size_t i = 0; i < fl->nhosts; i++) {
		const struct tb_fleet_host *h = &fl->hosts[i];

		if (!h->merged)
			continue;
		fputs("<th colspan=\"2\">", f);
		if (what == 0)
			tb_html_esc(f, h->name);
		else if (what == 1)
			fprintf(f, "class %c", fl->classes[h->cls].letter);
		else
			tb_html_esc(f, tb_result_kernel(h->r));
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
}

static void merged_table(FILE *f, const struct tb_fleet *fl)
{
	fputs("<h2 id=\"verdicts\">Overhead per host</h2>\n<table id=\"fleet-table\">\n<thead>\n",
	      f);
	header_row(f, fl, "host", 0);
	header_row(f, fl, "hardware", 1);
	header_row(f, fl, "kernel", 2);
	fputs("</thead>\n<tbody>\n", f);
	for (size_t j = 0; j < fl->nids; j++) {
		fputs("<tr><td>", f);
		tb_html_esc(f, fl->ids[j]);
		fputs("</td>", f);
		for (size_t i = 0; i < fl->nhosts; i++) {
			const struct tb_fleet_host *h = &fl->hosts[i];
			const struct tb_cell *c = h->merged ? tb_fleet_cell(h, fl->ids[j]) : NULL;

			if (!h->merged)
				continue;
			if (!c) {
				fputs("<td colspan=\"2\">not run</td>", f);
			} else if (c->baseline) {
				tb_html_median_td(f, c);
				fputs("<td>ns/op (baseline)</td>", f);
			} else {
				tb_html_overhead_td(f, c);
				tb_html_verdict_td(f, c);
			}
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n<ul class=\"meta\">\n", f);
	for (size_t k = 0; k < fl->nclasses; k++) {
		fprintf(f, "<li>class %c: ", fl->classes[k].letter);
		tb_html_esc(f, fl->classes[k].name);
		fprintf(f, " (%zu host%s)</li>\n", fl->classes[k].nhosts,
			fl->classes[k].nhosts == 1 ? "" : "s");
	}
	fputs("</ul>\n<p class=\"meta\">Overhead % is a ratio and compares across hardware "
	      "classes; ns/op and ns/event are compared only between hosts of one class.</p>\n",
	      f);
}

int tb_report_fleet_write(const struct tb_fleet *fl, const struct tb_dir *plots,
			  const struct tb_dir *d, const char *name)
{
	const struct tb_result **rs = calloc(fl->nhosts + 1, sizeof(*rs));
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = rs ? open_memstream(&buf, &len) : NULL;

	if (!f) {
		free(rs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fl->nhosts; i++)
		if (fl->hosts[i].merged)
			rs[n++] = fl->hosts[i].r;
	tb_html_head(f, "tracebench fleet");
	fputs("<h1>tracebench fleet ", f);
	tb_html_esc(f, fl->id);
	fprintf(f, ": %zu of %zu hosts merged</h1>\n", fl->nmerged, fl->nhosts);
	hosts_table(f, fl);
	if (n) {
		merged_table(f, fl);
		fputs("<h2 id=\"comparisons\">Comparisons within hardware classes</h2>\n", f);
		if (!fl->ncmps)
			fputs("<p>No two merged hosts share a hardware class: absolute figures are "
			      "not compared.</p>\n",
			      f);
		for (size_t k = 0; k < fl->ncmps; k++)
			tb_html_comparison_section(f, fl->cmps[k], k);
		fputs("<h2 id=\"plots\">Plot</h2>\n", f);
		tb_html_plots(f, rs, n, plots, true);
		fputs("<h2 id=\"environment\">Environment</h2>\n", f);
		for (size_t i = 0, s = 0; i < fl->nhosts; i++)
			if (fl->hosts[i].merged)
				tb_html_result_appendix(f, fl->hosts[i].r, fl->hosts[i].name, s++);
	}
	free(rs);
	return tb_html_finish(f, &buf, &len, d, name);
}
