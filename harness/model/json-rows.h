/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows result.json's field tables are written in (model/json-result.c and the files it is
 * cut into), and the tables those files share. Private to harness/model/.
 */
#ifndef TB_JSON_ROWS_H
#define TB_JSON_ROWS_H

#include <math.h>
#include <stddef.h>

#include "model/json-fields.h"
#include "model/result.h"

#define MAXV TB_RESULT_MAX_VALUE

/* Rows of the struct T (defined before each table). */
/* clang-format off */
#define AT(m)			TB_JSON_AT(T, m)
#define F_STR(k, m, fl)		{.key = (k), .kind = TB_JSON_STR, .flags = (fl), AT(m)}
#define F_TEXT(k, m, fl)	{.key = (k), .kind = TB_JSON_TEXT, .flags = (fl), AT(m)}
#define F_RANGE(k, m, lo, hi, fl) \
	{.key = (k), .kind = TB_JSON_NUM, .flags = (fl), AT(m), .min = (lo), .max = (hi)}
#define F_NUM(k, m, lo)		F_RANGE(k, m, lo, MAXV, 0)
#define F_PROB(k, m)		F_RANGE(k, m, 0, 1, 0)
#define F_COUNT(k, m, fl)	{.key = (k), .kind = TB_JSON_COUNT, .flags = (fl), AT(m)}
#define F_UINT(k, m, hi)	{.key = (k), .kind = TB_JSON_UINT, AT(m), .umax = (hi)}
#define F_BOOL(k, m, fl)	{.key = (k), .kind = TB_JSON_BOOL, .flags = (fl), AT(m)}
#define F_ENUM(k, m, e)		{.key = (k), .kind = TB_JSON_ENUM, AT(m), .names = (e)}
#define F_OBJ(k, m, fl)		{.key = (k), .kind = TB_JSON_OBJ, .flags = (fl), AT(m)}
#define F_STRINGS(k, m)		{.key = (k), .kind = TB_JSON_STRINGS, AT(m), .umax = 65536}
#define F_CUSTOM(k, fn, fl)	{.key = (k), .kind = TB_JSON_CUSTOM, .flags = (fl), .io = (fn)}
#define F_PAIR(k, a, b, fl) \
	{.key = (k), .kind = TB_JSON_PAIR, .flags = (fl), .off = offsetof(T, a), \
	 .off2 = offsetof(T, b), .min = -INFINITY, .max = MAXV}
/* A child object: the struct at offset o of T (0: T itself). */
#define F_CHILD(k, o, t)	{.key = (k), .kind = TB_JSON_CHILD, .off = (o), .sub = (t)}
/* ... the member m, written only when the bool member seen is true, which reading it sets */
#define F_CHILD_SEEN(k, m, seen, t) \
	{.key = (k), .kind = TB_JSON_CHILD, .flags = TB_JSON_SEEN, .off = offsetof(T, m), \
	 .off2 = offsetof(T, seen), .sub = (t)}
#define F_ARRAY(k, m, a, fl) \
	{.key = (k), .kind = TB_JSON_ARRAY, .flags = (fl), AT(m), .arr = (a)}
#define F_END			{NULL}
/* clang-format on */

/* model/json-result.c: a verdict's names */
extern const struct tb_json_enum tb_json_verdicts;
/* model/json-service.c: a service sample's figures, a service cell's figures and overheads */
extern const struct tb_json_table tb_json_sample_service_table;
extern const struct tb_json_table tb_json_cell_service_table;
/* model/json-sweep.c: a cell's sweep point, and the result's sweeps */
extern const struct tb_json_table tb_json_cell_sweep_table;
extern const struct tb_json_array tb_json_sweeps_array;
/* model/json-limit.c: run --find-limit's searches */
extern const struct tb_json_array tb_json_limits_array;

#endif /* TB_JSON_ROWS_H */
