// SPDX-License-Identifier: GPL-2.0
/*
 * runner/child.h's bracketed sample (what the counting pass runs on): the bracket is told the
 * workload process, begin and end enclose its batch once each and in order, the ops come
 * back; a ready that refuses ends the sample with its error, nothing begun, the child reaped.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tb.h"
#include "runner/child.h"
#include "tb_test.h"
#include "workloads/workload.h"

struct seen {
	pid_t target;
	int calls[3]; /* ready, begin, end: the order each was called in (1, 2, 3), 0: never */
	int n;
	int refuse; /* ready's return */
	bool alive_at_begin;
};

static int on_ready(void *ctx, pid_t target)
{
	struct seen *s = ctx;

	s->target = target;
	s->calls[0] = ++s->n;
	return s->refuse;
}

static int on_begin(void *ctx)
{
	struct seen *s = ctx;

	s->calls[1] = ++s->n;
	s->alive_at_begin = kill(s->target, 0) == 0;
	return 0;
}

static void on_end(void *ctx)
{
	struct seen *s = ctx;

	s->calls[2] = ++s->n;
}

static void test_bracketed(void)
{
	const struct tb_workload_ops *wl = tb_workload_find("getpid");
	struct seen s = {0};
	struct tb_child_bracket b = {&s, on_ready, on_begin, on_end};
	struct tb_measure_req req;
	uint64_t ops = 7;
	void *cfg;

	CU_ASSERT_PTR_NOT_NULL_FATAL(wl);
	cfg = calloc(1, wl->cfg_size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL(tb_opts_defaults(wl->opts, cfg), 0);
	req = (struct tb_measure_req){
		.wl = wl, .name = "getpid", .cfg = cfg, .tmpdir = tb_test_tmpdir(), .ops = 5000};

	CU_ASSERT_EQUAL(tb_child_bracketed(&req, 20000000000ull, &b, &ops), 0);
	CU_ASSERT_EQUAL(ops, 5000);
	CU_ASSERT(s.target > 0 && s.target != getpid());
	CU_ASSERT(s.alive_at_begin);
	CU_ASSERT(s.calls[0] == 1 && s.calls[1] == 2 && s.calls[2] == 3);
	CU_ASSERT_EQUAL(waitpid(s.target, NULL, WNOHANG), -1); /* reaped */

	/* a ready that refuses: its error, nothing begun, the child reaped */
	s = (struct seen){.refuse = -EIO};
	CU_ASSERT_EQUAL(tb_child_bracketed(&req, 20000000000ull, &b, &ops), -EIO);
	CU_ASSERT_EQUAL(ops, 0);
	CU_ASSERT(s.calls[0] == 1 && !s.calls[1] && !s.calls[2]);
	CU_ASSERT_EQUAL(waitpid(s.target, NULL, WNOHANG), -1);
	tb_opts_free(wl->opts, cfg);
	free(cfg);
}

/* The parent's sleeps at the gate: doubling, but never far past a batch's expected end. */
static void test_gate_sleep(void)
{
	const uint64_t ms = 1000000, near = TB_GATE_POLL_NEAR_NS;
	/* 200 ms expected: the window is 12.5 + 1 ms either side */
	const uint64_t expect = 200 * ms, window = expect / 16 + ms;

	/* nothing expected: the doubling period as it is */
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(0, 50000, 0), 50000);
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(150 * ms, 5 * ms, 0), 5 * ms);
	/* well before the window: the period */
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(10 * ms, 5 * ms, expect), 5 * ms);
	/* a period that would cross into the window is cut to end at its start */
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(expect - window - 2 * ms, 5 * ms, expect), 2 * ms);
	/* inside the window, before and after the expected end: the near period */
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(expect - window, 5 * ms, expect), near);
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(expect + window - 1, 5 * ms, expect), near);
	/* a period already shorter than the near one stays */
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(expect, 100000, expect), 100000);
	/* past the window (a batch slower than its last): back to the period */
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(expect + window, 5 * ms, expect), 5 * ms);
	/* a batch shorter than its window: near polls from the start */
	CU_ASSERT_EQUAL(tb_child_gate_sleep_ns(0, 5 * ms, ms / 2), near);
	/* no sleep runs past the window's start, wherever the wait is */
	for (uint64_t el = 0; el < expect - window; el += 333333)
		CU_ASSERT(el + tb_child_gate_sleep_ns(el, 5 * ms, expect) <= expect - window);
}

/* The parent steps off the workload's CPUs while a batch is timed, and back after it. */
static void test_step_aside(void)
{
	cpu_set_t old, during, after, rest;
	int cpus[CPU_SETSIZE], n = 0, last = -1;
	bool moved;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(old), &old), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &old))
			cpus[n++] = last = c;
	/* no CPUs given, or every CPU it may use: it stays */
	CU_ASSERT_FALSE(tb_child_step_aside(cpus, 0, &during));
	CU_ASSERT_FALSE(tb_child_step_aside(cpus, (size_t)n, &during));
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(after), &after), 0);
	CU_ASSERT_TRUE(CPU_EQUAL(&old, &after));
	if (n < 2) {
		printf("\n    one CPU: nowhere to step aside to, the move not checked\n");
		return;
	}
	/* the last CPU (cpus = auto's): every other one, then all of them again */
	moved = tb_child_step_aside(&last, 1, &during);
	CU_ASSERT_TRUE(moved);
	CU_ASSERT_TRUE(CPU_EQUAL(&old, &during)); /* what it saved */
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(after), &after), 0);
	rest = old;
	CPU_CLR(last, &rest);
	CU_ASSERT_TRUE(CPU_EQUAL(&rest, &after));
	CU_ASSERT_NOT_EQUAL(sched_getcpu(), last);
	tb_child_step_back(moved, &during);
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(after), &after), 0);
	CU_ASSERT_TRUE(CPU_EQUAL(&old, &after));
}

static CU_TestInfo tests[] = {
	{"a bracketed sample: ready, begin, batch, end", test_bracketed},
	{"the gate's sleeps near a batch's expected end", test_gate_sleep},
	{"the parent waits off the workload's CPUs", test_step_aside},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("runner-child", NULL, NULL, tests);
