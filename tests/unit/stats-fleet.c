// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet merge (stats/fleet.c) and its outputs on the compare fixtures (tests/data/results):
 * a.json and b.json share a hardware class, c-otherhw.json is another; what the merge refuses.
 * The playbook itself runs in tests/e2e/t-fleet.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "render/fleet-table.h"
#include "render/html/report.h"
#include "model/result.h"
#include "model/system.h"
#include "stats/compare.h"
#include "stats/fleet.h"
#include "core/tb.h"
#include "tb_test.h"

#define FLEET_ID "fleet-20261201T101500Z"

/* Host name with fixture file, labelled as the role labels it (host=, fleet=). */
static struct tb_fleet_host *add(struct tb_fleet *f, const char *name, const char *file,
				 const char *host_label)
{
	struct tb_fleet_host *h = tb_fleet_host_get(f, name);
	char path[512];

	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	if (!file)
		return h;
	snprintf(path, sizeof(path), "%s/results/%s", tb_test_data_dir(), file);
	CU_ASSERT_EQUAL_FATAL(tb_result_load(path, &h->r), 0);
	h->result_path = strdup(path);
	json_object_set_new(h->r->labels, "host", json_string(host_label ? host_label : name));
	json_object_set_new(h->r->labels, "fleet", json_string(FLEET_ID));
	return h;
}

static struct tb_fleet_host *find(struct tb_fleet *f, const char *name)
{
	for (size_t i = 0; i < f->nhosts; i++)
		if (!strcmp(f->hosts[i].name, name))
			return &f->hosts[i];
	CU_FAIL("host not found");
	return NULL;
}

static void test_hardware_key(void)
{
	struct tb_fleet f = {0};
	char ka[17], kb[17], kc[17];

	add(&f, "a", "a.json", NULL);
	add(&f, "b", "b.json", NULL);
	add(&f, "c", "c-otherhw.json", NULL);
	char desc[128];

	CU_ASSERT_EQUAL_FATAL(tb_system_hardware_class(f.hosts[0].r->system, ka, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(tb_system_hardware_class(f.hosts[1].r->system, kb, NULL, 0), 0);
	CU_ASSERT_EQUAL_FATAL(
		tb_system_hardware_class(f.hosts[2].r->system, kc, desc, sizeof(desc)), 0);
	/* a and b differ in kernel and cmdline only: one class; c has another CPU */
	CU_ASSERT_STRING_EQUAL(ka, kb);
	CU_ASSERT(strcmp(ka, kc) != 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(desc, "AMD EPYC 7B13"));
	tb_fleet_free(&f);
}

static void test_merge(void)
{
	struct tb_fleet f = {.id = FLEET_ID, .scenario_text = "[global]\n"};
	struct tb_fleet_host *h;

	/* added out of order: the merge sorts by name */
	add(&f, "c-amd", "c-otherhw.json", NULL);
	add(&f, "b-619", "b.json", NULL);
	add(&f, "a-618", "a.json", NULL);
	h = add(&f, "down", NULL, NULL);
	tb_fleet_host_set(h, TB_FLEET_UNREACHABLE, "Gathering Facts", "Connection refused");
	CU_ASSERT_EQUAL_FATAL(tb_fleet_merge(&f, 0.05), 0);
	CU_ASSERT_STRING_EQUAL(f.hosts[0].name, "a-618");
	CU_ASSERT_STRING_EQUAL(f.hosts[3].name, "down");
	CU_ASSERT_EQUAL(f.nmerged, 3);
	CU_ASSERT_EQUAL(tb_fleet_nbad(&f), 1);
	/* two classes: A (a, b) and B (c) */
	CU_ASSERT_EQUAL_FATAL(f.nclasses, 2);
	CU_ASSERT_EQUAL(f.classes[0].letter, 'A');
	CU_ASSERT_EQUAL(f.classes[0].nhosts, 2);
	CU_ASSERT_EQUAL(f.classes[1].nhosts, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(f.classes[1].name, "AMD EPYC 7B13"));
	CU_ASSERT_EQUAL(f.hosts[0].cls, f.hosts[1].cls);
	CU_ASSERT_NOT_EQUAL(f.hosts[0].cls, f.hosts[2].cls);
	/* absolute figures only within a class: a-618 against b-619, nothing against c-amd */
	CU_ASSERT_EQUAL_FATAL(f.ncmps, 1);
	CU_ASSERT_STRING_EQUAL(f.cmps[0]->name_a, "a-618");
	CU_ASSERT_STRING_EQUAL(f.cmps[0]->name_b, "b-619");
	CU_ASSERT(f.cmps[0]->same_hardware);
	/* every cell once, in host then cell order */
	CU_ASSERT_EQUAL_FATAL(f.nids, 6);
	CU_ASSERT_STRING_EQUAL(f.ids[0], "getpid/none");
	CU_ASSERT_STRING_EQUAL(f.ids[2], "read/none");
	CU_ASSERT_STRING_EQUAL(f.ids[4], "pipe/none");
	CU_ASSERT_PTR_NOT_NULL(tb_fleet_cell(&f.hosts[0], "read/bpf"));
	CU_ASSERT_PTR_NULL(tb_fleet_cell(&f.hosts[1], "read/bpf"));
	tb_fleet_free(&f);
}

static void test_refusals(void)
{
	struct tb_fleet f = {.id = FLEET_ID, .scenario_text = "[global]\n"};
	struct tb_fleet_host *h;

	add(&f, "ok", "a.json", NULL);
	add(&f, "liar", "b.json", "someone-else");
	h = add(&f, "edited", "b.json", NULL);
	free(h->r->scenario_text);
	h->r->scenario_text = strdup("[global]\nrepetitions = 3\n");
	h = add(&f, "stale", "b.json", NULL);
	json_object_set_new(h->r->labels, "fleet", json_string("fleet-20250101T000000Z"));
	CU_ASSERT_EQUAL_FATAL(tb_fleet_merge(&f, 0.05), 0);
	CU_ASSERT_EQUAL(f.nmerged, 1);
	CU_ASSERT(find(&f, "ok")->merged);
	h = find(&f, "liar");
	CU_ASSERT(!h->merged);
	CU_ASSERT_EQUAL(h->state, TB_FLEET_EXCLUDED);
	CU_ASSERT_PTR_NOT_NULL(strstr(h->reason, "labelled host=someone-else, not liar"));
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&f, "edited")->reason, "scenario text differs"));
	CU_ASSERT_PTR_NOT_NULL(strstr(find(&f, "stale")->reason, "from fleet run fleet-2025"));
	CU_ASSERT_EQUAL(f.ncmps, 0);
	CU_ASSERT_EQUAL(tb_fleet_nbad(&f), 3);
	tb_fleet_free(&f);
}

/* The table, the host table, the JSON and the report of a merged fleet with a hostile name. */
static void test_outputs(void)
{
	struct tb_fleet f = {.id = FLEET_ID, .scenario_text = "[global]\n"};
	char *buf = NULL, path[1024], *html = NULL;
	size_t len = 0;
	FILE *m;
	json_t *j;

	add(&f, "a-618", "a.json", NULL);
	add(&f, "b-619", "b.json", NULL);
	add(&f, "c-amd", "c-otherhw.json", NULL);
	tb_fleet_host_set(add(&f, "<b>down", NULL, NULL), TB_FLEET_UNREACHABLE, "Gathering Facts",
			  "ssh: connect to host 127.0.0.1 port 9: Connection refused");
	CU_ASSERT_EQUAL_FATAL(tb_fleet_merge(&f, 0.05), 0);
	m = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	tb_render_fleet_print(m, &f);
	tb_render_fleet_hosts(m, &f);
	fclose(m);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "3 of 4 hosts merged"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "class B: AMD EPYC 7B13"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "unreachable  Gathering Facts: ssh: connect"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\ngetpid/tp "));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "(not run)")); /* read/bpf on b-619 */
	free(buf);
	j = tb_render_fleet_json(&f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "schema")),
			       "tracebench-fleet/1");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "hosts")), 4);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "classes")), 2);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "comparisons")), 1);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "cells")), 6);
	json_decref(j);
	snprintf(path, sizeof(path), "%s/fleet.html", tb_test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(tb_report_fleet_write(&f, NULL, NULL, path), 0);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &html, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"fleet-table\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "id=\"comparison-1\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(html, "&lt;b&gt;down"));
	CU_ASSERT_PTR_NULL(strstr(html, "<b>down"));
	free(html);
	tb_fleet_free(&f);
}

static CU_TestInfo fleet_tests[] = {
	{"hardware class key", test_hardware_key},
	{"merge: classes, comparisons within a class, cell ids", test_merge},
	{"merge refuses other scenarios, hosts, fleet runs", test_refusals},
	{"table, hosts, JSON, report", test_outputs},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("stats-fleet", NULL, NULL, fleet_tests);
