// SPDX-License-Identifier: GPL-2.0
/*
 * tb-usercall-loop: the target `make bench-precision` hands to hyperfine for the user-space
 * families (BPF uprobe, ftrace uprobe, LTTng-UST), one process per timing. It runs the usercall
 * workload itself, linked in from its object file (workloads/usercall.o, with its defaults:
 * calls = 1, work = 100), through the workload's own setup, run_batch and teardown, so the
 * probed function tb_usercall_target is the code tracebench's usercall workload calls, in this
 * binary instead of tracebench's.
 *
 *	tb-usercall-loop [--cpu N] [--lttng] ITERS           ITERS ops (lttng = true with --lttng)
 *	tb-usercall-loop [--cpu N] [--lttng] --trace INSTANCE EVENT ITERS
 *	                                     with the ftrace event (uprobes/NAME) on, for this pid
 *	tb-usercall-loop [--cpu N] --bpf PIN ITERS           with a pinned BPF program's pid filter
 *	                                                     on this process (tb-bpf-arm)
 *	tb-usercall-loop [--cpu N] [--lttng] --calibrate MS  print ITERS for a loop of MS ms
 *	tb-usercall-loop --offset                            the file offset of tb_usercall_target
 *	                                                     in this binary (uprobe_events)
 *
 * The switches are tb-getpid-loop's (tools/loop-switch.c). --lttng dlopens the LTTng-UST
 * provider in setup as the workload does (found in $TB_HELPERS), so a session daemon running
 * meets every run's process at its start: its registration is inside the timed run, as for any
 * program a hyperfine user traces with LTTng. Dynamic (the workload's object needs core/'s), unlike
 * the static getpid loop. Exit: 0, 1 on a failure (said on stderr), 2 on bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop-switch.h"
#include "workloads/usercall.h"
#include "workloads/workload.h"

#define PROG "tb-usercall-loop"

extern const struct tb_workload_ops tb_workload_usercall;

static struct tb_workload wl = {.ops = &tb_workload_usercall, .name = "usercall", .cpu = -1};

static void run(unsigned long long n)
{
	if (tb_workload_usercall.run_batch(&wl, n))
		exit(1);
}

/* The file offset of tb_usercall_target: its address in the mapping of this binary holding it. */
static int offset(void)
{
	uintptr_t a = (uintptr_t)tb_usercall_target, lo, hi;
	unsigned long long off;
	char line[1024];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %llx", &lo, &hi, &off) == 3 &&
		    a >= lo && a < hi) {
			printf("0x%llx\n", off + (unsigned long long)(a - lo));
			fclose(f);
			return 0;
		}
	}
	if (f)
		fclose(f);
	fprintf(stderr, PROG ": tb_usercall_target is in no mapping of /proc/self/maps\n");
	return 1;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: tb-usercall-loop [--cpu N] [--lttng] [--trace INSTANCE EVENT | --bpf PIN] "
		"ITERS\n"
		"       tb-usercall-loop [--cpu N] [--lttng] --calibrate MS\n"
		"       tb-usercall-loop --offset\n");
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long long v;
	const char *trace = NULL, *event = NULL, *pin = NULL;
	char err[256];
	int i = 1, e;

	if (argc == 2 && !strcmp(argv[1], "--offset"))
		return offset();
	e = loop_cpu_arg(PROG, argc, argv, &i, &wl.cpu);
	if (e)
		return e == 2 ? usage() : e;
	wl.cfg = calloc(1, tb_workload_usercall.cfg_size);
	if (!wl.cfg || tb_opts_defaults(tb_workload_usercall.opts, wl.cfg))
		return 1;
	if (i < argc && !strcmp(argv[i], "--lttng")) {
		if (tb_opts_set(tb_workload_usercall.opts, wl.cfg, "lttng", "true", err,
				sizeof(err))) {
			fprintf(stderr, PROG ": %s\n", err);
			return 1;
		}
		i++;
	}
	if (i + 3 < argc && !strcmp(argv[i], "--trace")) {
		trace = argv[i + 1];
		event = argv[i + 2];
		i += 3;
	} else if (i + 2 < argc && !strcmp(argv[i], "--bpf")) {
		pin = argv[i + 1];
		i += 2;
	}
	if (i + 2 == argc && !trace && !pin && !strcmp(argv[i], "--calibrate")) {
		if (loop_parse_ull(argv[i + 1], &v) || !v)
			return usage();
	} else if (i + 1 != argc || loop_parse_ull(argv[i], &v)) {
		return usage();
	}
	if (tb_workload_usercall.setup(&wl)) {
		tb_workload_usercall.teardown(&wl);
		return 1;
	}
	if (i + 2 == argc) {
		printf("%llu\n", loop_calibrate(run, (double)v));
		tb_workload_usercall.teardown(&wl);
		return 0;
	}
	e = trace ? loop_trace_on(PROG, trace, event) : pin ? loop_bpf_on(PROG, pin) : 0;
	if (!e) {
		run(v);
		e = trace ? loop_trace_off(PROG) : loop_bpf_off(PROG);
	}
	tb_workload_usercall.teardown(&wl);
	return e;
}
