// SPDX-License-Identifier: GPL-2.0
/*
 * [workload NAME] and [tracer NAME] sections (parse.h): `type` first, then the plugin's own
 * keys (its option table) and the harness's (keys.c), each into the field it names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "core/tb.h"
#include "parse/parse.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

/* Set a plugin's key; an unknown one is said with the closest of the plugin's and the
 * harness's keys of the section. */
static void set_plugin_key(struct tb_scn_parse *p, const struct tb_option *opts, void *cfg,
			   const struct tb_option *harness, const char *kind, const char *name,
			   const char *value)
{
	const struct tb_option *o = tb_opts_find(opts, name);
	char err[512];
	int ret;

	/* INI cuts " ; ..." as a comment: "command = /bin/echo a ; rm -rf /" would run
	 * /bin/echo a. A command so cut is refused rather than run as something else. */
	if (o && o->type == TB_OPT_ARGV && p->cut) {
		tb_scn_perr(
			p, p->line,
			"[%s]: %s: '%.60s' would be cut as an inline comment (INI: ' ;' starts one); write ';' without the space before it, or quote it",
			p->cur, name, p->cut);
		return;
	}
	ret = tb_opts_set(opts, cfg, name, value, err, sizeof(err));
	if (ret == -ENOENT) {
		struct tb_suggest sg;

		tb_suggest_init(&sg, name);
		tb_opts_suggest(opts, &sg);
		tb_opts_suggest(harness, &sg);
		tb_suggest_offer(&sg, "type");
		tb_scn_perr(p, p->line, "[%s]: unknown key '%s' for %s%s", p->cur, name, kind,
			    tb_suggest_text(&sg, err, sizeof(err)));
	} else if (ret)
		tb_scn_perr(p, p->line, "[%s]: %s", p->cur, err);
}

/*
 * The `type` key of a workload or tracer section: the plugin's ops (found by find) and a config
 * of cfg_size bytes with its defaults. Returns false (said, section marked bad) when it fails.
 */
static bool section_type(struct tb_scn_parse *p, const char *kind, const char *value, bool found,
			 const struct tb_option *opts, size_t cfg_size, void **cfg)
{
	if (!found) {
		struct tb_suggest sg;
		char hint[96];
		size_t i;

		tb_suggest_init(&sg, value);
		for (i = 0; kind[0] == 'w' && tb_workloads[i]; i++)
			tb_suggest_offer(&sg, tb_workloads[i]->name);
		for (i = 0; kind[0] == 't' && tb_tracers[i]; i++)
			tb_suggest_offer(&sg, tb_tracers[i]->name);
		tb_scn_perr(p, p->line, "[%s]: unknown %s type '%s'%s (see 'tracebench list')",
			    p->cur, kind, value, tb_suggest_text(&sg, hint, sizeof(hint)));
		p->kind = TB_SCN_SEC_BAD;
		return false;
	}
	*cfg = calloc(1, cfg_size ? cfg_size : 1);
	if (!*cfg || tb_opts_defaults(opts, *cfg)) {
		tb_scn_perr(p, p->line, "[%s]: cannot initialise options", p->cur);
		p->kind = TB_SCN_SEC_BAD;
		return false;
	}
	return true;
}

/* A key before `type`: refused, since the type decides which keys exist. */
static bool type_first(struct tb_scn_parse *p, bool have_type)
{
	if (have_type)
		return true;
	tb_scn_perr(p, p->line, "[%s]: 'type' must be the first key of the section", p->cur);
	p->kind = TB_SCN_SEC_BAD;
	return false;
}

/*
 * Key name of a section of type plugin_opts into section (the harness's key, from harness)
 * or cfg (the plugin's). A plugin's own key wins over the harness's of the same name (the
 * command tracer's settle); no workload has one (tests/unit/parse-scenario.c).
 */
static void plugin_or_harness_key(struct tb_scn_parse *p, const struct tb_option *plugin_opts,
				  void *cfg, const char *type, const struct tb_option *harness,
				  void *section, const char *name, const char *value)
{
	char err[512];

	if (tb_opts_find(plugin_opts, name) || !tb_opts_find(harness, name))
		set_plugin_key(p, plugin_opts, cfg, harness, type, name, value);
	else if (tb_opts_set(harness, section, name, value, err, sizeof(err)))
		tb_scn_perr(p, p->line, "[%s]: %s", p->cur, err);
}

void tb_scn_workload_key(struct tb_scn_parse *p, const char *name, const char *value)
{
	struct tb_scn_workload *w = &p->s->workloads[p->cur_idx];

	if (!strcmp(name, "type")) {
		w->ops = tb_workload_find(value);
		if (w->ops)
			section_type(p, "workload", value, true, w->ops->opts, w->ops->cfg_size,
				     &w->cfg);
		else
			section_type(p, "workload", value, false, NULL, 0, NULL);
		return;
	}
	if (type_first(p, w->ops))
		plugin_or_harness_key(p, w->ops->opts, w->cfg, w->ops->name,
				      tb_scenario_keys(TB_SCN_WORKLOAD), w, name, value);
}

void tb_scn_tracer_key(struct tb_scn_parse *p, const char *name, const char *value)
{
	struct tb_scn_tracer *t = &p->s->tracers[p->cur_idx];

	if (!strcmp(name, "type")) {
		t->ops = tb_tracer_find(value);
		if (t->ops)
			section_type(p, "tracer", value, true, t->ops->opts, t->ops->cfg_size,
				     &t->cfg);
		else
			section_type(p, "tracer", value, false, NULL, 0, NULL);
		return;
	}
	if (type_first(p, t->ops))
		plugin_or_harness_key(p, t->ops->opts, t->cfg, t->ops->name,
				      tb_scenario_keys(TB_SCN_TRACER), t, name, value);
}
