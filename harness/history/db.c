// SPDX-License-Identifier: GPL-2.0
/*
 * What both database drivers' users share (db.h): one-value queries and statements, and the
 * columns read as the input from outside they are.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "history/db.h"
#include "model/result.h"

int tb_hdb_query_int(struct tb_hdb *db, const char *sql, const struct tb_hdb_val *p, size_t n,
		     int64_t *v)
{
	struct tb_hdb_rows *rows;
	int ret = db->ops->query(db, sql, p, n, &rows);

	if (ret || !rows)
		return ret;
	ret = db->ops->next(rows);
	if (ret == 1)
		*v = db->ops->col_int(rows, 0);
	db->ops->done(rows);
	return ret;
}

int tb_hdb_run(struct tb_hdb *db, const char *sql, const struct tb_hdb_val *p, size_t n)
{
	struct tb_hdb_rows *rows;
	int ret = db->ops->query(db, sql, p, n, &rows);

	if (!ret && rows) {
		while ((ret = db->ops->next(rows)) == 1)
			;
		db->ops->done(rows);
	}
	return ret < 0 ? ret : 0;
}

char *tb_hdb_col_dup(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, int i, bool null)
{
	const char *t = ops->col_text(rows, i);

	if (!t)
		return null ? NULL : strdup("");
	return tb_escape_cut(t, false, TB_HDB_TEXT_MAX);
}

void tb_hdb_col_copy(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, int i, char *buf,
		     size_t len)
{
	const char *t = ops->col_text(rows, i);

	tb_escape_controls_buf(t ? t : "", false, buf, len);
}

/* Every key free of controls, every string of controls but newlines (a scenario's text, a
 * tracer's lines), all valid UTF-8: as the result reader leaves them. */
static bool clean_json(json_t *j)
{
	const char *k;
	json_t *v;
	size_t i;

	if (json_is_string(j))
		return tb_control_at(json_string_value(j), true) < 0 &&
		       tb_utf8_invalid_at(json_string_value(j)) < 0;
	json_object_foreach(j, k,
			    v) if (tb_control_at(k, false) >= 0 || !clean_json(v)) return false;
	json_array_foreach(j, i, v) if (!clean_json(v)) return false;
	return true;
}

json_t *tb_hdb_col_json(struct tb_hdb_rows *rows, const struct tb_hdb_ops *ops, int i)
{
	const char *t = ops->col_text(rows, i);
	json_t *j = t ? json_loads(t, JSON_REJECT_DUPLICATES, NULL) : NULL;

	if (j && !clean_json(j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

bool tb_hdb_json_ok(const char *text, size_t len)
{
	json_t *j;
	bool ok;

	if (tb_control_at(text, true) >= 0 || tb_utf8_invalid_at(text) >= 0)
		return false;
	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	ok = j && clean_json(j);
	json_decref(j);
	return ok;
}

bool tb_hdb_value_ok(double v)
{
	return isnan(v) || fabs(v) <= TB_RESULT_MAX_VALUE;
}
