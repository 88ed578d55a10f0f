/* SPDX-License-Identifier: GPL-2.0 */
/* The outputs of an evaluated gate (stats/gate.h): table, JUnit XML, Markdown, benchmark JSON. */
#ifndef TB_GATE_FORMATS_H
#define TB_GATE_FORMATS_H

#include <jansson.h>
#include <stdio.h>

struct tb_gate;
struct tb_gate_opts;

/* The terminal table: the verdict, the limits, one line per cell. */
void tb_render_gate_print(FILE *f, const struct tb_gate *g);
/* JUnit XML: a test case per cell (failure, skipped or system-out with its message). */
void tb_render_gate_junit(FILE *f, const struct tb_gate *g);
/* Markdown for a pull-request comment: the verdict, the limits and a table of the cells. */
void tb_render_gate_markdown(FILE *f, const struct tb_gate *g);
/* github-action-benchmark's "customSmallerIsBetter" entries: ns/op and overhead per cell,
 * and the slope of each sweep whose line was accepted. A new reference (the caller owns it),
 * NULL on ENOMEM. */
json_t *tb_render_gate_benchmark_json(const struct tb_gate *g);
/* Write the files o names (junit, markdown, benchmark_json), each atomically. Returns 0 or
 * -errno, the file and the reason printed through tb_err. */
int tb_render_gate_write_files(const struct tb_gate *g, const struct tb_gate_opts *o);

#endif /* TB_GATE_FORMATS_H */
