// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer's attach types (program = probe: tp_btf, raw_tp, tracepoint, fentry, fexit,
 * kprobe, kretprobe, kprobe_multi, uprobe, uretprobe, usdt; auto, tp_btf and raw_tp also for
 * the bundled programs): their default targets, how each attaches, the support probes that try
 * a type here (supported_cfg, variants), and what a probe hooks.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "core/tb.h"
#include "host/bpf-freeing.h"
#include "tracers/bpf/bpf-tracer.h"
#include "workloads/usercall.h"

#include "tracers/bpf/probe.h"
#include "bpf/probe.skel.h"

/* ---- probes ------------------------------------------------------------------------------ */

/* Can a BTF-typed raw tracepoint program (tp_btf/<tp>) be loaded here? Loads nothing lasting. */
bool tb_bpftr_tp_btf_usable(const char *tp)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP);
	int id, fd;

	id = libbpf_find_vmlinux_btf_id(tp, BPF_TRACE_RAW_TP);
	if (id <= 0)
		return false;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, TB_ARRAY_SIZE(insns), &opts);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int tb_bpftr_supported(char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd, err;

	tb_bpftr_log_init();
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len, "no kernel BTF (/sys/kernel/btf/vmlinux: %s): CO-RE needs it",
			 strerror(errno));
		return -ENOTSUP;
	}
	/* A trivial raw tracepoint program, loaded and dropped: errno tells why not. */
	fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, NULL, "GPL", insns, TB_ARRAY_SIZE(insns),
			   NULL);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	err = -errno;
	if (err == -EPERM || err == -EACCES)
		snprintf(why, len,
			 "cannot load BPF programs: %s (needs root, or CAP_BPF and CAP_PERFMON)",
			 strerror(-err));
	else if (err == -ENOSYS)
		snprintf(why, len, "kernel without the bpf() system call (CONFIG_BPF_SYSCALL)");
	else
		snprintf(why, len, "cannot load a raw tracepoint BPF program: %s", strerror(-err));
	return err;
}

/* ---- probe types (program = probe) ------------------------------------------------------ */

#define TB_TRACEFS_KPROBE_EVENTS "/sys/kernel/tracing/kprobe_events"

/* Types whose target is a BTF id fixed before loading. */
static bool btf_target(int attach)
{
	return attach == ATTACH_TP_BTF || attach == ATTACH_FENTRY || attach == ATTACH_FEXIT;
}

static bool user_type(int attach)
{
	return attach == ATTACH_UPROBE || attach == ATTACH_URETPROBE || attach == ATTACH_USDT;
}

/* Types whose target is "a:b": tracepoint category:name, USDT provider:name. */
static bool pair_target(int attach)
{
	return attach == ATTACH_TRACEPOINT || attach == ATTACH_USDT;
}

/* The kernel function behind getpid(2) (__x64_sys_getpid on x86_64), from the kernel's BTF. */
static const char *getpid_func(void)
{
	/* The arch wrappers first; kernels whose BTF lacks them have the shared body, an alias
	 * of the same address (x86_64: __do_sys_getpid at __x64_sys_getpid). */
	static const char *const names[] = {"__x64_sys_getpid",	  "__arm64_sys_getpid",
					    "__s390x_sys_getpid", "__riscv_sys_getpid",
					    "__do_sys_getpid",	  "sys_getpid"};
	static const char *found;
	static bool done;
	struct btf *btf;
	size_t i;

	if (done)
		return found;
	done = true;
	btf = btf__load_vmlinux_btf();
	for (i = 0; btf && !found && i < TB_ARRAY_SIZE(names); i++)
		if (btf__find_by_name_kind(btf, names[i], BTF_KIND_FUNC) > 0)
			found = names[i];
	btf__free(btf);
	return found;
}

/*
 * What a type hooks by default: getpid's path in the kernel (its syscall tracepoint, the raw
 * sys_enter tracepoint, its syscall function), the usercall workload's function or USDT probe.
 */
static int default_target(int attach, char *buf, size_t len)
{
	const char *f;

	switch (attach) {
	case ATTACH_TRACEPOINT:
		snprintf(buf, len, "syscalls:sys_enter_getpid");
		return 0;
	case ATTACH_AUTO:
	case ATTACH_TP_BTF:
	case ATTACH_RAW_TP:
		snprintf(buf, len, "sys_enter");
		return 0;
	case ATTACH_UPROBE:
	case ATTACH_URETPROBE:
		snprintf(buf, len, "%s", TB_USERCALL_SYMBOL);
		return 0;
	case ATTACH_USDT:
		snprintf(buf, len, "%s:%s", TB_USERCALL_USDT_PROVIDER, TB_USERCALL_USDT_NAME);
		return 0;
	}
	f = getpid_func();
	if (!f)
		return -ENOENT;
	snprintf(buf, len, "%s", f);
	return 0;
}

/* attach = auto for program = probe: tp_btf where it loads, else raw_tp (as the others). */
static int resolve_attach(const struct bpf_cfg *cfg)
{
	if (cfg->attach != ATTACH_AUTO)
		return cfg->attach;
	return tb_bpftr_tp_btf_usable(cfg->target && *cfg->target ? cfg->target : "sys_enter")
		       ? ATTACH_TP_BTF
		       : ATTACH_RAW_TP;
}

/*
 * Only the program of (attach, body) loads; a BTF-typed one gets its target now. Returns 0 and
 * the program, or -errno.
 */
static int probe_select(struct bpf_object *obj, int attach, int body, const char *target,
			struct bpf_program **out)
{
	struct bpf_program *prog, *want;
	char name[64];

	snprintf(name, sizeof(name), "tb_%s_%s", tb_bpftr_bodies[body],
		 tb_bpftr_attach_types[attach]);
	want = bpf_object__find_program_by_name(obj, name);
	if (!want)
		return -ENOENT;
	bpf_object__for_each_program(prog, obj) bpf_program__set_autoload(prog, prog == want);
	*out = want;
	return btf_target(attach) ? bpf_program__set_attach_target(want, 0, target) : 0;
}

/*
 * Attach prog, of type attach, to target; user types in binary, for pid (-1: every process).
 * Returns the link, or NULL with errno set.
 */
static struct bpf_link *attach_probe(struct bpf_program *prog, int attach, const char *target,
				     pid_t pid, const char *binary)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, ko);
	char a[256], *b;

	snprintf(a, sizeof(a), "%s", target);
	b = strchr(a, ':');
	if (b)
		*b++ = '\0';
	switch (attach) {
	case ATTACH_TRACEPOINT:
		return b ? bpf_program__attach_tracepoint(prog, a, b) : (errno = EINVAL, NULL);
	case ATTACH_RAW_TP:
		return bpf_program__attach_raw_tracepoint(prog, target);
	case ATTACH_TP_BTF:
	case ATTACH_FENTRY:
	case ATTACH_FEXIT:
		return bpf_program__attach_trace(prog);
	case ATTACH_KPROBE:
	case ATTACH_KRETPROBE:
		return bpf_program__attach_kprobe(prog, attach == ATTACH_KRETPROBE, target);
	case ATTACH_KPROBE_MULTI:
		return bpf_program__attach_kprobe_multi_opts(prog, target, &ko);
	case ATTACH_UPROBE:
	case ATTACH_URETPROBE:
		uo.func_name = target;
		uo.retprobe = attach == ATTACH_URETPROBE;
		return bpf_program__attach_uprobe_opts(prog, pid, binary, 0, &uo);
	case ATTACH_USDT:
		return b ? bpf_program__attach_usdt(prog, pid, binary, a, b, NULL)
			 : (errno = EINVAL, NULL);
	}
	errno = EINVAL;
	return NULL;
}

struct bpf_link *tb_bpftr_probe_attach(struct bpf_priv *p, struct bpf_program *prog)
{
	return attach_probe(prog, p->attach, p->target, p->pid, p->binary);
}

/* Why attaching failed, in the terms a user can act on. */
static void attach_reason(int attach, const char *target, int err, char *why, size_t len)
{
	bool kprobe = attach == ATTACH_KPROBE || attach == ATTACH_KRETPROBE;

	if (kprobe && access("/sys/bus/event_source/devices/kprobe", F_OK) &&
	    access(TB_TRACEFS_KPROBE_EVENTS, F_OK))
		snprintf(why, len,
			 "the kernel has no kprobes (no kprobe PMU, no kprobe_events: "
			 "CONFIG_KPROBES unset?): attaching to %s: %s",
			 target, strerror(-err));
	else if (attach == ATTACH_KPROBE_MULTI && err == -EOPNOTSUPP)
		snprintf(why, len,
			 "the kernel refuses kprobe_multi links (CONFIG_FPROBE unset?): %s",
			 strerror(-err));
	else
		snprintf(why, len, "attaching a %s program to %s: %s",
			 tb_bpftr_attach_types[attach], target, strerror(-err));
}

/*
 * Try an attach type as a tracer would: load its empty program and attach it to its default
 * target (user types: this very process's usercall function, for this pid), then remove both.
 * Returns 0, or -errno with the reason in why.
 */
static int probe_try(int attach, char *why, size_t len)
{
	struct probe_bpf *s = NULL;
	struct bpf_program *prog;
	struct bpf_link *l;
	char target[64]; /* a default: short */
	__u32 id = 0;
	int r;

	r = default_target(attach, target, sizeof(target));
	if (r) {
		snprintf(why, len, "no getpid syscall function in the kernel's BTF to attach to");
		return r;
	}
	tb_bpftr_log_quiet(true);
	s = probe_bpf__open();
	if (!s) {
		r = errno ? -errno : -ENOMEM;
		snprintf(why, len, "cannot open the bundled probe programs: %s", strerror(-r));
		goto out;
	}
	s->rodata->targ_tgid = (__u32)getpid();
	r = probe_select(s->obj, attach, BODY_EMPTY, target, &prog);
	if (r) {
		snprintf(why, len, "no BTF target '%s' for a %s program: %s", target,
			 tb_bpftr_attach_types[attach], strerror(-r));
		goto out;
	}
	r = probe_bpf__load(s);
	if (r) {
		snprintf(
			why, len, "the kernel refuses to load a %s program for %s: %s%s",
			tb_bpftr_attach_types[attach], target, strerror(-r),
			r == -EPERM && (attach == ATTACH_FENTRY || attach == ATTACH_FEXIT)
				? " (fentry and fexit need a BPF trampoline on ftrace: see `tracebench list ftrace-function`)"
				: "");
		goto out;
	}
	id = tb_bpftr_prog_id(prog);
	l = attach_probe(prog, attach, target, getpid(), "/proc/self/exe");
	if (!l) {
		r = errno ? -errno : -EINVAL;
		attach_reason(attach, target, r, why, len);
		goto out;
	}
	bpf_link__destroy(l);
out:
	probe_bpf__destroy(s);
	/* A probe's program still listed would look like foreign instrumentation to the run
	 * that follows: wait for the kernel to free it. */
	if (id) {
		struct tb_bpf_obj o = {.id = id};

		tb_bpf_wait_gone(&o, 1, TB_BPF_GONE_TIMEOUT_NS, NULL);
	}
	tb_bpftr_log_quiet(false);
	return r;
}

/* probe_try once per type and process. */
static int probe_type(int attach, char *why, size_t len)
{
	static struct {
		bool done;
		int err;
		char why[512];
	} cache[ATTACH_N];

	if (attach <= ATTACH_AUTO || attach >= ATTACH_N)
		return -EINVAL;
	if (!cache[attach].done) {
		cache[attach].err = probe_try(attach, cache[attach].why, sizeof(cache[attach].why));
		cache[attach].done = true;
	}
	if (cache[attach].err)
		snprintf(why, len, "%s", cache[attach].why);
	return cache[attach].err;
}

int tb_bpftr_supported_cfg(const void *vcfg, char *why, size_t len)
{
	const struct bpf_cfg *cfg = vcfg;
	int r = tb_bpftr_supported(why, len);

	if (r || cfg->program != PROG_PROBE)
		return r;
	return probe_type(resolve_attach(cfg), why, len);
}

/* Every attach type of program = probe, tried here. */
size_t tb_bpftr_variants(struct tb_tracer_variant *v, size_t max)
{
	size_t n = 0;
	int a;

	for (a = ATTACH_TP_BTF; a < ATTACH_N; a++, n++) {
		if (n >= max)
			continue;
		snprintf(v[n].name, sizeof(v[n].name), "program = probe, attach = %s",
			 tb_bpftr_attach_types[a]);
		v[n].why[0] = '\0';
		v[n].err = tb_bpftr_supported(v[n].why, sizeof(v[n].why));
		if (!v[n].err)
			v[n].err = probe_type(a, v[n].why, sizeof(v[n].why));
	}
	return n;
}

/* program = probe: a target of the shape its type needs, a binary only for user types. */
/* ---- validation and setup ---------------------------------------------------------------- */

int tb_bpftr_probe_validate(const struct bpf_cfg *cfg, char *err, size_t len)
{
	const char *tg = cfg->target && *cfg->target ? cfg->target : NULL;
	int a = cfg->attach;

	if (tg && (strpbrk(tg, " \t\n/") || strlen(tg) >= 200)) {
		snprintf(err, len, "target: '%s' is not a function, tracepoint or probe name", tg);
		return -EINVAL;
	}
	if (tg && pair_target(a) &&
	    (!strchr(tg, ':') || tg[0] == ':' || tg[strlen(tg) - 1] == ':')) {
		snprintf(err, len, "target: '%s': attach = %s needs %s", tg,
			 tb_bpftr_attach_types[a],
			 a == ATTACH_USDT ? "provider:name" : "category:name");
		return -EINVAL;
	}
	if (tg && !pair_target(a) && strchr(tg, ':')) {
		snprintf(err, len, "target: '%s': attach = %s takes a plain name", tg,
			 tb_bpftr_attach_types[a]);
		return -EINVAL;
	}
	if ((cfg->body == BODY_SPIN) != (cfg->spin_ns > 0)) {
		snprintf(err, len,
			 cfg->spin_ns ? "spin: only with body = spin"
				      : "body = spin: needs spin > 0 (the time per hit)");
		return -EINVAL;
	}
	if (cfg->body == BODY_SPIN && user_type(a)) {
		snprintf(err, len, "body = spin: a kernel attach type only (not %s)",
			 tb_bpftr_attach_types[a]);
		return -EINVAL;
	}
	if (cfg->binary && *cfg->binary) {
		if (!user_type(a)) {
			snprintf(err, len, "binary: only with attach = uprobe, uretprobe or usdt");
			return -EINVAL;
		}
		if (access(cfg->binary, R_OK)) {
			snprintf(err, len, "binary: cannot read '%s': %s", cfg->binary,
				 strerror(errno));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * program = probe: the attach type, its target and (user types) the file and pid, and only the
 * program of (attach, body) to load. Returns 0 or -errno, said.
 */
void tb_bpftr_probe_point(const struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg)
{
	p->pid = cfg->pid_filter != PIDF_NONE && t->target > 0 ? t->target : -1;
	if (user_type(p->attach)) {
		if (cfg->binary && *cfg->binary)
			snprintf(p->binary, sizeof(p->binary), "%s", cfg->binary);
		else if (t->target > 0)
			snprintf(p->binary, sizeof(p->binary), "/proc/%d/exe", (int)t->target);
		else
			snprintf(p->binary, sizeof(p->binary), "/proc/self/exe");
	}
}

int tb_bpftr_probe_prepare(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg)
{
	struct bpf_program *prog;
	int r;

	p->attach = resolve_attach(cfg);
	if (cfg->target && *cfg->target)
		snprintf(p->target, sizeof(p->target), "%s", cfg->target);
	else if (default_target(p->attach, p->target, sizeof(p->target))) {
		tb_err("%s: target: no getpid syscall function in the kernel's BTF; name one",
		       t->name);
		return -ENOENT;
	}
	tb_bpftr_probe_point(t, p, cfg);
	((struct probe_bpf *)p->skel)->rodata->spin_ns = cfg->spin_ns;
	r = probe_select(p->obj, p->attach, cfg->body, p->target, &prog);
	if (r)
		tb_err("%s: %s program for target '%s': %s", t->name,
		       tb_bpftr_attach_types[p->attach], p->target, strerror(-r));
	return r;
}

/* ---- hooks ------------------------------------------------------------------------------- */

/* The syscall whose kernel function func is (__x64_sys_getpid, __do_sys_getpid: getpid). */
static const char *syscall_of(const char *func)
{
	static const char *const pre[] = {"__x64_sys_",	  "__arm64_sys_", "__s390x_sys_",
					  "__riscv_sys_", "__do_sys_",	  "__se_sys_",
					  "sys_"};
	size_t i, n;

	for (i = 0; i < TB_ARRAY_SIZE(pre); i++) {
		n = strlen(pre[i]);
		if (!strncmp(func, pre[i], n) && func[n])
			return func + n;
	}
	return NULL;
}

/*
 * program = probe: the one event it runs on, by the proof's names (core/events.h): a
 * tracepoint as category:name, a raw tracepoint by its category, a syscall's kernel function as
 * that syscall's entry or exit, a user-space probe as uprobe:, uretprobe: or usdt:.
 */
int tb_bpftr_probe_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h)
{
	int a = cfg->attach == ATTACH_AUTO ? ATTACH_TP_BTF : cfg->attach;
	bool ret_type = a == ATTACH_FEXIT || a == ATTACH_KRETPROBE || a == ATTACH_URETPROBE;
	char tg[40], name[TB_EV_NAME_MAX]; /* names are cut to what the proof keeps */
	const char *sc;

	if (cfg->target && *cfg->target)
		snprintf(tg, sizeof(tg), "%.39s", cfg->target);
	else if (default_target(a, tg, sizeof(tg)))
		snprintf(tg, sizeof(tg), "getpid");
	switch (a) {
	case ATTACH_TRACEPOINT:
		snprintf(name, sizeof(name), "%s", tg);
		break;
	case ATTACH_TP_BTF:
	case ATTACH_RAW_TP:
		snprintf(name, sizeof(name), "%s:%s",
			 !strcmp(tg, "sys_enter") || !strcmp(tg, "sys_exit") ? "raw_syscalls"
			 : !strncmp(tg, "sched_", 6)			     ? "sched"
									     : "raw_tp",
			 tg);
		break;
	case ATTACH_UPROBE:
	case ATTACH_URETPROBE:
		snprintf(name, sizeof(name), "%s%s", ret_type ? "uretprobe:" : "uprobe:", tg);
		break;
	case ATTACH_USDT:
		snprintf(name, sizeof(name), "usdt:%s", tg);
		break;
	default:
		sc = syscall_of(tg);
		if (sc)
			snprintf(name, sizeof(name), "syscalls:sys_%s_%s",
				 ret_type ? "exit" : "enter", sc);
		else
			snprintf(name, sizeof(name), "kernel:%s", tg);
	}
	/* On sched_switch the tgid check counts the switches away from the workload (the current
	 * task is prev), and the program runs on every switch of the host. */
	if (!strcmp(name, "sched:sched_switch") && cfg->pid_filter != PIDF_NONE) {
		int ret = tb_hooks_add(h, name, -1, false);

		return ret ? ret : tb_hooks_add(h, "task:switches", -1, true);
	}
	return tb_hooks_add(h, name, -1, true);
}
