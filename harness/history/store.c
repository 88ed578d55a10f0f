// SPDX-License-Identifier: GPL-2.0
/*
 * The history store (store.h): the one schema, its migrations, and the queries both drivers
 * (sqlite.c, postgres.c) run. Every value from outside is a parameter; the only text put
 * together here is the schema's DDL from constants (the drivers' key and blob types).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "core/env.h"
#include "core/tb.h"
#include "history/db.h"
#include "history/series.h"
#include "history/store.h"
#include "model/measured.h"
#include "model/result.h"
#include "stats/stats.h"

#define APPLICATION	 "tracebench-history"
#define MAX_RESULT_BYTES (1ull << 30) /* as model/json-read.c: a result file is at most 1 GiB */

struct tb_history {
	struct tb_hdb *db;
	int version;
	bool in_tx; /* between tb_history_begin and tb_history_commit or _rollback */
};

/* ---- the schema and its migrations ----------------------------------------------------------- */

/* Version 1. @ID@ and @BLOB@ are the drivers' types (tb_hdb_ops id_column, blob_type). */
static const char *const schema_v1[] = {
	"CREATE TABLE tb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
	/* A run: its identity, what explains changes (labels, environment), the whole result. */
	"CREATE TABLE runs (id @ID@, hash TEXT NOT NULL UNIQUE, started TEXT NOT NULL, "
	"finished TEXT, added TEXT NOT NULL, scenario TEXT NOT NULL, scenario_hash TEXT NOT NULL, "
	"hw_class TEXT NOT NULL, hw_desc TEXT NOT NULL, fingerprint TEXT, host TEXT, kernel TEXT, "
	"tool_version TEXT, partial INTEGER NOT NULL, source TEXT, labels TEXT NOT NULL, "
	"system TEXT, result @BLOB@ NOT NULL, result_bytes BIGINT NOT NULL)",
	"CREATE INDEX runs_started ON runs (started, id)",
	/* A point: one metric of one cell of one run, with the series' key columns. */
	"CREATE TABLE points (run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE, "
	"scenario TEXT NOT NULL, scenario_hash TEXT NOT NULL, hw_class TEXT NOT NULL, "
	"workload TEXT NOT NULL, tracer TEXT NOT NULL, metric TEXT NOT NULL, cell TEXT NOT NULL, "
	"started TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, ci_lo DOUBLE PRECISION, "
	"ci_hi DOUBLE PRECISION, scale DOUBLE PRECISION, n INTEGER NOT NULL, samples TEXT, "
	"verdict TEXT, PRIMARY KEY (run_id, cell, metric))",
	"CREATE INDEX points_series ON points (scenario, hw_class, workload, tracer, metric, "
	"scenario_hash, started, run_id)",
	"INSERT INTO tb_meta (key, value) VALUES ('application', '" APPLICATION "')",
	NULL,
};

/* Each step brings the schema from version - 1 to version; index + 1 == version. */
static const struct migration {
	int version;
	const char *what;
	const char *const *sql;
} migrations[] = {
	{1, "the initial schema: runs, points, tb_meta", schema_v1},
};

_Static_assert(TB_ARRAY_SIZE(migrations) == TB_HISTORY_SCHEMA_VERSION,
	       "a migration for every schema version");

static const char sql_version[] = "SELECT value FROM tb_meta WHERE key = $1";
static const char sql_set_meta[] = "INSERT INTO tb_meta (key, value) VALUES ($1, $2) "
				   "ON CONFLICT (key) DO UPDATE SET value = excluded.value";

/* s with @ID@ and @BLOB@ replaced by the driver's types (new string). */
static char *ddl(const struct tb_hdb_ops *ops, const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	while (*s) {
		if (!strncmp(s, "@ID@", 4)) {
			fputs(ops->id_column, f);
			s += 4;
		} else if (!strncmp(s, "@BLOB@", 6)) {
			fputs(ops->blob_type, f);
			s += 6;
		} else {
			fputc(*s++, f);
		}
	}
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

static void utc_now(char *buf, size_t len)
{
	tb_utc_iso(buf, len, time(NULL));
}

static int set_meta(struct tb_hdb *db, const char *key, const char *value)
{
	struct tb_hdb_val p[] = {TB_HDB_TEXT_V(key), TB_HDB_TEXT_V(value)};

	return tb_hdb_run(db, sql_set_meta, p, 2);
}

/* Apply the steps after version from in the transaction the caller opened. */
static int apply_migrations(struct tb_hdb *db, int from)
{
	char num[16], now[40];
	int ret = 0;

	for (size_t m = (size_t)from; !ret && m < TB_ARRAY_SIZE(migrations); m++) {
		for (const char *const *q = migrations[m].sql; !ret && *q; q++) {
			char *sql = ddl(db->ops, *q);

			ret = sql ? db->ops->exec(db, sql) : -ENOMEM;
			free(sql);
		}
		snprintf(num, sizeof(num), "%d", migrations[m].version);
		if (!ret)
			ret = set_meta(db, "schema_version", num);
		if (!ret)
			tb_debug("%s: schema version %d: %s", db->name, migrations[m].version,
				 migrations[m].what);
	}
	utc_now(now, sizeof(now));
	if (!ret)
		ret = set_meta(db, from ? "migrated" : "created", now);
	if (!ret)
		ret = set_meta(db, from ? "migrated_by" : "created_by", TB_NAME " " TB_VERSION);
	return ret;
}

static int has_table(struct tb_hdb *db, const char *name)
{
	struct tb_hdb_val p = TB_HDB_TEXT_V(name);
	int64_t n = 0;
	int ret = tb_hdb_query_int(db, db->ops->has_table_sql, &p, 1, &n);

	return ret < 0 ? ret : n > 0;
}

/* tb_meta's value of key into buf ("" when absent). Returns 0 or -errno. */
static int get_meta(struct tb_hdb *db, const char *key, char *buf, size_t len)
{
	struct tb_hdb_val p = TB_HDB_TEXT_V(key);
	struct tb_hdb_rows *rows;
	int ret = db->ops->query(db, sql_version, &p, 1, &rows);

	buf[0] = '\0';
	if (ret || !rows)
		return ret;
	ret = db->ops->next(rows);
	if (ret == 1 && db->ops->col_text(rows, 0))
		snprintf(buf, len, "%s", db->ops->col_text(rows, 0));
	db->ops->done(rows);
	return ret < 0 ? ret : 0;
}

/* The schema's version: > 0, 0 for an empty database, or -errno (a foreign one: -EINVAL). */
static int read_version(struct tb_hdb *db)
{
	char app[128], ver[32], *end;
	int64_t ntables = 0;
	long v;
	int ret;

	ret = has_table(db, "tb_meta");
	if (ret < 0)
		return ret;
	if (!ret) {
		ret = tb_hdb_query_int(db, db->ops->ntables_sql, NULL, 0, &ntables);
		if (ret < 0)
			return ret;
		if (!ntables)
			return 0;
		tb_err("%s: not a tracebench history: it holds %lld other table%s and no tb_meta; refusing to touch it",
		       db->name, (long long)ntables, ntables == 1 ? "" : "s");
		return -EINVAL;
	}
	if ((ret = get_meta(db, "application", app, sizeof(app))) ||
	    (ret = get_meta(db, "schema_version", ver, sizeof(ver))))
		return ret;
	if (strcmp(app, APPLICATION)) {
		tb_err("%s: not a tracebench history (tb_meta.application is '%s')", db->name, app);
		return -EINVAL;
	}
	errno = 0;
	v = strtol(ver, &end, 10);
	if (errno || end == ver || *end || v < 1 || v > 100000) {
		tb_err("%s: damaged history: schema_version is '%s'", db->name, ver);
		return -EINVAL;
	}
	return (int)v;
}

/* A schema object that is not ours (a trigger, a view, a rule) is refused: -EINVAL, said. */
static int check_objects(struct tb_hdb *db)
{
	struct tb_hdb_rows *rows;
	char what[160];
	int ret = db->ops->query(db, db->ops->foreign_sql, NULL, 0, &rows);

	if (ret || !rows)
		return ret;
	ret = db->ops->next(rows);
	if (ret == 1)
		tb_hdb_col_copy(rows, db->ops, 0, what, sizeof(what));
	db->ops->done(rows);
	if (ret != 1)
		return ret;
	tb_err("%s: not a tracebench history as this tracebench made it: it holds the %s, and a history has no triggers, views or rules; refusing to read or change it",
	       db->name, what);
	return -EINVAL;
}

/* Create the schema of an empty database, inside the write lock (another process may have
 * created it meanwhile). */
static int create_schema(struct tb_history *h)
{
	struct tb_hdb *db = h->db;
	int ret = db->ops->begin(db);

	if (ret)
		return ret;
	ret = read_version(db);
	if (ret == 0)
		ret = apply_migrations(db, 0);
	if (ret < 0) {
		db->ops->exec(db, "ROLLBACK");
		return ret;
	}
	ret = db->ops->exec(db, "COMMIT");
	if (!ret) {
		h->version = read_version(db);
		ret = h->version < 0 ? h->version : 0;
	}
	return ret;
}

/* The database's version against this build's. */
static int check_version(struct tb_history *h, unsigned flags)
{
	const char *name = h->db->name;

	if (h->version > TB_HISTORY_SCHEMA_VERSION) {
		tb_err("%s: the history has schema version %d, newer than this tracebench's (%d): use a newer tracebench; nothing was changed",
		       name, h->version, TB_HISTORY_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (h->version < TB_HISTORY_SCHEMA_VERSION && !(flags & TB_HISTORY_MIGRATE)) {
		tb_err("%s: the history has schema version %d, older than this tracebench's (%d): back it up, then run 'tracebench history migrate --db %s'",
		       name, h->version, TB_HISTORY_SCHEMA_VERSION, name);
		return -EINVAL;
	}
	return 0;
}

/* ---- opening --------------------------------------------------------------------------------- */

const char *tb_history_target(const char *db)
{
	const char *env = getenv(TB_ENV_DB);

	if (db && *db)
		return db;
	return env && *env ? env : TB_HISTORY_DEFAULT_DB;
}

static int timeout_ms(unsigned int *ms)
{
	const char *env = getenv(TB_ENV_DB_TIMEOUT);
	uint64_t ns;

	*ms = TB_HISTORY_DEFAULT_TIMEOUT_MS;
	if (!env || !*env)
		return 0;
	if (tb_parse_duration(env, &ns) || ns > 3600ull * 1000000000ull) {
		tb_err(TB_ENV_DB_TIMEOUT ": bad value '%s': a duration such as 30s, at most 1h",
		       env);
		return -EINVAL;
	}
	*ms = (unsigned int)(ns / 1000000);
	return 0;
}

int tb_history_open(const char *target, unsigned flags, struct tb_history **out)
{
	const struct tb_hdb_ops *ops =
		tb_hdb_is_postgres(target) ? &tb_hdb_postgres : &tb_hdb_sqlite;
	/* A database file this open creates and cannot give a schema (a full disk) is removed:
	 * no 0-byte file is left to look like a history. */
	bool made = ops == &tb_hdb_sqlite && (flags & TB_HISTORY_WRITE) && access(target, F_OK);
	struct tb_history *h;
	unsigned int ms;
	struct stat st;
	int ret;

	*out = NULL;
	ret = timeout_ms(&ms);
	if (ret)
		return ret;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	ret = ops->open(target,
			(flags & (TB_HISTORY_WRITE | TB_HISTORY_MIGRATE))
				? ((flags & TB_HISTORY_WRITE) ? TB_HDB_CREATE : 0)
				: TB_HDB_READONLY,
			ms, &h->db);
	/* Before any query of its tables: one of them may be a view of someone else's. */
	if (!ret)
		ret = check_objects(h->db);
	if (ret)
		goto fail;
	h->version = read_version(h->db);
	if (h->version < 0) {
		ret = h->version;
		goto fail;
	}
	if (!h->version && !(flags & TB_HISTORY_WRITE)) {
		tb_err("%s: holds no tracebench history yet ('tracebench history add' creates it)",
		       h->db->name);
		ret = -ENOENT;
		goto fail;
	}
	ret = h->version ? 0 : create_schema(h);
	if (!ret)
		ret = check_version(h, flags);
	if (ret)
		goto fail;
	*out = h;
	return 0;
fail:
	tb_history_close(h);
	if (made && !lstat(target, &st) && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(target);
	return ret;
}

void tb_history_close(struct tb_history *h)
{
	if (!h)
		return;
	tb_history_rollback(h); /* an open transaction is not committed by closing */
	if (h->db)
		h->db->ops->close(h->db);
	free(h);
}

const char *tb_history_name(const struct tb_history *h)
{
	return h->db->name;
}

const char *tb_history_backend(const struct tb_history *h)
{
	return h->db->ops->name;
}

int tb_history_schema_version(const struct tb_history *h)
{
	return h->version;
}

int tb_history_migrate(struct tb_history *h, int *from)
{
	struct tb_hdb *db = h->db;
	int ret, v;

	*from = h->version;
	if (h->version >= TB_HISTORY_SCHEMA_VERSION)
		return 0;
	ret = db->ops->begin(db);
	if (ret)
		return ret;
	v = read_version(db); /* again, inside the lock */
	ret = v < 0 ? v : apply_migrations(db, v);
	if (ret) {
		db->ops->exec(db, "ROLLBACK");
		return ret;
	}
	ret = db->ops->exec(db, "COMMIT");
	if (!ret)
		h->version = TB_HISTORY_SCHEMA_VERSION;
	*from = v;
	return ret;
}

int tb_history_exit_code(int err)
{
	return tb_exit_code(err);
}

/* ---- adding a run ---------------------------------------------------------------------------- */

static const char sql_add_run[] =
	"INSERT INTO runs (hash, started, finished, added, scenario, scenario_hash, hw_class, "
	"hw_desc, fingerprint, host, kernel, tool_version, partial, source, labels, system, "
	"result, result_bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, "
	"$14, $15, $16, $17, $18) ON CONFLICT (hash) DO NOTHING RETURNING id";
static const char sql_add_point[] =
	"INSERT INTO points (run_id, scenario, scenario_hash, hw_class, workload, tracer, metric, "
	"cell, started, value, ci_lo, ci_hi, scale, n, samples, verdict) VALUES ($1, $2, $3, $4, "
	"$5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";
static const char sql_find_hash[] = "SELECT id FROM runs WHERE hash = $1";

/* The run's document to store: doc (or r's) with the labels merged in; compressed. */
struct stored {
	json_t *doc;
	char *text, *labels, *system;
	unsigned char *z;
	uLongf zlen;
	size_t len;
};

static void stored_free(struct stored *s)
{
	json_decref(s->doc);
	free(s->text);
	free(s->labels);
	free(s->system);
	free(s->z);
}

static int stored_make(struct stored *s, const struct tb_result *r, const json_t *doc,
		       const json_t *labels)
{
	json_t *l, *cl;
	char *masked;

	memset(s, 0, sizeof(*s));
	s->doc = doc ? json_deep_copy(doc) : tb_result_to_json(r);
	if (!s->doc)
		return -ENOMEM;
	/* A result written before commands masked their history URL: stored without its secret. */
	cl = json_object_get(s->doc, "command_line");
	if (json_is_string(cl)) {
		masked = tb_history_mask(json_string_value(cl));
		if (!masked || json_object_set_new(s->doc, "command_line", json_string(masked))) {
			free(masked);
			return -ENOMEM;
		}
		free(masked);
	}
	l = json_object_get(s->doc, "labels");
	if (!json_is_object(l)) {
		l = json_object();
		if (!l || json_object_set_new(s->doc, "labels", l))
			return -ENOMEM;
	}
	if (labels && json_object_update(l, (json_t *)labels))
		return -ENOMEM;
	s->text = json_dumps(s->doc, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
	s->labels = json_dumps(l, JSON_COMPACT | JSON_SORT_KEYS);
	s->system = r->system ? json_dumps(r->system, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	if (!s->text || !s->labels || (r->system && !s->system))
		return -ENOMEM;
	s->len = strlen(s->text);
	s->zlen = compressBound(s->len);
	s->z = malloc(s->zlen);
	if (!s->z || compress2(s->z, &s->zlen, (const Bytef *)s->text, s->len, 6) != Z_OK)
		return -ENOMEM;
	return 0;
}

static const char *sys_text(const json_t *sys, const char *k1, const char *k2)
{
	json_t *v = json_object_get(sys, k1);

	v = k2 && json_is_object(v) ? json_object_get(v, k2) : (k2 ? NULL : v);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* INSERT the run; 1 and *id when added, 0 when its hash was there already. */
static int insert_run(struct tb_hdb *db, const struct tb_result *r, const struct tb_hrun_id *id,
		      const struct stored *s, const char *source, int64_t *run_id)
{
	char now[40];
	struct tb_hdb_val p[18];
	struct tb_hdb_rows *rows;
	int ret;

	utc_now(now, sizeof(now));
	p[0] = TB_HDB_TEXT_V(id->hash);
	p[1] = TB_HDB_TEXT_V(id->started);
	p[2] = TB_HDB_TEXT_V(r->finished);
	p[3] = TB_HDB_TEXT_V(now);
	p[4] = TB_HDB_TEXT_V(id->scenario);
	p[5] = TB_HDB_TEXT_V(id->variant);
	p[6] = TB_HDB_TEXT_V(id->hw_class);
	p[7] = TB_HDB_TEXT_V(id->hw_desc);
	p[8] = TB_HDB_TEXT_V(sys_text(r->system, "fingerprint", NULL));
	p[9] = TB_HDB_TEXT_V(sys_text(r->system, "hostname", NULL));
	p[10] = TB_HDB_TEXT_V(tb_result_kernel(r));
	p[11] = TB_HDB_TEXT_V(r->tool_version);
	p[12] = TB_HDB_INT_V(r->partial);
	p[13] = TB_HDB_TEXT_V(source);
	p[14] = TB_HDB_TEXT_V(s->labels);
	p[15] = TB_HDB_TEXT_V(s->system);
	p[16] = TB_HDB_BLOB_V(s->z, s->zlen);
	p[17] = TB_HDB_INT_V((int64_t)s->len);
	ret = db->ops->query(db, sql_add_run, p, TB_ARRAY_SIZE(p), &rows);
	if (ret)
		return ret;
	ret = rows ? db->ops->next(rows) : 0;
	if (ret == 1)
		*run_id = db->ops->col_int(rows, 0);
	if (rows)
		db->ops->done(rows);
	return ret;
}

static int insert_point(struct tb_hdb *db, int64_t run_id, const struct tb_hrun_id *id,
			const struct tb_hpoint *pt)
{
	char *samples = pt->samples ? tb_hsamples_text(pt->samples, pt->nsamples) : NULL;
	struct tb_hdb_val p[16];
	int ret;

	if (pt->samples && !samples)
		return -ENOMEM;
	p[0] = TB_HDB_INT_V(run_id);
	p[1] = TB_HDB_TEXT_V(id->scenario);
	p[2] = TB_HDB_TEXT_V(id->variant);
	p[3] = TB_HDB_TEXT_V(id->hw_class);
	p[4] = TB_HDB_TEXT_V(pt->workload);
	p[5] = TB_HDB_TEXT_V(pt->tracer);
	p[6] = TB_HDB_TEXT_V(pt->metric->name);
	p[7] = TB_HDB_TEXT_V(pt->cell);
	p[8] = TB_HDB_TEXT_V(id->started);
	p[9] = TB_HDB_REAL_V(pt->value);
	p[10] = TB_HDB_REAL_V(pt->ci_lo);
	p[11] = TB_HDB_REAL_V(pt->ci_hi);
	p[12] = TB_HDB_REAL_V(pt->scale);
	p[13] = TB_HDB_INT_V((int64_t)pt->nsamples);
	p[14] = TB_HDB_TEXT_V(samples);
	p[15] = TB_HDB_TEXT_V(*pt->verdict ? pt->verdict : NULL);
	ret = tb_hdb_run(db, sql_add_point, p, TB_ARRAY_SIZE(p));
	free(samples);
	return ret;
}

/* A result written by a run has its figures; one built by hand may not. */
static bool needs_analysis(const struct tb_result *r)
{
	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (tb_cell_nmeasured(c) && (!c->summary.n || (!c->baseline && !c->has_overhead &&
							       tb_result_baseline(r, c))))
			return true;
	}
	return false;
}

/* In the open transaction: the run, then its points. 1 when the run existed. */
static int add_in_tx(struct tb_hdb *db, const struct tb_result *r, const struct tb_hrun_id *id,
		     const struct stored *s, const char *source, struct tb_history_added *info)
{
	struct tb_hpoints pts;
	int ret;

	ret = insert_run(db, r, id, s, source, &info->run_id);
	if (ret <= 0) {
		struct tb_hdb_val p = TB_HDB_TEXT_V(id->hash);

		if (ret == 0 && tb_hdb_query_int(db, sql_find_hash, &p, 1, &info->run_id) == 1)
			info->existed = true;
		return ret < 0 ? ret : 1;
	}
	ret = tb_hpoints_of_result(r, &pts);
	for (size_t i = 0; !ret && i < pts.n; i++)
		ret = insert_point(db, info->run_id, id, &pts.p[i]);
	info->npoints = ret ? 0 : pts.n;
	tb_hpoints_free(&pts);
	return ret;
}

int tb_history_add_result(struct tb_history *h, struct tb_result *r, const json_t *doc,
			  const json_t *labels, const char *source, struct tb_history_added *info)
{
	struct tb_hdb *db = h->db;
	struct tb_hrun_id id;
	struct stored s;
	int ret;

	memset(info, 0, sizeof(*info));
	if (needs_analysis(r) && tb_stats_analyze(r))
		return -ENOMEM;
	ret = stored_make(&s, r, doc, labels);
	if (!ret)
		ret = tb_hrun_identity(r, s.doc, &id);
	if (ret)
		goto out;
	memcpy(info->hash, id.hash, sizeof(info->hash));
	memcpy(info->variant, id.variant, sizeof(info->variant));
	memcpy(info->hw_class, id.hw_class, sizeof(info->hw_class));
	/* In the caller's transaction, a savepoint: a failed add undoes itself only. */
	ret = h->in_tx ? db->ops->exec(db, "SAVEPOINT tb_add") : db->ops->begin(db);
	if (ret)
		goto out;
	ret = add_in_tx(db, r, &id, &s, source, info);
	/* A run that was there already: nothing to commit. */
	if (ret) {
		db->ops->exec(db, h->in_tx ? "ROLLBACK TO SAVEPOINT tb_add" : "ROLLBACK");
		if (h->in_tx)
			db->ops->exec(db, "RELEASE SAVEPOINT tb_add");
		ret = ret > 0 ? 0 : ret;
	} else {
		ret = db->ops->exec(db, h->in_tx ? "RELEASE SAVEPOINT tb_add" : "COMMIT");
		if (ret && !h->in_tx)
			db->ops->exec(db, "ROLLBACK");
	}
out:
	if (ret == -ENOMEM)
		tb_err("%s: out of memory adding a run", db->name);
	stored_free(&s);
	return ret;
}

int tb_history_begin(struct tb_history *h)
{
	int ret;

	if (h->in_tx) {
		tb_err("%s: a transaction is open already", h->db->name);
		return -EINVAL;
	}
	ret = h->db->ops->begin(h->db);
	h->in_tx = !ret;
	return ret;
}

int tb_history_commit(struct tb_history *h)
{
	int ret = h->in_tx ? h->db->ops->exec(h->db, "COMMIT") : -EINVAL;

	if (ret && h->in_tx)
		h->db->ops->exec(h->db, "ROLLBACK");
	h->in_tx = false;
	return ret;
}

void tb_history_rollback(struct tb_history *h)
{
	if (h->in_tx)
		h->db->ops->exec(h->db, "ROLLBACK");
	h->in_tx = false;
}

/* ---- reading --------------------------------------------------------------------------------- */

static const char sql_counts[] = "SELECT count(*), min(started), max(started) FROM runs";
static const char sql_npoints[] = "SELECT count(*) FROM points";

int tb_history_counts(struct tb_history *h, struct tb_history_counts *c)
{
	const struct tb_hdb_ops *ops = h->db->ops;
	struct tb_hdb_rows *rows;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = ops->query(h->db, sql_counts, NULL, 0, &rows);
	if (ret || !rows)
		return ret;
	ret = ops->next(rows);
	if (ret == 1) {
		c->runs = ops->col_int(rows, 0);
		tb_hdb_col_copy(rows, ops, 1, c->first, sizeof(c->first));
		tb_hdb_col_copy(rows, ops, 2, c->last, sizeof(c->last));
	}
	ops->done(rows);
	if (ret < 0)
		return ret;
	ret = tb_hdb_query_int(h->db, sql_npoints, NULL, 0, &c->points);
	return ret < 0 ? ret : 0;
}

/* The series: the points' key columns grouped, with the run count, span and hardware text. */
static const char sql_series[] =
	"SELECT p.scenario, p.workload, p.tracer, p.metric, p.hw_class, p.scenario_hash, "
	"count(*), min(p.started), max(p.started), min(r.hw_desc) FROM points p "
	"JOIN runs r ON r.id = p.run_id GROUP BY p.scenario, p.workload, p.tracer, p.metric, "
	"p.hw_class, p.scenario_hash ORDER BY p.scenario, p.workload, p.tracer, p.metric, "
	"p.hw_class, p.scenario_hash";
static const char sql_series_joined[] =
	"SELECT p.scenario, p.workload, p.tracer, p.metric, p.hw_class, NULL, count(*), "
	"min(p.started), max(p.started), min(r.hw_desc) FROM points p JOIN runs r ON "
	"r.id = p.run_id GROUP BY p.scenario, p.workload, p.tracer, p.metric, p.hw_class "
	"ORDER BY p.scenario, p.workload, p.tracer, p.metric, p.hw_class";

void tb_history_series_free(struct tb_hseries *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		tb_hseries_free_fields(&s[i]);
	free(s);
}

/* The series of the current row into s. Returns 0 or -ENOMEM. */
static int series_row(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, struct tb_hseries *s)
{
	memset(s, 0, sizeof(*s));
	s->scenario = tb_hdb_col_dup(rows, ops, 0, false);
	s->workload = tb_hdb_col_dup(rows, ops, 1, false);
	s->tracer = tb_hdb_col_dup(rows, ops, 2, false);
	s->metric_name = tb_hdb_col_dup(rows, ops, 3, false);
	s->hw_class = tb_hdb_col_dup(rows, ops, 4, false);
	s->variant = ops->is_null(rows, 5) ? NULL : tb_hdb_col_dup(rows, ops, 5, false);
	s->nruns = (size_t)ops->col_int(rows, 6);
	tb_hdb_col_copy(rows, ops, 7, s->first, sizeof(s->first));
	tb_hdb_col_copy(rows, ops, 8, s->last, sizeof(s->last));
	s->hw_desc = tb_hdb_col_dup(rows, ops, 9, false);
	if (!s->scenario || !s->workload || !s->tracer || !s->metric_name || !s->hw_class ||
	    (!ops->is_null(rows, 5) && !s->variant) || !s->hw_desc)
		return -ENOMEM;
	return tb_hseries_name(s);
}

int tb_history_series(struct tb_history *h, bool comparable, struct tb_hseries **out, size_t *n)
{
	const struct tb_hdb_ops *ops = h->db->ops;
	struct tb_hdb_rows *rows;
	size_t cap = 0;
	int ret;

	*out = NULL;
	*n = 0;
	ret = ops->query(h->db, comparable ? sql_series_joined : sql_series, NULL, 0, &rows);
	if (ret || !rows)
		return ret;
	while ((ret = ops->next(rows)) == 1) {
		if (*n == cap) {
			struct tb_hseries *grown =
				realloc(*out, (cap = cap ? 2 * cap : 64) * sizeof(**out));

			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			*out = grown;
		}
		ret = series_row(rows, ops, &(*out)[(*n)++]);
		if (ret)
			break;
	}
	ops->done(rows);
	if (ret < 0) {
		tb_history_series_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret < 0 ? ret : 0;
}

static const char sql_points[] =
	"SELECT run_id, started, value, ci_lo, ci_hi, scale, samples, verdict, cell FROM points "
	"WHERE scenario = $1 AND hw_class = $2 AND workload = $3 AND tracer = $4 AND metric = $5 "
	"AND scenario_hash = $6 ORDER BY started, run_id";
static const char sql_points_joined[] =
	"SELECT run_id, started, value, ci_lo, ci_hi, scale, samples, verdict, cell FROM points "
	"WHERE scenario = $1 AND hw_class = $2 AND workload = $3 AND tracer = $4 AND metric = $5 "
	"ORDER BY started, run_id";

int tb_history_points(struct tb_history *h, const struct tb_hseries *s,
		      int (*fn)(void *ctx, const struct tb_hpoint *p), void *ctx)
{
	const struct tb_hdb_ops *ops = h->db->ops;
	struct tb_hdb_val p[] = {TB_HDB_TEXT_V(s->scenario),	TB_HDB_TEXT_V(s->hw_class),
				 TB_HDB_TEXT_V(s->workload),	TB_HDB_TEXT_V(s->tracer),
				 TB_HDB_TEXT_V(s->metric_name), TB_HDB_TEXT_V(s->variant)};
	struct tb_hdb_rows *rows;
	int ret;

	ret = ops->query(h->db, s->variant ? sql_points : sql_points_joined, p, s->variant ? 6 : 5,
			 &rows);
	if (ret || !rows)
		return ret;
	while ((ret = ops->next(rows)) == 1) {
		struct tb_hpoint pt = {0};
		char cell[256];

		pt.run_id = ops->col_int(rows, 0);
		tb_hdb_col_copy(rows, ops, 1, pt.started, sizeof(pt.started));
		pt.value = ops->col_real(rows, 2);
		pt.ci_lo = ops->col_real(rows, 3);
		pt.ci_hi = ops->col_real(rows, 4);
		pt.scale = ops->col_real(rows, 5);
		if (!tb_hdb_value_ok(pt.value) || !tb_hdb_value_ok(pt.ci_lo) ||
		    !tb_hdb_value_ok(pt.ci_hi) || !tb_hdb_value_ok(pt.scale) ||
		    tb_hsamples_parse(ops->col_text(rows, 6), &pt.samples, &pt.nsamples)) {
			tb_err("%s: run %lld: damaged values or samples of %s (beyond %g?)",
			       h->db->name, (long long)pt.run_id, s->name, TB_RESULT_MAX_VALUE);
			ret = -EINVAL;
			break;
		}
		tb_hdb_col_copy(rows, ops, 7, pt.verdict, sizeof(pt.verdict));
		tb_hdb_col_copy(rows, ops, 8, cell, sizeof(cell));
		pt.cell = cell;
		pt.workload = s->workload;
		pt.tracer = s->tracer;
		pt.metric = s->metric;
		ret = isfinite(pt.value) ? fn(ctx, &pt) : 0;
		free(pt.samples);
		if (ret < 0)
			break;
	}
	ops->done(rows);
	return ret < 0 ? ret : 0;
}

static const char sql_run[] =
	"SELECT id, hash, started, finished, added, scenario, scenario_hash, hw_class, hw_desc, "
	"host, kernel, tool_version, source, labels, system FROM runs WHERE id = $1";
static const char sql_runs[] =
	"SELECT id, hash, started, finished, added, scenario, scenario_hash, hw_class, hw_desc, "
	"host, kernel, tool_version, source, labels, system FROM runs ORDER BY started, id";

void tb_history_run_release(struct tb_history_run *run)
{
	free(run->scenario);
	free(run->variant);
	free(run->hw_class);
	free(run->hw_desc);
	free(run->host);
	free(run->kernel);
	free(run->tool_version);
	free(run->source);
	json_decref(run->labels);
	json_decref(run->system);
	memset(run, 0, sizeof(*run));
}

static int run_row(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, const char *dbname,
		   struct tb_history_run *run)
{
	memset(run, 0, sizeof(*run));
	run->id = ops->col_int(rows, 0);
	tb_hdb_col_copy(rows, ops, 1, run->hash, sizeof(run->hash));
	tb_hdb_col_copy(rows, ops, 2, run->started, sizeof(run->started));
	tb_hdb_col_copy(rows, ops, 3, run->finished, sizeof(run->finished));
	tb_hdb_col_copy(rows, ops, 4, run->added, sizeof(run->added));
	run->scenario = tb_hdb_col_dup(rows, ops, 5, true);
	run->variant = tb_hdb_col_dup(rows, ops, 6, true);
	run->hw_class = tb_hdb_col_dup(rows, ops, 7, true);
	run->hw_desc = tb_hdb_col_dup(rows, ops, 8, true);
	run->host = tb_hdb_col_dup(rows, ops, 9, true);
	run->kernel = tb_hdb_col_dup(rows, ops, 10, true);
	run->tool_version = tb_hdb_col_dup(rows, ops, 11, true);
	run->source = tb_hdb_col_dup(rows, ops, 12, true);
	run->labels = tb_hdb_col_json(rows, ops, 13);
	run->system = tb_hdb_col_json(rows, ops, 14);
	if (!json_is_object(run->labels) ||
	    (!ops->is_null(rows, 14) && !json_is_object(run->system))) {
		tb_err("%s: run %lld: damaged labels or environment", dbname, (long long)run->id);
		tb_history_run_release(run);
		return -EINVAL;
	}
	return 0;
}

int tb_history_run_get(struct tb_history *h, int64_t id, struct tb_history_run *run)
{
	const struct tb_hdb_ops *ops = h->db->ops;
	struct tb_hdb_val p = TB_HDB_INT_V(id);
	struct tb_hdb_rows *rows;
	int ret;

	memset(run, 0, sizeof(*run));
	ret = ops->query(h->db, sql_run, &p, 1, &rows);
	if (ret || !rows)
		return ret ? ret : -ENOENT;
	ret = ops->next(rows);
	if (ret == 1)
		ret = run_row(rows, ops, h->db->name, run);
	else if (ret == 0)
		ret = -ENOENT;
	ops->done(rows);
	return ret;
}

int tb_history_find_hash(struct tb_history *h, const char *hash, int64_t *id)
{
	struct tb_hdb_val p = TB_HDB_TEXT_V(hash);

	return tb_hdb_query_int(h->db, sql_find_hash, &p, 1, id);
}

int tb_history_runs(struct tb_history *h, int (*fn)(void *ctx, const struct tb_history_run *run),
		    void *ctx)
{
	const struct tb_hdb_ops *ops = h->db->ops;
	struct tb_hdb_rows *rows;
	int ret;

	ret = ops->query(h->db, sql_runs, NULL, 0, &rows);
	if (ret || !rows)
		return ret;
	while ((ret = ops->next(rows)) == 1) {
		struct tb_history_run run;

		ret = run_row(rows, ops, h->db->name, &run);
		if (!ret)
			ret = fn(ctx, &run);
		tb_history_run_release(&run);
		if (ret < 0)
			break;
	}
	ops->done(rows);
	return ret < 0 ? ret : 0;
}

static const char sql_export[] = "SELECT result, result_bytes FROM runs WHERE id = $1";

int tb_history_export(struct tb_history *h, int64_t id, char **json, size_t *len)
{
	const struct tb_hdb_ops *ops = h->db->ops;
	struct tb_hdb_val p = TB_HDB_INT_V(id);
	struct tb_hdb_rows *rows;
	const void *z;
	size_t zlen;
	uLongf n;
	int64_t want;
	int ret;

	*json = NULL;
	*len = 0;
	ret = ops->query(h->db, sql_export, &p, 1, &rows);
	if (ret || !rows)
		return ret ? ret : -ENOENT;
	ret = ops->next(rows);
	if (ret != 1) {
		ops->done(rows);
		if (!ret)
			tb_err("%s: no run %lld", h->db->name, (long long)id);
		return ret ? ret : -ENOENT;
	}
	z = ops->col_blob(rows, 0, &zlen);
	want = ops->col_int(rows, 1);
	ret = -EINVAL;
	if (z && want > 0 && (uint64_t)want <= MAX_RESULT_BYTES) {
		n = (uLongf)want;
		*json = malloc(n + 1);
		ret = !*json ? -ENOMEM
		      : uncompress((Bytef *)*json, &n, z, zlen) == Z_OK && n == (uLongf)want
			      ? 0
			      : -EINVAL;
	}
	ops->done(rows);
	if (!ret) { /* it goes to a terminal or a file as stored: JSON without raw controls */
		(*json)[n] = '\0';
		ret = tb_hdb_json_ok(*json, n) ? 0 : -EINVAL;
	}
	if (ret) {
		free(*json);
		*json = NULL;
		if (ret == -EINVAL)
			tb_err("%s: run %lld: the stored result is damaged", h->db->name,
			       (long long)id);
		return ret;
	}
	*len = n;
	return 0;
}
