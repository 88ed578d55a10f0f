// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench history add|list|show|detect|report|plot|export|migrate`: the history of runs
 * (history/store.h) and its change points (history/analysis.h). Each subcommand parses its
 * options, opens the store, drives the analysis and hands what it found to outputs/.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/outdir.h"
#include "core/suggest.h"
#include "core/tb.h"
#include "history/analysis.h"
#include "history/detect.h"
#include "history/store.h"
#include "render/history-formats.h"
#include "render/html/history-report.h"
#include "render/gnuplot/plot.h"
#include "model/labels.h"
#include "model/result.h"

#define DEFAULT_REPORT_NAME "history.html"
#define DEFAULT_REPORT	    "results/" DEFAULT_REPORT_NAME
#define DEFAULT_PLOTDIR	    "results/history-plots"
#define DEFAULT_MAX_PLOTS   40
#define MAX_WALK	    100000 /* result files taken from the directories of one add */

const char tb_usage_history[] =
	"usage: tracebench history <command> [options]\n"
	"  add RESULT.json|DIR...    add runs (directories are searched for result.json files)\n"
	"  list [SERIES...]          the series with their runs and span (--runs: the runs)\n"
	"  show SERIES...            a series' points with their CIs, change points marked\n"
	"  detect [SERIES...]        the change points of every series (or of those named)\n"
	"  report [SERIES...]        the HTML history page (-o FILE.html)\n"
	"  plot [SERIES...]          trend plots, PNG and SVG (-o DIR)\n"
	"  export RUN                the stored result.json of run RUN (-o FILE)\n"
	"  migrate                   bring an older history's schema up to this version\n"
	"Options of every command: --db FILE|postgresql://... (default $TRACEBENCH_DB, else\n"
	"results/history.db), --help. SERIES: a series id (4 or more hex digits) or a glob over\n"
	"scenario/workload/tracer/metric, e.g. 'quick/getpid/*/overhead_pct'.\n"
	"Exit 0 ok; 2 bad input (a result file, the database, no such series); 3 the server\n"
	"cannot be reached; 1 other failures. 'tracebench history <command> --help' for more.\n" TB_CLI_COMMON_USAGE;

/* The options of every subcommand; each takes those its `opts` letters name. */
struct hopts {
	const char *db, *out;
	bool json, comparable, all, runs, partial;
	json_t *labels;
	struct tb_detect_opts det;
	size_t max_plots;
	int argc;
	char **argv; /* the subcommand's arguments (series, files) */
};

static const struct option longopts[] = {
	{"db", required_argument, NULL, 'D'},	   {"json", no_argument, NULL, 'j'},
	{"comparable", no_argument, NULL, 'c'},	   {"all", no_argument, NULL, 'a'},
	{"runs", no_argument, NULL, 'R'},	   {"include-partial", no_argument, NULL, 'P'},
	{"label", required_argument, NULL, 'L'},   {"window", required_argument, NULL, 'w'},
	{"p-value", required_argument, NULL, 'p'}, {"min-magnitude", required_argument, NULL, 'm'},
	{"output", required_argument, NULL, 'o'},  {"max-plots", required_argument, NULL, 'M'},
	{"help", no_argument, NULL, 'h'},	   {NULL, 0, NULL, 0},
};

#define DETECT_OPTS                                                                           \
	"  --window N          points per split window (default 50, Otava's)\n"               \
	"  --p-value P         a change needs p < P on the points and the pooled samples\n"   \
	"                      (default 0.001, Otava's)\n"                                    \
	"  --min-magnitude M   and at least this size: relative for ns metrics, percentage\n" \
	"                      points for % metrics (default 3%)\n"                           \
	"  --comparable        join runs of one scenario name whatever their scenario text\n"

/* ---- add ------------------------------------------------------------------------------------- */

struct files {
	char **v;
	size_t n, cap;
};

static struct files *walk_files; /* nftw has no context argument */

static int files_add(struct files *fl, const char *path)
{
	if (fl->n == fl->cap) {
		size_t cap = fl->cap ? 2 * fl->cap : 64;
		char **grown = realloc(fl->v, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		fl->v = grown;
		fl->cap = cap;
	}
	fl->v[fl->n] = strdup(path);
	return fl->v[fl->n] ? (fl->n++, 0) : -ENOMEM;
}

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type == FTW_F && !strcmp(path + ftw->base, "result.json"))
		return walk_files->n >= MAX_WALK ? -E2BIG : files_add(walk_files, path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The result files of arg: itself, or the result.json files below a directory (links not
 * followed), sorted. */
static int collect(const char *arg, struct files *fl)
{
	struct stat st;
	size_t first = fl->n;
	int ret;

	if (lstat(arg, &st) || !S_ISDIR(st.st_mode))
		return files_add(fl, arg);
	walk_files = fl;
	ret = nftw(arg, walk_one, 32, FTW_PHYS);
	if (ret == -E2BIG)
		tb_err("history add: more than %d result files under %s", MAX_WALK, arg);
	else if (ret)
		tb_err("history add: cannot search %s: %s", arg, strerror(errno));
	if (!ret && fl->n == first)
		tb_warn("history add: no result.json under %s", arg);
	qsort(fl->v + first, fl->n - first, sizeof(*fl->v), cmp_str);
	return ret ? -EINVAL : 0;
}

/* Add one file. Returns 0, 1 (bad or skipped file: go on), or a negative database error. */
static int add_file(struct tb_history *h, const struct hopts *o, const char *path, json_t *out)
{
	struct tb_history_added info;
	struct tb_result *r = NULL;
	json_t *doc = NULL;
	const char *skip = NULL;
	int ret;

	if (tb_result_load_doc(path, &r, &doc))
		return 1;
	if (r->partial && !o->partial)
		skip = "a partial run (--include-partial adds it)";
	else if (r->aa)
		skip = "an A/A calibration run, which measures no tracer";
	if (skip) {
		tb_warn("history add: %s: skipped: %s", path, skip);
		ret = 1;
		goto out;
	}
	ret = tb_history_add_result(h, r, doc, o->labels, path, &info);
	if (ret)
		goto out;
	if (out)
		json_array_append_new(out, json_pack("{s:s, s:I, s:b, s:I, s:s}", "file", path,
						     "run_id", (json_int_t)info.run_id, "added",
						     !info.existed, "points",
						     (json_int_t)info.npoints, "hash", info.hash));
	else if (info.existed)
		printf("%s: already in the history as run %lld: nothing changed%s\n", path,
		       (long long)info.run_id,
		       o->labels && json_object_size(o->labels) ? " (its labels stay)" : "");
	else
		printf("%s: added as run %lld (%zu points, hardware class %.8s, scenario %s)\n",
		       path, (long long)info.run_id, info.npoints, info.hw_class, info.variant);
out:
	json_decref(doc);
	tb_result_free(r);
	return ret;
}

static int cmd_add(struct hopts *o)
{
	struct files fl = {0};
	struct tb_history *h = NULL;
	json_t *out = o->json ? json_array() : NULL;
	int ret = 0, bad = 0;

	if (!o->argc) {
		tb_err("history add: no result file or directory given");
		return TB_EXIT_USAGE;
	}
	for (int i = 0; !ret && i < o->argc; i++)
		ret = collect(o->argv[i], &fl);
	if (!ret)
		ret = tb_history_open(tb_history_target(o->db), TB_HISTORY_WRITE, &h);
	for (size_t i = 0; !ret && i < fl.n; i++) {
		ret = add_file(h, o, fl.v[i], out);
		bad += ret == 1;
		ret = ret == 1 ? 0 : ret;
	}
	if (!ret && out) {
		json_dumpf(out, stdout, JSON_INDENT(2));
		printf("\n");
	}
	for (size_t i = 0; i < fl.n; i++)
		free(fl.v[i]);
	free(fl.v);
	json_decref(out);
	tb_history_close(h);
	if (ret)
		return ret == -EINVAL && !h ? TB_EXIT_USAGE : tb_history_exit_code(ret);
	return bad ? TB_EXIT_USAGE : TB_EXIT_OK;
}

/* ---- the series a command is about ----------------------------------------------------------- */

/* The series of h matching o's arguments (all without arguments). Every argument must match
 * one. Returns 0 with *out (free with tb_history_series_free), or -errno. */
static int select_series(struct tb_history *h, const struct hopts *o, struct tb_hseries **out,
			 size_t *n)
{
	struct tb_hseries *all;
	size_t nall, w = 0;
	bool *hit;
	int ret;

	ret = tb_history_series(h, o->comparable, &all, &nall);
	if (ret)
		return ret;
	hit = calloc((size_t)o->argc + 1, sizeof(*hit));
	if (!hit) {
		tb_history_series_free(all, nall);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nall; i++) {
		bool keep = !o->argc;

		for (int a = 0; a < o->argc; a++)
			if (tb_hseries_match(&all[i], o->argv[a]))
				keep = hit[a] = true;
		if (keep)
			all[w++] = all[i];
		else
			tb_hseries_free_fields(&all[i]);
	}
	for (int a = 0; !ret && a < o->argc; a++)
		if (!hit[a]) {
			tb_err("history: no series matches '%s' in %s ('tracebench history list' shows them)",
			       o->argv[a], tb_history_name(h));
			ret = -EINVAL;
		}
	free(hit);
	if (ret) {
		tb_history_series_free(all, w);
		return ret;
	}
	*out = all;
	*n = w;
	return 0;
}

/* Open the history to read and select the series; the exit code on failure, else -1. */
static int open_series(const struct hopts *o, struct tb_history **h, struct tb_hseries **s,
		       size_t *n)
{
	int ret = tb_history_open(tb_history_target(o->db), 0, h);

	*s = NULL;
	*n = 0;
	if (!ret)
		ret = select_series(*h, o, s, n);
	return ret ? tb_history_exit_code(ret) : -1;
}

static void print_json(json_t *doc)
{
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	printf("\n");
}

/* ---- list ------------------------------------------------------------------------------------ */

static int print_run(void *ctx, const struct tb_history_run *run)
{
	json_t *arr = ctx;

	if (arr)
		return json_array_append_new(arr, tb_render_history_run_json(run)) ? -ENOMEM : 0;
	tb_render_history_run_print(stdout, run);
	return 0;
}

static int list_runs(struct tb_history *h, const struct hopts *o)
{
	json_t *arr = o->json ? json_array() : NULL;
	int ret;

	if (!o->json)
		printf("%6s  %-20s  %-24s %-16s %-24s %s\n", "run", "started", "scenario", "host",
		       "kernel", "labels");
	ret = tb_history_runs(h, print_run, arr);
	if (!ret && arr)
		print_json(arr);
	json_decref(arr);
	return ret;
}

static int cmd_list(struct hopts *o)
{
	struct tb_history_counts c;
	struct tb_history *h = NULL;
	struct tb_hseries *s = NULL;
	size_t n = 0;
	int ret, rc;

	if (o->runs) {
		ret = tb_history_open(tb_history_target(o->db), 0, &h);
		if (!ret)
			ret = list_runs(h, o);
		tb_history_close(h);
		return tb_history_exit_code(ret);
	}
	rc = open_series(o, &h, &s, &n);
	if (rc >= 0)
		goto out;
	ret = tb_history_counts(h, &c);
	if (!ret && o->json) {
		json_t *doc = json_pack("{s:s, s:s, s:i, s:I, s:I, s:s, s:s, s:[]}", "db",
					tb_history_name(h), "backend", tb_history_backend(h),
					"schema_version", tb_history_schema_version(h), "runs",
					(json_int_t)c.runs, "points", (json_int_t)c.points, "first",
					c.first, "last", c.last, "series");

		for (size_t i = 0; doc && i < n; i++)
			json_array_append_new(json_object_get(doc, "series"),
					      tb_render_history_series_json(&s[i]));
		if (doc)
			print_json(doc);
		ret = doc ? 0 : -ENOMEM;
		json_decref(doc);
	} else if (!ret) {
		tb_render_history_series_print(stdout, s, n);
		printf("\n%s (%s, schema %d): %lld runs, %zu series shown, from %s to %s\n",
		       tb_history_name(h), tb_history_backend(h), tb_history_schema_version(h),
		       (long long)c.runs, n, c.first, c.last);
	}
	rc = tb_history_exit_code(ret);
out:
	tb_history_series_free(s, n);
	tb_history_close(h);
	return rc;
}

/* ---- show, detect ---------------------------------------------------------------------------- */

/* Analyse each selected series in turn (one in memory at a time) and hand it to fn. */
static int each_series(struct hopts *o, bool keep_points,
		       int (*fn)(struct hopts *o, struct tb_history *h,
				 const struct tb_hanalysis *a, void *ctx),
		       void *ctx)
{
	struct tb_history *h = NULL;
	struct tb_hseries *s = NULL;
	size_t n = 0;
	int rc, ret = 0;

	rc = open_series(o, &h, &s, &n);
	if (rc >= 0)
		goto out;
	for (size_t i = 0; !ret && i < n; i++) {
		struct tb_hanalysis a;

		ret = tb_history_analyze(h, &s[i], &o->det, keep_points, &a);
		if (!ret)
			ret = fn(o, h, &a, ctx);
		tb_hanalysis_free(&a); /* also after a failed analysis: it left a empty */
	}
	rc = tb_history_exit_code(ret);
out:
	tb_history_series_free(s, n);
	tb_history_close(h);
	return rc;
}

/* What show and detect gather: the JSON array, or counts for the summary line. */
struct gather {
	json_t *series;
	size_t nseries, nchanged, nchanges;
	char db[512]; /* the history's name (it is closed before the JSON is printed) */
};

static int show_one(struct hopts *o, struct tb_history *h, const struct tb_hanalysis *a, void *ctx)
{
	struct gather *g = ctx;

	(void)h;
	if (o->json)
		return json_array_append_new(g->series, tb_render_history_analysis_json(a, true))
			       ? -ENOMEM
			       : 0;
	tb_render_history_show_print(stdout, a);
	printf("\n");
	return 0;
}

static int detect_one(struct hopts *o, struct tb_history *h, const struct tb_hanalysis *a,
		      void *ctx)
{
	struct gather *g = ctx;

	if (!g->db[0]) {
		snprintf(g->db, sizeof(g->db), "%s", tb_history_name(h));
		if (!o->json) {
			printf("%s: ", g->db);
			tb_render_history_detect_settings_print(stdout, &o->det, o->comparable);
		}
	}
	g->nseries++;
	g->nchanged += a->nch > 0;
	g->nchanges += a->nch;
	if (o->json)
		return json_array_append_new(g->series, tb_render_history_analysis_json(a, false))
			       ? -ENOMEM
			       : 0;
	tb_render_history_detect_print(stdout, a, o->all);
	return 0;
}

static int cmd_show(struct hopts *o)
{
	struct gather g = {.series = json_array()};
	int rc;

	if (!o->argc) {
		tb_err("history show: name the series (an id or a glob; 'history list' shows them)");
		json_decref(g.series);
		return TB_EXIT_USAGE;
	}
	rc = g.series ? each_series(o, true, show_one, &g) : TB_EXIT_FAIL;
	if (rc == TB_EXIT_OK && o->json)
		print_json(g.series);
	json_decref(g.series);
	return rc;
}

static int cmd_detect(struct hopts *o)
{
	struct gather g = {.series = json_array()};
	int rc = g.series ? each_series(o, false, detect_one, &g) : TB_EXIT_FAIL;

	if (rc == TB_EXIT_OK && o->json) {
		json_t *doc =
			json_pack("{s:s, s:o, s:O}", "db", g.db, "settings",
				  tb_render_history_detect_settings_json(&o->det, o->comparable),
				  "series", g.series);

		if (doc)
			print_json(doc);
		rc = doc ? rc : TB_EXIT_FAIL;
		json_decref(doc);
	} else if (rc == TB_EXIT_OK) {
		printf("%zu series, %zu with change points (%zu change point%s)%s\n", g.nseries,
		       g.nchanged, g.nchanges, g.nchanges == 1 ? "" : "s",
		       !o->all && g.nchanged < g.nseries ? "; --all lists the others too" : "");
	}
	json_decref(g.series);
	return rc;
}

/* ---- report, plot ---------------------------------------------------------------------------- */

static int report_one(struct hopts *o, struct tb_history *h, const struct tb_hanalysis *a,
		      void *ctx)
{
	struct tb_hreport **rep = ctx;

	if (!*rep) {
		struct tb_history_counts c;
		int ret = tb_history_counts(h, &c);

		if (!ret)
			ret = tb_hreport_begin(rep, tb_history_name(h), &c, &o->det, o->comparable,
					       o->max_plots);
		if (ret)
			return ret;
	}
	return tb_hreport_add(*rep, a);
}

/* The page: -o FILE is the user's path; else results/history.html, written through the handle
 * of results/ (created when absent, not followed when it is a link, as a run's). */
static int cmd_report(struct hopts *o)
{
	struct tb_dir res = TB_DIR_INIT;
	struct tb_hreport *rep = NULL;
	int rc, ret;

	if (!o->out && (ret = tb_dir_open(&res, "results", TB_DIR_CREATE, 0755))) /* says why */
		return tb_dir_exit_code(ret);
	rc = each_series(o, true, report_one, &rep);
	if (rc != TB_EXIT_OK) {
		tb_hreport_free(rep);
		goto out;
	}
	if (!rep) {
		tb_err("history report: the history has no series yet");
		rc = TB_EXIT_USAGE;
		goto out;
	}
	ret = o->out ? tb_hreport_finish(rep, NULL, o->out)
		     : tb_hreport_finish(rep, &res, DEFAULT_REPORT_NAME);
	if (ret) {
		rc = tb_exit_code(ret) == TB_EXIT_OK ? TB_EXIT_FAIL : tb_exit_code(ret);
		goto out;
	}
	printf("report:  %s\n", o->out ? o->out : DEFAULT_REPORT);
out:
	tb_dir_close(&res);
	return rc;
}

struct plotted {
	const char *dir;
	int drawn, err;
};

static int plot_one(struct hopts *o, struct tb_history *h, const struct tb_hanalysis *a, void *ctx)
{
	struct plotted *p = ctx;
	int ret = tb_plot_trend(a, p->dir, 0);

	(void)o;
	(void)h;
	if (ret > 0)
		p->drawn++;
	else if (ret < 0 && !p->err)
		p->err = ret;
	return ret == -ENOENT ? -ENOENT : 0; /* without gnuplot, stop at the first */
}

static int cmd_plot(struct hopts *o)
{
	struct plotted p = {.dir = o->out ? o->out : DEFAULT_PLOTDIR};
	int rc = each_series(o, true, plot_one, &p);

	if (p.err == -ENOENT)
		return TB_EXIT_UNAVAILABLE;
	if (rc != TB_EXIT_OK)
		return rc;
	printf("plots:   %s/plots/ (%d trend plot%s, PNG and SVG)\n", p.dir, p.drawn,
	       p.drawn == 1 ? "" : "s");
	return p.err ? tb_exit_code(p.err) : TB_EXIT_OK;
}

/* ---- export, migrate ------------------------------------------------------------------------- */

static int cmd_export(struct hopts *o)
{
	struct tb_history *h = NULL;
	char *json = NULL;
	int64_t id;
	size_t len = 0;
	int ret;

	if (o->argc != 1 || tb_parse_int(o->argv[0], &id) || id < 1) {
		tb_err("history export: name one run by its number ('history list --runs')");
		return TB_EXIT_USAGE;
	}
	ret = tb_history_open(tb_history_target(o->db), 0, &h);
	if (!ret)
		ret = tb_history_export(h, id, &json, &len);
	if (!ret && o->out) {
		ret = tb_write_atomic(o->out, json, len, 0644);
		if (ret)
			tb_err("history export: cannot write %s: %s", o->out, strerror(-ret));
	} else if (!ret) {
		ret = fwrite(json, 1, len, stdout) == len && putchar('\n') != EOF ? 0 : -EIO;
	}
	free(json);
	tb_history_close(h);
	return tb_history_exit_code(ret);
}

static int cmd_migrate(struct hopts *o)
{
	struct tb_history *h = NULL;
	int ret, from = 0;

	ret = tb_history_open(tb_history_target(o->db), TB_HISTORY_MIGRATE, &h);
	if (!ret)
		ret = tb_history_migrate(h, &from);
	if (!ret && from == TB_HISTORY_SCHEMA_VERSION)
		printf("%s: schema version %d is this tracebench's: nothing to do\n",
		       tb_history_name(h), from);
	else if (!ret)
		printf("%s: migrated from schema version %d to %d\n", tb_history_name(h), from,
		       TB_HISTORY_SCHEMA_VERSION);
	tb_history_close(h);
	return tb_history_exit_code(ret);
}

/* ---- the command ----------------------------------------------------------------------------- */

static const char usage_add[] =
	"usage: tracebench history add RESULT.json|DIR... [--db DB] [--label KEY=VALUE]...\n"
	"                              [--include-partial] [--json]\n"
	"Adds each run in one transaction; a run already there (same content, labels aside) is\n"
	"left as it is. Directories are searched for result.json files (links not followed).\n"
	"Partial and A/A runs are skipped unless --include-partial (partial runs). --label adds\n"
	"labels to what the result carries. Exit 2 when a file is bad (the others are added).\n" TB_CLI_COMMON_USAGE;
static const char usage_list[] =
	"usage: tracebench history list [SERIES...] [--db DB] [--runs] [--comparable] [--json]\n"
	"The series (id, scenario/workload/tracer/metric, hardware class, scenario variant, runs,\n"
	"first and last run), or with --runs every run with its labels.\n" TB_CLI_COMMON_USAGE;
static const char usage_show[] =
	"usage: tracebench history show SERIES... [--db DB] [--json] [detection options]\n"
	"Each point (run, time, value, CI, samples, verdict), the change points between them.\n" DETECT_OPTS
		TB_CLI_COMMON_USAGE;
static const char usage_detect[] =
	"usage: tracebench history detect [SERIES...] [--db DB] [--all] [--json] [options]\n"
	"The change points of every series (or those named): the run, its labels, the segment\n"
	"medians, the change with its CI, the p-values, and every environment field that\n"
	"changed at that run. --all also lists the series without change points.\n" DETECT_OPTS
		TB_CLI_COMMON_USAGE;
static const char usage_report[] =
	"usage: tracebench history report [SERIES...] [-o FILE.html] [--db DB] [--max-plots N]\n"
	"                                 [detection options]\n"
	"One self-contained HTML page (default results/history.html): the latest change point\n"
	"of each series, trend plots (at most --max-plots, default 40), all series.\n" DETECT_OPTS
		TB_CLI_COMMON_USAGE;
static const char usage_plot[] =
	"usage: tracebench history plot [SERIES...] [-o DIR] [--db DB] [detection options]\n"
	"A trend plot per series into DIR/plots/trend-<id>.{png,svg} (default\n"
	"results/history-plots). Exit 3 without gnuplot.\n" DETECT_OPTS TB_CLI_COMMON_USAGE;
static const char usage_export[] =
	"usage: tracebench history export RUN [-o FILE] [--db DB]\n"
	"The stored result.json of run RUN (its number in 'history list --runs'), to stdout or\n"
	"FILE.\n" TB_CLI_COMMON_USAGE;
static const char usage_migrate[] =
	"usage: tracebench history migrate [--db DB]\n"
	"Bring the history's schema up to this version, in one transaction (back it up first).\n" TB_CLI_COMMON_USAGE;

static const struct sub {
	const char *name;
	int (*fn)(struct hopts *o);
	const char *opts; /* the option letters it takes besides --db and --help */
	const char *usage;
} subs[] = {
	{"add", cmd_add, "jLP", usage_add},
	{"list", cmd_list, "jcR", usage_list},
	{"show", cmd_show, "jcwpm", usage_show},
	{"detect", cmd_detect, "jcawpm", usage_detect},
	{"report", cmd_report, "ocwpmM", usage_report},
	{"plot", cmd_plot, "ocwpm", usage_plot},
	{"export", cmd_export, "o", usage_export},
	{"migrate", cmd_migrate, "", usage_migrate},
};

/* For the man page (commands.h): each subcommand's --help. */
const struct tb_command tb_history_commands[] = {
	{"history add", NULL, NULL, usage_add},
	{"history list", NULL, NULL, usage_list},
	{"history show", NULL, NULL, usage_show},
	{"history detect", NULL, NULL, usage_detect},
	{"history report", NULL, NULL, usage_report},
	{"history plot", NULL, NULL, usage_plot},
	{"history export", NULL, NULL, usage_export},
	{"history migrate", NULL, NULL, usage_migrate},
	{NULL, NULL, NULL, NULL},
};

/* One option into o; returns -1 to go on, else the exit code. */
static int parse_opt(int c, struct hopts *o, const struct sub *sub)
{
	char err[256];
	int64_t i;
	int ret;

	if (c != 'D' && c != 'h' && !strchr(sub->opts, c)) {
		const char *name = "?";

		for (const struct option *lo = longopts; lo->name; lo++)
			if (lo->val == c)
				name = lo->name;
		tb_err("history %s: option --%s does not apply to %s", sub->name, name, sub->name);
		fputs(sub->usage, stderr);
		return TB_EXIT_USAGE;
	}
	switch (c) {
	case 'D':
		o->db = optarg;
		break;
	case 'j':
		o->json = true;
		break;
	case 'c':
		o->comparable = true;
		break;
	case 'a':
		o->all = true;
		break;
	case 'R':
		o->runs = true;
		break;
	case 'P':
		o->partial = true;
		break;
	case 'o':
		o->out = optarg;
		break;
	case 'L':
		if (!o->labels && !(o->labels = json_object()))
			return TB_EXIT_FAIL;
		ret = tb_labels_add(o->labels, optarg, err, sizeof(err));
		if (ret == -ENOMEM)
			return TB_EXIT_FAIL;
		if (ret)
			return tb_cli_bad_value("history add", "--label", optarg, err);
		break;
	case 'w':
		if (tb_parse_int(optarg, &i) || i < 2 * TB_DETECT_MIN_SEGMENT || i > 100000)
			return tb_cli_bad_value("history", "--window", optarg,
						"4 to 100000 points");
		o->det.window = (size_t)i;
		break;
	case 'p':
		if (tb_parse_double(optarg, &o->det.p_value) ||
		    !(o->det.p_value > 0 && o->det.p_value < 0.5))
			return tb_cli_bad_value("history", "--p-value", optarg,
						"a probability in (0, 0.5)");
		break;
	case 'm':
		ret = tb_parse_percent(optarg, &o->det.min_magnitude);
		if (ret)
			return tb_cli_bad_fraction("history", "--min-magnitude", optarg, ret,
						   false);
		if (o->det.min_magnitude > 100)
			return tb_cli_bad_value("history", "--min-magnitude", optarg,
						"a percentage such as 2% (0 for none)");
		break;
	case 'M':
		if (tb_parse_int(optarg, &i) || i < 0 || i > 10000)
			return tb_cli_bad_value("history", "--max-plots", optarg, "0 to 10000");
		o->max_plots = (size_t)i;
		break;
	case 'h':
		fputs(sub->usage, stdout);
		return TB_EXIT_OK;
	default:
		return TB_EXIT_USAGE;
	}
	return -1;
}

int tb_cli_history(int argc, char **argv)
{
	struct hopts o = {.max_plots = DEFAULT_MAX_PLOTS};
	const struct sub *sub = NULL;
	int c, rc = -1;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(tb_usage_history, argc < 2 ? stderr : stdout);
		return argc < 2 ? TB_EXIT_USAGE : TB_EXIT_OK;
	}
	for (size_t i = 0; i < TB_ARRAY_SIZE(subs); i++)
		if (!strcmp(argv[1], subs[i].name))
			sub = &subs[i];
	if (!sub) {
		struct tb_suggest sg;
		char hint[96];

		tb_suggest_init(&sg, argv[1]);
		for (size_t i = 0; i < TB_ARRAY_SIZE(subs); i++)
			tb_suggest_offer(&sg, subs[i].name);
		tb_err("history: unknown command '%s'%s", argv[1],
		       tb_suggest_text(&sg, hint, sizeof(hint)));
		fputs(tb_usage_history, stderr);
		return TB_EXIT_USAGE;
	}
	tb_detect_opts_init(&o.det);
	argc--;
	argv++;
	optind = 0;
	while (rc < 0 && (c = tb_cli_getopt(argc, argv, "o:h", longopts, sub->usage)) != -1)
		rc = c == '?' ? TB_EXIT_USAGE : parse_opt(c, &o, sub);
	if (rc < 0) {
		o.argc = argc - optind;
		o.argv = argv + optind;
		rc = sub->fn(&o);
	}
	json_decref(o.labels);
	return rc;
}
