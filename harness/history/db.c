// SPDX-License-Identifier: GPL-2.0
/* What both database drivers' users share (db.h): one-value queries and statements. */
#include <errno.h>

#include "history/db.h"

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
