// SPDX-License-Identifier: GPL-2.0
/* JSON values with the result model's "unknown is null" (json-util.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/json-util.h"

json_t *tb_json_num(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

json_t *tb_json_pair(double a, double b)
{
	json_t *arr = json_array();

	/* json_array_append_new takes the value even when it fails, and refuses NULL. */
	if (!arr || json_array_append_new(arr, tb_json_num(a)) ||
	    json_array_append_new(arr, tb_json_num(b))) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

json_t *tb_json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *tb_json_text(const char *s)
{
	json_t *j;
	char *copy;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	/* Not UTF-8 (a scenario or command line from elsewhere): keep ASCII, mark the rest. */
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

json_t *tb_json_uint(uint64_t v)
{
	/* JSON integers in jansson are signed 64-bit; larger values go out as decimal strings. */
	char buf[32];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

const char *tb_json_text_at(const json_t *o, const char *obj, const char *key)
{
	const json_t *v = json_object_get(obj ? json_object_get(o, obj) : o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

double tb_json_num_at(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}
