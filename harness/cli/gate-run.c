// SPDX-License-Identifier: GPL-2.0
/*
 * tb_cli_gate_result (cli/gate-run.h): evaluate, print, write the files, exit code. It lives in cli/,
 * with the commands that call it (`gate`, `run --gate`), because it drives both the statistics
 * (stats/gate.c computes) and the writers (render/gate-formats.c writes), and neither of those
 * may reach into the other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "history/analysis.h"
#include "history/store.h"
#include "render/gate-formats.h"
#include "model/result.h"
#include "cli/gate-run.h"
#include "stats/gate.h"
#include "stats/stats.h"

int tb_cli_gate_result(struct tb_result *r, struct tb_result *old, const struct tb_gate_opts *o,
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
		tb_render_gate_print(out, &g);
	ret = tb_render_gate_write_files(&g, o);
	if (ret) { /* said where it failed */
		ret = ret == -ENOMEM ? TB_EXIT_FAIL : tb_dir_exit_code(ret);
		goto done;
	}
	ret = tb_gate_passed(&g) ? TB_EXIT_OK : TB_EXIT_FAIL;
	/* An empty result is a run that measured nothing: never a pass. */
	if (!r->ncells)
		tb_err("gate: %s has no cells: nothing was measured", g.name);
done:
	tb_gate_release(&g);
	return ret;
}

int tb_cli_gate_history(struct tb_result *r, const json_t *doc, const char *db, bool comparable,
			struct tb_gate_opts *o, FILE *out)
{
	const char *target = tb_history_target(db);
	char shown[512];
	struct tb_gate_ref *refs = NULL, *none = NULL;
	struct tb_history *h = NULL;
	struct tb_detect_opts det;
	json_t *own = NULL;
	double alpha;
	int ret;

	if (tb_gate_alpha(r, o, &alpha))
		return TB_EXIT_USAGE;
	/* The run's points come from its samples, analysed again by this build (history add
	 * keeps a file's own figures and analyses only a file without them). */
	if (tb_stats_analyze(r)) {
		tb_err("gate: out of memory analysing %s", o->name ? o->name : "the result");
		return TB_EXIT_FAIL;
	}
	tb_detect_opts_init(&det);
	ret = tb_history_open(target, 0, &h);
	if (ret == -ENOENT) {
		/* The first run of a pipeline: nothing to regress against yet. */
		tb_history_mask_buf(target, shown, sizeof(shown));
		tb_warn("gate: no history at %s yet: no regression check against it", shown);
		none = calloc(r->ncells + r->nsweeps ? r->ncells + r->nsweeps : 1, sizeof(*none));
		if (!none)
			return TB_EXIT_FAIL;
		for (size_t i = 0; i < r->ncells; i++)
			none[i].c = &r->cells[i];
		refs = none;
	} else if (ret) {
		return tb_history_exit_code(ret);
	} else {
		if (!doc)
			doc = own = tb_result_to_json(r);
		ret = doc ? tb_history_gate_refs(h, r, doc, comparable, &det, alpha, &refs)
			  : -ENOMEM;
		json_decref(own);
		if (ret) {
			tb_history_close(h);
			return tb_history_exit_code(ret);
		}
	}
	o->history = refs;
	o->history_name = h ? tb_history_name(h) : shown; /* masked: it goes into the reports */
	ret = tb_cli_gate_result(r, NULL, o, out);
	o->history = NULL;
	o->history_name = NULL;
	free(refs);
	tb_history_close(h);
	return ret;
}
