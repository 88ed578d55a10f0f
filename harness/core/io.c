// SPDX-License-Identifier: GPL-2.0
/* Whole reads and writes (io.h). */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "core/io.h"
#include "core/util.h"

int tb_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int tb_read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int tb_read_full_timeout(int fd, void *buf, size_t len, uint64_t timeout_ns)
{
	uint64_t deadline = tb_now_ns() + timeout_ns;
	char *p = buf;

	while (len) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = tb_now_ns();
		int ms, r;
		ssize_t n;

		if (tb_stop_requested())
			return -EINTR;
		if (now >= deadline)
			return -ETIMEDOUT;
		ms = (int)((deadline - now) / 1000000 + 1);
		r = poll(&pfd, 1, ms > 200 ? 200 : ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
