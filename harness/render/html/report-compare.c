// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML reports of several results: side by side (tb_report_compare_write) and the
 * comparisons of `tracebench compare --html` (tb_report_comparison_write).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "render/compare-formats.h"
#include "render/html/html.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "model/result.h"
#include "model/system.h"
#include "stats/compare.h"
#include "model/measured.h"

static void set_label(const struct tb_result *r, size_t i, char *buf, size_t len)
{
	const char *k = tb_result_kernel(r);

	snprintf(buf, len, "#%zu %s%s%s", i + 1, tb_result_host(r), k ? " " : "", k ? k : "");
}

void tb_html_result_appendix(FILE *f, const struct tb_result *r, const char *label, size_t i)
{
	char id[64];

	fputs("<h3>", f);
	tb_html_esc(f, label);
	fputs("</h3>\n", f);
	snprintf(id, sizeof(id), "environment-%zu", i + 1);
	tb_html_environment(f, r, id);
	fputs("<h4>Warnings</h4>\n", f);
	tb_html_warnings(f, r);
	fputs("<h4>Reproduce</h4>\n<pre>", f);
	tb_html_esc(f, r->command_line ? r->command_line : "(not recorded)");
	fputs("</pre>\n", f);
}

/* The distinct cell ids of the n results in order of first appearance (borrowed from them) into
 * *out, their number into *nids. Returns 0 or -ENOMEM. */
static int cell_ids(const struct tb_result *const *rs, size_t n, const char ***out, size_t *nids)
{
	const char **ids;
	size_t total = 0, s, i, j;

	for (s = 0; s < n; s++)
		total += rs[s]->ncells;
	*out = ids = calloc(total + 1, sizeof(*ids));
	*nids = 0;
	if (!ids)
		return -ENOMEM;
	for (s = 0; s < n; s++)
		for (i = 0; i < rs[s]->ncells; i++) {
			const char *id = rs[s]->cells[i].id;

			if (!id)
				continue;
			for (j = 0; j < *nids; j++)
				if (!strcmp(ids[j], id))
					break;
			if (j == *nids)
				ids[(*nids)++] = id;
		}
	return 0;
}

/* The numbered list of the result sets, and a note when their fingerprints differ. */
static void sets_list(FILE *f, const struct tb_result *const *rs, size_t n)
{
	const char *fp0 = NULL;
	bool fpdiff = false;
	char lbl[512];

	fprintf(f, "<h1>tracebench: comparison of %zu result sets</h1>\n<ol>\n", n);
	for (size_t s = 0; s < n; s++) {
		const char *fp = tb_html_fingerprint(rs[s]);

		set_label(rs[s], s, lbl, sizeof(lbl));
		fputs("<li>", f);
		tb_html_esc(f, lbl);
		fputs(": scenario ", f);
		tb_html_esc(f, rs[s]->scenario_name ? rs[s]->scenario_name : "?");
		fputs(", started ", f);
		tb_html_esc(f, rs[s]->started ? rs[s]->started : "?");
		fputs(", fingerprint ", f);
		tb_html_esc(f, fp ? fp : "none");
		fputs("</li>\n", f);
		if (!s)
			fp0 = fp;
		else if ((!fp0 || !fp || strcmp(fp0, fp)) &&
			 tb_system_fingerprints_comparable(rs[0]->system, rs[s]->system))
			fpdiff = true;
	}
	fputs("</ol>\n", f);
	if (fpdiff)
		fputs("<p class=\"note\">The environment fingerprints differ: the machines or "
		      "their "
		      "settings are not the same, which may explain differences.</p>\n",
		      f);
}

/* The table of every cell id: each set's ns/op, overhead and verdict of it. */
static void side_by_side(FILE *f, const struct tb_result *const *rs, size_t n, const char **ids,
			 size_t nids)
{
	char lbl[512];
	size_t s, i, j;

	fputs("<h2 id=\"verdicts\">Cells side by side</h2>\n<table id=\"compare-table\">\n"
	      "<thead><tr><th rowspan=\"2\">cell</th>",
	      f);
	for (s = 0; s < n; s++) {
		set_label(rs[s], s, lbl, sizeof(lbl));
		fputs("<th colspan=\"3\">", f);
		tb_html_esc(f, lbl);
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr>", f);
	for (s = 0; s < n; s++)
		fputs("<th>ns/op</th><th>overhead % [CI]</th><th>verdict</th>", f);
	fputs("</tr></thead>\n<tbody>\n", f);
	for (j = 0; j < nids; j++) {
		fputs("<tr><td>", f);
		tb_html_esc(f, ids[j]);
		fputs("</td>", f);
		for (s = 0; s < n; s++) {
			const struct tb_cell *c = NULL;

			for (i = 0; i < rs[s]->ncells; i++)
				if (rs[s]->cells[i].id && !strcmp(rs[s]->cells[i].id, ids[j]))
					c = &rs[s]->cells[i];
			if (!c) {
				fputs("<td colspan=\"3\">not in this set</td>", f);
				continue;
			}
			tb_html_median_td(f, c);
			tb_html_overhead_td(f, c);
			tb_html_verdict_td(f, c);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n", f);
}

int tb_report_compare_write(const struct tb_result *const *rs, size_t n, const char *path)
{
	char *buf = NULL, lbl[512];
	const char **ids;
	size_t len = 0, nids, s;
	FILE *f;

	if (!n)
		return -EINVAL;
	if (cell_ids(rs, n, &ids, &nids))
		return -ENOMEM;
	f = open_memstream(&buf, &len);
	if (!f) {
		free(ids);
		return -ENOMEM;
	}
	tb_html_head(f, "tracebench comparison");
	sets_list(f, rs, n);
	side_by_side(f, rs, n, ids, nids);
	fputs("<h2 id=\"plots\">Plot</h2>\n", f);
	tb_html_plots(f, rs, n, NULL, true);
	fputs("<h2 id=\"environment\">Environment</h2>\n", f);
	for (s = 0; s < n; s++) {
		set_label(rs[s], s, lbl, sizeof(lbl));
		tb_html_result_appendix(f, rs[s], lbl, s);
	}
	free(ids);
	return tb_html_finish(f, &buf, &len, NULL, path);
}

static void change_td(FILE *f, double v, double lo, double hi, const char *unit, bool sig)
{
	fprintf(f, "<td class=\"n%s\">", sig ? " sig" : "");
	if (!isfinite(v))
		fputs("&ndash;", f);
	else if (isfinite(lo) && isfinite(hi))
		fprintf(f, "%+.2f%s [%+.2f, %+.2f]", v, unit, lo, hi);
	else
		fprintf(f, "%+.2f%s", v, unit);
	if (sig)
		fputs(" <b>significant</b>", f);
	fputs("</td>", f);
}

static void verdict_short_td(FILE *f, const struct tb_cell *c, enum tb_verdict v)
{
	if (!c || c->baseline || !v) {
		fputs("<td>&ndash;</td>", f);
		return;
	}
	fprintf(f, "<td class=\"%s\">", tb_html_verdict_class(v));
	tb_html_esc(f, tb_verdict_name(v));
	fputs("</td>", f);
}

/* Every sweep of either result: its slopes A -> B, the change and the verdict. */
static void comparison_sweeps(FILE *f, const struct tb_comparison *c)
{
	for (size_t i = 0; i < c->nsweeps; i++) {
		const struct tb_cmp_sweep *d = &c->sweeps[i];
		const char *v = tb_cmp_sweep_dir_name(d->dir);
		struct tb_render_sweep_row t;

		if (!i)
			fputs("<h3>Sweeps: slope ns per unit</h3>\n<div class=\"scroll\"><table>\n"
			      "<thead><tr><th>sweep</th><th>A slope [CI]</th><th>B slope [CI]</th>"
			      "<th>change [CI]</th><th>verdict</th></tr></thead>\n<tbody>\n",
			      f);
		tb_render_compare_sweep_text(&t, d);
		fputs("<tr>", f);
		tb_html_text_td(f, t.name, false);
		tb_html_text_td(f, t.a, false);
		tb_html_text_td(f, t.b, false);
		tb_html_text_td(f, t.change, false);
		tb_html_text_td(f, v, false);
		fputs("</tr>\n", f);
	}
	if (c->nsweeps)
		fputs("</tbody>\n</table></div>\n", f);
}

/*
 * The service cells' throughput, p50 and p99 A -> B, three rows each: the medians, the change
 * with its CI, Mann-Whitney's p and the verdict, as compare's table words them (stats/compare.h
 * computed them, render/compare-formats.h writes the words). Nothing without a service row.
 */
static void comparison_services(FILE *f, const struct tb_comparison *c, size_t k)
{
	bool head = false;

	for (size_t i = 0; i < c->nmatched; i++) {
		const struct tb_cmp_row *w = &c->rows[i];

		if (!w->has_svc)
			continue;
		if (!head)
			fprintf(f,
				"<h3>Services: the client's medians A &rarr; B</h3>\n<div "
				"class=\"scroll\"><table id=\"compare-services-%zu\">\n<thead><tr>"
				"<th>cell</th><th>metric</th><th>A</th><th>B</th><th>unit</th>"
				"<th>change %% [CI]</th><th>p</th><th>verdict</th></tr></thead>\n"
				"<tbody>\n",
				k + 1);
		head = true;
		for (int m = 0; m < TB_STATS_SVC_N; m++) {
			struct tb_render_svc_row t;

			tb_render_compare_svc_text(&t, w, (enum tb_stats_svc)m);
			fputs("<tr>", f);
			if (!m) {
				fprintf(f, "<td rowspan=\"%d\">", TB_STATS_SVC_N);
				tb_html_esc(f, w->id);
				fputs("</td>", f);
			}
			tb_html_text_td(f, t.name, false);
			tb_html_text_td(f, t.a, true);
			tb_html_text_td(f, t.b, true);
			tb_html_text_td(f, t.unit, false);
			tb_html_text_td(f, t.change, true);
			tb_html_text_td(f, t.p, true);
			fprintf(f, "<td%s>", w->svc[m].dir == TB_CMP_SAME ? "" : " class=\"sig\"");
			tb_html_esc(f, t.verdict);
			fputs("</td></tr>\n", f);
		}
	}
	if (head)
		fprintf(f,
			"</tbody>\n</table></div>\n<p class=\"meta\">Each metric by ns/op's rules: "
			"the change of the medians with a bootstrap CI (A's and B's samples "
			"resampled apart); worse or better when Mann-Whitney p &lt; %g and the CI "
			"excludes 0 (worse: less throughput, more latency).</p>\n",
			c->alpha);
}

void tb_html_comparison_section(FILE *f, const struct tb_comparison *c, size_t k)
{
	char envs[160], note[768];
	size_t i;

	fprintf(f, "<h2 id=\"comparison-%zu\">", k + 1);
	tb_html_esc(f, c->name_a);
	fputs(" (A) against ", f);
	tb_html_esc(f, c->name_b);
	fputs(" (B)</h2>\n", f);
	/* The count and the sentence every output of a comparison uses (stats/compare.h). */
	if (tb_compare_env_summary(c, envs, sizeof(envs))) {
		fprintf(f, "<p class=\"%s\">", c->same_hardware ? "meta" : "note");
		tb_html_esc(f, envs);
		fputs(".</p>\n<details><summary>Environment differences</summary>\n"
		      "<div class=\"scroll\"><table>\n<thead><tr><th>field</th><th>A</th><th>B</th>"
		      "</tr></thead>\n<tbody>\n",
		      f);
		for (i = 0; i < c->ndiffs; i++) {
			if (c->diffs[i].transient)
				continue;
			fputs(c->diffs[i].hardware ? "<tr class=\"hw\"><th>" : "<tr><th>", f);
			tb_html_esc(f, c->diffs[i].key);
			fputs("</th><td>", f);
			tb_html_esc(f, c->diffs[i].a ? c->diffs[i].a : "(absent)");
			fputs("</td><td>", f);
			tb_html_esc(f, c->diffs[i].b ? c->diffs[i].b : "(absent)");
			fputs("</td></tr>\n", f);
		}
		fputs("</tbody>\n</table></div>\n</details>\n", f);
	} else {
		fputs("<p>Environment: ", f);
		tb_html_esc(f, envs);
		fputs(".</p>\n", f);
	}
	fputs("<div class=\"scroll\"><table class=\"compare\">\n<thead><tr><th>cell</th><th>A ns/op</th><th>B ns/op</th>"
	      "<th>ns/op change % [CI]</th><th>p</th><th>A overhead %</th><th>B overhead %</th>"
	      "<th>overhead change pp [CI]</th><th>A verdict</th><th>B verdict</th></tr></thead>\n"
	      "<tbody>\n",
	      f);
	for (i = 0; i < c->nrows; i++) {
		const struct tb_cmp_row *w = &c->rows[i];

		fputs("<tr><td>", f);
		tb_html_esc(f, w->id);
		if (!w->a || !w->b)
			fprintf(f, " <small>(only in %s%s)</small>", w->a ? "A" : "B",
				w->config_differs ? "; configuration differs" : "");
		if (w->caveats) {
			fputs("<br><small class=\"caveat\">&#9888; ", f);
			tb_html_esc(f, tb_cmp_row_note(c, w, note, sizeof(note)));
			fputs("</small>", f);
		}
		fputs("</td>", f);
		tb_html_num(f, w->ns_a, "%.1f");
		tb_html_num(f, w->ns_b, "%.1f");
		change_td(f, w->ns_pct, w->ns_ci_lo, w->ns_ci_hi, "%", w->ns_significant);
		tb_html_num(f, w->p, "%.2g");
		if (w->traced) {
			tb_html_num(f, w->ovh_a, "%+.1f");
			tb_html_num(f, w->ovh_b, "%+.1f");
			change_td(f, w->ovh_change, w->ovh_ci_lo, w->ovh_ci_hi, " pp",
				  w->ovh_significant);
		} else {
			fputs("<td colspan=\"3\">baseline</td>", f);
		}
		verdict_short_td(f, w->a, w->verdict_a);
		verdict_short_td(f, w->b, w->verdict_b);
		fputs("</tr>\n", f);
	}
	fprintf(f,
		"</tbody>\n</table></div>\n<p class=\"meta\">Significant: the confidence interval "
		"excludes 0 (ns/op: and Mann-Whitney p &lt; %g). pp: percentage points.</p>\n",
		c->alpha);
	comparison_services(f, c, k);
	comparison_sweeps(f, c);
}

int tb_report_comparison_write(const struct tb_comparison *const *cs, size_t n, const char *path)
{
	const struct tb_result **rs = NULL;
	const char **labels = NULL;
	struct tb_dir drew = TB_DIR_INIT;
	char *buf = NULL, tmp[64], dir[PATH_MAX];
	size_t len = 0, i;
	int ret;
	FILE *f;

	if (!n)
		return -EINVAL;
	rs = calloc(n + 1, sizeof(*rs));
	labels = calloc(n + 1, sizeof(*labels));
	f = rs && labels ? open_memstream(&buf, &len) : NULL;
	if (!f) {
		free(rs);
		free(labels);
		return -ENOMEM;
	}
	rs[0] = cs[0]->a;
	labels[0] = cs[0]->name_a;
	for (i = 0; i < n; i++) {
		rs[i + 1] = cs[i]->b;
		labels[i + 1] = cs[i]->name_b;
	}
	tb_html_head(f, "tracebench comparison");
	fputs("<h1>tracebench: comparison of ", f);
	for (i = 0; i <= n; i++) {
		if (i)
			fputs(i == n ? " and " : ", ", f);
		tb_html_esc(f, labels[i]);
	}
	fputs("</h1>\n", f);
	for (i = 0; i < n; i++)
		tb_html_comparison_section(f, cs[i], i);
	fputs("<h2 id=\"plots\">Plot</h2>\n", f);
	if (tb_html_tmpdir(tmp, sizeof(tmp))) {
		fputs("<p class=\"note\">The plot is not included: no temporary directory.</p>\n",
		      f);
	} else {
		ret = tb_plot_compare(rs, labels, n + 1, tmp, TB_PLOT_NO_PNG);
		snprintf(dir, sizeof(dir), "%s/plots", tmp);
		if (ret !=
		    -ENOENT) /* our private directory: not there is as if nothing was drawn */
			tb_dir_open(&drew, dir, TB_DIR_PATH | TB_DIR_QUIET, 0);
		if (ret == -ENOENT)
			fputs("<p class=\"note\">The plot is not included: gnuplot was not found "
			      "(install gnuplot, e.g. Debian's gnuplot-nox).</p>\n",
			      f);
		else if (drew.fd < 0 || !tb_html_plots_section(f, &drew, true))
			fputs("<p class=\"note\">No plot: no cell has an overhead.</p>\n", f);
		tb_dir_close(&drew);
		tb_rm_rf(tmp);
	}
	fputs("<h2 id=\"environment\">Environment</h2>\n", f);
	for (i = 0; i <= n; i++)
		tb_html_result_appendix(f, rs[i], labels[i], i);
	free(rs);
	free(labels);
	return tb_html_finish(f, &buf, &len, NULL, path);
}
