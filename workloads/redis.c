// SPDX-License-Identifier: GPL-2.0
/*
 * redis: Debian's redis-server (no persistence) on a loopback port, driven by redis-benchmark
 * in a closed loop (workloads/service.h). The op is one command (`test`, GET by default).
 * redis-benchmark 7.0 has no fixed-rate mode and no duration: a sample is a fixed number of
 * requests, sized in setup from the rate of the warm-up (tb_wl_svc_warm_up) to last the sample's
 * duration, at least TB_WL_SVC_MIN_REQUESTS (`requests` fixes it instead), so its ops are its
 * requests and its wall time what they took.
 * Closed loop only (METHODOLOGY.md "Services").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/common.h"
#include "workloads/service.h"

static const char *const tests[] = {"get", "set", "ping_inline", "incr", "lpush", NULL};

struct redis_cfg {
	struct tb_wl_svc_cfg svc;
	int test;
	int64_t requests;
	int64_t pipeline;
	uint64_t data_size;
};

static const struct tb_option redis_opts[] = {
	TB_WL_SVC_OPTS(struct redis_cfg, "8"),
	{"test", TB_OPT_CHOICE, offsetof(struct redis_cfg, test), "get",
	 "the command redis-benchmark sends (-t)", 0, 0, tests},
	{"requests", TB_OPT_INT, offsetof(struct redis_cfg, requests), "0",
	 "requests per sample; 0: sized from the warm-up's rate to last the sample's duration "
	 "(at least 2000)",
	 0, 1e12},
	{"pipeline", TB_OPT_INT, offsetof(struct redis_cfg, pipeline), "1",
	 "requests in flight per connection (-P)", 1, 1000},
	{"data-size", TB_OPT_SIZE, offsetof(struct redis_cfg, data_size), "3",
	 "bytes of a SET/GET value (-d)", 1, 1048576},
	TB_OPT_END,
};

static const char *const redis_progs[] = {"redis-server", "redis-benchmark", NULL};

static int redis_supported(char *why, size_t len)
{
	return tb_wl_svc_supported(redis_progs, "redis-server redis-tools", why, len);
}

struct redis_priv {
	struct tb_wl_svc s;
	uint64_t requests; /* per sample */
};

/* redis-benchmark's argv for n requests. */
static void bench_argv(const struct redis_priv *p, const struct redis_cfg *c, uint64_t n,
		       char bufs[5][32], char *argv[16])
{
	snprintf(bufs[0], 32, "%d", p->s.port);
	snprintf(bufs[1], 32, "%llu", (unsigned long long)n);
	snprintf(bufs[2], 32, "%lld", (long long)c->svc.connections);
	snprintf(bufs[3], 32, "%lld", (long long)c->pipeline);
	snprintf(bufs[4], 32, "%llu", (unsigned long long)c->data_size);
	char *a[] = {"redis-benchmark",
		     "-h",
		     "127.0.0.1",
		     "-p",
		     bufs[0],
		     "-n",
		     bufs[1],
		     "-c",
		     bufs[2],
		     "-P",
		     bufs[3],
		     "-d",
		     bufs[4],
		     "-t",
		     (char *)tests[c->test],
		     NULL};
	memcpy(argv, a, sizeof(a));
}

/* One warm-up run of n requests (tb_wl_svc_warm_up). */
static int warm_run(struct tb_workload *w, uint64_t n, struct tb_wl_svc_figs *f)
{
	struct redis_priv *p = w->priv;
	char bufs[5][32], *argv[16];

	bench_argv(p, w->cfg, n, bufs, argv);
	return tb_wl_svc_client(&p->s, w, argv, 60000000000ull, tb_wl_svc_parse_redis, f);
}

static int redis_setup(struct tb_workload *w)
{
	const struct redis_cfg *c = w->cfg;
	struct redis_priv *p = calloc(1, sizeof(*p));
	char port[16];
	int ret;

	if (!p)
		return -ENOMEM;
	w->priv = p;
	if ((ret = tb_wl_svc_init(&p->s, w, "redis")))
		return ret;
	snprintf(port, sizeof(port), "%d", p->s.port);
	ret = tb_wl_svc_start(&p->s, w,
			      (char *[]){"redis-server", "--port", port, "--bind", "127.0.0.1",
					 "--save", "", "--appendonly", "no", "--dir", p->s.dir,
					 "--daemonize", "no", "--logfile", "", NULL},
			      NULL);
	if (!ret)
		ret = tb_wl_svc_warm_up(w, warm_run, &p->requests);
	if (!ret && c->requests)
		p->requests = (uint64_t)c->requests;
	if (!ret)
		tb_wl_svc_mark(&p->s);
	return ret;
}

static int redis_run_batch(struct tb_workload *w, uint64_t n)
{
	struct redis_priv *p = w->priv;
	char bufs[5][32], *argv[16];

	(void)n;
	bench_argv(p, w->cfg, p->requests, bufs, argv);
	return tb_wl_svc_measure(&p->s, w, argv, tb_wl_svc_parse_redis, NULL, NULL, false);
}

static int redis_finish_batch(struct tb_workload *w)
{
	struct redis_priv *p = w->priv;

	return tb_wl_svc_finish(&p->s, w);
}

static void redis_teardown(struct tb_workload *w)
{
	struct redis_priv *p = w->priv;

	if (!p)
		return;
	tb_wl_svc_stop(&p->s);
	free(p);
	w->priv = NULL;
}

/* redis-server answers within 30-60 ms here (-v says each sample's) */
static uint64_t redis_setup_ns(const void *cfg, uint64_t duration_ns)
{
	const struct redis_cfg *c = cfg;

	return tb_wl_svc_setup_ns(&c->svc, duration_ns, 50000000ull);
}

const struct tb_workload_ops tb_workload_redis = {
	.name = "redis",
	.help = "redis-server on a loopback port, redis-benchmark in a closed loop; op = one "
		"command",
	.opts = redis_opts,
	.cfg_size = sizeof(struct redis_cfg),
	.flags = TB_WL_SVC_FLAGS,
	.supported = redis_supported,
	.setup = redis_setup,
	.run_batch = redis_run_batch,
	.finish_batch = redis_finish_batch,
	.teardown = redis_teardown,
	.events = tb_wl_svc_events,
	.setup_ns = redis_setup_ns,
};
