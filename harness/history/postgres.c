// SPDX-License-Identifier: GPL-2.0
/*
 * The PostgreSQL driver of the history store (db.h), for CI runners that share one history:
 * `--db postgresql://user@host/db`. Rows are streamed (libpq's single-row mode), so reading a
 * long series never holds the whole answer; writers serialise on a transaction-level advisory
 * lock, as SQLite's writers do on the file, so both backends behave alike.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "history/db.h"
#include "history/store.h"

/* The advisory lock every writer of a tracebench history takes ("tbhistry" in ASCII). */
#define WRITE_LOCK_KEY "8386103136757182585"

/* PostgreSQL type oids of the parameters (pg_type.h). */
#define OID_BYTEA  17
#define OID_INT8   20
#define OID_TEXT   25
#define OID_FLOAT8 701

struct pg_db {
	struct tb_hdb base;
	PGconn *conn;
	bool busy_rows;
};

struct tb_hdb_rows {
	struct pg_db *d;
	PGresult *res; /* the current row's (single-row mode), or the final one */
	bool pending;  /* res holds a row not yet handed out */
	bool ended;
	unsigned char *blob; /* the last unescaped bytea, freed on the next row */
};

bool tb_hdb_is_postgres(const char *target)
{
	return target &&
	       (!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11));
}

/* s percent-encoded onto f, keeping the unreserved characters and those of keep. */
static void put_encoded(FILE *f, const char *s, const char *keep)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~", c) || (keep && strchr(keep, c)))
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

static const char *opt_val(const PQconninfoOption *o, const char *key)
{
	for (; o->keyword; o++)
		if (!strcmp(o->keyword, key))
			return o->val && *o->val ? o->val : NULL;
	return NULL;
}

/* A secret libpq takes among a connection's options (any spelling of its key in the URL). */
static bool secret_key(const char *key)
{
	return !strcmp(key, "password") || !strcmp(key, "sslpassword");
}

/*
 * The URL rebuilt from what libpq parsed of it, secrets as ***: parsing it as libpq does (the
 * percent-encoded keys, the userinfo) is the only way to find every place a password may sit.
 * A single host goes in the authority; a list of hosts or a socket directory in the query.
 */
static void put_masked_url(FILE *f, const char *url)
{
	char *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(url, &err), *o;
	const char *user, *host, *port, *sep = "?";
	bool in_authority;

	PQfreemem(err);
	fputs("postgresql://", f);
	if (!opts) { /* not parsed: nothing of it is shown */
		fputs("***", f);
		return;
	}
	user = opt_val(opts, "user");
	host = opt_val(opts, "host");
	port = opt_val(opts, "port");
	in_authority = (!host || !strpbrk(host, ",/")) && (!port || !strchr(port, ','));
	if (user)
		put_encoded(f, user, NULL);
	if (opt_val(opts, "password"))
		fputs(":***", f);
	if (user || opt_val(opts, "password"))
		fputc('@', f);
	if (in_authority && host)
		fprintf(f, strchr(host, ':') ? "[%s]" : "%s", host);
	if (in_authority && port)
		fprintf(f, ":%s", port);
	fputc('/', f);
	if (opt_val(opts, "dbname"))
		put_encoded(f, opt_val(opts, "dbname"), NULL);
	for (o = opts; o->keyword; o++) {
		if (!o->val || !*o->val || !strcmp(o->keyword, "user") ||
		    !strcmp(o->keyword, "password") || !strcmp(o->keyword, "dbname") ||
		    (in_authority && (!strcmp(o->keyword, "host") || !strcmp(o->keyword, "port"))))
			continue;
		fprintf(f, "%s%s=", sep, o->keyword);
		if (secret_key(o->keyword))
			fputs("***", f);
		else
			put_encoded(f, o->val, ",/");
		sep = "&";
	}
	PQconninfoFree(opts);
}

static const char *url_start(const char *s)
{
	const char *a = strstr(s, "postgresql://"), *b = strstr(s, "postgres://");

	return a && (!b || a < b) ? a : b;
}

char *tb_history_mask(const char *s)
{
	const char *at = s ? url_start(s) : NULL;
	char *out = NULL;
	size_t n = 0;
	FILE *f;

	if (!at)
		return s ? strdup(s) : NULL;
	f = open_memstream(&out, &n);
	if (!f)
		return NULL;
	fwrite(s, 1, (size_t)(at - s), f);
	put_masked_url(f, at);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

void tb_history_mask_buf(const char *s, char *buf, size_t len)
{
	char *m = tb_history_mask(s);

	/* Without memory the name is not shown rather than shown with its secret. */
	snprintf(buf, len, "%s", m ? m : (url_start(s) ? "postgresql://***" : s));
	free(m);
}

/* The first line of libpq's message (they end in newlines). */
static const char *first_line(const char *msg, char *buf, size_t len)
{
	size_t n = strcspn(msg ? msg : "", "\n");

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), msg ? msg : "");
	return buf;
}

/* -errno for a failed statement, and its message (SQLSTATE decides the class). */
static int pg_error(struct pg_db *d, const PGresult *res, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	char line[512];

	first_line(res ? PQresultErrorMessage(res) : PQerrorMessage(d->conn), line, sizeof(line));
	if (PQstatus(d->conn) == CONNECTION_BAD) {
		tb_err("%s: lost the connection to the server: %s", d->base.name, line);
		return -EHOSTUNREACH;
	}
	tb_err("%s: %s: %s", d->base.name, what, line);
	if (state &&
	    (!strcmp(state, "55P03") || !strcmp(state, "40P01") || !strcmp(state, "57014")))
		return -EBUSY; /* lock not available, deadlock, statement timeout */
	if (state && !strncmp(state, "42501", 5))
		return -EACCES;
	if (state && !strncmp(state, "53", 2))
		return -ENOSPC; /* insufficient resources */
	return -EINVAL;
}

static void quiet_notices(void *arg, const char *msg)
{
	(void)arg;
	tb_debug("postgresql: %s", msg);
}

static int pg_exec(struct tb_hdb *db, const char *sql);

static int pg_open(const char *target, unsigned flags, unsigned int timeout_ms, struct tb_hdb **out)
{
	/* Defaults first: what the URL itself says (expanded from dbname) overrides them. */
	const char *keys[] = {"connect_timeout", "application_name", "client_encoding", "dbname",
			      NULL};
	const char *vals[] = {"10", TB_NAME, "UTF8", target, NULL};
	struct pg_db *d = calloc(1, sizeof(*d));
	char line[512], sql[96];
	int ret;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->base.ops = &tb_hdb_postgres;
	tb_history_mask_buf(target, d->base.name, sizeof(d->base.name));
	switch (PQpingParams(keys, vals, 1)) {
	case PQPING_OK:
		break;
	case PQPING_NO_ATTEMPT:
		tb_err("%s: not a usable PostgreSQL URL (see libpq's connection URIs)",
		       d->base.name);
		free(d);
		return -EINVAL;
	default:
		tb_err("%s: the PostgreSQL server cannot be reached or does not accept connections",
		       d->base.name);
		free(d);
		return -EHOSTUNREACH;
	}
	d->conn = PQconnectdbParams(keys, vals, 1);
	if (!d->conn) {
		free(d);
		return -ENOMEM;
	}
	if (PQstatus(d->conn) != CONNECTION_OK) {
		tb_err("%s: cannot connect: %s", d->base.name,
		       first_line(PQerrorMessage(d->conn), line, sizeof(line)));
		ret = -EACCES; /* the server answers but refuses us (password, database, role) */
		goto fail;
	}
	PQsetNoticeProcessor(d->conn, quiet_notices, NULL);
	/* Waiting for a lock: as long as SQLite's busy timeout. */
	snprintf(sql, sizeof(sql), "SET lock_timeout = %u", timeout_ms);
	ret = pg_exec(&d->base, sql);
	if (!ret && (flags & TB_HDB_READONLY))
		ret = pg_exec(&d->base, "SET default_transaction_read_only = on");
	if (ret)
		goto fail;
	*out = &d->base;
	return 0;
fail:
	PQfinish(d->conn);
	free(d);
	return ret;
}

static void pg_close(struct tb_hdb *db)
{
	struct pg_db *d = (struct pg_db *)db;

	if (!d)
		return;
	PQfinish(d->conn);
	free(d);
}

static int pg_exec(struct tb_hdb *db, const char *sql)
{
	struct pg_db *d = (struct pg_db *)db;
	PGresult *res = PQexec(d->conn, sql);
	int st = PQresultStatus(res), ret = 0;

	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		ret = res ? pg_error(d, res, sql) : -ENOMEM;
	PQclear(res);
	return ret;
}

static int pg_begin(struct tb_hdb *db)
{
	int ret = pg_exec(db, "BEGIN");

	if (!ret)
		ret = pg_exec(db, "SELECT pg_advisory_xact_lock(" WRITE_LOCK_KEY ")");
	if (ret && PQtransactionStatus(((struct pg_db *)db)->conn) != PQTRANS_IDLE)
		pg_exec(db, "ROLLBACK");
	return ret;
}

static void pg_done(struct tb_hdb_rows *rows)
{
	PGresult *res;

	if (!rows)
		return;
	PQclear(rows->res);
	PQfreemem(rows->blob);
	/* Drain what is left: the connection takes no other query before. */
	while ((res = PQgetResult(rows->d->conn)))
		PQclear(res);
	rows->d->busy_rows = false;
	free(rows);
}

/* The next result of the running query into rows: 1 a row, 0 the end, -errno. */
static int fetch(struct tb_hdb_rows *rows)
{
	PGresult *res;
	int st;

	PQclear(rows->res);
	rows->res = NULL;
	if (rows->ended)
		return 0;
	res = PQgetResult(rows->d->conn);
	if (!res) {
		rows->ended = true;
		return 0;
	}
	rows->res = res;
	st = PQresultStatus(res);
	if (st == PGRES_SINGLE_TUPLE)
		return 1;
	rows->ended = true;
	if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK)
		return 0;
	return pg_error(rows->d, res, "running a statement");
}

/* A parameter as libpq wants it: text (numbers printed), or binary for bytea. */
static void param(const struct tb_hdb_val *v, char *num, size_t numlen, const char **val, int *len,
		  int *fmt, Oid *type)
{
	*val = NULL;
	*len = 0;
	*fmt = 0;
	*type = 0;
	switch (v->type) {
	case TB_HDB_INT:
		snprintf(num, numlen, "%lld", (long long)v->i);
		*val = num;
		*type = OID_INT8;
		break;
	case TB_HDB_REAL:
		*type = OID_FLOAT8;
		if (isfinite(v->d)) {
			snprintf(num, numlen, "%.17g", v->d);
			*val = num;
		}
		break;
	case TB_HDB_TEXT:
		*val = v->s;
		*type = OID_TEXT;
		break;
	case TB_HDB_BLOB:
		*val = v->blob;
		*len = (int)v->len;
		*fmt = 1;
		*type = OID_BYTEA;
		break;
	default:
		break;
	}
}

#define MAX_PARAMS 32

static int pg_query(struct tb_hdb *db, const char *sql, const struct tb_hdb_val *p, size_t n,
		    struct tb_hdb_rows **out)
{
	struct pg_db *d = (struct pg_db *)db;
	const char *vals[MAX_PARAMS];
	char nums[MAX_PARAMS][32];
	int lens[MAX_PARAMS], fmts[MAX_PARAMS], ret;
	Oid types[MAX_PARAMS];
	struct tb_hdb_rows *rows;
	char line[512];

	*out = NULL;
	if (d->busy_rows || n > MAX_PARAMS) {
		tb_err("%s: internal error: %s", db->name,
		       n > MAX_PARAMS ? "too many parameters" : "a query while rows are open");
		return -EINVAL;
	}
	for (size_t k = 0; k < n; k++)
		param(&p[k], nums[k], sizeof(nums[k]), &vals[k], &lens[k], &fmts[k], &types[k]);
	if (!PQsendQueryParams(d->conn, sql, (int)n, types, vals, lens, fmts, 0) ||
	    !PQsetSingleRowMode(d->conn)) {
		tb_err("%s: cannot send a query: %s", db->name,
		       first_line(PQerrorMessage(d->conn), line, sizeof(line)));
		return PQstatus(d->conn) == CONNECTION_BAD ? -EHOSTUNREACH : -EINVAL;
	}
	rows = calloc(1, sizeof(*rows));
	if (!rows) {
		PGresult *res;

		while ((res = PQgetResult(d->conn)))
			PQclear(res);
		return -ENOMEM;
	}
	rows->d = d;
	d->busy_rows = true;
	/* The first result: the statement's errors belong to the query. */
	ret = fetch(rows);
	if (ret < 0) {
		pg_done(rows);
		return ret;
	}
	rows->pending = ret == 1;
	*out = rows;
	return 0;
}

static int pg_next(struct tb_hdb_rows *rows)
{
	PQfreemem(rows->blob);
	rows->blob = NULL;
	if (rows->pending) {
		rows->pending = false;
		return 1;
	}
	return fetch(rows);
}

static bool pg_is_null(struct tb_hdb_rows *rows, int i)
{
	return !rows->res || PQgetisnull(rows->res, 0, i);
}

static int64_t pg_col_int(struct tb_hdb_rows *rows, int i)
{
	return pg_is_null(rows, i) ? 0 : strtoll(PQgetvalue(rows->res, 0, i), NULL, 10);
}

static double pg_col_real(struct tb_hdb_rows *rows, int i)
{
	return pg_is_null(rows, i) ? NAN : strtod(PQgetvalue(rows->res, 0, i), NULL);
}

static const char *pg_col_text(struct tb_hdb_rows *rows, int i)
{
	return pg_is_null(rows, i) ? NULL : PQgetvalue(rows->res, 0, i);
}

static const void *pg_col_blob(struct tb_hdb_rows *rows, int i, size_t *len)
{
	*len = 0;
	if (pg_is_null(rows, i))
		return NULL;
	PQfreemem(rows->blob);
	rows->blob = PQunescapeBytea((const unsigned char *)PQgetvalue(rows->res, 0, i), len);
	return rows->blob;
}

const struct tb_hdb_ops tb_hdb_postgres = {
	.name = "postgresql",
	.id_column = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
	.blob_type = "BYTEA",
	.ntables_sql = "SELECT count(*) FROM information_schema.tables "
		       "WHERE table_schema = current_schema()",
	.has_table_sql = "SELECT count(*) FROM information_schema.tables "
			 "WHERE table_schema = current_schema() AND table_name = $1",
	.foreign_sql =
		"SELECT 'trigger ' || t.tgname FROM pg_trigger t JOIN pg_class c ON "
		"c.oid = t.tgrelid WHERE NOT t.tgisinternal AND "
		"c.relnamespace = current_schema()::regnamespace UNION ALL "
		"SELECT 'view ' || viewname FROM pg_views WHERE schemaname = current_schema() "
		"UNION ALL SELECT 'materialized view ' || matviewname FROM pg_matviews "
		"WHERE schemaname = current_schema() UNION ALL SELECT 'rule ' || rulename "
		"FROM pg_rules WHERE schemaname = current_schema() UNION ALL "
		"SELECT 'policy ' || policyname FROM pg_policies "
		"WHERE schemaname = current_schema() LIMIT 1",
	.open = pg_open,
	.close = pg_close,
	.exec = pg_exec,
	.begin = pg_begin,
	.query = pg_query,
	.next = pg_next,
	.is_null = pg_is_null,
	.col_int = pg_col_int,
	.col_real = pg_col_real,
	.col_text = pg_col_text,
	.col_blob = pg_col_blob,
	.done = pg_done,
};
