// SPDX-License-Identifier: GPL-2.0
/*
 * Stopping a child (core/proc.h, tb_proc_stop): the signal that ended it is recorded, so that
 * a caller can say when a tool outlived its stop signal and needed SIGTERM or SIGKILL (the
 * command tracer warns then: a bpftrace sample's teardown once took 10 s without a word).
 */
#include <signal.h>
#include <unistd.h>

#include "core/proc.h"
#include "core/tb.h"
#include "tb_test.h"

/* Start sh -c script and wait for its first line (its traps are set by then): 0, or the error
 * (asserted). */
static int start(struct tb_proc *p, const char *script)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	int ret = tb_proc_spawn(p, argv, NULL, TB_PROC_NULLIN | TB_PROC_CAPTURE);
	char c = 0;

	CU_ASSERT_EQUAL(ret, 0);
	while (!ret && c != '\n' && read(p->out_fd, &c, 1) == 1)
		;
	return ret;
}

static void test_stop_signal(void)
{
	struct tb_proc p;

	/* ends on the signal asked */
	if (start(&p, "echo up; exec sleep 30"))
		return;
	CU_ASSERT_EQUAL(tb_proc_stop(&p, SIGINT, 2000000000ull), 0);
	CU_ASSERT_EQUAL(p.stop_sig, SIGINT);
	tb_proc_release(&p);
	/* ignores it: SIGTERM after the grace */
	if (start(&p, "trap '' INT; echo up; exec sleep 30"))
		return;
	CU_ASSERT_EQUAL(tb_proc_stop(&p, SIGINT, 100000000ull), 0);
	CU_ASSERT_EQUAL(p.stop_sig, SIGTERM);
	tb_proc_release(&p);
	/* ignores both: SIGKILL, and -ETIMEDOUT */
	if (start(&p, "trap '' INT TERM; echo up; exec sleep 30"))
		return;
	CU_ASSERT_EQUAL(tb_proc_stop(&p, SIGINT, 100000000ull), -ETIMEDOUT);
	CU_ASSERT_EQUAL(p.stop_sig, SIGKILL);
	tb_proc_release(&p);
	/* gone already: nothing sent */
	if (start(&p, "echo up"))
		return;
	tb_proc_wait(&p, 0);
	CU_ASSERT_EQUAL(tb_proc_stop(&p, SIGINT, 100000000ull), 0);
	CU_ASSERT_EQUAL(p.stop_sig, 0);
	tb_proc_release(&p);
}

static CU_TestInfo tests[] = {
	{"the signal that stopped a child", test_stop_signal},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-proc", NULL, NULL, tests);
