// SPDX-License-Identifier: GPL-2.0
/* result.json's service tables (METHODOLOGY.md "Services"): a service sample's figures and a
 * service cell's figures and overheads; model/json-result.c puts them in its sample and cell. */
#include <math.h>
#include <string.h>

#include "model/json-rows.h"

#define T struct tb_svc_figures
static const struct tb_json_field sample_service_fields[] = {
	F_NUM("requests_per_s", rps, 0),
	F_RANGE("p50_ns", p50_ns, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("p99_ns", p99_ns, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("p999_ns", p999_ns, 0, MAXV, TB_JSON_OMIT),
	F_COUNT("errors", errors, 0),
	F_NUM("server_cpu_s", server_cpu_s, 0),
	F_COUNT("server_ctxsw", server_ctxsw, 0),
	F_TEXT("decides", decides, 0),
	F_END,
};
#undef T

/* What a key left out means: unknown. */
static void sample_service_init(void *base)
{
	struct tb_svc_figures *s = base;

	s->rps = s->p50_ns = s->p99_ns = s->p999_ns = s->server_cpu_s = NAN;
	s->errors = s->server_ctxsw = -1;
}

const struct tb_json_table tb_json_sample_service_table = {sample_service_fields,
							   sample_service_init, NULL};

static bool traced(const void *base)
{
	return ((const struct tb_service_overhead *)base)->traced;
}

/* Rows of a traced cell's overheads only: a signed figure, its CI, a verdict. */
/* clang-format off */
#define TRACED_NUM(k, m) \
	{.key = (k), .kind = TB_JSON_NUM, AT(m), .min = -MAXV, .max = MAXV, .when = traced}
#define TRACED_PAIR(k, a, b) \
	{.key = (k), .kind = TB_JSON_PAIR, .off = offsetof(T, a), .off2 = offsetof(T, b), \
	 .min = -INFINITY, .max = MAXV, .when = traced}
#define TRACED_VERDICT(k, m) \
	{.key = (k), .kind = TB_JSON_ENUM, AT(m), .names = &tb_json_verdicts, .when = traced}
/* clang-format on */

#define T struct tb_service_overhead
static const struct tb_json_field cell_service_fields[] = {
	F_NUM("requests_per_s", rps, 0),
	F_RANGE("p50_ns", p50_ns, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("p99_ns", p99_ns, 0, MAXV, TB_JSON_OMIT),
	F_RANGE("p999_ns", p999_ns, 0, MAXV, TB_JSON_OMIT),
	F_COUNT("errors", errors, 0),
	F_NUM("server_cpu_ns_per_request", cpu_ns_per_req, 0),
	F_NUM("server_ctxsw_per_request", ctxsw_per_req, 0),
	F_TEXT("decides", decides, 0),
	TRACED_NUM("throughput_loss_pct", loss_pct),
	TRACED_PAIR("throughput_loss_ci", loss_lo, loss_hi),
	TRACED_NUM("p50_delta_ns", p50_delta),
	TRACED_PAIR("p50_delta_ci", p50_lo, p50_hi),
	TRACED_NUM("p99_delta_ns", p99_delta),
	TRACED_PAIR("p99_delta_ci", p99_lo, p99_hi),
	TRACED_VERDICT("throughput_verdict", thr_verdict),
	TRACED_VERDICT("p50_verdict", p50_verdict),
	TRACED_VERDICT("p99_verdict", p99_verdict),
	F_END,
};
#undef T

/* Read back, a cell with its overheads is a traced one. */
static int cell_service_check(struct tb_json_reader *rd, json_t *o, void *base)
{
	(void)rd;
	((struct tb_service_overhead *)base)->traced =
		json_object_get(o, "throughput_verdict") != NULL;
	return 0;
}

static void cell_service_init(void *base)
{
	struct tb_service_overhead *s = base;

	s->rps = s->p50_ns = s->p99_ns = s->p999_ns = s->cpu_ns_per_req = s->ctxsw_per_req = NAN;
	s->loss_pct = s->loss_lo = s->loss_hi = NAN;
	s->p50_delta = s->p50_lo = s->p50_hi = s->p99_delta = s->p99_lo = s->p99_hi = NAN;
	s->errors = -1;
}

const struct tb_json_table tb_json_cell_service_table = {cell_service_fields, cell_service_init,
							 cell_service_check};
