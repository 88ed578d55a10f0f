// SPDX-License-Identifier: GPL-2.0
/*
 * loop-switch: the tracer switches of hyperfine's targets in `make bench-precision`
 * (loop-switch.h). Async-signal-safe where a signal handler calls it: open, write, close and
 * the bpf() syscall only.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "loop-switch.h"

#define TRACEFS	 "/sys/kernel/tracing"
#define PREFIX	 "tracebench-"
#define PATH_LEN 512
#define BSS_MAX	 256 /* the bundled programs' .bss: targ_live and targ_live_cgid */

/* What is switched on while the loop runs, for the signal handler: "" / -1 when nothing. */
static char event_path[PATH_LEN * 2];
static char pid_path[PATH_LEN * 2];
static int bss_fd = -1;

static int write_path(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, e = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != (ssize_t)len)
		e = n < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

static int fail(const char *prog, const char *what, const char *path, int e)
{
	fprintf(stderr, "%s: %s %s: %s\n", prog, what, path, strerror(-e));
	return 1;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* targ_live (the first 4 bytes of the .bss value) to pid; 0 or -errno. */
static int bss_point(int fd, uint32_t pid)
{
	unsigned char val[BSS_MAX] = {0};
	uint32_t key = 0;
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)val;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		return -errno;
	memcpy(val, &pid, sizeof(pid));
	a.flags = BPF_ANY;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &a) ? -errno : 0;
}

static void all_off(void)
{
	if (event_path[0]) {
		write_path(event_path, "0");
		write_path(pid_path, "");
		event_path[0] = '\0';
	}
	if (bss_fd >= 0) {
		bss_point(bss_fd, 0);
		bss_fd = -1;
	}
}

static void on_signal(int sig)
{
	all_off();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
}

static bool name_ours(const char *prog, const char *what, const char *name)
{
	if (strncmp(name, PREFIX, strlen(PREFIX)) || strchr(name, '/') || strlen(name) > 200) {
		fprintf(stderr, "%s: %s '%s': not a name of ours (%s...)\n", prog, what, name,
			PREFIX);
		return false;
	}
	return true;
}

int loop_instance_path(const char *prog, const char *name, char *out, size_t len)
{
	if (!name_ours(prog, "instance", name))
		return -EINVAL;
	snprintf(out, len, "%s/instances/%s", TRACEFS, name);
	return 0;
}

int loop_instance_op(const char *prog, const char *op, const char *name)
{
	char dir[PATH_LEN], path[PATH_LEN * 2];

	if (loop_instance_path(prog, name, dir, sizeof(dir)))
		return 2;
	if (!strcmp(op, "--create"))
		return mkdir(dir, 0700) ? fail(prog, "cannot create", dir, -errno) : 0;
	snprintf(path, sizeof(path), "%s/set_event_pid", dir);
	if (!strcmp(op, "--clear")) {
		int e = write_path(path, "");

		return e ? fail(prog, "cannot empty", path, e) : 0;
	}
	snprintf(path, sizeof(path), "%s/events/enable", dir);
	write_path(path, "0");
	if (rmdir(dir) && errno != ENOENT)
		return fail(prog, "cannot remove", dir, -errno);
	return 0;
}

int loop_trace_on(const char *prog, const char *instance, const char *event)
{
	char dir[PATH_LEN], pid[32];
	const char *slash = strchr(event, '/');
	int e;

	if (loop_instance_path(prog, instance, dir, sizeof(dir)))
		return 2;
	if (!slash || strchr(slash + 1, '/') || strstr(event, "..") || strlen(event) > 200) {
		fprintf(stderr, "%s: event '%s': not system/name\n", prog, event);
		return 2;
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	snprintf(pid_path, sizeof(pid_path), "%s/set_event_pid", dir);
	snprintf(event_path, sizeof(event_path), "%s/events/%s/enable", dir, event);
	catch_signals();
	e = write_path(pid_path, pid);
	if (e) {
		all_off();
		return fail(prog, "cannot write", pid_path, e);
	}
	e = write_path(event_path, "1");
	if (e) {
		char path[sizeof(event_path)];

		memcpy(path, event_path, sizeof(path));
		all_off();
		return fail(prog, "cannot enable", path, e);
	}
	return 0;
}

int loop_trace_off(const char *prog)
{
	char path[sizeof(event_path)];
	int e;

	if (!event_path[0])
		return 0;
	memcpy(path, event_path, sizeof(path));
	/* The event off; the pid stays for --clear, outside the timed run (loop-switch.h). */
	e = write_path(path, "0");
	event_path[0] = '\0';
	return e ? fail(prog, "cannot disable", path, e) : 0;
}

int loop_bpf_on(const char *prog, const char *pin)
{
	struct bpf_map_info info;
	union bpf_attr a;
	int fd, e;

	if (!strstr(pin, "/" PREFIX) || strstr(pin, "..") || strlen(pin) > PATH_LEN) {
		fprintf(stderr, "%s: '%s': not a pin of ours (under a directory " PREFIX "...)\n",
			prog, pin);
		return 2;
	}
	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(uintptr_t)pin;
	fd = (int)sys_bpf(BPF_OBJ_GET, &a);
	if (fd < 0)
		return fail(prog, "cannot open the pinned map", pin, -errno);
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a) || info.type != BPF_MAP_TYPE_ARRAY ||
	    info.key_size != 4 || info.value_size < 4 || info.value_size > BSS_MAX) {
		close(fd);
		fprintf(stderr, "%s: %s: not a bundled program's .bss map\n", prog, pin);
		return 1;
	}
	bss_fd = fd;
	catch_signals();
	e = bss_point(fd, (uint32_t)getpid());
	if (e) {
		all_off();
		return fail(prog, "cannot point the pid filter of", pin, e);
	}
	return 0;
}

int loop_bpf_off(const char *prog)
{
	int fd = bss_fd, e;

	if (fd < 0)
		return 0;
	bss_fd = -1;
	e = bss_point(fd, 0);
	close(fd);
	return e ? fail(prog, "cannot park the pid filter", "(targ_live)", e) : 0;
}

int loop_cpu_arg(const char *prog, int argc, char **argv, int *i, int *cpu)
{
	unsigned long long n;
	cpu_set_t set;

	*cpu = -1;
	if (*i + 1 >= argc || strcmp(argv[*i], "--cpu"))
		return 0;
	if (loop_parse_ull(argv[*i + 1], &n) || n >= CPU_SETSIZE)
		return 2;
	CPU_ZERO(&set);
	CPU_SET((int)n, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "%s: cannot pin to CPU %llu: %s\n", prog, n, strerror(errno));
		return 1;
	}
	*cpu = (int)n;
	*i += 2;
	return 0;
}

int loop_parse_ull(const char *s, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *s == '-' ? -EINVAL : 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

unsigned long long loop_calibrate(void (*run)(unsigned long long), double ms)
{
	unsigned long long n = 1;
	double t;

	for (;;) {
		double t0 = now_s();

		run(n);
		t = now_s() - t0;
		if (t * 1e3 >= ms / 10 || n > (1ull << 40))
			break;
		n *= 2;
	}
	return (unsigned long long)((double)n * ms / 1e3 / t);
}

int loop_batches(const char *prog, void (*run)(unsigned long long), unsigned long long batches,
		 unsigned long long iters)
{
	unsigned long long b;

	for (b = 0; b < batches; b++) {
		double t0 = now_s();

		run(iters);
		/* printed between batches: stdio's buffer only, flushed at the end */
		if (printf("%.3f\n", (now_s() - t0) * 1e9 / (double)iters) < 0)
			break;
	}
	if (b < batches || fflush(stdout)) {
		fprintf(stderr, "%s: writing the batches' times: %s\n", prog, strerror(errno));
		return 1;
	}
	return 0;
}
