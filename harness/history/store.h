/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The history store: every run added (its whole result.json, compressed, nothing dropped) and
 * an indexed row per cell and metric (series.h's points), in SQLite (a file, the default
 * results/history.db) or PostgreSQL (a postgresql:// URL). One schema, versioned in the
 * database, created on first use and migrated only when asked (tb_history_migrate); the same
 * parameterised queries on both backends (store.c).
 *
 * Every function prints what failed, naming the database, and returns 0 or -errno: -EINVAL
 * (not a database, a corrupt or foreign one, a schema this version cannot use), -EBUSY (locked
 * beyond TRACEBENCH_DB_TIMEOUT), -EHOSTUNREACH (the server cannot be reached), -ENOENT (no
 * history there), -ELOOP (a symbolic link where the database file goes), -EACCES, -ENOMEM.
 * tb_history_exit_code maps them to the CLI's exit codes.
 */
#ifndef TB_HISTORY_STORE_H
#define TB_HISTORY_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "history/series.h"
#include "model/result.h"

#define TB_HISTORY_SCHEMA_VERSION     1
#define TB_HISTORY_DEFAULT_DB	      "results/history.db"
#define TB_HISTORY_DEFAULT_TIMEOUT_MS 30000

enum {
	TB_HISTORY_WRITE = 1 << 0,   /* add runs: create the file and the schema when missing */
	TB_HISTORY_MIGRATE = 1 << 1, /* open an older schema (for tb_history_migrate) */
};

struct tb_history;

/*
 * The database a command uses: db (--db) when given, else $TRACEBENCH_DB, else
 * TB_HISTORY_DEFAULT_DB. Never NULL.
 */
const char *tb_history_target(const char *db);
/*
 * Open target: a postgresql:// (or postgres://) URL, else the path of an SQLite file. Checks
 * that it is a tracebench history of this schema version (or, with TB_HISTORY_WRITE, an empty
 * database, which gets the schema). Locks are waited for up to $TRACEBENCH_DB_TIMEOUT (a
 * duration, default 30s). Returns 0 and *out (close with tb_history_close) or -errno.
 */
int tb_history_open(const char *target, unsigned flags, struct tb_history **out);
void tb_history_close(struct tb_history *h);
/*
 * The one mask of a history's secrets, for every message and every artefact (postgres.c):
 * a copy of s in which the PostgreSQL URL that starts anywhere in s and runs to its end (a
 * command-line word such as --history=postgresql://u:pw@h/db) is rebuilt from libpq's parse of
 * it with each password as ***; a URL libpq cannot parse is shown as its scheme and *** alone. Text
 * without a URL is copied unchanged. NULL on ENOMEM (or for NULL).
 */
char *tb_history_mask(const char *s);
/* The same into buf (len bytes, always terminated). */
void tb_history_mask_buf(const char *s, char *buf, size_t len);
/* For messages: the file, or the URL without its password. */
const char *tb_history_name(const struct tb_history *h);
/* "sqlite" or "postgresql". */
const char *tb_history_backend(const struct tb_history *h);
/* The schema version the database holds. */
int tb_history_schema_version(const struct tb_history *h);
/* Bring an older schema to TB_HISTORY_SCHEMA_VERSION in one transaction; *from gets the
 * version it had. Returns 0 (also when there was nothing to do) or -errno. */
int tb_history_migrate(struct tb_history *h, int *from);
/* The exit code for one of the errors above: tb_exit_code()'s class (core/util.h), as in
 * every command: 3 for a full disk, a locked database or an unreachable server, 2 for bad
 * input (the database, a file, a link), 1 otherwise. */
int tb_history_exit_code(int err);

/* What tb_history_add_result did. */
struct tb_history_added {
	int64_t run_id;
	bool existed;	/* the run was in the history already: nothing changed */
	size_t npoints; /* rows added (0 when it existed) */
	char hash[65];
	char variant[13], hw_class[17];
};

/*
 * Add a run to the history in one transaction: the result (doc: its JSON as read, so that
 * keys this version does not know are kept; NULL: tb_result_to_json(r)), with labels (an
 * object merged over the result's own, may be NULL; the caller has checked them) and source
 * (the file it came from, may be NULL). Adding a run that is already there (the same content
 * hash, labels aside) changes nothing. r is analysed first when the file has no figures.
 * Returns 0 with *info, or -errno, with nothing stored.
 */
int tb_history_add_result(struct tb_history *h, struct tb_result *r, const json_t *doc,
			  const json_t *labels, const char *source, struct tb_history_added *info);

/*
 * Several adds as one transaction (a fleet's results, a backfill): between tb_history_begin and
 * tb_history_commit every tb_history_add_result is a savepoint of it (a failed add undoes only
 * itself; the others stay for the commit), and nothing is visible to others, or stored, before
 * the commit. The write lock is held meanwhile. tb_history_rollback drops them all (also done
 * by tb_history_close). Returns 0 or -errno.
 */
int tb_history_begin(struct tb_history *h);
int tb_history_commit(struct tb_history *h);
void tb_history_rollback(struct tb_history *h);

/* Counts of the whole history. */
struct tb_history_counts {
	int64_t runs, points;
	char first[40], last[40];
};
int tb_history_counts(struct tb_history *h, struct tb_history_counts *c);

/*
 * Every series of the history (comparable: scenario texts joined), sorted by name, into *out
 * (free with tb_history_series_free). Returns 0 or -errno.
 */
int tb_history_series(struct tb_history *h, bool comparable, struct tb_hseries **out, size_t *n);
void tb_history_series_free(struct tb_hseries *s, size_t n);

/*
 * Call fn for each point of series s in run order (time, then id), streamed: the point and its
 * samples are valid during the call only. fn returns 0 to go on, or a negative value that stops
 * the walk and is returned. Returns 0 or -errno.
 */
int tb_history_points(struct tb_history *h, const struct tb_hseries *s,
		      int (*fn)(void *ctx, const struct tb_hpoint *p), void *ctx);

/* One run as stored (without its result document). */
struct tb_history_run {
	int64_t id;
	char hash[65], started[40], finished[40], added[40];
	char *scenario, *variant, *hw_class, *hw_desc, *host, *kernel, *tool_version, *source;
	json_t *labels; /* object */
	json_t *system; /* object, or NULL */
};
/* Run id into *run (free with tb_history_run_release). Returns 0, -ENOENT or -errno. */
int tb_history_run_get(struct tb_history *h, int64_t id, struct tb_history_run *run);
void tb_history_run_release(struct tb_history_run *run);
/* The id of the run whose content hash is hash: 1 and *id, 0 when not there, or -errno. */
int tb_history_find_hash(struct tb_history *h, const char *hash, int64_t *id);
/* Call fn for every run, oldest first (system and labels filled). Returns 0 or -errno. */
int tb_history_runs(struct tb_history *h, int (*fn)(void *ctx, const struct tb_history_run *run),
		    void *ctx);
/* The stored result.json of run id as text (new buffer, *len bytes). Returns 0, -ENOENT,
 * -EINVAL (damaged), -errno. */
int tb_history_export(struct tb_history *h, int64_t id, char **json, size_t *len);

#endif /* TB_HISTORY_STORE_H */
