// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench combine`'s table and JSON (combine-formats.h).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/utf8.h"
#include "model/json-util.h"
#include "render/combine-formats.h"

/* What every output says of the set beside its figures: up to 4 sentences into w[]. */
#define WARN_MAX 4
static size_t warnings(const struct tb_combination *c, char w[WARN_MAX][256])
{
	size_t n = 0;
	bool two = false;

	if (c->nclasses > 1)
		snprintf(w[n++], sizeof(w[0]),
			 "the runs ran on %zu hardware classes: a figure over machines answers "
			 "another question (tracebench fleet compares hosts)",
			 c->nclasses);
	if (c->nscenarios > 1)
		snprintf(w[n++], sizeof(w[0]),
			 "the runs come from %zu scenarios: cells are matched by workload, tracer "
			 "and configuration, not by the rest of the protocol",
			 c->nscenarios);
	if (c->nrepeated)
		snprintf(w[n++], sizeof(w[0]),
			 "%zu of the results repeat an earlier one (the same start, end and host): "
			 "one run given twice counts twice and narrows the interval",
			 c->nrepeated);
	for (size_t i = 0; i < c->nrows; i++)
		two |= (c->rows[i].pct.present && c->rows[i].pct.m.k == 2) ||
		       (c->rows[i].ns.present && c->rows[i].ns.m.k == 2);
	if (two)
		snprintf(w[n++], sizeof(w[0]),
			 "two runs leave one degree of freedom: their interval is wide by design; "
			 "five or more runs give a usable one");
	return n;
}

/* One measure's line and what its runs say, indented under the cell. */
static void print_metric(FILE *f, const struct tb_combination *c, const struct tb_comb_metric *x,
			 const char *label, const char *unit, const char *fmt_unit)
{
	const struct tb_meta *m = &x->m;
	char say[256];

	if (!x->present) {
		fprintf(f, "  %-12s %s\n", label, tb_comb_agreement(c, x, unit, say, sizeof(say)));
		return;
	}
	fprintf(f,
		"  %-12s %+.2f%s [%+.2f, %+.2f] over %zu runs (each %+.2f .. %+.2f); "
		"run-to-run sd %.3g %s, Q %.1f (%zu df) p %.2g, I² %.0f%%\n",
		label, m->est, fmt_unit, m->lo, m->hi, m->k, m->min, m->max, m->tau, unit, m->q,
		m->k - 1, m->q_p, 100 * m->i2);
	fprintf(f, "  %-12s %s", "", tb_comb_agreement(c, x, unit, say, sizeof(say)));
	if (x->nunusable)
		fprintf(f, " (%zu run%s without an interval left out)", x->nunusable,
			x->nunusable == 1 ? "" : "s");
	fputc('\n', f);
}

void tb_render_combine_print(FILE *f, const struct tb_combination *c)
{
	char w[WARN_MAX][256], name[512];
	size_t nw = warnings(c, w);

	fprintf(f,
		"combine: %zu runs, intervals at %.0f%% (random effects: DerSimonian-Laird, "
		"Hartung-Knapp on t):",
		c->nres, 100 * (1 - c->alpha));
	for (size_t i = 0; i < c->nres; i++) {
		/* a file name is the user's, but a terminal must not take it for a command */
		tb_escape_controls_buf(c->names[i], false, name, sizeof(name));
		fprintf(f, "%s %s", i ? "," : "", name);
	}
	fputc('\n', f);
	for (size_t i = 0; i < nw; i++)
		fprintf(f, "! %s\n", w[i]);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct tb_comb_row *r = &c->rows[i];

		fprintf(f, "\n%s: in %zu of %zu runs", r->id, r->nruns, c->nres);
		if (r->nfailed)
			fprintf(f, "; failed or not analysed in %zu", r->nfailed);
		if (r->nuntrusted)
			fprintf(f, "; %zu untrustworthy", r->nuntrusted);
		if (r->nfaster)
			fprintf(f, "; %zu faster than their baseline (suspect the setup)",
				r->nfaster);
		if (r->nduplicates)
			fprintf(f,
				"; %zu further cell%s of the same configuration in one file left out",
				r->nduplicates, r->nduplicates == 1 ? "" : "s");
		fputc('\n', f);
		print_metric(f, c, &r->pct, "overhead", "pt", "%");
		print_metric(f, c, &r->ns, "ns/op added", "ns", " ns");
	}
	if (!c->nrows)
		fprintf(f, "\n(no traced cell in these results)\n");
}

/* One measure of row w: its runs' entries and, when combined, the combination. */
static json_t *metric_json(const struct tb_combination *c, const struct tb_comb_metric *x,
			   const char *unit)
{
	const struct tb_meta *m = &x->m;
	char say[256];

	tb_comb_agreement(c, x, unit, say, sizeof(say));
	if (!x->present)
		return json_pack("{s:b, s:s, s:I}", "present", 0, "agreement", say, "unusable_runs",
				 (json_int_t)x->nunusable);
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:s, "
			 "s:o}",
			 "present", 1, "estimate", tb_json_num(m->est), "se", tb_json_num(m->se),
			 "ci", tb_json_pair(m->lo, m->hi), "fixed_effect", tb_json_num(m->fixed),
			 "fixed_effect_se", tb_json_num(m->fixed_se), "q", tb_json_num(m->q), "q_p",
			 tb_json_num(m->q_p), "df", (json_int_t)(m->k - 1), "i2",
			 tb_json_num(m->i2), "tau", tb_json_num(m->tau), "range",
			 tb_json_pair(m->min, m->max), "runs", json_integer((json_int_t)m->k),
			 "agreement", say, "unusable_runs", json_integer((json_int_t)x->nunusable));
}

static json_t *row_json(const struct tb_combination *c, const struct tb_comb_row *w)
{
	json_t *runs = json_array();

	for (size_t i = 0; runs && i < w->nruns; i++)
		if (json_array_append_new(runs,
					  json_pack("{s:o, s:o, s:o, s:o, s:o}", "file",
						    tb_json_text(c->names[w->run[i]]),
						    "overhead_pct", tb_json_num(w->pct.y[i]),
						    "overhead_se", tb_json_num(w->pct.se[i]),
						    "ns_per_op", tb_json_num(w->ns.y[i]),
						    "ns_per_op_se", tb_json_num(w->ns.se[i])))) {
			json_decref(runs);
			runs = NULL;
		}
	if (!runs)
		return NULL;
	return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}", "id", tb_json_text(w->id),
			 "runs", (json_int_t)w->nruns, "failed", (json_int_t)w->nfailed,
			 "untrustworthy", (json_int_t)w->nuntrusted, "faster_than_baseline",
			 (json_int_t)w->nfaster, "duplicates", (json_int_t)w->nduplicates,
			 "per_run", runs, "overhead_pct", metric_json(c, &w->pct, "pt"),
			 "ns_per_op", metric_json(c, &w->ns, "ns"));
}

json_t *tb_render_combine_json(const struct tb_combination *c)
{
	json_t *cells = json_array(), *files = json_array(), *warns = json_array();
	char w[WARN_MAX][256];
	size_t nw = warnings(c, w);

	for (size_t i = 0; cells && i < c->nrows; i++)
		if (json_array_append_new(cells, row_json(c, &c->rows[i])))
			goto fail;
	for (size_t i = 0; files && i < c->nres; i++)
		if (json_array_append_new(files, tb_json_text(c->names[i])))
			goto fail;
	for (size_t i = 0; warns && i < nw; i++)
		if (json_array_append_new(warns, json_string(w[i])))
			goto fail;
	if (!cells || !files || !warns)
		goto fail;
	return json_pack("{s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "alpha", tb_json_num(c->alpha),
			 "files", files, "method",
			 json_string("random effects: DerSimonian-Laird tau, Hartung-Knapp-Sidik-"
				     "Jonkman interval on t (factor at least 1)"),
			 "hardware_classes", (json_int_t)c->nclasses, "scenarios",
			 (json_int_t)c->nscenarios, "repeated_runs", (json_int_t)c->nrepeated,
			 "warnings", warns, "cells", cells);
fail:
	json_decref(cells);
	json_decref(files);
	json_decref(warns);
	return NULL;
}

/* One measure of a change: "A +25.10 [+22.0, +28.2] -> B +30.20 [...]: +5.10 [+1.0, +9.2] *". */
static void print_change(FILE *f, const char *label, bool has, const struct tb_comb_metric *a,
			 const struct tb_comb_metric *b, const struct tb_meta_diff *d,
			 const char *unit)
{
	if (!has) {
		fprintf(f, "  %-12s not combined on both sides\n", label);
		return;
	}
	fprintf(f,
		"  %-12s A %+.2f [%+.2f, %+.2f] -> B %+.2f [%+.2f, %+.2f]: change %+.2f %s "
		"[%+.2f, %+.2f], p %.2g%s\n",
		label, a->m.est, a->m.lo, a->m.hi, b->m.est, b->m.lo, b->m.hi, d->diff, unit, d->lo,
		d->hi, d->p, d->significant ? " *" : "");
}

/* What the changes section says beside its figures: up to 2 sentences into w[]. */
static size_t change_warnings(const struct tb_combination *a, const struct tb_combination *b,
			      char w[WARN_MAX][256])
{
	size_t n = 0, shared = tb_combine_shared(a, b);

	if (strcmp(a->hw[0].hash, b->hw[0].hash))
		snprintf(w[n++], sizeof(w[0]),
			 "A and B ran on different hardware: a change may come from it");
	if (shared)
		snprintf(
			w[n++], sizeof(w[0]),
			"%zu of B's results repeat one of A's (the same start, end and host): a run "
			"in both groups",
			shared);
	return n;
}

/* Cells in one group only, as compare lists them: "only in A: id, id". */
static void print_only(FILE *f, const struct tb_comb_change *ch, size_t n, bool in_a)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct tb_comb_row *r = in_a ? ch[i].a : ch[i].b;

		if (!r || (in_a ? ch[i].b : ch[i].a))
			continue;
		fprintf(f, "%s%s", k++ ? ", " : in_a ? "only in A: " : "only in B: ", r->id);
	}
	if (k)
		fputc('\n', f);
}

void tb_render_combine_changes_print(FILE *f, const struct tb_combination *a,
				     const struct tb_combination *b,
				     const struct tb_comb_change *ch, size_t n)
{
	char w[WARN_MAX][256];
	size_t nw = change_warnings(a, b, w), both = 0;
	bool any = false;

	fprintf(f, "== A\n");
	tb_render_combine_print(f, a);
	fprintf(f, "\n== B\n");
	tb_render_combine_print(f, b);
	fprintf(f, "\n== B against A (each side's combined figure; the change's interval on t with "
		   "the Welch-Satterthwaite degrees of freedom)\n");
	for (size_t i = 0; i < nw; i++)
		fprintf(f, "! %s\n", w[i]);
	for (size_t i = 0; i < n; i++) {
		if (!ch[i].a || !ch[i].b)
			continue;
		both++;
		any |= (ch[i].has_pct && ch[i].pct.significant) ||
		       (ch[i].has_ns && ch[i].ns.significant);
		fprintf(f, "%s: %zu runs in A, %zu in B\n", ch[i].a->id, ch[i].a->nruns,
			ch[i].b->nruns);
		print_change(f, "overhead", ch[i].has_pct, &ch[i].a->pct, &ch[i].b->pct, &ch[i].pct,
			     "pt");
		print_change(f, "ns/op added", ch[i].has_ns, &ch[i].a->ns, &ch[i].b->ns, &ch[i].ns,
			     "ns");
	}
	if (!both)
		fprintf(f, "(no traced cell in both groups)\n");
	print_only(f, ch, n, true);
	print_only(f, ch, n, false);
	if (any)
		fprintf(f, "* significant: the change's interval excludes 0\n");
}

static json_t *diff_json(bool has, const struct tb_meta_diff *d)
{
	if (!has)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:b}", "diff", tb_json_num(d->diff), "ci",
			 tb_json_pair(d->lo, d->hi), "df", tb_json_num(d->df), "p",
			 tb_json_num(d->p), "significant", d->significant);
}

json_t *tb_render_combine_changes_json(const struct tb_combination *a,
				       const struct tb_combination *b,
				       const struct tb_comb_change *ch, size_t n)
{
	json_t *changes = json_array(), *only_a = json_array(), *only_b = json_array(),
	       *warns = json_array();
	char w[WARN_MAX][256];
	size_t nw = change_warnings(a, b, w);

	for (size_t i = 0; changes && only_a && only_b && i < n; i++) {
		int bad;

		if (!ch[i].b)
			bad = json_array_append_new(only_a, tb_json_text(ch[i].a->id));
		else if (!ch[i].a)
			bad = json_array_append_new(only_b, tb_json_text(ch[i].b->id));
		else
			bad = json_array_append_new(
				changes,
				json_pack("{s:o, s:o, s:o}", "id", tb_json_text(ch[i].a->id),
					  "overhead_pct", diff_json(ch[i].has_pct, &ch[i].pct),
					  "ns_per_op", diff_json(ch[i].has_ns, &ch[i].ns)));
		if (bad)
			goto fail;
	}
	for (size_t i = 0; warns && i < nw; i++)
		if (json_array_append_new(warns, json_string(w[i])))
			goto fail;
	if (!changes || !only_a || !only_b || !warns)
		goto fail;
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "a", tb_render_combine_json(a), "b",
			 tb_render_combine_json(b), "warnings", warns, "changes", changes,
			 "only_in_a", only_a, "only_in_b", only_b);
fail:
	json_decref(changes);
	json_decref(only_a);
	json_decref(only_b);
	json_decref(warns);
	return NULL;
}
