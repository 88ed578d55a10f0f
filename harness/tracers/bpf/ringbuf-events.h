/* SPDX-License-Identifier: GPL-2.0 */
/* ringbuf-events: the record sent through the `events` ring buffer, read by tracers/bpf/bpf.c. */
#ifndef TB_RINGBUF_EVENTS_H
#define TB_RINGBUF_EVENTS_H

#include "tb-common.h"

struct rb_event {
	__u64 ts_ns; /* bpf_ktime_get_ns() at sys_enter */
	__u32 tgid;
	__u32 tid;
	__s64 id; /* syscall number */
};

#endif
