// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench gate RESULT.json [--baseline OLD.json] ...`: a CI verdict with exit codes
 * 0 pass, 1 fail, 2 bad input, plus JUnit XML, Markdown and github-action-benchmark JSON.
 *
 * A cell fails when (1) it is untrustworthy (unless allowed), (2) its overhead is significantly
 * above max-overhead: the lower end of its (1 - alpha) CI is above the limit, or (3) against
 * --baseline, its baseline ns/op (baseline cells) or its overhead (traced cells) grew by
 * significantly more than max-regression: the lower end of the change's CI is above it.
 * "Significantly" keeps a noisy but acceptable tracer from failing builds at random; a point
 * estimate above the limit without significance passes with a warning to measure longer.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/compare.h"
#include "stats/gate.h"
#include "result/result.h"
#include "stats/stats.h"
#include "core/tb.h"

enum gstatus {
	G_PASS,
	G_FAIL,
	G_SKIP, /* untrustworthy but allowed: reported as skipped in JUnit */
};

struct gcell {
	const struct tb_cell *c;
	enum gstatus st;
	const char *type; /* failure type for JUnit: "overhead", "regression", "untrustworthy" */
	char msg[768];
	bool warn; /* passed, but the point estimate is over a limit */
};

struct gate {
	const struct tb_gate_opts *o;
	const char *name, *old_name;
	double max_overhead, max_regression, alpha;
	bool allow;
	struct gcell *cells;
	size_t ncells, nfail, nskip;
	bool has_old;
};

void tb_gate_opts_init(struct tb_gate_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_overhead = o->max_regression = o->alpha = NAN;
	o->allow_untrustworthy = -1;
}

/* ---- thresholds ------------------------------------------------------------------------------ */

/* "5%", "0.05", 0.05 or "none" from the result's gate object; absent leaves *out alone. */
static int gate_pct(const char *what, json_t *g, const char *key, double *out)
{
	json_t *v = g ? json_object_get(g, key) : NULL;
	double d;

	if (!v)
		return 0;
	if (json_is_number(v)) {
		d = json_number_value(v);
	} else if (json_is_string(v) && (!strcmp(json_string_value(v), "none") ||
					 !strcmp(json_string_value(v), "off"))) {
		d = INFINITY;
	} else if (!json_is_string(v) || tb_parse_percent(json_string_value(v), &d)) {
		tb_err("%s: gate.%s: expected a percentage like \"5%%\" or \"none\"", what, key);
		return -EINVAL;
	}
	if (!(d >= 0)) {
		tb_err("%s: gate.%s: must not be negative", what, key);
		return -EINVAL;
	}
	*out = d;
	return 0;
}

static int resolve(struct gate *g, const struct tb_result *r)
{
	json_t *j = r->gate, *v;
	double mo = TB_GATE_DEFAULT_MAX_OVERHEAD, mr = TB_GATE_DEFAULT_MAX_REGRESSION;
	double alpha = TB_GATE_DEFAULT_ALPHA;
	bool allow = false;

	if (gate_pct(g->name, j, "max-overhead", &mo) ||
	    gate_pct(g->name, j, "max-regression", &mr))
		return -EINVAL;
	if (j && (v = json_object_get(j, "alpha"))) {
		if (!(json_is_number(v) ? (alpha = json_number_value(v), true)
					: json_is_string(v) &&
						  !tb_parse_double(json_string_value(v), &alpha)) ||
		    !(alpha > 0 && alpha < 0.5)) {
			tb_err("%s: gate.alpha: expected a probability in (0, 0.5)", g->name);
			return -EINVAL;
		}
	}
	if (j && (v = json_object_get(j, "allow-untrustworthy"))) {
		if (!(json_is_boolean(v) ? (allow = json_is_true(v), true)
					 : json_is_string(v) &&
						   !tb_parse_bool(json_string_value(v), &allow))) {
			tb_err("%s: gate.allow-untrustworthy: expected true or false", g->name);
			return -EINVAL;
		}
	}
	g->max_overhead = isnan(g->o->max_overhead) ? mo : g->o->max_overhead;
	g->max_regression = isnan(g->o->max_regression) ? mr : g->o->max_regression;
	g->alpha = isnan(g->o->alpha) ? alpha : g->o->alpha;
	g->allow = g->o->allow_untrustworthy < 0 ? allow : g->o->allow_untrustworthy;
	return 0;
}

/* ---- evaluation ------------------------------------------------------------------------------ */

static void add_msg(struct gcell *gc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_msg(struct gcell *gc, const char *fmt, ...)
{
	size_t n = strlen(gc->msg);
	va_list ap;

	if (n && n + 2 < sizeof(gc->msg)) {
		strcat(gc->msg, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(gc->msg + n, sizeof(gc->msg) - n, fmt, ap);
	va_end(ap);
}

static void fail(struct gcell *gc, const char *type)
{
	if (gc->st != G_FAIL)
		gc->type = type;
	gc->st = G_FAIL;
}

static void evaluate(struct gate *g, const struct tb_result *r, const struct tb_comparison *cmp)
{
	double conf = 100 * (1 - g->alpha);

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_overhead *o = &c->overhead;
		struct gcell *gc = &g->cells[i];
		const struct tb_cmp_row *w = cmp ? tb_compare_find(cmp, c) : NULL;
		bool untrusted = false;

		gc->c = c;
		gc->st = G_PASS;
		gc->type = "";
		if (c->baseline && c->error) {
			untrusted = true;
			add_msg(gc, "untrustworthy: baseline cell failed: %s", c->error);
		} else if (c->baseline && !c->summary.n) {
			untrusted = true;
			add_msg(gc, "untrustworthy: the baseline cell has no measured samples");
		} else if (c->baseline) {
			add_msg(gc, "baseline %.1f ns/op", c->summary.median);
		} else if (o->verdict == TB_VERDICT_UNTRUSTWORTHY) {
			untrusted = true;
			add_msg(gc, "untrustworthy: %s", o->reason);
		} else {
			double lim = 100 * g->max_overhead;

			add_msg(gc, "overhead %+.2f%% [%+.2f%%, %+.2f%%] at %.0f%% confidence (%s)",
				o->pct, o->ci_lo, o->ci_hi, conf, tb_verdict_name(o->verdict));
			if (isfinite(lim) && o->ci_lo > lim) {
				fail(gc, "overhead");
				add_msg(gc,
					"exceeds max-overhead %g%%: the CI's lower bound is above it",
					lim);
			} else if (isfinite(lim) && o->pct > lim) {
				gc->warn = true;
				add_msg(gc,
					"above max-overhead %g%% but not significantly: measure more rounds",
					lim);
			}
		}
		if (untrusted) {
			if (g->allow) {
				gc->st = G_SKIP;
				add_msg(gc, "allowed by --allow-untrustworthy");
			} else {
				fail(gc, "untrustworthy");
			}
		}
		if (!g->has_old)
			continue;
		if (!w) {
			add_msg(gc, "not in %s: no regression check", g->old_name);
			continue;
		}
		double lim = 100 * g->max_regression;

		if (c->baseline) {
			add_msg(gc, "ns/op %+.2f%% [%+.2f%%, %+.2f%%] vs %s (p %.2g)", w->ns_pct,
				w->ns_ci_lo, w->ns_ci_hi, g->old_name, w->p);
			if (isfinite(lim) && w->ns_ci_lo > lim) {
				fail(gc, "regression");
				add_msg(gc,
					"baseline ns/op regressed by more than max-regression %g%%",
					lim);
			} else if (isfinite(lim) && w->ns_pct > lim) {
				gc->warn = true;
				add_msg(gc, "above max-regression %g%% but not significantly", lim);
			}
		} else if (w->traced) {
			add_msg(gc, "overhead change %+.2fpp [%+.2f, %+.2f] vs %s", w->ovh_change,
				w->ovh_ci_lo, w->ovh_ci_hi, g->old_name);
			if (isfinite(lim) && w->ovh_ci_lo > lim) {
				fail(gc, "regression");
				add_msg(gc,
					"overhead regressed by more than max-regression %g percentage points",
					lim);
			} else if (isfinite(lim) && w->ovh_change > lim) {
				gc->warn = true;
				add_msg(gc, "above max-regression %g pp but not significantly",
					lim);
			}
		}
	}
	for (size_t i = 0; i < g->ncells; i++) {
		g->nfail += g->cells[i].st == G_FAIL;
		g->nskip += g->cells[i].st == G_SKIP;
	}
}

/* ---- outputs --------------------------------------------------------------------------------- */

static const char *status_name(enum gstatus s)
{
	return s == G_FAIL ? "FAIL" : s == G_SKIP ? "SKIP" : "PASS";
}

static void fmt_limit(char *buf, size_t len, double frac, const char *unit)
{
	if (isfinite(frac))
		snprintf(buf, len, "%g%s", 100 * frac, unit);
	else
		snprintf(buf, len, "none");
}

static void print_table(FILE *f, const struct gate *g)
{
	char mo[32], mr[32];

	fmt_limit(mo, sizeof(mo), g->max_overhead, "%");
	fmt_limit(mr, sizeof(mr), g->max_regression, "%");
	fprintf(f, "gate: %s: %s (%zu of %zu cells failed%s)\n", g->name,
		g->nfail || !g->ncells ? "FAILED" : "PASSED", g->nfail, g->ncells,
		g->nskip ? ", some skipped" : "");
	fprintf(f,
		"  max-overhead %s, max-regression %s%s%s, alpha %g (CIs at %g%%), untrustworthy cells %s\n",
		mo, mr, g->has_old ? " vs " : " (no --baseline)", g->has_old ? g->old_name : "",
		g->alpha, 100 * (1 - g->alpha), g->allow ? "allowed" : "fail");
	for (size_t i = 0; i < g->ncells; i++) {
		const struct gcell *gc = &g->cells[i];

		fprintf(f, "  %s%s %-28s %s\n", status_name(gc->st), gc->warn ? "!" : " ",
			gc->c->id, gc->msg);
	}
}

/* XML text and attribute values. */
static void xml(FILE *f, const char *s)
{
	tb_fput_markup(f, s, SIZE_MAX);
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

static void write_junit(FILE *f, const struct gate *g)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites name=\"tracebench\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" errors=\"0\">\n",
		g->ncells, g->nfail, g->nskip);
	fprintf(f, "  <testsuite name=\"tracebench gate: ");
	xml(f, g->name);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\" errors=\"0\">\n", g->ncells,
		g->nfail, g->nskip);
	for (size_t i = 0; i < g->ncells; i++) {
		const struct gcell *gc = &g->cells[i];

		fprintf(f, "    <testcase classname=\"tracebench.");
		xml(f, gc->c->workload);
		fprintf(f, "\" name=\"");
		xml(f, gc->c->id);
		fprintf(f, "\" time=\"%.3f\">", cell_seconds(gc->c));
		if (gc->st == G_FAIL) {
			fprintf(f, "\n      <failure type=\"%s\" message=\"", gc->type);
			xml(f, gc->msg);
			fprintf(f, "\">");
			xml(f, gc->msg);
			fprintf(f, "</failure>\n    ");
		} else if (gc->st == G_SKIP) {
			fprintf(f, "\n      <skipped message=\"");
			xml(f, gc->msg);
			fprintf(f, "\"/>\n    ");
		} else {
			fprintf(f, "\n      <system-out>");
			xml(f, gc->msg);
			fprintf(f, "</system-out>\n    ");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

static void md(FILE *f, const char *s)
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

static void write_markdown(FILE *f, const struct gate *g)
{
	char mo[32], mr[32];

	fmt_limit(mo, sizeof(mo), g->max_overhead, "%");
	fmt_limit(mr, sizeof(mr), g->max_regression, "%");
	fprintf(f, "## tracebench gate: %s\n\n", g->nfail || !g->ncells ? "❌ failed" : "✅ passed");
	fprintf(f, "`");
	md(f, g->name);
	fprintf(f, "`: %zu of %zu cells failed%s. Limits: max-overhead %s, max-regression %s",
		g->nfail, g->ncells, g->nskip ? " (untrustworthy cells skipped)" : "", mo, mr);
	if (g->has_old) {
		fprintf(f, " against `");
		md(f, g->old_name);
		fprintf(f, "`");
	}
	fprintf(f,
		"; alpha %g (CIs at %g%%). A limit fails a cell only when the CI lies above it.\n\n",
		g->alpha, 100 * (1 - g->alpha));
	fprintf(f, "| | cell | overhead | CI | verdict | details |\n|---|---|---:|---|---|---|\n");
	for (size_t i = 0; i < g->ncells; i++) {
		const struct gcell *gc = &g->cells[i];
		const struct tb_overhead *o = &gc->c->overhead;

		fprintf(f, "| %s | `", gc->st == G_FAIL ? "❌" : gc->st == G_SKIP ? "⚠️" : "✅");
		md(f, gc->c->id);
		if (gc->c->has_overhead && isfinite(o->pct))
			fprintf(f, "` | %+.2f%% | [%+.2f%%, %+.2f%%] | %s | ", o->pct, o->ci_lo,
				o->ci_hi, tb_verdict_name(o->verdict));
		else
			fprintf(f, "` | | | %s | ", gc->c->baseline ? "baseline" : "-");
		md(f, gc->msg);
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

static json_t *benchmark_json(const struct gate *g)
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
static int write_out(const char *path, const struct gate *g,
		     void (*fn)(FILE *, const struct gate *), json_t *doc)
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
	ret = tb_write_atomic(path, buf, len, 0644);
	if (ret)
		tb_err("gate: cannot write %s: %s", path, strerror(-ret));
	free(buf);
	return ret;
}

int tb_gate_result(struct tb_result *r, struct tb_result *old, const struct tb_gate_opts *o,
		   FILE *out)
{
	struct gate g = {.o = o, .name = o->name ? o->name : "result"};
	double r_alpha = r->alpha, r_conf = r->confidence;
	double o_alpha = old ? old->alpha : 0, o_conf = old ? old->confidence : 0;
	struct tb_comparison *cmp = NULL;
	int ret = TB_EXIT_USAGE;

	g.old_name = o->baseline_name ? o->baseline_name : "the baseline result";
	g.has_old = old != NULL;
	if (resolve(&g, r))
		return TB_EXIT_USAGE;
	/* Analyse at the gate's confidence; restored (and re-analysed) before returning. */
	r->alpha = g.alpha;
	r->confidence = 1 - g.alpha;
	if (old) {
		old->alpha = g.alpha;
		old->confidence = 1 - g.alpha;
		if (tb_compare_build(old, r, g.old_name, g.name, g.alpha, &cmp)) {
			tb_err("gate: out of memory comparing with %s", g.old_name);
			ret = TB_EXIT_FAIL;
			goto out;
		}
	} else if (tb_stats_analyze(r)) {
		tb_err("gate: out of memory analysing %s", g.name);
		ret = TB_EXIT_FAIL;
		goto out;
	}
	g.ncells = r->ncells;
	g.cells = calloc(r->ncells ? r->ncells : 1, sizeof(*g.cells));
	if (!g.cells) {
		ret = TB_EXIT_FAIL;
		goto out;
	}
	evaluate(&g, r, cmp);
	if (out)
		print_table(out, &g);
	ret = TB_EXIT_USAGE;
	if (o->junit && write_out(o->junit, &g, write_junit, NULL))
		goto out;
	if (o->markdown && write_out(o->markdown, &g, write_markdown, NULL))
		goto out;
	if (o->benchmark_json) {
		json_t *doc = benchmark_json(&g);
		int w = doc ? write_out(o->benchmark_json, &g, NULL, doc) : -ENOMEM;

		json_decref(doc);
		if (w)
			goto out;
	}
	ret = g.nfail ? TB_EXIT_FAIL : TB_EXIT_OK;
	/* An empty result is a run that measured nothing: never a pass. */
	if (!r->ncells) {
		tb_err("gate: %s has no cells: nothing was measured", g.name);
		ret = TB_EXIT_FAIL;
	}
	if (r->partial)
		tb_warn("gate: %s is partial (stopped early: %s)", g.name,
			r->stop_reason ? r->stop_reason : "unknown reason");
out:
	tb_compare_free(cmp);
	free(g.cells);
	if (r->alpha != r_alpha || r->confidence != r_conf) {
		r->alpha = r_alpha;
		r->confidence = r_conf;
		tb_stats_analyze(r);
	}
	if (old && (old->alpha != o_alpha || old->confidence != o_conf)) {
		old->alpha = o_alpha;
		old->confidence = o_conf;
		tb_stats_analyze(old);
	}
	return ret;
}
