// SPDX-License-Identifier: GPL-2.0
/* The terminal summary (summary.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/limits.h"
#include "render/summary.h"
#include "render/text.h"
#include "model/json-util.h"
#include "model/explain.h"
#include "model/measured.h"
#include "model/proof.h"
#include "model/result.h"
#include "stats/ranking.h"

/* A column as wide as its widest text, at least min: names are widened, never cut. */
static int widen(int min, const char *text)
{
	int n = text ? (int)strlen(text) : 0;

	return n > min ? n : min;
}

/* One program's row (p NULL: all of them), its name and type columns nw and tw wide. */
static void bpf_row(FILE *f, const struct tb_cell *c, const struct tb_cell_prog *p, int nw, int tw)
{
	double per = tb_cell_bpf_runs_per_op(c, p), ns = tb_cell_bpf_ns_per_run(c, p);
	char rpo[32], npr[32], npo[32], share[32];

	tb_fmt_num(rpo, sizeof(rpo), per, "%.3f");
	tb_fmt_num(npr, sizeof(npr), ns, "%.1f");
	tb_fmt_num(npo, sizeof(npo), per * ns, "%.1f");
	tb_fmt_num(share, sizeof(share), 100 * tb_cell_bpf_share(c, p), "%.0f%%");
	fprintf(f, "  %-*s %-*s %9s %9s %9s %7s  %s\n", nw, p ? p->name : "(all)", tw,
		p ? p->type : "", rpo, npr, npo, share, p ? p->attach : "");
}

/* A command tracer's program table. */
static void bpf_table(FILE *f, const struct tb_cell *c)
{
	int nw = 22, tw = 14;

	for (size_t k = 0; k < c->nbpf_progs; k++) {
		nw = widen(nw, c->bpf_progs[k].name);
		tw = widen(tw, c->bpf_progs[k].type);
	}
	fprintf(f, "  %-*s %-*s %9s %9s %9s %7s  %s\n", nw, "program", tw, "type", "runs/op",
		"ns/run", "ns/op", "share", "attach");
	for (size_t k = 0; k < c->nbpf_progs; k++)
		bpf_row(f, c, &c->bpf_progs[k], nw, tw);
	if (c->nbpf_progs > 1)
		bpf_row(f, c, NULL, nw, tw);
}

/*
 * Per command tracer: where its events and losses came from, and its BPF programs as the
 * kernel counted them (runs per op, in-kernel ns per run and per op, the share of the measured
 * overhead that accounts for), with its maps' memory, peak RSS and CPU.
 */
static void print_command_tracers(FILE *f, const struct tb_result *r)
{
	bool header = false;
	char mem[32], rss[32], cpu[32], acct[640];

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const char *events = tb_json_text_at(c->tracer_extra, NULL, "events_from");
		const char *lost = tb_json_text_at(c->tracer_extra, "tool", "lost_from");

		if (c->baseline || !c->tracer_extra || (!c->bpf_method[0] && !events))
			continue;
		if (!header)
			fprintf(f,
				"\ncommand tracers: their own figures, and their BPF programs as the kernel counted them (run_cnt, run_time_ns) over their accounting samples (the timed samples run with the stats off)\n");
		header = true;
		tb_fmt_num(mem, sizeof(mem),
			   tb_json_num_at(c->tracer_extra, "bpf_maps_memlock") / 1024.0,
			   "%.0f KiB");
		tb_fmt_num(rss, sizeof(rss), (double)c->tracer_mem_bytes / (1024.0 * 1024.0),
			   "%.1f MiB");
		tb_fmt_num(cpu, sizeof(cpu), c->tracer_cpu_s, "%.3f s");
		fprintf(f,
			"%s / %s: events from %s%s%s; BPF programs found by %s: %zu, maps %s; peak RSS %s, CPU %s\n",
			c->workload, c->tracer, events ? events : "?", lost ? ", losses from " : "",
			lost ? lost : "", c->bpf_method[0] ? c->bpf_method : "(off)", c->nbpf_progs,
			c->bpf_method[0] ? mem : "-", c->tracer_mem_bytes >= 0 ? rss : "-", cpu);
		if (tb_json_text_at(c->tracer_extra, "tool", "not_attached"))
			fprintf(f, "  not attached (the tool says): %s\n",
				tb_json_text_at(c->tracer_extra, "tool", "not_attached"));
		if (c->accounting.present)
			fprintf(f, "  %s\n", tb_fmt_accounting(acct, sizeof(acct), c));
		if (c->nbpf_progs)
			bpf_table(f, c);
	}
}

/*
 * The consumers' own CPU (BPF reader thread, ftrace pipe reader, a command tracer's processes)
 * per event they were given: a short table of its own, the main one has no room left.
 */
static void print_consumers(FILE *f, const struct tb_result *r, int ww, int tw)
{
	bool header = false;
	char cpu[32], per[32], disk[32];

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->baseline || !(c->consumer_ns_per_event > 0))
			continue;
		if (!header)
			fprintf(f,
				"\nconsumers: the tracer's own reader/process CPU over its measured samples, and the bytes it wrote to files per event\n%-*s %-*s %11s %14s %14s\n",
				ww, "workload", tw, "tracer", "CPU", "ns/event", "file B/event");
		header = true;
		tb_fmt_num(cpu, sizeof(cpu), c->tracer_cpu_s, "%.3f s");
		tb_fmt_num(per, sizeof(per), c->consumer_ns_per_event, "%.1f");
		tb_fmt_num(disk, sizeof(disk), c->disk_bytes_per_event, "%.1f");
		fprintf(f, "%-*s %-*s %11s %14s %14s\n", ww, c->workload, tw, c->tracer, cpu, per,
			disk);
	}
}

/*
 * BPF cells: the kernel's own time per program run (overhead.bpf_ns_per_run) next to the cell's
 * quoted ns/event, and what is left of it: the hook's dispatch and the slow path it enables
 * (METHODOLOGY.md 6.5), not the program's body.
 */
static void print_bpf_split(FILE *f, const struct tb_result *r)
{
	struct tb_render_bpf_row b;
	bool header = false;
	char line[640];

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_overhead *o = &c->overhead;

		if (!tb_render_bpf_split(c, &b))
			continue;
		if (!header)
			fprintf(f,
				"\nBPF cells: ns/event against the program's own run time in the kernel (run_time_ns / run_cnt, from accounting samples); the rest is the hook's dispatch and the slow path it enables\n");
		header = true;
		if (b.split)
			fprintf(f,
				"  %s / %s: %.1f ns/event = %.1f ns/run in-kernel %+.1f ns dispatch and slow path\n",
				c->workload, c->tracer, o->ns_per_event, o->bpf_ns_per_run,
				b.dispatch_ns);
		if (b.acct)
			fprintf(f, "  %s / %s: %s\n", c->workload, c->tracer,
				tb_fmt_accounting(line, sizeof(line), c));
	}
}

static void print_models(FILE *f, const struct tb_result *r)
{
	char line[256];
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

		if (!m->accepted) {
			fprintf(f, "\nrate model %s on %s (%zu points): none: %s\n", m->tracer,
				m->workload_type, m->npoints, m->why_not);
			continue;
		}
		fprintf(f, "\nrate model %s on %s (%zu points): %s\n", m->tracer, m->workload_type,
			m->npoints, tb_fmt_rate_model(line, sizeof(line), m));
		/* Said with its p: at R^2 0.999 a borderline quadratic term is a nuance, not a
		 * broken model. */
		if (m->nonlinear)
			fprintf(f,
				"  not quite linear: a quadratic term is significant (p %.2g): the cost "
				"per event changes with the rate (a buffer or consumer saturating?)\n",
				m->p_quadratic);
	}
}

/* Under a sweep's row: a filter's kept vs rejected event, the rates its tracer held and lost
 * at, its knee model when one was tried. */
static void print_sweep_extras(FILE *f, const struct tb_sweep *sw, int w)
{
	const struct tb_knee_model *k = &sw->knee;

	if (isfinite(sw->rejected_ns))
		fprintf(f,
			"%-*s   an event the filter keeps costs %.1f ns, one it rejects %.1f ns [%.1f, "
			"%.1f]%s%s\n",
			w, "", sw->accepted_ns, sw->rejected_ns, sw->rej_lo, sw->rej_hi,
			sw->rejected_from_point
				? " (read off the point that rejects every event, the line giving none)"
				: "",
			sw->rejected_from_point
				? (sw->rejected_within_noise ? ": not told apart from a kept one"
							     : "")
			: sw->rejected_within_noise
				? ": not told apart (the line's slope CI includes 0: rejecting saves "
				  "nothing this run resolves)"
			: !sw->fit.accepted
				? " (a small saving against the points' scatter: r2 below the line's "
				  "bar, its CI carries the scatter)"
				: "");
	if (sw->kind[0] == 't' && sw->held_value[0]) {
		fprintf(f,
			"%-*s   the smallest %s that lost nothing: %s (%.3g events/s, tracer CPU %.2f)\n",
			w, "", sw->key, sw->held_value, sw->held_rate, sw->held_cpu);
	} else if (isfinite(sw->held_rate) || isfinite(sw->lost_rate)) {
		char held[96] = "no point lost nothing", lost[64] = "none lost events";

		if (isfinite(sw->held_rate))
			snprintf(held, sizeof(held),
				 "held %.3g events/s without a loss (tracer CPU %.2f)",
				 sw->held_rate, sw->held_cpu);
		if (isfinite(sw->lost_rate))
			snprintf(lost, sizeof(lost), "lost events from %.3g events/s",
				 sw->lost_rate);
		fprintf(f, "%-*s   %s; %s\n", w, "", held, lost);
	}
	if (sw->has_knee && k->accepted)
		fprintf(f,
			"%-*s   knee at %s %.4g: %.3g [%.3g, %.3g] ns per %s before, %.3g [%.3g, "
			"%.3g] after%s (R^2 %.3f, bend p %.2g)\n",
			w, "", sw->key, k->knee_x, k->before_ns, k->before_lo, k->before_hi,
			sw->unit, k->after_ns, k->after_lo, k->after_hi,
			k->saturating ? ": saturated" : "", k->r2, k->p_bend);
	else if (sw->has_knee)
		fprintf(f, "%-*s   no knee either: %s\n", w, "", k->why_not);
}

/* One sweep per row: its line's slope and intercept with their CIs, or why there is none. */
static void print_sweeps(FILE *f, const struct tb_result *r)
{
	int sw_w = 20, aw = 12;

	for (size_t i = 0; i < r->nsweeps; i++) {
		char name[160];

		snprintf(name, sizeof(name), "%s %s: %s", r->sweeps[i].kind, r->sweeps[i].section,
			 r->sweeps[i].key);
		sw_w = widen(sw_w, name);
		aw = widen(aw, r->sweeps[i].against);
	}
	for (size_t i = 0; i < r->nsweeps; i++) {
		const struct tb_sweep *sw = &r->sweeps[i];
		const struct tb_rate_model *m = &sw->fit;
		char name[160], pts[24], slope[80], fixed[64], fit[64];
		size_t used = 0;

		if (!i)
			fprintf(f,
				"\nsweeps: overhead ns/op (traced minus baseline) = fixed + slope x "
				"value\n%-*s %-*s %7s %30s %24s  %s\n",
				sw_w, "sweep", aw, "against", "points", "slope ns per unit [CI]",
				"fixed ns [CI]", "fit");
		for (size_t k = 0; k < sw->npoints; k++)
			used += sw->points[k].used;
		snprintf(name, sizeof(name), "%s %s: %s", sw->kind, sw->section, sw->key);
		snprintf(pts, sizeof(pts), "%zu/%zu", used, sw->npoints);
		snprintf(slope, sizeof(slope), "-");
		snprintf(fixed, sizeof(fixed), "-");
		if (m->accepted) {
			snprintf(slope, sizeof(slope), "%.3g [%.3g, %.3g] per %.12s", m->cost_ns,
				 m->cost_ci_lo, m->cost_ci_hi, sw->unit);
			snprintf(fixed, sizeof(fixed), "%.1f [%.1f, %.1f]", m->fixed_ns,
				 m->fixed_ci_lo, m->fixed_ci_hi);
		}
		snprintf(fit, sizeof(fit), m->accepted ? "accepted (R^2 %.3f)" : "refused", m->r2);
		fprintf(f, "%-*s %-*s %7s %30s %24s  %s\n", sw_w, name, aw, sw->against, pts, slope,
			fixed, fit);
		if (!m->accepted)
			fprintf(f, "%-*s   why: %s\n", sw_w, "", m->why_not);
		else if (m->nonlinear)
			fprintf(f,
				"%-*s   not quite linear: a quadratic term is significant (p %.2g)\n",
				sw_w, "", m->p_quadratic);
		print_sweep_extras(f, sw, sw_w);
	}
}

static void added(FILE *f, double base, double traced, double share)
{
	char pct[16] = "";

	if (isfinite(share))
		snprintf(pct, sizeof(pct), "(%4.0f%%)", 100 * share);
	fprintf(f, "  %+8.1f %-7s", traced - base, pct);
}

void tb_render_summary_explained(FILE *f, const struct tb_cell *c, size_t rows, bool always)
{
	const struct tb_cell_explain *e = c->explain;
	size_t k;

	if (!e)
		return;
	if (e->error) {
		fprintf(f, "%s: not explained: %s\n", c->id, e->error);
	} else {
		fprintf(f, "%s: %s\n", c->id, e->statement ? e->statement : "");
		if ((e->attributable || always) && e->nfns && rows)
			fprintf(f, "%-18s%-18s function (ns/op added, share of the overhead)\n",
				"      self", "      inclusive");
		for (k = 0; (e->attributable || always) && k < e->nfns && k < rows; k++) {
			const struct tb_cell_explain_fn *fn = &e->fns[k];

			added(f, fn->self_base, fn->self_traced, fn->self_share);
			added(f, fn->incl_base, fn->incl_traced, fn->incl_share);
			fprintf(f, " %s [%s]\n", fn->name, fn->kernel ? "kernel" : "user");
		}
	}
	for (k = 0; k < json_array_size(e->limits); k++)
		fprintf(f, "    limit: %s\n", json_string_value(json_array_get(e->limits, k)));
}

/* The explain phase's answer per cell: the share check, the top 3 added functions, limits. */
static void print_explained(FILE *f, const struct tb_result *r)
{
	bool head = false;

	for (size_t i = 0; i < r->ncells; i++) {
		if (!r->cells[i].explain)
			continue;
		if (!head)
			fprintf(f, "\nwhere the overhead lands (profiles of the explain samples; "
				   "flame graphs in explain/<cell>/diff.svg):\n");
		head = true;
		tb_render_summary_explained(f, &r->cells[i], 3, false);
	}
}

/*
 * The tracers ranked by what one event costs (the rate model's figure where a sweep fitted
 * one), so that probe types compare at a glance; when there are two or more to rank. Those
 * without a cost per event to quote are left out, with how many and why.
 */
static void print_ranking(FILE *f, const struct tb_result *r)
{
	struct tb_event_cost *e = calloc(r->ncells + 1, sizeof(*e));
	size_t nleft = 0, n = e ? tb_stats_event_costs(r, e, r->ncells, &nleft) : 0, i;
	char ns[64], from[64], left[512];
	int tw = 18, ww = 12, pw = 32;

	if (n < 2)
		goto out;
	for (i = 0; i < n; i++) {
		tw = widen(tw, e[i].cell->tracer);
		ww = widen(ww, e[i].cell->workload_type);
		pw = widen(pw, e[i].probe);
	}
	fprintf(f, "\nns/event, cheapest first (rate model where a sweep fitted one):\n");
	fprintf(f, "  %-*s %-*s %-*s %26s  %s\n", tw, "tracer", ww, "workload", pw, "probe",
		"ns/event [95% CI]", "from");
	for (i = 0; i < n; i++) {
		snprintf(ns, sizeof(ns), "%.1f [%.1f, %.1f]", e[i].ns, e[i].lo, e[i].hi);
		if (e[i].npoints)
			snprintf(from, sizeof(from), "rate model, %zu points", e[i].npoints);
		else
			snprintf(from, sizeof(from), "%s", e[i].cell->id);
		fprintf(f, "  %-*s %-*s %-*s %26s  %s\n", tw, e[i].cell->tracer, ww,
			e[i].cell->workload_type, pw, e[i].probe, ns, from);
	}
	if (nleft)
		fprintf(f, "  %s\n", tb_fmt_left_out(left, sizeof(left), e + n, nleft));
out:
	free(e);
}

/*
 * The rounds run again because a sample was contended (runner/contended.h): how many and the
 * first one's reason. Every cell of a round run again counts it, so the largest count is the
 * run's.
 */
static void print_contention(FILE *f, const struct tb_result *r)
{
	unsigned int rerun = 0;
	const char *first = NULL;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->contention.rerun > rerun)
			rerun = c->contention.rerun;
		for (size_t j = 0; !first && j < c->nsamples; j++)
			if (c->samples[j].rerun[0])
				first = c->samples[j].rerun;
	}
	if (rerun)
		fprintf(f, "\n%u round%s run again, contended (the first: %s)\n", rerun,
			rerun == 1 ? "" : "s", first ? first : "?");
}

/* Last, so that it is what a user reads: every way the run fell short (stats/shortfall.h). */
/* A latency in us, "-" when unknown. */
static const char *us(char *buf, size_t len, double ns)
{
	return tb_fmt_num(buf, len, isfinite(ns) ? ns / 1e3 : NAN, "%.1f");
}

/* "+1.2 [+0.3, +2.0] verdict" of a service overhead, "-" when none. */
static char *svc_change(char *buf, size_t len, double v, double lo, double hi, double scale,
			int verdict)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f [%+.1f, %+.1f] %s", v / scale, lo / scale, hi / scale,
			 tb_verdict_name((enum tb_verdict)verdict));
	return buf;
}

/* The service cells' own figures and overheads (stats/service.h). */
static void print_services(FILE *f, const struct tb_result *r, int ww, int tw)
{
	bool head = false;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_service_overhead *s = &c->service;
		char rps[32], p50[32], p99[32], p999[32], cpu[32], thr[96], d99[96];

		if (!s->present)
			continue;
		if (!head)
			fprintf(f,
				"\nservices (medians of the client's figures; server CPU per "
				"request from its cgroup):\n%-*s %-*s %10s %9s %9s %9s %7s %9s  %-42s "
				"%-42s %s\n",
				ww, "workload", tw, "tracer", "req/s", "p50 us", "p99 us",
				"p99.9 us", "errors", "CPU us/r", "throughput loss % [CI]",
				"p99 delta us [CI]", "decides");
		head = true;
		tb_fmt_num(rps, sizeof(rps), s->rps, "%.0f");
		tb_fmt_num(cpu, sizeof(cpu),
			   isfinite(s->cpu_ns_per_req) ? s->cpu_ns_per_req / 1e3 : NAN, "%.1f");
		svc_change(thr, sizeof(thr), s->traced ? s->loss_pct : NAN, s->loss_lo, s->loss_hi,
			   1, s->thr_verdict);
		svc_change(d99, sizeof(d99), s->traced ? s->p99_delta : NAN, s->p99_lo, s->p99_hi,
			   1e3, s->p99_verdict);
		fprintf(f, "%-*s %-*s %10s %9s %9s %9s %7lld %9s  %-42s %-42s %s\n", ww,
			c->workload, tw, c->tracer, rps, us(p50, sizeof(p50), s->p50_ns),
			us(p99, sizeof(p99), s->p99_ns), us(p999, sizeof(p999), s->p999_ns),
			(long long)s->errors, cpu, thr, d99, s->decides);
	}
}

static void print_shortfalls(FILE *f, const struct tb_result *r)
{
	size_t n = json_is_array(r->shortfalls) ? json_array_size(r->shortfalls) : 0;

	if (!n)
		return;
	fprintf(f, "\nthe run fell short (%zu):\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  - %s\n", json_string_value(json_array_get(r->shortfalls, i)));
}

void tb_render_summary_print(FILE *f, const struct tb_result *r)
{
	bool legend = false;
	int ww = 16, tw = 18;
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		ww = widen(ww, r->cells[i].workload);
		tw = widen(tw, r->cells[i].tracer);
	}
	fprintf(f, "\n%-*s %-*s %11s %11s %24s %22s %11s %8s  %s\n", ww, "workload", tw, "tracer",
		"base ns/op", "ns/op", "overhead % [CI]", "ns/event [CI]", "events", "lost",
		"verdict");
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_cell *b = tb_result_baseline(r, c);
		char base[32], med[32], ovh[64], nse[64], ev[32], lost[32];
		bool control = !c->baseline && c->proof.outcome == TB_PROOF_CONTROL;

		tb_fmt_num(base, sizeof(base), b ? b->summary.median : NAN, "%.1f");
		tb_fmt_num(med, sizeof(med), c->summary.n ? c->summary.median : NAN, "%.1f");
		snprintf(ovh, sizeof(ovh), "-");
		if (c->has_overhead && isfinite(c->overhead.pct))
			snprintf(ovh, sizeof(ovh), "%+.1f [%+.1f, %+.1f]", c->overhead.pct,
				 c->overhead.ci_lo, c->overhead.ci_hi);
		/* model/proof.h decides whether the cell's cost figures are quoted at all */
		tb_fmt_cost(nse, sizeof(nse), c);
		legend |= strchr(nse, '/') != NULL;
		tb_fmt_count(ev, sizeof(ev), c->baseline ? -1 : c->events_recorded);
		tb_fmt_count(lost, sizeof(lost), c->baseline ? -1 : c->events_lost);
		fprintf(f, "%-*s %-*s %11s %11s %24s %22s %11s %8s  %s%s\n", ww, c->workload, tw,
			c->tracer, base, med, ovh, nse, ev, lost,
			c->baseline	  ? "(baseline)"
			: c->error	  ? "failed"
			: c->has_overhead ? tb_verdict_name(c->overhead.verdict)
					  : "-",
			control ? " (control)" : "");
		if (c->error)
			fprintf(f, "%-*s   error: %s\n", ww, "", c->error);
		else if (c->has_overhead &&
			 (c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY ||
			  c->overhead.verdict == TB_VERDICT_FASTER ||
			  (control && c->overhead.verdict == TB_VERDICT_OVERHEAD)))
			fprintf(f, "%-*s   why: %s\n", ww, "", c->overhead.reason);
	}
	if (legend)
		fprintf(f, "%-*s   %s\n", ww, "", TB_COST_LEGEND);
	print_services(f, r, ww, tw);
	print_command_tracers(f, r);
	print_consumers(f, r, ww, tw);
	print_bpf_split(f, r);
	print_models(f, r);
	print_sweeps(f, r);
	tb_render_limits_print(f, r);
	print_ranking(f, r);
	for (i = 0; r->unsupported && i < json_array_size(r->unsupported); i++)
		fprintf(f, "%s%s\n", i ? "" : "\n",
			json_string_value(json_array_get(r->unsupported, i)));
	print_explained(f, r);
	print_contention(f, r);
	print_shortfalls(f, r);
}
