/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Labels: key=value strings a user attaches to a run (`run --label commit=abc123`, `history add
 * --label`), stored in result.json's `labels` object and in the history. They name what the
 * machine cannot know (the commit, the branch, the host's role), so their syntax is strict.
 */
#ifndef TB_LABELS_H
#define TB_LABELS_H

#include <jansson.h>
#include <stddef.h>

#define TB_LABEL_KEY_MAX   64
#define TB_LABEL_VALUE_MAX 256
#define TB_LABELS_MAX	   64

/*
 * Check a label: the key 1-64 characters of [A-Za-z0-9_.-], starting with a letter; the value
 * at most 256 bytes of valid UTF-8 without control characters. Returns 0 or -EINVAL with the
 * reason in err.
 */
int tb_label_check(const char *key, const char *value, char *err, size_t errlen);
/*
 * Parse "key=value" (checked as above) into labels (a JSON object; an existing key is
 * replaced). Returns 0, -EINVAL with the reason in err (no '=', a bad key or value, more than
 * TB_LABELS_MAX labels), or -ENOMEM.
 */
int tb_labels_add(json_t *labels, const char *kv, char *err, size_t errlen);

#endif /* TB_LABELS_H */
