/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LTTng-UST tracepoint tracebench:usercall of the usercall workload (workloads/usercall.c):
 * the same two arguments as its USDT probe. Read by lttng-ust's macros several times, hence
 * no ordinary include guard (LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ). The lttng-ust tracer
 * counts its trace from packet sizes by these two 64-bit fields (harness/tracers/ctf-index.c):
 * change them together (tests/unit/tracers-probe-types.c checks the count).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tracebench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "tb-usercall-tp.h"

#if !defined(TB_USERCALL_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TB_USERCALL_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(tracebench, usercall, LTTNG_UST_TP_ARGS(long, a, long, b),
			   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(long, a, a)
						       lttng_ust_field_integer(long, b, b)))

#endif /* TB_USERCALL_TP_H */

#include <lttng/tracepoint-event.h>
