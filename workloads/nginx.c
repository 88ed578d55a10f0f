// SPDX-License-Identifier: GPL-2.0
/*
 * nginx: Debian's nginx-light serving one small response on a loopback port, driven by wrk in
 * a closed loop (workloads/service.h: a fresh server per sample, on the workload's CPU; the
 * client on another). The op is one HTTP request. wrk 4.1 has no fixed-rate mode (wrk2, which
 * has, is not packaged) and h2load's --rps times a request from its send, not from when it was
 * due (a request made due while the streams are busy waits for a later tick), so no Debian
 * client drives nginx in an open loop with a tail to read: closed loop only (METHODOLOGY.md
 * "Services"). wrk gives p50 and p99, not p99.9.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/service.h"

struct nginx_cfg {
	struct tb_wl_svc_cfg svc;
	int64_t workers;
	uint64_t body;
};

static const struct tb_option nginx_opts[] = {
	TB_WL_SVC_OPTS(struct nginx_cfg, "8"),
	{"workers", TB_OPT_INT, offsetof(struct nginx_cfg, workers), "1",
	 "nginx worker processes (all on the server's CPU)", 1, 64},
	{"body-size", TB_OPT_SIZE, offsetof(struct nginx_cfg, body), "0",
	 "bytes of the response: 0, a 6-byte `return 200`; else a static file this big", 0,
	 1073741824.0},
	TB_OPT_END,
};

static const char *const nginx_progs[] = {"nginx", "wrk", NULL};

static int nginx_supported(char *why, size_t len)
{
	return tb_wl_svc_supported(nginx_progs, "nginx-light wrk", why, len);
}

/* nginx.conf of this sample's server: no daemon, its files in its own directory. */
static int write_conf(const struct tb_wl_svc *s, const struct nginx_cfg *c, const char *path)
{
	FILE *f = fopen(path, "wxe");
	int ret = 0;

	if (!f)
		return -errno;
	fprintf(f,
		"daemon off;\nmaster_process on;\nworker_processes %lld;\npid %s/nginx.pid;\n"
		"error_log stderr;\nevents { worker_connections 4096; }\nhttp {\n"
		"  access_log off;\n  client_body_temp_path %s/body;\n  proxy_temp_path %s/proxy;\n"
		"  fastcgi_temp_path %s/fastcgi;\n  uwsgi_temp_path %s/uwsgi;\n"
		"  scgi_temp_path %s/scgi;\n  server {\n    listen 127.0.0.1:%d;\n",
		(long long)c->workers, s->dir, s->dir, s->dir, s->dir, s->dir, s->dir, s->port);
	if (c->body)
		fprintf(f, "    root %s/www;\n", s->dir);
	else
		fprintf(f, "    location / { return 200 \"hello\\n\"; }\n");
	fprintf(f, "  }\n}\n");
	if (ferror(f))
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* The static file of body-size bytes, when asked for. */
static int write_body(const struct tb_wl_svc *s, uint64_t size)
{
	char path[PATH_MAX];
	int fd, ret;

	if ((ret = tb_wl_svc_path(s, "www", path, sizeof(path))))
		return ret;
	if (mkdir(path, 0755))
		return -errno;
	if ((ret = tb_wl_svc_path(s, "www/index.html", path, sizeof(path))))
		return ret;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = tb_wl_fill(fd, size);
	close(fd);
	return ret;
}

/* wrk's argv for secs seconds against s. */
static void wrk_argv(const struct tb_wl_svc *s, const struct nginx_cfg *c, unsigned int secs,
		     char bufs[3][64], char *argv[10])
{
	snprintf(bufs[0], 64, "-c%lld", (long long)c->svc.connections);
	snprintf(bufs[1], 64, "-d%us", secs);
	snprintf(bufs[2], 64, "http://127.0.0.1:%d/", s->port);
	argv[0] = "wrk";
	argv[1] = "-t1";
	argv[2] = bufs[0];
	argv[3] = bufs[1];
	argv[4] = "--latency";
	argv[5] = bufs[2];
	argv[6] = NULL;
}

static int nginx_setup(struct tb_workload *w)
{
	const struct nginx_cfg *c = w->cfg;
	struct tb_wl_svc *s = calloc(1, sizeof(*s));
	char conf[PATH_MAX], bufs[3][64], *argv[10];
	int ret;

	if (!s)
		return -ENOMEM;
	w->priv = s;
	if ((ret = tb_wl_svc_init(s, w, "nginx")) ||
	    (ret = tb_wl_svc_path(s, "nginx.conf", conf, sizeof(conf))))
		return ret;
	if ((ret = write_conf(s, c, conf)) || (c->body && (ret = write_body(s, c->body)))) {
		tb_err("%s: %s: cannot write the server's files: %s", w->name, s->dir,
		       strerror(-ret));
		return ret;
	}
	/* its error log is its stderr (-e stderr before the config is read): the server's log */
	ret = tb_wl_svc_start(
		s, w, (char *[]){"nginx", "-p", s->dir, "-c", conf, "-e", "stderr", NULL}, NULL);
	if (ret)
		return ret;
	/* wrk takes whole seconds: a warm-up under half a second is none */
	if (c->svc.client_warmup >= 500000000ull) {
		wrk_argv(s, c,
			 (unsigned int)((c->svc.client_warmup + 500000000ull) / 1000000000ull),
			 bufs, argv);
		ret = tb_wl_svc_client(s, w, argv, c->svc.client_warmup * 10 + 30000000000ull, NULL,
				       NULL);
	}
	if (!ret)
		tb_wl_svc_mark(s);
	return ret;
}

static int nginx_run_batch(struct tb_workload *w, uint64_t n)
{
	struct tb_wl_svc *s = w->priv;
	char bufs[3][64], *argv[10];

	(void)n; /* one-shot: one client run */
	wrk_argv(s, w->cfg, tb_wl_svc_seconds(w), bufs, argv);
	return tb_wl_svc_measure(s, w, argv, tb_wl_svc_parse_wrk, NULL, NULL, false);
}

static int nginx_finish_batch(struct tb_workload *w)
{
	return tb_wl_svc_finish(w->priv, w);
}

static void nginx_teardown(struct tb_workload *w)
{
	if (!w->priv)
		return;
	tb_wl_svc_stop(w->priv);
	free(w->priv);
	w->priv = NULL;
}

const struct tb_workload_ops tb_workload_nginx = {
	.name = "nginx",
	.help = "nginx (nginx-light) on a loopback port, wrk in a closed loop; op = one HTTP "
		"request",
	.opts = nginx_opts,
	.cfg_size = sizeof(struct nginx_cfg),
	.flags = TB_WL_ONESHOT | TB_WL_NOLATENCY | TB_WL_COUNTED,
	.supported = nginx_supported,
	.setup = nginx_setup,
	.run_batch = nginx_run_batch,
	.finish_batch = nginx_finish_batch,
	.teardown = nginx_teardown,
	.events = tb_wl_svc_events,
	.batch_ns = tb_wl_svc_batch_ns,
};
