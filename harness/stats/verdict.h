/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict of a traced cell and its reason (verdict.c): the rules of doc/statistics.md
 * ("Verdicts"), first match wins. Every untrustworthy reason names the setting to change and a
 * value to try, computed from the run (buffer-size, ringbuf-size, mmap-pages, duration,
 * repetitions, max-cv), and a number compared with a threshold is printed with as many
 * decimals as it takes to differ from it.
 */
#ifndef TB_VERDICT_H
#define TB_VERDICT_H

#include <stddef.h>

#include "model/result.h"

/* CV above this makes a cell untrustworthy (pyperf warns at sd >= 10% of the mean). */
#define TB_MAX_CV 0.10
/* Fewer measured rounds than this make a verdict untrustworthy. */
#define TB_MIN_ROUNDS 5

/*
 * Set c->overhead's verdict and reason from its figures (filled by the statistics), its proof
 * (c->proof, judged before) and its workload's baseline cell base (NULL: none), with r's
 * settings (max_cv, noise_threshold, confidence, foreign instrumentation).
 */
void tb_stats_verdict(const struct tb_result *r, const struct tb_cell *base, struct tb_cell *c);

/*
 * "v% > t%" with v printed with the fewest decimals (1 to 4) that still show it above t, which
 * is printed as %g: "10.04% > 10%" rather than "10.0% > 10%". Returns buf.
 */
char *tb_stats_fmt_above(char *buf, size_t len, double v, double t, const char *unit);

#endif /* TB_VERDICT_H */
