// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the libperf tracers: event names, thread maps, libperf log, records. */
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
#include <perf/threadmap.h>

#include "tracers/perf-common.h"
#include "core/tb.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} perf_events[] = {
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
	{"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
};

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

/* "system:event" -> the tracepoint id from tracefs (wherever it is mounted). */
static int tracepoint_id(const char *name, uint64_t *id, char *err, size_t len)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[512], line[32], sys[256];
	const char *colon = strchr(name, ':');
	size_t i, n = colon ? (size_t)(colon - name) : 0;
	int ret = -ENOENT;

	if (!n || n >= sizeof(sys) || !colon[1] || strchr(colon + 1, '/') || strchr(name, '/')) {
		snprintf(err, len, "unknown event '%s' (known: %s, or a tracepoint system:event)",
			 name, tb_perf_event_names());
		return -ENOENT;
	}
	memcpy(sys, name, n);
	sys[n] = '\0';
	for (i = 0; i < TB_ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i], sys, colon + 1);
		ret = tb_read_line(path, line, sizeof(line));
		if (!ret)
			break;
	}
	if (ret) {
		if (access("/sys/kernel/tracing/events", F_OK))
			snprintf(err, len, "tracepoint '%s': tracefs is not mounted", name);
		else
			snprintf(err, len, "unknown tracepoint '%s' (no %s)", name, path);
		return -ENOENT;
	}
	*id = strtoull(line, NULL, 10);
	return 0;
}

int tb_perf_event_parse(const char *name, struct perf_event_attr *attr, char *err, size_t len)
{
	uint64_t id;
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(perf_events); i++) {
		if (!strcmp(name, perf_events[i].name)) {
			attr->type = perf_events[i].type;
			attr->config = perf_events[i].config;
			return 0;
		}
	}
	if (tracepoint_id(name, &id, err, len))
		return -ENOENT;
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	return 0;
}

const char *tb_perf_event_task_name(const struct perf_event_attr *attr)
{
	if (attr->type != PERF_TYPE_SOFTWARE)
		return NULL;
	switch (attr->config) {
	case PERF_COUNT_SW_CONTEXT_SWITCHES:
		return "task:switches";
	case PERF_COUNT_SW_CPU_MIGRATIONS:
		return "task:migrations";
	case PERF_COUNT_SW_PAGE_FAULTS:
	case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		return "task:page-faults";
	default:
		return NULL;
	}
}

bool tb_perf_event_is_time(const struct perf_event_attr *attr)
{
	return attr->type == PERF_TYPE_SOFTWARE && (attr->config == PERF_COUNT_SW_TASK_CLOCK ||
						    attr->config == PERF_COUNT_SW_CPU_CLOCK);
}

static char event_names[1024];

static void event_names_build(void)
{
	size_t i, off = 0;

	for (i = 0; i < TB_ARRAY_SIZE(perf_events) && off < sizeof(event_names); i++)
		off += snprintf(event_names + off, sizeof(event_names) - off, "%s%s", i ? ", " : "",
				perf_events[i].name);
}

const char *tb_perf_event_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, event_names_build);
	return event_names;
}

struct perf_thread_map *tb_perf_threads_of(pid_t pid)
{
	struct perf_thread_map *map = NULL;
	struct dirent *de;
	char path[64];
	pid_t *tids = NULL, *tmp;
	size_t n = 0, cap = 0;
	DIR *d;
	int saved;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			tmp = realloc(tids, cap * sizeof(*tids));
			if (!tmp) {
				errno = ENOMEM;
				goto out;
			}
			tids = tmp;
		}
		tids[n++] = (pid_t)atoi(de->d_name);
	}
	if (!n) {
		errno = ESRCH;
		goto out;
	}
	map = perf_thread_map__new_array((int)n, tids);
	if (!map)
		errno = ENOMEM;
out:
	saved = errno;
	closedir(d);
	free(tids);
	errno = saved;
	return map;
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
