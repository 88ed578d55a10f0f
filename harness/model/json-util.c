// SPDX-License-Identifier: GPL-2.0
/* JSON values with the result model's "unknown is null" (json-util.h). */
#include <math.h>

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
