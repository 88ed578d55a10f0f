// SPDX-License-Identifier: GPL-2.0
/* UTF-8 validation and the escaping of control characters (utf8.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"

size_t tb_utf8_seq_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned int cp;
	size_t n, i;

	if (s[0] < 0x80)
		return s[0] ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

long tb_utf8_invalid_at(const char *s)
{
	size_t i = 0, n;

	while (s[i]) {
		n = tb_utf8_seq_len(s + i);
		if (!n)
			return (long)i;
		i += n;
	}
	return -1;
}

/* Bytes of the control at s (1, or 2 for a C1 control), 0 when s starts none. */
static size_t control_len(const char *str, bool multiline)
{
	const unsigned char *s = (const unsigned char *)str;

	if ((s[0] < 0x20 && s[0] != '\t' && !(multiline && s[0] == '\n')) || s[0] == 0x7f)
		return s[0] ? 1 : 0;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

long tb_control_at(const char *s, bool multiline)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (control_len(s + i, multiline))
			return (long)i;
	return -1;
}

/* Write s escaped to f. */
static void escape_to(FILE *f, const char *s, bool multiline)
{
	size_t i = 0, n;

	while (s[i]) {
		n = control_len(s + i, multiline);
		if (n == 2) {
			fprintf(f, "\\u%04x", (unsigned char)s[i + 1]);
		} else if (n == 1) {
			fprintf(f, "\\x%02x", (unsigned char)s[i]);
		} else if (!(n = tb_utf8_seq_len(s + i))) {
			fprintf(f, "\\x%02x", (unsigned char)s[i]);
			n = 1;
		} else {
			fwrite(s + i, 1, n, f);
		}
		i += n;
	}
}

char *tb_escape_controls(const char *s, bool multiline)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (tb_control_at(s, multiline) < 0 && tb_utf8_invalid_at(s) < 0)
		return strdup(s);
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	escape_to(f, s, multiline);
	if (fclose(f)) {
		free(out);
		return NULL;
	}
	return out;
}

void tb_escape_controls_buf(const char *s, bool multiline, char *buf, size_t len)
{
	FILE *f;

	if (!len)
		return;
	if (tb_control_at(s, multiline) < 0 && tb_utf8_invalid_at(s) < 0) {
		snprintf(buf, len, "%s", s);
		return;
	}
	f = fmemopen(buf, len, "w");
	if (!f) {
		buf[0] = '\0';
		return;
	}
	setvbuf(f, NULL, _IONBF, 0);
	escape_to(f, s, multiline);
	fclose(f);
	buf[len - 1] = '\0';
}

char *tb_escape_cut(const char *s, bool multiline, size_t max)
{
	size_t n = s ? strlen(s) : 0;
	char *cut, *out;

	if (!s)
		return NULL;
	if (n <= max)
		return tb_escape_controls(s, multiline);
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	cut = malloc(max + 4);
	if (!cut)
		return NULL;
	memcpy(cut, s, max);
	memcpy(cut + max, "...", 4);
	out = tb_escape_controls(cut, multiline);
	free(cut);
	return out;
}
