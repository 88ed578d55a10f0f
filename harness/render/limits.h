/* SPDX-License-Identifier: GPL-2.0 */
/* `run --find-limit`'s table (limits.c): each search's answer, bracket and probes. */
#ifndef TB_RENDER_LIMITS_H
#define TB_RENDER_LIMITS_H

#include <stdio.h>

#include "model/result.h"

/* r's limits as a table (nothing when it has none), for the summary. */
void tb_render_limits_print(FILE *f, const struct tb_result *r);

#endif /* TB_RENDER_LIMITS_H */
