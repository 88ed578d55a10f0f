/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the workload plugins (workloads/common.c). */
#ifndef TB_WL_COMMON_H
#define TB_WL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "tb.h"

/* The `work` option: iterations of pure computation per op, to lower the syscall rate. */
#define TB_WL_WORK_OPT(type, field)                                                          \
	{                                                                                    \
		"work", TB_OPT_INT, offsetof(type, field), "0",                              \
			"iterations of pure computation added to each op (about 1 ns each; " \
			"lowers the "                                                        \
			"syscall rate for rate sweeps)",                                     \
			0, 1e9                                                               \
	}

/*
 * n steps of a dependent multiply-add chain the compiler cannot remove or vectorize: about
 * 1 ns per step (one 64-bit multiply latency plus an add), no memory traffic, no syscalls.
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
int tb_wl_path(const struct tb_wl *w, const char *tag, char *path, size_t len);
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

#endif /* TB_WL_COMMON_H */
