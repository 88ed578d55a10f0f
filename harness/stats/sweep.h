/* SPDX-License-Identifier: GPL-2.0 */
/* Sweeps' models (sweep.c): a line per sweep through its cells' per-op costs. */
#ifndef TB_STATS_SWEEP_H
#define TB_STATS_SWEEP_H

#include "model/result.h"

/* Every sweep's points and model from the analysed cells (sweep.c): r->sweeps. 0 or -ENOMEM. */
int tb_stats_sweeps(struct tb_result *r);

#endif /* TB_STATS_SWEEP_H */
