// SPDX-License-Identifier: GPL-2.0
/* The merge of a fleet run: which hosts' results join it, their hardware classes and the
 * comparisons within each class (fleet.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "core/utf8.h"
#include "model/system.h"
#include "stats/compare.h"
#include "stats/fleet.h"
#include "stats/stats.h"

const char *tb_fleet_state_name(enum tb_fleet_state s)
{
	switch (s) {
	case TB_FLEET_OK:
		return "ok";
	case TB_FLEET_FAILED:
		return "failed";
	case TB_FLEET_UNREACHABLE:
		return "unreachable";
	case TB_FLEET_EXCLUDED:
		return "excluded";
	}
	return "?";
}

struct tb_fleet_host *tb_fleet_host_get(struct tb_fleet *f, const char *name)
{
	struct tb_fleet_host *grown, *h;
	char *kept = tb_escape_cut(name, false, TB_FLEET_TEXT_MAX);

	if (!kept)
		return NULL;
	for (size_t i = 0; i < f->nhosts; i++) {
		if (!strcmp(f->hosts[i].name, kept)) {
			free(kept);
			return &f->hosts[i];
		}
	}
	grown = realloc(f->hosts, (f->nhosts + 1) * sizeof(*f->hosts));
	if (!grown) {
		free(kept);
		return NULL;
	}
	f->hosts = grown;
	h = &f->hosts[f->nhosts];
	memset(h, 0, sizeof(*h));
	h->name = kept;
	f->nhosts++;
	return h;
}

/* *slot = s as a host's text is kept (cut, escaped); s NULL keeps *slot. 0 or -ENOMEM. */
static int keep_text(char **slot, const char *s)
{
	char *kept;

	if (!s)
		return 0;
	kept = tb_escape_cut(s, false, TB_FLEET_TEXT_MAX);
	if (!kept)
		return -ENOMEM;
	free(*slot);
	*slot = kept;
	return 0;
}

int tb_fleet_host_set(struct tb_fleet_host *h, enum tb_fleet_state state, const char *stage,
		      const char *reason)
{
	h->state = state;
	return keep_text(&h->stage, stage) ? -ENOMEM : keep_text(&h->reason, reason);
}

int tb_fleet_host_install(struct tb_fleet_host *h, const char *mode, const char *why)
{
	char *text = NULL;
	int ret;

	if (asprintf(&text, "%s%s%s", mode, why && *why ? ": " : "", why ? why : "") < 0)
		return -ENOMEM;
	ret = keep_text(&h->install, text);
	free(text);
	return ret;
}

static int cmp_host(const void *x, const void *y)
{
	return strcmp(((const struct tb_fleet_host *)x)->name,
		      ((const struct tb_fleet_host *)y)->name);
}

/* labels[key] of r as a string, or NULL. */
static const char *label(const struct tb_result *r, const char *key)
{
	json_t *v = r->labels ? json_object_get(r->labels, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Why h's result cannot join f's merge, or NULL when it can; into buf. */
static const char *refusal(const struct tb_fleet *f, const struct tb_fleet_host *h, char *buf,
			   size_t len)
{
	const char *host = label(h->r, "host"), *fleet = label(h->r, "fleet");

	if (f->scenario_text && !tb_streq(f->scenario_text, h->r->scenario_text))
		snprintf(buf, len, "%s: the scenario text differs from the fleet's scenario",
			 h->result_path ? h->result_path : "result.json");
	else if (!host || strcmp(host, h->name))
		snprintf(buf, len, "%s: labelled host=%s, not %s",
			 h->result_path ? h->result_path : "result.json", host ? host : "(none)",
			 h->name);
	else if (f->id && !tb_streq(fleet, f->id))
		snprintf(buf, len, "%s: from fleet run %s, not %s",
			 h->result_path ? h->result_path : "result.json", fleet ? fleet : "(none)",
			 f->id);
	else
		return NULL;
	return buf;
}

/* The class of merged host h (f->hosts[i]), added when new. Returns 0 or -ENOMEM. */
static int classify(struct tb_fleet *f, size_t i)
{
	struct tb_fleet_host *h = &f->hosts[i];
	struct tb_fleet_class *grown, *c;
	char hash[17], desc[256], *key;
	size_t k;

	if (tb_system_hardware_class(h->r->system, hash, desc, sizeof(desc)) ||
	    !(key = strdup(hash)))
		return -ENOMEM;
	for (k = 0; k < f->nclasses; k++)
		if (!strcmp(f->classes[k].key, key))
			break;
	if (k == f->nclasses) {
		grown = realloc(f->classes, (k + 1) * sizeof(*f->classes));
		if (!grown) {
			free(key);
			return -ENOMEM;
		}
		f->classes = grown;
		c = &f->classes[f->nclasses++];
		c->key = key;
		c->name = strdup(desc);
		c->letter = k < 26 ? (char)('A' + k) : '?';
		c->nhosts = 0;
		c->ref = i;
		if (!c->name)
			return -ENOMEM;
	} else {
		free(key);
	}
	f->classes[k].nhosts++;
	h->cls = k;
	return 0;
}

/* Every merged cell id once, in host order then cell order. */
static int collect_ids(struct tb_fleet *f)
{
	size_t total = 0;

	for (size_t i = 0; i < f->nhosts; i++)
		if (f->hosts[i].merged)
			total += f->hosts[i].r->ncells;
	f->ids = calloc(total + 1, sizeof(*f->ids));
	if (!f->ids)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++) {
		const struct tb_fleet_host *h = &f->hosts[i];

		for (size_t c = 0; h->merged && c < h->r->ncells; c++) {
			const char *id = h->r->cells[c].id;
			size_t j;

			for (j = 0; id && j < f->nids; j++)
				if (!strcmp(f->ids[j], id))
					break;
			if (id && j == f->nids)
				f->ids[f->nids++] = id;
		}
	}
	return 0;
}

/* Within each class, its reference host against every other merged host of the class. */
static int compare_within_classes(struct tb_fleet *f, double alpha)
{
	f->cmps = calloc(f->nmerged + 1, sizeof(*f->cmps));
	if (!f->cmps)
		return -ENOMEM;
	for (size_t i = 0; i < f->nhosts; i++) {
		struct tb_fleet_host *h = &f->hosts[i];
		struct tb_fleet_host *ref;

		if (!h->merged || f->classes[h->cls].ref == i)
			continue;
		ref = &f->hosts[f->classes[h->cls].ref];
		if (tb_compare_build(ref->r, h->r, ref->name, h->name, alpha, &f->cmps[f->ncmps]))
			return -ENOMEM;
		f->ncmps++;
	}
	return 0;
}

int tb_fleet_merge(struct tb_fleet *f, double alpha)
{
	char why[1024];
	int ret;

	if (f->nhosts > 1)
		qsort(f->hosts, f->nhosts, sizeof(*f->hosts), cmp_host);
	for (size_t i = 0; i < f->nhosts; i++) {
		struct tb_fleet_host *h = &f->hosts[i];
		const char *no;

		if (!h->r)
			continue;
		no = refusal(f, h, why, sizeof(why));
		if (no) {
			if (tb_fleet_host_set(h, TB_FLEET_EXCLUDED, "merge", no))
				return -ENOMEM;
			continue;
		}
		ret = tb_stats_analyze(h->r);
		if (ret)
			return ret;
		h->merged = true;
		f->nmerged++;
		if ((ret = classify(f, i)))
			return ret;
	}
	if ((ret = collect_ids(f)))
		return ret;
	return compare_within_classes(f, alpha);
}

const struct tb_cell *tb_fleet_cell(const struct tb_fleet_host *h, const char *id)
{
	for (size_t i = 0; h->r && i < h->r->ncells; i++)
		if (h->r->cells[i].id && !strcmp(h->r->cells[i].id, id))
			return &h->r->cells[i];
	return NULL;
}

size_t tb_fleet_nbad(const struct tb_fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->nhosts; i++)
		n += f->hosts[i].state != TB_FLEET_OK;
	return n;
}

void tb_fleet_free(struct tb_fleet *f)
{
	for (size_t i = 0; i < f->ncmps; i++)
		tb_compare_free(f->cmps[i]);
	free(f->cmps);
	for (size_t i = 0; i < f->nhosts; i++) {
		struct tb_fleet_host *h = &f->hosts[i];

		free(h->name);
		free(h->stage);
		free(h->reason);
		free(h->install);
		free(h->result_path);
		tb_result_free(h->r);
	}
	free(f->hosts);
	for (size_t i = 0; i < f->nclasses; i++) {
		free(f->classes[i].key);
		free(f->classes[i].name);
	}
	free(f->classes);
	free(f->ids);
	memset(f, 0, sizeof(*f));
}
