// SPDX-License-Identifier: GPL-2.0
/*
 * syscall-count: per-process syscall counts on raw_syscalls:sys_enter. Two copies of the
 * program: tp_btf (cheaper, typed) and raw_tp (fallback); user space autoloads one.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "syscall-count.h"
#include "tb-bpf.h"

const volatile __s32 targ_id = -1; /* syscall-nr: the one syscall counted; -1: every one */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TB_MAX_ENTRIES);
	__type(key, struct sc_key);
	__type(value, __u64);
} counts SEC(".maps");

TB_DROPS_MAP;

static __always_inline int count(long id)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct sc_key key = {};
	__u64 *val, one = 1;

	if (!tb_pid_ok(tgid))
		return 0;
	/* the early-return filter a selectivity sweep prices (scenarios/sweeps.ini) */
	if (targ_id >= 0 && id != targ_id)
		return 0;
	key.tgid = tgid;
	key.id = (__u32)id;
	val = bpf_map_lookup_elem(&counts, &key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return 0;
	}
	if (!bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST))
		return 0;
	/* Another CPU may have inserted the key meanwhile; else the map is full. */
	val = bpf_map_lookup_elem(&counts, &key);
	if (val)
		__sync_fetch_and_add(val, 1);
	else
		tb_drop(&drops);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(tb_sc_tp_btf, struct pt_regs *regs, long id)
{
	return count(id);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(tb_sc_raw_tp, struct pt_regs *regs, long id)
{
	return count(id);
}

char LICENSE[] SEC("license") = "GPL";
