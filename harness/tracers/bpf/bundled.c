// SPDX-License-Identifier: GPL-2.0
/*
 * The bpf tracer's bundled programs (tracers/bpf/<x>.bpf.c, built into skeletons): each
 * skeleton behind open/load/destroy, its maps read into figures, its attach types, its hooks.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <jansson.h>

#include "core/tb.h"
#include "host/tracefs.h"
#include "tracers/bpf/bpf-tracer.h"

#include "tracers/bpf/syscall-count.h"
#include "tracers/bpf/read-latency.h"
#include "tracers/bpf/runq-latency.h"
#include "tracers/bpf/ringbuf-events.h"
#include "tracers/bpf/probe.h"

#include "bpf/syscall-count.skel.h"
#include "bpf/read-latency.skel.h"
#include "bpf/runq-latency.skel.h"
#include "bpf/ringbuf-events.skel.h"
#include "bpf/probe.skel.h"

/* ---- skeletons and their figures -------------------------------------------------------- */

#define TB_SKEL_OPS(x)                                                   \
	static int x##_open(struct bpf_priv *p, __u32 tgid, bool rearm)  \
	{                                                                \
		struct x##_bpf *s = x##_bpf__open();                     \
                                                                         \
		if (!s)                                                  \
			return errno ? -errno : -ENOMEM;                 \
		s->rodata->targ_tgid = tgid;                             \
		s->rodata->targ_rearm = rearm;                           \
		s->rodata->targ_cgroup = rearm && p->by_cgroup;          \
		p->skel = s;                                             \
		p->obj = s->obj;                                         \
		return 0;                                                \
	}                                                                \
	static int x##_load(struct bpf_priv *p)                          \
	{                                                                \
		struct x##_bpf *s = p->skel;                             \
		int r = x##_bpf__load(s);                                \
                                                                         \
		/* .bss is mmapped from the loaded map from here on */   \
		p->live = r || !s->bss ? NULL : &s->bss->targ_live;      \
		p->live_cgid = p->live ? &s->bss->targ_live_cgid : NULL; \
		return r;                                                \
	}                                                                \
	static void x##_destroy(void *s)                                 \
	{                                                                \
		x##_bpf__destroy(s);                                     \
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
	json_object_set_new(extra, "output", json_string(tb_bpftr_outputs[cfg->output]));
	if (cfg->output == OUTPUT_PERFBUF)
		json_object_set_new(extra, "perfbuf_watermark",
				    json_integer((json_int_t)cfg->perf_watermark));
	else
		json_object_set_new(extra, "ringbuf_wakeup",
				    json_string(tb_bpftr_wakeups[cfg->wakeup]));
	json_object_set_new(
		extra, "payload",
		json_integer(cfg->payload ? cfg->payload : (json_int_t)sizeof(struct rb_event)));
	tb_bpftr_sink_figures(p, cfg, st, extra);
	/* What the reader got, not what was asked: the comparison states the sizes it saw. */
	json_object_set_new(extra, "record_bytes",
			    p->consumed ? json_real((double)p->consumed_bytes / p->consumed)
					: json_null());
	return 0;
}

static int probe_collect(struct bpf_priv *p, const struct bpf_cfg *cfg, struct tb_tracer_stats *st,
			 json_t *extra)
{
	int64_t sum = 0, n = 0;
	__u32 key, next, *prev = NULL;
	struct probe_count v;
	int fd;

	json_object_set_new(extra, "attach", json_string(tb_bpftr_attach_types[p->attach]));
	json_object_set_new(extra, "body", json_string(tb_bpftr_bodies[cfg->body]));
	json_object_set_new(extra, "target", json_string(p->target));
	if (p->binary[0])
		json_object_set_new(extra, "binary", json_string(p->binary));
	if (cfg->body == BODY_EMPTY || cfg->body == BODY_SPIN) {
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

/* ---- setup and the window ------------------------------------------------------------------ */

/* Maps that hold no count: globals, the buffers records go through, ringbuf-events' per-CPU
 * scratch record (deleting a perf buffer's entries would cut its reader off). */
static bool not_a_figure(struct bpf_map *m)
{
	enum bpf_map_type type = bpf_map__type(m);

	return bpf_map__is_internal(m) || type == BPF_MAP_TYPE_RINGBUF ||
	       type == BPF_MAP_TYPE_PERF_EVENT_ARRAY || !strcmp(bpf_map__name(m), "scratch");
}

/* Zero every map of a bundled program (but the ring buffer) so a window starts from nothing. */
int tb_bpftr_bundled_clear(struct bpf_priv *p)
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

		if (not_a_figure(m))
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
			if (!strncmp(sec, "tp_btf/", 7) && !tb_bpftr_tp_btf_usable(sec + 7)) {
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

/* One of the bundled programs: open its skeleton, choose attach types, size its ring buffers. */
int tb_bpftr_bundled_open(struct tb_tracer *t, struct bpf_priv *p, const struct bpf_cfg *cfg,
			  __u32 tgid)
{
	struct bpf_map *m;
	int r;

	p->b = &bundled[cfg->program];
	r = p->b->open(p, tgid, cfg->pid_filter == PIDF_WORKLOAD);
	if (r) {
		tb_err("%s: opening program %s: %s", t->name, tb_bpftr_programs[cfg->program],
		       strerror(-r));
		return r;
	}
	if (cfg->program == PROG_PROBE)
		return tb_bpftr_probe_prepare(t, p, cfg);
	choose_attach(t, p, cfg);
	if (cfg->program == PROG_SYSCALL_COUNT)
		((struct syscall_count_bpf *)p->skel)->rodata->targ_id = (__s32)cfg->syscall_nr;
	if (cfg->program == PROG_RINGBUF_EVENTS) {
		struct ringbuf_events_bpf *rs = p->skel;

		rs->rodata->submit_flags = cfg->wakeup == WAKEUP_NONE	? BPF_RB_NO_WAKEUP
					   : cfg->wakeup == WAKEUP_EACH ? BPF_RB_FORCE_WAKEUP
									: 0;
		rs->rodata->payload = (__u32)cfg->payload;
		/* the perf buffer has no reserve: it always copies, the default record's size */
		if (cfg->output == OUTPUT_PERFBUF) {
			rs->rodata->perfbuf = true;
			if (!cfg->payload)
				rs->rodata->payload = sizeof(struct rb_event);
		}
	}
	for (m = bpf_object__next_map(p->obj, NULL); m; m = bpf_object__next_map(p->obj, m))
		if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF)
			bpf_map__set_max_entries(m, (__u32)cfg->ringbuf_size);
	return 0;
}

/* The first nonzero byte's map, if any: a hash map with a key, an array with a nonzero value. */
static int map_is_clear(int fd, enum bpf_map_type type, __u32 ksz, size_t vsz, __u32 max)
{
	unsigned char *key = malloc(ksz ? ksz : 1), *val = calloc(1, vsz);
	int r = 0;
	__u32 i;
	size_t b;

	if (!key || !val) {
		r = -ENOMEM;
		goto out;
	}
	if (type != BPF_MAP_TYPE_ARRAY && type != BPF_MAP_TYPE_PERCPU_ARRAY) {
		r = bpf_map_get_next_key(fd, NULL, key) ? 0 : -ENOTEMPTY;
		goto out;
	}
	for (i = 0; !r && i < max; i++) {
		if (bpf_map_lookup_elem(fd, &i, val)) {
			r = -errno;
			break;
		}
		for (b = 0; b < vsz; b++)
			if (val[b])
				r = -ENOTEMPTY;
	}
out:
	free(key);
	free(val);
	return r;
}

int tb_bpftr_bundled_check_clear(struct tb_tracer *t, struct bpf_priv *p)
{
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map *m;
	int r = 0;

	for (m = bpf_object__next_map(p->obj, NULL); !r && m; m = bpf_object__next_map(p->obj, m)) {
		enum bpf_map_type type = bpf_map__type(m);
		size_t vsz = bpf_map__value_size(m);

		if (not_a_figure(m))
			continue;
		if (type == BPF_MAP_TYPE_PERCPU_ARRAY || type == BPF_MAP_TYPE_PERCPU_HASH)
			vsz = ((vsz + 7) / 8 * 8) * ncpu;
		r = map_is_clear(bpf_map__fd(m), type, bpf_map__key_size(m), vsz,
				 bpf_map__max_entries(m));
		if (r)
			tb_err("%s: rearm: map %s %s", t->name, bpf_map__name(m),
			       r == -ENOTEMPTY ? "is not empty: something ran while parked"
					       : strerror(-r));
	}
	return r;
}

int tb_bpftr_bundled_collect(struct bpf_priv *p, const struct bpf_cfg *cfg,
			     struct tb_tracer_stats *st, json_t *extra)
{
	json_object_set_new(extra, "attach", json_string(p->use_btf ? "tp_btf" : "raw_tp"));
	st->lost = percpu_sum(map_fd(p, "drops"));
	return p->b->collect(p, cfg, st, extra);
}

/* ---- configuration checks ---------------------------------------------------------------- */

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

int tb_bpftr_bundled_validate(const struct bpf_cfg *cfg, char *err, size_t len)
{
	if (cfg->program == PROG_READ_LATENCY && !syscall_tracepoints(cfg->syscall)) {
		snprintf(
			err, len,
			"syscall: no tracepoints syscalls:sys_enter_%s and sys_exit_%s on this kernel",
			cfg->syscall ? cfg->syscall : "", cfg->syscall ? cfg->syscall : "");
		return -EINVAL;
	}
	if (cfg->program != PROG_SYSCALL_COUNT && cfg->syscall_nr >= 0) {
		snprintf(err, len, "syscall-nr: only used with program = syscall-count");
		return -EINVAL;
	}
	if (cfg->program != PROG_READ_LATENCY && cfg->syscall && strcmp(cfg->syscall, "read")) {
		snprintf(err, len, "syscall: only used with program = read-latency");
		return -EINVAL;
	}
	return 0;
}

/* ---- hooks ------------------------------------------------------------------------------- */

/* syscall-count and ringbuf-events also report the workload's own share when they trace every
 * process (collect: workload_events). */
int tb_bpftr_bundled_hooks(const struct bpf_cfg *cfg, struct tb_hooks *h)
{
	int ret;

	switch (cfg->program) {
	case PROG_SYSCALL_COUNT:
	case PROG_RINGBUF_EVENTS:
		h->attributes = true;
		return tb_hooks_add(h, "raw_syscalls:sys_enter",
				    cfg->program == PROG_SYSCALL_COUNT ? (int)cfg->syscall_nr : -1,
				    true);
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
	}
	return -EINVAL;
}
