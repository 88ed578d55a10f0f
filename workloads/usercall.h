/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the usercall workload (workloads/usercall.c) offers user-space probes, in one place:
 * the tracers' defaults (bpf attach = uprobe/uretprobe/usdt, ftrace-uprobe, lttng-ust) name
 * these, so a rename cannot leave a tracer probing nothing.
 */
#ifndef TB_WL_USERCALL_H
#define TB_WL_USERCALL_H

/* The probed function: its symbol in the tracebench binary (and in the test binary). */
#define TB_USERCALL_SYMBOL "tb_usercall_target"
/* The USDT probe in it (sys/sdt.h), provider:name. */
#define TB_USERCALL_USDT_PROVIDER "tracebench"
#define TB_USERCALL_USDT_NAME	  "usercall"
/* The LTTng-UST event of the lttng = true variant (workloads/helpers/ust/tb-usercall-tp.h). */
#define TB_USERCALL_UST_EVENT "tracebench:usercall"

/*
 * The names of user-space events in the proof of tracing's namespace (core/events.h): a probe
 * on a function's entry ("uprobe:SYMBOL") and return ("uretprobe:SYMBOL"), a USDT probe
 * ("usdt:PROVIDER:NAME") and an LTTng-UST tracepoint ("lttng:PROVIDER:NAME"). The usercall
 * workload declares each once per op, the user-space tracers hook them by these names.
 */
#define TB_EV_UPROBE	"uprobe:"
#define TB_EV_URETPROBE "uretprobe:"
#define TB_EV_USDT	"usdt:"
#define TB_EV_LTTNG	"lttng:"

/*
 * One op's call: returns a value derived from both arguments, fires the USDT probe and, when
 * the LTTng-UST provider is loaded, its tracepoint. Never inlined or cloned, so that its entry
 * and return are where a uprobe and a uretprobe on the symbol fire.
 */
long tb_usercall_target(long a, long b);

#endif /* TB_WL_USERCALL_H */
