// SPDX-License-Identifier: GPL-2.0
/*
 * The [explain] object of a cell (explain.h): one table of fields drives both the writer and
 * the validating reader, so the two cannot drift apart.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/explain.h"
#include "model/json-util.h"

#define MAX_TEXT 1024 /* bytes of a statement, an error or a limit */

enum kind {
	F_STR,	 /* char *, null allowed */
	F_NUM,	 /* double >= min, null for NAN */
	F_COUNT, /* uint64_t */
	F_RUNS,	 /* unsigned int */
	F_BOOL,
	F_PAIR, /* double[2] at off and off2: [a, b], each a number >= min or null */
};

struct field {
	const char *key;
	enum kind kind;
	size_t off, off2;
	double min;
};

#define E(f)  offsetof(struct tb_cell_explain, f)
#define S(f)  offsetof(struct tb_cell_explain_side, f)
#define FN(f) offsetof(struct tb_cell_explain_fn, f)

static const struct field top_fields[] = {
	{"dir", F_STR, E(dir)},
	{"error", F_STR, E(error)},
	{"statement", F_STR, E(statement)},
	{"period_ns", F_NUM, E(period_ns), 0, 1},
	{"frequency_hz", F_NUM, E(frequency_hz), 0, 0},
	{"per_ops", F_NUM, E(per_ops), 0, 1},
	{"added_ns_per_op", F_NUM, E(added_ns), 0, -INFINITY},
	{"added_se_ns_per_op", F_NUM, E(added_se_ns), 0, 0},
	{"overhead_ns_per_op", F_NUM, E(overhead_ns), 0, -INFINITY},
	{"profiled_overhead_ns_per_op", F_NUM, E(profiled_overhead_ns), 0, -INFINITY},
	{"explained_share", F_NUM, E(share), 0, -INFINITY},
	{"explained_share_range", F_PAIR, E(share_lo), E(share_hi), -INFINITY},
	{"tolerance", F_NUM, E(tolerance), 0, 0},
	{"explained", F_BOOL, E(explained)},
	{"attributable", F_BOOL, E(attributable)},
	{NULL},
};

static const struct field side_fields[] = {
	{"runs", F_RUNS, S(runs)},
	{"ops", F_COUNT, S(ops)},
	{"samples", F_COUNT, S(samples)},
	{"kernel_samples", F_COUNT, S(kernel)},
	{"lost", F_COUNT, S(lost)},
	{"truncated", F_COUNT, S(truncated)},
	{"other_samples", F_COUNT, S(other)},
	{"ns_per_op", F_NUM, S(ns_per_op), 0, 0},
	{"profile_ns_per_op", F_NUM, S(cpu_ns_per_op), 0, 0},
	{NULL},
};

static const struct field fn_fields[] = {
	{"name", F_STR, FN(name)},
	{"self_ns_per_op", F_PAIR, FN(self_base), FN(self_traced), 0},
	{"inclusive_ns_per_op", F_PAIR, FN(incl_base), FN(incl_traced), 0},
	{"self_share", F_NUM, FN(self_share), 0, -INFINITY},
	{"inclusive_share", F_NUM, FN(incl_share), 0, -INFINITY},
	{NULL},
};

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

/* ---- writing ----------------------------------------------------------------------------- */

static double *dbl(const void *base, size_t off)
{
	return (double *)((char *)base + off);
}

static json_t *field_to_json(const struct field *f, const void *base)
{
	const char *p = (const char *)base + f->off;

	switch (f->kind) {
	case F_STR:
		return tb_json_str_or_null(*(char *const *)p);
	case F_NUM:
		return tb_json_num(*dbl(base, f->off));
	case F_COUNT:
		return json_integer((json_int_t)(*(const uint64_t *)p & INT64_MAX));
	case F_RUNS:
		return json_integer(*(const unsigned int *)p);
	case F_BOOL:
		return json_boolean(*(const bool *)p);
	case F_PAIR:
		return tb_json_pair(*dbl(base, f->off), *dbl(base, f->off2));
	}
	return NULL;
}

/* Every field of the table into o; false when something could not be allocated. */
static bool fields_to_json(json_t *o, const struct field *t, const void *base)
{
	bool ok = o != NULL;

	for (; ok && t->key; t++)
		ok = !json_object_set_new(o, t->key, field_to_json(t, base));
	return ok;
}

static json_t *fn_to_json(const struct tb_cell_explain_fn *f)
{
	json_t *o = json_object();

	if (!fields_to_json(o, fn_fields, f) ||
	    json_object_set_new(o, "where", json_string(f->kernel ? "kernel" : "user"))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* [files]: each file's path relative to the result's directory. */
static json_t *files_to_json(const struct tb_cell_explain *e)
{
	static const char *const keys[] = {"base", "traced", "diff", "diff_svg", "traced_svg"};
	static const char *const names[] = {TB_EXPLAIN_BASE, TB_EXPLAIN_TRACED, TB_EXPLAIN_DIFF,
					    TB_EXPLAIN_DIFF_SVG, TB_EXPLAIN_TRACED_SVG};
	json_t *o = json_object();
	char path[256];

	for (size_t i = 0; o && e->dir && i < 5; i++) {
		snprintf(path, sizeof(path), "%s/%s", e->dir, names[i]);
		if (json_object_set_new(o, keys[i], json_string(path))) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *tb_cell_explain_to_json(const struct tb_cell_explain *e)
{
	json_t *o = json_object(), *b = json_object(), *t = json_object(), *fns = json_array();
	bool ok = fields_to_json(o, top_fields, e) && fields_to_json(b, side_fields, &e->base) &&
		  fields_to_json(t, side_fields, &e->traced) && fns;

	for (size_t i = 0; ok && i < e->nfns; i++)
		ok = !json_array_append_new(fns, fn_to_json(&e->fns[i]));
	if (ok)
		ok = !json_object_set_new(o, "base", b) && !json_object_set_new(o, "traced", t) &&
		     !json_object_set_new(o, "functions", fns) &&
		     !json_object_set_new(o, "files", files_to_json(e)) &&
		     !json_object_set_new(o, "limits", json_incref(e->limits));
	else {
		json_decref(b);
		json_decref(t);
		json_decref(fns);
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- reading ----------------------------------------------------------------------------- */

static int __attribute__((format(printf, 4, 5)))
bad(char *err, size_t len, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, len, "%s: %s", key, msg);
	return -EINVAL;
}

static int num_of(json_t *v, double min, double *out)
{
	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < min)
		return -EINVAL;
	*out = json_number_value(v);
	return 0;
}

static int field_from_json(const struct field *f, json_t *v, void *base, char *err, size_t len)
{
	char *p = (char *)base + f->off;

	switch (f->kind) {
	case F_STR:
		if (json_is_null(v))
			return 0;
		if (!json_is_string(v) || json_string_length(v) > MAX_TEXT)
			return bad(err, len, f->key, "expected a string of at most %d bytes",
				   MAX_TEXT);
		free(*(char **)p);
		*(char **)p = strdup(json_string_value(v));
		return *(char **)p ? 0 : -ENOMEM;
	case F_NUM:
		if (num_of(v, f->min, dbl(base, f->off)))
			return bad(err, len, f->key, "expected a number >= %g or null", f->min);
		return 0;
	case F_COUNT:
	case F_RUNS:
		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    (f->kind == F_RUNS && json_integer_value(v) > 1000000))
			return bad(err, len, f->key, "expected a count >= 0");
		if (f->kind == F_RUNS)
			*(unsigned int *)p = (unsigned int)json_integer_value(v);
		else
			*(uint64_t *)p = (uint64_t)json_integer_value(v);
		return 0;
	case F_BOOL:
		if (!json_is_boolean(v))
			return bad(err, len, f->key, "expected true or false");
		*(bool *)p = json_is_true(v);
		return 0;
	case F_PAIR:
		if (!json_is_array(v) || json_array_size(v) != 2 ||
		    num_of(json_array_get(v, 0), f->min, dbl(base, f->off)) ||
		    num_of(json_array_get(v, 1), f->min, dbl(base, f->off2)))
			return bad(err, len, f->key, "expected [a, b] of numbers >= %g or nulls",
				   f->min);
		return 0;
	}
	return -EINVAL;
}

/* Every field of the table present in o into base; prefix names o in messages. */
static int fields_from_json(json_t *o, const struct field *t, void *base, const char *prefix,
			    char *err, size_t len)
{
	char sub[192];
	int ret;

	if (!json_is_object(o))
		return bad(err, len, prefix, "expected an object");
	for (; t->key; t++) {
		json_t *v = json_object_get(o, t->key);

		if (!v)
			continue;
		ret = field_from_json(t, v, base, sub, sizeof(sub));
		if (ret == -EINVAL)
			snprintf(err, len, "%s%s%s", prefix, *prefix ? "." : "", sub);
		if (ret)
			return ret;
	}
	return 0;
}

static int fns_from_json(json_t *a, struct tb_cell_explain *e, char *err, size_t len)
{
	json_t *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > TB_EXPLAIN_MAX_FNS)
		return bad(err, len, "functions", "expected an array of at most %d rows",
			   TB_EXPLAIN_MAX_FNS);
	json_array_foreach(a, i, v)
	{
		char key[48];
		json_t *name = json_object_get(v, "name"), *where = json_object_get(v, "where");
		struct tb_cell_explain_fn *f;
		int ret;

		snprintf(key, sizeof(key), "functions[%zu]", i);
		if (!json_is_object(v) || !json_is_string(name) || !json_string_length(name))
			return bad(err, len, key, "expected an object with a name");
		if (!json_is_string(where) || (strcmp(json_string_value(where), "kernel") &&
					       strcmp(json_string_value(where), "user")))
			return bad(err, len, key, "where: expected \"kernel\" or \"user\"");
		f = tb_cell_explain_add_fn(e, json_string_value(name));
		if (!f)
			return -ENOMEM;
		f->kernel = !strcmp(json_string_value(where), "kernel");
		ret = fields_from_json(v, fn_fields, f, key, err, len);
		if (ret)
			return ret;
	}
	return 0;
}

static int limits_from_json(json_t *a, struct tb_cell_explain *e, char *err, size_t len)
{
	json_t *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > TB_EXPLAIN_MAX_LIMITS)
		return bad(err, len, "limits", "expected an array of at most %d strings",
			   TB_EXPLAIN_MAX_LIMITS);
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v) || json_string_length(v) > MAX_TEXT)
			return bad(err, len, "limits",
				   "entry %zu: expected a string of at most %d "
				   "bytes",
				   i, MAX_TEXT);
	}
	json_decref(e->limits);
	e->limits = json_incref(a);
	return 0;
}

static int explain_members(json_t *o, struct tb_cell_explain *e, char *err, size_t len)
{
	json_t *v;
	int ret;

	if ((ret = fields_from_json(o, top_fields, e, "", err, len)))
		return ret;
	if (e->dir && !tb_cell_explain_dir_ok(e->dir))
		return bad(err, len, "dir",
			   "\"%.60s\" is not explain/<name> (letters, digits, . _ + -)", e->dir);
	if ((v = json_object_get(o, "base")) &&
	    (ret = fields_from_json(v, side_fields, &e->base, "base", err, len)))
		return ret;
	if ((v = json_object_get(o, "traced")) &&
	    (ret = fields_from_json(v, side_fields, &e->traced, "traced", err, len)))
		return ret;
	if ((v = json_object_get(o, "functions")) && (ret = fns_from_json(v, e, err, len)))
		return ret;
	if ((v = json_object_get(o, "limits")) && (ret = limits_from_json(v, e, err, len)))
		return ret;
	if (e->dir && !(e->per_ops > 0 && e->period_ns > 0))
		return bad(err, len, e->per_ops > 0 ? "period_ns" : "per_ops",
			   "required (> 0) when the object names its files");
	return 0;
}

int tb_cell_explain_from_json(json_t *o, struct tb_cell_explain **out, char *err, size_t len)
{
	struct tb_cell_explain *e = tb_cell_explain_new();
	int ret;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	ret = explain_members(o, e, err, len);
	if (ret) {
		tb_cell_explain_free(e);
		return ret;
	}
	*out = e;
	return 0;
}
