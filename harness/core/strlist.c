// SPDX-License-Identifier: GPL-2.0
/* Lists of strings: a scenario's comma lists and a command's shell-like words (core/strlist.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/strlist.h"

static const char *skip_ws(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static int strlist_push(struct tb_strlist *l, char *s)
{
	char **nv = realloc(l->v, (l->n + 2) * sizeof(*nv));

	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	l->v = nv;
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

void tb_strlist_free(struct tb_strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

char *tb_strlist_join(const struct tb_strlist *l, const char *sep)
{
	size_t i, len = 1, sl = strlen(sep);
	char *s, *p;

	for (i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + sl;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p = '\0';
	for (i = 0; i < l->n; i++) {
		if (i) {
			memcpy(p, sep, sl);
			p += sl;
		}
		p = stpcpy(p, l->v[i]);
	}
	return s;
}

int tb_split_list(const char *s, struct tb_strlist *out)
{
	const char *p = s, *e, *comma;
	int ret;

	memset(out, 0, sizeof(*out));
	p = skip_ws(p);
	if (!*p)
		return 0;
	for (;;) {
		comma = strchr(p, ',');
		e = comma ? comma : p + strlen(p);
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		if (e == p) {
			tb_strlist_free(out);
			return -EINVAL;
		}
		ret = strlist_push(out, strndup(p, (size_t)(e - p)));
		if (ret || !out->v[out->n - 1]) {
			tb_strlist_free(out);
			return -ENOMEM;
		}
		if (!comma)
			break;
		p = skip_ws(comma + 1);
	}
	return 0;
}

int tb_split_argv(const char *s, struct tb_strlist *out)
{
	size_t cap = strlen(s) + 1, n;
	char *word = NULL, quote;
	bool inword;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		s = skip_ws(s);
		if (!*s)
			break;
		word = malloc(cap);
		if (!word) {
			ret = -ENOMEM;
			goto fail;
		}
		n = 0;
		inword = true;
		quote = 0;
		while (*s && inword) {
			char c = *s++;

			if (quote == '\'') {
				if (c == '\'')
					quote = 0;
				else
					word[n++] = c;
			} else if (quote == '"') {
				if (c == '"')
					quote = 0;
				else if (c == '\\' &&
					 (*s == '"' || *s == '\\' || *s == '$' || *s == '`'))
					word[n++] = *s++;
				else
					word[n++] = c;
			} else if (c == '\'' || c == '"') {
				quote = c;
			} else if (c == '\\') {
				if (!*s) {
					ret = -EINVAL;
					goto fail;
				}
				word[n++] = *s++;
			} else if (isspace((unsigned char)c)) {
				inword = false;
			} else {
				word[n++] = c;
			}
		}
		if (quote) {
			ret = -EINVAL; /* unterminated quote */
			goto fail;
		}
		word[n] = '\0';
		ret = strlist_push(out, word);
		word = NULL;
		if (ret)
			goto fail;
	}
	return 0;
fail:
	free(word);
	tb_strlist_free(out);
	return ret;
}
