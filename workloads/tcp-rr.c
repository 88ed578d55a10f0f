// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-rr: request/response over a loopback TCP connection (127.0.0.1 only), like netperf
 * TCP_RR: send `size` bytes, the partner (thread or process) receives them all and sends
 * `size` bytes back. One op is one transaction: the TCP stack both ways over lo, two wakeups.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct tcp_cfg {
	int mode;
	uint64_t size;
};

static const struct tb_option tcp_opts[] = {
	{"size", TB_OPT_SIZE, offsetof(struct tcp_cfg, size), "1",
	 "bytes of request and of response (netperf TCP_RR default: 1)", 1, 1 << 20},
	{"mode", TB_OPT_CHOICE, offsetof(struct tcp_cfg, mode), "threads",
	 "the responder is a thread or a forked process", 0, 0, tb_wl_partner_modes},
	TB_OPT_END,
};

/*
 * Whole transfers with recv() and send(), not core/io.h's read()/write() loops: the syscalls
 * are part of what this workload is (netperf's; a scenario may trace syscalls:sys_enter_sendto
 * and tests/unit/workloads-registry.c counts sendto/recvfrom per op), and MSG_NOSIGNAL turns a vanished
 * peer into -EPIPE even where SIGPIPE is not ignored (the runner ignores it; run-tests and
 * bench-workloads do not).
 */
static int recv_full(int fd, char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = recv(fd, buf + done, len - done, 0);
		if (n > 0)
			done += (size_t)n;
		else if (n == 0)
			return -EPIPE;
		else if (errno != EINTR)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
	}
	return 0;
}

static int send_full(int fd, const char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
		if (n > 0)
			done += (size_t)n;
		else if (n < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

static void *tcp_partner(void *arg)
{
	struct tb_wl_rr *p = arg;

	while (!recv_full(p->sfd, p->pbuf, p->size))
		if (send_full(p->sfd, p->pbuf, p->size))
			break;
	return NULL;
}

static int tcp_supported(char *why, size_t len)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		snprintf(why, len, "no IPv4 TCP sockets: %s", strerror(errno));
		return -errno;
	}
	close(fd);
	return 0;
}

static int tcp_setup(struct tb_workload *w)
{
	const struct tcp_cfg *c = w->cfg;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t salen = sizeof(sa);
	struct timeval tv = {.tv_sec = TB_WL_RR_TIMEOUT_S};
	int one = 1, lfd = -1, ret;
	struct tb_wl_rr *p;

	p = tb_wl_rr_new(w, (size_t)c->size);
	if (!p)
		return -ENOMEM;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &salen))
		goto fail_errno;
	p->cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->cfd < 0 || connect(p->cfd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail_errno;
	p->sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (p->sfd < 0)
		goto fail_errno;
	close(lfd);
	lfd = -1;
	setsockopt(p->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(p->sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(p->cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ret = tb_wl_rr_start(w, p, c->mode, tcp_partner);
	if (ret)
		return ret;
	ret = send_full(p->cfd, p->buf, p->size);
	if (!ret)
		ret = recv_full(p->cfd, p->buf, p->size);
	if (ret)
		tb_err("%s: first transaction: %s", w->name, strerror(-ret));
	return ret;
fail_errno:
	ret = -errno;
	tb_err("%s: loopback TCP connection: %s", w->name, strerror(errno));
	if (lfd >= 0)
		close(lfd);
	return ret;
}

static int tcp_run_batch(struct tb_workload *w, uint64_t n)
{
	struct tb_wl_rr *p = w->priv;
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = send_full(p->cfd, p->buf, p->size);
		if (ret)
			return ret;
		ret = recv_full(p->cfd, p->buf, p->size);
		if (ret)
			return ret;
	}
	return 0;
}

static void tcp_teardown(struct tb_workload *w)
{
	struct tb_wl_rr *p = w->priv;

	if (!p)
		return;
	if (p->cfd >= 0)
		shutdown(p->cfd, SHUT_RDWR); /* the responder reads EOF */
	tb_wl_rr_free(w);
}

/* send (sendto) and recv (recvfrom) each way; a large message may take several recv calls. */
static int tcp_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct tcp_cfg *c = cfg;

	return tb_wl_pingpong_events(ev, ctx, c->mode == TB_WL_PARTNER_PROCESSES, "syscall:sendto",
				     SYS_sendto, "syscall:recvfrom", SYS_recvfrom,
				     c->size > 4096 ? TB_EV_APPROX : 0);
}

const struct tb_workload_ops tb_workload_tcp_rr = {
	.name = "tcp-rr",
	.help = "request/response transaction over a loopback TCP connection (network stack; "
		"cf. netperf TCP_RR)",
	.opts = tcp_opts,
	.cfg_size = sizeof(struct tcp_cfg),
	.supported = tcp_supported,
	.setup = tcp_setup,
	.run_batch = tcp_run_batch,
	.teardown = tcp_teardown,
	.events = tcp_events,
	.flags = TB_WL_PARTNER_CPU, /* the partner inherits its CPU */
};
