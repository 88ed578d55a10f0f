// SPDX-License-Identifier: GPL-2.0
/*
 * Placeholders in a command's argv ({pid} {cpus} {outdir} {sample}): what is one and what is
 * literal text, substitution inside words, the errors (unknown, unclosed, no value), the
 * option check at the key's line of a scenario, and the {cpus} text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/placeholders.h"
#include "core/tb.h"
#include "parse/scenario.h"
#include "tb_test.h"
#include "tracers/command-sample.h"

static int check_words(const char *line, char *err, size_t len)
{
	struct tb_strlist l = {0};
	int ret;

	CU_ASSERT_EQUAL_FATAL(tb_split_argv(line, &l), 0);
	ret = tb_placeholders_check(&l, err, len);
	tb_strlist_free(&l);
	return ret;
}

static void test_literal_braces(void)
{
	char err[512];

	/* bpftrace programs, perf event groups, find's {}, and {{name}} are text */
	CU_ASSERT_EQUAL(check_words("bpftrace -e 'BEGIN { printf(\"x\\n\"); } "
				    "tracepoint:a:b /pid == $1/ { @c = count(); }'",
				    err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(check_words("bpftrace -e 'i:s:1 {exit()}'", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_words("perf stat -e '{cpu-clock,page-faults}'", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_words("find . -exec echo {} ;", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_words("echo {{pid}} {{other}}", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(check_words("tool --pid={pid} -C {cpus} -o {outdir}/x-{sample}.data", err,
				    sizeof(err)),
			0);
	CU_ASSERT_TRUE(tb_placeholders_used("--pid={pid}"));
	CU_ASSERT_FALSE(tb_placeholders_used("{{pid}}"));
	CU_ASSERT_FALSE(tb_placeholders_used("BEGIN { exit(); }"));
}

static void test_errors(void)
{
	char err[512];

	CU_ASSERT_EQUAL(check_words("tool -p {pdi}", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown placeholder {pdi}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "word 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "{pid} {cpus} {outdir} {sample}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'{{pdi}}'"));
	CU_ASSERT_EQUAL(check_words("tool --pid={pid", err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "'{pid' is not closed"));
	CU_ASSERT_EQUAL(check_words("tool {PID}", err, sizeof(err)),
			-EINVAL); /* names are case-sensitive */
}

static void test_expand(void)
{
	struct tb_placeholder_values v = {{"4242", "0-1,3", "/r/tracers/x", "7"}};
	struct tb_strlist in = {0}, out = {0};
	char err[512];

	CU_ASSERT_EQUAL_FATAL(tb_split_argv("bpftrace s.bt {pid} --cpus={cpus} "
					    "{outdir}/p-{sample}-{pid}.data {{pid}} 'BEGIN { x }'",
					    &in),
			      0);
	CU_ASSERT_EQUAL_FATAL(tb_placeholders_expand(&in, &v, &out, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(out.n, 7);
	CU_ASSERT_STRING_EQUAL(out.v[0], "bpftrace");
	CU_ASSERT_STRING_EQUAL(out.v[2], "4242");
	CU_ASSERT_STRING_EQUAL(out.v[3], "--cpus=0-1,3");
	CU_ASSERT_STRING_EQUAL(out.v[4], "/r/tracers/x/p-7-4242.data");
	CU_ASSERT_STRING_EQUAL(out.v[5], "{pid}");
	CU_ASSERT_STRING_EQUAL(out.v[6], "BEGIN { x }");
	CU_ASSERT_PTR_NULL(out.v[7]); /* an argv for execv */
	tb_strlist_free(&out);
	/* a placeholder without a value in this sample is an error naming it */
	v.v[TB_PH_CPUS] = NULL;
	CU_ASSERT_EQUAL(tb_placeholders_expand(&in, &v, &out, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "{cpus} has no value"));
	CU_ASSERT_EQUAL(out.n, 0);
	tb_strlist_free(&in);
}

/* The scenario error names the file and the line of the command key. */
static void test_scenario_line(void)
{
	static const char text[] = "[global]\nrepetitions = 2\n\n[workload g]\ntype = getpid\n\n"
				   "[tracer t]\ntype = command\nready = x\n"
				   "command = sleep {sleep}\n\n[matrix]\nworkloads = g\n"
				   "tracers = t\n";
	static const char good[] = "[workload g]\ntype = getpid\n[tracer t]\ntype = command\n"
				   "command = sleep 10 {pid} {cpus} {outdir} {sample}\n"
				   "[matrix]\nworkloads = g\ntracers = t\n";
	struct tb_scenario *s = NULL;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ph.ini", tb_test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_EQUAL(tb_scenario_load(path, &s), -EINVAL);
	{
		const char *log = tb_log_last_error();
		char want[4200];

		snprintf(want, sizeof(want), "%s:10: [tracer t]: key 'command': word 1", path);
		CU_ASSERT_PTR_NOT_NULL(strstr(log, want));
		CU_ASSERT_PTR_NOT_NULL(strstr(log, "unknown placeholder {sleep}"));
	}
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(tb_scenario_parse(good, "good.ini", &s), 0);
	tb_scenario_free(s);
}

static void test_cpus_text(void)
{
	static const int cpus[] = {3, 0, 1, 5};
	struct tb_tracer t = {.cpus = cpus, .ncpus = 4};
	char buf[64];

	CU_ASSERT_EQUAL(tb_cmd_cpus_text(&t, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "0-1,3,5");
	t.ncpus = 1;
	CU_ASSERT_EQUAL(tb_cmd_cpus_text(&t, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "3");
	/* not pinned: the target's affinity, here this process's */
	t.ncpus = 0;
	t.target = getpid();
	CU_ASSERT_EQUAL(tb_cmd_cpus_text(&t, buf, sizeof(buf)), 0);
	CU_ASSERT(buf[0] >= '0' && buf[0] <= '9');
	CU_ASSERT_EQUAL(tb_cmd_cpus_text(&t, buf, 2), -EINVAL); /* too small: not cut */
}

static CU_TestInfo placeholder_tests[] = {
	{"literal braces", test_literal_braces},
	{"errors", test_errors},
	{"expansion", test_expand},
	{"scenario error at the key's line", test_scenario_line},
	{"{cpus}", test_cpus_text},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-placeholders", NULL, NULL, placeholder_tests);
