// SPDX-License-Identifier: GPL-2.0
/* result.json's sweep tables (METHODOLOGY.md "Sweeps"): a cell's sweep point, and the result's
 * sweeps with their model and points; cut from model/json-result.c, which uses them. */
#include <string.h>

#include "model/json-rows.h"

/* ---- a cell's sweep point ---------------------------------------------------------- */

#define T struct tb_cell_sweep
static const struct tb_json_field cell_sweep_fields[] = {
	F_STR("section", section, TB_JSON_REQ),
	F_STR("key", key, TB_JSON_REQ),
	F_STR("value", value, TB_JSON_REQ),
	F_STR("unit", unit, TB_JSON_REQ),
	F_NUM("x", x, -MAXV),
	F_END,
};
#undef T

const struct tb_json_table tb_json_cell_sweep_table = {cell_sweep_fields, NULL, NULL};

/* ---- a sweep ---------------------------------------------------------------------------------- */

#define T struct tb_rate_model
static const struct tb_json_field sweep_fit_fields[] = {
	F_UINT("points", npoints, TB_RESULT_MAX_CELLS),
	F_NUM("fixed_ns", fixed_ns, -MAXV),
	F_PAIR("fixed_ns_ci", fixed_ci_lo, fixed_ci_hi, 0),
	F_NUM("slope_ns", cost_ns, -MAXV),
	F_PAIR("slope_ns_ci", cost_ci_lo, cost_ci_hi, 0),
	F_NUM("r2", r2, -MAXV),
	F_PROB("p_quadratic", p_quadratic),
	F_BOOL("nonlinear", nonlinear, 0),
	F_BOOL("accepted", accepted, TB_JSON_REQ),
	F_TEXT("why_not", why_not, TB_JSON_OMIT),
	F_END,
};
#undef T

#define T struct tb_sweep_point
static const struct tb_json_field sweep_point_fields[] = {
	F_STR("cell", cell, TB_JSON_REQ),
	F_STR("value", value, TB_JSON_REQ),
	F_NUM("x", x, -MAXV),
	F_NUM("ns_per_op", ns_per_op, -MAXV),
	F_PAIR("ns_per_op_ci", ns_lo, ns_hi, 0),
	F_BOOL("used", used, TB_JSON_REQ),
	F_TEXT("why_not", why_not, TB_JSON_OMIT),
	F_RANGE("events_per_s", events_per_s, 0, MAXV, TB_JSON_OMIT),
	F_COUNT("lost", lost, TB_JSON_OMIT),
	F_RANGE("lost_share", lost_share, 0, 1, TB_JSON_OMIT),
	F_RANGE("tracer_cpu", tracer_cpu, 0, MAXV, TB_JSON_OMIT),
	F_END,
};
#undef T

#define T struct tb_knee_model
static const struct tb_json_field sweep_knee_fields[] = {
	F_UINT("points", npoints, TB_RESULT_MAX_CELLS),
	F_NUM("knee_x", knee_x, -MAXV),
	F_NUM("fixed_ns", fixed_ns, -MAXV),
	F_NUM("slope_before_ns", before_ns, -MAXV),
	F_PAIR("slope_before_ns_ci", before_lo, before_hi, 0),
	F_NUM("slope_after_ns", after_ns, -MAXV),
	F_PAIR("slope_after_ns_ci", after_lo, after_hi, 0),
	F_NUM("r2", r2, -MAXV),
	F_PROB("p_bend", p_bend),
	F_BOOL("saturating", saturating, 0),
	F_BOOL("accepted", accepted, TB_JSON_REQ),
	F_TEXT("why_not", why_not, TB_JSON_OMIT),
	F_END,
};
#undef T

static void knee_init(void *k)
{
	tb_knee_model_init(k);
}

static const struct tb_json_table sweep_fit_table = {sweep_fit_fields, NULL, NULL};
static const struct tb_json_table sweep_knee_table = {sweep_knee_fields, knee_init, NULL};
static const struct tb_json_table sweep_point_table = {sweep_point_fields, NULL, NULL};

static void *sweep_point_add(void *sw)
{
	return tb_sweep_add_point(sw);
}

static const struct tb_json_array sweep_points_array = {
	.elem = &sweep_point_table,
	.size = sizeof(struct tb_sweep_point),
	.count = offsetof(struct tb_sweep, npoints),
	.max = TB_RESULT_MAX_CELLS,
	.add = sweep_point_add,
};

#define T struct tb_sweep
static const struct tb_json_field sweep_fields[] = {
	F_STR("kind", kind, TB_JSON_REQ),
	F_STR("section", section, TB_JSON_REQ),
	F_STR("key", key, TB_JSON_REQ),
	F_STR("against", against, TB_JSON_REQ),
	F_STR("unit", unit, TB_JSON_REQ),
	F_CHILD("model", offsetof(T, fit), &sweep_fit_table),
	F_CHILD_SEEN("knee", knee, has_knee, &sweep_knee_table),
	F_PAIR("slope_ns_ci_rounds", rounds_lo, rounds_hi, TB_JSON_OMIT),
	F_RANGE("accepted_ns_per_event", accepted_ns, -MAXV, MAXV, TB_JSON_OMIT),
	F_RANGE("rejected_ns_per_event", rejected_ns, -MAXV, MAXV, TB_JSON_OMIT),
	F_PAIR("rejected_ns_per_event_ci", rej_lo, rej_hi, TB_JSON_OMIT),
	F_BOOL("rejected_within_noise", rejected_within_noise, TB_JSON_OMIT),
	F_BOOL("rejected_from_point", rejected_from_point, TB_JSON_OMIT),
	F_RANGE("held_events_per_s", held_rate, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("held_tracer_cpu", held_cpu, 0, MAXV, TB_JSON_OMIT),
	F_TEXT("held_value", held_value, TB_JSON_OMIT),
	F_RANGE("lost_events_per_s", lost_rate, 0, MAXV, TB_JSON_OMIT),
	F_ARRAY("points", points, &sweep_points_array, TB_JSON_REQ),
	F_END,
};
#undef T

/* A sweep is of a workload or a tracer section. */
static int sweep_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	const struct tb_sweep *sw = base;

	(void)o;
	if (strcmp(sw->kind, "workload") && strcmp(sw->kind, "tracer"))
		return tb_json_bad(rd, "kind", "expected \"workload\" or \"tracer\", not \"%.40s\"",
				   sw->kind);
	return 0;
}

static const struct tb_json_table sweep_table = {sweep_fields, NULL, sweep_check};

static void *sweep_add(void *r)
{
	return tb_result_add_sweep(r);
}

const struct tb_json_array tb_json_sweeps_array = {
	.elem = &sweep_table,
	.size = sizeof(struct tb_sweep),
	.count = offsetof(struct tb_result, nsweeps),
	.max = TB_RESULT_MAX_CELLS,
	.add = sweep_add,
};
