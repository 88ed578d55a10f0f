// SPDX-License-Identifier: GPL-2.0
/*
 * result.json into the model (result.h), with strict validation by its field table
 * (json-result.c says what each value may be).
 *
 * Required keys: schema, cells; per cell id, workload, tracer, baseline, samples; per sample
 * ns_per_op. Every other key is optional, but when present it must have the right type and a
 * sane value. Unknown keys are ignored so that newer writers stay readable. Strings keep no
 * control character: each is escaped as text ("\x1b"), so that no ESC sequence from a result
 * reaches a terminal, a page or a data file; an object key with one is refused.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/tb.h"
#include "core/utf8.h"
#include "model/json-result.h"

/* A result file larger than this is refused before parsing (jansson holds it all in memory). */
#define TB_RESULT_MAX_FILE_BYTES (1024ull * 1024 * 1024)

static __thread char last_error[512];

const char *tb_result_last_error(void)
{
	return last_error;
}

int tb_result_from_json(json_t *doc, const char *what, struct tb_result **out)
{
	struct tb_json_reader rd = {.path = ""};
	struct tb_result *r;
	char raw[1024];
	int ret;

	*out = NULL;
	last_error[0] = '\0';
	what = what ? what : "result";
	r = tb_result_new();
	if (!r)
		return -ENOMEM;
	if (!json_is_object(doc))
		ret = tb_json_bad(&rd, NULL, "expected a JSON object at the top level");
	else
		ret = tb_json_read(&rd, doc, &tb_result_json_table, r);
	if (ret == -EINVAL) {
		/* The message may quote the file's own strings. */
		snprintf(raw, sizeof(raw), "%s: %s", what, rd.err);
		tb_escape_controls_buf(raw, false, last_error, sizeof(last_error));
		tb_err("%s", last_error);
	} else if (ret) {
		tb_err("%s: out of memory", what);
	}
	if (ret) {
		tb_result_free(r);
		return ret;
	}
	*out = r;
	return 0;
}

/* The directory of path, new string ("." for a bare name), or NULL on ENOMEM. */
static char *dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

int tb_result_load(const char *path, struct tb_result **out)
{
	return tb_result_load_doc(path, out, NULL);
}

/* The file's text through the one opener (no link, FIFO or device; at most 1 GiB). */
static int load_text(const char *path, char **text, size_t *len)
{
	int ret = tb_read_regular(path, TB_RESULT_MAX_FILE_BYTES, text, len);

	if (!ret)
		return 0;
	snprintf(last_error, sizeof(last_error), "%s: %s%s", path,
		 ret == -EFBIG ? "too large for a result file (over 1 GiB)"
		 : ret == -ENOTTY || ret == -EISDIR || ret == -ELOOP ? tb_input_strerror(ret)
								     : "cannot read: ",
		 ret == -ENOENT || ret == -EIO || ret == -EACCES || ret == -ENOMEM ? strerror(-ret)
										   : "");
	tb_err("%s", last_error);
	return ret == -ENOENT ? -ENOENT : ret == -ENOMEM ? -ENOMEM : ret == -EIO ? -EIO : -EINVAL;
}

int tb_result_load_doc(const char *path, struct tb_result **out, json_t **docp)
{
	json_error_t jerr;
	char *text = NULL;
	size_t len = 0;
	json_t *doc;
	int ret;

	*out = NULL;
	last_error[0] = '\0';
	ret = load_text(path, &text, &len);
	if (ret)
		return ret;
	/* Duplicate keys would make "which value counts" ambiguous: refuse them. */
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!doc) {
		snprintf(last_error, sizeof(last_error), "%s:%d:%d: malformed JSON: %s", path,
			 jerr.line, jerr.column, jerr.text);
		tb_err("%s", last_error);
		return json_error_code(&jerr) == json_error_out_of_memory ? -ENOMEM : -EINVAL;
	}
	ret = tb_result_from_json(doc, path, out);
	if (!ret && !((*out)->dir = dir_of(path))) {
		tb_result_free(*out);
		*out = NULL;
		ret = -ENOMEM;
	}
	if (!ret && docp)
		*docp = doc;
	else
		json_decref(doc);
	return ret;
}
