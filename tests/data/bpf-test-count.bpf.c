// SPDX-License-Identifier: GPL-2.0
/*
 * A user's own object for the bpf tracer's tests (program = object): two tracepoint programs,
 * of which the tests select one by name, and the targ_tgid rodata knob the tracer sets.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile __u32 targ_tgid = 0;
__u64 hits = 0;

SEC("tracepoint/syscalls/sys_enter_getpid")
int tb_test_getpid(void *ctx)
{
	if (targ_tgid && (bpf_get_current_pid_tgid() >> 32) != targ_tgid)
		return 0;
	__sync_fetch_and_add(&hits, 1);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_getppid")
int tb_test_getppid(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
