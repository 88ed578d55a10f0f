/* SPDX-License-Identifier: GPL-2.0 */
/* ringbuf-events: the record sent through the `events` ring buffer, read by tracers/bpf/bpf.c. */
#ifndef TB_RINGBUF_EVENTS_H
#define TB_RINGBUF_EVENTS_H

#include "tb-common.h"

/* tgid first: a record of payload >= 4 bytes still names its process (the reader's share). */
struct rb_event {
	__u32 tgid;
	__u32 tid;
	__s64 id;    /* syscall number */
	__u64 ts_ns; /* bpf_ktime_get_ns() at sys_enter */
};

/* payload = N: records of N bytes, the header's first N bytes then zeros. */
#define TB_RB_PAYLOAD_MIN 4
#define TB_RB_PAYLOAD_MAX 1024

struct rb_payload {
	__u8 bytes[TB_RB_PAYLOAD_MAX];
};

#endif
