/* SPDX-License-Identifier: GPL-2.0 */
/* Whole reads and writes on file descriptors (pipes, sockets, files): the one copy of each loop. */
#ifndef TB_IO_H
#define TB_IO_H

#include <stddef.h>
#include <stdint.h>

/* Write all len bytes, restarting after EINTR and short writes. Returns 0 or -errno. */
int tb_write_full(int fd, const void *buf, size_t len);
/*
 * Read exactly len bytes, restarting after EINTR and short reads. Returns 0, -EPIPE at end of
 * file before len bytes (the writer went away), -ETIMEDOUT when the descriptor's own timeout
 * expired (SO_RCVTIMEO, or O_NONBLOCK with nothing to read), or -errno.
 */
int tb_read_full(int fd, void *buf, size_t len);
/*
 * The same within timeout_ns, polling so that a stop request (tb_request_stop) is seen within
 * 200 ms. Returns 0, -ETIMEDOUT, -EINTR when a stop was requested, -EPIPE, or -errno.
 */
int tb_read_full_timeout(int fd, void *buf, size_t len, uint64_t timeout_ns);

#endif /* TB_IO_H */
