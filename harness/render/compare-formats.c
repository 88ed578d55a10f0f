// SPDX-License-Identifier: GPL-2.0
/* A comparison (stats/compare.h) as JSON, as a terminal table and as Markdown. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/compare-formats.h"
#include "core/markup.h"
#include "render/text.h"
#include "model/json-util.h"
#include "stats/compare.h"

/* Every sweep of either result: {kind, section, key, against, unit, slope_ns_a, slope_ci_a,
 * slope_ns_b, slope_ci_b, change_ns, change_ci, significant, verdict, why_not}; a side's slope
 * is null where the sweep is absent. NULL on ENOMEM. */
static json_t *sweeps_json(const struct tb_comparison *c)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < c->nsweeps; i++) {
		const struct tb_cmp_sweep *d = &c->sweeps[i];
		const struct tb_sweep *s = d->a ? d->a : d->b, *x = d->a, *y = d->b;
		json_t *o = json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:s, s:s?}",
			"kind", s->kind, "section", s->section, "key", s->key, "against",
			s->against, "unit", s->unit, "slope_ns_a",
			x ? tb_json_num(x->fit.cost_ns) : json_null(), "slope_ci_a",
			x ? tb_json_pair(x->fit.cost_ci_lo, x->fit.cost_ci_hi) : json_null(),
			"slope_ns_b", y ? tb_json_num(y->fit.cost_ns) : json_null(), "slope_ci_b",
			y ? tb_json_pair(y->fit.cost_ci_lo, y->fit.cost_ci_hi) : json_null(),
			"change_ns", tb_json_num(d->change), "change_ci",
			tb_json_pair(d->ci_lo, d->ci_hi), "significant", d->significant, "verdict",
			tb_cmp_sweep_dir_name(d->dir), "why_not", d->why[0] ? d->why : NULL);

		if (!o || json_array_append_new(arr, o)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* A service row's metrics: {throughput|p50|p99: {a, b, unit, change_pct, change_ci,
 * p_mannwhitney, verdict}}. NULL on ENOMEM. */
static json_t *svc_json(const struct tb_cmp_row *w)
{
	json_t *o = json_object();

	for (int m = 0; o && m < TB_STATS_SVC_N; m++) {
		const struct tb_cmp_svc *ch = &w->svc[m];
		json_t *x = json_pack(
			"{s:o, s:o, s:s, s:o, s:o, s:o, s:s}", "a", tb_json_num(ch->a), "b",
			tb_json_num(ch->b), "unit", m ? "ns" : "requests/s", "change_pct",
			tb_json_num(ch->pct), "change_ci", tb_json_pair(ch->ci_lo, ch->ci_hi),
			"p_mannwhitney", tb_json_num(ch->p), "verdict", tb_cmp_dir_name(ch->dir));

		if (!x || json_object_set_new(o, tb_stats_svc_names[m], x)) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

json_t *tb_render_compare_json(const struct tb_comparison *c)
{
	json_t *doc, *env = json_array(), *cells = json_array(), *only_a = json_array(),
		     *only_b = json_array();
	bool bad = !env || !cells || !only_a || !only_b;

	for (size_t i = 0; !bad && i < c->ndiffs; i++) {
		const struct tb_fp_diff *d = &c->diffs[i];

		bad = json_array_append_new(
			env, json_pack("{s:s, s:o, s:o, s:b, s:b}", "key", d->key, "a",
				       tb_json_str_or_null(d->a), "b", tb_json_str_or_null(d->b),
				       "hardware", d->hardware, "transient", d->transient));
	}
	for (size_t i = 0; !bad && i < c->nrows; i++) {
		const struct tb_cmp_row *w = &c->rows[i];
		json_t *o;

		if (!w->a || !w->b) {
			o = json_pack("{s:s, s:b}", "id", w->id, "config_differs",
				      w->config_differs);
			bad = json_array_append_new(w->a ? only_a : only_b, o);
			continue;
		}
		o = json_pack("{s:s, s:s?, s:s?, s:b, s:o, s:o, s:o, s:o, s:o, s:b}", "id", w->id,
			      "workload", w->a->workload, "tracer", w->a->tracer, "baseline",
			      w->a->baseline, "ns_per_op_a", tb_json_num(w->ns_a), "ns_per_op_b",
			      tb_json_num(w->ns_b), "ns_per_op_change_pct", tb_json_num(w->ns_pct),
			      "ns_per_op_change_ci", tb_json_pair(w->ns_ci_lo, w->ns_ci_hi),
			      "p_mannwhitney", tb_json_num(w->p), "significant", w->ns_significant);
		if (o && w->caveats) {
			char note[768];

			bad = json_object_set_new(
				o, "note", json_string(tb_cmp_row_note(c, w, note, sizeof(note))));
		}
		if (o && w->has_svc && json_object_set_new(o, "service", svc_json(w)))
			bad = true;
		if (o && w->traced) {
			json_t *ov = json_pack("{s:o, s:o, s:o, s:o, s:b, s:s, s:s}", "a",
					       tb_json_num(w->ovh_a), "b", tb_json_num(w->ovh_b),
					       "change_pp", tb_json_num(w->ovh_change), "change_ci",
					       tb_json_pair(w->ovh_ci_lo, w->ovh_ci_hi),
					       "significant", w->ovh_significant, "verdict_a",
					       tb_verdict_name(w->verdict_a), "verdict_b",
					       tb_verdict_name(w->verdict_b));

			if (!ov || json_object_set_new(o, "overhead_pct", ov))
				bad = true;
		}
		bad = bad || json_array_append_new(cells, o);
	}
	if (bad) {
		json_decref(env);
		json_decref(cells);
		json_decref(only_a);
		json_decref(only_b);
		return NULL;
	}
	{
		char envs[160];
		size_t n = tb_compare_env_summary(c, envs, sizeof(envs));

		doc = json_pack("{s:s, s:s, s:b, s:b, s:f, s:f, s:b, s:o, s:I, s:s, s:o, s:o, s:o}",
				"a", c->name_a, "b", c->name_b, "a_partial", c->a->partial,
				"b_partial", c->b->partial, "alpha", c->alpha, "confidence",
				1 - c->alpha, "same_hardware", c->same_hardware,
				"environment_differences", env, "environment_differing",
				(json_int_t)n, "environment_summary", envs, "cells", cells,
				"only_in_a", only_a, "only_in_b", only_b);
	}
	if (doc && c->nsweeps && json_object_set_new(doc, "sweeps", sweeps_json(c))) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* "+1.23% [+0.5, +2.0]" into buf. */
static const char *fmt_change(char *buf, size_t len, double v, double lo, double hi,
			      const char *unit)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (isfinite(lo) && isfinite(hi))
		snprintf(buf, len, "%+.2f%s [%+.2f, %+.2f]", v, unit, lo, hi);
	else
		snprintf(buf, len, "%+.2f%s", v, unit);
	return buf;
}

void tb_render_compare_svc_text(struct tb_render_svc_row *t, const struct tb_cmp_row *w,
				enum tb_stats_svc m)
{
	const struct tb_cmp_svc *ch = &w->svc[m];
	bool rps = m == TB_STATS_SVC_RPS;
	double k = rps ? 1 : 1e3; /* latencies in us */

	t->name = tb_stats_svc_names[m];
	t->unit = rps ? "req/s" : "us";
	t->verdict = tb_cmp_dir_name(ch->dir);
	tb_fmt_num(t->a, sizeof(t->a), ch->a / k, rps ? "%.0f" : "%.1f");
	tb_fmt_num(t->b, sizeof(t->b), ch->b / k, rps ? "%.0f" : "%.1f");
	fmt_change(t->change, sizeof(t->change), ch->pct, ch->ci_lo, ch->ci_hi, "%");
	tb_fmt_num(t->p, sizeof(t->p), ch->p, "%.2g");
}

/* "throughput 10000 -> 9000 req/s, -10.00% [-11.0, -9.0] worse; p50 ...": a service row's
 * metrics for the table and Markdown. */
static const char *svc_text(char *buf, size_t len, const struct tb_cmp_row *w)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int m = 0; m < TB_STATS_SVC_N && off < len; m++) {
		struct tb_render_svc_row t;

		tb_render_compare_svc_text(&t, w, (enum tb_stats_svc)m);
		off += (size_t)snprintf(buf + off, len - off, "%s%s %s -> %s %s, %s %s",
					m ? "; " : "", t.name, t.a, t.b, t.unit, t.change,
					t.verdict);
	}
	return buf;
}

#define CUT_LEN 48 /* a value cut for the table takes CUT_LEN - 1 bytes at most */

/* Long values (command lines, lists) are cut for the table; --json has them whole. buf holds
 * CUT_LEN bytes. */
static const char *cut(char *buf, const char *s)
{
	return s ? tb_shorten(buf, CUT_LEN, s, CUT_LEN - 1) : "(absent)";
}

/* The figures of a matched row as text, for the table and for Markdown. */
struct row_text {
	char ns_a[64], ns_b[64], p[64], ovh_a[64], ovh_b[64];
	char ns_change[64]; /* with room for the table's " *" */
	char ovh_change[64];
};

/* ovh_fmt formats the overheads A and B. */
static void row_text(struct row_text *t, const struct tb_cmp_row *w, const char *ovh_fmt)
{
	tb_fmt_num(t->ns_a, sizeof(t->ns_a), w->ns_a, "%.1f");
	tb_fmt_num(t->ns_b, sizeof(t->ns_b), w->ns_b, "%.1f");
	tb_fmt_num(t->p, sizeof(t->p), w->p, "%.2g");
	fmt_change(t->ns_change, sizeof(t->ns_change) - 2, w->ns_pct, w->ns_ci_lo, w->ns_ci_hi,
		   "%");
	tb_fmt_num(t->ovh_a, sizeof(t->ovh_a), w->ovh_a, ovh_fmt);
	tb_fmt_num(t->ovh_b, sizeof(t->ovh_b), w->ovh_b, ovh_fmt);
	fmt_change(t->ovh_change, sizeof(t->ovh_change), w->ovh_change, w->ovh_ci_lo, w->ovh_ci_hi,
		   "pp");
}

/* The cells that only one side has, a line per side: "only in A: x, y (config differs)". md:
 * for Markdown (a paragraph each, names as code). */
static void print_only(FILE *f, const struct tb_comparison *c, bool md)
{
	static const char *const lead[2][2] = {{"only in A: ", "only in B: "},
					       {"\nOnly in A: ", "\nOnly in B: "}};

	for (int side = 0; side < 2; side++) {
		bool first = true;

		for (size_t i = c->nmatched; i < c->nrows; i++) {
			const struct tb_cmp_row *w = &c->rows[i];

			if (side ? !!w->a : !w->a)
				continue;
			fputs(first ? lead[md][side] : ", ", f);
			if (md) {
				fputc('`', f);
				tb_fput_markdown(f, w->id);
				fputc('`', f);
			} else {
				fprintf(f, "%s", w->id);
			}
			fputs(w->config_differs ? " (config differs)" : "", f);
			first = false;
		}
		if (!first)
			fputc('\n', f);
	}
}

static void print_environment(FILE *f, const struct tb_comparison *c)
{
	char b1[CUT_LEN], b2[CUT_LEN], envs[160];

	tb_compare_env_summary(c, envs, sizeof(envs));
	fprintf(f, "environment: %s\n", envs);
	for (size_t i = 0; i < c->ndiffs; i++) {
		const struct tb_fp_diff *d = &c->diffs[i];

		if (d->transient)
			continue;
		fprintf(f, "  %-32s %s -> %s%s\n", d->key, cut(b1, d->a), cut(b2, d->b),
			d->hardware ? "  [hardware]" : "");
	}
}

/* A sweep's slope with its CI ("12.3 [11.1, 13.5]"), "-" when absent, "refused" when its line
 * was not accepted. */
static const char *slope_text(char *buf, size_t len, const struct tb_sweep *s)
{
	if (!s)
		snprintf(buf, len, "-");
	else if (!s->fit.accepted)
		snprintf(buf, len, "refused");
	else
		snprintf(buf, len, "%.3g [%.3g, %.3g]", s->fit.cost_ns, s->fit.cost_ci_lo,
			 s->fit.cost_ci_hi);
	return buf;
}

void tb_render_compare_sweep_text(struct tb_render_sweep_row *t, const struct tb_cmp_sweep *d)
{
	const struct tb_sweep *s = d->a ? d->a : d->b;

	snprintf(t->name, sizeof(t->name), "%s %s: %s against %s, per %s", s->kind, s->section,
		 s->key, s->against, s->unit);
	slope_text(t->a, sizeof(t->a), d->a);
	slope_text(t->b, sizeof(t->b), d->b);
	if (d->dir == TB_CMP_SWEEP_ONLY_A || d->dir == TB_CMP_SWEEP_ONLY_B)
		t->change[0] = '\0';
	else if (isfinite(d->change))
		snprintf(t->change, sizeof(t->change), "%+.3g [%+.3g, %+.3g]%s", d->change,
			 d->ci_lo, d->ci_hi, d->significant ? " *" : "");
	else
		snprintf(t->change, sizeof(t->change), "%s", d->why[0] ? d->why : "-");
}

/* Every sweep: A's slope, B's, the change with a CI and the verdict (METHODOLOGY "Sweeps"). */
static void print_sweeps(FILE *f, const struct tb_comparison *c)
{
	for (size_t i = 0; i < c->nsweeps; i++) {
		struct tb_render_sweep_row t;

		if (!i)
			fprintf(f,
				"\nsweeps: slope ns per unit [CI], A -> B, change [CI], verdict\n");
		tb_render_compare_sweep_text(&t, &c->sweeps[i]);
		fprintf(f, "%s\n  %s -> %s%s%s: %s\n", t.name, t.a, t.b, t.change[0] ? ", " : "",
			t.change, tb_cmp_sweep_dir_name(c->sweeps[i].dir));
	}
}

/* The sweeps as a Markdown table. */
static void markdown_sweeps(FILE *f, const struct tb_comparison *c)
{
	for (size_t i = 0; i < c->nsweeps; i++) {
		struct tb_render_sweep_row t;

		if (!i)
			fprintf(f,
				"\n| sweep | slope A [CI] | slope B [CI] | change [CI] | verdict |\n"
				"|---|---|---|---|---|\n");
		tb_render_compare_sweep_text(&t, &c->sweeps[i]);
		fputs("| ", f);
		tb_fput_markdown(f, t.name);
		fprintf(f, " | %s | %s | ", t.a, t.b);
		tb_fput_markdown(f, t.change);
		fprintf(f, " | %s |\n", tb_cmp_sweep_dir_name(c->sweeps[i].dir));
	}
}

void tb_render_compare_print(FILE *f, const struct tb_comparison *c)
{
	fprintf(f, "compare: %s (A) -> %s (B); CIs at %.0f%%, significance at p < %g\n", c->name_a,
		c->name_b, 100 * (1 - c->alpha), c->alpha);
	if (c->a->partial || c->b->partial)
		fprintf(f, "note: %s is partial (the run stopped early)\n",
			c->a->partial ? c->name_a : c->name_b);
	print_environment(f, c);
	fprintf(f, "\n%-28s %10s %10s %-32s %-8s %s\n", "cell", "ns/op A", "ns/op B",
		"ns/op change % [CI]", "p", "overhead A -> B, change pp [CI]");
	for (size_t i = 0; i < c->nmatched; i++) {
		const struct tb_cmp_row *w = &c->rows[i];
		struct row_text t;
		char note[768], svc[512];

		row_text(&t, w, "%+.1f");
		if (w->ns_significant)
			strcat(t.ns_change, " *");
		fprintf(f, "%-28s %10s %10s %-32s %-8s", w->id, t.ns_a, t.ns_b, t.ns_change, t.p);
		if (w->traced)
			fprintf(f, " %s%% -> %s%%, %s%s", t.ovh_a, t.ovh_b, t.ovh_change,
				w->ovh_significant ? " *" : "");
		else
			fprintf(f, " (baseline)");
		fputc('\n', f);
		if (w->has_svc)
			fprintf(f, "  service: %s\n", svc_text(svc, sizeof(svc), w));
		if (w->caveats)
			fprintf(f, "  ! note: %s\n", tb_cmp_row_note(c, w, note, sizeof(note)));
	}
	if (!c->nmatched)
		fprintf(f, "(no cell in common)\n");
	print_only(f, c, false);
	print_sweeps(f, c);
	fprintf(f, "* significant: the CI excludes 0 (and, for ns/op, Mann-Whitney p < %g)\n",
		c->alpha);
}

static void markdown_environment(FILE *f, const struct tb_comparison *c)
{
	char envs[160];

	if (!tb_compare_env_summary(c, envs, sizeof(envs))) {
		fprintf(f, "Environment: %s.\n\n", envs);
		return;
	}
	fprintf(f, "### Environment: %s\n\n| key | A | B |\n|---|---|---|\n", envs);
	for (size_t i = 0; i < c->ndiffs; i++) {
		if (c->diffs[i].transient)
			continue;
		fprintf(f, "| ");
		tb_fput_markdown(f, c->diffs[i].key);
		fprintf(f, " | ");
		tb_fput_markdown(f, c->diffs[i].a ? c->diffs[i].a : "(absent)");
		fprintf(f, " | ");
		tb_fput_markdown(f, c->diffs[i].b ? c->diffs[i].b : "(absent)");
		fprintf(f, " |\n");
	}
	fputc('\n', f);
}

/* The service rows' throughput and latencies, a list item each. */
static void markdown_services(FILE *f, const struct tb_comparison *c)
{
	bool head = false;

	for (size_t i = 0; i < c->nmatched; i++) {
		const struct tb_cmp_row *w = &c->rows[i];
		char svc[512];

		if (!w->has_svc)
			continue;
		if (!head)
			fprintf(f, "\nServices (medians A -> B, change [CI], verdict):\n\n");
		head = true;
		fprintf(f, "- `");
		tb_fput_markdown(f, w->id);
		fprintf(f, "`: ");
		tb_fput_markdown(f, svc_text(svc, sizeof(svc), w));
		fputc('\n', f);
	}
}

void tb_render_compare_markdown(FILE *f, const struct tb_comparison *c)
{
	fprintf(f, "## tracebench compare: `");
	tb_fput_markdown(f, c->name_a);
	fprintf(f, "` → `");
	tb_fput_markdown(f, c->name_b);
	fprintf(f, "`\n\nCIs at %.0f%%; significance at p < %g.\n\n", 100 * (1 - c->alpha),
		c->alpha);
	markdown_environment(f, c);
	fprintf(f,
		"| cell | ns/op A | ns/op B | change [CI] | p | overhead A | overhead B | overhead change [CI] | note |\n|---|---:|---:|---|---:|---:|---:|---|---|\n");
	for (size_t i = 0; i < c->nmatched; i++) {
		const struct tb_cmp_row *w = &c->rows[i];
		struct row_text t;
		char note[768];

		row_text(&t, w, "%+.1f%%");
		fprintf(f, "| ");
		tb_fput_markdown(f, w->id);
		fprintf(f, " | %s | %s | %s%s | %s |", t.ns_a, t.ns_b, t.ns_change,
			w->ns_significant ? " **\\***" : "", t.p);
		if (w->traced)
			fprintf(f, " %s | %s | %s%s | ", t.ovh_a, t.ovh_b, t.ovh_change,
				w->ovh_significant ? " **\\***" : "");
		else
			fprintf(f, " baseline | | | ");
		if (w->caveats) {
			fputs("⚠️ ", f);
			tb_fput_markdown(f, tb_cmp_row_note(c, w, note, sizeof(note)));
		}
		fprintf(f, " |\n");
	}
	markdown_services(f, c);
	markdown_sweeps(f, c);
	print_only(f, c, true);
	fprintf(f, "\n\\* significant: the CI excludes 0 (ns/op: and Mann-Whitney p < %g).\n",
		c->alpha);
}
