// SPDX-License-Identifier: GPL-2.0
/*
 * The pieces both HTML reports are made of (html.h): the page around them, escaped text, the
 * cells of their tables, a result's environment and warnings, the inlined plots.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "render/html/html.h"
#include "core/markup.h"
#include "render/gnuplot/plot.h"
#include "render/text.h"
#include "model/proof.h"
#include "model/result.h"
#include "model/measured.h"

#define NOISY_CV       0.05 /* a cell whose samples vary more than this is flagged noisy */
#define MAX_ENV_LEAVES 2000 /* bound on the environment table of a crafted result */

static const char css[] =
	"body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;margin:1.5em auto;"
	"max-width:1360px;padding:0 1em;color:#111;line-height:1.4}"
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
	/* Wide tables scroll inside the page instead of overflowing it; long values wrap. */
	".scroll{overflow-x:auto;max-width:100%}td{overflow-wrap:break-word}.caveat{color:#8a4b00}"
	"@media print{figure{break-inside:avoid}}";

/* ---- the page ------------------------------------------------------------------------------ */

void tb_html_esc(FILE *f, const char *s)
{
	tb_fput_markup(f, s, s ? strlen(s) : 0);
}

void tb_html_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      f);
	tb_html_esc(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", css);
}

int tb_html_finish(FILE *f, char **buf, size_t *len, const struct tb_dir *d, const char *name)
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
	/* Each says why it failed. */
	ret = d ? tb_dir_write(d, name, *buf, *len, 0644) : tb_write_atomic(name, *buf, *len, 0644);
	free(*buf);
	return ret;
}

/* ---- inline SVG ---------------------------------------------------------------------------- */

/*
 * Copy a gnuplot SVG into the page: drop the XML prolog and the xmlns attributes (the HTML
 * parser puts <svg> in its namespace), and prefix every id and reference with "p<k>-" so that
 * several plots on one page do not share ids. Refuses anything that could run or fetch.
 */
int tb_html_inline_svg(FILE *f, const struct tb_dir *d, const char *name, int k)
{
	static const char *const bad[] = {"<script",	 "<foreignobject", "<iframe", "<image",
					  "href=\"http", "href='http",	   "@import"};
	char *svg = NULL, *p, *end, path[PATH_MAX + NAME_MAX + 2];
	size_t i;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	/* A regular file only, never through a link: a plots/ directory may come from elsewhere. */
	ret = tb_dir_read(d, name, 64u << 20, &svg, NULL);
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

static const struct {
	const char *name, *caption;
} captions[] = {
	{"overhead", "Overhead of each traced cell: median ns/op traced over baseline, with the "
		     "bootstrap confidence interval; sorted, largest on top. Fill and text give "
		     "the verdict; dashed lines mark the noise threshold."},
	{"ns-per-op", "Time per operation of every measured sample, per workload: box = "
		      "quartiles, thick bar = median, whiskers = 1.5 IQR, dots = the samples."},
	{"ns-per-event",
	 "Cost per traced event (added ns/op divided by events per op) of the cells "
	 "with a detectable overhead, and the kernel's own BPF run time per program "
	 "run where the tracer is BPF."},
	{"probe-types", "Every tracer ranked by what one event costs (the rate model's cost per "
			"event where a sweep fitted one), with its confidence interval, beside the "
			"published figures for the same probe type."},
	{"latency", "Per-operation latency of latency-mode cells, cumulative, tail-stretched; "
		    "points mark p50, p99 and p99.9."},
	{"timeline", "Every sample in run order: drift, warm-up (circled, not used) and the "
		     "interleaving of baseline and traced runs."},
	{"rate", "Overhead against event rate, with the least-squares line per tracer."},
	{"limits", "run --find-limit: the share of events lost against the rate offered at each "
		   "probe, a series per search (a tracer at one buffer size)."},
	{"compare", "Overhead per cell for each result set, with confidence intervals."},
};

/*
 * Why plot i of the plot directory d failed into why (its .failed record, or an empty SVG), or
 * false when it did not fail. Read through d: a link there is not followed.
 */
static bool plot_failed(const struct tb_dir *d, int i, char *why, size_t len)
{
	char name[NAME_MAX + 1], *text = NULL;
	struct stat st;
	size_t n;

	snprintf(name, sizeof(name), "%s%s", tb_plot_names[i], TB_PLOT_FAILED_EXT);
	if (!tb_dir_read(d, name, 4096, &text, &n)) {
		snprintf(why, len, "%.*s", (int)strcspn(text, "\n"), text);
		free(text);
		return true;
	}
	snprintf(name, sizeof(name), "%s.svg", tb_plot_names[i]);
	if (!fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
	    st.st_size == 0) {
		snprintf(why, len, "%s.svg is empty", tb_plot_names[i]);
		return true;
	}
	return false;
}

int tb_html_plots_section(FILE *f, const struct tb_dir *d, bool compare)
{
	struct stat st;
	int i, n = 0;
	size_t k;

	for (i = 0; tb_plot_names[i]; i++) {
		char name[NAME_MAX + 1], why[512];
		bool failed;

		if (compare != !strcmp(tb_plot_names[i], "compare"))
			continue;
		snprintf(name, sizeof(name), "%s.svg", tb_plot_names[i]);
		failed = plot_failed(d, i, why, sizeof(why));
		if (!failed && fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		fprintf(f, "<figure id=\"plot-%s\">\n", tb_plot_names[i]);
		if (failed) {
			fputs("<p class=\"note plot-failed\">plot failed: ", f);
			tb_fput_markup(f, why, strlen(why));
			fputs("</p>\n", f);
		} else if (tb_html_inline_svg(f, d, name, i)) {
			fputs("<p class=\"note\">This plot could not be included.</p>\n", f);
		}
		for (k = 0; k < TB_ARRAY_SIZE(captions); k++)
			if (!strcmp(captions[k].name, tb_plot_names[i]))
				fprintf(f, "<figcaption>%s</figcaption>\n", captions[k].caption);
		fputs("</figure>\n", f);
		n++;
	}
	/* The sweeps' plots: one image each (render/gnuplot/sweep.c). */
	for (i = 1; !compare && i <= TB_PLOT_MAX_SWEEPS; i++) {
		char name[NAME_MAX + 1];

		snprintf(name, sizeof(name), "sweep-%d.svg", i);
		if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		fprintf(f, "<figure id=\"plot-sweep-%d\">\n", i);
		if (tb_html_inline_svg(f, d, name, 100 + i))
			fputs("<p class=\"note\">This plot could not be included.</p>\n", f);
		fprintf(f,
			"<figcaption>Sweep %d: overhead ns/op against the swept value, 95%% CIs "
			"as error bars, and the fitted line when its model was accepted.</figcaption>\n</figure>\n",
			i);
		n++;
	}
	if (!compare && !fstatat(d->fd, TB_PLOT_SATURATION ".svg", &st, AT_SYMLINK_NOFOLLOW)) {
		fputs("<figure id=\"plot-saturation\">\n", f);
		if (tb_html_inline_svg(f, d, TB_PLOT_SATURATION ".svg",
				       100 + TB_PLOT_MAX_SWEEPS + 1))
			fputs("<p class=\"note\">This plot could not be included.</p>\n", f);
		fputs("<figcaption>Saturation: the share of events each tracer lost against the "
		      "event rate offered, a series per workload sweep (a tracer at one buffer "
		      "size).</figcaption>\n</figure>\n",
		      f);
		n++;
	}
	return n;
}

int tb_html_tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/tracebench-%d-report-XXXXXX", (int)getpid());
	return mkdtemp(dir) ? 0 : -errno;
}

void tb_html_plots(FILE *f, const struct tb_result *const *rs, size_t n, const struct tb_dir *plots,
		   bool compare)
{
	struct tb_dir drew = TB_DIR_INIT;
	char tmp[64] = "", dir[PATH_MAX];
	int ret = 0, drawn = 0;

	if (!plots) {
		if (tb_html_tmpdir(tmp, sizeof(tmp))) {
			fprintf(f, "<p class=\"note\">Plots are not included: cannot create a "
				   "temporary directory.</p>\n");
			return;
		}
		ret = compare ? tb_plot_compare(rs, NULL, n, tmp, TB_PLOT_NO_PNG)
			      : tb_plot_result(rs[0], tmp, TB_PLOT_NO_PNG);
		snprintf(dir, sizeof(dir), "%s/plots", tmp);
		/* Our private directory: a failed open is as if nothing was drawn. */
		tb_dir_open(&drew, dir, TB_DIR_PATH | TB_DIR_QUIET, 0);
		plots = &drew;
	}
	if (ret == -ENOENT) {
		fputs("<p class=\"note\">Plots are not included: gnuplot was not found on the "
		      "machine that wrote this report (install gnuplot, e.g. Debian's gnuplot-nox, "
		      "and run <code>tracebench report</code> again).</p>\n",
		      f);
	} else {
		if (plots->fd >= 0)
			drawn = tb_html_plots_section(f, plots, compare);
		if (ret < 0)
			fputs("<p class=\"note\">Some plots failed: each says why in its place "
			      "(gnuplot's messages were logged).</p>\n",
			      f);
		else if (!drawn)
			fputs("<p class=\"note\">No plots: the result has no data to plot.</p>\n",
			      f);
	}
	tb_dir_close(&drew);
	if (*tmp)
		tb_rm_rf(tmp);
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

static const char *const cpu_keys[] = {
	"cpu.model", "cpu.model_name", "cpu_model", "cpu.name", "cpu", NULL};
static const char *const fp_keys[] = {"fingerprint", "fingerprint.hash", "fingerprint.id", NULL};

const char *tb_html_fingerprint(const struct tb_result *r)
{
	return env_str(r->system, fp_keys);
}

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
	tb_html_esc(f, path);
	if (in_fingerprint(fields, path))
		fputs(" <small class=\"fp\">fingerprint</small>", f);
	fputs("</th><td>", f);
	if (json_is_string(v)) {
		tb_html_esc(f, json_string_value(v));
	} else {
		/* 0.94, not 0.93999999999999995 (jansson's default is 17 digits) */
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(6));

		tb_html_esc(f, s ? s : "?");
		free(s);
	}
	fputs("</td></tr>\n", f);
}

void tb_html_environment(FILE *f, const struct tb_result *r, const char *id)
{
	const char *host = tb_result_host(r), *k = tb_result_kernel(r);
	const char *cpu = env_str(r->system, cpu_keys), *fp = env_str(r->system, fp_keys);
	char path[1024] = "";
	int count = 0;

	fprintf(f, "<table id=\"%s\">\n", id);
	fputs("<tr><th>host</th><td>", f);
	tb_html_esc(f, host);
	fputs("</td></tr>\n<tr><th>kernel</th><td>", f);
	tb_html_esc(f, k ? k : "unknown");
	fputs("</td></tr>\n<tr><th>CPU</th><td>", f);
	tb_html_esc(f, cpu ? cpu : "unknown");
	fputs("</td></tr>\n<tr><th>fingerprint</th><td>", f);
	tb_html_esc(f, fp ? fp : "none recorded");
	fputs("</td></tr>\n<tr><th>tracebench</th><td>", f);
	tb_html_esc(f, r->tool_version ? r->tool_version : "unknown");
	fputs("</td></tr>\n</table>\n", f);
	if (!json_is_object(r->system) || !json_object_size(r->system)) {
		fputs("<p class=\"note\">The result records no environment.</p>\n", f);
		return;
	}
	/* About a hundred rows: collapsed, the summary above says what matters. */
	fputs("<details class=\"env\"><summary>Every recorded field (kernel, CPU and topology, "
	      "frequency, clocksource, mitigations, versions); those marked <small "
	      "class=\"fp\">fingerprint</small> decide whether two runs are comparable"
	      "</summary>\n<div class=\"scroll\"><table>\n",
	      f);
	env_leaves(f, r->system, path, sizeof(path), &count,
		   json_object_get(r->system, "fingerprint_fields"));
	fputs("</table></div>\n</details>\n", f);
	if (count >= MAX_ENV_LEAVES)
		fprintf(f, "<p class=\"note\">Only the first %d fields are shown.</p>\n",
			MAX_ENV_LEAVES);
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
	tb_html_esc(f, buf);
	fputs("</li>\n", f);
}

void tb_html_warnings(FILE *f, const struct tb_result *r)
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
	if (json_is_array(r->unsupported)) {
		json_array_foreach(r->unsupported, i, v)
		{
			li(f, "note", "Left out: %s",
			   json_is_string(v) ? json_string_value(v) : "?");
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
		    (c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY ||
		     c->overhead.verdict == TB_VERDICT_FASTER)) {
			li(f, "note", "%s / %s is %s: %s", c->workload, c->tracer,
			   c->overhead.verdict == TB_VERDICT_FASTER ? "faster than its baseline"
								    : "untrustworthy",
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

/* ---- table cells ------------------------------------------------------------------------------ */

void tb_html_text_td(FILE *f, const char *s, bool num)
{
	fputs(num ? "<td class=\"n\">" : "<td>", f);
	if (s && *s)
		tb_html_esc(f, s);
	else
		fputs("&ndash;", f);
	fputs("</td>", f);
}

void tb_html_num(FILE *f, double v, const char *fmt)
{
	fputs("<td class=\"n\">", f);
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fputs("&ndash;", f);
	fputs("</td>", f);
}

const char *tb_html_verdict_class(enum tb_verdict v)
{
	switch (v) {
	case TB_VERDICT_OVERHEAD:
		return "v-overhead";
	case TB_VERDICT_NO_OVERHEAD:
		return "v-none";
	case TB_VERDICT_UNTRUSTWORTHY:
	case TB_VERDICT_FASTER:
		return "v-untr";
	default:
		return "";
	}
}

void tb_html_overhead_td(FILE *f, const struct tb_cell *c)
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

void tb_html_verdict_td(FILE *f, const struct tb_cell *c)
{
	if (c->error) {
		fputs("<td class=\"v-fail\"><b>failed</b><span class=\"reason\">", f);
		tb_html_esc(f, c->error);
		fputs("</span></td>", f);
	} else if (c->baseline) {
		fputs("<td>baseline</td>", f);
	} else if (!c->has_overhead || !c->overhead.verdict) {
		fputs("<td>not analysed</td>", f);
	} else {
		fprintf(f, "<td class=\"%s\"><b>", tb_html_verdict_class(c->overhead.verdict));
		tb_html_esc(f, tb_verdict_name(c->overhead.verdict));
		fputs("</b>", f);
		if (c->proof.outcome == TB_PROOF_CONTROL)
			fputs(" (control)", f);
		if (*c->overhead.reason) {
			fputs("<span class=\"reason\">", f);
			tb_html_esc(f, c->overhead.reason);
			fputs("</span>", f);
		}
		fputs("</td>", f);
	}
}

void tb_html_cost_td(FILE *f, const struct tb_cell *c)
{
	const struct tb_overhead *o = &c->overhead;
	char buf[48], per[48];
	const char *title;

	if (c->baseline || !c->has_overhead) {
		fputs("<td class=\"n\">&ndash;</td>", f);
		return;
	}
	/* what the figure is, or why there is none, on hover */
	if (tb_proof_cost_shown(c, &title)) {
		snprintf(per, sizeof(per), "ns per %s", o->driver);
		title = o->driver[0] ? per : o->nse_reason;
	}
	fputs("<td class=\"n\"", f);
	if (*title) {
		fputs(" title=\"", f);
		tb_html_esc(f, title);
		fputs("\"", f);
	}
	fputs(">", f);
	tb_fmt_cost(buf, sizeof(buf), c);
	tb_html_esc(f, strcmp(buf, "-") ? buf : "\u2013");
	fputs("</td>", f);
}

void tb_html_median_td(FILE *f, const struct tb_cell *c)
{
	tb_html_num(f, c && c->summary.n > 0 ? c->summary.median : NAN, "%.1f");
}
