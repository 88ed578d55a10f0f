/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The outputs of `tracebench fleet` (a merged fleet, stats/fleet.h) for the terminal and for
 * scripts; its HTML report is tb_report_fleet_write (render/html/report.h).
 */
#ifndef TB_FLEET_TABLE_H
#define TB_FLEET_TABLE_H

#include <jansson.h>
#include <stdio.h>

struct tb_fleet;

/*
 * The fleet summary: one column per merged host (its hardware class and kernel in the header),
 * one row per cell: the baseline's ns/op, a traced cell's overhead % [CI] and verdict; then the
 * classes and what compares across them.
 */
void tb_render_fleet_print(FILE *f, const struct tb_fleet *fl);
/* The per-host table: every host, its state, and its result or the reason it has none. */
void tb_render_fleet_hosts(FILE *f, const struct tb_fleet *fl);
/* The whole merge as JSON (schema tracebench-fleet/1): a new reference, NULL on ENOMEM. */
json_t *tb_render_fleet_json(const struct tb_fleet *fl);

#endif /* TB_FLEET_TABLE_H */
