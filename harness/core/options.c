// SPDX-License-Identifier: GPL-2.0
/* Typed option values from scenario text, driven by each plugin's declarative table. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "core/placeholders.h"
#include "core/base.h"
#include "core/log.h"
#include "core/options.h"
#include "core/suggest.h"

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Number followed by a unit suffix; the suffix (trimmed, lowercased) goes to unit. */
static int parse_num_unit(const char *s, double *num, char *unit, size_t ulen)
{
	char *end;
	size_t n = 0;

	s = skip_ws(s);
	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*num = strtod(s, &end);
	if (end == s || errno || !isfinite(*num))
		return -EINVAL;
	end = (char *)skip_ws(end);
	while (*end && !isspace((unsigned char)*end)) {
		if (n + 1 >= ulen)
			return -EINVAL;
		unit[n++] = (char)tolower((unsigned char)*end++);
	}
	unit[n] = '\0';
	if (*skip_ws(end))
		return -EINVAL;
	return 0;
}

int tb_parse_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *u;
		double mul;
	} units[] = {
		{"", 1},
		{"b", 1},
		{"k", 1024.0},
		{"kb", 1024.0},
		{"kib", 1024.0},
		{"m", 1048576.0},
		{"mb", 1048576.0},
		{"mib", 1048576.0},
		{"g", 1073741824.0},
		{"gb", 1073741824.0},
		{"gib", 1073741824.0},
		{"t", 1099511627776.0},
		{"tb", 1099511627776.0},
	};
	char unit[8];
	double num, v;
	size_t i;

	if (parse_num_unit(s, &num, unit, sizeof(unit)))
		return -EINVAL;
	for (i = 0; i < TB_ARRAY_SIZE(units); i++) {
		if (strcmp(unit, units[i].u))
			continue;
		v = num * units[i].mul;
		if (v > 9.0e18 || v != floor(v))
			return -ERANGE;
		*bytes = (uint64_t)v;
		return 0;
	}
	return -EINVAL;
}

int tb_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *u;
		double mul;
	} units[] = {
		{"s", 1e9},  {"sec", 1e9}, {"ns", 1},	  {"us", 1e3},
		{"ms", 1e6}, {"m", 60e9},  {"min", 60e9}, {"h", 3600e9},
	};
	char unit[8];
	double num, v;
	size_t i;

	if (parse_num_unit(s, &num, unit, sizeof(unit)))
		return -EINVAL;
	/* "500" could be 500 ms or 500 s: only zero means the same in every unit. */
	if (!*unit) {
		if (num != 0)
			return -EDOM;
		*ns = 0;
		return 0;
	}
	for (i = 0; i < TB_ARRAY_SIZE(units); i++) {
		if (strcmp(unit, units[i].u))
			continue;
		v = num * units[i].mul;
		if (v > 9.0e18)
			return -ERANGE;
		*ns = (uint64_t)llround(v);
		return 0;
	}
	return -EINVAL;
}

int tb_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"1", "true", "yes", "on"};
	static const char *const no[] = {"0", "false", "no", "off"};
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int tb_parse_int(const char *s, int64_t *out)
{
	char *end;
	long long v;

	s = skip_ws(s);
	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10); /* decimal only: "0x10" is refused, "010" is ten, not octal */
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || *skip_ws(end))
		return -EINVAL;
	*out = v;
	return 0;
}

int tb_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	s = skip_ws(s);
	if (!*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (end == s || *skip_ws(end))
		return -EINVAL;
	*out = v;
	return 0;
}

/* "5%" -> 0.05; with factor, "1.05x" -> 0.05 too (at least 1x); "0" alone is zero. */
static int parse_fraction(const char *s, bool factor, double *fraction)
{
	char unit[4];
	double num;

	s = skip_ws(s);
	if (*s == '-')
		return -ERANGE;
	if (parse_num_unit(s, &num, unit, sizeof(unit)))
		return -EINVAL;
	if (!strcmp(unit, "%"))
		*fraction = num / 100.0;
	else if (factor && !strcmp(unit, "x") && num >= 1)
		*fraction = num - 1;
	else if (factor && !strcmp(unit, "x"))
		return -ERANGE;
	else if (!unit[0] && num == 0)
		*fraction = 0;
	else if (!unit[0])
		return -EDOM; /* 5: 5% or 500%? */
	else
		return -EINVAL;
	return 0;
}

int tb_parse_percent(const char *s, double *fraction)
{
	return parse_fraction(s, false, fraction);
}

int tb_parse_threshold(const char *s, double *fraction)
{
	return parse_fraction(s, true, fraction);
}

const char *tb_percent_why(int ret, const char *name, const char *val, bool factor, char *buf,
			   size_t len)
{
	double d = 0;

	/* an option is spelled as typed ("--max-overhead 5"), a key as in its file */
	const char *eq = name[0] == '-' ? " " : " = ";

	if (ret == -EDOM && !tb_parse_double(val, &d))
		snprintf(
			buf, len,
			"%s%s%s: a bare number is ambiguous; write %s%% (or %g%% if %s was meant as "
			"a fraction)",
			name, eq, val, val, 100 * d, val);
	else
		snprintf(buf, len, "%s%s%s: expected a percentage like 5%%%s", name, eq, val,
			 factor ? " or a factor like 1.05x" : "");
	return buf;
}

const struct tb_option *tb_opts_find(const struct tb_option *opts, const char *key)
{
	for (; opts && opts->name; opts++)
		if (!strcmp(opts->name, key))
			return opts;
	return NULL;
}

void tb_opts_suggest(const struct tb_option *opts, struct tb_suggest *s)
{
	for (; opts && opts->name; opts++)
		tb_suggest_offer(s, opts->name);
}

const char *tb_opt_type_name(enum tb_opt_type t)
{
	static const char *const names[] = {
		[TB_OPT_STRING] = "string",	[TB_OPT_BOOL] = "bool",
		[TB_OPT_INT] = "int",		[TB_OPT_SIZE] = "size",
		[TB_OPT_DURATION] = "duration", [TB_OPT_DOUBLE] = "number",
		[TB_OPT_CHOICE] = "choice",	[TB_OPT_LIST] = "list",
		[TB_OPT_ARGV] = "command",	[TB_OPT_PERCENT] = "percent",
		[TB_OPT_UINT] = "int",		[TB_OPT_SINT] = "int",
	};
	return names[t];
}

static bool out_of_range(const struct tb_option *o, double v)
{
	return o->max > o->min && (v < o->min || v > o->max);
}

static void free_one(const struct tb_option *o, void *cfg)
{
	void *field = (char *)cfg + o->offset;

	switch (o->type) {
	case TB_OPT_STRING:
		free(*(char **)field);
		*(char **)field = NULL;
		break;
	case TB_OPT_LIST:
	case TB_OPT_ARGV:
		tb_strlist_free(field);
		break;
	default:
		break;
	}
}

/* The scalar types: parse val into o's field. Returns 0, -ERANGE, or -EINVAL. */
static int set_scalar(const struct tb_option *o, void *field, const char *val)
{
	uint64_t u;
	int64_t i;
	double d;
	bool b;
	int ret;

	switch (o->type) {
	case TB_OPT_BOOL:
		ret = tb_parse_bool(val, &b);
		if (!ret)
			*(bool *)field = b;
		return ret;
	case TB_OPT_INT:
		ret = tb_parse_int(val, &i);
		if (!ret && out_of_range(o, (double)i))
			return -ERANGE;
		if (!ret)
			*(int64_t *)field = i;
		return ret;
	case TB_OPT_UINT:
	case TB_OPT_SINT:
		/* tb_opts_check: [min, max] lies within the field's type */
		ret = tb_parse_int(val, &i);
		if (!ret && out_of_range(o, (double)i))
			return -ERANGE;
		if (!ret && o->type == TB_OPT_UINT)
			*(unsigned int *)field = (unsigned int)i;
		else if (!ret)
			*(int *)field = (int)i;
		return ret;
	case TB_OPT_SIZE:
	case TB_OPT_DURATION:
		if (o->type == TB_OPT_SIZE && o->choices && o->choices[0] &&
		    !strcmp(val, o->choices[0])) {
			*(uint64_t *)field = 0;
			return 0;
		}
		ret = o->type == TB_OPT_SIZE ? tb_parse_size(val, &u) : tb_parse_duration(val, &u);
		if (!ret && out_of_range(o, (double)u))
			return -ERANGE;
		if (!ret)
			*(uint64_t *)field = u;
		return ret;
	case TB_OPT_DOUBLE:
	case TB_OPT_PERCENT:
		ret = o->type == TB_OPT_DOUBLE ? tb_parse_double(val, &d)
					       : tb_parse_percent(val, &d);
		if (!ret && out_of_range(o, d))
			return -ERANGE;
		if (!ret)
			*(double *)field = d;
		return ret;
	default:
		return -EINVAL;
	}
}

/* A choice: its index into the field, or the list of choices in err. Returns 0 or -EINVAL. */
static int set_choice(const struct tb_option *o, void *field, const char *key, const char *val,
		      char *err, size_t errlen)
{
	size_t k, off;

	for (k = 0; o->choices && o->choices[k]; k++) {
		if (!strcmp(o->choices[k], val)) {
			*(int *)field = (int)k;
			return 0;
		}
	}
	off = (size_t)snprintf(err, errlen, "key '%s': '%s' is not one of:", key, val);
	for (k = 0; o->choices && o->choices[k] && off < errlen; k++)
		off += (size_t)snprintf(err + off, errlen - off, " %s", o->choices[k]);
	return -EINVAL;
}

/* The message of a bad value (ret -ERANGE or -EINVAL) into err. */
static void bad_value(const struct tb_option *o, const char *key, const char *val, int ret,
		      char *err, size_t errlen)
{
	if (ret == -ERANGE && o->max > o->min) {
		snprintf(err, errlen, "key '%s': value '%s' is out of range [%g, %g]%s", key, val,
			 o->min, o->max,
			 o->type == TB_OPT_DURATION ? " ns"
			 : o->type == TB_OPT_SIZE   ? " bytes"
						    : "");
		return;
	}
	if (ret == -EDOM && o->type == TB_OPT_PERCENT) {
		tb_percent_why(ret, key, val, false, err, errlen);
		return;
	}
	if (ret == -EDOM) {
		snprintf(err, errlen, "key '%s': duration '%s' has no unit (%s)", key, val,
			 TB_DURATION_UNITS);
		return;
	}
	snprintf(err, errlen, "key '%s': bad %s value '%s'%s", key, tb_opt_type_name(o->type), val,
		 o->type == TB_OPT_DURATION  ? " (e.g. 500us, 10ms, 2s, 1m)"
		 : o->type == TB_OPT_SIZE    ? " (e.g. 4096, 4K, 1M, 2G)"
		 : o->type == TB_OPT_BOOL    ? " (true or false)"
		 : o->type == TB_OPT_ARGV    ? " (unterminated quote?)"
		 : o->type == TB_OPT_LIST    ? " (empty item?)"
		 : o->type == TB_OPT_PERCENT ? " (e.g. 1%)"
					     : "");
}

int tb_opts_set(const struct tb_option *opts, void *cfg, const char *key, const char *val,
		char *err, size_t errlen)
{
	const struct tb_option *o = tb_opts_find(opts, key);
	struct tb_strlist l;
	void *field;
	char *str;
	int ret;

	if (!o) {
		snprintf(err, errlen, "unknown key '%s'", key);
		return -ENOENT;
	}
	field = (char *)cfg + o->offset;
	switch (o->type) {
	case TB_OPT_STRING:
		str = strdup(val);
		if (!str)
			return -ENOMEM;
		free_one(o, cfg);
		*(char **)field = str;
		return 0;
	case TB_OPT_CHOICE:
		return set_choice(o, field, key, val, err, errlen);
	case TB_OPT_LIST:
	case TB_OPT_ARGV:
		ret = o->type == TB_OPT_LIST ? tb_split_list(val, &l) : tb_split_argv(val, &l);
		if (ret == -ENOMEM)
			return ret;
		if (!ret && (o->flags & TB_OPTF_PLACEHOLDERS)) {
			char why[384];

			if (tb_placeholders_check(&l, why, sizeof(why))) {
				snprintf(err, errlen, "key '%s': %s", key, why);
				tb_strlist_free(&l);
				return -EINVAL;
			}
		}
		if (!ret) {
			free_one(o, cfg);
			*(struct tb_strlist *)field = l;
		}
		break;
	default:
		ret = set_scalar(o, field, val);
		break;
	}
	if (ret)
		bad_value(o, key, val, ret, err, errlen);
	return ret ? -EINVAL : 0;
}

/* Bytes of the cfg field an option of type t fills; 0 for a type that does not exist. */
static size_t field_size(unsigned int t)
{
	static const size_t sizes[] = {
		[TB_OPT_STRING] = sizeof(char *),
		[TB_OPT_BOOL] = sizeof(bool),
		[TB_OPT_INT] = sizeof(int64_t),
		[TB_OPT_SIZE] = sizeof(uint64_t),
		[TB_OPT_DURATION] = sizeof(uint64_t),
		[TB_OPT_DOUBLE] = sizeof(double),
		[TB_OPT_CHOICE] = sizeof(int),
		[TB_OPT_LIST] = sizeof(struct tb_strlist),
		[TB_OPT_ARGV] = sizeof(struct tb_strlist),
		[TB_OPT_PERCENT] = sizeof(double),
		[TB_OPT_UINT] = sizeof(unsigned int),
		[TB_OPT_SINT] = sizeof(int),
	};

	return t < TB_ARRAY_SIZE(sizes) ? sizes[t] : 0;
}

/* A TB_OPT_UINT or TB_OPT_SINT has a range, and it fits its field's type. */
static bool narrow_range_fits(const struct tb_option *o)
{
	if (o->type == TB_OPT_UINT)
		return o->max > o->min && o->min >= 0 && o->max <= (double)UINT_MAX;
	if (o->type == TB_OPT_SINT)
		return o->max > o->min && o->min >= (double)INT_MIN && o->max <= (double)INT_MAX;
	return true;
}

int tb_opts_check(const struct tb_option *opts, size_t cfg_size, char *err, size_t errlen)
{
	const struct tb_option *o, *q;
	size_t i;

	for (i = 0, o = opts; opts && o->name; i++, o++) {
		size_t size = field_size((unsigned int)o->type);

		if (i == TB_OPTS_MAX) {
			snprintf(err, errlen, "no TB_OPT_END within %d options", TB_OPTS_MAX);
			return -EINVAL;
		}
		if (!*o->name || !o->help || !*o->help) {
			snprintf(err, errlen, "option '%s': %s", o->name,
				 *o->name ? "no help" : "empty name");
			return -EINVAL;
		}
		if (!size || o->offset + size > cfg_size) {
			snprintf(err, errlen, "option '%s': %s", o->name,
				 size ? "field outside cfg_size" : "unknown type");
			return -EINVAL;
		}
		if ((o->flags & TB_OPTF_PLACEHOLDERS) && o->type != TB_OPT_ARGV) {
			snprintf(err, errlen, "option '%s': placeholders in a non-command option",
				 o->name);
			return -EINVAL;
		}
		if (!narrow_range_fits(o)) {
			snprintf(err, errlen, "option '%s': [min, max] must lie within an %s",
				 o->name, o->type == TB_OPT_UINT ? "unsigned int" : "int");
			return -EINVAL;
		}
		if (o->type == TB_OPT_CHOICE && (!o->choices || !o->choices[0])) {
			snprintf(err, errlen, "option '%s': a choice without choices", o->name);
			return -EINVAL;
		}
		for (q = opts; q < o; q++) {
			if (!strcmp(q->name, o->name)) {
				snprintf(err, errlen, "option '%s' twice", o->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

int tb_opts_defaults(const struct tb_option *opts, void *cfg)
{
	char err[256];
	int ret;

	for (; opts && opts->name; opts++) {
		if (!opts->def)
			continue;
		ret = tb_opts_set(opts, cfg, opts->name, opts->def, err, sizeof(err));
		if (ret) {
			tb_err("bug: default of option %s: %s", opts->name, err);
			return ret;
		}
	}
	return 0;
}

void tb_opts_free(const struct tb_option *opts, void *cfg)
{
	for (; opts && opts->name; opts++)
		free_one(opts, cfg);
}

void tb_opts_print(FILE *f, const struct tb_option *opts, const char *indent)
{
	char head[64];
	size_t k;

	for (; opts && opts->name; opts++) {
		snprintf(head, sizeof(head), "%s=<%s>", opts->name, tb_opt_type_name(opts->type));
		fprintf(f, "%s%-28s %s", indent, head, opts->help ? opts->help : "");
		if (opts->type == TB_OPT_CHOICE && opts->choices) {
			fprintf(f, " (");
			for (k = 0; opts->choices[k]; k++)
				fprintf(f, "%s%s", k ? "|" : "", opts->choices[k]);
			fprintf(f, ")");
		} else if (opts->type == TB_OPT_SIZE && opts->choices && opts->choices[0]) {
			fprintf(f, " (or %s)", opts->choices[0]);
		}
		if (opts->flags & TB_OPTF_PLACEHOLDERS)
			fprintf(f, " (placeholders: %s)", TB_PLACEHOLDERS_TEXT);
		if (opts->def)
			fprintf(f, " [default: %s]", opts->def);
		fputc('\n', f);
	}
}

json_t *tb_opts_to_json(const struct tb_option *opts, const void *cfg)
{
	json_t *o = json_object(), *v, *a;
	const void *field;
	size_t k;

	if (!o)
		return NULL;
	for (; opts && opts->name; opts++) {
		field = (const char *)cfg + opts->offset;
		switch (opts->type) {
		case TB_OPT_STRING:
			v = *(char *const *)field ? json_string(*(char *const *)field)
						  : json_null();
			break;
		case TB_OPT_BOOL:
			v = json_boolean(*(const bool *)field);
			break;
		case TB_OPT_INT:
			v = json_integer(*(const int64_t *)field);
			break;
		case TB_OPT_UINT:
			v = json_integer(*(const unsigned int *)field);
			break;
		case TB_OPT_SINT:
			v = json_integer(*(const int *)field);
			break;
		case TB_OPT_SIZE:
		case TB_OPT_DURATION:
			v = opts->type == TB_OPT_SIZE && opts->choices && opts->choices[0] &&
					    !*(const uint64_t *)field
				    ? json_string(opts->choices[0])
				    : json_integer((json_int_t) * (const uint64_t *)field);
			break;
		case TB_OPT_DOUBLE:
		case TB_OPT_PERCENT:
			v = json_real(*(const double *)field);
			break;
		case TB_OPT_CHOICE:
			v = json_string(opts->choices[*(const int *)field]);
			break;
		default: {
			const struct tb_strlist *l = field;

			v = a = json_array();
			for (k = 0; a && k < l->n; k++)
				json_array_append_new(a, json_string(l->v[k]));
			break;
		}
		}
		if (!v || json_object_set_new(o, opts->name, v)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

int tb_parse_rate(const char *s, double *per_s)
{
	static const char units[] = "kMG";
	const char *u;
	char *end;
	double x;

	s = skip_ws(s);
	errno = 0;
	x = strtod(s, &end);
	if (end == s || errno == ERANGE)
		return -EINVAL;
	u = *end ? strchr(units, *end) : NULL;
	if (u) {
		x *= pow(1000, (double)(u - units + 1));
		end++;
	}
	if (!strncmp(end, "/s", 2))
		end += 2;
	if (*skip_ws(end) || !isfinite(x) || x <= 0)
		return -EINVAL;
	*per_s = x;
	return 0;
}
