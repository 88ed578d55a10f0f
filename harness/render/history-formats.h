/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outputs of `tracebench history`: the series and runs of a history, a series' points and
 * its change points (history/analysis.h), as terminal text and as JSON. The HTML page is
 * render/html/history-report.c, the trend plots render/gnuplot/trend.c.
 */
#ifndef TB_HISTORY_FORMATS_H
#define TB_HISTORY_FORMATS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "history/analysis.h"
#include "history/detect.h"
#include "history/series.h"
#include "history/store.h"

/* The series table: id, name, hardware class, scenario variant, runs, first and last run. */
void tb_render_history_series_print(FILE *f, const struct tb_hseries *s, size_t n);
/* One series as a JSON object (its identity, runs and span); NULL on ENOMEM. */
json_t *tb_render_history_series_json(const struct tb_hseries *s);
/* One run as a line of the run table / as a JSON object (NULL on ENOMEM). */
void tb_render_history_run_print(FILE *f, const struct tb_history_run *run);
json_t *tb_render_history_run_json(const struct tb_history_run *run);

/* The settings a detection used, as text ("window 50, p < 0.001, ...") / as JSON. */
void tb_render_history_detect_settings_print(FILE *f, const struct tb_detect_opts *o,
					     bool comparable);
json_t *tb_render_history_detect_settings_json(const struct tb_detect_opts *o, bool comparable);

/*
 * One change point as a sentence: "overhead % of tp-getpid on getpid +14.2 pp [+11.0, +17.5]
 * (+5.0 -> +19.2) at run 37 of 40 (2026-..., commit=9f3e1a2); p 2e-06, samples p 1e-09" into
 * buf; the environment changes are tb_render_history_change_env_print's.
 */
const char *tb_render_history_change_sentence(char *buf, size_t len, const struct tb_hseries *s,
					      const struct tb_hchange *x, size_t npoints);
/* "kernel.release 6.17.4 -> 6.18.1 changed at the same run; ..." lines, indented by indent. */
void tb_render_history_change_env_print(FILE *f, const struct tb_hchange *x, const char *indent);

/* A series' change points: a header line, then each change with its environment (nothing
 * but the header when it has none, unless all is false: then nothing at all). */
void tb_render_history_detect_print(FILE *f, const struct tb_hanalysis *a, bool all);
/* A series' points with their CIs, change points marked between them. */
void tb_render_history_show_print(FILE *f, const struct tb_hanalysis *a);
/* An analysed series as JSON: the series, its change points (each with its run, labels,
 * segments, change, CI, p-values and environment changes) and, with points, every point.
 * NULL on ENOMEM. */
json_t *tb_render_history_analysis_json(const struct tb_hanalysis *a, bool points);

#endif /* TB_HISTORY_FORMATS_H */
