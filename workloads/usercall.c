// SPDX-License-Identifier: GPL-2.0
/*
 * usercall: user-space probe targets. One op is one call of tb_usercall_target(a, b), a
 * function of this binary that is never inlined or cloned, with two arguments and a return
 * value (what a uprobe and a uretprobe read), a USDT probe tracebench:usercall in it (sys/sdt.h:
 * one nop until a tracer attaches) and, with lttng = true, the LTTng-UST tracepoint
 * tracebench:usercall. `calls` makes one op several calls and `work` adds pure computation
 * after them: a rate sweep varies calls at a fixed work, so the probed events per op change while
 * the untraced work stays the same, and the rate model tells the cost per event from the fixed
 * cost per op.
 *
 * LTTng-UST lives in a provider library (build/helpers/libtb-usercall-ust.so, linked with
 * liblttng-ust) that setup dlopen()s, rather than in a helper program this workload would exec:
 * liblttng-ust's constructor starts listener threads and registers with a session daemon in
 * every process that loads it, so it must be loaded by this workload's process only (never by
 * the tracebench binary or another workload), and a dlopen keeps the traced code in the process
 * the harness forked and times, whose pid every tracer's pid filter names. The op then goes
 * through one indirect call more, which the variant's own baseline (no tracer) has as well:
 * compare an lttng = true cell only with its own baseline. The provider is loaded in the untimed
 * setup; its threads sleep while no session daemon talks to them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include "workloads/common.h"
#include "workloads/usercall.h"
#include "workloads/workload.h"

#define UST_PROVIDER "libtb-usercall-ust.so"

struct usercall_cfg {
	int64_t calls;
	int64_t work;
	bool lttng;
	int site;
};

enum { SITE_FUNCTION, SITE_NOP, SITE_PUSH, SITE_RET, SITE_NOP5, SITE_USDT_NOP5 };
static const char *const sites[] = {"function", "nop", "push", "ret", "nop5", "usdt-nop5", NULL};
/* Each site's probed function (NULL: none of its own) and its symbol, by enum value. */
static const char *const site_symbol[] = {
	TB_USERCALL_SYMBOL,   TB_USERCALL_SITE_NOP,  TB_USERCALL_SITE_PUSH,
	TB_USERCALL_SITE_RET, TB_USERCALL_SITE_NOP5, TB_USERCALL_USDT5_SYMBOL,
};

struct usercall_priv {
	void *dl; /* the provider, when lttng = true */
	long sink;
	long next; /* the first argument of the next call: 0, 1, 2, ... over the process's calls */
};

static const struct tb_option usercall_opts[] = {
	{"calls", TB_OPT_INT, offsetof(struct usercall_cfg, calls), "1",
	 "calls per op (a rate sweep varies them at a fixed work)", 1, 1000000},
	{"work", TB_OPT_INT, offsetof(struct usercall_cfg, work), "100",
	 "iterations of pure computation after each call (1-3 ns each): keeps a probed sample "
	 "from lasting hundreds of times its baseline, and lowers the call rate for rate sweeps",
	 0, 1e9},
	{"lttng", TB_OPT_BOOL, offsetof(struct usercall_cfg, lttng), "false",
	 "also hit the LTTng-UST tracepoint tracebench:usercall (dlopens the provider " UST_PROVIDER
	 ", linked with liblttng-ust; a variant with a baseline of its own)"},
	{"site", TB_OPT_CHOICE, offsetof(struct usercall_cfg, site), "function",
	 "what a uprobe at the called function's entry meets (x86-64): function (the C function: "
	 "arguments, USDT probe), nop, push, ret, nop5 (functions starting with that instruction, "
	 "as the kernel selftests' uprobe-nop/-push/-ret/-nop5), usdt-nop5 (a USDT probe on a "
	 "5-byte nop, " TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT5_NAME "); a variant with a "
	 "baseline of its own",
	 0, 0, sites},
	TB_OPT_END,
};

/* The provider's tracepoint, once dlopen()ed; NULL while the variant is off. Per process. */
static void (*ust_hit)(long, long);

#if defined(__clang__)
#define TB_NOCLONE __attribute__((noinline, used))
#else
#define TB_NOCLONE __attribute__((noinline, noclone, used))
#endif

TB_NOCLONE long tb_usercall_target(long a, long b)
{
	long r = (a ^ b) + (a >> 3);

	STAP_PROBE2(tracebench, usercall, a, b);
	if (ust_hit)
		ust_hit(a, b);
	return r;
}

#if defined(__x86_64__)
/*
 * The sites are written in assembly because the compiler decides a C function's first
 * instruction (push %rbp with frame pointers, endbr64 with CET, anything at -O2).
 */
/*
 * The 5-byte nop as bytes (0f 1f 44 00 00): the assembler shortens `nopl 0x0(%rax,%rax,1)` to 4,
 * and statements split by ';' rather than commas survive sys/sdt.h's macro arguments.
 */
/* clang-format off */
#define TB_NOP5 .byte 0x0f; .byte 0x1f; .byte 0x44; .byte 0x00; .byte 0x00
/* clang-format on */
#define TB_STR_(x)   #x
#define TB_STR(x)    TB_STR_(x)
#define TB_NOP5_TEXT TB_STR(TB_NOP5)
#define TB_SITE(sym, body)                                                                       \
	__asm__(".pushsection .text\n.globl " sym "\n.type " sym ", @function\n.p2align 4\n" sym \
		":\n" body "\n.size " sym ", .-" sym "\n.popsection")
TB_SITE(TB_USERCALL_SITE_NOP, "nop\n\tret");
TB_SITE(TB_USERCALL_SITE_PUSH, "push %rbp\n\tmov %rsp, %rbp\n\tpop %rbp\n\tret");
TB_SITE(TB_USERCALL_SITE_RET, "ret");
TB_SITE(TB_USERCALL_SITE_NOP5, TB_NOP5_TEXT "\n\tret");

/* sys/sdt.h's site is `_SDT_NOP`, expanded where the probe is: the 5-byte nop here. */
TB_NOCLONE long tb_usercall_usdt5(long a, long b)
{
	long r = (a ^ b) + (a >> 3);

#undef _SDT_NOP
#define _SDT_NOP TB_NOP5
	STAP_PROBE2(tracebench, usercall_nop5, a, b);
#undef _SDT_NOP
#define _SDT_NOP nop
	return r;
}
#define SITES_HERE true
#else
#define SITES_HERE false
void tb_usercall_site_nop(void)
{
}
void tb_usercall_site_push(void)
{
}
void tb_usercall_site_ret(void)
{
}
void tb_usercall_site_nop5(void)
{
}
long tb_usercall_usdt5(long a, long b)
{
	return a ^ b;
}
#endif

/* The site's function of no arguments, NULL for function and usdt-nop5 (they take two). */
static void (*site_fn(int site))(void)
{
	switch (site) {
	case SITE_NOP:
		return tb_usercall_site_nop;
	case SITE_PUSH:
		return tb_usercall_site_push;
	case SITE_RET:
		return tb_usercall_site_ret;
	case SITE_NOP5:
		return tb_usercall_site_nop5;
	}
	return NULL;
}

static int usercall_validate(const void *vcfg, char *err, size_t len)
{
	const struct usercall_cfg *c = vcfg;
	char path[4096], why[512];

	if (c->site != SITE_FUNCTION && !SITES_HERE) {
		snprintf(err, len, "site: %s is x86-64 code; use site = function here",
			 sites[c->site]);
		return -EINVAL;
	}
	if (c->lttng && c->site != SITE_FUNCTION) {
		snprintf(err, len,
			 "lttng: the LTTng-UST tracepoint is in " TB_USERCALL_SYMBOL
			 ": only with site = function, not %s",
			 sites[c->site]);
		return -EINVAL;
	}
	if (!c->lttng)
		return 0;
	if (tb_wl_find_helper(UST_PROVIDER, path, sizeof(path), why, sizeof(why))) {
		snprintf(err, len, "lttng: the LTTng-UST provider is missing: %s", why);
		return -EINVAL;
	}
	return 0;
}

static void usercall_teardown(struct tb_workload *w);

static int usercall_setup(struct tb_workload *w)
{
	const struct usercall_cfg *c = w->cfg;
	struct usercall_priv *p;
	char path[4096], why[512];
	void *sym;
	int ret = 0;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	w->priv = p;
	if (!c->lttng)
		return 0;
	ret = tb_wl_find_helper(UST_PROVIDER, path, sizeof(path), why, sizeof(why));
	if (ret) {
		tb_err("%s: lttng: %s", w->name, why);
		goto err;
	}
	/* The constructor registers with a running session daemon (waiting up to its timeout). */
	p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	sym = p->dl ? dlsym(p->dl, "tb_usercall_ust_hit") : NULL;
	if (!sym) {
		tb_err("%s: lttng: cannot load %s: %s", w->name, path, dlerror());
		ret = -ENOENT;
		goto err;
	}
	*(void **)&ust_hit = sym;
	return 0;
err:
	usercall_teardown(w);
	return ret;
}

static int usercall_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct usercall_cfg *c = w->cfg;
	struct usercall_priv *p = w->priv;
	long acc = p->sink, a = p->next, b = (long)w->thread;
	void (*fn)(void) = site_fn(c->site);
	uint64_t i;
	int64_t k;

	for (i = 0; i < n; i++) {
		if (fn)
			for (k = 0; k < c->calls; k++)
				fn();
		else if (c->site == SITE_USDT_NOP5)
			for (k = 0; k < c->calls; k++)
				acc += tb_usercall_usdt5(a++, b);
		else
			for (k = 0; k < c->calls; k++)
				acc += tb_usercall_target(a++, b);
		tb_wl_compute(c->work);
	}
	/* The results go somewhere the compiler cannot see through. */
	__asm__ volatile("" : "+r"(acc));
	p->sink = acc;
	p->next = a;
	return 0;
}

static void usercall_teardown(struct tb_workload *w)
{
	struct usercall_priv *p = w->priv;

	if (!p)
		return;
	if (p->dl) {
		ust_hit = NULL;
		dlclose(p->dl);
	}
	free(p);
	w->priv = NULL;
}

/*
 * calls calls per op: for each, the site function's entry and return, its USDT probe (function
 * and usdt-nop5) and (lttng = true) its LTTng-UST tracepoint once; no syscall and no scheduler
 * event (pure user space).
 */
static int usercall_events(const void *vcfg, const struct tb_op_context *ctx,
			   struct tb_op_events *ev)
{
	const struct usercall_cfg *c = vcfg;
	double n = (double)c->calls;
	int ret;

	const char *sym = site_symbol[c->site];
	char name[128];

	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	snprintf(name, sizeof(name), TB_EV_UPROBE "%s", sym);
	ret = tb_op_events_add(ev, name, n, TB_EV_SELF, 0);
	snprintf(name, sizeof(name), TB_EV_URETPROBE "%s", sym);
	if (!ret)
		ret = tb_op_events_add(ev, name, n, TB_EV_SELF, 0);
	if (!ret && c->site == SITE_FUNCTION)
		ret = tb_op_events_add(
			ev, TB_EV_USDT TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT_NAME, n,
			TB_EV_SELF, 0);
	if (!ret && c->site == SITE_USDT_NOP5)
		ret = tb_op_events_add(
			ev, TB_EV_USDT TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT5_NAME, n,
			TB_EV_SELF, 0);
	if (!ret && c->lttng)
		ret = tb_op_events_add(ev, TB_EV_LTTNG TB_USERCALL_UST_EVENT, n, TB_EV_SELF, 0);
	return ret;
}

const struct tb_workload_ops tb_workload_usercall = {
	.name = "usercall",
	.help = "one call per op of a non-inlined function with arguments and a return value, a "
		"USDT probe and optionally an LTTng-UST tracepoint: the target of user-space probes",
	.opts = usercall_opts,
	.cfg_size = sizeof(struct usercall_cfg),
	.validate = usercall_validate,
	.setup = usercall_setup,
	.run_batch = usercall_run_batch,
	.teardown = usercall_teardown,
	.events = usercall_events,
};
