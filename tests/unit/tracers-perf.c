// SPDX-License-Identifier: GPL-2.0
/*
 * The libperf tracers (perf-count, perf-sample) around forked children doing known work:
 * page faults, pipe ping-pong context switches, busy loops. Every test checks that no fd and
 * no thread of ours is left behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <perf/threadmap.h>
#include <linux/perf_event.h>

#include "tracers/perf-common.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "tb_test.h"
#include "tracers/tracer.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static int count_dir(const char *path)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(path);

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static int fds_before, tasks_before;
static int test_consumer_cpu = -1; /* given to the next tracer instance */
/* Every test's tracer's directory: opened once, before the first count of fds. */
static const struct tb_dir *perf_dir(void)
{
	static const struct tb_dir *d;

	if (!d)
		d = tb_test_tmpdir_open();
	return d;
}

static void leak_check_begin(void)
{
	perf_dir();
	fds_before = count_dir("/proc/self/fd");
	tasks_before = count_dir("/proc/self/task");
}

static void leak_check_end(void)
{
	CU_ASSERT_EQUAL(count_dir("/proc/self/fd"), fds_before);
	CU_ASSERT_EQUAL(count_dir("/proc/self/task"), tasks_before);
	CU_ASSERT_EQUAL(tb_perf_count_fds(), 0);
}

/* Number of perf_event fds without FD_CLOEXEC. */
static int perf_fds_inheritable(void)
{
	char path[64], target[64];
	struct dirent *de;
	ssize_t len;
	int n = 0, fd;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		fd = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (de->d_name[0] == '.' || len < 0)
			continue;
		target[len] = '\0';
		if (!strcmp(target, "anon_inode:[perf_event]") &&
		    !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
			n++;
	}
	closedir(d);
	return n;
}

/* A child that waits for "go", runs fn(arg), says "done", then waits for "quit". */
struct child {
	pid_t pid;
	int go_w, done_r, quit_w;
};

static int child_spawn(struct child *c, void (*fn)(long), long arg)
{
	int go[2], done[2], quit[2];
	char b = 0;

	if (pipe(go) || pipe(done) || pipe(quit))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		close(go[1]);
		close(done[0]);
		close(quit[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(0); /* never told to go: the test failed before */
		fn(arg);
		if (write(done[1], &b, 1) != 1)
			_exit(3);
		if (read(quit[0], &b, 1) < 0)
			_exit(4);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	close(quit[0]);
	c->go_w = go[1];
	c->done_r = done[0];
	c->quit_w = quit[1];
	return 0;
}

static void child_go_and_wait(struct child *c)
{
	char b = 1;

	CU_ASSERT_EQUAL(write(c->go_w, &b, 1), 1);
	CU_ASSERT_EQUAL(read(c->done_r, &b, 1), 1);
}

static void child_finish(struct child *c)
{
	int status = -1;

	if (c->pid <= 0)
		return;
	close(c->go_w);
	close(c->quit_w);
	close(c->done_r);
	CU_ASSERT_EQUAL(waitpid(c->pid, &status, 0), c->pid);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	c->pid = 0;
}

/* A tracer instance configured from key/value pairs; returns validate's result. */
static int tr_new(struct tb_tracer *t, const char *type, const char *const *kv, char *err,
		  size_t len)
{
	const struct tb_tracer_ops *ops = tb_tracer_find(type);
	int ret;

	memset(t, 0, sizeof(*t));
	if (!ops)
		return -ENOENT;
	t->ops = ops;
	t->name = "test";
	t->consumer_cpu = test_consumer_cpu;
	t->dir = perf_dir();
	t->outdir = t->dir ? t->dir->path : NULL;
	t->cfg = calloc(1, ops->cfg_size);
	if (!t->cfg)
		return -ENOMEM;
	ret = tb_opts_defaults(ops->opts, t->cfg);
	for (; !ret && kv && kv[0]; kv += 2)
		ret = tb_opts_set(ops->opts, t->cfg, kv[0], kv[1], err, len);
	if (!ret && ops->validate)
		ret = ops->validate(t->cfg, err, len);
	return ret;
}

static void tr_free(struct tb_tracer *t)
{
	if (!t->ops)
		return;
	t->ops->teardown(t);
	t->ops->teardown(t); /* idempotent */
	tb_opts_free(t->ops->opts, t->cfg);
	free(t->cfg);
	t->cfg = NULL;
}

static void stats_init(struct tb_tracer_stats *st)
{
	*st = (struct tb_tracer_stats){-1, -1, -1, -1, -1, -1, NULL};
}

/* extra.counts.<name>.value, or -1. */
static double count_of(const struct tb_tracer_stats *st, const char *name)
{
	json_t *v = json_object_get(json_object_get(st->extra, "counts"), name);

	return v ? json_real_value(json_object_get(v, "value")) : -1;
}

static void dump_extra(const char *what, const struct tb_tracer_stats *st)
{
	char *s = st->extra ? json_dumps(st->extra, JSON_COMPACT) : NULL;

	printf("\n    %s: events %lld lost %lld cpu_s %.6f mem %lld extra %s\n", what,
	       (long long)st->events, (long long)st->lost, st->cpu_s, (long long)st->mem_bytes,
	       s ? s : "null");
	free(s);
}

/* ---- child workloads ------------------------------------------------------------------------ */

static void touch_pages(long n)
{
	long pg = sysconf(_SC_PAGESIZE), i;
	char *m = mmap(NULL, (size_t)(n * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (m == MAP_FAILED)
		_exit(5);
	/* One fault per page: no transparent huge page may back the range. */
	madvise(m, (size_t)(n * pg), MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		m[i * pg] = 1;
	munmap(m, (size_t)(n * pg));
}

/* n round trips with a grandchild (forked now: counted through inherit). */
static void ping_pong(long n)
{
	int a[2], b[2];
	char c = 0;
	pid_t pid;
	long i;

	if (pipe(a) || pipe(b))
		_exit(6);
	pid = fork();
	if (pid < 0)
		_exit(7);
	if (!pid) {
		for (i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(8);
		_exit(0);
	}
	for (i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			_exit(9);
	waitpid(pid, NULL, 0);
}

static void getpids(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static void busy_ms(long ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* Run a tracer around a child doing fn(arg); st gets the collected stats. */
static int trace_child(const char *type, const char *const *kv, void (*fn)(long), long arg,
		       struct tb_tracer_stats *st)
{
	struct child c = {0};
	struct tb_tracer t;
	char err[256] = "";
	int ret;

	stats_init(st);
	ret = tr_new(&t, type, kv, err, sizeof(err));
	CU_ASSERT_EQUAL(ret, 0);
	if (ret) {
		printf("\n    %s: %s\n", type, err);
		goto out;
	}
	ret = child_spawn(&c, fn, arg);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	t.target = c.pid;
	ret = t.ops->setup(&t);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret)
		goto out;
	CU_ASSERT_EQUAL(t.ops->start(&t), 0);
	child_go_and_wait(&c);
	CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
	CU_ASSERT_EQUAL(t.ops->collect(&t, st), 0);
out:
	child_finish(&c);
	tr_free(&t);
	return ret;
}

static int need_root(void)
{
	return tb_test_is_root() && tb_perf_count_fds() >= 0;
}

/* ---- perf-count ----------------------------------------------------------------------------- */

static void test_count_page_faults(void)
{
	static const char *const kv[] = {"events", "page-faults,minor-faults,task-clock", NULL};
	const long n = 2000;
	struct tb_tracer_stats st;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	if (!trace_child("perf-count", kv, touch_pages, n, &st)) {
		dump_extra("page faults", &st);
		CU_ASSERT_TRUE(count_of(&st, "page-faults") >= n);
		CU_ASSERT_TRUE(count_of(&st, "minor-faults") >= n);
		CU_ASSERT_TRUE(count_of(&st, "task-clock") > 0);
		/* events: the occurrence counters (page-faults + minor-faults), not the ns. */
		CU_ASSERT_TRUE(st.events >= 2 * n);
		CU_ASSERT_EQUAL(st.lost, 0);
		CU_ASSERT_EQUAL(st.cpu_s, 0);
	}
	json_decref(st.extra);
	leak_check_end();
}

static void test_count_context_switches(void)
{
	static const char *const kv[] = {"events", "context-switches,cpu-migrations", NULL};
	const long n = 1000;
	struct tb_tracer_stats st;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	if (!trace_child("perf-count", kv, ping_pong, n, &st)) {
		dump_extra("ping-pong", &st);
		/* Each side blocks once per round trip; the grandchild counts through inherit. */
		CU_ASSERT_TRUE(count_of(&st, "context-switches") >= n);
		CU_ASSERT_TRUE(count_of(&st, "cpu-migrations") >= 0);
	}
	json_decref(st.extra);
	leak_check_end();
}

static void test_count_system(void)
{
	static const char *const kv[] = {"events", "context-switches,cpu-clock", "scope", "system",
					 NULL};
	struct tb_tracer_stats st;
	struct tb_tracer t;
	char err[256];

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	stats_init(&st);
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-count", kv, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.ops->setup(&t), 0);
	if (t.priv) {
		/* one fd per event and CPU */
		CU_ASSERT_EQUAL(tb_perf_count_fds(), 2 * sysconf(_SC_NPROCESSORS_ONLN));
		CU_ASSERT_EQUAL(perf_fds_inheritable(), 0);
		CU_ASSERT_EQUAL(t.ops->start(&t), 0);
		CU_ASSERT_EQUAL(t.ops->start(&t), -EBUSY);
		usleep(20000); /* sleeping switches context at least once */
		CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
		CU_ASSERT_EQUAL(t.ops->collect(&t, &st), 0);
		dump_extra("system", &st);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(st.extra, "cpus")),
				sysconf(_SC_NPROCESSORS_ONLN));
		CU_ASSERT_TRUE(count_of(&st, "context-switches") >= 1);
		CU_ASSERT_TRUE(count_of(&st, "cpu-clock") > 0);
		json_decref(st.extra);
	}
	tr_free(&t);
	leak_check_end();
}

static void test_count_hardware(void)
{
	static const char *const kv[] = {"events", "cycles,task-clock,instructions", NULL};
	static const char *const kv_hw[] = {"events", "cycles,instructions", NULL};
	struct tb_tracer_stats st;
	json_t *uns;
	struct tb_tracer t;
	char err[256];
	int ret;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	if (!trace_child("perf-count", kv, busy_ms, 20, &st)) {
		dump_extra("hardware", &st);
		uns = json_object_get(st.extra, "unsupported");
		CU_ASSERT_TRUE(count_of(&st, "task-clock") > 0);
		if (json_object_get(uns, "cycles")) {
			CU_ASSERT_TRUE(json_integer_value(json_object_get(
					       json_object_get(uns, "cycles"), "errno")) > 0);
		} else {
			CU_ASSERT_TRUE(count_of(&st, "cycles") > 0);
		}
	}
	json_decref(st.extra);

	/* Hardware events alone: either they count or setup fails naming them. */
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-count", kv_hw, err, sizeof(err)), 0);
	ret = t.ops->setup(&t);
	printf("\n    hardware only: setup %d (%s)\n", ret, ret ? strerror(-ret) : "opened");
	if (ret) {
		CU_ASSERT_PTR_NULL(t.priv);
	}
	tr_free(&t);
	leak_check_end();
}

static void test_count_validate(void)
{
	static const char *const bad[] = {"events", "task-clock,no-such-event", NULL};
	static const char *const badtp[] = {"events", "nosys:noevent", NULL};
	static const char *const badscope[] = {"scope", "galaxy", NULL};
	struct tb_tracer t;
	char err[256] = "";

	CU_ASSERT_EQUAL(tr_new(&t, "perf-count", bad, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "events"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no-such-event"));
	tr_free(&t);
	err[0] = '\0';
	CU_ASSERT_EQUAL(tr_new(&t, "perf-count", badtp, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nosys:noevent"));
	tr_free(&t);
	err[0] = '\0';
	CU_ASSERT_NOT_EQUAL(tr_new(&t, "perf-count", badscope, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "scope"));
	tr_free(&t);
}

static void test_count_dead_target(void)
{
	struct tb_tracer t;
	char err[256];
	pid_t pid;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	pid = fork();
	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-count", NULL, err, sizeof(err)), 0);
	t.target = pid;
	CU_ASSERT_EQUAL(t.ops->setup(&t), -ESRCH);
	tr_free(&t);
	leak_check_end();
}

/* A server's threads: its own alone, or with tree those of the processes it forked (a worker). */
static void test_threads_of_tree(void)
{
	struct perf_thread_map *m;
	int up[2], hold[2], status;
	pid_t a, b = 0;
	char c;

	CU_ASSERT_EQUAL_FATAL(pipe(up), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(hold), 0);
	a = fork();
	if (!a) {
		pid_t w = fork();

		close(up[0]);
		close(hold[1]);
		if (w > 0 && write(up[1], &w, sizeof(w)) != sizeof(w))
			_exit(1);
		close(up[1]);
		/* both wait until the test closes its end of hold */
		_exit(read(hold[0], &c, 1) == 0 ? 0 : 2);
	}
	CU_ASSERT_FATAL(a > 0);
	close(up[1]);
	close(hold[0]);
	CU_ASSERT_EQUAL(read(up[0], &b, sizeof(b)), (ssize_t)sizeof(b));
	close(up[0]);
	CU_ASSERT_FATAL(b > 0);
	m = tb_perfev_threads_of(a, false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(perf_thread_map__nr(m), 1);
	CU_ASSERT_EQUAL(perf_thread_map__pid(m, 0), a);
	perf_thread_map__put(m);
	m = tb_perfev_threads_of(a, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(perf_thread_map__nr(m), 2);
	if (perf_thread_map__nr(m) == 2)
		CU_ASSERT(perf_thread_map__pid(m, 0) == b || perf_thread_map__pid(m, 1) == b);
	perf_thread_map__put(m);
	close(hold[1]); /* both exit; the grandchild is reaped by whoever inherits it */
	waitpid(a, &status, 0);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* gone: no map, ESRCH, either way */
	errno = 0;
	CU_ASSERT_PTR_NULL(tb_perfev_threads_of(a, true));
	CU_ASSERT_EQUAL(errno, ESRCH);
	CU_ASSERT_PTR_NULL(tb_perfev_threads_of(a, false));
	CU_ASSERT_EQUAL(errno, ESRCH);
}

/* A tracepoint counted through perf: exactly the syscalls the child made. */
static void test_count_tracepoint(void)
{
	static const char *const kv[] = {"events", "syscalls:sys_enter_getpid", NULL};
	const long n = 5000;
	struct tb_tracer_stats st;
	double v;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	if (access("/sys/kernel/tracing/events/syscalls/sys_enter_getpid/id", R_OK))
		TB_SKIP("tracefs not mounted at /sys/kernel/tracing or no syscall tracepoints");
	leak_check_begin();
	if (!trace_child("perf-count", kv, getpids, n, &st)) {
		v = count_of(&st, "syscalls:sys_enter_getpid");
		printf("\n    getpid tracepoint: %.0f for %ld calls\n", v, n);
		CU_ASSERT_TRUE(v >= n && v <= n * 1.01);
		CU_ASSERT_EQUAL(st.events, (int64_t)v);
	}
	json_decref(st.extra);
	leak_check_end();
}

/* Two windows on one setup: the second reports only what happened in it. */
static void test_count_windows_self(void)
{
	static const char *const kv[] = {"events", "page-faults", NULL};
	const long n = 1000;
	struct tb_tracer_stats st;
	struct tb_tracer t;
	char err[256];

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	stats_init(&st);
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-count", kv, err, sizeof(err)), 0);
	/* target 0: the workload runs in this process, its threads are counted */
	CU_ASSERT_EQUAL(t.ops->setup(&t), 0);
	if (t.priv) {
		CU_ASSERT_EQUAL(t.ops->start(&t), 0);
		touch_pages(n);
		CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
		CU_ASSERT_EQUAL(t.ops->collect(&t, &st), 0);
		CU_ASSERT_TRUE(count_of(&st, "page-faults") >= n);
		json_decref(st.extra);
		stats_init(&st);
		CU_ASSERT_EQUAL(t.ops->start(&t), 0);
		CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
		CU_ASSERT_EQUAL(t.ops->collect(&t, &st), 0);
		dump_extra("second, empty window", &st);
		CU_ASSERT_TRUE(count_of(&st, "page-faults") >= 0);
		CU_ASSERT_TRUE(count_of(&st, "page-faults") < n);
		json_decref(st.extra);
	}
	tr_free(&t);
	leak_check_end();
}

/* ---- perf-sample ---------------------------------------------------------------------------- */

static void test_sample_busy(void)
{
	static const char *const kv[] = {"frequency", "999", NULL};
	struct tb_tracer_stats st;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	test_consumer_cpu = 0;
	if (!trace_child("perf-sample", kv, busy_ms, 300, &st)) {
		dump_extra("999 Hz busy", &st);
		CU_ASSERT_TRUE(st.events > 0);
		CU_ASSERT_EQUAL(st.events,
				json_integer_value(json_object_get(st.extra, "samples")));
		CU_ASSERT_TRUE(st.lost >= 0);
		CU_ASSERT_TRUE(st.cpu_s > 0); /* the reader thread's CPU clock was read */
		CU_ASSERT_EQUAL(st.mem_bytes,
				sysconf(_SC_NPROCESSORS_ONLN) * 129 * sysconf(_SC_PAGESIZE));
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(st.extra, "frequency_hz")), 999);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(st.extra, "consumer_cpu")), 0);
	}
	test_consumer_cpu = -1;
	json_decref(st.extra);
	leak_check_end();
}

static void test_sample_tiny_buffer(void)
{
	static const char *const kv[] = {"frequency",  "10000", "callgraph", "true",
					 "mmap-pages", "1",	NULL};
	struct tb_tracer_stats st;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	if (!trace_child("perf-sample", kv, busy_ms, 200, &st)) {
		dump_extra("10 kHz callgraph, 1 page", &st);
		CU_ASSERT_TRUE(st.events > 0);
		CU_ASSERT_TRUE(st.lost >= 0);
		CU_ASSERT_TRUE(json_is_true(json_object_get(st.extra, "callgraph")));
	}
	json_decref(st.extra);
	leak_check_end();
}

static void test_sample_no_consumer(void)
{
	static const char *const kv[] = {"frequency", "999", "consumer", "false", NULL};
	struct tb_tracer_stats st;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	if (!trace_child("perf-sample", kv, busy_ms, 100, &st)) {
		dump_extra("no consumer", &st);
		CU_ASSERT_TRUE(st.events > 0); /* drained once at stop */
	}
	json_decref(st.extra);
	leak_check_end();
}

static void test_sample_system_output(void)
{
	static const char *const kv[] = {"scope", "system", "output", "true", NULL};
	struct tb_tracer_stats st;
	const char *path;
	struct tb_tracer t;
	char err[256];
	char *data = NULL;
	size_t len = 0;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	stats_init(&st);
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-sample", kv, err, sizeof(err)), 0);
	t.name = "sys/out"; /* a section name is no path */
	CU_ASSERT_EQUAL(t.ops->setup(&t), 0);
	if (t.priv) {
		CU_ASSERT_EQUAL(tb_perf_count_fds(), sysconf(_SC_NPROCESSORS_ONLN));
		CU_ASSERT_EQUAL(perf_fds_inheritable(), 0);
		CU_ASSERT_EQUAL(t.ops->start(&t), 0);
		CU_ASSERT_EQUAL(t.ops->start(&t), -EBUSY);
		usleep(150000); /* cpu-clock samples idle CPUs too: 99 Hz x 2 CPUs */
		CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
		CU_ASSERT_EQUAL(t.ops->collect(&t, &st), 0);
		dump_extra("system 99 Hz", &st);
		CU_ASSERT_TRUE(st.events > 0);
		path = json_string_value(json_object_get(st.extra, "output"));
		CU_ASSERT_PTR_NOT_NULL(path);
		if (path) {
			CU_ASSERT_PTR_NOT_NULL(strstr(path, "/sys_out.perf-records"));
			CU_ASSERT_EQUAL(tb_read_file(path, &data, &len), 0);
			CU_ASSERT_EQUAL((json_int_t)len,
					json_integer_value(json_object_get(st.extra, "bytes")));
			CU_ASSERT_TRUE(len > 0);
			free(data);
		}
		json_decref(st.extra);
	}
	tr_free(&t);
	leak_check_end();
}

/* The sampled process exits inside the window: its fds hang up, the reader must not spin. */
static void test_sample_target_exits(void)
{
	static const char *const kv[] = {"frequency", "999", NULL};
	struct tb_tracer_stats st;
	struct tb_tracer t;
	char err[256], b = 1;
	int go[2];
	pid_t pid;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	stats_init(&st);
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-sample", kv, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(go), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		close(go[1]);
		if (read(go[0], &b, 1) == 1)
			busy_ms(100);
		_exit(0);
	}
	close(go[0]);
	t.target = pid;
	CU_ASSERT_EQUAL(t.ops->setup(&t), 0);
	if (t.priv) {
		CU_ASSERT_EQUAL(t.ops->start(&t), 0);
		CU_ASSERT_EQUAL(write(go[1], &b, 1), 1);
		CU_ASSERT_EQUAL(waitpid(pid, NULL, 0), pid);
		pid = 0;
		usleep(200000); /* the reader sees POLLHUP here */
		CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
		CU_ASSERT_EQUAL(t.ops->collect(&t, &st), 0);
		dump_extra("target exited", &st);
		CU_ASSERT_TRUE(st.events > 0);
		/* A reader spinning on the hung-up fds would burn most of the 200 ms. */
		CU_ASSERT_TRUE(st.cpu_s < 0.05);
		json_decref(st.extra);
	}
	close(go[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	tr_free(&t);
	leak_check_end();
}

/* A hardware event: samples, or setup fails naming it; the supported() probe says yes. */
static void test_sample_hardware(void)
{
	static const char *const kv[] = {"event", "cycles", NULL};
	struct tb_tracer t;
	char err[256], why[256] = "";
	int ret;

	if (!need_root())
		TB_SKIP("needs root for perf events");
	leak_check_begin();
	CU_ASSERT_EQUAL(tb_tracer_find("perf-sample")->supported(why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(tb_tracer_find("perf-count")->supported(why, sizeof(why)), 0);
	if (why[0])
		printf("\n    supported: %s\n", why);
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-sample", kv, err, sizeof(err)), 0);
	ret = t.ops->setup(&t);
	printf("\n    perf-sample cycles: setup %d (%s)\n", ret, ret ? strerror(-ret) : "opened");
	if (ret) {
		CU_ASSERT_PTR_NULL(t.priv);
	}
	tr_free(&t);
	leak_check_end();
}

static void test_sample_records(void)
{
	struct tb_perf_rec_stats rs = {0};
	struct perf_event_header sample = {PERF_RECORD_SAMPLE, 0, sizeof(sample)};
	struct perf_event_header throttle = {PERF_RECORD_THROTTLE, 0, 32};
	struct perf_event_header shortlost = {PERF_RECORD_LOST, 0, sizeof(shortlost)};
	struct {
		struct perf_event_header h;
		uint64_t id, lost;
	} lost = {{PERF_RECORD_LOST, 0, sizeof(lost)}, 7, 42};
	struct {
		struct perf_event_header h;
		uint64_t lost;
	} lost_samples = {{PERF_RECORD_LOST_SAMPLES, 0, sizeof(lost_samples)}, 5};

	CU_ASSERT_EQUAL(tb_perf_rec_account(&rs, &sample), 0);
	CU_ASSERT_EQUAL(tb_perf_rec_account(&rs, &lost), 0);
	CU_ASSERT_EQUAL(tb_perf_rec_account(&rs, &lost), 0);
	CU_ASSERT_EQUAL(tb_perf_rec_account(&rs, &lost_samples), 0);
	CU_ASSERT_EQUAL(tb_perf_rec_account(&rs, &throttle), 0);
	CU_ASSERT_EQUAL(tb_perf_rec_account(&rs, &shortlost), -EINVAL);
	CU_ASSERT_EQUAL(rs.samples, 1);
	CU_ASSERT_EQUAL(rs.lost, 84);
	CU_ASSERT_EQUAL(rs.lost_records, 2);
	CU_ASSERT_EQUAL(rs.lost_samples, 5);
	CU_ASSERT_EQUAL(rs.throttle, 1);
	CU_ASSERT_EQUAL(rs.other, 1);
	CU_ASSERT_EQUAL(rs.bytes, sizeof(sample) + 2 * sizeof(lost) + sizeof(lost_samples) + 32 +
					  sizeof(shortlost));
}

static void test_sample_validate(void)
{
	static const char *const cases[][3] = {
		{"event", "no-such-event", "event"},   {"frequency", "-5", "frequency"},
		{"frequency", "1000000", "frequency"}, {"frequency", "many", "frequency"},
		{"mmap-pages", "3", "mmap-pages"},     {"mmap-pages", "0", "mmap-pages"},
		{"scope", "galaxy", "scope"},
	};
	static const char *const both[] = {"frequency", "99", "period", "1000", NULL};
	static const char *const deep[] = {"callgraph", "true", "max-stack", "65535", NULL};
	const char *kv[3] = {NULL, NULL, NULL};
	struct tb_tracer t;
	char err[256];
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(cases); i++) {
		kv[0] = cases[i][0];
		kv[1] = cases[i][1];
		err[0] = '\0';
		CU_ASSERT_NOT_EQUAL(tr_new(&t, "perf-sample", kv, err, sizeof(err)), 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(err, cases[i][2]));
		tr_free(&t);
	}
	err[0] = '\0';
	CU_ASSERT_EQUAL(tr_new(&t, "perf-sample", both, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "period"));
	tr_free(&t);
	err[0] = '\0';
	CU_ASSERT_EQUAL(tr_new(&t, "perf-sample", deep, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "max-stack"));
	tr_free(&t);
	/* Out of order calls are refused, not crashes. */
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-sample", NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.ops->start(&t), -EINVAL);
	CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
	tr_free(&t);
	CU_ASSERT_EQUAL_FATAL(tr_new(&t, "perf-count", NULL, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.ops->start(&t), -EINVAL);
	CU_ASSERT_EQUAL(t.ops->stop(&t), 0);
	tr_free(&t);
}

/* The option tables are well formed: defaults parse, `list` can print them. */
static void test_option_tables(void)
{
	static const char *const names[] = {"perf-count", "perf-sample"};
	char *buf = NULL;
	size_t len = 0, i;
	struct tb_tracer t;
	char err[256];
	FILE *f;

	for (i = 0; i < TB_ARRAY_SIZE(names); i++) {
		CU_ASSERT_EQUAL_FATAL(tr_new(&t, names[i], NULL, err, sizeof(err)), 0);
		f = open_memstream(&buf, &len);
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		tb_opts_print(f, t.ops->opts, "  ");
		fclose(f);
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, "scope"));
		CU_ASSERT_PTR_NOT_NULL(strstr(buf, i ? "mmap-pages" : "events"));
		free(buf);
		buf = NULL;
		tr_free(&t);
	}
}

static CU_TestInfo perf_tests[] = {
	{"a process's threads, and its tree's", test_threads_of_tree},
	{"option tables", test_option_tables},
	{"count page faults", test_count_page_faults},
	{"count context switches", test_count_context_switches},
	{"count system scope", test_count_system},
	{"count hardware events", test_count_hardware},
	{"count validate", test_count_validate},
	{"count dead target", test_count_dead_target},
	{"count tracepoint", test_count_tracepoint},
	{"count two windows, self", test_count_windows_self},
	{"sample busy child", test_sample_busy},
	{"sample target exits", test_sample_target_exits},
	{"sample tiny buffer", test_sample_tiny_buffer},
	{"sample without consumer", test_sample_no_consumer},
	{"sample system output", test_sample_system_output},
	{"sample hardware event", test_sample_hardware},
	{"sample records", test_sample_records},
	{"sample validate", test_sample_validate},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-perf", NULL, NULL, perf_tests);
