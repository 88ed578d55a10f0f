/* SPDX-License-Identifier: GPL-2.0 */
/* The terminal summary of a result: what `tracebench run` prints when it is done. */
#ifndef TB_SUMMARY_H
#define TB_SUMMARY_H

#include <stdio.h>

#include "result/result.h"

/*
 * The table: workload, tracer, baseline and traced ns/op, overhead with CI, ns/event with CI
 * (when the overhead's CI excludes 0), events, lost, verdict (and the reason of untrustworthy
 * or failed cells); then the A/A calibration and the rate models when the result has them, the
 * tracers ranked by ns/event when there are two or more, and one line per section left out as
 * unsupported here.
 */
void tb_summary_print(FILE *f, const struct tb_result *r);

#endif /* TB_SUMMARY_H */
