/* SPDX-License-Identifier: GPL-2.0 */
/* Structs shared by every bundled BPF program and tracers/bpf/bundled.c. */
#ifndef TB_BPF_COMMON_H
#define TB_BPF_COMMON_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Latency histograms: slot i counts values v (ns) with floor(log2(v)) == i; slot 0 also 0. */
#define TB_LOG2_HIST_SLOTS 32

struct tb_log2_hist {
	__u64 slots[TB_LOG2_HIST_SLOTS];
};

/* Default entries of hash maps keyed by process or thread (a full map counts a drop). */
#define TB_MAX_ENTRIES 10240

#endif
