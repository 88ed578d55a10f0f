/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One input of fuzz_history (a history database someone else wrote), for the target and the
 * fuzz-corpus unit suite: the input is either SQL run on a copy of a history holding the result
 * fixtures a.json and b.json (first byte even), or the database file's bytes themselves (odd).
 * The copy is then opened as tracebench opens a history and read as `history list`, `show`,
 * `detect` and `export` read it, drawn into /dev/null. Whatever the database holds: no crash,
 * leak or hang, and no raw ESC and no value beyond TB_RESULT_MAX_VALUE in what is read (else
 * the process aborts: a finding).
 *
 * The SQL runs under an authorizer that refuses ATTACH, DETACH, PRAGMA and VACUUM (so that no
 * input writes a file elsewhere) and a progress limit (so that no input runs for ever). The
 * copy is /dev/shm/tb-fuzz-history-PID.db (tb_drive_history_done removes it).
 */
#ifndef TB_FUZZ_DRIVE_HISTORY_H
#define TB_FUZZ_DRIVE_HISTORY_H

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

static char tb_dh_path[96], tb_dh_journal[112];
static char *tb_dh_tmpl; /* the template history's bytes */
static size_t tb_dh_tmpl_len;

static void tb_dh_add_fixture(struct tb_history *h, const char *file)
{
	struct tb_history_added info;
	struct tb_result *r = NULL;
	json_t *doc = NULL;

	if (!tb_result_load_doc(file, &r, &doc))
		tb_history_add_result(h, r, doc, NULL, file, &info);
	json_decref(doc);
	tb_result_free(r);
}

/* The files of this process's copy, removed (also at exit). */
static void tb_drive_history_done(void)
{
	unlink(tb_dh_path);
	unlink(tb_dh_journal);
}

/* The template: a history of data/results/{a,b}.json (data: tests/data). 0, or -1. */
static int tb_drive_history_init(const char *data)
{
	struct tb_history *h = NULL;
	char file[512];

	snprintf(tb_dh_path, sizeof(tb_dh_path), "/dev/shm/tb-fuzz-history-%d.db", (int)getpid());
	snprintf(tb_dh_journal, sizeof(tb_dh_journal), "%s-journal", tb_dh_path);
	tb_drive_history_done();
	if (tb_history_open(tb_dh_path, TB_HISTORY_WRITE, &h))
		return -1;
	snprintf(file, sizeof(file), "%s/results/a.json", data);
	tb_dh_add_fixture(h, file);
	snprintf(file, sizeof(file), "%s/results/b.json", data);
	tb_dh_add_fixture(h, file);
	tb_history_close(h);
	free(tb_dh_tmpl);
	tb_dh_tmpl = NULL;
	return tb_read_file(tb_dh_path, &tb_dh_tmpl, &tb_dh_tmpl_len) ? -1 : 0;
}

static int tb_dh_authorize(void *ctx, int action, const char *a, const char *b, const char *c,
			   const char *d)
{
	(void)ctx, (void)a, (void)b, (void)c, (void)d;
	return action == SQLITE_ATTACH || action == SQLITE_DETACH || action == SQLITE_PRAGMA
		       ? SQLITE_DENY
		       : SQLITE_OK;
}

static int tb_dh_progress(void *ctx)
{
	return ++*(int *)ctx > 2000; /* x 1000 virtual machine steps */
}

/* The input's SQL on the copy at tb_dh_path (errors are the input's business). */
static void tb_dh_run_sql(const uint8_t *data, size_t size)
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
	if (strcasestr(sql, "vacuum") || sqlite3_open(tb_dh_path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		free(sql);
		return;
	}
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_set_authorizer(db, tb_dh_authorize, NULL);
	sqlite3_progress_handler(db, 1000, tb_dh_progress, &steps);
	sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	free(sql);
}

static void tb_dh_check_text(const char *s)
{
	if (s && strchr(s, '\033'))
		abort();
}

static int tb_dh_on_run(void *ctx, const struct tb_history_run *run)
{
	tb_render_history_run_print(ctx, run);
	tb_dh_check_text(run->host);
	tb_dh_check_text(run->kernel);
	tb_dh_check_text(run->scenario);
	return 0;
}

/* Everything list, show, detect and export read, drawn into out. */
static void tb_dh_read_all(FILE *out)
{
	struct tb_history_counts c;
	struct tb_detect_opts o;
	struct tb_hseries *s = NULL;
	struct tb_history *h = NULL;
	char *json = NULL;
	size_t n = 0, len = 0;

	if (tb_history_open(tb_dh_path, 0, &h))
		return;
	tb_history_counts(h, &c);
	tb_detect_opts_init(&o);
	if (!tb_history_series(h, false, &s, &n)) {
		tb_render_history_series_print(out, s, n);
		for (size_t i = 0; i < n && i < 8; i++) {
			struct tb_hanalysis a;

			tb_dh_check_text(s[i].name);
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
	tb_history_runs(h, tb_dh_on_run, out);
	if (!tb_history_export(h, 1, &json, &len))
		free(json);
	tb_history_series_free(s, n);
	tb_history_close(h);
}

static int tb_drive_history(const uint8_t *data, size_t size)
{
	FILE *f = fopen(tb_dh_path, "w"), *devnull;
	bool raw = size && (data[0] & 1);

	if (!f)
		return -1;
	if (raw)
		fwrite(data + 1, 1, size - 1, f);
	else
		fwrite(tb_dh_tmpl, 1, tb_dh_tmpl_len, f);
	fclose(f);
	unlink(tb_dh_journal);
	if (!raw && size)
		tb_dh_run_sql(data + 1, size - 1);
	devnull = fopen("/dev/null", "w");
	if (devnull) {
		tb_dh_read_all(devnull);
		fclose(devnull);
	}
	return 0;
}

#endif /* TB_FUZZ_DRIVE_HISTORY_H */
