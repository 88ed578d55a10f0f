// SPDX-License-Identifier: GPL-2.0
/*
 * The sleep a stop cuts short (core/util.h, tb_sleep_until_stop_ns), in a child process: a stop
 * request is for the whole process and cannot be taken back, so the checks that make one run
 * where it ends with them.
 */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "tb_test.h"

#define MS 1000000ull

static void on_hup(int sig)
{
	(void)sig;
	tb_request_stop();
}

static void *hup_later(void *main_thread)
{
	tb_sleep_ns(50 * MS);
	pthread_kill(*(pthread_t *)main_thread, SIGHUP);
	return NULL;
}

/* The child's checks; its exit code names the first that failed (0: none). */
static int sleep_checks(void)
{
	struct sigaction sa = {.sa_handler = on_hup};
	pthread_t self = pthread_self(), t;
	uint64_t t0;
	sigset_t now;
	bool r;

	sigaction(SIGHUP, &sa, NULL);
	/* no stop: the whole time, and false */
	t0 = tb_now_ns();
	r = tb_sleep_until_stop_ns(20 * MS);
	if (r || tb_now_ns() - t0 < 20 * MS)
		return 1;
	/* a stop signal in the sleep ends it, and true (a minute's sleep, ended in 50 ms) */
	if (pthread_create(&t, NULL, hup_later, &self))
		return 9;
	t0 = tb_now_ns();
	r = tb_sleep_until_stop_ns(60000 * MS);
	pthread_join(t, NULL);
	if (!r || tb_now_ns() - t0 > 30000 * MS)
		return 2;
	/* the caller's mask is given back: SIGHUP is not left blocked */
	if (pthread_sigmask(SIG_SETMASK, NULL, &now) || sigismember(&now, SIGHUP))
		return 3;
	/* a stop already requested: no sleep at all */
	t0 = tb_now_ns();
	if (!tb_sleep_until_stop_ns(60000 * MS) || tb_now_ns() - t0 > 30000 * MS)
		return 4;
	return 0;
}

static void test_sleep_until_stop(void)
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid)
		_exit(sleep_checks());
	CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	if (WIFEXITED(status) && WEXITSTATUS(status))
		fprintf(stderr, "\n    check %d of the child failed\n", WEXITSTATUS(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

static CU_TestInfo tests[] = {
	{"a sleep a stop cuts short, in a child", test_sleep_until_stop},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-util", NULL, NULL, tests);
