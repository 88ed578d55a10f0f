/* SPDX-License-Identifier: GPL-2.0 */
/*
 * read-latency: shared with tracers/bpf/bundled.c. Map `hists`: key __u32 thread id, value struct
 * tb_log2_hist of read() latencies in ns (sys_enter_read to sys_exit_read).
 */
#ifndef TB_READ_LATENCY_H
#define TB_READ_LATENCY_H

#include "tb-common.h"

#endif
