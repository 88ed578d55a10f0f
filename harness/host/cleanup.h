/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cleanup of what dead tracebench processes left armed (`tracebench cleanup`, and every
 * run before it measures): it reads the armed records (host/armed.h) and undoes what they name,
 * with tracefs (host/tracefs.h) and BPF.
 */
#ifndef TB_CLEANUP_H
#define TB_CLEANUP_H

#include <sys/types.h>

struct json_t;

enum {
	TB_CLEANUP_DRY_RUN = 1 << 0, /* report what would be done, change nothing */
	TB_CLEANUP_ALL = 1 << 1,     /* also undo what live owners armed (not ourselves) */
};

/*
 * Undo what dead tracebench processes left: for each record whose owner is dead (pid gone or
 * reused), destroy its instances, detach its links, unlink its pins, kill its process groups,
 * remove the record; then destroy every tracefs instance named tracebench-<pid>-* whose owner
 * pid is dead, recorded or not. With TB_CLEANUP_ALL, live owners' (other than this process)
 * items too. Each action (and each thing left alone, with the reason) is appended, when report
 * is not NULL, to *report (a json_t * array of strings that the caller owns; created when
 * *report is NULL). Nothing is printed or logged: the caller shows the report. Returns the number of actions taken (or
 * that would be taken), -EIO when some action failed (the report says which), or -ENOMEM.
 */
int tb_cleanup_stale(unsigned int flags, struct json_t **report);

/*
 * The one place that undoes what a process of ours left when it ended: called by whoever
 * reaped pid (a forked child of tracebench: a sample's workload process), on every path (it
 * exited, failed, or was killed before its teardown ran). Undoes what pid's armed record names
 * (its cgroups, scratch, process groups, ...) and removes the record, also a record it was
 * killed while writing (.armed-<pid>.json.tmp-*). Actions go to the debug log, a failure is
 * warned about (cleanup retries it). Returns the number of actions, 0 when pid left no record,
 * or -EIO / -ENOMEM.
 */
int tb_cleanup_reaped(pid_t pid);

#endif /* TB_CLEANUP_H */
