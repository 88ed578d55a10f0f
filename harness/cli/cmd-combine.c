// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench combine R1.json R2.json [...]`: repeated runs of one question as one figure per
 * traced cell, whose interval holds the spread between the runs (stats/combine.h).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/tb.h"
#include "model/result.h"
#include "model/system.h"
#include "render/combine-formats.h"
#include "stats/combine.h"

#define COMBINE_USAGE                                                                             \
	"usage: tracebench combine R1.json R2.json [R3.json ...] [--json] [--alpha P]\n"          \
	"                          [--require-same-host]\n"                                       \
	"  Repeated runs of the same cells (e.g. one scenario run 5 times, some minutes apart)\n" \
	"  as one overhead per cell whose CI includes the spread between runs, which one run's\n" \
	"  CI cannot see; cells are matched as compare matches them.\n"                           \
	"  --json               the combination as JSON\n"                                        \
	"  --alpha P            CIs at 1 - P (default: the first result's alpha)\n"               \
	"  --require-same-host  refuse results from different hardware (exit 2)\n" TB_CLI_COMMON_USAGE

const char tb_usage_combine[] = COMBINE_USAGE;

/* Returns -1 to go on, or the exit code (help, bad usage). */
static int parse_args(int argc, char **argv, bool *json, bool *same_host, double *alpha)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"alpha", required_argument, NULL, 'a'},
		{"require-same-host", no_argument, NULL, 's'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = tb_cli_getopt(argc, argv, "h", longopts, COMBINE_USAGE)) != -1) {
		switch (c) {
		case 'j':
			*json = true;
			break;
		case 's':
			*same_host = true;
			break;
		case 'a':
			if (tb_parse_double(optarg, alpha) || !(*alpha > 0 && *alpha < 0.5))
				return tb_cli_bad_value("combine", "--alpha", optarg,
							"a probability in (0, 0.5)");
			break;
		case 'h':
			printf("%s", COMBINE_USAGE);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (argc - optind < 2) {
		tb_err("combine: needs at least two result files (runs of the same cells)");
		fprintf(stderr, "%s", COMBINE_USAGE);
		return TB_EXIT_USAGE;
	}
	return -1;
}

/* --require-same-host: each file's hardware class, named, when they are not all one. */
static int refuse_hardware(struct tb_result **res, char **files, int n)
{
	char hash[17], desc[160];

	tb_err("combine: the results ran on different hardware (--require-same-host):");
	for (int i = 0; i < n; i++) {
		if (tb_system_hardware_class(res[i]->system, hash, desc, sizeof(desc)))
			snprintf(desc, sizeof(desc), "unknown hardware");
		fprintf(stderr, "  %s: %s\n", files[i], desc);
	}
	return TB_EXIT_USAGE;
}

/* Print c as asked. Returns the exit code. */
static int publish(const struct tb_combination *c, bool json)
{
	json_t *doc;
	int bad;

	if (!json) {
		tb_render_combine_print(stdout, c);
		return fflush(stdout) ? TB_EXIT_FAIL : TB_EXIT_OK;
	}
	doc = tb_render_combine_json(c);
	if (!doc)
		return TB_EXIT_FAIL;
	bad = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
	      putchar('\n') == EOF || fflush(stdout);
	json_decref(doc);
	return bad ? TB_EXIT_FAIL : TB_EXIT_OK;
}

int tb_cli_combine(int argc, char **argv)
{
	struct tb_combination *c = NULL;
	struct tb_result **res = NULL;
	bool json = false, same_host = false;
	double alpha = 0;
	char **files;
	int n, i, ret;

	ret = parse_args(argc, argv, &json, &same_host, &alpha);
	if (ret >= 0)
		return ret;
	n = argc - optind;
	files = argv + optind;
	res = calloc((size_t)n, sizeof(*res));
	if (!res)
		return TB_EXIT_FAIL;
	/* every file loaded before any output: a bad one is named, nothing half printed */
	for (i = 0; i < n; i++)
		if (tb_result_load(files[i], &res[i])) {
			ret = TB_EXIT_USAGE;
			goto out;
		}
	ret = tb_combine_build(res, (const char **)files, (size_t)n, alpha, &c);
	if (ret) {
		tb_err("combine: the results could not be analysed: %s", strerror(-ret));
		ret = TB_EXIT_FAIL;
		goto out;
	}
	ret = same_host && c->nclasses > 1 ? refuse_hardware(res, files, n) : publish(c, json);
out:
	tb_combine_free(c);
	for (i = 0; i < n; i++)
		tb_result_free(res[i]);
	free(res);
	return ret;
}
