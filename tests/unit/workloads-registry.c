// SPDX-License-Identifier: GPL-2.0
/*
 * Every registered workload: options and defaults, a small batch through the sample API with
 * the ops checked against kernel counts (syscall/sched tracepoints counted for this process by
 * perf_event_open), and nothing left behind (files, threads, child processes). Bad configs.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/measure.h"
#include "workloads/common.h"
#include "core/tb.h"
#include "tb_test.h"
#include "workloads/workload.h"

#define OPS 100

/*
 * What a batch of ops per thread must show in the kernel's counts, from the workload's own
 * table (its `events`): each syscall's entries, and the process tracepoints (fork, exit, exec)
 * it lists. The counters are the process's (inherited by its threads, children and partners),
 * read around tb_measure_go: the harness's own few syscalls and a partner blocked in a call when
 * counting starts are the slack. tests/unit/runner-window.c checks the same tables exactly, through
 * the traced window.
 */
struct expect {
	char event[80]; /* tracepoint "sys/name" */
	double per_op;
	bool approx;
};

#define SLACK_PER_THREAD 2
#define HARNESS_CALLS	 16

static size_t expects_of(const struct tb_workload_ops *wl, const void *cfg, unsigned int threads,
			 struct expect *out, size_t max)
{
	struct tb_op_context ctx = {.threads = threads, .one_cpu = threads == 1};
	struct tb_op_events ev;
	size_t i, j, n = 0;
	char tp[80];

	tb_op_events_init(&ev);
	CU_ASSERT_EQUAL_FATAL(wl->events(cfg, &ctx, &ev), 0);
	for (i = 0; i < ev.n; i++) {
		const struct tb_op_event *e = &ev.ev[i];

		if (!strncmp(e->name, "syscall:", 8))
			snprintf(tp, sizeof(tp), "syscalls/sys_enter_%s", e->name + 8);
		else if (!strncmp(e->name, "sched:sched_process_", 20) ||
			 !strcmp(e->name, "sched:sched_wakeup_new"))
			snprintf(tp, sizeof(tp), "sched/%s", e->name + 6);
		else
			continue;
		for (j = 0; j < n && strcmp(out[j].event, tp); j++)
			;
		if (j == n) {
			if (n == max)
				continue;
			memset(&out[n], 0, sizeof(out[n]));
			snprintf(out[n++].event, sizeof(out[0].event), "%s", tp);
		}
		out[j].per_op += e->per_op;
		out[j].approx |= (e->flags & TB_EV_APPROX) != 0;
	}
	return n;
}

/* Options a workload needs to run at all in these tests (no usable default). */
static const char *const overrides[][3] = {
	{"command", "command", "true"},
};

/* Valgrind makes syscalls of its own on the process's behalf: kernel counts are not ours. */
static bool under_valgrind(void)
{
	const char *pre = getenv("LD_PRELOAD");

	return pre && strstr(pre, "valgrind");
}

static const char *tracefs(void)
{
	static const char *const dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char p[128];
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/events", dirs[i]);
		if (!access(p, R_OK))
			return dirs[i];
	}
	return NULL;
}

/* A counter of tracepoint `event` for this process and what it creates; -1 when unavailable. */
static int tp_open(const char *event)
{
	struct perf_event_attr attr = {.type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr)};
	const char *tfs = tracefs();
	char path[256], line[32];

	if (!tfs || under_valgrind())
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/id", tfs, event);
	if (tb_read_line(path, line, sizeof(line)))
		return -1;
	attr.config = strtoull(line, NULL, 10);
	attr.inherit = 1;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int64_t tp_read(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof(v)) == sizeof(v) ? (int64_t)v : -1;
}

/* A counter of /proc/self/io ("rchar", "wchar"): bytes read and written by the process. */
static int64_t proc_io(const char *key)
{
	char *text = NULL, *at;
	int64_t v = -1;

	if (tb_read_file("/proc/self/io", &text, NULL))
		return -1;
	at = strstr(text, key);
	if (at)
		v = strtoll(at + strlen(key) + 1, NULL, 10);
	free(text);
	return v;
}

static void *make_cfg(const struct tb_workload_ops *wl, char *err, size_t len)
{
	void *cfg = calloc(1, wl->cfg_size ? wl->cfg_size : 1);
	size_t i;

	if (!cfg)
		return NULL;
	if (wl->opts && tb_opts_defaults(wl->opts, cfg)) {
		free(cfg);
		return NULL;
	}
	for (i = 0; i < TB_ARRAY_SIZE(overrides); i++)
		if (!strcmp(overrides[i][0], wl->name))
			tb_opts_set(wl->opts, cfg, overrides[i][1], overrides[i][2], err, len);
	return cfg;
}

static void free_cfg(const struct tb_workload_ops *wl, void *cfg)
{
	if (wl->opts)
		tb_opts_free(wl->opts, cfg);
	free(cfg);
}

static int dir_entries(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* No child process of ours, not even a zombie, and no thread but this one. */
static void assert_no_leftovers(const char *wl, const char *tmpdir)
{
	pid_t r = waitpid(-1, NULL, WNOHANG);
	int files = dir_entries(tmpdir), tasks = dir_entries("/proc/self/task");

	if (r != -1 || errno != ECHILD)
		printf("\n    %s left a child process (waitpid: %d)", wl, (int)r);
	CU_ASSERT(r == -1 && errno == ECHILD);
	if (files != 0)
		printf("\n    %s left %d files in %s", wl, files, tmpdir);
	CU_ASSERT_EQUAL(files, 0);
	if (tasks != 1)
		printf("\n    %s left %d threads", wl, tasks - 1);
	CU_ASSERT_EQUAL(tasks, 1);
}

/*
 * Every workload says what one op does (model/proof.h needs it): syscalls named syscall:NAME
 * with their number, counts that are not negative, and something known about its syscalls
 * unless it runs a user's program.
 */
static void check_events(const struct tb_workload_ops *wl, const void *cfg)
{
	struct tb_op_context ctx = {.threads = 1, .one_cpu = true};
	struct tb_op_events ev;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(wl->events);
	tb_op_events_init(&ev);
	CU_ASSERT_EQUAL(wl->events(cfg, &ctx, &ev), 0);
	for (i = 0; i < ev.n; i++) {
		const struct tb_op_event *e = &ev.ev[i];
		bool sc = !strncmp(e->name, "syscall:", 8);

		CU_ASSERT(strchr(e->name, ':') != NULL);
		CU_ASSERT(sc ? e->nr >= 0 : e->nr == -1);
		CU_ASSERT(e->per_op >= 0 && e->exits >= 0 && e->per_op + e->exits > 0);
		CU_ASSERT(e->who >= TB_EV_SELF && e->who < TB_EV_NWHO);
	}
	/* a one-shot workload runs programs (a user's, a server and its client) */
	if (!ev.syscalls_known && !(wl->flags & TB_WL_ONESHOT))
		printf("\n    %s: its table knows none of its syscalls", wl->name);
	CU_ASSERT(ev.syscalls_known || (wl->flags & TB_WL_ONESHOT));
}

static void test_registry(void)
{
	char why[256], err[256];
	size_t i, j;

	CU_ASSERT_PTR_NOT_NULL(tb_workload_find("null"));
	CU_ASSERT_PTR_NULL(tb_workload_find("no-such-workload"));
	for (i = 0; tb_workloads[i]; i++) {
		const struct tb_workload_ops *wl = tb_workloads[i];
		void *cfg;

		CU_ASSERT_PTR_NOT_NULL(wl->name);
		CU_ASSERT(wl->help && strlen(wl->help) > 10);
		CU_ASSERT_PTR_NOT_NULL(wl->run_batch);
		CU_ASSERT(!wl->opts == !wl->cfg_size);
		for (j = 0; wl->opts && wl->opts[j].name; j++)
			CU_ASSERT(wl->opts[j].help && *wl->opts[j].help);
		for (j = 0; j < i; j++)
			CU_ASSERT(strcmp(tb_workloads[j]->name, wl->name) != 0);
		why[0] = '\0';
		if (wl->supported && wl->supported(why, sizeof(why)))
			CU_ASSERT(why[0] != '\0');
		cfg = make_cfg(wl, err, sizeof(err));
		CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
		err[0] = '\0';
		if (wl->validate && wl->validate(cfg, err, sizeof(err)))
			printf("\n    %s: defaults do not validate: %s", wl->name, err);
		CU_ASSERT(!wl->validate || wl->validate(cfg, err, sizeof(err)) == 0);
		check_events(wl, cfg);
		free_cfg(wl, cfg);
	}
}

/* Apply "key=val;key=val" to cfg; returns 0 or what tb_opts_set said. */
/* Set the options "k=v;k=v" on cfg; tb_opts_set's message for a bad one into err. */
static int set_opts(const struct tb_workload_ops *wl, void *cfg, const char *spec, char *err,
		    size_t len)
{
	char *copy = strdup(spec), *kv, *save = NULL, *eq;
	int ret = copy ? 0 : -ENOMEM;

	for (kv = copy ? strtok_r(copy, ";", &save) : NULL; kv && !ret;
	     kv = strtok_r(NULL, ";", &save)) {
		eq = strchr(kv, '=');
		if (!eq) {
			ret = -EINVAL;
			break;
		}
		*eq = '\0';
		ret = tb_opts_set(wl->opts, cfg, kv, eq + 1, err, len);
	}
	free(copy);
	return ret;
}

/*
 * The postgres workload keeps its cluster in the scratch directory for the run's later samples
 * (workloads/postgres.c): the harness removes it with the directory, so does this test. Its
 * server runs as the postgres user, who must reach the directory: the test's are private.
 */
static void drop_cluster(const char *tmpdir, unsigned int threads)
{
	char path[PATH_MAX];

	for (unsigned int t = 0; t < threads; t++) {
		snprintf(path, sizeof(path), "%s/pgdata-%u", tmpdir, t);
		tb_rm_rf(path);
		snprintf(path, sizeof(path), "%s/pgdata-%u.filled", tmpdir, t);
		unlink(path);
	}
}

static void share_dirs(const char *tmpdir)
{
	char parent[PATH_MAX], *slash;

	snprintf(parent, sizeof(parent), "%s", tmpdir);
	chmod(tmpdir, 0755);
	if ((slash = strrchr(parent, '/')) && slash != parent) {
		*slash = '\0';
		chmod(parent, 0755);
	}
}

/*
 * One workload: a small batch with `threads` instances and options `spec` ("k=v;k=v" over the
 * defaults, or NULL), the kernel's counts, the cleanup.
 */
static void run_one(const struct tb_workload_ops *wl, unsigned int threads, bool latency,
		    const char *spec)
{
	struct tb_measure_req req = {0};
	struct tb_measure_run *run = NULL;
	struct tb_measure_res *res = malloc(sizeof(*res));
	int fds[9], nfd = 0, cpu0 = 0, k;
	int64_t before[9], counted[9], rchar, wchar;
	struct expect expects[8];
	size_t nexp;
	const char *tmpdir = tb_test_tmpdir();
	char err[256];
	size_t i;
	void *cfg;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	CU_ASSERT_PTR_NOT_NULL_FATAL(tmpdir);
	cfg = make_cfg(wl, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	if (spec) {
		ret = set_opts(wl, cfg, spec, err, sizeof(err));
		if (ret)
			printf("\n    %s %s: %s", wl->name, spec, err);
		CU_ASSERT_EQUAL_FATAL(ret, 0);
		err[0] = '\0';
		if (wl->validate && wl->validate(cfg, err, sizeof(err)))
			printf("\n    %s %s: %s", wl->name, spec, err);
		CU_ASSERT_FATAL(!wl->validate || !wl->validate(cfg, err, sizeof(err)));
	}
	req.wl = wl;
	req.name = wl->name;
	req.cfg = cfg;
	req.tmpdir = tmpdir;
	if (!strcmp(wl->name, "postgres"))
		share_dirs(tmpdir);
	req.threads = threads;
	req.ops = OPS;
	req.latency = latency;
	req.latency_every = 3;
	req.perf_counts = true;
	if (threads == 1) {
		req.cpus = &cpu0;
		req.ncpus = 1;
	}
	/* Counters first: inherited by the threads and processes the workload creates. */
	nexp = expects_of(wl, cfg, threads, expects, TB_ARRAY_SIZE(expects));
	for (i = 0; i < nexp; i++)
		fds[nfd++] = tp_open(expects[i].event);
	if (!strcmp(wl->name, "null") || !strcmp(wl->name, "cpu"))
		fds[nfd++] = tp_open("raw_syscalls/sys_enter");

	ret = tb_measure_prepare(&req, &run);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret)
		goto out;
	rchar = proc_io("rchar");
	wchar = proc_io("wchar");
	for (k = 0; k < nfd; k++)
		before[k] = fds[k] >= 0 ? tp_read(fds[k]) : -1;
	ret = tb_measure_go(run, res);
	for (k = 0; k < nfd; k++)
		counted[k] = fds[k] >= 0 && before[k] >= 0 ? tp_read(fds[k]) - before[k] : -1;
	rchar = proc_io("rchar") - rchar;
	wchar = proc_io("wchar") - wchar;
	if (ret)
		printf("\n    %s: %s", wl->name, res->errmsg);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT(res->elapsed_ns > 0);
	CU_ASSERT_EQUAL(res->threads, threads);
	/* one run of a program; a service's ops are its client's completed requests */
	CU_ASSERT((wl->flags & TB_WL_ONESHOT) ? res->ops >= 1 : res->ops == OPS);
	CU_ASSERT(res->cpu_user_s + res->cpu_sys_s >= 0);
	CU_ASSERT(res->perf_task_clock_ns > 0); /* software counters work here */
	if (latency)
		CU_ASSERT(res->hist.count >= res->ops / 3 * threads && res->hist.count > 0);
	/* what each op must have done, by the workload's defaults */
	if (!strcmp(wl->name, "read"))
		CU_ASSERT(rchar >= (int64_t)(OPS * threads * 4096));
	if (!strcmp(wl->name, "write"))
		CU_ASSERT(wchar >= (int64_t)(OPS * threads * 4096));
	if (!strcmp(wl->name, "mmap-touch") && !spec) {
		CU_ASSERT(res->minflt >= (int64_t)(OPS * threads * (256 * 1024 / 4096)));
		CU_ASSERT(res->perf_faults >= (int64_t)(OPS * threads * (256 * 1024 / 4096)));
	}
	if (!strcmp(wl->name, "nanosleep")) {
		CU_ASSERT_TRUE(res->has_metric);
		CU_ASSERT(res->metric >= 0);
		CU_ASSERT(res->ns_per_op >= (spec ? 10000 : 50000)); /* never shorter */
	}
	if (!strcmp(wl->name, "command") && spec && strstr(spec, "metric")) {
		CU_ASSERT_TRUE(res->has_metric);
		CU_ASSERT_DOUBLE_EQUAL(res->metric, 7, 1e-9);
	}
	/* pinned to one CPU with its partner: a switch there and one back per op (the counter
	 * is inherited by the partner) */
	if (threads == 1 && (!strcmp(wl->name, "pipe-pingpong") || !strcmp(wl->name, "futex"))) {
		if (res->perf_ctxsw < 2 * OPS - 4)
			printf("\n    %s: %lld context switches", wl->name,
			       (long long)res->perf_ctxsw);
		CU_ASSERT(res->perf_ctxsw >= 2 * OPS - 4);
	}
	for (k = 0; k < (int)nexp; k++) {
		double want = expects[k].per_op * (double)res->ops * threads;
		double lo = (expects[k].approx ? want / 2 : want) - SLACK_PER_THREAD * threads;
		double hi = (expects[k].approx ? want * 2 : want) + SLACK_PER_THREAD * threads +
			    HARNESS_CALLS;

		if (counted[k] < 0)
			continue;
		if ((double)counted[k] < lo || (double)counted[k] > hi)
			printf("\n    %s: %s counted %lld, want %.0f..%.0f", wl->name,
			       expects[k].event, (long long)counted[k], lo, hi);
		CU_ASSERT((double)counted[k] >= lo && (double)counted[k] <= hi);
	}
	if ((!strcmp(wl->name, "null") || !strcmp(wl->name, "cpu")) && counted[nexp] >= 0) {
		/* the harness's own few syscalls (clock reads are vDSO), none per op */
		CU_ASSERT(counted[nexp] < OPS / 2);
	}
out:
	tb_measure_finish(run);
	for (k = 0; k < nfd; k++)
		if (fds[k] >= 0)
			close(fds[k]);
	if (!strcmp(wl->name, "postgres"))
		drop_cluster(tmpdir, threads);
	assert_no_leftovers(wl->name, tmpdir);
	free_cfg(wl, cfg);
	free(res);
}

static void run_all(unsigned int threads, bool latency)
{
	int fd = tp_open("sched/sched_process_exec");
	char why[256];
	size_t i;

	if (fd < 0)
		printf("\n    (tracepoint counters unavailable%s: op counts not checked)",
		       under_valgrind() ? " under valgrind" : "");
	else
		close(fd);
	for (i = 0; tb_workloads[i]; i++) {
		const struct tb_workload_ops *wl = tb_workloads[i];

		if (wl->supported && wl->supported(why, sizeof(why))) {
			printf("\n    SKIPPED %s: not supported here: %s", wl->name, why);
			continue;
		}
		if (latency && (wl->flags & TB_WL_NOLATENCY))
			continue;
		run_one(wl, threads, latency, NULL);
	}
}

static void test_run_one_thread(void)
{
	run_all(1, false);
}

static void test_run_two_threads(void)
{
	run_all(2, false);
}

static void test_run_latency(void)
{
	run_all(1, true);
}

/* Non-default options of each workload, through the same checks. */
static void test_variants(void)
{
	static const char *const variants[][2] = {
		{"read", "path=/dev/zero"},
		{"read", "size=64K;file-size=256K;work=100"},
		{"write", "fsync=fdatasync"},
		{"write", "dir=/tmp;size=8K"},
		{"open-close", "depth=0"},
		{"open-close", "path=/etc/passwd"},
		{"pipe-pingpong", "mode=threads;size=4096"},
		{"fork-exit", "memory=8M"},
		{"exec", "method=posix_spawn"},
		{"mmap-touch", "size=4K"},
		{"tcp-rr", "mode=processes;size=64K"},
		{"udp-rr", "mode=processes;size=1400"},
		{"nanosleep", "sleep=10us;slack=1"},
		{"getpid", "work=50"},
		{"getpid", "calls=10;partner=process;partner-calls=4"},
		{"getpid", "calls=3;partner=process;partner-calls=3"},
		{"command", "command=sh -c 'echo done: 7';metric=done: ([0-9]+)"},
	};
	const struct tb_workload_ops *wl;
	char why[256];
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(variants); i++) {
		wl = tb_workload_find(variants[i][0]);
		if (!wl || (wl->supported && wl->supported(why, sizeof(why))))
			continue;
		run_one(wl, 1, false, variants[i][1]);
	}
}

/* Set spec ("k=v;k=v") on wl's defaults; return what validate says, with its message in err. */
static int validate_spec(const char *name, const char *spec, char *err, size_t len)
{
	const struct tb_workload_ops *wl = tb_workload_find(name);
	void *cfg;
	int ret;

	if (!wl)
		return -ENOENT;
	cfg = make_cfg(wl, err, len);
	if (!cfg)
		return -ENOMEM;
	err[0] = '\0';
	ret = set_opts(wl, cfg, spec, err, len);
	if (!ret && wl->validate)
		ret = wl->validate(cfg, err, len);
	free_cfg(wl, cfg);
	return ret;
}

/* One key=val (a value without ';'). */
static int validate_with(const char *name, const char *key, const char *val, char *err, size_t len)
{
	char spec[512];

	snprintf(spec, sizeof(spec), "%s=%s", key, val);
	return validate_spec(name, spec, err, len);
}

#define ASSERT_BAD(wl, key, val)                                                                 \
	do {                                                                                     \
		if (tb_workload_find(wl)) {                                                      \
			CU_ASSERT_EQUAL(validate_with(wl, key, val, err, sizeof(err)), -EINVAL); \
			CU_ASSERT_PTR_NOT_NULL(strstr(err, key));                                \
		}                                                                                \
	} while (0)

#define ASSERT_BAD_SPEC(wl, spec, key)                                               \
	do {                                                                         \
		CU_ASSERT_EQUAL(validate_spec(wl, spec, err, sizeof(err)), -EINVAL); \
		CU_ASSERT_PTR_NOT_NULL(strstr(err, key));                            \
	} while (0)

static void test_bad_configs(void)
{
	char err[512];

	ASSERT_BAD("read", "size", "-1");
	ASSERT_BAD("read", "size", "1T");
	ASSERT_BAD("read", "size", "0");
	ASSERT_BAD("read", "path", "/nonexistent/file");
	ASSERT_BAD("read", "path", "/");
	ASSERT_BAD("getpid", "work", "-5");
	ASSERT_BAD("getpid", "partner", "thread");
	ASSERT_BAD("getpid", "partner-calls", "1"); /* no partner to make it */
	ASSERT_BAD_SPEC("getpid", "calls=4;partner=process;partner-calls=5", "partner-calls");
	ASSERT_BAD_SPEC("getpid", "calls=4;partner=process;other-calls=1", "other-calls");
	ASSERT_BAD("cpu", "iterations", "0");
	ASSERT_BAD("write", "dir", "/nonexistent/dir");
	ASSERT_BAD("write", "size", "100G");
	ASSERT_BAD("open-close", "path", "/nonexistent/file");
	ASSERT_BAD("mmap-touch", "size", "0");
	ASSERT_BAD("mmap-touch", "size", "1T");
	ASSERT_BAD("exec", "path", "/nonexistent/helper");
	ASSERT_BAD("tcp-rr", "size", "1G");
	ASSERT_BAD("udp-rr", "size", "65508");
	ASSERT_BAD("nanosleep", "sleep", "-1s");
	ASSERT_BAD("command", "command", "/nonexistent/program --flag");
	ASSERT_BAD("command", "command", "no-such-program-tracebench");
	ASSERT_BAD("command", "command", "");
	ASSERT_BAD("command", "metric", "([0-9]+");
	ASSERT_BAD("command", "metric", "no group");
}

/* A command that exits non-zero fails the sample with its status; its metric is parsed. */
static void test_command(void)
{
	const struct tb_workload_ops *wl = tb_workload_find("command");
	struct tb_measure_req req = {0};
	struct tb_measure_run *run = NULL;
	struct tb_measure_res *res = malloc(sizeof(*res));
	const char *tmpdir = tb_test_tmpdir();
	char err[256];
	void *cfg;

	if (!wl)
		TB_SKIP("no command workload");
	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	cfg = make_cfg(wl, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	req = (struct tb_measure_req){.wl = wl, .name = "mycmd", .cfg = cfg, .tmpdir = tmpdir};

	CU_ASSERT_EQUAL(tb_opts_set(wl->opts, cfg, "command", "sh -c 'echo rate: 12.5 ops; exit 3'",
				    err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(wl->validate(cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_NOT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT(WIFEXITED(res->exit_status) && WEXITSTATUS(res->exit_status) == 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(res->errmsg, "mycmd"));
	tb_measure_finish(run);

	CU_ASSERT_EQUAL(tb_opts_set(wl->opts, cfg, "command", "sh -c 'echo rate: 12.5 ops'", err,
				    sizeof(err)),
			0);
	CU_ASSERT_EQUAL(tb_opts_set(wl->opts, cfg, "metric", "rate: ([0-9.]+)", err, sizeof(err)),
			0);
	CU_ASSERT_EQUAL(wl->validate(cfg, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT_EQUAL(res->exit_status, 0);
	CU_ASSERT_TRUE(res->has_metric);
	CU_ASSERT_DOUBLE_EQUAL(res->metric, 12.5, 1e-9);
	CU_ASSERT_EQUAL(res->ops, 1);
	tb_measure_finish(run);

	/* a metric that matches nothing is an error, not a silent zero */
	CU_ASSERT_EQUAL(
		tb_opts_set(wl->opts, cfg, "metric", "latency: ([0-9.]+)", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_NOT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT_FALSE(res->has_metric);
	tb_measure_finish(run);

	/* the timeout stops a program that runs too long */
	CU_ASSERT_EQUAL(tb_opts_set(wl->opts, cfg, "metric", "", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tb_opts_set(wl->opts, cfg, "command", "sleep 30", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(tb_opts_set(wl->opts, cfg, "timeout", "200ms", err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), -ETIMEDOUT);
	CU_ASSERT(res->elapsed_ns < 10000000000ull);
	tb_measure_finish(run);

	assert_no_leftovers("command", tmpdir);
	free_cfg(wl, cfg);
	free(res);
}

/* The exec helper is found through $TB_HELPERS first, then next to the running binary. */
static void test_find_helper(void)
{
	const char *dir = tb_test_tmpdir(), *saved = getenv("TB_HELPERS");
	char path[4096], want[4096], why[512];
	char *keep = saved ? strdup(saved) : NULL;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(want, sizeof(want), "%s/tb-exit", dir);
	f = fopen(want, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	CU_ASSERT_EQUAL(chmod(want, 0755), 0);
	setenv("TB_HELPERS", dir, 1);
	CU_ASSERT_EQUAL(tb_wl_find_helper("tb-exit", path, sizeof(path), why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(path, want);
	CU_ASSERT_EQUAL(
		tb_wl_find_helper("tb-no-such-helper", path, sizeof(path), why, sizeof(why)),
		-ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "tb-no-such-helper"));
	unlink(want);
	/* this test binary lives in build/: the helper is found in build/helpers */
	setenv("TB_HELPERS", "/nonexistent", 1);
	if (!tb_wl_find_helper("tb-exit", path, sizeof(path), why, sizeof(why)))
		CU_ASSERT_PTR_NOT_NULL(strstr(path, "helpers/tb-exit"));
	if (keep)
		setenv("TB_HELPERS", keep, 1);
	else
		unsetenv("TB_HELPERS");
	free(keep);
}

static int nop_setup(struct tb_workload *w)
{
	return 0;
}

/* The start-up check refuses a malformed table (the option checks: tests/unit/tracers-registry.c). */
static void test_ops_check(void)
{
	static const struct tb_option twice[] = {
		{"b", TB_OPT_BOOL, 0, NULL, "once"},
		{"b", TB_OPT_BOOL, 0, NULL, "twice"},
		TB_OPT_END,
	};
	struct tb_workload_ops good = *tb_workload_find("null"), bad[5];
	const struct tb_workload_ops *list[3] = {&good, NULL, NULL};
	size_t i;

	CU_ASSERT_EQUAL(tb_workload_ops_check(tb_workloads), 0);
	CU_ASSERT_EQUAL(tb_workload_ops_check(list), 0);
	for (i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		bad[i] = good;
		bad[i].name = "broken";
	}
	bad[0].name = "";
	bad[1].help = NULL;
	bad[2].run_batch = NULL;
	bad[3].setup = nop_setup; /* and no teardown */
	bad[4].opts = twice;
	bad[4].cfg_size = sizeof(bool);
	for (i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		list[1] = &bad[i];
		printf("\n    broken table %zu: ", i);
		CU_ASSERT_EQUAL(tb_workload_ops_check(list), -EINVAL);
	}
}

static CU_TestInfo tests[] = {
	{"registry, options, defaults", test_registry},
	{"every workload, 1 thread, pinned", test_run_one_thread},
	{"every workload, 2 threads", test_run_two_threads},
	{"every workload, latency mode", test_run_latency},
	{"non-default options", test_variants},
	{"bad configs name the key", test_bad_configs},
	{"exec helper lookup", test_find_helper},
	{"command: exit status, metric, timeout", test_command},
	{"ops check refuses broken tables", test_ops_check},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("workloads-registry", NULL, NULL, tests);
