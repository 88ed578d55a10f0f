// SPDX-License-Identifier: GPL-2.0
/* Placeholders in argv words (placeholders.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/placeholders.h"

static const char *const names[TB_PH_COUNT] = {"pid", "cpus", "outdir", "sample"};

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The placeholder named by the n bytes at s, or -1. */
static int lookup(const char *s, size_t n)
{
	for (int i = 0; i < TB_PH_COUNT; i++)
		if (strlen(names[i]) == n && !strncmp(names[i], s, n))
			return i;
	return -1;
}

/*
 * Walk one word: literal text goes to out (when not NULL), each placeholder's value too
 * (vals NULL: check only). Returns 0, -EINVAL with the reason in err, or -ENOMEM.
 */
static int walk(const char *w, size_t idx, const struct tb_placeholder_values *vals, FILE *out,
		bool *used, char *err, size_t len)
{
	const char *s = w;

	while (*s) {
		const char *name = s + 1, *e;
		size_t n;
		int ph;

		if (*s != '{') {
			if (out)
				fputc(*s, out);
			s++;
			continue;
		}
		if (s[1] == '{') { /* "{{name}}": the literal "{name}" */
			for (e = s + 2; name_char(*e); e++)
				;
			if (e > s + 2 && e[0] == '}' && e[1] == '}') {
				if (out)
					fprintf(out, "{%.*s}", (int)(e - s - 2), s + 2);
				s = e + 2;
				continue;
			}
			if (out)
				fputc('{', out);
			s++;
			continue;
		}
		for (e = name; name_char(*e); e++)
			;
		n = (size_t)(e - name);
		if (!n || (*e != '}' && *e)) { /* "{ ...", "{printf(": literal text */
			if (out)
				fputc('{', out);
			s++;
			continue;
		}
		if (!*e) {
			snprintf(err, len,
				 "word %zu ('%s'): '{%.*s' is not closed (placeholders: %s)", idx,
				 w, (int)n, name, TB_PLACEHOLDERS_TEXT);
			return -EINVAL;
		}
		ph = lookup(name, n);
		if (ph < 0) {
			snprintf(
				err, len,
				"word %zu ('%s'): unknown placeholder {%.*s}: known are %s ('{{%.*s}}' is the literal text)",
				idx, w, (int)n, name, TB_PLACEHOLDERS_TEXT, (int)n, name);
			return -EINVAL;
		}
		if (used)
			*used = true;
		if (vals && !vals->v[ph]) {
			snprintf(err, len, "word %zu ('%s'): {%s} has no value here", idx, w,
				 names[ph]);
			return -EINVAL;
		}
		if (out)
			fputs(vals->v[ph], out);
		s = e + 1;
	}
	return 0;
}

int tb_placeholders_check(const struct tb_strlist *argv, char *err, size_t len)
{
	for (size_t i = 0; i < argv->n; i++) {
		int ret = walk(argv->v[i], i, NULL, NULL, NULL, err, len);

		if (ret)
			return ret;
	}
	return 0;
}

bool tb_placeholders_used(const char *word)
{
	bool used = false;
	char err[8];

	walk(word, 0, NULL, NULL, &used, err, sizeof(err));
	return used;
}

int tb_placeholders_expand(const struct tb_strlist *argv, const struct tb_placeholder_values *vals,
			   struct tb_strlist *out, char *err, size_t len)
{
	int ret = 0;

	out->n = 0;
	out->v = calloc(argv->n + 1, sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (size_t i = 0; i < argv->n && !ret; i++) {
		size_t size = 0;
		FILE *f = open_memstream(&out->v[i], &size);

		if (!f) {
			ret = -ENOMEM;
			break;
		}
		ret = walk(argv->v[i], i, vals, f, NULL, err, len);
		if (fclose(f) && !ret)
			ret = -ENOMEM;
		out->n = i + 1;
	}
	if (ret)
		tb_strlist_free(out);
	return ret;
}
