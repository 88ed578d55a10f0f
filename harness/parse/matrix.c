// SPDX-License-Identifier: GPL-2.0
/*
 * The matrix (parse.h): [matrix]'s names resolved to sections, its exclude patterns and the
 * tracers' 'workloads' keys checked against it (the lookups by name are ini.c's).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "parse/parse.h"

unsigned int tb_scenario_first_rounds(const struct tb_scenario *s)
{
	return s->precision > 0 ? s->min_rounds : s->rounds;
}

bool tb_scenario_accounting_round(const struct tb_scenario *s, unsigned int round)
{
	return round % s->accounting_every == 0;
}

unsigned int tb_scenario_accounting_rounds(const struct tb_scenario *s, unsigned int rounds)
{
	return rounds ? (rounds - 1) / s->accounting_every + 1 : 0;
}

bool tb_scenario_excluded(const struct tb_scenario *s, size_t wi, size_t ti)
{
	const struct tb_scn_workload *w = &s->workloads[wi];
	const struct tb_scn_tracer *t = &s->tracers[ti];
	char pair[512];

	if (ti == 0)
		return false;
	/*
	 * A sweep's cell is also its swept sections' pair ('calls/tp' leaves out every point),
	 * and a point's name is matched as written too ('calls[calls=2]/tp': a glob would take
	 * the brackets for a set of characters).
	 */
	for (int k = 0; k < 4; k++) {
		if ((k & 1 && !w->pt.of) || (k & 2 && !t->pt.of))
			continue;
		snprintf(pair, sizeof(pair), "%s/%s", k & 1 ? w->pt.of : w->name,
			 k & 2 ? t->pt.of : t->name);
		for (size_t i = 0; i < s->mx_exclude.n; i++)
			if (!fnmatch(s->mx_exclude.v[i], pair, 0) ||
			    !strcmp(s->mx_exclude.v[i], pair))
				return true;
	}
	return false;
}

/*
 * [matrix] exclude: WORKLOAD/TRACER glob patterns. Each must have one '/' and leave out at
 * least one traced cell of the matrix (a pattern that matches nothing is a typo).
 */
static int resolve_exclude(struct tb_scn_parse *p)
{
	struct tb_scenario *s = p->s;
	size_t i, w, t;

	s->mx_exclude = p->mx_x;
	p->mx_x = (struct tb_strlist){0};
	for (i = 0; i < s->mx_exclude.n; i++) {
		const char *pat = s->mx_exclude.v[i], *slash = strchr(pat, '/');
		struct tb_strlist one = {.v = &s->mx_exclude.v[i], .n = 1}, all = s->mx_exclude;
		bool hit = false;

		if (!slash || strchr(slash + 1, '/')) {
			tb_scn_perr(
				p, p->mx_exclude_line,
				"[matrix]: exclude: '%s' is not WORKLOAD/TRACER (globs allowed)",
				pat);
			continue;
		}
		s->mx_exclude = one;
		for (w = 0; !hit && w < s->nmx_workloads; w++)
			for (t = 1; !hit && t < s->nmx_tracers; t++)
				hit = tb_scenario_excluded(s, s->mx_workloads[w], s->mx_tracers[t]);
		s->mx_exclude = all;
		if (!hit)
			tb_scn_perr(p, p->mx_exclude_line,
				    "[matrix]: exclude: '%s' matches no traced cell of the matrix",
				    pat);
	}
	return 0;
}

bool tb_scenario_runs_on(const struct tb_scn_tracer *t, const char *workload)
{
	for (size_t k = 0; k < t->only.n; k++) {
		size_t n = strlen(t->only.v[k]);

		/* NAME also names every point of its sweep, NAME[KEY=VALUE] */
		if (!strncmp(t->only.v[k], workload, n) && (!workload[n] || workload[n] == '['))
			return true;
	}
	return !t->only.n;
}

/* The matrix's entries for section idx: itself, or the sections its sweep made. */
static void mx_add(struct tb_scn_parse *p, bool wl, int idx, int line, const char *name)
{
	struct tb_scenario *s = p->s;
	size_t n = wl ? s->nworkloads : s->ntracers, *mx = wl ? s->mx_workloads : s->mx_tracers;
	size_t *count = wl ? &s->nmx_workloads : &s->nmx_tracers;

	for (size_t k = 0; k < n; k++) {
		const char *of = wl ? s->workloads[k].pt.of : s->tracers[k].pt.of;
		bool swept = wl ? s->workloads[idx].swept : s->tracers[idx].swept;

		bool twice = false;

		if (swept ? !of || strcmp(of, name) : k != (size_t)idx)
			continue;
		for (size_t j = 0; j < *count; j++)
			twice |= mx[j] == k;
		if (twice) {
			tb_scn_perr(p, line, "[matrix]: %s '%s' listed twice",
				    wl ? "workload" : "tracer", name);
			return;
		}
		if (wl)
			s->workloads[k].used = true;
		else
			s->tracers[k].used = true;
		mx[(*count)++] = k;
	}
}

/* Each tracer's 'workloads' names workloads of the matrix, once each. */
static void resolve_only(struct tb_scn_parse *p)
{
	struct tb_scenario *s = p->s;

	for (size_t i = 1; i < s->ntracers; i++) {
		const struct tb_scn_tracer *t = &s->tracers[i];
		int line = tb_scn_key_line(p, t->line, "workloads");

		for (size_t k = 0; k < t->only.n; k++) {
			int idx = tb_scenario_workload(s, t->only.v[k]);
			bool listed = false;

			for (size_t j = 0; idx >= 0 && j < s->nmx_workloads; j++)
				listed |= s->mx_workloads[j] == (size_t)idx ||
					  tb_streq(s->workloads[s->mx_workloads[j]].pt.of,
						   t->only.v[k]);
			if (!listed)
				tb_scn_perr(
					p, line,
					"[tracer %s]: workloads: '%s' is not a workload of the [matrix]",
					t->name, t->only.v[k]);
			for (size_t j = 0; j < k; j++)
				if (!strcmp(t->only.v[j], t->only.v[k]))
					tb_scn_perr(p, line,
						    "[tracer %s]: workloads: '%s' listed twice",
						    t->name, t->only.v[k]);
		}
	}
}

/* The closest defined section name to a [matrix] name that is none (workloads or tracers). */
static const char *section_hint(const struct tb_scenario *s, bool wl, const char *name, char *buf,
				size_t n)
{
	struct tb_suggest sg;

	tb_suggest_init(&sg, name);
	for (size_t i = 0; wl && i < s->nworkloads; i++)
		tb_suggest_offer(&sg, s->workloads[i].name);
	for (size_t i = 0; !wl && i < s->ntracers; i++)
		tb_suggest_offer(&sg, s->tracers[i].name);
	return tb_suggest_text(&sg, buf, n);
}

int tb_scn_resolve_matrix(struct tb_scn_parse *p)
{
	struct tb_scenario *s = p->s;
	char hint[96];
	size_t i;
	int idx;

	if (!p->have_matrix || !p->mx_w.n) {
		/* An empty file has no line 0: point at line 1. */
		tb_scn_perr(p,
			    p->have_matrix ? p->matrix_line
			    : p->line	   ? p->line
					   : 1,
			    "no [matrix] with 'workloads = ...' (and 'tracers = ...')");
		return -EINVAL;
	}
	/* room for every section: a swept one stands for all of its points */
	s->mx_workloads = calloc(p->mx_w.n + s->nworkloads, sizeof(size_t));
	s->mx_tracers = calloc(p->mx_t.n + s->ntracers + 1, sizeof(size_t));
	if (!s->mx_workloads || !s->mx_tracers)
		return -ENOMEM;
	for (i = 0; i < p->mx_w.n; i++) {
		idx = tb_scenario_workload(s, p->mx_w.v[i]);
		if (idx < 0) {
			tb_scn_perr(p, p->mx_workloads_line,
				    "[matrix]: workload '%s' is not defined%s", p->mx_w.v[i],
				    section_hint(s, true, p->mx_w.v[i], hint, sizeof(hint)));
			continue;
		}
		mx_add(p, true, idx, p->mx_workloads_line, p->mx_w.v[i]);
	}
	/* The baseline always runs, first in the list. */
	s->mx_tracers[s->nmx_tracers++] = 0;
	s->tracers[0].used = true;
	for (i = 0; i < p->mx_t.n; i++) {
		idx = tb_scenario_tracer(s, p->mx_t.v[i]);
		if (idx < 0) {
			tb_scn_perr(p, p->mx_tracers_line, "[matrix]: tracer '%s' is not defined%s",
				    p->mx_t.v[i],
				    section_hint(s, false, p->mx_t.v[i], hint, sizeof(hint)));
			continue;
		}
		if (idx == 0)
			continue;
		mx_add(p, false, idx, p->mx_tracers_line, p->mx_t.v[i]);
	}
	resolve_only(p);
	return resolve_exclude(p);
}
