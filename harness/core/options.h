/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Plugin options: one declarative table per plugin drives the scenario parser, `list` and the
 * JSON of the result (options.c). Also the value parsers the CLI shares.
 */
#ifndef TB_OPTIONS_H
#define TB_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/strlist.h"

enum tb_opt_type {
	TB_OPT_STRING,	 /* char *, strdup'd; freed by tb_opts_free() */
	TB_OPT_BOOL,	 /* bool: true/false, yes/no, on/off, 1/0 */
	TB_OPT_INT,	 /* int64_t, checked against [min, max] when max > min */
	TB_OPT_SIZE,	 /* uint64_t bytes: 4096, 4K, 64k, 1M, 2G (powers of 1024); with choices,
			    the word choices[0] ("auto") stands for 0 */
	TB_OPT_DURATION, /* uint64_t nanoseconds: 500ns, 5us, 10ms, 2s, 1m; a unit is required
			    (a bare number other than 0 is an error) */
	TB_OPT_DOUBLE,	 /* double, checked against [min, max] when max > min */
	TB_OPT_CHOICE,	 /* int: index of the value in choices[] */
	TB_OPT_LIST, /* struct tb_strlist: comma-separated, each item trimmed, empty items refused
		      */
	TB_OPT_ARGV, /* struct tb_strlist: shell-like words (quotes, backslash), no expansion */
	TB_OPT_PERCENT, /* double fraction: "1%" -> 0.01, "0.5%" -> 0.005; a unit is required
			   (a bare number other than 0 is an error: 5% or 500%?) */
	/* Integers as TB_OPT_INT into a narrower field, so that a table can point at the field
	 * its reader uses (the [global] keys fill struct tb_scenario): [min, max] is required and
	 * must lie within the field's type, so every value that passes fits exactly. */
	TB_OPT_UINT, /* unsigned int */
	TB_OPT_SINT, /* int */
};

/* The unit of a knob that makes a share of the workload's events ones a filter rejects: its
 * sweep's slope is what one filtered-out event costs beyond an accepted one (stats/sweep.c). */
#define TB_UNIT_FILTERED "filtered-out event"

struct tb_option {
	const char *name; /* key in the scenario section */
	enum tb_opt_type type;
	size_t offset;	  /* offsetof(cfg struct, field) */
	const char *def;  /* default as text (parsed like a scenario value); NULL: zero */
	const char *help; /* one line for `tracebench list` */
	double min, max;  /* range for numeric types, in the type's unit; max <= min: none */
	const char *const *choices; /* NULL-terminated, for TB_OPT_CHOICE (and a size's word) */
	unsigned int flags;	    /* TB_OPTF_* */
	/* What one of its numbers is, to name a sweep's slope by ("filtered-out event"); NULL:
	 * from its type (byte, ns) or the key's singular (parse/sweep.c). */
	const char *unit;
};

enum {
	/* TB_OPT_ARGV: the words may hold placeholders (core/placeholders.h), checked when set */
	TB_OPTF_PLACEHOLDERS = 1 << 0,
};

#define TB_OPT_END           \
	{                    \
		.name = NULL \
	}

int tb_parse_size(const char *s, uint64_t *bytes);
/*
 * A duration with its unit: ns, us, ms, s (sec), m (min), h; "0" alone is zero. Returns 0,
 * -EDOM for a number without a unit ("500": ms or s?), -ERANGE or -EINVAL.
 */
int tb_parse_duration(const char *s, uint64_t *ns);
/* What the messages about a duration without a unit add. */
#define TB_DURATION_UNITS "a duration needs a unit: ns, us, ms, s, m or h, e.g. 500ms"
int tb_parse_bool(const char *s, bool *out);
int tb_parse_int(const char *s, int64_t *out);
int tb_parse_double(const char *s, double *out);
/* An event rate in events/s: a number > 0 with an optional k, M or G (x1000), then an optional
 * "/s" ("200k", "1M/s"). Returns 0 or -EINVAL. */
int tb_parse_rate(const char *s, double *per_s);
/*
 * A fraction written as a percentage: "5%" -> 0.05; "0" alone is zero. Returns 0, -EDOM for a
 * bare number ("5": 5% or 500%?), -ERANGE for a negative one, or -EINVAL. The one parser of
 * every fraction-valued key and option (scenario files, command lines, result files).
 */
int tb_parse_percent(const char *s, double *fraction);
/* A limit against a reference: tb_parse_percent's, or a factor "1.05x" -> 0.05 (>= 1x). */
int tb_parse_threshold(const char *s, double *fraction);
/*
 * Why val (ret from one of the two above) is refused for name, into buf: for a bare number the
 * corrected spelling ("max-cv = 5: a bare number is ambiguous; write 5% (or 500% if 5 was meant
 * as a fraction)"). factor: the key also takes "1.05x". Returns buf.
 */
const char *tb_percent_why(int ret, const char *name, const char *val, bool factor, char *buf,
			   size_t len);

/* The most options a table may have before its TB_OPT_END (tb_opts_check). */
#define TB_OPTS_MAX 128
/*
 * Check a plugin's option table against its cfg struct of cfg_size bytes: every entry has a
 * name and help, a known type whose field lies inside cfg, choices when it is a choice, a name
 * of its own, and TB_OPT_END comes within TB_OPTS_MAX entries. NULL is an empty table. Returns
 * 0 or -EINVAL with "option 'x': reason" in err. Defaults are not parsed (tb_opts_defaults).
 */
int tb_opts_check(const struct tb_option *opts, size_t cfg_size, char *err, size_t errlen);
/* Fill cfg with every option's default. Returns 0 or -EINVAL (a broken default is a bug). */
int tb_opts_defaults(const struct tb_option *opts, void *cfg);
/*
 * Set option key from text val. Returns 0, -ENOENT for an unknown key, -EINVAL for a bad value;
 * on error err holds a message without location ("bad size 'x' for key 'size': ...").
 */
int tb_opts_set(const struct tb_option *opts, void *cfg, const char *key, const char *val,
		char *err, size_t errlen);
const struct tb_option *tb_opts_find(const struct tb_option *opts, const char *key);
struct tb_suggest;
/* Offer every option name of opts to a "did you mean" search (core/suggest.h). */
void tb_opts_suggest(const struct tb_option *opts, struct tb_suggest *s);
/* Free what the options own (strings, lists) and zero those fields. */
void tb_opts_free(const struct tb_option *opts, void *cfg);
/* "string", "bool", "int", "size", "duration", ...: the type as `list` and the man page say. */
const char *tb_opt_type_name(enum tb_opt_type t);
/* "  name=<type> (default: x)  help" lines, for `tracebench list`. */
void tb_opts_print(FILE *f, const struct tb_option *opts, const char *indent);
/* Every option's current value as a new JSON object (jansson json_t *), NULL on ENOMEM. */
struct json_t;
struct json_t *tb_opts_to_json(const struct tb_option *opts, const void *cfg);

#endif /* TB_OPTIONS_H */
