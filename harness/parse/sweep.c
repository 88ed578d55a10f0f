// SPDX-License-Identifier: GPL-2.0
/*
 * Sweeps (parse.h): `sweep = KEY: V1, V2, ...`, `KEY: FROM..TO xFACTOR` or `KEY: FROM..TO +STEP`
 * in a [workload] or [tracer] section varies one of its plugin's options. The section becomes
 * one section per value, `NAME[KEY=VALUE]`, each the section's own keys replayed with KEY set
 * to the value, so that every value is checked by the same readers and the plugin's validate
 * as a section written by hand, and the plan makes its cells like any other (interleaved in
 * the same shuffled rounds). The matrix names the swept section: it stands for all of them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "core/tb.h"
#include "parse/parse.h"

/* The longest value a cell's name takes (the name is NAME[KEY=VALUE], NAME at most 64). */
#define SWEEP_VALUE_MAX 32

void tb_scn_point_free(struct tb_scn_point *pt)
{
	free(pt->of);
	free(pt->key);
	free(pt->value);
	free(pt->unit);
	*pt = (struct tb_scn_point){.x = NAN};
}

/* What one section's sweep is being read into: its values and their numbers. */
struct sweep {
	const char *section; /* "workload NAME" or "tracer NAME", for messages */
	const struct tb_option *opt;
	int line;
	struct tb_strlist vals;
	double *xs;
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* v as a number in o's unit (bytes, ns, a fraction as percent), or NAN when o is not numeric
 * or v is not one of its values. */
static double number_of(const struct tb_option *o, const char *v)
{
	uint64_t u;
	int64_t i;
	double d;
	bool b;

	switch (o->type) {
	case TB_OPT_INT:
	case TB_OPT_UINT:
	case TB_OPT_SINT:
		return tb_parse_int(v, &i) ? NAN : (double)i;
	case TB_OPT_SIZE:
		return tb_parse_size(v, &u) ? NAN : (double)u;
	case TB_OPT_DURATION:
		return tb_parse_duration(v, &u) ? NAN : (double)u;
	case TB_OPT_DOUBLE:
		return tb_parse_double(v, &d) ? NAN : d;
	case TB_OPT_PERCENT:
		return tb_parse_percent(v, &d) ? NAN : d * 100;
	case TB_OPT_BOOL:
		return tb_parse_bool(v, &b) ? NAN : b;
	default:
		return NAN;
	}
}

/* A generated value of a range as o writes it: sizes and durations with their largest exact
 * unit (64K, 8M; 5us, 10ms), numbers as integers where they are. */
static void format_value(const struct tb_option *o, double x, char *buf, size_t len)
{
	static const struct {
		const char *u;
		double mul;
	} size_units[] = {{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"", 1}},
	  dur_units[] = {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}};
	const bool size = o->type == TB_OPT_SIZE;

	if (size || o->type == TB_OPT_DURATION) {
		for (size_t i = 0; i < 4; i++) {
			double mul = size ? size_units[i].mul : dur_units[i].mul;

			if (fmod(x, mul) == 0 || i == 3) {
				snprintf(buf, len, "%.0f%s", x / mul,
					 size ? size_units[i].u : dur_units[i].u);
				return;
			}
		}
	}
	if (o->type == TB_OPT_PERCENT)
		snprintf(buf, len, "%g%%", x);
	else
		snprintf(buf, len, "%.15g", x);
}

/* Letters, digits and . _ + - : %: what a value may hold to name a cell and its files. */
static bool value_names(const char *v)
{
	if (!*v || strlen(v) > SWEEP_VALUE_MAX)
		return false;
	for (; *v; v++)
		if (!(((*v | 0x20) >= 'a' && (*v | 0x20) <= 'z') || (*v >= '0' && *v <= '9') ||
		      strchr("._+-:%", *v)))
			return false;
	return true;
}

/* Keep value v (and its number) as the sweep's next; said when it cannot be. */
static int add_value(struct tb_scn_parse *p, struct sweep *sw, const char *v, unsigned int max)
{
	char **nv;
	double *nx;

	if (!value_names(v)) {
		tb_scn_perr(
			p, sw->line,
			"[%s]: sweep: %s: '%.40s' cannot name a cell (letters, digits and . _ + - : %% only, at most %d)",
			sw->section, sw->opt->name, v, SWEEP_VALUE_MAX);
		return -EINVAL;
	}
	for (size_t i = 0; i < sw->vals.n; i++)
		if (!strcmp(sw->vals.v[i], v)) {
			tb_scn_perr(p, sw->line, "[%s]: sweep: %s: '%s' listed twice", sw->section,
				    sw->opt->name, v);
			return -EINVAL;
		}
	if (sw->vals.n >= max) {
		tb_scn_perr(
			p, sw->line,
			"[%s]: sweep: %s: more than %u values, more cells than max-cells = %u ([global] max-cells)",
			sw->section, sw->opt->name, max, max);
		return -E2BIG;
	}
	nv = realloc(sw->vals.v, (sw->vals.n + 1) * sizeof(*nv));
	if (nv)
		sw->vals.v = nv;
	nx = nv ? realloc(sw->xs, (sw->vals.n + 1) * sizeof(*nx)) : NULL;
	if (nx)
		sw->xs = nx;
	if (!nv || !nx || !(sw->vals.v[sw->vals.n] = strdup(v))) {
		tb_scn_perr(p, sw->line, "out of memory");
		return -ENOMEM;
	}
	sw->xs[sw->vals.n++] = number_of(sw->opt, v);
	return 0;
}

static bool numeric(const struct tb_option *o)
{
	return o->type == TB_OPT_INT || o->type == TB_OPT_UINT || o->type == TB_OPT_SINT ||
	       o->type == TB_OPT_SIZE || o->type == TB_OPT_DURATION || o->type == TB_OPT_DOUBLE;
}

/* FROM..TO xFACTOR or FROM..TO +STEP into sw's values, rising from FROM up to TO. */
static int read_range(struct tb_scn_parse *p, struct sweep *sw, char *spec, unsigned int max)
{
	char *dots = strstr(spec, ".."), *to = dots + 2, *op, val[64];
	const char *name = sw->opt->name;
	double from, upto, by;
	bool geometric;
	int ret;

	*dots = '\0';
	op = to + strcspn(to, " \t");
	if (*op)
		*op++ = '\0';
	op = trim(op);
	geometric = *op == 'x' || *op == '*';
	if (!numeric(sw->opt)) {
		tb_scn_perr(
			p, sw->line,
			"[%s]: sweep: %s: a range needs a number, and %s is a %s: list its values",
			sw->section, name, name, tb_opt_type_name(sw->opt->type));
		return -EINVAL;
	}
	from = number_of(sw->opt, trim(spec));
	upto = number_of(sw->opt, trim(to));
	by = *op == '+' ? number_of(sw->opt, op + 1) : NAN;
	if (geometric && tb_parse_double(op + 1, &by))
		by = NAN;
	if (!isfinite(from) || !isfinite(upto) || !isfinite(by)) {
		tb_scn_perr(
			p, sw->line,
			"[%s]: sweep: %s: '%s..%s %s' is not FROM..TO xFACTOR or FROM..TO +STEP (each a %s)",
			sw->section, name, trim(spec), to, op, tb_opt_type_name(sw->opt->type));
		return -EINVAL;
	}
	if (!(upto > from) || (geometric ? !(by > 1) || !(from > 0) : !(by > 0))) {
		tb_scn_perr(p, sw->line,
			    "[%s]: sweep: %s: the range %s..%s %s does not rise: FROM below TO, %s",
			    sw->section, name, trim(spec), to, op,
			    geometric ? "FROM above 0 and a factor above 1" : "a step above 0");
		return -EINVAL;
	}
	for (double x = from; x <= upto * (1 + 1e-12); x = geometric ? x * by : x + by) {
		format_value(sw->opt, geometric && sw->opt->type != TB_OPT_DOUBLE ? round(x) : x,
			     val, sizeof(val));
		ret = add_value(p, sw, val, max);
		if (ret)
			return ret;
	}
	return 0;
}

/* The sweep key of a section (spec) into sw: its option (one of opts, named with did-you-mean
 * when it is none) and its values. Returns 0 or -EINVAL (said). */
static int read_spec(struct tb_scn_parse *p, struct sweep *sw, const struct tb_option *opts,
		     const char *type, const char *spec, unsigned int max)
{
	char buf[1024], *colon, *key, *rest, hint[96];
	struct tb_strlist items = {0};
	int ret = 0;

	snprintf(buf, sizeof(buf), "%s", spec);
	colon = strchr(buf, ':');
	if (!colon) {
		tb_scn_perr(
			p, sw->line,
			"[%s]: sweep: '%.60s' is not 'KEY: V1, V2, ...', 'KEY: FROM..TO xFACTOR' or 'KEY: FROM..TO +STEP'",
			sw->section, spec);
		return -EINVAL;
	}
	*colon = '\0';
	key = trim(buf);
	rest = trim(colon + 1);
	sw->opt = tb_opts_find(opts, key);
	if (!sw->opt) {
		struct tb_suggest sg;

		tb_suggest_init(&sg, key);
		tb_opts_suggest(opts, &sg);
		tb_scn_perr(p, sw->line, "[%s]: sweep: unknown key '%s' for %s%s", sw->section, key,
			    type, tb_suggest_text(&sg, hint, sizeof(hint)));
		return -EINVAL;
	}
	if (!strcmp(key, "type") || sw->opt->type == TB_OPT_ARGV) {
		tb_scn_perr(p, sw->line, "[%s]: sweep: %s cannot be swept (a %s)", sw->section, key,
			    tb_opt_type_name(sw->opt->type));
		return -EINVAL;
	}
	if (!*rest || !rest[strspn(rest, ", \t")]) {
		tb_scn_perr(p, sw->line, "[%s]: sweep: %s: an empty list of values", sw->section,
			    key);
		return -EINVAL;
	}
	if (strstr(rest, ".."))
		return read_range(p, sw, rest, max);
	if (tb_split_list(rest, &items)) {
		tb_scn_perr(p, sw->line, "[%s]: sweep: %s: an empty value in '%.60s'", sw->section,
			    key, rest);
		return -EINVAL;
	}
	for (size_t i = 0; i < items.n && !ret; i++)
		ret = add_value(p, sw, items.v[i], max);
	tb_strlist_free(&items);
	return ret;
}

/* Grow an array of sections by one, zeroed; NULL when it cannot (said). */
static void *grow(struct tb_scn_parse *p, void **arr, size_t *n, size_t size, int line)
{
	void *na = *n < TB_SCN_MAX_SECTIONS ? realloc(*arr, (*n + 1) * size) : NULL;

	if (!na) {
		tb_scn_perr(p, line, "sweep: too many sections (at most %d) or out of memory",
			    TB_SCN_MAX_SECTIONS);
		return NULL;
	}
	*arr = na;
	memset((char *)na + *n * size, 0, size);
	return (char *)na + (*n)++ * size;
}

/*
 * Replay the keys of the section at line sec (but type, sweep and the swept key) into the
 * current section (p->cur_idx, its type set), then the swept key with value at the sweep's
 * line, each through the section's reader, as if the section had been written with that value.
 */
static void replay(struct tb_scn_parse *p, int sec, const char *key, const char *value, int line,
		   void (*reader)(struct tb_scn_parse *, const char *, const char *))
{
	for (size_t k = 0; k < p->nkeys; k++) {
		const struct tb_scn_key *sk = &p->keys[k];

		if (sk->section != sec || !strcmp(sk->name, "type") || !strcmp(sk->name, "sweep") ||
		    !strcmp(sk->name, key))
			continue;
		p->line = sk->line;
		reader(p, sk->name, sk->value);
	}
	p->line = line;
	reader(p, key, value);
}

/* What one of the option's numbers is, to name a slope by: the option's own unit, a size's
 * byte, a duration's ns, else the key's singular ("calls" -> "call", "probes" -> "probe"). */
static char *unit_of(const struct tb_option *o)
{
	size_t n = strlen(o->name);

	if (o->unit)
		return strdup(o->unit);
	if (o->type == TB_OPT_SIZE)
		return strdup("byte");
	if (o->type == TB_OPT_DURATION)
		return strdup("ns");
	if (o->type == TB_OPT_PERCENT)
		return strdup("percentage point");
	if (n > 1 && o->name[n - 1] == 's' && o->name[n - 2] != 's')
		n--;
	return strndup(o->name, n);
}

/* The point of a made section: its name, and what it varies. Returns 0 or -ENOMEM (said). */
static int make_point(struct tb_scn_parse *p, const char *of, const struct sweep *sw, size_t i,
		      char **name, struct tb_scn_point *pt)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s[%s=%s]", of, sw->opt->name, sw->vals.v[i]);
	*name = strdup(buf);
	pt->of = strdup(of);
	pt->key = strdup(sw->opt->name);
	pt->value = strdup(sw->vals.v[i]);
	pt->unit = unit_of(sw->opt);
	pt->x = sw->xs[i];
	pt->line = sw->line;
	if (*name && pt->of && pt->key && pt->value && pt->unit)
		return 0;
	tb_scn_perr(p, sw->line, "out of memory");
	return -ENOMEM;
}

/* Workload section wi's sweep into its sections. */
static void expand_workload(struct tb_scn_parse *p, size_t wi)
{
	struct tb_scenario *s = p->s;
	struct tb_scn_workload *w = &s->workloads[wi];
	struct sweep sw = {.line = tb_scn_key_line(p, w->line, "sweep")};
	const int sec = w->line;
	char section[96], of[80];

	snprintf(section, sizeof(section), "workload %s", w->name);
	snprintf(of, sizeof(of), "%s", w->name);
	sw.section = section;
	if (!w->ops || read_spec(p, &sw, w->ops->opts, w->ops->name, w->sweep, s->max_cells))
		goto out;
	w->swept = true;
	for (size_t i = 0; i < sw.vals.n; i++) {
		const struct tb_workload_ops *ops = s->workloads[wi].ops;
		struct tb_scn_workload *c =
			grow(p, (void **)&s->workloads, &s->nworkloads, sizeof(*c), sw.line);

		if (!c || make_point(p, of, &sw, i, &c->name, &c->pt))
			break;
		c->line = sec;
		p->cur_idx = (ssize_t)(s->nworkloads - 1);
		snprintf(p->cur, sizeof(p->cur), "%s", section);
		p->line = sec;
		tb_scn_workload_key(p, "type", ops->name);
		replay(p, sec, sw.opt->name, sw.vals.v[i], sw.line, tb_scn_workload_key);
	}
out:
	tb_strlist_free(&sw.vals);
	free(sw.xs);
}

/* Tracer section ti's sweep into its sections. */
static void expand_tracer(struct tb_scn_parse *p, size_t ti)
{
	struct tb_scenario *s = p->s;
	struct tb_scn_tracer *t = &s->tracers[ti];
	struct sweep sw = {.line = tb_scn_key_line(p, t->line, "sweep")};
	const int sec = t->line;
	char section[96], of[80];

	snprintf(section, sizeof(section), "tracer %s", t->name);
	snprintf(of, sizeof(of), "%s", t->name);
	sw.section = section;
	if (!t->ops || read_spec(p, &sw, t->ops->opts, t->ops->name, t->sweep, s->max_cells))
		goto out;
	t->swept = true;
	for (size_t i = 0; i < sw.vals.n; i++) {
		const struct tb_tracer_ops *ops = s->tracers[ti].ops;
		struct tb_scn_tracer *c =
			grow(p, (void **)&s->tracers, &s->ntracers, sizeof(*c), sw.line);

		if (!c || make_point(p, of, &sw, i, &c->name, &c->pt))
			break;
		c->line = sec;
		p->cur_idx = (ssize_t)(s->ntracers - 1);
		snprintf(p->cur, sizeof(p->cur), "%s", section);
		p->line = sec;
		tb_scn_tracer_key(p, "type", ops->name);
		replay(p, sec, sw.opt->name, sw.vals.v[i], sw.line, tb_scn_tracer_key);
	}
out:
	tb_strlist_free(&sw.vals);
	free(sw.xs);
}

void tb_scn_expand_sweeps(struct tb_scn_parse *p)
{
	struct tb_scenario *s = p->s;
	const size_t nw = s->nworkloads, nt = s->ntracers;

	p->cut = NULL; /* the replayed values were checked for inline comments when read */
	for (size_t i = 0; i < nw; i++)
		if (s->workloads[i].sweep)
			expand_workload(p, i);
	for (size_t i = 1; i < nt; i++)
		if (s->tracers[i].sweep)
			expand_tracer(p, i);
}

void tb_scn_check_sweep_cells(struct tb_scn_parse *p)
{
	const struct tb_scenario *s = p->s;
	size_t cells = 0;
	int line = 0;

	for (size_t i = 0; i < s->nworkloads && !line; i++)
		line = s->workloads[i].pt.line;
	for (size_t i = 1; i < s->ntracers && !line; i++)
		line = s->tracers[i].pt.line;
	if (!line)
		return; /* no sweep: the limit is a sweep's */
	for (size_t i = 0; i < s->nmx_workloads; i++) {
		const struct tb_scn_workload *w = &s->workloads[s->mx_workloads[i]];

		for (size_t j = 0; j < s->nmx_tracers; j++)
			cells += !tb_scenario_excluded(s, s->mx_workloads[i], s->mx_tracers[j]) &&
				 tb_scenario_runs_on(&s->tracers[s->mx_tracers[j]], w->name);
	}
	if (cells > s->max_cells)
		tb_scn_perr(
			p, line,
			"sweep: the matrix with its sweeps makes %zu cells, more than max-cells = %u ([global] max-cells)",
			cells, s->max_cells);
}
