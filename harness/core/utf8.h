/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 and control characters (utf8.c): what may reach a terminal, a page or a data file.
 * Text from outside (result files, a tracer's output, kernel files) can carry ESC sequences
 * that rewrite a terminal; these functions find and neutralise them. A "control" here is a C0
 * control other than tab (and newline, where lines are allowed), DEL, and a C1 control
 * (U+0080-U+009F, which some terminals obey like ESC).
 */
#ifndef TB_UTF8_H
#define TB_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s (1-4; shortest form, no surrogates, at most
 * U+10FFFF), or 0 when s does not start one. s is NUL-terminated. */
size_t tb_utf8_seq_len(const char *s);
/* Offset of the first byte that is not valid UTF-8 in s, or -1 when s is valid. */
long tb_utf8_invalid_at(const char *s);
/* Offset of the first control in s (newlines allowed when multiline), or -1 when none. */
long tb_control_at(const char *s, bool multiline);
/*
 * A new copy of s in which each control and each byte that is not valid UTF-8 is written out
 * as text: "\x1b" for a byte, "\u009b" for a C1 control. NULL on ENOMEM. Valid text without
 * controls comes back unchanged.
 */
char *tb_escape_controls(const char *s, bool multiline);
/*
 * The bounded form, for text from outside that is kept (a fleet host's reason, a history's
 * column): s cut to at most max bytes at a character boundary, "..." appended when cut, then
 * escaped as tb_escape_controls does. NULL on ENOMEM (or for NULL).
 */
char *tb_escape_cut(const char *s, bool multiline, size_t max);
/* The same in place into buf (len bytes, always terminated; cut when it does not fit). */
void tb_escape_controls_buf(const char *s, bool multiline, char *buf, size_t len);

#endif /* TB_UTF8_H */
