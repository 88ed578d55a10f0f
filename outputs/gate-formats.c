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
#include "outputs/gate-formats.h"
#include "outputs/markup.h"
#include "result/result.h"
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

void tb_gate_print(FILE *f, const struct tb_gate *g)
{
	char mo[32], mr[32];

	fmt_limit(mo, sizeof(mo), g->max_overhead, "%");
	fmt_limit(mr, sizeof(mr), g->max_regression, "%");
	fprintf(f, "gate: %s: %s (%zu of %zu cells failed%s)\n", g->name,
		tb_gate_passed(g) ? "PASSED" : "FAILED", g->nfail, g->ncells,
		g->nskip ? ", some skipped" : "");
	fprintf(f,
		"  max-overhead %s, max-regression %s%s%s, alpha %g (CIs at %g%%), untrustworthy cells %s\n",
		mo, mr, g->has_old ? " vs " : " (no --baseline)", g->has_old ? g->old_name : "",
		g->alpha, 100 * (1 - g->alpha), g->allow ? "allowed" : "fail");
	for (size_t i = 0; i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];

		fprintf(f, "  %s%s %-28s %s\n", status_name(gc->st), gc->warn ? "!" : " ",
			gc->c->id, gc->msg);
	}
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

void tb_gate_junit(FILE *f, const struct tb_gate *g)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites name=\"tracebench\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" errors=\"0\">\n",
		g->ncells, g->nfail, g->nskip);
	fprintf(f, "  <testsuite name=\"tracebench gate: ");
	markup(f, g->name);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" errors=\"0\">\n", g->ncells,
		g->nfail, g->nskip);
	for (size_t i = 0; i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];

		fprintf(f, "    <testcase classname=\"tracebench.");
		markup(f, gc->c->workload);
		fprintf(f, "\" name=\"");
		markup(f, gc->c->id);
		fprintf(f, "\" time=\"%.3f\">", cell_seconds(gc->c));
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
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

void tb_gate_markdown(FILE *f, const struct tb_gate *g)
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
	fprintf(f,
		"; alpha %g (CIs at %g%%). A limit fails a cell only when the CI lies above it.\n\n",
		g->alpha, 100 * (1 - g->alpha));
	fprintf(f, "| | cell | overhead | CI | verdict | details |\n|---|---|---:|---|---|---|\n");
	for (size_t i = 0; i < g->ncells; i++) {
		const struct tb_gate_cell *gc = &g->cells[i];
		const struct tb_overhead *o = &gc->c->overhead;

		fprintf(f, "| %s | `",
			gc->st == TB_GATE_FAIL	 ? "❌"
			: gc->st == TB_GATE_SKIP ? "⚠️"
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

json_t *tb_gate_benchmark_json(const struct tb_gate *g)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < g->ncells; i++) {
		const struct tb_cell *c = g->cells[i].c;
		const struct tb_overhead *o = &c->overhead;
		char name[256], range[64], extra[1200];
		json_t *e;

		if (isfinite(c->summary.median)) {
			snprintf(name, sizeof(name), "%s ns/op", c->id);
			snprintf(range, sizeof(range), "± %.3g", c->summary.sd);
			snprintf(extra, sizeof(extra), "median of %zu rounds; CV %.2f%%; %.800s",
				 c->summary.n, 100 * c->summary.cv, g->cells[i].msg);
			e = bench_entry(name, "ns/op", c->summary.median,
					isfinite(c->summary.sd) ? range : NULL, extra);
			if (!e || json_array_append_new(arr, e))
				goto fail;
		}
		if (c->has_overhead && isfinite(o->pct)) {
			snprintf(name, sizeof(name), "%s overhead", c->id);
			snprintf(range, sizeof(range), "± %.3g", (o->ci_hi - o->ci_lo) / 2);
			snprintf(extra, sizeof(extra), "CI [%+.2f%%, %+.2f%%] at %g%%; %s; %.300s",
				 o->ci_lo, o->ci_hi, 100 * (1 - g->alpha),
				 tb_verdict_name(o->verdict), o->reason);
			e = bench_entry(name, "%", o->pct,
					isfinite(o->ci_lo) && isfinite(o->ci_hi) ? range : NULL,
					extra);
			if (!e || json_array_append_new(arr, e))
				goto fail;
		}
	}
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

int tb_gate_write_files(const struct tb_gate *g, const struct tb_gate_opts *o)
{
	int ret = 0;

	if (o->junit && (ret = write_out(o->junit, g, tb_gate_junit, NULL)))
		return ret;
	if (o->markdown && (ret = write_out(o->markdown, g, tb_gate_markdown, NULL)))
		return ret;
	if (o->benchmark_json) {
		json_t *doc = tb_gate_benchmark_json(g);

		if (doc)
			ret = write_out(o->benchmark_json, g, NULL, doc);
		else
			tb_err("gate: %s: out of memory", o->benchmark_json);
		json_decref(doc);
		return doc ? ret : -ENOMEM;
	}
	return ret;
}
