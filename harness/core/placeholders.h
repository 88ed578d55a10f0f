/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placeholders in a command's argv: {pid} {cpus} {outdir} {sample}, filled per sample by the
 * harness (doc/command-tracer.md). Substitution is on argv words only, never through a shell:
 * a placeholder is a whole word or part of one ("--pid={pid}", "{outdir}/perf-{sample}.data").
 *
 * A placeholder is '{', a name of letters, digits and '_', '}'. Anything else in braces is
 * literal text, so bpftrace programs ("BEGIN { printf(...); }") and perf event groups
 * ("{cpu-clock,page-faults}") pass untouched. "{{name}}" is the literal text "{name}". An
 * unknown name, or a '{' and name that the word ends before closing, is an error.
 */
#ifndef TB_PLACEHOLDERS_H
#define TB_PLACEHOLDERS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strlist.h"

enum tb_placeholder { TB_PH_PID, TB_PH_CPUS, TB_PH_OUTDIR, TB_PH_SAMPLE, TB_PH_COUNT };

/* "{pid} {cpus} {outdir} {sample}", for messages and help. */
#define TB_PLACEHOLDERS_TEXT "{pid} {cpus} {outdir} {sample}"

/* What each placeholder stands for in one sample; indexed by enum tb_placeholder. */
struct tb_placeholder_values {
	const char *v[TB_PH_COUNT]; /* NULL: no value here (an error if the argv uses it) */
};

/*
 * Check every word of argv: 0, or -EINVAL with "word N ('...'): why" in err (an unknown
 * placeholder, or an unclosed one).
 */
int tb_placeholders_check(const struct tb_strlist *argv, char *err, size_t len);
/* Whether a (checked) word uses any placeholder. */
bool tb_placeholders_used(const char *word);
/*
 * The argv with every placeholder replaced by its value into *out (new strings; free with
 * tb_strlist_free). Returns 0, -EINVAL with the reason in err (a bad word, or a placeholder
 * without a value), or -ENOMEM.
 */
int tb_placeholders_expand(const struct tb_strlist *argv, const struct tb_placeholder_values *vals,
			   struct tb_strlist *out, char *err, size_t len);

#endif /* TB_PLACEHOLDERS_H */
