// SPDX-License-Identifier: GPL-2.0
/* tracebench: what does this tracer cost this workload on this machine, and did it change? */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "core/suggest.h"
#include "core/tb.h"
#include "stats/stats.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s [-v|-q] <command> [options]\n\ncommands:\n", TB_NAME);
	for (i = 0; tb_commands[i].name; i++)
		fprintf(f, "  %-9s %s\n", tb_commands[i].name, tb_commands[i].help);
	fprintf(f,
		"\n'%s <command> --help' describes a command. Exit codes: 0 ok, 1 gate or measurement failed,\n2 usage or bad input, 3 not possible here.\n",
		TB_NAME);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{"verbose", no_argument, NULL, 'v'},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	struct tb_suggest sg;
	char hint[96];
	size_t i;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tb_stats_init(); /* GSL returns NAN instead of aborting on a value it cannot handle */
	/* A malformed plugin table is a bug of this build: refuse it before any command. */
	if (tb_workload_ops_check(tb_workloads) || tb_tracer_ops_check(tb_tracers))
		return TB_EXIT_FAIL;
	/* '+': stop at the command name; its options are parsed by the command itself. */
	while ((c = getopt_long(argc, argv, "+hVvq", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return TB_EXIT_OK;
		case 'V':
			printf("%s %s\n", TB_NAME, TB_VERSION);
			return TB_EXIT_OK;
		case 'v':
			tb_log_set_level(TB_LOG_DEBUG);
			break;
		case 'q':
			tb_log_set_level(TB_LOG_WARN);
			break;
		default:
			usage(stderr);
			return TB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		tb_err("no command given");
		usage(stderr);
		return TB_EXIT_USAGE;
	}
	/* Hidden (not in the table, so not in --help or the man page): tools/completion.bash */
	if (!strcmp(argv[optind], "__complete"))
		return tb_cli_complete(argc - optind, argv + optind);
	for (i = 0; tb_commands[i].name; i++) {
		if (strcmp(argv[optind], tb_commands[i].name))
			continue;
		argc -= optind;
		argv += optind;
		optind = 0; /* reset getopt for the command's own parsing */
		return tb_commands[i].fn(argc, argv);
	}
	tb_suggest_init(&sg, argv[optind]);
	for (i = 0; tb_commands[i].name; i++)
		tb_suggest_offer(&sg, tb_commands[i].name);
	tb_err("unknown command '%s'%s", argv[optind], tb_suggest_text(&sg, hint, sizeof(hint)));
	usage(stderr);
	return TB_EXIT_USAGE;
}
