// SPDX-License-Identifier: GPL-2.0
/* The generated parts of the man page (man.h), in roff. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/env.h"
#include "core/tb.h"
#include "render/man.h"
#include "parse/scenario.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

/* Text for roff: backslashes escaped, a line never starting with a control character. */
static void text(FILE *f, const char *s)
{
	bool bol = true;

	for (; s && *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		bol = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else
			fputc(*s, f);
	}
}

/* One option: ".TP" "name = <type>" then help, choices and default. */
static void option(FILE *f, const struct tb_option *o)
{
	fputs(".TP\n\\fB", f);
	text(f, o->name);
	fprintf(f, "\\fR = \\fI<%s>\\fR\n", tb_opt_type_name(o->type));
	text(f, o->help);
	if (o->type == TB_OPT_CHOICE && o->choices) {
		fputs(" (", f);
		for (size_t k = 0; o->choices[k]; k++) {
			fputs(k ? " | " : "", f);
			text(f, o->choices[k]);
		}
		fputs(")", f);
	}
	if (o->def) {
		fputs(". Default: ", f);
		text(f, *o->def ? o->def : "empty");
	}
	fputs(".\n", f);
}

static void options(FILE *f, const struct tb_option *o)
{
	for (; o && o->name; o++)
		option(f, o);
}

static void usage(FILE *f, const struct tb_man_cmd *c)
{
	fputs(".PP\n.nf\n", f);
	text(f, c->usage);
	fputs(".fi\n", f);
}

static void scenario_keys(FILE *f)
{
	static const char *const heads[] = {
		"[global]: the run's defaults",
		"[workload NAME]: the harness's keys, besides the type's own",
		"[tracer NAME]: the harness's keys, besides the type's own",
	};

	for (int s = TB_SCN_GLOBAL; s <= TB_SCN_TRACER; s++) {
		fprintf(f, ".SS \"%s\"\n", heads[s]);
		options(f, tb_scenario_keys((enum tb_scn_section)s));
	}
	fputs(".SS \"[gate]: thresholds for tracebench gate\"\n", f);
	for (const struct tb_scn_gate_key *g = tb_scenario_gate_keys; g->name; g++) {
		fputs(".TP\n\\fB", f);
		text(f, g->name);
		fputs("\\fR\n", f);
		text(f, g->help);
		fputs(".\n", f);
	}
}

static void plugin(FILE *f, const char *name, const char *help, const struct tb_option *opts)
{
	fputs(".SS ", f);
	text(f, name);
	fputs("\n", f);
	text(f, help);
	fputs(".\n", f);
	options(f, opts);
}

static void environment(FILE *f)
{
	for (const struct tb_env_var *e = tb_env_vars; e->name; e++) {
		fputs(".TP\n.B ", f);
		text(f, e->name);
		fputs("\n", f);
		text(f, e->help);
		fputs("\n", f);
	}
}

/* The part a marker names into f. Returns 0 or -EINVAL for an unknown name. */
static int part(FILE *f, const char *name, const struct tb_man_cmd *cmds)
{
	size_t i;

	if (!strncmp(name, "usage ", 6)) {
		for (i = 0; cmds[i].name; i++)
			if (!strcmp(cmds[i].name, name + 6)) {
				usage(f, &cmds[i]);
				return 0;
			}
		return -EINVAL;
	}
	if (!strcmp(name, "scenario-keys"))
		scenario_keys(f);
	else if (!strcmp(name, "workloads"))
		for (i = 0; tb_workloads[i]; i++)
			plugin(f, tb_workloads[i]->name, tb_workloads[i]->help,
			       tb_workloads[i]->opts);
	else if (!strcmp(name, "tracers"))
		for (i = 0; tb_tracers[i]; i++)
			plugin(f, tb_tracers[i]->name, tb_tracers[i]->help, tb_tracers[i]->opts);
	else if (!strcmp(name, "environment"))
		environment(f);
	else
		return -EINVAL;
	return 0;
}

int tb_man_fill(FILE *f, const char *path, const struct tb_man_cmd *cmds)
{
	static const char marker[] = ".\\\" @generated ";
	char *tmpl = NULL, *line, *next;
	size_t lineno = 0;
	int ret;

	ret = tb_read_file(path, &tmpl, NULL);
	if (ret) {
		tb_err("%s: cannot read the man page template: %s", path, strerror(-ret));
		return ret;
	}
	for (line = tmpl; line && *line; line = next) {
		char *nl = strchr(line, '\n'), *end;

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		lineno++;
		end = strncmp(line, marker, sizeof(marker) - 1) ? NULL : strrchr(line, '@');
		if (!end || end < line + sizeof(marker) - 1) {
			fprintf(f, "%s\n", line);
			continue;
		}
		*end = '\0';
		fprintf(f, ".\\\" generated from the code (%s): do not edit here\n",
			line + sizeof(marker) - 1);
		if (part(f, line + sizeof(marker) - 1, cmds)) {
			tb_err("%s:%zu: unknown generated part '%s'", path, lineno,
			       line + sizeof(marker) - 1);
			ret = -EINVAL;
			break;
		}
	}
	free(tmpl);
	return ret;
}
