// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario parsing (scenario.h; the steps share parse.h): the text checked, read (ini.c and
 * the key readers), the matrix resolved (matrix.c), then finished here: every section has its
 * type and passes its plugin's checks, and takes the [global] value of each harness key it
 * does not set.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/utf8.h"
#include "parse/parse.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

/* Whether the section at line sets the harness's key name (not a plugin's key of that name). */
static bool sets(const struct tb_scn_parse *p, int line, const struct tb_option *plugin_opts,
		 const char *name)
{
	return tb_scn_key_line(p, line, name) && !tb_opts_find(plugin_opts, name);
}

static void finish_workload(struct tb_scn_parse *p, struct tb_scn_workload *w)
{
	const struct tb_scenario *s = p->s;
	const struct tb_option *own;
	char err[512];

	if (!w->ops) {
		tb_scn_perr(p, w->line, "[workload %s]: no 'type' key", w->name);
		return;
	}
	own = w->ops->opts;
	if (w->ops->validate && w->ops->validate(w->cfg, err, sizeof(err)))
		tb_scn_perr(p, tb_scn_msg_line(p, w->line, err), "[workload %s]: %s", w->name, err);
	if (!sets(p, w->line, own, "threads"))
		w->threads = s->threads;
	if (!sets(p, w->line, own, "latency-every"))
		w->latency_every = s->latency_every;
	w->duration_set =
		sets(p, w->line, own, "duration") || (w->pt.key && !strcmp(w->pt.key, "duration"));
	if (!w->duration_set)
		w->duration_ns = s->duration_ns;
	if (s->latency)
		w->latency = true;
	if (w->latency && (w->ops->flags & TB_WL_NOLATENCY))
		/* The key that asked for it: the section's own, else [global]'s (the section's
		 * header only when neither line is known). */
		tb_scn_perr(
			p,
			sets(p, w->line, own, "latency") ? tb_scn_key_line(p, w->line, "latency")
			: tb_scn_key_line(p, p->global_line, "latency")
				? tb_scn_key_line(p, p->global_line, "latency")
				: w->line,
			"[workload %s]: latency mode is not available for %s%s", w->name,
			w->ops->name,
			sets(p, w->line, own, "latency") ? "" : " (latency = true in [global])");
}

static void finish_tracer(struct tb_scn_parse *p, struct tb_scn_tracer *t)
{
	const struct tb_scenario *s = p->s;
	char err[512];

	if (!t->ops) {
		tb_scn_perr(p, t->line, "[tracer %s]: no 'type' key", t->name);
		return;
	}
	if ((t->ops->resolve && t->ops->resolve(t->cfg, p->dir, err, sizeof(err))) ||
	    (t->ops->validate && t->ops->validate(t->cfg, err, sizeof(err))))
		tb_scn_perr(p, tb_scn_msg_line(p, t->line, err), "[tracer %s]: %s", t->name, err);
	t->settle_set = sets(p, t->line, t->ops->opts, "settle") ||
			(t->pt.key && !strcmp(t->pt.key, "settle"));
	if (!t->settle_set)
		t->settle_ns = s->settle_ns;
	if (!sets(p, t->line, t->ops->opts, "explain"))
		t->explain = s->explain;
}

/* After parsing: types present, plugin validation, the [global] values sections inherit. */
static void finish(struct tb_scn_parse *p)
{
	struct tb_scenario *s = p->s;
	int line;
	size_t i;

	s->duration_set = tb_scn_key_line(p, p->global_line, "duration") != 0;
	s->settle_set = tb_scn_key_line(p, p->global_line, "settle") != 0;
	s->min_rounds_set = tb_scn_key_line(p, p->global_line, "min-rounds") != 0;
	s->max_rounds_set = tb_scn_key_line(p, p->global_line, "max-rounds") != 0;
	s->accounting_every_set = tb_scn_key_line(p, p->global_line, "accounting-every") != 0;
	for (i = 0; i < s->nworkloads; i++)
		finish_workload(p, &s->workloads[i]);
	for (i = 1; i < s->ntracers; i++)
		finish_tracer(p, &s->tracers[i]);
	s->tracers[0].settle_ns = s->settle_ns;
	if (s->min_rounds > s->max_rounds) {
		/* the later of the two keys: the one that made them disagree */
		line = tb_scn_key_line(p, p->global_line, "min-rounds");
		if (tb_scn_key_line(p, p->global_line, "max-rounds") > line)
			line = tb_scn_key_line(p, p->global_line, "max-rounds");
		tb_scn_perr(p, line ? line : 1,
			    "[global]: min-rounds (%u) is above max-rounds (%u)", s->min_rounds,
			    s->max_rounds);
	}
}

void tb_scenario_free(struct tb_scenario *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nworkloads; i++) {
		if (s->workloads[i].ops)
			tb_opts_free(s->workloads[i].ops->opts, s->workloads[i].cfg);
		free(s->workloads[i].cfg);
		free(s->workloads[i].name);
		free(s->workloads[i].sweep);
		tb_scn_point_free(&s->workloads[i].pt);
	}
	for (i = 0; i < s->ntracers; i++) {
		if (s->tracers[i].ops && s->tracers[i].cfg)
			tb_opts_free(s->tracers[i].ops->opts, s->tracers[i].cfg);
		free(s->tracers[i].cfg);
		free(s->tracers[i].name);
		free(s->tracers[i].sweep);
		tb_scn_point_free(&s->tracers[i].pt);
		tb_strlist_free(&s->tracers[i].only);
	}
	for (i = 0; i < s->ngate; i++) {
		free(s->gate_keys[i]);
		free(s->gate_vals[i]);
	}
	free(s->gate_keys);
	free(s->gate_vals);
	free(s->workloads);
	free(s->tracers);
	free(s->mx_workloads);
	free(s->mx_tracers);
	tb_strlist_free(&s->mx_exclude);
	tb_strlist_free(&s->cpus);
	free(s->path);
	free(s->name);
	free(s->description);
	free(s->text);
	free(s);
}

/* Refuse what cannot be a scenario: too large, or binary. Returns 0 or -EINVAL (said). */
static int check_text(const char *text, const char *what)
{
	size_t i, k;
	long bad;

	if (strlen(text) > TB_SCN_MAX_TEXT) {
		tb_err("%s: larger than %u bytes: not a scenario file", what, TB_SCN_MAX_TEXT);
		return -EINVAL;
	}
	for (i = 0; text[i]; i++) {
		unsigned char c = (unsigned char)text[i];
		int line = 1;

		if (c >= 0x20 || c == '\n' || c == '\t' || c == '\r')
			continue;
		for (k = 0; k < i; k++)
			line += text[k] == '\n';
		tb_err("%s:%d: binary data (byte 0x%02x): not a scenario file", what, line, c);
		return -EINVAL;
	}
	/* A command or a description that is not UTF-8 could not be stored in result.json. */
	bad = tb_utf8_invalid_at(text);
	if (bad >= 0) {
		int line = 1;

		for (k = 0; k < (size_t)bad; k++)
			line += text[k] == '\n';
		tb_err("%s:%d: invalid UTF-8 (byte 0x%02x): scenario files are UTF-8 text", what,
		       line, (unsigned char)text[bad]);
		return -EINVAL;
	}
	return 0;
}

/* tracers[0] is the built-in baseline "none". Returns 0 or -ENOMEM. */
static int add_baseline_tracer(struct tb_scenario *s)
{
	const struct tb_tracer_ops *none = tb_tracer_find("none");

	s->tracers = calloc(1, sizeof(*s->tracers));
	if (!s->tracers || !none) {
		tb_err("bug: the 'none' tracer is not registered");
		return -ENOMEM;
	}
	s->ntracers = 1;
	s->tracers[0].name = strdup("none");
	s->tracers[0].ops = none;
	s->tracers[0].cfg = calloc(1, none->cfg_size ? none->cfg_size : 1);
	return s->tracers[0].name && s->tracers[0].cfg ? 0 : -ENOMEM;
}

/* The file's identity into s, and its name when [global] has none. Returns 0 or -ENOMEM. */
static int identity(struct tb_scenario *s, const char *text, const char *what)
{
	char *base, *dot;

	s->text = strdup(text);
	s->path = strdup(what);
	if (!s->name) {
		base = strdup(what);
		s->name = base ? strdup(basename(base)) : NULL;
		free(base);
		dot = s->name ? strrchr(s->name, '.') : NULL;
		if (dot && !strcmp(dot, ".ini"))
			*dot = '\0';
	}
	return s->text && s->path && s->name ? 0 : -ENOMEM;
}

/* The absolute directory of the scenario file what (the working directory for a bare name). */
static void scenario_dir(const char *what, char *dir, size_t len)
{
	char copy[4096], *abs;

	snprintf(copy, sizeof(copy), "%s", what);
	abs = realpath(dirname(copy), NULL);
	snprintf(dir, len, "%s", abs ? abs : ".");
	free(abs);
}

int tb_scenario_parse(const char *text, const char *what, struct tb_scenario **out)
{
	struct tb_scn_parse p = {0};
	struct tb_scenario *s;
	int ret;

	*out = NULL;
	if (!strncmp(text, "\xef\xbb\xbf", 3))
		text += 3; /* a UTF-8 byte order mark, as some editors write */
	if (check_text(text, what))
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	p.s = s;
	s->limit_rate = NAN;
	p.what = what;
	p.text = p.pos = text;
	scenario_dir(what, p.dir, sizeof(p.dir));
	/* [global]'s defaults, which its keys then replace */
	if (tb_opts_defaults(tb_scenario_keys(TB_SCN_GLOBAL), s)) {
		ret = -EINVAL;
		goto out;
	}
	ret = add_baseline_tracer(s);
	if (ret)
		goto out;
	tb_scn_read_ini(&p);
	if (!p.errors)
		tb_scn_expand_sweeps(&p);
	if (!p.errors || p.have_matrix)
		tb_scn_resolve_matrix(&p);
	if (!p.errors)
		tb_scn_check_sweep_cells(&p);
	if (!p.errors)
		finish(&p);
	if (p.errors > TB_SCN_MAX_SHOWN)
		tb_err("%s: %d more errors not shown (%d in all)", what,
		       p.errors - TB_SCN_MAX_SHOWN, p.errors);
	ret = p.errors ? -EINVAL : identity(s, text, what);
out:
	tb_scn_parse_free(&p);
	if (ret) {
		tb_scenario_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

int tb_scenario_load(const char *path, struct tb_scenario **out)
{
	char *text = NULL, *nul;
	size_t len = 0;
	int ret;

	*out = NULL;
	/* Not waiting on a FIFO for a writer, nor reading a device: a regular file or nothing. */
	ret = tb_read_regular(path, TB_SCN_MAX_TEXT + 1, &text, &len);
	if (ret) {
		tb_err("%s: cannot read scenario: %s", path,
		       ret == -EFBIG ? "larger than 1 MiB: not a scenario file"
				     : tb_input_strerror(ret));
		return ret == -ENOTTY || ret == -EFBIG ? -EINVAL : ret;
	}
	nul = memchr(text, '\0', len);
	if (nul) {
		int line = 1;
		char *c;

		for (c = text; c < nul; c++)
			line += *c == '\n';
		tb_err("%s:%d: binary data (byte 0x00): not a scenario file", path, line);
		free(text);
		return -EINVAL;
	}
	ret = tb_scenario_parse(text, path, out);
	free(text);
	return ret;
}
