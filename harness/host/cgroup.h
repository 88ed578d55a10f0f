/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cgroups for external programs (cgroup.c): an external tracer command or a command workload
 * runs in a cgroup of its own, so that everything it starts is found, accounted and killed,
 * also what escapes its process group (setsid, a double fork: a daemonising agent).
 *
 * The cgroup2 hierarchy is found from /proc/self/mountinfo (on a hybrid machine it is e.g.
 * /sys/fs/cgroup/unified, beside the v1 controllers); each cgroup is made under this process's
 * own cgroup2 cgroup and named tracebench-<pid>-<tag>-<n>. CPU time comes from its cpu.stat
 * (kept by the kernel whether or not the cpu controller is on), memory from memory.peak where
 * the kernel has it, else from the largest memory.current sampled, else, where the memory
 * controller is a v1 one (hybrid), from a twin v1 memory cgroup's memory.max_usage_in_bytes.
 * Killing uses cgroup.kill where present, else SIGKILL to every pid of cgroup.procs until it is
 * empty. Each cgroup is in this process's armed record (host/armed.h) until it is removed, so
 * that cleanup removes those of a dead owner.
 */
#ifndef TB_CGROUP_H
#define TB_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/proc.h"

struct tb_cgroup {
	char path[PATH_MAX];	    /* the cgroup2 directory; "" when none */
	char mem_path[PATH_MAX];    /* the v1 memory twin, "" when not used */
	int procs_fd, mem_procs_fd; /* their cgroup.procs, for the child to join; -1 when closed */
	bool has_peak;		    /* memory.peak exists */
	int64_t mem_sampled;	    /* largest memory.current seen, -1 when none */
};

#define TB_CGROUP_INIT                                                \
	{                                                             \
		.procs_fd = -1, .mem_procs_fd = -1, .mem_sampled = -1 \
	}

/* 0 when cgroups can be made here; else -errno and the reason in why ("no cgroup2 mount", "/sys/
 * fs/cgroup/unified: Read-only file system"). Probed once and cached. */
int tb_cgroup_supported(char *why, size_t len);
/*
 * Make a cgroup tracebench-<pid>-<tag>-<n> (tag: [A-Za-z0-9._+-], at most 64) and record it.
 * Returns 0 or -errno (said, naming the directory).
 */
int tb_cgroup_create(struct tb_cgroup *cg, const char *tag);
/* Let a child started with o join cg before it executes anything (core/proc.h). */
void tb_cgroup_spawn_opts(const struct tb_cgroup *cg, struct tb_proc_opts *o);
/* Processes in cg now, or -errno. */
int tb_cgroup_nprocs(const struct tb_cgroup *cg);
/* Wait up to timeout_ns for cg to empty by itself (processes already signalled exiting).
 * Returns how many are still in it. */
int tb_cgroup_wait_empty(const struct tb_cgroup *cg, uint64_t timeout_ns);
/* Note memory.current (for the peak where memory.peak is missing). */
void tb_cgroup_sample(struct tb_cgroup *cg);
/* CPU seconds of everything that has run in cg (NAN when unknown) and its memory peak in bytes
 * (-1 when unknown). */
void tb_cgroup_usage(struct tb_cgroup *cg, double *cpu_s, int64_t *mem_peak);
/*
 * Kill everything in cg and wait (at most 2 s) until it is empty. Returns the number of
 * processes that were still in it (0: it was empty), or -ETIMEDOUT / -errno.
 */
int tb_cgroup_kill(struct tb_cgroup *cg);
/* Kill, remove the directories, drop the armed record entries. Idempotent. */
void tb_cgroup_destroy(struct tb_cgroup *cg);

/*
 * For cleanup: kill what is in the cgroup directory path and remove it (a v1 twin the same
 * way). Only directories named tracebench-<pid>-* under a cgroup file system are touched.
 * Returns the number of processes killed (>= 0), -ENOENT when it is gone, -EINVAL when path is
 * not such a cgroup, or -errno.
 */
int tb_cgroup_remove_path(const char *path);
/*
 * Directories tracebench-<pid>-* in the cgroups where this process makes its own (and the
 * cgroup2 root) whose owner pid is dead, each passed to fn (with ctx). For cleanup.
 */
void tb_cgroup_foreach_stale(void (*fn)(void *ctx, const char *path, int pid), void *ctx);

/*
 * The cgroup2 directory process pid is in (from /proc/<pid>/cgroup and the cgroup2 mount), into
 * path. Returns 0, or -ENOENT (no cgroup2 hierarchy, pid not in one) or -errno (ESRCH: no such
 * process).
 */
int tb_cgroup_of_pid(pid_t pid, char *path, size_t len);

/*
 * The id of that cgroup (what bpf_get_current_cgroup_id() gives for its tasks), into *id.
 * Returns 0 or -errno as tb_cgroup_of_pid, or of its stat.
 */
int tb_cgroup_id_of_pid(pid_t pid, uint64_t *id);

#endif /* TB_CGROUP_H */
