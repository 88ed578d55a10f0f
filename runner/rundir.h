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

#include "plan/plan.h"

/*
 * 0 when outdir may become the run directory: absent, or an empty directory; else -EEXIST
 * (said: a run directory is never overwritten).
 */
int tb_rundir_check(const char *outdir);
/*
 * Create the run directory into dir (len bytes): outdir when given (checked as above), else
 * results/<UTC time>-<host>-<scenario>[-N] with host "anon" when anonymize. Returns 0 or -errno
 * (said, with the path).
 */
int tb_rundir_create(const char *outdir, const char *scenario, bool anonymize, char *dir,
		     size_t len);

/*
 * Create the scratch root into root (len bytes) and one directory per workload section of the
 * plan (p->wls[i].tmpdir). Returns 0 or -errno (said). Remove with tb_scratch_remove.
 */
int tb_scratch_create(struct tb_plan *p, char *root, size_t len);
/* Remove the scratch root (idempotent; root becomes ""). */
void tb_scratch_remove(char *root);

#endif /* TB_RUNDIR_H */
