// SPDX-License-Identifier: GPL-2.0
/*
 * The explain profiler (profile.h): libperf cpu-clock events per (workload CPU, thread) with
 * inherit, a reader thread that drains the ring buffers on a timer (no poll, so the kernel has
 * no reader to wake on the workload's CPU), raw call chains counted in a hash table, and the
 * side-band records (FORK, COMM exec, MMAP2) that keep the process table's names and mappings
 * current for symbolising once the window is over.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "core/array.h"
#include "core/tb.h"
#include "explain/profile.h"
#include "host/perf.h"

#define DRAIN_NS      10000000ull /* the reader drains every 10 ms */
#define BUFFER_BYTES  (2u << 20)  /* ring buffer bytes per event when few events share them */
#define MAX_TREE_TIDS 4096	  /* threads of the process tree at open */
#define FRAME_MAX     512

/* One version of a process: a new one at each exec. */
struct proc {
	pid_t pid, ppid;
	char comm[17];
	bool own_maps; /* else its maps are its parent's (a fork shares them) */
	struct tb_maps maps;
};

/* A distinct (process version, call chain) and how many samples had it. */
struct chain {
	uint64_t hash;
	size_t off; /* into arena */
	uint32_t len;
	uint32_t proc;
	uint64_t count;
};

struct tb_profile {
	struct tb_profile_opts o;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads; /* the tree's threads at open (per-task events) */
	struct perf_evlist *evlist;
	struct perf_event_attr attr;
	bool enabled, user_only;
	bool per_task; /* CPU-wide events were refused: one per (thread, CPU), inherited */
	char user_only_why[200], per_task_why[200];
	uint64_t other_samples, idle_samples; /* CPU-wide: of tasks outside the tree, of idle */
	unsigned int max_stack;
	/* the reader */
	pthread_t thread;
	bool thread_running;
	atomic_bool stop;
	/* what the window saw (the reader's until it is joined) */
	struct tb_perf_rec_stats rs;
	uint64_t kernel_samples, truncated;
	struct proc *procs;
	size_t nprocs, procs_cap;
	size_t *pid_slots; /* pid -> latest version's index + 1 */
	size_t npid_slots;
	struct chain *chains;
	size_t nchains;
	size_t *chain_slots; /* hash -> index + 1 */
	size_t nchain_slots;
	uint64_t *arena;
	size_t arena_n, arena_cap;
	bool oom; /* a record could not be stored: said once at stop */
};

/* ---- the process table ------------------------------------------------------------------- */

static size_t *pid_slot(const struct tb_profile *p, pid_t pid)
{
	size_t i = ((size_t)pid * 2654435761u) & (p->npid_slots - 1);

	for (;; i = (i + 1) & (p->npid_slots - 1))
		if (!p->pid_slots[i] || p->procs[p->pid_slots[i] - 1].pid == pid)
			return &p->pid_slots[i];
}

static struct proc *proc_find(const struct tb_profile *p, pid_t pid)
{
	size_t *s = p->npid_slots ? pid_slot(p, pid) : NULL;

	return s && *s ? &p->procs[*s - 1] : NULL;
}

static int pid_reindex(struct tb_profile *p)
{
	size_t ns = p->npid_slots ? 2 * p->npid_slots : 256;
	size_t *nv = calloc(ns, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	free(p->pid_slots);
	p->pid_slots = nv;
	p->npid_slots = ns;
	for (size_t i = 0; i < p->nprocs; i++) /* later versions overwrite earlier ones */
		*pid_slot(p, p->procs[i].pid) = i + 1;
	return 0;
}

/* A new version of pid (the latest from now on). */
static struct proc *proc_new(struct tb_profile *p, pid_t pid, pid_t ppid, const char *comm)
{
	struct proc *np;

	if (tb_array_reserve((void **)&p->procs, &p->procs_cap, p->nprocs + 1, sizeof(*np), 64))
		return NULL;
	if ((p->nprocs + 1) * 2 > p->npid_slots && pid_reindex(p))
		return NULL;
	np = &p->procs[p->nprocs];
	memset(np, 0, sizeof(*np));
	np->pid = pid;
	np->ppid = ppid;
	snprintf(np->comm, sizeof(np->comm), "%s", comm);
	*pid_slot(p, pid) = ++p->nprocs;
	return np;
}

/* The mappings a process version sees: its own, or those of the parent it forked from. */
static const struct tb_maps *proc_maps(const struct tb_profile *p, size_t idx)
{
	const struct proc *pr = &p->procs[idx];

	for (int depth = 0; pr && depth < 64; depth++) {
		if (pr->own_maps)
			return &pr->maps;
		pr = pr->ppid != pr->pid ? proc_find(p, pr->ppid) : NULL;
	}
	return NULL;
}

/* /proc/<pid>/{comm,maps} of a process of the tree at open. */
static int proc_snapshot(struct tb_profile *p, pid_t pid, pid_t ppid)
{
	char path[64], comm[32] = "?", *text = NULL;
	struct proc *pr;
	size_t len = 0;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	tb_read_line(path, comm, sizeof(comm));
	pr = proc_new(p, pid, ppid, comm);
	if (!pr)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	ret = tb_read_file(path, &text, &len);
	if (!ret) {
		pr->own_maps = true;
		ret = tb_maps_parse(&pr->maps, text, len);
	}
	free(text);
	return ret == -ENOMEM ? ret : 0; /* a vanished process: frames stay hex */
}

/* ---- the process tree at open ------------------------------------------------------------ */

struct tree {
	pid_t tids[MAX_TREE_TIDS];
	int n;
};

/* pid's threads into t, then (its threads' children files) its child processes, recursively. */
static int walk_tree(struct tb_profile *p, struct tree *t, pid_t pid, pid_t ppid, int depth)
{
	char path[96];
	struct dirent *de;
	DIR *d;
	int ret;

	if (depth > 32)
		return 0;
	ret = proc_snapshot(p, pid, ppid);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return depth ? 0 : -ESRCH;
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);
		char *kids = NULL, *s, *save = NULL;
		size_t len = 0;

		if (tid <= 0 || t->n >= MAX_TREE_TIDS)
			continue;
		t->tids[t->n++] = tid;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tid);
		if (tb_read_file(path, &kids, &len))
			continue;
		for (s = strtok_r(kids, " \n", &save); s && !ret; s = strtok_r(NULL, " \n", &save))
			ret = walk_tree(p, t, (pid_t)atoi(s), pid, depth + 1);
		free(kids);
	}
	closedir(d);
	return ret;
}

/* ---- recording --------------------------------------------------------------------------- */

static uint64_t chain_hash(uint32_t proc, const uint64_t *ips, uint64_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ proc;

	for (uint64_t i = 0; i < n; i++)
		h = (h ^ ips[i]) * 0x100000001b3ull;
	return h;
}

static size_t *chain_slot(const struct tb_profile *p, uint64_t h, uint32_t proc,
			  const uint64_t *ips, uint64_t n)
{
	size_t i = (size_t)h & (p->nchain_slots - 1);

	for (;; i = (i + 1) & (p->nchain_slots - 1)) {
		const struct chain *c;

		if (!p->chain_slots[i])
			return &p->chain_slots[i];
		c = &p->chains[p->chain_slots[i] - 1];
		if (c->hash == h && c->proc == proc && c->len == n &&
		    !memcmp(p->arena + c->off, ips, n * sizeof(*ips)))
			return &p->chain_slots[i];
	}
}

static int chains_grow(struct tb_profile *p, uint64_t n)
{
	if ((p->nchains + 1) * 2 > p->nchain_slots) {
		size_t ns = p->nchain_slots ? 2 * p->nchain_slots : 1024;
		size_t *sl = calloc(ns, sizeof(*sl));
		struct chain *nc = realloc(p->chains, ns / 2 * sizeof(*nc));

		if (!sl || !nc) {
			free(sl);
			if (nc)
				p->chains = nc;
			return -ENOMEM;
		}
		free(p->chain_slots);
		p->chain_slots = sl;
		p->nchain_slots = ns;
		p->chains = nc;
		for (size_t i = 0; i < p->nchains; i++) {
			struct chain *c = &p->chains[i];

			*chain_slot(p, c->hash, c->proc, p->arena + c->off, c->len) = i + 1;
		}
	}
	return tb_array_reserve((void **)&p->arena, &p->arena_cap, p->arena_n + n,
				sizeof(*p->arena), 65536);
}

/* Entries of a chain that are addresses, not context markers. */
static uint64_t chain_frames(const uint64_t *ips, uint64_t n)
{
	uint64_t k = 0;

	for (uint64_t i = 0; i < n; i++)
		k += ips[i] < PERF_CONTEXT_MAX;
	return k;
}

/* PERF_RECORD_SAMPLE of sample_type IP | TID | CALLCHAIN. */
static void on_sample(struct tb_profile *p, const union perf_event *ev)
{
	const uint64_t *u = (const uint64_t *)(&ev->header + 1);
	size_t words = (ev->header.size - sizeof(ev->header)) / sizeof(uint64_t);
	uint32_t pid, proc;
	uint64_t n, h;
	struct proc *pr;
	size_t *sl;

	if (words < 3)
		return;
	pid = (uint32_t)u[1];
	n = u[2];
	if (n > words - 3)
		return;
	pr = proc_find(p, (pid_t)pid);
	if (!pr && !p->per_task) { /* CPU-wide: another task on the workload's CPU */
		if (pid)
			p->other_samples++;
		else
			p->idle_samples++;
		return;
	}
	p->rs.samples++;
	if ((ev->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		p->kernel_samples++;
	if (chain_frames(u + 3, n) >= p->max_stack)
		p->truncated++;
	if (!pr)
		pr = proc_new(p, (pid_t)pid, p->o.pid, "?");
	if (!pr || chains_grow(p, n)) {
		p->oom = true;
		return;
	}
	proc = (uint32_t)(pr - p->procs);
	h = chain_hash(proc, u + 3, n);
	sl = chain_slot(p, h, proc, u + 3, n);
	if (!*sl) {
		memcpy(p->arena + p->arena_n, u + 3, n * sizeof(*u));
		p->chains[p->nchains] = (struct chain){h, p->arena_n, (uint32_t)n, proc, 0};
		p->arena_n += n;
		*sl = ++p->nchains;
	}
	p->chains[*sl - 1].count++;
}

static void on_fork(struct tb_profile *p, const struct perf_record_fork *f)
{
	const struct proc *parent;
	char comm[sizeof(parent->comm)];

	if (f->pid == f->ppid || proc_find(p, (pid_t)f->pid))
		return; /* a new thread, or known already */
	parent = proc_find(p, (pid_t)f->ppid);
	if (!parent && !p->per_task)
		return; /* CPU-wide: a process outside the tree */
	/* A copy: proc_new may move the array parent points into. */
	snprintf(comm, sizeof(comm), "%s", parent ? parent->comm : "?");
	if (!proc_new(p, (pid_t)f->pid, (pid_t)f->ppid, comm))
		p->oom = true;
}

static void on_comm(struct tb_profile *p, const union perf_event *ev)
{
	const struct perf_record_comm *c = &ev->comm;
	struct proc *pr = proc_find(p, (pid_t)c->pid);
	char comm[17];

	snprintf(comm, sizeof(comm), "%.16s", c->comm);
	if (!pr && !p->per_task)
		return; /* CPU-wide: a process outside the tree */
	if (!(ev->header.misc & PERF_RECORD_MISC_COMM_EXEC) && pr) {
		snprintf(pr->comm, sizeof(pr->comm), "%s", comm);
		return;
	}
	/* exec: a new image, with only what MMAP2 records will bring */
	pr = proc_new(p, (pid_t)c->pid, pr ? pr->ppid : p->o.pid, comm);
	if (pr)
		pr->own_maps = true;
	else
		p->oom = true;
}

static void on_mmap2(struct tb_profile *p, const struct perf_record_mmap2 *m)
{
	struct proc *pr = proc_find(p, (pid_t)m->pid);
	size_t max = m->header.size - offsetof(struct perf_record_mmap2, filename);
	char path[4096];

	if (!pr || !(m->prot & PROT_EXEC) || m->header.size <= sizeof(*m) - sizeof(m->filename))
		return;
	if (!pr->own_maps) { /* its first own mapping: start from what it shares */
		const struct tb_maps *shared = proc_maps(p, (size_t)(pr - p->procs));

		if (shared && tb_maps_copy(&pr->maps, shared))
			p->oom = true;
		pr->own_maps = true;
	}
	snprintf(path, sizeof(path), "%.*s", (int)(max < sizeof(path) ? max : sizeof(path) - 1),
		 m->filename);
	if (path[0] && tb_maps_add(&pr->maps, m->start, m->len, m->pgoff, path) == -ENOMEM)
		p->oom = true;
}

static void on_record(struct tb_profile *p, const union perf_event *ev)
{
	size_t size = ev->header.size;

	switch (ev->header.type) {
	case PERF_RECORD_SAMPLE:
		on_sample(p, ev);
		return;
	case PERF_RECORD_FORK:
		if (size >= sizeof(ev->fork))
			on_fork(p, &ev->fork);
		return;
	case PERF_RECORD_COMM:
		if (size >= offsetof(struct perf_record_comm, comm) + 8)
			on_comm(p, ev);
		return;
	case PERF_RECORD_MMAP2:
		on_mmap2(p, &ev->mmap2);
		return;
	default:
		tb_perf_rec_account(&p->rs, ev);
	}
}

static void on_record_cb(void *ctx, const void *rec)
{
	on_record(ctx, rec);
}

static void drain(struct tb_profile *p)
{
	tb_perf_evlist_drain(p->evlist, on_record_cb, p);
}

static void *reader(void *arg)
{
	struct tb_profile *p = arg;

	while (!atomic_load(&p->stop)) {
		tb_sleep_ns(DRAIN_NS);
		drain(p);
	}
	return NULL;
}

/* ---- opening ----------------------------------------------------------------------------- */

static void fill_attr(struct tb_profile *p, bool user_only)
{
	struct perf_event_attr *a = &p->attr;
	size_t nbuf = (size_t)perf_cpu_map__nr(p->cpus) *
		      (p->per_task ? (size_t)perf_thread_map__nr(p->threads) : 1);
	size_t pages = BUFFER_BYTES / (size_t)sysconf(_SC_PAGESIZE) / (nbuf > 8 ? nbuf / 8 : 1);

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	a->sample_period = p->o.period_ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
	a->inherit = p->per_task; /* CPU-wide events see every task there already */
	a->exclude_hv = 1;
	a->exclude_kernel = user_only;
	a->exclude_callchain_kernel = user_only;
	a->mmap = a->mmap2 = a->comm = a->comm_exec = a->task = 1;
	/* Wake nobody: the reader drains on a timer (a wakeup would run on the workload's CPU). */
	a->watermark = 1;
	for (a->wakeup_watermark = 1; pages > 1; pages /= 2)
		a->wakeup_watermark *= 2; /* the buffer's size, as a power of two of pages */
	a->wakeup_watermark *= (uint32_t)sysconf(_SC_PAGESIZE);
}

/* Data pages per ring buffer: a power of two, about BUFFER_BYTES over the first 8 buffers. */
static int buffer_pages(const struct tb_profile *p)
{
	return (int)(p->attr.wakeup_watermark / (uint32_t)sysconf(_SC_PAGESIZE));
}

static int open_events(struct tb_profile *p, bool per_task, bool user_only)
{
	/* set_maps takes its own references (as perf-sample relies on): p's stay p's */
	struct perf_thread_map *threads =
		per_task ? perf_thread_map__get(p->threads) : perf_thread_map__new_dummy();
	struct perf_evsel *evsel;
	int ret;

	p->per_task = per_task;
	fill_attr(p, user_only);
	tb_perf_evlist_delete(p->evlist);
	p->evlist = perf_evlist__new();
	evsel = perf_evsel__new(&p->attr);
	if (!p->evlist || !evsel || !threads) {
		perf_evsel__delete(evsel);
		perf_thread_map__put(threads);
		return -ENOMEM;
	}
	perf_evlist__add(p->evlist, evsel);
	perf_evlist__set_maps(p->evlist, p->cpus, threads);
	perf_thread_map__put(threads);
	ret = perf_evlist__open(p->evlist);
	if (ret < 0)
		return ret;
	tb_perf_cloexec_all();
	return 0;
}

static bool refused(int ret)
{
	return ret == -EACCES || ret == -EPERM;
}

/*
 * CPU-wide events on the workload's CPUs, kernel and user; when the kernel refuses CPU-wide
 * events (perf_event_paranoid > 0 without CAP_PERFMON), per-task events; when it refuses
 * kernel samples too (> 1), user space only. Each step down is said.
 */
static int open_with_fallback(struct tb_profile *p, char *why, size_t len)
{
	long long paranoid = (long long)tb_perf_paranoid();
	int ret = open_events(p, false, p->o.user_only);

	if (refused(ret)) {
		snprintf(
			p->per_task_why, sizeof(p->per_task_why),
			"CPU-wide sampling refused (%s; kernel.perf_event_paranoid = %lld): per-task "
			"events instead, whose timer restarts at every context switch of the workload",
			strerror(-ret), paranoid);
		ret = open_events(p, true, p->o.user_only);
	}
	if (refused(ret) && !p->o.user_only) {
		snprintf(
			p->user_only_why, sizeof(p->user_only_why),
			"the kernel refused kernel samples (%s): kernel.perf_event_paranoid = %lld and "
			"this process has no CAP_PERFMON (kernel profiling needs <= 1, or root)",
			strerror(-ret), paranoid);
		ret = open_events(p, true, true);
	}
	p->user_only = p->o.user_only || p->user_only_why[0];
	if (refused(ret))
		snprintf(why, len,
			 "perf_event_open refused (%s) with kernel.perf_event_paranoid = %lld",
			 strerror(-ret), paranoid);
	else if (ret)
		snprintf(why, len, "cpu-clock sampling on %d CPUs: %s", perf_cpu_map__nr(p->cpus),
			 strerror(-ret));
	return ret;
}

static struct perf_cpu_map *cpu_map(const struct tb_profile_opts *o)
{
	size_t cap = o->ncpus * 12 + 1, off = 0;
	char *list = o->ncpus ? malloc(cap) : NULL;
	struct perf_cpu_map *m;

	if (!o->ncpus)
		return perf_cpu_map__new(NULL);
	if (!list)
		return NULL;
	list[0] = '\0';
	for (size_t i = 0; i < o->ncpus; i++)
		off += (size_t)snprintf(list + off, cap - off, "%s%d", i ? "," : "", o->cpus[i]);
	m = perf_cpu_map__new(list);
	free(list);
	return m;
}

int tb_profile_open(const struct tb_profile_opts *opts, struct tb_profile **out, char *why,
		    size_t len)
{
	struct tb_profile *p = calloc(1, sizeof(*p));
	struct tree *t = calloc(1, sizeof(*t));
	int64_t stack = tb_perf_max_stack();
	int ret;

	*out = NULL;
	tb_perf_init();
	if (!p || !t) {
		ret = -ENOMEM;
		goto fail;
	}
	p->o = *opts;
	p->max_stack = stack > 0 ? (unsigned int)stack : 127;
	ret = walk_tree(p, t, opts->pid, opts->pid, 0);
	if (ret) {
		snprintf(why, len, "process %d: %s", (int)opts->pid,
			 ret == -ESRCH ? "no such process" : strerror(-ret));
		goto fail;
	}
	p->cpus = cpu_map(opts);
	p->threads = perf_thread_map__new_array(t->n, t->tids);
	if (!p->cpus || !p->threads) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = open_with_fallback(p, why, len);
	if (ret)
		goto fail;
	errno = 0;
	if (perf_evlist__mmap(p->evlist, buffer_pages(p)) < 0) {
		ret = errno ? -errno : -ENOMEM;
		snprintf(why, len, "mapping %d pages per ring buffer: %s", buffer_pages(p),
			 strerror(-ret));
		goto fail;
	}
	free(t);
	*out = p;
	return 0;
fail:
	if (ret == -ENOMEM && why[0] == '\0')
		snprintf(why, len, "out of memory");
	free(t);
	tb_profile_close(p);
	return ret;
}

int tb_profile_start(struct tb_profile *p)
{
	pthread_attr_t pa;
	cpu_set_t set;
	int ret;

	if (p->enabled)
		return -EBUSY;
	atomic_store(&p->stop, false);
	ret = pthread_attr_init(&pa);
	if (ret)
		return -ret;
	if (p->o.reader_cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(p->o.reader_cpu, &set);
		pthread_attr_setaffinity_np(&pa, sizeof(set), &set);
	}
	ret = pthread_create(&p->thread, &pa, reader, p);
	pthread_attr_destroy(&pa);
	if (ret) {
		tb_err("explain profiler: cannot start its reader thread: %s", strerror(ret));
		return -ret;
	}
	p->thread_running = true;
	perf_evlist__enable(p->evlist);
	p->enabled = true;
	return 0;
}

int tb_profile_stop(struct tb_profile *p)
{
	if (!p || !p->enabled)
		return 0;
	perf_evlist__disable(p->evlist);
	p->enabled = false;
	if (p->thread_running) {
		atomic_store(&p->stop, true);
		pthread_join(p->thread, NULL);
		p->thread_running = false;
	}
	drain(p);
	if (p->oom)
		tb_warn("explain profiler: out of memory: some samples were not kept");
	return 0;
}

void tb_profile_close(struct tb_profile *p)
{
	if (!p)
		return;
	tb_profile_stop(p);
	tb_perf_evlist_delete(p->evlist);
	perf_cpu_map__put(p->cpus);
	perf_thread_map__put(p->threads);
	for (size_t i = 0; i < p->nprocs; i++)
		tb_maps_free(&p->procs[i].maps);
	free(p->procs);
	free(p->pid_slots);
	free(p->chains);
	free(p->chain_slots);
	free(p->arena);
	free(p);
}

/* ---- folding ----------------------------------------------------------------------------- */

/* Append frame to the stack being built at *pos (';' first unless it is the first). */
static void put_frame(char *buf, size_t cap, size_t *pos, const char *frame)
{
	int n = snprintf(buf + *pos, cap - *pos, "%s%s", *pos ? ";" : "", frame);

	if (n > 0 && (size_t)n < cap - *pos)
		*pos += (size_t)n;
}

/*
 * One chain as folded text into buf: comm; user frames outermost first; kernel frames. A
 * chain lists the leaf first, each context (kernel, user) after its marker; within a context
 * every entry but the first is a return address, looked up one byte back (inside the call).
 * scratch holds 2 x c->len addresses.
 */
static void fold_chain(const struct tb_profile *p, const struct chain *c, const struct tb_ksyms *k,
		       struct tb_usyms *u, uint64_t *scratch, char *buf, size_t cap)
{
	const uint64_t *ips = p->arena + c->off;
	uint64_t *kaddr = scratch, *uaddr = scratch + c->len;
	size_t pos = 0, nk = 0, nu = 0;
	char frame[FRAME_MAX], comm[32];
	bool first = true;
	int ctx = 0;

	for (size_t i = 0; i < c->len; i++) {
		if (ips[i] >= PERF_CONTEXT_MAX) {
			ctx = ips[i] == PERF_CONTEXT_KERNEL ? 1
			      : ips[i] == PERF_CONTEXT_USER ? 2
							    : 0;
			first = true;
			continue;
		}
		if (ctx == 1)
			kaddr[nk++] = ips[i] - !first;
		else if (ctx == 2)
			uaddr[nu++] = ips[i] - !first;
		first = false;
	}
	snprintf(comm, sizeof(comm), "%s", p->procs[c->proc].comm);
	tb_fold_frame_clean(comm);
	put_frame(buf, cap, &pos, comm[0] ? comm : "?");
	if (chain_frames(ips, c->len) >= p->max_stack)
		put_frame(buf, cap, &pos, TB_FOLD_TRUNCATED);
	while (nu--) {
		tb_usyms_frame(u, proc_maps(p, c->proc), uaddr[nu], frame, sizeof(frame));
		put_frame(buf, cap, &pos, frame);
	}
	while (nk--) {
		tb_ksyms_frame(k, kaddr[nk], frame, sizeof(frame));
		put_frame(buf, cap, &pos, frame);
	}
	buf[pos] = '\0';
}

int tb_profile_fold(struct tb_profile *p, const struct tb_ksyms *k, struct tb_usyms *u,
		    struct tb_fold *f, struct tb_profile_stats *st)
{
	char *buf = malloc(TB_FOLD_MAX_LINE);
	uint64_t *scratch = NULL;
	size_t longest = 1;
	int ret = 0;

	for (size_t i = 0; i < p->nchains; i++)
		if (p->chains[i].len > longest)
			longest = p->chains[i].len;
	scratch = malloc(2 * longest * sizeof(*scratch));
	for (size_t i = 0; buf && scratch && !ret && i < p->nchains; i++) {
		fold_chain(p, &p->chains[i], k, u, scratch, buf, TB_FOLD_MAX_LINE);
		ret = tb_fold_add(f, buf, strlen(buf), (double)p->chains[i].count);
	}
	if (!buf || !scratch)
		ret = -ENOMEM;
	free(buf);
	free(scratch);
	if (ret)
		return ret;
	st->samples += p->rs.samples;
	st->kernel_samples += p->kernel_samples;
	st->lost += p->rs.lost + p->rs.lost_samples;
	st->throttled += p->rs.throttle;
	st->truncated += p->truncated;
	st->max_stack = p->max_stack;
	st->other_samples += p->other_samples;
	st->idle_samples += p->idle_samples;
	if (p->per_task && !st->per_task) {
		st->per_task = true;
		snprintf(st->per_task_why, sizeof(st->per_task_why), "%s", p->per_task_why);
	}
	if (p->user_only && !st->user_only) {
		st->user_only = true;
		snprintf(st->user_only_why, sizeof(st->user_only_why), "%s",
			 p->user_only_why[0] ? p->user_only_why : "user space only was asked for");
	}
	return 0;
}

int tb_profile_probe(char *why, size_t len)
{
	struct tb_profile_opts o = {.pid = getpid(), .period_ns = 1000000, .reader_cpu = -1};
	struct tb_profile *p;
	int ret;

	why[0] = '\0';
	ret = tb_profile_open(&o, &p, why, len);
	if (ret)
		return ret;
	if (p->user_only) {
		snprintf(why, len, "%s", p->user_only_why);
		ret = -EACCES;
	}
	tb_profile_close(p);
	return ret;
}
