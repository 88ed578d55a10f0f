// SPDX-License-Identifier: GPL-2.0
/* A merged fleet (stats/fleet.h) as terminal tables and as JSON (fleet-table.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/compare-formats.h"
#include "render/fleet-table.h"
#include "render/text.h"
#include "model/json-util.h"
#include "model/measured.h"
#include "stats/fleet.h"

#define ROW_MAX 48 /* the cell id column at most; ids are cut beyond */
#define HOST_W	38 /* a host's column: "+345.5 [+306.5, +395.0] untrustworthy" */

/* The verdict in at most 13 characters, for a table cell. */
static const char *verdict_word(const struct tb_cell *c)
{
	if (c->error)
		return "failed";
	if (!c->has_overhead)
		return "-";
	switch (c->overhead.verdict) {
	case TB_VERDICT_OVERHEAD:
		return "overhead";
	case TB_VERDICT_NO_OVERHEAD:
		return "none-detected";
	case TB_VERDICT_UNTRUSTWORTHY:
		return "untrustworthy";
	case TB_VERDICT_FASTER:
		return "faster";
	default:
		return "-";
	}
}

/* The text of cell id on merged host h into buf. */
static const char *cell_text(char *buf, size_t len, const struct tb_fleet_host *h, const char *id)
{
	const struct tb_cell *c = tb_fleet_cell(h, id);
	char num[32];

	if (!c)
		snprintf(buf, len, "(not run)");
	else if (c->baseline)
		snprintf(buf, len, "%s ns/op",
			 tb_fmt_num(num, sizeof(num), c->summary.n ? c->summary.median : NAN,
				    "%.1f"));
	else if (c->has_overhead && isfinite(c->overhead.pct) && isfinite(c->overhead.ci_lo))
		snprintf(buf, len, "%+.1f [%+.1f, %+.1f] %s", c->overhead.pct, c->overhead.ci_lo,
			 c->overhead.ci_hi, verdict_word(c));
	else
		snprintf(buf, len, "%s", verdict_word(c));
	return buf;
}

/* The width of the cell id column: the longest id (within 8 and ROW_MAX). */
static int row_width(const struct tb_fleet *fl)
{
	size_t w = 8;

	for (size_t j = 0; j < fl->nids; j++)
		if (strlen(fl->ids[j]) > w)
			w = strlen(fl->ids[j]);
	return (int)(w > ROW_MAX ? ROW_MAX : w);
}

/* One header line: label, then for each merged host what(h). */
static void header_line(FILE *f, const struct tb_fleet *fl, int row_w, const char *label,
			const char *(*what)(const struct tb_fleet *, const struct tb_fleet_host *,
					    char *, size_t))
{
	char buf[HOST_W + 8], cut[HOST_W + 8];

	fprintf(f, "%-*s", row_w, label);
	for (size_t i = 0; i < fl->nhosts; i++)
		if (fl->hosts[i].merged)
			fprintf(f, "  %-*s", HOST_W,
				tb_shorten(cut, sizeof(cut),
					   what(fl, &fl->hosts[i], buf, sizeof(buf)), HOST_W));
	fputc('\n', f);
}

static const char *h_name(const struct tb_fleet *fl, const struct tb_fleet_host *h, char *b,
			  size_t n)
{
	return h->name;
}

static const char *h_class(const struct tb_fleet *fl, const struct tb_fleet_host *h, char *b,
			   size_t n)
{
	snprintf(b, n, "class %c", fl->classes[h->cls].letter);
	return b;
}

static const char *h_kernel(const struct tb_fleet *fl, const struct tb_fleet_host *h, char *b,
			    size_t n)
{
	const char *k = tb_result_kernel(h->r);

	snprintf(b, n, "%s%s", k ? k : "unknown kernel", h->r->partial ? " (partial)" : "");
	return b;
}

/* The untrustworthy and failed cells' reasons, a line each. */
static void print_reasons(FILE *f, const struct tb_fleet *fl)
{
	for (size_t i = 0; i < fl->nhosts; i++) {
		const struct tb_fleet_host *h = &fl->hosts[i];

		for (size_t c = 0; h->merged && c < h->r->ncells; c++) {
			const struct tb_cell *x = &h->r->cells[c];

			if (x->error)
				fprintf(f, "  %s on %s: failed: %s\n", x->id, h->name, x->error);
			else if (x->has_overhead && x->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY)
				fprintf(f, "  %s on %s: untrustworthy: %s\n", x->id, h->name,
					x->overhead.reason);
		}
	}
}

void tb_render_fleet_print(FILE *f, const struct tb_fleet *fl)
{
	const struct tb_result *first = NULL;
	int row_w = row_width(fl);
	char buf[128];

	for (size_t i = 0; !first && i < fl->nhosts; i++)
		first = fl->hosts[i].merged ? fl->hosts[i].r : NULL;
	fprintf(f, "\nfleet %s: %zu of %zu hosts merged", fl->id ? fl->id : "", fl->nmerged,
		fl->nhosts);
	if (!first) {
		fprintf(f, "\n(no host's result to merge)\n");
		return;
	}
	fprintf(f, "; overhead %% [%.0f%% CI] and verdict per host\n\n",
		100 * (first->confidence > 0 ? first->confidence : 0.95));
	header_line(f, fl, row_w, "host", h_name);
	header_line(f, fl, row_w, "hardware", h_class);
	header_line(f, fl, row_w, "kernel", h_kernel);
	for (size_t j = 0; j < fl->nids; j++) {
		fprintf(f, "%-*.*s", row_w, row_w, fl->ids[j]);
		for (size_t i = 0; i < fl->nhosts; i++)
			if (fl->hosts[i].merged)
				fprintf(f, "  %-*s", HOST_W,
					cell_text(buf, sizeof(buf), &fl->hosts[i], fl->ids[j]));
		fputc('\n', f);
	}
	fputc('\n', f);
	for (size_t k = 0; k < fl->nclasses; k++)
		fprintf(f, "class %c: %s (%zu host%s)\n", fl->classes[k].letter,
			fl->classes[k].name, fl->classes[k].nhosts,
			fl->classes[k].nhosts == 1 ? "" : "s");
	fprintf(f,
		"overhead %% compares across classes; ns/op and ns/event only within a class "
		"(%zu comparison%s)\n",
		fl->ncmps, fl->ncmps == 1 ? "" : "s");
	print_reasons(f, fl);
}

void tb_render_fleet_hosts(FILE *f, const struct tb_fleet *fl)
{
	size_t w = 4;

	for (size_t i = 0; i < fl->nhosts; i++)
		if (strlen(fl->hosts[i].name) > w)
			w = strlen(fl->hosts[i].name);
	fprintf(f, "\n%-*s  %-11s  %s\n", (int)w, "host", "state", "result, or why there is none");
	for (size_t i = 0; i < fl->nhosts; i++) {
		const struct tb_fleet_host *h = &fl->hosts[i];

		fprintf(f, "%-*s  %-11s  ", (int)w, h->name, tb_fleet_state_name(h->state));
		if (h->reason)
			fprintf(f, "%s%s%s", h->stage ? h->stage : "", h->stage ? ": " : "",
				h->reason);
		else if (h->result_path)
			fprintf(f, "%s", h->result_path);
		else
			fprintf(f, "no result");
		if (h->merged && h->reason)
			fprintf(f, " (its result is merged: %s)", h->result_path);
		fputc('\n', f);
	}
}

/* One host's figures of one cell, or null when it has none. */
static json_t *cell_json(const struct tb_cell *c)
{
	json_t *o;

	if (!c)
		return json_null();
	o = json_pack("{s:o, s:b, s:s?}", "ns_per_op",
		      tb_json_num(c->summary.n ? c->summary.median : NAN), "failed", !!c->error,
		      "error", c->error);
	if (o && !c->baseline && c->has_overhead &&
	    json_object_update_new(
		    o, json_pack("{s:o, s:o, s:o, s:o, s:s, s:s}", "overhead_pct",
				 tb_json_num(c->overhead.pct), "overhead_ci",
				 tb_json_pair(c->overhead.ci_lo, c->overhead.ci_hi), "ns_per_event",
				 tb_json_num(c->overhead.ns_per_event), "ns_per_event_ci",
				 tb_json_pair(c->overhead.nse_ci_lo, c->overhead.nse_ci_hi),
				 "verdict", tb_verdict_name(c->overhead.verdict), "reason",
				 c->overhead.reason))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *hosts_json(const struct tb_fleet *fl)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < fl->nhosts; i++) {
		const struct tb_fleet_host *h = &fl->hosts[i];
		char cls[2] = {h->merged ? fl->classes[h->cls].letter : 0, 0};
		json_t *o = json_pack(
			"{s:s, s:s, s:s?, s:s?, s:s?, s:s?, s:b, s:o, s:o, s:b}", "name", h->name,
			"state", tb_fleet_state_name(h->state), "stage", h->stage, "reason",
			h->reason, "install", h->install, "result", h->result_path, "merged",
			h->merged, "class", h->merged ? json_string(cls) : json_null(), "kernel",
			tb_json_str_or_null(h->merged ? tb_result_kernel(h->r) : NULL), "partial",
			h->merged && h->r->partial);

		if (json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *classes_json(const struct tb_fleet *fl)
{
	json_t *a = json_array();

	for (size_t k = 0; a && k < fl->nclasses; k++) {
		char letter[2] = {fl->classes[k].letter, 0};
		json_t *names = json_array(), *o;

		for (size_t i = 0; names && i < fl->nhosts; i++)
			if (fl->hosts[i].merged && fl->hosts[i].cls == k &&
			    json_array_append_new(names, json_string(fl->hosts[i].name)))
				json_decref(names), names = NULL;
		o = names ? json_pack("{s:s, s:s, s:s, s:o}", "class", letter, "name",
				      fl->classes[k].name, "hardware", fl->classes[k].key, "hosts",
				      names)
			  : NULL;
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *cells_json(const struct tb_fleet *fl)
{
	json_t *a = json_array();

	for (size_t j = 0; a && j < fl->nids; j++) {
		json_t *per = json_object(), *o;

		for (size_t i = 0; per && i < fl->nhosts; i++) {
			const struct tb_fleet_host *h = &fl->hosts[i];

			if (h->merged &&
			    json_object_set_new(per, h->name,
						cell_json(tb_fleet_cell(h, fl->ids[j]))))
				json_decref(per), per = NULL;
		}
		o = per ? json_pack("{s:s, s:o}", "id", fl->ids[j], "hosts", per) : NULL;
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *tb_render_fleet_json(const struct tb_fleet *fl)
{
	json_t *cmps = json_array();

	for (size_t i = 0; cmps && i < fl->ncmps; i++)
		if (json_array_append_new(cmps, tb_render_compare_json(fl->cmps[i])))
			json_decref(cmps), cmps = NULL;
	return json_pack(
		"{s:s, s:s?, s:o, s:o, s:o, s:o, s:s}", "schema", "tracebench-fleet/1", "fleet",
		fl->id, "hosts", hosts_json(fl), "classes", classes_json(fl), "cells",
		cells_json(fl), "comparisons", cmps ? cmps : NULL, "comparable",
		"overhead % across hardware classes; ns/op and ns/event only within a class");
}
