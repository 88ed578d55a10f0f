/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How much of a sample the machine took from the workload: the time its threads waited,
 * runnable, for a CPU (/proc/PID/task/TID/schedstat's second field: another task ran on the
 * CPU) and the time the hypervisor stole from its CPUs (/proc/stat's steal column). Read by the
 * harness's process around a sample, never by the workload's, so that no syscall of ours falls
 * in the traced process's window.
 */
#ifndef TB_HOST_CONTENTION_H
#define TB_HOST_CONTENTION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tb_contention {
	int64_t wait_ns;  /* summed over the process's threads; -1 unknown (no schedstats) */
	int64_t steal_ns; /* summed over the CPUs asked for; -1 unknown or no CPU named */
};

/*
 * The counters of pid's threads and of cpus[0..ncpus) now into *c (either -1 when it cannot be
 * read). Returns 0, or -errno when pid's task directory cannot be read.
 */
int tb_contention_read(pid_t pid, const int *cpus, size_t ncpus, struct tb_contention *c);

/* The wait (ns) of one schedstat text "RUN WAIT SLICES\n": 0, or -EINVAL when malformed. */
int tb_contention_parse_schedstat(const char *text, int64_t *wait_ns);

/*
 * CPU cpu's steal in USER_HZ ticks from /proc/stat's text: 0, -ENOENT when the CPU has no line,
 * -EINVAL when its line is malformed or has no steal column (kernels before 2.6.11).
 */
int tb_contention_parse_steal(const char *stat, int cpu, int64_t *ticks);

#endif /* TB_HOST_CONTENTION_H */
