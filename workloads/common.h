/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the workload plugins (workloads/common.c). */
#ifndef TB_WL_COMMON_H
#define TB_WL_COMMON_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <unistd.h>

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
 * build/helpers/, helpers/ or ../libexec/tracebench next to /proc/self/exe (an installed
 * tree, wherever its PREFIX), then TB_LIBEXECDIR. Returns 0 with the
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

/*
 * Two pipes between a workload and its partner: to[] carries to the partner, from[] back.
 * tb_wl_pipes_start opens them, starts fn(arg) as the partner (a process gets only its ends)
 * and makes a first round trip of size bytes from buf so the partner runs before the timed
 * batch; 0 or a negative errno with a message naming `name`. tb_wl_pipes_round_trip writes
 * size bytes of buf and reads them back. tb_wl_pipes_stop closes our end (the partner reads
 * EOF and returns), waits for it and closes the rest; safe after a start that failed.
 */
struct tb_wl_pipes {
	int to[2], from[2];
	struct tb_wl_partner partner;
};

int tb_wl_pipes_start(struct tb_wl_pipes *p, const char *name, bool process, void *(*fn)(void *),
		      void *arg, char *buf, size_t size);
int tb_wl_pipes_round_trip(struct tb_wl_pipes *p, char *buf, size_t size);
void tb_wl_pipes_stop(struct tb_wl_pipes *p);

/*
 * What one round trip of a ping-pong (pipe, TCP, UDP) does, into ev: `send` then `recv` here,
 * `recv` then `send` in the partner (a process outside the workload's pid filter when
 * partner_process), each flags (TB_EV_APPROX when a transfer may take several calls). When
 * every side shares one CPU, the scheduler events of the two hand-overs are known: two
 * switches, two wakeups, and switches away from / wakeups of the workload's own tasks once
 * per side it owns. Returns 0 or -ENOSPC.
 */
int tb_wl_pingpong_events(struct tb_op_events *ev, const struct tb_op_context *ctx,
			  bool partner_process, const char *send, int send_nr, const char *recv,
			  int recv_nr, unsigned int flags);

/*
 * A request/response workload (tcp-rr, udp-rr): our end and the partner's end of a loopback
 * connection, a buffer of size bytes for each side, and the responder. The transfers are each
 * workload's own (send/recv syscalls are part of what they measure).
 */
#define TB_WL_RR_TIMEOUT_S 5 /* a response not back by then fails the batch instead of hanging */

struct tb_wl_rr {
	int cfd, sfd; /* our end, the partner's end; -1 when closed */
	size_t size;
	struct tb_wl_partner partner;
	char *buf, *pbuf; /* ours, the partner's (a thread partner shares the process) */
};

/* A new tb_wl_rr with both buffers, no sockets yet (-1), set as w->priv. NULL on ENOMEM. */
struct tb_wl_rr *tb_wl_rr_new(struct tb_workload *w, size_t size);
/*
 * Start the responder fn(rr) as a thread or (mode TB_WL_PARTNER_PROCESSES) a process, which
 * closes our end first; then a process partner's end is closed here. Returns 0 or -errno, said.
 */
int tb_wl_rr_start(struct tb_workload *w, struct tb_wl_rr *rr, int mode, void *(*fn)(void *));
/*
 * Wait for the responder (the caller has told it to stop: shut our end down, sent a stop
 * message), close both ends and free w->priv. NULL w->priv is a no-op.
 */
void tb_wl_rr_free(struct tb_workload *w);

/*
 * The shape of read and write: one positioned transfer of size bytes per op on fd, the offset
 * walking the file and wrapping before limit (0: it never moves, e.g. on a device).
 */
struct tb_wl_pio {
	int fd; /* -1 until opened */
	void *buf;
	uint64_t size, off, limit;
};

/* Allocate io's page-aligned buffer of size bytes filled with byte (so that it is faulted in
 * before the timed batch); fd -1. Returns 0 or -ENOMEM. */
int tb_wl_pio_init(struct tb_wl_pio *io, uint64_t size, int byte);
/* Close io's fd and free its buffer; idempotent. */
void tb_wl_pio_release(struct tb_wl_pio *io);

/*
 * One op: pread (write false) or pwrite of size bytes at the offset, then move it. Inline: it
 * is the timed path. Returns 0, -errno, or -EIO on a short transfer.
 */
static inline int tb_wl_pio_op(struct tb_wl_pio *io, bool write)
{
	ssize_t r = write ? pwrite(io->fd, io->buf, io->size, (off_t)io->off)
			  : pread(io->fd, io->buf, io->size, (off_t)io->off);

	if (r < 0)
		return -errno;
	if ((uint64_t)r != io->size)
		return -EIO;
	if (io->limit) {
		io->off += io->size;
		if (io->off + io->size > io->limit)
			io->off = 0;
	}
	return 0;
}

#endif /* TB_WL_COMMON_H */
