// SPDX-License-Identifier: GPL-2.0
/* Tracepoints counted in one cgroup (cgroup-count.h): raw perf_event_open in cgroup mode. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perf/cpumap.h>

#include "core/tb.h"
#include "host/cgroup-count.h"
#include "host/cgroup.h"
#include "host/perf.h"
#include "host/tracefs.h"

struct tb_cgroup_count {
	size_t n, ncpus;
	int fd[]; /* fd[i * ncpus + cpu], -1 when not open */
};

/* libperf's evsel opens a pid or a CPU, never a cgroup: the one raw call. */
static int perf_open_cgroup(uint64_t id, int cgfd, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.disabled = 1,
	};

	return (int)syscall(SYS_perf_event_open, &attr, cgfd, cpu, -1,
			    PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
}

int tb_cgroup_count_open(pid_t pid, const char *const *names, size_t n,
			 struct tb_cgroup_count **out, char *err, size_t len)
{
	struct perf_cpu_map *cpus = NULL;
	struct tb_cgroup_count *c = NULL;
	char dir[4096];
	int cgfd = -1, ret, ncpus;
	size_t i, j;

	*out = NULL;
	ret = tb_cgroup_of_pid(pid, dir, sizeof(dir));
	if (ret) {
		snprintf(err, len, "the cgroup of process %d: %s", (int)pid, strerror(-ret));
		return ret;
	}
	cgfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (cgfd < 0) {
		ret = -errno;
		snprintf(err, len, "%s: %s", dir, strerror(errno));
		return ret;
	}
	tb_perf_init();
	cpus = perf_cpu_map__new(NULL); /* the online CPUs */
	ncpus = cpus ? perf_cpu_map__nr(cpus) : 0;
	c = ncpus > 0 ? calloc(1, sizeof(*c) + n * (size_t)ncpus * sizeof(int)) : NULL;
	if (!c) {
		ret = -ENOMEM;
		snprintf(err, len, "the online CPUs' counters: %s", strerror(ENOMEM));
		goto out;
	}
	c->n = n;
	c->ncpus = (size_t)ncpus;
	for (i = 0; i < n * c->ncpus; i++)
		c->fd[i] = -1;
	for (i = 0; i < n; i++) {
		uint64_t id;

		ret = tb_tracefs_event_id(names[i], &id, err, len);
		if (ret)
			goto out;
		for (j = 0; j < c->ncpus; j++) {
			int cpu = perf_cpu_map__cpu(cpus, (int)j).cpu;

			c->fd[i * c->ncpus + j] = perf_open_cgroup(id, cgfd, cpu);
			if (c->fd[i * c->ncpus + j] < 0) {
				ret = -errno;
				snprintf(err, len, "counting %s in %s on CPU %d: %s", names[i], dir,
					 cpu, strerror(errno));
				goto out;
			}
		}
	}
	*out = c;
	c = NULL;
	ret = 0;
out:
	tb_cgroup_count_close(c);
	perf_cpu_map__put(cpus);
	close(cgfd);
	return ret;
}

int tb_cgroup_count_enable(struct tb_cgroup_count *c, int on)
{
	for (size_t i = 0; i < c->n * c->ncpus; i++)
		if (ioctl(c->fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			return -errno;
	return 0;
}

int64_t tb_cgroup_count_read(const struct tb_cgroup_count *c, size_t i)
{
	int64_t sum = 0;
	uint64_t v;

	if (i >= c->n)
		return -EINVAL;
	for (size_t j = 0; j < c->ncpus; j++) {
		if (read(c->fd[i * c->ncpus + j], &v, sizeof(v)) != (ssize_t)sizeof(v))
			return -EIO;
		sum += (int64_t)v;
	}
	return sum;
}

void tb_cgroup_count_close(struct tb_cgroup_count *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n * c->ncpus; i++)
		if (c->fd[i] >= 0)
			close(c->fd[i]);
	free(c);
}
