// SPDX-License-Identifier: GPL-2.0
/*
 * tb_gate_result (cli/gate-run.h): evaluate, print, write the files, exit code. It lives in cli/,
 * with the commands that call it (`gate`, `run --gate`), because it drives both the statistics
 * (stats/gate.c computes) and the writers (outputs/gate-formats.c writes), and neither of those
 * may reach into the other.
 */
#include <errno.h>
#include <stdio.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "outputs/gate-formats.h"
#include "result/result.h"
#include "cli/gate-run.h"
#include "stats/gate.h"

int tb_gate_result(struct tb_result *r, struct tb_result *old, const struct tb_gate_opts *o,
		   FILE *out)
{
	struct tb_gate g;
	int ret;

	ret = tb_gate_evaluate(&g, r, old, o);
	if (ret) {
		ret = ret == -EINVAL ? TB_EXIT_USAGE : TB_EXIT_FAIL;
		goto done;
	}
	if (out)
		tb_gate_print(out, &g);
	ret = tb_gate_write_files(&g, o);
	if (ret) { /* said where it failed */
		ret = ret == -ENOMEM ? TB_EXIT_FAIL : tb_dir_exit_code(ret);
		goto done;
	}
	ret = tb_gate_passed(&g) ? TB_EXIT_OK : TB_EXIT_FAIL;
	/* An empty result is a run that measured nothing: never a pass. */
	if (!r->ncells)
		tb_err("gate: %s has no cells: nothing was measured", g.name);
	if (r->partial)
		tb_warn("gate: %s is partial (stopped early: %s)", g.name,
			r->stop_reason ? r->stop_reason : "unknown reason");
done:
	tb_gate_release(&g);
	return ret;
}
