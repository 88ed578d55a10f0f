/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON values of the result model's conventions (result.h): an unknown number (NAN, or an
 * infinity, which jansson refuses) is null, an absent string is null. Each returns a new
 * reference, or NULL on ENOMEM.
 */
#ifndef TB_JSON_UTIL_H
#define TB_JSON_UTIL_H

#include <jansson.h>

/* d as a real, or null when it is not finite. */
json_t *tb_json_num(double d);
/* [a, b], each as tb_json_num (a confidence interval). */
json_t *tb_json_pair(double a, double b);
/* s as a string, or null when s is NULL. */
json_t *tb_json_str_or_null(const char *s);

#endif /* TB_JSON_UTIL_H */
