// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report of one result: one file that can be attached to a ticket. Everything is
 * inline (CSS, SVG plots); nothing is fetched and nothing runs. Every string from a result
 * goes through tb_html_esc().
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "render/html/html.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "render/text.h"
#include "model/proof.h"
#include "model/result.h"
#include "model/measured.h"

static void escf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void escf(FILE *f, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tb_html_esc(f, buf);
}

/* A count with digits grouped by thin spaces (12 345 678): long counts are read at a glance. */
static void count_td(FILE *f, int64_t v)
{
	char d[32];
	int n, i;

	if (v < 0) {
		fputs("<td class=\"n\">&ndash;</td>", f);
		return;
	}
	n = snprintf(d, sizeof(d), "%lld", (long long)v);
	fputs("<td class=\"n\">", f);
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			fputs("&#8201;", f);
		fputc(d[i], f);
	}
	fputs("</td>", f);
}

/* Under the verdict counts, where the reader looks first: what the run fell short of. */
static void shortfalls(FILE *f, const struct tb_result *r)
{
	size_t n = json_is_array(r->shortfalls) ? json_array_size(r->shortfalls) : 0;

	if (!n)
		return;
	fputs("<div id=\"shortfalls\"><p class=\"note\"><b>The run fell short:</b></p>\n"
	      "<ul class=\"warn\">\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		fputs("<li class=\"note\">", f);
		tb_html_esc(f, json_string_value(json_array_get(r->shortfalls, i)));
		fputs("</li>\n", f);
	}
	fputs("</ul></div>\n", f);
}

static void verdict_table(FILE *f, const struct tb_result *r)
{
	size_t i, w, pass, nv[TB_VERDICT_FASTER + 1] = {0}, ntraced = 0;
	const char **wls = calloc(r->ncells + 1, sizeof(*wls));
	size_t nw = 0;

	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (!c->baseline) {
			ntraced++;
			if (c->has_overhead && c->overhead.verdict <= TB_VERDICT_FASTER)
				nv[c->overhead.verdict]++;
		}
		if (wls) {
			for (w = 0; w < nw; w++)
				if (!strcmp(wls[w], c->workload))
					break;
			if (w == nw)
				wls[nw++] = c->workload;
		}
	}
	fprintf(f,
		"<p>%zu traced cells: <b>%zu with overhead</b>, %zu without detectable overhead, %zu untrustworthy, %zu faster than the baseline (suspect the setup), %zu not analysed.</p>\n",
		ntraced, nv[TB_VERDICT_OVERHEAD], nv[TB_VERDICT_NO_OVERHEAD],
		nv[TB_VERDICT_UNTRUSTWORTHY], nv[TB_VERDICT_FASTER],
		ntraced - nv[1] - nv[2] - nv[3] - nv[4]);
	shortfalls(f, r);
	fputs("<table id=\"verdict-table\">\n<thead><tr><th>workload</th><th>tracer</th>"
	      "<th>baseline ns/op</th><th>traced ns/op</th><th>overhead % [CI]</th>"
	      "<th>ns/event</th><th>events</th><th>lost</th><th>verdict</th></tr></thead>\n"
	      "<tbody>\n",
	      f);
	/* Grouped by workload, baseline first (the order of the plots). */
	for (w = 0; w < (wls ? nw : 1); w++) {
		for (pass = 0; pass < 2; pass++) {
			for (i = 0; i < r->ncells; i++) {
				const struct tb_cell *c = &r->cells[i], *b;

				if ((wls && strcmp(c->workload, wls[w])) || c->baseline != !pass)
					continue;
				b = c->baseline ? c : tb_result_baseline(r, c);
				fprintf(f, "<tr%s><td>", c->baseline ? " class=\"base\"" : "");
				tb_html_esc(f, c->workload);
				fputs("</td><td>", f);
				tb_html_esc(f, c->tracer);
				fputs("</td>", f);
				tb_html_median_td(f, b);
				tb_html_median_td(f, c->baseline ? NULL : c);
				tb_html_overhead_td(f, c);
				tb_html_cost_td(f, c);
				count_td(f, c->baseline ? -1 : c->events_recorded);
				count_td(f, c->baseline ? -1 : c->events_lost);
				tb_html_verdict_td(f, c);
				fputs("</tr>\n", f);
			}
		}
	}
	fputs("</tbody>\n</table>\n", f);
	free(wls);
}

/* The numbers behind each verdict, folded away: most readers need only the table above. */
static void stats_table(FILE *f, const struct tb_result *r)
{
	size_t i;

	fputs("<details><summary>Statistics per cell (samples, spread, tests, latency "
	      "percentiles, tracer cost)</summary>\n<div class=\"scroll\"><table id=\"stats-table\">\n"
	      "<thead><tr>"
	      "<th>cell</th><th>n</th><th>median ns/op</th><th>mean</th><th>sd</th><th>CV %</th>"
	      "<th>outliers</th><th>p (Mann-Whitney)</th><th>p (Welch)</th><th>shift ns (HL)</th>"
	      "<th>MDE %</th><th>events/op</th><th>expected/op</th><th>proof of tracing</th>"
	      "<th>BPF ns/run</th><th>tracer CPU s</th>"
	      "<th>p50 / p99 / p99.9 ns</th></tr></thead>\n<tbody>\n",
	      f);
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_overhead *o = c->has_overhead ? &c->overhead : NULL;

		fputs("<tr><td>", f);
		tb_html_esc(f, c->id ? c->id : c->workload);
		fputs("</td>", f);
		fprintf(f, "<td class=\"n\">%zu</td>", c->summary.n);
		tb_html_num(f, c->summary.median, "%.1f");
		tb_html_num(f, c->summary.mean, "%.1f");
		tb_html_num(f, c->summary.sd, "%.2f");
		tb_html_num(f, 100.0 * c->summary.cv, "%.2f");
		fprintf(f, "<td class=\"n\">%zu</td>", c->summary.outliers);
		tb_html_num(f, o ? o->p_mannwhitney : NAN, "%.2g");
		tb_html_num(f, o ? o->p_welch : NAN, "%.2g");
		tb_html_num(f, o ? o->hl_shift_ns : NAN, "%.1f");
		tb_html_num(f, o ? o->mde_pct : NAN, "%.2f");
		tb_html_num(f, o ? o->events_per_op : NAN, "%.3g");
		tb_html_num(f, o ? c->proof.expected_per_op : NAN, "%.3g");
		fputs("<td>", f);
		if (o && c->proof.outcome) {
			fprintf(f, "<b>%s</b> ", tb_proof_outcome_name(c->proof.outcome));
			tb_html_esc(f, c->proof.message);
		}
		fputs("</td>", f);
		tb_html_num(f, o ? o->bpf_ns_per_run : NAN, "%.1f");
		tb_html_num(f, c->tracer_cpu_s, "%.3g");
		if (c->latency.present)
			fprintf(f, "<td class=\"n\">%.0f / %.0f / %.0f</td>", c->latency.p50,
				c->latency.p99, c->latency.p999);
		else
			fputs("<td class=\"n\">&ndash;</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n</details>\n", f);
}

/*
 * The BPF cells as the summary's block states them (render/text.h tb_render_bpf_split): the
 * programs' runs per op and their in-kernel ns per run, ns/event and what is left of it (the
 * hook's dispatch and the slow path, METHODOLOGY.md 6.5), the accounting samples and, for the
 * bpf tracer's cells, the accounting's own cost (a command tracer's is in its own section).
 */
static void bpf_section(FILE *f, const struct tb_result *r)
{
	struct tb_render_bpf_row b;
	bool head = false;
	char acct[640];

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_accounting *a = &c->accounting;

		if (!tb_render_bpf_split(c, &b))
			continue;
		if (!head)
			fputs("<h2 id=\"bpf-cells\">BPF cells</h2>\n<p>ns/event against the "
			      "programs' own run time in the kernel (run_time_ns / run_cnt, counted "
			      "with <code>bpf_enable_stats</code> on in the accounting samples only: one "
			      "per round, never in the overhead); the rest is the hook's dispatch and "
			      "the slow path it enables.</p>\n<div class=\"scroll\"><table "
			      "id=\"bpf-cells-table\">\n<thead><tr><th>cell</th><th>runs/op</th>"
			      "<th>in-kernel ns/run</th><th>ns/event</th><th>dispatch and slow path "
			      "ns</th><th>accounting samples</th><th>the accounting's own cost</th>"
			      "</tr></thead>\n<tbody>\n",
			      f);
		head = true;
		fputs("<tr><td>", f);
		tb_html_esc(f, c->id ? c->id : c->workload);
		fputs("</td>", f);
		tb_html_num(f, a->present ? a->bpf_runs_per_op : NAN, "%.2f");
		tb_html_num(f, c->overhead.bpf_ns_per_run, "%.1f");
		tb_html_num(f, b.split ? c->overhead.ns_per_event : NAN, "%.1f");
		tb_html_num(f, b.dispatch_ns, "%+.1f");
		tb_html_num(f, a->present ? (double)a->samples : NAN, "%.0f");
		fputs("<td>", f);
		if (b.acct)
			tb_html_esc(f, tb_fmt_accounting(acct, sizeof(acct), c));
		else if (a->present)
			fputs("in <a href=\"#command-tracers\">Command tracers</a>", f);
		else
			fputs("&ndash;", f);
		fputs("</td></tr>\n", f);
	}
	if (head)
		fputs("</tbody>\n</table></div>\n", f);
}

/* A/A calibration and rate models, when stats.c computed them. */
static void models_section(FILE *f, const struct tb_result *r)
{
	const struct tb_aa_summary *aa = &r->aa_summary;
	size_t i;

	if (aa->present)
		fprintf(f,
			"<p id=\"aa-calibration\"><b>A/A calibration:</b> %zu pairs of the "
			"baseline "
			"against itself, %zu false positive%s (rate %.1f%%); noise floor "
			"&plusmn;%.2f%% "
			"(widest CI half-width), largest |difference| %.2f%%.</p>\n",
			aa->ncells, aa->false_positives, aa->false_positives == 1 ? "" : "s",
			100.0 * aa->fp_rate, aa->noise_floor_pct, aa->max_abs_pct);
	if (!r->nrate_models)
		return;
	fputs("<table id=\"rate-models\">\n<thead><tr><th>tracer</th><th>workload type</th>"
	      "<th>points</th><th>cost ns/event [CI]</th><th>fixed ns/op [CI]</th><th>r&sup2;</th>"
	      "<th>overhead % per 1000 events/s</th><th>linear?</th></tr></thead>\n<tbody>\n",
	      f);
	for (i = 0; i < r->nrate_models; i++) {
		const struct tb_rate_model *m = &r->rate_models[i];

		fputs("<tr><td>", f);
		tb_html_esc(f, m->tracer ? m->tracer : "?");
		fputs("</td><td>", f);
		tb_html_esc(f, m->workload_type ? m->workload_type : "?");
		fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">", m->npoints);
		if (!m->accepted) {
			fputs("none: ", f);
			tb_html_esc(f, m->why_not);
			fputs("</td><td colspan=\"4\"></td></tr>\n", f);
			continue;
		}
		if (isfinite(m->cost_ns))
			fprintf(f, "%.1f [%.1f, %.1f]", m->cost_ns, m->cost_ci_lo, m->cost_ci_hi);
		else
			fputs("&ndash;", f);
		fputs("</td><td class=\"n\">", f);
		if (isfinite(m->fixed_ns))
			fprintf(f, "%.1f [%.1f, %.1f]", m->fixed_ns, m->fixed_ci_lo,
				m->fixed_ci_hi);
		else
			fputs("&ndash;", f);
		fputs("</td>", f);
		tb_html_num(f, m->r2, "%.4f");
		tb_html_num(f, m->pct_per_mevent_s / 1000.0, "%.3g");
		if (m->nonlinear)
			fprintf(f,
				"<td><b>no</b>: a quadratic term is significant (p %.2g; a buffer or "
				"consumer saturating?)</td></tr>\n",
				m->p_quadratic);
		else
			fprintf(f, "<td>%s</td></tr>\n",
				isfinite(m->p_quadratic) ? "yes" : "not tested (&lt; 4 points)");
	}
	fputs("</tbody>\n</table>\n", f);
}

/* The sweeps' models, one row each, and each plot's place (tb_plot_sweeps draws sweep-<k>). */
static void sweeps_section(FILE *f, const struct tb_result *r)
{
	if (!r->nsweeps)
		return;
	fputs("<h2 id=\"sweeps\">Sweeps</h2>\n<p>Overhead ns/op (traced minus baseline) = fixed "
	      "+ slope &times; the swept value, fitted over the points a sweep's cells give; a "
	      "slope is said only when its CI excludes 0 and r&sup2; &ge; 0.9.</p>\n"
	      "<table id=\"sweeps-table\">\n<thead><tr><th>sweep</th><th>against</th><th>points "
	      "used</th><th>slope ns per unit [CI]</th><th>fixed ns/op [CI]</th><th>fit</th>"
	      "<th>plot</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < r->nsweeps; i++) {
		const struct tb_sweep *sw = &r->sweeps[i];
		const struct tb_rate_model *m = &sw->fit;
		size_t used = 0;

		for (size_t k = 0; k < sw->npoints; k++)
			used += sw->points[k].used;
		fputs("<tr><td>", f);
		escf(f, "[%s %s] %s", sw->kind, sw->section, sw->key);
		fputs("</td><td>", f);
		tb_html_esc(f, sw->against);
		fprintf(f, "</td><td class=\"n\">%zu of %zu</td>", used, sw->npoints);
		if (m->accepted) {
			fprintf(f, "<td class=\"n\">%.3g [%.3g, %.3g] per ", m->cost_ns,
				m->cost_ci_lo, m->cost_ci_hi);
			tb_html_esc(f, sw->unit);
			fprintf(f,
				"</td><td class=\"n\">%.1f [%.1f, %.1f]</td><td>accepted (r&sup2; "
				"%.3f)</td>",
				m->fixed_ns, m->fixed_ci_lo, m->fixed_ci_hi, m->r2);
		} else {
			fputs("<td>&ndash;</td><td>&ndash;</td><td>refused: ", f);
			tb_html_esc(f, m->why_not);
			fputs("</td>", f);
		}
		fprintf(f, "<td><a href=\"#plot-sweep-%zu\">sweep-%zu</a></td></tr>\n", i + 1,
			i + 1);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* run --find-limit's searches, one row each (tb_plot_limits draws their probes). */
static void limits_section(FILE *f, const struct tb_result *r)
{
	if (!r->nlimits)
		return;
	fputs("<h2 id=\"limits\">Limits</h2>\n<p>run --find-limit: per cell, the highest event "
	      "rate its buffer held without a loss (bisection along the workload's knobs: work, "
	      "then calls per op, then threads), or the smallest buffer that held a named rate; "
	      "the probes are in the <a href=\"#plot-limits\">limits plot</a>.</p>\n<table "
	      "id=\"limits-table\">\n<thead><tr><th>cell</th><th>buffer</th><th>held "
	      "events/s</th><th>held at</th><th>tracer CPU</th><th>lost from events/s</th><th>lost "
	      "at</th><th>probes</th><th>note</th></tr></thead>\n<tbody>\n",
	      f);
	for (size_t i = 0; i < r->nlimits; i++) {
		const struct tb_limit *l = &r->limits[i];

		fputs("<tr><td>", f);
		tb_html_esc(f, l->cell);
		fputs("</td><td>", f);
		escf(f, "%s = %s", l->buffer_key,
		     isnan(l->target)	 ? l->buffer
		     : l->held_buffer[0] ? l->held_buffer
					 : "-");
		fputs("</td>", f);
		tb_html_num(f, l->held_rate, "%.3g");
		fputs("<td>", f);
		tb_html_esc(f, l->held_at);
		fputs("</td>", f);
		tb_html_num(f, l->held_cpu, "%.2f");
		tb_html_num(f, l->lost_rate, "%.3g");
		fputs("<td>", f);
		tb_html_esc(f, l->lost_at);
		fprintf(f, "</td><td class=\"n\">%zu</td><td>", l->nprobes);
		tb_html_esc(f, l->note);
		if (l->note[0] && l->knob_note[0])
			fputs("; ", f);
		tb_html_esc(f, l->knob_note);
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

/* The user's labels (run --label), as given. */
static void labels(FILE *f, const struct tb_result *r)
{
	const char *k;
	json_t *v;

	if (!r->labels || !json_object_size(r->labels))
		return;
	fputs("<p class=\"meta\" id=\"labels\">Labels:", f);
	json_object_foreach(r->labels, k, v)
	{
		fputs(" <code>", f);
		tb_html_esc(f, k);
		fputs("=", f);
		tb_html_esc(f, json_string_value(v));
		fputs("</code>", f);
	}
	fputs("</p>\n", f);
}

int tb_report_write(const struct tb_result *r, const struct tb_dir *plots, const struct tb_dir *d,
		    const char *name)
{
	const char *host = tb_result_host(r);
	const char *scen = r->scenario_name ? r->scenario_name : "scenario";
	char title[512], *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	snprintf(title, sizeof(title), "tracebench: %s on %s", scen, host);
	tb_html_head(f, title);
	fputs("<h1>", f);
	tb_html_esc(f, title);
	fputs("</h1>\n<p class=\"meta\">", f);
	escf(f,
	     "Run %s to %s; %u rounds, %u warm-up, %.3g s per sample; noise threshold %.3g%%, "
	     "confidence %.3g%%, seed %llu.",
	     r->started ? r->started : "?", r->finished ? r->finished : "?", r->rounds, r->warmup,
	     (double)r->duration_ns / 1e9, 100.0 * r->noise_threshold, 100.0 * r->confidence,
	     (unsigned long long)r->seed);
	if (r->partial)
		fputs(" <b>Partial run.</b>", f);
	if (r->aa)
		fputs(" A/A calibration run (the \"tracer\" does nothing).", f);
	fputs("</p>\n", f);
	labels(f, r);
	fputs("<h2 id=\"verdicts\">Verdicts</h2>\n", f);
	verdict_table(f, r);
	tb_report_service_section(f, r);
	models_section(f, r);
	sweeps_section(f, r);
	limits_section(f, r);
	stats_table(f, r);
	bpf_section(f, r);
	tb_html_command_tracers(f, r);
	tb_report_explain_section(f, r);
	fputs("<h2 id=\"plots\">Plots</h2>\n", f);
	tb_html_plots(f, &r, 1, plots, false);
	fputs("<h2 id=\"environment\">Environment</h2>\n", f);
	tb_html_environment(f, r, "environment-summary");
	fputs("<h2 id=\"scenario\">Scenario</h2>\n<p>", f);
	tb_html_esc(f, r->scenario_path ? r->scenario_path : "(no path)");
	fputs("</p>\n<pre>", f);
	tb_html_esc(f,
		    r->scenario_text ? r->scenario_text : "(the result records no scenario text)");
	fputs("</pre>\n<h2 id=\"warnings\">Warnings</h2>\n", f);
	tb_html_warnings(f, r);
	fputs("<h2 id=\"reproduce\">Reproduce</h2>\n<p>The exact command of this run (same "
	      "scenario, seed in the result):</p>\n<pre>",
	      f);
	tb_html_esc(f, r->command_line ? r->command_line : "(not recorded)");
	fputs("</pre>\n", f);
	return tb_html_finish(f, &buf, &len, d, name);
}
