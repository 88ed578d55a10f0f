/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The database drivers under the history store (internal to history/): a connection, statements
 * with parameters, rows read one at a time. sqlite.c (libsqlite3) and postgres.c (libpq) are the
 * two; store.c holds the one schema and the one set of queries both run.
 *
 * SQL texts are constants of store.c. Every value from outside is a parameter ($1, $2, ... in
 * the text, bound by number on both drivers): nothing from input is ever pasted into SQL.
 *
 * Errors are printed through tb_err with the database's name (file or URL without password)
 * and returned as -errno: -EINVAL (not a database, a corrupt one, an SQL error), -EBUSY (locked
 * beyond the timeout), -EHOSTUNREACH (the server cannot be reached), -ENOENT (no such database
 * and not asked to create it), -ELOOP (the path is a symbolic link), -EACCES, -ENOMEM.
 */
#ifndef TB_HISTORY_DB_H
#define TB_HISTORY_DB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tb_hdb_type { TB_HDB_NULL, TB_HDB_INT, TB_HDB_REAL, TB_HDB_TEXT, TB_HDB_BLOB };

/* A parameter's value; text and blobs are borrowed for the call. */
struct tb_hdb_val {
	enum tb_hdb_type type;
	int64_t i;
	double d; /* not finite binds NULL */
	const char *s;
	const void *blob;
	size_t len;
};

#define TB_HDB_INT_V(v)	 ((struct tb_hdb_val){.type = TB_HDB_INT, .i = (v)})
#define TB_HDB_REAL_V(v) ((struct tb_hdb_val){.type = TB_HDB_REAL, .d = (v)})
/* NULL text binds NULL. */
static inline struct tb_hdb_val tb_hdb_text_v(const char *s)
{
	return (struct tb_hdb_val){.type = s ? TB_HDB_TEXT : TB_HDB_NULL, .s = s};
}
#define TB_HDB_TEXT_V(v)    tb_hdb_text_v(v)
#define TB_HDB_BLOB_V(p, n) ((struct tb_hdb_val){.type = TB_HDB_BLOB, .blob = (p), .len = (n)})

enum {
	TB_HDB_CREATE = 1 << 0,	  /* create the database file when it does not exist (SQLite) */
	TB_HDB_READONLY = 1 << 1, /* only read (SQLite: open read-only; PostgreSQL: read-only
				     transactions) */
};

struct tb_hdb;
struct tb_hdb_rows;

struct tb_hdb_ops {
	const char *name;      /* "sqlite", "postgresql" */
	const char *id_column; /* DDL of an integer key the database numbers itself */
	const char *blob_type; /* DDL type of binary data */
	/* One row, one column: the number of tables in the database / of those named $1. */
	const char *ntables_sql, *has_table_sql;
	/* One row, one text column: the first object of the schema that is not a table or an
	 * index ("trigger t", "view v", "rule r"), none when there is none. Our schema has no
	 * code: such an object is someone else's and would run inside our statements. */
	const char *foreign_sql;
	/* Open target (a file, a URL) waiting at most timeout_ms for locks. */
	int (*open)(const char *target, unsigned flags, unsigned int timeout_ms,
		    struct tb_hdb **out);
	void (*close)(struct tb_hdb *db);
	/* Statements without parameters or rows (DDL, COMMIT, ROLLBACK). */
	int (*exec)(struct tb_hdb *db, const char *sql);
	/* Start a write transaction that holds the database's write lock from its start (SQLite:
	 * BEGIN IMMEDIATE with the busy timeout; PostgreSQL: BEGIN). */
	int (*begin)(struct tb_hdb *db);
	/*
	 * Run sql with n parameters. Returns 0 and *out, the rows to read with next (NULL for a
	 * statement without rows is allowed: then done need not be called), or -errno. Only one
	 * query's rows may be open on a connection at a time.
	 */
	int (*query)(struct tb_hdb *db, const char *sql, const struct tb_hdb_val *p, size_t n,
		     struct tb_hdb_rows **out);
	/* The next row: 1, 0 at the end, -errno. */
	int (*next)(struct tb_hdb_rows *rows);
	/* Column i of the current row. Text stays valid until the next call to next or done. */
	bool (*is_null)(struct tb_hdb_rows *rows, int i);
	int64_t (*col_int)(struct tb_hdb_rows *rows, int i);
	double (*col_real)(struct tb_hdb_rows *rows, int i);	  /* NAN when NULL */
	const char *(*col_text)(struct tb_hdb_rows *rows, int i); /* NULL when NULL */
	const void *(*col_blob)(struct tb_hdb_rows *rows, int i, size_t *len);
	/* Finish reading (also before the end); frees rows. */
	void (*done)(struct tb_hdb_rows *rows);
};

/* What every connection starts with. */
struct tb_hdb {
	const struct tb_hdb_ops *ops;
	char name[512]; /* for messages: the file, or the URL without its password */
};

extern const struct tb_hdb_ops tb_hdb_sqlite, tb_hdb_postgres;

/* target names a PostgreSQL server (postgresql:// or postgres:// URL). */
bool tb_hdb_is_postgres(const char *target);

/*
 * Run sql and read at most one row of one integer column into *v (unchanged when there is no
 * row). Returns 1 when there was a row, 0 when there was none, or -errno.
 */
int tb_hdb_query_int(struct tb_hdb *db, const char *sql, const struct tb_hdb_val *p, size_t n,
		     int64_t *v);
/* Run sql (parameters, no rows wanted). Returns 0 or -errno. */
int tb_hdb_run(struct tb_hdb *db, const char *sql, const struct tb_hdb_val *p, size_t n);

/*
 * Columns as read from a database someone else may have written, as a result file's values
 * are read (model/json-read.c): text is escaped (no control reaches a terminal) and kept to
 * TB_HDB_TEXT_MAX bytes; JSON with a control in a key or string is damaged (NULL); a number
 * beyond TB_RESULT_MAX_VALUE in magnitude is not a value (tb_hdb_value_ok false; NAN is
 * "unknown" and passes).
 */
#define TB_HDB_TEXT_MAX 4096
/* A new copy of text column i; for NULL: NULL when null, else "". NULL also on ENOMEM. */
char *tb_hdb_col_dup(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, int i, bool null);
/* Text column i into buf ("" for NULL). */
void tb_hdb_col_copy(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, int i, char *buf,
		     size_t len);
/* JSON column i parsed; NULL when NULL, not JSON or not clean. */
json_t *tb_hdb_col_json(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, int i);
bool tb_hdb_value_ok(double v);
/* text (len bytes, NUL-terminated) is JSON without a raw control and with clean strings (a
 * stored result as tracebench stores it). */
bool tb_hdb_json_ok(const char *text, size_t len);

#endif /* TB_HISTORY_DB_H */
