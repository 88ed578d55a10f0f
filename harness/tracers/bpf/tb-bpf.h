/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for the BPF side only (included after vmlinux.h and bpf_helpers.h). */
#ifndef TB_BPF_H
#define TB_BPF_H

#include "tb-common.h"

/*
 * The pid filter of every bundled program. targ_tgid is .rodata, set before load and folded by
 * the verifier into the program (0: every process, else that tgid only): pid-filter =
 * workload-rodata, a fresh load per sample. With targ_rearm (pid-filter = workload, the
 * default) the filter is the writable global targ_live (.bss, mmapped by user space) instead:
 * one load, attach and detach per sample, and the filter re-pointed to each sample's process
 * without a reload (tracer.h, rearm). targ_live 0 matches no process that runs the hooks (pid 0
 * is the idle task) and is what a parked tracer holds. A load and a compare against a map
 * value instead of a compare against a constant: METHODOLOGY.md section 9 measures both.
 */
const volatile __u32 targ_tgid = 0;
const volatile bool targ_rearm = false;
volatile __u32 targ_live = 0;
/*
 * A server's processes (a service workload's target, its workers and later forks) share its
 * cgroup and not one tgid: with targ_cgroup (.rodata, folded: no cost to the other programs)
 * the rearmable filter is the cgroup2 id targ_live_cgid of the task instead, which the
 * counting pass's counters (host/cgroup-count.h) also go by. 0 matches no task.
 */
const volatile bool targ_cgroup = false;
volatile __u64 targ_live_cgid = 0;

/* The filter for the current task, whose tgid is given. */
static __always_inline bool tb_pid_ok(__u32 tgid)
{
	if (targ_rearm && targ_cgroup)
		return bpf_get_current_cgroup_id() == targ_live_cgid;
	if (targ_rearm)
		return tgid == targ_live;
	return !targ_tgid || tgid == targ_tgid;
}

/*
 * Every bundled program counts what it could not record (full map, ring buffer full) in its own
 * per-CPU slot; user space sums the CPUs.
 */
#define TB_DROPS_MAP                                     \
	struct {                                         \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); \
		__uint(max_entries, 1);                  \
		__type(key, __u32);                      \
		__type(value, __u64);                    \
	} drops SEC(".maps")

static __always_inline void tb_drop(void *map)
{
	__u32 zero = 0;
	__u64 *d = bpf_map_lookup_elem(map, &zero);

	if (d)
		*d += 1; /* per-CPU value: no atomics needed */
}

/* floor(log2(v)) without loops, so the verifier sees a constant instruction count. */
static __always_inline __u32 tb_log2(__u32 v)
{
	__u32 r, shift;

	r = (v > 0xFFFF) << 4;
	v >>= r;
	shift = (v > 0xFF) << 3;
	v >>= shift;
	r |= shift;
	shift = (v > 0xF) << 2;
	v >>= shift;
	r |= shift;
	shift = (v > 0x3) << 1;
	v >>= shift;
	r |= shift;
	r |= (v >> 1);
	return r;
}

static __always_inline __u32 tb_log2l(__u64 v)
{
	__u32 hi = v >> 32;

	return hi ? tb_log2(hi) + 32 : tb_log2(v);
}

static __always_inline __u32 tb_hist_slot(__u64 ns)
{
	__u32 slot = tb_log2l(ns);

	return slot < TB_LOG2_HIST_SLOTS ? slot : TB_LOG2_HIST_SLOTS - 1;
}

#endif
