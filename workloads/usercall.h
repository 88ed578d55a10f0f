/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the usercall workload (workloads/usercall.c) offers user-space probes, in one place:
 * the tracers' defaults (bpf attach = uprobe/uretprobe/usdt, ftrace-uprobe, lttng-ust) name
 * these, so a rename cannot leave a tracer probing nothing.
 */
#ifndef TB_WL_USERCALL_H
#define TB_WL_USERCALL_H

#include "core/events.h" /* TB_EV_UPROBE and the other user-space event prefixes */

/* The probed function: its symbol in the tracebench binary (and in the test binary). */
#define TB_USERCALL_SYMBOL TB_EV_OWN_FUNC_PREFIX "target"
/* The USDT probe in it (sys/sdt.h), provider:name. */
#define TB_USERCALL_USDT_PROVIDER TB_EV_OWN_PROVIDER
#define TB_USERCALL_USDT_NAME	  "usercall"
/*
 * The probe sites of `site` (kernel selftests' bench names: uprobe-nop, -push, -ret, -nop5),
 * each a function of its own whose first instruction is the one named, so that a uprobe at its
 * entry takes the kernel's path for that instruction: nop and push are emulated, ret is
 * single-stepped out of line, a 5-byte nop is rewritten into a call where the kernel optimises
 * it (sysinfo's kernel.uprobes). x86-64 only. usdt-nop5: a USDT probe whose site is a 5-byte nop
 * (sys/sdt.h emits a 1-byte one) in tb_usercall_usdt5.
 */
#define TB_USERCALL_SITE_NOP	 TB_EV_OWN_FUNC_PREFIX "site_nop"
#define TB_USERCALL_SITE_PUSH	 TB_EV_OWN_FUNC_PREFIX "site_push"
#define TB_USERCALL_SITE_RET	 TB_EV_OWN_FUNC_PREFIX "site_ret"
#define TB_USERCALL_SITE_NOP5	 TB_EV_OWN_FUNC_PREFIX "site_nop5"
#define TB_USERCALL_USDT5_SYMBOL TB_EV_OWN_FUNC_PREFIX "usdt5"
#define TB_USERCALL_USDT5_NAME	 "usercall_nop5"

/* The LTTng-UST event of the lttng = true variant (workloads/helpers/ust/tb-usercall-tp.h). */
#define TB_USERCALL_UST_EVENT TB_EV_OWN_PROVIDER ":usercall"

/*
 * One op's call: returns a value derived from both arguments, fires the USDT probe and, when
 * the LTTng-UST provider is loaded, its tracepoint. Never inlined or cloned, so that its entry
 * and return are where a uprobe and a uretprobe on the symbol fire.
 */
long tb_usercall_target(long a, long b);

/* The site functions (asm, no arguments, nothing computed) and the USDT nop5 function. */
void tb_usercall_site_nop(void);
void tb_usercall_site_push(void);
void tb_usercall_site_ret(void);
void tb_usercall_site_nop5(void);
long tb_usercall_usdt5(long a, long b);

#endif /* TB_WL_USERCALL_H */
