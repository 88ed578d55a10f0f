// SPDX-License-Identifier: GPL-2.0
/* Field tables to JSON and back, strictly (json-fields.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "model/json-fields.h"
#include "model/json-util.h"

/* ---- values in the struct -------------------------------------------------------------------- */

static void *at(const void *base, size_t off)
{
	return (char *)base + off;
}

static double num_at(const void *base, size_t off)
{
	double d;

	memcpy(&d, at(base, off), sizeof(d));
	return d;
}

static void set_num(void *base, size_t off, double d)
{
	memcpy(at(base, off), &d, sizeof(d));
}

/* An unsigned (or int-sized enum) member of size 1, 4 or 8 bytes. */
static uint64_t uint_at(const void *base, const struct tb_json_field *f)
{
	uint32_t u32;
	uint8_t u8;
	uint64_t u;

	switch (f->size) {
	case 1:
		memcpy(&u8, at(base, f->off), 1);
		return u8;
	case 4:
		memcpy(&u32, at(base, f->off), 4);
		return u32;
	default:
		memcpy(&u, at(base, f->off), 8);
		return u;
	}
}

static void set_uint(void *base, const struct tb_json_field *f, uint64_t u)
{
	uint32_t u32 = (uint32_t)u;
	uint8_t u8 = (uint8_t)u;

	if (f->size == 1)
		memcpy(at(base, f->off), &u8, 1);
	else if (f->size == 4)
		memcpy(at(base, f->off), &u32, 4);
	else
		memcpy(at(base, f->off), &u, 8);
}

static int64_t count_at(const void *base, size_t off)
{
	int64_t v;

	memcpy(&v, at(base, off), sizeof(v));
	return v;
}

static bool bool_at(const void *base, size_t off)
{
	return *(const bool *)at(base, off);
}

static json_t *ptr_at(const void *base, size_t off)
{
	return *(json_t *const *)at(base, off);
}

/* ---- writing --------------------------------------------------------------------------------- */

int tb_json_set(json_t *o, const char *key, json_t *v)
{
	if (!v)
		return -ENOMEM;
	return json_object_set_new(o, key, v) ? -ENOMEM : 0;
}

static json_t *array_to_json(const struct tb_json_field *f, const void *base)
{
	const struct tb_json_array *a = f->arr;
	size_t n = *(const size_t *)at(base, a->count);
	const char *elems = a->in_place ? at(base, f->off) : *(char *const *)at(base, f->off);
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, tb_json_write(a->elem, elems + i * a->size))) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}

/* Whether row f is left out of base's object (OMIT, when, SEEN). */
static bool left_out(const struct tb_json_field *f, const void *base)
{
	if ((f->when && !f->when(base)) ||
	    (f->kind == TB_JSON_CHILD && (f->flags & TB_JSON_SEEN) && !bool_at(base, f->off2)))
		return true;
	if (!(f->flags & TB_JSON_OMIT))
		return false;
	switch (f->kind) {
	case TB_JSON_BOOL:
		return !bool_at(base, f->off);
	case TB_JSON_COUNT:
		return count_at(base, f->off) < 0;
	case TB_JSON_TEXT:
		return !*(const char *)at(base, f->off);
	case TB_JSON_STR:
	case TB_JSON_OBJ:
		return !ptr_at(base, f->off);
	case TB_JSON_ARRAY:
		return !*(const size_t *)at(base, f->arr->count);
	case TB_JSON_NUM:
		return isnan(num_at(base, f->off));
	default:
		return false;
	}
}

static json_t *value_to_json(const struct tb_json_field *f, const void *base)
{
	json_t *v;

	switch (f->kind) {
	case TB_JSON_STR:
		return tb_json_text(*(char *const *)at(base, f->off));
	case TB_JSON_TEXT:
		return tb_json_text(at(base, f->off));
	case TB_JSON_NUM:
		return tb_json_num(num_at(base, f->off));
	case TB_JSON_COUNT:
		return count_at(base, f->off) < 0 ? json_null()
						  : json_integer(count_at(base, f->off));
	case TB_JSON_UINT:
		return tb_json_uint(uint_at(base, f));
	case TB_JSON_BOOL:
		return json_boolean(bool_at(base, f->off));
	case TB_JSON_PAIR:
		return tb_json_pair(num_at(base, f->off), num_at(base, f->off2));
	case TB_JSON_ENUM:
		return json_string(f->names->name((int)uint_at(base, f)));
	case TB_JSON_OBJ:
		v = ptr_at(base, f->off);
		return v ? json_incref(v) : json_null();
	case TB_JSON_STRINGS:
		v = ptr_at(base, f->off);
		return v ? json_incref(v) : json_array();
	case TB_JSON_CHILD:
		return tb_json_write(f->sub, at(base, f->off));
	case TB_JSON_ARRAY:
		return array_to_json(f, base);
	case TB_JSON_CUSTOM:
		break;
	}
	return NULL;
}

static int write_fields(json_t *o, const struct tb_json_table *t, const void *base)
{
	int ret = 0;

	for (const struct tb_json_field *f = t->fields; !ret && f->key; f++) {
		if (f->io && f->io->write)
			ret = f->io->write(o, f, base);
		else if (f->kind == TB_JSON_CUSTOM)
			continue;
		else if (!left_out(f, base))
			ret = tb_json_set(o, f->key, value_to_json(f, base));
		else if (f->kind == TB_JSON_CHILD && (f->flags & TB_JSON_NULL))
			ret = tb_json_set(o, f->key, json_null());
	}
	return ret;
}

json_t *tb_json_write(const struct tb_json_table *t, const void *base)
{
	json_t *o = json_object();

	if (o && write_fields(o, t, base)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- the reader's path and errors ------------------------------------------------------------ */

int tb_json_bad(struct tb_json_reader *rd, const char *key, const char *fmt, ...)
{
	char msg[320];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(rd->err, sizeof(rd->err), "%s%s%s%s%s", rd->path, (*rd->path && key) ? "." : "",
		 key ? key : "", (*rd->path || key) ? ": " : "", msg);
	return -EINVAL;
}

size_t tb_json_push(struct tb_json_reader *rd, const char *key, long i)
{
	size_t n = strlen(rd->path);

	snprintf(rd->path + n, sizeof(rd->path) - n, "%s%s", n ? "." : "", key);
	if (i >= 0) {
		size_t m = strlen(rd->path);

		snprintf(rd->path + m, sizeof(rd->path) - m, "[%ld]", i);
	}
	return n;
}

void tb_json_pop(struct tb_json_reader *rd, size_t old)
{
	rd->path[old] = '\0';
}

int tb_json_clean(struct tb_json_reader *rd, const char *key, json_t *j, bool multiline)
{
	const char *k;
	json_t *v;
	size_t i;
	int ret;

	if (json_is_string(j)) {
		char *s;

		if (tb_control_at(json_string_value(j), multiline) < 0)
			return 0;
		s = tb_escape_controls(json_string_value(j), multiline);
		ret = !s || json_string_set(j, s) ? -ENOMEM : 0;
		free(s);
		return ret;
	}
	if (json_is_array(j)) {
		json_array_foreach(j, i, v)
		{
			if ((ret = tb_json_clean(rd, key, v, multiline)))
				return ret;
		}
	} else if (json_is_object(j)) {
		json_object_foreach(j, k, v)
		{
			if (tb_control_at(k, false) >= 0)
				return tb_json_bad(rd, key, "a key with a control character");
			if ((ret = tb_json_clean(rd, key, v, multiline)))
				return ret;
		}
	}
	return 0;
}

int tb_json_array_ok(struct tb_json_reader *rd, json_t *v, const char *key, size_t max)
{
	if (!json_is_array(v))
		return tb_json_bad(rd, key, "expected an array");
	if (json_array_size(v) > max)
		return tb_json_bad(rd, key, "too many elements (%zu, the limit is %zu)",
				   json_array_size(v), max);
	return 0;
}

/* ---- reading one value ----------------------------------------------------------------------- */

static int read_str(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v, void *base)
{
	char **p = at(base, f->off);
	bool req = f->flags & TB_JSON_REQ;

	if (json_is_null(v) && !req)
		return 0;
	if (!json_is_string(v))
		return tb_json_bad(rd, f->key, "expected a string");
	if (req && !json_string_length(v))
		return tb_json_bad(rd, f->key, "must not be empty");
	if (f->len && json_string_length(v) > f->len)
		return tb_json_bad(rd, f->key, "longer than %zu bytes", f->len);
	free(*p);
	*p = tb_escape_controls(json_string_value(v), f->flags & TB_JSON_LINES);
	return *p ? 0 : -ENOMEM;
}

/* A string into a fixed buffer of the model: too long for it is an error, unless CUT. */
static int read_text(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		     void *base)
{
	if (json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return tb_json_bad(rd, f->key, "expected a string");
	if (!(f->flags & TB_JSON_CUT) && json_string_length(v) >= f->size)
		return tb_json_bad(rd, f->key, "longer than %zu bytes", f->size - 1);
	/* Its controls written out as text, as every string the reader keeps. */
	tb_escape_controls_buf(json_string_value(v), false, at(base, f->off), f->size);
	return 0;
}

static int read_num(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v, void *base)
{
	bool open = f->flags & TB_JSON_OPEN;
	double d = NAN;

	if (!json_is_null(v)) {
		if (!json_is_number(v))
			return tb_json_bad(rd, f->key, "expected a number");
		d = json_number_value(v);
		if (!isfinite(d))
			return tb_json_bad(rd, f->key, "expected a finite number");
	}
	if (open && !(d > f->min && d < f->max))
		return tb_json_bad(rd, f->key, "must be between %g and %g (exclusive), found %g",
				   f->min, f->max, d);
	if (d < f->min)
		return tb_json_bad(rd, f->key, "must be >= %g, found %g", f->min, d);
	if (d > f->max)
		return tb_json_bad(rd, f->key, "must be <= %g, found %g", f->max, d);
	set_num(base, f->off, d);
	return 0;
}

static int read_count(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		      void *base)
{
	int64_t c = -1;

	if (!json_is_null(v)) {
		if (!json_is_integer(v))
			return tb_json_bad(rd, f->key, "expected an integer");
		/* -1 is the in-memory "unknown" and some writers use it instead of null. */
		c = json_integer_value(v);
		if (c < -1)
			return tb_json_bad(rd, f->key,
					   "must be >= 0 (or null/-1 for unknown), found %lld",
					   (long long)c);
	}
	memcpy(at(base, f->off), &c, sizeof(c));
	return 0;
}

static int read_uint(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		     void *base)
{
	uint64_t u;

	if (json_is_integer(v)) {
		if (json_integer_value(v) < 0)
			return tb_json_bad(rd, f->key, "must be >= 0, found %lld",
					   (long long)json_integer_value(v));
		u = (uint64_t)json_integer_value(v);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;

		errno = 0;
		u = strtoull(s, &end, 10);
		if (!*s || *end || errno || *s == '-')
			return tb_json_bad(rd, f->key,
					   "expected an unsigned integer, found \"%.40s\"", s);
	} else {
		return tb_json_bad(rd, f->key, "expected an integer");
	}
	if (u > f->umax)
		return tb_json_bad(rd, f->key, "too large (%llu > %llu)", (unsigned long long)u,
				   (unsigned long long)f->umax);
	if (u < f->umin)
		return tb_json_bad(rd, f->key, "must be >= %llu, found %llu",
				   (unsigned long long)f->umin, (unsigned long long)u);
	set_uint(base, f, u);
	return 0;
}

static int read_bool(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		     void *base)
{
	if (!json_is_boolean(v))
		return tb_json_bad(rd, f->key, "expected true or false");
	*(bool *)at(base, f->off) = json_is_true(v);
	return 0;
}

static int read_pair(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		     void *base)
{
	double d[2];

	if (!json_is_array(v))
		return tb_json_bad(rd, f->key, "expected an array");
	if (json_array_size(v) > 2)
		return tb_json_bad(rd, f->key, "too many elements (%zu, the limit is 2)",
				   json_array_size(v));
	if (json_array_size(v) != 2)
		return tb_json_bad(rd, f->key, "expected [lo, hi]");
	for (size_t i = 0; i < 2; i++) {
		json_t *x = json_array_get(v, i);

		if (!json_is_null(x) && !json_is_number(x))
			return tb_json_bad(rd, f->key, "expected [lo, hi] of numbers or nulls");
		d[i] = json_is_null(x) ? NAN : json_number_value(x);
	}
	for (size_t i = 0; i < 2; i++) {
		if (fabs(d[i]) > f->max)
			return tb_json_bad(rd, f->key, "a bound beyond %g", f->max);
		if (d[i] < f->min)
			return tb_json_bad(rd, f->key, "a bound below %g", f->min);
	}
	if (!(f->flags & TB_JSON_ANY_ORDER) && isfinite(d[0]) && isfinite(d[1]) && d[0] > d[1])
		return tb_json_bad(rd, f->key, "lo %g is above hi %g", d[0], d[1]);
	set_num(base, f->off, d[0]);
	set_num(base, f->off2, d[1]);
	return 0;
}

/* A name of the enum; "" and null leave the default. */
static int read_enum(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		     void *base)
{
	int e;

	if (json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return tb_json_bad(rd, f->key, "expected a string");
	if (!json_string_length(v))
		return 0;
	e = f->names->parse(json_string_value(v));
	if (e < 0)
		return tb_json_bad(rd, f->key, "unknown %s \"%.40s\"", f->names->what,
				   json_string_value(v));
	set_uint(base, f, (uint64_t)e);
	return 0;
}

/* An object (a new reference kept) or null (unchanged). */
static int read_obj(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v, void *base)
{
	json_t **p = at(base, f->off);
	int ret;

	if (json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return tb_json_bad(rd, f->key, "expected an object");
	if ((ret = tb_json_clean(rd, f->key, v, false)))
		return ret;
	json_decref(*p);
	*p = json_incref(v);
	return 0;
}

static int read_strings(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *a,
			void *base)
{
	json_t **p = at(base, f->off), *v;
	size_t i;
	int ret = tb_json_array_ok(rd, a, f->key, f->umax);

	if (ret)
		return ret;
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v) || (f->len && json_string_length(v) > f->len)) {
			char k[96];

			snprintf(k, sizeof(k), "%s[%zu]", f->key, i);
			if (!json_is_string(v))
				return tb_json_bad(rd, k, "expected a string");
			return tb_json_bad(rd, k, "longer than %zu bytes", f->len);
		}
	}
	if ((ret = tb_json_clean(rd, f->key, a, true)))
		return ret;
	json_decref(*p);
	*p = json_incref(a);
	return 0;
}

/* v, the member key of the current object, into base by t. */
static int read_child(struct tb_json_reader *rd, const char *key, json_t *v,
		      const struct tb_json_table *t, void *base)
{
	size_t old = tb_json_push(rd, key, -1);
	int ret = tb_json_read(rd, v, t, base);

	tb_json_pop(rd, old);
	return ret;
}

static void *next_in_place(const struct tb_json_array *a, void *parent, size_t off)
{
	size_t *n = at(parent, a->count);
	char *e = (char *)at(parent, off) + *n * a->size;

	if (*n >= a->max)
		return NULL;
	memset(e, 0, a->size);
	if (a->elem->init)
		a->elem->init(e);
	(*n)++;
	return e;
}

static int read_array(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *arr,
		      void *base)
{
	const struct tb_json_array *a = f->arr;
	json_t *v;
	size_t i;
	int ret = tb_json_array_ok(rd, arr, f->key, a->max);

	json_array_foreach(ret ? NULL : arr, i, v)
	{
		size_t old = tb_json_push(rd, f->key, (long)i);
		void *e = a->in_place ? next_in_place(a, base, f->off) : a->add(base);

		ret = e ? tb_json_read(rd, v, a->elem, e) : -ENOMEM;
		if (!ret && a->check)
			ret = a->check(rd, base, i);
		tb_json_pop(rd, old);
		if (ret)
			return ret;
	}
	return ret;
}

int tb_json_read_field(struct tb_json_reader *rd, const struct tb_json_field *f, json_t *v,
		       void *base)
{
	int ret;

	if (!v && (f->flags & TB_JSON_REQ))
		return tb_json_bad(rd, f->key, "required key missing");
	if (f->io && f->io->read)
		return f->io->read(rd, f, v, base);
	if (!v || f->kind == TB_JSON_CUSTOM)
		return 0;
	switch (f->kind) {
	case TB_JSON_STR:
		return read_str(rd, f, v, base);
	case TB_JSON_TEXT:
		return read_text(rd, f, v, base);
	case TB_JSON_NUM:
		return read_num(rd, f, v, base);
	case TB_JSON_COUNT:
		return read_count(rd, f, v, base);
	case TB_JSON_UINT:
		return read_uint(rd, f, v, base);
	case TB_JSON_BOOL:
		return read_bool(rd, f, v, base);
	case TB_JSON_PAIR:
		return read_pair(rd, f, v, base);
	case TB_JSON_ENUM:
		return read_enum(rd, f, v, base);
	case TB_JSON_OBJ:
		return read_obj(rd, f, v, base);
	case TB_JSON_STRINGS:
		return read_strings(rd, f, v, base);
	case TB_JSON_ARRAY:
		return read_array(rd, f, v, base);
	case TB_JSON_CHILD:
		if (json_is_null(v))
			return 0;
		ret = read_child(rd, f->key, v, f->sub, at(base, f->off));
		if (!ret && (f->flags & TB_JSON_SEEN))
			*(bool *)at(base, f->off2) = true;
		return ret;
	case TB_JSON_CUSTOM:
		break;
	}
	return 0;
}

int tb_json_read(struct tb_json_reader *rd, json_t *o, const struct tb_json_table *t, void *base)
{
	int ret = 0;

	if (!json_is_object(o))
		return tb_json_bad(rd, NULL, "expected an object");
	if (t->init)
		t->init(base);
	for (const struct tb_json_field *f = t->fields; !ret && f->key; f++)
		if (!(f->flags & TB_JSON_OUT))
			ret = tb_json_read_field(rd, f, json_object_get(o, f->key), base);
	if (!ret && t->check)
		ret = t->check(rd, o, base);
	return ret;
}
