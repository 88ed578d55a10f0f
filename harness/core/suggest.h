/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "did you mean": the closest of a set of known names to a word the user typed, by edit
 * distance (insertions, deletions, substitutions and swaps of neighbours, case ignored), for
 * unknown scenario keys, plugin types and command-line options.
 */
#ifndef TB_SUGGEST_H
#define TB_SUGGEST_H

#include <stddef.h>

/* Edit distance between a and b (optimal string alignment), case-insensitive; SIZE_MAX for
 * words longer than 64 bytes (nobody mistypes those). */
size_t tb_edit_distance(const char *a, const char *b);

/* One search: init with the typed word, offer every candidate, then ask for the best. */
struct tb_suggest {
	const char *word; /* borrowed */
	const char *best; /* borrowed from the candidates; NULL: none close enough */
	size_t dist;
};
void tb_suggest_init(struct tb_suggest *s, const char *word);
/* Consider candidate (NULL is ignored): kept when it is closer than the best so far and
 * close enough to be a typo (a distance of at most 1 for words of up to 4 characters, 2 up
 * to 8, else 3). */
void tb_suggest_offer(struct tb_suggest *s, const char *candidate);
/* "; did you mean 'best'?", or "" when no candidate is close: always a string to append to a
 * message, in buf (n bytes). */
const char *tb_suggest_text(const struct tb_suggest *s, char *buf, size_t n);

#endif /* TB_SUGGEST_H */
