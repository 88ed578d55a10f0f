// SPDX-License-Identifier: GPL-2.0
/* Process trees (core/proctree.h): a process and the descendants it forked, as a pid filter
 * following a server needs them. */
#include <CUnit/CUnit.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/proctree.h"
#include "tb_test.h"

static bool has(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

/* A child that forks a grandchild (its pid down the pipe), then both wait to be killed. */
static void test_tree_of_pid(void)
{
	pid_t child, grand = 0, *v = NULL;
	int fd[2];
	size_t n = 0;

	CU_ASSERT_FATAL(!pipe(fd));
	child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (!child) {
		pid_t g = fork();

		if (!g)
			for (;;)
				pause();
		if (write(fd[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		for (;;)
			pause();
	}
	CU_ASSERT_FATAL(read(fd[0], &grand, sizeof(grand)) == sizeof(grand));
	CU_ASSERT_EQUAL(tb_proc_tree(child, &v, &n), 0);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT(has(v, n, child));
	CU_ASSERT(has(v, n, grand));
	CU_ASSERT(!has(v, n, getpid())); /* the parent is no descendant */
	free(v);
	v = NULL;
	/* the grandchild's tree is itself alone */
	CU_ASSERT_EQUAL(tb_proc_tree(grand, &v, &n), 0);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT(has(v, n, grand));
	free(v);
	v = NULL;
	kill(grand, SIGKILL);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fd[0]);
	close(fd[1]);
	/* a pid that does not exist: an empty tree, not an error */
	CU_ASSERT_EQUAL(tb_proc_tree(child, &v, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	free(v);
}

static CU_TestInfo tests[] = {
	{"a process and its descendants", test_tree_of_pid},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-proctree", NULL, NULL, tests);
