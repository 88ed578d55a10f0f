// SPDX-License-Identifier: GPL-2.0
/*
 * result.json from the model (result.h) by its field table (json-result.c): every field under
 * its documented key, unknown values as null; written atomically.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "model/json-result.h"

json_t *tb_result_to_json(const struct tb_result *r)
{
	return tb_json_write(&tb_result_json_table, r);
}

/* The document as text (the caller frees it), or NULL (said, naming what). */
static char *result_text(const struct tb_result *r, const char *what)
{
	json_t *doc = tb_result_to_json(r);
	char *text;

	if (!doc) {
		tb_err("%s: out of memory building the result JSON", what);
		return NULL;
	}
	text = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (!text)
		tb_err("%s: out of memory serialising the result", what);
	return text;
}

int tb_result_save(const struct tb_result *r, const char *path)
{
	char *text = result_text(r, path);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = tb_write_atomic(path, text, strlen(text), 0644); /* says why it failed */
	free(text);
	return ret;
}

int tb_result_save_at(const struct tb_result *r, const struct tb_dir *d, const char *name)
{
	char *text = result_text(r, name);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = tb_dir_write(d, name, text, strlen(text), 0644); /* says why it failed */
	free(text);
	return ret;
}
