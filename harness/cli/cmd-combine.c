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
#include "core/utf8.h"
#include "model/result.h"
#include "render/combine-formats.h"
#include "stats/combine.h"

#define COMBINE_USAGE                                                                                \
	"usage: tracebench combine R1.json R2.json [R3.json ...] [--against B1.json B2.json ...]\n"  \
	"                          [--json] [--alpha P] [--require-same-host]\n"                     \
	"  Repeated runs of the same cells (e.g. one scenario run 5 times, spaced apart) as one\n"   \
	"  overhead per cell whose CI includes the spread between runs, which one run's CI\n"        \
	"  cannot see; cells are matched as compare matches them.\n"                                 \
	"  --against B...       a second group of runs (e.g. on the new kernel), after A's files:\n" \
	"                       every word after it that is not an option is one of B's; each\n"     \
	"                       group combined, then B's figure against A's per cell, and the\n"     \
	"                       cells found in one group only\n"                                     \
	"  --json               the combination as JSON\n"                                           \
	"  --alpha P            CIs at 1 - P (default: the first result's alpha)\n"                  \
	"  --require-same-host  refuse results from different hardware (exit 2)\n" TB_CLI_COMMON_USAGE

const char tb_usage_combine[] = COMBINE_USAGE;

static bool is_against(const char *w)
{
	return !strcmp(w, "--against") || !strncmp(w, "--against=", 10);
}

/*
 * Take "--against B1.json B2.json ..." (or "--against=B1.json ...") out of argv: every word after
 * it that is not an option or --alpha's value (and every word after a later "--") is one of
 * B's files, into *b (calloc'ed, argv's pointers; NULL when there is no --against) and *nb;
 * argv and *argc keep the rest for getopt. A "--" before it ends the search (a file may be
 * named --against). Returns -1 to go on, or the exit code (said why).
 */
static int split_against(int *argc, char **argv, char ***b, int *nb)
{
	bool files_only = false;
	int i, j, out, n = *argc;

	*b = NULL;
	*nb = 0;
	for (i = 1; i < n && strcmp(argv[i], "--"); i++)
		if (is_against(argv[i]))
			break;
	if (i >= n || !is_against(argv[i]))
		return -1;
	*b = calloc((size_t)n, sizeof(**b));
	if (!*b)
		return TB_EXIT_FAIL;
	if (argv[i][9] == '=')
		(*b)[(*nb)++] = argv[i] + 10;
	for (out = i, j = i + 1; j < n; j++) {
		const char *w = argv[j];

		if (!files_only && !strcmp(w, "--")) {
			files_only = true;
		} else if (!files_only && is_against(w)) {
			tb_err("combine: --against given twice");
			return TB_EXIT_USAGE;
		} else if (files_only || w[0] != '-' || !w[1]) {
			(*b)[(*nb)++] = argv[j];
		} else {
			argv[out++] = argv[j]; /* an option, for getopt */
			if (!strcmp(w, "--alpha") && j + 1 < n)
				argv[out++] = argv[++j];
		}
	}
	argv[out] = NULL;
	*argc = out;
	return -1;
}

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
		tb_err("combine: needs at least two result files (runs of the same cells; with "
		       "--against, A's come before it)");
		fprintf(stderr, "%s", COMBINE_USAGE);
		return TB_EXIT_USAGE;
	}
	return -1;
}

/* One group of runs: its files and what was made of them. */
struct group {
	char **files;
	int n;
	struct tb_result **res;
	struct tb_combination *c;
};

/* Load every file of g (a bad one named by the loader). Returns -1 to go on, or the exit code. */
static int load(struct group *g)
{
	g->res = calloc((size_t)g->n, sizeof(*g->res));
	if (!g->res)
		return TB_EXIT_FAIL;
	for (int i = 0; i < g->n; i++)
		if (tb_result_load(g->files[i], &g->res[i]))
			return TB_EXIT_USAGE;
	return -1;
}

/* Combine g at alpha. Returns -1 to go on, or the exit code (said why). */
static int build(struct group *g, double alpha)
{
	int ret = tb_combine_build(g->res, (const char **)g->files, (size_t)g->n, alpha, &g->c);

	if (!ret)
		return -1;
	tb_err("combine: the results could not be analysed: %s", strerror(-ret));
	return TB_EXIT_FAIL;
}

/* --require-same-host: when the groups' files (combined: their classes known) are not all of
 * one hardware class, each named with its class. Returns -1 to go on, or the exit code. */
static int same_hardware(const struct group *g, size_t ng)
{
	const char *first = g[0].c->hw[0].hash;
	bool differ = false;
	char name[512];

	for (size_t k = 0; k < ng; k++)
		for (int i = 0; i < g[k].n; i++)
			differ |= strcmp(first, g[k].c->hw[i].hash) != 0;
	if (!differ)
		return -1;
	tb_err("combine: the results ran on different hardware (--require-same-host):");
	for (size_t k = 0; k < ng; k++)
		for (int i = 0; i < g[k].n; i++) {
			tb_escape_controls_buf(g[k].files[i], false, name, sizeof(name));
			fprintf(stderr, "  %s: %s\n", name, g[k].c->hw[i].desc);
		}
	return TB_EXIT_USAGE;
}

/* Print a's combination, or a's and b's and their changes, as asked. Returns the exit code. */
static int publish(const struct tb_combination *a, const struct tb_combination *b, bool json)
{
	struct tb_comb_change *ch = NULL;
	size_t n = 0;
	json_t *doc;
	int bad;

	if (b && tb_combine_changes(a, b, &ch, &n)) {
		tb_err("combine: out of memory");
		return TB_EXIT_FAIL;
	}
	if (!json) {
		if (b)
			tb_render_combine_changes_print(stdout, a, b, ch, n);
		else
			tb_render_combine_print(stdout, a);
		free(ch);
		return fflush(stdout) ? TB_EXIT_FAIL : TB_EXIT_OK;
	}
	doc = b ? tb_render_combine_changes_json(a, b, ch, n) : tb_render_combine_json(a);
	free(ch);
	if (!doc) {
		tb_err("combine: out of memory");
		return TB_EXIT_FAIL;
	}
	bad = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
	      putchar('\n') == EOF || fflush(stdout);
	json_decref(doc);
	return bad ? TB_EXIT_FAIL : TB_EXIT_OK;
}

int tb_cli_combine(int argc, char **argv)
{
	struct group g[2] = {0};
	bool json = false, same_host = false;
	double alpha = 0;
	int ret, ng;

	ret = split_against(&argc, argv, &g[1].files, &g[1].n);
	if (ret < 0)
		ret = parse_args(argc, argv, &json, &same_host, &alpha);
	/* after --help had its say */
	if (ret < 0 && g[1].files && g[1].n < 2) {
		tb_err("combine: --against needs at least two result files (B's runs: the words "
		       "after it that are not options)");
		ret = TB_EXIT_USAGE;
	}
	if (ret >= 0)
		goto out;
	g[0].n = argc - optind;
	g[0].files = argv + optind;
	ng = g[1].n ? 2 : 1;
	/* every file loaded before any output: a bad one is named, nothing half printed */
	for (int k = 0; ret < 0 && k < ng; k++)
		ret = load(&g[k]);
	if (ret < 0)
		ret = build(&g[0], alpha);
	/* B at A's level, so that the two sides' intervals and the change's agree */
	if (ret < 0 && ng == 2)
		ret = build(&g[1], g[0].c->alpha);
	if (ret < 0 && same_host)
		ret = same_hardware(g, (size_t)ng);
	if (ret < 0)
		ret = publish(g[0].c, g[1].c, json);
out:
	for (int k = 0; k < 2; k++) {
		tb_combine_free(g[k].c);
		for (int i = 0; g[k].res && i < g[k].n; i++)
			tb_result_free(g[k].res[i]);
		free(g[k].res);
	}
	free(g[1].files);
	return ret;
}
