// SPDX-License-Identifier: GPL-2.0
/*
 * The [explain] object of a cell (explain.h): one table of fields (model/json-fields.h) drives
 * both the writer and the validating reader, so the two cannot drift apart.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/explain.h"
#include "model/json-fields.h"

#define MAX_TEXT 1024 /* bytes of a statement, an error or a limit */

/* Rows of the struct T (defined before each table): the result's kinds, with the explain
 * object's own bounds (its numbers are not capped at TB_RESULT_MAX_VALUE). */
/* clang-format off */
#define AT(m)		TB_JSON_AT(T, m)
#define F_STR(k, m, fl) \
	{.key = (k), .kind = TB_JSON_STR, .flags = (fl), AT(m), .len = MAX_TEXT}
#define F_NUM(k, m, lo)	{.key = (k), .kind = TB_JSON_NUM, AT(m), .min = (lo), .max = DBL_MAX}
#define F_COUNT(k, m)	{.key = (k), .kind = TB_JSON_UINT, AT(m), .umax = UINT64_MAX}
#define F_RUNS(k, m)	{.key = (k), .kind = TB_JSON_UINT, AT(m), .umax = 1000000}
#define F_BOOL(k, m)	{.key = (k), .kind = TB_JSON_BOOL, AT(m)}
#define F_PAIR(k, a, b, lo) \
	{.key = (k), .kind = TB_JSON_PAIR, .flags = TB_JSON_ANY_ORDER, .off = offsetof(T, a), \
	 .off2 = offsetof(T, b), .min = (lo), .max = DBL_MAX}
#define F_END		{NULL}
/* clang-format on */

#define T struct tb_cell_explain_side
static const struct tb_json_field side_fields[] = {
	F_RUNS("runs", runs),
	F_COUNT("ops", ops),
	F_COUNT("samples", samples),
	F_COUNT("kernel_samples", kernel),
	F_COUNT("lost", lost),
	F_COUNT("truncated", truncated),
	F_COUNT("other_samples", other),
	F_NUM("ns_per_op", ns_per_op, 0),
	F_NUM("profile_ns_per_op", cpu_ns_per_op, 0),
	F_END,
};
#undef T

static const struct tb_json_table side_table = {side_fields, NULL, NULL};

/* [where] "kernel" or "user". */
static int where_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	const struct tb_cell_explain_fn *fn = base;

	return tb_json_set(o, f->key, json_string(fn->kernel ? "kernel" : "user"));
}

static int where_read(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		      void *base)
{
	struct tb_cell_explain_fn *fn = base;
	const char *s = json_string_value(v);

	if (!s || (strcmp(s, "kernel") && strcmp(s, "user")))
		return tb_json_bad(rd, f->key, "expected \"kernel\" or \"user\"");
	fn->kernel = !strcmp(s, "kernel");
	return 0;
}

static const struct tb_json_custom where_io = {where_write, where_read};

#define T struct tb_cell_explain_fn
static const struct tb_json_field fn_fields[] = {
	F_STR("name", name, TB_JSON_REQ),
	F_PAIR("self_ns_per_op", self_base, self_traced, 0),
	F_PAIR("inclusive_ns_per_op", incl_base, incl_traced, 0),
	F_NUM("self_share", self_share, -INFINITY),
	F_NUM("inclusive_share", incl_share, -INFINITY),
	{.key = "where", .kind = TB_JSON_CUSTOM, .flags = TB_JSON_REQ, .io = &where_io},
	F_END,
};
#undef T

static const struct tb_json_table fn_table = {fn_fields, NULL, NULL};

static void *fn_add(void *e)
{
	return tb_cell_explain_add_fn(e, "");
}

static const struct tb_json_array fns_array = {
	.elem = &fn_table,
	.size = sizeof(struct tb_cell_explain_fn),
	.count = offsetof(struct tb_cell_explain, nfns),
	.max = TB_EXPLAIN_MAX_FNS,
	.add = fn_add,
};

/* [files]: each file's path relative to the result's directory. */
static int files_write(json_t *o, const struct tb_json_field *f, const void *base)
{
	static const char *const keys[] = {"base", "traced", "diff", "diff_svg", "traced_svg"};
	static const char *const names[] = {TB_EXPLAIN_BASE, TB_EXPLAIN_TRACED, TB_EXPLAIN_DIFF,
					    TB_EXPLAIN_DIFF_SVG, TB_EXPLAIN_TRACED_SVG};
	const struct tb_cell_explain *e = base;
	json_t *files = json_object();
	char path[256];

	for (size_t i = 0; files && e->dir && i < TB_ARRAY_SIZE(keys); i++) {
		snprintf(path, sizeof(path), "%s/%s", e->dir, names[i]);
		if (tb_json_set(files, keys[i], json_string(path))) {
			json_decref(files);
			return -ENOMEM;
		}
	}
	return tb_json_set(o, f->key, files);
}

static const struct tb_json_custom files_io = {files_write, NULL};

static int explain_check(struct tb_json_reader *rd, json_t *o, void *base);

#define T struct tb_cell_explain
static const struct tb_json_field explain_fields[] = {
	F_STR("dir", dir, 0),
	F_STR("error", error, 0),
	F_STR("statement", statement, 0),
	F_NUM("period_ns", period_ns, 1),
	F_NUM("frequency_hz", frequency_hz, 0),
	F_NUM("per_ops", per_ops, 1),
	F_NUM("added_ns_per_op", added_ns, -INFINITY),
	F_NUM("added_se_ns_per_op", added_se_ns, 0),
	F_NUM("overhead_ns_per_op", overhead_ns, -INFINITY),
	F_NUM("profiled_overhead_ns_per_op", profiled_overhead_ns, -INFINITY),
	F_NUM("explained_share", share, -INFINITY),
	F_PAIR("explained_share_range", share_lo, share_hi, -INFINITY),
	F_NUM("tolerance", tolerance, 0),
	F_BOOL("explained", explained),
	F_BOOL("attributable", attributable),
	{.key = "base", .kind = TB_JSON_CHILD, .off = offsetof(T, base), .sub = &side_table},
	{.key = "traced", .kind = TB_JSON_CHILD, .off = offsetof(T, traced), .sub = &side_table},
	{.key = "functions", .kind = TB_JSON_ARRAY, AT(fns), .arr = &fns_array},
	{.key = "files", .kind = TB_JSON_CUSTOM, .flags = TB_JSON_OUT, .io = &files_io},
	{.key = "limits",
	 .kind = TB_JSON_STRINGS,
	 AT(limits),
	 .len = MAX_TEXT,
	 .umax = TB_EXPLAIN_MAX_LIMITS},
	F_END,
};
#undef T

static const struct tb_json_table explain_table = {explain_fields, NULL, explain_check};

static void side_init(struct tb_cell_explain_side *s)
{
	memset(s, 0, sizeof(*s));
	s->ns_per_op = s->cpu_ns_per_op = NAN;
}

struct tb_cell_explain *tb_cell_explain_new(void)
{
	struct tb_cell_explain *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->period_ns = e->frequency_hz = e->per_ops = NAN;
	e->added_ns = e->added_se_ns = e->overhead_ns = e->profiled_overhead_ns = NAN;
	e->share = e->share_lo = e->share_hi = e->tolerance = NAN;
	side_init(&e->base);
	side_init(&e->traced);
	e->limits = json_array();
	if (!e->limits) {
		free(e);
		return NULL;
	}
	return e;
}

void tb_cell_explain_free(struct tb_cell_explain *e)
{
	if (!e)
		return;
	free(e->dir);
	free(e->error);
	free(e->statement);
	json_decref(e->limits);
	for (size_t i = 0; i < e->nfns; i++)
		free(e->fns[i].name);
	free(e->fns);
	free(e);
}

int tb_cell_explain_limit(struct tb_cell_explain *e, const char *fmt, ...)
{
	char buf[MAX_TEXT];
	va_list ap;

	if (json_array_size(e->limits) >= TB_EXPLAIN_MAX_LIMITS)
		return 0;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return json_array_append_new(e->limits, json_string(buf)) ? -ENOMEM : 0;
}

struct tb_cell_explain_fn *tb_cell_explain_add_fn(struct tb_cell_explain *e, const char *name)
{
	struct tb_cell_explain_fn *nv, *f;

	if (e->nfns >= TB_EXPLAIN_MAX_FNS)
		return NULL;
	nv = realloc(e->fns, (e->nfns + 1) * sizeof(*nv));
	if (!nv)
		return NULL;
	e->fns = nv;
	f = &e->fns[e->nfns];
	memset(f, 0, sizeof(*f));
	f->self_share = f->incl_share = NAN;
	f->name = strdup(name);
	if (!f->name)
		return NULL;
	e->nfns++;
	return f;
}

bool tb_cell_explain_dir_ok(const char *dir)
{
	const char *name;
	size_t n;

	if (!dir || strncmp(dir, "explain/", 8))
		return false;
	name = dir + 8;
	n = strlen(name);
	if (!n || n > 128 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	return strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") ==
	       n;
}

/* ---- to JSON and back ------------------------------------------------------------------ */

json_t *tb_cell_explain_to_json(const struct tb_cell_explain *e)
{
	return tb_json_write(&explain_table, e);
}

/* Files are only ever looked for in a directory of the result's explain/, and read by scale. */
static int explain_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	const struct tb_cell_explain *e = base;

	/* unlike the result's objects, a side may be absent but not null */
	if (json_is_null(json_object_get(o, "base")) || json_is_null(json_object_get(o, "traced")))
		return tb_json_bad(rd, json_is_null(json_object_get(o, "base")) ? "base" : "traced",
				   "expected an object");
	if (e->dir && !tb_cell_explain_dir_ok(e->dir))
		return tb_json_bad(rd, "dir",
				   "\"%.60s\" is not explain/<name> (letters, digits, . _ + -)",
				   e->dir);
	if (e->dir && !(e->per_ops > 0 && e->period_ns > 0))
		return tb_json_bad(rd, e->per_ops > 0 ? "period_ns" : "per_ops",
				   "required (> 0) when the object names its files");
	return 0;
}

int tb_cell_explain_from_json(json_t *o, struct tb_cell_explain **out, char *err, size_t len)
{
	struct tb_json_reader rd = {.path = ""};
	struct tb_cell_explain *e = tb_cell_explain_new();
	int ret;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	ret = tb_json_read(&rd, o, &explain_table, e);
	if (ret) {
		if (ret == -EINVAL)
			snprintf(err, len, "%s", rd.err);
		tb_cell_explain_free(e);
		return ret;
	}
	*out = e;
	return 0;
}
