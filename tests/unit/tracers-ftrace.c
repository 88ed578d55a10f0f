// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace tracers against the real kernel: exact event counts on a getpid loop, streaming,
 * lost events with a tiny buffer, bad configurations, and the tracing state left unchanged.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "host/armed.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "host/tracefs.h"
#include "host/tracing-state.h"
#include "tracers/ftrace-common.h"
#include "tb_test.h"
#include "tracers/tracer.h"

struct loop_arg {
	uint64_t n;
	int go;
};

static void *getpid_thread(void *arg)
{
	struct loop_arg *a = arg;
	uint64_t i;
	char c;

	if (a->go >= 0 && read(a->go, &c, 1) != 1)
		return NULL;
	for (i = 0; i < a->n; i++)
		syscall(SYS_getpid);
	return NULL;
}

/*
 * Threads: one exists before setup (found through /proc/<pid>/task), one is created after
 * start (followed through event-fork), and a forked grandchild too; n getpid calls each.
 */
static pid_t spawn_threaded_loop(uint64_t n, int *go_fd)
{
	int fds[2], inner[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct loop_arg early = {n, -1}, late = {n, -1};
		pthread_t a, b;
		pid_t gc;
		char c;

		close(fds[1]);
		if (pipe(inner))
			_exit(3);
		early.go = inner[0];
		if (pthread_create(&a, NULL, getpid_thread, &early))
			_exit(3);
		if (read(fds[0], &c, 1) != 1)
			_exit(2);
		if (write(inner[1], "g", 1) != 1)
			_exit(3);
		if (pthread_create(&b, NULL, getpid_thread, &late))
			_exit(3);
		gc = fork();
		if (gc == 0) {
			getpid_thread(&late);
			_exit(0);
		}
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		waitpid(gc, NULL, 0);
		_exit(0);
	}
	close(fds[0]);
	*go_fd = fds[1];
	return pid;
}

static bool threaded;

struct kv {
	const char *key, *val;
};

/*
 * Configure tracer type with kv (NULL-terminated), and run it around n getpid calls of a
 * child. Returns the setup/validate error, or 0 with st filled (st->extra owned by caller).
 */
static int run_traced(const char *type, const struct kv *kv, uint64_t n, struct tb_tracer_stats *st,
		      char *err, size_t errlen)
{
	const struct tb_tracer_ops *ops = tb_tracer_find(type);
	struct tb_tracer t = {.ops = ops, .name = "test-tracer", .consumer_cpu = -1};
	int go = -1, status, ret;
	pid_t child = -1;
	void *cfg;

	memset(st, 0xff, sizeof(*st));
	st->extra = NULL;
	err[0] = '\0';
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	cfg = calloc(1, ops->cfg_size ? ops->cfg_size : 1);
	CU_ASSERT_EQUAL_FATAL(tb_opts_defaults(ops->opts, cfg), 0);
	for (; kv && kv->key; kv++)
		CU_ASSERT_EQUAL_FATAL(tb_opts_set(ops->opts, cfg, kv->key, kv->val, err, errlen),
				      0);
	t.cfg = cfg;
	t.dir = tb_test_tmpdir_open();
	t.outdir = t.dir ? t.dir->path : NULL;
	ret = ops->validate ? ops->validate(cfg, err, errlen) : 0;
	if (ret)
		goto out;
	child = threaded ? spawn_threaded_loop(n, &go) : tb_test_spawn_getpid_loop(n, &go);
	CU_ASSERT_FATAL(child > 0);
	if (threaded)
		usleep(100000); /* let the early thread exist before setup lists the tasks */
	t.target = child;
	ret = ops->setup(&t);
	if (ret)
		goto out;
	ret = ops->start(&t);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT_EQUAL(write(go, "g", 1), 1);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	child = -1;
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(ops->stop(&t), 0);
	CU_ASSERT_EQUAL(ops->collect(&t, st), 0);
	ops->teardown(&t);
	ops->teardown(&t); /* idempotent */
out:
	if (ret)
		ops->teardown(&t);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (go >= 0)
		close(go);
	tb_opts_free(ops->opts, cfg);
	free(cfg);
	return ret;
}

static void within_1pct(int64_t got, uint64_t want)
{
	double d = (double)got - (double)want;

	if (d < 0)
		d = -d;
	if (d > (double)want / 100)
		fprintf(stderr, "\n    got %lld, expected %llu within 1%%\n", (long long)got,
			(unsigned long long)want);
	CU_ASSERT(d <= (double)want / 100);
}

static void test_getpid_exact(void)
{
	static const struct kv kv[] = {
		{"events", "syscalls:sys_enter_getpid"}, {"buffer-size", "8M"}, {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];
	const uint64_t n = 100000;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(run_traced("ftrace-events", kv, n, &st, err, sizeof(err)), 0);
	printf("\n    %llu getpid: events %lld, lost %lld ", (unsigned long long)n,
	       (long long)st.events, (long long)st.lost);
	within_1pct(st.events, n);
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT(st.mem_bytes >= 8 << 20);
	CU_ASSERT_PTR_NOT_NULL(st.extra);
	json_decref(st.extra);
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_many_events(void)
{
	static const struct kv kv[] = {
		{"events", "syscalls:sys_enter_*"}, {"buffer-size", "4M"}, {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];
	const uint64_t n = 10000;
	json_int_t enabled;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(run_traced("ftrace-events", kv, n, &st, err, sizeof(err)), 0);
	enabled = json_integer_value(json_object_get(st.extra, "events_enabled"));
	printf("\n    %lld events enabled: %lld recorded ", (long long)enabled,
	       (long long)st.events);
	CU_ASSERT(enabled > 100);
	/* every getpid, plus the few other syscalls of the child (exit_group, write) */
	CU_ASSERT(st.events >= (int64_t)n &&
		  (st.events <= (int64_t)n + 100 || tb_test_under_valgrind()));
	json_decref(st.extra);
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_threads_followed(void)
{
	static const struct kv kv[] = {
		{"events", "syscalls:sys_enter_getpid"}, {"buffer-size", "8M"}, {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];
	const uint64_t n = 20000;
	int ret;

	TB_NEED_TRACING();
	threaded = true;
	ret = run_traced("ftrace-events", kv, n, &st, err, sizeof(err));
	threaded = false;
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	/* early thread + late thread + grandchild */
	within_1pct(st.events, 3 * n);
	json_decref(st.extra);
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_glob_and_filter(void)
{
	/* Every syscall entry of the child, filtered down to getpid by the filter expression. */
	static const struct kv kv[] = {{"events", "raw_syscalls:sys_ent*"},
				       {"filter", "id == 39"},
				       {"buffer-size", "8M"},
				       {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];
	const uint64_t n = 50000;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(run_traced("ftrace-events", kv, n, &st, err, sizeof(err)), 0);
	within_1pct(st.events, n);
	json_decref(st.extra);
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_stream(void)
{
	static const struct kv kv[] = {{"events", "syscalls:sys_enter_getpid"},
				       {"consumer", "stream"},
				       {"buffer-size", "4M"},
				       {"keep-raw", "true"},
				       {NULL, NULL}};
	static const struct kv deleted[] = {
		{"events", "syscalls:sys_enter_getpid"}, {"consumer", "stream"}, {NULL, NULL}};
	struct tb_tracer_stats st;
	const char *file;
	json_int_t bytes, read;
	char err[256];
	const uint64_t n = 200000;
	FILE *f;
	long size = 0;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(run_traced("ftrace-events", kv, n, &st, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st.extra);
	file = json_string_value(json_object_get(st.extra, "stream_file"));
	bytes = json_integer_value(json_object_get(st.extra, "stream_bytes"));
	read = json_integer_value(json_object_get(st.extra, "read"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	f = fopen(file, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	/* What the reader consumed is in the file; nothing is counted twice or missed. */
	CU_ASSERT(bytes > 0);
	CU_ASSERT(size >= bytes);
	CU_ASSERT(read > 0);
	CU_ASSERT_EQUAL(st.disk_bytes, bytes);
	printf("\n    stream: events %lld (read %lld), lost %lld, %lld bytes, cpu %.3fs ",
	       (long long)st.events, (long long)read, (long long)st.lost, (long long)bytes,
	       st.cpu_s);
	within_1pct(st.events + st.lost, n);
	CU_ASSERT(st.cpu_s >= 0);
	unlink(file);
	json_decref(st.extra);
	/* Without keep-raw the stream is written, counted and deleted (issue 15). */
	CU_ASSERT_EQUAL_FATAL(run_traced("ftrace-events", deleted, n, &st, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(st.extra);
	file = json_string_value(json_object_get(st.extra, "stream_file"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	CU_ASSERT(access(file, F_OK) != 0);
	CU_ASSERT(st.disk_bytes > 0);
	CU_ASSERT_EQUAL(st.disk_bytes,
			json_integer_value(json_object_get(st.extra, "stream_bytes")));
	json_decref(st.extra);
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_tiny_buffer_loses(void)
{
	static const struct kv kv[] = {{"events", "syscalls:sys_enter_getpid"},
				       {"buffer-size", "4K"},
				       {"overwrite", "false"},
				       {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];
	const uint64_t n = 100000;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(run_traced("ftrace-events", kv, n, &st, err, sizeof(err)), 0);
	printf("\n    4K buffer: events %lld, lost %lld ", (long long)st.events,
	       (long long)st.lost);
	CU_ASSERT(st.lost > 0);
	CU_ASSERT(st.events < (int64_t)n);
	within_1pct(st.events + st.lost, n);
	json_decref(st.extra);
	tb_test_assert_tracing_unchanged("ftrace");
}

/* One start..stop window of t around n getpid calls of a new child that t targets. */
static void rearm_window(struct tb_tracer *t, uint64_t n, bool rearm, struct tb_tracer_stats *st)
{
	int go = -1, status;
	pid_t child = tb_test_spawn_getpid_loop(n, &go);

	CU_ASSERT_FATAL(child > 0);
	t->target = child;
	CU_ASSERT_EQUAL(rearm ? t->ops->rearm(t) : t->ops->setup(t), 0);
	CU_ASSERT_EQUAL(t->ops->start(t), 0);
	CU_ASSERT_EQUAL(write(go, "g", 1), 1);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(t->ops->stop(t), 0);
	st->extra = NULL;
	CU_ASSERT_EQUAL(t->ops->collect(t, st), 0);
	close(go);
}

/*
 * reuse-tracers: a rearmed instance is what a fresh one would be. The first window overflows a
 * 4K buffer (dropped events); parked, the instance holds no pid list and no fork following, and
 * its buffer was read out (drained, not reset: its counters stay, as the next window's base);
 * after the rearm the second window, of another process, counts its own getpid calls only and
 * loses nothing, in the same instance, re-pointed to the new pid.
 */
static void test_rearm(void)
{
	static const struct kv kv[] = {{"events", "syscalls:sys_enter_getpid"},
				       {"buffer-size", "4K"},
				       {"overwrite", "false"},
				       {NULL, NULL}};
	const struct tb_tracer_ops *ops = tb_tracer_find("ftrace-events");
	struct tb_tracer t = {.ops = ops, .name = "test-rearm", .consumer_cpu = -1};
	struct tb_tracer_stats st;
	char err[256], *pids, name1[256] = "", want[32];
	struct tracefs_instance *inst;
	void *cfg;

	TB_NEED_TRACING();
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->rearm);
	cfg = calloc(1, ops->cfg_size);
	CU_ASSERT_EQUAL_FATAL(tb_opts_defaults(ops->opts, cfg), 0);
	for (const struct kv *p = kv; p->key; p++)
		CU_ASSERT_EQUAL_FATAL(tb_opts_set(ops->opts, cfg, p->key, p->val, err, sizeof(err)),
				      0);
	t.cfg = cfg;
	t.dir = tb_test_tmpdir_open();
	t.outdir = t.dir ? t.dir->path : NULL;
	rearm_window(&t, 100000, false, &st);
	CU_ASSERT(st.lost > 0);
	if (st.extra)
		snprintf(name1, sizeof(name1), "%s",
			 json_string_value(json_object_get(st.extra, "instance")));
	json_decref(st.extra);
	t.target = 0; /* park: the idle instance keeps no pid list and no fork following */
	CU_ASSERT_EQUAL(ops->rearm(&t), 0);
	inst = ((struct tb_ftrace *)t.priv)->inst;
	pids = tracefs_instance_file_read(inst, "set_event_pid", NULL);
	CU_ASSERT(!pids || !*pids);
	free(pids);
	CU_ASSERT(!tracefs_option_is_enabled(inst, TRACEFS_OPTION_EVENT_FORK));
	{
		/* Drained, not reset: empty, its counters kept as the next window's base. */
		struct tb_ftrace_bufstats bs;

		CU_ASSERT_EQUAL(tb_ftrace_bufstats_read(inst, &bs, NULL), 0);
		CU_ASSERT_EQUAL(bs.entries, 0);
		CU_ASSERT(bs.dropped > 0 && bs.read > 0);
		CU_ASSERT_EQUAL(bs.dropped, ((struct tb_ftrace *)t.priv)->base.dropped);
	}
	rearm_window(&t, 50, true, &st);
	CU_ASSERT(tracefs_option_is_enabled(inst, TRACEFS_OPTION_EVENT_FORK));
	printf("\n    after the rearm: events %lld, lost %lld ", (long long)st.events,
	       (long long)st.lost);
	CU_ASSERT_EQUAL(st.events, 50);
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st.extra, "instance")), name1);
	json_decref(st.extra);
	pids = tracefs_instance_file_read(inst, "set_event_pid", NULL);
	snprintf(want, sizeof(want), "%d\n", (int)t.target);
	CU_ASSERT(pids && !strcmp(pids, want));
	free(pids);
	ops->teardown(&t);
	tb_opts_free(ops->opts, cfg);
	free(cfg);
	tb_test_assert_tracing_unchanged("ftrace");
}

/* A flight recorder (overwrite on, no reader) pays for every event: overwritten is recorded. */
static void test_flight_recorder(void)
{
	static const struct kv kv[] = {{"events", "syscalls:sys_enter_getpid"},
				       {"buffer-size", "4K"},
				       {"overwrite", "true"},
				       {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];
	const uint64_t n = 100000;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(run_traced("ftrace-events", kv, n, &st, err, sizeof(err)), 0);
	printf("\n    4K flight recorder: events %lld, lost %lld, overwritten %lld ",
	       (long long)st.events, (long long)st.lost,
	       (long long)json_integer_value(json_object_get(st.extra, "overwritten")));
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT(json_integer_value(json_object_get(st.extra, "overwritten")) > 0);
	within_1pct(st.events, n);
	json_decref(st.extra);
	tb_test_assert_tracing_unchanged("ftrace");
}

/* buffer-size = auto's arithmetic, from the kernel's own event formats. */
static void test_auto_size(void)
{
	struct tb_hook_expect ex[] = {{"raw_syscalls:sys_enter", 1, false},
				      {"raw_syscalls:sys_exit", 1, false}};
	struct tb_ftrace_cfg c = {.pid_filter = TB_FTRACE_PID_WORKLOAD,
				  .consumer = TB_FTRACE_CONSUMER_STREAM};
	int cpus[] = {1};
	struct tb_tracer t = {.name = "auto",
			      .sample_ops = 1000000,
			      .threads = 1,
			      .cpus = cpus,
			      .ncpus = 1,
			      .expect = ex,
			      .nexpect = 2};
	uint64_t need, size;
	bool capped;

	TB_NEED_TRACING();
	/* sys_enter: 8 common + 8 id + 48 args = 64 bytes, + 4 of header; sys_exit: 8 + 8 + 8 */
	size = tb_ftrace_auto_size(&t, &c, &need, &capped);
	CU_ASSERT_FALSE(capped);
	CU_ASSERT_EQUAL(size, need);
	CU_ASSERT_DOUBLE_EQUAL((double)size,
			       1e6 * (68 + 28) * 1.25 * 4096 / 4080 + (double)TB_FTRACE_AUTO_MIN,
			       1e6 * 8); /* within 8 bytes an op of the format's exact sizes */
	/* two threads on one CPU need twice as much */
	t.threads = 2;
	CU_ASSERT(tb_ftrace_auto_size(&t, &c, &need, &capped) > size * 1.9);
	t.threads = 1;
	/* a flight recorder keeps only the newest: the minimum */
	c.consumer = TB_FTRACE_CONSUMER_DISCARD;
	c.overwrite = true;
	CU_ASSERT_EQUAL(tb_ftrace_auto_size(&t, &c, &need, &capped), TB_FTRACE_AUTO_MIN);
	c.overwrite = false;
	/* what no memory holds is capped, and said */
	t.sample_ops = 1ull << 40;
	size = tb_ftrace_auto_size(&t, &c, &need, &capped);
	CU_ASSERT_TRUE(capped);
	CU_ASSERT(size < need);
	/* an unknown expectation gets the minimum */
	ex[0].per_op = NAN;
	t.sample_ops = 1000;
	CU_ASSERT_EQUAL(tb_ftrace_auto_size(&t, &c, &need, &capped), TB_FTRACE_AUTO_MIN);
}

static void test_unknown_event(void)
{
	static const struct kv kv[] = {{"events", "syscalls:sys_enter_getpid, nosuch:event_x"},
				       {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];

	TB_NEED_TRACING();
	CU_ASSERT_NOT_EQUAL(run_traced("ftrace-events", kv, 10, &st, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "nosuch:event_x"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "events"));
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_bad_filter(void)
{
	static const struct kv kv[] = {{"events", "syscalls:sys_enter_getpid"},
				       {"filter", "no_such_field == 1 &&"},
				       {NULL, NULL}};
	struct tb_tracer_stats st;
	char err[256];

	char path[300], *log = NULL;
	size_t len;
	int saved, fd;

	TB_NEED_TRACING();
	/* The error goes to the log (stderr): capture it to check what it names. */
	snprintf(path, sizeof(path), "%s/stderr", tb_test_tmpdir());
	fflush(stderr);
	saved = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	CU_ASSERT_NOT_EQUAL(run_traced("ftrace-events", kv, 10, &st, err, sizeof(err)), 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &log, &len), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "filter"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "syscalls:sys_enter_getpid"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "test-tracer"));
	free(log);
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_events_expand(void)
{
	struct tb_strlist specs, out;
	char err[128];
	size_t i;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(tb_split_list("sched:sched_switch, sched:sched_switc*", &specs), 0);
	CU_ASSERT_EQUAL(tb_tracefs_events_expand(&specs, &out, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(out.n, 1); /* duplicates merged */
	CU_ASSERT_STRING_EQUAL(out.v[0], "sched:sched_switch");
	tb_strlist_free(&out);
	tb_strlist_free(&specs);
	CU_ASSERT_EQUAL_FATAL(tb_split_list("syscalls:sys_enter_*", &specs), 0);
	CU_ASSERT_EQUAL(tb_tracefs_events_expand(&specs, &out, err, sizeof(err)), 0);
	CU_ASSERT(out.n > 100);
	for (i = 0; i < out.n; i++)
		CU_ASSERT(!strncmp(out.v[i], "syscalls:sys_enter_", 19));
	tb_strlist_free(&out);
	tb_strlist_free(&specs);
	CU_ASSERT_EQUAL_FATAL(tb_split_list("sched", &specs), 0);
	CU_ASSERT_EQUAL(tb_tracefs_events_expand(&specs, &out, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "system:event"));
	tb_strlist_free(&specs);
}

static void test_instance_names(void)
{
	char buf[256];

	tb_tracefs_instance_name(buf, sizeof(buf), 123, "tp getpid/x");
	CU_ASSERT_STRING_EQUAL(buf, "tracebench-123-tp_getpid_x");
	CU_ASSERT_EQUAL(tb_tracefs_instance_owner(buf), 123);
	CU_ASSERT_EQUAL(tb_tracefs_instance_owner("tracebench-x-1"), 0);
	CU_ASSERT_EQUAL(tb_tracefs_instance_owner("foo-123-x"), 0);
	CU_ASSERT_EQUAL(tb_tracefs_instance_owner("tracebench-99"), 0);
}

static void test_state_diff(void)
{
	json_t *a, *b;
	char *d;

	a = json_pack("{s:s, s:s, s:[], s:s, s:s, s:[s], s:[{s:i, s:s, s:s}]}", "current_tracer",
		      "nop", "tracing_on", "1", "set_event", "set_event_pid", "", "set_ftrace_pid",
		      "", "instances", "x", "bpf_progs", "id", 5, "type", "kprobe", "name", "p");
	b = json_deep_copy(a);
	CU_ASSERT_PTR_NULL(tb_tracing_state_diff(a, b));
	json_object_set_new(b, "current_tracer", json_string("function"));
	json_array_append_new(json_object_get(b, "instances"), json_string("y"));
	json_array_clear(json_object_get(b, "bpf_progs"));
	d = tb_tracing_state_diff(a, b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "current_tracer: 'nop' -> 'function'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "instances: +y"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d, "bpf_progs: -5 (kprobe p)"));
	free(d);
	d = tb_tracing_state_diff_filtered(a, b, "z", false);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_PTR_NULL(strstr(d, "instances"));
	CU_ASSERT_PTR_NULL(strstr(d, "bpf_progs"));
	free(d);
	json_decref(a);
	json_decref(b);
}

static bool foreign_has(const char *needle)
{
	json_t *f = tb_foreign_instrumentation(), *v;
	bool seen = false;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	json_array_foreach(f, i, v) if (strstr(json_string_value(v), needle)) seen = true;
	json_decref(f);
	return seen;
}

static void test_foreign(void)
{
	struct tracefs_instance *inst = NULL, *other;
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	struct bpf_prog_info info = {0};
	__u32 ilen = sizeof(info);
	char name[64], id[32];
	int fd;

	TB_NEED_TRACING();
	/* Our own instance is not foreign; another one is. */
	CU_ASSERT_EQUAL_FATAL(tb_tracefs_instance_new("foreign-test", &inst), 0);
	CU_ASSERT_FALSE(foreign_has("foreign-test"));
	snprintf(name, sizeof(name), "tbtest-foreign-%d", (int)getpid());
	other = tracefs_instance_create(name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	/* idle, it instruments nothing (and must not make every run exit 3); enabled, it does */
	CU_ASSERT_FALSE(foreign_has(name));
	CU_ASSERT_EQUAL(tracefs_event_enable(other, "syscalls", "sys_enter_getpid"), 0);
	CU_ASSERT_TRUE(foreign_has(name));
	tracefs_event_disable(other, NULL, NULL);
	tracefs_instance_destroy(other);
	tracefs_instance_free(other);
	CU_ASSERT_FALSE(foreign_has(name));
	CU_ASSERT_EQUAL(tb_tracefs_instance_remove(&inst), 0);
	CU_ASSERT_PTR_NULL(inst);
	CU_ASSERT_EQUAL(tb_tracefs_instance_remove(&inst), 0);

	/* A tracing-type BPF program is foreign until it is in our armed record. */
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "tb_foreign_t", "GPL", insns, 2, NULL);
	if (fd < 0) {
		tb_test_assert_tracing_unchanged("ftrace");
		TB_SKIP("cannot load a BPF program");
	}
	CU_ASSERT_EQUAL_FATAL(bpf_obj_get_info_by_fd(fd, &info, &ilen), 0);
	snprintf(id, sizeof(id), "%u", info.id);
	CU_ASSERT_TRUE(foreign_has("tb_foreign_t"));
	CU_ASSERT_EQUAL(tb_armed_add(TB_ARMED_BPF_PROG, id), 0);
	CU_ASSERT_FALSE(foreign_has("tb_foreign_t"));
	CU_ASSERT_EQUAL(tb_armed_remove(TB_ARMED_BPF_PROG, id), 0);
	close(fd);
	tb_test_assert_tracing_unchanged("ftrace");
}

static void test_function_filter_compose(void)
{
	struct tb_strlist l;
	char err[128], *text;

	CU_ASSERT_EQUAL_FATAL(tb_split_list("vfs_read, vfs_*,__x64_sys_getpid", &l), 0);
	text = tb_ftrace_filter_compose(&l, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(text, "vfs_read\nvfs_*\n__x64_sys_getpid\n");
	free(text);
	tb_strlist_free(&l);
	memset(&l, 0, sizeof(l));
	text = tb_ftrace_filter_compose(&l, err, sizeof(err)); /* empty: every function */
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_STRING_EQUAL(text, "");
	free(text);
	CU_ASSERT_EQUAL_FATAL(tb_split_list("!vfs_read", &l), 0);
	CU_ASSERT_PTR_NULL(tb_ftrace_filter_compose(&l, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "negation"));
	tb_strlist_free(&l);
	CU_ASSERT_EQUAL_FATAL(tb_split_list("vfs read", &l), 0);
	CU_ASSERT_PTR_NULL(tb_ftrace_filter_compose(&l, err, sizeof(err)));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "vfs read"));
	tb_strlist_free(&l);
}

static void test_function_tracer(void)
{
	static const struct kv kv[] = {{"filter", "__x64_sys_getpid, __do_sys_getpid"},
				       {"buffer-size", "8M"},
				       {NULL, NULL}};
	const struct tb_tracer_ops *ops = tb_tracer_find("ftrace-function");
	struct tb_tracer_stats st;
	char why[256] = "", err[256];
	int sup, ret;

	TB_NEED_TRACING();
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops);
	sup = ops->supported(why, sizeof(why));
	ret = run_traced("ftrace-function", kv, 20000, &st, err, sizeof(err));
	if (!sup) {
		/* A kernel that allows it: the filtered getpid functions were traced. */
		CU_ASSERT_EQUAL(ret, 0);
		CU_ASSERT(st.events >= 20000);
		json_decref(st.extra);
	} else {
		printf("\n    function tracer: %s ", why);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "current_tracer") ? why
								     : strstr(why, "tracefs"));
		if (sup == -EPERM)
			CU_ASSERT_STRING_EQUAL(
				why,
				"writing 'function' to current_tracer: Operation not permitted");
		/* setup refuses with the probed reason, and leaves nothing armed. */
		CU_ASSERT_EQUAL(ret, sup);
		CU_ASSERT(tb_test_armed_record_empty());
	}
	tb_test_assert_tracing_unchanged("ftrace");
}

static CU_TestInfo ftrace_tests[] = {
	{"buffer-size = auto: sized from ops, events per op and formats", test_auto_size},
	{"instance names", test_instance_names},
	{"state diff", test_state_diff},
	{"events expand", test_events_expand},
	{"getpid tracepoint within 1%", test_getpid_exact},
	{"threads and children followed", test_threads_followed},
	{"many events (glob)", test_many_events},
	{"glob and filter", test_glob_and_filter},
	{"stream consumer", test_stream},
	{"tiny buffer loses events", test_tiny_buffer_loses},
	{"rearm: the same instance reset and re-pointed", test_rearm},
	{"flight recorder overwrites, loses nothing", test_flight_recorder},
	{"unknown event", test_unknown_event},
	{"bad filter", test_bad_filter},
	{"foreign instrumentation", test_foreign},
	{"function filter compose", test_function_filter_compose},
	{"function tracer", test_function_tracer},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-ftrace", tb_test_tracing_init, tb_test_tracing_clean, ftrace_tests);
