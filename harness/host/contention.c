// SPDX-License-Identifier: GPL-2.0
/*
 * A sample's contention (host/contention.h). Both files are the kernel's, but parsed as
 * outside input: a malformed line makes the figure unknown, never a wrong number.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/contention.h"

int tb_contention_parse_schedstat(const char *text, int64_t *wait_ns)
{
	unsigned long long run, wait, slices;
	char tail;

	if (sscanf(text, "%llu %llu %llu%c", &run, &wait, &slices, &tail) != 4 || tail != '\n' ||
	    wait > INT64_MAX)
		return -EINVAL;
	*wait_ns = (int64_t)wait;
	return 0;
}

int tb_contention_parse_steal(const char *stat, int cpu, int64_t *ticks)
{
	unsigned long long v[8];
	char key[32];
	const char *p;
	size_t klen;

	klen = (size_t)snprintf(key, sizeof(key), "cpu%d ", cpu);
	for (p = stat; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen))
			continue;
		/* user nice system idle iowait irq softirq steal */
		if (sscanf(p + klen, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7]) != 8 ||
		    v[7] > INT64_MAX)
			return -EINVAL;
		*ticks = (int64_t)v[7];
		return 0;
	}
	return -ENOENT;
}

/* The summed wait of pid's threads, or -1 when one thread's schedstat is missing or bad. */
static int64_t threads_wait(DIR *d, pid_t pid)
{
	char path[96], *buf;
	int64_t sum = 0, w;
	struct dirent *de;
	size_t nread = 0;
	int r;

	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/schedstat", (int)pid, de->d_name);
		buf = NULL;
		r = tb_read_file(path, &buf, NULL);
		/* A thread that exited since readdir: its time is gone with it. */
		if (r == -ENOENT || r == -ESRCH)
			continue;
		if (r || tb_contention_parse_schedstat(buf, &w)) {
			free(buf);
			return -1;
		}
		free(buf);
		sum += w;
		nread++;
	}
	/* No thread's file at all: a kernel without schedstats (CONFIG_SCHED_INFO), not 0. */
	return nread ? sum : -1;
}

int tb_contention_read(pid_t pid, const int *cpus, size_t ncpus, struct tb_contention *c)
{
	long hz = sysconf(_SC_CLK_TCK);
	char path[64], *stat = NULL;
	int64_t ticks, steal = 0;
	size_t i;
	DIR *d;

	c->wait_ns = c->steal_ns = -1;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	c->wait_ns = threads_wait(d, pid);
	closedir(d);
	if (!ncpus || hz <= 0 || tb_read_file("/proc/stat", &stat, NULL))
		return 0;
	for (i = 0; i < ncpus; i++) {
		if (tb_contention_parse_steal(stat, cpus[i], &ticks)) {
			steal = -1;
			break;
		}
		steal += ticks;
	}
	free(stat);
	if (steal >= 0)
		c->steal_ns = steal * (1000000000 / hz);
	return 0;
}
