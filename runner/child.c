// SPDX-License-Identifier: GPL-2.0
/* One sample in a fresh workload process (child.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hist.h"
#include "core/io.h"
#include "core/tb.h"
#include "runner/child.h"
#include "tracers/tracer.h"

/* What the child writes back: once when parked (ready), once after its batch. */
struct child_msg {
	int err;
	uint64_t ops;
	struct tb_sample_res res;
};

struct child {
	pid_t pid;
	int to, from; /* "go" down, messages up */
};

/* The workload process: never returns. calibrate_ns > 0 calibrates instead of a sample. */
static void child_main(const struct tb_sample_req *req, uint64_t calibrate_ns, int rfd, int wfd)
{
	struct tb_sample_run *run = NULL;
	struct child_msg m;
	char go;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN); /* the parent decides; it kills us when it stops */
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_IGN);
	memset(&m, 0, sizeof(m));
	if (calibrate_ns) {
		m.err = tb_sample_calibrate(req, calibrate_ns, &m.ops);
		tb_write_full(wfd, &m, sizeof(m));
		_exit(m.err ? 1 : 0);
	}
	m.err = tb_sample_prepare(req, &run);
	if (tb_write_full(wfd, &m, sizeof(m)) || m.err) {
		if (run)
			tb_sample_finish(run);
		_exit(1);
	}
	if (read(rfd, &go, 1) != 1) {
		tb_sample_finish(run);
		_exit(1);
	}
	m.err = tb_sample_go(run, &m.res);
	m.ops = m.res.ops;
	tb_write_full(wfd, &m, sizeof(m));
	tb_sample_finish(run);
	_exit(m.err ? 1 : 0);
}

static int child_start(const struct tb_sample_req *req, uint64_t calibrate_ns, struct child *c)
{
	int down[2], up[2];

	if (pipe2(down, O_CLOEXEC))
		return -errno;
	if (pipe2(up, O_CLOEXEC)) {
		close(down[0]);
		close(down[1]);
		return -errno;
	}
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0) {
		int e = -errno;

		close(down[0]);
		close(down[1]);
		close(up[0]);
		close(up[1]);
		return e;
	}
	if (c->pid == 0) {
		close(down[1]);
		close(up[0]);
		child_main(req, calibrate_ns, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	c->to = down[1];
	c->from = up[0];
	return 0;
}

/* Kill (if still running) and reap; returns the wait status. */
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
	}
	c->pid = 0;
	return status;
}

int tb_child_calibrate(const struct tb_sample_req *req, uint64_t target_ns, uint64_t timeout_ns,
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
	const struct tb_sample_job *job;
	struct tb_cell *cell;
	struct tb_sample *smp;
	struct child c;
	struct tb_tracer t;
	struct tb_tracer_stats st;
	struct child_msg m;
	bool tr_setup, tr_started;
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

/* Untimed: the child parks after its setup; the tracer is set up, started and settles. */
static int arm(struct sample *sp)
{
	const struct tb_sample_job *job = sp->job;
	struct tb_tracer *t = &sp->t;
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
	t->target = sp->c.pid;
	if (t->ops->setup) {
		ret = t->ops->setup(t);
		sp->tr_setup = true;
		if (!ret && t->ops->start) {
			ret = t->ops->start(t);
			sp->tr_started = !ret;
		}
	}
	if (ret) {
		/* The plugin's own words when it gave them, else what -errno means. */
		if (t->error[0])
			set_cell_error(sp->cell, "[tracer %s]: %s", job->t->name, t->error);
		else
			set_cell_error(sp->cell, "[tracer %s]: %s failed: %s", job->t->name,
				       sp->tr_setup && !sp->tr_started ? "start" : "setup",
				       strerror(-ret));
		sp->dead = true;
		return ret;
	}
	if (job->t->settle_ns)
		tb_sleep_ns(job->t->settle_ns);
	sp->smp->setup_s = to_s(tb_now_ns() - t0);
	return tb_stop_requested() ? -EINTR : 0;
}

/* Timed inside the child: release it and wait for its figures. */
static int measure(struct sample *sp)
{
	const struct tb_sample_job *job = sp->job;
	char go = 'g';
	int ret;

	if (tb_write_full(sp->c.to, &go, 1)) {
		sp->go_failed = true;
		set_cell_error(sp->cell,
			       "[workload %s]: the workload process died before its batch",
			       job->w->name);
		return -EPIPE;
	}
	ret = tb_read_full_timeout(sp->c.from, &sp->m, sizeof(sp->m), job->timeout_ns);
	if (ret == -ETIMEDOUT)
		tb_warn("%s: sample timed out after %.0f s; killed", sp->cell->id,
			to_s(job->timeout_ns));
	if (!ret && sp->m.err) {
		ret = sp->m.err;
		tb_warn("%s: sample failed: %s", sp->cell->id,
			sp->m.res.errmsg[0] ? sp->m.res.errmsg : strerror(-sp->m.err));
	}
	return ret;
}

/* Untimed: settle, stop, collect, tear down. ret is the sample's outcome so far. */
static int disarm(struct sample *sp, int ret)
{
	const struct tb_sample_job *job = sp->job;
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
	memset(&sp->st, 0, sizeof(sp->st));
	sp->st.events = sp->st.lost = sp->st.mem_bytes = -1;
	sp->st.bpf_run_cnt = sp->st.bpf_run_time_ns = -1;
	sp->st.cpu_s = -1;
	if (t->ops->collect) {
		int cret = t->ops->collect(t, &sp->st);

		if (cret && !ret) {
			ret = cret;
			if (t->error[0])
				set_cell_error(sp->cell, "[tracer %s]: %s", job->t->name, t->error);
			else
				set_cell_error(
					sp->cell,
					"[tracer %s]: the tracer failed during the sample: %s",
					job->t->name, strerror(-cret));
		}
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
	const struct tb_sample_res *res = &sp->m.res;
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
	smp->events = sp->st.events;
	smp->lost = sp->st.lost;
	smp->tracer_cpu_s = sp->st.cpu_s >= 0 ? sp->st.cpu_s : NAN;
	smp->bpf_run_cnt = sp->st.bpf_run_cnt;
	smp->bpf_run_time_ns = sp->st.bpf_run_time_ns;
	if (sp->st.mem_bytes > cell->tracer_mem_bytes)
		cell->tracer_mem_bytes = sp->st.mem_bytes;
	if (sp->st.extra) {
		json_decref(cell->tracer_extra);
		cell->tracer_extra = sp->st.extra;
		sp->st.extra = NULL;
	}
	if (!sp->job->w->latency || sp->job->warmup)
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

int tb_child_sample(const struct tb_sample_job *job, struct tb_cell *cell, struct tb_hist **hist,
		    bool *dead)
{
	struct sample sp = {.job = job, .cell = cell, .c = {.to = -1, .from = -1}};
	int ret;

	sp.smp = tb_cell_add_sample(cell);
	if (!sp.smp)
		return -ENOMEM;
	sp.smp->round = job->warmup ? -1 : job->round;
	sp.smp->warmup = job->warmup;
	sp.smp->order = job->order;
	sp.smp->failed = true; /* until it completes */
	sp.t.ops = job->t->ops;
	sp.t.name = job->t->name;
	sp.t.cfg = job->t->cfg;
	sp.t.outdir = job->tracer_outdir;
	sp.t.consumer_cpu = job->consumer_cpu;
	sp.t.settle_ns = job->t->settle_ns;

	ret = arm(&sp);
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
	if (sp.tr_setup && sp.t.ops->teardown)
		sp.t.ops->teardown(&sp.t);
	child_end(&sp.c, true);
	if (sp.dead)
		*dead = true;
	if (tb_stop_requested())
		return -EINTR;
	return ret == -ENOMEM ? ret : 0;
}
