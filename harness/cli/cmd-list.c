// SPDX-License-Identifier: GPL-2.0
/* `tracebench list`: every workload and tracer, its options, and whether it works here. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "core/suggest.h"
#include "core/tb.h"
#include "workloads/workload.h"
#include "tracers/tracer.h"
#include "cli/commands.h"
#include "render/man.h"

const char tb_usage_list[] = "usage: tracebench list [--json] [--brief] [NAME...]\n"
			     "  --json    machine-readable\n"
			     "  --brief   names and support only, no options\n"
			     "  NAME      only these workloads/tracers\n" TB_CLI_COMMON_USAGE;

static bool selected(const char *name, int argc, char **argv, int first)
{
	int i;

	if (first >= argc)
		return true;
	for (i = first; i < argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

#define MAX_VARIANTS 32

/* A tracer's configurations whose support differs here (tb_tracer_ops.variants), or NULL. */
static json_t *variants_json(const struct tb_tracer_ops *ops)
{
	struct tb_tracer_variant v[MAX_VARIANTS];
	size_t n, i;
	json_t *a;

	if (!ops || !ops->variants)
		return NULL;
	n = ops->variants(v, MAX_VARIANTS);
	a = json_array();
	for (i = 0; a && i < n && i < MAX_VARIANTS; i++)
		json_array_append_new(a, json_pack("{s:s, s:b, s:s?}", "name", v[i].name,
						   "supported", v[i].err == 0, "reason",
						   v[i].err ? v[i].why : NULL));
	return a;
}

static void print_variants(const struct tb_tracer_ops *ops)
{
	struct tb_tracer_variant v[MAX_VARIANTS];
	size_t n, i;

	if (!ops || !ops->variants)
		return;
	n = ops->variants(v, MAX_VARIANTS);
	for (i = 0; i < n && i < MAX_VARIANTS; i++) {
		if (!v[i].err)
			printf("  %-16s   %-40s supported\n", "", v[i].name);
		else
			printf("  %-16s   %-40s unsupported here: %s\n", "", v[i].name,
			       v[i].why[0] ? v[i].why : "no reason given");
	}
}

/* tr: the tracer's ops, for its variants (NULL for a workload). */
static json_t *entry(const char *name, const char *help, const struct tb_option *opts,
		     int (*supported)(char *, size_t), const struct tb_tracer_ops *tr)
{
	char why[512] = "";
	int ret = supported ? supported(why, sizeof(why)) : 0;
	json_t *o = json_object(), *a = json_array();
	const struct tb_option *op;

	for (op = opts; op && op->name; op++)
		json_array_append_new(a, json_pack("{s:s, s:s?, s:s?}", "name", op->name, "default",
						   op->def, "help", op->help));
	json_object_set_new(o, "name", json_string(name));
	json_object_set_new(o, "help", json_string(help ? help : ""));
	json_object_set_new(o, "supported", json_boolean(ret == 0));
	if (ret)
		json_object_set_new(o, "reason", json_string(why[0] ? why : "unsupported here"));
	json_object_set_new(o, "options", a);
	a = ret ? NULL : variants_json(tr);
	if (a)
		json_object_set_new(o, "variants", a);
	return o;
}

static void print_entry(const char *name, const char *help, const struct tb_option *opts,
			int (*supported)(char *, size_t), const struct tb_tracer_ops *tr,
			bool brief)
{
	char why[512] = "";
	int ret = supported ? supported(why, sizeof(why)) : 0;

	printf("  %-16s %-13s %s\n", name, ret ? "UNSUPPORTED" : "supported", help ? help : "");
	if (ret)
		printf("  %-16s %-13s why: %s\n", "", "", why[0] ? why : "unsupported here");
	else
		print_variants(tr);
	if (!brief && opts && opts->name)
		tb_opts_print(stdout, opts, "      ");
}

/* The man page from its template, the generated parts filled in, on standard output. */
static int man_page(const char *tmpl)
{
	static const struct tb_command *const tables[] = {tb_commands, tb_history_commands};
	struct tb_man_cmd cmds[32] = {{0}};
	size_t i = 0;

	for (size_t t = 0; t < TB_ARRAY_SIZE(tables); t++)
		for (const struct tb_command *c = tables[t]; c->name && i + 1 < TB_ARRAY_SIZE(cmds);
		     c++)
			cmds[i++] = (struct tb_man_cmd){c->name, c->help, c->usage};
	return tb_man_fill(stdout, tmpl, cmds) ? TB_EXIT_USAGE : TB_EXIT_OK;
}

int tb_cli_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"brief", no_argument, NULL, 'b'},
		/* hidden: `make man` makes doc/tracebench.1 with it (render/man.h) */
		{"man", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool json = false, brief = false;
	json_t *doc, *wl, *tr;
	size_t i;
	int c;

	/* options anywhere: `list bpf --brief` as well as `list --brief bpf` */
	while ((c = tb_cli_getopt(argc, argv, "h", longopts, tb_usage_list)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'b':
			brief = true;
			break;
		case 'M':
			return man_page(optarg);
		case 'h':
			printf("%s", tb_usage_list);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	for (c = optind; c < argc; c++) {
		if (!tb_workload_find(argv[c]) && !tb_tracer_find(argv[c])) {
			struct tb_suggest sg;
			char hint[96];

			tb_suggest_init(&sg, argv[c]);
			for (i = 0; tb_workloads[i]; i++)
				tb_suggest_offer(&sg, tb_workloads[i]->name);
			for (i = 0; tb_tracers[i]; i++)
				tb_suggest_offer(&sg, tb_tracers[i]->name);
			tb_err("list: no workload or tracer named '%s'%s", argv[c],
			       tb_suggest_text(&sg, hint, sizeof(hint)));
			return TB_EXIT_USAGE;
		}
	}
	if (json) {
		doc = json_object();
		wl = json_array();
		tr = json_array();
		for (i = 0; tb_workloads[i]; i++)
			if (selected(tb_workloads[i]->name, argc, argv, optind))
				json_array_append_new(wl, entry(tb_workloads[i]->name,
								tb_workloads[i]->help,
								tb_workloads[i]->opts,
								tb_workloads[i]->supported, NULL));
		for (i = 0; tb_tracers[i]; i++)
			if (selected(tb_tracers[i]->name, argc, argv, optind))
				json_array_append_new(
					tr, entry(tb_tracers[i]->name, tb_tracers[i]->help,
						  tb_tracers[i]->opts, tb_tracers[i]->supported,
						  tb_tracers[i]));
		json_object_set_new(doc, "workloads", wl);
		json_object_set_new(doc, "tracers", tr);
		json_dumpf(doc, stdout, JSON_INDENT(2));
		printf("\n");
		json_decref(doc);
		return TB_EXIT_OK;
	}
	printf("workloads (in [workload NAME] sections: type = <name>, then its options):\n");
	for (i = 0; tb_workloads[i]; i++)
		if (selected(tb_workloads[i]->name, argc, argv, optind))
			print_entry(tb_workloads[i]->name, tb_workloads[i]->help,
				    tb_workloads[i]->opts, tb_workloads[i]->supported, NULL, brief);
	printf("\ntracers (in [tracer NAME] sections: type = <name>, then its options):\n");
	for (i = 0; tb_tracers[i]; i++)
		if (selected(tb_tracers[i]->name, argc, argv, optind))
			print_entry(tb_tracers[i]->name, tb_tracers[i]->help, tb_tracers[i]->opts,
				    tb_tracers[i]->supported, tb_tracers[i], brief);
	return TB_EXIT_OK;
}
