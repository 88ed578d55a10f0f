// SPDX-License-Identifier: GPL-2.0
/* One sample in a fresh workload process (child.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hist.h"
#include "core/io.h"
#include "core/tb.h"
#include "host/cleanup.h"
#include "host/contention.h"
#include "model/bpf-progs.h"
#include "model/measured.h"
#include "runner/child.h"
#include "tracers/tracer.h"

/* What the child writes back: once when parked (ready), once after the tracer stopped. */
struct child_msg {
	int err;
	uint64_t ops;
	pid_t target; /* in "ready": the process the tracer follows (0: this one) */
	struct tb_measure_res res;
};

/*
 * The protocol of a sample (doc/architecture.md, "One sample"): pipes while no tracer is live,
 * a gate in a shared page while one may be.
 *
 *	parent                               child
 *	                                     prepare; "ready" up the pipe; blocks in read()
 *	tracer setup; "arm" down the pipe -> read returns; counters read; gate SPINNING; spins
 *	tracer start, settle; gate GO     -> the batch; gate DONE; spins
 *	settle, tracer stop; gate STOPPED -> counters read; figures up the pipe; teardown
 */
struct child {
	pid_t pid;
	int to, from;		/* "arm" down, messages up */
	_Atomic uint32_t *gate; /* TB_GATE_*, in a page shared with the child */
	int status;		/* wait status once reaped */
	pid_t reaped;		/* its pid once reaped, for what it left */
};

/* The workload process: never returns. calibrate_ns > 0 calibrates instead of a sample. */
static void child_main(const struct tb_measure_req *req, uint64_t calibrate_ns, int rfd, int wfd,
		       _Atomic uint32_t *gate)
{
	struct tb_measure_run *run = NULL;
	struct child_msg m;
	char go;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN); /* the parent decides; it kills us when it stops */
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_IGN);
	memset(&m, 0, sizeof(m));
	if (calibrate_ns) {
		m.err = tb_measure_calibrate(req, calibrate_ns, &m.ops);
		tb_write_full(wfd, &m, sizeof(m));
		_exit(m.err ? 1 : 0);
	}
	m.err = tb_measure_prepare(req, &run);
	m.target = run ? tb_measure_target(run) : 0;
	if (tb_write_full(wfd, &m, sizeof(m)) || m.err) {
		if (run)
			tb_measure_finish(run);
		_exit(1);
	}
	if (read(rfd, &go, 1) != 1) {
		tb_measure_finish(run);
		_exit(1);
	}
	m.err = tb_measure_go_gated(run, req->ops, &m.res, gate);
	m.ops = m.res.ops;
	tb_write_full(wfd, &m, sizeof(m));
	tb_measure_finish(run);
	_exit(m.err ? 1 : 0);
}

static int child_start(const struct tb_measure_req *req, uint64_t calibrate_ns, struct child *c)
{
	int down[2], up[2], e;

	c->gate = mmap(NULL, sizeof(*c->gate), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (c->gate == MAP_FAILED) {
		c->gate = NULL;
		return -errno;
	}
	atomic_store(c->gate, TB_GATE_PARKED);
	if (pipe2(down, O_CLOEXEC)) {
		e = -errno;
		goto unmap;
	}
	if (pipe2(up, O_CLOEXEC)) {
		e = -errno;
		close(down[0]);
		close(down[1]);
		goto unmap;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		e = -errno;
		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		goto unmap;
	}
	if (c->pid == 0) {
		close(down[1]);
		close(up[0]);
		child_main(req, calibrate_ns, down[0], up[1], c->gate);
	}
	close(down[0]);
	close(up[1]);
	c->to = down[1];
	c->from = up[0];
	return 0;
unmap:
	munmap((void *)c->gate, sizeof(*c->gate));
	c->gate = NULL;
	return e;
}

/*
 * Kill (if still running) and reap; returns the wait status. What the child armed and did not
 * undo (it is killed here while its teardown may still run, or died) is undone here, the one
 * place every path goes through.
 */
static int child_end(struct child *c, bool kill_it)
{
	int status = 0;

	if (c->to >= 0)
		close(c->to);
	if (c->from >= 0)
		close(c->from);
	c->to = c->from = -1;
	if (c->pid > 0) {
		if (kill_it)
			kill(c->pid, SIGKILL);
		while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
			;
		c->reaped = c->pid;
	} else {
		status = c->status; /* reaped while waiting at the gate */
	}
	if (c->reaped > 0)
		tb_cleanup_reaped(c->reaped);
	c->reaped = 0;
	c->pid = 0;
	if (c->gate)
		munmap((void *)c->gate, sizeof(*c->gate));
	c->gate = NULL;
	return status;
}

/*
 * The gate's poll periods: the parent sleeps, the child spins. Short at first (the child is
 * quick to reach SPINNING), then doubling: over a batch of a second the parent wakes about 200
 * times, not thousands, since a wakeup may land on the workload's CPU. Near a batch's expected
 * end (its cell's last batch of the same kind, within a sixteenth of it and a millisecond) the
 * parent polls every TB_GATE_POLL_NEAR_NS instead: the doubling period overshot the end by up to
 * its 5 ms, wall time in which nothing is measured, on every sample.
 */
#define GATE_POLL_MIN_NS 50000ull
#define GATE_POLL_MAX_NS 5000000ull

uint64_t tb_child_gate_sleep_ns(uint64_t el, uint64_t poll, uint64_t expect_ns)
{
	uint64_t window = expect_ns / 16 + 1000000,
		 from = expect_ns > window ? expect_ns - window : 0;

	if (!expect_ns || el >= expect_ns + window)
		return poll;
	if (el >= from)
		return TB_GATE_POLL_NEAR_NS < poll ? TB_GATE_POLL_NEAR_NS : poll;
	return from - el < poll ? from - el : poll; /* wake at the window's start */
}

/*
 * On a machine whose other CPUs are busy the scheduler wakes the waiting parent on the
 * workload's CPU, where it preempts the measured thread at every poll: with one stress-ng
 * worker on the other CPU of a 2-CPU guest the workload saw ~350 involuntary context switches
 * a second instead of ~30, and each round's traced / baseline ratio followed their difference
 * (METHODOLOGY.md 2.5).
 */
bool tb_child_step_aside(const int *cpus, size_t ncpus, cpu_set_t *old)
{
	cpu_set_t set;

	if (!ncpus || sched_getaffinity(0, sizeof(*old), old))
		return false;
	set = *old;
	for (size_t i = 0; i < ncpus; i++)
		if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
			CPU_CLR(cpus[i], &set);
	return CPU_COUNT(&set) && !sched_setaffinity(0, sizeof(set), &set);
}

void tb_child_step_back(bool moved, const cpu_set_t *old)
{
	if (moved)
		sched_setaffinity(0, sizeof(*old), old);
}

/*
 * Wait until the child set the gate to state: 0, -EINTR (a stop was requested), -ETIMEDOUT,
 * or -EPIPE when it died first (it is reaped then). expect_ns: when it is expected to (0:
 * not known).
 */
static int gate_wait(struct child *c, uint32_t state, uint64_t timeout_ns, uint64_t expect_ns)
{
	uint64_t t0 = tb_now_ns(), poll = GATE_POLL_MIN_NS, el;

	while (atomic_load_explicit(c->gate, memory_order_acquire) != state) {
		if (tb_stop_requested())
			return -EINTR;
		if (c->pid > 0 && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
			c->reaped = c->pid;
			c->pid = 0;
			return -EPIPE;
		}
		el = tb_now_ns() - t0;
		if (el > timeout_ns)
			return -ETIMEDOUT;
		tb_sleep_ns(tb_child_gate_sleep_ns(el, poll, expect_ns));
		if (poll < GATE_POLL_MAX_NS)
			poll = poll * 2 < GATE_POLL_MAX_NS ? poll * 2 : GATE_POLL_MAX_NS;
	}
	return 0;
}

int tb_child_calibrate(const struct tb_measure_req *req, uint64_t target_ns, uint64_t timeout_ns,
		       uint64_t *ops)
{
	struct child c = {.to = -1, .from = -1};
	struct child_msg m;
	int ret;

	ret = child_start(req, target_ns, &c);
	if (ret)
		return ret;
	ret = tb_read_full_timeout(c.from, &m, sizeof(m), timeout_ns);
	child_end(&c, ret != 0);
	if (ret == -EINTR)
		return ret;
	if (ret) {
		tb_err("[workload %s]: calibration failed: %s", req->name,
		       ret == -EPIPE ? "the workload process died" : strerror(-ret));
		return ret;
	}
	if (m.err) {
		tb_err("[workload %s]: calibration failed: %s", req->name, strerror(-m.err));
		return m.err;
	}
	*ops = m.ops;
	tb_debug("[workload %s]: %llu ops per sample", req->name, (unsigned long long)m.ops);
	return 0;
}

/* ---- one sample ------------------------------------------------------------------------- */

/* One sample in progress: the child, the tracer instance and what came back. */
struct sample {
	const struct tb_measure_job *job;
	struct tb_cell *cell;
	struct tb_sample *smp;
	struct child c;
	struct tb_tracer t;
	struct tb_tracer_stats st;
	struct child_msg m;
	bool tr_setup, tr_started;
	bool rearmed;	/* the held tracer was rearmed instead of set up */
	bool go_failed; /* the child died before its batch: nothing to collect */
	bool dead;
};

static void set_cell_error(struct tb_cell *cell, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_cell_error(struct tb_cell *cell, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!cell->error)
		cell->error = strdup(buf);
}

static double to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* The child leaves its pipe read and spins on the gate: no syscall of its from here on. */
static int release_to_gate(struct sample *sp)
{
	const struct tb_measure_job *job = sp->job;
	char arm = 'a';
	int ret;

	ret = tb_write_full(sp->c.to, &arm, 1);
	if (!ret)
		ret = gate_wait(&sp->c, TB_GATE_SPINNING, job->timeout_ns, 0);
	if (ret && ret != -EINTR) {
		set_cell_error(sp->cell, "[workload %s]: the workload process %s before its batch",
			       job->w->name, ret == -ETIMEDOUT ? "did not get ready" : "died");
		sp->go_failed = true;
	}
	return ret;
}

/*
 * The tracer for this sample's process: the held one rearmed (same instance or object, its
 * state reset, the pid filter re-pointed to t->target) or a fresh setup. Returns 0 or -errno.
 */
static int setup_or_rearm(struct sample *sp)
{
	struct tb_tracer *held = sp->job->held, *t = &sp->t;

	sp->tr_setup = true;
	if (!held || !held->priv || !t->ops->rearm)
		return t->ops->setup(t);
	t->priv = held->priv;
	held->priv = NULL;
	sp->rearmed = true;
	return t->ops->rearm(t);
}

/* Untimed: the child parks after its setup; the tracer is set up, started and settles. */
static int arm(struct sample *sp)
{
	const struct tb_measure_job *job = sp->job;
	struct tb_tracer *t = &sp->t;
	const char *step = "setup";
	unsigned long nerr;
	uint64_t t0;
	int ret;

	ret = child_start(&job->req, 0, &sp->c);
	if (ret) {
		set_cell_error(sp->cell, "cannot start the workload process: %s", strerror(-ret));
		return ret;
	}
	ret = tb_read_full_timeout(sp->c.from, &sp->m, sizeof(sp->m), job->timeout_ns);
	if (ret || sp->m.err) {
		if (ret != -EINTR)
			set_cell_error(sp->cell, "[workload %s]: setup failed: %s", job->w->name,
				       strerror(ret ? -ret : -sp->m.err));
		sp->dead = ret != -EINTR;
		return ret ? ret : sp->m.err;
	}
	t0 = tb_now_ns();
	t->target = sp->m.target > 0 ? sp->m.target : sp->c.pid;
	t->target_tree = sp->m.target > 0;
	nerr = tb_log_error_count();
	if (t->ops->setup) {
		ret = setup_or_rearm(sp);
		step = sp->rearmed ? "rearm" : "setup";
		if (!ret)
			ret = release_to_gate(sp);
		if (sp->go_failed)
			return ret;
		if (!ret && t->ops->start) {
			step = "start";
			ret = t->ops->start(t);
			sp->tr_started = !ret;
		}
	}
	if (ret && tb_log_error_count() != nerr) {
		/* The tracer said why: that is the cell's error, not a second one from errno. */
		set_cell_error(sp->cell, "%s", tb_log_last_error());
	} else if (ret) {
		set_cell_error(sp->cell, "[tracer %s]: %s failed: %s", job->t->name, step,
			       strerror(-ret));
	}
	if (ret) {
		sp->dead = true;
		return ret;
	}
	if (job->t->settle_ns)
		tb_sleep_ns(job->t->settle_ns);
	sp->smp->setup_s = to_s(tb_now_ns() - t0);
	return tb_stop_requested() ? -EINTR : 0;
}

/* The batch's expected length: its cell's last completed batch of the same kind, or 0. */
static uint64_t expected_batch_ns(const struct sample *sp)
{
	const struct tb_cell *cell = sp->cell;

	for (size_t i = cell->nsamples; i-- > 0;) {
		const struct tb_sample *s = &cell->samples[i];

		if (s != sp->smp && !s->failed && s->elapsed_ns > 0 &&
		    s->accounting == sp->smp->accounting)
			return (uint64_t)s->elapsed_ns;
	}
	return 0;
}

/*
 * Timed inside the child: release it and wait (sleeping) until its batch is done. The
 * contention counters are read from here around it, so the workload makes no syscall for them.
 */
static int measure(struct sample *sp)
{
	const struct tb_measure_job *job = sp->job;
	uint64_t expect = expected_batch_ns(sp);
	struct tb_contention c0, c1;
	cpu_set_t mask;
	bool moved;
	int ret;

	moved = tb_child_step_aside(job->req.cpus, job->req.ncpus, &mask);
	tb_contention_read(sp->c.pid, job->req.cpus, job->req.ncpus, &c0);
	atomic_store_explicit(sp->c.gate, TB_GATE_GO, memory_order_release);
	ret = gate_wait(&sp->c, TB_GATE_DONE, job->timeout_ns, expect);
	tb_contention_read(sp->c.pid, job->req.cpus, job->req.ncpus, &c1);
	tb_child_step_back(moved, &mask);
	sp->smp->wait_ns =
		c0.wait_ns >= 0 && c1.wait_ns >= c0.wait_ns ? c1.wait_ns - c0.wait_ns : -1;
	sp->smp->steal_ns =
		c0.steal_ns >= 0 && c1.steal_ns >= c0.steal_ns ? c1.steal_ns - c0.steal_ns : -1;
	if (ret == -ETIMEDOUT)
		tb_warn("%s: sample timed out after %.0f s; killed", sp->cell->id,
			to_s(job->timeout_ns));
	else if (ret == -EPIPE)
		tb_warn("%s: the workload process died during its batch", sp->cell->id);
	return ret;
}

/* Untimed, the tracer stopped: let the child go on and take its figures. */
static int figures(struct sample *sp, int ret)
{
	const struct tb_measure_job *job = sp->job;
	int r;

	atomic_store_explicit(sp->c.gate, TB_GATE_STOPPED, memory_order_release);
	if (ret || sp->c.pid <= 0)
		return ret;
	r = tb_read_full_timeout(sp->c.from, &sp->m, sizeof(sp->m), job->timeout_ns);
	if (r == -ETIMEDOUT)
		tb_warn("%s: no figures from the workload process after %.0f s; killed",
			sp->cell->id, to_s(job->timeout_ns));
	if (!r && sp->m.err) {
		r = sp->m.err;
		tb_warn("%s: sample failed: %s", sp->cell->id,
			sp->m.res.errmsg[0] ? sp->m.res.errmsg : strerror(-sp->m.err));
	}
	return r;
}

/* Untimed: settle, stop, collect, tear down. ret is the sample's outcome so far. */
static int disarm(struct sample *sp, int ret)
{
	const struct tb_measure_job *job = sp->job;
	struct tb_tracer *t = &sp->t;
	uint64_t t1 = tb_now_ns();

	if (job->t->settle_ns && !tb_stop_requested())
		tb_sleep_ns(job->t->settle_ns);
	if (t->ops->stop) {
		int sret = t->ops->stop(t);

		if (sret && !ret) {
			ret = sret;
			set_cell_error(sp->cell, "[tracer %s]: stop failed: %s", job->t->name,
				       strerror(-sret));
		}
	}
	sp->tr_started = false;
	ret = figures(sp, ret);
	memset(&sp->st, 0, sizeof(sp->st));
	sp->st.events = sp->st.lost = sp->st.mem_bytes = -1;
	sp->st.bpf_run_cnt = sp->st.bpf_run_time_ns = sp->st.workload_events = -1;
	sp->st.disk_bytes = -1;
	sp->st.cpu_s = -1;
	sp->st.bpf_stats = -1;
	if (t->ops->collect) {
		unsigned long nerr = tb_log_error_count();
		int cret = t->ops->collect(t, &sp->st);

		if (cret && !ret) {
			ret = cret;
			/* The tracer said what happened ("exited with status 3 during the
			 * measurement: <its last output>"): that is the cell's error. */
			if (tb_log_error_count() != nerr)
				set_cell_error(sp->cell, "%s", tb_log_last_error());
			else
				set_cell_error(
					sp->cell,
					"[tracer %s]: the tracer failed during the sample: %s",
					job->t->name, strerror(-cret));
		}
	}
	if (!ret && job->held && t->ops->rearm && !tb_stop_requested()) {
		/* Parked and kept for the cell's next sample (tb_child_sample hands it to the
		 * runner); one that cannot park is torn down and the next sample sets up afresh. */
		t->target = 0;
		t->target_tree = false;
		if (!t->ops->rearm(t)) {
			sp->smp->teardown_s = to_s(tb_now_ns() - t1);
			return 0;
		}
		tb_warn("%s: the tracer could not be parked; it is set up afresh next time",
			sp->cell->id);
	}
	if (t->ops->teardown)
		t->ops->teardown(t);
	sp->tr_setup = false;
	sp->smp->teardown_s = to_s(tb_now_ns() - t1);
	return ret;
}

/* The completed sample's figures into the result. */
static void record(struct sample *sp, struct tb_hist **hist)
{
	const struct tb_measure_res *res = &sp->m.res;
	struct tb_sample *smp = sp->smp;
	struct tb_cell *cell = sp->cell;

	smp->failed = false;
	smp->ops = res->ops;
	smp->elapsed_ns = (double)res->elapsed_ns;
	smp->ns_per_op = res->ns_per_op;
	smp->wl_cpu_s = res->cpu_user_s + res->cpu_sys_s;
	smp->nvcsw = res->nvcsw;
	smp->nivcsw = res->nivcsw;
	smp->minflt = res->minflt;
	smp->metric = res->has_metric ? res->metric : NAN;
	if (res->svc.present)
		smp->svc = res->svc;
	smp->events = sp->st.events;
	smp->lost = sp->st.lost;
	smp->tracer_cpu_s = sp->st.cpu_s >= 0 ? sp->st.cpu_s : NAN;
	smp->bpf_run_cnt = sp->st.bpf_run_cnt;
	smp->bpf_run_time_ns = sp->st.bpf_run_time_ns;
	smp->workload_events = sp->st.workload_events;
	smp->disk_bytes = sp->st.disk_bytes;
	smp->bpf_stats = sp->st.bpf_stats;
	if (sp->st.mem_bytes > cell->tracer_mem_bytes)
		cell->tracer_mem_bytes = sp->st.mem_bytes;
	if (sp->st.extra && (sp->job->split ? tb_sample_accounted(smp) : tb_sample_measured(smp))) {
		char err[256];

		/* A command tracer's BPF programs add up over the cell's measured samples. */
		if (tb_cell_bpf_merge(cell, sp->st.extra, err, sizeof(err)) == -EINVAL)
			tb_warn("%s: the tracer's BPF programs: %s", cell->id, err);
	}
	if (sp->st.extra) {
		json_decref(cell->tracer_extra);
		cell->tracer_extra = sp->st.extra;
		sp->st.extra = NULL;
	}
	if (!sp->job->w->latency || sp->job->warmup || sp->job->accounting)
		return;
	if (!*hist) {
		*hist = malloc(sizeof(**hist));
		if (*hist)
			tb_hist_init(*hist);
	}
	if (*hist)
		tb_hist_merge(*hist, &res->hist);
	cell->latency.clock_cost_ns = res->clock_cost_ns;
}

int tb_child_sample(const struct tb_measure_job *job, struct tb_cell *cell, struct tb_hist **hist,
		    bool *dead)
{
	struct sample sp = {.job = job, .cell = cell, .c = {.to = -1, .from = -1}};
	int ret;

	sp.smp = tb_cell_add_sample(cell);
	if (!sp.smp)
		return -ENOMEM;
	sp.smp->round = job->warmup ? -1 : job->round;
	sp.smp->warmup = job->warmup;
	sp.smp->accounting = job->accounting;
	sp.smp->order = job->order;
	sp.smp->failed = true; /* until it completes */
	sp.t.ops = job->t->ops;
	sp.t.name = job->t->name;
	sp.t.instance = job->held ? cell->id : NULL;
	sp.t.cfg = job->t->cfg;
	sp.t.dir = job->tracer_dir;
	sp.t.outdir = job->tracer_dir ? job->tracer_dir->path : NULL;
	sp.t.consumer_cpu = job->consumer_cpu;
	sp.t.settle_ns = job->t->settle_ns;
	sp.t.sample_ops = job->req.ops;
	sp.t.threads = job->req.threads ? job->req.threads : 1;
	sp.t.cpus = job->req.cpus;
	sp.t.ncpus = job->req.ncpus;
	sp.t.expect = job->expect;
	sp.t.nexpect = job->nexpect;
	sp.t.sample = job->order;
	sp.t.accounting = job->accounting;

	ret = arm(&sp);
	sp.smp->rearmed = sp.rearmed;
	if (!ret) {
		ret = measure(&sp);
		if (!sp.go_failed)
			ret = disarm(&sp, ret);
		if (!ret)
			record(&sp, hist);
	}
	if (ret == -EINTR) {
		/* Cut short by a stop request: not a failure of the cell, not measured. */
		sp.smp->failed = false;
		sp.smp->abandoned = true;
	}
	json_decref(sp.st.extra); /* NULL once the cell took it */
	if (sp.tr_started && sp.t.ops->stop)
		sp.t.ops->stop(&sp.t);
	if (sp.tr_setup && !sp.tr_started && !ret && job->held && sp.t.ops->rearm &&
	    !tb_stop_requested()) {
		*job->held = sp.t;
		sp.tr_setup = false;
	}
	if (sp.tr_setup && sp.t.ops->teardown)
		sp.t.ops->teardown(&sp.t);
	child_end(&sp.c, true);
	if (sp.dead)
		*dead = true;
	if (tb_stop_requested())
		return -EINTR;
	return ret == -ENOMEM ? ret : 0;
}

void tb_child_release(struct tb_tracer *held, struct tb_cell *cell)
{
	uint64_t t0 = tb_now_ns();

	if (!held || !held->priv)
		return;
	if (held->ops->teardown)
		held->ops->teardown(held);
	held->priv = NULL;
	if (cell && cell->nsamples)
		cell->samples[cell->nsamples - 1].teardown_s += to_s(tb_now_ns() - t0);
}

int tb_child_bracketed(const struct tb_measure_req *req, uint64_t timeout_ns,
		       const struct tb_child_bracket *b, uint64_t *ops)
{
	struct child c = {.to = -1, .from = -1};
	bool begun = false, moved;
	struct child_msg m;
	cpu_set_t mask;
	char arm = 'a';
	int ret;

	*ops = 0;
	ret = child_start(req, 0, &c);
	if (ret)
		return ret;
	ret = tb_read_full_timeout(c.from, &m, sizeof(m), timeout_ns);
	if (!ret && m.err)
		ret = m.err;
	if (!ret)
		ret = b->ready(b->ctx, m.target > 0 ? m.target : c.pid);
	if (!ret)
		ret = tb_write_full(c.to, &arm, 1);
	if (!ret)
		ret = gate_wait(&c, TB_GATE_SPINNING, timeout_ns, 0);
	if (!ret)
		ret = b->begin(b->ctx);
	begun = !ret;
	if (!ret) {
		moved = tb_child_step_aside(req->cpus, req->ncpus, &mask);
		atomic_store_explicit(c.gate, TB_GATE_GO, memory_order_release);
		ret = gate_wait(&c, TB_GATE_DONE, timeout_ns, 0);
		tb_child_step_back(moved, &mask);
	}
	if (begun)
		b->end(b->ctx);
	if (!ret) {
		atomic_store_explicit(c.gate, TB_GATE_STOPPED, memory_order_release);
		ret = tb_read_full_timeout(c.from, &m, sizeof(m), timeout_ns);
	}
	if (!ret && m.err) {
		ret = m.err;
		tb_warn("[workload %s]: %s", req->name,
			m.res.errmsg[0] ? m.res.errmsg : strerror(-m.err));
	}
	if (!ret)
		*ops = m.res.ops;
	child_end(&c, ret != 0);
	return tb_stop_requested() ? -EINTR : ret;
}
