// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer: bundled CO-RE programs (tracers/bpf/<x>.bpf.c, built into skeletons:
 * bundled.c) or a user's own object (object.c), attached by section type or, program = probe,
 * by the attach type asked for (attach.c). This file: its options, its ops table and the
 * lifecycle (libbpf-tools style):
 *   setup    open, set rodata (targ_tgid), choose tp_btf or raw_tp, load (verifier), stats fd
 *   start    clear the maps, read run_cnt/run_time_ns, start the ring-buffer reader (and
 *            open its file, consumer = file), attach
 *   stop     destroy the links (detach), read run stats, drain the ring buffer (and close
 *            the file)
 *   collect  events (map counts / records consumed / run_cnt), drops, maps' memory, extra
 *   teardown destroy everything (idempotent)
 * Run statistics come from bpf_enable_stats(BPF_STATS_RUN_TIME): on only while our fd is open,
 * the kernel.bpf_stats_enabled sysctl is never touched. They add two clock reads to every
 * program run, so with stats = true they are held only in the cell's accounting samples (one
 * per accounting-every measured rounds: tracer.h, accounts; opened by the setup or the rearm of
 * such a sample, closed by the park or the teardown after it); the timed samples run without.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "core/tb.h"
#include "host/armed.h"
#include "host/bpf-freeing.h"
#include "host/cgroup.h"
#include "tracers/bpf/bpf-tracer.h"
#include "workloads/usercall.h"

#include "tracers/bpf/ringbuf-events.h"

const char *const tb_bpftr_programs[] = {
	"syscall-count", "read-latency", "runq-latency", "ringbuf-events", "probe", "object", NULL,
};
static const char *const pidf_choices[] = {"workload", "none", "workload-rodata", NULL};
const char *const tb_bpftr_wakeups[] = {"adaptive", "none", "each", NULL};
const char *const tb_bpftr_outputs[] = {"ringbuf", "perfbuf", NULL};

static const struct tb_option bpf_opts[] = {
	{"program", TB_OPT_CHOICE, offsetof(struct bpf_cfg, program), "syscall-count",
	 "bundled program, or `object` for the file given by `object`",
	 .choices = tb_bpftr_programs},
	{"object", TB_OPT_STRING, offsetof(struct bpf_cfg, object), NULL,
	 "path of a user's .bpf.o (program = object)"},
	{"programs", TB_OPT_LIST, offsetof(struct bpf_cfg, programs), NULL,
	 "programs of the object to load and attach by section type (default: all)"},
	{"pid-filter", TB_OPT_CHOICE, offsetof(struct bpf_cfg, pid_filter), "workload",
	 "trace only the workload process or every process; bundled programs: workload filters on a "
	 "writable global, re-pointed for each sample of a kept tracer (reuse-tracers), and on a "
	 "service on the server's cgroup; workload-rodata on a .rodata constant the verifier "
	 "folds (loaded for every sample); a user's object: its rodata-pid knob either way",
	 .choices = pidf_choices},
	{"ringbuf-size", TB_OPT_SIZE, offsetof(struct bpf_cfg, ringbuf_size), "1M",
	 "ring buffer of ringbuf-events (power of two, >= 4096)", 4096, 1073741824.0},
	{"stats", TB_OPT_BOOL, offsetof(struct bpf_cfg, stats), "true",
	 "per-program run_cnt / run_time_ns from one accounting sample per round that holds "
	 "bpf_enable_stats (it adds two clock reads per run; the timed samples run without it)"},
	{"attach", TB_OPT_CHOICE, offsetof(struct bpf_cfg, attach), "auto",
	 "bundled raw tracepoints: tp_btf where available (auto), or force tp_btf / raw_tp; "
	 "program = probe also: tracepoint, fentry, fexit, kprobe, kretprobe, kprobe_multi, "
	 "uprobe, uretprobe, usdt",
	 .choices = tb_bpftr_attach_types},
	{"body", TB_OPT_CHOICE, offsetof(struct bpf_cfg, body), "count",
	 "program = probe: empty (pid check and a per-CPU hit count: the dispatch cost), count "
	 "(reads the argument or return value into a hash map keyed by tgid) or spin (empty, then "
	 "spins `spin` per hit: a known cost, kernel attach types)",
	 .choices = tb_bpftr_bodies},
	{"spin", TB_OPT_DURATION, offsetof(struct bpf_cfg, spin_ns), "0",
	 "program = probe, body = spin: the time each hit spins in the program, measured with "
	 "bpf_ktime_get_ns (the services' known per-request delay)",
	 0, 1e6},
	{"target", TB_OPT_STRING, offsetof(struct bpf_cfg, target), "",
	 "program = probe: what to hook (empty: getpid's path for kernel types, i.e. "
	 "syscalls:sys_enter_getpid, sys_enter or the getpid syscall function; the usercall "
	 "workload's " TB_USERCALL_SYMBOL " or " TB_USERCALL_USDT_PROVIDER ":" TB_USERCALL_USDT_NAME
	 " for user types)"},
	{"binary", TB_OPT_STRING, offsetof(struct bpf_cfg, binary), "",
	 "program = probe, user types: the ELF file to probe (empty: the workload's executable)"},
	{"top", TB_OPT_INT, offsetof(struct bpf_cfg, top), "10",
	 "syscall-count: number of (process, syscall) counts reported in extra", 0, 10000},
	{"syscall-nr", TB_OPT_INT, offsetof(struct bpf_cfg, syscall_nr), "-1",
	 "syscall-count: count only this syscall number, returning early for the others (what a "
	 "BPF filter saves); -1: every syscall",
	 -1, 4095},
	{"syscall", TB_OPT_STRING, offsetof(struct bpf_cfg, syscall), "read",
	 "read-latency: the syscall whose latency it measures (read, pread64, readv, ...): its "
	 "sys_enter_ and sys_exit_ tracepoints"},
	{"rodata-pid", TB_OPT_STRING, offsetof(struct bpf_cfg, rodata_pid), "targ_tgid",
	 "program = object: name of the const volatile __u32 rodata knob set to the target tgid"},
	{"ringbuf-wakeup", TB_OPT_CHOICE, offsetof(struct bpf_cfg, wakeup), "adaptive",
	 "ringbuf-events: wake the reader when it caught up (adaptive), never (none: it polls "
	 "every poll-interval) or for each record (each)",
	 .choices = tb_bpftr_wakeups},
	{"payload", TB_OPT_INT, offsetof(struct bpf_cfg, payload), "0",
	 "ringbuf-events: bytes per record, 4..1024, copied from a per-CPU scratch record so "
	 "backends can write equal records; 0: its own 24-byte record reserved in place",
	 0, TB_RB_PAYLOAD_MAX},
	{"output", TB_OPT_CHOICE, offsetof(struct bpf_cfg, output), "ringbuf",
	 "ringbuf-events: a BPF ring buffer (ringbuf) or a per-CPU perf buffer (perfbuf, "
	 "bpf_perf_event_output, ringbuf-size per CPU)",
	 .choices = tb_bpftr_outputs},
	{"perfbuf-watermark", TB_OPT_SIZE, offsetof(struct bpf_cfg, perf_watermark), "0",
	 "output = perfbuf: wake the reader once this many bytes wait (0: for each record)", 0,
	 1073741824.0},
	{"consumer", TB_OPT_CHOICE, offsetof(struct bpf_cfg, consumer), "discard",
	 "ringbuf-events: what the reader thread does with each record: count it and drop it "
	 "(discard), or also write it, raw, through a 64 KiB buffer to <name>-<sample>.raw in "
	 "the tracer's directory (file: the sink of ftrace's consumer = stream)",
	 .choices = tb_bpftr_consumers},
	{"keep-raw", TB_OPT_BOOL, offsetof(struct bpf_cfg, keep_raw), "false",
	 "consumer = file: keep the file (else its size is counted and it is deleted after each "
	 "sample)"},
	{"poll-interval", TB_OPT_DURATION, offsetof(struct bpf_cfg, poll_ns), "10ms",
	 "ring-buffer reader: epoll timeout, after which it consumes anyway", 1e6, 1e10},
	TB_OPT_END,
};

/* ---- configuration checks ---------------------------------------------------------------- */

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* The keys of one program used with another: attach beyond raw_tp, target and binary are
 * program = probe's, object and programs program = object's. */
static int check_keys(const struct bpf_cfg *cfg, char *err, size_t len)
{
	if (cfg->program != PROG_PROBE &&
	    (cfg->attach > ATTACH_RAW_TP || (cfg->target && *cfg->target) ||
	     (cfg->binary && *cfg->binary))) {
		snprintf(err, len, "%s: only with program = probe",
			 cfg->attach > ATTACH_RAW_TP   ? "attach"
			 : cfg->target && *cfg->target ? "target"
						       : "binary");
		return -EINVAL;
	}
	if (cfg->program != PROG_OBJECT && (cfg->object || cfg->programs.n)) {
		snprintf(err, len, "%s: only used with program = object",
			 cfg->object ? "object" : "programs");
		return -EINVAL;
	}
	return 0;
}

static int bpf_validate(const void *vcfg, char *err, size_t len)
{
	const struct bpf_cfg *cfg = vcfg;
	int r = check_keys(cfg, err, len);

	if (!r && cfg->program == PROG_PROBE)
		r = tb_bpftr_probe_validate(cfg, err, len) ? -EINVAL : 0;
	if (!r && cfg->program == PROG_OBJECT)
		r = tb_bpftr_object_validate(cfg, err, len);
	if (!r)
		r = tb_bpftr_bundled_validate(cfg, err, len);
	if (r)
		return r;
	if (cfg->payload &&
	    (cfg->program != PROG_RINGBUF_EVENTS || cfg->payload < TB_RB_PAYLOAD_MIN)) {
		snprintf(err, len, "payload: %lld %s", (long long)cfg->payload,
			 cfg->program != PROG_RINGBUF_EVENTS
				 ? "only with program = ringbuf-events"
				 : "is below 4 bytes (0: the default record)");
		return -EINVAL;
	}
	if (cfg->output == OUTPUT_PERFBUF &&
	    (cfg->program != PROG_RINGBUF_EVENTS || cfg->wakeup != WAKEUP_ADAPTIVE ||
	     cfg->perf_watermark >= cfg->ringbuf_size)) {
		snprintf(
			err, len, "output = perfbuf: %s",
			cfg->program != PROG_RINGBUF_EVENTS ? "only with program = ringbuf-events"
			: cfg->wakeup != WAKEUP_ADAPTIVE
				? "ringbuf-wakeup is the ring buffer's; perfbuf-watermark sets its wakeups"
				: "perfbuf-watermark must be below ringbuf-size (each CPU's buffer)");
		return -EINVAL;
	}
	if (cfg->consumer == CONSUMER_FILE && cfg->program != PROG_RINGBUF_EVENTS) {
		snprintf(err, len,
			 "consumer: file only with program = ringbuf-events, whose reader "
			 "thread gets the records: %s",
			 cfg->program == PROG_OBJECT
				 ? "a user's object's ring buffers are read and discarded"
				 : "this program aggregates in the kernel and has no reader");
		return -EINVAL;
	}
	if (cfg->keep_raw && cfg->consumer != CONSUMER_FILE) {
		snprintf(err, len, "keep-raw: only with consumer = file");
		return -EINVAL;
	}
	if (cfg->perf_watermark && cfg->output != OUTPUT_PERFBUF) {
		snprintf(err, len, "perfbuf-watermark: only with output = perfbuf");
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
	tb_bpftr_reader_stop(p);
	ring_buffer__free(p->rb);
	p->rb = NULL;
	perf_buffer__free(p->pb);
	p->pb = NULL;
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
		id = tb_bpftr_prog_id(prog);
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

/*
 * bpf_enable_stats while the tracer may run, in an accounting sample only (stats = true): on
 * for the whole host while open, and it inflates what it measures.
 */
static void stats_on(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg)
{
	if (!cfg->stats || !t->accounting || p->stats_fd >= 0)
		return;
	p->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (p->stats_fd < 0)
		tb_warn("%s: bpf_enable_stats: %s: no run_cnt/run_time_ns", t->name,
			strerror(errno));
}

/* pid-filter = workload, bundled: targ_live to t->target (0: no process; tb-bpf.h), and for a
 * server targ_live_cgid to its cgroup (0: none). */
static int point_filter(struct tb_tracer *t, struct bpf_priv *p)
{
	uint64_t cgid = 0;
	int r;

	if (!p->live || (p->by_cgroup && !p->live_cgid)) {
		tb_err("%s: the loaded program has no writable pid filter (targ_live)", t->name);
		return -ENOENT;
	}
	*p->live = t->target > 0 ? (__u32)t->target : 0;
	if (!p->by_cgroup)
		return 0;
	if (t->target > 0) {
		r = tb_cgroup_id_of_pid(t->target, &cgid);
		if (r) {
			tb_err("%s: the cgroup of the server (process %d) to filter on: %s",
			       t->name, (int)t->target, strerror(-r));
			return r;
		}
	}
	*p->live_cgid = cgid;
	return 0;
}

/*
 * The process whose events are the workload's share (workload_events), 0: none. A server's
 * tree (t->target_tree: a service's workers, and its backends forked later) is more than its
 * main tgid, so its share is not one process's count and none is claimed.
 */
static __u32 attributed_tgid(const struct tb_tracer *t)
{
	return t->target > 0 && !t->target_tree ? (__u32)t->target : 0;
}

static int bpf_setup(struct tb_tracer *t)
{
	const struct bpf_cfg *cfg = t->cfg;
	struct bpf_priv *p;
	const char *what;
	char err[512];
	__u32 tgid;
	int r;

	tb_bpftr_log_init();
	if (bpf_validate(cfg, err, sizeof(err))) {
		tb_err("%s: %s", t->name, err);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->stats_fd = -1;
	p->sink.fd = -1;
	p->cpu = t->consumer_cpu;
	p->poll_ms = (int)(cfg->poll_ns / 1000000);
	t->priv = p;
	/* The folded knob: a user's object's, or a bundled program's with workload-rodata. */
	tgid = cfg->pid_filter != PIDF_NONE && t->target > 0 ? (__u32)t->target : 0;
	if (cfg->program != PROG_OBJECT && cfg->pid_filter == PIDF_WORKLOAD)
		tgid = 0;
	p->tgid = attributed_tgid(t);
	/* a server's tree: its cgroup (tb-bpf.h); a cell's every sample has one, as its first */
	p->by_cgroup = cfg->program != PROG_OBJECT && cfg->pid_filter == PIDF_WORKLOAD &&
		       t->target > 0 && t->target_tree;
	if (cfg->pid_filter != PIDF_NONE && t->target <= 0)
		tb_warn("%s: pid-filter = workload without a target process: tracing every process",
			t->name);

	r = cfg->program == PROG_OBJECT ? tb_bpftr_object_open(t, p, cfg, tgid)
					: tb_bpftr_bundled_open(t, p, cfg, tgid);
	if (r)
		goto fail;
	what = p->b ? tb_bpftr_programs[cfg->program] : cfg->object;
	r = p->b ? p->b->load(p) : bpf_object__load(p->obj);
	if (r) {
		r = r < 0 ? r : -EINVAL;
		tb_err("%s: loading %s failed (verifier log above): %s", t->name, what,
		       strerror(-r));
		goto fail;
	}
	r = record_programs(t, p, what);
	if (!r)
		r = cfg->program == PROG_RINGBUF_EVENTS && cfg->output == OUTPUT_PERFBUF
			    ? tb_bpftr_open_perfbuf(t, p, cfg)
			    : tb_bpftr_open_ringbufs(t, p);
	if (!r && p->b && cfg->pid_filter == PIDF_WORKLOAD)
		r = point_filter(t, p);
	if (r)
		goto fail;
	stats_on(t, p, cfg);
	tb_debug("%s: loaded %zu program(s), %s", t->name, p->nps,
		 p->use_btf ? "tp_btf" : "raw_tp/tracepoint");
	return 0;
fail:
	bpf_teardown(t);
	return r;
}

static int bpf_stop(struct tb_tracer *t);

/*
 * A program attached by its section, a probe's as its attach type says (attach.c), and
 * read-latency's to the tracepoints of `syscall`: both syscalls' entry and exit tracepoints
 * have the same arguments struct, so one program serves.
 */
static struct bpf_link *attach(struct tb_tracer *t, struct bpf_program *prog)
{
	const struct bpf_cfg *cfg = t->cfg;
	const char *sec = bpf_program__section_name(prog);
	char tp[96];

	if (cfg->program == PROG_PROBE)
		return tb_bpftr_probe_attach(t->priv, prog);
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
		r = tb_bpftr_bundled_clear(p);
		if (r)
			return r;
	}
	for (i = 0; i < p->nps; i++) {
		r = prog_stats(p->ps[i].prog, &p->ps[i].cnt0, &p->ps[i].ns0);
		if (r)
			return r;
	}
	if (p->rb || p->pb) {
		r = tb_bpftr_reader_start(t, p);
		if (r)
			return r;
	}
	for (i = 0; i < p->nps; i++) {
		struct bpf_program *prog = p->ps[i].prog;

		p->links[i] = attach(t, prog);
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
	int r = 0, w;

	if (!p)
		return -EINVAL;
	detach_all(p);
	for (i = 0; i < p->nps; i++)
		if (prog_stats(p->ps[i].prog, &p->ps[i].cnt1, &p->ps[i].ns1))
			r = -EIO;
	/* joined, and its file closed: a write error fails the sample (said) */
	w = tb_bpftr_reader_stop(p);
	r = r ? r : w;
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
	/* Said per sample: only an accounting sample holds the stats (and has run figures). */
	st->bpf_stats = p->stats_fd >= 0;
	if (p->stats_fd >= 0) {
		st->bpf_run_cnt = cnt;
		st->bpf_run_time_ns = ns;
		if (cnt > 0)
			json_object_set_new(extra, "ns_per_run", json_real((double)ns / cnt));
	}
	for (m = bpf_object__next_map(p->obj, NULL); m; m = bpf_object__next_map(p->obj, m))
		mem += map_mem(m);
	st->mem_bytes = mem;
	st->cpu_s = p->rb || p->pb ? p->cpu_s : 0;
	if (p->b) {
		json_object_set_new(extra, "attach", json_string(p->use_btf ? "tp_btf" : "raw_tp"));
		r = tb_bpftr_bundled_collect(p, cfg, st, extra);
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

/* stats = true: the run figures come from accounting samples, apart from the timed ones. */
static bool bpf_accounts(const void *vcfg)
{
	return ((const struct bpf_cfg *)vcfg)->stats;
}

/* Which configurations rearm: a bundled program whose filter is not folded into it. */
static bool bpf_can_rearm(const void *vcfg)
{
	const struct bpf_cfg *cfg = vcfg;

	return cfg->program != PROG_OBJECT && cfg->pid_filter != PIDF_RODATA;
}

/* Parked (t->target 0): no stats fd (an accounting sample's, closed: bpf_enable_stats times
 * every program of the host while open), the ring buffer drained, the maps zeroed, the filter
 * at no process. */
static int park(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg, int left)
{
	int r = left < 0 ? left : 0;

	if (p->stats_fd >= 0)
		close(p->stats_fd);
	p->stats_fd = -1;
	p->tgid = 0;
	if (!r)
		r = tb_bpftr_bundled_clear(p);
	if (!r && cfg->pid_filter == PIDF_WORKLOAD)
		r = point_filter(t, p);
	return r;
}

/*
 * reuse-tracers (tracer.h): a bundled program's object stays loaded across its cell's samples.
 * Its programs are detached at stop and its reader joined (its file closed, consumer = file:
 * the next sample's start opens its own), so parked it runs on nothing and holds no file. The
 * rearm checks that (the maps still zero, no ring-buffer record arrived), re-points the filter
 * (targ_live, the probe's pid and binary) and, for an accounting sample, opens the stats fd:
 * what a fresh setup for the new target gives, without the load and verification and the
 * teardown's wait for the kernel to free the programs (bpf_est_cost_ns).
 */
static int bpf_rearm(struct tb_tracer *t)
{
	const struct bpf_cfg *cfg = t->cfg;
	struct bpf_priv *p = t->priv;
	int r, left;

	if (!p || !bpf_can_rearm(cfg)) {
		tb_err("%s: rearm: only a bundled program whose pid filter is not folded (pid-filter "
		       "= workload or none) can be re-pointed",
		       t->name);
		return -EINVAL;
	}
	if (p->nlinks || p->thr_live) {
		tb_err("%s: rearm: the programs are still attached", t->name);
		return -EBUSY;
	}
	left = tb_bpftr_reader_consume(p);
	p->windowed = false;
	if (t->target <= 0)
		return park(t, p, cfg, left);
	if (left) {
		tb_err("%s: rearm: %s while parked", t->name,
		       left < 0 ? strerror(-left) : "ring-buffer records arrived");
		return left < 0 ? left : -ENOTEMPTY;
	}
	r = tb_bpftr_bundled_check_clear(t, p);
	if (r)
		return r;
	p->tgid = attributed_tgid(t);
	if (cfg->program == PROG_PROBE)
		tb_bpftr_probe_point(t, p, cfg);
	if (cfg->pid_filter == PIDF_WORKLOAD)
		r = point_filter(t, p);
	if (!r)
		stats_on(t, p, cfg); /* an accounting sample's only (the park closes it) */
	return r;
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
 * Declared, for a kept tracer (rearm): the maps checked and zeroed, the stats fd reopened,
 * attaching and detaching, the reader started and joined. Measured on the reference VM from
 * `tracebench run scenarios/bpf-pid-knob.ini` (load 1.7-2.1): tracer_setup_s +
 * tracer_teardown_s of the kept cells' samples between the first and the last, medians 11.8 and
 * 15.5 ms (the baseline's 1.9 ms of the same included).
 */
static uint64_t bpf_est_rearm_ns(const void *cfg)
{
	(void)cfg;
	return 12000000ull;
}

/* What the program runs on and counts: a probe's type (attach.c), a bundled program's
 * tracepoints (bundled.c), a user's object's sections (object.c). */
static int bpf_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct bpf_cfg *cfg = vcfg;

	tb_bpftr_log_init();
	h->kind = TB_HOOK_EVENTS;
	h->scope = cfg->pid_filter != PIDF_NONE ? TB_SCOPE_PROCESS : TB_SCOPE_SYSTEM;
	if (cfg->program == PROG_PROBE)
		return tb_bpftr_probe_hooks(cfg, h);
	if (cfg->program == PROG_OBJECT)
		return tb_bpftr_object_hooks(cfg, h);
	return tb_bpftr_bundled_hooks(cfg, h);
}

/* ---- what a result says about a cell ----------------------------------------------------- */

/* "bpf <program> (<attach used>)", a probe as "bpf <attach> <body>". */
static void bpf_label(const struct tb_tracer_record *rec, char *buf, size_t len)
{
	const char *prog = tb_tracer_rec_str(rec->config, "program");
	const char *attach = tb_tracer_rec_str(rec->extra, "attach");

	if (!attach)
		attach = tb_tracer_rec_str(rec->config, "attach");
	if (prog && !strcmp(prog, "probe"))
		snprintf(buf, len, "bpf %s %s", attach ? attach : "?",
			 tb_tracer_rec_str(rec->config, "body") ?: "?");
	else if (prog && attach)
		snprintf(buf, len, "bpf %s (%s)", prog, attach);
	else if (prog)
		snprintf(buf, len, "bpf %s", prog);
}

static double pow2_at_least(double v)
{
	double p = 4096;

	while (p < v && p < 1e15)
		p *= 2;
	return p;
}

/* ringbuf-events' ring buffer (or each CPU's perf buffer) filled, else a map (every other
 * program counts in maps). */
static void bpf_lost_remedy(const struct tb_tracer_record *rec, int64_t per_sample, char *buf,
			    size_t len)
{
	const char *prog = tb_tracer_rec_str(rec->config, "program");
	const char *out = tb_tracer_rec_str(rec->config, "output");
	double pl = tb_tracer_rec_num(rec->config, "payload"), per = (double)per_sample;
	long n = pl >= 1 && pl <= 1e6 ? (long)pl : (long)sizeof(struct rb_event);
	bool perf = out && !strcmp(out, "perfbuf");
	/* a ring-buffer record: its 8-byte header, rounded to 8; a perf sample: its header, the
	 * raw size (u32) and the data, rounded to 8 */
	long rb = perf ? 8 + (n + 4 + 7) / 8 * 8 : (n + 8 + 7) / 8 * 8;
	char size[32];

	if (prog && !strcmp(prog, "ringbuf-events"))
		snprintf(
			buf, len,
			"the BPF %s filled: ringbuf-size >= %s (a power of two%s; a sample makes up to %.0f records of %ld bytes), or a faster reader (%s)",
			perf ? "perf buffer of the CPU" : "ring buffer",
			tb_tracer_size_text(size, sizeof(size), pow2_at_least(per * rb * 1.25)),
			perf ? ", each CPU's" : "", per, rb,
			perf ? "a lower perfbuf-watermark" : "ringbuf-wakeup");
	else
		snprintf(
			buf, len,
			"a BPF map is full (the bundled maps hold 10240 entries): trace fewer processes (pid-filter = workload)");
}

/* Only ringbuf-events loses events in a buffer; the other programs count in maps. */
static const char *bpf_buffer_key(const void *vcfg)
{
	const struct bpf_cfg *cfg = vcfg;

	return cfg->program == PROG_RINGBUF_EVENTS ? "ringbuf-size" : NULL;
}

const struct tb_tracer_ops tb_tracer_bpf = {
	.name = "bpf",
	.help = "BPF programs (bundled CO-RE: syscall-count, read-latency, runq-latency, "
		"ringbuf-events, probe: every attach type; or a user's .bpf.o) with in-kernel "
		"run_cnt/run_time_ns",
	.opts = bpf_opts,
	.cfg_size = sizeof(struct bpf_cfg),
	.flags = TB_TR_NOSETTLE,
	.supported = tb_bpftr_supported,
	.validate = bpf_validate,
	.supported_cfg = tb_bpftr_supported_cfg,
	.variants = tb_bpftr_variants,
	.setup = bpf_setup,
	.start = bpf_start,
	.stop = bpf_stop,
	.collect = bpf_collect,
	.teardown = bpf_teardown,
	.rearm = bpf_rearm,
	.accounts = bpf_accounts,
	.can_rearm = bpf_can_rearm,
	.est_cost_ns = bpf_est_cost_ns,
	.est_rearm_ns = bpf_est_rearm_ns,
	.est_write_bytes = tb_bpftr_est_write_bytes,
	.hooks = bpf_hooks,
	.label = bpf_label,
	.lost_remedy = bpf_lost_remedy,
	.buffer_key = bpf_buffer_key,
};
