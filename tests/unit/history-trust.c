// SPDX-License-Identifier: GPL-2.0
/*
 * A history trusts nothing it is given (history/): its URL's password never reaches a message or
 * an artefact, whatever the spelling libpq accepts; a database file made by someone else runs
 * none of its triggers or views inside tracebench and its values are checked as a result's are.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/tb.h"
#include "fixture.h"
#include "history/series.h"
#include "history/store.h"
#include "model/result.h"
#include "tb_test.h"

/* ---- the mask ------------------------------------------------------------------------------- */

static void expect_masked(const char *in, const char *want)
{
	char *m = tb_history_mask(in);

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	if (strcmp(m, want))
		fprintf(stderr, "\n  mask(%s) = %s, want %s\n", in, m, want);
	CU_ASSERT_STRING_EQUAL(m, want);
	CU_ASSERT_PTR_NULL(strstr(m, "SECRET"));
	free(m);
}

static void test_mask(void)
{
	expect_masked("results/history.db", "results/history.db");
	expect_masked("postgresql://u:SECRET@db.example:5433/hist",
		      "postgresql://u:***@db.example:5433/hist");
	expect_masked("--history=postgres://u:SECRET@h/d?sslmode=require",
		      "--history=postgresql://u:***@h/d?sslmode=require");
	/* libpq decodes the key: pass%77ord is password */
	expect_masked("postgresql://u@h/d?pass%77ord=SECRET", "postgresql://u:***@h/d");
	expect_masked("postgresql:///d?password=SECRET&user=u&host=/run/pg&port=5",
		      "postgresql://u:***@/d?host=/run/pg&port=5");
	expect_masked("postgresql://u@h/d?sslpassword=SECRET",
		      "postgresql://u@h/d?sslpassword=***");
	expect_masked("postgresql://u:SEC%52ET@h1:1,h2:2/d",
		      "postgresql://u:***@/d?host=h1,h2&port=1,2");
	/* what libpq cannot parse is not shown at all */
	expect_masked("postgresql://u:SECRET@h/d?nosuchkey=1", "postgresql://***");
	expect_masked("postgresql://u:SECRET@[::1/d", "postgresql://***");
}

/* A result written before run masked its command line: stored (and exported) without it. */
static void test_stored_command_line(void)
{
	struct tb_history_added info;
	struct tb_history *h = NULL;
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_RATE);
	char path[256], *json = NULL;
	size_t len = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	free(r->command_line);
	r->command_line =
		strdup("tracebench run x.ini --history=postgresql://u:SECRET@h/d?sslmode=disable");
	snprintf(path, sizeof(path), "%s/cl.db", tb_test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tb_history_open(path, TB_HISTORY_WRITE, &h), 0);
	CU_ASSERT_EQUAL(tb_history_add_result(h, r, NULL, NULL, "fixture", &info), 0);
	CU_ASSERT_EQUAL(tb_history_export(h, info.run_id, &json, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(json);
	CU_ASSERT_PTR_NULL(json ? strstr(json, "SECRET") : "");
	CU_ASSERT_PTR_NOT_NULL(json ? strstr(json, "postgresql://u:***@h/d?sslmode=disable")
				    : NULL);
	free(json);
	tb_history_close(h);
	tb_result_free(r);
}

/* ---- hostile SQLite files -------------------------------------------------------------- */

/* A new history file with one run of the fixture, then sql run on it by "someone else". */
static const char *hostile_db(const char *sql)
{
	static char path[256];
	struct tb_history_added info;
	struct tb_history *h = NULL;
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_RATE);
	sqlite3 *db = NULL;
	char *err = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(path, sizeof(path), "%s/h.db", tb_test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tb_history_open(path, TB_HISTORY_WRITE, &h), 0);
	CU_ASSERT_EQUAL_FATAL(tb_history_add_result(h, r, NULL, NULL, "fixture", &info), 0);
	tb_history_close(h);
	tb_result_free(r);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fprintf(stderr, "\n  %s: %s\n", sql, err);
	CU_ASSERT_PTR_NULL(err);
	sqlite3_free(err);
	sqlite3_close(db);
	return path;
}

/* Opening path for writing is refused (-EINVAL) with a message holding want. */
static void expect_refused(const char *path, const char *want)
{
	struct tb_history *h = NULL;
	char *err;
	int ret;

	tb_test_stderr_begin();
	ret = tb_history_open(path, TB_HISTORY_WRITE, &h);
	err = tb_test_stderr_end();
	tb_history_close(h);
	CU_ASSERT_EQUAL(ret, -EINVAL);
	if (!strstr(err, want))
		fprintf(stderr, "\n  wanted '%s' in: %s\n", want, err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	free(err);
}

static void test_code_in_the_schema(void)
{
	/* a trigger that zeroes every point of an added run */
	expect_refused(hostile_db("CREATE TRIGGER zero AFTER INSERT ON points BEGIN "
				  "UPDATE points SET value = 0; END"),
		       "the trigger zero");
	/* a recursive view that never ends, in place of a table the store reads */
	expect_refused(hostile_db("ALTER TABLE runs RENAME TO runs_old; CREATE VIEW runs AS "
				  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
				  "SELECT x AS id FROM c"),
		       "the view runs");
	expect_refused(hostile_db("UPDATE tb_meta SET value = '1abc' WHERE key = 'schema_version'"),
		       "schema_version is '1abc'");
}

/* The series and points of path; the points' callback checks each value it is given. */
static int check_point(void *ctx, const struct tb_hpoint *p)
{
	(void)ctx;
	CU_ASSERT(fabs(p->value) <= TB_RESULT_MAX_VALUE);
	CU_ASSERT_PTR_NULL(strchr(p->cell, '\033'));
	return 0;
}

static int check_run(void *ctx, const struct tb_history_run *run)
{
	(void)ctx;
	CU_ASSERT_PTR_NULL(run->host ? strchr(run->host, '\033') : NULL);
	CU_ASSERT_PTR_NULL(run->kernel ? strchr(run->kernel, '\033') : NULL);
	return 0;
}

/* Read everything of path; the first error's return, 0 when all was read. */
static int read_all(const char *path, char **err)
{
	struct tb_hseries *s = NULL;
	struct tb_history *h = NULL;
	size_t n = 0;
	int ret;

	tb_test_stderr_begin();
	ret = tb_history_open(path, 0, &h);
	if (!ret)
		ret = tb_history_series(h, false, &s, &n);
	for (size_t i = 0; !ret && i < n; i++) {
		CU_ASSERT_PTR_NULL(strchr(s[i].name, '\033'));
		CU_ASSERT_PTR_NULL(strchr(s[i].hw_desc, '\033'));
		ret = tb_history_points(h, &s[i], check_point, NULL);
	}
	if (!ret)
		ret = tb_history_runs(h, check_run, NULL);
	*err = tb_test_stderr_end();
	tb_history_series_free(s, n);
	tb_history_close(h);
	return ret;
}

/* Run 1's stored result replaced by text (compressed as the store does): export refuses it. */
static void export_refused(const char *text)
{
	const char *path = hostile_db("SELECT 1");
	uLongf zlen = compressBound(strlen(text));
	unsigned char *z = malloc(zlen);
	struct tb_history *h = NULL;
	sqlite3_stmt *st = NULL;
	char *json = NULL;
	size_t len = 0;
	sqlite3 *db;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(z);
	CU_ASSERT_EQUAL_FATAL(compress2(z, &zlen, (const Bytef *)text, strlen(text), 6), Z_OK);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
	CU_ASSERT_EQUAL(sqlite3_prepare_v2(db, "UPDATE runs SET result = ?1, result_bytes = ?2", -1,
					   &st, NULL),
			SQLITE_OK);
	sqlite3_bind_blob(st, 1, z, (int)zlen, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)strlen(text));
	CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(z);
	CU_ASSERT_EQUAL_FATAL(tb_history_open(path, 0, &h), 0);
	tb_test_stderr_begin();
	ret = tb_history_export(h, 1, &json, &len);
	free(tb_test_stderr_end());
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NULL(json);
	tb_history_close(h);
}

static void test_stored_values(void)
{
	char *err = NULL;

	/* ESC in the columns a list or show prints: read back escaped */
	CU_ASSERT_EQUAL(
		read_all(hostile_db("UPDATE points SET workload = 'w' || char(27) || '[2J', "
				    "cell = cell || char(27) || ']0;t' || char(7); "
				    "UPDATE runs SET host = char(27) || '[31m', hw_desc = "
				    "char(27) || 'c', kernel = char(155) || '2J'"),
			 &err),
		0);
	free(err);
	/* a value no result can hold: refused, not printed as 309 digits */
	CU_ASSERT_EQUAL(read_all(hostile_db("UPDATE points SET value = 1e308"), &err), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "damaged values"));
	free(err);
	CU_ASSERT_EQUAL(read_all(hostile_db("UPDATE points SET samples = '[1, 2e300]'"), &err),
			-EINVAL);
	free(err);
	/* a stored result with a raw ESC is not exported raw */
	export_refused("{\"a\": \"\033[2J\"}");
	export_refused("{\"a\": 1, \"a\": 2}");
	export_refused("not json");
	/* labels with an escape are damaged */
	CU_ASSERT_EQUAL(read_all(hostile_db("UPDATE runs SET labels = '{\"a\": \"' || char(27) || "
					    "'[2J\"}'"),
				 &err),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "damaged labels"));
	free(err);
}

static CU_TestInfo trust_tests[] = {
	{"a history URL's secrets masked in every spelling", test_mask},
	{"a stored command line is masked", test_stored_command_line},
	{"triggers, views and a bad schema_version refused", test_code_in_the_schema},
	{"stored values escaped and range-checked", test_stored_values},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("history-trust", NULL, NULL, trust_tests);
