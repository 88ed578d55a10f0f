// SPDX-License-Identifier: GPL-2.0
/*
 * host/contention.h: schedstat and /proc/stat lines parsed strictly (a bad line is unknown,
 * never a number), and, live, a process that shares its CPU with a spinning one is seen to
 * wait for it.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/contention.h"
#include "tb_test.h"

static void test_parse_schedstat(void)
{
	int64_t w = -7;

	CU_ASSERT_EQUAL(tb_contention_parse_schedstat("649247 29914 2\n", &w), 0);
	CU_ASSERT_EQUAL(w, 29914);
	w = -7;
	CU_ASSERT_EQUAL(tb_contention_parse_schedstat("649247 29914\n", &w), -EINVAL);
	CU_ASSERT_EQUAL(tb_contention_parse_schedstat("649247 29914 2", &w), -EINVAL);
	CU_ASSERT_EQUAL(tb_contention_parse_schedstat("649247 29914 2 junk\n", &w), -EINVAL);
	CU_ASSERT_EQUAL(tb_contention_parse_schedstat("a b c\n", &w), -EINVAL);
	CU_ASSERT_EQUAL(tb_contention_parse_schedstat("", &w), -EINVAL);
	CU_ASSERT_EQUAL(tb_contention_parse_schedstat("1 99999999999999999999 2\n", &w), -EINVAL);
	CU_ASSERT_EQUAL(w, -7); /* untouched on error */
}

static void test_parse_steal(void)
{
	const char *stat = "cpu  91129 0 41197 110863 1428 0 1354 1189 0 0\n"
			   "cpu0 35154 0 10882 75626 348 0 428 790 0 0\n"
			   "cpu1 55974 0 30314 35237 1079 0 925 398 0 0\n"
			   "cpu12 1 2 3 4 5 6 7 8\n"
			   "cpu2 1 2 3\n"
			   "intr 1 2 3\n";
	int64_t t = -7;

	CU_ASSERT_EQUAL(tb_contention_parse_steal(stat, 0, &t), 0);
	CU_ASSERT_EQUAL(t, 790);
	CU_ASSERT_EQUAL(tb_contention_parse_steal(stat, 1, &t), 0);
	CU_ASSERT_EQUAL(t, 398);
	/* cpu1 is not cpu12's prefix, nor cpu12 cpu1's */
	CU_ASSERT_EQUAL(tb_contention_parse_steal(stat, 12, &t), 0);
	CU_ASSERT_EQUAL(t, 8);
	t = -7;
	CU_ASSERT_EQUAL(tb_contention_parse_steal(stat, 2, &t), -EINVAL); /* no steal column */
	CU_ASSERT_EQUAL(tb_contention_parse_steal(stat, 3, &t), -ENOENT);
	CU_ASSERT_EQUAL(tb_contention_parse_steal("", 0, &t), -ENOENT);
	CU_ASSERT_EQUAL(t, -7);
}

/* A child spinning on cpu, for s seconds at most. */
static pid_t spinner(int cpu, unsigned int s)
{
	cpu_set_t set;
	pid_t pid = fork();

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	alarm(s);
	for (;;)
		__asm__ volatile("" ::: "memory");
}

/* Two spinners on one CPU: over 300 ms each waits for it about half the time. */
static void test_live_wait(void)
{
	struct tb_contention c0, c1;
	pid_t a, b;
	int cpu = sched_getcpu(), status;

	CU_ASSERT_EQUAL_FATAL(tb_contention_read(getpid(), &cpu, 1, &c0), 0);
	if (c0.wait_ns < 0)
		TB_SKIP("no /proc/PID/task/TID/schedstat here (CONFIG_SCHED_INFO unset)");
	CU_ASSERT(c0.steal_ns >= 0);
	a = spinner(cpu, 5);
	b = spinner(cpu, 5);
	CU_ASSERT_FATAL(a > 0 && b > 0);
	CU_ASSERT_EQUAL(tb_contention_read(a, &cpu, 1, &c0), 0);
	tb_sleep_ns(300000000);
	CU_ASSERT_EQUAL(tb_contention_read(a, &cpu, 1, &c1), 0);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, &status, 0);
	waitpid(b, &status, 0);
	printf("\n    a spinner sharing its CPU waited %.0f of 300 ms",
	       (double)(c1.wait_ns - c0.wait_ns) / 1e6);
	/* Half in theory; a third is far from 0 (an idle CPU) whatever else runs. */
	CU_ASSERT(c1.wait_ns - c0.wait_ns > 100000000);
	CU_ASSERT(c1.steal_ns >= c0.steal_ns);
	/* A process that is gone: its directory cannot be read. */
	CU_ASSERT_EQUAL(tb_contention_read(a, &cpu, 1, &c0), -ENOENT);
	CU_ASSERT_EQUAL(c0.wait_ns, -1);
}

static CU_TestInfo contention_tests[] = {
	{"schedstat lines parsed strictly", test_parse_schedstat},
	{"steal per CPU from /proc/stat", test_parse_steal},
	{"a process sharing its CPU waits for it", test_live_wait},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("host-contention", NULL, NULL, contention_tests);
