/* SPDX-License-Identifier: GPL-2.0 */
/* syscall-count: shared with tracers/bpf/bundled.c. */
#ifndef TB_SYSCALL_COUNT_H
#define TB_SYSCALL_COUNT_H

#include "tb-common.h"

/* Key of the `counts` map (value: __u64 number of sys_enter events). */
struct sc_key {
	__u32 tgid;
	__u32 id; /* syscall number */
};

#endif
