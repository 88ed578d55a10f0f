// SPDX-License-Identifier: GPL-2.0
/* result.json's limits (run --find-limit, METHODOLOGY.md "Sweeps"): each search with its
 * conclusion and every probe; model/json-result.c uses the array. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/json-rows.h"

#define T struct tb_limit_probe
static const struct tb_json_field limit_probe_fields[] = {
	F_STR("knob", knob, TB_JSON_OMIT),
	F_STR("knob_value", knob_value, TB_JSON_REQ),
	F_STR("setting", setting, TB_JSON_OMIT),
	F_STR("buffer", buffer, TB_JSON_REQ),
	F_RANGE("buffer_x", buffer_x, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("events_per_s", events_per_s, 0, MAXV, TB_JSON_OMIT),
	F_COUNT("events", events, TB_JSON_OMIT),
	F_COUNT("lost", lost, TB_JSON_OMIT),
	F_RANGE("lost_share", lost_share, 0, 1, TB_JSON_OMIT),
	F_RANGE("tracer_cpu", tracer_cpu, 0, MAXV, TB_JSON_OMIT),
	F_TEXT("proof", proof, TB_JSON_OMIT),
	F_END,
};
#undef T

static const struct tb_json_table limit_probe_table = {limit_probe_fields, NULL, NULL};

static void *limit_probe_add(void *l)
{
	return tb_limit_add_probe(l);
}

static const struct tb_json_array limit_probes_array = {
	.elem = &limit_probe_table,
	.size = sizeof(struct tb_limit_probe),
	.count = offsetof(struct tb_limit, nprobes),
	.max = TB_RESULT_MAX_CELLS * 4,
	.add = limit_probe_add,
};

#define T struct tb_limit
static const struct tb_json_field limit_fields[] = {
	F_STR("kind", kind, TB_JSON_REQ),
	F_STR("cell", cell, TB_JSON_REQ),
	F_STR("workload", workload, TB_JSON_REQ),
	F_STR("tracer", tracer, TB_JSON_REQ),
	F_STR("knob", knob, TB_JSON_REQ),
	{.key = "knobs", .kind = TB_JSON_STRINGS, AT(knobs), .umax = 8, .len = 32},
	F_TEXT("knob_note", knob_note, TB_JSON_OMIT | TB_JSON_CUT),
	F_STR("buffer_key", buffer_key, TB_JSON_REQ),
	F_STR("buffer", buffer, TB_JSON_OMIT),
	F_RANGE("target_events_per_s", target, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("resolution", resolution, 0, 1, TB_JSON_OMIT),
	F_BOOL("found", found, TB_JSON_REQ),
	F_RANGE("held_events_per_s", held_rate, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("held_tracer_cpu", held_cpu, 0, MAXV, TB_JSON_OMIT),
	F_TEXT("held_knob", held_knob, TB_JSON_OMIT),
	F_TEXT("held_at", held_at, TB_JSON_OMIT),
	F_RANGE("lost_events_per_s", lost_rate, 0, MAXV, TB_JSON_OMIT),
	F_TEXT("lost_knob", lost_knob, TB_JSON_OMIT),
	F_TEXT("lost_at", lost_at, TB_JSON_OMIT),
	F_TEXT("held_buffer", held_buffer, TB_JSON_OMIT),
	F_TEXT("lost_buffer", lost_buffer, TB_JSON_OMIT),
	F_BOOL("monotone", monotone, 0),
	F_TEXT("note", note, TB_JSON_OMIT | TB_JSON_CUT),
	F_ARRAY("probes", probes, &limit_probes_array, TB_JSON_REQ),
	F_END,
};
#undef T

/* Is name one of the chain's knobs. */
static bool in_chain(const struct tb_limit *l, const char *name)
{
	size_t i;
	json_t *v;

	json_array_foreach(l->knobs, i, v) if (!strcmp(json_string_value(v), name)) return true;
	return false;
}

/* A probe from a file written before the chain: its knob is the search's, its setting that. */
static int probe_defaults(struct tb_limit *l, struct tb_limit_probe *p)
{
	if (!p->knob && !(p->knob = strdup(l->knob)))
		return -ENOMEM;
	if (!p->setting && asprintf(&p->setting, "%s = %s", p->knob, p->knob_value) < 0) {
		p->setting = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A search is of a rate or of a buffer; its knob and its probes' are of its chain (a file
 * written before the chain had one knob: [knob]). */
static int limit_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	struct tb_limit *l = base;
	char key[48];

	(void)o;
	if (strcmp(l->kind, "rate") && strcmp(l->kind, "buffer"))
		return tb_json_bad(rd, "kind", "expected \"rate\" or \"buffer\", not \"%.40s\"",
				   l->kind);
	if (!json_array_size(l->knobs)) {
		json_decref(l->knobs);
		l->knobs = json_pack("[s]", l->knob);
		if (!l->knobs)
			return -ENOMEM;
	}
	if (!in_chain(l, l->knob))
		return tb_json_bad(rd, "knob", "\"%.32s\" is not one of knobs", l->knob);
	for (size_t i = 0; i < l->nprobes; i++) {
		if (probe_defaults(l, &l->probes[i]))
			return -ENOMEM;
		snprintf(key, sizeof(key), "probes[%zu].knob", i);
		if (!in_chain(l, l->probes[i].knob))
			return tb_json_bad(rd, key, "\"%.32s\" is not one of knobs",
					   l->probes[i].knob);
	}
	return 0;
}

static const struct tb_json_table limit_table = {limit_fields, NULL, limit_check};

static void *limit_add(void *r)
{
	return tb_result_add_limit(r);
}

const struct tb_json_array tb_json_limits_array = {
	.elem = &limit_table,
	.size = sizeof(struct tb_limit),
	.count = offsetof(struct tb_result, nlimits),
	.max = TB_RESULT_MAX_CELLS,
	.add = limit_add,
};
