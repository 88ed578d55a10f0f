/* SPDX-License-Identifier: GPL-2.0 */
/* The gate as the commands run it: evaluate, print, write the CI files, an exit code. */
#ifndef TB_GATE_RUN_H
#define TB_GATE_RUN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/result.h"
#include "stats/gate.h"

/*
 * Gate r (and compare it with old when not NULL), print a table to out (may be NULL) and write
 * the requested files. r and old are analysed at the gate's alpha and left analysed at their
 * own settings again. Returns TB_EXIT_OK (pass), TB_EXIT_FAIL (a cell failed) or
 * TB_EXIT_USAGE (bad thresholds in r's gate object, unwritable output file), with the reason
 * printed through tb_err.
 *
 * It drives both the evaluation (stats/gate.h) and the writers (render/gate-formats.h), so
 * it lives with the commands that use it: `gate` and `run --gate`.
 */
int tb_cli_gate_result(struct tb_result *r, struct tb_result *old, const struct tb_gate_opts *o,
		       FILE *out);

/*
 * tb_cli_gate_result against the history db (tb_history_target: --db, $TRACEBENCH_DB, the
 * default): each cell's baseline ns/op or overhead, and with a max-slope-increase each sweep's
 * slope, against the last stable segment of its series (comparable: scenario texts joined),
 * among the runs before r (r itself left out; doc
 * is r's JSON for its content hash, NULL: built from r). A history that does not exist yet
 * gates without regression checks. Returns tb_cli_gate_result's codes, or tb_history_exit_code's
 * when the history cannot be read.
 */
int tb_cli_gate_history(struct tb_result *r, const json_t *doc, const char *db, bool comparable,
			struct tb_gate_opts *o, FILE *out);

#endif /* TB_GATE_RUN_H */
