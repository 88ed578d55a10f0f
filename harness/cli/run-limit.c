// SPDX-License-Identifier: GPL-2.0
/* `run --find-limit` as the command drives it (run-limit.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/run-limit.h"
#include "core/tb.h"
#include "runner/limit.h"

int tb_cli_limit_arg(const char *optarg_given, int argc, char **argv, double *rate)
{
	const char *v = optarg_given;
	struct stat st;

	if (!v && optind < argc && argv[optind][0] != '-' && stat(argv[optind], &st))
		v = argv[optind++];
	if (!v)
		return -1;
	if (tb_parse_rate(v, rate))
		return tb_cli_bad_value("run", "--find-limit", v,
					"an event rate in events/s, e.g. 200000 or 200k");
	return -1;
}

static void show_probe(void *ctx, const struct tb_limit *l, const struct tb_limit_probe *p)
{
	(void)ctx;
	fprintf(stderr, "find-limit: %s: %s, %s = %s: %.3g events/s, %lld lost, tracer CPU %.2f\n",
		l->cell, p->setting, l->buffer_key, p->buffer, p->events_per_s, (long long)p->lost,
		p->tracer_cpu);
}

int tb_cli_run_limits(struct tb_runner *rn, double rate, bool quiet, bool *interrupted)
{
	struct tb_runner_limit_req req = {.target = rate};
	int ret;

	if (!quiet && tb_log_get_level() >= TB_LOG_INFO)
		req.on_probe = show_probe;
	ret = tb_runner_limits(rn, &req);
	if (ret == -EINTR || tb_stop_requested()) {
		*interrupted = true;
		tb_warn("interrupted during --find-limit: writing the probes so far");
		return TB_EXIT_INTERRUPTED;
	}
	if (ret) {
		tb_err("run: --find-limit: %s", strerror(-ret));
		return ret == -EINVAL ? TB_EXIT_USAGE : TB_EXIT_FAIL;
	}
	return TB_EXIT_OK;
}
