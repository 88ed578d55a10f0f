// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/tb.h"

int tb_cli_getopt(int argc, char **argv, const char *optstring, const struct option *longopts,
		  const char *usage)
{
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, optstring, longopts, NULL);
	if (c == '?' || c == ':') {
		if (optopt && c == ':')
			tb_err("%s: option -%c needs a value", argv[0], optopt);
		else if (optopt)
			tb_err("%s: unknown option -%c", argv[0], optopt);
		else if (c == ':')
			tb_err("%s: option %s needs a value", argv[0], argv[optind - 1]);
		else
			tb_err("%s: unknown option %s", argv[0], argv[optind - 1]);
		fprintf(stderr, "%s", usage);
		return '?';
	}
	return c;
}

int tb_cli_bad_value(const char *cmd, const char *opt, const char *val, const char *why)
{
	tb_err("%s: bad value '%s' for %s%s%s", cmd, val, opt, why ? ": " : "", why ? why : "");
	return TB_EXIT_USAGE;
}
