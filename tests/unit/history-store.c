// SPDX-License-Identifier: GPL-2.0
/*
 * The history store (history/store.c) on a real SQLite file and on a real PostgreSQL server
 * the suite starts itself (tests/lib/pg.c): adding runs (once, labels aside), series and points
 * read back, the stored result exported whole, every add one transaction (a failure half-way
 * stores nothing), two processes adding at once, a locked database, a schema from a newer
 * version, foreign and corrupt databases, links, an unreachable server.
 */
#include <errno.h>
#include <fcntl.h>
#include <libpq-fe.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/env.h"
#include "core/tb.h"
#include "fixture.h"
#include "history/analysis.h"
#include "history/db.h"
#include "history/series.h"
#include "history/store.h"
#include "model/labels.h"
#include "model/result.h"
#include "stats/gate.h"
#include "stats/stats.h"
#include "tb_test.h"

/* ---- helpers --------------------------------------------------------------------------------- */

/* The fixture result as run i of a history: its own start time and seed, so its own hash. */
static struct tb_result *run_n(int i)
{
	struct tb_result *r = tb_fixture_result(TB_FIX_NO_RATE);
	char ts[40];

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	snprintf(ts, sizeof(ts), "2026-11-%02dT%02d:%02d:00Z", 1 + i / 600, (i / 60) % 10, i % 60);
	free(r->started);
	r->started = strdup(ts);
	r->seed = 1000 + (uint64_t)i;
	return r;
}

/* Add run i (labels may be NULL). Returns what tb_history_add_result did. */
static int add_n(struct tb_history *h, int i, json_t *labels, struct tb_history_added *info)
{
	struct tb_result *r = run_n(i);
	int ret = tb_history_add_result(h, r, NULL, labels, "fixture", info);

	tb_result_free(r);
	return ret;
}

static int64_t nruns(const char *target)
{
	struct tb_history_counts c = {0};
	struct tb_history *h;

	if (tb_history_open(target, 0, &h))
		return -1;
	tb_history_counts(h, &c);
	tb_history_close(h);
	return c.runs;
}

/* SQL outside the store: sqlite3 on a file, libpq on a URL. 0 when it ran. */
static int raw_exec(const char *target, const char *sql)
{
	if (tb_hdb_is_postgres(target)) {
		PGconn *c = PQconnectdb(target);
		PGresult *res = PQexec(c, sql);
		int st = PQresultStatus(res), ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;

		if (!ok)
			printf("\n    raw_exec: %s", PQerrorMessage(c));
		PQclear(res);
		PQfinish(c);
		return ok ? 0 : -1;
	} else {
		sqlite3 *db = NULL;
		int rc = sqlite3_open(target, &db);

		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
		sqlite3_close(db);
		return rc == SQLITE_OK ? 0 : -1;
	}
}

/* stderr of the calls between capture_begin and capture_end, into buf. */
static int saved_stderr = -1;
static char capture_path[256];

static void capture_begin(void)
{
	int fd;

	snprintf(capture_path, sizeof(capture_path), "%s/stderr", tb_test_tmpdir());
	fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	fflush(stderr);
	saved_stderr = dup(2);
	dup2(fd, 2);
	close(fd);
}

static const char *capture_end(char *buf, size_t len)
{
	FILE *f;
	size_t n = 0;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	f = fopen(capture_path, "r");
	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static const struct tb_hseries *find_series(const struct tb_hseries *s, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return &s[i];
	return NULL;
}

struct seen {
	size_t n;
	char last[40];
	bool ordered, samples;
	double first_value;
};

static int see_point(void *ctx, const struct tb_hpoint *p)
{
	struct seen *s = ctx;

	if (s->n && strcmp(p->started, s->last) < 0)
		s->ordered = false;
	snprintf(s->last, sizeof(s->last), "%s", p->started);
	if (!s->n)
		s->first_value = p->value;
	s->samples = s->samples && p->nsamples == 10 && p->samples;
	s->n++;
	return 0;
}

/* ---- the same checks on both backends -------------------------------------------------------- */

static void check_add_and_read(const char *target)
{
	json_t *la = json_pack("{s:s}", "commit", "aaa111"),
	       *lb = json_pack("{s:s}", "commit", "b");
	struct tb_history_added info;
	struct tb_history_run run;
	struct tb_hseries *s = NULL;
	const struct tb_hseries *ov;
	struct tb_history *h;
	struct seen seen = {.ordered = true, .samples = true};
	struct tb_result *r0 = run_n(0);
	json_t *doc, *want;
	char *json = NULL;
	size_t n = 0, len = 0;

	CU_ASSERT_EQUAL_FATAL(tb_history_open(target, TB_HISTORY_WRITE, &h), 0);
	CU_ASSERT_EQUAL(tb_history_schema_version(h), TB_HISTORY_SCHEMA_VERSION);
	CU_ASSERT_EQUAL(add_n(h, 0, la, &info), 0);
	CU_ASSERT_FALSE(info.existed);
	CU_ASSERT(info.npoints >= 20);
	/* The same run again, with other labels: recognised, nothing changes. */
	CU_ASSERT_EQUAL(add_n(h, 0, lb, &info), 0);
	CU_ASSERT_TRUE(info.existed);
	CU_ASSERT_EQUAL(info.npoints, 0);
	CU_ASSERT_EQUAL(add_n(h, 2, NULL, &info), 0);
	CU_ASSERT_EQUAL(add_n(h, 1, NULL, &info), 0);
	CU_ASSERT_EQUAL(tb_history_series(h, false, &s, &n), 0);
	ov = find_series(s, n, "quick/getpid/tp-getpid/overhead_pct");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ov);
	CU_ASSERT_EQUAL(ov->nruns, 3);
	CU_ASSERT_STRING_EQUAL(ov->first, "2026-11-01T00:00:00Z");
	CU_ASSERT_PTR_NOT_NULL(find_series(s, n, "quick/getpid/none/ns_per_op"));
	CU_ASSERT_PTR_NOT_NULL(find_series(s, n, "quick/getpid/tp-getpid/ns_per_event"));
	CU_ASSERT_PTR_NOT_NULL(find_series(s, n, "quick/getpid-latency/none/latency_p99"));
	/* Points in time order (run 2 was added before run 1), with their samples. */
	CU_ASSERT_EQUAL(tb_history_points(h, ov, see_point, &seen), 0);
	CU_ASSERT_EQUAL(seen.n, 3);
	CU_ASSERT_TRUE(seen.ordered);
	CU_ASSERT_TRUE(seen.samples);
	CU_ASSERT_DOUBLE_EQUAL(seen.first_value, r0->cells[1].overhead.pct, 1e-9);
	/* The first add's labels are kept; the stored result is the run, whole. */
	CU_ASSERT_EQUAL_FATAL(tb_history_run_get(h, 1, &run), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(run.labels, "commit")), "aaa111");
	CU_ASSERT_STRING_EQUAL(run.started, "2026-11-01T00:00:00Z");
	tb_history_run_release(&run);
	CU_ASSERT_EQUAL_FATAL(tb_history_export(h, 1, &json, &len), 0);
	doc = json_loads(json, 0, NULL);
	want = tb_result_to_json(r0);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_object_get(json_object_get(doc, "labels"), "commit")),
		"aaa111");
	json_object_del(doc, "labels");
	json_object_del(want, "labels");
	CU_ASSERT_TRUE(json_equal(doc, want));
	CU_ASSERT_EQUAL(tb_history_run_get(h, 999, &run), -ENOENT);
	json_decref(doc);
	json_decref(want);
	free(json);
	tb_history_series_free(s, n);
	tb_history_close(h);
	tb_result_free(r0);
	json_decref(la);
	json_decref(lb);
}

/* A failure half-way through an add (a trigger refuses one point) stores nothing of it. */
static void check_atomic(const char *target, const char *trigger, const char *untrigger,
			 const char *said)
{
	struct tb_history_added info;
	struct tb_history *h;
	int64_t before = nruns(target);
	char err[2048];
	int ret;

	CU_ASSERT_EQUAL_FATAL(raw_exec(target, trigger), 0);
	CU_ASSERT_EQUAL_FATAL(tb_history_open(target, TB_HISTORY_WRITE, &h), 0);
	capture_begin();
	ret = add_n(h, 7, NULL, &info);
	capture_end(err, sizeof(err));
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, said));
	tb_history_close(h);
	CU_ASSERT_EQUAL(nruns(target), before);
	CU_ASSERT_EQUAL_FATAL(raw_exec(target, untrigger), 0);
	CU_ASSERT_EQUAL_FATAL(tb_history_open(target, TB_HISTORY_WRITE, &h), 0);
	CU_ASSERT_EQUAL(add_n(h, 7, NULL, &info), 0);
	CU_ASSERT_FALSE(info.existed);
	tb_history_close(h);
	CU_ASSERT_EQUAL(nruns(target), before + 1);
}

/*
 * Several adds as one transaction: nothing visible before the commit, a failed add (a trigger
 * refuses run 601's points) undoes only itself, a rollback drops them all.
 */
static void check_batch(const char *target, const char *trigger, const char *untrigger)
{
	struct tb_history_added info;
	struct tb_history *h;
	int64_t before = nruns(target);

	CU_ASSERT_EQUAL_FATAL(raw_exec(target, trigger), 0);
	CU_ASSERT_EQUAL_FATAL(tb_history_open(target, TB_HISTORY_WRITE, &h), 0);
	CU_ASSERT_EQUAL_FATAL(tb_history_begin(h), 0);
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(tb_history_begin(h), -EINVAL);
	tb_log_set_level(TB_LOG_INFO);
	CU_ASSERT_EQUAL(add_n(h, 600, NULL, &info), 0);
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(add_n(h, 601, NULL, &info), -EINVAL);
	tb_log_set_level(TB_LOG_INFO);
	CU_ASSERT_EQUAL(add_n(h, 602, NULL, &info), 0);
	CU_ASSERT_EQUAL(nruns(target), before); /* another connection sees nothing yet */
	CU_ASSERT_EQUAL(tb_history_commit(h), 0);
	CU_ASSERT_EQUAL(nruns(target), before + 2);
	CU_ASSERT_EQUAL_FATAL(tb_history_begin(h), 0);
	CU_ASSERT_EQUAL(add_n(h, 603, NULL, &info), 0);
	tb_history_rollback(h);
	CU_ASSERT_EQUAL(nruns(target), before + 2);
	tb_history_close(h);
	CU_ASSERT_EQUAL_FATAL(raw_exec(target, untrigger), 0);
}

/* Two processes adding four runs each at the same time: all eight land. */
static void check_concurrent(const char *target)
{
	int64_t before = nruns(target);
	pid_t pid[2];

	for (int p = 0; p < 2; p++) {
		pid[p] = fork();
		if (pid[p] == 0) {
			struct tb_history_added info;
			struct tb_history *h;
			int bad = 0;

			for (int i = 0; i < 4; i++) {
				/* each add opens its own connection, as separate commands would */
				if (tb_history_open(target, TB_HISTORY_WRITE, &h)) {
					bad++;
					continue;
				}
				bad += add_n(h, 100 + 10 * p + i, NULL, &info) != 0 || info.existed;
				tb_history_close(h);
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (int p = 0; p < 2; p++) {
		int st = -1;

		CU_ASSERT_EQUAL(waitpid(pid[p], &st, 0), pid[p]);
		CU_ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CU_ASSERT_EQUAL(nruns(target), before + 8);
}

/* A schema from a newer tracebench is refused for reading and writing, and left as it is. */
static void check_newer_schema(const char *target)
{
	struct tb_history *h;
	char err[2048];
	int ret;

	CU_ASSERT_EQUAL_FATAL(
		raw_exec(target, "UPDATE tb_meta SET value = '99' WHERE key = 'schema_version'"),
		0);
	capture_begin();
	ret = tb_history_open(target, TB_HISTORY_WRITE, &h);
	capture_end(err, sizeof(err));
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "schema version 99, newer"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, tb_hdb_is_postgres(target) ? "postgresql://" : target));
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(tb_history_open(target, 0, &h), -EINVAL);
	CU_ASSERT_EQUAL(tb_history_open(target, TB_HISTORY_MIGRATE, &h), -EINVAL);
	tb_log_set_level(TB_LOG_INFO);
	CU_ASSERT_EQUAL_FATAL(
		raw_exec(target, "UPDATE tb_meta SET value = '1' WHERE key = 'schema_version'"), 0);
	CU_ASSERT(nruns(target) > 0);
}

static void check_migrate_current(const char *target)
{
	struct tb_history *h;
	int from = -1;

	CU_ASSERT_EQUAL_FATAL(tb_history_open(target, TB_HISTORY_MIGRATE, &h), 0);
	CU_ASSERT_EQUAL(tb_history_migrate(h, &from), 0);
	CU_ASSERT_EQUAL(from, TB_HISTORY_SCHEMA_VERSION);
	tb_history_close(h);
}

/* The gate's reference: a run far above the history's last segment is a change. */
static void check_gate_refs(const char *target)
{
	struct tb_gate_ref *refs = NULL;
	struct tb_detect_opts o;
	struct tb_history *h;
	struct tb_result *r = run_n(500);
	json_t *doc;
	size_t i;

	/* the traced getpid cell, 10% slower than in every stored run */
	for (i = 0; i < r->cells[1].nsamples; i++)
		r->cells[1].samples[i].ns_per_op *= 1.10;
	r->cells[1].has_overhead = false;
	CU_ASSERT_EQUAL_FATAL(tb_stats_analyze(r), 0);
	doc = tb_result_to_json(r);
	tb_detect_opts_init(&o);
	CU_ASSERT_EQUAL_FATAL(tb_history_open(target, 0, &h), 0);
	CU_ASSERT_EQUAL_FATAL(tb_history_gate_refs(h, r, doc, false, &o, 0.01, &refs), 0);
	CU_ASSERT_PTR_EQUAL(refs[0].c, &r->cells[0]); /* baseline ns/op */
	CU_ASSERT_TRUE(refs[0].relative);
	CU_ASSERT_PTR_EQUAL(refs[1].c, &r->cells[1]); /* overhead % */
	CU_ASSERT_FALSE(refs[1].relative);
	CU_ASSERT_TRUE(refs[1].found);
	CU_ASSERT(refs[1].npoints >= 3);
	/* the fixture's runs are all alike: 580 -> 638 ns over 201 is +28.9 pp, and certain */
	CU_ASSERT_DOUBLE_EQUAL(refs[1].change, 28.9, 0.5);
	CU_ASSERT(refs[1].ci_lo > 3 && refs[1].p < 0.01 && refs[1].p_samples < 0.01);
	free(refs);
	refs = NULL;
	json_decref(doc);
	tb_result_free(r);
	/* a run like the others: no change */
	r = run_n(501);
	doc = tb_result_to_json(r);
	CU_ASSERT_EQUAL_FATAL(tb_history_gate_refs(h, r, doc, false, &o, 0.01, &refs), 0);
	CU_ASSERT_DOUBLE_EQUAL(refs[1].change, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(refs[1].p, 1, 1e-12);
	tb_history_close(h);
	free(refs);
	json_decref(doc);
	tb_result_free(r);
}

/* ---- SQLite ---------------------------------------------------------------------------------- */

static char sq_path[512];

static int sqlite_init(void)
{
	const char *d = tb_test_tmpdir();

	if (!d)
		return 1;
	snprintf(sq_path, sizeof(sq_path), "%s/history.db", d);
	return 0;
}

static void test_sqlite_add_read(void)
{
	check_add_and_read(sq_path);
}

static void test_sqlite_atomic(void)
{
	/* A history has no triggers (one is refused): an index whose expression fails on run 7's
	 * ns/event points makes the add fail half-way. */
	check_atomic(sq_path,
		     "CREATE INDEX boom ON points (CASE WHEN started = '2026-11-01T00:07:00Z' AND "
		     "metric = 'ns_per_event' THEN abs(-9223372036854775807 - 1) END)",
		     "DROP INDEX boom", "integer overflow");
}

static void test_sqlite_batch(void)
{
	check_batch(sq_path,
		    "CREATE INDEX boom ON points (CASE WHEN started = '2026-11-02T00:01:00Z' THEN "
		    "abs(-9223372036854775807 - 1) END)",
		    "DROP INDEX boom");
}

static void test_sqlite_concurrent(void)
{
	check_concurrent(sq_path);
}

static void test_sqlite_newer_schema(void)
{
	check_newer_schema(sq_path);
	check_migrate_current(sq_path);
}

static void test_sqlite_gate_refs(void)
{
	check_gate_refs(sq_path);
}

/* Another process holds the write lock beyond the timeout: -EBUSY, then it works. */
static void test_sqlite_locked(void)
{
	struct tb_history_added info;
	struct tb_history *h = NULL;
	sqlite3 *db = NULL;
	int64_t before = nruns(sq_path);
	char err[2048];
	int ret;

	CU_ASSERT_EQUAL_FATAL(sqlite3_open(sq_path, &db), SQLITE_OK);
	CU_ASSERT_EQUAL_FATAL(sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	setenv(TB_ENV_DB_TIMEOUT, "200ms", 1);
	capture_begin();
	ret = tb_history_open(sq_path, TB_HISTORY_WRITE, &h);
	if (!ret)
		ret = add_n(h, 300, NULL, &info);
	capture_end(err, sizeof(err));
	tb_history_close(h);
	CU_ASSERT_EQUAL(ret, -EBUSY);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "locked"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, sq_path));
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	unsetenv(TB_ENV_DB_TIMEOUT);
	CU_ASSERT_EQUAL(nruns(sq_path), before);
	CU_ASSERT_EQUAL_FATAL(tb_history_open(sq_path, TB_HISTORY_WRITE, &h), 0);
	CU_ASSERT_EQUAL(add_n(h, 300, NULL, &info), 0);
	tb_history_close(h);
}

/* Not a database, a foreign one, an empty file, a link, a missing file. */
static void test_sqlite_bad_files(void)
{
	const char *d = tb_test_tmpdir();
	char garbage[512], foreign[512], empty[512], link[512], missing[512], err[2048];
	struct tb_history *h = NULL;
	struct stat st;
	int fd;

	snprintf(garbage, sizeof(garbage), "%s/garbage.db", d);
	snprintf(foreign, sizeof(foreign), "%s/foreign.db", d);
	snprintf(empty, sizeof(empty), "%s/empty.db", d);
	snprintf(link, sizeof(link), "%s/link.db", d);
	snprintf(missing, sizeof(missing), "%s/missing.db", d);
	fd = open(garbage, O_WRONLY | O_CREAT, 0644);
	for (int i = 0; i < 64; i++)
		CU_ASSERT_EQUAL(write(fd, "this is not a database, only text\n", 35), 35);
	close(fd);
	capture_begin();
	CU_ASSERT_EQUAL(tb_history_open(garbage, TB_HISTORY_WRITE, &h), -EINVAL);
	capture_end(err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, garbage));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not an SQLite database"));
	CU_ASSERT(!stat(garbage, &st) && st.st_size == 64 * 35);
	CU_ASSERT_EQUAL_FATAL(raw_exec(foreign, "CREATE TABLE users (name TEXT)"), 0);
	capture_begin();
	CU_ASSERT_EQUAL(tb_history_open(foreign, TB_HISTORY_WRITE, &h), -EINVAL);
	capture_end(err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a tracebench history"));
	CU_ASSERT_EQUAL(raw_exec(foreign, "SELECT name FROM users"), 0);
	tb_log_set_level(TB_LOG_SILENT);
	fd = open(empty, O_WRONLY | O_CREAT, 0644);
	close(fd);
	CU_ASSERT_EQUAL(tb_history_open(empty, 0, &h), -ENOENT);
	CU_ASSERT_EQUAL(tb_history_open(missing, 0, &h), -ENOENT);
	CU_ASSERT_NOT_EQUAL(access(missing, F_OK), 0);
	CU_ASSERT_EQUAL(symlink(sq_path, link), 0);
	CU_ASSERT_EQUAL(tb_history_open(link, TB_HISTORY_WRITE, &h), -ELOOP);
	CU_ASSERT_EQUAL(tb_history_open(link, 0, &h), -ELOOP);
	tb_log_set_level(TB_LOG_INFO);
	/* An empty file gets the schema when asked to write. */
	CU_ASSERT_EQUAL(tb_history_open(empty, TB_HISTORY_WRITE, &h), 0);
	tb_history_close(h);
	CU_ASSERT_EQUAL(nruns(empty), 0);
}

/* A journal file planted as a link next to the database is refused, not written through. */
static void test_sqlite_journal_link(void)
{
	const char *d = tb_test_tmpdir();
	char db[512], journal[600], target[512];
	struct tb_history *h = NULL;
	struct stat st;

	snprintf(db, sizeof(db), "%s/j.db", d);
	snprintf(journal, sizeof(journal), "%s-journal", db);
	snprintf(target, sizeof(target), "%s/victim", d);
	CU_ASSERT_EQUAL(close(open(target, O_WRONLY | O_CREAT, 0644)), 0);
	CU_ASSERT_EQUAL(symlink(target, journal), 0);
	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL(tb_history_open(db, TB_HISTORY_WRITE, &h), -ELOOP);
	tb_log_set_level(TB_LOG_INFO);
	CU_ASSERT(!stat(target, &st) && st.st_size == 0);
	CU_ASSERT_NOT_EQUAL(access(db, F_OK), 0);
}

static CU_TestInfo sqlite_tests[] = {
	{"add, add again, series, points, export", test_sqlite_add_read},
	{"a failed add stores nothing", test_sqlite_atomic},
	{"several adds in one transaction", test_sqlite_batch},
	{"two processes add at once", test_sqlite_concurrent},
	{"a newer schema is refused; migrate", test_sqlite_newer_schema},
	{"the gate's view of the history", test_sqlite_gate_refs},
	{"a locked database", test_sqlite_locked},
	{"garbage, foreign, empty, link, missing", test_sqlite_bad_files},
	{"a journal link is refused", test_sqlite_journal_link},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("history-store-sqlite", sqlite_init, NULL, sqlite_tests);

/* ---- PostgreSQL ------------------------------------------------------------------------------ */

static char pg_main[512], pg_why[256];
static bool pg_up;

static int pg_init(void)
{
	const char *url = tb_test_pg_start(pg_why, sizeof(pg_why));

	if (!url)
		return 0; /* every test says why it skips */
	pg_up = !raw_exec(url, "CREATE DATABASE history") &&
		!raw_exec(url, "CREATE DATABASE foreign_db") &&
		tb_test_pg_url("history", pg_main, sizeof(pg_main));
	if (!pg_up)
		snprintf(pg_why, sizeof(pg_why), "cannot create the test databases");
	return 0;
}

static int pg_clean(void)
{
	tb_test_pg_stop();
	return 0;
}

#define NEED_PG()                        \
	do {                             \
		if (!pg_up)              \
			TB_SKIP(pg_why); \
	} while (0)

static void test_pg_add_read(void)
{
	NEED_PG();
	check_add_and_read(pg_main);
}

static void test_pg_atomic(void)
{
	NEED_PG();
	/* A history has no triggers (one is refused): a check constraint refuses the points. */
	check_atomic(pg_main,
		     "ALTER TABLE points ADD CONSTRAINT boom CHECK (metric <> 'ns_per_event') "
		     "NOT VALID",
		     "ALTER TABLE points DROP CONSTRAINT boom", "boom");
}

static void test_pg_batch(void)
{
	NEED_PG();
	check_batch(pg_main,
		    "ALTER TABLE points ADD CONSTRAINT boom CHECK (started <> "
		    "'2026-11-02T00:01:00Z') NOT VALID",
		    "ALTER TABLE points DROP CONSTRAINT boom");
}

static void test_pg_concurrent(void)
{
	NEED_PG();
	check_concurrent(pg_main);
}

static void test_pg_newer_schema(void)
{
	NEED_PG();
	check_newer_schema(pg_main);
	check_migrate_current(pg_main);
}

static void test_pg_gate_refs(void)
{
	NEED_PG();
	check_gate_refs(pg_main);
}

/* Another writer holds the history's lock beyond the timeout: -EBUSY, nothing stored. */
static void test_pg_locked(void)
{
	struct tb_history_added info;
	struct tb_history *h = NULL;
	int64_t before;
	char err[2048];
	PGconn *c;
	PGresult *res;
	int ret;

	NEED_PG();
	before = nruns(pg_main);
	c = PQconnectdb(pg_main);
	res = PQexec(c, "BEGIN; SELECT pg_advisory_xact_lock(8386103136757182585)");
	CU_ASSERT_EQUAL(PQresultStatus(res), PGRES_TUPLES_OK);
	PQclear(res);
	setenv(TB_ENV_DB_TIMEOUT, "300ms", 1);
	capture_begin();
	ret = tb_history_open(pg_main, TB_HISTORY_WRITE, &h);
	if (!ret)
		ret = add_n(h, 301, NULL, &info);
	capture_end(err, sizeof(err));
	unsetenv(TB_ENV_DB_TIMEOUT);
	tb_history_close(h);
	CU_ASSERT_EQUAL(ret, -EBUSY);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "postgresql://postgres@/history"));
	PQclear(PQexec(c, "COMMIT"));
	PQfinish(c);
	CU_ASSERT_EQUAL(nruns(pg_main), before);
}

static void test_pg_bad_targets(void)
{
	char foreign[512], err[2048];
	struct tb_history *h = NULL;
	int ret;

	NEED_PG();
	tb_test_pg_url("foreign_db", foreign, sizeof(foreign));
	CU_ASSERT_EQUAL_FATAL(raw_exec(foreign, "CREATE TABLE users (name TEXT)"), 0);
	capture_begin();
	ret = tb_history_open(foreign, TB_HISTORY_WRITE, &h);
	capture_end(err, sizeof(err));
	CU_ASSERT_EQUAL(ret, -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a tracebench history"));
	/* No server there: -EHOSTUNREACH (exit 3), the URL named without its password. */
	capture_begin();
	ret = tb_history_open("postgresql://u:secret@/h?host=/nonexistent-dir&port=1", 0, &h);
	capture_end(err, sizeof(err));
	CU_ASSERT_EQUAL(ret, -EHOSTUNREACH);
	CU_ASSERT_EQUAL(tb_history_exit_code(ret), TB_EXIT_UNAVAILABLE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot be reached"));
	CU_ASSERT_PTR_NULL(strstr(err, "secret"));
	/* A database that does not exist: the server answers, refuses. */
	tb_log_set_level(TB_LOG_SILENT);
	tb_test_pg_url("no_such_db", foreign, sizeof(foreign));
	CU_ASSERT_EQUAL(tb_history_open(foreign, TB_HISTORY_WRITE, &h), -EACCES);
	tb_log_set_level(TB_LOG_INFO);
}

/* A trigger, a view or a rule of someone else's in the history's schema: refused. */
static void test_pg_foreign_objects(void)
{
	const char *objects[][3] = {
		{"CREATE FUNCTION zero() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.value = 0; "
		 "RETURN NEW; END $$; CREATE TRIGGER zero BEFORE INSERT ON points FOR EACH ROW "
		 "EXECUTE FUNCTION zero()",
		 "DROP TRIGGER zero ON points; DROP FUNCTION zero()", "the trigger zero"},
		{"CREATE VIEW forever AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 "
		 "FROM c) SELECT x FROM c",
		 "DROP VIEW forever", "the view forever"},
		{"CREATE RULE nothing AS ON INSERT TO points DO INSTEAD NOTHING",
		 "DROP RULE nothing ON points", "the rule nothing"},
	};
	struct tb_history *h = NULL;
	char err[2048];

	NEED_PG();
	CU_ASSERT_EQUAL_FATAL(tb_history_open(pg_main, TB_HISTORY_WRITE, &h), 0);
	tb_history_close(h);
	for (size_t i = 0; i < TB_ARRAY_SIZE(objects); i++) {
		CU_ASSERT_EQUAL_FATAL(raw_exec(pg_main, objects[i][0]), 0);
		capture_begin();
		CU_ASSERT_EQUAL(tb_history_open(pg_main, TB_HISTORY_WRITE, &h), -EINVAL);
		capture_end(err, sizeof(err));
		CU_ASSERT_PTR_NOT_NULL(strstr(err, objects[i][2]));
		CU_ASSERT_EQUAL_FATAL(raw_exec(pg_main, objects[i][1]), 0);
	}
}

static CU_TestInfo pg_tests[] = {
	{"add, add again, series, points, export", test_pg_add_read},
	{"a failed add stores nothing", test_pg_atomic},
	{"several adds in one transaction", test_pg_batch},
	{"two processes add at once", test_pg_concurrent},
	{"a newer schema is refused; migrate", test_pg_newer_schema},
	{"the gate's view of the history", test_pg_gate_refs},
	{"a locked history", test_pg_locked},
	{"foreign database, no server, no database", test_pg_bad_targets},
	{"triggers, views, rules of others refused", test_pg_foreign_objects},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("history-store-postgresql", pg_init, pg_clean, pg_tests);
