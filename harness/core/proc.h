/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Child processes: external tracers and command workloads. Always execvp with an argv, never a
 * shell; every child leads its own process group so that the whole tree can be signalled.
 */
#ifndef TB_PROC_H
#define TB_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/bounded.h"
#include "core/outdir.h"

struct tb_proc {
	pid_t pid;	/* also the process group id; 0 when not running */
	int out_fd;	/* read end of the child's stdout+stderr when captured, else -1 */
	char *out_path; /* file receiving stdout+stderr when logged, or NULL */
	int status;	/* wait status once reaped */
	bool reaped;
	struct rusage ru; /* of the child and its reaped descendants, once reaped */
	uint64_t start_ns, end_ns;
	int stop_sig; /* the last signal tb_proc_stop sent before the child ended (0: none) */
	struct tb_drain *drain; /* the bounded writer of out_path (out_max or out_hook), or NULL */
};

enum {
	TB_PROC_CAPTURE = 1 << 0, /* stdout+stderr into a pipe (p->out_fd) instead of a file */
	TB_PROC_NULLIN = 1 << 1,  /* stdin from /dev/null (always set in practice) */
	TB_PROC_CHDIR = 1 << 2,	  /* run in out_path's directory, so relative output lands there */
	/* stdout and stderr stay the caller's (its terminal), with SIGTTOU ignored: a process
	 * group of its own writing to a terminal with `stty tostop` would be stopped */
	TB_PROC_INHERIT = 1 << 3,
};

/* How to start a child; zero-initialise and set what is needed (fds -1 when unused). */
struct tb_proc_opts {
	const char *out_path; /* stdout+stderr appended here (created 0644, no link followed) */
	/* Set: out_path is a name in this directory, opened through its handle, and
	 * TB_PROC_CHDIR runs the child in it (fchdir), even if its path became a link since. */
	const struct tb_dir *out_dir;
	unsigned int flags; /* TB_PROC_* */
	int cwd_fd;	    /* >= 0: run in this directory (fchdir), e.g. a private one */
	int cgroup_fds[2];  /* >= 0: cgroup.procs files the child joins before exec */
	/* With out_path: out_max > 0 keeps at most that many bytes of the output in the file,
	 * out_hook sees its lines (core/bounded.h: through a pipe and a thread of ours). */
	uint64_t out_max;
	tb_line_hook out_hook;
	void *out_hook_ctx;
	int death_sig; /* sent to the child when the caller dies; 0: SIGKILL */
};

#define TB_PROC_OPTS_INIT                              \
	{                                              \
		.cwd_fd = -1, .cgroup_fds = { -1, -1 } \
	}

/*
 * Start argv[0] (PATH lookup) in a new process group, stdin from /dev/null, stdout and stderr
 * to out_path (created 0644, appended) or, with TB_PROC_CAPTURE, a pipe. The child gets
 * PR_SET_PDEATHSIG (SIGKILL unless death_sig) so a killed harness does not leave it running.
 * Returns 0, or
 * -ENOENT when the program cannot be found/executed (checked before returning), -errno else
 * (a cgroup the child could not join is -errno of that write).
 */
int tb_proc_spawn(struct tb_proc *p, char *const argv[], const char *out_path, unsigned flags);
int tb_proc_spawn_opts(struct tb_proc *p, char *const argv[], const struct tb_proc_opts *o);
/* Non-blocking check; returns 1 when the child has exited (and reaps it), 0 when running. */
int tb_proc_poll(struct tb_proc *p);
/* Wait up to timeout_ns (0: forever). Returns 0 when reaped, -ETIMEDOUT if still running. */
int tb_proc_wait(struct tb_proc *p, uint64_t timeout_ns);
/*
 * Stop the process group: sig first, then SIGTERM after grace_ns, then SIGKILL after another
 * grace_ns (at most TB_HURRY_GRACE_NS each once tb_stop_hurried()); always reaps. The signal
 * that ended it goes to p->stop_sig. Returns 0, or -ETIMEDOUT when SIGKILL was needed.
 */
int tb_proc_stop(struct tb_proc *p, int sig, uint64_t grace_ns);
/*
 * The bounded output complete in out_path (what the pipe holds read, the kept tail written):
 * call once the program stopped, before reading its file. Returns the bytes it wrote in all
 * (0 without a bounded output). Idempotent.
 */
uint64_t tb_proc_output_done(struct tb_proc *p);
/* Close fds and free (the bounded output completed); kills and reaps the group first if still
 * running. */
void tb_proc_release(struct tb_proc *p);
/* Human text for a wait status: "exited with status 3", "killed by signal 9". */
const char *tb_proc_status_str(int status, char *buf, size_t len);
/* pid is a zombie or dead ('Z', 'X' in /proc/PID/stat): it holds nothing any more. */
bool tb_proc_zombie(pid_t pid);
/* 0 when the program named by argv0 can be found and executed (PATH search), -ENOENT else. */
int tb_proc_which(const char *argv0, char *path, size_t len);

#endif /* TB_PROC_H */
