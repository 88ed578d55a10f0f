// SPDX-License-Identifier: GPL-2.0
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/tb.h"
#include "result/result.h"

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

int tb_cli_one_result(int argc, char **argv, const char *usage, const char **out, const char **file,
		      struct tb_result **r)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	*out = NULL;
	*r = NULL;
	while ((c = tb_cli_getopt(argc, argv, "o:h", longopts, usage)) != -1) {
		switch (c) {
		case 'o':
			*out = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		tb_err("%s: expected one result file", argv[0]);
		fputs(usage, stderr);
		return TB_EXIT_USAGE;
	}
	*file = argv[optind];
	return tb_result_load(*file, r) ? TB_EXIT_USAGE : -1;
}

const char *tb_cli_optional_db(int argc, char **argv, const char *optarg_given)
{
	static const char *const ext[] = {".db", ".sqlite", ".sqlite3"};
	const char *a;
	size_t n;

	if (optarg_given)
		return optarg_given;
	if (optind >= argc || !(a = argv[optind]) || a[0] == '-')
		return NULL;
	n = strlen(a);
	if (!strncmp(a, "postgresql://", 13) || !strncmp(a, "postgres://", 11)) {
		optind++;
		return a;
	}
	for (size_t i = 0; i < TB_ARRAY_SIZE(ext); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && !strcmp(a + n - e, ext[i])) {
			optind++;
			return a;
		}
	}
	return NULL;
}
