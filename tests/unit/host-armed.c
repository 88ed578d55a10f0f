// SPDX-License-Identifier: GPL-2.0
/*
 * Crash safety: the armed record, the run lock, and cleanup of what a process that died
 * without tearing down left (instances recorded or not, process groups, BPF links).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/armed.h"
#include "host/cleanup.h"
#include "core/io.h"
#include "core/outdir.h"
#include "core/tb.h"
#include "host/tracefs.h"
#include "host/tracing-state.h"
#include "tb_test.h"

static char run_dir[4096];

static int armed_init(void)
{
	const char *tmp = tb_test_tmpdir();

	if (!tmp)
		return 1;
	snprintf(run_dir, sizeof(run_dir), "%s/run", tmp);
	setenv("TB_STATE_DIR", run_dir, 1);
	return 0;
}

static json_t *load_record(pid_t pid)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/armed-%d.json", run_dir, (int)pid);
	return json_load_file(path, 0, NULL);
}

static bool record_exists(pid_t pid)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/armed-%d.json", run_dir, (int)pid);
	return access(path, F_OK) == 0;
}

static void test_record(void)
{
	json_t *r;
	pid_t child;
	int status;

	CU_ASSERT_STRING_EQUAL(tb_state_dir(), run_dir);
	CU_ASSERT_EQUAL(tb_armed_add(TB_ARMED_INSTANCE, "tracebench-1-x"), 0);
	CU_ASSERT_EQUAL(tb_armed_add(TB_ARMED_BPF_LINK, "42"), 0);
	CU_ASSERT_EQUAL(tb_armed_add(TB_ARMED_BPF_LINK, "42"), 0); /* no duplicate */
	CU_ASSERT_EQUAL(tb_armed_add(TB_ARMED_NKINDS, "x"), -EINVAL);
	CU_ASSERT_TRUE(tb_armed_has(TB_ARMED_BPF_LINK, "42"));
	CU_ASSERT_FALSE(tb_armed_has(TB_ARMED_BPF_PROG, "42"));
	r = load_record(getpid());
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(r, "pid")), getpid());
	CU_ASSERT_EQUAL((uint64_t)json_integer_value(json_object_get(r, "start_time")),
			tb_armed_start_time(getpid()));
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "items")), 2);
	json_decref(r);

	/* A forked child keeps its own record and leaves its parent's alone. */
	child = fork();
	if (child == 0) {
		int bad = tb_armed_has(TB_ARMED_BPF_LINK, "42");

		bad |= tb_armed_add(TB_ARMED_BPF_PROG, "7") != 0;
		_exit(bad);
	}
	CU_ASSERT_EQUAL_FATAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_TRUE(record_exists(child));
	r = load_record(getpid());
	CU_ASSERT_EQUAL(json_array_size(json_object_get(r, "items")), 2);
	json_decref(r);

	CU_ASSERT_EQUAL(tb_armed_remove(TB_ARMED_INSTANCE, "tracebench-1-x"), 0);
	CU_ASSERT_EQUAL(tb_armed_remove(TB_ARMED_INSTANCE, "tracebench-1-x"), 0);
	CU_ASSERT_TRUE(record_exists(getpid()));
	CU_ASSERT_EQUAL(tb_armed_remove(TB_ARMED_BPF_LINK, "42"), 0);
	CU_ASSERT_FALSE(record_exists(getpid())); /* last item gone: file gone */

	/* The dead child's record names a program that does not exist: cleanup drops it. */
	if (tb_test_is_root()) {
		json_t *report = NULL;

		CU_ASSERT(tb_cleanup_stale(0, &report) >= 0);
		CU_ASSERT_FALSE(record_exists(child));
		json_decref(report);
	}
}

static void test_lock(void)
{
	pid_t child, holder = 0;
	int status, fds[2];
	char c;

	CU_ASSERT_EQUAL_FATAL(tb_lock_acquire(false, &holder), 0);
	CU_ASSERT_EQUAL(tb_lock_acquire(false, &holder), 0); /* already ours */
	CU_ASSERT_EQUAL(tb_lock_holder(), getpid());
	child = fork();
	if (child == 0) {
		pid_t h = 0;
		int r = tb_lock_acquire(false, &h);

		_exit(r == -EBUSY && h == getppid() && tb_lock_holder() == getppid() ? 0 : 1);
	}
	CU_ASSERT_EQUAL_FATAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* A waiting acquirer gets the lock once it is released. */
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	child = fork();
	if (child == 0) {
		pid_t h = 0;
		int r;

		close(fds[0]);
		if (write(fds[1], "r", 1) != 1)
			_exit(2);
		r = tb_lock_acquire(true, &h);
		_exit(r == 0 && tb_lock_holder() == getpid() ? 0 : 1);
	}
	close(fds[1]);
	CU_ASSERT_EQUAL(read(fds[0], &c, 1), 1);
	close(fds[0]);
	usleep(50000);
	tb_lock_release();
	CU_ASSERT_EQUAL_FATAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(tb_lock_holder(), 0);
}

/*
 * A wrapper (flock(1) on the state directory's lock, its fd left open in what it runs) holds
 * the lock: a run under it measures under that lock at once instead of waiting for itself,
 * and leaves it held by the wrapper when it is done.
 */
static void test_lock_under_wrapper(void)
{
	char path[4200];
	pid_t child;
	int status, fd, probe;

	snprintf(path, sizeof(path), "%s/lock", run_dir);
	child = fork();
	if (child == 0) {
		int ok;

		alarm(20); /* a regression waits for itself: fail, never hang the suite */
		fd = open(path, O_RDONLY | O_CREAT, 0644); /* as flock(1) opens it */
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB))
			_exit(3);
		ok = tb_lock_acquire(true, NULL) == 0 && tb_lock_holder() == getpid();
		tb_lock_release();
		/* Still the wrapper's: a new open file cannot take it. */
		probe = open(path, O_RDWR);
		ok = ok && probe >= 0 && flock(probe, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
		_exit(ok ? 0 : 1);
	}
	CU_ASSERT_EQUAL_FATAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!WIFEXITED(status))
		printf("\n    the run under a wrapper's lock did not finish (signal %d)",
		       WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	/* The wrapper gone, the lock is free again. */
	fd = open(path, O_RDWR);
	CU_ASSERT(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
	if (fd >= 0)
		close(fd);
}

static bool report_has(json_t *report, const char *needle)
{
	size_t i;
	json_t *v;

	json_array_foreach(report, i, v) if (strstr(json_string_value(v), needle)) return true;
	return false;
}

static bool wait_gone(pid_t pid)
{
	int i;

	for (i = 0; i < 200; i++) {
		if (kill(pid, 0) && errno == ESRCH)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * A child arms an instance (with an event enabled), a process group and a BPF link id, then
 * dies without teardown. An unrecorded instance named after it exists too. Cleanup removes all
 * of it, and the tracing state is what it was.
 */
static void test_cleanup_dead_owner(void)
{
	char name[256], unrec[256], needle[64];
	json_t *before, *after, *report = NULL;
	struct tracefs_instance *inst;
	int status, fds[2], ret;
	pid_t child, gc = 0;
	char *diff;

	if (!tb_test_is_root())
		TB_SKIP("needs root");
	if (tb_tracefs_ensure())
		TB_SKIP("tracefs unavailable");
	before = tb_tracing_state_capture();
	CU_ASSERT_PTR_NOT_NULL_FATAL(before);
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	child = fork();
	if (child == 0) {
		struct tracefs_instance *ci;
		pid_t g;

		json_decref(before); /* the parent's; keeps valgrind's leak check quiet here */
		close(fds[0]);
		if (tb_tracefs_instance_new("dead owner", &ci))
			_exit(1);
		tracefs_event_enable(ci, "sched", "sched_switch");
		g = fork();
		if (g == 0) {
			setpgid(0, 0);
			execlp("sleep", "sleep", "100", (char *)NULL);
			_exit(127);
		}
		setpgid(g, g);
		usleep(20000); /* let it exec, so its start time is final */
		if (tb_armed_add_pgid(g) || tb_armed_add(TB_ARMED_BPF_LINK, "4000000000"))
			_exit(1);
		if (write(fds[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		_exit(0); /* no teardown: as if killed */
	}
	close(fds[1]);
	CU_ASSERT_EQUAL(read(fds[0], &gc, sizeof(gc)), sizeof(gc));
	close(fds[0]);
	CU_ASSERT_EQUAL_FATAL(waitpid(child, &status, 0), child);
	CU_ASSERT_FATAL(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	tb_tracefs_instance_name(name, sizeof(name), child, "dead owner");
	CU_ASSERT_TRUE(tracefs_instance_exists(name));
	CU_ASSERT_TRUE(record_exists(child));
	/* An instance of the same dead owner that no record names. */
	tb_tracefs_instance_name(unrec, sizeof(unrec), child, "unrecorded");
	inst = tracefs_instance_create(unrec);
	CU_ASSERT_PTR_NOT_NULL_FATAL(inst);
	tracefs_instance_free(inst);

	ret = tb_cleanup_stale(TB_CLEANUP_DRY_RUN, &report);
	CU_ASSERT(ret >= 3);
	CU_ASSERT(report_has(report, "would destroy"));
	CU_ASSERT_TRUE(tracefs_instance_exists(name));
	CU_ASSERT_TRUE(tracefs_instance_exists(unrec));
	CU_ASSERT_EQUAL(kill(gc, 0), 0);
	json_decref(report);
	report = NULL;

	ret = tb_cleanup_stale(0, &report);
	CU_ASSERT(ret >= 3);
	CU_ASSERT(report_has(report, name));
	CU_ASSERT(report_has(report, unrec));
	snprintf(needle, sizeof(needle), "killed process group %d", (int)gc);
	CU_ASSERT(report_has(report, needle));
	json_decref(report);
	CU_ASSERT_FALSE(tracefs_instance_exists(name));
	CU_ASSERT_FALSE(tracefs_instance_exists(unrec));
	CU_ASSERT_FALSE(record_exists(child));
	CU_ASSERT_TRUE(wait_gone(gc));

	after = tb_tracing_state_capture();
	CU_ASSERT_PTR_NOT_NULL_FATAL(after);
	diff = tb_tracing_state_diff_filtered(before, after, name, false);
	CU_ASSERT_PTR_NULL(diff);
	free(diff);
	diff = tb_tracing_state_diff_filtered(before, after, unrec, false);
	CU_ASSERT_PTR_NULL(diff);
	free(diff);
	json_decref(before);
	json_decref(after);
}

/* A live owner's record is left alone unless TB_CLEANUP_ALL. */
static void test_cleanup_live_owner(void)
{
	char name[256];
	json_t *report = NULL;
	int fds[2], go[2];
	pid_t child;
	char c;

	if (!tb_test_is_root())
		TB_SKIP("needs root");
	if (tb_tracefs_ensure())
		TB_SKIP("tracefs unavailable");
	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(go), 0);
	child = fork();
	if (child == 0) {
		struct tracefs_instance *ci;

		close(fds[0]);
		close(go[1]);
		if (tb_tracefs_instance_new("live owner", &ci))
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		tb_tracefs_instance_remove(&ci);
		_exit(0);
	}
	close(fds[1]);
	close(go[0]);
	CU_ASSERT_EQUAL(read(fds[0], &c, 1), 1);
	close(fds[0]);
	tb_tracefs_instance_name(name, sizeof(name), child, "live owner");
	CU_ASSERT_TRUE(tracefs_instance_exists(name));
	tb_cleanup_stale(0, &report);
	CU_ASSERT_FALSE(report_has(report, name));
	CU_ASSERT_TRUE(tracefs_instance_exists(name));
	json_decref(report);
	report = NULL;
	tb_cleanup_stale(TB_CLEANUP_ALL | TB_CLEANUP_DRY_RUN, &report);
	CU_ASSERT(report_has(report, name));
	CU_ASSERT_TRUE(tracefs_instance_exists(name));
	json_decref(report);
	CU_ASSERT_EQUAL(write(go[1], "g", 1), 1);
	close(go[1]);
	waitpid(child, NULL, 0);
	CU_ASSERT_FALSE(tracefs_instance_exists(name));
	CU_ASSERT_FALSE(record_exists(child));
}

/* A torn record of a dead owner is removed, not a reason to fail forever. */
static void test_torn_record(void)
{
	char path[4200];
	json_t *report = NULL;
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(tb_mkdir_p(run_dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/armed-%d.json", run_dir, (int)child);
	CU_ASSERT_EQUAL_FATAL(tb_write_atomic(path, "{\"pid\": 1, \"ite", 15, 0644), 0);
	CU_ASSERT(tb_cleanup_stale(TB_CLEANUP_DRY_RUN, &report) >= 1);
	CU_ASSERT(report_has(report, "would remove unreadable"));
	CU_ASSERT_EQUAL(access(path, F_OK), 0);
	json_decref(report);
	report = NULL;
	CU_ASSERT(tb_cleanup_stale(0, &report) >= 1);
	CU_ASSERT(report_has(report, "removed unreadable"));
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	json_decref(report);
}

/*
 * A sample child killed between writing its record and renaming it into place leaves
 * .armed-<pid>.json.tmp-<x>: whoever reaps it undoes what that names (here a scratch directory)
 * and removes it, torn or whole; another pid's is left.
 */
static int put(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int ret;

	if (fd < 0)
		return -errno;
	ret = tb_write_full(fd, text, len);
	close(fd);
	return ret;
}

static void test_reaped_half_written(void)
{
	char whole[4200], torn[4200], other[4200], scratch[4200], text[4400];
	pid_t child = fork();
	int n;

	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	CU_ASSERT_EQUAL_FATAL(tb_mkdir_p(run_dir, 0755), 0);
	snprintf(scratch, sizeof(scratch), "/tmp/tracebench-%d-halfwritten", (int)child);
	CU_ASSERT_EQUAL_FATAL(tb_mkdir_p(scratch, 0700), 0);
	snprintf(whole, sizeof(whole), "%s/.armed-%d.json.tmp-AbC123", run_dir, (int)child);
	snprintf(torn, sizeof(torn), "%s/.armed-%d.json.tmp-Torn99", run_dir, (int)child);
	snprintf(other, sizeof(other), "%s/.armed-%d.json.tmp-Other1", run_dir, (int)getpid());
	n = snprintf(text, sizeof(text),
		     "{\"pid\": %d, \"start_time\": 1, \"items\": "
		     "[{\"kind\": \"scratch\", \"value\": \"%s\"}]}",
		     (int)child, scratch);
	CU_ASSERT_EQUAL_FATAL(put(whole, text, (size_t)n), 0);
	CU_ASSERT_EQUAL_FATAL(put(torn, "{\"pid\": 1, \"ite", 15), 0);
	CU_ASSERT_EQUAL_FATAL(put(other, "{", 1), 0);
	CU_ASSERT(tb_cleanup_reaped(child) >= 2);
	CU_ASSERT_NOT_EQUAL(access(scratch, F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(whole, F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access(torn, F_OK), 0);
	CU_ASSERT_EQUAL(access(other, F_OK), 0);
	unlink(other);
}

static CU_TestInfo armed_tests[] = {
	{"record", test_record},
	{"lock", test_lock},
	{"a lock held by a wrapper is measured under", test_lock_under_wrapper},
	{"cleanup of a dead owner", test_cleanup_dead_owner},
	{"live owner left alone", test_cleanup_live_owner},
	{"torn record", test_torn_record},
	{"a reaped child's half-written record", test_reaped_half_written},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("host-armed", armed_init, NULL, armed_tests);
