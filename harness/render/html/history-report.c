// SPDX-License-Identifier: GPL-2.0
/* The HTML history page (history-report.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "history/analysis.h"
#include "render/history-formats.h"
#include "render/html/history-report.h"
#include "render/html/html.h"
#include "render/gnuplot/plot.h"

/* A row of the "latest change points" table, sorted newest first when the page is written. */
struct latest {
	char time[40];
	char *html;
};

struct tb_hreport {
	char db[512];
	struct tb_history_counts counts;
	struct tb_detect_opts o;
	bool comparable;
	size_t max_plots, nplots, nseries, nchanged, skipped_plots;
	int plot_err; /* the first error drawing a plot (-ENOENT: no gnuplot) */
	struct latest *latest;
	size_t nlatest;
	FILE *details, *all; /* the page's sections, built as series come */
	char *details_buf, *all_buf;
	size_t details_len, all_len;
	char tmp[64]; /* where the SVGs are drawn */
};

void tb_hreport_free(struct tb_hreport *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nlatest; i++)
		free(rep->latest[i].html);
	free(rep->latest);
	if (rep->details)
		fclose(rep->details);
	if (rep->all)
		fclose(rep->all);
	free(rep->details_buf);
	free(rep->all_buf);
	if (rep->tmp[0])
		tb_rm_rf(rep->tmp);
	free(rep);
}

int tb_hreport_begin(struct tb_hreport **out, const char *db, const struct tb_history_counts *c,
		     const struct tb_detect_opts *o, bool comparable, size_t max_plots)
{
	struct tb_hreport *rep = calloc(1, sizeof(*rep));

	*out = NULL;
	if (!rep)
		return -ENOMEM;
	snprintf(rep->db, sizeof(rep->db), "%s", db);
	rep->counts = *c;
	rep->o = *o;
	rep->comparable = comparable;
	rep->max_plots = max_plots;
	rep->details = open_memstream(&rep->details_buf, &rep->details_len);
	rep->all = open_memstream(&rep->all_buf, &rep->all_len);
	if (!rep->details || !rep->all) {
		tb_hreport_free(rep);
		return -ENOMEM;
	}
	*out = rep;
	return 0;
}

/* The environment fields that changed at the change's own run, as one short line. */
static void env_keys(FILE *f, const struct tb_hchange *x)
{
	const struct tb_hdiffs *d = &x->diffs[1];
	bool any = false;

	if (strcmp(x->variant_before, x->variant_after)) {
		fputs("scenario text", f);
		any = true;
	}
	for (size_t i = 0; i < d->n && i < 8; i++) {
		fputs(any ? ", " : "", f);
		tb_html_esc(f, d->d[i].key);
		any = true;
	}
	if (d->n > 8)
		fprintf(f, " and %zu more", d->n - 8);
	if (!any)
		fputs("<span class=\"meta\">nothing</span>", f);
}

static void series_link(FILE *f, const struct tb_hseries *s)
{
	fprintf(f, "<a href=\"#s-%s\">", s->id);
	tb_html_esc(f, s->name);
	fputs("</a>", f);
}

/* The latest change point of a as a table row (new string), NULL on ENOMEM. */
static char *latest_row(const struct tb_hanalysis *a)
{
	const struct tb_hchange *x = &a->ch[a->nch - 1];
	char *buf = NULL, line[1024];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs("<tr><td>", f);
	series_link(f, a->s);
	fputs("</td><td>", f);
	tb_html_esc(f, x->started);
	fputs("</td><td>", f);
	tb_html_esc(f, tb_render_history_change_sentence(line, sizeof(line), a->s, x, a->data.n));
	fputs("</td><td>", f);
	env_keys(f, x);
	fputs("</td></tr>\n", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The series' section: its trend plot (while the budget lasts) and every change point. */
static void details(struct tb_hreport *rep, const struct tb_hanalysis *a)
{
	FILE *f = rep->details;
	char line[1024], path[PATH_MAX], name[64];

	fprintf(f, "<h3 id=\"s-%s\">", a->s->id);
	tb_html_esc(f, a->s->name);
	fputs(" <small class=\"meta\">", f);
	tb_html_esc(f, a->s->hw_desc);
	fprintf(f, ", %zu runs, series %s</small></h3>\n", a->data.n, a->s->id);
	if (rep->nplots < rep->max_plots && rep->plot_err != -ENOENT) {
		struct tb_dir d;
		int ret, r;

		if (!rep->tmp[0] && tb_html_tmpdir(rep->tmp, sizeof(rep->tmp)))
			rep->tmp[0] = '\0';
		ret = rep->tmp[0] ? tb_plot_trend(a, rep->tmp, TB_PLOT_NO_PNG) : -EIO;
		snprintf(path, sizeof(path), "%s/plots", rep->tmp);
		snprintf(name, sizeof(name), "trend-%s.svg", a->s->id);
		if (ret > 0) {
			fputs("<figure>\n", f);
			r = tb_dir_open(&d, path, TB_DIR_PATH | TB_DIR_QUIET, 0);
			if (!r) {
				r = tb_html_inline_svg(f, &d, name, (int)rep->nplots);
				tb_dir_close(&d);
			}
			if (r)
				fputs("<p class=\"note\">This plot could not be included.</p>\n",
				      f);
			fputs("<figcaption>Each run's value with its CI, the median of each segment "
			      "as a step, the change points dashed.</figcaption>\n</figure>\n",
			      f);
			rep->nplots++;
		} else if (ret < 0 && !rep->plot_err) {
			rep->plot_err = ret;
		}
	} else {
		rep->skipped_plots++;
	}
	fputs("<ul class=\"warn\">\n", f);
	for (size_t i = 0; i < a->nch; i++) {
		char *env = NULL;
		size_t elen = 0;
		FILE *e = open_memstream(&env, &elen);

		fputs("<li>", f);
		tb_html_esc(f, tb_render_history_change_sentence(line, sizeof(line), a->s,
								 &a->ch[i], a->data.n));
		if (e) {
			tb_render_history_change_env_print(e, &a->ch[i], "");
			if (!fclose(e)) {
				fputs("<pre>", f);
				tb_html_esc(f, env);
				fputs("</pre>", f);
			}
		}
		free(env);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

int tb_hreport_add(struct tb_hreport *rep, const struct tb_hanalysis *a)
{
	const struct tb_hseries *s = a->s;
	FILE *f = rep->all;

	rep->nseries++;
	fputs("<tr><td>", f);
	if (a->nch)
		series_link(f, s);
	else
		tb_html_esc(f, s->name);
	fprintf(f, "</td><td>%s</td><td>", s->id);
	tb_html_esc(f, s->hw_desc);
	fprintf(f, "</td><td>%s</td><td class=\"n\">%zu</td><td>", s->variant ? s->variant : "*",
		a->data.n);
	tb_html_esc(f, s->first);
	fputs("</td><td>", f);
	tb_html_esc(f, s->last);
	fprintf(f, "</td><td class=\"n\">%zu</td></tr>\n", a->nch);
	if (!a->nch)
		return 0;
	rep->nchanged++;
	{
		struct latest *grown = realloc(rep->latest, (rep->nlatest + 1) * sizeof(*grown));
		char *row = latest_row(a);

		if (!grown || !row) {
			free(row);
			if (grown)
				rep->latest = grown;
			return -ENOMEM;
		}
		rep->latest = grown;
		snprintf(grown[rep->nlatest].time, sizeof(grown[0].time), "%s",
			 a->ch[a->nch - 1].started);
		grown[rep->nlatest++].html = row;
	}
	details(rep, a);
	return 0;
}

static int newest_first(const void *x, const void *y)
{
	return -strcmp(((const struct latest *)x)->time, ((const struct latest *)y)->time);
}

static void plots_note(FILE *f, const struct tb_hreport *rep)
{
	if (rep->plot_err == -ENOENT)
		fputs("<p class=\"note\">Trend plots are not included: gnuplot or the plot scripts "
		      "were not found (install gnuplot, e.g. Debian's gnuplot-nox).</p>\n",
		      f);
	else if (rep->plot_err)
		fputs("<p class=\"note\">Some trend plots are missing: gnuplot failed (its messages "
		      "were logged).</p>\n",
		      f);
	if (rep->skipped_plots)
		fprintf(f,
			"<p class=\"note\">%zu more series with change points have no plot here (--max-plots %zu); <code>tracebench history plot</code> draws them.</p>\n",
			rep->skipped_plots, rep->max_plots);
}

int tb_hreport_finish(struct tb_hreport *rep, const struct tb_dir *d, const char *name)
{
	char *page = NULL, settings[512] = "";
	size_t len = 0;
	FILE *f, *sf;
	int ret = -ENOMEM;

	if (fclose(rep->details) | fclose(rep->all)) {
		rep->details = rep->all = NULL;
		goto out;
	}
	rep->details = rep->all = NULL;
	sf = fmemopen(settings, sizeof(settings) - 1, "w");
	if (sf) {
		tb_render_history_detect_settings_print(sf, &rep->o, rep->comparable);
		fclose(sf);
	}
	f = open_memstream(&page, &len);
	if (!f)
		goto out;
	tb_html_head(f, "tracebench history");
	fputs("<h1>tracebench history</h1>\n<p class=\"meta\">", f);
	tb_html_esc(f, rep->db);
	fprintf(f, ": %lld runs from ", (long long)rep->counts.runs);
	tb_html_esc(f, rep->counts.first);
	fputs(" to ", f);
	tb_html_esc(f, rep->counts.last);
	fprintf(f, ", %zu series, %zu with change points. ", rep->nseries, rep->nchanged);
	tb_html_esc(f, settings);
	fputs("</p>\n<h2>Latest change point of each series</h2>\n", f);
	if (rep->nlatest) {
		qsort(rep->latest, rep->nlatest, sizeof(*rep->latest), newest_first);
		fputs("<table><tr><th>series</th><th>at</th><th>change</th><th>what changed in the "
		      "environment at that run</th></tr>\n",
		      f);
		for (size_t i = 0; i < rep->nlatest; i++)
			fputs(rep->latest[i].html, f);
		fputs("</table>\n", f);
	} else {
		fputs("<p class=\"ok\">No series has a change point.</p>\n", f);
	}
	fputs("<h2>Series with change points</h2>\n", f);
	plots_note(f, rep);
	fwrite(rep->details_buf, 1, rep->details_len, f);
	fputs("<h2>All series</h2>\n<table><tr><th>series</th><th>id</th><th>hardware</th>"
	      "<th>scenario</th><th>runs</th><th>first</th><th>last</th><th>change points</th>"
	      "</tr>\n",
	      f);
	fwrite(rep->all_buf, 1, rep->all_len, f);
	fputs("</table>\n", f);
	ret = tb_html_finish(f, &page, &len, d, name);
out:
	tb_hreport_free(rep);
	return ret;
}
