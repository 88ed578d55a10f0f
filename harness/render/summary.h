/* SPDX-License-Identifier: GPL-2.0 */
/* The terminal summary of a result: what `tracebench run` prints when it is done. */
#ifndef TB_SUMMARY_H
#define TB_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/result.h"

/*
 * The table: workload, tracer, baseline and traced ns/op, overhead with CI, ns/event with CI
 * (where model/proof.h quotes it: a detectable overhead), events, lost, verdict (and the
 * reason of untrustworthy or failed cells); then the A/A calibration and the rate models when
 * the result has them, the tracers ranked by ns/event when there are two or more (with how many
 * were left out of the ranking and why), and one line per section left out as
 * unsupported here; for explained cells the explained share, the three functions with the most
 * added self time and the profile's limits.
 */
void tb_render_summary_print(FILE *f, const struct tb_result *r);
/*
 * One explained cell: its share statement, then (when the profiles are attributable, or always)
 * the first `rows` functions by added self time with their added self and inclusive ns/op and
 * shares of the overhead, then the profile's limits. Nothing when c has no explanation.
 */
void tb_render_summary_explained(FILE *f, const struct tb_cell *c, size_t rows, bool always);

#endif /* TB_SUMMARY_H */
