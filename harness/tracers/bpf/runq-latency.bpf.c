// SPDX-License-Identifier: GPL-2.0
/*
 * runq-latency: time from sched_wakeup / sched_wakeup_new (or an involuntary switch out)
 * to sched_switch onto a CPU, as a log2 histogram. tp_btf programs with raw_tp fallbacks;
 * user space autoloads one set.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "runq-latency.h"
#include "tb-bpf.h"

#define TASK_RUNNING 0

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TB_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tb_log2_hist);
} hist SEC(".maps");

TB_DROPS_MAP;

/* The filter for task p, which need not be the current one (a wakee). */
static __always_inline bool task_ok(struct task_struct *p, __u32 tgid)
{
	if (targ_rearm && targ_cgroup)
		return BPF_CORE_READ(p, cgroups, dfl_cgrp, kn, id) == targ_live_cgid;
	return tb_pid_ok(tgid);
}

/* BPF_CORE_READ works for both the BTF-typed and the raw tracepoint arguments. */
static __always_inline int enqueue(struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), pid = BPF_CORE_READ(p, pid);
	__u64 ts;

	if (!pid || !task_ok(p, tgid))
		return 0;
	ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&start, &pid, &ts, BPF_ANY))
		tb_drop(&drops);
	return 0;
}

static __always_inline int switched(struct task_struct *prev, struct task_struct *next)
{
	__u32 pid, zero = 0;
	struct tb_log2_hist *h;
	__u64 *tsp, delta;

	/* A preempted task goes straight back to the run queue. */
	if (BPF_CORE_READ(prev, __state) == TASK_RUNNING)
		enqueue(prev);
	pid = BPF_CORE_READ(next, pid);
	tsp = bpf_map_lookup_elem(&start, &pid);
	if (!tsp)
		return 0;
	delta = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(&start, &pid);
	h = bpf_map_lookup_elem(&hist, &zero);
	if (h)
		__sync_fetch_and_add(&h->slots[tb_hist_slot(delta)], 1);
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(tb_rq_wake_btf, struct task_struct *p)
{
	return enqueue(p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(tb_rq_new_btf, struct task_struct *p)
{
	return enqueue(p);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(tb_rq_sw_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return switched(prev, next);
}

SEC("raw_tp/sched_wakeup")
int BPF_PROG(tb_rq_wake_raw, struct task_struct *p)
{
	return enqueue(p);
}

SEC("raw_tp/sched_wakeup_new")
int BPF_PROG(tb_rq_new_raw, struct task_struct *p)
{
	return enqueue(p);
}

SEC("raw_tp/sched_switch")
int BPF_PROG(tb_rq_sw_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return switched(prev, next);
}

char LICENSE[] SEC("license") = "GPL";
