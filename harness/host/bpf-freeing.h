/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF programs and links this machine's tracebench runs are freeing. The kernel frees a
 * program asynchronously after its last fd closed (it can stay listed for about 0.5 s): a
 * tracer's teardown waits, bounded, until its objects are gone, and a run started at once
 * must not take a program the previous one is still freeing for foreign instrumentation.
 *
 * Teardowns note what they free in <state dir>/bpf-freeing (host/armed.h's state directory),
 * one line each: "prog|link <id> <load_time> <unix time> <pid>". A program is told apart from
 * a later one that got the same id by the kernel's load_time (ns since boot, from
 * bpf_prog_info), so a skipped program is exactly one a tracebench process loaded; entries
 * older than TB_BPF_FREEING_MAX_AGE_S, or whose object is gone, are pruned.
 */
#ifndef TB_BPF_FREEING_H
#define TB_BPF_FREEING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A program still listed this long after it was noted is held by something: not ours. */
#define TB_BPF_FREEING_MAX_AGE_S 10
/* How long a teardown waits for the kernel to free its objects. */
#define TB_BPF_GONE_TIMEOUT_NS 2000000000ull

struct tb_bpf_obj {
	uint32_t id;
	bool link;	    /* a link, else a program */
	uint64_t load_time; /* programs: bpf_prog_info.load_time; 0 when unknown */
};

/* The program or link behind fd as an object. Returns 0 or -errno. */
int tb_bpf_obj_of_prog_fd(int fd, struct tb_bpf_obj *o);
int tb_bpf_obj_of_link_fd(int fd, struct tb_bpf_obj *o);
/*
 * The programs and links the processes of process group pgid and their descendants hold open
 * (host/bpf-account.h's tb_bpf_held_by), for tracers run as commands. *out (caller frees) gets
 * *n objects. Returns 0 or -ENOMEM (unreadable processes are skipped: they are gone).
 */
int tb_bpf_objs_of_pgrp(pid_t pgid, struct tb_bpf_obj **out, size_t *n);
/* Is the object still there (the same program: its load_time matches when known)? */
bool tb_bpf_obj_exists(const struct tb_bpf_obj *o);
/*
 * Wait until none of the n objects exists, at most timeout_ns. Returns 0, or -ETIMEDOUT with
 * the number still there in *left (may be NULL).
 */
int tb_bpf_wait_gone(const struct tb_bpf_obj *o, size_t n, uint64_t timeout_ns, size_t *left);
/* Note the n objects in the freeing record before they are released. Returns 0 or -errno. */
int tb_bpf_freeing_note(const struct tb_bpf_obj *o, size_t n);
/*
 * The teardown of n objects: what: the tracer's name for messages. Notes them, calls
 * release(arg) (which closes every fd of them), then waits TB_BPF_GONE_TIMEOUT_NS at most and
 * says how many are still listed if some are. Returns 0 or -ETIMEDOUT.
 */
int tb_bpf_release_and_wait(const char *what, const struct tb_bpf_obj *o, size_t n,
			    void (*release)(void *), void *arg);
/*
 * Program id (with its load_time) is one a tracebench run noted while freeing it, less than
 * TB_BPF_FREEING_MAX_AGE_S ago: not foreign instrumentation.
 */
bool tb_bpf_freeing_has(uint32_t id, uint64_t load_time);
/*
 * Before a run looks for foreign instrumentation: wait (at most timeout_ns) for the objects
 * of the freeing record to go, and rewrite the record without those gone or too old.
 * Returns the number still there.
 */
size_t tb_bpf_freeing_settle(uint64_t timeout_ns);

#endif /* TB_BPF_FREEING_H */
