// SPDX-License-Identifier: GPL-2.0
/*
 * postgres: Debian's PostgreSQL server on a loopback port, driven by pgbench
 * (workloads/service.h). The op is one transaction of `script` (select-only by default: it
 * leaves the tables as they were, so samples do not drift as the tables grow). `rate` > 0 runs
 * pgbench -R: an open loop at that many transactions per second, whose latency pgbench counts
 * from each transaction's scheduled start (the per-transaction log's time plus its schedule
 * lag), so a server that falls behind shows it in the tail (coordinated omission); the p99
 * then decides under `decides = auto`. A sample is a number of transactions (-t per connection:
 * pgbench's -T takes whole seconds), sized to last the sample's duration by the warm-up's rate
 * in a closed loop (tb_wl_svc_warm_up), by `rate` in an open loop, at least
 * TB_WL_SVC_MIN_REQUESTS either way.
 *
 * The cluster is made once per run (initdb and pgbench -i in the workload's scratch directory,
 * by the first sample's setup); each sample starts its own postmaster on it (fsync off: the
 * disk is not what is measured). As root, initdb and the server run as the `postgres` system
 * user (setpriv: PostgreSQL refuses root), which owns the data directory.
 */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/service.h"

static const char *const scripts[] = {"select-only", "simple-update", "tpcb-like", NULL};

struct pg_cfg {
	struct tb_wl_svc_cfg svc;
	int script;
	int64_t scale;
	int64_t rate;
};

static const struct tb_option pg_opts[] = {
	TB_WL_SVC_OPTS(struct pg_cfg, "4"),
	{"script", TB_OPT_CHOICE, offsetof(struct pg_cfg, script), "select-only",
	 "pgbench's builtin script (-b)", 0, 0, scripts},
	{"scale", TB_OPT_INT, offsetof(struct pg_cfg, scale), "1",
	 "pgbench -i's scale factor (100,000 accounts each)", 1, 1000},
	{"rate", TB_OPT_INT, offsetof(struct pg_cfg, rate), "0",
	 "transactions per second (pgbench -R: an open loop, latency from the schedule; a sample "
	 "is rate x duration transactions, at least 2000); 0: a closed loop",
	 0, 10000000},
	TB_OPT_END,
};

/* The newest /usr/lib/postgresql/<version>/bin with initdb, postgres, pgbench, pg_isready. */
static int find_bindir(char *dir, size_t len, char *why, size_t wlen)
{
	static const char *const progs[] = {"initdb", "postgres", "pgbench", "pg_isready"};
	glob_t g;
	int ret = -ENOENT;

	snprintf(why, wlen, "needs PostgreSQL's server: apt-get install postgresql (or make deps)");
	if (glob("/usr/lib/postgresql/*/bin", 0, NULL, &g))
		return ret;
	for (size_t i = g.gl_pathc; i-- > 0 && ret;) {
		char p[PATH_MAX];
		size_t k;

		for (k = 0; k < 4; k++) {
			snprintf(p, sizeof(p), "%s/%s", g.gl_pathv[i], progs[k]);
			if (access(p, X_OK))
				break;
		}
		if (k == 4 && (size_t)snprintf(dir, len, "%s", g.gl_pathv[i]) < len)
			ret = 0;
	}
	globfree(&g);
	return ret;
}

static int pg_supported(char *why, size_t len)
{
	char dir[PATH_MAX];
	int ret = find_bindir(dir, sizeof(dir), why, len);

	if (!ret && !geteuid() && !getpwnam("postgres")) {
		snprintf(why, len, "no postgres system user (Debian's postgresql creates it)");
		return -ENOENT;
	}
	return ret;
}

struct pg_priv {
	struct tb_wl_svc s;
	char bin[PATH_MAX];
	char data[PATH_MAX]; /* the run's cluster */
	uid_t uid;
	gid_t gid;
	bool root;
	uint64_t requests; /* transactions per sample (tb_wl_svc_warm_up, open_requests) */
};

/* p->bin/prog into buf. */
static void prog(const struct pg_priv *p, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", p->bin, name);
}

/* argv (at most 24 words) as the postgres user when root (setpriv), into out. */
static void as_postgres(const struct pg_priv *p, char *const *argv, char *out[32])
{
	static char *const pre[] = {"setpriv",	      "--reuid=postgres", "--regid=postgres",
				    "--clear-groups", "--pdeathsig=KILL", "--"};
	size_t n = 0;

	if (p->root)
		for (size_t i = 0; i < 6; i++)
			out[n++] = pre[i];
	for (; *argv && n < 31; argv++)
		out[n++] = *argv;
	out[n] = NULL;
}

/* Run argv to completion in s's client cgroup; its failure said with its output. */
static int run(struct pg_priv *p, struct tb_workload *w, char *const *argv)
{
	return tb_wl_svc_client(&p->s, w, argv, 300000000000ull, NULL, NULL);
}

/* Every directory above path lets others through (the server runs as the postgres user). */
static int reachable(struct tb_workload *w, const char *path)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (!stat(dir, &st) && !(st.st_mode & S_IXOTH)) {
			tb_err("%s: %s (mode %03o) keeps the postgres user out of %s", w->name, dir,
			       (unsigned int)(st.st_mode & 0777), path);
			return -EACCES;
		}
	}
	return 0;
}

/* The run's cluster: initdb once (the first sample), owned by the server's user. */
static int cluster(struct tb_workload *w, struct pg_priv *p)
{
	char path[PATH_MAX + 16], initdb[PATH_MAX + 16], *argv[32];
	int ret;

	if ((ret = tb_wl_path(w, "pgdata", p->data, sizeof(p->data))))
		return ret;
	snprintf(path, sizeof(path), "%s/PG_VERSION", p->data);
	if (!access(path, F_OK))
		return 0;
	if (p->root && (ret = reachable(w, p->data)))
		return ret;
	if (mkdir(p->data, 0700) && errno != EEXIST)
		return -errno;
	if (p->root && chown(p->data, p->uid, p->gid))
		return -errno;
	prog(p, "initdb", initdb, sizeof(initdb));
	as_postgres(p,
		    (char *[]){initdb, "-D", p->data, "-U", "postgres", "-A", "trust", "--no-sync",
			       "-E", "UTF8", "--locale=C", NULL},
		    argv);
	ret = run(p, w, argv);
	if (ret)
		tb_err("%s: initdb of %s failed", w->name, p->data);
	return ret;
}

/* pgbench's connection words into a (7 entries) for s. */
static void conn_words(const struct pg_priv *p, char port[16], char **a)
{
	snprintf(port, 16, "%d", p->s.port);
	a[0] = "-h";
	a[1] = "127.0.0.1";
	a[2] = "-p";
	a[3] = port;
	a[4] = "-U";
	a[5] = "postgres";
	a[6] = NULL;
}

/* pgbench -i once per cluster (a marker file beside it says it is done). */
static int fill(struct tb_workload *w, struct pg_priv *p)
{
	const struct pg_cfg *c = w->cfg;
	char bench[PATH_MAX + 16], port[16], scale[24], mark[PATH_MAX + 16], *cw[7];
	FILE *f;
	int ret;

	snprintf(mark, sizeof(mark), "%s.filled", p->data);
	if (!access(mark, F_OK))
		return 0;
	prog(p, "pgbench", bench, sizeof(bench));
	conn_words(p, port, cw);
	snprintf(scale, sizeof(scale), "%lld", (long long)c->scale);
	ret = run(p, w,
		  (char *[]){bench, "-i", "-q", "-s", scale, cw[0], cw[1], cw[2], cw[3], cw[4],
			     cw[5], "postgres", NULL});
	if (ret)
		return ret;
	f = fopen(mark, "wxe");
	if (!f)
		return -errno;
	fclose(f);
	return 0;
}

/*
 * pgbench's argv into a for per_client transactions per connection (-t: pgbench's -T takes
 * whole seconds): the timed run (timed) with the rate (-R) and its per-transaction log (-l) in
 * the sample's directory, else a warm-up run in a closed loop without a log.
 */
static void bench_argv(const struct pg_priv *p, const struct pg_cfg *c, uint64_t per_client,
		       bool timed, char bufs[6][PATH_MAX + 32], char *a[32])
{
	size_t n = 0;

	prog(p, "pgbench", bufs[0], sizeof(bufs[0]));
	a[n++] = bufs[0];
	a[n++] = "-n"; /* no vacuum: pgbench -i's tables are fresh */
	a[n++] = "-b";
	a[n++] = (char *)scripts[c->script];
	snprintf(bufs[1], sizeof(bufs[1]), "-c%lld", (long long)c->svc.connections);
	a[n++] = bufs[1];
	a[n++] = "-j1";
	snprintf(bufs[2], sizeof(bufs[2]), "-t%llu", (unsigned long long)per_client);
	a[n++] = bufs[2];
	if (timed && c->rate) {
		snprintf(bufs[3], sizeof(bufs[3]), "-R%lld", (long long)c->rate);
		a[n++] = bufs[3];
	}
	if (timed) {
		snprintf(bufs[4], sizeof(bufs[4]), "--log-prefix=%s/pgbench", p->s.dir);
		a[n++] = "-l";
		a[n++] = bufs[4];
	}
	conn_words(p, bufs[5], a + n);
	n += 6;
	a[n++] = "postgres";
	a[n] = NULL;
}

/* n transactions as whole transactions per connection (-t), at least n in all. */
static uint64_t per_client(const struct pg_cfg *c, uint64_t n)
{
	uint64_t conns = (uint64_t)c->svc.connections;

	return (n + conns - 1) / conns;
}

/* The transactions of a sample in an open loop: its duration at the rate, at least the minimum
 * (tb_wl_svc_requests). */
static uint64_t open_requests(const struct pg_cfg *c, uint64_t duration_ns)
{
	return tb_wl_svc_requests((double)c->rate, duration_ns);
}

/* One warm-up run of n transactions (tb_wl_svc_warm_up). */
static int warm_run(struct tb_workload *w, uint64_t n, struct tb_wl_svc_figs *f)
{
	struct pg_priv *p = w->priv;
	char bufs[6][PATH_MAX + 32], *argv[32];

	bench_argv(p, w->cfg, per_client(w->cfg, n), false, bufs, argv);
	return tb_wl_svc_client(&p->s, w, argv, 300000000000ull, tb_wl_svc_parse_pgbench, f);
}

/*
 * The previous sample's postmaster is killed with its workload process (runner/child.c kills
 * it after its figures; the cgroup goes with it, removed once every task in it exited) and can
 * linger as a zombie until init reaps it (up to a second and more here), which the new
 * server's lock check would take for a live postmaster: wait (at most 5 s) until it is gone or
 * a zombie (which holds no memory, socket or file), then remove its postmaster.pid. The
 * cluster is this run's alone.
 */
static int stale_lock(struct tb_workload *w, const struct pg_priv *p)
{
	char path[PATH_MAX + 32], line[32] = "";
	struct timespec nap = {0, 10000000};
	uint64_t t0 = tb_now_ns();
	long pid;

	snprintf(path, sizeof(path), "%s/postmaster.pid", p->data);
	if (tb_read_line(path, line, sizeof(line)))
		return 0;
	pid = strtol(line, NULL, 10);
	while (pid > 0 && !kill((pid_t)pid, 0) && !tb_proc_zombie((pid_t)pid)) {
		if (tb_now_ns() - t0 > 5000000000ull) {
			tb_err("%s: %s: postmaster %ld still running", w->name, p->data, pid);
			return -EBUSY;
		}
		nanosleep(&nap, NULL);
	}
	tb_debug("%s: the previous postmaster %ld gone after %.0f ms", w->name, pid,
		 (double)(tb_now_ns() - t0) / 1e6);
	return unlink(path) && errno != ENOENT ? -errno : 0;
}

static int pg_setup(struct tb_workload *w)
{
	const struct pg_cfg *c = w->cfg;
	struct pg_priv *p = calloc(1, sizeof(*p));
	char why[256], server[PATH_MAX + 16], ready[PATH_MAX + 16], port[16], *argv[32];
	struct passwd *pw;
	int ret;

	if (!p)
		return -ENOMEM;
	w->priv = p;
	p->root = !geteuid();
	if (p->root) {
		if (!(pw = getpwnam("postgres")))
			return -ENOENT;
		p->uid = pw->pw_uid;
		p->gid = pw->pw_gid;
	}
	if ((ret = find_bindir(p->bin, sizeof(p->bin), why, sizeof(why)))) {
		tb_err("%s: %s", w->name, why);
		return ret;
	}
	if ((ret = tb_wl_svc_init(&p->s, w, "postgres")) || (ret = cluster(w, p)) ||
	    (ret = stale_lock(w, p)))
		return ret;
	/* the server makes its socket and lock files in the sample's directory */
	if (p->root && chown(p->s.dir, p->uid, p->gid))
		return -errno;
	prog(p, "postgres", server, sizeof(server));
	prog(p, "pg_isready", ready, sizeof(ready));
	snprintf(port, sizeof(port), "%d", p->s.port);
	as_postgres(p,
		    (char *[]){server, "-D", p->data, "-k", p->s.dir, "-h", "127.0.0.1", "-p", port,
			       "-c", "fsync=off", "-c", "synchronous_commit=off", "-c",
			       "full_page_writes=off", "-c", "max_connections=200", NULL},
		    argv);
	ret = tb_wl_svc_start(&p->s, w, argv,
			      (char *[]){ready, "-q", "-h", "127.0.0.1", "-p", port, "-U",
					 "postgres", "-d", "postgres", NULL});
	if (!ret)
		ret = fill(w, p);
	/* its rate sizes a closed loop's sample; an open loop's is its rate's */
	if (!ret)
		ret = tb_wl_svc_warm_up(w, warm_run, &p->requests);
	if (!ret && c->rate)
		p->requests = open_requests(c, w->duration_ns);
	if (!ret)
		tb_wl_svc_mark(&p->s);
	return ret;
}

static int pg_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct pg_cfg *c = w->cfg;
	struct pg_priv *p = w->priv;
	char bufs[6][PATH_MAX + 32], *argv[32], log[PATH_MAX];
	int ret;

	(void)n;
	if ((ret = tb_wl_svc_path(&p->s, "pgbench.*", log, sizeof(log))))
		return ret;
	bench_argv(p, c, per_client(c, p->requests), true, bufs, argv);
	return tb_wl_svc_measure(&p->s, w, argv, tb_wl_svc_parse_pgbench, log,
				 tb_wl_svc_parse_pgbench_log, c->rate > 0);
}

static int pg_finish_batch(struct tb_workload *w)
{
	struct pg_priv *p = w->priv;

	return tb_wl_svc_finish(&p->s, w);
}

static void pg_teardown(struct tb_workload *w)
{
	struct pg_priv *p = w->priv;

	if (!p)
		return;
	tb_wl_svc_stop(&p->s); /* SIGKILL: fsync is off, the cluster is the run's own */
	free(p);
	w->priv = NULL;
}

/* An open loop's sample lasts its transactions at its rate: at least the minimum's. */
static uint64_t pg_batch_ns(const void *cfg, uint64_t duration_ns)
{
	const struct pg_cfg *c = cfg;

	if (!c->rate)
		return duration_ns;
	return (uint64_t)ceil((double)open_requests(c, duration_ns) / (double)c->rate * 1e9);
}

/* A postmaster answers pg_isready 250-450 ms after its start here (-v says each sample's) */
static uint64_t pg_setup_ns(const void *cfg, uint64_t duration_ns)
{
	const struct pg_cfg *c = cfg;

	return tb_wl_svc_setup_ns(&c->svc, duration_ns, 350000000ull);
}

const struct tb_workload_ops tb_workload_postgres = {
	.name = "postgres",
	.help = "PostgreSQL on a loopback port, pgbench in a closed loop or at a fixed rate "
		"(rate); op = one transaction",
	.opts = pg_opts,
	.cfg_size = sizeof(struct pg_cfg),
	.flags = TB_WL_SVC_FLAGS,
	.supported = pg_supported,
	.setup = pg_setup,
	.run_batch = pg_run_batch,
	.finish_batch = pg_finish_batch,
	.teardown = pg_teardown,
	.events = tb_wl_svc_events,
	.batch_ns = pg_batch_ns,
	.setup_ns = pg_setup_ns,
};
