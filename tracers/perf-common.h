/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the libperf tracers (perf-count, perf-sample): event names to
 * perf_event_attr, the target's thread map, libperf's log routed to tb_log, the parsing of
 * ring-buffer records, and a few kernel limits. libperf has no event parser, hence the table.
 */
#ifndef TB_PERFUTIL_H
#define TB_PERFUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/perf_event.h>

struct perf_thread_map;

struct perf_evlist;

/*
 * libperf 6.1 (what tools/build-libperf.sh builds) has perf_evsel__delete() forget the map
 * references perf_evlist__set_maps() gave each evsel; later versions drop them themselves.
 * Build with -DTB_LIBPERF_EVSEL_PUTS_MAPS=1 against such a version.
 */
#ifndef TB_LIBPERF_EVSEL_PUTS_MAPS
#define TB_LIBPERF_EVSEL_PUTS_MAPS 0
#endif

/* perf_evlist__delete() (unmap, close, delete the evsels) without leaking their maps. */
void tb_perf_evlist_delete(struct perf_evlist *evlist);

/* Call libperf_init() once per process (it also sets libperf's page size, needed by mmap). */
void tb_perf_init(void);

/*
 * Fill attr->type and attr->config for an event name: a software or hardware event of the
 * table ("task-clock", "page-faults", "cycles", ...) or a tracepoint "system:event" (its id
 * from tracefs). Other attr fields are left alone. Returns 0, or -ENOENT with the reason in err.
 */
int tb_perf_event_parse(const char *name, struct perf_event_attr *attr, char *err, size_t len);
/*
 * The proof of tracing's name (core/events.h) of what a software event counts per task:
 * "task:switches", "task:migrations", "task:page-faults"; NULL for the others.
 */
const char *tb_perf_event_task_name(const struct perf_event_attr *attr);
/* True when the event counts nanoseconds (task-clock, cpu-clock) rather than occurrences. */
bool tb_perf_event_is_time(const struct perf_event_attr *attr);
/* Comma-separated list of the names the table knows, for help texts (static storage). */
const char *tb_perf_event_names(void);

/*
 * A thread map of every thread of process pid (from /proc/pid/task), so that threads created
 * before the events are opened are counted too (inherit covers the later ones). The caller
 * owns the reference (perf_thread_map__put). Returns NULL with errno set (ESRCH: no such pid).
 */
struct perf_thread_map *tb_perf_threads_of(pid_t pid);

/*
 * Mark every perf_event fd of this process close-on-exec. libperf opens them without
 * PERF_FLAG_FD_CLOEXEC, and a program the harness executes later must not keep them alive.
 */
void tb_perf_cloexec_all(void);
/* Number of perf_event fds open in this process (for leak checks), or -errno. */
int tb_perf_count_fds(void);

/*
 * Can this process open perf events here? Tries a task-clock counter on itself. Returns 0, or
 * -errno with the reason (and kernel.perf_event_paranoid) in why.
 */
int tb_perf_probe(char *why, size_t len);

/* kernel.perf_event_max_sample_rate and kernel.perf_cpu_time_max_percent, or -errno. */
int64_t tb_perf_max_sample_rate(void);
int64_t tb_perf_cpu_time_max_percent(void);
/* kernel.perf_event_max_stack (deepest call chain a sample may carry), or -errno. */
int64_t tb_perf_max_stack(void);

/* What a consumer saw in the ring buffers, by record type. */
struct tb_perf_rec_stats {
	uint64_t samples;      /* PERF_RECORD_SAMPLE */
	uint64_t lost;	       /* sum of PERF_RECORD_LOST's lost: records the kernel dropped */
	uint64_t lost_records; /* number of PERF_RECORD_LOST records */
	uint64_t lost_samples; /* sum of PERF_RECORD_LOST_SAMPLES's lost */
	uint64_t throttle;     /* PERF_RECORD_THROTTLE: the kernel lowered the sample rate */
	uint64_t unthrottle;   /* PERF_RECORD_UNTHROTTLE */
	uint64_t other;	       /* any other record type */
	uint64_t bytes;	       /* sum of header.size */
};

/*
 * Account one record (starting with a struct perf_event_header, header.size bytes readable).
 * Returns 0, or -EINVAL for a record too short for its type (it is then counted in other).
 */
int tb_perf_rec_account(struct tb_perf_rec_stats *s, const void *rec);

#endif /* TB_PERFUTIL_H */
