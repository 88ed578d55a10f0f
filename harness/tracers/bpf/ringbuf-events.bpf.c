// SPDX-License-Identifier: GPL-2.0
/*
 * ringbuf-events: every syscall of the target sent to user space through a BPF ring buffer
 * (the pattern of security agents); a failed reserve (buffer full) counts a drop.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "ringbuf-events.h"
#include "tb-bpf.h"

/* 0: wake the reader when it has caught up (adaptive); BPF_RB_NO_WAKEUP: the reader polls. */
const volatile __u64 submit_flags = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024); /* set from the ringbuf-size option before load */
} events SEC(".maps");

TB_DROPS_MAP;

static __always_inline int emit(long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct rb_event *e;

	if (!tb_pid_ok(pid_tgid >> 32))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		tb_drop(&drops);
		return 0;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->tgid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->id = id;
	bpf_ringbuf_submit(e, submit_flags);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tb_rb_tp_btf, struct pt_regs *regs, long id)
{
	return emit(id);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(tb_rb_raw_tp, struct pt_regs *regs, long id)
{
	return emit(id);
}

char LICENSE[] SEC("license") = "GPL";
