// SPDX-License-Identifier: GPL-2.0
/* The text and JSON outputs of `tracebench history` (history-formats.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "history/analysis.h"
#include "render/history-formats.h"
#include "render/text.h"
#include "model/json-util.h"

#define VALUE_MAX 60 /* environment values longer than this are cut in text */

/* ---- series and runs ------------------------------------------------------------------------- */

void tb_render_history_series_print(FILE *f, const struct tb_hseries *s, size_t n)
{
	fprintf(f, "%-12s %-56s %-8s %-8s %5s  %-20s  %-20s\n", "id", "series", "hw", "scenario",
		"runs", "first", "last");
	for (size_t i = 0; i < n; i++) {
		char nb[64];

		fprintf(f, "%-12s %-56s %-8.8s %-8.8s %5zu  %-20s  %-20s\n", s[i].id,
			tb_shorten(nb, sizeof(nb), s[i].name, 56), s[i].hw_class,
			s[i].variant ? s[i].variant : "*", s[i].nruns, s[i].first, s[i].last);
	}
}

json_t *tb_render_history_series_json(const struct tb_hseries *s)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:I, s:s, s:s}", "id",
			 s->id, "name", s->name, "scenario", s->scenario, "workload", s->workload,
			 "tracer", s->tracer, "metric", s->metric_name, "scenario_variant",
			 tb_json_str_or_null(s->variant), "hw_class", s->hw_class, "hw", s->hw_desc,
			 "runs", (json_int_t)s->nruns, "first", s->first, "last", s->last);
}

/* "k=v, k=v" of a labels object into buf ("" without labels). */
static const char *labels_text(char *buf, size_t len, const json_t *labels)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	buf[0] = '\0';
	json_object_foreach((json_t *)labels, k, v)
	{
		if (n + 2 >= len)
			break;
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", n ? ", " : "", k,
				      json_is_string(v) ? json_string_value(v) : "?");
		if (n >= len)
			n = len - 1;
	}
	return buf;
}

void tb_render_history_run_print(FILE *f, const struct tb_history_run *run)
{
	char l[512], sb[64], hb[40];

	fprintf(f, "%6lld  %-20s  %-24s %-16s %-24s %s\n", (long long)run->id, run->started,
		tb_shorten(sb, sizeof(sb), run->scenario, 24),
		tb_shorten(hb, sizeof(hb), run->host, 16), run->kernel ? run->kernel : "-",
		labels_text(l, sizeof(l), run->labels));
}

json_t *tb_render_history_run_json(const struct tb_history_run *run)
{
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:O}", "id",
			 (json_int_t)run->id, "hash", run->hash, "started", run->started,
			 "finished", run->finished, "added", run->added, "scenario",
			 tb_json_str_or_null(run->scenario), "scenario_variant",
			 run->variant ? run->variant : "", "hw_class",
			 run->hw_class ? run->hw_class : "", "host", tb_json_str_or_null(run->host),
			 "kernel", tb_json_str_or_null(run->kernel), "tool_version",
			 tb_json_str_or_null(run->tool_version), "source",
			 tb_json_str_or_null(run->source), "labels", run->labels);
}

/* ---- detection settings ---------------------------------------------------------------------- */

void tb_render_history_detect_settings_print(FILE *f, const struct tb_detect_opts *o,
					     bool comparable)
{
	fprintf(f,
		"change points: window %zu, p < %g (points and pooled samples), min magnitude %g%%, CIs at %g%%%s\n",
		o->window, o->p_value, 100 * o->min_magnitude, 100 * o->confidence,
		comparable ? ", scenario texts joined (--comparable)" : "");
}

json_t *tb_render_history_detect_settings_json(const struct tb_detect_opts *o, bool comparable)
{
	return json_pack("{s:I, s:f, s:f, s:f, s:I, s:b}", "window", (json_int_t)o->window,
			 "p_value", o->p_value, "min_magnitude", o->min_magnitude, "confidence",
			 o->confidence, "min_segment", (json_int_t)TB_DETECT_MIN_SEGMENT,
			 "comparable", comparable);
}

/* ---- change points ---------------------------------------------------------------------------- */

/* A value of s's metric with its unit: "244.2 ns", "+5.00%", "12 events". */
static const char *value_text(char *buf, size_t len, const struct tb_hseries *s, double v)
{
	const char *unit = s->metric ? s->metric->unit : "";

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%+.2f%%", v);
	else if (!strcmp(unit, "ns"))
		snprintf(buf, len, "%.1f ns", v);
	else
		snprintf(buf, len, "%.4g %s", v, unit);
	return buf;
}

/* "baseline ns/op of getpid" / "overhead % of tp-getpid on getpid". */
static const char *subject(char *buf, size_t len, const struct tb_hseries *s)
{
	if (s->metric && !strcmp(s->metric->name, "ns_per_op"))
		snprintf(buf, len, "baseline ns/op of %s", s->workload);
	else
		snprintf(buf, len, "%s of %s on %s", s->metric ? s->metric->what : s->metric_name,
			 s->tracer, s->workload);
	return buf;
}

/* The change with its CI in the metric's terms: % for relative metrics, else its unit. */
static const char *change_text(char *buf, size_t len, const struct tb_hseries *s,
			       const struct tb_change *c)
{
	enum tb_hmag mag = s->metric ? s->metric->mag : TB_HMAG_RELATIVE;
	const char *unit = s->metric ? s->metric->unit : "";

	if (mag == TB_HMAG_RELATIVE && isfinite(c->change_pct))
		snprintf(buf, len, "%+.2f%% [%+.2f, %+.2f]", c->change_pct, c->pct_lo, c->pct_hi);
	else if (!strcmp(unit, "%"))
		snprintf(buf, len, "%+.2f pp [%+.2f, %+.2f]", c->change, c->ci_lo, c->ci_hi);
	else
		snprintf(buf, len, "%+.4g %s [%+.4g, %+.4g]", c->change, unit, c->ci_lo, c->ci_hi);
	return buf;
}

const char *tb_render_history_change_sentence(char *buf, size_t len, const struct tb_hseries *s,
					      const struct tb_hchange *x, size_t npoints)
{
	char subj[256], chg[128], b[48], a[48], l[300], ps[48] = "";
	const struct tb_change *c = &x->c;

	labels_text(l, sizeof(l), x->labels);
	if (isfinite(c->p_samples))
		snprintf(ps, sizeof(ps), ", samples p %.2g", c->p_samples);
	snprintf(buf, len, "%s %s (%s -> %s) at run %zu of %zu (%s%s%s); p %.2g%s",
		 subject(subj, sizeof(subj), s), change_text(chg, sizeof(chg), s, c),
		 value_text(b, sizeof(b), s, c->before), value_text(a, sizeof(a), s, c->after),
		 c->index + 1, npoints, x->started, *l ? ", " : "", l, c->p, ps);
	return buf;
}

static const char *const where[] = {"one run before", "at the same run", "one run after"};

void tb_render_history_change_env_print(FILE *f, const struct tb_hchange *x, const char *indent)
{
	bool any = false;

	if (strcmp(x->variant_before, x->variant_after)) {
		fprintf(f, "%sthe scenario text changed (%s -> %s) at the same run\n", indent,
			x->variant_before, x->variant_after);
		any = true;
	}
	for (int k = 1; k < 4; k++) {
		const struct tb_hdiffs *d = &x->diffs[k % 3]; /* at the run first, then around it */

		for (size_t i = 0; i < d->n; i++) {
			char va[VALUE_MAX + 8], vb[VALUE_MAX + 8];

			fprintf(f, "%s%s %s -> %s changed %s\n", indent, d->d[i].key,
				d->d[i].a ? tb_shorten(va, sizeof(va), d->d[i].a, VALUE_MAX)
					  : "(absent)",
				d->d[i].b ? tb_shorten(vb, sizeof(vb), d->d[i].b, VALUE_MAX)
					  : "(absent)",
				where[d->offset + 1]);
			any = true;
		}
	}
	if (!any)
		fprintf(f, "%sno environment field changed at this run or next to it\n", indent);
}

void tb_render_history_detect_print(FILE *f, const struct tb_hanalysis *a, bool all)
{
	const struct tb_hseries *s = a->s;
	char line[1024];

	if (!a->nch && !all)
		return;
	fprintf(f, "%s [%s] (%zu runs, %s, scenario %s): %zu change point%s\n", s->name, s->id,
		s->nruns, s->hw_desc, s->variant ? s->variant : "*", a->nch,
		a->nch == 1 ? "" : "s");
	for (size_t i = 0; i < a->nch; i++) {
		fprintf(f, "  %s\n",
			tb_render_history_change_sentence(line, sizeof(line), s, &a->ch[i],
							  s->nruns));
		tb_render_history_change_env_print(f, &a->ch[i], "    ");
	}
}

void tb_render_history_show_print(FILE *f, const struct tb_hanalysis *a)
{
	const struct tb_hseries *s = a->s;
	const struct tb_hdata *d = &a->data;
	size_t next = 0;

	fprintf(f, "%s [%s]: %s on %s (hw class %s, scenario %s), %zu runs\n", s->name, s->id,
		s->metric ? s->metric->what : s->metric_name, s->hw_desc, s->hw_class,
		s->variant ? s->variant : "*", d->n);
	fprintf(f, "  %5s %7s  %-20s  %14s  %-30s %5s  %s\n", "#", "run", "started", "value", "CI",
		"n", "verdict");
	for (size_t i = 0; i < d->n; i++) {
		const struct tb_hrec *r = &d->rec[i];
		char v[48], lo[48], hi[48], ci[100] = "-";

		if (next < a->nch && a->ch[next].c.index == i) {
			char line[1024];

			fprintf(f, "  --- %s\n",
				tb_render_history_change_sentence(line, sizeof(line), s,
								  &a->ch[next], d->n));
			next++;
		}
		if (isfinite(r->ci_lo) && isfinite(r->ci_hi))
			snprintf(ci, sizeof(ci), "[%s, %s]",
				 value_text(lo, sizeof(lo), s, r->ci_lo),
				 value_text(hi, sizeof(hi), s, r->ci_hi));
		fprintf(f, "  %5zu %7lld  %-20s  %14s  %-30s %5zu  %s\n", i + 1,
			(long long)r->run_id, r->started, value_text(v, sizeof(v), s, r->value), ci,
			d->off[i + 1] - d->off[i], *r->verdict ? r->verdict : "-");
	}
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static json_t *env_json(const struct tb_hchange *x)
{
	json_t *arr = json_array();

	for (int k = 0; arr && k < 3; k++) {
		const struct tb_hdiffs *d = &x->diffs[k];

		for (size_t i = 0; i < d->n; i++) {
			json_t *e = json_pack("{s:s, s:o, s:o, s:i, s:b}", "key", d->d[i].key,
					      "before", tb_json_str_or_null(d->d[i].a), "after",
					      tb_json_str_or_null(d->d[i].b), "offset", d->offset,
					      "hardware", d->d[i].hardware);

			if (!e || json_array_append_new(arr, e)) {
				json_decref(arr);
				return NULL;
			}
		}
	}
	return arr;
}

static json_t *change_json(const struct tb_hchange *x)
{
	const struct tb_change *c = &x->c;

	return json_pack(
		"{s:I, s:I, s:I, s:s, s:O, s:{s:o, s:I}, s:{s:o, s:I}, s:o, s:o, s:o, "
		"s:o, s:o, s:o, s:o, s:b, s:s, s:s, s:o}",
		"index", (json_int_t)c->index, "run", (json_int_t)(c->index + 1), "run_id",
		(json_int_t)x->run_id, "time", x->started, "labels", x->labels, "before", "median",
		tb_json_num(c->before), "points", (json_int_t)(c->index - c->start), "after",
		"median", tb_json_num(c->after), "points", (json_int_t)(c->end - c->index),
		"change", tb_json_num(c->change), "ci", tb_json_pair(c->ci_lo, c->ci_hi),
		"change_pct", tb_json_num(c->change_pct), "change_pct_ci",
		tb_json_pair(c->pct_lo, c->pct_hi), "p", tb_json_num(c->p), "p_samples",
		tb_json_num(c->p_samples), "magnitude",
		tb_json_num(isfinite(c->magnitude) ? c->magnitude : NAN), "scenario_changed",
		strcmp(x->variant_before, x->variant_after) != 0, "scenario_before",
		x->variant_before, "scenario_after", x->variant_after, "environment", env_json(x));
}

static json_t *points_json(const struct tb_hdata *d)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < d->n; i++) {
		const struct tb_hrec *r = &d->rec[i];
		json_t *smp = json_array(), *e;

		for (size_t k = d->off[i]; smp && k < d->off[i + 1]; k++)
			json_array_append_new(smp, json_real(d->samples[k]));
		e = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o}", "run_id", (json_int_t)r->run_id,
			      "started", r->started, "value", tb_json_num(r->value), "ci",
			      tb_json_pair(r->ci_lo, r->ci_hi), "verdict",
			      tb_json_str_or_null(*r->verdict ? r->verdict : NULL), "samples",
			      smp ? smp : json_null());
		if (!e || json_array_append_new(arr, e)) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *tb_render_history_analysis_json(const struct tb_hanalysis *a, bool points)
{
	json_t *o = tb_render_history_series_json(a->s), *chs = json_array();

	for (size_t i = 0; o && chs && i < a->nch; i++) {
		json_t *c = change_json(&a->ch[i]);

		if (!c || json_array_append_new(chs, c))
			goto fail;
	}
	if (!o || !chs || json_object_set_new(o, "change_points", chs))
		goto fail;
	chs = NULL;
	if (points && json_object_set_new(o, "points", points_json(&a->data)))
		goto fail;
	return o;
fail:
	json_decref(o);
	json_decref(chs);
	return NULL;
}
