// SPDX-License-Identifier: GPL-2.0
/*
 * tb-getpid-loop: the target `make bench-precision` hands to hyperfine for the kernel families
 * on getpid, the same question as tracebench's getpid workload with `pid-filter = workload`,
 * asked the way hyperfine asks it: one process per timing.
 *
 *	tb-getpid-loop [--cpu N] ITERS                        ITERS raw getpid syscalls
 *	tb-getpid-loop [--cpu N] --trace INSTANCE ITERS       with syscalls:sys_enter_getpid on
 *	tb-getpid-loop [--cpu N] --bpf PIN ITERS              with a pinned BPF program's pid
 *	                                                      filter on this process (tb-bpf-arm)
 *	tb-getpid-loop --create INSTANCE | --remove INSTANCE  make or remove the instance
 *	tb-getpid-loop --clear INSTANCE                       empty its set_event_pid
 *	tb-getpid-loop [--cpu N] --calibrate MS               print ITERS for a loop of MS ms
 *	tb-getpid-loop [--cpu N] --batches B ITERS            B loops of ITERS in one process,
 *	                                                      each one's ns/op on a line
 *	                                                      (make bench-noise)
 *
 * With --trace the target enables the tracepoint itself, filtered to its own pid, in an
 * existing instance (named tracebench-<owner pid>-..., so `tracebench cleanup` removes it when
 * its owner died), runs the loop and disables it again, on every path it can see: a normal end,
 * an error, SIGINT, SIGTERM, SIGHUP. Creating the instance costs 3 ms and removing it 70-110 ms
 * here, so the benchmark makes it once around all of hyperfine's runs (--create, --remove).
 * Replacing or emptying a pid list waits for an RCU grace period (about 48 ms here), so a
 * normal end leaves the pid in set_event_pid and hyperfine's untimed --prepare empties it
 * before the next run (--clear): writing onto an empty list costs 2.5 ms. Enabling and
 * disabling the event (1-4 ms) stays in every traced run, as in any process-per-run
 * measurement of a tracer. With --bpf the program stays loaded and attached across the runs
 * (hyperfine's --setup and --cleanup run tb-bpf-arm) and each run points its pid filter at
 * itself, as tracebench's rearm does per sample. Static and free of libraries, like the other
 * helpers: it writes the tracefs files and makes the bpf() calls itself (tools/loop-switch.c).
 * Exit: 0, 1 on a failure (said on stderr), 2 on bad usage.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "loop-switch.h"

#define PROG  "tb-getpid-loop"
#define EVENT "syscalls/sys_enter_getpid"

static void loop(unsigned long long iters)
{
	unsigned long long i;

	for (i = 0; i < iters; i++)
		syscall(SYS_getpid);
}

static int usage(void)
{
	fprintf(stderr, "usage: tb-getpid-loop [--cpu N] [--trace INSTANCE | --bpf PIN] ITERS\n"
			"       tb-getpid-loop --create INSTANCE | --remove INSTANCE | --clear "
			"INSTANCE\n"
			"       tb-getpid-loop [--cpu N] --calibrate MS\n"
			"       tb-getpid-loop [--cpu N] --batches B ITERS\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long v;
	const char *trace = NULL, *pin = NULL;
	int i = 1, cpu, e;

	if (argc == 3 && (!strcmp(argv[1], "--create") || !strcmp(argv[1], "--remove") ||
			  !strcmp(argv[1], "--clear")))
		return loop_instance_op(PROG, argv[1], argv[2]);
	e = loop_cpu_arg(PROG, argc, argv, &i, &cpu);
	if (e)
		return e == 2 ? usage() : e;
	if (i + 2 == argc && !strcmp(argv[i], "--calibrate")) {
		if (loop_parse_ull(argv[i + 1], &v) || !v)
			return usage();
		printf("%llu\n", loop_calibrate(loop, (double)v));
		return 0;
	}
	if (i + 3 == argc && !strcmp(argv[i], "--batches")) {
		unsigned long long b;

		if (loop_parse_ull(argv[i + 1], &b) || !b || loop_parse_ull(argv[i + 2], &v) || !v)
			return usage();
		return loop_batches(PROG, loop, b, v);
	}
	if (i + 2 < argc && !strcmp(argv[i], "--trace"))
		trace = argv[i + 1];
	else if (i + 2 < argc && !strcmp(argv[i], "--bpf"))
		pin = argv[i + 1];
	if (trace || pin)
		i += 2;
	if (i + 1 != argc || loop_parse_ull(argv[i], &v))
		return usage();
	e = trace ? loop_trace_on(PROG, trace, EVENT) : pin ? loop_bpf_on(PROG, pin) : 0;
	if (e)
		return e;
	loop(v);
	return trace ? loop_trace_off(PROG) : loop_bpf_off(PROG);
}
