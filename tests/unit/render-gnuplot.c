// SPDX-License-Identifier: GPL-2.0
/* Plots: the data files hold the expected rows; gnuplot draws every script without a word. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render/gnuplot/plot.h"
#include "render/text.h"
#include "core/tb.h"
#include "fixture.h"
#include "tb_test.h"

#define MAXROWS 4096
#define MAXCOLS 16

/* A data file read back: rows of tab-separated fields, and the block each row is in. */
struct dat {
	size_t nrows, nblocks;
	int block[MAXROWS];
	char *col[MAXROWS][MAXCOLS];
	int ncol[MAXROWS];
	char *text;
};

static int dat_read(const char *dir, const char *name, struct dat *d)
{
	char path[PATH_MAX], *line, *save = NULL, *p;
	int blanks = 0, ret;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/plots/data/%s.dat", dir, name);
	ret = tb_read_file(path, &d->text, NULL);
	if (ret)
		return ret;
	/* strsep keeps empty lines, which separate blocks (two blank lines: a new index). */
	p = d->text;
	while ((line = strsep(&p, "\n")) != NULL) {
		char *f;
		int c = 0;

		(void)save;
		if (!*line) {
			blanks++;
			continue;
		}
		if (*line == '#')
			continue;
		if (blanks >= 2 && d->nrows)
			d->nblocks++;
		if (!d->nrows)
			d->nblocks = 1;
		blanks = 0;
		if (d->nrows == MAXROWS)
			return -E2BIG;
		while ((f = strsep(&line, "\t")) != NULL && c < MAXCOLS)
			d->col[d->nrows][c++] = f;
		d->ncol[d->nrows] = c;
		d->block[d->nrows] = (int)d->nblocks - 1;
		d->nrows++;
	}
	return 0;
}

static void dat_free(struct dat *d)
{
	free(d->text);
	d->text = NULL;
}

static double num(struct dat *d, size_t row, int col)
{
	return col < d->ncol[row] ? strtod(d->col[row][col], NULL) : NAN;
}

static const char *str(struct dat *d, size_t row, int col)
{
	return col < d->ncol[row] ? d->col[row][col] : "";
}

static struct tb_result *fix;
static const char *outdir;

static int plot_init(void)
{
	fix = tb_fixture_result(0);
	outdir = tb_test_tmpdir();
	return fix && outdir ? 0 : 1;
}

static int plot_clean(void)
{
	tb_result_free(fix);
	return 0;
}

static size_t traced_with_overhead(void)
{
	size_t i, n = 0;

	for (i = 0; i < fix->ncells; i++)
		n += !fix->cells[i].baseline && fix->cells[i].has_overhead;
	return n;
}

static void test_data_files(void)
{
	struct dat d;
	size_t i, k, n, nsamples = 0, nmeasured = 0;
	double prev;
	int ret;

	ret = tb_plot_result(fix, outdir, TB_PLOT_DATA_ONLY);
	CU_ASSERT_EQUAL_FATAL(ret, 0);

	/* overhead: every traced cell once, sorted by pct, verdict codes right. */
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "overhead", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, traced_with_overhead());
	prev = INFINITY;
	for (i = 0; i < d.nrows; i++) {
		const struct tb_cell *c = NULL;

		CU_ASSERT_EQUAL(d.ncol[i], 11);
		CU_ASSERT_EQUAL(num(&d, i, 0), (double)i);
		CU_ASSERT(num(&d, i, 4) <= prev);
		prev = num(&d, i, 4);
		for (k = 0; k < fix->ncells; k++)
			if (!strcmp(fix->cells[k].workload, str(&d, i, 1)) &&
			    !strcmp(fix->cells[k].tracer, str(&d, i, 2)))
				c = &fix->cells[k];
		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_DOUBLE_EQUAL(num(&d, i, 4), c->overhead.pct,
				       1e-3 * fabs(c->overhead.pct));
		CU_ASSERT_DOUBLE_EQUAL(num(&d, i, 5), c->overhead.ci_lo,
				       1e-3 * fabs(c->overhead.ci_lo) + 1e-6);
		CU_ASSERT_STRING_EQUAL(str(&d, i, 7), tb_verdict_name(c->overhead.verdict));
	}
	/* The largest: getpid under the tracepoint (580 vs 201 ns). */
	CU_ASSERT_STRING_EQUAL(str(&d, 0, 3), "getpid / tp-getpid");
	CU_ASSERT(num(&d, 0, 4) > 170 && num(&d, 0, 4) < 210);
	CU_ASSERT_STRING_EQUAL(str(&d, 0, 7), "overhead");
	dat_free(&d);

	/* ns-per-op: one block per workload, baseline first, medians as computed. */
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "ns-per-op", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, fix->ncells);
	CU_ASSERT_EQUAL(d.nblocks, 6);
	CU_ASSERT_STRING_EQUAL(str(&d, 0, 1), "none (baseline)");
	CU_ASSERT_STRING_EQUAL(str(&d, 4, 1), "none (baseline)");
	for (i = 0; i < d.nrows; i++) {
		for (k = 0; k < fix->ncells; k++) {
			const struct tb_cell *c = &fix->cells[k];
			double med;
			char lbl[128];

			snprintf(lbl, sizeof(lbl), c->baseline ? "%s (baseline)" : "%s", c->tracer);
			if (strcmp(c->workload, str(&d, i, 0)) || strcmp(lbl, str(&d, i, 1)))
				continue;
			n = tb_fixture_measured(c, &med);
			CU_ASSERT_EQUAL(num(&d, i, 3), (double)n);
			CU_ASSERT_DOUBLE_EQUAL(num(&d, i, 6), med, 1e-4 * med);
			CU_ASSERT(num(&d, i, 5) <= num(&d, i, 6) && num(&d, i, 6) <= num(&d, i, 7));
			CU_ASSERT(num(&d, i, 9) >= num(&d, i, 4) &&
				  num(&d, i, 10) <= num(&d, i, 8));
			nmeasured += n;
			break;
		}
		CU_ASSERT(k < fix->ncells);
	}
	dat_free(&d);
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "ns-per-op-samples", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, nmeasured);
	for (i = 0; i < d.nrows; i++)
		CU_ASSERT(fabs(num(&d, i, 3) - num(&d, i, 2)) <= 0.18 + 1e-3);
	dat_free(&d);

	/* timeline: every sample (warm-ups too), one block per cell, warm-ups flagged. */
	for (i = 0; i < fix->ncells; i++)
		nsamples += fix->cells[i].nsamples;
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "timeline", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, nsamples);
	CU_ASSERT_EQUAL(d.nblocks, fix->ncells);
	for (n = 0, i = 0; i < d.nrows; i++)
		n += num(&d, i, 2) == 1;
	CU_ASSERT_EQUAL(n, fix->ncells * fix->warmup);
	dat_free(&d);

	/* ns-per-event: the cells whose ns/event the tables quote (a detectable overhead, not the
	 * no-overhead and untrustworthy ones with events), BPF run time where the tracer is BPF. */
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "ns-per-event", &d), 0);
	for (n = 0, i = 0; i < fix->ncells; i++)
		n += fix->cells[i].has_overhead && isfinite(fix->cells[i].overhead.ns_per_event) &&
		     fix->cells[i].overhead.verdict == TB_VERDICT_OVERHEAD;
	CU_ASSERT(n > 0 && n < fix->ncells / 2);
	CU_ASSERT_EQUAL(d.nrows, n);
	for (n = 0, i = 0; i < d.nrows; i++) {
		n += strstr(str(&d, i, 2), "bpf") != NULL;
		if (i)
			CU_ASSERT(num(&d, i, 4) <= num(&d, i - 1, 4));
	}
	{
		struct dat b;

		/* The BPF run times have their own rows: those of the bpf tracers, finite. */
		CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "ns-per-event-bpf", &b), 0);
		CU_ASSERT_EQUAL(b.nrows, n);
		for (i = 0; i < b.nrows; i++) {
			size_t row = (size_t)num(&b, i, 0);

			CU_ASSERT(isfinite(num(&b, i, 1)) && num(&b, i, 1) > 0);
			CU_ASSERT_FATAL(row < d.nrows);
			CU_ASSERT_PTR_NOT_NULL(strstr(str(&d, row, 2), "bpf"));
		}
		dat_free(&b);
	}
	dat_free(&d);

	/* latency: the two latency-mode cells; each CDF ends at fraction 1. */
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "latency", &d), 0);
	CU_ASSERT_EQUAL(d.nblocks, 2);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, d.nrows - 1, 2), 1.0, 1e-9);
	for (i = 1; i < d.nrows; i++)
		if (d.block[i] == d.block[i - 1])
			CU_ASSERT(num(&d, i, 0) > num(&d, i - 1, 0) &&
				  num(&d, i, 2) >= num(&d, i - 1, 2));
	dat_free(&d);
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "latency-marks", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, 6);
	CU_ASSERT_STRING_EQUAL(str(&d, 1, 2), "p99");
	dat_free(&d);

	/* rate: the sweep's three cells, one tracer, sorted by events per op (the rate model's
	 * x), their overhead ns/op, and the model's line. */
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "rate", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, 3);
	CU_ASSERT_EQUAL(d.nblocks, 1);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 0, 0), 0.0999, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 2, 0), 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 2, 1), 40906.9, 0.1);
	/* The achieved events/s (events over measured time), close to the target here. */
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 2, 6), 1e10 / 140500.0, 2000);
	dat_free(&d);
	CU_ASSERT_EQUAL_FATAL(dat_read(outdir, "rate-fit", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, 41);
	dat_free(&d);
}

static bool have_gnuplot(void);

/* Whether dir/plots/name holds text (a drawn SVG's key). */
static bool svg_has(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX], *svg = NULL;
	bool found;

	snprintf(path, sizeof(path), "%s/plots/%s", dir, name);
	if (tb_read_file(path, &svg, NULL))
		return false;
	found = strstr(svg, text) != NULL;
	free(svg);
	return found;
}

/*
 * A rate sweep of one tracer at four events per op: its points and the line of its rate model,
 * in the model's own space (ns/op against events/op) with the figures the terminal prints.
 * Issue 28: the plot drew a second fit (% against events/s) whose intercept read "-139%"
 * beside a table saying +34.6 ns.
 */
static void test_rate_fit(void)
{
	struct tb_result *r = tb_result_new();
	const char *dir = tb_test_tmpdir();
	double k[] = {1, 2, 4, 8};
	struct tb_rate_model *m;
	char want[256];
	struct dat d;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	for (i = 0; i < 5; i++) {
		struct tb_cell *c = tb_result_add_cell(r);
		char id[64];

		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		snprintf(id, sizeof(id), "getpid-c%zu/tp", i);
		c->id = strdup(id);
		c->workload = strndup(id, strchr(id, '/') - id);
		c->workload_type = strdup("getpid");
		c->tracer = strdup("tp");
		c->rate = 1000 * (double)(i + 1);
		c->has_overhead = true;
		c->proof.events_per_op = NAN;
		/* The fifth cell does not know its events per op: it has no x in the model. */
		c->overhead.events_per_op = i < 4 ? k[i] : NAN;
		c->overhead.ns_per_op = i < 4 ? 34.6 + 95 * k[i] : 500;
		c->overhead.ns_ci_lo = c->overhead.ns_per_op - 5;
		c->overhead.ns_ci_hi = c->overhead.ns_per_op + 5;
		c->overhead.pct = 10 * (double)i;
		c->overhead.ns_per_event = NAN;
		c->overhead.verdict = TB_VERDICT_OVERHEAD;
	}
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_DATA_ONLY), 0);
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "rate", &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nrows, 4);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 0, 0), 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 0, 1), 129.6, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 3, 0), 8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 3, 3), 34.6 + 95 * 8 + 5, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 3, 6), 4000, 1e-6); /* the cell's events/s */
	dat_free(&d);
	/* Without stats.c's model for the tracer there is no line (the plot fits none itself). */
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "rate-fit", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, 0);
	dat_free(&d);
	/* With it, the line is the model's: fixed_ns + cost_ns x events/op, whatever its
	 * percent-against-events/s fit says. */
	m = tb_result_add_rate_model(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	m->tracer = strdup("tp");
	m->workload_type = strdup("getpid");
	m->npoints = 4;
	m->fixed_ns = 34.6, m->fixed_ci_lo = 20.1, m->fixed_ci_hi = 49.0;
	m->cost_ns = 95, m->cost_ci_lo = 93, m->cost_ci_hi = 97;
	m->r2 = 0.999;
	m->pct_fixed = -139;
	m->pct_per_mevent_s = 5e4;
	m->accepted = true;
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_DATA_ONLY), 0);
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "rate-fit", &d), 0);
	CU_ASSERT_EQUAL_FATAL(d.nrows, 41);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 0, 0), 1, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 0, 1), 129.6, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 40, 0), 8, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(num(&d, 40, 1), 794.6, 1e-3);
	dat_free(&d);
	/* The key states the model as the terminal does, and nothing of the other fit. */
	if (have_gnuplot()) {
		CU_ASSERT(tb_plot_result(r, dir, TB_PLOT_NO_PNG | TB_PLOT_STRICT) > 0);
		CU_ASSERT_STRING_EQUAL(
			tb_fmt_rate_model(want, sizeof(want), m),
			"overhead ns/op = 34.6 [20.1, 49.0] + 95.0 [93.0, 97.0] ns x events/op, R^2 0.999");
		CU_ASSERT(svg_has(dir, "rate.svg", want));
		CU_ASSERT(!svg_has(dir, "rate.svg", "139"));
	}
	tb_result_free(r);
}

static bool have_gnuplot(void)
{
	char p[PATH_MAX];

	return tb_plot_find_gnuplot(p, sizeof(p)) == 0;
}

static bool file_nonempty(const char *dir, const char *name, const char *ext);

/* How many of the named plots exist as dir/plots/NAME.ext. */
static int count_plots(const char *dir, const char *ext)
{
	int i, n = 0;

	for (i = 0; tb_plot_names[i]; i++)
		n += file_nonempty(dir, tb_plot_names[i], ext);
	return n;
}

static bool file_nonempty(const char *dir, const char *name, const char *ext)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s/plots/%s.%s", dir, name, ext);
	return !stat(p, &st) && st.st_size > 1000;
}

/* Every script on fixture data; TB_PLOT_STRICT turns any gnuplot output into a failure. */
static void test_gnuplot_draws_all(void)
{
	const char *keep = getenv("TB_PLOT_KEEP");
	const char *dir = keep && *keep ? keep : outdir;
	int ret;

	if (!have_gnuplot())
		TB_SKIP("gnuplot not installed");
	ret = tb_plot_result(fix, dir, TB_PLOT_STRICT);
	CU_ASSERT_EQUAL(ret, 7);
	CU_ASSERT_EQUAL(count_plots(dir, "png"), 7);
	CU_ASSERT_EQUAL(count_plots(dir, "svg"), 7);
	CU_ASSERT(file_nonempty(dir, "probe-types", "png"));
	CU_ASSERT(file_nonempty(dir, "overhead", "png"));
	CU_ASSERT(file_nonempty(dir, "overhead", "svg"));
	CU_ASSERT(file_nonempty(dir, "ns-per-op", "png"));
	CU_ASSERT(file_nonempty(dir, "ns-per-event", "svg"));
	CU_ASSERT(file_nonempty(dir, "latency", "png"));
	CU_ASSERT(file_nonempty(dir, "timeline", "png"));
	CU_ASSERT(file_nonempty(dir, "rate", "png"));
}

/* Under the C locale (sudo, cron, env -i) too: no "iconv failed to convert degree sign". */
static void test_c_locale(void)
{
	const char *old = getenv("LC_ALL");
	char *saved = old ? strdup(old) : NULL;

	if (!have_gnuplot())
		TB_SKIP("gnuplot not installed");
	setenv("LC_ALL", "C", 1);
	CU_ASSERT_EQUAL(tb_plot_result(fix, tb_test_tmpdir(), TB_PLOT_NO_PNG | TB_PLOT_STRICT), 7);
	CU_ASSERT_STRING_EQUAL(getenv("LC_ALL"), "C"); /* ours again once gnuplot started */
	if (saved)
		setenv("LC_ALL", saved, 1);
	else
		unsetenv("LC_ALL");
	free(saved);
}

/*
 * probe-types: one row per (tracer, workload type), cheapest first, the rate model's cost per
 * event where one was fitted; the published figures of a probe type beside its row.
 */
static void test_probe_types(void)
{
	struct tb_result *r = tb_fixture_result(0);
	const char *dir = tb_test_tmpdir();
	struct dat d, pub;
	size_t i, k, nprobe = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	/* The BPF cells become program = probe, attach = tp_btf, body = empty. */
	for (i = 0; i < r->ncells; i++) {
		struct tb_cell *c = &r->cells[i];

		if (c->baseline || strcmp(c->tracer_type, "bpf"))
			continue;
		json_decref(c->tracer_config);
		c->tracer_config = json_pack("{s:s, s:s, s:s}", "program", "probe", "attach",
					     "tp_btf", "body", "empty");
		nprobe++;
	}
	CU_ASSERT_FATAL(nprobe > 0);
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_DATA_ONLY), 0);
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "probe-types", &d), 0);
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "probe-types-published", &pub), 0);
	CU_ASSERT(d.nrows >= 2);
	for (i = 1; i < d.nrows; i++)
		CU_ASSERT(num(&d, i, 2) >= num(&d, i - 1, 2));
	/* ebpf_exporter's 15 ns for an empty tp_btf program, beside each such row */
	for (k = 0, i = 0; i < d.nrows; i++) {
		/* theirs was on getpid's path: only such rows get it */
		if (!strstr(str(&d, i, 1), "bpf tp_btf empty") ||
		    !strstr(str(&d, i, 1), "on getpid"))
			continue;
		CU_ASSERT(k < pub.nrows);
		if (k < pub.nrows) {
			CU_ASSERT_DOUBLE_EQUAL(num(&pub, k, 0), (double)i, 1e-9);
			CU_ASSERT_DOUBLE_EQUAL(num(&pub, k, 1), 15, 1e-9);
			CU_ASSERT_PTR_NOT_NULL(strstr(str(&pub, k, 2), "ebpf_exporter"));
		}
		k++;
	}
	CU_ASSERT(k > 0);
	CU_ASSERT_EQUAL(pub.nrows, k);
	dat_free(&d);
	dat_free(&pub);
	tb_result_free(r);
}

/* Without latency cells or a rate sweep those plots are skipped, and old files removed. */
static void test_skips_empty(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_LATENCY | TB_FIX_NO_RATE);
	int ret;

	if (!have_gnuplot())
		TB_SKIP("gnuplot not installed");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(tb_plot_result(fix, outdir, TB_PLOT_NO_PNG | TB_PLOT_STRICT), 7);
	CU_ASSERT_EQUAL(count_plots(outdir, "svg"), 7);
	CU_ASSERT(file_nonempty(outdir, "latency", "svg"));
	ret = tb_plot_result(r, outdir, TB_PLOT_NO_PNG | TB_PLOT_STRICT);
	CU_ASSERT_EQUAL(ret, 5);
	CU_ASSERT_EQUAL(count_plots(outdir, "svg"), 5);
	CU_ASSERT(!file_nonempty(outdir, "latency", "svg"));
	CU_ASSERT(!file_nonempty(outdir, "rate", "svg"));
	CU_ASSERT(file_nonempty(outdir, "overhead", "svg"));
	CU_ASSERT(!file_nonempty(outdir, "overhead", "png"));
	tb_result_free(r);
}

/* Hostile names (quotes, <script>, underscores) reach gnuplot intact and do not break it. */
static void test_hostile_names(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_HOSTILE);
	const char *dir = tb_test_tmpdir();
	char p[PATH_MAX], *svg = NULL;

	if (!have_gnuplot())
		TB_SKIP("gnuplot not installed");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_NO_PNG | TB_PLOT_STRICT), 7);
	CU_ASSERT_EQUAL(count_plots(dir, "svg"), 7);
	snprintf(p, sizeof(p), "%s/plots/overhead.svg", dir);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(p, &svg, NULL), 0);
	/* The tracer name tp-getpid_"'&amp;<b> shows as text ('"' becomes '\''). */
	CU_ASSERT_PTR_NOT_NULL(strstr(svg, "tp-getpid_''&amp;amp;&lt;b>"));
	CU_ASSERT_PTR_NULL(strstr(svg, "<script"));
	free(svg);
	tb_result_free(r);
}

/* No gnuplot: a distinct error, and the data files are still there. */
static void test_missing_gnuplot(void)
{
	const char *dir = tb_test_tmpdir();
	char p[PATH_MAX];

	setenv("TB_GNUPLOT", "/nonexistent/gnuplot", 1);
	CU_ASSERT_EQUAL(tb_plot_result(fix, dir, 0), -ENOENT);
	unsetenv("TB_GNUPLOT");
	snprintf(p, sizeof(p), "%s/plots/data/overhead.dat", dir);
	CU_ASSERT_EQUAL(access(p, R_OK), 0);
	CU_ASSERT(!file_nonempty(dir, "overhead", "png"));
}

static void test_compare(void)
{
	struct tb_result *b = tb_fixture_result(TB_FIX_NO_LATENCY | TB_FIX_NO_RATE);
	const struct tb_result *rs[2];
	const char *labels[] = {"kernel 6.1", "kernel 6.18"};
	const char *keep = getenv("TB_PLOT_KEEP");
	const char *dir = keep && *keep ? keep : tb_test_tmpdir();
	struct dat d;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (i = 0; i < b->ncells; i++) {
		b->cells[i].overhead.pct *= 0.5;
		b->cells[i].overhead.ci_lo *= 0.5;
		b->cells[i].overhead.ci_hi *= 0.5;
	}
	rs[0] = fix;
	rs[1] = b;
	CU_ASSERT_EQUAL(tb_plot_compare(rs, labels, 2, dir, TB_PLOT_DATA_ONLY), 0);
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "compare", &d), 0);
	CU_ASSERT_EQUAL(d.nblocks, 2);
	CU_ASSERT_EQUAL(d.nrows, traced_with_overhead() + (traced_with_overhead() - 4));
	dat_free(&d);
	if (!have_gnuplot())
		TB_SKIP("gnuplot not installed");
	CU_ASSERT_EQUAL(tb_plot_compare(rs, labels, 2, dir, TB_PLOT_STRICT), 1);
	CU_ASSERT(file_nonempty(dir, "compare", "png"));
	tb_result_free(b);
}

/* Many cells with long names: labels are cut, the key is left out, gnuplot stays quiet. */
static void test_many_cells(void)
{
	struct tb_result *r = tb_result_new();
	const char *dir = tb_test_tmpdir();
	char name[600], path[PATH_MAX];
	struct dat d;
	size_t i, k;

	if (!have_gnuplot())
		TB_SKIP("gnuplot not installed");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	for (i = 0; i < 61; i++) {
		struct tb_cell *c = tb_result_add_cell(r);

		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		memset(name, 'x', 500);
		snprintf(name + 500, sizeof(name) - 500, "-%zu", i);
		c->workload = strdup("w");
		c->tracer = strdup(i ? name : "none");
		c->baseline = !i;
		snprintf(path, sizeof(path), "w/%zu", i);
		c->id = strdup(path);
		for (k = 0; k < 3; k++) {
			struct tb_sample *s = tb_cell_add_sample(c);

			CU_ASSERT_PTR_NOT_NULL_FATAL(s);
			s->order = (unsigned int)(k * 61 + i);
			s->round = (int)k;
			s->ns_per_op = 100 + (double)i + (double)k;
		}
	}
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_NO_PNG | TB_PLOT_STRICT), 2);
	CU_ASSERT_EQUAL(count_plots(dir, "svg"), 2);
	CU_ASSERT(file_nonempty(dir, "timeline", "svg"));
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "ns-per-op", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, 61);
	CU_ASSERT(strlen(str(&d, 1, 1)) < 50);
	CU_ASSERT_PTR_NOT_NULL(strstr(str(&d, 1, 1), "xxx..."));
	dat_free(&d);
	tb_result_free(r);
}

/* Entries of dir/sub whose name starts with prefix. */
static int count_entries(const char *dir, const char *sub, const char *prefix)
{
	char p[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(p, sizeof(p), "%s/%s", dir, sub);
	d = opendir(p);
	while (d && (de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

/* Variables too long for one argument go through a file that gnuplot loads. */
static void test_vars_file(void)
{
	const char *dir = tb_test_tmpdir();
	char path[PATH_MAX];

	if (!have_gnuplot())
		TB_SKIP("gnuplot not installed");
	setenv("TB_GNUPLOT_ARG_MAX", "200", 1);
	CU_ASSERT_EQUAL(tb_plot_result(fix, dir, TB_PLOT_NO_PNG | TB_PLOT_STRICT), 7);
	CU_ASSERT_EQUAL(count_plots(dir, "svg"), 7);
	unsetenv("TB_GNUPLOT_ARG_MAX");
	/* The file lived in the session's private directory, which is gone with it. */
	snprintf(path, sizeof(path), "%s/plots/data/timeline-vars.gp", dir);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	CU_ASSERT(file_nonempty(dir, "timeline", "svg"));
	CU_ASSERT_EQUAL(count_entries(dir, "plots", ".tracebench-"), 0);
}

/*
 * README's "A scenario": one baseline and one traced cell without a BPF figure. gnuplot 5.4.4
 * segfaulted on ns-per-event when every row of a `with labels` clause had a NaN x: no data file
 * may hold a NaN coordinate, and every plot draws without a word (issue 15).
 */
static void test_one_traced_no_bpf(void)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_README);
	const char *dir = tb_test_tmpdir();
	static const char *const names[] = {"overhead", "ns-per-op", "ns-per-event", "timeline"};
	struct dat d;
	size_t i, k;
	int c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL_FATAL(r->ncells, 2);
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_DATA_ONLY), 0);
	for (k = 0; k < TB_ARRAY_SIZE(names); k++) {
		CU_ASSERT_EQUAL_FATAL(dat_read(dir, names[k], &d), 0);
		for (i = 0; i < d.nrows; i++)
			for (c = 0; c < d.ncol[i]; c++)
				if (!strcmp(d.col[i][c], "NaN"))
					printf("\n    %s.dat row %zu column %d is NaN", names[k], i,
					       c);
		for (i = 0; i < d.nrows; i++)
			for (c = 0; c < d.ncol[i]; c++)
				CU_ASSERT(strcmp(d.col[i][c], "NaN") != 0);
		dat_free(&d);
	}
	CU_ASSERT_EQUAL_FATAL(dat_read(dir, "ns-per-event", &d), 0);
	CU_ASSERT_EQUAL(d.nrows, 1);
	dat_free(&d);
	if (!have_gnuplot()) {
		tb_result_free(r);
		TB_SKIP("gnuplot not installed");
	}
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_STRICT), 4);
	for (k = 0; k < TB_ARRAY_SIZE(names); k++) {
		CU_ASSERT(file_nonempty(dir, names[k], "png"));
		CU_ASSERT(file_nonempty(dir, names[k], "svg"));
	}
	tb_result_free(r);
}

static CU_TestInfo plot_tests[] = {
	{"data files hold the expected rows", test_data_files},
	{"rate sweep fit", test_rate_fit},
	{"probe types ranked, published beside", test_probe_types},
	{"plots draw silently under the C locale", test_c_locale},
	{"gnuplot draws every plot silently", test_gnuplot_draws_all},
	{"plots without data are skipped", test_skips_empty},
	{"hostile names", test_hostile_names},
	{"missing gnuplot", test_missing_gnuplot},
	{"compare plot", test_compare},
	{"many cells, long names", test_many_cells},
	{"variables through a file", test_vars_file},
	{"one traced cell without BPF (README's scenario)", test_one_traced_no_bpf},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE_BESIDE("render-gnuplot", plot_init, plot_clean, plot_tests);
