// SPDX-License-Identifier: GPL-2.0
/*
 * The report's section on command tracers (html.h): per traced cell of a command tracer, where
 * its events and losses came from, its maps, RSS and CPU, and its BPF programs as the kernel
 * counted them, with the share of the measured overhead their own run time accounts for.
 */
#include <math.h>
#include <stdio.h>

#include "render/html/html.h"
#include "render/text.h"
#include "model/json-util.h"
#include "model/measured.h"

/* One program's row (p NULL: all of the cell's). */
static void prog_row(FILE *f, const struct tb_cell *c, const struct tb_cell_prog *p)
{
	double per = tb_cell_bpf_runs_per_op(c, p), ns = tb_cell_bpf_ns_per_run(c, p);

	fputs(p ? "<tr>" : "<tr class=\"total\">", f);
	tb_html_text_td(f, p ? p->name : "all programs", false);
	tb_html_text_td(f, p ? p->type : "", false);
	tb_html_text_td(f, p ? p->attach : "", false);
	if (p)
		fprintf(f, "<td class=\"n\">%u</td>", p->id);
	else
		fputs("<td></td>", f);
	tb_html_num(f, p && p->runs >= 0 ? (double)p->runs : NAN, "%.0f");
	tb_html_num(f, per, "%.4g");
	tb_html_num(f, ns, "%.1f");
	tb_html_num(f, per * ns, "%.1f");
	tb_html_num(f, 100 * tb_cell_bpf_share(c, p), "%.0f%%");
	fputs("</tr>\n", f);
}

/* What the cell's tracer_extra says of its events, losses and resources. */
static void cell_note(FILE *f, const struct tb_cell *c)
{
	const json_t *x = c->tracer_extra;
	const char *ev = tb_json_text_at(x, NULL, "events_from");
	const char *lost = tb_json_text_at(x, "tool", "lost_from");
	const char *na = tb_json_text_at(x, "tool", "not_attached");
	double memlock = tb_json_num_at(x, "bpf_maps_memlock");

	fputs("<p>Events from ", f);
	tb_html_esc(f, ev ? ev : "?");
	if (lost) {
		fputs("; losses from ", f);
		tb_html_esc(f, lost);
	}
	fputs(". BPF programs found by ", f);
	tb_html_esc(f, c->bpf_method[0] ? c->bpf_method : "(not looked for)");
	fprintf(f, ": %zu", c->nbpf_progs);
	if (isfinite(memlock))
		fprintf(f, "; its maps hold %.0f KiB (memlock)", memlock / 1024);
	if (c->tracer_mem_bytes >= 0)
		fprintf(f, "; peak RSS %.1f MiB", (double)c->tracer_mem_bytes / (1024.0 * 1024.0));
	if (isfinite(c->tracer_cpu_s))
		fprintf(f, "; its CPU %.3f s", c->tracer_cpu_s);
	fputs(".", f);
	if (na) {
		fputs(" <b>Not attached</b> (the tool says): ", f);
		tb_html_esc(f, na);
	}
	fputs("</p>\n", f);
}

void tb_html_command_tracers(FILE *f, const struct tb_result *r)
{
	bool any = false;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->baseline || !c->tracer_extra ||
		    (!c->bpf_method[0] && !tb_json_text_at(c->tracer_extra, NULL, "events_from")))
			continue;
		if (!any)
			fputs("<h2 id=\"command-tracers\">Command tracers</h2>\n<p>What each external tracer did, with no help from it: its BPF programs are the ones its processes hold (their file descriptors), and the kernel counted their runs and run time (<code>bpf_enable_stats</code>) over the accounting samples: one per round, with the stats on, never in the overhead; the timed samples run with them off. ns/op is runs/op &times; ns/run; the share is that against the measured overhead in ns/op (programs run for every task that hits their hook, so it can exceed 100%).</p>\n",
			      f);
		any = true;
		fputs("<h3>", f);
		tb_html_esc(f, c->id ? c->id : c->tracer);
		fputs("</h3>\n", f);
		cell_note(f, c);
		if (c->accounting.present) {
			char acct[640];

			fputs("<p class=\"accounting\">", f);
			tb_html_esc(f, tb_fmt_accounting(acct, sizeof(acct), c));
			fputs(".</p>\n", f);
		}
		if (!c->nbpf_progs)
			continue;
		fprintf(f, "<table id=\"bpf-programs-%zu\" class=\"bpf-programs\">\n", i);
		fputs("<thead><tr><th>program</th><th>type</th><th>attach</th><th>id</th>"
		      "<th>runs</th><th>runs/op</th><th>ns/run</th><th>ns/op</th>"
		      "<th>share of overhead</th></tr></thead>\n<tbody>\n",
		      f);
		for (size_t k = 0; k < c->nbpf_progs; k++)
			prog_row(f, c, &c->bpf_progs[k]);
		if (c->nbpf_progs > 1)
			prog_row(f, c, NULL);
		fputs("</tbody>\n</table>\n", f);
	}
}
