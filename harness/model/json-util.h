/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON values of the result model's conventions (result.h): an unknown number (NAN, or an
 * infinity, which jansson refuses) is null, an absent string is null. Each returns a new
 * reference, or NULL on ENOMEM.
 */
#ifndef TB_JSON_UTIL_H
#define TB_JSON_UTIL_H

#include <jansson.h>
#include <stdint.h>

/* d as a real, or null when it is not finite. */
json_t *tb_json_num(double d);
/* [a, b], each as tb_json_num (a confidence interval). */
json_t *tb_json_pair(double a, double b);
/* s as a string, or null when s is NULL. */
json_t *tb_json_str_or_null(const char *s);
/* The same, except that bytes of s that are not UTF-8 become '?' (a scenario or a command line
 * from elsewhere) rather than failing. */
json_t *tb_json_text(const char *s);
/* v as an integer, or above INT64_MAX (jansson's integers are signed) as a decimal string. */
json_t *tb_json_uint(uint64_t v);

/*
 * What an object (a cell's tracer_extra) says: the string at key, or of the object obj inside
 * it when obj is not NULL; NULL when absent or not a string. The number at key, NAN when not a
 * number.
 */
const char *tb_json_text_at(const json_t *o, const char *obj, const char *key);
double tb_json_num_at(const json_t *o, const char *key);

#endif /* TB_JSON_UTIL_H */
