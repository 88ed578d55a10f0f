// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for a history database someone else wrote (history/): the input is either
 * SQL run on a copy of a history holding the result fixtures a.json and b.json (first byte
 * even), or the database file's bytes themselves (odd). The copy is then opened as tracebench
 * opens a history and read as `history list`, `show`, `detect` and `export` read it, drawn into
 * /dev/null. Whatever the database holds: no crash, leak or hang, and no raw ESC and no value
 * beyond TB_RESULT_MAX_VALUE in what is read.
 *
 * The SQL runs under an authorizer that refuses ATTACH, DETACH, PRAGMA and VACUUM (so that no
 * input writes a file elsewhere) and a progress limit (so that no input runs for ever).
 */
#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tb.h"
#include "history/analysis.h"
#include "history/store.h"
#include "model/result.h"
#include "render/history-formats.h"
#include "target.h"

static char path[96], journal[112];
static char *tmpl; /* the template history's bytes */
static size_t tmpl_len;

static void add_fixture(struct tb_history *h, const char *file)
{
	struct tb_history_added info;
	struct tb_result *r = NULL;
	json_t *doc = NULL;

	if (!tb_result_load_doc(file, &r, &doc))
		tb_history_add_result(h, r, doc, NULL, file, &info);
	json_decref(doc);
	tb_result_free(r);
}

static void cleanup(void)
{
	unlink(path);
	unlink(journal);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct tb_history *h = NULL;

	(void)argc;
	(void)argv;
	tb_log_set_level(TB_LOG_SILENT);
	snprintf(path, sizeof(path), "/dev/shm/tb-fuzz-history-%d.db", (int)getpid());
	snprintf(journal, sizeof(journal), "%s-journal", path);
	unlink(path);
	atexit(cleanup);
	if (tb_history_open(path, TB_HISTORY_WRITE, &h))
		abort();
	add_fixture(h, "tests/data/results/a.json");
	add_fixture(h, "tests/data/results/b.json");
	tb_history_close(h);
	if (tb_read_file(path, &tmpl, &tmpl_len))
		abort();
	return 0;
}

static int authorize(void *ctx, int action, const char *a, const char *b, const char *c,
		     const char *d)
{
	(void)ctx, (void)a, (void)b, (void)c, (void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH || action == SQLITE_PRAGMA
		       ? SQLITE_DENY
		       : SQLITE_OK;
}

static int progress(void *ctx)
{
	return ++*(int *)ctx > 2000; /* x 1000 virtual machine steps */
}

/* The input's SQL on the copy at path (errors are the input's business). */
static void run_sql(const uint8_t *data, size_t size)
{
	char *sql = malloc(size + 1);
	sqlite3 *db = NULL;
	int steps = 0;

	if (!sql)
		return;
	memcpy(sql, data, size);
	sql[size] = '\0';
	for (char *s = sql; *s; s++)
		*s = (char)(isprint((unsigned char)*s) || *s == '\n' ? *s : ' ');
	if (strcasestr(sql, "vacuum") || sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		free(sql);
		return;
	}
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_set_authorizer(db, authorize, NULL);
	sqlite3_progress_handler(db, 1000, progress, &steps);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	free(sql);
}

static void check_text(const char *s)
{
	if (s && strchr(s, '\033'))
		abort();
}

static int on_run(void *ctx, const struct tb_history_run *run)
{
	tb_render_history_run_print(ctx, run);
	check_text(run->host);
	check_text(run->kernel);
	check_text(run->scenario);
	return 0;
}

/* Everything list, show, detect and export read, drawn into out. */
static void read_all(FILE *out)
{
	struct tb_history_counts c;
	struct tb_detect_opts o;
	struct tb_hseries *s = NULL;
	struct tb_history *h = NULL;
	char *json = NULL;
	size_t n = 0, len = 0;

	if (tb_history_open(path, 0, &h))
		return;
	tb_history_counts(h, &c);
	tb_detect_opts_init(&o);
	if (!tb_history_series(h, false, &s, &n)) {
		tb_render_history_series_print(out, s, n);
		for (size_t i = 0; i < n && i < 8; i++) {
			struct tb_hanalysis a;

			check_text(s[i].name);
			if (!tb_history_analyze(h, &s[i], &o, true, &a)) {
				for (size_t k = 0; k < a.data.n; k++)
					if (fabs(a.data.value[k]) > TB_RESULT_MAX_VALUE)
						abort();
				tb_render_history_show_print(out, &a);
				tb_render_history_detect_print(out, &a, true);
			}
			tb_hanalysis_free(&a);
		}
	}
	tb_history_runs(h, on_run, out);
	if (!tb_history_export(h, 1, &json, &len))
		free(json);
	tb_history_series_free(s, n);
	tb_history_close(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "w"), *devnull;
	bool raw = size && (data[0] & 1);

	if (!f)
		abort();
	if (raw)
		fwrite(data + 1, 1, size - 1, f);
	else
		fwrite(tmpl, 1, tmpl_len, f);
	fclose(f);
	unlink(journal);
	if (!raw && size)
		run_sql(data + 1, size - 1);
	devnull = fopen("/dev/null", "w");
	if (devnull) {
		read_all(devnull);
		fclose(devnull);
	}
	return 0;
}
