// SPDX-License-Identifier: GPL-2.0
/*
 * The SQLite driver of the history store (db.h): one database file, the default
 * (results/history.db). Writers serialise on the file's lock (BEGIN IMMEDIATE, a busy
 * timeout), readers never see a half-written run (rollback journal, FULL sync).
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tb.h"
#include "history/db.h"

#define STMT_CACHE 24 /* prepared statements kept per connection (store.c has fewer queries) */

struct sl_db {
	struct tb_hdb base;
	sqlite3 *db;
	struct {
		const char *sql; /* store.c's constant: the pointer is the key */
		sqlite3_stmt *stmt;
	} cache[STMT_CACHE];
	size_t ncache;
	bool busy_rows; /* a query's rows are open */
};

struct tb_hdb_rows {
	struct sl_db *d;
	sqlite3_stmt *stmt;
	int pending; /* SQLITE_ROW: the first step's row is still to be handed out */
	bool cached;
};

/* -errno for an SQLite result code, and its message naming the database. */
static int sl_error(struct sl_db *d, int rc, const char *what)
{
	int ext = d->db ? sqlite3_extended_errcode(d->db) : rc;
	const char *msg = d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		tb_err("%s: the database is locked by another process (waited for the timeout, TRACEBENCH_DB_TIMEOUT): %s",
		       d->base.name, msg);
		return -EBUSY;
	case SQLITE_NOTADB:
		tb_err("%s: not an SQLite database (%s)", d->base.name, msg);
		return -EINVAL;
	case SQLITE_CORRUPT:
		tb_err("%s: the database file is corrupt (%s); nothing was changed", d->base.name,
		       msg);
		return -EINVAL;
	case SQLITE_NOMEM:
		tb_err("%s: out of memory", d->base.name);
		return -ENOMEM;
	case SQLITE_READONLY:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		tb_err("%s: cannot write the database: %s", d->base.name, msg);
		return -EACCES;
	case SQLITE_CANTOPEN:
		if (ext == SQLITE_CANTOPEN_SYMLINK) {
			tb_err("%s: is a symbolic link; refusing to open it", d->base.name);
			return -ELOOP;
		}
		tb_err("%s: cannot open the database: %s", d->base.name, msg);
		return -EACCES;
	case SQLITE_FULL:
		tb_err("%s: the disk is full", d->base.name);
		return -ENOSPC;
	case SQLITE_IOERR:
		tb_err("%s: I/O error: %s", d->base.name, msg);
		return -EIO;
	default:
		tb_err("%s: %s: %s", d->base.name, what, msg);
		return -EINVAL;
	}
}

/* The file and the journal SQLite writes next to it must not be links we did not create. */
static int check_paths(const char *path, unsigned flags)
{
	static const char *const sfx[] = {"", "-journal", "-wal", "-shm"};
	char p[PATH_MAX], dir[PATH_MAX];
	struct stat st;
	size_t i;
	int ret;

	for (i = 0; i < TB_ARRAY_SIZE(sfx); i++) {
		if ((size_t)snprintf(p, sizeof(p), "%s%s", path, sfx[i]) >= sizeof(p)) {
			tb_err("%s: path too long", path);
			return -ENAMETOOLONG;
		}
		if (lstat(p, &st)) {
			if (!i && errno == ENOENT && !(flags & TB_HDB_CREATE)) {
				tb_err("%s: no history database here (tracebench history add creates one)",
				       path);
				return -ENOENT;
			}
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			tb_err("%s: is a symbolic link; refusing to write through it", p);
			return -ELOOP;
		}
		if (!i && !S_ISREG(st.st_mode)) {
			tb_err("%s: not a regular file", path);
			return -EINVAL;
		}
	}
	if (!(flags & TB_HDB_CREATE) || !lstat(path, &st))
		return 0;
	snprintf(dir, sizeof(dir), "%s", path);
	ret = tb_mkdir_p(dirname(dir), 0755);
	if (ret)
		tb_err("%s: cannot create its directory: %s", path, strerror(-ret));
	return ret;
}

static int sl_open(const char *target, unsigned flags, unsigned int timeout_ms, struct tb_hdb **out)
{
	struct sl_db *d = calloc(1, sizeof(*d));
	int rc, ret;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->base.ops = &tb_hdb_sqlite;
	snprintf(d->base.name, sizeof(d->base.name), "%s", target);
	ret = check_paths(target, flags);
	if (ret)
		goto fail;
	rc = sqlite3_open_v2(
		target, &d->db,
		((flags & TB_HDB_READONLY) ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
			SQLITE_OPEN_NOFOLLOW | ((flags & TB_HDB_CREATE) ? SQLITE_OPEN_CREATE : 0),
		NULL);
	if (rc != SQLITE_OK) {
		ret = sl_error(d, rc, "open");
		goto fail;
	}
	sqlite3_extended_result_codes(d->db, 1);
	/* The file may come from anyone: none of its triggers or views runs inside tracebench,
	 * no function of ours is called from its schema, and SQL cannot corrupt it on purpose.
	 * Our schema has neither triggers nor views (store.c refuses a file that has). */
	if (sqlite3_db_config(d->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL) != SQLITE_OK ||
	    sqlite3_db_config(d->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL) != SQLITE_OK ||
	    sqlite3_db_config(d->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL) != SQLITE_OK ||
	    sqlite3_db_config(d->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL) != SQLITE_OK) {
		ret = sl_error(d, sqlite3_errcode(d->db), "the defensive settings");
		goto fail;
	}
	sqlite3_busy_timeout(d->db, (int)(timeout_ms > INT_MAX ? INT_MAX : timeout_ms));
	/* Reading the schema is the first access to the file: a file that is not a database (or
	 * a damaged header) is refused here, before anything is written. */
	rc = sqlite3_exec(d->db, "PRAGMA foreign_keys = ON; SELECT count(*) FROM sqlite_master",
			  NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = sl_error(d, rc, "reading the schema");
		goto fail;
	}
	*out = &d->base;
	return 0;
fail:
	sqlite3_close(d->db);
	free(d);
	return ret;
}

static void sl_close(struct tb_hdb *db)
{
	struct sl_db *d = (struct sl_db *)db;

	if (!d)
		return;
	for (size_t i = 0; i < d->ncache; i++)
		sqlite3_finalize(d->cache[i].stmt);
	sqlite3_close(d->db);
	free(d);
}

static int sl_exec(struct tb_hdb *db, const char *sql)
{
	struct sl_db *d = (struct sl_db *)db;
	int rc;

	/* SQLite rolled back by itself (a full disk, an I/O error): nothing left to undo, and
	 * no "cannot rollback - no transaction is active" to say. */
	if (!strcmp(sql, "ROLLBACK") && sqlite3_get_autocommit(d->db))
		return 0;
	rc = sqlite3_exec(d->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sl_error(d, rc, sql);
}

static int sl_begin(struct tb_hdb *db)
{
	return sl_exec(db, "BEGIN IMMEDIATE");
}

/* A prepared statement for sql: from the cache (reset) or new. */
static int prepare(struct sl_db *d, const char *sql, sqlite3_stmt **stmt, bool *cached)
{
	size_t i;
	int rc;

	for (i = 0; i < d->ncache; i++) {
		if (d->cache[i].sql == sql) {
			*stmt = d->cache[i].stmt;
			*cached = true;
			sqlite3_reset(*stmt);
			sqlite3_clear_bindings(*stmt);
			return 0;
		}
	}
	rc = sqlite3_prepare_v2(d->db, sql, -1, stmt, NULL);
	if (rc != SQLITE_OK)
		return sl_error(d, rc, "preparing a statement");
	*cached = d->ncache < STMT_CACHE;
	if (*cached) {
		d->cache[d->ncache].sql = sql;
		d->cache[d->ncache++].stmt = *stmt;
	}
	return 0;
}

static int bind(struct sl_db *d, sqlite3_stmt *stmt, const struct tb_hdb_val *p, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char name[24];
		int i, rc;

		snprintf(name, sizeof(name), "$%zu", k + 1);
		i = sqlite3_bind_parameter_index(stmt, name);
		if (!i)
			continue; /* a parameter the statement does not use */
		switch (p[k].type) {
		case TB_HDB_INT:
			rc = sqlite3_bind_int64(stmt, i, p[k].i);
			break;
		case TB_HDB_REAL:
			rc = isfinite(p[k].d) ? sqlite3_bind_double(stmt, i, p[k].d)
					      : sqlite3_bind_null(stmt, i);
			break;
		case TB_HDB_TEXT:
			rc = sqlite3_bind_text(stmt, i, p[k].s, -1, SQLITE_STATIC);
			break;
		case TB_HDB_BLOB:
			rc = sqlite3_bind_blob64(stmt, i, p[k].blob, p[k].len, SQLITE_STATIC);
			break;
		default:
			rc = sqlite3_bind_null(stmt, i);
		}
		if (rc != SQLITE_OK)
			return sl_error(d, rc, "binding a parameter");
	}
	return 0;
}

static void sl_done(struct tb_hdb_rows *rows)
{
	if (!rows)
		return;
	if (rows->cached) {
		sqlite3_reset(rows->stmt);
		sqlite3_clear_bindings(rows->stmt);
	} else {
		sqlite3_finalize(rows->stmt);
	}
	rows->d->busy_rows = false;
	free(rows);
}

static int sl_query(struct tb_hdb *db, const char *sql, const struct tb_hdb_val *p, size_t n,
		    struct tb_hdb_rows **out)
{
	struct sl_db *d = (struct sl_db *)db;
	struct tb_hdb_rows *rows;
	int ret, rc;

	*out = NULL;
	if (d->busy_rows) {
		tb_err("%s: internal error: a query while another's rows are open", db->name);
		return -EBUSY;
	}
	rows = calloc(1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	rows->d = d;
	ret = prepare(d, sql, &rows->stmt, &rows->cached);
	if (ret) {
		free(rows);
		return ret;
	}
	d->busy_rows = true;
	ret = bind(d, rows->stmt, p, n);
	if (ret)
		goto fail;
	/* The first step runs the statement: its errors belong to the query. */
	rc = sqlite3_step(rows->stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		ret = sl_error(d, rc, "running a statement");
		goto fail;
	}
	rows->pending = rc;
	*out = rows;
	return 0;
fail:
	sl_done(rows);
	return ret;
}

static int sl_next(struct tb_hdb_rows *rows)
{
	int rc;

	if (rows->pending) {
		rc = rows->pending;
		rows->pending = 0;
		return rc == SQLITE_ROW;
	}
	rc = sqlite3_step(rows->stmt);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return sl_error(rows->d, rc, "reading rows");
}

static bool sl_is_null(struct tb_hdb_rows *rows, int i)
{
	return sqlite3_column_type(rows->stmt, i) == SQLITE_NULL;
}

static int64_t sl_col_int(struct tb_hdb_rows *rows, int i)
{
	return sqlite3_column_int64(rows->stmt, i);
}

static double sl_col_real(struct tb_hdb_rows *rows, int i)
{
	return sl_is_null(rows, i) ? NAN : sqlite3_column_double(rows->stmt, i);
}

static const char *sl_col_text(struct tb_hdb_rows *rows, int i)
{
	return (const char *)sqlite3_column_text(rows->stmt, i);
}

static const void *sl_col_blob(struct tb_hdb_rows *rows, int i, size_t *len)
{
	const void *b = sqlite3_column_blob(rows->stmt, i);

	*len = (size_t)sqlite3_column_bytes(rows->stmt, i);
	return b;
}

const struct tb_hdb_ops tb_hdb_sqlite = {
	.name = "sqlite",
	.id_column = "INTEGER PRIMARY KEY",
	.blob_type = "BLOB",
	.ntables_sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
	.has_table_sql = "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1",
	.foreign_sql = "SELECT type || ' ' || name FROM sqlite_master WHERE type NOT IN "
		       "('table', 'index') ORDER BY name LIMIT 1",
	.open = sl_open,
	.close = sl_close,
	.exec = sl_exec,
	.begin = sl_begin,
	.query = sl_query,
	.next = sl_next,
	.is_null = sl_is_null,
	.col_int = sl_col_int,
	.col_real = sl_col_real,
	.col_text = sl_col_text,
	.col_blob = sl_col_blob,
	.done = sl_done,
};
