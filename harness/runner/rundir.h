/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a run writes: its run directory (results/<UTC time>-<host>-<scenario>/, or -o DIR), and
 * a private scratch directory for the workloads' files (/tmp/tracebench-<pid>-XXXXXX), removed
 * when the run ends. The state directory of host/armed.h is something else.
 */
#ifndef TB_RUNDIR_H
#define TB_RUNDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/outdir.h"
#include "plan/plan.h"

/*
 * 0 when outdir may become the run directory: absent, or an empty directory (not a symbolic
 * link) owned by this user or root and not writable by everyone; else -errno, said: -EEXIST (a
 * run directory is never overwritten), -ELOOP, -ENOTDIR, -EPERM (owned by another user or
 * world-writable), -EROFS or -EACCES (it, or the directory it would be made in, cannot be
 * written). outdir NULL checks results/ (or the current directory while it is absent).
 * tb_dir_exit_code() maps it to the exit code.
 */
int tb_rundir_check(const char *outdir);
/*
 * Create the run directory and open it into d (core/outdir.h): outdir when given (checked as
 * above, created with its parents when absent), else results/<UTC time>-<host>-<scenario>[-N]
 * with host "anon" when anonymize (results/ is created when absent and checked like outdir,
 * except that it need not be empty). Returns 0 or -errno (said, with the path).
 */
int tb_rundir_create(const char *outdir, const char *scenario, bool anonymize, struct tb_dir *d);

/*
 * Whether d's file system has room for the result of a run of nsamples samples, whose
 * result.json is now now_bytes long: result.json is rewritten atomically after every round
 * (old and new copy at once) and samples.csv next to it. Tracer output and plots are not
 * counted. Returns 0 or -ENOSPC (said, with the figures).
 */
int tb_rundir_check_room(const struct tb_dir *d, size_t nsamples, size_t now_bytes);

/* The scratch root's name: /tmp/tracebench-<pid>-XXXXXX (cleanup finds stale ones by it). */
#define TB_SCRATCH_PREFIX "tracebench-"
/*
 * Create the scratch root into root (len bytes) and one directory per workload section of the
 * plan (p->wls[i].tmpdir). Returns 0 or -errno (said). Remove with tb_scratch_remove.
 */
int tb_scratch_create(struct tb_plan *p, char *root, size_t len);
/* Remove the scratch root (idempotent; root becomes ""). */
void tb_scratch_remove(char *root);

#endif /* TB_RUNDIR_H */
