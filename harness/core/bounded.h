/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one bounded writer for what an external program writes (a tracer command's log, a command
 * workload's output): the program writes into a pipe, a thread of ours drains it into the file,
 * keeping at most max bytes of it (the first half as it comes, the last half in memory until the
 * end, and between them a line saying how many bytes were cut), on every path: the program
 * succeeds, fails or floods, the sample is given up or stopped. Each complete line can also be
 * shown to a hook while it passes (a readiness check sees every line, the first one too).
 */
#ifndef TB_BOUNDED_H
#define TB_BOUNDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tb_drain;

/* Called with each complete line (without its newline, cut at 4 KiB), in the drain's thread,
 * until it returns true. */
typedef bool (*tb_line_hook)(void *ctx, const char *line, size_t len);

/*
 * Start draining rfd (the read end of the program's pipe; owned from now on) into out_fd (owned
 * too; written at its end), keeping at most max bytes (0: everything). hook (may be NULL) sees
 * the lines. Returns 0 or -errno (rfd and out_fd closed then).
 */
int tb_drain_start(struct tb_drain **d, int rfd, int out_fd, uint64_t max, tb_line_hook hook,
		   void *ctx);
/*
 * End the drain: what the pipe still holds is read (until it is empty, or until every writer
 * closed it when wait_eof, for at most 2 s), the kept tail and the cut line are written, both
 * fds closed and d freed. Returns the bytes the program wrote in all. Idempotent on NULL.
 */
uint64_t tb_drain_finish(struct tb_drain *d, bool wait_eof);

#endif /* TB_BOUNDED_H */
