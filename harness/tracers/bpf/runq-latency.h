/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runq-latency: shared with tracers/bpf/bundled.c. Map `hist`: one-entry array of struct tb_log2_hist,
 * wakeup (or preemption) to run latency in ns of the target's threads.
 */
#ifndef TB_RUNQ_LATENCY_H
#define TB_RUNQ_LATENCY_H

#include "tb-common.h"

#endif
