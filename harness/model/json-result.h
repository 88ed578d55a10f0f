/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The table of fields of result.json (json-fields.h) that json-write.c writes a result by and
 * json-read.c reads one with: its rows are the top-level keys, their children the model's
 * objects (result.h), so that a new key is one row in json-result.c.
 */
#ifndef TB_JSON_RESULT_H
#define TB_JSON_RESULT_H

#include "model/json-fields.h"
#include "model/result.h"

/* Describes a struct tb_result. */
extern const struct tb_json_table tb_result_json_table;

#endif /* TB_JSON_RESULT_H */
