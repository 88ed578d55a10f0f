// SPDX-License-Identifier: GPL-2.0
/*
 * read-latency: read() latency log2 histogram per thread, from the syscalls tracepoints (or another
 * syscall's with the same arguments: the tracer's `syscall` option attaches these programs to
 * its sys_enter_/sys_exit_ tracepoints instead).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "read-latency.h"
#include "tb-bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TB_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, __u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TB_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct tb_log2_hist);
} hists SEC(".maps");

TB_DROPS_MAP;

SEC("tracepoint/syscalls/sys_enter_read")
int tb_rl_enter(struct trace_event_raw_sys_enter *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	__u64 ts;

	if (!tb_pid_ok(pid_tgid >> 32))
		return 0;
	ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&start, &tid, &ts, BPF_ANY))
		tb_drop(&drops);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_read")
int tb_rl_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct tb_log2_hist zero = {}, *h;
	__u64 *tsp, delta;

	/* Only threads that passed the filter at entry have a start time. */
	tsp = bpf_map_lookup_elem(&start, &tid);
	if (!tsp)
		return 0;
	delta = bpf_ktime_get_ns() - *tsp;
	bpf_map_delete_elem(&start, &tid);
	h = bpf_map_lookup_elem(&hists, &tid);
	if (!h) {
		bpf_map_update_elem(&hists, &tid, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, &tid);
		if (!h) {
			tb_drop(&drops);
			return 0;
		}
	}
	__sync_fetch_and_add(&h->slots[tb_hist_slot(delta)], 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
