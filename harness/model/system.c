// SPDX-License-Identifier: GPL-2.0
/* The facts of a result's `system` object (system.h): hardware leaves, differences, class. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/system.h"

/* Leaves of `system` that describe the hardware (sysinfo's names); an entry ending in '.' is a
 * prefix. Everything else (kernel, governor, SMT, microcode, versions) is software: it may
 * change on the same machine and explains a change rather than splitting a history. */
static const char *const hardware_keys[] = {
	"cpu.model",   "cpu.vendor",   "cpu.family", "cpu.model_number", "cpu.stepping",
	"cpu.present", "cpu.possible", "topology.",  "virtualization.",
};

/* Leaves that differ between any two runs (time of capture, load). */
static const char *const transient_keys[] = {
	"captured",
	"load.",
};

/* key equals an entry, or starts with an entry ending in '.'. */
static bool key_in(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(list[i]);

		if (list[i][len - 1] == '.' ? !strncmp(key, list[i], len) : !strcmp(key, list[i]))
			return true;
	}
	return false;
}

bool tb_system_key_is_hardware(const char *key)
{
	return key_in(key, hardware_keys, TB_ARRAY_SIZE(hardware_keys));
}

bool tb_system_key_is_transient(const char *key)
{
	return key_in(key, transient_keys, TB_ARRAY_SIZE(transient_keys));
}

/* Collect the leaves (non-objects) of v into out as path -> value (borrowed). */
static int flatten(const json_t *v, const char *path, json_t *out)
{
	const char *k;
	json_t *x;

	if (!json_is_object(v))
		return json_object_set(out, *path ? path : "(system)", (json_t *)v) ? -ENOMEM : 0;
	json_object_foreach((json_t *)v, k, x)
	{
		char *p;
		int ret;

		if (asprintf(&p, "%s%s%s", path, *path ? "." : "", k) < 0)
			return -ENOMEM;
		ret = flatten(x, p, out);
		free(p);
		if (ret)
			return ret;
	}
	return 0;
}

/* Display text of a leaf: strings as they are, everything else as compact JSON. */
static char *leaf_text(json_t *v)
{
	if (!v)
		return NULL;
	if (json_is_string(v))
		return strdup(json_string_value(v));
	return json_dumps(v,
			  JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS | JSON_REAL_PRECISION(6));
}

static int cmp_diff(const void *x, const void *y)
{
	return strcmp(((const struct tb_fp_diff *)x)->key, ((const struct tb_fp_diff *)y)->key);
}

void tb_fp_diffs_free(struct tb_fp_diff *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++) {
		free(d[i].key);
		free(d[i].a);
		free(d[i].b);
	}
	free(d);
}

/* Append the difference of leaf k (va, vb: its values, either NULL) to *out. */
static int add_diff(struct tb_fp_diff **out, size_t *n, const char *k, json_t *va, json_t *vb)
{
	struct tb_fp_diff *d, *grown = realloc(*out, (*n + 1) * sizeof(**out));

	if (!grown)
		return -ENOMEM;
	*out = grown;
	d = &grown[(*n)++];
	d->key = strdup(k);
	d->a = leaf_text(va);
	d->b = leaf_text(vb);
	d->hardware = tb_system_key_is_hardware(k);
	d->transient = tb_system_key_is_transient(k);
	return !d->key || (va && !d->a) || (vb && !d->b) ? -ENOMEM : 0;
}

bool tb_system_fingerprints_comparable(const json_t *a, const json_t *b)
{
	json_t *ha = a ? json_object_get(a, "fingerprint_algorithm") : NULL;
	json_t *hb = b ? json_object_get(b, "fingerprint_algorithm") : NULL;

	return !ha || !hb || json_equal(ha, hb);
}

/* A fingerprint leaf (the hash or its algorithm) of two systems it does not compare. */
static bool fingerprint_apart(const char *key, bool comparable)
{
	return !comparable &&
	       (!strcmp(key, "fingerprint") || !strcmp(key, "fingerprint_algorithm"));
}

int tb_system_diff(const json_t *a, const json_t *b, struct tb_fp_diff **out, size_t *n)
{
	bool comparable = tb_system_fingerprints_comparable(a, b);
	json_t *fa = json_object(), *fb = json_object(), *v;
	const char *k;
	int ret = -ENOMEM;

	*out = NULL;
	*n = 0;
	if (!fa || !fb || (a && flatten(a, "", fa)) || (b && flatten(b, "", fb)))
		goto out;
	/* Keys of a, then keys only in b: each differing leaf once. */
	for (int side = 0; side < 2; side++) {
		json_object_foreach(side ? fb : fa, k, v)
		{
			json_t *va = json_object_get(fa, k), *vb = json_object_get(fb, k);

			if ((side && va) || (va && vb && json_equal(va, vb)) ||
			    fingerprint_apart(k, comparable))
				continue;
			if (add_diff(out, n, k, va, vb))
				goto out;
		}
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), cmp_diff);
	ret = 0;
out:
	if (ret) {
		tb_fp_diffs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	json_decref(fa);
	json_decref(fb);
	return ret;
}

/* "model, N PUs, virtualization type" from what the system object says. */
static void describe(const json_t *sys, char *desc, size_t len)
{
	json_t *cpu = json_object_get(sys, "cpu"), *topo = json_object_get(sys, "topology");
	json_t *virt = json_object_get(sys, "virtualization");
	json_t *model = json_object_get(cpu, "model"), *pus = json_object_get(topo, "pus");
	json_t *type = json_object_get(virt, "type");
	json_int_t npu = json_is_integer(pus) ? json_integer_value(pus) : 0;

	if (!npu && json_is_integer(json_object_get(cpu, "online_count")))
		npu = json_integer_value(json_object_get(cpu, "online_count"));
	snprintf(desc, len, "%s", json_is_string(model) ? json_string_value(model) : "unknown CPU");
	if (npu > 0)
		snprintf(desc + strlen(desc), len - strlen(desc), ", %lld PU%s", (long long)npu,
			 npu == 1 ? "" : "s");
	if (json_is_string(type) && strcmp(json_string_value(type), "none") &&
	    strcmp(json_string_value(type), "unknown") &&
	    strcmp(json_string_value(type), "not collected"))
		snprintf(desc + strlen(desc), len - strlen(desc), ", %s", json_string_value(type));
}

int tb_system_hardware_class(const json_t *system, char hash[17], char *desc, size_t desclen)
{
	json_t *all = json_object(), *hw = json_object(), *v;
	char hex[65];
	const char *k;
	int ret = -ENOMEM;

	hash[0] = '\0';
	if (!all || !hw || (system && flatten(system, "", all)))
		goto out;
	json_object_foreach(all, k, v)
	{
		if (tb_system_key_is_hardware(k) && json_object_set(hw, k, v))
			goto out;
	}
	if (tb_sha256_json(hw, hex))
		goto out;
	memcpy(hash, hex, 16);
	hash[16] = '\0';
	if (desc && desclen)
		describe(system, desc, desclen);
	ret = 0;
out:
	json_decref(all);
	json_decref(hw);
	return ret;
}
