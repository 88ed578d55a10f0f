// SPDX-License-Identifier: GPL-2.0
/* libperf plumbing shared by the perf tracers and the explain profiler (host/perf.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/event.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "core/tb.h"
#include "host/perf.h"

static pthread_once_t perf_once = PTHREAD_ONCE_INIT;

/* libperf's messages through our log; its debug chatter (mmap indices) only at debug level. */
static int perf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	enum tb_log_level l;

	switch (level) {
	case LIBPERF_ERR:
		l = TB_LOG_ERROR;
		break;
	case LIBPERF_WARN:
		l = TB_LOG_WARN;
		break;
	default:
		l = TB_LOG_DEBUG;
		break;
	}
	tb_vlog(l, fmt, ap);
	return 0;
}

static void perf_init_once(void)
{
	libperf_init(perf_print);
}

void tb_perf_init(void)
{
	pthread_once(&perf_once, perf_init_once);
}

void tb_perf_evlist_delete(struct perf_evlist *evlist)
{
	struct perf_cpu_map *cpus[64];
	struct perf_thread_map *threads[64];
	struct perf_evsel *evsel;
	size_t i, n = 0;

	if (!evlist)
		return;
	if (!TB_LIBPERF_EVSEL_PUTS_MAPS) {
		perf_evlist__for_each_evsel(evlist, evsel)
		{
			if (n == TB_ARRAY_SIZE(cpus))
				break;
			cpus[n] = perf_evsel__cpus(evsel);
			threads[n++] = perf_evsel__threads(evsel);
		}
	}
	perf_evlist__delete(evlist);
	for (i = 0; i < n; i++) {
		perf_cpu_map__put(cpus[i]);
		perf_thread_map__put(threads[i]);
	}
}

/* Calls fn(fd) for each perf_event fd of this process; returns how many, or -errno. */
static int for_each_perf_fd(void (*fn)(int fd))
{
	char path[64], target[64];
	struct dirent *de;
	int n = 0, fd;
	ssize_t len;
	DIR *d;

	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = atoi(de->d_name);
		if (fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len < 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]"))
			continue;
		n++;
		if (fn)
			fn(fd);
	}
	closedir(d);
	return n;
}

static void set_cloexec(int fd)
{
	int fl = fcntl(fd, F_GETFD);

	if (fl >= 0 && !(fl & FD_CLOEXEC))
		fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

void tb_perf_cloexec_all(void)
{
	for_each_perf_fd(set_cloexec);
}

int tb_perf_count_fds(void)
{
	return for_each_perf_fd(NULL);
}

int tb_perf_probe(char *why, size_t len)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.disabled = 1,
	};
	struct perf_thread_map *self;
	struct perf_evsel *evsel;
	char paranoid[16] = "?";
	pid_t pid = 0; /* the calling thread, on any CPU */
	int ret;

	tb_perf_init();
	evsel = perf_evsel__new(&attr);
	self = perf_thread_map__new_array(1, &pid);
	if (!evsel || !self) {
		perf_evsel__delete(evsel);
		perf_thread_map__put(self);
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	ret = perf_evsel__open(evsel, NULL, self);
	perf_evsel__close(evsel);
	perf_evsel__delete(evsel);
	perf_thread_map__put(self);
	if (!ret)
		return 0;
	tb_read_line("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	if (ret == -EACCES || ret == -EPERM)
		snprintf(
			why, len,
			"perf_event_open refused (%s) with kernel.perf_event_paranoid = %s: run as root or lower it",
			strerror(-ret), paranoid);
	else
		snprintf(why, len, "perf_event_open of a software counter failed: %s",
			 strerror(-ret));
	return ret;
}

static int64_t read_sysctl(const char *path)
{
	char line[32];
	int ret = tb_read_line(path, line, sizeof(line));

	if (ret)
		return ret;
	return strtoll(line, NULL, 10);
}

int64_t tb_perf_max_sample_rate(void)
{
	return read_sysctl("/proc/sys/kernel/perf_event_max_sample_rate");
}

int64_t tb_perf_max_stack(void)
{
	return read_sysctl("/proc/sys/kernel/perf_event_max_stack");
}

int64_t tb_perf_cpu_time_max_percent(void)
{
	return read_sysctl("/proc/sys/kernel/perf_cpu_time_max_percent");
}

int64_t tb_perf_paranoid(void)
{
	return read_sysctl("/proc/sys/kernel/perf_event_paranoid");
}

int tb_perf_rec_account(struct tb_perf_rec_stats *s, const void *rec)
{
	const union perf_event *ev = rec;
	size_t size = ev->header.size;

	s->bytes += size;
	switch (ev->header.type) {
	case PERF_RECORD_SAMPLE:
		s->samples++;
		return 0;
	case PERF_RECORD_LOST:
		if (size < sizeof(ev->lost))
			break;
		s->lost_records++;
		s->lost += ev->lost.lost;
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (size < sizeof(ev->lost_samples))
			break;
		s->lost_samples += ev->lost_samples.lost;
		return 0;
	case PERF_RECORD_THROTTLE:
		s->throttle++;
		return 0;
	case PERF_RECORD_UNTHROTTLE:
		s->unthrottle++;
		return 0;
	default:
		s->other++;
		return 0;
	}
	s->other++;
	return -EINVAL;
}

void tb_perf_evlist_drain(struct perf_evlist *evlist, void (*fn)(void *ctx, const void *rec),
			  void *ctx)
{
	struct perf_mmap *map;
	union perf_event *ev;

	perf_evlist__for_each_mmap(evlist, map, false)
	{
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			fn(ctx, ev);
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
	}
}
