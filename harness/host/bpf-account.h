/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own account of another process's BPF programs: which programs an external tracer
 * owns, what they cost while it traced (run_cnt and run_time_ns, from
 * bpf_enable_stats(BPF_STATS_RUN_TIME) held open over the window) and the maps they hold. No
 * help from the tracer is needed; doc/command-tracer.md describes the method.
 *
 * Ownership, exactly: a program is the tracer's when one of its processes (its process group
 * and every descendant, from /proc) holds a file descriptor that refers to it: a bpf-prog fd
 * (fdinfo prog_id), a bpf-link fd (the link's prog_id) or a perf event with the program
 * attached (BPF_TASK_FD_QUERY). Method "fdinfo". Only when its processes hold no BPF fd at all
 * (a tool that pins its programs and closes them) are the program ids that appeared since
 * tb_bpf_account_begin, and that no other process holds, taken instead: method "new-ids".
 * Programs of other processes are never counted.
 *
 *	begin (before the tracer starts)  stats on; the ids already loaded, for "new-ids"
 *	start (the tracer is ready)       find its programs, read run_cnt/run_time_ns
 *	stop  (before it is stopped)      find them again (late ones count from 0), read again
 *	end                               stats off, free
 */
#ifndef TB_BPF_ACCOUNT_H
#define TB_BPF_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct json_t;

#define TB_BPF_NAME_MAX	  64  /* a program's full name (BTF), or the kernel's 15 bytes */
#define TB_BPF_TYPE_MAX	  32  /* "tracepoint", "raw_tracepoint", "perf_event", ... */
#define TB_BPF_ATTACH_MAX 160 /* "tracepoint:syscalls:sys_enter_read", ... */

enum tb_bpf_method {
	TB_BPF_METHOD_NONE,    /* no program found (perf record, strace): nothing to account */
	TB_BPF_METHOD_FDINFO,  /* the programs its processes' fds refer to: exact */
	TB_BPF_METHOD_NEW_IDS, /* ids that appeared after it started, held by no other process */
};

/* One program of the tracer over one window. */
struct tb_bpf_acct_prog {
	uint32_t id;
	uint64_t load_time; /* tells a program from a later one with the same id */
	char name[TB_BPF_NAME_MAX];
	char type[TB_BPF_TYPE_MAX];
	char attach[TB_BPF_ATTACH_MAX]; /* "" when unknown (a software perf event, unattached) */
	uint64_t cnt0, ns0;		/* run_cnt, run_time_ns at start (0 when loaded later) */
	uint64_t cnt1, ns1;		/* at stop */
	bool gone;			/* unloaded before stop: its runs until then are lost */
};

/* One map the tracer's processes or programs hold. */
struct tb_bpf_acct_map {
	uint32_t id;
	char name[TB_BPF_NAME_MAX];
	char type[TB_BPF_TYPE_MAX];
	uint32_t key_size, value_size, max_entries;
	int64_t memlock; /* the kernel's charge (fdinfo memlock), -1 unknown */
};

struct tb_bpf_account {
	int stats_fd;	  /* bpf_enable_stats while the window lasts, else -1 */
	bool stats;	  /* the run figures are valid (stats were on over the window) */
	int stats_err;	  /* why not, -errno (0: not asked for) */
	int method;	  /* enum tb_bpf_method, from start */
	uint32_t *before; /* program ids loaded at begin (sorted) */
	size_t nbefore;
	struct tb_bpf_acct_prog *progs;
	size_t nprogs;
	struct tb_bpf_acct_map *maps;
	size_t nmaps;
	size_t nprocs; /* processes of the tracer seen at stop */
	bool started, stopped;
};

/* An account that holds nothing (stats_fd -1); safe to end. */
void tb_bpf_account_init(struct tb_bpf_account *a);
/*
 * Before the tracer starts: with stats, hold bpf_enable_stats(BPF_STATS_RUN_TIME) open (a
 * refusal is kept in stats_err: programs are still found, without run figures); note the ids
 * loaded.
 * Returns 0 or -ENOMEM.
 */
int tb_bpf_account_begin(struct tb_bpf_account *a, bool stats);
/* The tracer is ready: find the programs of process group pgid and read their figures. */
int tb_bpf_account_start(struct tb_bpf_account *a, pid_t pgid);
/*
 * Before the tracer is stopped: find its programs again (one loaded after start counts from
 * 0), read their figures, and list its maps. Returns 0 or -ENOMEM.
 */
int tb_bpf_account_stop(struct tb_bpf_account *a, pid_t pgid);
/* Stats off, everything freed; idempotent. */
void tb_bpf_account_end(struct tb_bpf_account *a);

/* The window's total runs and run time over every program (0 when none, -1 without stats). */
void tb_bpf_account_totals(const struct tb_bpf_account *a, int64_t *runs, int64_t *ns);
/* The maps' memory: the kernel's memlock (when known) and (key + value) x max_entries. */
void tb_bpf_account_map_bytes(const struct tb_bpf_account *a, int64_t *memlock, int64_t *bytes);
/* "fdinfo", "new-ids", "none". */
const char *tb_bpf_method_name(int method);
/*
 * The window as JSON for tracer_extra: bpf_method, bpf_stats (true, or the reason it is off),
 * bpf_programs [{id, name, type, attach, runs, run_time_ns, ns_per_run}], bpf_maps [{id, name,
 * type, key_size, value_size, max_entries, bytes, memlock}], bpf_maps_memlock, bpf_maps_bytes,
 * set into obj. Returns 0 or -ENOMEM.
 */
int tb_bpf_account_to_json(const struct tb_bpf_account *a, struct json_t *obj);

/* What some processes hold through their fds (ids de-duplicated). */
struct tb_bpf_held {
	struct tb_bpf_acct_prog *progs; /* id (and attach) filled */
	size_t nprogs;
	struct tb_bpf_acct_map *maps; /* id and memlock filled */
	size_t nmaps;
	uint32_t *links; /* link ids */
	size_t nlinks;
};

/*
 * The BPF programs, maps and links that the processes in pids hold through their fds: bpf-prog,
 * bpf-map and bpf-link fds (their fdinfo) and perf events with a program attached
 * (BPF_TASK_FD_QUERY); with attach, where each program is attached. Into *h (free with
 * tb_bpf_held_free). Returns 0 or -ENOMEM; processes that exited meanwhile are skipped.
 */
int tb_bpf_held_by(const pid_t *pids, size_t npids, bool attach, struct tb_bpf_held *h);
void tb_bpf_held_free(struct tb_bpf_held *h);

#endif /* TB_BPF_ACCOUNT_H */
