// SPDX-License-Identifier: GPL-2.0
/* The terminal summary (summary.h). */
#include <math.h>
#include <stdio.h>

#include <stdlib.h>

#include "outputs/summary.h"
#include "outputs/text.h"
#include "result/measured.h"
#include "result/result.h"

static void print_models(FILE *f, const struct tb_result *r)
{
	size_t i;

	if (r->aa && r->aa_summary.present)
		fprintf(f,
			"\nA/A calibration: %zu of %zu baseline-vs-baseline cells called "
			"\"overhead\" (false-positive rate %.0f%%); noise floor +-%.2f%% (largest "
			"CI half-width), largest |difference| %.2f%%\n",
			r->aa_summary.false_positives, r->aa_summary.ncells,
			100 * r->aa_summary.fp_rate, r->aa_summary.noise_floor_pct,
			r->aa_summary.max_abs_pct);
	for (i = 0; i < r->nrate_models; i++) {
		const struct tb_rate_model *m = &r->rate_models[i];

		if (!isfinite(m->cost_ns))
			continue; /* no fit (said when the statistics ran) */

		fprintf(f,
			"\nrate model %s on %s (%zu points): overhead ns/op = %.1f [%.1f, %.1f] + %.1f [%.1f, %.1f] ns x events/op, R^2 %.3f%s\n",
			m->tracer, m->workload_type, m->npoints, m->fixed_ns, m->fixed_ci_lo,
			m->fixed_ci_hi, m->cost_ns, m->cost_ci_lo, m->cost_ci_hi, m->r2,
			m->nonlinear ? "; NOT linear (buffer saturation?)" : "");
	}
}

/*
 * The tracers ranked by what one event costs (the rate model's figure where a sweep fitted
 * one), so that probe types compare at a glance; when there are two or more to rank.
 */
static void print_ranking(FILE *f, const struct tb_result *r)
{
	struct tb_event_cost *e = calloc(r->ncells + 1, sizeof(*e));
	size_t n = e ? tb_result_event_costs(r, e, r->ncells) : 0, i;
	char ns[64], from[64];

	if (n >= 2) {
		fprintf(f, "\nns/event, cheapest first (rate model where a sweep fitted one):\n");
		fprintf(f, "  %-18s %-12s %-32s %26s  %s\n", "tracer", "workload", "probe",
			"ns/event [95% CI]", "from");
	}
	for (i = 0; n >= 2 && i < n; i++) {
		if (isfinite(e[i].ns))
			snprintf(ns, sizeof(ns), "%.1f [%.1f, %.1f]", e[i].ns, e[i].lo, e[i].hi);
		else
			snprintf(ns, sizeof(ns), "-");
		if (e[i].npoints)
			snprintf(from, sizeof(from), "rate model, %zu points", e[i].npoints);
		else
			snprintf(from, sizeof(from), "%s", e[i].cell->id);
		fprintf(f, "  %-18.18s %-12.12s %-32.32s %26s  %s\n", e[i].cell->tracer,
			e[i].cell->workload_type, e[i].probe, ns, from);
	}
	free(e);
}

void tb_summary_print(FILE *f, const struct tb_result *r)
{
	size_t i;

	fprintf(f, "\n%-16s %-18s %11s %11s %24s %22s %11s %8s  %s\n", "workload", "tracer",
		"base ns/op", "ns/op", "overhead % [CI]", "ns/event [CI]", "events", "lost",
		"verdict");
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_cell *b = tb_result_baseline(r, c);
		char base[32], med[32], ovh[64], nse[64], ev[32], lost[32];

		tb_fmt_num(base, sizeof(base), b ? b->summary.median : NAN, "%.1f");
		tb_fmt_num(med, sizeof(med), c->summary.n ? c->summary.median : NAN, "%.1f");
		snprintf(ovh, sizeof(ovh), "-");
		snprintf(nse, sizeof(nse), "-");
		if (c->has_overhead && isfinite(c->overhead.pct)) {
			snprintf(ovh, sizeof(ovh), "%+.1f [%+.1f, %+.1f]", c->overhead.pct,
				 c->overhead.ci_lo, c->overhead.ci_hi);
			/* ns/event of an effect the data cannot tell from zero is noise / events. */
			if ((c->overhead.ci_lo > 0 || c->overhead.ci_hi < 0) &&
			    isfinite(c->overhead.ns_per_event))
				snprintf(nse, sizeof(nse), "%.1f [%.1f, %.1f]",
					 c->overhead.ns_per_event, c->overhead.nse_ci_lo,
					 c->overhead.nse_ci_hi);
		}
		tb_fmt_count(ev, sizeof(ev), c->baseline ? -1 : c->events_recorded);
		tb_fmt_count(lost, sizeof(lost), c->baseline ? -1 : c->events_lost);
		fprintf(f, "%-16.16s %-18.18s %11s %11s %24s %22s %11s %8s  %s\n", c->workload,
			c->tracer, base, med, ovh, nse, ev, lost,
			c->baseline	  ? "(baseline)"
			: c->error	  ? "failed"
			: c->has_overhead ? tb_verdict_name(c->overhead.verdict)
					  : "-");
		if (c->error)
			fprintf(f, "%-16s   error: %s\n", "", c->error);
		else if (c->has_overhead && c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY)
			fprintf(f, "%-16s   why: %s\n", "", c->overhead.reason);
	}
	print_models(f, r);
	print_ranking(f, r);
	for (i = 0; r->unsupported && i < json_array_size(r->unsupported); i++)
		fprintf(f, "%s%s\n", i ? "" : "\n",
			json_string_value(json_array_get(r->unsupported, i)));
}
