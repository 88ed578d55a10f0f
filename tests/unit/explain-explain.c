// SPDX-License-Identifier: GPL-2.0
/* On fixed inputs with known answers: a cell's explain files and object and their reading back (explain/explain, model/explain), and the scenario keys and the plan's explained cells. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/outdir.h"
#include "core/tb.h"
#include "explain/attribute.h"
#include "explain/explain.h"
#include "explain/flamegraph.h"
#include "explain/fold.h"
#include "plan/plan.h"
#include "model/explain.h"
#include "model/result.h"
#include "parse/scenario.h"
#include "tb_test.h"

static void add(struct tb_fold *f, const char *stack, double n)
{
	CU_ASSERT_EQUAL_FATAL(tb_fold_add(f, stack, strlen(stack), n), 0);
}


/* ---- a cell's explanation --------------------------------------------------------------- */

static struct tb_result *one_cell_result(const char *dir)
{
	struct tb_result *r = tb_result_new();
	struct tb_cell *b, *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	b = tb_result_add_cell(r);
	b->id = strdup("getpid/none");
	b->workload = strdup("getpid");
	b->tracer = strdup("none");
	b->baseline = true;
	c = tb_result_add_cell(r);
	c->id = strdup("getpid/tp getpid");
	c->workload = strdup("getpid");
	c->tracer = strdup("tp getpid");
	c->has_overhead = true;
	c->overhead.ns_per_op = 60;
	c->overhead.ns_ci_lo = 55;
	c->overhead.ns_ci_hi = 65;
	r->dir = strdup(dir);
	return r;
}

/* tb_explain_publish into the run directory dir, through a handle of it as a run opens it. */
static int publish(struct tb_result *r, struct tb_cell *c, const char *dir,
		   const struct tb_explain_run *b, const struct tb_explain_run *t,
		   const struct tb_explain_settings *set)
{
	struct tb_dir d;
	int ret;

	CU_ASSERT_EQUAL_FATAL(tb_dir_open(&d, dir, TB_DIR_PATH, 0), 0);
	ret = tb_explain_publish(r, c, &d, b, t, set);
	tb_dir_close(&d);
	return ret;
}

/* 4000 Hz (250 us) over 1e7 ops per side: one raw sample is 25 ns/op x 1e-3 ... */
static void runs(struct tb_explain_run *b, struct tb_explain_run *t)
{
	tb_explain_run_init(b);
	tb_explain_run_init(t);
	add(&b->fold, "tracebench;main;syscall;do_syscall_64_[k]", 2000);
	add(&b->fold, "tracebench;main;run", 400);
	add(&t->fold, "tracebench;main;syscall;do_syscall_64_[k]", 2000);
	add(&t->fold, "tracebench;main;syscall;do_syscall_64_[k];trace_event_raw_event_x_[k]",
	    1600);
	add(&t->fold, "tracebench;main;run", 800);
	b->ops = t->ops = 10000000;
	b->st.samples = 2400;
	t->st.samples = 4400;
	b->runs = t->runs = 3;
	b->ns[0] = b->ns[1] = b->ns[2] = 61;
	t->ns[0] = 120;
	t->ns[1] = 110;
	t->ns[2] = 125;
}

static void test_publish(void)
{
	const char *dir = tb_test_tmpdir();
	struct tb_explain_settings set = {.period_ns = 250000, .tolerance = 0.25};
	struct tb_explain_run b, t;
	struct tb_result *r;
	struct tb_cell_explain *e;
	struct tb_fold lb, lt;
	char path[512], *text = NULL;
	size_t len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	r = one_cell_result(dir);
	runs(&b, &t);
	CU_ASSERT_EQUAL_FATAL(publish(r, &r->cells[1], dir, &b, &t, &set), 0);
	e = r->cells[1].explain;
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NULL(e->error);
	CU_ASSERT_STRING_EQUAL(e->dir, "explain/getpid.tp_getpid");
	CU_ASSERT_EQUAL(e->per_ops, 1e8); /* 1e6 and 1e7 would weigh a sample < 10 counts */
	CU_ASSERT_DOUBLE_EQUAL(e->frequency_hz, 4000, 1e-9);
	/* 2400 -> 4400 samples of 250 us over 1e7 ops: 60 -> 110 ns/op */
	CU_ASSERT_DOUBLE_EQUAL(e->base.cpu_ns_per_op, 60, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e->traced.cpu_ns_per_op, 110, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e->added_ns, 50, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e->added_se_ns, 250000 * sqrt(4400 / 1e14 + 2400 / 1e14), 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e->profiled_overhead_ns, 120 - 61, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e->share, 50.0 / 60, 1e-9);
	CU_ASSERT_TRUE(e->attributable);
	CU_ASSERT_TRUE(e->explained);
	CU_ASSERT_STRING_EQUAL(e->fns[0].name, "trace_event_raw_event_x");
	CU_ASSERT_TRUE(e->fns[0].kernel);
	CU_ASSERT_DOUBLE_EQUAL(e->fns[0].self_traced, 40, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e->fns[0].self_share, 40.0 / 60, 1e-9);
	/* the files: counts per 1e8 ops (x 10) */
	snprintf(path, sizeof(path), "%s/explain/getpid.tp_getpid/base.folded", dir);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &text, &len), 0);
	CU_ASSERT_STRING_EQUAL(text, "tracebench;main;run 4000\n"
				     "tracebench;main;syscall;do_syscall_64_[k] 20000\n");
	free(text);
	snprintf(path, sizeof(path), "%s/explain/getpid.tp_getpid/diff.folded", dir);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "tracebench;main;run 4000 8000\n"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(text, "do_syscall_64_[k];trace_event_raw_event_x_[k] 0 16000\n"));
	free(text);
	snprintf(path, sizeof(path), "%s/explain/getpid.tp_getpid/diff.svg", dir);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &text, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<title>trace_event_raw_event_x [kernel]: 40.0 ns/op"));
	free(text);
	/* read back and recomputed: the same answer */
	tb_fold_init(&lb);
	tb_fold_init(&lt);
	CU_ASSERT_EQUAL_FATAL(tb_explain_load(r, &r->cells[1], &lb, &lt), 0);
	e->added_ns = e->share = NAN;
	CU_ASSERT_EQUAL(tb_explain_recompute(&r->cells[1], &lb, &lt), 0);
	CU_ASSERT_DOUBLE_EQUAL(e->added_ns, 50, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(e->share, 50.0 / 60, 1e-9);
	tb_fold_free(&lb);
	tb_fold_free(&lt);
	/* a second cell with the same name gets its own directory */
	free(r->cells[0].id);
	r->cells[0].id = strdup("getpid/tp getpid");
	CU_ASSERT_EQUAL(publish(r, &r->cells[0], dir, &b, &t, &set), 0);
	CU_ASSERT_STRING_EQUAL(r->cells[0].explain->dir, "explain/getpid.tp_getpid-2");
	tb_explain_run_free(&b);
	tb_explain_run_free(&t);
	tb_result_free(r);
}

static void test_publish_limits(void)
{
	const char *dir = tb_test_tmpdir();
	struct tb_explain_settings set = {
		.period_ns = 250000, .tolerance = 0.25, .kallsyms_hidden = true};
	struct tb_explain_run b, t;
	struct tb_result *r;
	struct tb_cell_explain *e;

	r = one_cell_result(dir);
	runs(&b, &t);
	/* too few samples: said, not attributed */
	b.st.samples = 150;
	t.st.truncated = 44;
	t.st.max_stack = 127;
	t.st.user_only = true;
	snprintf(t.st.user_only_why, sizeof(t.st.user_only_why), "kernel refused");
	CU_ASSERT_EQUAL_FATAL(publish(r, &r->cells[1], dir, &b, &t, &set), 0);
	e = r->cells[1].explain;
	CU_ASSERT_FALSE(e->attributable);
	CU_ASSERT_FALSE(e->explained);
	CU_ASSERT_PTR_NOT_NULL(strstr(e->statement, "too few samples to attribute"));
	CU_ASSERT_EQUAL(json_array_size(e->limits), 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_array_get(e->limits, 0)),
				      "user space only: kernel refused"));
	CU_ASSERT_PTR_NOT_NULL(strstr(json_string_value(json_array_get(e->limits, 1)),
				      "kernel symbols are hidden"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(json_string_value(json_array_get(e->limits, 2)),
		       "1.00% of the traced samples hit kernel.perf_event_max_stack"));
	/* a side without a profile: why, and no files */
	snprintf(t.error, sizeof(t.error), "the explain profiler could not open: refused");
	CU_ASSERT_EQUAL(publish(r, &r->cells[1], dir, &b, &t, &set), 0);
	e = r->cells[1].explain;
	CU_ASSERT_PTR_NOT_NULL_FATAL(e->error);
	CU_ASSERT_PTR_NOT_NULL(strstr(e->error, "could not open"));
	CU_ASSERT_PTR_NULL(e->dir);
	tb_explain_run_free(&b);
	tb_explain_run_free(&t);
	tb_result_free(r);
}

/* What the victim directory holds: only "file", still "precious". */
static bool victim_untouched(const char *victim)
{
	char path[PATH_MAX], *text = NULL;
	DIR *d = opendir(victim);
	struct dirent *de;
	int n = 0;
	bool ok;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "%s/file", victim);
	ok = n == 1 && !tb_read_file(path, &text, NULL) && !strcmp(text, "precious");
	free(text);
	return ok;
}

/* A run directory and a victim directory beside it, for the link cases. */
struct links {
	struct tb_result *r;
	struct tb_explain_run b, t;
	struct tb_explain_settings set;
	char dir[256], victim[256], file[300];
};

/*
 * A link to target planted as rel in the run directory: publish refuses it (-ELOOP), leaves it
 * as it is and writes nothing where it points; then the link is removed (and a directory made
 * in its place when dir_after, for the next case).
 */
static void refused_at(struct links *x, const char *rel, const char *target, bool dir_after)
{
	char p[600];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", x->dir, rel);
	CU_ASSERT_EQUAL_FATAL(symlink(target, p), 0);
	CU_ASSERT_EQUAL(publish(x->r, &x->r->cells[1], x->dir, &x->b, &x->t, &x->set), -ELOOP);
	CU_ASSERT(victim_untouched(x->victim));
	CU_ASSERT(!lstat(p, &st) && S_ISLNK(st.st_mode));
	CU_ASSERT_EQUAL(unlink(p), 0);
	if (dir_after)
		CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
}

/*
 * The explain files go through the run directory's handle: a link planted as explain/, as the
 * cell's directory or as one of its files is refused and left as it is, and the run directory
 * swapped for a link after it was opened still gets the files, not the link's target.
 */
static void test_publish_links(void)
{
	enum tb_log_level old = tb_log_get_level();
	struct links x = {.set = {.period_ns = 250000, .tolerance = 0.25}};
	char moved[300], p[600];
	struct tb_dir d;
	struct stat st;

	snprintf(x.dir, sizeof(x.dir), "%s", tb_test_tmpdir());
	snprintf(x.victim, sizeof(x.victim), "%s", tb_test_tmpdir());
	snprintf(x.file, sizeof(x.file), "%s/file", x.victim);
	CU_ASSERT_EQUAL_FATAL(tb_write_atomic(x.file, "precious", 8, 0644), 0);
	x.r = one_cell_result(x.dir);
	runs(&x.b, &x.t);
	tb_log_set_level(TB_LOG_SILENT);
	refused_at(&x, "explain", x.victim, true);
	refused_at(&x, "explain/getpid.tp_getpid", x.victim, true);
	refused_at(&x, "explain/getpid.tp_getpid/traced.folded", x.file, false);
	snprintf(p, sizeof(p), "%s/new-file", x.victim); /* dangling: not created either */
	refused_at(&x, "explain/getpid.tp_getpid/diff.svg", p, false);
	refused_at(&x, "explain/getpid.tp_getpid/traced.svg", x.file, false); /* after diff.svg */
	/* the run directory renamed away and a link to the victim put in its place, once opened */
	CU_ASSERT_EQUAL_FATAL(tb_dir_open(&d, x.dir, TB_DIR_PATH, 0), 0);
	snprintf(moved, sizeof(moved), "%s.moved", x.dir);
	CU_ASSERT_EQUAL_FATAL(rename(x.dir, moved), 0);
	CU_ASSERT_EQUAL_FATAL(symlink(x.victim, x.dir), 0);
	CU_ASSERT_EQUAL(tb_explain_publish(x.r, &x.r->cells[1], &d, &x.b, &x.t, &x.set), 0);
	tb_dir_close(&d);
	CU_ASSERT(victim_untouched(x.victim));
	snprintf(p, sizeof(p), "%s/explain/getpid.tp_getpid/traced.svg", moved);
	CU_ASSERT(!lstat(p, &st) && S_ISREG(st.st_mode));
	tb_log_set_level(old);
	tb_explain_run_free(&x.b);
	tb_explain_run_free(&x.t);
	tb_result_free(x.r);
}

/* The object through result.json and back; bad objects are refused naming the key. */
static void test_result_json(void)
{
	const char *dir = tb_test_tmpdir();
	struct tb_explain_settings set = {.period_ns = 250000, .tolerance = 0.25};
	struct tb_explain_run b, t;
	struct tb_result *r, *back;
	const struct tb_cell_explain *e;
	json_t *doc;
	char path[512];

	r = one_cell_result(dir);
	runs(&b, &t);
	CU_ASSERT_EQUAL_FATAL(publish(r, &r->cells[1], dir, &b, &t, &set), 0);
	snprintf(path, sizeof(path), "%s/result.json", dir);
	CU_ASSERT_EQUAL_FATAL(tb_result_save(r, path), 0);
	CU_ASSERT_EQUAL_FATAL(tb_result_load(path, &back), 0);
	CU_ASSERT_STRING_EQUAL(back->dir, dir);
	e = back->cells[1].explain;
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NULL(back->cells[0].explain);
	CU_ASSERT_STRING_EQUAL(e->dir, r->cells[1].explain->dir);
	CU_ASSERT_DOUBLE_EQUAL(e->added_ns, 50, 1e-9);
	CU_ASSERT_EQUAL(e->traced.samples, 4400);
	CU_ASSERT_EQUAL(e->nfns, r->cells[1].explain->nfns);
	CU_ASSERT_STRING_EQUAL(e->fns[0].name, "trace_event_raw_event_x");
	CU_ASSERT_TRUE(e->fns[0].kernel);
	CU_ASSERT_DOUBLE_EQUAL(e->fns[0].self_traced, 40, 1e-9);
	CU_ASSERT_TRUE(e->explained);
	tb_result_free(back);
	/* refused: each names its key */
	static const struct {
		const char *key;
		json_t *value;
		const char *msg;
	} bad[] = {
		{"dir", NULL, "explain: dir: \"../../etc\" is not explain/<name>"},
		{"period_ns", NULL, "explain: period_ns: must be >= 1, found 0"},
		{"traced", NULL, "explain: traced.samples: must be >= 0, found -1"},
		{"functions", NULL, "explain: functions[0].where: expected"},
		{"limits", NULL, "explain: limits[0]: expected a string"},
	};
	for (size_t i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		json_t *o, *x;
		struct tb_result *out = NULL;

		doc = tb_result_to_json(r);
		o = json_object_get(json_array_get(json_object_get(doc, "cells"), 1), "explain");
		switch (i) {
		case 0:
			json_object_set_new(o, "dir", json_string("../../etc"));
			break;
		case 1:
			json_object_set_new(o, "period_ns", json_integer(0));
			break;
		case 2:
			json_object_set_new(json_object_get(o, "traced"), "samples",
					    json_integer(-1));
			break;
		case 3:
			x = json_array_get(json_object_get(o, "functions"), 0);
			json_object_set_new(x, "where", json_string("elsewhere"));
			break;
		default:
			json_array_append_new(json_object_get(o, "limits"), json_integer(3));
		}
		CU_ASSERT_EQUAL(tb_result_from_json(doc, "r.json", &out), -EINVAL);
		if (!strstr(tb_result_last_error(), bad[i].msg))
			printf("\n    wanted \"%s\" in \"%s\"\n", bad[i].msg,
			       tb_result_last_error());
		CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), bad[i].msg));
		tb_result_free(out);
		json_decref(doc);
	}
	CU_ASSERT_TRUE(tb_cell_explain_dir_ok("explain/a.b-c_d+e"));
	CU_ASSERT_FALSE(tb_cell_explain_dir_ok("explain/.."));
	CU_ASSERT_FALSE(tb_cell_explain_dir_ok("explain/a/b"));
	CU_ASSERT_FALSE(tb_cell_explain_dir_ok("explain/"));
	CU_ASSERT_FALSE(tb_cell_explain_dir_ok("/tmp/explain/a"));
	tb_explain_run_free(&b);
	tb_explain_run_free(&t);
	tb_result_free(r);
}

static void test_load_tampered(void)
{
	const char *dir = tb_test_tmpdir();
	struct tb_explain_settings set = {.period_ns = 250000, .tolerance = 0.25};
	struct tb_explain_run b, t;
	struct tb_result *r;
	struct tb_fold lb, lt;
	char path[512];
	FILE *f;

	r = one_cell_result(dir);
	runs(&b, &t);
	CU_ASSERT_EQUAL_FATAL(publish(r, &r->cells[1], dir, &b, &t, &set), 0);
	snprintf(path, sizeof(path), "%s/explain/getpid.tp_getpid/traced.folded", dir);
	f = fopen(path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("tracebench;<script> lots\n", f);
	fclose(f);
	tb_fold_init(&lb);
	tb_fold_init(&lt);
	CU_ASSERT_EQUAL(tb_explain_load(r, &r->cells[1], &lb, &lt), -EINVAL);
	tb_fold_free(&lb);
	tb_fold_free(&lt);
	/* a result with no known directory has nothing to load */
	free(r->dir);
	r->dir = NULL;
	tb_fold_init(&lb);
	tb_fold_init(&lt);
	CU_ASSERT_EQUAL(tb_explain_load(r, &r->cells[1], &lb, &lt), -ENOENT);
	tb_fold_free(&lb);
	tb_fold_free(&lt);
	tb_explain_run_free(&b);
	tb_explain_run_free(&t);
	tb_result_free(r);
}


/* ---- the scenario keys and the plan -------------------------------------------------------- */

static struct tb_scenario *scn(const char *global, const char *a_key)
{
	char text[1024];
	struct tb_scenario *s = NULL;

	snprintf(text, sizeof(text),
		 "[global]\n%s\n[workload g]\ntype = getpid\n[tracer a]\ntype = delay\n%s\n"
		 "[tracer b]\ntype = delay\n[matrix]\nworkloads = g\ntracers = none, a, b\n",
		 global, a_key);
	tb_scenario_parse(text, "x.ini", &s);
	return s;
}

static void test_scenario_keys(void)
{
	struct tb_scenario *s = scn("explain-samples = 4\nexplain-frequency = 999\n"
				    "explain-tolerance = 10%",
				    "explain = true");
	struct tb_plan_cell *cells = NULL;
	struct tb_result *r = tb_result_new();
	size_t n = 0, x = 0;
	struct tb_plan p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_FALSE(s->explain);
	CU_ASSERT_EQUAL(s->explain_samples, 4);
	CU_ASSERT_EQUAL(s->explain_hz, 999);
	CU_ASSERT_DOUBLE_EQUAL(s->explain_tolerance, 0.10, 1e-12);
	CU_ASSERT_EQUAL(s->tracers[tb_scenario_tracer(s, "a")].explain, 1);
	CU_ASSERT_EQUAL(s->tracers[tb_scenario_tracer(s, "b")].explain, 0);
	CU_ASSERT_EQUAL_FATAL(tb_plan_expand(s, r, &cells, &n), 0);
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_FALSE(cells[0].explain); /* the baseline is profiled, not explained */
	CU_ASSERT_TRUE(cells[1].explain);
	CU_ASSERT_FALSE(cells[2].explain);
	p = (struct tb_plan){.s = s, .cells = cells, .ncells = n};
	CU_ASSERT_EQUAL(tb_plan_explain_cells(&p, &x), 2); /* a and its baseline */
	CU_ASSERT_EQUAL(x, 1);
	free(cells);
	tb_result_free(r);
	tb_scenario_free(s);
	/* [global] explain is every section's default; a section's own key wins */
	s = scn("explain = true", "explain = false");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE(s->explain);
	CU_ASSERT_EQUAL(s->explain_samples, 3);
	CU_ASSERT_EQUAL(s->explain_hz, 4000);
	CU_ASSERT_EQUAL(s->tracers[tb_scenario_tracer(s, "a")].explain, 0);
	CU_ASSERT_EQUAL(s->tracers[tb_scenario_tracer(s, "b")].explain, 1);
	tb_scenario_free(s);
	/* bad values are refused (file:line said) */
	CU_ASSERT_PTR_NULL(scn("explain-frequency = 50", ""));
	CU_ASSERT_PTR_NULL(scn("explain-samples = 0", ""));
	CU_ASSERT_PTR_NULL(scn("explain-tolerance = 0%", ""));
	CU_ASSERT_PTR_NULL(scn("", "explain = maybe"));
}

static CU_TestInfo explain_tests[] = {
	{"cell: files, object, reading back", test_publish},
	{"cell: limits and failures said", test_publish_limits},
	{"cell: no file written through a link", test_publish_links},
	{"cell: result.json round trip and validation", test_result_json},
	{"cell: tampered folded file refused", test_load_tampered},
	{"scenario keys and the plan's explained cells", test_scenario_keys},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("explain-explain", NULL, NULL, explain_tests);
