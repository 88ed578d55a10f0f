// SPDX-License-Identifier: GPL-2.0
/*
 * udp-rr: request/response over two connected loopback UDP sockets (127.0.0.1 only), like
 * netperf UDP_RR: one datagram of `size` bytes each way per op. A zero-length datagram tells
 * the responder to stop. A response that does not come back within 5 s fails the batch.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/workload.h"

struct udp_cfg {
	int mode;
	uint64_t size;
};

static const struct tb_option udp_opts[] = {
	{"size", TB_OPT_SIZE, offsetof(struct udp_cfg, size), "1",
	 "bytes of request and of response datagrams (at most 65507)", 1, 65507},
	{"mode", TB_OPT_CHOICE, offsetof(struct udp_cfg, mode), "threads",
	 "the responder is a thread or a forked process", 0, 0, tb_wl_partner_modes},
	TB_OPT_END,
};

static void *udp_partner(void *arg)
{
	struct tb_wl_rr *p = arg;
	ssize_t n;

	for (;;) {
		n = recv(p->sfd, p->pbuf, p->size, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (send(p->sfd, p->pbuf, (size_t)n, 0) < 0 && errno != ECONNREFUSED)
			break;
	}
	return NULL;
}

static int udp_supported(char *why, size_t len)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		snprintf(why, len, "no IPv4 UDP sockets: %s", strerror(errno));
		return -errno;
	}
	close(fd);
	return 0;
}

static int bind_lo(int fd, struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    getsockname(fd, (struct sockaddr *)sa, &len))
		return -errno;
	return 0;
}

static int udp_setup(struct tb_workload *w)
{
	const struct udp_cfg *c = w->cfg;
	struct timeval tv = {.tv_sec = TB_WL_RR_TIMEOUT_S};
	struct sockaddr_in ca, sa;
	struct tb_wl_rr *p;
	int ret;

	p = tb_wl_rr_new(w, (size_t)c->size);
	if (!p)
		return -ENOMEM;
	p->cfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	p->sfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (p->cfd < 0 || p->sfd < 0)
		goto fail_errno;
	if (bind_lo(p->cfd, &ca) || bind_lo(p->sfd, &sa) ||
	    connect(p->cfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    connect(p->sfd, (struct sockaddr *)&ca, sizeof(ca)))
		goto fail_errno;
	setsockopt(p->cfd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ret = tb_wl_rr_start(w, p, c->mode, udp_partner);
	if (ret)
		return ret;
	if (send(p->cfd, p->buf, p->size, 0) < 0 || recv(p->cfd, p->buf, p->size, 0) < 0) {
		ret = errno == EAGAIN ? -ETIMEDOUT : -errno;
		tb_err("%s: first transaction: %s", w->name, strerror(-ret));
		return ret;
	}
	return 0;
fail_errno:
	ret = -errno;
	tb_err("%s: loopback UDP sockets: %s", w->name, strerror(errno));
	return ret;
}

static int udp_run_batch(struct tb_workload *w, uint64_t n)
{
	struct tb_wl_rr *p = w->priv;
	uint64_t i;
	ssize_t r;

	for (i = 0; i < n; i++) {
		if (send(p->cfd, p->buf, p->size, 0) < 0)
			return -errno;
		do {
			r = recv(p->cfd, p->buf, p->size, 0);
		} while (r < 0 && errno == EINTR);
		if (r < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if ((size_t)r != p->size)
			return -EIO;
	}
	return 0;
}

static void udp_teardown(struct tb_workload *w)
{
	struct tb_wl_rr *p = w->priv;

	if (!p)
		return;
	if (p->partner.running && p->cfd >= 0)
		send(p->cfd, p->buf, 0, 0); /* the stop datagram */
	tb_wl_rr_free(w);
}

/* One datagram each way: send (sendto) and recv (recvfrom) on both sides. */
static int udp_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	const struct udp_cfg *c = cfg;

	return tb_wl_pingpong_events(ev, ctx, c->mode == TB_WL_PARTNER_PROCESSES, "syscall:sendto",
				     SYS_sendto, "syscall:recvfrom", SYS_recvfrom, 0);
}

const struct tb_workload_ops tb_workload_udp_rr = {
	.name = "udp-rr",
	.help = "request/response datagrams over loopback UDP sockets (network stack; cf. "
		"netperf UDP_RR)",
	.opts = udp_opts,
	.cfg_size = sizeof(struct udp_cfg),
	.supported = udp_supported,
	.setup = udp_setup,
	.run_batch = udp_run_batch,
	.teardown = udp_teardown,
	.events = udp_events,
	.flags = TB_WL_PARTNER_CPU, /* the partner inherits its CPU */
};
