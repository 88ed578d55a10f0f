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

/* 0: the struct rb_event reserved in place; TB_RB_PAYLOAD_MIN..MAX: a record of that many bytes
 * copied from a per-CPU scratch record, so every payload size costs its copy. */
const volatile __u32 payload = 0;
/* output = perfbuf: the record goes to this CPU's perf buffer (bpf_perf_event_output). */
const volatile bool perfbuf = false;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} pevents SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct rb_payload);
} scratch SEC(".maps");

TB_DROPS_MAP;

static __always_inline void fill(struct rb_event *e, __u64 pid_tgid, long id)
{
	e->ts_ns = bpf_ktime_get_ns();
	e->tgid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->id = id;
}

static __always_inline int emit_payload(void *ctx, __u64 pid_tgid, long id)
{
	__u32 zero = 0, n = payload;
	struct rb_payload *buf;

	if (n < TB_RB_PAYLOAD_MIN || n > TB_RB_PAYLOAD_MAX)
		return 0;
	buf = bpf_map_lookup_elem(&scratch, &zero);
	if (!buf)
		return 0;
	fill((struct rb_event *)buf->bytes, pid_tgid, id);
	if (perfbuf ? bpf_perf_event_output(ctx, &pevents, BPF_F_CURRENT_CPU, buf->bytes, n)
		    : bpf_ringbuf_output(&events, buf->bytes, n, submit_flags))
		tb_drop(&drops);
	return 0;
}

static __always_inline int emit(void *ctx, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct rb_event *e;

	if (!tb_pid_ok(pid_tgid >> 32))
		return 0;
	if (payload)
		return emit_payload(ctx, pid_tgid, id);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		tb_drop(&drops);
		return 0;
	}
	fill(e, pid_tgid, id);
	bpf_ringbuf_submit(e, submit_flags);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tb_rb_tp_btf, struct pt_regs *regs, long id)
{
	return emit(ctx, id);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(tb_rb_raw_tp, struct pt_regs *regs, long id)
{
	return emit(ctx, id);
}

char LICENSE[] SEC("license") = "GPL";
