/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints counted in one cgroup (cgroup-count.c): a perf counter per tracepoint and CPU in
 * cgroup mode (PERF_FLAG_PID_CGROUP), which counts a hit while a task of the cgroup is the one
 * running. It is the counting pass of a service (runner/count.c): the server's own syscalls
 * per request, counted by the kernel independently of the tracer the proof judges. A counter
 * adds to every hit of its tracepoint on the host while enabled, so it is only ever enabled
 * over an untimed sample.
 */
#ifndef TB_HOST_CGROUP_COUNT_H
#define TB_HOST_CGROUP_COUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tb_cgroup_count;

/*
 * Counters, disabled, for the n tracepoints names[] ("system:event") in the cgroup2 directory
 * of process pid, on every online CPU, into *out (free with tb_cgroup_count_close). Returns 0,
 * or -errno with the reason in err (naming the tracepoint or the cgroup).
 */
int tb_cgroup_count_open(pid_t pid, const char *const *names, size_t n,
			 struct tb_cgroup_count **out, char *err, size_t len);
/* Enable (or disable) every counter. Returns 0 or -errno. */
int tb_cgroup_count_enable(struct tb_cgroup_count *c, int on);
/* Tracepoint i's count over every CPU since it was opened, or -errno. */
int64_t tb_cgroup_count_read(const struct tb_cgroup_count *c, size_t i);
/* Close every counter and free c. NULL is fine. */
void tb_cgroup_count_close(struct tb_cgroup_count *c);

#endif /* TB_HOST_CGROUP_COUNT_H */
