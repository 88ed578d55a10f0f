// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer, live: a forked child does N operations after a go signal (pipe handshake),
 * the tracer targets that child, and the figures must match what the child did. After every
 * test our process holds no BPF fd and the set of loaded programs named tb_* is what it was.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <jansson.h>

#include "host/armed.h"
#include "parse/scenario.h"
#include "core/tb.h"
#include "host/bpf-freeing.h"
#include "host/tracing-state.h"
#include "tb_test.h"
#include "workloads/workload.h"
#include "tracers/tracer.h"

#ifndef TB_TEST_BUILD_DIR
#define TB_TEST_BUILD_DIR "build"
#endif

#define MAX_IDS 4096

enum child_mode { CHILD_GETPID, CHILD_READ, CHILD_SLEEP };

struct child {
	pid_t pid;
	int go; /* write end of the go pipe */
};

static const struct tb_tracer_ops *bpf_ops;
static char unsupported[256];
static char run_dir[4096];

/* ---- the state that must be restored ----------------------------------------------------- */

struct snapshot {
	__u32 ids[MAX_IDS];
	int n;
};

/* Ids of loaded programs whose names start with tb_ (ours: bundled and test objects). */
static void snap_progs(struct snapshot *s)
{
	s->n = (int)tb_test_bpf_progs(s->ids, MAX_IDS);
}

static int snap_equal(const struct snapshot *a, const struct snapshot *b)
{
	return a->n == b->n && !memcmp(a->ids, b->ids, a->n * sizeof(a->ids[0]));
}

/* Our own fds on BPF objects (programs, maps, links, the stats fd). */
static int bpf_fds(void)
{
	char target[128];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	ssize_t n;
	int count = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		n = readlinkat(dirfd(dir), d->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (!strncmp(target, "anon_inode:bpf", 14))
			count++;
	}
	closedir(dir);
	return count;
}

static struct snapshot before;

static void state_begin(void)
{
	snap_progs(&before);
}

/* Programs are freed after their last fd closes (RCU): allow a moment. */
static void state_check(void)
{
	struct snapshot after;
	int i;

	CU_ASSERT_EQUAL(bpf_fds(), 0);
	for (i = 0; i < 100; i++) {
		snap_progs(&after);
		if (snap_equal(&before, &after))
			break;
		tb_sleep_ns(20000000);
	}
	CU_ASSERT_TRUE(snap_equal(&before, &after));
}

/* ---- the workload child ------------------------------------------------------------------ */

static void child_work(enum child_mode mode, long n)
{
	struct timespec ts = {0, 100000};
	char buf[64];
	long i;
	int fd;

	fd = open("/dev/zero", O_RDONLY);
	switch (mode) {
	case CHILD_GETPID:
		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
		break;
	case CHILD_READ:
		for (i = 0; i < n; i++)
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				_exit(2);
		break;
	case CHILD_SLEEP:
		for (i = 0; i < n; i++)
			nanosleep(&ts, NULL);
		break;
	}
}

/* Fork a child that waits for the go byte, then does n operations; cpu >= 0 pins it. */
static int child_spawn(struct child *c, enum child_mode mode, long n, int cpu)
{
	int p[2];
	char b;

	if (pipe(p))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (!c->pid) {
		close(p[1]);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		if (read(p[0], &b, 1) != 1)
			_exit(1);
		child_work(mode, n);
		_exit(0);
	}
	close(p[0]);
	c->go = p[1];
	return 0;
}

/* Go, and wait for the child to finish; returns its exit status. */
static int child_run(struct child *c)
{
	int st = -1;

	if (write(c->go, "g", 1) != 1)
		kill(c->pid, SIGKILL);
	close(c->go);
	waitpid(c->pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void child_kill(struct child *c)
{
	close(c->go);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

/* ---- the tracer around the child --------------------------------------------------------- */

struct tr {
	struct tb_tracer t;
	char err[512];
};

/* A tracer from "key=value" pairs (NULL-terminated). Returns 0 or the failing option's error. */
static int tr_init(struct tr *r, const char *const *kv)
{
	char key[64];
	const char *eq;
	int err;

	memset(r, 0, sizeof(*r));
	r->t.ops = bpf_ops;
	r->t.name = "test-bpf";
	r->t.consumer_cpu = -1;
	/* An accounting sample's tracer (stats = true holds the stats only there), since most
	 * tests check the run figures too; the rearm tests are timed samples' tracers. */
	r->t.accounting = true;
	r->t.cfg = calloc(1, bpf_ops->cfg_size);
	if (!r->t.cfg || tb_opts_defaults(bpf_ops->opts, r->t.cfg))
		return -ENOMEM;
	for (; kv && *kv; kv++) {
		eq = strchr(*kv, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
		err = tb_opts_set(bpf_ops->opts, r->t.cfg, key, eq + 1, r->err, sizeof(r->err));
		if (err)
			return err;
	}
	return 0;
}

static void tr_free(struct tr *r)
{
	r->t.ops->teardown(&r->t);
	tb_opts_free(bpf_ops->opts, r->t.cfg);
	free(r->t.cfg);
	r->t.cfg = NULL;
}

static void stats_init(struct tb_tracer_stats *st)
{
	memset(st, 0xff, sizeof(*st)); /* every field -1, as the harness pre-fills them */
	st->cpu_s = -1;
	st->extra = NULL;
}

/*
 * Set up the tracer on a new child, start, let the child run n operations, stop, collect.
 * Returns 0 with st filled (st->extra owned by the caller) or a negative errno.
 */
static int trace_child(const char *const *kv, enum child_mode mode, long n, int child_cpu,
		       int consumer_cpu, struct tb_tracer_stats *st, pid_t *pid)
{
	struct child c = {0};
	struct tr r;
	int err;

	stats_init(st);
	err = tr_init(&r, kv);
	if (err)
		goto out;
	r.t.consumer_cpu = consumer_cpu;
	err = child_spawn(&c, mode, n, child_cpu);
	if (err)
		goto out;
	*pid = c.pid;
	r.t.target = c.pid;
	err = bpf_ops->setup(&r.t);
	if (!err)
		err = bpf_ops->start(&r.t);
	if (err) {
		child_kill(&c);
		goto out;
	}
	CU_ASSERT_EQUAL(child_run(&c), 0);
	err = bpf_ops->stop(&r.t);
	if (!err)
		err = bpf_ops->collect(&r.t, st);
out:
	tr_free(&r);
	return err;
}

static json_int_t extra_int(json_t *extra, const char *key)
{
	return json_integer_value(json_object_get(extra, key));
}

static json_int_t hist_sum(json_t *extra)
{
	json_t *h = json_object_get(extra, "hist_log2_ns"), *v;
	json_int_t sum = 0;
	size_t i;

	json_array_foreach(h, i, v) sum += json_integer_value(v);
	return sum;
}

/* Count of (tgid, syscall) in syscall-count's extra.top_syscalls, or -1. */
static json_int_t syscall_of(json_t *extra, pid_t tgid, int nr)
{
	json_t *top = json_object_get(extra, "top_syscalls"), *row;
	size_t i;

	json_array_foreach(top, i,
			   row) if (extra_int(row, "tgid") == tgid &&
				    extra_int(row, "syscall") == nr) return extra_int(row, "count");
	return -1;
}

#define NEED_BPF()                                            \
	do {                                                  \
		if (!bpf_ops)                                 \
			TB_SKIP("bpf tracer not registered"); \
		if (*unsupported)                             \
			TB_SKIP(unsupported);                 \
		state_begin();                                \
	} while (0)

/* ---- tests -------------------------------------------------------------------------------- */

static void check_getpid_count(const char *attach)
{
	const char *kv[] = {"program=syscall-count", attach, NULL};
	struct tb_tracer_stats st;
	const long n = 20000;
	json_int_t got;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, -1, -1, &st, &pid), 0);
	got = syscall_of(st.extra, pid, SYS_getpid);
	printf("\n    %s: getpid %lld of %ld, events %lld, run_cnt %lld, %lld ns, mem %lld ",
	       attach, (long long)got, n, (long long)st.events, (long long)st.bpf_run_cnt,
	       (long long)st.bpf_run_time_ns, (long long)st.mem_bytes);
	CU_ASSERT(got >= n - n / 100 && got <= n + n / 100);
	/* The child's other syscalls after go: the read returning, exit_group, a few at most. */
	CU_ASSERT(st.events >= n && st.events <= n + n / 100 + 16);
	CU_ASSERT(st.bpf_run_cnt >= n);
	CU_ASSERT(st.bpf_run_time_ns > 0);
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT(st.mem_bytes > 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st.extra, "attach")),
			       strstr(attach, "raw_tp") ? "raw_tp" : "tp_btf");
	CU_ASSERT(extra_int(json_array_get(json_object_get(st.extra, "programs"), 0), "id") > 0);
	json_decref(st.extra);
	state_check();
}

static void test_syscall_count(void)
{
	NEED_BPF();
	check_getpid_count("attach=auto");
}

static void test_syscall_count_raw_tp(void)
{
	NEED_BPF();
	check_getpid_count("attach=raw_tp");
}

static void test_stats_off(void)
{
	const char *kv[] = {"program=syscall-count", "stats=false", NULL};
	struct tb_tracer_stats st;
	pid_t pid;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, 1000, -1, -1, &st, &pid), 0);
	CU_ASSERT(st.events >= 1000);
	CU_ASSERT_EQUAL(st.bpf_run_cnt, -1); /* unknown, not zero */
	json_decref(st.extra);
	state_check();
}

/* The first CPU this process may run on (the machine may not have CPU 0 or 1 for us). */
static int first_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return -1;
}

static void test_ringbuf_tiny_drops(void)
{
	const char *kv[] = {"program=ringbuf-events", "ringbuf-size=4096", NULL};
	struct tb_tracer_stats st;
	const long n = 200000;
	pid_t pid;

	NEED_BPF();
	/* Reader and child share one CPU: the reader cannot keep up with 128 records of room. */
	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, first_cpu(), first_cpu(), &st, &pid),
			      0);
	printf("\n    4 KiB: consumed %lld, lost %lld, reader %.3f s ", (long long)st.events,
	       (long long)st.lost, st.cpu_s);
	CU_ASSERT(st.lost > 0);
	CU_ASSERT(st.events > 0);
	CU_ASSERT(st.events + st.lost >= n);
	CU_ASSERT(st.cpu_s >= 0);
	json_decref(st.extra);
	state_check();
}

static void test_ringbuf_large_all(void)
{
	const char *kv[] = {"program=ringbuf-events", "ringbuf-size=16M", NULL};
	struct tb_tracer_stats st;
	const long n = 100000; /* 32 bytes a record: 3.2 MB, fits even if never read before stop */
	pid_t pid;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, -1, -1, &st, &pid), 0);
	printf("\n    16 MiB: consumed %lld, lost %lld, reader %.3f s, mem %lld ",
	       (long long)st.events, (long long)st.lost, st.cpu_s, (long long)st.mem_bytes);
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT(st.events >= n && (st.events <= n + 16 || tb_test_under_valgrind()));
	CU_ASSERT(st.mem_bytes >= 16 << 20);
	CU_ASSERT(st.cpu_s > 0);
	json_decref(st.extra);
	state_check();
}

/* Without wakeups the reader still gets everything, by polling. */
static void test_ringbuf_no_wakeup(void)
{
	const char *kv[] = {"program=ringbuf-events", "ringbuf-size=16M", "ringbuf-wakeup=none",
			    "poll-interval=5ms", NULL};
	struct tb_tracer_stats st;
	const long n = 50000;
	pid_t pid;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, -1, -1, &st, &pid), 0);
	printf("\n    no wakeup: consumed %lld, lost %lld, reader %.3f s ", (long long)st.events,
	       (long long)st.lost, st.cpu_s);
	CU_ASSERT_EQUAL(st.lost, 0);
	CU_ASSERT(st.events >= n && (st.events <= n + 16 || tb_test_under_valgrind()));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st.extra, "ringbuf_wakeup")),
			       "none");
	json_decref(st.extra);
	state_check();
}

/* payload = N: every record the reader gets is N bytes, and they still name the workload. */
static void test_ringbuf_payload(void)
{
	static const char *const sizes[] = {"payload=4", "payload=1024"};
	const long n = 20000; /* 1024-byte records: 20 MB, more than the ring: the reader drains */
	struct tb_tracer_stats st;
	size_t i;
	pid_t pid;

	NEED_BPF();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const char *kv[] = {"program=ringbuf-events", "ringbuf-size=16M", sizes[i], NULL};
		double want = atof(sizes[i] + strlen("payload="));

		CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, -1, -1, &st, &pid), 0);
		printf("\n    %s: consumed %lld, lost %lld, %.1f bytes a record ", sizes[i],
		       (long long)st.events, (long long)st.lost,
		       json_number_value(json_object_get(st.extra, "record_bytes")));
		CU_ASSERT(st.events + st.lost >= n);
		CU_ASSERT(st.workload_events > 0 && st.workload_events <= st.events);
		CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(st.extra, "record_bytes")),
				       want, 1e-9);
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(st.extra, "payload")),
				(json_int_t)want);
		json_decref(st.extra);
		state_check();
	}
}

/* output = perfbuf: records reach the reader through each CPU's perf buffer, woken per record
 * or by a watermark; perf pads a raw record to 8 bytes with its 4-byte size. */
static void test_perfbuf(void)
{
	static const char *const marks[] = {"perfbuf-watermark=0", "perfbuf-watermark=64K"};
	const long n = 20000;
	struct tb_tracer_stats st;
	size_t i;
	pid_t pid;

	NEED_BPF();
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		const char *kv[] = {"program=ringbuf-events",
				    "output=perfbuf",
				    "ringbuf-size=1M",
				    "payload=64",
				    marks[i],
				    NULL};
		double bytes;

		CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, -1, -1, &st, &pid), 0);
		bytes = json_number_value(json_object_get(st.extra, "record_bytes"));
		printf("\n    %s: consumed %lld, lost %lld, %.1f bytes a record, reader %.3f s ",
		       marks[i], (long long)st.events, (long long)st.lost, bytes, st.cpu_s);
		CU_ASSERT(st.events + st.lost >= n);
		CU_ASSERT(st.workload_events > 0 && st.workload_events <= st.events);
		CU_ASSERT(bytes >= 64 && bytes < 72);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st.extra, "output")),
				       "perfbuf");
		json_decref(st.extra);
		state_check();
	}
}

static void test_read_latency(void)
{
	const char *kv[] = {"program=read-latency", NULL};
	struct tb_tracer_stats st;
	const long n = 5000;
	pid_t pid;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_READ, n, -1, -1, &st, &pid), 0);
	printf("\n    reads %lld of %ld ", (long long)st.events, n);
	/* Every read of the window; the go read may or may not be seen entering. */
	CU_ASSERT(st.events >= n && (st.events <= n + 1 || tb_test_under_valgrind()));
	CU_ASSERT_EQUAL(hist_sum(st.extra), st.events);
	CU_ASSERT_EQUAL(extra_int(st.extra, "threads"), 1);
	CU_ASSERT(st.bpf_run_cnt >= 2 * n);
	json_decref(st.extra);
	state_check();
}

static void check_runq(const char *attach)
{
	const char *kv[] = {"program=runq-latency", attach, NULL};
	struct tb_tracer_stats st;
	const long n = 200;
	pid_t pid;

	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_SLEEP, n, -1, -1, &st, &pid), 0);
	printf("\n    %s: wakeups %lld of %ld sleeps ", attach, (long long)st.events, n);
	/*
	 * Each sleep normally ends with a wakeup and a switch in (preemptions add a few); a timer
	 * firing before the switch out saves both, so only demand most of them.
	 */
	CU_ASSERT(st.events >= n / 2);
	CU_ASSERT_EQUAL(hist_sum(st.extra), st.events);
	json_decref(st.extra);
	state_check();
}

static void test_runq_latency(void)
{
	NEED_BPF();
	check_runq("attach=auto");
}

static void test_runq_latency_raw_tp(void)
{
	NEED_BPF();
	check_runq("attach=raw_tp");
}

static void test_object(void)
{
	const char *kv[] = {"program=object",
			    "object=" TB_TEST_BUILD_DIR "/tests/data/bpf-test-count.bpf.o",
			    "programs=tb_test_getpid", NULL};
	struct tb_tracer_stats st;
	const long n = 10000;
	json_t *progs;
	pid_t pid;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, -1, -1, &st, &pid), 0);
	progs = json_object_get(st.extra, "programs");
	CU_ASSERT_EQUAL(json_array_size(progs), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(progs, 0), "name")),
			       "tb_test_getpid");
	/* Its runs are its events: every getpid on the host, at least the child's. */
	CU_ASSERT(st.events >= n);
	CU_ASSERT_EQUAL(st.events, st.bpf_run_cnt);
	json_decref(st.extra);
	state_check();
}

static void test_object_bundled(void)
{
	const char *kv[] = {"program=object",
			    "object=" TB_TEST_BUILD_DIR "/bpf/syscall-count.bpf.o",
			    "programs=tb_sc_raw_tp", NULL};
	struct tb_tracer_stats st;
	const long n = 10000;
	pid_t pid;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(trace_child(kv, CHILD_GETPID, n, -1, -1, &st, &pid), 0);
	CU_ASSERT(st.events >= n);
	json_decref(st.extra);
	state_check();
}

/* Setup must fail, with the validation message naming key; nothing may stay loaded. */
static void check_bad(const char *const *kv, const char *key)
{
	struct tr r;
	int err;

	err = tr_init(&r, kv);
	if (!err) {
		CU_ASSERT_NOT_EQUAL(bpf_ops->validate(r.t.cfg, r.err, sizeof(r.err)), 0);
		r.t.target = getpid();
		CU_ASSERT_NOT_EQUAL(bpf_ops->setup(&r.t), 0);
		CU_ASSERT_PTR_NULL(r.t.priv);
	}
	printf("\n    %s ", r.err);
	CU_ASSERT_EQUAL(err, 0); /* the values parse; the combination is wrong */
	CU_ASSERT_EQUAL(strncmp(r.err, key, strlen(key)), 0);
	tr_free(&r);
	state_check();
}

static void test_bad_configs(void)
{
	const char *missing[] = {"program=object", "object=/nonexistent/x.bpf.o", NULL};
	const char *noprog[] = {"program=object",
				"object=" TB_TEST_BUILD_DIR "/tests/data/bpf-test-count.bpf.o",
				"programs=tb_test_getpid,no_such_prog", NULL};
	const char *noobj[] = {"program=object", NULL};
	const char *stray[] = {"program=syscall-count", "object=/tmp/x.bpf.o", NULL};
	const char *ring[] = {"program=ringbuf-events", "ringbuf-size=5000", NULL};
	const char *small[] = {"program=ringbuf-events", "payload=3", NULL};
	const char *notrb[] = {"program=syscall-count", "payload=64", NULL};
	const char *pbprog[] = {"program=syscall-count", "output=perfbuf", NULL};
	const char *pbwake[] = {"program=ringbuf-events", "output=perfbuf", "ringbuf-wakeup=none",
				NULL};
	const char *pbmark[] = {"program=ringbuf-events", "perfbuf-watermark=4096", NULL};
	const char *pbbig[] = {"program=ringbuf-events", "output=perfbuf", "ringbuf-size=64K",
			       "perfbuf-watermark=64K", NULL};

	NEED_BPF();
	check_bad(missing, "object:");
	check_bad(noprog, "programs:");
	check_bad(noobj, "object:");
	check_bad(stray, "object:");
	check_bad(ring, "ringbuf-size");
	check_bad(small, "payload");
	check_bad(notrb, "payload");
	check_bad(pbprog, "output");
	check_bad(pbwake, "output");
	check_bad(pbmark, "perfbuf-watermark");
	check_bad(pbbig, "output");
}

/* Through the scenario parser: the message names the file, line and [tracer ...] section. */
static void test_bad_scenario(void)
{
	const struct tb_workload_ops *wl = tb_workload_find("getpid");
	char text[512];
	struct tb_scenario *scn = NULL;
	char path[256], *out = NULL;
	const char *dir;
	size_t len;
	int fd, saved;

	NEED_BPF();
	if (!tb_tracer_find("none"))
		TB_SKIP("the scenario parser needs the 'none' tracer, not registered in this "
			"build");
	wl = wl ? wl : tb_workloads[0];
	if (!wl)
		TB_SKIP("a scenario needs a workload, none registered in this build");
	snprintf(
		text, sizeof(text),
		"[workload w]\ntype = %s\n\n"
		"[tracer mybpf]\ntype = bpf\nprogram = object\nobject = /nonexistent/prog.bpf.o\n\n"
		"[matrix]\nworkloads = w\ntracers = mybpf\n",
		wl->name);
	dir = tb_test_tmpdir();
	CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	CU_ASSERT_NOT_EQUAL(tb_scenario_parse(text, "bad-bpf.ini", &scn), 0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	tb_scenario_free(scn);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &out, &len), 0);
	printf("\n    %s", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "[tracer mybpf]: object: cannot read"));
	free(out);
	state_check();
}

static void test_unknown_program(void)
{
	const char *kv[] = {"program=no-such-program", NULL};
	struct tr r;

	NEED_BPF();
	CU_ASSERT_EQUAL(tr_init(&r, kv), -EINVAL);
	printf("\n    %s ", r.err);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "program"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "no-such-program"));
	tr_free(&r);
	state_check();
}

/* Items of a kind ("bpf_prog", "bpf_link") in this process's crash-safety record. */
static int armed_count(const char *kind)
{
	char path[4200];
	json_t *root, *items, *it;
	size_t i;
	int n = 0;

	snprintf(path, sizeof(path), "%s/armed-%d.json", tb_state_dir(), (int)getpid());
	root = json_load_file(path, 0, NULL);
	if (!root)
		return 0;
	items = json_object_get(root, "items");
	json_array_foreach(items, i, it) n +=
		!strcmp(json_string_value(json_object_get(it, "kind")) ?: "", kind);
	json_decref(root);
	return n;
}

/*
 * Teardown twice, teardown without stop, collect before any window: no crash, nothing left;
 * programs and links are in the crash-safety record exactly while they exist.
 */
static void test_lifecycle(void)
{
	const char *kv[] = {"program=ringbuf-events", NULL};
	struct tb_tracer_stats st;
	struct tr r;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(tr_init(&r, kv), 0);
	r.t.target = getpid();
	CU_ASSERT_EQUAL_FATAL(bpf_ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL(armed_count("bpf_prog"), 1);
	CU_ASSERT_EQUAL(armed_count("bpf_link"), 0);
	stats_init(&st);
	CU_ASSERT_NOT_EQUAL(bpf_ops->collect(&r.t, &st), 0); /* no window yet */
	CU_ASSERT_EQUAL(bpf_ops->start(&r.t), 0);
	CU_ASSERT_EQUAL(armed_count("bpf_link"), 1);
	CU_ASSERT_EQUAL(bpf_ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(armed_count("bpf_link"), 0);
	CU_ASSERT_EQUAL(bpf_ops->start(&r.t), 0); /* a second window */
	bpf_ops->teardown(&r.t);		  /* while attached, reader running */
	bpf_ops->teardown(&r.t);
	CU_ASSERT_PTR_NULL(r.t.priv);
	CU_ASSERT_EQUAL(armed_count("bpf_prog"), 0);
	CU_ASSERT_EQUAL(armed_count("bpf_link"), 0);
	tr_free(&r);
	state_check();
}

/*
 * Teardown returns only once the kernel freed the tracer's programs (it frees them
 * asynchronously), and notes them in the freeing record; a program is recognised there by its
 * id and load time only, and a malformed record line is ignored (issue 15).
 */
static void test_teardown_waits(void)
{
	const char *kv[] = {"program=syscall-count", NULL};
	struct tb_bpf_obj o = {0}, other;
	char path[4200], *text = NULL;
	struct tr r;
	FILE *f;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(tr_init(&r, kv), 0);
	r.t.target = getpid();
	CU_ASSERT_EQUAL_FATAL(bpf_ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL(bpf_ops->start(&r.t), 0);
	{
		json_t *st = tb_tracing_state_capture();
		size_t i;
		json_t *v;

		CU_ASSERT_PTR_NOT_NULL_FATAL(st);
		json_array_foreach(
			json_object_get(st, "bpf_progs"), i,
			v) if (!strncmp(json_string_value(json_object_get(v, "name")), "tb_sc_", 6))
			o.id = (uint32_t)json_integer_value(json_object_get(v, "id"));
		json_decref(st);
	}
	CU_ASSERT_FATAL(o.id != 0);
	CU_ASSERT(tb_bpf_obj_exists(&o));
	CU_ASSERT_EQUAL(bpf_ops->stop(&r.t), 0);
	bpf_ops->teardown(&r.t);
	/* Gone when teardown returns: bpf_prog_get_fd_by_id says ENOENT. */
	CU_ASSERT(!tb_bpf_obj_exists(&o));
	snprintf(path, sizeof(path), "%s/bpf-freeing", run_dir);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &text, NULL), 0);
	snprintf(path, sizeof(path), "prog %u ", o.id);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, path));
	free(text);
	/* The record names a program by id and load time: another load time is not ours. */
	o.load_time = 12345;
	CU_ASSERT_EQUAL(tb_bpf_freeing_note(&o, 1), 0);
	CU_ASSERT(tb_bpf_freeing_has(o.id, 12345));
	CU_ASSERT(!tb_bpf_freeing_has(o.id, 54321));
	other = o;
	other.id = o.id + 1000000;
	CU_ASSERT(!tb_bpf_freeing_has(other.id, 12345));
	snprintf(path, sizeof(path), "%s/bpf-freeing", run_dir);
	f = fopen(path, "a");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("prog x y\n", f);
	fclose(f);
	CU_ASSERT(tb_bpf_freeing_has(o.id, 12345));
	/* Settling prunes what is gone: the record goes. */
	CU_ASSERT_EQUAL(tb_bpf_freeing_settle(100000000), 0);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	tr_free(&r);
	state_check();
}

/* One window of a set-up (rearm false) or rearmed tracer on a new child doing n getpid calls. */
static int rearm_window(struct tr *r, bool rearm, long n, struct tb_tracer_stats *st, pid_t *pid)
{
	struct child c = {0};
	int err;

	stats_init(st);
	err = child_spawn(&c, CHILD_GETPID, n, -1);
	if (err)
		return err;
	*pid = c.pid;
	r->t.target = c.pid;
	err = rearm ? bpf_ops->rearm(&r->t) : bpf_ops->setup(&r->t);
	if (!err)
		err = bpf_ops->start(&r->t);
	if (err) {
		child_kill(&c);
		return err;
	}
	CU_ASSERT_EQUAL(child_run(&c), 0);
	err = bpf_ops->stop(&r->t);
	return err ? err : bpf_ops->collect(&r->t, st);
}

/*
 * reuse-tracers: one loaded object, two timed samples (no stats fd in either: stats = true holds
 * them in accounting samples only). Parked between them it has no link, no stats
 * fd (bpf_enable_stats times every program of the host) and a filter that matches no process;
 * rearmed for another child, the same programs (ids) count that child's getpid calls exactly
 * and nothing of the first child's. Then an accounting sample on it, with the stats, and a timed
 * one after, without. After teardown nothing is left.
 */
static void check_rearm(const char *program, const char *extra_kv)
{
	const char *kv[] = {program, extra_kv, NULL};
	struct tb_tracer_stats st;
	json_int_t id1, id2;
	pid_t a, b;
	int fds;
	struct tr r;

	CU_ASSERT_EQUAL_FATAL(tr_init(&r, kv), 0);
	/* A kept tracer serves timed samples only: stats = true (the default) holds no stats. */
	r.t.accounting = false;
	CU_ASSERT_FATAL(bpf_ops->can_rearm(r.t.cfg));
	CU_ASSERT(bpf_ops->accounts(r.t.cfg));
	CU_ASSERT_EQUAL_FATAL(rearm_window(&r, false, 30000, &st, &a), 0);
	CU_ASSERT(st.events >= 30000);
	id1 = extra_int(json_array_get(json_object_get(st.extra, "programs"), 0), "id");
	json_decref(st.extra);
	fds = bpf_fds();
	r.t.target = 0; /* park */
	CU_ASSERT_EQUAL_FATAL(bpf_ops->rearm(&r.t), 0);
	CU_ASSERT_EQUAL(armed_count("bpf_link"), 0);
	CU_ASSERT_EQUAL(armed_count("bpf_prog"), 1);
	CU_ASSERT_EQUAL(bpf_fds(), fds); /* no stats fd in a timed sample */
	CU_ASSERT_EQUAL(rearm_window(&r, true, 500, &st, &b), 0);
	printf("\n    %s: rearmed for %d after %d: events %lld, workload %lld, lost %lld ",
	       program + 8, (int)b, (int)a, (long long)st.events, (long long)st.workload_events,
	       (long long)st.lost);
	id2 = extra_int(json_array_get(json_object_get(st.extra, "programs"), 0), "id");
	CU_ASSERT(id1 > 0 && id1 == id2); /* the same loaded program */
	CU_ASSERT(st.events >= 500 && st.events <= 500 + 16);
	CU_ASSERT_EQUAL(st.lost, 0);
	if (strstr(program, "syscall-count")) {
		CU_ASSERT_EQUAL(syscall_of(st.extra, b, SYS_getpid), 500);
		CU_ASSERT_EQUAL(syscall_of(st.extra, a, SYS_getpid), -1);
		CU_ASSERT_EQUAL(st.workload_events, st.events);
	}
	CU_ASSERT_EQUAL(st.bpf_stats, 0);
	CU_ASSERT_EQUAL(st.bpf_run_cnt, -1);
	json_decref(st.extra);
	/* An accounting sample takes the kept tracer too: its rearm opens the stats fd (run
	 * figures for that window), its park closes it, so the next timed sample has none. */
	r.t.target = 0;
	CU_ASSERT_EQUAL_FATAL(bpf_ops->rearm(&r.t), 0);
	r.t.accounting = true;
	CU_ASSERT_EQUAL_FATAL(rearm_window(&r, true, 700, &st, &b), 0);
	CU_ASSERT_EQUAL(st.bpf_stats, 1);
	CU_ASSERT(st.bpf_run_cnt >= 700);
	CU_ASSERT(st.events >= 700 && st.events <= 700 + 16);
	json_decref(st.extra);
	r.t.target = 0;
	CU_ASSERT_EQUAL_FATAL(bpf_ops->rearm(&r.t), 0);
	CU_ASSERT_EQUAL(bpf_fds(), fds); /* the stats fd closed with the park */
	r.t.accounting = false;
	CU_ASSERT_EQUAL_FATAL(rearm_window(&r, true, 300, &st, &b), 0);
	CU_ASSERT_EQUAL(st.bpf_stats, 0);
	CU_ASSERT_EQUAL(st.bpf_run_cnt, -1);
	json_decref(st.extra);
	tr_free(&r);
	CU_ASSERT_EQUAL(armed_count("bpf_prog"), 0);
	state_check();
}

static void test_rearm_syscall_count(void)
{
	NEED_BPF();
	check_rearm("program=syscall-count", NULL);
}

static void test_rearm_ringbuf(void)
{
	NEED_BPF();
	check_rearm("program=ringbuf-events", "ringbuf-size=4M");
}

static void test_rearm_probe(void)
{
	NEED_BPF();
	check_rearm("program=probe", "body=count");
}

/* What cannot be re-pointed says so: a folded pid filter, a user's object. */
static void test_rearm_refused(void)
{
	const char *rodata[] = {"program=syscall-count", "pid-filter=workload-rodata", NULL};
	const char *obj[] = {"program=object",
			     "object=" TB_TEST_BUILD_DIR "/tests/data/bpf-test-count.bpf.o", NULL};
	struct tr r;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(tr_init(&r, rodata), 0);
	CU_ASSERT(!bpf_ops->can_rearm(r.t.cfg));
	CU_ASSERT(!tb_tracer_rearms(bpf_ops, r.t.cfg));
	r.t.target = getpid();
	CU_ASSERT_EQUAL_FATAL(bpf_ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL(bpf_ops->rearm(&r.t), -EINVAL);
	tr_free(&r);
	if (!tr_init(&r, obj))
		CU_ASSERT(!bpf_ops->can_rearm(r.t.cfg));
	tb_opts_free(bpf_ops->opts, r.t.cfg);
	free(r.t.cfg);
	state_check();
}

static int suite_init(void)
{
	const char *tmp = tb_test_tmpdir();

	if (!tmp)
		return 1;
	/* The crash-safety record goes to a scratch state directory, not /run/tracebench. */
	snprintf(run_dir, sizeof(run_dir), "%s/run", tmp);
	setenv("TB_STATE_DIR", run_dir, 1);
	bpf_ops = tb_tracer_find("bpf");
	if (bpf_ops && bpf_ops->supported(unsupported, sizeof(unsupported)))
		snprintf(unsupported + strlen(unsupported),
			 sizeof(unsupported) - strlen(unsupported), "%s",
			 *unsupported ? "" : "BPF unsupported here");
	return 0;
}

static CU_TestInfo bpf_tests[] = {
	{"syscall-count getpid within 1%", test_syscall_count},
	{"syscall-count raw_tp fallback", test_syscall_count_raw_tp},
	{"stats off: run_cnt unknown", test_stats_off},
	{"ringbuf 4 KiB drops", test_ringbuf_tiny_drops},
	{"ringbuf 16 MiB consumes all", test_ringbuf_large_all},
	{"ringbuf without wakeups", test_ringbuf_no_wakeup},
	{"ringbuf payload 4 and 1024 bytes", test_ringbuf_payload},
	{"perfbuf per record and by watermark", test_perfbuf},
	{"read-latency histogram", test_read_latency},
	{"runq-latency histogram", test_runq_latency},
	{"runq-latency raw_tp fallback", test_runq_latency_raw_tp},
	{"user object attaches and counts", test_object},
	{"bundled .bpf.o as a user object", test_object_bundled},
	{"bad configs name the key", test_bad_configs},
	{"bad scenario names the section", test_bad_scenario},
	{"unknown program", test_unknown_program},
	{"teardown idempotent", test_lifecycle},
	{"teardown waits until the kernel freed its programs", test_teardown_waits},
	{"rearm: syscall-count re-pointed, the old target's counts gone", test_rearm_syscall_count},
	{"rearm: ringbuf-events drained and re-pointed", test_rearm_ringbuf},
	{"rearm: probe re-pointed", test_rearm_probe},
	{"rearm refused where the filter is folded or the object a user's", test_rearm_refused},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-bpf", suite_init, NULL, bpf_tests);
