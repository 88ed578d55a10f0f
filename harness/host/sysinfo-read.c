// SPDX-License-Identifier: GPL-2.0
/*
 * The environment fingerprint's small readers (sysinfo-int.h): a file under the root, its first
 * line, an integer, words, and the conventions of putting them into the object. What every
 * section file uses and none of them owns.
 */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "host/sysinfo.h"
#include "host/sysinfo-int.h"

/* ---- small readers --------------------------------------------------------------------- */

const char *tb_si_path(const struct si *s, const char *rel, char *buf, size_t len)
{
	/* A path too long for PATH_MAX cannot exist: make it one that does not. */
	if ((size_t)snprintf(buf, len, "%s%s", s->root, rel) >= len)
		snprintf(buf, len, "/nonexistent");
	return buf;
}

char *tb_si_trim(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return p;
}

/* Whole file under the root, NUL-terminated (caller frees), or NULL when unreadable. */
char *tb_si_read(const struct si *s, const char *rel)
{
	char path[PATH_MAX], *buf = NULL;

	if (tb_read_file(tb_si_path(s, rel, path, sizeof(path)), &buf, NULL))
		return NULL;
	return buf;
}

/* First line of a file, trimmed, as a new string; NULL when unreadable. */
char *tb_si_line(const struct si *s, const char *rel)
{
	char *buf = tb_si_read(s, rel), *t;

	if (!buf)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	t = tb_si_trim(buf);
	memmove(buf, t, strlen(t) + 1);
	return buf;
}

void tb_si_put(struct si *s, json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v))
		s->nomem = true;
}

void tb_si_put_str(struct si *s, json_t *obj, const char *key, const char *v)
{
	tb_si_put(s, obj, key, json_string(v ? v : UNKNOWN));
}

/* The first line of rel as a string, "unknown" when unreadable. */
void tb_si_put_file_str(struct si *s, json_t *obj, const char *key, const char *rel)
{
	char *v = tb_si_line(s, rel);

	tb_si_put_str(s, obj, key, v);
	free(v);
}

/* The file's content as an integer, null when unreadable or not a number. */
json_t *tb_si_file_int(const struct si *s, const char *rel)
{
	char *v = tb_si_line(s, rel);
	int64_t n;
	json_t *j;

	j = v && !tb_parse_int(v, &n) ? json_integer(n) : json_null();
	free(v);
	return j;
}

/* Words of s (space separated) as a JSON array of strings. */
json_t *tb_si_words(const char *str)
{
	json_t *a = json_array();
	char *dup = strdup(str), *w, *save = NULL;

	if (!a || !dup) {
		json_decref(a);
		free(dup);
		return NULL;
	}
	for (w = strtok_r(dup, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		if (json_array_append_new(a, json_string(w))) {
			json_decref(a);
			a = NULL;
			break;
		}
	}
	free(dup);
	return a;
}

/* The [bracketed] choice of a sysfs selector file ("always [madvise] never"). */
void tb_si_put_choice(struct si *s, json_t *obj, const char *key, const char *rel)
{
	char *v = tb_si_line(s, rel), *b, *e;

	if (v && (b = strchr(v, '[')) && (e = strchr(b, ']'))) {
		*e = '\0';
		tb_si_put_str(s, obj, key, b + 1);
	} else {
		tb_si_put_str(s, obj, key, v);
	}
	free(v);
}

/* ---- fingerprint and the whole object ----------------------------------------------------- */
