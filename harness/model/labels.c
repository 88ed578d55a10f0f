// SPDX-License-Identifier: GPL-2.0
/* Labels (labels.h). */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/labels.h"

/* Valid UTF-8 (no overlong forms, no surrogates) without C0/C1 control characters or DEL. */
static bool clean_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned int c = *s, n, cp, i;

		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return false;
			s++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return false;
		for (i = 1; i <= n; i++) {
			if ((s[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (s[i] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
			return false;
		s += n + 1;
	}
	return true;
}

int tb_label_check(const char *key, const char *value, char *err, size_t errlen)
{
	size_t i, n = strlen(key);

	if (!n || n > TB_LABEL_KEY_MAX || !isalpha((unsigned char)key[0])) {
		snprintf(err, errlen,
			 "label key '%.64s': 1 to %d characters, starting with a letter", key,
			 TB_LABEL_KEY_MAX);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)key[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '-') {
			snprintf(err, errlen,
				 "label key '%.64s': only letters, digits, '_', '.' and '-'", key);
			return -EINVAL;
		}
	}
	if (strlen(value) > TB_LABEL_VALUE_MAX) {
		snprintf(err, errlen, "label %s: the value is longer than %d bytes", key,
			 TB_LABEL_VALUE_MAX);
		return -EINVAL;
	}
	if (!clean_utf8((const unsigned char *)value)) {
		snprintf(err, errlen,
			 "label %s: the value must be UTF-8 text without control characters", key);
		return -EINVAL;
	}
	return 0;
}

int tb_labels_add(json_t *labels, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	char key[TB_LABEL_KEY_MAX + 2];
	size_t klen;
	int ret;

	if (!eq) {
		snprintf(err, errlen, "label '%.80s': expected key=value", kv);
		return -EINVAL;
	}
	klen = (size_t)(eq - kv);
	if (klen >= sizeof(key))
		klen = sizeof(key) - 1; /* too long: the check says so */
	memcpy(key, kv, klen);
	key[klen] = '\0';
	ret = tb_label_check(key, eq + 1, err, errlen);
	if (ret)
		return ret;
	if (!json_object_get(labels, key) && json_object_size(labels) >= TB_LABELS_MAX) {
		snprintf(err, errlen, "more than %d labels", TB_LABELS_MAX);
		return -EINVAL;
	}
	return json_object_set_new(labels, key, json_string(eq + 1)) ? -ENOMEM : 0;
}
