// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench anonymize RESULT.json [-o OUT.json] [--keep-scenario]`: what `run --anonymize`
 * does, on a result written without it (model/anonymize.h). The result is read and checked
 * like any other; the anonymized document goes to OUT.json (written like result.json: never
 * through a link, atomically) or to stdout. The original is never replaced.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "model/anonymize.h"
#include "model/result.h"

const char tb_usage_anonymize[] =
	"usage: tracebench anonymize RESULT.json [-o OUT.json] [--keep-scenario]\n"
	"  -o, --output FILE  where to write the anonymized result (default: stdout); never the\n"
	"                     input itself\n"
	"      --keep-scenario  keep the scenario text (its home paths and names still replaced)\n"
	"  Removes host and user names, paths, command lines and identifying kernel parameters;\n"
	"  keeps what makes results comparable (doc/security.md).\n" TB_CLI_COMMON_USAGE;

/* out names the same file as in (a link to it, the same path): writing it would lose it. */
static bool same_file(const char *in, const char *out)
{
	struct stat a, b;

	return !stat(in, &a) && !stat(out, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int print_json(const struct tb_result *r)
{
	json_t *doc = tb_result_to_json(r);
	int ret;

	if (!doc) {
		tb_err("anonymize: out of memory");
		return TB_EXIT_FAIL;
	}
	ret = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(doc);
	if (ret || fputc('\n', stdout) == EOF || fflush(stdout)) {
		tb_err("anonymize: cannot write to stdout: %s", strerror(errno));
		return TB_EXIT_FAIL;
	}
	return TB_EXIT_OK;
}

int tb_cli_anonymize(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"keep-scenario", no_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = NULL, *file;
	unsigned int flags = 0;
	struct tb_result *r = NULL;
	int c, ret;

	while ((c = tb_cli_getopt(argc, argv, "o:h", longopts, tb_usage_anonymize)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'K':
			flags |= TB_ANON_KEEP_SCENARIO;
			break;
		case 'h':
			fputs(tb_usage_anonymize, stdout);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		tb_err("anonymize: expected one result file");
		fputs(tb_usage_anonymize, stderr);
		return TB_EXIT_USAGE;
	}
	file = argv[optind];
	if (out && same_file(file, out)) {
		tb_err("anonymize: -o %s is the input itself: the original would be lost; write the anonymized result elsewhere",
		       out);
		return TB_EXIT_USAGE;
	}
	if (tb_result_load(file, &r))
		return TB_EXIT_USAGE; /* said, naming the file and the key */
	if (tb_result_anonymize(r, flags)) {
		ret = TB_EXIT_FAIL; /* said; a partly anonymized result is not written */
	} else if (!out) {
		ret = print_json(r);
	} else {
		ret = tb_result_save(r, out);
		if (ret)
			ret = tb_dir_exit_code(ret); /* said: a link there, a full disk, ... */
		else
			fprintf(stderr, "anonymized: %s\n", out);
	}
	tb_result_free(r);
	return ret;
}
