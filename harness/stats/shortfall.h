/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every way a run fell short of what its user asked (shortfall.c), said once at its end by the
 * terminal summary, the HTML report, result.json (`shortfalls`) and the gate, so that a bad
 * run never reads as a good one: a partial result, max-time reached before the rounds asked,
 * a missed precision target (reached against asked), N of M traced cells untrustworthy (with the commonest reason), cells faster than
 * their baseline, foreign instrumentation active during the run.
 */
#ifndef TB_SHORTFALL_H
#define TB_SHORTFALL_H

#include <stddef.h>

#include "model/result.h"

/*
 * The largest overhead CI half-width of r's analysed traced cells that did not fail, in
 * percentage points (what `precision` is held against); NAN when there is none.
 */
double tb_stats_precision_reached(const struct tb_result *r);

/*
 * The commonest reason of r's untrustworthy traced cells: how many share its kind (the text
 * before its first ':', numbers left out) into *n, and the first such cell's reason returned
 * (borrowed from r). NULL (and *n 0) when no traced cell is untrustworthy.
 */
const char *tb_stats_common_reason(const struct tb_result *r, size_t *n);

/*
 * Fill r->shortfalls from r's analysed cells and settings, one sentence each (emptied first).
 * Returns 0 or -ENOMEM.
 */
int tb_stats_shortfalls(struct tb_result *r);

#endif /* TB_SHORTFALL_H */
