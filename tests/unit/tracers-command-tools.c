// SPDX-License-Identifier: GPL-2.0
/*
 * What the command tracer knows of well-known tools: which tool an argv runs, where its
 * program is, whether it can work here (bcc's headers, bpftrace's kprobes), a relative program
 * file found next to the scenario, and the figures in their own output lines (canned outputs
 * in the tools' exact formats, from perf 6.1, bpftrace 0.17 and bcc 0.26).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/proc.h"
#include "core/tb.h"
#include "tb_test.h"
#include "tracers/command-tools.h"

static void identify(const char *line, struct tb_tool_info *ti)
{
	struct tb_strlist l = {0};

	CU_ASSERT_EQUAL_FATAL(tb_split_argv(line, &l), 0);
	tb_tool_identify(&l, ti);
	tb_strlist_free(&l);
}

/* A file in a fresh directory (dir NULL) or in dir, with text; its path into path. */
static void write_file(const char *dir, const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir ? dir : tb_test_tmpdir(), name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	chmod(path, 0755);
}

static void test_identify(void)
{
	struct tb_tool_info ti;
	char path[4096], line[4200];

	identify("bpftrace -B line -e 'BEGIN {}' 42", &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_BPFTRACE);
	CU_ASSERT_EQUAL(ti.inline_w, 4);
	CU_ASSERT_EQUAL(ti.file, -1);
	identify("/usr/bin/bpftrace -o out.txt -I inc read-latency.bt 42", &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_BPFTRACE);
	CU_ASSERT_EQUAL(ti.file, 5);
	identify("perf record -e syscalls:sys_enter_getpid -p 1", &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_PERF_RECORD);
	identify("perf --no-pager trace -s -p 1", &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_PERF_TRACE);
	identify("perf stat -a", &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_PERF);
	identify("execsnoop-bpfcc -T", &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_BCC);
	identify("sleep 10", &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_OTHER);
	write_file(NULL, "tool.bt", "#!/usr/bin/env bpftrace\nBEGIN { exit(); }\n", path,
		   sizeof(path));
	snprintf(line, sizeof(line), "%s", path);
	identify(line, &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_BPFTRACE);
	CU_ASSERT_TRUE(ti.script);
	write_file(NULL, "tool.py", "#!/usr/bin/python3\nimport os\nfrom bcc import BPF\n", path,
		   sizeof(path));
	snprintf(line, sizeof(line), "%s -x", path);
	identify(line, &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_BCC);
	snprintf(line, sizeof(line), "python3 %s", path);
	identify(line, &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_BCC);
	write_file(NULL, "plain.py", "#!/usr/bin/python3\nprint('from bcc import BPF')\n", path,
		   sizeof(path));
	snprintf(line, sizeof(line), "%s", path);
	identify(line, &ti);
	CU_ASSERT_EQUAL(ti.tool, TB_TOOL_OTHER);
}

static int supported(const char *line, char *why, size_t len)
{
	struct tb_strlist l = {0};
	struct tb_tool_info ti;
	int ret;

	CU_ASSERT_EQUAL_FATAL(tb_split_argv(line, &l), 0);
	tb_tool_identify(&l, &ti);
	ret = tb_tool_supported(&l, &ti, why, len);
	tb_strlist_free(&l);
	return ret;
}

static bool exists(const char *p)
{
	struct stat st;

	return !stat(p, &st);
}

static void test_kprobes(void)
{
	bool kprobes = exists("/sys/bus/event_source/devices/kprobe");
	char why[512];

	/* Probes in comments, strings or action blocks are not probes. */
	CU_ASSERT_EQUAL(supported("bpftrace -e '// kprobe:vfs_read\n"
				  "/* kr:x */ tracepoint:a:b { printf(\"kprobe:vfs_read\"); "
				  "@m[k:1] = 1; }'",
				  why, sizeof(why)),
			0);
	if (kprobes) {
		CU_ASSERT_EQUAL(supported("bpftrace -e 'kprobe:vfs_read { }'", why, sizeof(why)),
				0);
		return;
	}
	CU_ASSERT_EQUAL(supported("bpftrace -e 'tracepoint:a:b, kretprobe:vfs_read* { }'", why,
				  sizeof(why)),
			-EOPNOTSUPP);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "kretprobe:vfs_read*"));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "no kprobe PMU"));
	CU_ASSERT_EQUAL(supported("bpftrace -e 'BEGIN {} k:do_sys_open {}'", why, sizeof(why)),
			-EOPNOTSUPP);
	if (exists("/usr/sbin/vfsstat.bt"))
		CU_ASSERT_EQUAL(supported("/usr/sbin/vfsstat.bt", why, sizeof(why)), -EOPNOTSUPP);
}

static void test_bcc(void)
{
	char why[512];
	int ret;

	setenv("BCC_KERNEL_SOURCE", tb_test_tmpdir(), 1);
	CU_ASSERT_EQUAL(supported("execsnoop-bpfcc", why, sizeof(why)), 0);
	unsetenv("BCC_KERNEL_SOURCE");
	ret = supported("execsnoop-bpfcc", why, sizeof(why));
	printf("\n    bcc here: %s ", ret ? why : "supported");
	if (ret) {
		CU_ASSERT_EQUAL(ret, -EOPNOTSUPP);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "kernel's headers"));
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "/lib/modules/"));
	}
	CU_ASSERT_EQUAL(supported("sleep 1", why, sizeof(why)), 0);
}

static void test_resolve(void)
{
	struct tb_strlist l = {0};
	char path[4096], err[512], dir[4096];

	snprintf(dir, sizeof(dir), "%s", tb_test_tmpdir());
	write_file(dir, "rl.bt", "BEGIN { exit(); }\n", path, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(tb_split_argv("bpftrace rl.bt {pid}", &l), 0);
	CU_ASSERT_EQUAL(tb_tool_resolve(&l, dir, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(l.v[1], path);
	CU_ASSERT_STRING_EQUAL(l.v[2], "{pid}");
	tb_strlist_free(&l);
	CU_ASSERT_EQUAL_FATAL(tb_split_argv("bpftrace missing.bt", &l), 0);
	CU_ASSERT_EQUAL(tb_tool_resolve(&l, dir, err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'missing.bt' not found in the scenario's directory"));
	tb_strlist_free(&l);
	/* not bpftrace, or a -e program: nothing to resolve */
	CU_ASSERT_EQUAL_FATAL(tb_split_argv("perf record -o rl.bt", &l), 0);
	CU_ASSERT_EQUAL(tb_tool_resolve(&l, dir, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(l.v[3], "rl.bt");
	tb_strlist_free(&l);
}

static void test_perf_record_lines(void)
{
	static const char lossy[] = "[ perf record: Woken up 1215 times to write data ]\n"
				    "Warning:\nProcessed 4723354 events and lost 56 chunks!\n\n"
				    "Check IO/CPU overload!\n\nWarning:\n"
				    "Processed 5000411 samples and lost 9.65%!\n\n"
				    "[ perf record: Captured and wrote 311.781 MB /tmp/p.data "
				    "(4517746 samples) ]\n";
	static const char chunks[] =
		"Warning:\nProcessed 100 events and lost 3 chunks!\n"
		"[ perf record: Captured and wrote 0.1 MB perf.data (97 samples) ]\n";
	static const char clean[] =
		"[ perf record: Woken up 1 times to write data ]\n"
		"[ perf record: Captured and wrote 0.031 MB perf.data (412 samples) ]\n";
	struct tb_tool_figures f;

	tb_tool_parse_output(TB_TOOL_PERF_RECORD, lossy, &f);
	CU_ASSERT_EQUAL(f.events, 4517746);
	CU_ASSERT_EQUAL(f.lost, 5000411 - 4517746);
	CU_ASSERT_FALSE(f.lost_at_least);
	tb_tool_parse_output(TB_TOOL_PERF_RECORD, chunks, &f);
	CU_ASSERT_EQUAL(f.events, 97);
	CU_ASSERT_EQUAL(f.lost, 3);
	CU_ASSERT_TRUE(f.lost_at_least);
	tb_tool_parse_output(TB_TOOL_PERF_RECORD, clean, &f);
	CU_ASSERT_EQUAL(f.events, 412);
	CU_ASSERT_EQUAL(f.lost, 0);
	/* killed before it wrote its summary: it says nothing */
	tb_tool_parse_output(TB_TOOL_PERF_RECORD, "[ perf record: Woken up 3 times ]\n", &f);
	CU_ASSERT_EQUAL(f.events, -1);
	CU_ASSERT_EQUAL(f.lost, -1);
}

static void test_perf_trace_lines(void)
{
	static const char out[] =
		"LOST 12 events!\nLOST 30 events!\n\n Summary of events:\n\n"
		" tb16-loop (7467), 5999271 events, 100.0%\n\n"
		"   syscall            calls  errors  total       min       avg       max       stddev\n"
		"   --------------- --------  ------ -------- --------- --------- ---------     ------\n"
		"   getpid           2999533      0 50573.002     0.012     0.017    31.868      0.07%\n"
		" worker (7468), 20 events, 0.0%\n";
	struct tb_tool_figures f;

	tb_tool_parse_output(TB_TOOL_PERF_TRACE, out, &f);
	CU_ASSERT_EQUAL(f.events, 5999271 + 20);
	CU_ASSERT_EQUAL(f.lost, 42);
	tb_tool_parse_output(TB_TOOL_PERF_TRACE, "getpid() = 7\n", &f);
	CU_ASSERT_EQUAL(f.events, -1); /* no -s summary: no count of its own */
	CU_ASSERT_EQUAL(f.lost, 0);
}

static void test_bpftrace_lines(void)
{
	static const char out[] = "Attaching 6 probes...\n"
				  "WARNING: could not attach probe kprobe:vfs_create, skipping.\n"
				  "Lost 100 events\nPID COMM\nLost 23 events\n"
				  "WARNING: could not attach probe kprobe:vfs_open, skipping.\n"
				  "@c: 5\n";
	struct tb_tool_figures f;

	tb_tool_parse_output(TB_TOOL_BPFTRACE, out, &f);
	CU_ASSERT_EQUAL(f.events, -1); /* it prints maps, not a count: its BPF runs count */
	CU_ASSERT_EQUAL(f.lost, 123);
	CU_ASSERT_STRING_EQUAL(f.not_attached, "kprobe:vfs_create, kprobe:vfs_open");
	tb_tool_parse_output(TB_TOOL_BCC, "Possibly lost 7 samples\nPossibly lost 2 samples\n", &f);
	CU_ASSERT_EQUAL(f.lost, 9);
	tb_tool_parse_output(TB_TOOL_OTHER, "Lost 5 events\n", &f);
	CU_ASSERT_EQUAL(f.lost, -1); /* an unknown tool's lines mean nothing */
}

/* A bpftrace program that does not compile here is unusable, with bpftrace's own reason. */
static void test_compiles(void)
{
	struct tb_strlist l = {0};
	struct tb_tool_info ti;
	char path[4096], why[512];

	if (tb_proc_which("bpftrace", path, sizeof(path)))
		TB_SKIP("bpftrace not installed");
	CU_ASSERT_EQUAL_FATAL(
		tb_split_argv("bpftrace -e 'BEGIN { printf(\"%d\\n\", $1); exit(); }' {pid}", &l),
		0);
	tb_tool_identify(&l, &ti);
	CU_ASSERT_EQUAL(tb_tool_usable(&l, &ti, why, sizeof(why)), 0);
	tb_strlist_free(&l);
	CU_ASSERT_EQUAL_FATAL(tb_split_argv("bpftrace -e 'BEGIN { @x = nosuchfunc(1); }'", &l), 0);
	tb_tool_identify(&l, &ti);
	CU_ASSERT_EQUAL(tb_tool_usable(&l, &ti, why, sizeof(why)), -EOPNOTSUPP);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "bpftrace cannot compile its program here: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "nosuchfunc"));
	CU_ASSERT_PTR_NULL(strstr(why, "RLIMIT")); /* its harmless warning is not the reason */
	printf("\n    %s ", why);
	tb_strlist_free(&l);
}

static CU_TestInfo tools_tests[] = {
	{"which tool", test_identify},
	{"bpftrace kprobes here", test_kprobes},
	{"bcc headers here", test_bcc},
	{"bpftrace compiles it here", test_compiles},
	{"program file next to the scenario", test_resolve},
	{"perf record's lines", test_perf_record_lines},
	{"perf trace's lines", test_perf_trace_lines},
	{"bpftrace's and bcc's lines", test_bpftrace_lines},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-command-tools", NULL, NULL, tools_tests);
