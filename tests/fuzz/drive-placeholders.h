/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One input of fuzz_placeholders, for the target and the fuzz-corpus unit suite: a command's
 * argv placeholders (core/placeholders.c) as a scenario gives them: the input split into words
 * as a command key is (tb_split_argv), checked, and expanded with every placeholder given (with
 * {sample} missing when the first byte is odd). A word that passed the check must expand or be
 * refused for a missing value; anything else aborts (a finding).
 */
#ifndef TB_FUZZ_DRIVE_PLACEHOLDERS_H
#define TB_FUZZ_DRIVE_PLACEHOLDERS_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/placeholders.h"
#include "core/strlist.h"

static int tb_drive_placeholders(const uint8_t *data, size_t size)
{
	struct tb_placeholder_values vals = {.v = {"4242", "0-1", "/tmp/out dir", "7"}};
	struct tb_strlist argv = {0}, out = {0};
	char *text = malloc(size + 1), err[512];
	int ret;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (size && (data[0] & 1))
		vals.v[TB_PH_SAMPLE] = NULL;
	if (!tb_split_argv(text, &argv) && !tb_placeholders_check(&argv, err, sizeof(err))) {
		for (size_t i = 0; i < argv.n; i++)
			(void)tb_placeholders_used(argv.v[i]);
		ret = tb_placeholders_expand(&argv, &vals, &out, err, sizeof(err));
		/* a checked argv fails only for a value that is not there, or memory */
		if (ret && ret != -ENOMEM && vals.v[TB_PH_SAMPLE])
			abort();
		if (!ret && out.n != argv.n)
			abort();
	}
	tb_strlist_free(&out);
	tb_strlist_free(&argv);
	free(text);
	return 0;
}

#endif /* TB_FUZZ_DRIVE_PLACEHOLDERS_H */
