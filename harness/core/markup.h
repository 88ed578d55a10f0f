/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Escaping of text taken from results for the markup outputs: HTML and XML (the reports, the
 * gate's JUnit) and Markdown (the gate's and compare's tables). The one copy of each rule.
 */
#ifndef TB_MARKUP_H
#define TB_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/* Write at most n bytes of s (NUL stops early) escaped for HTML and XML text and attribute
 * values: & < > " ' as entities, control characters other than tab and newlines as '?'. */
void tb_fput_markup(FILE *f, const char *s, size_t n);
/* Write s (NULL writes nothing) as the text of a Markdown table cell: '|' as "\|", CR and LF
 * as spaces (a table row is one line). */
void tb_fput_markdown(FILE *f, const char *s);

#endif /* TB_MARKUP_H */
