/* SPDX-License-Identifier: GPL-2.0 */
/* `run --find-limit`'s conclusions (limit.c): what each search's probes say. */
#ifndef TB_STATS_LIMIT_H
#define TB_STATS_LIMIT_H

#include "model/result.h"

/*
 * Each of r->limits concluded from its probes (found, held, lost, monotone, note; the only
 * owner of those figures), then the lost-events verdicts of r's cells given the buffer a
 * search found to hold their rate. Probes whose proof failed or whose counts are unknown are
 * left out. Idempotent (the analysis runs after every round).
 */
void tb_stats_limits(struct tb_result *r);

/* One search's conclusion alone (for tests and the runner's stop rule). */
void tb_stats_limit_conclude(struct tb_limit *l);

#endif /* TB_STATS_LIMIT_H */
