// SPDX-License-Identifier: GPL-2.0
/* "did you mean" (suggest.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"

#define WORD_MAX 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t tb_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[WORD_MAX + 1][WORD_MAX + 1], i, j;

	if (la > WORD_MAX || lb > WORD_MAX)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + (ca != cb));
			/* a swap of neighbours ("reptitions") is one typo, not two */
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	return d[la][lb];
}

void tb_suggest_init(struct tb_suggest *s, const char *word)
{
	s->word = word ? word : "";
	s->best = NULL;
	s->dist = SIZE_MAX;
}

void tb_suggest_offer(struct tb_suggest *s, const char *candidate)
{
	size_t len = strlen(s->word), limit = len <= 4 ? 1 : len <= 8 ? 2 : 3, d;

	if (!candidate || !*candidate || !strcmp(candidate, s->word))
		return;
	d = tb_edit_distance(s->word, candidate);
	if (d <= limit && d < s->dist) {
		s->best = candidate;
		s->dist = d;
	}
}

const char *tb_suggest_text(const struct tb_suggest *s, char *buf, size_t n)
{
	if (!n)
		return "";
	buf[0] = '\0';
	if (s->best)
		snprintf(buf, n, "; did you mean '%s'?", s->best);
	return buf;
}
