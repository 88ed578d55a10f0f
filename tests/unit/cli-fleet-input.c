// SPDX-License-Identifier: GPL-2.0
/*
 * What hosts and Ansible say in a fleet run is input from outside (cli/fleet-playbook.c): event
 * lines of a stand-in ansible-playbook and host records with terminal escapes in host names,
 * task names, msg, stderr_lines, stage and reason, and reasons of megabytes. Nothing of them may
 * reach stderr, fleet.txt, fleet.json or the report with a raw ESC, and every kept text is cut at
 * TB_FLEET_TEXT_MAX bytes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/fleet-playbook.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "render/fleet-table.h"
#include "render/html/report.h"
#include "stats/fleet.h"
#include "tb_test.h"

#define BIG (512u << 10) /* a reason of 512 KiB, in a record below TB_FLEET_RECORD_MAX */

/* A file of a stand-in: text, then mode. */
static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* No ESC (raw, or as the C1 CSI) in s; s at most max bytes. */
static void clean(const char *what, const char *s, size_t max)
{
	if (!s)
		return;
	if (strchr(s, '\033') || strstr(s, "\302\233"))
		fprintf(stderr, "\n  %s holds a raw escape\n", what);
	CU_ASSERT_PTR_NULL(strchr(s, '\033'));
	CU_ASSERT_PTR_NULL(strstr(s, "\302\233"));
	if (strlen(s) > max)
		fprintf(stderr, "\n  %s: %zu bytes\n", what, strlen(s));
	CU_ASSERT(strlen(s) <= max);
}

/* The stand-in ansible-playbook: hostile events, then a recap; it ignores its arguments. */
static const char playbook[] =
	"#!/bin/sh\n"
	"printf 'ansible talking \\033[2J\\033]0;owned\\007\\n'\n"
	"echo '{\"_event\":\"v2_playbook_on_task_start\",\"task\":{\"name\":\"tracebench : t\\u001b[2J\"}}'\n"
	"big=$(head -c 100000 /dev/zero | tr '\\0' A)\n"
	"echo '{\"_event\":\"v2_runner_on_failed\",\"task\":{\"name\":\"run \\u001b[31m\"},"
	"\"hosts\":{\"h\\u001b[1m\":{\"msg\":\"non-zero return code\",\"stderr_lines\":"
	"[\"x\",\"last \\u009b2J '$big'\"]}}}'\n"
	"echo '{\"_event\":\"v2_runner_on_unreachable\",\"task\":{\"name\":\"n\"},"
	"\"hosts\":{\"good\":{\"msg\":\"gone \\u001b[5m\"}}}'\n"
	"echo '{\"_event\":\"v2_playbook_on_stats\",\"stats\":{\"good\":{\"unreachable\":1}}}'\n";

static void test_events_and_records(void)
{
	const char *dir = tb_test_tmpdir(), *path0 = getenv("PATH");
	struct tb_cli_fleet_outcome out;
	struct tb_fleet f = {.id = "fleet-x"};
	struct tb_cli_playbook pb = {
		.playbook = "pb.yml", .inventory = "inv", .vars = "v.json", .logfd = -1};
	char p[512], *env = NULL, *err, *text = NULL, *big;
	size_t n = 0, max = 4 * TB_FLEET_TEXT_MAX + 16;
	FILE *mem;
	json_t *j;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(p, sizeof(p), "%s/ansible-playbook", dir);
	put(p, playbook, 0755);
	CU_ASSERT_FATAL(asprintf(&env, "%s:%s", dir, path0 ? path0 : "/usr/bin:/bin") > 0);
	setenv("PATH", env, 1);
	tb_test_stderr_begin();
	ret = tb_cli_playbook_run(&pb, &f, &out);
	err = tb_test_stderr_end();
	setenv("PATH", path0 ? path0 : "/usr/bin:/bin", 1);
	free(env);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(f.nhosts, 2);
	clean("stderr of the events", err, 64u << 10);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "\\x1b[2J"));
	free(err);

	/* the record of "good": every text hostile, the reason 512 KiB */
	snprintf(p, sizeof(p), "%s/good", dir);
	mkdir(p, 0755);
	big = malloc(BIG + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	memset(big, 'B', BIG);
	memcpy(big, "\\u001b[2J", 9);
	big[BIG] = '\0';
	CU_ASSERT_FATAL(
		asprintf(&text,
			 "{\"schema\":\"tracebench-fleet-host/1\",\"host\":\"good\","
			 "\"status\":\"failed\",\"stage\":\"st\\u001b[1m\",\"reason\":\"%s\","
			 "\"install\":{\"mode\":\"binary\",\"why\":\"\\u009b5m\"}}",
			 big) > 0);
	free(big);
	snprintf(p, sizeof(p), "%s/good/fleet-host.json", dir);
	put(p, text, 0644);
	free(text);
	CU_ASSERT_EQUAL(tb_cli_fleet_records(&f, dir), 0);
	for (size_t i = 0; i < f.nhosts; i++) {
		clean("a host's name", f.hosts[i].name, max);
		clean("a host's stage", f.hosts[i].stage, max);
		clean("a host's reason", f.hosts[i].reason, max);
		clean("a host's install", f.hosts[i].install, max);
		CU_ASSERT_PTR_NOT_NULL(f.hosts[i].reason);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_fleet_host_get(&f, "good")->stage, "st\\x1b[1m"));
	CU_ASSERT_EQUAL(tb_fleet_merge(&f, 0.05), 0);

	/* fleet.txt and the terminal's tables, fleet.json, the report */
	mem = open_memstream(&text, &n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
	tb_render_fleet_print(mem, &f);
	tb_render_fleet_hosts(mem, &f);
	fclose(mem);
	clean("the fleet's tables", text, 16 * max);
	free(text);
	j = tb_render_fleet_json(&f);
	text = j ? json_dumps(j, JSON_ENSURE_ASCII) : NULL;
	CU_ASSERT(text && strlen(text) < 16 * max);
	free(text);
	json_decref(j);
	tb_fleet_free(&f);
}

/* A record over TB_FLEET_RECORD_MAX, a FIFO and a link as records: refused unread, unblocked. */
static void test_records_not_read(void)
{
	const char *dir = tb_test_tmpdir();
	const char *names[] = {"big", "fifo", "link"};
	struct tb_fleet f = {.id = "fleet-x"};
	char p[512];
	FILE *file;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		mkdir(p, 0755);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tb_fleet_host_get(&f, names[i]));
	}
	snprintf(p, sizeof(p), "%s/big/fleet-host.json", dir);
	file = fopen(p, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	CU_ASSERT_EQUAL(ftruncate(fileno(file), TB_FLEET_RECORD_MAX + 1), 0);
	fclose(file);
	snprintf(p, sizeof(p), "%s/fifo/fleet-host.json", dir);
	CU_ASSERT_EQUAL(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/link/fleet-host.json", dir);
	CU_ASSERT_EQUAL(symlink("/etc/passwd", p), 0);
	CU_ASSERT_EQUAL(tb_cli_fleet_records(&f, dir), 0);
	CU_ASSERT_EQUAL(f.hosts[0].state, TB_FLEET_FAILED);
	CU_ASSERT_PTR_NOT_NULL(f.hosts[0].reason && strstr(f.hosts[0].reason, "larger than"));
	CU_ASSERT_PTR_NOT_NULL(f.hosts[1].reason && strstr(f.hosts[1].reason, "not a regular"));
	CU_ASSERT_PTR_NOT_NULL(f.hosts[2].reason && strstr(f.hosts[2].reason, "symbolic link"));
	tb_fleet_free(&f);
}

static CU_TestInfo fleet_input_tests[] = {
	{"hostile events and host records: escaped and bounded", test_events_and_records},
	{"records too large, FIFOs and links: not read", test_records_not_read},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("cli-fleet-input", NULL, NULL, fleet_input_tests);
