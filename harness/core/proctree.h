/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes belong to a child tracebench started: its process group and every descendant
 * of the group's members (a child that called setsid or setpgid stays included), read from
 * /proc. Processes, not threads: the threads of a process share its file descriptors.
 */
#ifndef TB_PROCTREE_H
#define TB_PROCTREE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The live processes of process group pgid and their descendants into *pids (caller frees),
 * *n of them. Returns 0, -ENOMEM, or -errno when /proc cannot be read.
 */
int tb_proc_group_tree(pid_t pgid, pid_t **pids, size_t *n);
/* Process pid (if live) and its descendants, as tb_proc_group_tree. */
int tb_proc_tree(pid_t pid, pid_t **pids, size_t *n);
/* Every live process but those in skip (n_skip of them): for "held by another process". */
int tb_proc_all_except(const pid_t *skip, size_t n_skip, pid_t **pids, size_t *n);

#endif /* TB_PROCTREE_H */
