// SPDX-License-Identifier: GPL-2.0
/* The bounded writer of an external program's output (bounded.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/bounded.h"
#include "core/io.h"
#include "core/tb.h"

#define LINE_MAX_HOOK 4096
#define EOF_WAIT_NS   2000000000ull

struct tb_drain {
	pthread_t thread;
	int rfd, out_fd;
	_Atomic int stop;   /* 1: drain what is there; 2: until EOF (bounded) */
	uint64_t head_left; /* bytes still written as they come */
	uint64_t total;	    /* bytes the program wrote */
	char *ring;	    /* the last ring_cap bytes after the head */
	size_t ring_cap, ring_pos;
	uint64_t ring_seen; /* bytes that went into the ring */
	int werr;	    /* the first write error (the rest is drained, not written) */
	tb_line_hook hook;
	void *ctx;
	char line[LINE_MAX_HOOK];
	size_t line_len;
	bool line_long, hook_done;
};

static void out(struct tb_drain *d, const char *buf, size_t n)
{
	if (!d->werr && n && tb_write_full(d->out_fd, buf, n))
		d->werr = errno ? errno : EIO;
}

static void lines(struct tb_drain *d, const char *buf, size_t n)
{
	size_t i;

	for (i = 0; i < n && !d->hook_done; i++) {
		if (buf[i] != '\n') {
			if (d->line_len < sizeof(d->line))
				d->line[d->line_len++] = buf[i];
			continue;
		}
		d->hook_done = d->hook(d->ctx, d->line, d->line_len);
		d->line_len = 0;
	}
}

static void take(struct tb_drain *d, const char *buf, size_t n)
{
	size_t h = n < d->head_left ? n : (size_t)d->head_left, k;

	d->total += n;
	if (d->hook)
		lines(d, buf, n);
	out(d, buf, h);
	d->head_left -= h;
	buf += h;
	n -= h;
	if (n > d->ring_cap) { /* only the last ring_cap bytes can stay */
		d->ring_seen += n - d->ring_cap;
		buf += n - d->ring_cap;
		n = d->ring_cap;
	}
	while (n) {
		k = d->ring_cap - d->ring_pos < n ? d->ring_cap - d->ring_pos : n;
		memcpy(d->ring + d->ring_pos, buf, k);
		d->ring_pos = (d->ring_pos + k) % d->ring_cap;
		d->ring_seen += k;
		buf += k;
		n -= k;
	}
}

/* One read; 1 when something was read, 0 at EOF, -1 when nothing is there now. */
static int read_once(struct tb_drain *d, int timeout_ms)
{
	struct pollfd pfd = {.fd = d->rfd, .events = POLLIN};
	static __thread char buf[65536];
	ssize_t n;

	if (poll(&pfd, 1, timeout_ms) <= 0)
		return -1;
	n = read(d->rfd, buf, sizeof(buf));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? -1 : 0;
	if (n == 0)
		return 0;
	take(d, buf, (size_t)n);
	return 1;
}

static void *drain_main(void *arg)
{
	struct tb_drain *d = arg;
	uint64_t deadline = 0;
	int r, stop;

	for (;;) {
		stop = atomic_load(&d->stop);
		r = read_once(d, stop ? 0 : 50);
		if (r == 0)
			break;
		if (r > 0 || !stop)
			continue;
		if (stop == 1)
			break; /* empty now, and not told to wait for the writers */
		if (!deadline)
			deadline = tb_now_ns() + EOF_WAIT_NS;
		if (tb_now_ns() >= deadline)
			break;
		read_once(d, 20);
	}
	return NULL;
}

int tb_drain_start(struct tb_drain **dp, int rfd, int out_fd, uint64_t max, tb_line_hook hook,
		   void *ctx)
{
	struct tb_drain *d = calloc(1, sizeof(*d));
	int ret;

	*dp = NULL;
	if (!d) {
		ret = -ENOMEM;
		goto fail;
	}
	d->rfd = rfd;
	d->out_fd = out_fd;
	d->hook = hook;
	d->ctx = ctx;
	d->head_left = max ? max / 2 : UINT64_MAX;
	d->ring_cap = max ? (size_t)(max - max / 2) : 1;
	d->ring = malloc(d->ring_cap);
	if (!d->ring) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = -pthread_create(&d->thread, NULL, drain_main, d);
	if (ret)
		goto fail;
	*dp = d;
	return 0;
fail:
	if (d)
		free(d->ring);
	free(d);
	close(rfd);
	close(out_fd);
	return ret;
}

uint64_t tb_drain_finish(struct tb_drain *d, bool wait_eof)
{
	char note[128];
	uint64_t total;
	size_t kept;
	int n;

	if (!d)
		return 0;
	atomic_store(&d->stop, wait_eof ? 2 : 1);
	pthread_join(d->thread, NULL);
	kept = d->ring_seen < d->ring_cap ? (size_t)d->ring_seen : d->ring_cap;
	if (d->ring_seen > kept) {
		n = snprintf(note, sizeof(note), "\n[tracebench: %llu bytes of this output cut]\n",
			     (unsigned long long)(d->ring_seen - kept));
		out(d, note, (size_t)n);
		out(d, d->ring + d->ring_pos, d->ring_cap - d->ring_pos);
		out(d, d->ring, d->ring_pos);
	} else {
		out(d, d->ring, kept);
	}
	if (d->werr)
		tb_warn("the program's output could not all be written: %s", strerror(d->werr));
	total = d->total;
	close(d->rfd);
	close(d->out_fd);
	free(d->ring);
	free(d);
	return total;
}
