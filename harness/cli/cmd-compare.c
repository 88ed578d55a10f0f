// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench compare A.json B.json [C.json ...]`: what changed between result sets, and in
 * which environment. Each later file is compared against the first.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "render/compare-formats.h"
#include "render/html/report.h"
#include "model/result.h"
#include "stats/compare.h"

#define COMPARE_USAGE                                                                        \
	"usage: tracebench compare A.json B.json [C.json ...] [--json] [--markdown]\n"       \
	"                          [--require-same-host] [--alpha P] [--html FILE]\n"        \
	"  --json               the comparison as JSON (an array for more than two files)\n" \
	"  --markdown           a Markdown table (for a pull-request comment)\n"             \
	"  --html FILE          also write a self-contained HTML report of the comparison\n" \
	"  --require-same-host  refuse results from different hardware (exit 2)\n"           \
	"  --alpha P            significance level (default: the results' alpha)\n" TB_CLI_COMMON_USAGE

const char tb_usage_compare[] = COMPARE_USAGE;

/* What the command line asks for, and what it has loaded and built so far. */
struct compare {
	bool json, markdown, same_host;
	const char *html;
	double alpha; /* 0: the results' own */
	char **files; /* nres result files, the first is A */
	int nres;
	struct tb_result **res;	     /* nres loaded results */
	struct tb_comparison **cmps; /* nres - 1: A against each later file */
	json_t *all;		     /* --json: the comparisons in argument order */
};

/* Returns -1 to go on, or the exit code (help, bad usage). */
static int parse_args(struct compare *cp, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"markdown", no_argument, NULL, 'm'},
		{"require-same-host", no_argument, NULL, 's'},
		{"alpha", required_argument, NULL, 'a'},
		{"html", required_argument, NULL, 'H'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = tb_cli_getopt(argc, argv, "h", longopts, COMPARE_USAGE)) != -1) {
		switch (c) {
		case 'j':
			cp->json = true;
			break;
		case 'm':
			cp->markdown = true;
			break;
		case 's':
			cp->same_host = true;
			break;
		case 'H':
			cp->html = optarg;
			break;
		case 'a':
			if (tb_parse_double(optarg, &cp->alpha) ||
			    !(cp->alpha > 0 && cp->alpha < 0.5))
				return tb_cli_bad_value("compare", "--alpha", optarg,
							"a probability in (0, 0.5)");
			break;
		case 'h':
			printf("%s", COMPARE_USAGE);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (cp->json && cp->markdown) {
		tb_err("compare: choose one of --json and --markdown");
		return TB_EXIT_USAGE;
	}
	cp->nres = argc - optind;
	cp->files = argv + optind;
	if (cp->nres < 2) {
		tb_err("compare: needs at least two result files");
		fprintf(stderr, "%s", COMPARE_USAGE);
		return TB_EXIT_USAGE;
	}
	return -1;
}

/* Load everything first: a bad file is reported before any output. Returns -1 or the exit code. */
static int load(struct compare *cp)
{
	cp->res = calloc((size_t)cp->nres, sizeof(*cp->res));
	cp->cmps = calloc((size_t)cp->nres, sizeof(*cp->cmps));
	if (!cp->res || !cp->cmps)
		return TB_EXIT_FAIL;
	for (int i = 0; i < cp->nres; i++)
		if (tb_result_load(cp->files[i], &cp->res[i]))
			return TB_EXIT_USAGE;
	if (cp->json && !(cp->all = json_array()))
		return TB_EXIT_FAIL;
	return -1;
}

/* --require-same-host: say which hardware leaves differ. */
static int refuse_hardware(const struct tb_comparison *cmp)
{
	for (size_t k = 0; k < cmp->ndiffs; k++)
		if (cmp->diffs[k].hardware)
			tb_err("compare: %s and %s ran on different hardware: %s: %s vs %s (--require-same-host)",
			       cmp->name_a, cmp->name_b, cmp->diffs[k].key,
			       cmp->diffs[k].a ? cmp->diffs[k].a : "(absent)",
			       cmp->diffs[k].b ? cmp->diffs[k].b : "(absent)");
	return TB_EXIT_USAGE;
}

/*
 * Compare A with each later file and print each comparison as it is built (the table or
 * Markdown; JSON is collected for publish). Returns -1 or the exit code.
 */
static int build(struct compare *cp)
{
	for (int i = 1; i < cp->nres; i++) {
		struct tb_comparison *cmp;

		if (tb_compare_build(cp->res[0], cp->res[i], cp->files[0], cp->files[i], cp->alpha,
				     &cmp)) {
			tb_err("compare: out of memory");
			return TB_EXIT_FAIL;
		}
		cp->cmps[i - 1] = cmp; /* kept for --html */
		if (cp->same_host && !cmp->same_hardware)
			return refuse_hardware(cmp);
		if (cp->json) {
			if (json_array_append_new(cp->all, tb_render_compare_json(cmp)))
				return TB_EXIT_FAIL;
		} else if (cp->markdown) {
			tb_render_compare_markdown(stdout, cmp);
		} else {
			if (i > 1)
				putchar('\n');
			tb_render_compare_print(stdout, cmp);
		}
	}
	return -1;
}

/* The HTML report and the JSON document. Returns the exit code. */
static int publish(const struct compare *cp)
{
	if (cp->html) {
		int ret = tb_report_comparison_write((const struct tb_comparison *const *)cp->cmps,
						     (size_t)cp->nres - 1, cp->html);

		if (ret) /* said where it failed */
			return tb_dir_exit_code(ret);
		fprintf(stderr, "compare: HTML report in %s\n", cp->html);
	}
	if (cp->json) {
		/* One comparison: the object itself; several: an array, in argument order. */
		json_t *doc = cp->nres == 2 ? json_array_get(cp->all, 0) : cp->all;

		if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) ||
		    putchar('\n') == EOF)
			return TB_EXIT_FAIL;
	}
	return fflush(stdout) ? TB_EXIT_FAIL : TB_EXIT_OK;
}

int tb_cli_compare(int argc, char **argv)
{
	struct compare cp = {0};
	int ret;

	ret = parse_args(&cp, argc, argv);
	if (ret < 0)
		ret = load(&cp);
	if (ret < 0)
		ret = build(&cp);
	if (ret < 0)
		ret = publish(&cp);
	json_decref(cp.all);
	for (int i = 0; cp.cmps && i < cp.nres; i++)
		tb_compare_free(cp.cmps[i]);
	free(cp.cmps);
	for (int i = 0; cp.res && i < cp.nres; i++)
		tb_result_free(cp.res[i]);
	free(cp.res);
	return ret;
}
