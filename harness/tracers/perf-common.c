// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the libperf tracers: event names and thread maps (the rest: host/perf.c). */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/threadmap.h>

#include "tracers/perf-common.h"
#include "core/proctree.h"
#include "core/tb.h"
#include "host/tracefs.h"

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

int tb_perfev_parse(const char *name, struct perf_event_attr *attr, char *err, size_t len)
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
	if (!strchr(name, ':')) {
		snprintf(err, len, "unknown event '%s' (known: %s, or a tracepoint system:event)",
			 name, tb_perfev_names());
		return -ENOENT;
	}
	if (tb_tracefs_event_id(name, &id, err, len))
		return -ENOENT;
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->config = id;
	return 0;
}

const char *tb_perfev_task_name(const struct perf_event_attr *attr)
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

bool tb_perfev_is_time(const struct perf_event_attr *attr)
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

const char *tb_perfev_names(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, event_names_build);
	return event_names;
}

/* Append every thread of process pid (its /proc/pid/task) to *tids. 0, -ESRCH or -ENOMEM. */
static int add_threads(pid_t pid, pid_t **tids, size_t *n, size_t *cap)
{
	struct dirent *de;
	char path[64];
	pid_t *tmp;
	int ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while (!ret && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			tmp = realloc(*tids, *cap * sizeof(**tids));
			if (!tmp) {
				ret = -ENOMEM;
				break;
			}
			*tids = tmp;
		}
		(*tids)[(*n)++] = (pid_t)atoi(de->d_name);
	}
	closedir(d);
	return ret;
}

struct perf_thread_map *tb_perfev_threads_of(pid_t pid, bool tree)
{
	struct perf_thread_map *map = NULL;
	pid_t *tids = NULL, *procs = NULL;
	size_t n = 0, cap = 0, nprocs = 0;
	int ret;

	if (tree) {
		ret = tb_proc_tree(pid, &procs, &nprocs);
		/* a descendant that exits while it is read is not counted: it is gone */
		for (size_t i = 0; !ret && i < nprocs; i++)
			if (add_threads(procs[i], &tids, &n, &cap) == -ENOMEM)
				ret = -ENOMEM;
	} else {
		ret = add_threads(pid, &tids, &n, &cap);
	}
	if (!ret && !n)
		ret = -ESRCH;
	if (!ret) {
		map = perf_thread_map__new_array((int)n, tids);
		ret = map ? 0 : -ENOMEM;
	}
	free(tids);
	free(procs);
	errno = -ret;
	return map;
}
