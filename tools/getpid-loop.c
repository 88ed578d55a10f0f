// SPDX-License-Identifier: GPL-2.0
/*
 * tb-getpid-loop: the target `make bench-precision` hands to hyperfine, the same question as
 * tracebench's getpid workload under `syscalls:sys_enter_getpid` with `pid-filter = workload`,
 * asked the way hyperfine asks it: one process per timing.
 *
 *	tb-getpid-loop [--cpu N] ITERS                        ITERS raw getpid syscalls
 *	tb-getpid-loop [--cpu N] --trace INSTANCE ITERS       the same with the tracepoint on
 *	tb-getpid-loop --create INSTANCE | --remove INSTANCE  make or remove the instance
 *	tb-getpid-loop --clear INSTANCE                       empty its set_event_pid
 *	tb-getpid-loop [--cpu N] --calibrate MS               print ITERS for a loop of MS ms
 *
 * With --trace the target enables the tracepoint itself, filtered to its own pid, in an
 * existing instance (named tracebench-<owner pid>-..., so `tracebench cleanup` removes it when
 * its owner died), runs the loop and disables it again, on every path it can see: a normal end,
 * an error, SIGINT, SIGTERM, SIGHUP. Creating the instance costs 3 ms and removing it 70-110 ms
 * here, so the benchmark makes it once around all of hyperfine's runs (--create, --remove).
 * Replacing or emptying a pid list waits for an RCU grace period (about 48 ms here), so a
 * normal end leaves the pid in set_event_pid and hyperfine's untimed --prepare empties it
 * before the next run (--clear): writing onto an empty list costs 2.5 ms. Enabling and
 * disabling the event (1-4 ms) stays in every traced run, as in any process-per-run
 * measurement of a tracer. Static and free of libraries, like the other
 * helpers: it writes the tracefs files itself. Exit: 0, 1 on a failure (said on stderr), 2 on
 * bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS	 "/sys/kernel/tracing"
#define PREFIX	 "tracebench-"
#define EVENT	 "events/syscalls/sys_enter_getpid/enable"
#define PATH_LEN 512

static char inst_dir[PATH_LEN]; /* the instance while the event may be on, else "" */

static int write_file(const char *dir, const char *file, const char *text)
{
	char path[PATH_LEN * 2];
	size_t len = strlen(text);
	ssize_t n;
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != (ssize_t)len)
		e = n < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

/* Async-signal-safe: open, write and close only. */
static void event_off(void)
{
	if (!inst_dir[0])
		return;
	write_file(inst_dir, EVENT, "0");
	write_file(inst_dir, "set_event_pid", "");
	inst_dir[0] = '\0';
}

static void on_signal(int sig)
{
	event_off();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The instance's directory, for a name of ours only (no path, the tracebench- prefix). */
static int instance_path(const char *name, char *out, size_t len)
{
	if (strncmp(name, PREFIX, strlen(PREFIX)) || strchr(name, '/') || strlen(name) > 200) {
		fprintf(stderr, "tb-getpid-loop: instance '%s': not a name of ours (%s...)\n", name,
			PREFIX);
		return -EINVAL;
	}
	snprintf(out, len, "%s/instances/%s", TRACEFS, name);
	return 0;
}

static int fail(const char *what, const char *path, int e)
{
	fprintf(stderr, "tb-getpid-loop: %s %s: %s\n", what, path, strerror(-e));
	return 1;
}

static void loop(unsigned long long iters)
{
	unsigned long long i;

	for (i = 0; i < iters; i++)
		syscall(SYS_getpid);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Doubling batches until one lasts a tenth of the target, then scale: as tracebench does. */
static unsigned long long calibrate(double ms)
{
	unsigned long long n = 1;
	double t;

	for (;;) {
		double t0 = now_s();

		loop(n);
		t = now_s() - t0;
		if (t * 1e3 >= ms / 10 || n > (1ull << 40))
			break;
		n *= 2;
	}
	return (unsigned long long)((double)n * ms / 1e3 / t);
}

static int traced(const char *name, unsigned long long iters)
{
	char dir[PATH_LEN], pid[32];
	int e;

	if (instance_path(name, dir, sizeof(dir)))
		return 2;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(inst_dir, sizeof(inst_dir), "%s", dir);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	e = write_file(dir, "set_event_pid", pid);
	if (e) {
		event_off();
		return fail("cannot write set_event_pid of", dir, e);
	}
	e = write_file(dir, EVENT, "1");
	if (e) {
		event_off();
		return fail("cannot enable sys_enter_getpid in", dir, e);
	}
	loop(iters);
	/* The event off; the pid stays for --clear, outside the timed run (see the top). */
	e = write_file(dir, EVENT, "0");
	inst_dir[0] = '\0';
	return e ? fail("cannot disable sys_enter_getpid in", dir, e) : 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: tb-getpid-loop [--cpu N] [--trace INSTANCE] ITERS\n"
		"       tb-getpid-loop --create INSTANCE | --remove INSTANCE | --clear INSTANCE\n"
		"       tb-getpid-loop [--cpu N] --calibrate MS\n");
	return 2;
}

static int parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

static int instance_op(const char *op, const char *name)
{
	char dir[PATH_LEN];

	if (instance_path(name, dir, sizeof(dir)))
		return 2;
	if (!strcmp(op, "--create"))
		return mkdir(dir, 0700) ? fail("cannot create", dir, -errno) : 0;
	if (!strcmp(op, "--clear")) {
		int e = write_file(dir, "set_event_pid", "");

		return e ? fail("cannot empty the set_event_pid of", dir, e) : 0;
	}
	write_file(dir, EVENT, "0");
	if (rmdir(dir) && errno != ENOENT)
		return fail("cannot remove", dir, -errno);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long v, cpu = ~0ull;
	const char *trace = NULL;
	int i = 1;

	if (argc == 3 && (!strcmp(argv[1], "--create") || !strcmp(argv[1], "--remove") ||
			  !strcmp(argv[1], "--clear")))
		return instance_op(argv[1], argv[2]);
	if (i + 1 < argc && !strcmp(argv[i], "--cpu")) {
		if (parse_ull(argv[i + 1], &cpu) || cpu >= CPU_SETSIZE)
			return usage();
		i += 2;
	}
	if (cpu != ~0ull) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((int)cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return fail("cannot pin to CPU", argv[i - 1], -errno);
	}
	if (i + 2 == argc && !strcmp(argv[i], "--calibrate")) {
		if (parse_ull(argv[i + 1], &v) || !v)
			return usage();
		printf("%llu\n", calibrate((double)v));
		return 0;
	}
	if (i + 2 < argc && !strcmp(argv[i], "--trace")) {
		trace = argv[i + 1];
		i += 2;
	}
	if (i + 1 != argc || parse_ull(argv[i], &v))
		return usage();
	if (trace)
		return traced(trace, v);
	loop(v);
	return 0;
}
