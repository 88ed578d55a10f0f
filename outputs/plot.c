// SPDX-License-Identifier: GPL-2.0
/*
 * Plots: write each plot's data as tab-separated files, then run plots/<name>.gp through
 * gnuplot once per output format. The scripts only draw; every number (quartiles, sort order,
 * fits, axis ranges) is computed here so that the data files can be checked by tests.
 */
#include <errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outputs/plot.h"
#include "outputs/text.h"
#include "core/proc.h"
#include "result/result.h"
#include "core/tb.h"

const char *const tb_plot_names[] = {
	"overhead", "ns-per-op", "ns-per-event", "latency", "timeline", "rate", "compare", NULL,
};

/* One plotting session: where data and images go, and what draws them. */
struct gp {
	char plotdir[PATH_MAX];
	char datadir[PATH_MAX];
	char scripts[PATH_MAX];
	char gnuplot[PATH_MAX];
	unsigned int flags;
	const char *host;
	const char *scenario;
	char hostbuf[64], scenbuf[64];
};

/* A growing string for the variables passed with gnuplot -e. */
struct vars {
	char *buf;
	size_t len;
	FILE *f;
};

const char *tb_result_host(const struct tb_result *r)
{
	json_t *h = r && r->system ? json_object_get(r->system, "hostname") : NULL;

	return json_is_string(h) && *json_string_value(h) ? json_string_value(h) : "unknown host";
}

int tb_plot_find_gnuplot(char *path, size_t len)
{
	const char *env = getenv("TB_GNUPLOT");

	return tb_proc_which(env && *env ? env : "gnuplot", path, len) ? -ENOENT : 0;
}

static bool has_scripts(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/common.gp", dir);
	return access(p, R_OK) == 0;
}

int tb_plot_find_scripts(char *dir, size_t len)
{
	const char *env = getenv("TB_PLOTS_DIR");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		snprintf(dir, len, "%s", env);
		return has_scripts(dir) ? 0 : -ENOENT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			snprintf(dir, len, "%s/plots", exe);
			if (has_scripts(dir))
				return 0;
			/* build/run-tests: the source tree is the parent */
			snprintf(dir, len, "%s/../plots", exe);
			if (has_scripts(dir))
				return 0;
		}
	}
	snprintf(dir, len, "%s/plots", TB_DATADIR);
	return has_scripts(dir) ? 0 : -ENOENT;
}

/* ---- data files ------------------------------------------------------------------------- */

/* A string as one tab-separated field gnuplot reads back whole: no tabs, newlines or '"'. */
static void put_s(FILE *f, const char *s)
{
	if (!s || !*s) {
		fputs("-", f);
		return;
	}
	for (; *s; s++) {
		if (*s == '\t' || *s == '\n' || *s == '\r')
			fputc(' ', f);
		else if (*s == '"')
			fputc('\'', f);
		else
			fputc(*s, f);
	}
}

static void put_d(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.6g", v);
	else
		fputs("NaN", f);
}

static FILE *dat_open(struct gp *g, const char *name, const char *what, const char *cols)
{
	char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.dat", g->datadir, name);
	f = fopen(path, "w");
	if (!f) {
		tb_err("plot: cannot write %s: %s", path, strerror(errno));
		return NULL;
	}
	fprintf(f, "# tracebench %s: %s\n# %s\n", name, what, cols);
	return f;
}

static int dat_close(struct gp *g, FILE *f, const char *name)
{
	if (ferror(f) | fclose(f)) {
		tb_err("plot: writing %s/%s.dat failed: %s", g->datadir, name, strerror(EIO));
		return -EIO;
	}
	return 0;
}

/* ---- gnuplot variables and runs ---------------------------------------------------------- */

static int vars_open(struct vars *v)
{
	v->buf = NULL;
	v->len = 0;
	v->f = open_memstream(&v->buf, &v->len);
	return v->f ? 0 : -ENOMEM;
}

static void vars_free(struct vars *v)
{
	if (v->f)
		fclose(v->f);
	v->f = NULL;
	free(v->buf);
	v->buf = NULL;
}

/* 'value' with gnuplot's single-quote rule ('' is a quote) and no newlines. */
static void gp_quote(FILE *f, const char *val)
{
	fputc('\'', f);
	for (; val && *val; val++) {
		if (*val == '\'')
			fputs("''", f);
		else if (*val == '\n' || *val == '\r' || *val == '\t')
			fputc(' ', f);
		else
			fputc(*val, f);
	}
	fputc('\'', f);
}

/* name='value'; */
static void var_s(struct vars *v, const char *name, const char *val)
{
	fprintf(v->f, "%s=", name);
	gp_quote(v->f, val);
	fputs("; ", v->f);
}

static void var_d(struct vars *v, const char *name, double val)
{
	fprintf(v->f, "%s=%.9g; ", name, isfinite(val) ? val : 0.0);
}

static void var_si(struct vars *v, const char *fmt, int i, const char *val)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, i);
	var_s(v, name, val);
}

static void var_di(struct vars *v, const char *fmt, int i, double val)
{
	char name[32];

	snprintf(name, sizeof(name), fmt, i);
	var_d(v, name, val);
}

/* Read everything a child writes (bounded) until EOF. */
static char *slurp_fd(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t r;

	if (!buf)
		return NULL;
	for (;;) {
		if (n == cap) {
			if (cap >= (1u << 20)) {
				char sink[4096];

				while (read(fd, sink, sizeof(sink)) > 0)
					;
				break;
			}
			nb = realloc(buf, cap * 2 + 1);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * gnuplot -e "vars" script. A result with thousands of cells can exceed the kernel's limit on
 * one argument (128 KiB), so long variable lists go through a file that -e loads.
 */
static int spawn_gnuplot(struct gp *g, const char *name, struct vars *all, const char *script,
			 struct tb_proc *p)
{
	const char *env = getenv("TB_GNUPLOT_ARG_MAX"); /* tests lower it */
	size_t max = env && atol(env) > 0 ? (size_t)atol(env) : 64 * 1024;
	char path[PATH_MAX + 64];
	int ret;

	if (all->len < max) {
		char *argv[] = {g->gnuplot, "-e", all->buf, (char *)script, NULL};

		return tb_proc_spawn(p, argv, NULL, TB_PROC_CAPTURE);
	}
	snprintf(path, sizeof(path), "%s/%s-vars.gp", g->datadir, name);
	ret = tb_write_atomic(path, all->buf, all->len, 0644);
	if (ret)
		return ret;
	{
		struct vars l;
		char *argv[] = {g->gnuplot, "-e", NULL, (char *)script, NULL};

		if (vars_open(&l))
			return -ENOMEM;
		fputs("load ", l.f);
		gp_quote(l.f, path);
		if (fflush(l.f)) {
			vars_free(&l);
			return -ENOMEM;
		}
		argv[2] = l.buf;
		ret = tb_proc_spawn(p, argv, NULL, TB_PROC_CAPTURE);
		vars_free(&l);
		return ret;
	}
}

/* Run plots/<name>.gp for each wanted format. Returns 0, -EIO. */
static int run_script(struct gp *g, const char *name, struct vars *v, int w, int h)
{
	static const char *const fmts[] = {"png", "svg"};
	char script[PATH_MAX + 64], out[PATH_MAX + 64], status[128];
	struct tb_proc p;
	int ret = 0, i, err;

	if (g->flags & TB_PLOT_DATA_ONLY)
		return 0;
	if (fflush(v->f))
		return -ENOMEM;
	snprintf(script, sizeof(script), "%s/%s.gp", g->scripts, name);
	for (i = 0; i < 2 && !ret; i++) {
		struct vars all;
		char *msg = NULL;

		if ((i == 0 && (g->flags & TB_PLOT_NO_PNG)) ||
		    (i == 1 && (g->flags & TB_PLOT_NO_SVG)))
			continue;
		if (vars_open(&all))
			return -ENOMEM;
		snprintf(out, sizeof(out), "%s/%s.%s", g->plotdir, name, fmts[i]);
		var_s(&all, "plotsdir", g->scripts);
		var_s(&all, "fmt", fmts[i]);
		var_s(&all, "outfile", out);
		var_d(&all, "w", w);
		var_d(&all, "h", h);
		var_s(&all, "host", g->host);
		fwrite(v->buf, 1, v->len, all.f);
		if (fflush(all.f)) {
			vars_free(&all);
			return -ENOMEM;
		}
		err = spawn_gnuplot(g, name, &all, script, &p);
		vars_free(&all);
		if (err) {
			tb_err("plot: cannot run %s: %s", g->gnuplot, strerror(-err));
			return err;
		}
		msg = slurp_fd(p.out_fd);
		tb_proc_wait(&p, 0);
		if (!WIFEXITED(p.status) || WEXITSTATUS(p.status)) {
			tb_err("plot: gnuplot %s (%s) %s: %s", script, fmts[i],
			       tb_proc_status_str(p.status, status, sizeof(status)),
			       msg && *msg ? msg : "no output");
			ret = -EIO;
		} else if (msg && *msg) {
			if (g->flags & TB_PLOT_STRICT) {
				tb_err("plot: gnuplot %s (%s) warned: %s", script, fmts[i], msg);
				ret = -EIO;
			} else {
				tb_warn("plot: gnuplot %s (%s): %s", script, fmts[i], msg);
			}
		}
		free(msg);
		tb_proc_release(&p);
	}
	return ret;
}

/* ---- shared helpers ------------------------------------------------------------------------ */

/* Distinct workload names in order of first appearance. Returns the count; *out is freed by
 * the caller (the strings belong to r). */
static size_t workloads_of(const struct tb_result *r, const char ***out)
{
	const char **w = calloc(r->ncells ? r->ncells : 1, sizeof(*w));
	size_t n = 0, i, j;

	*out = w;
	if (!w)
		return 0;
	for (i = 0; i < r->ncells; i++) {
		for (j = 0; j < n; j++)
			if (!strcmp(w[j], r->cells[i].workload))
				break;
		if (j == n)
			w[n++] = r->cells[i].workload;
	}
	return n;
}

/* The cells of workload wl, baseline first, into idx (r->ncells entries). Returns the count. */
static size_t cells_of(const struct tb_result *r, const char *wl, size_t *idx)
{
	size_t n = 0, i, pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < r->ncells; i++)
			if (!strcmp(r->cells[i].workload, wl) && r->cells[i].baseline == !pass)
				idx[n++] = i;
	return n;
}

static bool measured(const struct tb_sample *s)
{
	return !s->warmup && !s->failed && isfinite(s->ns_per_op);
}

#define NAME_MAX_CHARS 40 /* longer names are cut in plots (the report has them whole) */

static const char *cell_label(const struct tb_cell *c, char *buf, size_t len)
{
	char s[NAME_MAX_CHARS + 8];

	snprintf(buf, len, "%s%s", tb_shorten(s, sizeof(s), c->tracer, NAME_MAX_CHARS),
		 c->baseline ? " (baseline)" : "");
	return buf;
}

/* "workload / tracer", each cut to NAME_MAX_CHARS. */
static const char *row_label(const struct tb_cell *c, char *buf, size_t len)
{
	char a[NAME_MAX_CHARS + 8], b[NAME_MAX_CHARS + 8];

	snprintf(buf, len, "%s / %s", tb_shorten(a, sizeof(a), c->workload, NAME_MAX_CHARS),
		 tb_shorten(b, sizeof(b), c->tracer, NAME_MAX_CHARS));
	return buf;
}

static void main_title(struct vars *v, struct gp *g, const char *what)
{
	char t[512];

	snprintf(t, sizeof(t), "%s - %s on %s", what, g->scenario, g->host);
	var_s(v, "title", t);
}

static void panel_title(struct vars *v, struct gp *g, int i, const struct tb_result *r,
			const char *wl)
{
	const char *type = NULL;
	char t[512], s[NAME_MAX_CHARS + 8], s2[NAME_MAX_CHARS + 8];
	size_t k;

	for (k = 0; k < r->ncells; k++)
		if (!strcmp(r->cells[k].workload, wl) && r->cells[k].workload_type)
			type = r->cells[k].workload_type;
	if (type && strcmp(type, wl))
		snprintf(t, sizeof(t), "workload %s (%s), host %s",
			 tb_shorten(s, sizeof(s), wl, NAME_MAX_CHARS),
			 tb_shorten(s2, sizeof(s2), type, NAME_MAX_CHARS), g->host);
	else
		snprintf(t, sizeof(t), "workload %s, host %s",
			 tb_shorten(s, sizeof(s), wl, NAME_MAX_CHARS), g->host);
	var_si(v, "t%d", i, t);
}

/* ---- ns-per-op ----------------------------------------------------------------------------- */

static int plot_ns_per_op(struct gp *g, const struct tb_result *r)
{
	FILE *fb = NULL, *fs = NULL;
	const char **wls = NULL;
	size_t nw, w, i, k, nidx, npanels = 0;
	int maxbox = 0;
	size_t *idx = calloc(r->ncells + 1, sizeof(*idx));
	double *x = calloc(TB_RESULT_MAX_SAMPLES, sizeof(*x));
	struct vars v = {0};
	int ret = 0;

	nw = workloads_of(r, &wls);
	if (!idx || !x || !wls || vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	fb = dat_open(g, "ns-per-op", "per workload (block), per cell: box plot of measured ns/op",
		      "workload\tlabel\tx\tn\tmin\tq1\tmedian\tq3\tmax\twhisker_lo\twhisker_hi\t"
		      "median_text");
	fs = dat_open(g, "ns-per-op-samples", "per workload (block): every measured sample",
		      "workload\ttracer\tx\tx_jittered\tns_per_op\tsample");
	if (!fb || !fs) {
		ret = -EIO;
		goto out;
	}
	for (w = 0; w < nw; w++) {
		int xpos = 0;

		nidx = cells_of(r, wls[w], idx);
		for (i = 0; i < nidx; i++) {
			const struct tb_cell *c = &r->cells[idx[i]];
			double q1, q3, med, iqr, wlo, whi;
			char lbl[300], mt[32];
			size_t n = 0;

			for (k = 0; k < c->nsamples && n < TB_RESULT_MAX_SAMPLES; k++)
				if (measured(&c->samples[k]))
					x[n++] = c->samples[k].ns_per_op;
			if (!n)
				continue;
			if (!xpos && npanels)
				fputs("\n\n", fb), fputs("\n\n", fs);
			gsl_sort(x, 1, n);
			q1 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
			med = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.5);
			q3 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
			iqr = q3 - q1;
			wlo = x[0];
			whi = x[n - 1];
			for (k = 0; k < n; k++)
				if (x[k] >= q1 - 1.5 * iqr) {
					wlo = x[k];
					break;
				}
			for (k = n; k-- > 0;)
				if (x[k] <= q3 + 1.5 * iqr) {
					whi = x[k];
					break;
				}
			put_s(fb, c->workload);
			fputc('\t', fb);
			put_s(fb, cell_label(c, lbl, sizeof(lbl)));
			fprintf(fb, "\t%d\t%zu", xpos, n);
			for (k = 0; k < 7; k++) {
				double col[] = {x[0], q1, med, q3, x[n - 1], wlo, whi};

				fputc('\t', fb);
				put_d(fb, col[k]);
			}
			fprintf(fb, "\t%s\n", tb_fmt_ns(mt, sizeof(mt), med));
			/* Deterministic jitter (golden-ratio sequence) within +-0.18 of the box. */
			n = 0;
			for (k = 0; k < c->nsamples; k++) {
				const struct tb_sample *s = &c->samples[k];
				double j = fmod((double)n * 0.6180339887, 1.0) - 0.5;

				if (!measured(s))
					continue;
				put_s(fs, c->workload);
				fputc('\t', fs);
				put_s(fs, c->tracer);
				fprintf(fs, "\t%d\t%.4f\t", xpos, xpos + 0.36 * j);
				put_d(fs, s->ns_per_op);
				fprintf(fs, "\t%zu\n", k);
				n++;
			}
			xpos++;
		}
		if (xpos > maxbox)
			maxbox = xpos;
		if (xpos) {
			panel_title(&v, g, (int)npanels, r, wls[w]);
			npanels++;
		}
	}
	if ((ret = dat_close(g, fb, "ns-per-op")) | dat_close(g, fs, "ns-per-op-samples")) {
		fb = fs = NULL;
		ret = -EIO;
		goto out;
	}
	fb = fs = NULL;
	if (!npanels)
		goto out;
	{
		char p[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/ns-per-op.dat", g->datadir);
		var_s(&v, "datafile", p);
		snprintf(p, sizeof(p), "%s/ns-per-op-samples.dat", g->datadir);
		var_s(&v, "samplefile", p);
	}
	var_d(&v, "nw", (double)npanels);
	var_d(&v, "ncol", npanels > 2 ? 2 : 1);
	var_d(&v, "rot", maxbox > (npanels > 2 ? 4 : 7)); /* slanted tracer names when crowded */
	main_title(&v, g, "Time per operation, baseline and each tracer");
	ret = run_script(g, "ns-per-op", &v, npanels > 2 ? 1400 : 1000,
			 90 + 330 * (int)((npanels + (npanels > 2)) / (npanels > 2 ? 2 : 1)));
	if (!ret)
		ret = 1;
out:
	if (fb)
		fclose(fb);
	if (fs)
		fclose(fs);
	vars_free(&v);
	free(wls);
	free(idx);
	free(x);
	return ret;
}

/* ---- overhead ------------------------------------------------------------------------------ */

static const struct tb_result *sort_r;

static int by_pct_desc(const void *a, const void *b)
{
	double x = sort_r->cells[*(const size_t *)a].overhead.pct;
	double y = sort_r->cells[*(const size_t *)b].overhead.pct;

	return x < y   ? 1
	       : x > y ? -1
		       : (*(const size_t *)a > *(const size_t *)b) -
				 (*(const size_t *)a < *(const size_t *)b);
}

static int by_nse_desc(const void *a, const void *b)
{
	double x = sort_r->cells[*(const size_t *)a].overhead.ns_per_event;
	double y = sort_r->cells[*(const size_t *)b].overhead.ns_per_event;

	return x < y   ? 1
	       : x > y ? -1
		       : (*(const size_t *)a > *(const size_t *)b) -
				 (*(const size_t *)a < *(const size_t *)b);
}

static int verdict_code(enum tb_verdict v)
{
	switch (v) {
	case TB_VERDICT_OVERHEAD:
		return 0;
	case TB_VERDICT_NO_OVERHEAD:
		return 1;
	case TB_VERDICT_UNTRUSTWORTHY:
		return 2;
	default:
		return 3;
	}
}

static const char *verdict_text(enum tb_verdict v)
{
	switch (v) {
	case TB_VERDICT_OVERHEAD:
		return "overhead";
	case TB_VERDICT_NO_OVERHEAD:
		return "not detectable";
	case TB_VERDICT_UNTRUSTWORTHY:
		return "untrustworthy";
	default:
		return "not analysed";
	}
}

static double fmax3(double a, double b, double c)
{
	double m = a;

	if (isfinite(b) && b > m)
		m = b;
	if (isfinite(c) && c > m)
		m = c;
	return m;
}

static double fmin3(double a, double b, double c)
{
	double m = a;

	if (isfinite(b) && b < m)
		m = b;
	if (isfinite(c) && c < m)
		m = c;
	return m;
}

/*
 * Horizontal bar charts put each value's text right of its bar; gnuplot does not make room
 * for such labels, so size the axis here. A label of len characters starting at x (axis
 * units) must end inside the plot area, which is about plot_px pixels wide; the labels' font
 * is about 7 px per character. Returns the smallest xmax (>= xmax0) that fits every label.
 */
struct text_room {
	double xmin, xmax, plot_px;
	bool logx;
};

static void room_for(struct text_room *tr, double x, size_t len)
{
	double frac = 1.0 - ((double)len * 7.0 + 16.0) / tr->plot_px, need;

	if (!isfinite(x))
		return;
	if (frac < 0.25)
		frac = 0.25;
	if (tr->logx) {
		if (!(x > 0) || !(tr->xmin > 0))
			return;
		need = exp(log(tr->xmin) + (log(x) - log(tr->xmin)) / frac);
	} else {
		need = tr->xmin + (x - tr->xmin) / frac;
	}
	if (need > tr->xmax)
		tr->xmax = need;
}

/* Pixels left for the plot area of a w-pixel-wide bar chart whose row labels are up to
 * label_chars long (the y tic labels at about 7 px a character, plus margins). */
static double plot_width_px(int w, size_t label_chars)
{
	double px = w - (double)label_chars * 7.5 - 60.0;

	return px < 200 ? 200 : px;
}

static int plot_overhead(struct gp *g, const struct tb_result *r)
{
	size_t *idx = calloc(r->ncells + 1, sizeof(*idx)), n = 0, i, maxlbl = 0;
	double lo = 0, hi = 0, thr = 100.0 * (r->noise_threshold > 0 ? r->noise_threshold : 0.01);
	double *tx = calloc(r->ncells + 1, sizeof(*tx));
	size_t *tlen = calloc(r->ncells + 1, sizeof(*tlen));
	struct text_room room;
	int nv[4] = {0}, ret = 0;
	struct vars v = {0};
	char p[PATH_MAX + 64];
	FILE *f = NULL;

	if (!idx || !tx || !tlen || vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->ncells; i++)
		if (!r->cells[i].baseline && r->cells[i].has_overhead &&
		    isfinite(r->cells[i].overhead.pct))
			idx[n++] = i;
	sort_r = r;
	qsort(idx, n, sizeof(*idx), by_pct_desc);
	f = dat_open(
		g, "overhead", "one row per traced cell, sorted by overhead (largest first)",
		"row\tworkload\ttracer\tlabel\tpct\tci_lo\tci_hi\tverdict\tverdict_code\ttext\t"
		"text_x");
	if (!f) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct tb_overhead *o = &r->cells[idx[i]].overhead;

		hi = fmax3(hi, o->pct, o->ci_hi);
		lo = fmin3(lo, o->pct, o->ci_lo);
	}
	if (hi < thr)
		hi = thr;
	if (lo > -thr)
		lo = -thr;
	for (i = 0; i < n; i++) {
		const struct tb_cell *c = &r->cells[idx[i]];
		const struct tb_overhead *o = &c->overhead;
		char lbl[600], text[400];
		int vc = verdict_code(o->verdict);

		nv[vc]++;
		if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
			snprintf(text, sizeof(text), "%+.1f%% [%+.1f, %+.1f] %s", o->pct, o->ci_lo,
				 o->ci_hi, verdict_text(o->verdict));
		else
			snprintf(text, sizeof(text), "%+.1f%% %s", o->pct,
				 verdict_text(o->verdict));
		row_label(c, lbl, sizeof(lbl));
		fprintf(f, "%zu\t", i);
		put_s(f, c->workload);
		fputc('\t', f);
		put_s(f, c->tracer);
		fputc('\t', f);
		put_s(f, lbl);
		fputc('\t', f);
		put_d(f, o->pct);
		fputc('\t', f);
		put_d(f, o->ci_lo);
		fputc('\t', f);
		put_d(f, o->ci_hi);
		fprintf(f, "\t%s\t%d\t", o->verdict ? tb_verdict_name(o->verdict) : "-", vc);
		put_s(f, text);
		fputc('\t', f);
		tx[i] = fmax3(0, o->pct, o->ci_hi);
		tlen[i] = strlen(text);
		if (strlen(lbl) > maxlbl)
			maxlbl = strlen(lbl);
		put_d(f, tx[i]);
		fputc('\n', f);
	}
	ret = dat_close(g, f, "overhead");
	f = NULL;
	if (ret || !n)
		goto out;
	snprintf(p, sizeof(p), "%s/overhead.dat", g->datadir);
	var_s(&v, "datafile", p);
	var_d(&v, "n", (double)n);
	var_d(&v, "thr", thr);
	var_d(&v, "conf", 100.0 * (r->confidence > 0 ? r->confidence : 0.95));
	/* Room on the right for the value text beside each bar. */
	room.xmin = lo - 0.04 * (hi - lo);
	room.xmax = hi + 0.05 * (hi - lo);
	room.plot_px = plot_width_px(1000, maxlbl);
	room.logx = false;
	for (i = 0; i < n; i++)
		room_for(&room, tx[i], tlen[i]);
	var_d(&v, "xmin", room.xmin);
	var_d(&v, "xmax", room.xmax);
	var_d(&v, "n0", nv[0]);
	var_d(&v, "n1", nv[1]);
	var_d(&v, "n2", nv[2]);
	main_title(&v, g, "Overhead of each tracer");
	ret = run_script(g, "overhead", &v, 1000, 200 + 34 * (int)n);
	if (!ret)
		ret = 1;
out:
	if (f)
		fclose(f);
	vars_free(&v);
	free(idx);
	free(tx);
	free(tlen);
	return ret;
}

/* ---- ns-per-event -------------------------------------------------------------------------- */

static int plot_ns_per_event(struct gp *g, const struct tb_result *r)
{
	size_t *idx = calloc(r->ncells + 1, sizeof(*idx)), n = 0, i, maxlbl = 0;
	double hi = 0, lo = INFINITY, neg = 0, x0;
	struct text_room room;
	struct vars v = {0};
	char p[PATH_MAX + 64];
	int ret = 0, nbpf = 0;
	bool logx;
	FILE *f = NULL;

	if (!idx || vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->ncells; i++)
		if (!r->cells[i].baseline && r->cells[i].has_overhead &&
		    isfinite(r->cells[i].overhead.ns_per_event))
			idx[n++] = i;
	sort_r = r;
	qsort(idx, n, sizeof(*idx), by_nse_desc);
	f = dat_open(g, "ns-per-event", "one row per traced cell with events, largest first",
		     "row\tworkload\ttracer\tlabel\tns_per_event\tci_lo\tci_hi\tbpf_ns_per_run\t"
		     "text\ttext_x\tbpf_text\tbpf_text_x");
	if (!f) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct tb_overhead *o = &r->cells[idx[i]].overhead;

		hi = fmax3(hi, o->ns_per_event, o->nse_ci_hi);
		hi = fmax3(hi, o->bpf_ns_per_run, NAN);
		neg = fmin3(neg, o->ns_per_event, o->nse_ci_lo);
		if (o->ns_per_event > 0)
			lo = fmin(lo, o->ns_per_event);
		if (o->bpf_ns_per_run > 0)
			lo = fmin(lo, o->bpf_ns_per_run);
	}
	/*
	 * A sampling tracer's cost per sample can dwarf a tracepoint's per event: log scale. A
	 * noisy cell can come out below its baseline (negative): on a log scale it gets no bar,
	 * only its text at the left edge.
	 */
	logx = n && isfinite(lo) && hi / lo > 30;
	x0 = logx ? pow(10, floor(log10(lo / 2))) : 0;
	room.logx = logx;
	room.xmin = logx ? x0 : neg - 0.04 * (hi - neg);
	room.xmax = logx ? hi * 1.5 : (hi > 0 ? hi * 1.05 : 1);
	for (i = 0; i < n; i++) {
		const struct tb_cell *c = &r->cells[idx[i]];
		const struct tb_overhead *o = &c->overhead;
		char lbl[600], t1[96], t2[64], a[32];
		bool bpf = isfinite(o->bpf_ns_per_run);
		double tx = fmax3(0, o->ns_per_event, o->nse_ci_hi);

		nbpf += bpf;
		row_label(c, lbl, sizeof(lbl));
		if (strlen(lbl) > maxlbl)
			maxlbl = strlen(lbl);
		if (logx && !(o->ns_per_event > 0)) {
			snprintf(t1, sizeof(t1), "%s/event (not above the baseline)",
				 tb_fmt_ns(a, sizeof(a), o->ns_per_event));
			tx = x0 * 1.05; /* inside the axis: a label on its edge is clipped */
		} else {
			snprintf(t1, sizeof(t1), "%s/event",
				 tb_fmt_ns(a, sizeof(a), o->ns_per_event));
		}
		snprintf(t2, sizeof(t2), "%s/run (BPF)",
			 tb_fmt_ns(a, sizeof(a), o->bpf_ns_per_run));
		fprintf(f, "%zu\t", i);
		put_s(f, c->workload);
		fputc('\t', f);
		put_s(f, c->tracer);
		fputc('\t', f);
		put_s(f, lbl);
		fputc('\t', f);
		put_d(f, o->ns_per_event);
		fputc('\t', f);
		put_d(f, o->nse_ci_lo);
		fputc('\t', f);
		put_d(f, o->nse_ci_hi);
		fputc('\t', f);
		put_d(f, o->bpf_ns_per_run);
		fprintf(f, "\t%s\t", t1);
		put_d(f, tx);
		fprintf(f, "\t%s\t", bpf ? t2 : "");
		put_d(f, bpf ? o->bpf_ns_per_run : NAN);
		fputc('\n', f);
		room.plot_px = plot_width_px(1000, maxlbl);
		room_for(&room, tx, strlen(t1));
		if (bpf)
			room_for(&room, o->bpf_ns_per_run, strlen(t2));
	}
	ret = dat_close(g, f, "ns-per-event");
	f = NULL;
	if (ret || !n)
		goto out;
	/* Labels seen later widen the y tics: check every text against the final width. */
	room.plot_px = plot_width_px(1000, maxlbl);
	snprintf(p, sizeof(p), "%s/ns-per-event.dat", g->datadir);
	var_s(&v, "datafile", p);
	var_d(&v, "n", (double)n);
	var_d(&v, "nbpf", nbpf);
	var_d(&v, "x0", x0);
	var_d(&v, "xmin", room.xmin);
	var_d(&v, "xmax", room.xmax * (logx ? 1.3 : 1.03));
	var_d(&v, "logx", logx);
	main_title(&v, g, "Cost per traced event");
	ret = run_script(g, "ns-per-event", &v, 1000, 200 + (nbpf ? 48 : 34) * (int)n);
	if (!ret)
		ret = 1;
out:
	if (f)
		fclose(f);
	vars_free(&v);
	free(idx);
	return ret;
}

/* ---- latency ------------------------------------------------------------------------------- */

/* y of the tail-stretched CDF axis: -log10(1 - F), capped at 5 (99.999%). */
static double tail_y(double frac)
{
	double q = 1.0 - frac;

	return q < 1e-5 ? 5.0 : -log10(q);
}

static int plot_latency(struct gp *g, const struct tb_result *r)
{
	FILE *fc = NULL, *fm = NULL;
	const char **wls = NULL;
	size_t *idx = calloc(r->ncells + 1, sizeof(*idx)), nw, w, i, k, nidx;
	int ret = 0, block = 0, npanels = 0;
	struct vars v = {0};
	char p[PATH_MAX + 64];
	double ymax = 3.3;

	nw = workloads_of(r, &wls);
	if (!idx || !wls || vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	fc = dat_open(g, "latency", "per latency-mode cell (block): cumulative distribution",
		      "latency_ns\ttail_y (-log10(1-F))\tfraction F");
	fm = dat_open(g, "latency-marks", "per latency-mode cell (block): p50, p99, p99.9",
		      "latency_ns\ttail_y\tlabel");
	if (!fc || !fm) {
		ret = -EIO;
		goto out;
	}
	for (w = 0; w < nw; w++) {
		int first = block, style = 2;

		nidx = cells_of(r, wls[w], idx);
		for (i = 0; i < nidx; i++) {
			const struct tb_cell *c = &r->cells[idx[i]];
			const struct tb_latency *l = &c->latency;
			double pv[3] = {l->p50, l->p99, l->p999}, py[3] = {0.30103, 2, 3};
			static const char *const pn[3] = {"p50", "p99", "p99.9"};
			char title[600], a[3][32], sn[NAME_MAX_CHARS + 8];
			uint64_t total = 0, cum = 0;

			if (!l->present || !l->nbuckets || !l->bucket_ns || !l->bucket_count)
				continue;
			for (k = 0; k < l->nbuckets; k++)
				total += l->bucket_count[k];
			if (!total)
				continue;
			if (block)
				fputs("\n\n", fc), fputs("\n\n", fm);
			fprintf(fc, "# %s\n", c->id ? c->id : "");
			/*
			 * Points (upper bound, fraction at or below) joined by straight lines:
			 * values spread evenly within a bucket, as the histogram's percentiles
			 * assume. The curve starts at 0 one bucket width below the first bound.
			 */
			if (l->nbuckets > 1 && l->bucket_ns[1] > l->bucket_ns[0] &&
			    2 * l->bucket_ns[0] - l->bucket_ns[1] > 0)
				fprintf(fc, "%.6g\t0\t0\n", 2 * l->bucket_ns[0] - l->bucket_ns[1]);
			for (k = 0; k < l->nbuckets; k++) {
				double y;

				cum += l->bucket_count[k];
				if (!(l->bucket_ns[k] > 0))
					continue;
				y = tail_y((double)cum / (double)total);
				if (y + 0.3 > ymax)
					ymax = y + 0.3;
				fprintf(fc, "%.6g\t%.6g\t%.9g\n", l->bucket_ns[k], y,
					(double)cum / (double)total);
			}
			for (k = 0; k < 3; k++)
				if (isfinite(pv[k]) && pv[k] > 0)
					fprintf(fm, "%.6g\t%.6g\t%s\n", pv[k], py[k], pn[k]);
				else
					fprintf(fm, "NaN\t%.6g\t%s\n", py[k], pn[k]);
			snprintf(title, sizeof(title), "%s: p50 %s, p99 %s, p99.9 %s",
				 c->baseline
					 ? "baseline"
					 : tb_shorten(sn, sizeof(sn), c->tracer, NAME_MAX_CHARS),
				 tb_fmt_ns(a[0], 32, l->p50), tb_fmt_ns(a[1], 32, l->p99),
				 tb_fmt_ns(a[2], 32, l->p999));
			var_si(&v, "c%d", block, title);
			var_di(&v, "s%d", block, c->baseline ? 1 : style++);
			block++;
		}
		if (block > first) {
			panel_title(&v, g, npanels, r, wls[w]);
			var_di(&v, "b%d", npanels, first);
			var_di(&v, "e%d", npanels, block - 1);
			npanels++;
		}
	}
	if ((ret = dat_close(g, fc, "latency")) | dat_close(g, fm, "latency-marks")) {
		fc = fm = NULL;
		ret = -EIO;
		goto out;
	}
	fc = fm = NULL;
	if (!npanels)
		goto out;
	snprintf(p, sizeof(p), "%s/latency.dat", g->datadir);
	var_s(&v, "datafile", p);
	snprintf(p, sizeof(p), "%s/latency-marks.dat", g->datadir);
	var_s(&v, "markfile", p);
	var_d(&v, "nw", npanels);
	var_d(&v, "ymax", ymax > 5.3 ? 5.3 : ymax);
	main_title(&v, g, "Latency per operation (latency-mode cells)");
	ret = run_script(g, "latency", &v, 1100, 90 + 360 * npanels);
	if (!ret)
		ret = 1;
out:
	if (fc)
		fclose(fc);
	if (fm)
		fclose(fm);
	vars_free(&v);
	free(wls);
	free(idx);
	return ret;
}

/* ---- timeline ------------------------------------------------------------------------------ */

#define TIMELINE_MAX_KEY 12

static int plot_timeline(struct gp *g, const struct tb_result *r)
{
	const char **wls = NULL;
	size_t *idx = calloc(r->ncells + 1, sizeof(*idx)), nw, w, i, k, nidx;
	int ret = 0, block = 0, npanels = 0;
	unsigned int maxorder = 0;
	struct vars v = {0};
	char p[PATH_MAX + 64];
	FILE *f = NULL;

	nw = workloads_of(r, &wls);
	if (!idx || !wls || vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	f = dat_open(g, "timeline", "per cell (block): every sample in run order",
		     "order\tns_per_op\twarmup\tround");
	if (!f) {
		ret = -EIO;
		goto out;
	}
	for (w = 0; w < nw; w++) {
		int first = block, style = 2, nwarm = 0;

		nidx = cells_of(r, wls[w], idx);
		for (i = 0; i < nidx; i++) {
			const struct tb_cell *c = &r->cells[idx[i]];
			char lbl[300];
			size_t n = 0;

			for (k = 0; k < c->nsamples; k++)
				n += !c->samples[k].failed && isfinite(c->samples[k].ns_per_op);
			if (!n)
				continue;
			if (block)
				fputs("\n\n", f);
			fprintf(f, "# %s\n", c->id ? c->id : "");
			for (k = 0; k < c->nsamples; k++) {
				const struct tb_sample *s = &c->samples[k];

				if (s->failed || !isfinite(s->ns_per_op))
					continue;
				fprintf(f, "%u\t%.6g\t%d\t%d\n", s->order, s->ns_per_op, s->warmup,
					s->round);
				nwarm += s->warmup;
				if (s->order > maxorder)
					maxorder = s->order;
			}
			/* Beyond a dozen series a key cannot be read: the panel title says so. */
			var_si(&v, "c%d", block,
			       nidx > TIMELINE_MAX_KEY ? "" : cell_label(c, lbl, sizeof(lbl)));
			var_di(&v, "s%d", block, c->baseline ? 1 : style++);
			block++;
		}
		if (block > first) {
			panel_title(&v, g, npanels, r, wls[w]);
			if (nidx > TIMELINE_MAX_KEY) {
				char tt[600], sn[NAME_MAX_CHARS + 8];

				snprintf(tt, sizeof(tt),
					 "workload %s, %zu cells (too many to name here)",
					 tb_shorten(sn, sizeof(sn), wls[w], NAME_MAX_CHARS), nidx);
				var_si(&v, "t%d", npanels, tt);
			}
			var_di(&v, "b%d", npanels, first);
			var_di(&v, "e%d", npanels, block - 1);
			var_di(&v, "nwarm%d", npanels, nwarm);
			npanels++;
		}
	}
	ret = dat_close(g, f, "timeline");
	f = NULL;
	if (ret || !npanels)
		goto out;
	snprintf(p, sizeof(p), "%s/timeline.dat", g->datadir);
	var_s(&v, "datafile", p);
	var_d(&v, "nw", npanels);
	var_d(&v, "ncol", npanels > 2 ? 2 : 1);
	var_d(&v, "xmax", maxorder + 1.0);
	main_title(&v, g, "Every sample in run order");
	ret = run_script(g, "timeline", &v, npanels > 2 ? 1600 : 1100,
			 90 + 330 * ((npanels + (npanels > 2)) / (npanels > 2 ? 2 : 1)));
	if (!ret)
		ret = 1;
out:
	if (f)
		fclose(f);
	vars_free(&v);
	free(wls);
	free(idx);
	return ret;
}

/* ---- rate ---------------------------------------------------------------------------------- */

/* Achieved events/s of a cell (its events over its measured time), else its target rate
 * (NAN when neither is known). */
static double achieved_rate(const struct tb_cell *c)
{
	double el = 0, ev = 0;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (!measured(s) || s->events < 0 || !(s->elapsed_ns > 0))
			continue;
		ev += (double)s->events;
		el += s->elapsed_ns;
	}
	return ev > 0 && el > 0 ? ev / (el / 1e9) : c->rate;
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* A cell of a rate sweep that has no target rate: its workload says rate-sweep = true. */
static bool in_sweep(const struct tb_cell *c)
{
	return json_is_true(json_object_get(c->workload_config, "rate-sweep"));
}

/* The model stats.c fitted for c's (tracer, workload type), or NULL. */
static const struct tb_rate_model *rate_model_of(const struct tb_result *r, const struct tb_cell *c)
{
	size_t i;

	for (i = 0; i < r->nrate_models; i++)
		if (same_str(r->rate_models[i].tracer, c->tracer) &&
		    same_str(r->rate_models[i].workload_type, c->workload_type))
			return &r->rate_models[i];
	return NULL;
}

struct rate_pt {
	double x;
	const struct tb_cell *c;
};

static int by_x(const void *a, const void *b)
{
	double x = ((const struct rate_pt *)a)->x, y = ((const struct rate_pt *)b)->x;

	return (x > y) - (x < y);
}

/*
 * One series per (tracer, workload type), as stats.c groups its rate models. The line is the
 * model's overhead % against achieved events/s when the result has one, else our own
 * least-squares fit (gsl_fit_linear) of the points.
 */
static int plot_rate(struct gp *g, const struct tb_result *r)
{
	struct rate_pt *pts = calloc(r->ncells + 1, sizeof(*pts)), *grp;
	bool *done = calloc(r->ncells + 1, sizeof(*done));
	double *x = calloc(r->ncells + 1, sizeof(*x)), *y = calloc(r->ncells + 1, sizeof(*y));
	double rmin = INFINITY, rmax = -INFINITY;
	size_t n = 0, i, j, m, ng = 0;
	FILE *fd = NULL, *ff = NULL;
	struct vars v = {0};
	char p[PATH_MAX + 64];
	int ret = 0, nfit = 0;
	bool logx;

	grp = calloc(r->ncells + 1, sizeof(*grp));
	if (!pts || !done || !x || !y || !grp || vars_open(&v)) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		double rt;

		if (c->baseline || !c->has_overhead || !isfinite(c->overhead.pct) ||
		    !(isfinite(c->rate) || in_sweep(c)))
			continue;
		rt = achieved_rate(c);
		if (!(rt > 0))
			continue;
		pts[n].x = rt;
		pts[n++].c = c;
		rmin = fmin(rmin, rt);
		rmax = fmax(rmax, rt);
	}
	logx = n && rmax / rmin > 20;
	fd = dat_open(g, "rate", "per (tracer, workload type) (block): overhead against event rate",
		      "events_per_s\tpct\tci_lo\tci_hi\tworkload\ttracer\ttarget_rate");
	ff = dat_open(g, "rate-fit", "per fitted series (block): overhead % = a + b * events/s",
		      "events_per_s\tpct_fitted");
	if (!fd || !ff) {
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct tb_cell *c0 = pts[i].c;
		const struct tb_rate_model *model = rate_model_of(r, c0);
		char t[600], sn[NAME_MAX_CHARS + 8];
		const char *trs = tb_shorten(sn, sizeof(sn), c0->tracer, NAME_MAX_CHARS);
		double a = NAN, b = NAN;

		if (done[i])
			continue;
		for (m = 0, j = i; j < n; j++)
			if (!done[j] && same_str(pts[j].c->tracer, c0->tracer) &&
			    same_str(pts[j].c->workload_type, c0->workload_type)) {
				done[j] = true;
				grp[m++] = pts[j];
			}
		qsort(grp, m, sizeof(*grp), by_x);
		if (ng)
			fputs("\n\n", fd);
		for (j = 0; j < m; j++) {
			const struct tb_overhead *o = &grp[j].c->overhead;

			x[j] = grp[j].x;
			y[j] = o->pct;
			fprintf(fd, "%.6g\t%.6g\t", grp[j].x, o->pct);
			put_d(fd, isfinite(o->ci_lo) ? o->ci_lo : o->pct);
			fputc('\t', fd);
			put_d(fd, isfinite(o->ci_hi) ? o->ci_hi : o->pct);
			fputc('\t', fd);
			put_s(fd, grp[j].c->workload);
			fputc('\t', fd);
			put_s(fd, grp[j].c->tracer);
			fputc('\t', fd);
			put_d(fd, grp[j].c->rate);
			fputc('\n', fd);
		}
		snprintf(t, sizeof(t), "%s (%zu cells)", trs, m);
		var_si(&v, "g%d", (int)ng, t);
		if (model && isfinite(model->pct_fixed) && isfinite(model->pct_per_mevent_s)) {
			a = model->pct_fixed;
			b = model->pct_per_mevent_s / 1e6;
			if (isfinite(model->cost_ns))
				snprintf(
					t, sizeof(t),
					"%s model: %.3g%% + %.3g%% per 1000 events/s; %.0f ns/event [%.0f, %.0f], r2 %.3f",
					trs, a, b * 1000, model->cost_ns, model->cost_ci_lo,
					model->cost_ci_hi, model->r2);
			else
				snprintf(t, sizeof(t),
					 "%s model: %.3g%% + %.3g%% per 1000 events/s", trs, a,
					 b * 1000);
		} else if (m >= 2 && x[m - 1] > x[0]) {
			double cov00, cov01, cov11, ss;

			gsl_fit_linear(x, 1, y, 1, m, &a, &b, &cov00, &cov01, &cov11, &ss);
			snprintf(t, sizeof(t), "%s fit: %.3g%% + %.3g%% per 1000 events/s", trs, a,
				 b * 1000);
		}
		if (isfinite(a) && isfinite(b) && x[m - 1] > x[0]) {
			int s;

			if (nfit)
				fputs("\n\n", ff);
			for (s = 0; s <= 40; s++) {
				double rt = logx ? x[0] * pow(x[m - 1] / x[0], s / 40.0)
						 : x[0] + (x[m - 1] - x[0]) * s / 40.0;

				fprintf(ff, "%.6g\t%.6g\n", rt, a + b * rt);
			}
			var_si(&v, "f%d", nfit, t);
			var_di(&v, "fl%d", nfit, (double)ng + 2);
			nfit++;
		}
		ng++;
	}
	if ((ret = dat_close(g, fd, "rate")) | dat_close(g, ff, "rate-fit")) {
		fd = ff = NULL;
		ret = -EIO;
		goto out;
	}
	fd = ff = NULL;
	if (!n)
		goto out;
	snprintf(p, sizeof(p), "%s/rate.dat", g->datadir);
	var_s(&v, "datafile", p);
	snprintf(p, sizeof(p), "%s/rate-fit.dat", g->datadir);
	var_s(&v, "fitfile", p);
	var_d(&v, "ng", (double)ng);
	var_d(&v, "nf", nfit);
	var_d(&v, "logx", logx);
	var_d(&v, "xmin", logx ? rmin / 1.6 : rmin - 0.05 * (rmax - rmin + 1));
	var_d(&v, "xmax", logx ? rmax * 1.6 : rmax + 0.05 * (rmax - rmin + 1));
	main_title(&v, g, "Overhead against event rate");
	ret = run_script(g, "rate", &v, 1100, 560);
	if (!ret)
		ret = 1;
out:
	if (fd)
		fclose(fd);
	if (ff)
		fclose(ff);
	vars_free(&v);
	free(pts);
	free(done);
	free(grp);
	free(x);
	free(y);
	return ret;
}

/* ---- sessions ------------------------------------------------------------------------------ */

/* compare: a compare session removes only compare.*; a result session everything else. */
static int gp_init(struct gp *g, const char *outdir, unsigned flags, const struct tb_result *r,
		   bool compare)
{
	char path[PATH_MAX + 64];
	int ret, i;

	memset(g, 0, sizeof(*g));
	g->flags = flags;
	g->host = tb_shorten(g->hostbuf, sizeof(g->hostbuf), tb_result_host(r), NAME_MAX_CHARS);
	g->scenario =
		tb_shorten(g->scenbuf, sizeof(g->scenbuf),
			   r->scenario_name && *r->scenario_name ? r->scenario_name : "scenario",
			   NAME_MAX_CHARS);
	if ((size_t)snprintf(g->plotdir, sizeof(g->plotdir), "%s/plots", outdir) >=
		    sizeof(g->plotdir) ||
	    (size_t)snprintf(g->datadir, sizeof(g->datadir), "%s/plots/data", outdir) >=
		    sizeof(g->datadir)) {
		tb_err("plot: output directory name too long: %s", outdir);
		return -ENAMETOOLONG;
	}
	ret = tb_mkdir_p(g->datadir, 0755);
	if (ret) {
		tb_err("plot: cannot create %s: %s", g->datadir, strerror(-ret));
		return ret;
	}
	for (i = 0; tb_plot_names[i]; i++) {
		if (compare != !strcmp(tb_plot_names[i], "compare"))
			continue;
		snprintf(path, sizeof(path), "%s/%s.png", g->plotdir, tb_plot_names[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s.svg", g->plotdir, tb_plot_names[i]);
		unlink(path);
	}
	if (flags & TB_PLOT_DATA_ONLY)
		return 0;
	if (tb_plot_find_scripts(g->scripts, sizeof(g->scripts))) {
		tb_err("plot: gnuplot scripts not found (looked in $TB_PLOTS_DIR, next to the binary and in %s/plots); plots skipped",
		       TB_DATADIR);
		return -ENOENT;
	}
	return 0;
}

static int need_gnuplot(struct gp *g)
{
	if (g->flags & TB_PLOT_DATA_ONLY)
		return 0;
	if (tb_plot_find_gnuplot(g->gnuplot, sizeof(g->gnuplot))) {
		tb_err("plot: gnuplot not found (%s): no plots drawn; install gnuplot (Debian: gnuplot-nox) to get them",
		       getenv("TB_GNUPLOT") ? getenv("TB_GNUPLOT") : "not in PATH");
		g->flags |= TB_PLOT_DATA_ONLY;
		return -ENOENT;
	}
	return 0;
}

int tb_plot_result(const struct tb_result *r, const char *outdir, unsigned flags)
{
	static int (*const fns[])(struct gp *, const struct tb_result *) = {
		plot_overhead, plot_ns_per_op, plot_ns_per_event,
		plot_latency,  plot_timeline,  plot_rate,
	};
	int ret, drawn = 0, missing, first_err = 0;
	struct gp g;
	size_t i;

	ret = gp_init(&g, outdir, flags, r, false);
	if (ret)
		return ret;
	/* Without gnuplot the data files are still written, then -ENOENT. */
	missing = need_gnuplot(&g);
	for (i = 0; i < TB_ARRAY_SIZE(fns); i++) {
		ret = fns[i](&g, r);
		if (ret > 0)
			drawn++;
		else if (ret < 0 && !first_err)
			first_err = ret;
	}
	if (missing)
		return missing;
	if (first_err)
		return first_err;
	return (flags & TB_PLOT_DATA_ONLY) ? 0 : drawn;
}

/* ---- compare ------------------------------------------------------------------------------- */

static const char *sys_str(const struct tb_result *r, const char *a, const char *b)
{
	json_t *o = r->system ? json_object_get(r->system, a) : NULL;

	if (b && json_is_object(o))
		o = json_object_get(o, b);
	return json_is_string(o) ? json_string_value(o) : NULL;
}

int tb_plot_compare(const struct tb_result *const *rs, const char *const *labels, size_t n,
		    const char *outdir, unsigned flags)
{
	char **rows = NULL, p[PATH_MAX + 64];
	size_t nrows = 0, cap = 0, s, i, j, maxlbl = 0, maxtext = 0;
	double lo = 0, hi = 0, maxtx = 0;
	struct text_room room;
	int ret, missing, nsets = 0;
	struct vars v = {0};
	FILE *fd = NULL, *fr = NULL;
	struct gp g;

	if (!n)
		return 0;
	ret = gp_init(&g, outdir, flags, rs[0], true);
	if (ret)
		return ret;
	missing = need_gnuplot(&g);
	if (vars_open(&v))
		return -ENOMEM;
	/* Rows: every traced cell id with an overhead, in order of first appearance. */
	for (s = 0; s < n; s++) {
		for (i = 0; i < rs[s]->ncells; i++) {
			const struct tb_cell *c = &rs[s]->cells[i];

			if (c->baseline || !c->has_overhead || !isfinite(c->overhead.pct) || !c->id)
				continue;
			hi = fmax3(hi, c->overhead.pct, c->overhead.ci_hi);
			lo = fmin3(lo, c->overhead.pct, c->overhead.ci_lo);
			for (j = 0; j < nrows; j++)
				if (!strcmp(rows[j], c->id))
					break;
			if (j < nrows)
				continue;
			if (nrows == cap) {
				char **nr = realloc(rows, (cap ? cap * 2 : 16) * sizeof(*rows));

				if (!nr) {
					ret = -ENOMEM;
					goto out;
				}
				rows = nr;
				cap = cap ? cap * 2 : 16;
			}
			rows[nrows++] = c->id;
		}
	}
	fd = dat_open(&g, "compare", "per result set (block): overhead per cell",
		      "row\tpct\tci_lo\tci_hi\ttext\ttext_x\tset\tcell");
	fr = dat_open(&g, "compare-rows", "the cells compared", "row\tcell");
	if (!fd || !fr) {
		ret = -EIO;
		goto out;
	}
	for (j = 0; j < nrows; j++) {
		fprintf(fr, "%zu\t", j);
		char sn[2 * NAME_MAX_CHARS + 8];

		put_s(fr, tb_shorten(sn, sizeof(sn), rows[j], 2 * NAME_MAX_CHARS));
		if (strlen(rows[j]) > maxlbl)
			maxlbl = strlen(rows[j]) > 2 * NAME_MAX_CHARS ? 2 * NAME_MAX_CHARS + 3
								      : strlen(rows[j]);
		fputc('\n', fr);
	}
	for (s = 0; s < n; s++) {
		int wrote = 0;
		char lbl[512];

		for (j = 0; j < nrows; j++) {
			for (i = 0; i < rs[s]->ncells; i++) {
				const struct tb_cell *c = &rs[s]->cells[i];
				const struct tb_overhead *o = &c->overhead;
				char text[128];

				if (c->baseline || !c->has_overhead || !isfinite(o->pct) ||
				    !c->id || strcmp(c->id, rows[j]))
					continue;
				if (!wrote && nsets)
					fputs("\n\n", fd);
				if (isfinite(o->ci_lo) && isfinite(o->ci_hi))
					snprintf(text, sizeof(text), "%+.1f%% [%+.1f, %+.1f]",
						 o->pct, o->ci_lo, o->ci_hi);
				else
					snprintf(text, sizeof(text), "%+.1f%%", o->pct);
				fprintf(fd, "%zu\t", j);
				put_d(fd, o->pct);
				fputc('\t', fd);
				put_d(fd, isfinite(o->ci_lo) ? o->ci_lo : o->pct);
				fputc('\t', fd);
				put_d(fd, isfinite(o->ci_hi) ? o->ci_hi : o->pct);
				fprintf(fd, "\t%s\t", text);
				put_d(fd, fmax3(0, o->pct, o->ci_hi));
				/* the widest text at the rightmost start bounds the axis */
				if (fmax3(0, o->pct, o->ci_hi) > maxtx)
					maxtx = fmax3(0, o->pct, o->ci_hi);
				if (strlen(text) > maxtext)
					maxtext = strlen(text);
				fprintf(fd, "\t%zu\t", s);
				put_s(fd, c->id);
				fputc('\n', fd);
				wrote = 1;
				break;
			}
		}
		if (!wrote)
			continue;
		if (labels && labels[s]) {
			snprintf(lbl, sizeof(lbl), "%s", labels[s]);
		} else {
			const char *k = sys_str(rs[s], "kernel", "release");

			if (!k)
				k = sys_str(rs[s], "kernel_release", NULL);
			snprintf(lbl, sizeof(lbl), "#%zu %s%s%s", s + 1, tb_result_host(rs[s]),
				 k ? " " : "", k ? k : "");
		}
		var_si(&v, "l%d", nsets, lbl);
		nsets++;
	}
	if ((ret = dat_close(&g, fd, "compare")) | dat_close(&g, fr, "compare-rows")) {
		fd = fr = NULL;
		ret = -EIO;
		goto out;
	}
	fd = fr = NULL;
	if (!nsets || missing) {
		ret = missing;
		goto out;
	}
	snprintf(p, sizeof(p), "%s/compare.dat", g.datadir);
	var_s(&v, "datafile", p);
	snprintf(p, sizeof(p), "%s/compare-rows.dat", g.datadir);
	var_s(&v, "rowfile", p);
	var_d(&v, "n", (double)nrows);
	var_d(&v, "ns", nsets);
	var_d(&v, "conf", 100.0 * (rs[0]->confidence > 0 ? rs[0]->confidence : 0.95));
	room.xmin = lo - 0.04 * (hi - lo + 1);
	room.xmax = hi + 0.05 * (hi - lo + 1);
	room.plot_px = plot_width_px(1000, maxlbl);
	room.logx = false;
	room_for(&room, maxtx, maxtext);
	var_d(&v, "xmin", room.xmin);
	var_d(&v, "xmax", room.xmax);
	{
		char t[512];

		snprintf(t, sizeof(t), "Overhead per cell, %d result sets compared", nsets);
		var_s(&v, "title", t);
	}
	ret = run_script(&g, "compare", &v, 1000, 200 + (int)nrows * (20 + 18 * nsets));
	if (!ret)
		ret = (flags & TB_PLOT_DATA_ONLY) ? 0 : 1;
out:
	if (fd)
		fclose(fd);
	if (fr)
		fclose(fr);
	vars_free(&v);
	free(rows);
	return ret;
}
