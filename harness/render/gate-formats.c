// SPDX-License-Identifier: GPL-2.0
/*
 * The outputs of an evaluated gate (stats/gate.h): the terminal table, JUnit XML, Markdown and
 * github-action-benchmark JSON.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "render/gate-formats.h"
#include "core/markup.h"
#include "model/proof.h"
#include "model/result.h"
#include "stats/gate.h"

/* XML text and attribute values. */
static void markup(FILE *f, const char *s)
{
	tb_fput_markup(f, s, SIZE_MAX);
}

static const char *status_name(enum tb_gate_status s)
{
	return s == TB_GATE_FAIL ? "FAIL" : s == TB_GATE_SKIP ? "SKIP" : "PASS";
}

static void fmt_limit(char *buf, size_t len, double frac, const char *unit)
{
	if (isfinite(frac))
		snprintf(buf, len, "%g%s", 100 * frac, unit);
	else
		snprintf(buf, len, "none");
}

/*
 * The one sentence every output has when cells are underpowered (their MDE above the limit
 * gated): "2 cells are underpowered (largest: perf-99hz, MDE 17.6% against 5%): ...".
 */
static const char *underpowered_line(const struct tb_gate *g)
{
	static char buf[512];
	const struct tb_gate_cell *worst = NULL;

	for (size_t i = 0; i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];

		if (gc->underpowered &&
		    (!worst || gc->mde - gc->mde_limit > worst->mde - worst->mde_limit))
			worst = gc;
	}
	if (!worst)
		return "";
	snprintf(
		buf, sizeof(buf),
		"%zu cell%s underpowered (largest gap: %.200s, MDE %.1f%s against the limit %g%s): "
		"an effect up to the limit could pass unseen; run more rounds or longer samples%s",
		g->nunderpowered, g->nunderpowered == 1 ? " is" : "s are", worst->c->id, worst->mde,
		worst->mde_unit, worst->mde_limit, worst->mde_unit,
		g->require_power ? " (--require-power: they fail)"
				 : ", or gate with --require-power");
	return buf;
}

void tb_render_gate_print(FILE *f, const struct tb_gate *g)
{
	char mo[32], mr[32];

	fmt_limit(mo, sizeof(mo), g->max_overhead, "%");
	fmt_limit(mr, sizeof(mr), g->max_regression, "%");
	fprintf(f, "gate: %s: %s (%zu of %zu cells failed%s", g->name,
		tb_gate_passed(g) ? "PASSED" : "FAILED", g->nfail, g->ncells,
		g->nskip ? ", some skipped" : "");
	if (g->nsweeps)
		fprintf(f, "; %zu of %zu sweeps failed, %zu skipped", g->nsweep_fail, g->nsweeps,
			g->nsweep_skip);
	fprintf(f, "%s)\n", g->run.st == TB_GATE_FAIL ? "; the run failed as a whole" : "");
	fprintf(f,
		"  max-overhead %s, max-regression %s%s%s%s%s, alpha %g (CIs at %g%%), untrustworthy cells %s\n",
		mo, mr, g->has_old ? " vs " : (g->history_name ? "" : " (no --baseline)"),
		g->has_old ? g->old_name : "", g->history_name ? " vs the history " : "",
		g->history_name ? g->history_name : "", g->alpha, 100 * (1 - g->alpha),
		g->allow ? "allowed" : "fail");
	if (g->has_run)
		fprintf(f, "  %s%s %-28s %s\n", status_name(g->run.st), g->run.warn ? "!" : " ",
			"(the run)", g->run.msg);
	if (isfinite(g->max_thr_loss) || isfinite(g->max_p99_rise)) {
		fmt_limit(mo, sizeof(mo), g->max_thr_loss, "%");
		fmt_limit(mr, sizeof(mr), g->max_p99_rise, "%");
		fprintf(f, "  services: max-throughput-loss %s, max-p99-increase %s\n", mo, mr);
	}
	for (size_t i = 0; i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];

		fprintf(f, "  %s%s %-28s %s\n", status_name(gc->st), gc->warn ? "!" : " ",
			gc->c->id, gc->msg);
	}
	if (g->nsweeps) {
		fmt_limit(mo, sizeof(mo), g->max_slope_rise, "%");
		if (g->has_old)
			fprintf(f, "  sweeps: max-slope-increase %s of %s's slope\n", mo,
				g->old_name);
		else
			fprintf(f,
				"  sweeps: max-slope-increase %s of the mean slope of the last stable segment in %s\n",
				mo, g->history_name);
	}
	for (size_t i = 0; i < g->nsweeps; i++) {
		const struct tb_gate_sweep *sw = &g->sweeps[i];

		fprintf(f, "  %s%s %-28s %s\n", status_name(sw->v.st), sw->v.warn ? "!" : " ",
			sw->name, sw->v.msg);
	}
	if (g->nunderpowered)
		fprintf(f, "warning: %s\n", underpowered_line(g));
}

/* Wall time the cell's samples took (warmups included), for JUnit's time attribute. */
static double cell_seconds(const struct tb_cell *c)
{
	double ns = 0;

	for (size_t i = 0; i < c->nsamples; i++)
		if (isfinite(c->samples[i].elapsed_ns))
			ns += c->samples[i].elapsed_ns;
	return ns / 1e9;
}

/* One test case's verdict inside its <testcase>: a failure, a skip, or what was found. */
static void junit_outcome(FILE *f, const struct tb_gate_cell *gc)
{
	if (gc->st == TB_GATE_FAIL) {
		fprintf(f, "\n      <failure type=\"%s\" message=\"", gc->type);
		markup(f, gc->msg);
		fprintf(f, "\">");
		markup(f, gc->msg);
		fprintf(f, "</failure>\n    ");
	} else if (gc->st == TB_GATE_SKIP) {
		fprintf(f, "\n      <skipped message=\"");
		markup(f, gc->msg);
		fprintf(f, "\"/>\n    ");
	} else {
		fprintf(f, "\n      <system-out>");
		markup(f, gc->msg);
		fprintf(f, "</system-out>\n    ");
	}
}

/*
 * Valid against Jenkins' junit-10.xsd (tests/data/junit/): <testsuites> takes no `skipped`
 * attribute (only <testsuite> does), time is a plain decimal. The limits and the power
 * warning go into the suite's <properties> and <system-out>.
 */
void tb_render_gate_junit(FILE *f, const struct tb_gate *g)
{
	size_t ntests = g->ncells + g->has_run + g->nsweeps,
	       nfail = g->nfail + g->nsweep_fail + (g->run.st == TB_GATE_FAIL);
	double secs = 0;
	char mo[32], mr[32], tl[32], p99[32], sl[32];

	for (size_t i = 0; i < g->ncells; i++)
		secs += cell_seconds(g->cells[i].c);
	fmt_limit(mo, sizeof(mo), g->max_overhead, "%");
	fmt_limit(mr, sizeof(mr), g->max_regression, "%");
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites name=\"tracebench\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\">\n",
		ntests, nfail, secs);
	fprintf(f, "  <testsuite name=\"tracebench gate: ");
	markup(f, g->name);
	fprintf(f,
		"\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" errors=\"0\" time=\"%.3f\">\n",
		ntests, nfail, g->nskip + g->nsweep_skip, secs);
	fmt_limit(tl, sizeof(tl), g->max_thr_loss, "%");
	fmt_limit(p99, sizeof(p99), g->max_p99_rise, "%");
	fmt_limit(sl, sizeof(sl), g->max_slope_rise, "%");
	fprintf(f,
		"    <properties>\n      <property name=\"max-overhead\" value=\"%s\"/>\n"
		"      <property name=\"max-regression\" value=\"%s\"/>\n"
		"      <property name=\"max-throughput-loss\" value=\"%s\"/>\n"
		"      <property name=\"max-p99-increase\" value=\"%s\"/>\n"
		"      <property name=\"max-slope-increase\" value=\"%s\"/>\n"
		"      <property name=\"alpha\" value=\"%g\"/>\n"
		"      <property name=\"require-power\" value=\"%s\"/>\n"
		"      <property name=\"underpowered\" value=\"%zu\"/>\n    </properties>\n",
		mo, mr, tl, p99, sl, g->alpha, g->require_power ? "true" : "false",
		g->nunderpowered);
	/* What the run as a whole fell short of: a CI log shows why a partial result failed */
	if (g->has_run) {
		fprintf(f, "    <testcase classname=\"tracebench.run\" name=\"run\" time=\"%.3f\">",
			secs);
		junit_outcome(f, &g->run);
		fprintf(f, "</testcase>\n");
	}
	for (size_t i = 0; i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];

		fprintf(f, "    <testcase classname=\"tracebench.");
		markup(f, gc->c->workload);
		fprintf(f, "\" name=\"");
		markup(f, gc->c->id);
		fprintf(f, "\" time=\"%.3f\">", cell_seconds(gc->c));
		junit_outcome(f, gc);
		fprintf(f, "</testcase>\n");
	}
	for (size_t i = 0; i < g->nsweeps; i++) {
		fprintf(f, "    <testcase classname=\"tracebench.sweep\" name=\"");
		markup(f, g->sweeps[i].name);
		fprintf(f, "\" time=\"0.000\">");
		junit_outcome(f, &g->sweeps[i].v);
		fprintf(f, "</testcase>\n");
	}
	if (g->nunderpowered) {
		fprintf(f, "    <system-out>warning: ");
		markup(f, underpowered_line(g));
		fprintf(f, "</system-out>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

void tb_render_gate_markdown(FILE *f, const struct tb_gate *g)
{
	char mo[32], mr[32];

	fmt_limit(mo, sizeof(mo), g->max_overhead, "%");
	fmt_limit(mr, sizeof(mr), g->max_regression, "%");
	fprintf(f, "## tracebench gate: %s\n\n", tb_gate_passed(g) ? "✅ passed" : "❌ failed");
	fprintf(f, "`");
	tb_fput_markdown(f, g->name);
	fprintf(f, "`: %zu of %zu cells failed%s. Limits: max-overhead %s, max-regression %s",
		g->nfail, g->ncells, g->nskip ? " (untrustworthy cells skipped)" : "", mo, mr);
	if (g->has_old) {
		fprintf(f, " against `");
		tb_fput_markdown(f, g->old_name);
		fprintf(f, "`");
	}
	if (g->history_name) {
		fprintf(f, " against the last stable segment of each series in `");
		tb_fput_markdown(f, g->history_name);
		fprintf(f, "`");
	}
	fprintf(f,
		"; alpha %g (CIs at %g%%). A limit fails a cell only when the CI lies above it.\n\n",
		g->alpha, 100 * (1 - g->alpha));
	if (g->nunderpowered) {
		fprintf(f, "> ⚠️ **Warning:** ");
		tb_fput_markdown(f, underpowered_line(g));
		fprintf(f, ".\n\n");
	}
	if (g->has_run) {
		fprintf(f, "> %s **The run fell short:** ",
			g->run.st == TB_GATE_FAIL ? "❌" : "⚠️");
		tb_fput_markdown(f, g->run.msg);
		fprintf(f, ".\n\n");
	}
	fprintf(f, "| | cell | overhead | CI | verdict | details |\n|---|---|---:|---|---|---|\n");
	for (size_t i = 0; i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];
		const struct tb_overhead *o = &gc->c->overhead;

		fprintf(f, "| %s | `",
			gc->st == TB_GATE_FAIL		     ? "❌"
			: gc->st == TB_GATE_SKIP || gc->warn ? "⚠️"
							     : "✅");
		tb_fput_markdown(f, gc->c->id);
		if (gc->c->has_overhead && isfinite(o->pct))
			fprintf(f, "` | %+.2f%% | [%+.2f%%, %+.2f%%] | %s | ", o->pct, o->ci_lo,
				o->ci_hi, tb_verdict_name(o->verdict));
		else
			fprintf(f, "` | | | %s | ", gc->c->baseline ? "baseline" : "-");
		tb_fput_markdown(f, gc->msg);
		fprintf(f, " |\n");
	}
	for (size_t i = 0; i < g->nsweeps; i++) {
		const struct tb_gate_sweep *sw = &g->sweeps[i];

		fprintf(f, "| %s | `",
			sw->v.st == TB_GATE_FAIL		 ? "❌"
			: sw->v.st == TB_GATE_SKIP || sw->v.warn ? "⚠️"
								 : "✅");
		tb_fput_markdown(f, sw->name);
		if (isfinite(sw->pct))
			fprintf(f, "` | slope %+.1f%% | [%+.1f%%, %+.1f%%] | %s | ", sw->pct,
				sw->ci_lo, sw->ci_hi, sw->v.st == TB_GATE_FAIL ? "worse" : "sweep");
		else
			fprintf(f, "` | | | sweep | ");
		tb_fput_markdown(f, sw->v.msg);
		fprintf(f, " |\n");
	}
}

static json_t *bench_entry(const char *name, const char *unit, double value, const char *range,
			   const char *extra)
{
	json_t *e = json_pack("{s:s, s:s, s:f, s:s}", "name", name, "unit", unit, "value", value,
			      "extra", extra);

	if (e && range && json_object_set_new(e, "range", json_string(range))) {
		json_decref(e);
		return NULL;
	}
	return e;
}

/*
 * The interval [lo, hi] of value v: "± h" into range when it is symmetric about v (to 1% of
 * its width), and always "CI [lo, hi]" into ci. Returns range, or NULL when the interval is
 * asymmetric or unknown: github-action-benchmark's range is one half-width, and a lopsided CI
 * given as one would misstate it, so such a CI is only in extra.
 */
static const char *bench_range(double v, double lo, double hi, char *range, size_t rlen, char *ci,
			       size_t clen, const char *fmt)
{
	char a[32], b[32];

	ci[0] = '\0';
	if (!isfinite(lo) || !isfinite(hi))
		return NULL;
	snprintf(a, sizeof(a), fmt, lo);
	snprintf(b, sizeof(b), fmt, hi);
	snprintf(ci, clen, "CI [%s, %s]", a, b);
	if (fabs((hi - v) - (v - lo)) > 0.01 * (hi - lo))
		return NULL;
	snprintf(range, rlen, "± %.3g", (hi - lo) / 2);
	return range;
}

/* One entry into arr. Returns 0 or -ENOMEM. */
static int bench_add(json_t *arr, const char *id, const char *what, const char *unit, double v,
		     const char *range, const char *extra)
{
	char name[320];
	json_t *e;

	snprintf(name, sizeof(name), "%.256s %s", id, what);
	e = bench_entry(name, unit, v, range, extra);
	return e && !json_array_append_new(arr, e) ? 0 : -ENOMEM;
}

/* The traced cell's entries: added ns/op, ns/event (when the effect is detectable), %. */
static int bench_traced(json_t *arr, const struct tb_gate *g, const struct tb_gate_cell *gc)
{
	const struct tb_overhead *o = &gc->c->overhead;
	char range[64], ci[96], extra[1400], power[160] = "";
	const char *rg;
	int conf = (int)lround(100 * (1 - g->alpha));

	if (gc->underpowered)
		snprintf(power, sizeof(power), "; underpowered: MDE %.1f%s > limit %g%s", gc->mde,
			 gc->mde_unit, gc->mde_limit, gc->mde_unit);
	if (isfinite(o->ns_per_op)) {
		rg = bench_range(o->ns_per_op, o->ns_ci_lo, o->ns_ci_hi, range, sizeof(range), ci,
				 sizeof(ci), "%.1f");
		snprintf(extra, sizeof(extra), "tracer cost per op; %s at %d%%; %s%s", ci, conf,
			 tb_verdict_name(o->verdict), power);
		if (bench_add(arr, gc->c->id, "added ns/op", "ns/op", o->ns_per_op, rg, extra))
			return -ENOMEM;
	}
	/* Per event only where model/proof.h quotes it: a ratio of noise is no figure. */
	if (isfinite(o->ns_per_event) && tb_proof_cost_shown(gc->c, NULL)) {
		rg = bench_range(o->ns_per_event, o->nse_ci_lo, o->nse_ci_hi, range, sizeof(range),
				 ci, sizeof(ci), "%.1f");
		snprintf(extra, sizeof(extra), "cost per traced event; %s; %.3g events/op%s", ci,
			 o->events_per_op, power);
		if (bench_add(arr, gc->c->id, "ns/event", "ns/event", o->ns_per_event, rg, extra))
			return -ENOMEM;
	}
	if (isfinite(o->pct)) {
		rg = bench_range(o->pct, o->ci_lo, o->ci_hi, range, sizeof(range), ci, sizeof(ci),
				 "%+.2f%%");
		snprintf(extra, sizeof(extra), "%s at %d%%; %s; %.300s%s", ci, conf,
			 tb_verdict_name(o->verdict), o->reason, power);
		if (bench_add(arr, gc->c->id, "overhead", "%", o->pct, rg, extra))
			return -ENOMEM;
	}
	return 0;
}

/* The gate's verdict on sweep sw of the gated result, or NULL when it was not judged. */
static const struct tb_gate_sweep *gated_sweep(const struct tb_gate *g, const struct tb_sweep *sw)
{
	for (size_t i = 0; i < g->nsweeps; i++)
		if (g->sweeps[i].b == sw)
			return &g->sweeps[i];
	return NULL;
}

/*
 * An entry per sweep of the gated result whose line was accepted: its slope in ns per the
 * swept unit, named by its identity (as compare names it) and unit. A refused line has no
 * slope to track: it gives no entry (the gate's outputs say why).
 */
static int bench_sweeps(json_t *arr, const struct tb_gate *g)
{
	int conf = (int)lround(100 * (1 - g->alpha));

	for (size_t i = 0; g->r && i < g->r->nsweeps; i++) {
		const struct tb_sweep *sw = &g->r->sweeps[i];
		const struct tb_rate_model *m = &sw->fit;
		const struct tb_gate_sweep *gs = gated_sweep(g, sw);
		char name[400], unit[96], range[64], ci[96], extra[1400];
		const char *rg;
		json_t *e;

		if (!m->accepted || !isfinite(m->cost_ns))
			continue;
		snprintf(name, sizeof(name), "%.16s %.80s: %.80s against %.80s, ns per %.60s",
			 sw->kind, sw->section, sw->key, sw->against, sw->unit);
		snprintf(unit, sizeof(unit), "ns/%.60s", sw->unit);
		rg = bench_range(m->cost_ns, m->cost_ci_lo, m->cost_ci_hi, range, sizeof(range), ci,
				 sizeof(ci), "%.3g");
		snprintf(
			extra, sizeof(extra),
			"sweep slope over %zu points; %s at %d%%; fixed %.1f ns/op; r2 %.3f%s%.1000s",
			m->npoints, ci, conf, m->fixed_ns, m->r2, gs ? "; " : "",
			gs ? gs->v.msg : "");
		e = bench_entry(name, unit, m->cost_ns, rg, extra);
		if (!e || json_array_append_new(arr, e))
			return -ENOMEM;
	}
	return 0;
}

json_t *tb_render_gate_benchmark_json(const struct tb_gate *g)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];
		const struct tb_cell *c = gc->c;
		char range[64], extra[1200];

		if (isfinite(c->summary.median)) {
			/* The range is the samples' spread (sd): symmetric by definition. */
			snprintf(range, sizeof(range), "± %.3g", c->summary.sd);
			snprintf(extra, sizeof(extra),
				 "median of %zu rounds; range: sd; CV %.2f%%; %.800s", c->summary.n,
				 100 * c->summary.cv, gc->msg);
			if (bench_add(arr, c->id, "ns/op", "ns/op", c->summary.median,
				      isfinite(c->summary.sd) ? range : NULL, extra))
				goto fail;
		}
		if (c->has_overhead && bench_traced(arr, g, gc))
			goto fail;
	}
	if (arr && bench_sweeps(arr, g))
		goto fail;
	return arr;
fail:
	json_decref(arr);
	return NULL;
}

/* Write what fn prints into path, atomically. Returns 0 or -errno (reported). */
static int write_out(const char *path, const struct tb_gate *g,
		     void (*fn)(FILE *, const struct tb_gate *), json_t *doc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (doc) {
		char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(10));

		if (text && asprintf(&buf, "%s\n", text) < 0)
			buf = NULL;
		free(text);
		len = buf ? strlen(buf) : 0;
	} else if ((f = open_memstream(&buf, &len))) {
		fn(f, g);
		if (fclose(f)) {
			free(buf);
			buf = NULL;
		}
	}
	if (!buf) {
		tb_err("gate: %s: out of memory", path);
		return -ENOMEM;
	}
	ret = tb_write_atomic(path, buf, len, 0644); /* says why it failed */
	free(buf);
	return ret;
}

int tb_render_gate_write_files(const struct tb_gate *g, const struct tb_gate_opts *o)
{
	int ret = 0;

	if (o->junit && (ret = write_out(o->junit, g, tb_render_gate_junit, NULL)))
		return ret;
	if (o->markdown && (ret = write_out(o->markdown, g, tb_render_gate_markdown, NULL)))
		return ret;
	if (o->benchmark_json) {
		json_t *doc = tb_render_gate_benchmark_json(g);

		if (doc)
			ret = write_out(o->benchmark_json, g, NULL, doc);
		else
			tb_err("gate: %s: out of memory", o->benchmark_json);
		json_decref(doc);
		return doc ? ret : -ENOMEM;
	}
	return ret;
}
