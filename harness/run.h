/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TB_RUN_H
#define TB_RUN_H

#include <stdio.h>

#include "result.h"

/* The terminal table: workload, tracer, baseline and traced ns/op, overhead with CI, ns/event,
 * events, lost, verdict (and the reason of untrustworthy or failed cells). */
void tb_runner_print_summary(FILE *f, const struct tb_result *r);

#endif
