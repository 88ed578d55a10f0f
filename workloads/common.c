// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the workload plugins. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/env.h"
#include "core/io.h"
#include "core/log.h"
#include "workloads/common.h"

#ifndef TB_LIBEXECDIR
#define TB_LIBEXECDIR "/usr/local/libexec/tracebench"
#endif

int tb_wl_path(const struct tb_workload *w, const char *tag, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s-%u", w->tmpdir, tag, w->thread);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tb_wl_fill(int fd, uint64_t size)
{
	char buf[65536];
	uint64_t off = 0;
	ssize_t n;

	memset(buf, 'x', sizeof(buf));
	while (off < size) {
		size_t chunk = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);

		n = pwrite(fd, buf, chunk, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += (uint64_t)n;
	}
	return 0;
}

static int try_helper(const char *dir, const char *name, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return access(path, X_OK) ? -ENOENT : 0;
}

int tb_wl_find_helper(const char *name, char *path, size_t len, char *why, size_t whylen)
{
	/* The source tree (./tracebench), build/run-tests, an installed tree (bin/). */
	static const char *const rel[] = {"build/helpers", "helpers", TB_LIBEXECDIR_REL};
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	const char *env = getenv(TB_ENV_HELPERS);
	size_t i;

	if (env && *env && !try_helper(env, name, path, len))
		return 0;
	for (i = 0; !tb_exe_dir(exe, sizeof(exe)) && i < TB_ARRAY_SIZE(rel); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", exe, rel[i]);
		if (!try_helper(dir, name, path, len))
			return 0;
	}
	if (!try_helper(TB_LIBEXECDIR, name, path, len))
		return 0;
	if (why)
		snprintf(why, whylen,
			 "helper %s not found in $TB_HELPERS, next to the binary (build/helpers, "
			 "helpers, " TB_LIBEXECDIR_REL ") or in %s (run make)",
			 name, TB_LIBEXECDIR);
	return -ENOENT;
}

int tb_wl_check_path(const char *key, const char *path, unsigned int kind, int amode, char *err,
		     size_t len)
{
	struct stat st;

	if (!path || !*path) {
		snprintf(err, len, "%s: empty path", key);
		return -EINVAL;
	}
	if (stat(path, &st)) {
		snprintf(err, len, "%s: %s: %s", key, path, strerror(errno));
		return -EINVAL;
	}
	if (kind == S_IFDIR && !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "%s: %s: not a directory", key, path);
		return -EINVAL;
	}
	if (kind == S_IFREG && !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s: %s: not a regular file", key, path);
		return -EINVAL;
	}
	if (amode && access(path, amode)) {
		snprintf(err, len, "%s: %s: %s", key, path, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

const char *const tb_wl_partner_modes[] = {"processes", "threads", NULL};

int tb_wl_partner_start(struct tb_wl_partner *p, bool process, void *(*fn)(void *), void *arg,
			const int *close_fds, size_t nclose)
{
	pid_t parent = getpid();
	size_t i;
	int ret;

	memset(p, 0, sizeof(*p));
	p->process = process;
	if (!process) {
		ret = -pthread_create(&p->thread, NULL, fn, arg);
		if (ret)
			return ret;
		p->running = true;
		return 0;
	}
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		for (i = 0; i < nclose; i++)
			if (close_fds[i] >= 0)
				close(close_fds[i]);
		fn(arg);
		_exit(0);
	}
	p->running = true;
	return 0;
}

void tb_wl_partner_stop(struct tb_wl_partner *p, uint64_t grace_ns)
{
	struct timespec ts;
	uint64_t waited = 0;

	if (!p->running)
		return;
	p->running = false;
	if (!p->process) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)(grace_ns / 1000000000ull) + 1;
		if (pthread_timedjoin_np(p->thread, NULL, &ts)) {
			pthread_cancel(p->thread);
			pthread_join(p->thread, NULL);
		}
		return;
	}
	while (waitpid(p->pid, NULL, WNOHANG) == 0) {
		if (waited >= grace_ns) {
			kill(p->pid, SIGKILL);
			while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
				;
			break;
		}
		tb_sleep_ns(1000000);
		waited += 1000000;
	}
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int tb_wl_pipes_round_trip(struct tb_wl_pipes *p, char *buf, size_t size)
{
	int ret = tb_write_full(p->to[1], buf, size);

	return ret ? ret : tb_read_full(p->from[0], buf, size);
}

int tb_wl_pipes_start(struct tb_wl_pipes *p, const char *name, bool process, void *(*fn)(void *),
		      void *arg, char *buf, size_t size)
{
	int mine[2], ret;

	p->to[0] = p->to[1] = p->from[0] = p->from[1] = -1;
	if (pipe2(p->to, O_CLOEXEC) || pipe2(p->from, O_CLOEXEC)) {
		ret = -errno;
		tb_err("%s: pipe: %s", name, strerror(errno));
		return ret;
	}
	mine[0] = p->to[1];
	mine[1] = p->from[0];
	ret = tb_wl_partner_start(&p->partner, process, fn, arg, mine, 2);
	if (ret) {
		tb_err("%s: cannot start the partner: %s", name, strerror(-ret));
		return ret;
	}
	if (process) {
		close_fd(&p->to[0]);
		close_fd(&p->from[1]);
	}
	ret = tb_wl_pipes_round_trip(p, buf, size);
	if (ret)
		tb_err("%s: first round trip with the partner: %s", name, strerror(-ret));
	return ret;
}

void tb_wl_pipes_stop(struct tb_wl_pipes *p)
{
	close_fd(&p->to[1]);
	tb_wl_partner_stop(&p->partner, 2000000000ull);
	close_fd(&p->to[0]);
	close_fd(&p->from[0]);
	close_fd(&p->from[1]);
}

int tb_wl_pingpong_events(struct tb_op_events *ev, const struct tb_op_context *ctx,
			  bool partner_process, const char *send, int send_nr, const char *recv,
			  int recv_nr, unsigned int flags)
{
	int partner = partner_process ? TB_EV_PARTNER : TB_EV_SELF;
	double own = partner_process ? 1 : 2; /* sides in the workload's process */
	const struct {
		const char *name;
		double n;
	} sched[] = {
		{"sched:sched_switch", 2}, {"sched:sched_wakeup", 2}, {"sched:sched_waking", 2},
		{"task:switches", own},	   {"task:wakeups", own},
	};
	size_t i;
	int ret;

	ev->syscalls_known = TB_EV_KNOWN_ALL;
	ret = tb_op_events_syscall(ev, send, send_nr, 1, 1, TB_EV_SELF, flags);
	if (!ret)
		ret = tb_op_events_syscall(ev, recv, recv_nr, 1, 1, TB_EV_SELF, flags);
	if (!ret)
		ret = tb_op_events_syscall(ev, recv, recv_nr, 1, 1, partner, flags);
	if (!ret)
		ret = tb_op_events_syscall(ev, send, send_nr, 1, 1, partner, flags);
	/* On several CPUs a side may find the other running, or wake an idle CPU: unknown. */
	if (!ctx->one_cpu)
		return ret;
	ev->sched_known = TB_EV_KNOWN_ALL;
	for (i = 0; !ret && i < TB_ARRAY_SIZE(sched); i++)
		ret = tb_op_events_add(ev, sched[i].name, sched[i].n, TB_EV_SELF, TB_EV_APPROX);
	return ret;
}

struct tb_wl_rr *tb_wl_rr_new(struct tb_workload *w, size_t size)
{
	struct tb_wl_rr *rr = calloc(1, sizeof(*rr));

	if (!rr)
		return NULL;
	rr->cfd = rr->sfd = -1;
	rr->size = size;
	rr->buf = calloc(2, size);
	if (!rr->buf) {
		free(rr);
		return NULL;
	}
	rr->pbuf = rr->buf + size;
	w->priv = rr;
	return rr;
}

int tb_wl_rr_start(struct tb_workload *w, struct tb_wl_rr *rr, int mode, void *(*fn)(void *))
{
	int ret;

	ret = tb_wl_partner_start(&rr->partner, mode == TB_WL_PARTNER_PROCESSES, fn, rr, &rr->cfd,
				  1);
	if (ret) {
		tb_err("%s: cannot start the responder: %s", w->name, strerror(-ret));
		return ret;
	}
	if (rr->partner.process) {
		close(rr->sfd);
		rr->sfd = -1;
	}
	return 0;
}

void tb_wl_rr_free(struct tb_workload *w)
{
	struct tb_wl_rr *rr = w->priv;

	if (!rr)
		return;
	tb_wl_partner_stop(&rr->partner, 2000000000ull);
	if (rr->cfd >= 0)
		close(rr->cfd);
	if (rr->sfd >= 0)
		close(rr->sfd);
	free(rr->buf);
	free(rr);
	w->priv = NULL;
}

int tb_wl_pio_init(struct tb_wl_pio *io, uint64_t size, int byte)
{
	io->fd = -1;
	io->size = size;
	io->buf = aligned_alloc(4096, (size + 4095) & ~4095ull);
	if (!io->buf)
		return -ENOMEM;
	memset(io->buf, byte, size);
	return 0;
}

void tb_wl_pio_release(struct tb_wl_pio *io)
{
	if (io->fd >= 0)
		close(io->fd);
	io->fd = -1;
	free(io->buf);
	io->buf = NULL;
}
