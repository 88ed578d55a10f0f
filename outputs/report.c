// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report: one file that can be attached to a ticket. Everything is inline (CSS, SVG
 * plots); nothing is fetched and nothing runs. Every string from a result goes through esc().
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "stats/compare.h"
#include "outputs/markup.h"
#include "outputs/plot.h"
#include "outputs/report.h"
#include "result/result.h"
#include "core/tb.h"

#define NOISY_CV       0.05 /* a cell whose samples vary more than this is flagged noisy */
#define MAX_ENV_LEAVES 2000 /* bound on the environment table of a crafted result */

static const char css[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:1.5em auto;"
	"max-width:1200px;padding:0 1em;color:#111;line-height:1.4}"
	"h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
	"margin-top:1.6em}.meta{color:#444;font-size:.9em}"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.9em}"
	"th,td{border:1px solid #bbb;padding:.25em .5em;vertical-align:top}"
	"th{background:#eee;text-align:left}td.n{text-align:right;font-variant-numeric:"
	"tabular-nums;white-space:nowrap}"
	"tr.base td{color:#444;background:#f7f7f7}"
	".v-overhead{background:#fbe0cf}.v-none{background:#d9f0e6}.v-untr{background:#e4e4e4;"
	"font-style:italic}.v-fail{background:#f6c6c6}td.sig{font-weight:bold}tr.hw "
	"th{color:#8a4b00}"
	".reason{display:block;font-size:.85em;color:#333}"
	"figure{margin:1em 0;border:1px solid #ddd;padding:.5em}figure svg{width:100%;"
	"height:auto;display:block}figcaption{font-size:.9em;color:#333;margin-top:.3em}"
	"pre{background:#f4f4f4;border:1px solid #ddd;padding:.6em;overflow-x:auto;"
	"white-space:pre-wrap;word-break:break-all}"
	"ul.warn li{margin:.2em 0}.ok{color:#1a6e3e}small.fp{color:#555;border:1px solid "
	"#aaa;border-radius:3px;padding:0 .2em}.note{color:#8a4b00}"
	"@media print{figure{break-inside:avoid}}";

/* ---- escaping ------------------------------------------------------------------------------ */

static void escn(FILE *f, const char *s, size_t n)
{
	tb_fput_markup(f, s, n);
}

static void esc(FILE *f, const char *s)
{
	escn(f, s, s ? strlen(s) : 0);
}

static void escf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void escf(FILE *f, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	esc(f, buf);
}

/* ---- inline SVG ---------------------------------------------------------------------------- */

/*
 * Copy a gnuplot SVG into the page: drop the XML prolog and the xmlns attributes (the HTML
 * parser puts <svg> in its namespace), and prefix every id and reference with "p<k>-" so that
 * several plots on one page do not share ids. Refuses anything that could run or fetch.
 */
static int inline_svg(FILE *f, const char *path, int k)
{
	static const char *const bad[] = {"<script",	 "<foreignobject", "<iframe", "<image",
					  "href=\"http", "href='http",	   "@import"};
	char *svg = NULL, *p, *end;
	size_t i;
	int ret;

	ret = tb_read_file(path, &svg, NULL);
	if (ret)
		return ret;
	for (i = 0; i < TB_ARRAY_SIZE(bad); i++)
		if (strcasestr(svg, bad[i])) {
			tb_warn("report: %s contains %s; not inlined", path, bad[i]);
			ret = -EPERM;
			goto out;
		}
	p = strstr(svg, "<svg");
	end = p ? strchr(p, '>') : NULL;
	if (!end) {
		ret = -EINVAL;
		goto out;
	}
	/* The start tag, without xmlns and xmlns:xlink. */
	fputs("<svg", f);
	p += 4;
	while (p < end) {
		char *a = p + strspn(p, " \t\r\n"), *q;
		char quote;

		if (a >= end)
			break;
		q = strchr(a, '=');
		if (!q || q > end)
			break;
		quote = q[1];
		if (quote != '"' && quote != '\'')
			break;
		q = strchr(q + 2, quote);
		if (!q || q > end)
			break;
		if (strncmp(a, "xmlns", 5)) {
			fputc(' ', f);
			fwrite(a, 1, (size_t)(q + 1 - a), f);
		}
		p = q + 1;
	}
	fprintf(f, " role=\"img\">");
	for (p = end + 1; *p; p++) {
		bool attr = p > svg && strchr(" \t\r\n", p[-1]);

		if (attr && (!strncmp(p, "id='", 4) || !strncmp(p, "id=\"", 4))) {
			fprintf(f, "%.4sp%d-", p, k);
			p += 3;
		} else if (!strncmp(p, "href='#", 7) || !strncmp(p, "href=\"#", 7)) {
			fprintf(f, "%.7sp%d-", p, k);
			p += 6;
		} else if (!strncmp(p, "url(#", 5)) {
			fprintf(f, "url(#p%d-", k);
			p += 4;
		} else {
			fputc(*p, f);
		}
	}
	fputc('\n', f);
out:
	free(svg);
	return ret;
}

/* ---- the result's pieces --------------------------------------------------------------------- */

static const char *env_str(json_t *sys, const char *const *paths)
{
	for (; *paths; paths++) {
		char key[128], *dot;
		json_t *o = sys;

		snprintf(key, sizeof(key), "%s", *paths);
		dot = strchr(key, '.');
		if (dot)
			*dot = '\0';
		o = json_is_object(o) ? json_object_get(o, key) : NULL;
		if (dot)
			o = json_is_object(o) ? json_object_get(o, dot + 1) : NULL;
		if (json_is_string(o) && *json_string_value(o))
			return json_string_value(o);
	}
	return NULL;
}

static const char *const kernel_keys[] = {"kernel.release", "kernel_release", "kernel.version",
					  "kernel", NULL};
static const char *const cpu_keys[] = {
	"cpu.model", "cpu.model_name", "cpu_model", "cpu.name", "cpu", NULL};
static const char *const fp_keys[] = {"fingerprint", "fingerprint.hash", "fingerprint.id", NULL};

/* Is path one of sysinfo's fingerprint_fields, or inside one? */
static bool in_fingerprint(json_t *fields, const char *path)
{
	size_t i, n;
	json_t *x;

	json_array_foreach(fields, i, x)
	{
		if (!json_is_string(x))
			continue;
		n = strlen(json_string_value(x));
		if (!strncmp(path, json_string_value(x), n) &&
		    (path[n] == '\0' || path[n] == '.' || path[n] == '['))
			return true;
	}
	return false;
}

/* Every leaf of the system object as a table row "path | value", fingerprint fields marked. */
static void env_leaves(FILE *f, json_t *v, char *path, size_t len, int *count, json_t *fields)
{
	size_t used = strlen(path), i;
	const char *key;
	json_t *child;

	if (*count >= MAX_ENV_LEAVES)
		return;
	if (json_is_object(v) && json_object_size(v)) {
		json_object_foreach(v, key, child)
		{
			snprintf(path + used, len - used, "%s%s", used ? "." : "", key);
			env_leaves(f, child, path, len, count, fields);
			path[used] = '\0';
		}
		return;
	}
	if (json_is_array(v) && json_array_size(v)) {
		json_array_foreach(v, i, child)
		{
			snprintf(path + used, len - used, "[%zu]", i);
			env_leaves(f, child, path, len, count, fields);
			path[used] = '\0';
		}
		return;
	}
	(*count)++;
	fputs("<tr><th>", f);
	esc(f, path);
	if (in_fingerprint(fields, path))
		fputs(" <small class=\"fp\">fingerprint</small>", f);
	fputs("</th><td>", f);
	if (json_is_string(v)) {
		esc(f, json_string_value(v));
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		esc(f, s ? s : "?");
		free(s);
	}
	fputs("</td></tr>\n", f);
}

static void environment(FILE *f, const struct tb_result *r, const char *id)
{
	const char *host = tb_result_host(r), *k = env_str(r->system, kernel_keys);
	const char *cpu = env_str(r->system, cpu_keys), *fp = env_str(r->system, fp_keys);
	char path[1024] = "";
	int count = 0;

	fprintf(f, "<table id=\"%s\">\n", id);
	fputs("<tr><th>host</th><td>", f);
	esc(f, host);
	fputs("</td></tr>\n<tr><th>kernel</th><td>", f);
	esc(f, k ? k : "unknown");
	fputs("</td></tr>\n<tr><th>CPU</th><td>", f);
	esc(f, cpu ? cpu : "unknown");
	fputs("</td></tr>\n<tr><th>fingerprint</th><td>", f);
	esc(f, fp ? fp : "none recorded");
	fputs("</td></tr>\n<tr><th>tracebench</th><td>", f);
	esc(f, r->tool_version ? r->tool_version : "unknown");
	fputs("</td></tr>\n</table>\n", f);
	if (!json_is_object(r->system) || !json_object_size(r->system)) {
		fputs("<p class=\"note\">The result records no environment.</p>\n", f);
		return;
	}
	fputs("<details open><summary>Every recorded field (kernel, CPU and topology, "
	      "frequency, clocksource, mitigations, versions); those marked <small "
	      "class=\"fp\">fingerprint</small> decide whether two runs are comparable"
	      "</summary>\n<table>\n",
	      f);
	env_leaves(f, r->system, path, sizeof(path), &count,
		   json_object_get(r->system, "fingerprint_fields"));
	fputs("</table>\n</details>\n", f);
	if (count >= MAX_ENV_LEAVES)
		fprintf(f, "<p class=\"note\">Only the first %d fields are shown.</p>\n",
			MAX_ENV_LEAVES);
}

static void num(FILE *f, double v, const char *fmt)
{
	fputs("<td class=\"n\">", f);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("&ndash;", f);
	fputs("</td>", f);
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

static const char *verdict_class(enum tb_verdict v)
{
	switch (v) {
	case TB_VERDICT_OVERHEAD:
		return "v-overhead";
	case TB_VERDICT_NO_OVERHEAD:
		return "v-none";
	case TB_VERDICT_UNTRUSTWORTHY:
		return "v-untr";
	default:
		return "";
	}
}

static void overhead_td(FILE *f, const struct tb_cell *c)
{
	const struct tb_overhead *o = &c->overhead;

	fputs("<td class=\"n\">", f);
	if (!c->has_overhead || !isfinite(o->pct))
		fputs("&ndash;", f);
	else if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
		fprintf(f, "%+.1f%% [%+.1f, %+.1f]", o->pct, o->ci_lo, o->ci_hi);
	else
		fprintf(f, "%+.1f%%", o->pct);
	fputs("</td>", f);
}

static void verdict_td(FILE *f, const struct tb_cell *c)
{
	if (c->error) {
		fputs("<td class=\"v-fail\"><b>failed</b><span class=\"reason\">", f);
		esc(f, c->error);
		fputs("</span></td>", f);
	} else if (c->baseline) {
		fputs("<td>baseline</td>", f);
	} else if (!c->has_overhead || !c->overhead.verdict) {
		fputs("<td>not analysed</td>", f);
	} else {
		fprintf(f, "<td class=\"%s\"><b>", verdict_class(c->overhead.verdict));
		esc(f, tb_verdict_name(c->overhead.verdict));
		fputs("</b>", f);
		if (*c->overhead.reason) {
			fputs("<span class=\"reason\">", f);
			esc(f, c->overhead.reason);
			fputs("</span>", f);
		}
		fputs("</td>", f);
	}
}

static bool cell_measured(const struct tb_cell *c)
{
	return c->summary.n > 0 && isfinite(c->summary.median);
}

static void verdict_table(FILE *f, const struct tb_result *r)
{
	size_t i, w, pass, nv[4] = {0}, ntraced = 0;
	const char **wls = calloc(r->ncells + 1, sizeof(*wls));
	size_t nw = 0;

	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (!c->baseline) {
			ntraced++;
			if (c->has_overhead && c->overhead.verdict <= TB_VERDICT_UNTRUSTWORTHY)
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
		"<p>%zu traced cells: <b>%zu with overhead</b>, %zu without detectable overhead, %zu untrustworthy, %zu not analysed.</p>\n",
		ntraced, nv[TB_VERDICT_OVERHEAD], nv[TB_VERDICT_NO_OVERHEAD],
		nv[TB_VERDICT_UNTRUSTWORTHY], ntraced - nv[1] - nv[2] - nv[3]);
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
				esc(f, c->workload);
				fputs("</td><td>", f);
				esc(f, c->tracer);
				fputs("</td>", f);
				num(f, b && cell_measured(b) ? b->summary.median : NAN, "%.1f");
				num(f, !c->baseline && cell_measured(c) ? c->summary.median : NAN,
				    "%.1f");
				overhead_td(f, c);
				num(f, c->has_overhead ? c->overhead.ns_per_event : NAN, "%.1f");
				count_td(f, c->baseline ? -1 : c->events_recorded);
				count_td(f, c->baseline ? -1 : c->events_lost);
				verdict_td(f, c);
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
	      "percentiles, tracer cost)</summary>\n<table id=\"stats-table\">\n<thead><tr>"
	      "<th>cell</th><th>n</th><th>median ns/op</th><th>mean</th><th>sd</th><th>CV %</th>"
	      "<th>outliers</th><th>p (Mann-Whitney)</th><th>p (Welch)</th><th>shift ns (HL)</th>"
	      "<th>MDE %</th><th>events/op</th><th>BPF ns/run</th><th>tracer CPU s</th>"
	      "<th>p50 / p99 / p99.9 ns</th></tr></thead>\n<tbody>\n",
	      f);
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_overhead *o = c->has_overhead ? &c->overhead : NULL;

		fputs("<tr><td>", f);
		esc(f, c->id ? c->id : c->workload);
		fputs("</td>", f);
		fprintf(f, "<td class=\"n\">%zu</td>", c->summary.n);
		num(f, c->summary.median, "%.1f");
		num(f, c->summary.mean, "%.1f");
		num(f, c->summary.sd, "%.2f");
		num(f, 100.0 * c->summary.cv, "%.2f");
		fprintf(f, "<td class=\"n\">%zu</td>", c->summary.outliers);
		num(f, o ? o->p_mannwhitney : NAN, "%.2g");
		num(f, o ? o->p_welch : NAN, "%.2g");
		num(f, o ? o->hl_shift_ns : NAN, "%.1f");
		num(f, o ? o->mde_pct : NAN, "%.2f");
		num(f, o ? o->events_per_op : NAN, "%.3g");
		num(f, o ? o->bpf_ns_per_run : NAN, "%.1f");
		num(f, c->tracer_cpu_s, "%.3g");
		if (c->latency.present)
			fprintf(f, "<td class=\"n\">%.0f / %.0f / %.0f</td>", c->latency.p50,
				c->latency.p99, c->latency.p999);
		else
			fputs("<td class=\"n\">&ndash;</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n</details>\n", f);
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
		esc(f, m->tracer ? m->tracer : "?");
		fputs("</td><td>", f);
		esc(f, m->workload_type ? m->workload_type : "?");
		fprintf(f, "</td><td class=\"n\">%zu</td><td class=\"n\">", m->npoints);
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
		num(f, m->r2, "%.4f");
		num(f, m->pct_per_mevent_s / 1000.0, "%.3g");
		fprintf(f, "<td>%s</td></tr>\n",
			m->nonlinear ? "<b>no</b>: a quadratic term is significant (saturation?)"
			: isfinite(m->p_quadratic) ? "yes"
						   : "not tested (&lt; 4 points)");
	}
	fputs("</tbody>\n</table>\n", f);
}

static const struct {
	const char *name, *caption;
} captions[] = {
	{"overhead", "Overhead of each traced cell: median ns/op traced over baseline, with the "
		     "bootstrap confidence interval; sorted, largest on top. Fill and text give "
		     "the verdict; dashed lines mark the noise threshold."},
	{"ns-per-op", "Time per operation of every measured sample, per workload: box = "
		      "quartiles, thick bar = median, whiskers = 1.5 IQR, dots = the samples."},
	{"ns-per-event", "Cost per traced event (added ns/op divided by events per op), and the "
			 "kernel's own BPF run time per program run where the tracer is BPF."},
	{"latency", "Per-operation latency of latency-mode cells, cumulative, tail-stretched; "
		    "points mark p50, p99 and p99.9."},
	{"timeline", "Every sample in run order: drift, warm-up (circled, not used) and the "
		     "interleaving of baseline and traced runs."},
	{"rate", "Overhead against event rate, with the least-squares line per tracer."},
	{"compare", "Overhead per cell for each result set, with confidence intervals."},
};

/* Inline every plot of plotdir that exists, in tb_plot_names order. Returns how many. */
static int plots_section(FILE *f, const char *plotdir, bool compare)
{
	int i, n = 0;
	size_t k;

	for (i = 0; tb_plot_names[i]; i++) {
		char path[PATH_MAX + 64];

		if (compare != !strcmp(tb_plot_names[i], "compare"))
			continue;
		snprintf(path, sizeof(path), "%s/%s.svg", plotdir, tb_plot_names[i]);
		if (access(path, R_OK))
			continue;
		fprintf(f, "<figure id=\"plot-%s\">\n", tb_plot_names[i]);
		if (inline_svg(f, path, i)) {
			fputs("<p class=\"note\">This plot could not be included.</p>\n", f);
		}
		for (k = 0; k < TB_ARRAY_SIZE(captions); k++)
			if (!strcmp(captions[k].name, tb_plot_names[i]))
				fprintf(f, "<figcaption>%s</figcaption>\n", captions[k].caption);
		fputs("</figure>\n", f);
		n++;
	}
	return n;
}

/* Draw into a temporary directory (plotdir NULL) or use plotdir; then inline. */
static void plots(FILE *f, const struct tb_result *const *rs, size_t n, const char *plotdir,
		  bool compare)
{
	char tmp[] = "/tmp/tracebench-report-XXXXXX", dir[PATH_MAX];
	int ret = 0, drawn;

	if (!plotdir) {
		if (!mkdtemp(tmp)) {
			fprintf(f, "<p class=\"note\">Plots are not included: cannot create a "
				   "temporary directory.</p>\n");
			return;
		}
		ret = compare ? tb_plot_compare(rs, NULL, n, tmp, TB_PLOT_NO_PNG)
			      : tb_plot_result(rs[0], tmp, TB_PLOT_NO_PNG);
		snprintf(dir, sizeof(dir), "%s/plots", tmp);
		plotdir = dir;
	}
	if (ret == -ENOENT) {
		fputs("<p class=\"note\">Plots are not included: gnuplot was not found on the "
		      "machine that wrote this report (install gnuplot, e.g. Debian's gnuplot-nox, "
		      "and run <code>tracebench report</code> again).</p>\n",
		      f);
	} else {
		drawn = plots_section(f, plotdir, compare);
		if (ret < 0)
			fputs("<p class=\"note\">Some plots are missing: gnuplot failed (its "
			      "messages were logged).</p>\n",
			      f);
		else if (!drawn)
			fputs("<p class=\"note\">No plots: the result has no data to plot.</p>\n",
			      f);
	}
	if (plotdir == dir)
		tb_rm_rf(tmp);
}

static void li(FILE *f, const char *cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void li(FILE *f, const char *cls, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "<li class=\"%s\">", cls);
	esc(f, buf);
	fputs("</li>\n", f);
}

static void warnings(FILE *f, const struct tb_result *r)
{
	size_t i, n = 0;
	json_t *v;

	fputs("<ul class=\"warn\" id=\"warning-list\">\n", f);
	if (r->partial) {
		li(f, "note", "Partial run: it stopped early (%s); fewer rounds than planned.",
		   r->stop_reason ? r->stop_reason : "reason unknown");
		n++;
	}
	if (json_is_array(r->foreign) && json_array_size(r->foreign)) {
		json_array_foreach(r->foreign, i, v)
		{
			li(f, "note", "Foreign instrumentation was present during the run: %s",
			   json_is_string(v) ? json_string_value(v) : "?");
			n++;
		}
	}
	if (json_is_array(r->warnings)) {
		json_array_foreach(r->warnings, i, v)
		{
			li(f, "note", "%s", json_is_string(v) ? json_string_value(v) : "?");
			n++;
		}
	}
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->error) {
			li(f, "note", "%s / %s failed: %s", c->workload, c->tracer, c->error);
			n++;
		}
		if (c->events_lost > 0) {
			li(f, "note", "%s / %s lost %lld events (%.2g%% of %lld recorded).",
			   c->workload, c->tracer, (long long)c->events_lost,
			   c->events_recorded > 0
				   ? 100.0 * (double)c->events_lost / (double)c->events_recorded
				   : 100.0,
			   (long long)(c->events_recorded > 0 ? c->events_recorded : 0));
			n++;
		}
		if (isfinite(c->summary.cv) && c->summary.cv > NOISY_CV) {
			li(f, "note",
			   "%s / %s is noisy: its samples vary by %.1f%% (coefficient of variation "
			   "above %.0f%%).",
			   c->workload, c->tracer, 100.0 * c->summary.cv, 100.0 * NOISY_CV);
			n++;
		}
		if (!c->baseline && c->has_overhead &&
		    c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY) {
			li(f, "note", "%s / %s is untrustworthy: %s", c->workload, c->tracer,
			   *c->overhead.reason ? c->overhead.reason : "no reason recorded");
			n++;
		}
	}
	if (!n)
		fputs("<li class=\"ok\">None: no foreign instrumentation, lost events, noisy or "
		      "failed cells.</li>\n",
		      f);
	fputs("</ul>\n", f);
}

static void head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	esc(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
}

/* Close the memstream f (whose buffer is *buf, *len) and write it atomically to path. */
static int finish(FILE *f, char **buf, size_t *len, const char *path)
{
	int ret;

	fputs("<p class=\"meta\">Written by " TB_NAME " " TB_VERSION
	      ". This page is self-contained: no scripts, nothing fetched.</p>\n</body>\n"
	      "</html>\n",
	      f);
	if (ferror(f) | fclose(f)) {
		free(*buf);
		return -ENOMEM;
	}
	ret = tb_write_atomic(path, *buf, *len, 0644);
	if (ret)
		tb_err("report: cannot write %s: %s", path, strerror(-ret));
	free(*buf);
	return ret;
}

int tb_report_write(const struct tb_result *r, const char *plotdir, const char *path)
{
	const char *host = tb_result_host(r);
	const char *name = r->scenario_name ? r->scenario_name : "scenario";
	char title[512], *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	snprintf(title, sizeof(title), "tracebench: %s on %s", name, host);
	head(f, title);
	fputs("<h1>", f);
	esc(f, title);
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
	fputs("</p>\n<h2 id=\"verdicts\">Verdicts</h2>\n", f);
	verdict_table(f, r);
	models_section(f, r);
	stats_table(f, r);
	fputs("<h2 id=\"plots\">Plots</h2>\n", f);
	plots(f, &r, 1, plotdir, false);
	fputs("<h2 id=\"environment\">Environment</h2>\n", f);
	environment(f, r, "environment-summary");
	fputs("<h2 id=\"scenario\">Scenario</h2>\n<p>", f);
	esc(f, r->scenario_path ? r->scenario_path : "(no path)");
	fputs("</p>\n<pre>", f);
	esc(f, r->scenario_text ? r->scenario_text : "(the result records no scenario text)");
	fputs("</pre>\n<h2 id=\"warnings\">Warnings</h2>\n", f);
	warnings(f, r);
	fputs("<h2 id=\"reproduce\">Reproduce</h2>\n<p>The exact command of this run (same "
	      "scenario, seed in the result):</p>\n<pre>",
	      f);
	esc(f, r->command_line ? r->command_line : "(not recorded)");
	fputs("</pre>\n", f);
	return finish(f, &buf, &len, path);
}

/* ---- compare --------------------------------------------------------------------------------- */

static void set_label(const struct tb_result *r, size_t i, char *buf, size_t len)
{
	const char *k = env_str(r->system, kernel_keys);

	snprintf(buf, len, "#%zu %s%s%s", i + 1, tb_result_host(r), k ? " " : "", k ? k : "");
}

int tb_report_compare_write(const struct tb_result *const *rs, size_t n, const char *path)
{
	char *buf = NULL, lbl[512];
	const char **ids = NULL;
	size_t len = 0, nids = 0, s, i, j;
	const char *fp0 = NULL;
	bool fpdiff = false;
	FILE *f;

	if (!n)
		return -EINVAL;
	for (s = 0; s < n; s++)
		nids += rs[s]->ncells;
	ids = calloc(nids + 1, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	nids = 0;
	for (s = 0; s < n; s++)
		for (i = 0; i < rs[s]->ncells; i++) {
			const char *id = rs[s]->cells[i].id;

			if (!id)
				continue;
			for (j = 0; j < nids; j++)
				if (!strcmp(ids[j], id))
					break;
			if (j == nids)
				ids[nids++] = id;
		}
	f = open_memstream(&buf, &len);
	if (!f) {
		free(ids);
		return -ENOMEM;
	}
	head(f, "tracebench comparison");
	fprintf(f, "<h1>tracebench: comparison of %zu result sets</h1>\n<ol>\n", n);
	for (s = 0; s < n; s++) {
		const char *fp = env_str(rs[s]->system, fp_keys);

		set_label(rs[s], s, lbl, sizeof(lbl));
		fputs("<li>", f);
		esc(f, lbl);
		fputs(": scenario ", f);
		esc(f, rs[s]->scenario_name ? rs[s]->scenario_name : "?");
		fputs(", started ", f);
		esc(f, rs[s]->started ? rs[s]->started : "?");
		fputs(", fingerprint ", f);
		esc(f, fp ? fp : "none");
		fputs("</li>\n", f);
		if (!s)
			fp0 = fp;
		else if (!fp0 || !fp || strcmp(fp0, fp))
			fpdiff = true;
	}
	fputs("</ol>\n", f);
	if (fpdiff)
		fputs("<p class=\"note\">The environment fingerprints differ: the machines or "
		      "their "
		      "settings are not the same, which may explain differences.</p>\n",
		      f);
	fputs("<h2 id=\"verdicts\">Cells side by side</h2>\n<table id=\"compare-table\">\n"
	      "<thead><tr><th rowspan=\"2\">cell</th>",
	      f);
	for (s = 0; s < n; s++) {
		set_label(rs[s], s, lbl, sizeof(lbl));
		fputs("<th colspan=\"3\">", f);
		esc(f, lbl);
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr>", f);
	for (s = 0; s < n; s++)
		fputs("<th>ns/op</th><th>overhead % [CI]</th><th>verdict</th>", f);
	fputs("</tr></thead>\n<tbody>\n", f);
	for (j = 0; j < nids; j++) {
		fputs("<tr><td>", f);
		esc(f, ids[j]);
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
			num(f, cell_measured(c) ? c->summary.median : NAN, "%.1f");
			overhead_td(f, c);
			verdict_td(f, c);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table>\n<h2 id=\"plots\">Plot</h2>\n", f);
	plots(f, rs, n, NULL, true);
	fputs("<h2 id=\"environment\">Environment</h2>\n", f);
	for (s = 0; s < n; s++) {
		char id[64];

		set_label(rs[s], s, lbl, sizeof(lbl));
		fputs("<h3>", f);
		esc(f, lbl);
		fputs("</h3>\n", f);
		snprintf(id, sizeof(id), "environment-%zu", s + 1);
		environment(f, rs[s], id);
		fputs("<h4>Warnings</h4>\n", f);
		warnings(f, rs[s]);
		fputs("<h4>Reproduce</h4>\n<pre>", f);
		esc(f, rs[s]->command_line ? rs[s]->command_line : "(not recorded)");
		fputs("</pre>\n", f);
	}
	free(ids);
	return finish(f, &buf, &len, path);
}

/* ---- comparison (compare.h) --------------------------------------------------------------------
 */

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
	fprintf(f, "<td class=\"%s\">", verdict_class(v));
	esc(f, tb_verdict_name(v));
	fputs("</td>", f);
}

static void comparison_section(FILE *f, const struct tb_comparison *c, size_t k)
{
	size_t i;

	fprintf(f, "<h2 id=\"comparison-%zu\">", k + 1);
	esc(f, c->name_a);
	fputs(" (A) against ", f);
	esc(f, c->name_b);
	fputs(" (B)</h2>\n", f);
	if (c->ndiffs) {
		fprintf(f, "<p class=\"%s\">%zu environment field%s differ%s%s</p>\n",
			c->same_hardware ? "meta" : "note", c->ndiffs, c->ndiffs == 1 ? "" : "s",
			c->ndiffs == 1 ? "s" : "",
			c->same_hardware
				? " (same hardware)."
				: "; the hardware differs, so differences may come from it.");
		fputs("<details><summary>Environment differences</summary>\n<table>\n<thead><tr>"
		      "<th>field</th><th>A</th><th>B</th></tr></thead>\n<tbody>\n",
		      f);
		for (i = 0; i < c->ndiffs; i++) {
			fputs(c->diffs[i].hardware ? "<tr class=\"hw\"><th>" : "<tr><th>", f);
			esc(f, c->diffs[i].key);
			fputs("</th><td>", f);
			esc(f, c->diffs[i].a ? c->diffs[i].a : "(absent)");
			fputs("</td><td>", f);
			esc(f, c->diffs[i].b ? c->diffs[i].b : "(absent)");
			fputs("</td></tr>\n", f);
		}
		fputs("</tbody>\n</table>\n</details>\n", f);
	} else {
		fputs("<p>The environments match.</p>\n", f);
	}
	fputs("<table class=\"compare\">\n<thead><tr><th>cell</th><th>A ns/op</th><th>B ns/op</th>"
	      "<th>ns/op change % [CI]</th><th>p</th><th>A overhead %</th><th>B overhead %</th>"
	      "<th>overhead change pp [CI]</th><th>A verdict</th><th>B verdict</th></tr></thead>\n"
	      "<tbody>\n",
	      f);
	for (i = 0; i < c->nrows; i++) {
		const struct tb_cmp_row *w = &c->rows[i];

		fputs("<tr><td>", f);
		esc(f, w->id);
		if (!w->a || !w->b)
			fprintf(f, " <small>(only in %s%s)</small>", w->a ? "A" : "B",
				w->config_differs ? "; configuration differs" : "");
		fputs("</td>", f);
		num(f, w->ns_a, "%.1f");
		num(f, w->ns_b, "%.1f");
		change_td(f, w->ns_pct, w->ns_ci_lo, w->ns_ci_hi, "%", w->ns_significant);
		num(f, w->p, "%.2g");
		if (w->traced) {
			num(f, w->ovh_a, "%+.1f");
			num(f, w->ovh_b, "%+.1f");
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
		"</tbody>\n</table>\n<p class=\"meta\">Significant: the confidence interval "
		"excludes 0 (ns/op: and Mann-Whitney p &lt; %g). pp: percentage points.</p>\n",
		c->alpha);
}

int tb_report_comparison_write(const struct tb_comparison *const *cs, size_t n, const char *path)
{
	const struct tb_result **rs = NULL;
	const char **labels = NULL;
	char *buf = NULL, tmp[] = "/tmp/tracebench-report-XXXXXX", dir[PATH_MAX];
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
	head(f, "tracebench comparison");
	fputs("<h1>tracebench: comparison of ", f);
	for (i = 0; i <= n; i++) {
		if (i)
			fputs(i == n ? " and " : ", ", f);
		esc(f, labels[i]);
	}
	fputs("</h1>\n", f);
	for (i = 0; i < n; i++)
		comparison_section(f, cs[i], i);
	fputs("<h2 id=\"plots\">Plot</h2>\n", f);
	if (!mkdtemp(tmp)) {
		fputs("<p class=\"note\">The plot is not included: no temporary directory.</p>\n",
		      f);
	} else {
		ret = tb_plot_compare(rs, labels, n + 1, tmp, TB_PLOT_NO_PNG);
		snprintf(dir, sizeof(dir), "%s/plots", tmp);
		if (ret == -ENOENT)
			fputs("<p class=\"note\">The plot is not included: gnuplot was not found "
			      "(install gnuplot, e.g. Debian's gnuplot-nox).</p>\n",
			      f);
		else if (!plots_section(f, dir, true))
			fputs("<p class=\"note\">No plot: no cell has an overhead.</p>\n", f);
		tb_rm_rf(tmp);
	}
	fputs("<h2 id=\"environment\">Environment</h2>\n", f);
	for (i = 0; i <= n; i++) {
		char id[64];

		fputs("<h3>", f);
		esc(f, labels[i]);
		fputs("</h3>\n", f);
		snprintf(id, sizeof(id), "environment-%zu", i + 1);
		environment(f, rs[i], id);
		fputs("<h4>Warnings</h4>\n", f);
		warnings(f, rs[i]);
		fputs("<h4>Reproduce</h4>\n<pre>", f);
		esc(f, rs[i]->command_line ? rs[i]->command_line : "(not recorded)");
		fputs("</pre>\n", f);
	}
	free(rs);
	free(labels);
	return finish(f, &buf, &len, path);
}
