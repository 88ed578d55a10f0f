// SPDX-License-Identifier: GPL-2.0
/*
 * The LTTng-UST provider of the usercall workload: a shared library linked with liblttng-ust
 * that the workload dlopen()s in its setup when lttng = true. Only that workload process ever
 * loads liblttng-ust, whose constructor starts two listener threads and registers with a
 * session daemon: the tracebench binary and every other workload stay free of it.
 *
 * tb_usercall_ust_hit(a, b) is the tracepoint itself: a load and a not-taken branch while no
 * session enables tracebench:usercall, an event written to the per-user ring buffer when one
 * does.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "tb-usercall-tp.h"

void tb_usercall_ust_hit(long a, long b);

void tb_usercall_ust_hit(long a, long b)
{
	lttng_ust_tracepoint(tracebench, usercall, a, b);
}
