// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench __complete WORD... CUR` (hidden): what bash may complete CUR with after the words
 * before it, one candidate a line, for tools/completion.bash. The options come from each
 * command's --help text (the text tests/e2e/t-man.sh holds to the code), the commands and the
 * plugin names from their tables, so the completion cannot drift from the binary. A line "-f"
 * asks for file names too. The shell filters the candidates by CUR's prefix.
 */
#include <ctype.h>
#include <glob.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/tb.h"
#include "core/util.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

#define OPT_MAX 64

static bool is_opt_start(const char *u, const char *p)
{
	return p[0] == '-' && isalpha((unsigned char)p[p[1] == '-' ? 2 : 1]) &&
	       (p == u || strchr(" [,\n|", p[-1]));
}

/*
 * Each option named in usage (as t-man.sh reads them: a -x or --xx after a space, '[', ',' or
 * a line start), or with want set only the one called want: returns what follows it, its
 * value's name ("DIR", "5%", "" for a flag), into val; 1 when want was found, else 0.
 */
static int each_option(const char *usage, const char *want, char *val, size_t vlen)
{
	for (const char *p = usage; *p; p++) {
		char name[OPT_MAX];
		size_t n = 0;

		if (!is_opt_start(usage, p))
			continue;
		while (n + 1 < sizeof(name) && (isalnum((unsigned char)p[n]) || p[n] == '-'))
			n++;
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n - 1;
		if (!want) {
			printf("%s\n", name);
			continue;
		}
		if (strcmp(name, want))
			continue;
		n = 0;
		if (p[1] == ' ' && p[2] && p[2] != '-' && p[2] != ' ')
			while (n + 1 < vlen && p[2 + n] && !strchr(" ]\n", p[2 + n])) {
				val[n] = p[2 + n];
				n++;
			}
		val[n] = '\0';
		return 1;
	}
	return 0;
}

/* A value that names a file or directory: complete file names after the option. */
static bool names_a_file(const char *val)
{
	static const char *const kinds[] = {"FILE", "DIR", "PATH", "DB", ".json", ".ini", ".html"};

	for (size_t i = 0; i < TB_ARRAY_SIZE(kinds); i++)
		if (strstr(val, kinds[i]))
			return true;
	return false;
}

static void plugin_names(void)
{
	for (size_t i = 0; tb_workloads[i]; i++)
		printf("%s\n", tb_workloads[i]->name);
	for (size_t i = 0; tb_tracers[i]; i++)
		printf("%s\n", tb_tracers[i]->name);
}

/*
 * The shipped scenarios of an installed tree (share/tracebench/scenarios next to the binary,
 * else the build's PREFIX), by their full paths: `tracebench run <TAB>` from any directory.
 */
static void installed_scenarios(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32], real[PATH_MAX], pat[PATH_MAX + 8];
	glob_t gl;

	if (tb_exe_dir(exe, sizeof(exe)))
		exe[0] = '\0';
	snprintf(dir, sizeof(dir), "%s/" TB_DATADIR_REL "/scenarios", exe);
	if (!exe[0] || !realpath(dir, real))
		snprintf(real, sizeof(real), "%s/scenarios", TB_DATADIR);
	snprintf(pat, sizeof(pat), "%s/*.ini", real);
	if (glob(pat, 0, NULL, &gl))
		return;
	for (size_t i = 0; i < gl.gl_pathc; i++)
		printf("%s\n", gl.gl_pathv[i]);
	globfree(&gl);
}

/* The --help text of `history SUB` (sub NULL: history's own). */
static const char *history_usage(const char *sub)
{
	for (size_t i = 0; sub && tb_history_commands[i].name; i++)
		if (!strcmp(tb_history_commands[i].name + strlen("history "), sub))
			return tb_history_commands[i].usage;
	return tb_usage_history;
}

/* Candidates for cur, the argument after w[0..n-1] of command cmd (w[0] is cmd). */
static void complete_command(const struct tb_command *cmd, char **w, int n, const char *cur)
{
	const char *usage = cmd->usage, *sub = NULL;
	char val[OPT_MAX];

	if (!strcmp(cmd->name, "history")) {
		for (int i = 1; i < n && !sub; i++)
			if (w[i][0] != '-')
				sub = w[i];
		usage = history_usage(sub);
		if (!sub && cur[0] != '-') {
			for (size_t i = 0; tb_history_commands[i].name; i++)
				printf("%s\n", tb_history_commands[i].name + strlen("history "));
			return;
		}
	}
	/* After an option that takes a value: file names, or nothing to offer (a number). */
	if (n > 1 && w[n - 1][0] == '-' && each_option(usage, w[n - 1], val, sizeof(val)) &&
	    val[0]) {
		if (names_a_file(val))
			printf("-f\n");
		return;
	}
	if (cur[0] == '-') {
		each_option(usage, NULL, NULL, 0);
		printf("--help\n");
		return;
	}
	if (!strcmp(cmd->name, "list")) {
		plugin_names();
		return;
	}
	if (!strcmp(cmd->name, "run") || !strcmp(cmd->name, "fleet"))
		installed_scenarios();
	printf("-f\n");
}

int tb_cli_complete(int argc, char **argv)
{
	static const char *const global[] = {"--help", "--version", "--verbose", "--quiet"};
	const char *cur;
	int i = 1;

	if (argc < 2)
		return TB_EXIT_USAGE;
	cur = argv[argc - 1];
	while (i < argc - 1 && argv[i][0] == '-')
		i++; /* tracebench's own options, before the command */
	if (i == argc - 1) {
		for (size_t k = 0; cur[0] == '-' && k < TB_ARRAY_SIZE(global); k++)
			printf("%s\n", global[k]);
		for (size_t k = 0; cur[0] != '-' && tb_commands[k].name; k++)
			printf("%s\n", tb_commands[k].name);
		return TB_EXIT_OK;
	}
	for (size_t k = 0; tb_commands[k].name; k++)
		if (!strcmp(tb_commands[k].name, argv[i]))
			complete_command(&tb_commands[k], argv + i, argc - 1 - i, cur);
	return TB_EXIT_OK;
}
