// SPDX-License-Identifier: GPL-2.0
/* HTML/XML and Markdown escaping (markup.h). */
#include "core/markup.h"

void tb_fput_markup(FILE *f, const char *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n && s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];

		switch (ch) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* XML 1.0 forbids most control characters; HTML renders them badly. */
			fputc(ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' ? '?' : ch, f);
		}
	}
}

void tb_fput_markdown(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}
