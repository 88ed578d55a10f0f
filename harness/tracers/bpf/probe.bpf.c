// SPDX-License-Identifier: GPL-2.0
/*
 * probe: one program per attach type and body, so that a table of probe types compares like
 * with like. User space autoloads exactly one (tb_empty_<type> or tb_count_<type>) and attaches it to
 * its target (tracers/bpf.c: bare section names, the target comes from the configuration).
 * Names are tb_<body>_<type>: the kernel keeps their first 15 characters.
 *
 * empty: the dispatch cost. It returns unless the task is the workload's and adds one to a
 *        per-CPU counter, the least a program can do and still be counted (the kernel's
 *        trigger benchmark programs count their hits the same way).
 * count: what an agent typically does per hit: read the probe's argument (the first argument,
 *        the return value, or the USDT's first argument) and add it and one to a hash-map entry
 *        keyed by tgid (ebpf_exporter's "simple" probe, plus the read).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#include "probe.h"
#include "tb-bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} hits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TB_MAX_ENTRIES);
	__type(key, __u32);
	__type(value, struct probe_count);
} counts SEC(".maps");

TB_DROPS_MAP;

static __always_inline bool ours(__u32 *tgid)
{
	*tgid = bpf_get_current_pid_tgid() >> 32;
	return tb_pid_ok(*tgid);
}

static __always_inline int empty(void)
{
	__u32 tgid, zero = 0;
	__u64 *v;

	if (!ours(&tgid))
		return 0;
	v = bpf_map_lookup_elem(&hits, &zero);
	if (v)
		*v += 1; /* per-CPU: no atomics */
	return 0;
}

static __always_inline int count(__u64 arg)
{
	struct probe_count *v, init = {1, arg};
	__u32 tgid;

	if (!ours(&tgid))
		return 0;
	v = bpf_map_lookup_elem(&counts, &tgid);
	if (!v) {
		if (!bpf_map_update_elem(&counts, &tgid, &init, BPF_NOEXIST))
			return 0;
		/* Another CPU inserted it meanwhile, or the map is full. */
		v = bpf_map_lookup_elem(&counts, &tgid);
		if (!v) {
			tb_drop(&drops);
			return 0;
		}
	}
	__sync_fetch_and_add(&v->n, 1);
	__sync_fetch_and_add(&v->sum, arg);
	return 0;
}

/* body = spin: the time each hit spends here (.rodata, set before load). */
const volatile __u64 spin_ns = 0;

static long spin_step(__u64 i, void *t0)
{
	return bpf_ktime_get_ns() - *(__u64 *)t0 >= spin_ns; /* 1 ends the loop */
}

/* empty's hit, then a known time spent: the known-delay validation's cost, counted in hits. */
static __always_inline int spin(void)
{
	__u32 tgid, zero = 0;
	__u64 t0, *v;

	if (!ours(&tgid))
		return 0;
	t0 = bpf_ktime_get_ns();
	bpf_loop(1 << 23, spin_step, &t0, 0); /* the helper's bound; ends by time long before */
	v = bpf_map_lookup_elem(&hits, &zero);
	if (v)
		*v += 1;
	return 0;
}

/* Kernel attach types: nothing of the hook's arguments is read (they differ per target). */
#define TB_PROBE_KERNEL(sec, type)              \
	SEC(sec) int tb_empty_##type(void *ctx)    \
	{                                       \
		return empty();                 \
	}                                       \
	SEC(sec) int tb_count_##type(void *ctx)    \
	{                                       \
		return count(0);                \
	}                                       \
	SEC(sec) int tb_spin_##type(void *ctx)     \
	{                                       \
		return spin();                  \
	}

TB_PROBE_KERNEL("tracepoint", tracepoint)
TB_PROBE_KERNEL("raw_tp", raw_tp)
TB_PROBE_KERNEL("tp_btf", tp_btf)
TB_PROBE_KERNEL("fentry", fentry)
TB_PROBE_KERNEL("fexit", fexit)
TB_PROBE_KERNEL("kprobe", kprobe)
TB_PROBE_KERNEL("kretprobe", kretprobe)
TB_PROBE_KERNEL("kprobe.multi", kprobe_multi)

SEC("uprobe")
int tb_empty_uprobe(struct pt_regs *ctx)
{
	return empty();
}

SEC("uprobe")
int BPF_KPROBE(tb_count_uprobe, long a)
{
	return count((__u64)a);
}

SEC("uretprobe")
int tb_empty_uretprobe(struct pt_regs *ctx)
{
	return empty();
}

SEC("uretprobe")
int BPF_KRETPROBE(tb_count_uretprobe, long ret)
{
	return count((__u64)ret);
}

SEC("usdt")
int tb_empty_usdt(struct pt_regs *ctx)
{
	return empty();
}

SEC("usdt")
int BPF_USDT(tb_count_usdt, long a, long b)
{
	return count((__u64)a);
}

char LICENSE[] SEC("license") = "GPL";
