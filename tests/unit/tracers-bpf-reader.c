// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer's reader with consumer = file (tracers/bpf/reader.c), live: the real
 * ringbuf-events program around a forked getpid loop, through the ring buffer and the perf
 * buffer. The file holds exactly the records the tracer reports (events x the record's bytes as
 * the reader got it, the child's getpid calls among them), is opened through the tracer's
 * directory and never through a link placed at its name, is closed when a kept tracer parks
 * and is fresh for the next sample; the configurations without a reader are refused naming the
 * key, also through the scenario parser with its file:line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "parse/scenario.h"
#include "tb_test.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

/* The head of ringbuf-events' record (tracers/bpf/ringbuf-events.h), as it lands in the file. */
struct head {
	uint32_t tgid;
	uint32_t tid;
	int64_t id;
};

static const struct tb_tracer_ops *ops;
static char unsupported[256];

/* The tracer of section "rb" with "key=value" pairs (NULL-terminated) over a fresh directory. */
static int tracer_new(struct tb_tracer *t, const char *const *kv, char *err, size_t len)
{
	char key[64];
	const char *eq;
	int r;

	memset(t, 0, sizeof(*t));
	t->ops = ops;
	t->name = "rb";
	t->consumer_cpu = -1;
	t->dir = tb_test_tmpdir_open();
	t->outdir = t->dir ? t->dir->path : NULL;
	t->cfg = calloc(1, ops->cfg_size);
	if (!t->cfg || !t->dir || tb_opts_defaults(ops->opts, t->cfg))
		return -ENOMEM;
	for (*err = '\0'; kv && *kv; kv++) {
		eq = strchr(*kv, '=');
		snprintf(key, sizeof(key), "%.*s", (int)(eq - *kv), *kv);
		r = tb_opts_set(ops->opts, t->cfg, key, eq + 1, err, len);
		if (r)
			return r;
	}
	return ops->validate(t->cfg, err, len);
}

static void tracer_free(struct tb_tracer *t)
{
	ops->teardown(t);
	tb_opts_free(ops->opts, t->cfg);
	free(t->cfg);
	t->cfg = NULL;
}

/* Our fds whose link starts with prefix: "<dir>/" (the tracer's file while it is open),
 * "anon_inode:bpf" (programs, maps, links: none once a tracer is torn down). */
static int fds_to(const char *prefix)
{
	char target[4200];
	struct dirent *d;
	DIR *fds = opendir("/proc/self/fd");
	ssize_t n;
	int count = 0;

	while (fds && (d = readdir(fds))) {
		n = readlinkat(dirfd(fds), d->d_name, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		count += !strncmp(target, prefix, strlen(prefix));
	}
	if (fds)
		closedir(fds);
	return count;
}

static int fds_in(const struct tb_dir *dir)
{
	char prefix[4200];

	snprintf(prefix, sizeof(prefix), "%s/", dir->path);
	return fds_to(prefix);
}

/* One window (rearm: of a kept tracer, else after a setup) on a child doing n getpid calls, as
 * sample number sample. 0 with st filled (st->extra the caller's), or -errno. */
static int window(struct tb_tracer *t, bool rearm, unsigned int sample, long n,
		  struct tb_tracer_stats *st, pid_t *pid)
{
	int go = -1, status, r;
	pid_t child = tb_test_spawn_getpid_loop((uint64_t)n, &go);

	memset(st, 0xff, sizeof(*st)); /* every field -1, as the harness pre-fills them */
	st->extra = NULL;
	if (child < 0)
		return -errno;
	*pid = child;
	t->target = child;
	t->sample = sample;
	r = rearm ? ops->rearm(t) : ops->setup(t);
	if (!r)
		r = ops->start(t);
	if (r) {
		kill(child, SIGKILL);
		close(go);
		waitpid(child, NULL, 0);
		return r;
	}
	CU_ASSERT_EQUAL(write(go, "g", 1), 1);
	close(go);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	r = ops->stop(t);
	return r ? r : ops->collect(t, st);
}

static const char *extra_str(const struct tb_tracer_stats *st, const char *key)
{
	return json_string_value(json_object_get(st->extra, key));
}

/*
 * The window's file: events records of record_bytes each, as many bytes as disk_bytes and
 * file_bytes say; the child's records name it, its getpid calls all there (nothing was lost).
 */
static void check_file(const struct tb_tracer_stats *st, pid_t child, long n, size_t record)
{
	const char *path = extra_str(st, "file");
	long mine = 0, getpids = 0;
	char *buf = NULL;
	size_t len = 0, off;
	struct head h;

	CU_ASSERT_PTR_NOT_NULL_FATAL(path);
	CU_ASSERT_EQUAL_FATAL(tb_read_file(path, &buf, &len), 0);
	printf("\n    %s: %lld events, %zu bytes in %s ", extra_str(st, "output"),
	       (long long)st->events, len, path);
	CU_ASSERT_EQUAL(st->lost, 0);
	CU_ASSERT_EQUAL((int64_t)len, st->disk_bytes);
	CU_ASSERT_EQUAL((json_int_t)len,
			json_integer_value(json_object_get(st->extra, "file_bytes")));
	CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(st->extra, "record_bytes")),
			       (double)record, 1e-9);
	CU_ASSERT_EQUAL((int64_t)len, st->events * (int64_t)record);
	for (off = 0; off + record <= len; off += record) {
		memcpy(&h, buf + off, sizeof(h));
		mine += h.tgid == (uint32_t)child;
		getpids += h.tgid == (uint32_t)child && h.id == SYS_getpid;
	}
	CU_ASSERT_EQUAL(mine, st->workload_events);
	CU_ASSERT_EQUAL(getpids, n);
	free(buf);
}

#define NEED_BPF()                                 \
	do {                                       \
		if (!ops)                          \
			TB_SKIP("no bpf tracer");  \
		if (*unsupported)                  \
			TB_SKIP(unsupported);      \
		if (!tb_test_is_root())            \
			TB_SKIP("BPF needs root"); \
	} while (0)

/* Both buffers: the ring buffer hands over the payload, the perf buffer pads it to 28 bytes. */
static void test_file_records(void)
{
	static const char *const outputs[] = {"output=ringbuf", "output=perfbuf"};
	const size_t record[] = {24, 28};
	const long n = 20000;
	struct tb_tracer_stats st;
	struct tb_tracer t;
	char err[512];
	pid_t child;
	size_t i;

	NEED_BPF();
	for (i = 0; i < 2; i++) {
		const char *kv[] = {
			"program=ringbuf-events", outputs[i],	   "payload=24",  "ringbuf-size=4M",
			"consumer=file",	  "keep-raw=true", "stats=false", NULL};

		CU_ASSERT_EQUAL_FATAL(tracer_new(&t, kv, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL_FATAL(window(&t, false, 7, n, &st, &child), 0);
		CU_ASSERT_STRING_EQUAL(extra_str(&st, "consumer"), "file");
		CU_ASSERT(json_is_true(json_object_get(st.extra, "file_kept")));
		CU_ASSERT_PTR_NOT_NULL(strstr(extra_str(&st, "file") ?: "", "/rb-7.raw"));
		CU_ASSERT(st.cpu_s > 0);
		check_file(&st, child, n, record[i]);
		json_decref(st.extra);
		CU_ASSERT_EQUAL(fds_in(t.dir), 0); /* closed at stop */
		tracer_free(&t);
	}
	CU_ASSERT_EQUAL(fds_to("anon_inode:bpf"), 0);
}

/* Without keep-raw the file is written, counted and deleted at stop; discard writes nothing. */
static void test_file_deleted(void)
{
	const char *gone[] = {"program=ringbuf-events", "consumer=file", "stats=false", NULL};
	const char *discard[] = {"program=ringbuf-events", "stats=false", NULL};
	struct tb_tracer_stats st;
	struct tb_tracer t;
	char err[512];
	pid_t child;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(tracer_new(&t, gone, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(window(&t, false, 0, 5000, &st, &child), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(extra_str(&st, "file"));
	CU_ASSERT(access(extra_str(&st, "file"), F_OK) != 0);
	CU_ASSERT(st.events >= 5000);
	CU_ASSERT_EQUAL(st.disk_bytes, st.events * 24); /* the default 24-byte record */
	json_decref(st.extra);
	tracer_free(&t);
	CU_ASSERT_EQUAL_FATAL(tracer_new(&t, discard, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(window(&t, false, 0, 5000, &st, &child), 0);
	CU_ASSERT_STRING_EQUAL(extra_str(&st, "consumer"), "discard");
	CU_ASSERT_PTR_NULL(json_object_get(st.extra, "file"));
	CU_ASSERT_EQUAL(st.disk_bytes, -1); /* as before: a discarding reader says nothing */
	json_decref(st.extra);
	tracer_free(&t);
}

/* A link placed at the file's name: start refuses it, and its target is not written. */
static void test_file_not_through_link(void)
{
	const char *kv[] = {"program=ringbuf-events", "consumer=file", "stats=false", NULL};
	const char *other = tb_test_tmpdir();
	char target[4200], link[4200], *text = NULL;
	struct tb_tracer_stats st;
	FILE *f;
	struct tb_tracer t;
	char err[512];
	pid_t child;

	NEED_BPF();
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_EQUAL_FATAL(tracer_new(&t, kv, err, sizeof(err)), 0);
	snprintf(target, sizeof(target), "%s/victim", other);
	f = fopen(target, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("untouched", f);
	fclose(f);
	snprintf(link, sizeof(link), "%s/rb-3.raw", t.dir->path);
	CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
	tb_test_stderr_begin();
	CU_ASSERT_EQUAL(window(&t, false, 3, 100, &st, &child), -ELOOP);
	text = tb_test_stderr_end();
	printf("\n    %s", text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "rb-3.raw"));
	free(text);
	text = NULL;
	CU_ASSERT_EQUAL_FATAL(tb_read_file(target, &text, NULL), 0);
	CU_ASSERT_STRING_EQUAL(text, "untouched");
	free(text);
	CU_ASSERT_EQUAL(fds_in(t.dir), 0);
	tracer_free(&t);
	CU_ASSERT_EQUAL(fds_to("anon_inode:bpf"), 0);
}

/*
 * reuse-tracers: parked, the kept tracer holds no file; rearmed for another child as a later
 * sample it writes a fresh file of that sample's records only, the first one left as it was.
 */
static void test_file_rearm(void)
{
	const char *kv[] = {"program=ringbuf-events", "ringbuf-size=4M", "consumer=file",
			    "keep-raw=true", NULL};
	struct tb_tracer_stats st;
	struct tb_tracer t;
	char err[512], first[4200];
	int64_t first_bytes;
	struct stat sb;
	pid_t a, b;

	NEED_BPF();
	CU_ASSERT_EQUAL_FATAL(tracer_new(&t, kv, err, sizeof(err)), 0);
	CU_ASSERT_FATAL(ops->can_rearm(t.cfg));
	CU_ASSERT_EQUAL_FATAL(window(&t, false, 1, 3000, &st, &a), 0);
	check_file(&st, a, 3000, 24);
	snprintf(first, sizeof(first), "%s", extra_str(&st, "file") ?: "");
	first_bytes = st.disk_bytes;
	json_decref(st.extra);
	t.target = 0; /* park */
	CU_ASSERT_EQUAL_FATAL(ops->rearm(&t), 0);
	CU_ASSERT_EQUAL(fds_in(t.dir), 0);
	CU_ASSERT_EQUAL_FATAL(window(&t, true, 2, 500, &st, &b), 0);
	check_file(&st, b, 500, 24);
	CU_ASSERT_PTR_NOT_NULL(strstr(extra_str(&st, "file") ?: "", "/rb-2.raw"));
	CU_ASSERT_EQUAL(st.workload_events, st.events); /* nothing of the first child's */
	CU_ASSERT_EQUAL_FATAL(stat(first, &sb), 0);
	CU_ASSERT_EQUAL(sb.st_size, first_bytes);
	json_decref(st.extra);
	tracer_free(&t);
	CU_ASSERT_EQUAL(fds_in(t.dir), 0);
}

/* What a sample will write, for the disk check: records x the bytes the reader gets. */
static void test_est_write_bytes(void)
{
	const char *rb[] = {"program=ringbuf-events", "payload=64", "consumer=file", NULL};
	const char *pb[] = {"program=ringbuf-events", "output=perfbuf", "consumer=file",
			    "keep-raw=true", NULL};
	const char *discard[] = {"program=ringbuf-events", NULL};
	const struct tb_hook_expect exact = {"raw_syscalls:sys_enter", 1.0, false};
	const struct tb_hook_expect approx = {"raw_syscalls:sys_enter", 1.0, true};
	struct tb_tracer t;
	char err[512];
	bool kept;

	if (!ops)
		TB_SKIP("no bpf tracer");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->est_write_bytes);
	CU_ASSERT_EQUAL_FATAL(tracer_new(&t, rb, err, sizeof(err)), 0);
	t.sample_ops = 1000;
	t.threads = 2;
	t.expect = &exact;
	t.nexpect = 1;
	CU_ASSERT_EQUAL(ops->est_write_bytes(&t, &kept), 1000 * 2 * 64);
	CU_ASSERT(!kept);
	t.expect = &approx; /* an approximate count may be twice the expected */
	CU_ASSERT_EQUAL(ops->est_write_bytes(&t, &kept), 2 * 1000 * 2 * 64);
	tracer_free(&t);
	CU_ASSERT_EQUAL_FATAL(tracer_new(&t, pb, err, sizeof(err)), 0);
	t.sample_ops = 1000;
	t.expect = &exact;
	t.nexpect = 1;
	CU_ASSERT_EQUAL(ops->est_write_bytes(&t, &kept), 1000 * 28);
	CU_ASSERT(kept);
	tracer_free(&t);
	CU_ASSERT_EQUAL_FATAL(tracer_new(&t, discard, err, sizeof(err)), 0);
	t.sample_ops = 1000;
	t.expect = &exact;
	t.nexpect = 1;
	CU_ASSERT_EQUAL(ops->est_write_bytes(&t, &kept), 0);
	tracer_free(&t);
}

/* consumer = file where no reader gets records, keep-raw without a file: refused by key. */
static void test_bad_configs(void)
{
	static const char *const bad[][4] = {
		{"program=syscall-count", "consumer=file", NULL},
		{"program=probe", "consumer=file", NULL},
		{"program=runq-latency", "consumer=file", NULL},
		{"program=ringbuf-events", "keep-raw=true", NULL},
	};
	struct tb_tracer t;
	char err[512];
	size_t i;

	if (!ops)
		TB_SKIP("no bpf tracer");
	for (i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		CU_ASSERT_EQUAL(tracer_new(&t, bad[i], err, sizeof(err)), -EINVAL);
		printf("\n    %s ", err);
		CU_ASSERT_EQUAL(strncmp(err, i < 3 ? "consumer: " : "keep-raw: ", 10), 0);
		tb_opts_free(ops->opts, t.cfg);
		free(t.cfg);
	}
}

/* Through the scenario parser: file:line of the consumer key, the section and the key. */
static void test_bad_scenario(void)
{
	const char *text = "[workload w]\ntype = getpid\n\n"
			   "[tracer agg]\ntype = bpf\nprogram = syscall-count\nconsumer = file\n\n"
			   "[matrix]\nworkloads = w\ntracers = agg\n";
	struct tb_scenario *scn = NULL;
	char *out;

	if (!ops || !tb_workload_find("getpid") || !tb_tracer_find("none"))
		TB_SKIP("the scenario needs the bpf and none tracers and the getpid workload");
	tb_test_stderr_begin();
	CU_ASSERT_NOT_EQUAL(tb_scenario_parse(text, "bad-sink.ini", &scn), 0);
	out = tb_test_stderr_end();
	tb_scenario_free(scn);
	printf("\n    %s", out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad-sink.ini:7: [tracer agg]: consumer: file only "
					   "with program = ringbuf-events"));
	free(out);
}

static int suite_init(void)
{
	const char *tmp = tb_test_tmpdir();
	char run_dir[4096];

	if (!tmp)
		return 1;
	/* The crash-safety record goes to a scratch state directory, not /run/tracebench. */
	snprintf(run_dir, sizeof(run_dir), "%s/run", tmp);
	setenv("TB_STATE_DIR", run_dir, 1);
	ops = tb_tracer_find("bpf");
	if (ops && ops->supported(unsupported, sizeof(unsupported)) && !*unsupported)
		snprintf(unsupported, sizeof(unsupported), "BPF unsupported here");
	return 0;
}

static CU_TestInfo reader_tests[] = {
	{"consumer = file: the records reported, ring and perf buffer", test_file_records},
	{"consumer = file without keep-raw: counted, deleted", test_file_deleted},
	{"consumer = file: never through a link at its name", test_file_not_through_link},
	{"consumer = file: parked closed, a fresh file per sample", test_file_rearm},
	{"est_write_bytes: records x the reader's bytes", test_est_write_bytes},
	{"bad configs name the key", test_bad_configs},
	{"bad scenario names file:line", test_bad_scenario},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-bpf-reader", suite_init, NULL, reader_tests);
