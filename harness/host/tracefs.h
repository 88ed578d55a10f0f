/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs for tracebench (on libtracefs): mounting it, tracebench's private instances (named
 * tracebench-<owner pid>-<section>, recorded in the armed record), event list expansion and the
 * pid files. The tracing-state snapshot is host/tracing-state.h; what only the ftrace tracers use
 * (buffer statistics, the consumer, the function-tracer probe) is tracers/ftrace-common.h.
 */
#ifndef TB_TRACEFS_H
#define TB_TRACEFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <tracefs.h>

#include "core/tb.h"

#define TB_TRACEFS_MOUNT   "/sys/kernel/tracing"
#define TB_INSTANCE_PREFIX "tracebench-"
/* Our dynamic events (uprobe_events) are TB_DYNEVENT_SYSTEM:tb_<owner pid>_<section>. */
#define TB_DYNEVENT_SYSTEM "tracebench"
#define TB_DYNEVENT_PREFIX "tb_"

/*
 * Make sure tracefs is mounted; mount it at /sys/kernel/tracing when it is not (and say so on
 * stderr). Returns 0 or -errno with the reason logged.
 */
int tb_tracefs_ensure(void);

/* "tracebench-<owner>-<section with anything but [A-Za-z0-9_.-] replaced by '_'>". */
void tb_tracefs_instance_name(char *buf, size_t len, pid_t owner, const char *section);
/* Owner pid of a tracebench instance name, or 0 when name is not one of ours. */
pid_t tb_tracefs_instance_owner(const char *name);

/*
 * Create this process's private instance for section (recorded in the armed record first, so
 * a crash right after leaves something cleanup can find). -EEXIST when it exists already.
 * Returns 0 with *out set (free with tb_tracefs_instance_remove), or -errno (logged).
 */
int tb_tracefs_instance_new(const char *section, struct tracefs_instance **out);
/*
 * Switch the instance off (tracing_on 0, every event disabled, tracer nop), remove it, free it
 * and drop it from the armed record. Idempotent: *inst is NULL afterwards; NULL is a no-op.
 * Returns 0 or -errno (the instance could not be removed; logged).
 */
int tb_tracefs_instance_remove(struct tracefs_instance **inst);
/* The same for an instance known by name only (cleanup). 0 when it is gone (or never was). */
int tb_tracefs_instance_destroy_name(const char *name);

/*
 * Dynamic events are global (every instance sees them): ours are named by owner like the
 * instances. tb_tracefs_dynevent_name: "tb_<owner>_<section with anything but [A-Za-z0-9_]
 * replaced by '_'>"; tb_tracefs_dynevent_owner: the owner pid of such a name, or 0.
 */
void tb_tracefs_dynevent_name(char *buf, size_t len, pid_t owner, const char *section);
pid_t tb_tracefs_dynevent_owner(const char *event);
/*
 * Remove the uprobe or uretprobe event TB_DYNEVENT_SYSTEM:event (cleanup, and a tracer's own
 * teardown when it lost its handle). 0 when it is gone (or never was), else -errno.
 */
int tb_tracefs_dynevent_destroy_name(const char *event);
/*
 * The names of our uprobe and uretprobe events (TB_DYNEVENT_SYSTEM), as a NULL-terminated list
 * (free with tracefs_list_free); NULL when there are none or on error.
 */
char **tb_tracefs_dynevents(void);

/*
 * Expand event specs ("system:event", globs in either part like "syscalls:sys_enter_*",
 * "sched:*") into concrete "system:event" names, sorted and without duplicates. A spec that
 * matches nothing is an error: -ENOENT with "unknown event 'spec'" in err.
 */
int tb_tracefs_events_expand(const struct tb_strlist *specs, struct tb_strlist *out, char *err,
			     size_t errlen);

/*
 * Write the thread ids of pid, and with tree of its descendants too (every entry of
 * /proc/<p>/task), to the instance file (set_event_pid or set_ftrace_pid), replacing its content. Returns 0 or -errno (logged).
 */
int tb_tracefs_set_pids(struct tracefs_instance *inst, const char *file, pid_t pid, bool tree);

/*
 * The perf tracepoint id of "system:event" from tracefs's events/<system>/<event>/id (wherever
 * tracefs is mounted). Returns 0, or -ENOENT with the reason in err (a malformed name, tracefs
 * not mounted, no such event).
 */
int tb_tracefs_event_id(const char *name, uint64_t *id, char *err, size_t len);

#endif /* TB_TRACEFS_H */
