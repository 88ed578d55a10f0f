/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the workload plugins (workloads/common.c). */
#ifndef TB_WL_COMMON_H
#define TB_WL_COMMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/tb.h"
#include "workloads/workload.h"

/* The `work` option: iterations of pure computation per op, to lower the syscall rate. */
#define TB_WL_WORK_OPT(type, field)                                                             \
	{                                                                                       \
		"work", TB_OPT_INT, offsetof(type, field), "0",                                 \
			"iterations of pure computation added to each op (1-3 ns each; lowers " \
			"the syscall "                                                          \
			"rate for rate sweeps)",                                                \
			0, 1e9                                                                  \
	}

/*
 * n steps of a dependent multiply-add chain the compiler cannot remove or vectorize: 1-3 ns
 * per step (a 64-bit multiply's latency plus an add), no memory traffic, no syscalls.
 */
static inline void tb_wl_compute(int64_t n)
{
	uint64_t x = 1;

	while (n-- > 0) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
}

/* "<tmpdir>/<tag>-<thread>" into path; -ENAMETOOLONG when it does not fit. */
int tb_wl_path(const struct tb_workload *w, const char *tag, char *path, size_t len);
/* Write size bytes of non-zero data to fd from offset 0 (and fsync nothing). */
int tb_wl_fill(int fd, uint64_t size);
/*
 * Find the helper program `name` (built from workloads/helpers/NAME.c): in $TB_HELPERS, then
 * build/helpers/ or helpers/ next to /proc/self/exe, then TB_LIBEXECDIR. Returns 0 with the
 * path, or -ENOENT with where it looked in why (when why is not NULL).
 */
int tb_wl_find_helper(const char *name, char *path, size_t len, char *why, size_t whylen);
/* Check that path exists and is of the wanted kind (S_IFREG, S_IFDIR, 0: any), with
 * "key: reason" into err. */
int tb_wl_check_path(const char *key, const char *path, unsigned int kind, int amode, char *err,
		     size_t len);

/*
 * The other end of a ping-pong workload (pipe, TCP, UDP): a thread, or a forked process that
 * closes the fds in close_fds first (the main side's ends, so that it sees EOF), runs fn(arg)
 * and exits; it dies with its parent (PR_SET_PDEATHSIG). fn returns when its peer goes away.
 */
struct tb_wl_partner {
	bool process;
	bool running;
	pthread_t thread;
	pid_t pid;
};

extern const char *const tb_wl_partner_modes[]; /* "processes", "threads" */
#define TB_WL_PARTNER_PROCESSES 0
#define TB_WL_PARTNER_THREADS	1

int tb_wl_partner_start(struct tb_wl_partner *p, bool process, void *(*fn)(void *), void *arg,
			const int *close_fds, size_t nclose);
/*
 * Wait for the partner to finish (the caller has made it return: closed its fd, sent a stop
 * message); after grace_ns a process is killed, a thread cancelled. Idempotent.
 */
void tb_wl_partner_stop(struct tb_wl_partner *p, uint64_t grace_ns);

/* Read / write exactly len bytes (restarting on EINTR and short transfers). 0, -EPIPE on EOF,
 * -ETIMEDOUT on a receive timeout, -errno. */
int tb_wl_read_full(int fd, void *buf, size_t len);
int tb_wl_write_full(int fd, const void *buf, size_t len);

#endif /* TB_WL_COMMON_H */
