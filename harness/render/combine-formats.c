// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench combine`'s table and JSON (combine-formats.h).
 */
#include <math.h>
#include <stdio.h>

#include "model/json-util.h"
#include "render/combine-formats.h"

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
	fprintf(f, "  %-12s %s\n", "", tb_comb_agreement(c, x, unit, say, sizeof(say)));
}

void tb_render_combine_print(FILE *f, const struct tb_combination *c)
{
	fprintf(f,
		"combine: %zu runs, intervals at %.0f%% (random effects: DerSimonian-Laird, "
		"Hartung-Knapp on t):",
		c->nres, 100 * (1 - c->alpha));
	for (size_t i = 0; i < c->nres; i++)
		fprintf(f, "%s %s", i ? "," : "", c->names[i]);
	fputc('\n', f);
	if (c->nclasses > 1)
		fprintf(f,
			"! the runs ran on %zu hardware classes: a figure over machines answers "
			"another question (tracebench fleet compares hosts)\n",
			c->nclasses);
	if (c->nscenarios > 1)
		fprintf(f,
			"! the runs come from %zu scenarios: cells are matched by workload, "
			"tracer and configuration, not by the rest of the protocol\n",
			c->nscenarios);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct tb_comb_row *w = &c->rows[i];

		fprintf(f, "\n%s: in %zu of %zu runs", w->id, w->nruns, c->nres);
		if (w->nfailed)
			fprintf(f, "; failed or not analysed in %zu", w->nfailed);
		if (w->nuntrusted)
			fprintf(f, "; %zu untrustworthy (their wide intervals weigh little)",
				w->nuntrusted);
		fputc('\n', f);
		print_metric(f, c, &w->pct, "overhead", "pt", "%");
		print_metric(f, c, &w->ns, "ns/op added", "ns", " ns");
	}
	if (!c->nrows)
		fprintf(f, "\n(no traced cell in these results)\n");
	else if (c->nres == 2)
		fprintf(f,
			"\nTwo runs leave one degree of freedom: the interval is wide by design; "
			"five or more runs give a usable one.\n");
}

/* One measure of row w: its runs' entries and, when combined, the combination. */
static json_t *metric_json(const struct tb_combination *c, const struct tb_comb_metric *x,
			   const char *unit)
{
	const struct tb_meta *m = &x->m;
	char say[256];

	tb_comb_agreement(c, x, unit, say, sizeof(say));
	if (!x->present)
		return json_pack("{s:b, s:s}", "present", 0, "agreement", say);
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:s}",
			 "present", 1, "estimate", tb_json_num(m->est), "ci",
			 tb_json_pair(m->lo, m->hi), "fixed_effect", tb_json_num(m->fixed),
			 "fixed_effect_se", tb_json_num(m->fixed_se), "q", tb_json_num(m->q), "q_p",
			 tb_json_num(m->q_p), "df", (json_int_t)(m->k - 1), "i2",
			 tb_json_num(m->i2), "tau", tb_json_num(m->tau), "range",
			 tb_json_pair(m->min, m->max), "runs", json_integer((json_int_t)m->k),
			 "agreement", say);
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
	return json_pack("{s:o, s:I, s:I, s:I, s:o, s:o, s:o}", "id", tb_json_text(w->id), "runs",
			 (json_int_t)w->nruns, "failed", (json_int_t)w->nfailed, "untrustworthy",
			 (json_int_t)w->nuntrusted, "per_run", runs, "overhead_pct",
			 metric_json(c, &w->pct, "pt"), "ns_per_op", metric_json(c, &w->ns, "ns"));
}

json_t *tb_render_combine_json(const struct tb_combination *c)
{
	json_t *cells = json_array(), *files = json_array();

	for (size_t i = 0; cells && i < c->nrows; i++)
		if (json_array_append_new(cells, row_json(c, &c->rows[i])))
			goto fail;
	for (size_t i = 0; files && i < c->nres; i++)
		if (json_array_append_new(files, tb_json_text(c->names[i])))
			goto fail;
	if (!cells || !files)
		goto fail;
	return json_pack("{s:o, s:o, s:o, s:I, s:I, s:o}", "alpha", tb_json_num(c->alpha), "files",
			 files, "method",
			 json_string("random effects: DerSimonian-Laird tau, Hartung-Knapp-Sidik-"
				     "Jonkman interval on t (factor at least 1)"),
			 "hardware_classes", (json_int_t)c->nclasses, "scenarios",
			 (json_int_t)c->nscenarios, "cells", cells);
fail:
	json_decref(cells);
	json_decref(files);
	return NULL;
}
