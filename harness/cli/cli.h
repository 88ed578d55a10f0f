/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers every command uses for its own option parsing. */
#ifndef TB_CLI_H
#define TB_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * Parse argv with getopt_long (optstring should start with '+' or ':' as usual). Commands call
 * this in a loop like getopt_long; on an unknown option or missing argument it prints
 * "tracebench <cmd>: ..." and the command's usage line to stderr and returns '?'. Every
 * command also takes -v/--verbose (debug messages) and -q/--quiet (warnings and errors only),
 * handled here; a command that declares 'v' or 'q' itself gets them too. TB_CLI_COMMON_USAGE
 * is their help text, for the end of every command's usage.
 */
#define TB_CLI_COMMON_USAGE                                                                       \
	"  -v, --verbose           debug messages (also before the command: tracebench -v run)\n" \
	"  -q, --quiet             warnings and errors only\n"
int tb_cli_getopt(int argc, char **argv, const char *optstring, const struct option *longopts,
		  const char *usage);
struct tb_result;
/*
 * Parse `CMD RESULT.json [-o PATH]`, the options of the commands that render one result (plot,
 * report), and load the result. Returns -1 with *file (the argument), *out (NULL without -o)
 * and *r (the caller frees it), or the exit code to return: TB_EXIT_OK after --help,
 * TB_EXIT_USAGE after saying why (a bad option, not one file, a file that does not load).
 */
int tb_cli_one_result(int argc, char **argv, const char *usage, const char **out, const char **file,
		      struct tb_result **r);
/*
 * Where a rendered file goes by default: name next to the result file (name NULL: the
 * result's own directory; "." or name alone for a bare file name), into buf. Returns buf, or NULL (said)
 * when the path does not fit.
 */
const char *tb_cli_next_to(const char *file, const char *name, char *buf, size_t len);
/*
 * The database of an option with an optional argument (--history[=DB]): optarg_given when the
 * argument came with '=', else the next argument when it names a database (a postgresql://
 * URL, or a path ending in .db, .sqlite or .sqlite3), which is then consumed; else NULL (the
 * default database).
 */
const char *tb_cli_optional_db(int argc, char **argv, const char *optarg_given);

/*
 * The stop signals (tb_stop_sigset: SIGINT, SIGTERM, SIGHUP) request a clean stop
 * (tb_request_stop; long loops poll tb_stop_requested), later ones make the teardown hurry
 * (tb_request_hurry) but never skip it; SIGPIPE is ignored. For the commands
 * that measure or drive others (run, fleet).
 */
void tb_cli_stop_on_signals(void);
/* How many of those signals arrived. */
int tb_cli_signals(void);
/* "tracebench CMD: bad value 'x' for --opt: reason", returns TB_EXIT_USAGE. */
int tb_cli_bad_value(const char *cmd, const char *opt, const char *val, const char *why);
/*
 * A fraction option refused by tb_parse_percent or tb_parse_threshold (ret), with the corrected
 * spelling for a bare number (core/options.h: tb_percent_why); returns TB_EXIT_USAGE.
 */
int tb_cli_bad_fraction(const char *cmd, const char *opt, const char *val, int ret, bool factor);

#endif
