// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer: bundled CO-RE programs (tracers/bpf/<x>.bpf.c, built into skeletons) or a
 * user's own object, attached by section type. Lifecycle (libbpf-tools style):
 *   setup    open, set rodata (targ_tgid), choose tp_btf or raw_tp, load (verifier), stats fd
 *   start    clear the maps, read run_cnt/run_time_ns, start the ring-buffer reader, attach
 *   stop     destroy the links (detach), read run stats, drain the ring buffer
 *   collect  events (map counts / records consumed / run_cnt), drops, maps' memory, extra
 *   teardown destroy everything (idempotent)
 * Run statistics come from bpf_enable_stats(BPF_STATS_RUN_TIME): on only while our fd is open,
 * the kernel.bpf_stats_enabled sysctl is never touched.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "host/armed.h"
#include "host/tracefs.h"
#include "host/bpf-freeing.h"
#include "core/tb.h"

#include "bpf/syscall-count.h"
#include "bpf/read-latency.h"
#include "bpf/runq-latency.h"
#include "bpf/ringbuf-events.h"
#include "bpf/probe.h"

#include "bpf/syscall-count.skel.h"
#include "bpf/read-latency.skel.h"
#include "bpf/runq-latency.skel.h"
#include "bpf/ringbuf-events.skel.h"
#include "bpf/probe.skel.h"
#include "tracers/tracer.h"
#include "workloads/usercall.h"

enum {
	PROG_SYSCALL_COUNT,
	PROG_READ_LATENCY,
	PROG_RUNQ_LATENCY,
	PROG_RINGBUF_EVENTS,
	PROG_PROBE,
	PROG_OBJECT,
};
enum { PIDF_WORKLOAD, PIDF_NONE };
/* auto, tp_btf and raw_tp for every bundled program; the rest with program = probe only. */
enum {
	ATTACH_AUTO,
	ATTACH_TP_BTF,
	ATTACH_RAW_TP,
	ATTACH_TRACEPOINT,
	ATTACH_FENTRY,
	ATTACH_FEXIT,
	ATTACH_KPROBE,
	ATTACH_KRETPROBE,
	ATTACH_KPROBE_MULTI,
	ATTACH_UPROBE,
	ATTACH_URETPROBE,
	ATTACH_USDT,
	ATTACH_N,
};
enum { BODY_EMPTY, BODY_COUNT };
enum { WAKEUP_ADAPTIVE, WAKEUP_NONE, WAKEUP_EACH };

static const char *const program_choices[] = {
	"syscall-count", "read-latency", "runq-latency", "ringbuf-events", "probe", "object", NULL,
};
static const char *const pidf_choices[] = {"workload", "none", NULL};
static const char *const attach_choices[] = {
	"auto",	     "tp_btf",	     "raw_tp", "tracepoint", "fentry", "fexit", "kprobe",
	"kretprobe", "kprobe_multi", "uprobe", "uretprobe",  "usdt",   NULL,
};
static const char *const body_choices[] = {"empty", "count", NULL};
static const char *const wakeup_choices[] = {"adaptive", "none", "each", NULL};

struct bpf_cfg {
	int program;
	char *object;
	struct tb_strlist programs;
	int pid_filter;
	uint64_t ringbuf_size;
	bool stats;
	int attach;
	int body;
	char *target;
	char *binary;
	int64_t top;
	char *rodata_pid;
	char *syscall;
	int wakeup;
	uint64_t poll_ns;
};

static const struct tb_option bpf_opts[] = {
	{"program", TB_OPT_CHOICE, offsetof(struct bpf_cfg, program), "syscall-count",
	 "bundled program, or `object` for the file given by `object`", .choices = program_choices},
	{"object", TB_OPT_STRING, offsetof(struct bpf_cfg, object), NULL,
	 "path of a user's .bpf.o (program = object)"},
	{"programs", TB_OPT_LIST, offsetof(struct bpf_cfg, programs), NULL,
	 "programs of the object to load and attach by section type (default: all)"},
	{"pid-filter", TB_OPT_CHOICE, offsetof(struct bpf_cfg, pid_filter), "workload",
	 "trace only the workload process (rodata knob) or every process", .choices = pidf_choices},
	{"ringbuf-size", TB_OPT_SIZE, offsetof(struct bpf_cfg, ringbuf_size), "1M",
	 "ring buffer of ringbuf-events (power of two, >= 4096)", 4096, 1073741824.0},
	{"stats", TB_OPT_BOOL, offsetof(struct bpf_cfg, stats), "true",
	 "bpf_enable_stats for per-program run_cnt / run_time_ns (adds ~20 ns per run)"},
	{"attach", TB_OPT_CHOICE, offsetof(struct bpf_cfg, attach), "auto",
	 "bundled raw tracepoints: tp_btf where available (auto), or force tp_btf / raw_tp; "
	 "program = probe also: tracepoint, fentry, fexit, kprobe, kretprobe, kprobe_multi, "
	 "uprobe, uretprobe, usdt",
	 .choices = attach_choices},
	{"body", TB_OPT_CHOICE, offsetof(struct bpf_cfg, body), "count",
	 "program = probe: empty (pid check and a per-CPU hit count: the dispatch cost) or count "
	 "(reads the argument or return value into a hash map keyed by tgid)",
	 .choices = body_choices},
	{"target", TB_OPT_STRING, offsetof(struct bpf_cfg, target), "",
	 "program = probe: what to hook (empty: getpid's path for kernel types, i.e. "
	 "syscalls:sys_enter_getpid, sys_enter or the getpid syscall function; the usercall "
	 "workload's " TB_USERCALL_SYMBOL " or " TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT_NAME
	 " for user types)"},
	{"binary", TB_OPT_STRING, offsetof(struct bpf_cfg, binary), "",
	 "program = probe, user types: the ELF file to probe (empty: the workload's executable)"},
	{"top", TB_OPT_INT, offsetof(struct bpf_cfg, top), "10",
	 "syscall-count: number of (process, syscall) counts reported in extra", 0, 10000},
	{"syscall", TB_OPT_STRING, offsetof(struct bpf_cfg, syscall), "read",
	 "read-latency: the syscall whose latency it measures (read, pread64, readv, ...): its "
	 "sys_enter_ and sys_exit_ tracepoints"},
	{"rodata-pid", TB_OPT_STRING, offsetof(struct bpf_cfg, rodata_pid), "targ_tgid",
	 "program = object: name of the const volatile __u32 rodata knob set to the target tgid"},
	{"ringbuf-wakeup", TB_OPT_CHOICE, offsetof(struct bpf_cfg, wakeup), "adaptive",
	 "ringbuf-events: wake the reader when it caught up (adaptive), never (none: it polls "
	 "every poll-interval) or for each record (each)",
	 .choices = wakeup_choices},
	{"poll-interval", TB_OPT_DURATION, offsetof(struct bpf_cfg, poll_ns), "10ms",
	 "ring-buffer reader: epoll timeout, after which it consumes anyway", 1e6, 1e10},
	TB_OPT_END,
};

struct bpf_priv;

/* A bundled program: its skeleton behind three functions, and how its maps become figures. */
struct bundled {
	int (*open)(struct bpf_priv *p, __u32 tgid);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	int (*collect)(struct bpf_priv *p, const struct bpf_cfg *cfg, struct tb_tracer_stats *st,
		       json_t *extra);
};

struct prog_stat {
	struct bpf_program *prog;
	__u32 id;      /* kernel program id, in the crash-safety record while loaded */
	__u32 link_id; /* id of its link while attached (0: none or unknown) */
	__u64 cnt0, ns0, cnt1, ns1;
};

struct bpf_priv {
	const struct bundled *b; /* NULL: a user's object */
	void *skel;
	struct bpf_object *obj; /* the skeleton's, or ours for a user's object */
	struct bpf_link **links;
	struct prog_stat *ps; /* autoloaded programs */
	size_t nps, nlinks;
	int stats_fd;
	bool use_btf;
	/* program = probe: the attach type in use, its target and (user types) the ELF file */
	int attach;
	char target[256];
	char binary[4096];
	pid_t pid;     /* user types: the process probed, -1 every process */
	bool windowed; /* a start..stop window happened: collect has figures */
	__u32 tgid;    /* the workload process, whose events are attributed; 0: none */
	/* ring-buffer reader */
	struct ring_buffer *rb;
	pthread_t thr;
	bool thr_live;
	atomic_bool thr_stop;
	int cpu;
	int poll_ms;
	uint64_t consumed;
	uint64_t consumed_mine; /* records of p->tgid */
	double cpu_s;
};

/* ---- libbpf's messages through our log -------------------------------------------------- */

/* While a probe type is tried (probe_try), libbpf's complaints are the expected answer. */
static bool probing;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	tb_vlog(level == LIBBPF_WARN && !probing ? TB_LOG_WARN : TB_LOG_DEBUG, fmt, ap);
	return 0;
}

static void log_init(void)
{
	static bool done;

	if (!done) {
		libbpf_set_print(libbpf_print);
		done = true;
	}
}

/* ---- bundled programs -------------------------------------------------------------------- */

#define TB_SKEL_OPS(x)                                      \
	static int x##_open(struct bpf_priv *p, __u32 tgid) \
	{                                                   \
		struct x##_bpf *s = x##_bpf__open();        \
                                                            \
		if (!s)                                     \
			return errno ? -errno : -ENOMEM;    \
		s->rodata->targ_tgid = tgid;                \
		p->skel = s;                                \
		p->obj = s->obj;                            \
		return 0;                                   \
	}                                                   \
	static int x##_load(void *s)                        \
	{                                                   \
		return x##_bpf__load(s);                    \
	}                                                   \
	static void x##_destroy(void *s)                    \
	{                                                   \
		x##_bpf__destroy(s);                        \
	}

TB_SKEL_OPS(syscall_count)
TB_SKEL_OPS(read_latency)
TB_SKEL_OPS(runq_latency)
TB_SKEL_OPS(ringbuf_events)
TB_SKEL_OPS(probe)

static int map_fd(struct bpf_priv *p, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(p->obj, name);

	return m ? bpf_map__fd(m) : -ENOENT;
}

/* Sum of a one-entry per-CPU __u64 array (the `drops` map of every bundled program). */
static int64_t percpu_sum(int fd)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	__u32 zero = 0;
	int64_t sum = 0;
	__u64 *v;

	if (fd < 0 || ncpu <= 0)
		return -1;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -1;
	if (bpf_map_lookup_elem(fd, &zero, v))
		sum = -1;
	for (i = 0; sum >= 0 && i < ncpu; i++)
		sum += v[i];
	free(v);
	return sum;
}

static json_t *hist_json(const __u64 *slots)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < TB_LOG2_HIST_SLOTS; i++)
		json_array_append_new(a, json_integer((json_int_t)slots[i]));
	return a;
}

struct sc_row {
	struct sc_key k;
	__u64 n;
};

static int sc_row_cmp(const void *a, const void *b)
{
	const struct sc_row *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

/* The workload's own syscalls by number ({"39": n, ...}) from the sorted rows of tgid. */
static json_t *workload_syscalls(const struct sc_row *rows, size_t n, __u32 tgid)
{
	json_t *o = json_object();
	char nr[16];
	size_t i;

	for (i = 0; o && i < n; i++) {
		if (rows[i].k.tgid != tgid)
			continue;
		snprintf(nr, sizeof(nr), "%u", rows[i].k.id);
		json_object_set_new(o, nr, json_integer((json_int_t)rows[i].n));
	}
	return o;
}

static int syscall_count_collect(struct bpf_priv *p, const struct bpf_cfg *cfg,
				 struct tb_tracer_stats *st, json_t *extra)
{
	int fd = map_fd(p, "counts"), err = 0;
	struct sc_key key, next, *prev = NULL;
	struct sc_row *rows = NULL, *tmp;
	size_t n = 0, cap = 0, i;
	int64_t sum = 0, mine = 0;
	json_t *top;
	__u64 v;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			tmp = realloc(rows, cap * sizeof(*rows));
			if (!tmp) {
				err = -ENOMEM;
				goto out;
			}
			rows = tmp;
		}
		rows[n++] = (struct sc_row){key, v};
		sum += (int64_t)v;
		if (p->tgid && key.tgid == p->tgid)
			mine += (int64_t)v;
	}
	st->events = sum;
	if (p->tgid)
		st->workload_events = mine;
	if (rows)
		qsort(rows, n, sizeof(*rows), sc_row_cmp);
	top = json_array();
	for (i = 0; top && i < n && (int64_t)i < cfg->top; i++)
		json_array_append_new(top,
				      json_pack("{sisisI}", "tgid", (int)rows[i].k.tgid, "syscall",
						(int)rows[i].k.id, "count", (json_int_t)rows[i].n));
	json_object_set_new(extra, "keys", json_integer((json_int_t)n));
	if (top)
		json_object_set_new(extra, "top_syscalls", top);
	if (p->tgid)
		json_object_set_new(extra, "workload_syscalls",
				    workload_syscalls(rows, n, p->tgid));
out:
	free(rows);
	return err;
}

static int read_latency_collect(struct bpf_priv *p, const struct bpf_cfg *cfg,
				struct tb_tracer_stats *st, json_t *extra)
{
	int fd = map_fd(p, "hists"), i;
	__u64 total[TB_LOG2_HIST_SLOTS] = {0};
	__u32 key, next, *prev = NULL;
	int64_t sum = 0, threads = 0;
	struct tb_log2_hist h;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &h))
			continue;
		threads++;
		for (i = 0; i < TB_LOG2_HIST_SLOTS; i++)
			total[i] += h.slots[i];
	}
	for (i = 0; i < TB_LOG2_HIST_SLOTS; i++)
		sum += (int64_t)total[i];
	st->events = sum;
	json_object_set_new(extra, "threads", json_integer(threads));
	json_object_set_new(extra, "hist_log2_ns", hist_json(total));
	return 0;
}

static int runq_latency_collect(struct bpf_priv *p, const struct bpf_cfg *cfg,
				struct tb_tracer_stats *st, json_t *extra)
{
	int fd = map_fd(p, "hist"), i;
	struct tb_log2_hist h;
	__u32 zero = 0;
	int64_t sum = 0;

	if (bpf_map_lookup_elem(fd, &zero, &h)) {
		tb_err("bpf: reading runq-latency histogram: %s", strerror(errno));
		return -errno;
	}
	for (i = 0; i < TB_LOG2_HIST_SLOTS; i++)
		sum += (int64_t)h.slots[i];
	st->events = sum;
	json_object_set_new(extra, "hist_log2_ns", hist_json(h.slots));
	return 0;
}

static int ringbuf_events_collect(struct bpf_priv *p, const struct bpf_cfg *cfg,
				  struct tb_tracer_stats *st, json_t *extra)
{
	st->events = (int64_t)p->consumed;
	if (p->tgid)
		st->workload_events = (int64_t)p->consumed_mine;
	json_object_set_new(extra, "ringbuf_size", json_integer((json_int_t)cfg->ringbuf_size));
	json_object_set_new(extra, "ringbuf_wakeup", json_string(wakeup_choices[cfg->wakeup]));
	return 0;
}

static int probe_collect(struct bpf_priv *p, const struct bpf_cfg *cfg, struct tb_tracer_stats *st,
			 json_t *extra)
{
	int64_t sum = 0, n = 0;
	__u32 key, next, *prev = NULL;
	struct probe_count v;
	int fd;

	json_object_set_new(extra, "attach", json_string(attach_choices[p->attach]));
	json_object_set_new(extra, "body", json_string(body_choices[cfg->body]));
	json_object_set_new(extra, "target", json_string(p->target));
	if (p->binary[0])
		json_object_set_new(extra, "binary", json_string(p->binary));
	if (cfg->body == BODY_EMPTY) {
		st->events = percpu_sum(map_fd(p, "hits"));
		return st->events < 0 ? -EIO : 0;
	}
	fd = map_fd(p, "counts");
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		n += (int64_t)v.n;
		sum += (int64_t)v.sum;
	}
	st->events = n;
	/* What the probe read, summed: the tests check it against the workload's arguments. */
	json_object_set_new(extra, "arg_sum", json_integer((json_int_t)sum));
	return 0;
}

static const struct bundled bundled[] = {
	[PROG_SYSCALL_COUNT] = {syscall_count_open, syscall_count_load, syscall_count_destroy,
				syscall_count_collect},
	[PROG_READ_LATENCY] = {read_latency_open, read_latency_load, read_latency_destroy,
			       read_latency_collect},
	[PROG_RUNQ_LATENCY] = {runq_latency_open, runq_latency_load, runq_latency_destroy,
			       runq_latency_collect},
	[PROG_RINGBUF_EVENTS] = {ringbuf_events_open, ringbuf_events_load, ringbuf_events_destroy,
				 ringbuf_events_collect},
	[PROG_PROBE] = {probe_open, probe_load, probe_destroy, probe_collect},
};

/* ---- probes ------------------------------------------------------------------------------ */

/* Can a BTF-typed raw tracepoint program (tp_btf/<tp>) be loaded here? Loads nothing lasting. */
static bool tp_btf_usable(const char *tp)
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

static int bpf_supported(char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd, err;

	log_init();
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

static __u32 prog_id(struct bpf_program *prog);

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
	return tp_btf_usable(cfg->target && *cfg->target ? cfg->target : "sys_enter")
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

	snprintf(name, sizeof(name), "tb_%s_%s", body_choices[body], attach_choices[attach]);
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
		snprintf(why, len, "attaching a %s program to %s: %s", attach_choices[attach],
			 target, strerror(-err));
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
	probing = true;
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
			 attach_choices[attach], strerror(-r));
		goto out;
	}
	r = probe_bpf__load(s);
	if (r) {
		snprintf(
			why, len, "the kernel refuses to load a %s program for %s: %s%s",
			attach_choices[attach], target, strerror(-r),
			r == -EPERM && (attach == ATTACH_FENTRY || attach == ATTACH_FEXIT)
				? " (fentry and fexit need a BPF trampoline on ftrace: see `tracebench list ftrace-function`)"
				: "");
		goto out;
	}
	id = prog_id(prog);
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
	probing = false;
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

static int bpf_supported_cfg(const void *vcfg, char *why, size_t len)
{
	const struct bpf_cfg *cfg = vcfg;
	int r = bpf_supported(why, len);

	if (r || cfg->program != PROG_PROBE)
		return r;
	return probe_type(resolve_attach(cfg), why, len);
}

/* Every attach type of program = probe, tried here. */
static size_t bpf_variants(struct tb_tracer_variant *v, size_t max)
{
	size_t n = 0;
	int a;

	for (a = ATTACH_TP_BTF; a < ATTACH_N; a++, n++) {
		if (n >= max)
			continue;
		snprintf(v[n].name, sizeof(v[n].name), "program = probe, attach = %s",
			 attach_choices[a]);
		v[n].why[0] = '\0';
		v[n].err = bpf_supported(v[n].why, sizeof(v[n].why));
		if (!v[n].err)
			v[n].err = probe_type(a, v[n].why, sizeof(v[n].why));
	}
	return n;
}

/* ---- configuration checks ---------------------------------------------------------------- */

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* Every name in cfg->programs exists in obj; else "programs: ..." in err. */
static int check_program_names(struct bpf_object *obj, const struct bpf_cfg *cfg, char *err,
			       size_t len)
{
	size_t i;

	for (i = 0; i < cfg->programs.n; i++) {
		if (bpf_object__find_program_by_name(obj, cfg->programs.v[i]))
			continue;
		snprintf(err, len, "programs: no program '%s' in '%s'", cfg->programs.v[i],
			 cfg->object);
		return -EINVAL;
	}
	return 0;
}

/* Do syscalls:sys_enter_<name> and sys_exit_<name> exist (tracefs; a name of letters, digits
 * and _ only)? */
static bool syscall_tracepoints(const char *name)
{
	char dir[160];
	const char *c;

	if (!name || !*name || strlen(name) > 64)
		return false;
	for (c = name; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_'))
			return false;
	if (tb_tracefs_ensure())
		return true; /* cannot tell here: attaching will say */
	snprintf(dir, sizeof(dir), TB_TRACEFS_MOUNT "/events/syscalls/sys_enter_%s", name);
	if (access(dir, F_OK))
		return false;
	snprintf(dir, sizeof(dir), TB_TRACEFS_MOUNT "/events/syscalls/sys_exit_%s", name);
	return !access(dir, F_OK);
}

/* program = probe: a target of the shape its type needs, a binary only for user types. */
static int probe_validate(const struct bpf_cfg *cfg, char *err, size_t len)
{
	const char *tg = cfg->target && *cfg->target ? cfg->target : NULL;
	int a = cfg->attach;

	if (tg && (strpbrk(tg, " \t\n/") || strlen(tg) >= 200)) {
		snprintf(err, len, "target: '%s' is not a function, tracepoint or probe name", tg);
		return -EINVAL;
	}
	if (tg && pair_target(a) &&
	    (!strchr(tg, ':') || tg[0] == ':' || tg[strlen(tg) - 1] == ':')) {
		snprintf(err, len, "target: '%s': attach = %s needs %s", tg, attach_choices[a],
			 a == ATTACH_USDT ? "provider:name" : "category:name");
		return -EINVAL;
	}
	if (tg && !pair_target(a) && strchr(tg, ':')) {
		snprintf(err, len, "target: '%s': attach = %s takes a plain name", tg,
			 attach_choices[a]);
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

static int bpf_validate(const void *vcfg, char *err, size_t len)
{
	const struct bpf_cfg *cfg = vcfg;
	struct bpf_object *obj;
	int r;

	if (cfg->program == PROG_PROBE) {
		if (probe_validate(cfg, err, len))
			return -EINVAL;
	} else if (cfg->attach > ATTACH_RAW_TP || (cfg->target && *cfg->target) ||
		   (cfg->binary && *cfg->binary)) {
		snprintf(err, len, "%s: only with program = probe",
			 cfg->attach > ATTACH_RAW_TP   ? "attach"
			 : cfg->target && *cfg->target ? "target"
						       : "binary");
		return -EINVAL;
	}
	if (cfg->program != PROG_OBJECT) {
		if (cfg->object || cfg->programs.n) {
			snprintf(err, len, "%s: only used with program = object",
				 cfg->object ? "object" : "programs");
			return -EINVAL;
		}
	} else {
		if (!cfg->object || !*cfg->object) {
			snprintf(err, len, "object: required with program = object");
			return -EINVAL;
		}
		if (access(cfg->object, R_OK)) {
			snprintf(err, len, "object: cannot read '%s': %s", cfg->object,
				 strerror(errno));
			return -EINVAL;
		}
		log_init();
		/* Opening parses the ELF only: nothing reaches the kernel. */
		obj = bpf_object__open_file(cfg->object, NULL);
		if (!obj) {
			snprintf(err, len, "object: '%s' is not a usable BPF object: %s",
				 cfg->object, strerror(errno));
			return -EINVAL;
		}
		r = check_program_names(obj, cfg, err, len);
		bpf_object__close(obj);
		if (r)
			return r;
	}
	if (cfg->program == PROG_READ_LATENCY && !syscall_tracepoints(cfg->syscall)) {
		snprintf(
			err, len,
			"syscall: no tracepoints syscalls:sys_enter_%s and sys_exit_%s on this kernel",
			cfg->syscall ? cfg->syscall : "", cfg->syscall ? cfg->syscall : "");
		return -EINVAL;
	}
	if (cfg->program != PROG_READ_LATENCY && cfg->syscall && strcmp(cfg->syscall, "read")) {
		snprintf(err, len, "syscall: only used with program = read-latency");
		return -EINVAL;
	}
	if (!is_pow2(cfg->ringbuf_size) || cfg->ringbuf_size % (uint64_t)getpagesize()) {
		snprintf(err, len,
			 "ringbuf-size: %llu is not a power of two multiple of the page size",
			 (unsigned long long)cfg->ringbuf_size);
		return -EINVAL;
	}
	return 0;
}

/* ---- helpers on the loaded object -------------------------------------------------------- */

/* Set a `const volatile __u32 <name>` of a user's object's .rodata; -ENOENT when absent. */
static int set_rodata_u32(struct bpf_object *obj, const char *name, __u32 val)
{
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec, *var;
	struct bpf_map *map = NULL, *m;
	struct btf *btf = bpf_object__btf(obj);
	const void *init;
	size_t sz;
	void *copy;
	int id, i, err = -ENOENT;

	for (m = bpf_object__next_map(obj, NULL); m; m = bpf_object__next_map(obj, m)) {
		const char *n = bpf_map__name(m);
		size_t l = strlen(n);

		/* Internal maps are named "<obj prefix>.rodata". */
		if (bpf_map__is_internal(m) && l >= 7 && !strcmp(n + l - 7, ".rodata"))
			map = m;
	}
	if (!btf || !map)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
	if (id < 0)
		return -ENOENT;
	sec = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec); i++, vs++) {
		var = btf__type_by_id(btf, vs->type);
		if (strcmp(btf__name_by_offset(btf, var->name_off), name))
			continue;
		if (vs->size != sizeof(__u32))
			return -EINVAL;
		init = bpf_map__initial_value(map, &sz);
		if (!init || vs->offset + sizeof(__u32) > sz)
			return -EINVAL;
		copy = malloc(sz);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, init, sz);
		memcpy((char *)copy + vs->offset, &val, sizeof(val));
		err = bpf_map__set_initial_value(map, copy, sz);
		free(copy);
		return err;
	}
	return err;
}

/* Zero every map of a bundled program (but the ring buffer) so a window starts from nothing. */
static int clear_maps(struct bpf_priv *p)
{
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map *m;
	void *keys = NULL, *zero = NULL;
	int err = 0;

	for (m = bpf_object__next_map(p->obj, NULL); m; m = bpf_object__next_map(p->obj, m)) {
		enum bpf_map_type type = bpf_map__type(m);
		__u32 ksz = bpf_map__key_size(m), max = bpf_map__max_entries(m), n = 0, i;
		size_t vsz = bpf_map__value_size(m);
		int fd = bpf_map__fd(m);

		if (bpf_map__is_internal(m) || type == BPF_MAP_TYPE_RINGBUF)
			continue;
		if (type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH)
			vsz = ((vsz + 7) / 8 * 8) * ncpu;
		if (type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY) {
			zero = calloc(1, vsz);
			for (i = 0; zero && i < max; i++)
				if (bpf_map_update_elem(fd, &i, zero, BPF_ANY))
					err = -errno;
		} else {
			/* Keys first, then deletes: deleting while walking restarts the walk. */
			keys = malloc((size_t)ksz * (max + 1));
			while (keys && n < max &&
			       !bpf_map_get_next_key(
				       fd, n ? (char *)keys + (size_t)(n - 1) * ksz : NULL,
				       (char *)keys + (size_t)n * ksz))
				n++;
			for (i = 0; i < n; i++)
				bpf_map_delete_elem(fd, (char *)keys + (size_t)i * ksz);
		}
		if ((!keys && !zero) || err) {
			err = err ? err : -ENOMEM;
			tb_err("bpf: clearing map %s: %s", bpf_map__name(m), strerror(-err));
		}
		free(keys);
		free(zero);
		keys = zero = NULL;
		if (err)
			break;
	}
	return err;
}

/* memlock of a map as the kernel accounts it (fdinfo), or value*entries as a fallback. */
static int64_t map_mem(struct bpf_map *m)
{
	char path[64], *buf = NULL, *s;
	long long v = -1;
	size_t len;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", bpf_map__fd(m));
	if (!tb_read_file(path, &buf, &len) && (s = strstr(buf, "memlock:")))
		v = strtoll(s + 8, NULL, 10);
	free(buf);
	if (v < 0)
		v = (long long)(bpf_map__key_size(m) + bpf_map__value_size(m)) *
		    bpf_map__max_entries(m);
	return v;
}

static int prog_stats(struct bpf_program *prog, __u64 *cnt, __u64 *ns)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len)) {
		tb_err("bpf: reading stats of program %s: %s", bpf_program__name(prog),
		       strerror(errno));
		return -errno;
	}
	*cnt = info.run_cnt;
	*ns = info.run_time_ns;
	return 0;
}

/* ---- ring-buffer reader ------------------------------------------------------------------ */

static int on_record(void *ctx, void *data, size_t size)
{
	struct bpf_priv *p = ctx;
	const struct rb_event *e = data;

	p->consumed++;
	/* bundled ringbuf-events records carry the tgid; a user's object's are its own */
	if (p->b && size >= sizeof(*e) && p->tgid && e->tgid == p->tgid)
		p->consumed_mine++;
	return 0;
}

static void *reader(void *arg)
{
	struct bpf_priv *p = arg;
	struct timespec ts;
	int r;

	while (!atomic_load(&p->thr_stop)) {
		r = ring_buffer__poll(p->rb, p->poll_ms);
		if (r < 0 && r != -EINTR) {
			tb_err("bpf: ring buffer poll: %s", strerror(-r));
			break;
		}
		/* Timed out: without wakeups (ringbuf-wakeup = none) this is how records arrive. */
		if (!r)
			ring_buffer__consume(p->rb);
	}
	/* Programs are detached by now: whatever is left is the last of the window. */
	ring_buffer__consume(p->rb);
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		p->cpu_s = ts.tv_sec + ts.tv_nsec / 1e9;
	return NULL;
}

static int reader_start(struct bpf_priv *p)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int err;

	p->consumed = p->consumed_mine = 0;
	p->cpu_s = 0;
	atomic_store(&p->thr_stop, false);
	pthread_attr_init(&attr);
	if (p->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(p->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	err = pthread_create(&p->thr, &attr, reader, p);
	pthread_attr_destroy(&attr);
	if (err) {
		tb_err("bpf: starting the ring-buffer reader: %s", strerror(err));
		return -err;
	}
	p->thr_live = true;
	return 0;
}

static void reader_stop(struct bpf_priv *p)
{
	if (!p->thr_live)
		return;
	atomic_store(&p->thr_stop, true);
	pthread_join(p->thr, NULL);
	p->thr_live = false;
}

/* ---- crash-safety record (host/armed.h) ------------------------------------------------ */

static int armed_id(bool add, enum tb_armed_kind kind, __u32 id)
{
	char v[16];

	snprintf(v, sizeof(v), "%u", id);
	return add ? tb_armed_add(kind, v) : tb_armed_remove(kind, v);
}

/* Ids of a link (bpf_link_info) or program; 0 when the kernel does not say. */
static __u32 link_id(struct bpf_link *link)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len) ? 0 : info.id;
}

static __u32 prog_id(struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	return bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) ? 0 : info.id;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

static void detach_all(struct bpf_priv *p)
{
	size_t i;

	for (i = 0; i < p->nlinks; i++) {
		bpf_link__destroy(p->links[i]);
		p->links[i] = NULL;
		if (p->ps[i].link_id)
			armed_id(false, TB_ARMED_BPF_LINK, p->ps[i].link_id);
		p->ps[i].link_id = 0;
	}
	p->nlinks = 0;
}

/* Every fd of the tracer's programs, links and maps closed (tb_bpf_release_and_wait). */
static void release_all(void *arg)
{
	struct bpf_priv *p = arg;

	detach_all(p);
	reader_stop(p);
	ring_buffer__free(p->rb);
	p->rb = NULL;
	if (p->b && p->skel)
		p->b->destroy(p->skel);
	else if (!p->b)
		bpf_object__close(p->obj);
	p->skel = NULL;
	p->obj = NULL;
}

/*
 * The kernel frees closed programs asynchronously: teardown waits (bounded) until they and
 * their links are gone, so that the next sample or run does not see them (host/bpf-freeing.h).
 */
static void bpf_teardown(struct tb_tracer *t)
{
	struct bpf_priv *p = t->priv;
	struct tb_bpf_obj *objs;
	size_t i, n = 0;

	if (!p)
		return;
	objs = calloc(2 * p->nps + 1, sizeof(*objs));
	for (i = 0; objs && i < p->nps; i++) {
		if (p->ps[i].id && p->ps[i].prog &&
		    !tb_bpf_obj_of_prog_fd(bpf_program__fd(p->ps[i].prog), &objs[n]))
			n++;
		if (p->ps[i].link_id)
			objs[n++] = (struct tb_bpf_obj){.id = p->ps[i].link_id, .link = true};
	}
	tb_bpf_release_and_wait(t->name, objs, n, release_all, p);
	free(objs);
	for (i = 0; i < p->nps; i++)
		if (p->ps[i].id)
			armed_id(false, TB_ARMED_BPF_PROG, p->ps[i].id);
	if (p->stats_fd >= 0)
		close(p->stats_fd);
	free(p->links);
	free(p->ps);
	free(p);
	t->priv = NULL;
}

/* tp_btf for every BTF-typed tracepoint the bundled object uses, unless forced. */
static int choose_attach(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg)
{
	struct bpf_program *prog;
	const char *sec;

	p->use_btf = cfg->attach != ATTACH_RAW_TP;
	if (cfg->attach == ATTACH_AUTO) {
		for (prog = bpf_object__next_program(p->obj, NULL); prog;
		     prog = bpf_object__next_program(p->obj, prog)) {
			sec = bpf_program__section_name(prog);
			if (!strncmp(sec, "tp_btf/", 7) && !tp_btf_usable(sec + 7)) {
				tb_debug("bpf: %s: tp_btf/%s not usable, falling back to raw_tp",
					 t->name, sec + 7);
				p->use_btf = false;
			}
		}
	}
	for (prog = bpf_object__next_program(p->obj, NULL); prog;
	     prog = bpf_object__next_program(p->obj, prog)) {
		sec = bpf_program__section_name(prog);
		if (!strncmp(sec, "tp_btf/", 7))
			bpf_program__set_autoload(prog, p->use_btf);
		else if (!strncmp(sec, "raw_tp/", 7))
			bpf_program__set_autoload(prog, !p->use_btf);
	}
	return 0;
}

static int open_object(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg,
		       __u32 tgid)
{
	struct bpf_program *prog;
	char err[256];
	size_t i;
	bool want;
	int r;

	p->obj = bpf_object__open_file(cfg->object, NULL);
	if (!p->obj) {
		r = -errno;
		tb_err("%s: object: cannot open '%s': %s", t->name, cfg->object, strerror(-r));
		return r;
	}
	r = check_program_names(p->obj, cfg, err, sizeof(err));
	if (r) {
		tb_err("%s: %s", t->name, err);
		return r;
	}
	for (prog = bpf_object__next_program(p->obj, NULL); prog;
	     prog = bpf_object__next_program(p->obj, prog)) {
		want = !cfg->programs.n;
		for (i = 0; i < cfg->programs.n; i++)
			if (!strcmp(cfg->programs.v[i], bpf_program__name(prog)))
				want = true;
		bpf_program__set_autoload(prog, want);
	}
	if (tgid) {
		r = set_rodata_u32(p->obj, cfg->rodata_pid, tgid);
		if (r == -ENOENT)
			tb_info("%s: '%s' has no rodata '%s': no pid filter", t->name, cfg->object,
				cfg->rodata_pid);
		else if (r) {
			tb_err("%s: rodata-pid: cannot set '%s' in '%s': %s", t->name,
			       cfg->rodata_pid, cfg->object, strerror(-r));
			return r;
		}
	}
	return 0;
}

/*
 * program = probe: the attach type, its target and (user types) the file and pid, and only the
 * program of (attach, body) to load. Returns 0 or -errno, said.
 */
static int probe_prepare(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg)
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
	p->pid = cfg->pid_filter == PIDF_WORKLOAD && t->target > 0 ? t->target : -1;
	if (user_type(p->attach)) {
		if (cfg->binary && *cfg->binary)
			snprintf(p->binary, sizeof(p->binary), "%s", cfg->binary);
		else if (t->target > 0)
			snprintf(p->binary, sizeof(p->binary), "/proc/%d/exe", (int)t->target);
		else
			snprintf(p->binary, sizeof(p->binary), "/proc/self/exe");
	}
	r = probe_select(p->obj, p->attach, cfg->body, p->target, &prog);
	if (r)
		tb_err("%s: %s program for target '%s': %s", t->name, attach_choices[p->attach],
		       p->target, strerror(-r));
	return r;
}

/* One of the bundled programs: open its skeleton, choose attach types, size its ring buffers. */
static int open_bundled(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg,
			__u32 tgid)
{
	struct bpf_map *m;
	int r;

	p->b = &bundled[cfg->program];
	r = p->b->open(p, tgid);
	if (r) {
		tb_err("%s: opening program %s: %s", t->name, program_choices[cfg->program],
		       strerror(-r));
		return r;
	}
	if (cfg->program == PROG_PROBE)
		return probe_prepare(t, p, cfg);
	choose_attach(t, p, cfg);
	if (cfg->program == PROG_RINGBUF_EVENTS) {
		struct ringbuf_events_bpf *rs = p->skel;

		rs->rodata->submit_flags = cfg->wakeup == WAKEUP_NONE	? BPF_RB_NO_WAKEUP
					   : cfg->wakeup == WAKEUP_EACH ? BPF_RB_FORCE_WAKEUP
									: 0;
	}
	for (m = bpf_object__next_map(p->obj, NULL); m; m = bpf_object__next_map(p->obj, m))
		if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF)
			bpf_map__set_max_entries(m, (__u32)cfg->ringbuf_size);
	return 0;
}

/*
 * After loading: one entry in p->ps per program that will be attached, each recorded in the
 * armed record. p->nps counts only filled entries: teardown walks them.
 */
static int record_programs(struct tb_tracer *t, struct bpf_priv *p, const char *what)
{
	struct bpf_program *prog;
	size_t nprogs = 0;
	int r;

	for (prog = bpf_object__next_program(p->obj, NULL); prog;
	     prog = bpf_object__next_program(p->obj, prog))
		if (bpf_program__autoload(prog))
			nprogs++;
	if (!nprogs) {
		tb_err("%s: programs: nothing to attach in '%s'", t->name, what);
		return -EINVAL;
	}
	p->ps = calloc(nprogs, sizeof(*p->ps));
	p->links = calloc(nprogs, sizeof(*p->links));
	if (!p->ps || !p->links)
		return -ENOMEM;
	for (prog = bpf_object__next_program(p->obj, NULL); prog;
	     prog = bpf_object__next_program(p->obj, prog)) {
		__u32 id;

		if (!bpf_program__autoload(prog))
			continue;
		/* Recorded so that `tracebench cleanup` can report what a killed run left. */
		id = prog_id(prog);
		r = id ? armed_id(true, TB_ARMED_BPF_PROG, id) : 0;
		if (r) {
			tb_err("%s: cannot record BPF program %u for crash safety: %s", t->name, id,
			       strerror(-r));
			return r;
		}
		p->ps[p->nps].id = id;
		p->ps[p->nps++].prog = prog;
	}
	return 0;
}

/* One ring_buffer consumer over every ring-buffer map of the object. */
static int open_ringbufs(struct tb_tracer *t, struct bpf_priv *p)
{
	struct bpf_map *m;
	int r = 0;

	for (m = bpf_object__next_map(p->obj, NULL); m; m = bpf_object__next_map(p->obj, m)) {
		if (bpf_map__type(m) != BPF_MAP_TYPE_RINGBUF)
			continue;
		if (!p->rb)
			p->rb = ring_buffer__new(bpf_map__fd(m), on_record, p, NULL);
		else if (ring_buffer__add(p->rb, bpf_map__fd(m), on_record, p))
			r = -errno;
		if (!p->rb || r) {
			r = r ? r : (errno ? -errno : -ENOMEM);
			tb_err("%s: ring buffer %s: %s", t->name, bpf_map__name(m), strerror(-r));
			return r;
		}
	}
	return 0;
}

static int bpf_setup(struct tb_tracer *t)
{
	const struct bpf_cfg *cfg = t->cfg;
	struct bpf_priv *p;
	const char *what;
	char err[512];
	__u32 tgid;
	int r;

	log_init();
	if (bpf_validate(cfg, err, sizeof(err))) {
		tb_err("%s: %s", t->name, err);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->stats_fd = -1;
	p->cpu = t->consumer_cpu;
	p->poll_ms = (int)(cfg->poll_ns / 1000000);
	t->priv = p;
	tgid = cfg->pid_filter == PIDF_WORKLOAD && t->target > 0 ? (__u32)t->target : 0;
	p->tgid = t->target > 0 ? (__u32)t->target : 0;
	if (cfg->pid_filter == PIDF_WORKLOAD && t->target <= 0)
		tb_warn("%s: pid-filter = workload without a target process: tracing every process",
			t->name);

	r = cfg->program == PROG_OBJECT ? open_object(t, p, cfg, tgid)
					: open_bundled(t, p, cfg, tgid);
	if (r)
		goto fail;
	what = p->b ? program_choices[cfg->program] : cfg->object;
	r = p->b ? p->b->load(p->skel) : bpf_object__load(p->obj);
	if (r) {
		r = r < 0 ? r : -EINVAL;
		tb_err("%s: loading %s failed (verifier log above): %s", t->name, what,
		       strerror(-r));
		goto fail;
	}
	r = record_programs(t, p, what);
	if (!r)
		r = open_ringbufs(t, p);
	if (r)
		goto fail;
	if (cfg->stats) {
		p->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (p->stats_fd < 0)
			tb_warn("%s: bpf_enable_stats: %s: no run_cnt/run_time_ns", t->name,
				strerror(errno));
	}
	tb_debug("%s: loaded %zu program(s), %s", t->name, p->nps,
		 p->use_btf ? "tp_btf" : "raw_tp/tracepoint");
	return 0;
fail:
	bpf_teardown(t);
	return r;
}

static int bpf_stop(struct tb_tracer *t);

/*
 * A program attached by its section, but read-latency's to the tracepoints of `syscall`: both
 * syscalls' entry and exit tracepoints have the same arguments struct, so one program serves.
 */
static struct bpf_link *attach(struct tb_tracer *t, struct bpf_program *prog)
{
	const struct bpf_cfg *cfg = t->cfg;
	const char *sec = bpf_program__section_name(prog);
	char tp[96];

	if (cfg->program != PROG_READ_LATENCY || !cfg->syscall || !strcmp(cfg->syscall, "read"))
		return bpf_program__attach(prog);
	snprintf(tp, sizeof(tp), "sys_%s_%s", strstr(sec, "sys_exit") ? "exit" : "enter",
		 cfg->syscall);
	return bpf_program__attach_tracepoint(prog, "syscalls", tp);
}

static int bpf_start(struct tb_tracer *t)
{
	struct bpf_priv *p = t->priv;
	size_t i;
	int r;

	if (!p)
		return -EINVAL;
	p->windowed = false;
	if (p->b) {
		r = clear_maps(p);
		if (r)
			return r;
	}
	for (i = 0; i < p->nps; i++) {
		r = prog_stats(p->ps[i].prog, &p->ps[i].cnt0, &p->ps[i].ns0);
		if (r)
			return r;
	}
	if (p->rb) {
		r = reader_start(p);
		if (r)
			return r;
	}
	for (i = 0; i < p->nps; i++) {
		struct bpf_program *prog = p->ps[i].prog;

		p->links[i] = p->b == &bundled[PROG_PROBE]
				      ? attach_probe(prog, p->attach, p->target, p->pid, p->binary)
				      : attach(t, prog);
		if (!p->links[i]) {
			r = -errno;
			tb_err("%s: attaching %s (%s%s%s): %s", t->name, bpf_program__name(prog),
			       bpf_program__section_name(prog), p->target[0] ? " to " : "",
			       p->target, strerror(-r));
			bpf_stop(t);
			p->windowed = false;
			return r;
		}
		p->nlinks = i + 1;
		p->ps[i].link_id = link_id(p->links[i]);
		r = p->ps[i].link_id ? armed_id(true, TB_ARMED_BPF_LINK, p->ps[i].link_id) : 0;
		if (r) {
			tb_err("%s: cannot record BPF link %u for crash safety: %s", t->name,
			       p->ps[i].link_id, strerror(-r));
			p->ps[i].link_id = 0;
			bpf_stop(t);
			p->windowed = false;
			return r;
		}
	}
	return 0;
}

static int bpf_stop(struct tb_tracer *t)
{
	struct bpf_priv *p = t->priv;
	size_t i;
	int r = 0;

	if (!p)
		return -EINVAL;
	detach_all(p);
	for (i = 0; i < p->nps; i++)
		if (prog_stats(p->ps[i].prog, &p->ps[i].cnt1, &p->ps[i].ns1))
			r = -EIO;
	reader_stop(p);
	p->windowed = !r;
	return r;
}

static int bpf_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct bpf_cfg *cfg = t->cfg;
	struct bpf_priv *p = t->priv;
	json_t *extra, *progs;
	int64_t cnt = 0, ns = 0, mem = 0;
	struct bpf_map *m;
	size_t i;
	int r = 0;

	if (!p || !p->windowed)
		return -EINVAL;
	extra = json_object();
	progs = json_array();
	if (!extra || !progs) {
		json_decref(extra);
		json_decref(progs);
		return -ENOMEM;
	}
	for (i = 0; i < p->nps; i++) {
		const struct prog_stat *s = &p->ps[i];
		int64_t dc = (int64_t)(s->cnt1 - s->cnt0), dn = (int64_t)(s->ns1 - s->ns0);

		cnt += dc;
		ns += dn;
		json_array_append_new(progs,
				      json_pack("{sssssIsIsI}", "name", bpf_program__name(s->prog),
						"section", bpf_program__section_name(s->prog), "id",
						(json_int_t)s->id, "run_cnt", (json_int_t)dc,
						"run_time_ns", (json_int_t)dn));
	}
	json_object_set_new(extra, "programs", progs);
	if (p->stats_fd >= 0) {
		st->bpf_run_cnt = cnt;
		st->bpf_run_time_ns = ns;
		if (cnt > 0)
			json_object_set_new(extra, "ns_per_run", json_real((double)ns / cnt));
	}
	for (m = bpf_object__next_map(p->obj, NULL); m; m = bpf_object__next_map(p->obj, m))
		mem += map_mem(m);
	st->mem_bytes = mem;
	st->cpu_s = p->rb ? p->cpu_s : 0;
	if (p->b) {
		json_object_set_new(extra, "attach", json_string(p->use_btf ? "tp_btf" : "raw_tp"));
		st->lost = percpu_sum(map_fd(p, "drops"));
		r = p->b->collect(p, cfg, st, extra);
	} else {
		/* A user's object: its runs are its events; what it loses is its own business. */
		st->events = p->stats_fd >= 0 ? cnt : -1;
		if (p->rb)
			json_object_set_new(extra, "ringbuf_records",
					    json_integer((json_int_t)p->consumed));
	}
	if (r) {
		json_decref(extra);
		return r;
	}
	st->extra = extra;
	return 0;
}

/*
 * Declared: loading and verifying (~20 ms) and the teardown's wait for the kernel to free the
 * programs (80-300 ms here). Measured on the reference VM from `tracebench run
 * scenarios/quick.ini`: tracer_setup_s + tracer_teardown_s - 2 x settle, median 0.30 s.
 */
static uint64_t bpf_est_cost_ns(const void *cfg)
{
	(void)cfg;
	return 300000000ull;
}

/*
 * The hook named by a program's section: "tracepoint/SYS/EV" (or "tp/") is SYS:EV, a raw
 * tracepoint "tp_btf/EV" or "raw_tp/EV" is raw_syscalls:EV for sys_enter and sys_exit and
 * sched:EV for the scheduler's; anything else keeps its section name (no workload counts it).
 */
static void section_hook(const char *sec, char *name, size_t len)
{
	const char *slash = strchr(sec, '/'), *ev = slash ? slash + 1 : sec;
	size_t plen = slash ? (size_t)(slash - sec) : 0;

	if (slash &&
	    ((plen == 10 && !strncmp(sec, "tracepoint", 10)) ||
	     (plen == 2 && !strncmp(sec, "tp", 2))) &&
	    strchr(ev, '/')) {
		snprintf(name, len, "%.*s:%s", (int)(strchr(ev, '/') - ev), ev,
			 strchr(ev, '/') + 1);
	} else if (slash && ((plen == 6 && !strncmp(sec, "tp_btf", 6)) ||
			     (plen == 6 && !strncmp(sec, "raw_tp", 6)) ||
			     (plen == 14 && !strncmp(sec, "raw_tracepoint", 14)))) {
		snprintf(name, len, "%s:%s",
			 !strcmp(ev, "sys_enter") || !strcmp(ev, "sys_exit") ? "raw_syscalls"
			 : !strncmp(ev, "sched_", 6)			     ? "sched"
									     : "raw",
			 ev);
	} else {
		snprintf(name, len, "%s", sec);
	}
}

/* A user's object: every autoloaded program's section is a hook, and its runs its events. */
static int object_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h)
{
	struct bpf_object *obj = bpf_object__open_file(cfg->object, NULL);
	struct bpf_program *prog;
	char name[TB_EV_NAME_MAX];
	size_t i;
	bool want;
	int ret = 0;

	if (!obj)
		return -errno;
	h->scope = TB_SCOPE_SYSTEM; /* run_cnt counts every process's runs */
	for (prog = bpf_object__next_program(obj, NULL); prog && !ret;
	     prog = bpf_object__next_program(obj, prog)) {
		want = !cfg->programs.n;
		for (i = 0; i < cfg->programs.n; i++)
			want |= !strcmp(cfg->programs.v[i], bpf_program__name(prog));
		if (!want)
			continue;
		section_hook(bpf_program__section_name(prog), name, sizeof(name));
		ret = tb_hooks_add(h, name, -1, true);
	}
	bpf_object__close(obj);
	return ret;
}

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
static int probe_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h)
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
	if (!strcmp(name, "sched:sched_switch") && cfg->pid_filter == PIDF_WORKLOAD) {
		int ret = tb_hooks_add(h, name, -1, false);

		return ret ? ret : tb_hooks_add(h, "task:switches", -1, true);
	}
	return tb_hooks_add(h, name, -1, true);
}

/*
 * What each bundled program runs on and counts. syscall-count and ringbuf-events also report
 * the workload's own share when they trace every process (collect: workload_events).
 */
static int bpf_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct bpf_cfg *cfg = vcfg;
	int ret;

	log_init();
	h->kind = TB_HOOK_EVENTS;
	h->scope = cfg->pid_filter == PIDF_WORKLOAD ? TB_SCOPE_PROCESS : TB_SCOPE_SYSTEM;
	switch (cfg->program) {
	case PROG_PROBE:
		return probe_hooks(cfg, h);
	case PROG_SYSCALL_COUNT:
	case PROG_RINGBUF_EVENTS:
		h->attributes = true;
		return tb_hooks_add(h, "raw_syscalls:sys_enter", -1, true);
	case PROG_READ_LATENCY: {
		/* one histogram entry per call of `syscall` that returned */
		char in[TB_EV_NAME_MAX], out[TB_EV_NAME_MAX];
		const char *sc = cfg->syscall && *cfg->syscall ? cfg->syscall : "read";

		snprintf(in, sizeof(in), "syscalls:sys_enter_%s", sc);
		snprintf(out, sizeof(out), "syscalls:sys_exit_%s", sc);
		ret = tb_hooks_add(h, in, -1, false);
		return ret ? ret : tb_hooks_add(h, out, -1, true);
	}
	case PROG_RUNQ_LATENCY:
		/* runs on every wakeup and switch of the host; counts the workload's wakeups */
		ret = tb_hooks_add(h, "sched:sched_wakeup", -1, false);
		if (!ret)
			ret = tb_hooks_add(h, "sched:sched_wakeup_new", -1, false);
		if (!ret)
			ret = tb_hooks_add(h, "sched:sched_switch", -1, false);
		return ret ? ret : tb_hooks_add(h, "task:wakeups", -1, true);
	default:
		return object_hooks(cfg, h);
	}
}

const struct tb_tracer_ops tb_tracer_bpf = {
	.name = "bpf",
	.help = "BPF programs (bundled CO-RE: syscall-count, read-latency, runq-latency, "
		"ringbuf-events, probe: every attach type; or a user's .bpf.o) with in-kernel "
		"run_cnt/run_time_ns",
	.opts = bpf_opts,
	.cfg_size = sizeof(struct bpf_cfg),
	.supported = bpf_supported,
	.validate = bpf_validate,
	.supported_cfg = bpf_supported_cfg,
	.variants = bpf_variants,
	.setup = bpf_setup,
	.start = bpf_start,
	.stop = bpf_stop,
	.collect = bpf_collect,
	.teardown = bpf_teardown,
	.est_cost_ns = bpf_est_cost_ns,
	.hooks = bpf_hooks,
};
