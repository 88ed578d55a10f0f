// SPDX-License-Identifier: GPL-2.0
/*
 * The service runner (service.h). The server inherits the workload thread's CPU (the plan's
 * workload CPU); the client is started with the thread's affinity switched to the client CPU
 * for the fork (a child keeps its parent's mask) and switched back, so nothing of ours runs on
 * the server's CPU but the workload process itself, parked in a wait while the client runs.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workloads/common.h"
#include "workloads/service.h"

const char *const tb_wl_svc_decides[] = {"auto", "throughput", "p50", "p99", NULL};

#define CLIENT_OUT_MAX (16u << 20)
#define LOG_TAIL       1200

int tb_wl_svc_supported(const char *const *progs, const char *pkg, char *why, size_t len)
{
	char path[PATH_MAX];

	for (; *progs; progs++)
		if (**progs == '/' ? access(*progs, X_OK)
				   : tb_proc_which(*progs, path, sizeof(path))) {
			snprintf(why, len, "needs %s: apt-get install %s (or make deps)", *progs,
				 pkg);
			return -ENOENT;
		}
	return 0;
}

/* A loopback port nothing listens on now: bind port 0 and read what the kernel gave. */
static int free_port(int *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen))
		ret = -errno;
	else
		*port = ntohs(a.sin_port);
	close(fd);
	return ret;
}

int tb_wl_svc_path(const struct tb_wl_svc *s, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", s->dir, name);

	if (n < 0 || (size_t)n >= len) {
		tb_err("%s/%s: path too long", s->dir, name);
		return -ENAMETOOLONG;
	}
	return 0;
}

int tb_wl_svc_init(struct tb_wl_svc *s, struct tb_workload *w, const char *tag)
{
	char why[256], cgtag[80];
	int ret, n = get_nprocs();

	memset(s, 0, sizeof(*s));
	s->t_init = tb_now_ns();
	s->cg = s->client_cg = (struct tb_cgroup)TB_CGROUP_INIT;
	s->server_cpu = s->client_cpu = -1;
	if ((size_t)snprintf(s->dir, sizeof(s->dir), "%s/%s-%d-%u", w->tmpdir, tag, (int)getpid(),
			     w->thread) >= sizeof(s->dir))
		return -ENAMETOOLONG;
	if (mkdir(s->dir, 0755) && errno != EEXIST) {
		ret = -errno;
		tb_err("%s: %s: cannot make the server's directory: %s", w->name, s->dir,
		       strerror(errno));
		return ret;
	}
	if ((ret = tb_wl_svc_path(s, "server.log", s->log, sizeof(s->log))) ||
	    (ret = tb_wl_svc_path(s, "client.out", s->out, sizeof(s->out))))
		return ret;
	if (tb_cgroup_supported(why, sizeof(why))) {
		tb_err("%s: a service needs a cgroup of its own to be accounted and stopped: %s",
		       w->name, why);
		return -EOPNOTSUPP;
	}
	/* named by the section, as a command workload's: a test finds its own */
	snprintf(cgtag, sizeof(cgtag), "%.56s-srv", w->name);
	if ((ret = tb_cgroup_create(&s->cg, cgtag)))
		return ret;
	snprintf(cgtag, sizeof(cgtag), "%.56s-cli", w->name);
	if ((ret = tb_cgroup_create(&s->client_cg, cgtag)))
		return ret;
	s->server_cpu = w->cpu;
	for (int c = 0; w->cpu >= 0 && c < n && s->client_cpu < 0; c++)
		if (c != w->cpu)
			s->client_cpu = c;
	if (w->cpu >= 0 && s->client_cpu < 0)
		tb_warn("%s: one CPU only: the client shares the server's CPU %d", w->name, w->cpu);
	ret = free_port(&s->port);
	if (ret)
		tb_err("%s: no free loopback port: %s", w->name, strerror(-ret));
	return ret;
}

/* The last lines of the server's log, said after what failed. */
static void log_tail(const struct tb_workload *w, const char *what, const char *path)
{
	char *text = NULL;

	if (!tb_read_part(path, 0, LOG_TAIL, true, &text) && text && *text)
		tb_err("%s: the last lines of %s (%s):\n%s", w->name, what, path, text);
	else
		tb_err("%s: %s (%s) is empty", w->name, what, path);
	free(text);
}

/* A TCP connect to the port succeeds. */
static bool answers(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = !connect(fd, (struct sockaddr *)&a, sizeof(a));
	close(fd);
	return ok;
}

/* ready_argv run to completion (its output in out): exit 0 means ready. */
static bool ready_by(char *const *argv, const char *out)
{
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	struct tb_proc p;
	bool ok;

	o.out_path = out;
	o.flags = TB_PROC_NULLIN;
	if (tb_proc_spawn_opts(&p, argv, &o))
		return false;
	if (tb_proc_wait(&p, 5000000000ull))
		tb_proc_stop(&p, SIGKILL, 100000000ull);
	ok = p.reaped && WIFEXITED(p.status) && !WEXITSTATUS(p.status);
	tb_proc_release(&p);
	return ok;
}

int tb_wl_svc_start(struct tb_wl_svc *s, struct tb_workload *w, char *const *argv,
		    char *const *ready_argv)
{
	const struct tb_wl_svc_cfg *c = w->cfg;
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	struct timespec nap = {0, 10000000};
	uint64_t t0 = tb_now_ns();
	char st[64], rlog[PATH_MAX];
	int ret;

	if ((ret = tb_wl_svc_path(s, "ready.out", rlog, sizeof(rlog))))
		return ret;
	o.out_path = s->log;
	o.out_max = CLIENT_OUT_MAX;
	o.flags = TB_PROC_NULLIN;
	tb_cgroup_spawn_opts(&s->cg, &o);
	ret = tb_proc_spawn_opts(&s->server, argv, &o);
	if (ret) {
		tb_err("%s: cannot start %s: %s", w->name, argv[0], strerror(-ret));
		return ret;
	}
	s->running = true;
	w->target_pid = s->server.pid; /* the tracer's {pid} and pid filter: the server */
	for (;;) {
		if (tb_proc_poll(&s->server)) {		 /* released by tb_wl_svc_stop */
			tb_proc_output_done(&s->server); /* its last words in the log */
			tb_err("%s: %s %s before it answered on port %d", w->name, argv[0],
			       tb_proc_status_str(s->server.status, st, sizeof(st)), s->port);
			log_tail(w, "its log", s->log);
			return -ECHILD;
		}
		if (ready_argv ? ready_by(ready_argv, rlog) : answers(s->port)) {
			s->t_up = tb_now_ns();
			return 0;
		}
		if (tb_now_ns() - t0 > c->ready_timeout || tb_stop_requested()) {
			tb_err("%s: %s did not answer on port %d within %.1f s", w->name, argv[0],
			       s->port, (double)c->ready_timeout / 1e9);
			log_tail(w, "its log", s->log);
			return -ETIMEDOUT;
		}
		nanosleep(&nap, NULL);
	}
}

/* Spawn argv with the calling thread moved to cpu for the fork (-1: as it is). */
static int spawn_on(struct tb_proc *p, char *const *argv, const struct tb_proc_opts *o, int cpu)
{
	cpu_set_t old, set;
	bool moved = false;
	int ret;

	if (cpu >= 0 && !sched_getaffinity(0, sizeof(old), &old)) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		moved = !sched_setaffinity(0, sizeof(set), &set);
	}
	ret = tb_proc_spawn_opts(p, argv, o);
	if (moved)
		sched_setaffinity(0, sizeof(old), &old);
	return ret;
}

/* The client's output parsed; on failure its message and last output said. */
static int parse_output(struct tb_workload *w, const char *path, const char *what,
			tb_wl_svc_parse_fn parse, struct tb_wl_svc_figs *f)
{
	char *text = NULL, err[256] = "";
	int ret = tb_read_regular(path, 64u << 20, &text, NULL);

	if (ret) {
		tb_err("%s: reading %s %s: %s", w->name, what, path, strerror(-ret));
		return ret;
	}
	ret = parse(text, f, err, sizeof(err));
	free(text);
	if (ret) {
		tb_err("%s: %s", w->name, err);
		log_tail(w, what, path);
	}
	return ret;
}

/* The one file matching pattern (a client's log named by its pid), parsed. */
static int parse_log_glob(struct tb_workload *w, const char *pattern, tb_wl_svc_parse_fn parse,
			  struct tb_wl_svc_figs *f)
{
	glob_t g;
	int ret;

	if (glob(pattern, 0, NULL, &g) || g.gl_pathc != 1) {
		tb_err("%s: the client's log: %zu files match %s, not one", w->name,
		       (size_t)g.gl_pathc, pattern);
		globfree(&g);
		return -ENOENT;
	}
	ret = parse_output(w, g.gl_pathv[0], "the client's log", parse, f);
	unlink(g.gl_pathv[0]); /* the next sample writes its own */
	globfree(&g);
	return ret;
}

int tb_wl_svc_client(struct tb_wl_svc *s, struct tb_workload *w, char *const *argv,
		     uint64_t timeout_ns, tb_wl_svc_parse_fn parse, struct tb_wl_svc_figs *f)
{
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	struct tb_proc p;
	char st[64];
	int ret;

	unlink(s->out); /* tb_proc_spawn appends */
	o.out_path = s->out;
	o.out_max = CLIENT_OUT_MAX;
	o.flags = TB_PROC_NULLIN;
	tb_cgroup_spawn_opts(&s->client_cg, &o);
	ret = spawn_on(&p, argv, &o, s->client_cpu);
	if (ret) {
		tb_err("%s: cannot run the client %s: %s", w->name, argv[0], strerror(-ret));
		return ret;
	}
	if (tb_proc_wait(&p, timeout_ns)) { /* timeout_ns 0: blocks */
		tb_proc_stop(&p, SIGTERM, 1000000000ull);
		tb_err("%s: the client %s did not finish within %.1f s and was stopped", w->name,
		       argv[0], (double)timeout_ns / 1e9);
		tb_proc_release(&p);
		return -ETIMEDOUT;
	}
	tb_proc_output_done(&p);
	w->exit_status = p.status;
	tb_proc_release(&p);
	tb_cgroup_kill(&s->client_cg);
	if (!WIFEXITED(w->exit_status) || WEXITSTATUS(w->exit_status)) {
		tb_err("%s: the client %s %s", w->name, argv[0],
		       tb_proc_status_str(w->exit_status, st, sizeof(st)));
		log_tail(w, "its output", s->out);
		return -ECHILD;
	}
	w->exit_status = 0;
	return parse ? parse_output(w, s->out, "the client's output", parse, f) : 0;
}

/* Sum the context switches of every thread in the server's cgroup now; -1 unknown. */
static int64_t server_ctxsw(const struct tb_wl_svc *s)
{
	char path[PATH_MAX + 32], line[128];
	FILE *tids, *st;
	int64_t sum = 0, v;
	long tid;

	snprintf(path, sizeof(path), "%s/cgroup.threads", s->cg.path);
	tids = fopen(path, "re");
	if (!tids)
		return -1;
	while (fscanf(tids, "%ld", &tid) == 1) {
		snprintf(path, sizeof(path), "/proc/%ld/status", tid);
		if (!(st = fopen(path, "re")))
			continue; /* gone meanwhile */
		while (fgets(line, sizeof(line), st))
			if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
			    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
				sum += v;
		fclose(st);
	}
	fclose(tids);
	return sum;
}

/* What decides the cell's verdict under the workload's `decides`. */
static const char *deciding(const struct tb_wl_svc_cfg *c, bool open)
{
	if (c->decides == TB_WL_SVC_DECIDES_AUTO)
		return open ? "p99" : "throughput";
	return tb_wl_svc_decides[c->decides];
}

void tb_wl_svc_mark(struct tb_wl_svc *s)
{
	int64_t mem;

	if (s->t_up) { /* the end of setup, once: what the plan's estimate charges */
		tb_debug("%s: server up in %.0f ms, warmed up in %.0f ms more", s->dir,
			 (double)(s->t_up - s->t_init) / 1e6,
			 (double)(tb_now_ns() - s->t_up) / 1e6);
		s->t_up = 0;
	}

	tb_cgroup_usage(&s->cg, &s->cpu0, &mem);
	s->sw0 = server_ctxsw(s);
}

int tb_wl_svc_measure(struct tb_wl_svc *s, struct tb_workload *w, char *const *argv,
		      tb_wl_svc_parse_fn parse, const char *log, tb_wl_svc_parse_fn parse_log,
		      bool open)
{
	int ret;

	s->parse = parse;
	s->parse_log = parse_log;
	s->open = open;
	snprintf(s->log_glob, sizeof(s->log_glob), "%s", log ? log : "");
	/* A blocking wait: a poll would wake on the server's CPU and see the end up to 20 ms late,
	 * inside the timed window; a hung client is the harness's sample timeout's to stop. */
	ret = tb_wl_svc_client(s, w, argv, 0, NULL, NULL);
	s->measured = !ret;
	return ret;
}

int tb_wl_svc_finish(struct tb_wl_svc *s, struct tb_workload *w)
{
	struct tb_wl_svc_figs f;
	double cpu0 = s->cpu0;
	int64_t sw0 = s->sw0;
	int ret;

	if (!s->measured) {
		tb_err("%s: no client run to finish", w->name);
		return -EINVAL;
	}
	s->measured = false;
	tb_wl_svc_mark(s);
	ret = parse_output(w, s->out, "the client's output", s->parse, &f);
	if (!ret && s->log_glob[0])
		ret = parse_log_glob(w, s->log_glob, s->parse_log, &f);
	if (ret)
		return ret;
	if (!f.requests) {
		tb_err("%s: the client completed no request", w->name);
		return -ENODATA;
	}
	w->ops_done = f.requests;
	w->svc.present = true;
	w->svc.rps = f.rps;
	w->svc.p50_ns = f.p50_ns;
	w->svc.p99_ns = f.p99_ns;
	w->svc.p999_ns = f.p999_ns;
	w->svc.errors = f.errors;
	w->svc.server_cpu_s = s->cpu0 - cpu0;
	/* threads that came and went during the run are missed: a lower bound */
	w->svc.server_ctxsw = sw0 >= 0 && s->sw0 >= sw0 ? s->sw0 - sw0 : -1;
	snprintf(w->svc.decides, sizeof(w->svc.decides), "%s", deciding(w->cfg, s->open));
	return 0;
}

void tb_wl_svc_stop(struct tb_wl_svc *s)
{
	tb_cgroup_destroy(&s->client_cg);
	tb_cgroup_destroy(&s->cg); /* kills the server and its workers */
	if (s->running)
		tb_proc_release(&s->server);
	s->running = false;
	if (s->dir[0])
		tb_rm_rf(s->dir);
}

static unsigned int whole_seconds(uint64_t duration_ns)
{
	uint64_t s = (duration_ns + 500000000ull) / 1000000000ull;

	return s ? (unsigned int)s : 1;
}

unsigned int tb_wl_svc_seconds(const struct tb_workload *w)
{
	return whole_seconds(w->duration_ns);
}

uint64_t tb_wl_svc_whole_seconds_ns(uint64_t duration_ns)
{
	return whole_seconds(duration_ns) * 1000000000ull;
}

/* A rate a client on loopback can report: finite, above 0, at most TB_WL_SVC_MAX_RPS. */
static bool is_rate(double rps)
{
	return isfinite(rps) && rps > 0 && rps <= TB_WL_SVC_MAX_RPS;
}

uint64_t tb_wl_svc_requests(double rps, uint64_t duration_ns)
{
	double n;

	if (!is_rate(rps))
		return 0;
	n = ceil(rps * (double)duration_ns / 1e9);
	return n < TB_WL_SVC_MIN_REQUESTS ? TB_WL_SVC_MIN_REQUESTS : (uint64_t)n;
}

int tb_wl_svc_warm_up(struct tb_workload *w, tb_wl_svc_run_fn run, uint64_t *n)
{
	const struct tb_wl_svc_cfg *c = w->cfg;
	uint64_t warm = tb_wl_svc_warm_ns(c, w->duration_ns), t0 = tb_now_ns(), spent;
	struct tb_wl_svc_figs f;
	double more;
	int ret = run(w, TB_WL_SVC_MIN_REQUESTS, &f);

	if (ret)
		return ret;
	spent = tb_now_ns() - t0;
	/* the rest of the warm-up at the first run's rate, unless it is a few requests */
	if (is_rate(f.rps) && warm > spent) {
		more = ceil(f.rps * (double)(warm - spent) / 1e9);
		if (more >= TB_WL_SVC_MIN_REQUESTS / 4 && (ret = run(w, (uint64_t)more, &f)))
			return ret;
	}
	*n = tb_wl_svc_requests(f.rps, w->duration_ns);
	if (!*n) {
		tb_err("%s: the warm-up's rate (%g requests/s) is not one: cannot size the sample",
		       w->name, f.rps);
		return -EINVAL;
	}
	return 0;
}

uint64_t tb_wl_svc_warm_ns(const struct tb_wl_svc_cfg *c, uint64_t duration_ns)
{
	return c->client_warmup < duration_ns ? c->client_warmup : duration_ns;
}

uint64_t tb_wl_svc_setup_ns(const struct tb_wl_svc_cfg *c, uint64_t duration_ns, uint64_t start_ns)
{
	uint64_t warm = tb_wl_svc_warm_ns(c, duration_ns);

	return start_ns + (warm > 100000000ull ? warm : 100000000ull) + 30000000ull;
}

int tb_wl_svc_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	(void)cfg;
	(void)ctx;
	ev->syscalls_known = ev->sched_known = 0;
	return 0;
}
