// SPDX-License-Identifier: GPL-2.0
/* `tracebench plot RESULT.json [-o DIR]`: draw a result's plots (render/gnuplot/plot.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "render/gnuplot/plot.h"
#include "model/result.h"

const char tb_usage_plot[] = "usage: tracebench plot RESULT.json [-o DIR]\n"
			     "  -o, --output DIR  write DIR/plots/*.png, *.svg (default: the "
			     "result's directory)\n" TB_CLI_COMMON_USAGE;

int tb_cli_plot(int argc, char **argv)
{
	const char *outdir, *file;
	struct tb_result *r;
	char dir[PATH_MAX], path[PATH_MAX + 64];
	int ret, i;

	ret = tb_cli_one_result(argc, argv, tb_usage_plot, &outdir, &file, &r);
	if (ret >= 0)
		return ret;
	if (!outdir && !(outdir = tb_cli_next_to(file, NULL, dir, sizeof(dir)))) {
		tb_result_free(r);
		return TB_EXIT_USAGE;
	}
	ret = tb_plot_result(r, outdir, 0);
	tb_result_free(r);
	if (ret == -ENOENT)
		return TB_EXIT_UNAVAILABLE;
	if (ret < 0) /* said; a link where a plot goes is bad input, a full disk not possible */
		return tb_dir_exit_code(ret);
	printf("%d plots in %s/plots:", ret, outdir);
	for (i = 0; tb_plot_names[i]; i++) {
		char p[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/plots/%s.png", outdir, tb_plot_names[i]);
		if (!access(p, F_OK))
			printf(" %s", tb_plot_names[i]);
	}
	for (i = 1; i <= TB_PLOT_MAX_SWEEPS; i++) {
		char p[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/plots/sweep-%d.png", outdir, i);
		if (!access(p, F_OK))
			printf(" sweep-%d", i);
	}
	snprintf(path, sizeof(path), "%s/plots/%s.png", outdir, TB_PLOT_SATURATION);
	if (!access(path, F_OK))
		printf(" %s", TB_PLOT_SATURATION);
	printf(" (.png and .svg)\n");
	return TB_EXIT_OK;
}
