// SPDX-License-Identifier: GPL-2.0
/*
 * Comparison of two results: environment differences, cells matched by identity, and the change
 * of each matched cell's ns/op and overhead with its CI (compare.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "result/result.h"
#include "stats/stats.h"
#include "core/tb.h"

/* ---- environment diff ------------------------------------------------------------------------ */

/* Leaves of `system` that describe the hardware (sysinfo's names): refused when they differ
 * under --require-same-host. Everything else (kernel, governor, SMT, versions) may differ. */
static const char *const hardware_keys[] = {
	"cpu.model",	"cpu.vendor",  "cpu.family",   "cpu.model_number",
	"cpu.stepping", "cpu.present", "cpu.possible", "topology.",
};

/* Leaves that differ between any two runs (time of capture, load): kept in --json, not shown. */
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

static bool is_hardware(const char *key)
{
	return key_in(key, hardware_keys, TB_ARRAY_SIZE(hardware_keys));
}

/* Collect the leaves (non-objects) of v into out as path -> value (borrowed). */
static int flatten(json_t *v, const char *path, json_t *out)
{
	const char *k;
	json_t *x;

	if (!json_is_object(v))
		return json_object_set(out, *path ? path : "(system)", v) ? -ENOMEM : 0;
	json_object_foreach(v, k, x)
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
	return json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
}

static int cmp_diff(const void *x, const void *y)
{
	return strcmp(((const struct tb_fp_diff *)x)->key, ((const struct tb_fp_diff *)y)->key);
}

static int diff_systems(struct tb_comparison *c)
{
	json_t *fa = json_object(), *fb = json_object(), *v;
	const char *k;
	int ret = -ENOMEM;

	c->same_hardware = true;
	if (!fa || !fb)
		goto out;
	if ((c->a->system && flatten(c->a->system, "", fa)) ||
	    (c->b->system && flatten(c->b->system, "", fb)))
		goto out;
	/* Keys of a, then keys only in b: each differing leaf once. */
	for (int side = 0; side < 2; side++) {
		json_object_foreach(side ? fb : fa, k, v)
		{
			json_t *va = json_object_get(fa, k), *vb = json_object_get(fb, k);
			struct tb_fp_diff *d, *grown;

			if ((side && va) || (va && vb && json_equal(va, vb)))
				continue;
			grown = realloc(c->diffs, (c->ndiffs + 1) * sizeof(*c->diffs));
			if (!grown)
				goto out;
			c->diffs = grown;
			d = &c->diffs[c->ndiffs++];
			d->key = strdup(k);
			d->a = leaf_text(va);
			d->b = leaf_text(vb);
			d->hardware = is_hardware(k);
			d->transient = key_in(k, transient_keys, TB_ARRAY_SIZE(transient_keys));
			c->ntransient += d->transient;
			if (!d->key || (va && !d->a) || (vb && !d->b))
				goto out;
			if (d->hardware)
				c->same_hardware = false;
		}
	}
	if (c->ndiffs)
		qsort(c->diffs, c->ndiffs, sizeof(*c->diffs), cmp_diff);
	ret = 0;
out:
	json_decref(fa);
	json_decref(fb);
	return ret;
}

/* ---- cell matching --------------------------------------------------------------------------- */

char *tb_cell_key(const struct tb_cell *c)
{
	json_t *cfg = json_pack("{s:O?, s:O?}", "workload", c->workload_config, "tracer",
				c->tracer_config);
	char *dump, *key = NULL;

	if (!cfg)
		return NULL;
	dump = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(cfg);
	if (dump && asprintf(&key, "%s\t%s\t%s", c->workload ? c->workload : "",
			     c->tracer ? c->tracer : "", dump) < 0)
		key = NULL;
	free(dump);
	return key;
}

static bool same_names(const struct tb_cell *x, const struct tb_cell *y)
{
	return x->workload && y->workload && x->tracer && y->tracer &&
	       !strcmp(x->workload, y->workload) && !strcmp(x->tracer, y->tracer);
}

static void row_init(struct tb_cmp_row *w)
{
	memset(w, 0, sizeof(*w));
	w->ns_a = w->ns_b = w->ns_pct = w->ns_ci_lo = w->ns_ci_hi = w->p = NAN;
	w->ovh_a = w->ovh_b = w->ovh_change = w->ovh_ci_lo = w->ovh_ci_hi = NAN;
}

static int fill_row(struct tb_comparison *c, struct tb_cmp_row *w, size_t idx)
{
	const struct tb_result *ra = c->a, *rb = c->b;
	const struct tb_cell *a = w->a, *b = w->b;
	double *va = NULL, *vb = NULL, pci[2], nci[2];
	struct tb_cellpair pa = {0}, pb = {0};
	uint64_t seed = tb_stats_seed(ra->seed ^ rb->seed, 1000003 + idx);
	unsigned int resamples = ra->resamples ? ra->resamples : 10000;
	size_t na, nb;
	int ret = -ENOMEM;

	w->ns_a = a->summary.median;
	w->ns_b = b->summary.median;
	w->verdict_a = a->overhead.verdict;
	w->verdict_b = b->overhead.verdict;
	if (tb_stats_measured(a, &va, &na) || tb_stats_measured(b, &vb, &nb))
		goto out;
	if (na && nb && w->ns_a > 0)
		w->ns_pct = 100 * (w->ns_b / w->ns_a - 1);
	if (na >= 2 && nb >= 2) {
		w->p = tb_stats_mannwhitney(va, na, vb, nb, NULL);
		if (tb_stats_bootstrap(va, na, vb, nb, false, resamples, 1 - c->alpha, seed, pci,
				       nci) == -ENOMEM)
			goto out;
		w->ns_ci_lo = pci[0];
		w->ns_ci_hi = pci[1];
		w->ns_significant = w->p < c->alpha && (pci[0] > 0 || pci[1] < 0);
	}
	w->traced = !a->baseline && !b->baseline;
	if (w->traced) {
		const struct tb_cell *ba = tb_result_baseline(ra, a),
				     *bb = tb_result_baseline(rb, b);

		w->ovh_a = a->overhead.pct;
		w->ovh_b = b->overhead.pct;
		if (isfinite(w->ovh_a) && isfinite(w->ovh_b))
			w->ovh_change = w->ovh_b - w->ovh_a;
		if (ba && bb) {
			if (tb_stats_cellpair(ba, a, &pa) || tb_stats_cellpair(bb, b, &pb))
				goto out;
			ret = tb_stats_bootstrap_pct_change(&pa, &pb, resamples, 1 - c->alpha,
							    seed + 1, pci);
			if (ret == -ENOMEM)
				goto out;
			w->ovh_ci_lo = pci[0];
			w->ovh_ci_hi = pci[1];
			w->ovh_significant = pci[0] > 0 || pci[1] < 0;
		}
	}
	ret = 0;
out:
	tb_stats_cellpair_free(&pa);
	tb_stats_cellpair_free(&pb);
	free(va);
	free(vb);
	return ret;
}

void tb_compare_free(struct tb_comparison *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ndiffs; i++) {
		free(c->diffs[i].key);
		free(c->diffs[i].a);
		free(c->diffs[i].b);
	}
	free(c->diffs);
	free(c->rows);
	free(c);
}

int tb_compare_build(struct tb_result *a, struct tb_result *b, const char *name_a,
		     const char *name_b, double alpha, struct tb_comparison **out)
{
	struct tb_comparison *c = calloc(1, sizeof(*c));
	char **ka = NULL, **kb = NULL;
	bool *used = NULL;
	int ret = -ENOMEM;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->a = a;
	c->b = b;
	c->name_a = name_a;
	c->name_b = name_b;
	c->alpha = alpha > 0 && alpha < 1 ? alpha : a->alpha;
	if ((ret = tb_stats_analyze(a)) || (ret = tb_stats_analyze(b)))
		goto out;
	ret = -ENOMEM;
	if (diff_systems(c))
		goto out;
	ka = calloc(a->ncells + 1, sizeof(*ka));
	kb = calloc(b->ncells + 1, sizeof(*kb));
	used = calloc(b->ncells + 1, sizeof(*used));
	c->rows = calloc(a->ncells + b->ncells + 1, sizeof(*c->rows));
	if (!ka || !kb || !used || !c->rows)
		goto out;
	for (size_t i = 0; i < a->ncells; i++)
		if (!(ka[i] = tb_cell_key(&a->cells[i])))
			goto out;
	for (size_t j = 0; j < b->ncells; j++)
		if (!(kb[j] = tb_cell_key(&b->cells[j])))
			goto out;
	/* Matched rows first, in A's order. */
	for (size_t i = 0; i < a->ncells; i++) {
		for (size_t j = 0; j < b->ncells; j++) {
			struct tb_cmp_row *w;

			if (used[j] || strcmp(ka[i], kb[j]))
				continue;
			used[j] = true;
			w = &c->rows[c->nrows++];
			row_init(w);
			w->a = &a->cells[i];
			w->b = &b->cells[j];
			w->id = w->a->id;
			if (fill_row(c, w, i))
				goto out;
			break;
		}
	}
	c->nmatched = c->nrows;
	for (size_t i = 0; i < a->ncells; i++) {
		bool matched = false;

		for (size_t k = 0; k < c->nmatched && !matched; k++)
			matched = c->rows[k].a == &a->cells[i];
		if (matched)
			continue;
		struct tb_cmp_row *w = &c->rows[c->nrows++];

		row_init(w);
		w->a = &a->cells[i];
		w->id = w->a->id;
		for (size_t j = 0; j < b->ncells; j++)
			if (same_names(w->a, &b->cells[j]))
				w->config_differs = true;
	}
	for (size_t j = 0; j < b->ncells; j++) {
		if (used[j])
			continue;
		struct tb_cmp_row *w = &c->rows[c->nrows++];

		row_init(w);
		w->b = &b->cells[j];
		w->id = w->b->id;
		for (size_t i = 0; i < a->ncells; i++)
			if (same_names(w->b, &a->cells[i]))
				w->config_differs = true;
	}
	ret = 0;
out:
	for (size_t i = 0; ka && i < a->ncells; i++)
		free(ka[i]);
	for (size_t j = 0; kb && j < b->ncells; j++)
		free(kb[j]);
	free(ka);
	free(kb);
	free(used);
	if (ret)
		tb_compare_free(c);
	else
		*out = c;
	return ret;
}

const struct tb_cmp_row *tb_compare_find(const struct tb_comparison *c, const struct tb_cell *b)
{
	for (size_t i = 0; i < c->nmatched; i++)
		if (c->rows[i].b == b)
			return &c->rows[i];
	return NULL;
}

/* ---- outputs --------------------------------------------------------------------------------- */

static json_t *jnum(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

static json_t *jpair(double a, double b)
{
	return json_pack("[o,o]", jnum(a), jnum(b));
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *tb_compare_to_json(const struct tb_comparison *c)
{
	json_t *doc, *env = json_array(), *cells = json_array(), *only_a = json_array(),
		     *only_b = json_array();
	bool bad = !env || !cells || !only_a || !only_b;

	for (size_t i = 0; !bad && i < c->ndiffs; i++) {
		const struct tb_fp_diff *d = &c->diffs[i];

		bad = json_array_append_new(env, json_pack("{s:s, s:o, s:o, s:b, s:b}", "key",
							   d->key, "a", jstr_or_null(d->a), "b",
							   jstr_or_null(d->b), "hardware",
							   d->hardware, "transient", d->transient));
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
			      w->a->baseline, "ns_per_op_a", jnum(w->ns_a), "ns_per_op_b",
			      jnum(w->ns_b), "ns_per_op_change_pct", jnum(w->ns_pct),
			      "ns_per_op_change_ci", jpair(w->ns_ci_lo, w->ns_ci_hi),
			      "p_mannwhitney", jnum(w->p), "significant", w->ns_significant);
		if (o && w->traced) {
			json_t *ov = json_pack(
				"{s:o, s:o, s:o, s:o, s:b, s:s, s:s}", "a", jnum(w->ovh_a), "b",
				jnum(w->ovh_b), "change_pp", jnum(w->ovh_change), "change_ci",
				jpair(w->ovh_ci_lo, w->ovh_ci_hi), "significant",
				w->ovh_significant, "verdict_a", tb_verdict_name(w->verdict_a),
				"verdict_b", tb_verdict_name(w->verdict_b));

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
	doc = json_pack("{s:s, s:s, s:b, s:b, s:f, s:f, s:b, s:o, s:o, s:o, s:o}", "a", c->name_a,
			"b", c->name_b, "a_partial", c->a->partial, "b_partial", c->b->partial,
			"alpha", c->alpha, "confidence", 1 - c->alpha, "same_hardware",
			c->same_hardware, "environment_differences", env, "cells", cells,
			"only_in_a", only_a, "only_in_b", only_b);
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

static const char *fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* Long values (command lines, lists) are cut for the table; --json has them whole. */
static const char *shorten(char *buf, size_t len, const char *s)
{
	if (!s)
		return "(absent)";
	if (strlen(s) < len)
		return s;
	snprintf(buf, len, "%.*s...", (int)len - 4, s);
	return buf;
}

void tb_compare_print(FILE *f, const struct tb_comparison *c)
{
	char b1[64], b2[64], b3[64], b4[64], b5[64], b6[64];

	fprintf(f, "compare: %s (A) -> %s (B); CIs at %.0f%%, significance at p < %g\n", c->name_a,
		c->name_b, 100 * (1 - c->alpha), c->alpha);
	if (c->a->partial || c->b->partial)
		fprintf(f, "note: %s is partial (the run stopped early)\n",
			c->a->partial ? c->name_a : c->name_b);
	if (c->ndiffs == c->ntransient) {
		fprintf(f, "environment: identical systems\n");
	} else {
		size_t n = c->ndiffs - c->ntransient;

		fprintf(f, "environment: %zu difference%s%s\n", n, n > 1 ? "s" : "",
			c->same_hardware ? "" : " (DIFFERENT HARDWARE)");
		for (size_t i = 0; i < c->ndiffs; i++) {
			const struct tb_fp_diff *d = &c->diffs[i];

			if (d->transient)
				continue;
			fprintf(f, "  %-32s %s -> %s%s\n", d->key, shorten(b1, 48, d->a),
				shorten(b2, 48, d->b), d->hardware ? "  [hardware]" : "");
		}
	}
	fprintf(f, "\n%-28s %10s %10s %-32s %-8s %s\n", "cell", "ns/op A", "ns/op B",
		"ns/op change % [CI]", "p", "overhead A -> B, change pp [CI]");
	for (size_t i = 0; i < c->nmatched; i++) {
		const struct tb_cmp_row *w = &c->rows[i];

		fmt_change(b3, sizeof(b3) - 2, w->ns_pct, w->ns_ci_lo, w->ns_ci_hi, "%");
		if (w->ns_significant)
			strcat(b3, " *");
		fprintf(f, "%-28s %10s %10s %-32s %-8s", w->id,
			fmt_num(b1, sizeof(b1), w->ns_a, "%.1f"),
			fmt_num(b2, sizeof(b2), w->ns_b, "%.1f"), b3,
			fmt_num(b4, sizeof(b4), w->p, "%.2g"));
		if (w->traced)
			fprintf(f, " %s%% -> %s%%, %s%s",
				fmt_num(b5, sizeof(b5), w->ovh_a, "%+.1f"),
				fmt_num(b6, sizeof(b6), w->ovh_b, "%+.1f"),
				fmt_change(b3, sizeof(b3), w->ovh_change, w->ovh_ci_lo,
					   w->ovh_ci_hi, "pp"),
				w->ovh_significant ? " *" : "");
		else
			fprintf(f, " (baseline)");
		fputc('\n', f);
	}
	if (!c->nmatched)
		fprintf(f, "(no cell in common)\n");
	for (int side = 0; side < 2; side++) {
		bool first = true;

		for (size_t i = c->nmatched; i < c->nrows; i++) {
			const struct tb_cmp_row *w = &c->rows[i];

			if (side ? !!w->a : !w->a)
				continue;
			fprintf(f, "%s%s%s", first ? (side ? "only in B: " : "only in A: ") : ", ",
				w->id, w->config_differs ? " (config differs)" : "");
			first = false;
		}
		if (!first)
			fputc('\n', f);
	}
	fprintf(f, "* significant: the CI excludes 0 (and, for ns/op, Mann-Whitney p < %g)\n",
		c->alpha);
}

/* Markdown table cells must not contain '|' or newlines. */
static void md_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

void tb_compare_markdown(FILE *f, const struct tb_comparison *c)
{
	char b1[64], b2[64], b3[64], b4[64];

	fprintf(f, "## tracebench compare: `");
	md_text(f, c->name_a);
	fprintf(f, "` → `");
	md_text(f, c->name_b);
	fprintf(f, "`\n\nCIs at %.0f%%; significance at p < %g.\n\n", 100 * (1 - c->alpha),
		c->alpha);
	if (c->ndiffs > c->ntransient) {
		fprintf(f, "### Environment differences%s\n\n| key | A | B |\n|---|---|---|\n",
			c->same_hardware ? "" : " (different hardware)");
		for (size_t i = 0; i < c->ndiffs; i++) {
			if (c->diffs[i].transient)
				continue;
			fprintf(f, "| ");
			md_text(f, c->diffs[i].key);
			fprintf(f, " | ");
			md_text(f, c->diffs[i].a ? c->diffs[i].a : "(absent)");
			fprintf(f, " | ");
			md_text(f, c->diffs[i].b ? c->diffs[i].b : "(absent)");
			fprintf(f, " |\n");
		}
		fputc('\n', f);
	} else {
		fprintf(f, "Identical systems.\n\n");
	}
	fprintf(f,
		"| cell | ns/op A | ns/op B | change [CI] | p | overhead A | overhead B | overhead change [CI] |\n|---|---:|---:|---|---:|---:|---:|---|\n");
	for (size_t i = 0; i < c->nmatched; i++) {
		const struct tb_cmp_row *w = &c->rows[i];

		fprintf(f, "| ");
		md_text(f, w->id);
		fprintf(f, " | %s | %s | %s%s | %s |", fmt_num(b1, sizeof(b1), w->ns_a, "%.1f"),
			fmt_num(b2, sizeof(b2), w->ns_b, "%.1f"),
			fmt_change(b3, sizeof(b3), w->ns_pct, w->ns_ci_lo, w->ns_ci_hi, "%"),
			w->ns_significant ? " **\\***" : "", fmt_num(b4, sizeof(b4), w->p, "%.2g"));
		if (w->traced)
			fprintf(f, " %s | %s | %s%s |\n",
				fmt_num(b1, sizeof(b1), w->ovh_a, "%+.1f%%"),
				fmt_num(b2, sizeof(b2), w->ovh_b, "%+.1f%%"),
				fmt_change(b3, sizeof(b3), w->ovh_change, w->ovh_ci_lo,
					   w->ovh_ci_hi, "pp"),
				w->ovh_significant ? " **\\***" : "");
		else
			fprintf(f, " baseline | | |\n");
	}
	for (int side = 0; side < 2; side++) {
		bool first = true;

		for (size_t i = c->nmatched; i < c->nrows; i++) {
			const struct tb_cmp_row *w = &c->rows[i];

			if (side ? !!w->a : !w->a)
				continue;
			fprintf(f, "%s`",
				first ? (side ? "\nOnly in B: " : "\nOnly in A: ") : ", ");
			md_text(f, w->id);
			fprintf(f, "`%s", w->config_differs ? " (config differs)" : "");
			first = false;
		}
		if (!first)
			fputc('\n', f);
	}
	fprintf(f, "\n\\* significant: the CI excludes 0 (ns/op: and Mann-Whitney p < %g).\n",
		c->alpha);
}
