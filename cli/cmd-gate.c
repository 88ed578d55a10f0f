// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench gate RESULT.json [--baseline OLD.json] ...`: a CI verdict with exit codes
 * 0 pass, 1 fail, 2 bad input (stats/gate.h has the rules).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/tb.h"
#include "result/result.h"
#include "cli/gate-run.h"
#include "stats/gate.h"

#define GATE_USAGE                                                                               \
	"usage: tracebench gate RESULT.json [--baseline OLD.json] [--max-overhead 5%]\n"         \
	"                       [--max-regression 3%] [--alpha 0.01] [--allow-untrustworthy]\n"  \
	"                       [--require-power] [--junit FILE] [--markdown FILE]\n"            \
	"                       [--benchmark-json FILE]\n"                                       \
	"  --require-power  fail a cell whose MDE exceeds a limit it is gated against (else a\n" \
	"                   warning in every output)\n"                                          \
	"Exit 0 pass, 1 fail, 2 bad input. Limits also come from the result's [gate] section;\n" \
	"the command line wins. Defaults: --max-overhead 5% --max-regression 3% --alpha 0.01.\n" \
	"A limit of 'none' disables it.\n" TB_CLI_COMMON_USAGE

const char tb_usage_gate[] = GATE_USAGE;

static int opt_pct(const char *opt, const char *val, double *out)
{
	if (!strcmp(val, "none") || !strcmp(val, "off")) {
		*out = INFINITY;
		return 0;
	}
	if (tb_parse_percent(val, out) || *out < 0)
		return tb_cli_bad_value("gate", opt, val, "expected a percentage like 5% or none");
	return 0;
}

int tb_cmd_gate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"baseline", required_argument, NULL, 'b'},
		{"max-overhead", required_argument, NULL, 'o'},
		{"max-regression", required_argument, NULL, 'r'},
		{"alpha", required_argument, NULL, 'a'},
		{"allow-untrustworthy", no_argument, NULL, 'u'},
		{"require-power", no_argument, NULL, 'P'},
		{"junit", required_argument, NULL, 'j'},
		{"markdown", required_argument, NULL, 'm'},
		{"benchmark-json", required_argument, NULL, 'B'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct tb_result *r = NULL, *old = NULL;
	struct tb_gate_opts o;
	int c, ret = TB_EXIT_USAGE;

	tb_gate_opts_init(&o);
	while ((c = tb_cli_getopt(argc, argv, "h", longopts, GATE_USAGE)) != -1) {
		switch (c) {
		case 'b':
			o.baseline_name = optarg;
			break;
		case 'o':
			if (opt_pct("--max-overhead", optarg, &o.max_overhead))
				return TB_EXIT_USAGE;
			break;
		case 'r':
			if (opt_pct("--max-regression", optarg, &o.max_regression))
				return TB_EXIT_USAGE;
			break;
		case 'a':
			if (tb_parse_double(optarg, &o.alpha) || !(o.alpha > 0 && o.alpha < 0.5))
				return tb_cli_bad_value("gate", "--alpha", optarg,
							"a probability in (0, 0.5)");
			break;
		case 'u':
			o.allow_untrustworthy = 1;
			break;
		case 'P':
			o.require_power = true;
			break;
		case 'j':
			o.junit = optarg;
			break;
		case 'm':
			o.markdown = optarg;
			break;
		case 'B':
			o.benchmark_json = optarg;
			break;
		case 'h':
			printf("%s", GATE_USAGE);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (argc - optind != 1) {
		tb_err("gate: needs exactly one result file");
		fprintf(stderr, "%s", GATE_USAGE);
		return TB_EXIT_USAGE;
	}
	o.name = argv[optind];
	if (tb_result_load(o.name, &r))
		goto out;
	if (o.baseline_name && tb_result_load(o.baseline_name, &old))
		goto out;
	ret = tb_gate_result(r, old, &o, stdout);
	if (fflush(stdout) && ret == TB_EXIT_OK)
		ret = TB_EXIT_FAIL;
out:
	tb_result_free(r);
	tb_result_free(old);
	return ret;
}
