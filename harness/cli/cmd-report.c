// SPDX-License-Identifier: GPL-2.0
/* `tracebench report RESULT.json [-o FILE.html]`: the HTML report of a result (render/html/report.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "render/html/report.h"
#include "model/result.h"

const char tb_usage_report[] = "usage: tracebench report RESULT.json [-o FILE.html]\n"
			       "  -o, --output FILE  where to write the report (default: "
			       "report.html next to the result)\n" TB_CLI_COMMON_USAGE;

int tb_cli_report(int argc, char **argv)
{
	const char *out, *file;
	struct tb_result *r;
	char path[PATH_MAX];
	int ret;

	ret = tb_cli_one_result(argc, argv, tb_usage_report, &out, &file, &r);
	if (ret >= 0)
		return ret;
	if (!out && !(out = tb_cli_next_to(file, "report.html", path, sizeof(path)))) {
		tb_result_free(r);
		return TB_EXIT_USAGE;
	}
	ret = tb_report_write(r, NULL, NULL, out); /* out is the user's path */
	tb_result_free(r);
	if (ret) /* said; a link where it goes is bad input, a full disk not possible */
		return tb_dir_exit_code(ret);
	printf("report: %s\n", out);
	return TB_EXIT_OK;
}
