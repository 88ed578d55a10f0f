// SPDX-License-Identifier: GPL-2.0
/*
 * nginx: Debian's nginx-light serving one small response on a loopback port, driven in a closed
 * loop (workloads/service.h: a fresh server per sample, on the workload's CPU; the client on
 * another). The op is one HTTP request. The client (`client`) is h2load over HTTP/1.1 by
 * default: a sample is a number of requests (-n) sized from the warm-up's rate to last the
 * sample's duration, so it holds any duration (wrk's -d takes whole seconds), and its
 * per-request log (--log-file) gives p50, p99 and p99.9 by nearest rank. wrk is the other
 * choice: a lighter client per request (no log to write), whole seconds only, p50 and p99 from
 * its histogram. Neither runs an open loop with a tail to read: wrk 4.1 has no fixed-rate mode
 * (wrk2, which has, is not packaged) and h2load's --rps times a request from its send, not from
 * when it was due (a request made due while the streams are busy waits for a later tick), so
 * closed loop only (METHODOLOGY.md "Services").
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

static const char *const clients[] = {"h2load", "wrk", NULL};
enum { CLIENT_H2LOAD, CLIENT_WRK };

struct nginx_cfg {
	struct tb_wl_svc_cfg svc;
	int client;
	int64_t workers;
	uint64_t body;
};

static const struct tb_option nginx_opts[] = {
	TB_WL_SVC_OPTS(struct nginx_cfg, "8"),
	{"client", TB_OPT_CHOICE, offsetof(struct nginx_cfg, client), "h2load",
	 "the load generator: h2load (--h1; requests sized to the sample's duration; p50, p99, "
	 "p99.9 from its per-request log) or wrk (fewer syscalls per request; whole seconds; p50 "
	 "and p99)",
	 0, 0, clients},
	{"workers", TB_OPT_INT, offsetof(struct nginx_cfg, workers), "1",
	 "nginx worker processes (all on the server's CPU)", 1, 64},
	{"body-size", TB_OPT_SIZE, offsetof(struct nginx_cfg, body), "0",
	 "bytes of the response: 0, a 6-byte `return 200`; else a static file this big", 0,
	 1073741824.0},
	TB_OPT_END,
};

static const char *const nginx_progs[] = {"nginx", "h2load", NULL};

/* nginx and the default client; wrk, the other, is checked when a section chooses it */
static int nginx_supported(char *why, size_t len)
{
	return tb_wl_svc_supported(nginx_progs, "nginx-light nghttp2-client", why, len);
}

static int nginx_validate(const void *cfg, char *err, size_t len)
{
	static const char *const wrk[] = {"wrk", NULL};
	const struct nginx_cfg *c = cfg;
	char why[128];

	if (c->client == CLIENT_WRK && tb_wl_svc_supported(wrk, "wrk", why, sizeof(why))) {
		snprintf(err, len, "client: %s", why);
		return -EINVAL;
	}
	return 0;
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

/* h2load's argv for n requests against s, its per-request log into log (NULL: none). */
static void h2load_argv(const struct tb_wl_svc *s, const struct nginx_cfg *c, uint64_t n,
			const char *log, char bufs[4][PATH_MAX + 16], char *argv[10])
{
	size_t k = 0;

	snprintf(bufs[0], sizeof(bufs[0]), "-c%lld", (long long)c->svc.connections);
	snprintf(bufs[1], sizeof(bufs[1]), "-n%llu", (unsigned long long)n);
	snprintf(bufs[2], sizeof(bufs[2]), "http://127.0.0.1:%d/", s->port);
	argv[k++] = "h2load";
	argv[k++] = "--h1";
	argv[k++] = "-t1";
	argv[k++] = bufs[0];
	argv[k++] = bufs[1];
	if (log) {
		snprintf(bufs[3], sizeof(bufs[3]), "--log-file=%s", log);
		argv[k++] = bufs[3];
	}
	argv[k++] = bufs[2];
	argv[k] = NULL;
}

struct nginx_priv {
	struct tb_wl_svc s;
	uint64_t requests; /* per sample (h2load) */
	char log[PATH_MAX];
};

/* One warm-up run of n requests with h2load (tb_wl_svc_warm_up). */
static int warm_run(struct tb_workload *w, uint64_t n, struct tb_wl_svc_figs *f)
{
	struct nginx_priv *p = w->priv;
	char bufs[4][PATH_MAX + 16], *argv[10];

	h2load_argv(&p->s, w->cfg, n, NULL, bufs, argv);
	return tb_wl_svc_client(&p->s, w, argv, 60000000000ull, tb_wl_svc_parse_h2load, f);
}

/* wrk's warm-up in whole seconds: none under half a second (it needs no rate) */
static uint64_t wrk_warm_ns(const struct nginx_cfg *c, uint64_t duration_ns)
{
	uint64_t warm = tb_wl_svc_warm_ns(&c->svc, duration_ns);

	return warm < 500000000ull ? 0 : tb_wl_svc_whole_seconds_ns(warm);
}

static int wrk_warm_up(struct tb_workload *w, struct tb_wl_svc *s, const struct nginx_cfg *c)
{
	uint64_t warm = wrk_warm_ns(c, w->duration_ns);
	char bufs[3][64], *argv[10];

	if (!warm)
		return 0;
	wrk_argv(s, c, (unsigned int)(warm / 1000000000ull), bufs, argv);
	return tb_wl_svc_client(s, w, argv, warm * 10 + 30000000000ull, NULL, NULL);
}

static int nginx_setup(struct tb_workload *w)
{
	const struct nginx_cfg *c = w->cfg;
	struct nginx_priv *p = calloc(1, sizeof(*p));
	struct tb_wl_svc *s;
	char conf[PATH_MAX];
	int ret;

	if (!p)
		return -ENOMEM;
	w->priv = p;
	s = &p->s;
	if ((ret = tb_wl_svc_init(s, w, "nginx")) ||
	    (ret = tb_wl_svc_path(s, "nginx.conf", conf, sizeof(conf))) ||
	    (ret = tb_wl_svc_path(s, "h2load.log", p->log, sizeof(p->log))))
		return ret;
	if ((ret = write_conf(s, c, conf)) || (c->body && (ret = write_body(s, c->body)))) {
		tb_err("%s: %s: cannot write the server's files: %s", w->name, s->dir,
		       strerror(-ret));
		return ret;
	}
	/* its error log is its stderr (-e stderr before the config is read): the server's log */
	ret = tb_wl_svc_start(
		s, w, (char *[]){"nginx", "-p", s->dir, "-c", conf, "-e", "stderr", NULL}, NULL);
	if (!ret)
		ret = c->client == CLIENT_WRK ? wrk_warm_up(w, s, c)
					      : tb_wl_svc_warm_up(w, warm_run, &p->requests);
	if (!ret)
		tb_wl_svc_mark(s);
	return ret;
}

static int nginx_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct nginx_cfg *c = w->cfg;
	struct nginx_priv *p = w->priv;
	char bufs[4][PATH_MAX + 16], wbufs[3][64], *argv[10];

	(void)n; /* one-shot: one client run */
	if (c->client == CLIENT_WRK) {
		wrk_argv(&p->s, c, tb_wl_svc_seconds(w), wbufs, argv);
		return tb_wl_svc_measure(&p->s, w, argv, tb_wl_svc_parse_wrk, NULL, NULL, false);
	}
	unlink(p->log); /* h2load appends to its log */
	h2load_argv(&p->s, c, p->requests, p->log, bufs, argv);
	return tb_wl_svc_measure(&p->s, w, argv, tb_wl_svc_parse_h2load, p->log,
				 tb_wl_svc_parse_h2load_log, false);
}

static int nginx_finish_batch(struct tb_workload *w)
{
	struct nginx_priv *p = w->priv;

	return tb_wl_svc_finish(&p->s, w);
}

static void nginx_teardown(struct tb_workload *w)
{
	struct nginx_priv *p = w->priv;

	if (!p)
		return;
	tb_wl_svc_stop(&p->s);
	free(p);
	w->priv = NULL;
}

/* wrk takes whole seconds; h2load's requests are sized to the duration */
static uint64_t nginx_batch_ns(const void *cfg, uint64_t duration_ns)
{
	const struct nginx_cfg *c = cfg;

	return c->client == CLIENT_WRK ? tb_wl_svc_whole_seconds_ns(duration_ns) : duration_ns;
}

/* nginx answers within 30-50 ms here (-v says each sample's); wrk's warm-up takes whole seconds */
static uint64_t nginx_setup_ns(const void *cfg, uint64_t duration_ns)
{
	const struct nginx_cfg *c = cfg;

	if (c->client == CLIENT_WRK)
		return 50000000ull + wrk_warm_ns(c, duration_ns);
	return tb_wl_svc_setup_ns(&c->svc, duration_ns, 50000000ull);
}

const struct tb_workload_ops tb_workload_nginx = {
	.name = "nginx",
	.help = "nginx (nginx-light) on a loopback port, h2load (or wrk) in a closed loop; op = "
		"one HTTP request",
	.opts = nginx_opts,
	.cfg_size = sizeof(struct nginx_cfg),
	.flags = TB_WL_SVC_FLAGS,
	.supported = nginx_supported,
	.validate = nginx_validate,
	.setup = nginx_setup,
	.run_batch = nginx_run_batch,
	.finish_batch = nginx_finish_batch,
	.teardown = nginx_teardown,
	.events = tb_wl_svc_events,
	.batch_ns = nginx_batch_ns,
	.setup_ns = nginx_setup_ns,
};
