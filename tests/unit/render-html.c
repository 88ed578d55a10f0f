// SPDX-License-Identifier: GPL-2.0
/* The HTML report: well-formed, complete, self-contained, and every name escaped. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/ranking.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "render/summary.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "fixture.h"
#include "html-check.h"
#include "stats/stats.h"
#include "tb_test.h"

static void test_checker(void)
{
	CU_ASSERT_PTR_NULL(
		tb_test_html_check("<p a=\"x>y\"><b>t</b><br><svg><path d='1'/></svg></p>"));
	CU_ASSERT_PTR_NOT_NULL(tb_test_html_check("<p><b>t</p></b>"));
	CU_ASSERT_PTR_NOT_NULL(tb_test_html_check("<div><p>t</p>"));
	CU_ASSERT_PTR_NOT_NULL(tb_test_html_check("<p>a < b</p>"));
}

static void assert_self_contained(const char *html)
{
	CU_ASSERT_PTR_NULL(strcasestr(html, "http:"));
	CU_ASSERT_PTR_NULL(strcasestr(html, "https:"));
	CU_ASSERT_PTR_NULL(strcasestr(html, "src="));
	CU_ASSERT_PTR_NULL(strcasestr(html, "<link"));
	CU_ASSERT_PTR_NULL(strcasestr(html, "<script"));
	CU_ASSERT_PTR_NULL(strcasestr(html, "@import"));
}

static void test_fixture_report(void)
{
	struct tb_result *r = tb_fixture_result(0);
	char needle[512], path[PATH_MAX];
	const char *err, *keep = getenv("TB_PLOT_KEEP");
	char *html;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	/* What stats.c adds: an A/A summary and a rate model. */
	r->aa_summary.present = true;
	r->aa_summary.ncells = 12;
	r->aa_summary.false_positives = 1;
	r->aa_summary.fp_rate = 1.0 / 12;
	r->aa_summary.noise_floor_pct = 0.84;
	r->aa_summary.max_abs_pct = 0.61;
	{
		struct tb_rate_model *m = tb_result_add_rate_model(r);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		m->tracer = strdup("tp-timer");
		m->workload_type = strdup("timer");
		m->npoints = 3;
		m->cost_ns = 408.2;
		m->cost_ci_lo = 400.1;
		m->cost_ci_hi = 415.9;
		m->accepted = true;
	}
	/* a model from noise is listed with why, never with its numbers */
	{
		struct tb_rate_model *m = tb_result_add_rate_model(r);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		m->tracer = strdup("bpf-noise");
		m->workload_type = strdup("timer");
		m->npoints = 5;
		m->cost_ns = 12.3;
		m->cost_ci_lo = -40.5;
		m->cost_ci_hi = 65.1;
		snprintf(m->why_not, sizeof(m->why_not), "the CI includes 0: noise");
	}
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "1 false positive (rate 8.3%)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "408.2 [400.1, 415.9]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "none: the CI includes 0: noise"));
	CU_ASSERT_PTR_NULL(strstr(html, "12.3 [-40.5, 65.1]"));
	err = tb_test_html_check(html);
	if (err)
		fprintf(stderr, "\n    report not well-formed: %s\n", err);
	CU_ASSERT_PTR_NULL(err);
	assert_self_contained(html);
	/* Order: verdicts first, then plots, environment, scenario, warnings, reproduce. */
	{
		const char *ids[] = {"id=\"verdicts\"", "id=\"plots\"",	   "id=\"environment\"",
				     "id=\"scenario\"", "id=\"warnings\"", "id=\"reproduce\""};
		const char *prev = html, *q;

		for (i = 0; i < TB_ARRAY_SIZE(ids); i++) {
			q = strstr(html, ids[i]);
			CU_ASSERT_PTR_NOT_NULL(q);
			CU_ASSERT(q >= prev);
			if (q)
				prev = q;
		}
	}
	/* Every cell has a row: workload and tracer cells side by side. */
	for (i = 0; i < r->ncells; i++) {
		snprintf(needle, sizeof(needle), "<td>%s</td><td>%s</td>", r->cells[i].workload,
			 r->cells[i].tracer);
		CU_ASSERT_PTR_NOT_NULL(strstr(html, needle));
	}
	/* The overhead of getpid under the tracepoint, with its CI, and its verdict. */
	for (i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].id, "getpid/tp-getpid")) {
			snprintf(needle, sizeof(needle), "%+.1f%% [%+.1f, %+.1f]",
				 r->cells[i].overhead.pct, r->cells[i].overhead.ci_lo,
				 r->cells[i].overhead.ci_hi);
			CU_ASSERT_PTR_NOT_NULL(strstr(html, needle));
		}
	/* Environment: summary and every leaf. */
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<td>6.18.0-tb</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<th>cpu.model</th>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<th>versions.gnuplot</th><td>5.4.4</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "3f2a9c1d0b7e"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "bench-01"));
	/* Warnings: foreign instrumentation, lost events, untrustworthy cell. */
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "Foreign instrumentation"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "lost 12 events"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "tracer saw nothing"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "tracebench run scenarios/quick.ini -o results/quick"));
	/* Plots inlined (when gnuplot is here), with ids made unique per plot. */
	if (tb_plot_find_gnuplot(path, sizeof(path)) == 0) {
		CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure id=\"plot-overhead\">"));
		CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure id=\"plot-latency\">"));
		CU_ASSERT_PTR_NOT_NULL(strstr(html, "id='p0-gpPat1'"));
		CU_ASSERT_PTR_NULL(strstr(html, "id='gpPat1'"));
		CU_ASSERT_PTR_NULL(strstr(html, "<?xml"));
	}
	if (keep && *keep) {
		snprintf(path, sizeof(path), "%s/report.html", keep);
		tb_write_atomic(path, html, strlen(html), 0644);
	}
	free(html);
	tb_result_free(r);
}

static void test_hostile_report(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_HOSTILE);
	const char *err;
	char *html;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	err = tb_test_html_check(html);
	if (err)
		fprintf(stderr, "\n    hostile report not well-formed: %s\n", err);
	CU_ASSERT_PTR_NULL(err);
	assert_self_contained(html);
	CU_ASSERT_PTR_NULL(strstr(html, "<script>alert(1)</script>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CU_ASSERT_PTR_NULL(strstr(html, "<b>bold</b>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "tp-getpid_&quot;&#39;&amp;amp;&lt;b&gt;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "host&lt;script&gt;&quot;&#39;&amp;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "reason &lt;i&gt;&amp;&quot;&#39;&lt;/i&gt;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "tracebench run &#39;a&quot;b&#39; &lt;x&gt; &amp; y"));
	free(html);
	/* Labels are the user's text: escaped too. */
	json_object_set_new(r->labels, "commit", json_string("<b>9f3e</b>&"));
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"labels\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "commit=&lt;b&gt;9f3e&lt;/b&gt;&amp;"));
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	free(html);
	tb_result_free(r);
}

static void test_no_gnuplot(void)
{
	struct tb_result *r = tb_fixture_result(0);
	char *html;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	setenv("TB_GNUPLOT", "/nonexistent/gnuplot", 1);
	html = tb_test_report(r, NULL);
	unsetenv("TB_GNUPLOT");
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "gnuplot was not found"));
	CU_ASSERT_PTR_NULL(strstr(html, "<svg"));
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"verdict-table\""));
	free(html);
	tb_result_free(r);
}

/* The runner's path: plots drawn into the run directory, the report inlines them. */
static void test_given_plotdir(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_LATENCY);
	const char *dir = tb_test_tmpdir();
	char plotdir[PATH_MAX], *html;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	if (tb_plot_find_gnuplot(plotdir, sizeof(plotdir)))
		TB_SKIP("gnuplot not installed");
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, 0), 6);
	snprintf(plotdir, sizeof(plotdir), "%s/plots", dir);
	html = tb_test_report(r, plotdir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure id=\"plot-timeline\">"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure id=\"plot-probe-types\">"));
	CU_ASSERT_PTR_NULL(strstr(html, "<figure id=\"plot-latency\">"));
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	free(html);
	tb_result_free(r);
}

static void test_compare_report(void)
{
	struct tb_result *a = tb_fixture_result(TB_FIX_NO_RATE);
	struct tb_result *b =
		tb_fixture_result(TB_FIX_NO_RATE | TB_FIX_NO_LATENCY | TB_FIX_HOSTILE);
	const struct tb_result *rs[2];
	const char *dir = tb_test_tmpdir(), *keep = getenv("TB_PLOT_KEEP");
	char path[PATH_MAX], *html = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	rs[0] = a;
	rs[1] = b;
	snprintf(path, sizeof(path), "%s/compare.html", keep && *keep ? keep : dir);
	CU_ASSERT_EQUAL_FATAL(tb_report_compare_write(rs, 2, path), 0);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &html, NULL), 0);
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	assert_self_contained(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<td>getpid/tp-getpid</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "not in this set"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "environment-2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "#1 bench-01 6.18.0-tb"));
	CU_ASSERT_PTR_NULL(strstr(html, "<script>"));
	if (!tb_plot_find_gnuplot(path, sizeof(path)))
		CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure id=\"plot-compare\">"));
	free(html);
	tb_result_free(a);
	tb_result_free(b);
}

/* compare --html: two comparisons against one A, changes with CIs, the plot of all three. */
static void test_comparison_report(void)
{
	struct tb_result *a = tb_fixture_result(TB_FIX_NO_RATE);
	struct tb_result *b = tb_fixture_result(TB_FIX_NO_RATE | TB_FIX_NO_LATENCY);
	struct tb_result *c = tb_fixture_result(TB_FIX_NO_RATE | TB_FIX_HOSTILE);
	struct tb_comparison *cs[2] = {NULL, NULL};
	const char *dir = tb_test_tmpdir(), *keep = getenv("TB_PLOT_KEEP"), *err;
	char path[PATH_MAX], *html = NULL;
	size_t i, k;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	/* B: every traced sample 10% slower; C: another kernel. */
	for (i = 0; i < b->ncells; i++)
		for (k = 0; !b->cells[i].baseline && k < b->cells[i].nsamples; k++)
			b->cells[i].samples[k].ns_per_op *= 1.10;
	json_object_set_new(json_object_get(c->system, "kernel"), "release",
			    json_string("6.1.0-<b>"));
	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, b, "a.json", "b.json", 0, &cs[0]), 0);
	CU_ASSERT_EQUAL_FATAL(tb_compare_build(a, c, "a.json", "c<x>.json", 0, &cs[1]), 0);
	snprintf(path, sizeof(path), "%s/comparison.html", keep && *keep ? keep : dir);
	CU_ASSERT_EQUAL_FATAL(
		tb_report_comparison_write((const struct tb_comparison *const *)cs, 2, path), 0);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &html, NULL), 0);
	err = tb_test_html_check(html);
	if (err)
		fprintf(stderr, "\n    comparison report not well-formed: %s\n", err);
	CU_ASSERT_PTR_NULL(err);
	assert_self_contained(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"comparison-2\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<td>getpid/tp-getpid"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "c&lt;x&gt;.json"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "6.1.0-&lt;b&gt;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "significant"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "only in A"));
	CU_ASSERT_PTR_NULL(strstr(html, "compare-services"));
	if (!tb_plot_find_gnuplot(path, sizeof(path)))
		CU_ASSERT_PTR_NOT_NULL(strstr(html, "<figure id=\"plot-compare\">"));
	free(html);
	tb_compare_free(cs[0]);
	tb_compare_free(cs[1]);
	tb_result_free(a);
	tb_result_free(b);
	tb_result_free(c);
}

/* An empty result (a run stopped before its first round) still gives a valid page. */
static void test_empty_result(void)
{
	struct tb_result *r = tb_result_new();
	char *html;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->partial = true;
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "0 traced cells"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "Partial run"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "The result records no environment."));
	CU_ASSERT_PTR_NULL(strstr(html, "<svg"));
	free(html);
	tb_result_free(r);
}

/* The report says what the run fell short of under its verdict counts, escaped (issue 28). */
static void test_shortfalls_shown(void)
{
	struct tb_result *r = tb_fixture_result(0);
	char *html, *counts, *list;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->partial = true;
	free(r->stop_reason);
	r->stop_reason = strdup("interrupted");
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	CU_ASSERT(json_array_size(r->shortfalls) >= 2);
	json_array_append_new(r->shortfalls, json_string("a <b>hostile</b> line"));
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	counts = strstr(html, "traced cells: <b>");
	list = strstr(html, "<div id=\"shortfalls\">");
	CU_ASSERT(counts && list && counts < list); /* right under the counts */
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "partial result: the run stopped early (interrupted)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "traced cells untrustworthy; the commonest reason"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "a &lt;b&gt;hostile&lt;/b&gt; line"));
	free(html);
	tb_result_free(r);
}

/*
 * The environment table: collapsed by default (about a hundred rows), and reals with sensible
 * precision (jansson's default printed 0.94 as 0.93999999999999995; issue 15).
 */
static void test_environment_table(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_README);
	char *html;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	json_object_set_new(r->system, "load",
			    json_pack("{s:f, s:f}", "loadavg_1", 0.94, "x", 1e-7));
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<th>load.loadavg_1</th><td>0.94</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "<td>1e-7</td>"));
	CU_ASSERT_PTR_NULL(strstr(html, "0.9399999"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(html, "<details class=\"env\"><summary>Every recorded field"));
	CU_ASSERT_PTR_NULL(strstr(html, "<details open"));
	free(html);
	tb_result_free(r);
}

/*
 * A gnuplot that crashes (as 5.4.4 did on a NaN label): the report says "plot failed: why" in
 * each plot's place, and no empty figure (issue 15).
 */
static void test_plot_failed(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_README);
	const char *dir = tb_test_tmpdir();
	static const char script[] = "#!/bin/sh\necho 'line 27: boom' >&2\nkill -SEGV $$\n";
	char fake[PATH_MAX], *html;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(fake, sizeof(fake), "%s/gnuplot-segv", dir);
	CU_ASSERT_EQUAL_FATAL(tb_write_atomic(fake, script, strlen(script), 0755), 0);
	setenv("TB_GNUPLOT", fake, 1);
	html = tb_test_report(r, NULL);
	unsetenv("TB_GNUPLOT");
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(html, "<figure id=\"plot-ns-per-event\">\n<p class=\"note "
			     "plot-failed\">plot failed: gnuplot (svg) killed by signal 11"));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "line 27: boom"));
	CU_ASSERT_PTR_NULL(strstr(html, "<svg"));
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	free(html);
	tb_result_free(r);
}

/* The fixture as the statistics leave a sampler: no ns/event, and why (model/proof.h). */
static void samplers_not_per_event(struct tb_result *r)
{
	for (size_t i = 0; i < r->ncells; i++) {
		struct tb_overhead *o = &r->cells[i].overhead;

		if (strcmp(r->cells[i].tracer_type, "perf-sample"))
			continue;
		o->ns_per_event = o->nse_ci_lo = o->nse_ci_hi = NAN;
		snprintf(o->nse_reason, sizeof(o->nse_reason),
			 "sampling: the cost is per sample, not per event");
	}
}

/* The terminal summary of r, as run prints it. */
/* A copy of the part of text that starts with start and ends before end (or with text). */
static char *line_of(const char *text, const char *start, const char *end)
{
	const char *p = strstr(text, start), *q = p ? strstr(p, end) : NULL;

	if (!p)
		return strdup("(none)");
	return strndup(p, q ? (size_t)(q - p) : strlen(p));
}

/*
 * The cost column says the same in the HTML and in the terminal: a no-detectable-overhead (or
 * untrustworthy) cell's ns/event and its CI are in neither, the figure of a cell with an
 * overhead in both.
 */
static void test_cost_column(void)
{
	struct tb_result *r = tb_fixture_result(0);
	char *html, *term, *row, *line, ci[96], key[256];
	size_t i, shown = 0, hidden = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	html = tb_test_report(r, NULL);
	term = tb_test_summary(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NOT_NULL_FATAL(term);
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_overhead *o = &c->overhead;
		bool quoted = o->verdict == TB_VERDICT_OVERHEAD;

		if (c->baseline || !c->has_overhead || !isfinite(o->ns_per_event))
			continue;
		snprintf(ci, sizeof(ci), "%.1f [%.1f, %.1f]", o->ns_per_event, o->nse_ci_lo,
			 o->nse_ci_hi);
		/* the verdict table's row (the first with both names) */
		snprintf(key, sizeof(key), "<td>%s</td><td>%s</td>", c->workload, c->tracer);
		row = line_of(html, key, "</tr>");
		snprintf(key, sizeof(key), "%-16.16s %-18.18s ", c->workload, c->tracer);
		line = line_of(term, key, "\n");
		if (quoted != !!strstr(row, ci) || quoted != !!strstr(line, ci))
			fprintf(stderr, "\n    %s: %s\n    %s\n", c->id, row, line);
		CU_ASSERT_EQUAL(!!strstr(row, ci), quoted);
		CU_ASSERT_EQUAL(!!strstr(line, ci), quoted);
		if (o->verdict == TB_VERDICT_NO_OVERHEAD)
			CU_ASSERT_PTR_NOT_NULL(strstr(row, "title=\"no detectable overhead: "));
		shown += quoted;
		hidden += !quoted;
		free(row);
		free(line);
	}
	/* tp-getpid, bpf-raw-syscalls (three), tp-timer (two); perf-99hz (two), tp-timer */
	CU_ASSERT_EQUAL(shown, 6);
	CU_ASSERT_EQUAL(hidden, 3);
	free(html);
	free(term);
	tb_result_free(r);
}

/* The line of text that contains both a and b, or NULL. */
static char *line_with(const char *text, const char *a, const char *b)
{
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		char *l = strndup(p, nl ? (size_t)(nl - p) : strlen(p));

		if (l && strstr(l, a) && strstr(l, b))
			return l;
		free(l);
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/*
 * Issue 28: `pipe-pingpon`, `sys_enter_pread6`. Names longer than a column's default width
 * widen it, in the verdict table and the ranking, and every row keeps the header's columns.
 */
static void test_summary_long_names(void)
{
	struct tb_result *r = tb_fixture_result(0);
	const char *wl = "pipe-pingpong-with-a-long-name", *tr = "bpf-raw-syscalls-and-more-x";
	char *term, *head, *row;
	struct tb_cell *c = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	for (size_t i = 0; i < r->ncells && !c; i++)
		if (r->cells[i].has_overhead &&
		    r->cells[i].overhead.verdict == TB_VERDICT_OVERHEAD &&
		    isfinite(r->cells[i].overhead.ns_per_event))
			c = &r->cells[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	free(c->workload);
	free(c->tracer);
	free(c->workload_type);
	c->workload = strdup(wl);
	c->tracer = strdup(tr);
	c->workload_type = strdup("pipe-pingpong");
	term = tb_test_summary(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(term);
	head = line_with(term, "workload", "base ns/op");
	row = line_with(term, wl, tr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(head);
	CU_ASSERT_PTR_NOT_NULL_FATAL(row);
	/* the column after the names starts where the header's does: right-aligned figures end
	 * under "base ns/op" */
	CU_ASSERT_EQUAL(strstr(head, "base ns/op") - head + 10,
			strstr(row, tr) - row + (ptrdiff_t)strlen(tr) + 12);
	free(row);
	row = line_with(term, tr, "pipe-pingpong ");
	CU_ASSERT_PTR_NOT_NULL(row); /* the ranking: the workload type whole */
	if (!row)
		fprintf(stderr, "\n%s\n", term);
	free(row);
	free(head);
	free(term);
	tb_result_free(r);
}

/*
 * The ns/event ranking has only costs per event to quote: the samplers and the untrustworthy
 * cell are left out of it, with a line saying how many and why, in the terminal and under the
 * probe-types plot of the HTML.
 */
static void test_ranking_left_out(void)
{
	struct tb_result *r = tb_fixture_result(0);
	struct tb_event_cost e[32];
	char *term, *rank, *html, path[PATH_MAX];
	const char *left = "3 left out, without a cost per event to rank: sampling: the cost is "
			   "per sample, not per event (2); untrustworthy: no cost to quote (1)";
	size_t n, nleft, i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	samplers_not_per_event(r);
	CU_ASSERT_FATAL(r->ncells <= TB_ARRAY_SIZE(e));
	n = tb_stats_event_costs(r, e, TB_ARRAY_SIZE(e), &nleft);
	/* tp-getpid and bpf-raw-syscalls on getpid, bpf-raw-syscalls on pipe-pingpong, the
	 * tp-timer rate model */
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(nleft, 3);
	for (i = 0; i < n; i++) {
		CU_ASSERT(isfinite(e[i].ns) && !e[i].why);
		CU_ASSERT(strcmp(e[i].cell->tracer, "perf-99hz"));
	}
	for (i = n; i < n + nleft; i++)
		CU_ASSERT(isnan(e[i].ns) && e[i].why);
	term = tb_test_summary(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(term);
	rank = line_of(term, "ns/event, cheapest first", "\n\n");
	CU_ASSERT_PTR_NULL(strstr(rank, "perf-99hz"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rank, "rate model, 3 points"));
	CU_ASSERT_PTR_NOT_NULL(strstr(rank, left));
	if (!strstr(rank, left))
		fprintf(stderr, "\n%s\n", rank);
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	if (tb_plot_find_gnuplot(path, sizeof(path)) == 0) {
		char *fig = line_of(html, "<figure id=\"plot-probe-types\">", "</figure>");

		/* under the axis, its head and one line per reason */
		CU_ASSERT_PTR_NOT_NULL(
			strstr(fig, "3 left out, without a cost per event to rank:"));
		CU_ASSERT_PTR_NOT_NULL(
			strstr(fig, "sampling: the cost is per sample, not per event (2)"));
		CU_ASSERT_PTR_NOT_NULL(strstr(fig, "untrustworthy: no cost to quote (1)"));
		CU_ASSERT_PTR_NULL(strstr(fig, "perf-99hz"));
		free(fig);
	}
	free(html);
	free(rank);
	free(term);
	tb_result_free(r);
}

/* The terminal summary ends with what the run fell short of: the last thing a user reads. */
static void test_summary_ends_with_shortfalls(void)
{
	struct tb_result *r = tb_fixture_result(0);
	char *text, *at;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	r->precision = 0.003;
	free(r->stop_reason);
	r->stop_reason = strdup("max-time");
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	text = tb_test_summary(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	at = strstr(text, "\nthe run fell short (");
	CU_ASSERT_PTR_NOT_NULL_FATAL(at);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(at, "  - precision target missed: the widest CI half-width is "));
	CU_ASSERT_PTR_NOT_NULL(strstr(at, "0.3 asked (stopped at max-time"));
	CU_ASSERT_PTR_NOT_NULL(strstr(at, "traced cells untrustworthy; the commonest reason ("));
	free(text);
	tb_result_free(r);
}

/*
 * The report's BPF cells: for the bpf tracer's cell with accounting samples, runs/op, the
 * in-kernel ns/run, ns/event and their difference, the accounting samples and the stats' cost
 * statement, the same figures the summary prints; a BPF cell without accounting has its split
 * only; the hostile cell name escaped.
 */
static void test_bpf_cells(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_HOSTILE);
	struct tb_cell *c = NULL;
	struct tb_accounting *a;
	char want[256], *html, *table, *end, *term;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	for (size_t i = 0; i < r->ncells && !c; i++)
		if (!strcmp(r->cells[i].tracer, "bpf-raw-syscalls") &&
		    !strncmp(r->cells[i].workload, "getpid<", 7))
			c = &r->cells[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	a = &c->accounting;
	a->present = true;
	a->samples = 10;
	a->cost_pct = 35.5;
	a->ci_lo = 7.7;
	a->ci_hi = 60.9;
	a->cost_ns_per_op = a->cost_ns_per_run = 63.2;
	a->bpf_runs_per_op = 2;
	a->bpf_ns_per_run = 61.5;
	html = tb_test_report(r, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(html);
	CU_ASSERT_PTR_NULL(tb_test_html_check(html));
	table = strstr(html, "<table id=\"bpf-cells-table\">");
	CU_ASSERT_PTR_NOT_NULL_FATAL(table);
	end = strstr(table, "</table>");
	CU_ASSERT_PTR_NOT_NULL_FATAL(end);
	*end = '\0';
	CU_ASSERT_PTR_NULL(strstr(table, "<script>"));
	snprintf(
		want, sizeof(want),
		"<td>getpid&lt;script&gt;alert(1)&lt;/script&gt;/bpf-raw-syscalls</td><td class=\"n\">2.00</td><td "
		"class=\"n\">61.5</td><td class=\"n\">%.1f</td><td class=\"n\">%+.1f</td><td "
		"class=\"n\">10</td><td>accounting: 10 samples",
		c->overhead.ns_per_event, c->overhead.ns_per_event - 61.5);
	CU_ASSERT_PTR_NOT_NULL(strstr(table, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "the stats cost +35.5% [+7.7, +60.9] of the timed "
					     "ns/op (+63.2 ns/op, +63.2 ns per run)"));
	/* pipe-pingpong's BPF cell: its split, no accounting */
	CU_ASSERT_PTR_NOT_NULL(strstr(table, "<td>pipe-pingpong/bpf-raw-syscalls</td><td "
					     "class=\"n\">&ndash;</td><td class=\"n\">58.2</td>"));
	/* the summary states the same difference */
	term = tb_test_summary(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(term);
	snprintf(want, sizeof(want), "%.1f ns/event = 61.5 ns/run in-kernel %+.1f ns dispatch",
		 c->overhead.ns_per_event, c->overhead.ns_per_event - 61.5);
	CU_ASSERT_PTR_NOT_NULL(strstr(term, want));
	free(term);
	free(html);
	tb_result_free(r);
}

static CU_TestInfo report_tests[] = {
	{"BPF cells: the split and the accounting", test_bpf_cells},
	{"tag checker", test_checker},
	{"fixture report", test_fixture_report},
	{"hostile names are escaped", test_hostile_report},
	{"without gnuplot", test_no_gnuplot},
	{"plots from the run directory", test_given_plotdir},
	{"compare report", test_compare_report},
	{"empty result", test_empty_result},
	{"shortfalls under the verdict counts", test_shortfalls_shown},
	{"the terminal summary ends with the shortfalls", test_summary_ends_with_shortfalls},
	{"comparison report (compare.h)", test_comparison_report},
	{"a plot that fails says why", test_plot_failed},
	{"environment table: collapsed, short reals", test_environment_table},
	{"cost column: ns/event only with an overhead", test_cost_column},
	{"ns/event ranking: what is left out and why", test_ranking_left_out},
	{"terminal tables widen for long names, never cut them", test_summary_long_names},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE_BESIDE("render-html", NULL, NULL, report_tests);
