/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CI gate: pass/fail per cell from a result (and optionally an older result), with JUnit,
 * Markdown and github-action-benchmark outputs. doc/statistics.md states the rules.
 */
#ifndef TB_GATE_H
#define TB_GATE_H

#include <stdio.h>

#include "result/result.h"

#define TB_GATE_DEFAULT_MAX_OVERHEAD   0.05
#define TB_GATE_DEFAULT_MAX_REGRESSION 0.03
#define TB_GATE_DEFAULT_ALPHA	       0.01

/*
 * Thresholds: NAN (or -1 for allow_untrustworthy) means "not given": the result's `gate` object
 * ([gate] of the scenario) applies, then the defaults above. INFINITY disables a limit.
 */
struct tb_gate_opts {
	double max_overhead;	 /* fraction: 0.05 = 5% overhead against the baseline */
	double max_regression;	 /* fraction (baseline ns/op) / percentage points (overhead) */
	double alpha;		 /* CIs at 1 - alpha */
	int allow_untrustworthy; /* -1 unset, 0, 1 */
	const char *name;	 /* result file name for messages and reports ("result") */
	const char *baseline_name;
	const char *junit, *markdown, *benchmark_json; /* output files, NULL for none */
};

void tb_gate_opts_init(struct tb_gate_opts *o);

/*
 * Gate r (and compare it with old when not NULL), print a table to out (may be NULL) and write
 * the requested files. r and old are analysed at the gate's alpha and left analysed at their
 * own settings again. Returns TB_EXIT_OK (pass), TB_EXIT_FAIL (a cell failed) or
 * TB_EXIT_USAGE (bad thresholds in r's gate object, unwritable output file), with the reason
 * printed through tb_err.
 */
int tb_gate_result(struct tb_result *r, struct tb_result *old, const struct tb_gate_opts *o,
		   FILE *out);

#endif /* TB_GATE_H */
