// SPDX-License-Identifier: GPL-2.0
/*
 * A command tracer's BPF programs in the result: samples merged by name, type and attach point,
 * the derived runs/op, ns/run and share of the overhead, result.json written and read back,
 * hostile tracer_extra refused with its key, the summary and the report showing the table.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "render/html/report.h"
#include "render/summary.h"
#include "model/bpf-progs.h"
#include "model/measured.h"
#include "model/result.h"
#include "tb_test.h"

/* One sample's tracer_extra as the command tracer writes it. */
static json_t *sample_extra(uint32_t id0, int64_t runs, int64_t ns, const char *method)
{
	return json_pack("{s:s, s:[{s:I, s:s, s:s, s:s, s:I, s:I}, {s:I, s:s, s:s, s:s, s:I, "
			 "s:I}, {s:I, s:s, s:s, s:s, s:I, s:I}]}",
			 "bpf_method", method, "bpf_programs", "id", (json_int_t)id0, "name",
			 "sys_enter_read", "type", "tracepoint", "attach",
			 "tracepoint:syscalls:sys_enter_read", "runs", (json_int_t)runs,
			 "run_time_ns", (json_int_t)ns, "id", (json_int_t)id0 + 1, "name", "dup",
			 "type", "tracepoint", "attach", "tracepoint:a:b", "runs", (json_int_t)1,
			 "run_time_ns", (json_int_t)10, "id", (json_int_t)id0 + 2, "name", "dup",
			 "type", "tracepoint", "attach", "tracepoint:a:b", "runs", (json_int_t)2,
			 "run_time_ns", (json_int_t)20);
}

/* A baseline and a command cell of two measured samples of 1000 ops (and a warmup). */
static struct tb_result *two_cells(void)
{
	struct tb_result *r = tb_result_new();
	char err[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	for (int k = 0; k < 2; k++) {
		struct tb_cell *c = tb_result_add_cell(r);

		c->id = strdup(k ? "read/bt" : "read/none");
		c->workload = strdup("read");
		c->tracer = strdup(k ? "bt" : "none");
		c->tracer_type = strdup(k ? "command" : "none");
		c->baseline = !k;
		c->threads = 1;
		c->ops_per_sample = 1000;
		for (int i = 0; i < 3; i++) {
			struct tb_sample *s = tb_cell_add_sample(c);

			s->round = i - 1;
			s->warmup = i == 0;
			s->failed = false;
			s->ops = 1000;
			s->ns_per_op = k ? 300 : 200;
			s->elapsed_ns = 1000 * s->ns_per_op;
		}
	}
	r->cells[1].tracer_extra = sample_extra(30, 1000, 50000, "fdinfo");
	for (int i = 0; i < 2; i++) {
		json_t *x = sample_extra(10 + 10 * i, 1000, 50000 + 10000 * i, "fdinfo");

		CU_ASSERT_EQUAL(tb_cell_bpf_merge(&r->cells[1], x, err, sizeof(err)), 0);
		json_decref(x);
	}
	r->cells[1].has_overhead = true;
	tb_overhead_init(&r->cells[1].overhead);
	r->cells[1].overhead.ns_per_op = 100;
	return r;
}

static void test_merge(void)
{
	struct tb_result *r = two_cells();
	struct tb_cell *c = &r->cells[1];
	char err[256];
	json_t *x;

	CU_ASSERT_STRING_EQUAL(c->bpf_method, "fdinfo");
	CU_ASSERT_EQUAL_FATAL(c->nbpf_progs, 3); /* the two "dup" stay two */
	CU_ASSERT_EQUAL(c->bpf_progs[0].id, 20); /* the last sample's id */
	CU_ASSERT_EQUAL(c->bpf_progs[0].runs, 2000);
	CU_ASSERT_EQUAL(c->bpf_progs[0].run_time_ns, 110000);
	CU_ASSERT_EQUAL(c->bpf_progs[0].samples, 2);
	CU_ASSERT_EQUAL(c->bpf_progs[1].runs, 2);
	CU_ASSERT_EQUAL(c->bpf_progs[2].runs, 4);
	/* 2000 runs over 2 x 1000 ops, 55 ns each, against 100 ns/op of overhead */
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_bpf_runs_per_op(c, &c->bpf_progs[0]), 1.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_bpf_ns_per_run(c, &c->bpf_progs[0]), 55.0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_bpf_share(c, &c->bpf_progs[0]), 0.55, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_bpf_runs_per_op(c, NULL), 2006.0 / 2000, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_bpf_share(c, NULL), 110060.0 / 2000 / 100, 1e-12);
	/* a sample found by another method makes the cell's "mixed"; unknown runs stay unknown */
	x = json_pack("{s:s, s:[{s:i, s:s, s:s, s:s, s:n}]}", "bpf_method", "new-ids",
		      "bpf_programs", "id", 99, "name", "sys_enter_read", "type", "tracepoint",
		      "attach", "tracepoint:syscalls:sys_enter_read", "runs");
	CU_ASSERT_EQUAL(tb_cell_bpf_merge(c, x, err, sizeof(err)), 0);
	json_decref(x);
	CU_ASSERT_STRING_EQUAL(c->bpf_method, "mixed");
	CU_ASSERT_EQUAL(c->bpf_progs[0].runs, -1);
	CU_ASSERT(isnan(tb_cell_bpf_share(c, &c->bpf_progs[0])));
	CU_ASSERT(isnan(tb_cell_bpf_share(&r->cells[0], NULL))); /* no programs */
	tb_result_free(r);
}

static void test_roundtrip(void)
{
	struct tb_result *r = two_cells(), *back = NULL;
	json_t *doc = tb_result_to_json(r), *arr, *p;

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	arr = json_object_get(
		json_object_get(json_array_get(json_object_get(doc, "cells"), 1), "tracer_extra"),
		"bpf_programs");
	CU_ASSERT_EQUAL_FATAL(json_array_size(arr), 3);
	p = json_array_get(arr, 0);
	/* the cell's sums, not the last sample's, with the derived figures */
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(p, "runs")), 2000);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(p, "ns_per_run")), 55.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(p, "overhead_share")), 0.55, 1e-9);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "t.json", &back), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	CU_ASSERT_EQUAL(back->cells[1].nbpf_progs, 3);
	CU_ASSERT_STRING_EQUAL(back->cells[1].bpf_method, "fdinfo");
	CU_ASSERT_EQUAL(back->cells[1].bpf_progs[0].runs, 2000);
	CU_ASSERT_EQUAL(back->cells[1].bpf_progs[0].samples, 2);
	CU_ASSERT_STRING_EQUAL(back->cells[1].bpf_progs[0].attach,
			       "tracepoint:syscalls:sys_enter_read");
	CU_ASSERT_EQUAL(back->cells[0].nbpf_progs, 0);
	json_decref(doc);
	tb_result_free(back);
	tb_result_free(r);
}

/* A result whose command cell's tracer_extra is text (JSON); load must give ret and say key. */
static void hostile(const char *extra, const char *key)
{
	struct tb_result *r = two_cells(), *back = NULL;
	json_t *doc = tb_result_to_json(r), *x = json_loads(extra, 0, NULL);
	char want[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	json_object_set_new(json_array_get(json_object_get(doc, "cells"), 1), "tracer_extra", x);
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "h.json", &back), -EINVAL);
	CU_ASSERT_PTR_NULL(back);
	snprintf(want, sizeof(want), "h.json: cells[1].tracer_extra: %s", key);
	if (!strstr(tb_result_last_error(), want))
		printf("\n    got '%s', want '%s' ", tb_result_last_error(), want);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), want));
	json_decref(doc);
	tb_result_free(r);
}

static void test_hostile(void)
{
	char big[600], many[20000];
	size_t n = 0;

	hostile("{\"bpf_programs\": 3}", "bpf_programs: expected an array");
	hostile("{\"bpf_programs\": [1]}", "bpf_programs[0]: expected an object");
	hostile("{\"bpf_programs\": [{\"name\": \"x\"}]}", "bpf_programs[0].id");
	hostile("{\"bpf_programs\": [{\"id\": 4294967296}]}", "bpf_programs[0].id");
	hostile("{\"bpf_programs\": [{\"id\": 1, \"runs\": -5}]}", "bpf_programs[0].runs");
	hostile("{\"bpf_programs\": [{\"id\": 1, \"runs\": 1.5}]}", "bpf_programs[0].runs");
	hostile("{\"bpf_programs\": [{\"id\": 1, \"type\": 7}]}", "bpf_programs[0].type");
	hostile("{\"bpf_method\": \"guess\"}", "bpf_method");
	snprintf(big, sizeof(big), "{\"bpf_programs\": [{\"id\": 1, \"attach\": \"%0400d\"}]}", 0);
	hostile(big, "bpf_programs[0].attach: longer than 159 bytes");
	n += (size_t)snprintf(many + n, sizeof(many) - n, "{\"bpf_programs\": [");
	for (int i = 0; i <= TB_CELL_BPF_PROGS_MAX; i++)
		n += (size_t)snprintf(many + n, sizeof(many) - n, "%s{\"id\": %d}", i ? "," : "",
				      i + 1);
	snprintf(many + n, sizeof(many) - n, "]}");
	hostile(many, "bpf_programs: more than 512 programs");
}

/* The summary and the report show the table. */
static void test_outputs(void)
{
	struct tb_result *r = two_cells();
	struct tb_dir plots = TB_DIR_INIT;
	char path[4096], *text = NULL, *page = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	json_object_set_new(r->cells[1].tracer_extra, "events_from", json_string("bpf runs"));
	json_object_set_new(r->cells[1].tracer_extra, "bpf_maps_memlock", json_integer(8192));
	snprintf(r->cells[1].bpf_progs[0].attach, sizeof(r->cells[1].bpf_progs[0].attach),
		 "uprobe:<script>&");
	tb_render_summary_print(f, r);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "read / bt: events from bpf runs"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "found by fdinfo: 3, maps 8 KiB"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "sys_enter_read"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "55.0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "55%"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "(all)"));
	snprintf(path, sizeof(path), "%s/bpf.html", tb_test_tmpdir());
	/* The tmpdir as the plots directory: no plots, none drawn. */
	CU_ASSERT_EQUAL_FATAL(tb_dir_open(&plots, tb_test_tmpdir(), TB_DIR_PATH, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tb_report_write(r, &plots, NULL, path), 0);
	tb_dir_close(&plots);
	CU_ASSERT_EQUAL(tb_read_file(path, &page, NULL), 0);
	CU_ASSERT_PTR_NOT_NULL(page && strstr(page, "id=\"command-tracers\""));
	CU_ASSERT_PTR_NOT_NULL(page && strstr(page, "id=\"bpf-programs-1\""));
	CU_ASSERT_PTR_NOT_NULL(page && strstr(page, "uprobe:&lt;script&gt;&amp;"));
	CU_ASSERT_PTR_NULL(page && strstr(page, "uprobe:<script>"));
	CU_ASSERT_PTR_NOT_NULL(page && strstr(page, "<td class=\"n\">55%</td>"));
	free(page);
	free(text);
	tb_result_free(r);
}

/* The hooks a cell's programs were found attached to (issue 29), and where none can be said. */
static void test_hooks(void)
{
	struct tb_cell_prog progs[3] = {
		{.attach = "tracepoint:syscalls:sys_enter_getpid"},
		{.attach = "raw_tracepoint:sys_enter"},
		{.attach = "trace_raw_tp:sched_switch"},
	};
	struct tb_cell c = {.bpf_progs = progs, .nbpf_progs = 3};
	struct tb_hooks h;

	tb_hooks_init(&h);
	CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, NULL, &h), 1);
	CU_ASSERT_EQUAL(h.kind, TB_HOOK_EVENTS);
	CU_ASSERT_EQUAL(h.scope, TB_SCOPE_SYSTEM);
	CU_ASSERT_EQUAL_FATAL(h.n, 3);
	CU_ASSERT_STRING_EQUAL(h.h[0].name, "syscalls:sys_enter_getpid");
	CU_ASSERT_STRING_EQUAL(h.h[1].name, "raw_syscalls:sys_enter");
	CU_ASSERT_STRING_EQUAL(h.h[2].name, "sched:sched_switch");
	CU_ASSERT(h.h[0].counted && h.h[1].counted && h.h[2].counted);
	tb_hooks_free(&h);
	/* one program attached where the events' names do not reach: nothing said */
	static const char *const other[] = {"uprobe:/usr/bin/x+0x10",
					    "",
					    "fd type 9",
					    "tracepoint:nosystem",
					    "raw_tracepoint:foo",
					    "tracepoint:a:b:c"};
	for (size_t i = 0; i < TB_ARRAY_SIZE(other); i++) {
		snprintf(progs[1].attach, sizeof(progs[1].attach), "%s", other[i]);
		tb_hooks_init(&h);
		CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, NULL, &h), 0);
		CU_ASSERT_EQUAL(h.n, 0);
		tb_hooks_free(&h);
	}
	c.nbpf_progs = 0;
	tb_hooks_init(&h);
	CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, NULL, &h), 0);
	tb_hooks_free(&h);
}

/* A namer that knows one site, as host/elf-sites.h would name it. */
static int fake_namer(const char *path, uint64_t off, bool ret, char *out, size_t len)
{
	if (strcmp(path, "/opt/a+b/app") || off != 0x1a0)
		return -ENOENT;
	snprintf(out, len, "%s", ret ? "uretprobe:fn" : "uprobe:fn");
	return 0;
}

/* User probes by what sits at their offset, and perf_event programs as sampling. */
static void test_hooks_user(void)
{
	struct tb_cell_prog progs[2] = {
		{.type = "kprobe", .attach = "uprobe:/opt/a+b/app+0x1a0"},
		{.type = "kprobe", .attach = "uretprobe:/opt/a+b/app+0x1a0"},
	};
	struct tb_cell c = {.bpf_progs = progs, .nbpf_progs = 2};
	struct tb_hooks h;

	tb_hooks_init(&h);
	CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, fake_namer, &h), 1);
	CU_ASSERT_EQUAL(h.kind, TB_HOOK_EVENTS);
	CU_ASSERT_EQUAL_FATAL(h.n, 2);
	CU_ASSERT_STRING_EQUAL(h.h[0].name, "uprobe:fn");
	CU_ASSERT_STRING_EQUAL(h.h[1].name, "uretprobe:fn");
	tb_hooks_free(&h);
	/* no namer, an offset it cannot name, malformed offsets: nothing said */
	tb_hooks_init(&h);
	CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, NULL, &h), 0);
	tb_hooks_free(&h);
	static const char *const bad[] = {
		"uprobe:/opt/a+b/app+0x1a1",  "uprobe:/opt/a+b/app+0x",
		"uprobe:/opt/a+b/app+0x1a0z", "uprobe:+0x1a0",
		"uprobe:/opt/a+b/app+1a0",    "kprobe:/opt/a+b/app+0x1a0"};
	for (size_t i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		snprintf(progs[1].attach, sizeof(progs[1].attach), "%s", bad[i]);
		tb_hooks_init(&h);
		CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, fake_namer, &h), 0);
		CU_ASSERT_EQUAL(h.n, 0);
		tb_hooks_free(&h);
	}
	/* every program on a perf event: one sampling hook, counted as samples */
	snprintf(progs[0].type, sizeof(progs[0].type), "perf_event");
	snprintf(progs[1].type, sizeof(progs[1].type), "perf_event");
	progs[0].attach[0] = progs[1].attach[0] = '\0';
	tb_hooks_init(&h);
	CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, fake_namer, &h), 1);
	CU_ASSERT_EQUAL(h.kind, TB_HOOK_SAMPLING);
	CU_ASSERT_EQUAL_FATAL(h.n, 1);
	CU_ASSERT_STRING_EQUAL(h.h[0].name, "perf:event");
	tb_hooks_free(&h);
	/* a perf_event program beside a tracepoint one: no one unit */
	snprintf(progs[1].type, sizeof(progs[1].type), "tracepoint");
	snprintf(progs[1].attach, sizeof(progs[1].attach), "tracepoint:syscalls:sys_enter_getpid");
	tb_hooks_init(&h);
	CU_ASSERT_EQUAL(tb_cell_bpf_hooks(&c, fake_namer, &h), 0);
	tb_hooks_free(&h);
}

static CU_TestInfo bpf_progs_tests[] = {
	{"hooks from attach points", test_hooks},
	{"user probes and perf events", test_hooks_user},
	{"samples merged", test_merge},
	{"result.json round trip", test_roundtrip},
	{"hostile tracer_extra", test_hostile},
	{"summary and report", test_outputs},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("model-bpf-progs", NULL, NULL, bpf_progs_tests);
