/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A NULL-terminated list of strings, each malloc'd and owned by the list: the values of
 * TB_OPT_LIST and TB_OPT_ARGV options (core/options.h), a command's argv (core/proc.h) and the
 * words placeholders are expanded in (core/placeholders.h).
 */
#ifndef TB_CORE_STRLIST_H
#define TB_CORE_STRLIST_H

#include <stddef.h>

struct tb_strlist {
	char **v; /* n strings and a NULL */
	size_t n;
};

/* Split s into words like a POSIX shell would, without any expansion. 0, -EINVAL (an
 * unterminated quote, a trailing backslash) or -ENOMEM; out is empty on error. */
int tb_split_argv(const char *s, struct tb_strlist *out);
/* Split a comma-separated list, each item trimmed. 0, -EINVAL (an empty item) or -ENOMEM. */
int tb_split_list(const char *s, struct tb_strlist *out);
void tb_strlist_free(struct tb_strlist *l);
/* Join a list with sep into a new string (caller frees); NULL on ENOMEM. */
char *tb_strlist_join(const struct tb_strlist *l, const char *sep);

#endif
