// SPDX-License-Identifier: GPL-2.0
/*
 * One timed workload sample: instances on pinned threads, a batch timed with two
 * CLOCK_MONOTONIC reads, getrusage and libperf software counts around it. Between samples the
 * threads park in a futex; from the moment a tracer may be live (tb_measure_go_gated) until it
 * is stopped they only spin on memory, so that no syscall of the harness's lands in its trace.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/proc.h"
#include "core/io.h"
#include "runner/measure.h"
#include "workloads/workload.h"

#define MIN_CALIB_NS 2000000ull /* a calibration batch lasts at least 2 ms */
#define CLOCK_PAIRS  20000	/* clock read pairs measured for clock_cost_ns */

enum { PC_TASK_CLOCK, PC_CTXSW, PC_FAULTS, PC_N };

/*
 * A barrier whose party count can shrink (when a thread cannot be created) without
 * deadlocking the threads already waiting on it, unlike pthread_barrier_t. Only for setup:
 * it sleeps in futexes.
 */
struct barrier {
	pthread_mutex_t m;
	pthread_cond_t c;
	unsigned int n, arrived, gen;
};

static void bar_init(struct barrier *b, unsigned int n)
{
	pthread_mutex_init(&b->m, NULL);
	pthread_cond_init(&b->c, NULL);
	b->n = n;
	b->arrived = b->gen = 0;
}

static void bar_release_locked(struct barrier *b)
{
	b->arrived = 0;
	b->gen++;
	pthread_cond_broadcast(&b->c);
}

static void bar_wait(struct barrier *b)
{
	unsigned int gen;

	pthread_mutex_lock(&b->m);
	gen = b->gen;
	if (++b->arrived >= b->n)
		bar_release_locked(b);
	else
		while (gen == b->gen)
			pthread_cond_wait(&b->c, &b->m);
	pthread_mutex_unlock(&b->m);
}

static void bar_set_n(struct barrier *b, unsigned int n)
{
	pthread_mutex_lock(&b->m);
	b->n = n;
	if (b->arrived && b->arrived >= n)
		bar_release_locked(b);
	pthread_mutex_unlock(&b->m);
}

static void bar_destroy(struct barrier *b)
{
	pthread_mutex_destroy(&b->m);
	pthread_cond_destroy(&b->c);
}

/* ---- waiting without syscalls ------------------------------------------------------------ */

static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/*
 * Wait while *w == val: spinning (no syscall: inside a traced window), or, when the threads
 * share a CPU and a spinner would steal it from one still working, in a futex.
 */
static void wait_while(_Atomic uint32_t *w, uint32_t val, bool block)
{
	while (atomic_load_explicit(w, memory_order_acquire) == val) {
		if (block)
			futex_wait(w, val);
		else
			cpu_relax();
	}
}

struct worker {
	struct tb_measure_run *run;
	unsigned int idx;
	pthread_t thread;
	bool started;
	pid_t tid;
	struct tb_workload wl;
	bool setup_done;
	int setup_ret;
	int ret;	 /* of the last batch */
	uint64_t end_ns; /* when this instance finished the last batch */
	struct tb_hist hist;
};

/*
 * The threads of a run: instance 0 is the caller's. Workers park in a futex on arm until a go
 * needs them, then spin until go moves, run their batch, count themselves in done and wait for
 * release (the tracer stopped) spinning, or in a futex when they share a CPU (share).
 */
struct tb_measure_run {
	struct tb_measure_req req;
	unsigned int nthreads;
	struct worker *w;
	struct barrier ready;
	_Atomic uint32_t arm, arrived, spinning, go, done, release;
	bool share;
	unsigned int nstarted; /* instances whose thread runs (0 included) */
	bool barriers;
	uint64_t round_ops; /* ops per thread of the current go */
	_Atomic bool quit;
	double clock_cost_ns;
	uint64_t clock_cost; /* rounded, subtracted from each timed op */
	bool restore_affinity, locked;
	cpu_set_t affinity;
	struct perf_thread_map *pthreads;
	struct perf_evsel *pc[PC_N];
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double tb_measure_clock_cost(void)
{
	struct tb_hist *h = malloc(sizeof(*h));
	uint64_t t0, t1;
	double med;
	int i;

	if (!h)
		return 0;
	tb_hist_init(h);
	for (i = 0; i < CLOCK_PAIRS; i++) {
		t0 = now_ns();
		t1 = now_ns();
		tb_hist_add(h, t1 - t0);
	}
	med = tb_hist_quantile(h, 0.5);
	free(h);
	return med;
}

static int pin(const struct tb_measure_req *req, struct worker *wk)
{
	cpu_set_t set;
	int cpu;

	wk->wl.cpu = -1;
	if (!req->ncpus)
		return 0;
	cpu = req->cpus[wk->idx % req->ncpus];
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		int ret = -errno;

		tb_err("%s: cannot pin thread %u to CPU %d: %s", req->name, wk->idx, cpu,
		       strerror(errno));
		return ret;
	}
	wk->wl.cpu = cpu;
	return 0;
}

static int setup_instance(struct tb_measure_run *run, struct worker *wk)
{
	const struct tb_measure_req *req = &run->req;
	int ret;

	wk->tid = (pid_t)syscall(SYS_gettid);
	ret = pin(req, wk);
	if (ret)
		return ret;
	if (req->wl->setup) {
		ret = req->wl->setup(&wk->wl);
		wk->setup_done = true; /* teardown copes with a partial setup */
		if (ret) {
			tb_err("%s: setup of %s (thread %u) failed: %s", req->name, req->wl->name,
			       wk->idx, strerror(-ret));
			return ret;
		}
	}
	wk->setup_done = true;
	return 0;
}

/*
 * The batch of one instance: ops untimed, or in latency mode groups of k ops whose first op is
 * timed individually (so any batch has at least one timed op) and the k - 1 others run as one
 * batch.
 */
static int run_ops(struct tb_measure_run *run, struct worker *wk, uint64_t ops)
{
	int (*batch)(struct tb_workload *, uint64_t) = run->req.wl->run_batch;
	uint64_t k = run->req.latency_every > 1 ? run->req.latency_every : 1;
	uint64_t left = ops, chunk, t0, t1, d;
	int ret;

	if (!run->req.latency)
		return batch(&wk->wl, ops);
	while (left) {
		t0 = now_ns();
		ret = batch(&wk->wl, 1);
		t1 = now_ns();
		if (ret)
			return ret;
		d = t1 - t0;
		tb_hist_add(&wk->hist, d > run->clock_cost ? d - run->clock_cost : 0);
		left--;
		chunk = left < k - 1 ? left : k - 1;
		if (chunk) {
			ret = batch(&wk->wl, chunk);
			if (ret)
				return ret;
			left -= chunk;
		}
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct tb_measure_run *run = wk->run;
	uint32_t arm = 0, go, rel;

	wk->setup_ret = setup_instance(run, wk);
	bar_wait(&run->ready);
	for (;;) {
		wait_while(&run->arm, arm, true); /* parked: no tracer is live yet */
		arm = atomic_load(&run->arm);
		if (atomic_load(&run->quit))
			break;
		go = atomic_load(&run->go);
		rel = atomic_load(&run->release);
		/* The last to arrive wakes thread 0 before it counts itself as spinning, so that
		 * its futex call is over before any tracer starts. */
		if (atomic_fetch_add(&run->arrived, 1) + 1 == run->nthreads - 1)
			futex_wake(&run->arrived);
		atomic_fetch_add(&run->spinning, 1);
		wait_while(&run->go, go, false);
		wk->ret = run_ops(run, wk, run->round_ops);
		wk->end_ns = now_ns();
		if (atomic_fetch_add(&run->done, 1) + 1 == run->nthreads - 1 && run->share)
			futex_wake(&run->done);
		wait_while(&run->release, rel, run->share);
	}
	/* Teardown in the thread that did the setup: per-thread state (timer slack, the
	 * PR_SET_PDEATHSIG of children it forked) belongs to it. */
	if (wk->setup_done && run->req.wl->teardown)
		run->req.wl->teardown(&wk->wl);
	wk->setup_done = false;
	return NULL;
}

static void perf_close(struct tb_measure_run *run)
{
	int i;

	for (i = 0; i < PC_N; i++) {
		if (run->pc[i]) {
			perf_evsel__close(run->pc[i]);
			perf_evsel__delete(run->pc[i]);
			run->pc[i] = NULL;
		}
	}
	if (run->pthreads)
		perf_thread_map__put(run->pthreads);
	run->pthreads = NULL;
}

/* Open each software counter alone and keep the ones that open (libperf opens an evlist all or nothing: doc/architecture.md). */
static void perf_open(struct tb_measure_run *run)
{
	static const uint64_t cfg[PC_N] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
					   PERF_COUNT_SW_PAGE_FAULTS};
	pid_t self = 0;
	int i, ret;

	run->pthreads = perf_thread_map__new_array(1, &self);
	if (!run->pthreads)
		return;
	for (i = 0; i < PC_N; i++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = cfg[i],
			.inherit = 1,
		};

		run->pc[i] = perf_evsel__new(&attr);
		if (!run->pc[i])
			continue;
		ret = perf_evsel__open(run->pc[i], NULL, run->pthreads);
		if (ret) {
			tb_debug("%s: perf software counter %d does not open: %s", run->req.name, i,
				 strerror(-ret));
			perf_evsel__delete(run->pc[i]);
			run->pc[i] = NULL;
		}
	}
}

static void perf_read(struct tb_measure_run *run, int64_t v[PC_N])
{
	struct perf_counts_values c;
	int i;

	for (i = 0; i < PC_N; i++) {
		memset(&c, 0, sizeof(c));
		v[i] = run->pc[i] && !perf_evsel__read(run->pc[i], 0, 0, &c) ? (int64_t)c.val : -1;
	}
}

static int check_req(const struct tb_measure_req *req)
{
	const char *name = req->name ? req->name : "workload";
	size_t i;

	if (!req->wl || !req->wl->run_batch) {
		tb_err("%s: no workload to run", name);
		return -EINVAL;
	}
	if (req->wl->cfg_size && !req->cfg) {
		tb_err("%s: workload %s has no config", name, req->wl->name);
		return -EINVAL;
	}
	if (!req->tmpdir) {
		tb_err("%s: no scratch directory", name);
		return -EINVAL;
	}
	if (req->latency && (req->wl->flags & TB_WL_NOLATENCY)) {
		tb_err("%s: workload %s cannot run in latency mode", name, req->wl->name);
		return -EINVAL;
	}
	if (req->threads > TB_SAMPLE_MAX_THREADS) {
		tb_err("%s: %u threads, at most %u", name, req->threads, TB_SAMPLE_MAX_THREADS);
		return -EINVAL;
	}
	if (req->ncpus && !req->cpus) {
		tb_err("%s: ncpus without cpus", name);
		return -EINVAL;
	}
	for (i = 0; i < req->ncpus; i++) {
		if (req->cpus[i] < 0 || req->cpus[i] >= CPU_SETSIZE) {
			tb_err("%s: bad CPU number %d", name, req->cpus[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* A run of req with its workers described (nothing set up yet); NULL on ENOMEM. */
static struct tb_measure_run *run_new(const struct tb_measure_req *req)
{
	struct tb_measure_run *run = calloc(1, sizeof(*run));
	unsigned int i;

	if (!run)
		return NULL;
	run->req = *req;
	if (!run->req.name)
		run->req.name = req->wl->name;
	if (req->wl->flags & TB_WL_ONESHOT)
		run->req.ops = 1;
	run->nthreads = req->threads ? req->threads : 1;
	/* Threads on CPUs of their own may spin while they wait; sharing, a spinner would slow
	 * the thread it shares with. */
	run->share = run->nthreads > 1 && (!req->ncpus || run->nthreads > req->ncpus);
	run->w = calloc(run->nthreads, sizeof(*run->w));
	if (!run->w) {
		free(run);
		return NULL;
	}
	for (i = 0; i < run->nthreads; i++) {
		struct worker *wk = &run->w[i];

		wk->run = run;
		wk->idx = i;
		wk->wl.ops = req->wl;
		wk->wl.name = run->req.name;
		wk->wl.cfg = req->cfg;
		wk->wl.tmpdir = req->tmpdir;
		wk->wl.thread = i;
		wk->wl.cpu = -1;
		wk->wl.duration_ns = req->duration_ns;
		tb_hist_init(&wk->hist);
	}
	return run;
}

/* Instances 1..n-1 on pthreads that set up and park at the ready barrier. Returns 0/-errno. */
static int start_threads(struct tb_measure_run *run)
{
	unsigned int i;
	int ret;

	bar_init(&run->ready, run->nthreads);
	run->barriers = true;
	run->nstarted = 1;
	for (i = 1; i < run->nthreads; i++) {
		ret = -pthread_create(&run->w[i].thread, NULL, worker_main, &run->w[i]);
		if (ret) {
			tb_err("%s: cannot create thread %u: %s", run->req.name, i, strerror(-ret));
			/* the threads already waiting must still get through */
			bar_set_n(&run->ready, run->nstarted);
			bar_wait(&run->ready);
			return ret;
		}
		run->w[i].started = true;
		run->nstarted++;
	}
	bar_wait(&run->ready);
	for (i = 1; i < run->nthreads; i++)
		if (run->w[i].setup_ret)
			return run->w[i].setup_ret;
	return 0;
}

pid_t tb_measure_target(const struct tb_measure_run *run)
{
	return run->w[0].wl.target_pid;
}

int tb_measure_prepare(const struct tb_measure_req *req, struct tb_measure_run **out)
{
	struct tb_measure_run *run = NULL;
	int ret;

	*out = NULL;
	ret = check_req(req);
	if (ret)
		return ret;
	run = run_new(req);
	if (!run)
		return -ENOMEM;
	if (req->ncpus) {
		if (sched_getaffinity(0, sizeof(run->affinity), &run->affinity) == 0)
			run->restore_affinity = true;
	}
	if (req->mlock) {
		if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
			ret = -errno;
			tb_err("%s: mlockall: %s", run->req.name, strerror(errno));
			goto err;
		}
		run->locked = true;
	}
	if (req->latency) {
		run->clock_cost_ns = tb_measure_clock_cost();
		run->clock_cost = (uint64_t)(run->clock_cost_ns + 0.5);
	}
	/* Before any thread exists, so that inherited counters cover every one of them. */
	if (req->perf_counts)
		perf_open(run);
	ret = setup_instance(run, &run->w[0]);
	if (!ret && run->nthreads > 1)
		ret = start_threads(run);
	if (ret)
		goto err;
	*out = run;
	return 0;
err:
	tb_measure_finish(run);
	return ret;
}

static void set_err(struct tb_measure_res *res, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(struct tb_measure_res *res, int err, const char *fmt, ...)
{
	va_list ap;

	if (res->error)
		return;
	res->error = err;
	va_start(ap, fmt);
	vsnprintf(res->errmsg, sizeof(res->errmsg), fmt, ap);
	va_end(ap);
}

static double tv_s(struct timeval a, struct timeval b)
{
	return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_usec - a.tv_usec) * 1e-6;
}

/* res zeroed and described for a go of ops per thread; the workers' figures reset. */
static void go_reset(struct tb_measure_run *run, uint64_t ops, struct tb_measure_res *res)
{
	unsigned int i;

	memset(res, 0, sizeof(*res));
	res->threads = run->nthreads;
	res->ops = ops;
	res->latency = run->req.latency;
	res->latency_every = run->req.latency_every > 1 ? run->req.latency_every : 1;
	res->clock_cost_ns = run->clock_cost_ns;
	tb_hist_init(&res->hist);
	for (i = 0; i < run->nthreads; i++) {
		tb_hist_init(&run->w[i].hist);
		run->w[i].wl.has_metric = false;
		run->w[i].wl.metric = 0;
		run->w[i].wl.exit_status = 0;
		run->w[i].wl.ops_done = 0;
		memset(&run->w[i].wl.svc, 0, sizeof(run->w[i].wl.svc));
	}
}

/* The last thread's end, each thread's error (the first one wins) and the histograms. */
static uint64_t go_gather(struct tb_measure_run *run, struct tb_measure_res *res)
{
	uint64_t end = 0;
	unsigned int i;
	char st[64];

	for (i = 0; i < run->nthreads; i++) {
		struct worker *wk = &run->w[i];

		if (wk->end_ns > end)
			end = wk->end_ns;
		if (wk->ret && wk->wl.exit_status)
			set_err(res, wk->ret, "%s: %s: program %s", run->req.name,
				run->req.wl->name,
				tb_proc_status_str(wk->wl.exit_status, st, sizeof(st)));
		else if (wk->ret == -ETIMEDOUT)
			set_err(res, wk->ret, "%s: %s thread %u timed out", run->req.name,
				run->req.wl->name, i);
		else if (wk->ret)
			set_err(res, wk->ret, "%s: %s thread %u failed: %s", run->req.name,
				run->req.wl->name, i, strerror(-wk->ret));
		tb_hist_merge(&res->hist, &wk->hist);
	}
	return end;
}

/* rusage (self + reaped children) and perf counter deltas over the batch into res. */
static void go_usage(struct tb_measure_res *res, const struct rusage *s0, const struct rusage *s1,
		     const struct rusage *c0, const struct rusage *c1, const int64_t *p0,
		     const int64_t *p1)
{
	int i;

	res->cpu_user_s = tv_s(s0->ru_utime, s1->ru_utime) + tv_s(c0->ru_utime, c1->ru_utime);
	res->cpu_sys_s = tv_s(s0->ru_stime, s1->ru_stime) + tv_s(c0->ru_stime, c1->ru_stime);
	res->nvcsw = (s1->ru_nvcsw - s0->ru_nvcsw) + (c1->ru_nvcsw - c0->ru_nvcsw);
	res->nivcsw = (s1->ru_nivcsw - s0->ru_nivcsw) + (c1->ru_nivcsw - c0->ru_nivcsw);
	res->minflt = (s1->ru_minflt - s0->ru_minflt) + (c1->ru_minflt - c0->ru_minflt);
	res->majflt = (s1->ru_majflt - s0->ru_majflt) + (c1->ru_majflt - c0->ru_majflt);
	res->perf_task_clock_ns = res->perf_ctxsw = res->perf_faults = -1;
	for (i = 0; i < PC_N; i++) {
		int64_t v = p0[i] >= 0 && p1[i] >= 0 ? p1[i] - p0[i] : -1;

		if (i == PC_TASK_CLOCK)
			res->perf_task_clock_ns = v;
		else if (i == PC_CTXSW)
			res->perf_ctxsw = v;
		else
			res->perf_faults = v;
	}
}

/* Counters of the process around a batch (syscalls: read outside any traced window). */
struct usage {
	struct rusage self, children;
	int64_t perf[PC_N];
};

static void usage_read(struct tb_measure_run *run, struct usage *u, bool before)
{
	/* The same order backwards after, so that the brackets nest. */
	if (before)
		perf_read(run, u->perf);
	getrusage(before ? RUSAGE_CHILDREN : RUSAGE_SELF, before ? &u->children : &u->self);
	getrusage(before ? RUSAGE_SELF : RUSAGE_CHILDREN, before ? &u->self : &u->children);
	if (!before)
		perf_read(run, u->perf);
}

/* Workers armed: out of their futex park and spinning on go (before any tracer is live). */
static void arm_workers(struct tb_measure_run *run)
{
	uint32_t n = run->nthreads - 1, v;

	atomic_store(&run->arrived, 0);
	atomic_store(&run->spinning, 0);
	atomic_store(&run->done, 0);
	atomic_fetch_add(&run->arm, 1);
	futex_wake(&run->arm);
	while ((v = atomic_load(&run->arrived)) < n)
		futex_wait(&run->arrived, v);
	/* The last one is between its wake and its count: a moment, unless it shares our CPU. */
	while (atomic_load(&run->spinning) < n)
		if (run->share)
			sched_yield();
		else
			cpu_relax();
}

/* One gate state, released for the other side, which spins on it. */
static void gate_set(_Atomic uint32_t *gate, uint32_t state)
{
	if (gate)
		atomic_store_explicit(gate, state, memory_order_release);
}

static void gate_wait(_Atomic uint32_t *gate, uint32_t state)
{
	while (gate && atomic_load_explicit(gate, memory_order_acquire) != state)
		cpu_relax();
}

/*
 * The batch and its clock reads, between the gate's GO and DONE: nothing here makes a syscall
 * unless threads share a CPU (see tb_measure_window_events). Returns the last thread's end.
 */
static uint64_t batch(struct tb_measure_run *run, uint64_t ops, struct tb_measure_res *res,
		      _Atomic uint32_t *gate, uint64_t *t0)
{
	uint64_t end, spin0 = now_ns();
	uint32_t done;

	gate_wait(gate, TB_GATE_GO);
	/* Nothing but the batch between the two clock reads. */
	*t0 = now_ns();
	if (run->nthreads > 1)
		atomic_fetch_add_explicit(&run->go, 1, memory_order_release);
	run->w[0].ret = run_ops(run, &run->w[0], ops);
	run->w[0].end_ns = now_ns();
	while (run->nthreads > 1 && (done = atomic_load(&run->done)) < run->nthreads - 1)
		if (run->share)
			futex_wait(&run->done, done);
		else
			cpu_relax();

	end = go_gather(run, res);
	res->spin_ns = *t0 - spin0;
	gate_set(gate, TB_GATE_DONE);
	spin0 = now_ns();
	gate_wait(gate, TB_GATE_STOPPED);
	res->spin_ns += now_ns() - spin0;
	if (run->nthreads > 1) {
		atomic_fetch_add(&run->release, 1);
		if (run->share)
			futex_wake(&run->release);
	}
	return end;
}

/* Each instance's untimed finish_batch after a batch that did not fail. */
static void go_finish(struct tb_measure_run *run, struct tb_measure_res *res)
{
	int (*fin)(struct tb_workload *) = run->req.wl->finish_batch;
	unsigned int i;
	int ret;

	for (i = 0; fin && !res->error && i < run->nthreads; i++)
		if ((ret = fin(&run->w[i].wl)))
			set_err(res, ret, "%s: %s thread %u: finishing the batch failed: %s",
				run->req.name, run->req.wl->name, i, strerror(-ret));
}

int tb_measure_go_gated(struct tb_measure_run *run, uint64_t ops, struct tb_measure_res *res,
			_Atomic uint32_t *gate)
{
	struct usage u0, u1;
	uint64_t t0, end;

	if (run->req.wl->flags & TB_WL_ONESHOT)
		ops = 1;
	go_reset(run, ops, res);
	if (!ops) {
		set_err(res, -EINVAL, "%s: a batch of 0 ops", run->req.name);
		gate_set(gate, TB_GATE_SPINNING); /* the parent must not wait for nothing */
		gate_set(gate, TB_GATE_DONE);
		return res->error;
	}
	run->round_ops = ops;
	usage_read(run, &u0, true);
	if (run->nthreads > 1)
		arm_workers(run);
	gate_set(gate, TB_GATE_SPINNING);
	end = batch(run, ops, res, gate, &t0);
	usage_read(run, &u1, false);
	go_finish(run, res); /* after the end and the counters: neither includes it */

	res->elapsed_ns = end - t0;
	if (run->w[0].wl.ops_done) /* one-shot, its ops counted by itself (a service) */
		res->ops = ops = run->w[0].wl.ops_done;
	res->ns_per_op = (double)res->elapsed_ns / (double)ops;
	go_usage(res, &u0.self, &u1.self, &u0.children, &u1.children, u0.perf, u1.perf);
	/* One thread spun on its own CPU around the batch: that CPU time is not the batch's. */
	if (run->nthreads == 1) {
		res->cpu_user_s -= (double)res->spin_ns / 1e9;
		if (res->cpu_user_s < 0)
			res->cpu_user_s = 0;
	}
	res->has_metric = run->w[0].wl.has_metric;
	res->metric = run->w[0].wl.metric;
	res->exit_status = run->w[0].wl.exit_status;
	res->svc = run->w[0].wl.svc;
	return res->error;
}

int tb_measure_go_ops(struct tb_measure_run *run, uint64_t ops, struct tb_measure_res *res)
{
	return tb_measure_go_gated(run, ops, res, NULL);
}

void tb_measure_window_events(const struct tb_measure_req *req, struct tb_op_events *ev)
{
	unsigned int n = req->threads ? req->threads : 1;

	tb_op_events_init(ev);
	ev->syscalls_known = ev->sched_known = TB_EV_KNOWN_ALL;
	if (n < 2 || (req->ncpus && n <= req->ncpus))
		return;
	/* Sharing a CPU, each worker parks once (a futex wait), the last one wakes thread 0,
	 * which may wait once and retry once; each park is a switch and a wakeup. */
	tb_op_events_syscall(ev, "syscall:futex", SYS_futex, n + 2, 3, TB_EV_SELF, TB_EV_APPROX);
	tb_op_events_add(ev, "sched:sched_switch", 2 * n, TB_EV_SELF, TB_EV_APPROX);
	tb_op_events_add(ev, "sched:sched_wakeup", 2, TB_EV_SELF, TB_EV_APPROX);
	tb_op_events_add(ev, "sched:sched_waking", 2, TB_EV_SELF, TB_EV_APPROX);
	tb_op_events_add(ev, "task:switches", n, TB_EV_SELF, TB_EV_APPROX);
	tb_op_events_add(ev, "task:wakeups", 2, TB_EV_SELF, TB_EV_APPROX);
}

int tb_measure_go(struct tb_measure_run *run, struct tb_measure_res *res)
{
	return tb_measure_go_ops(run, run->req.ops, res);
}

void tb_measure_finish(struct tb_measure_run *run)
{
	unsigned int i;

	if (!run)
		return;
	if (run->barriers) {
		atomic_store(&run->quit, true);
		atomic_fetch_add(&run->arm, 1);
		futex_wake(&run->arm);
		for (i = 1; i < run->nthreads; i++)
			if (run->w[i].started)
				pthread_join(run->w[i].thread, NULL);
		bar_destroy(&run->ready);
	}
	/* instance 0 (the others tore themselves down before their thread exited) */
	for (i = 0; run->w && i < run->nthreads; i++)
		if (run->w[i].setup_done && run->req.wl->teardown)
			run->req.wl->teardown(&run->w[i].wl);
	perf_close(run);
	if (run->locked)
		munlockall();
	if (run->restore_affinity)
		sched_setaffinity(0, sizeof(run->affinity), &run->affinity);
	free(run->w);
	free(run);
}

size_t tb_measure_tids(const struct tb_measure_run *run, pid_t *tids, size_t max)
{
	size_t i;

	for (i = 0; i < run->nthreads && i < max; i++)
		tids[i] = run->w[i].tid;
	return i;
}

int tb_measure_calibrate(const struct tb_measure_req *req, uint64_t target_ns, uint64_t *ops)
{
	struct tb_measure_req r = *req;
	struct tb_measure_run *run = NULL;
	struct tb_measure_res *res = NULL;
	uint64_t n = 1, goal = target_ns / 10;
	double per_op;
	int ret;

	*ops = 1;
	if (req->wl && (req->wl->flags & TB_WL_ONESHOT))
		return 0;
	if (goal < MIN_CALIB_NS)
		goal = MIN_CALIB_NS;
	res = malloc(sizeof(*res));
	if (!res)
		return -ENOMEM;
	r.perf_counts = false;
	ret = tb_measure_prepare(&r, &run);
	if (ret)
		goto out;
	for (;;) {
		ret = tb_measure_go_ops(run, n, res);
		if (ret) {
			tb_err("%s", res->errmsg);
			goto out;
		}
		if (res->elapsed_ns >= goal || n >= (1ull << 40))
			break;
		n *= 2;
	}
	/* One more batch of the same size: an interrupted batch must not shrink the estimate. */
	per_op = res->ns_per_op;
	ret = tb_measure_go_ops(run, n, res);
	if (ret) {
		tb_err("%s", res->errmsg);
		goto out;
	}
	if (res->ns_per_op < per_op)
		per_op = res->ns_per_op;
	if (per_op <= 0)
		per_op = 0.001;
	*ops = (uint64_t)((double)target_ns / per_op);
	if (*ops < 1)
		*ops = 1;
out:
	tb_measure_finish(run);
	free(res);
	return ret;
}

int tb_measure_res_write(int fd, const struct tb_measure_res *res)
{
	return tb_write_full(fd, res, sizeof(*res));
}

int tb_measure_res_read(int fd, struct tb_measure_res *res)
{
	return tb_read_full(fd, res, sizeof(*res));
}
