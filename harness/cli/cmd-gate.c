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
#include "model/result.h"
#include "cli/gate-run.h"
#include "stats/gate.h"

#define GATE_USAGE                                                                                  \
	"usage: tracebench gate RESULT.json [--baseline OLD.json] [--max-overhead 5%]\n"            \
	"                       [--max-regression 3%] [--alpha 0.01] [--allow-untrustworthy]\n"     \
	"                       [--allow-faster] [--allow-partial] [--allow-foreign]\n"             \
	"                       [--require-power] [--junit FILE] [--markdown FILE]\n"               \
	"                       [--benchmark-json FILE] [--history[=DB]] [--comparable]\n"          \
	"                       [--max-throughput-loss 5%] [--max-p99-increase 10%]\n"              \
	"                       [--max-slope-increase 10%]\n"                                       \
	"  --allow-faster   skip, not fail, a cell faster than its baseline (suspect the setup)\n"  \
	"  --allow-partial  let a partial (interrupted) result pass on the cells it measured\n"     \
	"  --allow-foreign  let a result measured beside foreign instrumentation pass\n"            \
	"  --require-power  fail a cell whose MDE exceeds a limit it is gated against (else a\n"    \
	"                   warning in every output)\n"                                             \
	"  --history[=DB]   gate each cell against the last stable segment of its series in the\n"  \
	"                   history (default $TRACEBENCH_DB, else results/history.db; also\n"       \
	"                   --history FILE.db or URL): fail when the run's change from it is\n"     \
	"                   significantly above max-regression\n"                                   \
	"  --comparable     with --history: join runs whose scenario text differs\n"                \
	"  --max-throughput-loss PCT  fail a traced service cell whose throughput loss is\n"        \
	"                   significantly above PCT (default: no limit)\n"                          \
	"  --max-p99-increase PCT  fail a traced service cell whose p99 rose significantly by\n"    \
	"                   more than PCT of its baseline's p99 (default: no limit)\n"              \
	"  --max-slope-increase PCT  with --baseline: fail a sweep whose slope (its cost per\n"     \
	"                   unit) rose significantly by more than PCT of the baseline's slope;\n"   \
	"                   with --history: of the mean slope of its series' last stable\n"         \
	"                   segment; a sweep whose line was refused, or that the reference\n"       \
	"                   lacks, is skipped, said (default: no limit)\n"                          \
	"Exit 0 pass, 1 fail, 2 bad input, 3 the history's server cannot be reached. Limits also\n" \
	"come from the result's [gate] section; the command line wins. Defaults: --max-overhead\n"  \
	"5% --max-regression 3% --alpha 0.01. A limit takes its unit (5% or 1.05x; a bare\n"        \
	"number is refused); 'none' disables it.\n" TB_CLI_COMMON_USAGE

const char tb_usage_gate[] = GATE_USAGE;

static int opt_pct(const char *opt, const char *val, double *out)
{
	if (!strcmp(val, "none") || !strcmp(val, "off")) {
		*out = INFINITY;
		return 0;
	}
	int ret = tb_parse_threshold(val, out);

	return ret ? tb_cli_bad_fraction("gate", opt, val, ret, true) : 0;
}

/* An --allow-* option c sets its flag in o; false: c is another option. */
static bool allow_flag(int c, struct tb_gate_opts *o)
{
	int *flag = c == 'u'   ? &o->allow_untrustworthy
		    : c == 'F' ? &o->allow_faster
		    : c == 'p' ? &o->allow_partial
		    : c == 'f' ? &o->allow_foreign
			       : NULL;

	if (flag)
		*flag = 1;
	return flag != NULL;
}

/* A limit option c sets its field in o: 0, 1 (c is another option), or -1 (bad value, said). */
static int limit_opt(int c, struct tb_gate_opts *o)
{
	double *field = c == 'o'   ? &o->max_overhead
			: c == 'r' ? &o->max_regression
			: c == 'T' ? &o->max_thr_loss
			: c == '9' ? &o->max_p99_rise
			: c == 'S' ? &o->max_slope_rise
				   : NULL;
	const char *name = c == 'o'   ? "--max-overhead"
			   : c == 'r' ? "--max-regression"
			   : c == 'T' ? "--max-throughput-loss"
			   : c == '9' ? "--max-p99-increase"
				      : "--max-slope-increase";

	if (!field)
		return 1;
	return opt_pct(name, optarg, field) ? -1 : 0;
}

/* What the command line asks for. */
struct args {
	struct tb_gate_opts o;
	const char *hist_db;
	bool history, comparable;
};

/* Parse argv into a; -1 to go on, else the exit code to return. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		{"baseline", required_argument, NULL, 'b'},
		{"max-overhead", required_argument, NULL, 'o'},
		{"max-regression", required_argument, NULL, 'r'},
		{"alpha", required_argument, NULL, 'a'},
		{"allow-untrustworthy", no_argument, NULL, 'u'},
		{"allow-faster", no_argument, NULL, 'F'},
		{"allow-partial", no_argument, NULL, 'p'},
		{"allow-foreign", no_argument, NULL, 'f'},
		{"require-power", no_argument, NULL, 'P'},
		{"junit", required_argument, NULL, 'j'},
		{"markdown", required_argument, NULL, 'm'},
		{"benchmark-json", required_argument, NULL, 'B'},
		{"history", optional_argument, NULL, 'H'},
		{"comparable", no_argument, NULL, 'c'},
		{"max-throughput-loss", required_argument, NULL, 'T'},
		{"max-p99-increase", required_argument, NULL, '9'},
		{"max-slope-increase", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct tb_gate_opts *o = &a->o;
	int c, ret;

	while ((c = tb_cli_getopt(argc, argv, "h", longopts, GATE_USAGE)) != -1) {
		if (allow_flag(c, o))
			continue;
		ret = limit_opt(c, o);
		if (ret < 0)
			return TB_EXIT_USAGE;
		if (!ret)
			continue;
		switch (c) {
		case 'b':
			o->baseline_name = optarg;
			break;
		case 'a':
			if (tb_parse_double(optarg, &o->alpha) || !(o->alpha > 0 && o->alpha < 0.5))
				return tb_cli_bad_value("gate", "--alpha", optarg,
							"a probability in (0, 0.5)");
			break;
		case 'P':
			o->require_power = true;
			break;
		case 'j':
			o->junit = optarg;
			break;
		case 'm':
			o->markdown = optarg;
			break;
		case 'B':
			o->benchmark_json = optarg;
			break;
		case 'H':
			a->history = true;
			a->hist_db = tb_cli_optional_db(argc, argv, optarg);
			break;
		case 'c':
			a->comparable = true;
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
	o->name = argv[optind];
	if (a->history && o->baseline_name) {
		tb_err("gate: --history and --baseline are two references: give one");
		return TB_EXIT_USAGE;
	}
	return -1;
}

int tb_cli_gate(int argc, char **argv)
{
	struct tb_result *r = NULL, *old = NULL;
	struct args a = {0};
	json_t *doc = NULL;
	int ret;

	tb_gate_opts_init(&a.o);
	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = TB_EXIT_USAGE;
	if (tb_result_load_doc(a.o.name, &r, &doc))
		goto out;
	if (a.o.baseline_name && tb_result_load(a.o.baseline_name, &old))
		goto out;
	ret = a.history ? tb_cli_gate_history(r, doc, a.hist_db, a.comparable, &a.o, stdout)
			: tb_cli_gate_result(r, old, &a.o, stdout);
	if (fflush(stdout) && ret == TB_EXIT_OK)
		ret = TB_EXIT_FAIL;
out:
	json_decref(doc);
	tb_result_free(r);
	tb_result_free(old);
	return ret;
}
