/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracer switches hyperfine's targets for `make bench-precision` throw on themselves
 * (tools/loop-switch.c), shared by tb-getpid-loop and tb-usercall-loop: an ftrace event in a
 * tracefs instance of ours, filtered to the caller's pid, or the pid filter of a pinned bundled
 * BPF program (tb-bpf-arm) pointed at the caller. Each is undone on every path the caller can
 * see (a normal end, an error, SIGINT, SIGTERM, SIGHUP). Raw syscalls and tracefs writes only:
 * the getpid loop stays static and free of libraries.
 */
#ifndef TB_TOOLS_LOOP_SWITCH_H
#define TB_TOOLS_LOOP_SWITCH_H

#include <stddef.h>

/* The tracefs instance's directory, for a name of ours only (no path, the tracebench- prefix). */
int loop_instance_path(const char *prog, const char *name, char *out, size_t len);
/* --create, --remove (every event of it off first) or --clear (its set_event_pid): exit code. */
int loop_instance_op(const char *prog, const char *op, const char *name);
/*
 * Enable event (system/name) in the instance, filtered to our pid. 0, else 1 (said). The pid stays
 * in set_event_pid after loop_trace_off (emptying it waits for an RCU grace period: the caller's
 * untimed --clear does it between runs).
 */
int loop_trace_on(const char *prog, const char *instance, const char *event);
int loop_trace_off(const char *prog);
/*
 * Point the pid filter (targ_live, at offset 0 of the .bss map pinned at PIN) of a program that
 * tb-bpf-arm loaded at our pid, and back at 0 (no process) after. 0, else 1 (said).
 */
int loop_bpf_on(const char *prog, const char *pin);
int loop_bpf_off(const char *prog);
/*
 * A leading `--cpu N` at argv[*i]: the caller pinned to N (*cpu, else -1 when absent), *i past
 * it. 0, 1 when the pinning failed (said), 2 on a bad N.
 */
int loop_cpu_arg(const char *prog, int argc, char **argv, int *i, int *cpu);
/* A decimal number without sign. 0 or -EINVAL. */
int loop_parse_ull(const char *s, unsigned long long *v);
/* Ops of run(n) for about ms milliseconds: doubling batches until one lasts a tenth of it. */
unsigned long long loop_calibrate(void (*run)(unsigned long long), double ms);
/*
 * batches back-to-back runs of run(iters) in this one process, each batch's ns per op on its own
 * line of stdout (tools/noise-components.py splits the noise into its per-process and
 * within-process parts from them). 0, 1 when stdout failed (said).
 */
int loop_batches(const char *prog, void (*run)(unsigned long long), unsigned long long batches,
		 unsigned long long iters);

#endif /* TB_TOOLS_LOOP_SWITCH_H */
