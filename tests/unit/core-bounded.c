// SPDX-License-Identifier: GPL-2.0
/*
 * core/bounded.h through core/proc.h: a program's output is kept within out_max (its first and
 * last halves and the cut line) whether it floods or exits with an error, and the line hook sees
 * its first line however much follows (issue 27, item 2).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/proc.h"
#include "core/tb.h"
#include "tb_test.h"

static int first_seen;

static bool hook(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	if (len == 5 && !memcmp(line, "first", 5)) {
		first_seen++;
		return true;
	}
	return false;
}

/* Run sh -c script with its output bounded to max into a fresh file; its text in *text. */
static int run(const char *script, uint64_t max, char **text, size_t *len, int *status)
{
	char path[PATH_MAX];
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	struct tb_proc p;
	int ret;

	snprintf(path, sizeof(path), "%s/out.log", tb_test_tmpdir());
	o.out_path = path;
	o.flags = TB_PROC_NULLIN;
	o.out_max = max;
	o.out_hook = hook;
	ret = tb_proc_spawn_opts(&p, argv, &o);
	if (ret)
		return ret;
	tb_proc_wait(&p, 0);
	*status = p.status;
	tb_proc_output_done(&p);
	tb_proc_release(&p);
	return tb_read_file(path, text, len);
}

static void test_flood_bounded(void)
{
	char *text = NULL;
	size_t len = 0;
	int status;

	first_seen = 0;
	CU_ASSERT_EQUAL_FATAL(
		run("echo first; head -c 2000000 /dev/zero | tr '\\0' x; echo; echo last", 1000,
		    &text, &len, &status),
		0);
	CU_ASSERT_EQUAL(first_seen, 1);
	CU_ASSERT(len <= 1000 + 100);
	CU_ASSERT(!strncmp(text, "first\nxxx", 9));
	CU_ASSERT(strstr(text, "bytes of this output cut]") != NULL);
	CU_ASSERT(len > 5 && !strcmp(text + len - 5, "last\n"));
	free(text);
}

static void test_failing_bounded(void)
{
	char *text = NULL;
	size_t len = 0;
	int status;

	CU_ASSERT_EQUAL_FATAL(
		run("head -c 3000000 /dev/zero | tr '\\0' y; exit 3", 4096, &text, &len, &status),
		0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	CU_ASSERT(len <= 4096 + 100);
	free(text);
}

static void test_small_kept_whole(void)
{
	char *text = NULL;
	size_t len = 0;
	int status;

	CU_ASSERT_EQUAL_FATAL(run("echo one; echo two", 1000, &text, &len, &status), 0);
	CU_ASSERT_STRING_EQUAL(text, "one\ntwo\n");
	free(text);
}

static CU_TestInfo bounded_tests[] = {
	{"a flood keeps its first and last halves", test_flood_bounded},
	{"a failing program's output is bounded", test_failing_bounded},
	{"output within the bound is kept whole", test_small_kept_whole},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-bounded", NULL, NULL, bounded_tests);
