/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash safety: a record of everything a live tracebench process has armed (tracefs instances,
 * child process groups, BPF links and programs, pinned BPF objects), kept in one file per owner
 * pid under the state directory, so that `tracebench cleanup` and the next run can undo what a
 * killed process (SIGKILL, OOM) left behind (host/cleanup.h reads the records of dead owners and
 * undoes what they name). Plus the lock that serializes measuring runs.
 *
 * The state directory is /run/tracebench, or $TB_STATE_DIR when set (tests; the older name
 * TB_RUN_DIR is still read). Records are JSON files
 * "armed-<pid>.json" written atomically on every change:
 *   { "pid": 123, "start_time": <clock ticks since boot, /proc/pid/stat field 22>,
 *     "items": [ { "kind": "instance", "value": "tracebench-123-tp" }, ... ] }
 * A process group item's value is "<pgid>:<start_time of the leader>", so that a reused pid is
 * never killed.
 */
#ifndef TB_ARMED_H
#define TB_ARMED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum tb_armed_kind {
	TB_ARMED_INSTANCE, /* tracefs instance name */
	TB_ARMED_PGID,	   /* "<pgid>:<starttime>": use tb_armed_add_pgid() */
	TB_ARMED_BPF_PROG, /* BPF program id (decimal) */
	TB_ARMED_BPF_LINK, /* BPF link id (decimal); cleanup detaches it if still present */
	TB_ARMED_BPF_PIN,  /* path of a pinned BPF object in bpffs; cleanup unlinks it */
	TB_ARMED_SCRATCH,  /* a scratch directory /tmp/tracebench-<pid>-*; cleanup removes it */
	TB_ARMED_CGROUP,   /* a cgroup directory (host/cgroup.h); cleanup kills what is in it and
			      removes it */
	TB_ARMED_DYNEVENT, /* tracefs dynamic event tracebench/<value> (global); cleanup removes it */
	TB_ARMED_PLOT_TMP, /* a plot session's .../plots/.tracebench-<pid>-XXXXXX; cleanup removes it */
	TB_ARMED_NKINDS,
};

/* "instance", "pgid", "bpf_prog", "bpf_link", "bpf_pin", "scratch", "cgroup",
 * "dynevent", "plot_tmp"; NULL for a bad kind. */
const char *tb_armed_kind_name(enum tb_armed_kind kind);
/* The kind of such a name (as a record file holds it), or -1 when it is none. */
int tb_armed_kind_from_name(const char *name);
/* The machine's state directory: its lock is the one every run takes. */
#define TB_MACHINE_STATE_DIR "/run/tracebench"
/* The state directory (/run/tracebench or $TB_STATE_DIR), not a results run directory; a
 * static string. */
const char *tb_state_dir(void);

/*
 * Add (value copied) or remove an item of this process's record and rewrite the record file
 * atomically. Adding an item that is present already, or removing one that is absent, is a
 * no-op. The record file is removed when its last item goes. Returns 0 or -errno (the record
 * could not be written: the caller should refuse to arm what it cannot record). Thread-safe.
 * A forked child starts with an empty record of its own.
 */
int tb_armed_add(enum tb_armed_kind kind, const char *value);
int tb_armed_remove(enum tb_armed_kind kind, const char *value);
/* Same for a process group whose leader is pgid (its start time is read from /proc). */
int tb_armed_add_pgid(pid_t pgid);
int tb_armed_remove_pgid(pid_t pgid);
/* True when this process's record holds (kind, value). */
bool tb_armed_has(enum tb_armed_kind kind, const char *value);
/* Forget this process's record (in memory and on disk): used after a complete teardown. */
void tb_armed_clear(void);

/* Start time of pid in clock ticks since boot (field 22 of /proc/pid/stat); 0 if gone. */
uint64_t tb_armed_start_time(pid_t pid);
/*
 * True when the owner of a record is alive: pid exists and, when start_time is not 0, still has
 * that start time (else the pid was reused by another process).
 */
bool tb_armed_owner_alive(pid_t pid, uint64_t start_time);

/*
 * Take the run lock (flock on <state dir>/lock, which then holds our pid). With a state
 * directory of its own (TB_STATE_DIR) the machine's lock (TB_MACHINE_STATE_DIR/lock) is taken
 * first as well: runs with other state directories still measure one at a time. With wait,
 * block until both are free. Returns 0, or -EBUSY when another process holds one (its pid in
 * *holder when known, else 0), or -errno. Released by tb_lock_release() or at exit.
 */
int tb_lock_acquire(bool wait, pid_t *holder);
/*
 * Wait for the machine's lock and hold it to the exit (tb_lock_release leaves it): for a
 * process that traces without being a run (the unit tests), so that no run measures beside
 * it. Its own tb_lock_acquire calls then take only their state directory's lock. Returns 0 or
 * -errno.
 */
int tb_lock_hold_machine(void);
void tb_lock_release(void);
/* Pid of the lock's current holder (getpid() when it is us), 0 when free. */
pid_t tb_lock_holder(void);

#endif /* TB_ARMED_H */
