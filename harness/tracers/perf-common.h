/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libperf tracers (perf-count, perf-sample): event names to
 * perf_event_attr and the target's thread map. libperf has no event parser, hence the table.
 * What the explain profiler shares with them (libperf's log, limits, records) is host/perf.h.
 */
#ifndef TB_PERFUTIL_H
#define TB_PERFUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include "host/perf.h"

struct perf_thread_map;

/*
 * Fill attr->type and attr->config for an event name: a software or hardware event of the
 * table ("task-clock", "page-faults", "cycles", ...) or a tracepoint "system:event" (its id
 * from tracefs). Other attr fields are left alone. Returns 0, or -ENOENT with the reason in err.
 */
int tb_perfev_parse(const char *name, struct perf_event_attr *attr, char *err, size_t len);
/*
 * The proof of tracing's name (core/events.h) of what a software event counts per task:
 * "task:switches", "task:migrations", "task:page-faults"; NULL for the others.
 */
const char *tb_perfev_task_name(const struct perf_event_attr *attr);
/* True when the event counts nanoseconds (task-clock, cpu-clock) rather than occurrences. */
bool tb_perfev_is_time(const struct perf_event_attr *attr);
/* Comma-separated list of the names the table knows, for help texts (static storage). */
const char *tb_perfev_names(void);

/*
 * A thread map of every thread of process pid (from /proc/pid/task), and with tree of every
 * process descended from it (a server's workers, core/proctree.h), so that threads created
 * before the events are opened are counted too (inherit covers the later ones). The caller
 * owns the reference (perf_thread_map__put). Returns NULL with errno set (ESRCH: no such pid).
 */
struct perf_thread_map *tb_perfev_threads_of(pid_t pid, bool tree);

#endif /* TB_PERFUTIL_H */
