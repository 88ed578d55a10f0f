// SPDX-License-Identifier: GPL-2.0
/*
 * host/cgroup-count.h, live: a process in a cgroup of its own makes a known number of getppid
 * calls while this one makes others; the cgroup's counter sees exactly the former, and its
 * cgroup id is its directory's. Bad names and a process that is gone are refused with their
 * reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/cgroup-count.h"
#include "host/cgroup.h"
#include "host/perf.h"
#include "host/tracefs.h"
#include "tb_test.h"

#define CALLS 1000

/* A child that joins cg, waits for a byte, makes CALLS getppid calls, answers and exits. */
static pid_t caller(const struct tb_cgroup *cg, int *go, int *done)
{
	int down[2], up[2];
	char procs[PATH_MAX + 16], b;
	pid_t pid;

	if (pipe(down) || pipe(up))
		return -1;
	pid = fork();
	if (pid == 0) {
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg->path);
		int fd = open(procs, O_WRONLY);

		if (fd < 0 || write(fd, "0\n", 2) != 2)
			_exit(3);
		close(fd);
		if (write(up[1], "r", 1) != 1 || read(down[0], &b, 1) != 1)
			_exit(4);
		for (int i = 0; i < CALLS; i++)
			syscall(SYS_getppid);
		_exit(write(up[1], "d", 1) == 1 ? 0 : 5);
	}
	close(down[0]);
	close(up[1]);
	*go = down[1];
	*done = up[0];
	return pid;
}

static void test_live(void)
{
	static const char *const names[] = {"syscalls:sys_enter_getppid", "raw_syscalls:sys_enter"};
	struct tb_cgroup cg = TB_CGROUP_INIT;
	struct tb_cgroup_count *cc = NULL;
	char why[512], b;
	int go = -1, done = -1, status, ret;
	uint64_t id, cgid = 0, own = 0;
	struct stat st;
	pid_t pid;

	if (tb_cgroup_supported(why, sizeof(why)))
		TB_SKIP(why);
	if (tb_tracefs_event_id(names[0], &id, why, sizeof(why)))
		TB_SKIP(why);
	CU_ASSERT_EQUAL_FATAL(tb_cgroup_create(&cg, "count-test"), 0);
	pid = caller(&cg, &go, &done);
	CU_ASSERT_FATAL(pid > 0);
	CU_ASSERT_EQUAL(read(done, &b, 1), 1); /* it is in the cgroup */
	/* its cgroup's id, what a BPF filter on it compares, is cg's and not ours */
	CU_ASSERT_EQUAL(tb_cgroup_id_of_pid(pid, &cgid), 0);
	CU_ASSERT_EQUAL(stat(cg.path, &st), 0);
	CU_ASSERT_EQUAL(cgid, (uint64_t)st.st_ino);
	CU_ASSERT_EQUAL(tb_cgroup_id_of_pid(getpid(), &own), 0);
	CU_ASSERT_NOT_EQUAL(own, cgid);
	ret = tb_cgroup_count_open(pid, names, 2, &cc, why, sizeof(why));
	if (ret == -EACCES || ret == -EPERM) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		tb_cgroup_destroy(&cg);
		TB_SKIP(why);
	}
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(tb_cgroup_count_enable(cc, 1), 0);
	CU_ASSERT_EQUAL(write(go, "g", 1), 1);
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid); /* ours, outside the cgroup */
	CU_ASSERT_EQUAL(read(done, &b, 1), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CU_ASSERT_EQUAL(tb_cgroup_count_enable(cc, 0), 0);
	printf("\n    %lld getppid, %lld syscalls in the cgroup",
	       (long long)tb_cgroup_count_read(cc, 0), (long long)tb_cgroup_count_read(cc, 1));
	CU_ASSERT_EQUAL(tb_cgroup_count_read(cc, 0), CALLS);
	/* the write that answered, and the exit, at least */
	CU_ASSERT(tb_cgroup_count_read(cc, 1) >= CALLS + 2);
	CU_ASSERT_EQUAL(tb_cgroup_count_read(cc, 2), -EINVAL);
	tb_cgroup_count_close(cc);
	close(go);
	close(done);
	/* the process is gone: its cgroup cannot be found */
	cc = NULL;
	CU_ASSERT_NOT_EQUAL(tb_cgroup_count_open(pid, names, 1, &cc, why, sizeof(why)), 0);
	CU_ASSERT_PTR_NULL(cc);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "the cgroup of process"));
	tb_cgroup_destroy(&cg);
}

static void test_bad_names(void)
{
	static const char *const bad[] = {
		"nosuch:event", "../events:x", "syscalls:", ":x", "syscalls:sys_enter_getpid/../id",
		"getpid"};
	struct tb_cgroup_count *cc = NULL;
	char why[512];
	uint64_t id;

	for (size_t i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		CU_ASSERT_EQUAL(tb_tracefs_event_id(bad[i], &id, why, sizeof(why)), -ENOENT);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i]));
	}
	if (tb_cgroup_supported(why, sizeof(why)))
		TB_SKIP(why);
	/* a bad name among good ones: refused, naming it, nothing left open */
	const char *names[] = {"raw_syscalls:sys_enter", "nosuch:event"};
	int nfds = tb_perf_count_fds();

	CU_ASSERT_EQUAL(tb_cgroup_count_open(getpid(), names, 2, &cc, why, sizeof(why)), -ENOENT);
	CU_ASSERT_PTR_NULL(cc);
	CU_ASSERT_EQUAL(tb_perf_count_fds(), nfds);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "nosuch:event"));
}

static CU_TestInfo tests[] = {
	{"a cgroup's tracepoint counts are its tasks' alone", test_live},
	{"bad tracepoint names and gone processes are refused", test_bad_names},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("host-cgroup-count", NULL, NULL, tests);
