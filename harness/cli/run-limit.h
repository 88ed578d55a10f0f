/* SPDX-License-Identifier: GPL-2.0 */
/* `run --find-limit` as the command drives it (run-limit.c): its argument and its searches. */
#ifndef TB_CLI_RUN_LIMIT_H
#define TB_CLI_RUN_LIMIT_H

#include <stdbool.h>

struct tb_runner;

/*
 * --find-limit's RATE (optarg, or else the next word of argv when that is not a file: the
 * scenario is one), in events/s: a number with an optional k, M or G (x1000) into *rate, left
 * as it is when none is given. Returns -1 to go on, else the exit code (TB_EXIT_USAGE, said).
 */
int tb_cli_limit_arg(const char *optarg_given, int argc, char **argv, double *rate);

/*
 * The searches after the run's rounds (runner/limit.h), each probe on stderr unless quiet:
 * rate NAN the rate search, else the buffer search for it. *interrupted is set on a stop
 * request (the probes so far are kept). Returns the exit code.
 */
int tb_cli_run_limits(struct tb_runner *rn, double rate, bool quiet, bool *interrupted);

#endif /* TB_CLI_RUN_LIMIT_H */
