// SPDX-License-Identifier: GPL-2.0
/*
 * The command tracer: validation, readiness (regex, timeout), a tracer dying mid-measurement,
 * stop escalation, event counts from its output, and real bpftrace and perf record runs.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/armed.h"
#include "host/cgroup.h"
#include "core/outdir.h"
#include "core/proc.h"
#include "core/tb.h"
#include "host/tracing-state.h"
#include "tb_test.h"
#include "tracers/tracer.h"

struct run {
	const struct tb_tracer_ops *ops;
	struct tb_tracer t;
	void *cfg;
	char err[256];
};

/* Configure a command tracer from key/value pairs (NULL-terminated); 0 or validate's error. */
static int run_init(struct run *r, const char *const *kv)
{
	memset(r, 0, sizeof(*r));
	r->ops = tb_tracer_find("command");
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->ops);
	r->cfg = calloc(1, r->ops->cfg_size);
	CU_ASSERT_EQUAL_FATAL(tb_opts_defaults(r->ops->opts, r->cfg), 0);
	for (; kv[0]; kv += 2)
		CU_ASSERT_EQUAL_FATAL(
			tb_opts_set(r->ops->opts, r->cfg, kv[0], kv[1], r->err, sizeof(r->err)), 0);
	r->t = (struct tb_tracer){.ops = r->ops,
				  .name = "cmd",
				  .cfg = r->cfg,
				  .consumer_cpu = -1,
				  .dir = tb_test_tmpdir_open()};
	r->t.outdir = r->t.dir ? r->t.dir->path : NULL;
	return r->ops->validate(r->cfg, r->err, sizeof(r->err));
}

static void run_fini(struct run *r)
{
	r->ops->teardown(&r->t);
	r->ops->teardown(&r->t);
	tb_opts_free(r->ops->opts, r->cfg);
	free(r->cfg);
}

/* Number of live (not zombie: init reaps those when it gets to it) members of group pgid. */
static int group_members(pid_t pgid)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/proc");

	while (d && (de = readdir(d))) {
		char path[300], buf[512], *p, state;
		int pgrp;

		if (atoi(de->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (tb_read_line(path, buf, sizeof(buf)))
			continue;
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %*d %d", &state, &pgrp) == 2 && pgrp == pgid &&
		    state != 'Z')
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static bool group_gone(pid_t pgid)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!group_members(pgid))
			return true;
		usleep(10000);
	}
	return false;
}

static pid_t read_pid(const char *path)
{
	char buf[32];
	int i;

	for (i = 0; i < 200; i++) {
		if (!tb_read_line(path, buf, sizeof(buf)) && atoi(buf) > 0)
			return atoi(buf);
		usleep(10000);
	}
	return 0;
}

static void test_validate(void)
{
	static const char *const notfound[] = {"command", "no-such-tracer-xyz -a", NULL};
	static const char *const badre[] = {"command", "sleep 1", "ready", "(", NULL};
	static const char *const nogroup[] = {"command", "sleep 1", "events-regex", "@c: [0-9]+",
					      NULL};
	static const char *const empty[] = {NULL};
	char why[256];
	struct run r;

	/* a program that is not installed is a valid scenario, unsupported here (issue 28:
	 * --skip-unsupported drops it; it was exit 2) */
	CU_ASSERT_EQUAL(run_init(&r, notfound), 0);
	CU_ASSERT_EQUAL(r.ops->supported_cfg(r.t.cfg, why, sizeof(why)), -EOPNOTSUPP);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "'no-such-tracer-xyz' is not installed"));
	CU_ASSERT_NOT_EQUAL(r.ops->setup(&r.t), 0); /* setup checks too */
	run_fini(&r);
	CU_ASSERT_EQUAL(run_init(&r, badre), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "ready"));
	run_fini(&r);
	CU_ASSERT_EQUAL(run_init(&r, nogroup), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "events-regex"));
	run_fini(&r);
	CU_ASSERT_EQUAL(run_init(&r, empty), -EINVAL);
	run_fini(&r);
}

static void test_ready_timeout(void)
{
	char cmd[512], pidfile[300];
	const char *kv[] = {"command", cmd, "ready", "Attaching", "ready-timeout", "300ms", NULL};
	struct run r;
	pid_t pid;

	snprintf(pidfile, sizeof(pidfile), "%s/pid", tb_test_tmpdir());
	/* A leader with a child of its own in its group: both must go. */
	snprintf(cmd, sizeof(cmd), "sh -c 'echo $$ > %s; sleep 100 & echo started; wait'", pidfile);
	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->start(&r.t), -ETIMEDOUT);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_log_last_error(), "not ready after"));
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_log_last_error(), "started")); /* its last output */
	pid = read_pid(pidfile);
	CU_ASSERT(pid > 0);
	if (pid > 0)
		CU_ASSERT_TRUE(group_gone(pid));
	CU_ASSERT_TRUE(tb_test_armed_record_empty());
	run_fini(&r);
}

static void test_dies_during_measurement(void)
{
	const char *kv[] = {"command", "sh -c 'echo ready; sleep 0.2; exit 3'", "ready", "^ready$",
			    NULL};
	struct tb_tracer_stats st = {.extra = NULL};
	struct run r;

	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->start(&r.t), 0);
	usleep(500000);
	CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), -ECHILD);
	CU_ASSERT_PTR_NULL(st.extra);
	CU_ASSERT_TRUE(tb_test_armed_record_empty());
	run_fini(&r);
}

static void test_dies_before_ready(void)
{
	const char *kv[] = {"command",
			    "sh -c 'echo loading; echo \"attach failed: Operation not permitted\"; "
			    "exit 4'",
			    "ready", "never", NULL};
	struct run r;

	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->start(&r.t), -ECHILD);
	/* What happened, in words, with its last output: not "No child processes". */
	CU_ASSERT_PTR_NOT_NULL(
		strstr(tb_log_last_error(), "exited with status 4 before it was ready"));
	CU_ASSERT_PTR_NOT_NULL(
		strstr(tb_log_last_error(), "loading | attach failed: Operation not permitted"));
	CU_ASSERT_PTR_NULL(strstr(tb_log_last_error(), strerror(ECHILD)));
	CU_ASSERT_TRUE(tb_test_armed_record_empty());
	run_fini(&r);
}

/* State of pid from /proc ('Z' a zombie), 0 when it is gone. */
static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p, st = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (tb_read_line(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %c", &st) == 1 ? st : 0;
}

/* A tracer command that daemonises (setsid and a fork) leaves nothing behind. */
static void test_daemon_leaves_nothing(void)
{
	char cmd[600], pidfile[300], why[256], cgdir[PATH_MAX] = "";
	const char *kv[] = {"command", cmd, "ready", "^ready$", NULL};
	struct tb_tracer_stats st = {.extra = NULL};
	struct run r;
	pid_t daemon;
	int i;

	if (tb_cgroup_supported(why, sizeof(why))) {
		printf("\n    no cgroup here: %s ", why);
		TB_SKIP("cgroups cannot be made here");
	}
	snprintf(pidfile, sizeof(pidfile), "%s/daemon.pid", tb_test_tmpdir());
	snprintf(
		cmd, sizeof(cmd),
		"sh -c 'setsid sh -c \"echo \\$\\$ > %s; exec sleep 300\" </dev/null >/dev/null 2>&1 & "
		"echo ready; exec sleep 300'",
		pidfile);
	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->start(&r.t), 0);
	daemon = read_pid(pidfile);
	CU_ASSERT_FATAL(daemon > 0);
	CU_ASSERT_EQUAL(getpgid(daemon), daemon); /* it left the command's process group */
	CU_ASSERT(proc_state(daemon) != 0 && proc_state(daemon) != 'Z');
	CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), 0);
	CU_ASSERT(json_is_true(json_object_get(st.extra, "cgroup")));
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(st.extra, "leftover_processes")), 1);
	CU_ASSERT(st.cpu_s >= 0);
	json_decref(st.extra);
	run_fini(&r);
	for (i = 0; i < 100 && proc_state(daemon) && proc_state(daemon) != 'Z'; i++)
		usleep(10000);
	CU_ASSERT(proc_state(daemon) == 0 || proc_state(daemon) == 'Z');
	if (proc_state(daemon) && proc_state(daemon) != 'Z')
		kill(daemon, SIGKILL); /* the test failed: do not leave it running */
	CU_ASSERT_TRUE(tb_test_armed_record_empty());
	(void)cgdir;
}

/* A well-behaved fake tracer: ready line, stops on SIGINT printing its count. */
static void test_normal_and_events(void)
{
	const char *kv[] = {
		"command",
		"sh -c 'trap \"echo @c: 41; echo @c: 42; exit 0\" INT; echo Attaching 1 "
		"probe...; while :; do sleep 0.05; done'",
		"ready",
		"Attaching",
		"events-regex",
		"@c: ([0-9]+)",
		"ready-settle",
		"10ms",
		NULL};
	struct tb_tracer_stats st = {.extra = NULL};
	struct run r;
	int i;

	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	/* Two samples in a row: each sees only its own output. */
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
		CU_ASSERT_EQUAL_FATAL(r.ops->start(&r.t), 0);
		CU_ASSERT_FALSE(tb_test_armed_record_empty()); /* its process group is recorded */
		CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
		CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), 0);
		CU_ASSERT_EQUAL(st.events, 42);
		CU_ASSERT(st.cpu_s >= 0);
		CU_ASSERT(st.mem_bytes > 0);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st.extra, "exit")),
				       "exited with status 0");
		json_decref(st.extra);
		st.extra = NULL;
		r.ops->teardown(&r.t);
		CU_ASSERT_TRUE(tb_test_armed_record_empty());
	}
	run_fini(&r);
}

/* A tracer that ignores SIGINT is escalated to SIGTERM. */
static void test_stop_escalates(void)
{
	const char *kv[] = {"command",
			    "sh -c 'trap \"\" INT; echo up; exec sleep 100'",
			    "ready",
			    "up",
			    "stop-timeout",
			    "200ms",
			    NULL};
	struct tb_tracer_stats st = {.events = -1, .extra = NULL};
	struct run r;

	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->start(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), 0);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(json_string_value(json_object_get(st.extra, "exit")), "signal 15"));
	CU_ASSERT_EQUAL(st.events, -1); /* no events-regex: unknown */
	json_decref(st.extra);
	run_fini(&r);
}

/* Ids (at most max) of the loaded BPF programs named name; returns how many. */
static int progs_named(const char *name, __u32 *ids, int max)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, name) && n < max)
			ids[n++] = id;
		close(fd);
	}
	return n;
}

static void test_bpftrace(void)
{
	char path[4096], cmd[512];
	/*
	 * bpftrace prints "Attaching" before it attaches; BEGIN runs once every probe is
	 * attached, so its line is the exact readiness signal (-B line: flushed at once).
	 */
	const char *kv[] = {
		"command",	   cmd, "ready", "^tb-ready$", "events-regex", "@c: ([0-9]+)",
		"ready-bpf-progs", "1", NULL};
	struct tb_tracer_stats st = {.extra = NULL};
	const uint64_t n = 50000;
	int go = -1, status, before, after, nb, na;
	__u32 ids_before[64], ids_after[64];
	struct run r;
	pid_t child;

	if (!tb_test_is_root())
		TB_SKIP("needs root");
	if (tb_proc_which("bpftrace", path, sizeof(path)))
		TB_SKIP("bpftrace not installed");
	child = tb_test_spawn_getpid_loop(n, &go);
	CU_ASSERT_FATAL(child > 0);
	snprintf(
		cmd, sizeof(cmd),
		"bpftrace -B line -e 'BEGIN { printf(\"tb-ready\\n\"); } tracepoint:syscalls:sys_enter_getpid /pid == %d/ { @c = count(); }'",
		(int)child);
	nb = progs_named("sys_enter_getpi", ids_before, 64);
	before = tb_bpf_prog_count();
	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	r.t.target = child;
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->start(&r.t), 0);
	CU_ASSERT_EQUAL(write(go, "g", 1), 1);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	close(go);
	CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), 0);
	printf("\n    bpftrace: %lld events for %llu getpid, cpu %.2fs, rss %lld KiB ",
	       (long long)st.events, (unsigned long long)n, st.cpu_s,
	       (long long)st.mem_bytes / 1024);
	CU_ASSERT(st.events >= (int64_t)(n - n / 100) && st.events <= (int64_t)(n + n / 100));
	CU_ASSERT(st.cpu_s >= 0);
	CU_ASSERT(json_real_value(json_object_get(st.extra, "cpu_s_total")) > 0);
	CU_ASSERT(st.mem_bytes > 1 << 20);
	json_decref(st.extra);
	run_fini(&r);
	CU_ASSERT_TRUE(tb_test_armed_record_empty());
	/*
	 * Its programs went with it. Others may load programs meanwhile, so compare the ones
	 * bpftrace names after its probe (the tracepoint program's name, truncated).
	 */
	na = progs_named("sys_enter_getpi", ids_after, 64);
	CU_ASSERT(na <= nb);
	after = tb_bpf_prog_count();
	if (after != before)
		printf("(note: %d BPF programs before, %d after, loaded by others) ", before,
		       after);
}

static void test_perf_record(void)
{
	char path[4096], cmd[512], data[300];
	const char *kv[] = {
		"command", cmd, "ready-settle", "500ms", "events-regex", "\\(([0-9]+) samples\\)",
		NULL};
	struct tb_tracer_stats st = {.extra = NULL};
	struct stat sb;
	struct run r;

	if (!tb_test_is_root())
		TB_SKIP("needs root");
	if (tb_proc_which("perf", path, sizeof(path)))
		TB_SKIP("perf not installed");
	snprintf(data, sizeof(data), "%s/perf.data", tb_test_tmpdir());
	snprintf(cmd, sizeof(cmd), "perf record -F 99 -a -o %s", data);
	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	if (r.ops->start(&r.t)) {
		run_fini(&r);
		CU_FAIL("perf record did not start");
		return;
	}
	usleep(300000);
	CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), 0);
	printf("\n    perf record: %lld samples, cpu %.2fs, exit '%s' ", (long long)st.events,
	       st.cpu_s, json_string_value(json_object_get(st.extra, "exit")));
	CU_ASSERT(st.events > 0);
	CU_ASSERT_EQUAL(stat(data, &sb), 0);
	CU_ASSERT(sb.st_size > 0);
	json_decref(st.extra);
	run_fini(&r);
	CU_ASSERT_TRUE(tb_test_armed_record_empty());
}

/* A raw tracepoint program on sys_enter (every syscall of the host) loaded by this process. */
static int load_other(int *link_fd)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, "tb_other", "GPL", insns, 2, NULL);

	*link_fd = fd >= 0 ? bpf_raw_tracepoint_open("sys_enter", fd) : -1;
	if (fd >= 0 && *link_fd < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static uint64_t prog_runs(int fd, __u32 *id)
{
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	*id = info.id;
	return info.run_cnt;
}

/* Whether id is one of the entries of a bpf_programs array. */
static bool listed(const json_t *progs, __u32 id)
{
	size_t i;
	json_t *v;

	json_array_foreach(progs, i, v) if (json_integer_value(json_object_get(v, "id")) ==
					    (json_int_t)id) return true;
	return false;
}

/*
 * bpftrace given the workload's pid through {pid}: it is attributed exactly the program it
 * loaded (a new sys_enter_getpid program), with the kernel's runs of it, and not the program
 * this process loads and runs at the same time (a raw tracepoint on every syscall).
 */
static void test_bpf_account(void)
{
	const char *kv[] = {
		"command",
		"bpftrace -B line -e 'BEGIN { printf(\"tb-ready\\n\"); } tracepoint:syscalls:sys_enter_getpid /pid == $1/ { @c = count(); }' {pid}",
		"ready",
		"^tb-ready$",
		"hooks",
		"syscalls:sys_enter_getpid",
		NULL};
	__u32 before[64], during[64], other_id = 0, mine = 0;
	struct tb_tracer_stats st = {.extra = NULL};
	int go = -1, status, nb, nd, other, link = -1, stats;
	const uint64_t n = 200000;
	uint64_t other0, other1;
	char path[4096];
	json_t *progs, *p;
	struct run r;
	pid_t child;

	if (!tb_test_is_root())
		TB_SKIP("needs root");
	if (tb_proc_which("bpftrace", path, sizeof(path)))
		TB_SKIP("bpftrace not installed");
	other = load_other(&link);
	if (other < 0)
		TB_SKIP("cannot load a raw tracepoint program here");
	stats = bpf_enable_stats(BPF_STATS_RUN_TIME); /* so that the other program counts too */
	child = tb_test_spawn_getpid_loop(n, &go);
	CU_ASSERT_FATAL(child > 0);
	nb = progs_named("sys_enter_getpi", before, 64);
	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	r.t.target = child;
	r.t.sample = 3;
	r.t.accounting = true; /* an accounting sample: the stats on, so runs and run time */
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->start(&r.t), 0);
	nd = progs_named("sys_enter_getpi", during, 64);
	other0 = prog_runs(other, &other_id);
	CU_ASSERT_EQUAL(write(go, "g", 1), 1);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	close(go);
	other1 = prog_runs(other, &other_id);
	CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), 0);
	progs = json_object_get(st.extra, "bpf_programs");
	printf("\n    %zu programs (%s), %lld events for %llu getpid; the other program ran %llu times ",
	       json_array_size(progs), json_string_value(json_object_get(st.extra, "bpf_method")),
	       (long long)st.events, (unsigned long long)n, (unsigned long long)(other1 - other0));
	/* {pid} reached bpftrace as the workload's pid */
	CU_ASSERT_EQUAL(
		json_integer_value(json_object_get(json_object_get(st.extra, "tool"), "lost")), 0);
	CU_ASSERT_STRING_EQUAL(
		json_string_value(json_array_get(json_object_get(st.extra, "command"), 5)),
		(snprintf(path, sizeof(path), "%d", (int)child), path));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st.extra, "bpf_method")),
			       "fdinfo");
	/*
	 * Exactly the program it loaded: of the sys_enter_getpid programs that appeared with it
	 * (another run on a shared machine may load its own meanwhile), one and only one is its.
	 */
	CU_ASSERT(nd >= nb + 1);
	for (int i = 0, nmine = 0; i < nd; i++) {
		bool old = false;

		for (int k = 0; k < nb; k++)
			old |= during[i] == before[k];
		if (!old && listed(progs, during[i]) && ++nmine == 1)
			mine = during[i];
		CU_ASSERT(nmine <= 1);
	}
	CU_ASSERT(mine != 0);
	CU_ASSERT_FALSE(listed(progs, other_id));
	CU_ASSERT(other1 - other0 >= n); /* it ran beside, and was not counted */
	{
		size_t i;

		json_array_foreach(progs, i, p)
		{
			__u32 id = (__u32)json_integer_value(json_object_get(p, "id"));

			for (int k = 0; k < nb; k++)
				CU_ASSERT_NOT_EQUAL(id, before[k]); /* nothing older than it */
			if (id != mine)
				continue;
			CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "attach")),
					       "tracepoint:syscalls:sys_enter_getpid");
			CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "type")),
					       "tracepoint");
			/*
			 * Every getpid of the host runs it: the workload's and any other's (on a
			 * shared machine, another run's millions), so only the floor is known.
			 */
			CU_ASSERT(json_integer_value(json_object_get(p, "runs")) >= (json_int_t)n);
			CU_ASSERT(json_real_value(json_object_get(p, "ns_per_run")) > 0);
		}
	}
	CU_ASSERT_EQUAL(st.bpf_stats, 1);
	/* no events-regex: its events are its programs' runs */
	CU_ASSERT_EQUAL(st.events, st.bpf_run_cnt);
	CU_ASSERT(st.events >= (int64_t)n);
	CU_ASSERT(json_integer_value(json_object_get(st.extra, "bpf_maps_memlock")) > 0);
	json_decref(st.extra);
	run_fini(&r);
	if (stats >= 0)
		close(stats);
	close(link);
	close(other);
	CU_ASSERT_TRUE(tb_test_armed_record_empty());
}

/*
 * A command that holds no BPF fd gets no program, even when this process loads and runs one
 * meanwhile: the programs that appear are someone else's when another process holds them.
 */
static void test_bpf_account_none(void)
{
	const char *kv[] = {"command", "sleep 30", "ready-settle", "50ms", NULL};
	struct tb_tracer_stats st = {.events = -1,
				     .lost = -1,
				     .bpf_run_cnt = -1,
				     .bpf_run_time_ns = -1,
				     .bpf_stats = -1}; /* as the runner pre-fills it */
	int other = -1, link = -1;
	struct run r;

	if (!tb_test_is_root())
		TB_SKIP("needs root");
	CU_ASSERT_EQUAL_FATAL(run_init(&r, kv), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->setup(&r.t), 0);
	CU_ASSERT_EQUAL_FATAL(r.ops->start(&r.t), 0);
	other = load_other(&link); /* after its start: a "new" id, but held by us */
	if (other < 0) {
		run_fini(&r);
		TB_SKIP("cannot load a raw tracepoint program here");
	}
	usleep(20000);
	CU_ASSERT_EQUAL(r.ops->stop(&r.t), 0);
	CU_ASSERT_EQUAL(r.ops->collect(&r.t, &st), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(st.extra, "bpf_method")), "none");
	CU_ASSERT_EQUAL(json_array_size(json_object_get(st.extra, "bpf_programs")), 0);
	CU_ASSERT_EQUAL(st.events, -1);
	CU_ASSERT_EQUAL(st.bpf_run_cnt, -1);
	CU_ASSERT_EQUAL(st.bpf_stats, 0); /* a timed sample: its account without the stats */
	json_decref(st.extra);
	run_fini(&r);
	close(link);
	close(other);
}

static CU_TestInfo command_tests[] = {
	{"validate", test_validate},
	{"readiness timeout kills the group", test_ready_timeout},
	{"dies during the measurement", test_dies_during_measurement},
	{"dies before ready", test_dies_before_ready},
	{"a daemonising command leaves nothing", test_daemon_leaves_nothing},
	{"ready, stop, events from output", test_normal_and_events},
	{"stop escalates", test_stop_escalates},
	{"bpftrace", test_bpftrace},
	{"perf record", test_perf_record},
	{"BPF account: exactly its own programs", test_bpf_account},
	{"BPF account: none held, none counted", test_bpf_account_none},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-command", tb_test_tracing_init, tb_test_tracing_clean, command_tests);
