// SPDX-License-Identifier: GPL-2.0
/*
 * `tracebench run`: scenario -> plan (cells = workload x tracer) -> interleaved, shuffled rounds
 * -> result.json (+ samples.csv, plots, report) -> terminal summary.
 *
 * Each sample runs its workload in a fresh child process: the child sets the workload up and
 * parks; the parent sets the tracer up and starts it (untimed, with a settle delay), releases
 * the child, which times its batch and reports back; the parent stops, collects and tears the
 * tracer down. The tracer's pid filter therefore sees exactly the workload's process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "result/anonymize.h"
#include "host/armed.h"
#include "host/cleanup.h"
#include "cli/cli.h"
#include "stats/gate.h"
#include "outputs/plot.h"
#include "outputs/report.h"
#include "result/result.h"
#include "core/hist.h"
#include "runner/run.h"
#include "runner/sample.h"
#include "scenario/scenario.h"
#include "host/sysinfo.h"
#include "host/tracing-state.h"
#include "core/inject.h"
#include "tracers/tracer.h"
#include "cli/commands.h"

static const char run_usage[] =
	"usage: tracebench run SCENARIO.ini [options]\n"
	"  -o, --output DIR        write the run here (must not exist or be empty)\n"
	"                          default: results/<UTC time>-<host>-<scenario>/\n"
	"      --quick             5 rounds of 200 ms samples (a fast look, still with CIs)\n"
	"      --rounds N          override [global] repetitions\n"
	"      --duration D        override [global] duration (e.g. 500ms)\n"
	"      --precision P       adaptive stopping at CI half-width P (e.g. 1%)\n"
	"      --max-time D        stop adding rounds after D\n"
	"      --seed N            shuffle and bootstrap seed\n"
	"      --aa                A/A calibration: the baseline against itself\n"
	"      --dry-run           print the plan and the estimated time, run nothing\n"
	"      --json              print result.json to stdout instead of the table\n"
	"      --no-plots          skip plots and the HTML report\n"
	"      --gate              gate the result afterwards (exit 1 when it fails)\n"
	"      --skip-unsupported  drop cells whose plugin is unsupported here (else exit 3)\n"
	"      --wait              wait for another run to finish (else exit 3 at once)\n"
	"      --anonymize         no host, user, path or command line in what is written\n"
	"  -q, --quiet             no progress\n"
	"  -h, --help\n";

struct wl_rt {
	uint64_t ops; /* per thread and sample, calibrated once */
	char tmpdir[256];
	int cpus[256];
	size_t ncpus;
};

struct runner {
	struct tb_scenario *s;
	struct tb_result *r;
	struct tb_plan_cell *cells;
	size_t ncells;
	struct wl_rt *wls;
	char dir[4096];
	char tmproot[64];
	int consumer_cpu;
	bool quiet, progress, json_out, no_plots, gate, dry_run, anonymize;
	gsl_rng *rng;
	unsigned int order;
	uint64_t t_start;
	double sample_cost_s; /* running mean of one sample's wall time, for the ETA */
	unsigned int samples_done;
	size_t planned; /* samples expected in all: warmups and the rounds targeted so far */
	pid_t child;	/* current workload child, for signal paths */
};

static volatile sig_atomic_t sigcount;

static void on_signal(int sig)
{
	(void)sig;
	sigcount++;
	tb_request_stop();
	if (sigcount >= 3)
		_exit(130); /* the user insists; teardown already had its chance */
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ---- CPUs ------------------------------------------------------------------------------ */

static int resolve_cpus(struct runner *rn)
{
	struct tb_scenario *s = rn->s;
	cpu_set_t set;
	int last = -1, first = -1, cpu, ids[256];
	size_t n = 0, i;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (first < 0)
			first = cpu;
		last = cpu;
	}
	if (s->cpus.n == 1 && !strcmp(s->cpus.v[0], "none")) {
		n = 0;
	} else if (s->cpus.n == 0 || (s->cpus.n == 1 && !strcmp(s->cpus.v[0], "auto"))) {
		ids[n++] = last;
	} else {
		for (i = 0; i < s->cpus.n && n < TB_ARRAY_SIZE(ids); i++) {
			int64_t v;

			if (tb_parse_int(s->cpus.v[i], &v) || v < 0 || v >= CPU_SETSIZE ||
			    !CPU_ISSET((int)v, &set)) {
				tb_err("%s: [global] cpus: '%s' is not an online CPU we may use",
				       s->path, s->cpus.v[i]);
				return -EINVAL;
			}
			ids[n++] = (int)v;
		}
	}
	for (i = 0; i < s->nworkloads; i++) {
		memcpy(rn->wls[i].cpus, ids, n * sizeof(int));
		rn->wls[i].ncpus = n;
	}
	rn->consumer_cpu = s->consumer_cpu;
	if (rn->consumer_cpu < 0 && n) {
		/* A CPU the workload does not use, so consumers do not steal its time. */
		for (cpu = first; cpu <= last; cpu++) {
			bool used = false;

			if (!CPU_ISSET(cpu, &set))
				continue;
			for (i = 0; i < n; i++)
				used |= ids[i] == cpu;
			if (!used) {
				rn->consumer_cpu = cpu;
				break;
			}
		}
	}
	return 0;
}

/* ---- the workload child ---------------------------------------------------------------- */

struct child_msg {
	int err;
	uint64_t ops;
	struct tb_sample_res res;
};

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * Read len bytes within timeout_ns; returns 0, -ETIMEDOUT, -EINTR when a stop was requested,
 * -EPIPE on EOF (the child died).
 */
static int read_full(int fd, void *buf, size_t len, uint64_t timeout_ns)
{
	uint64_t deadline = tb_now_ns() + timeout_ns;
	char *p = buf;

	while (len) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		uint64_t now = tb_now_ns();
		int ms, r;
		ssize_t n;

		if (tb_stop_requested())
			return -EINTR;
		if (now >= deadline)
			return -ETIMEDOUT;
		ms = (int)((deadline - now) / 1000000 + 1);
		r = poll(&pfd, 1, ms > 200 ? 200 : ms);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void fill_req(struct runner *rn, size_t wi, struct tb_sample_req *req)
{
	struct tb_scn_workload *w = &rn->s->workloads[wi];

	memset(req, 0, sizeof(*req));
	req->wl = w->ops;
	req->name = w->name;
	req->cfg = w->cfg;
	req->tmpdir = rn->wls[wi].tmpdir;
	req->threads = w->threads;
	req->cpus = rn->wls[wi].cpus;
	req->ncpus = rn->wls[wi].ncpus;
	req->ops = rn->wls[wi].ops;
	req->latency = w->latency;
	req->latency_every = w->latency_every;
	req->mlock = rn->s->mlock;
	req->perf_counts = rn->s->perf_counts;
}

static void child_main(struct runner *rn, size_t wi, bool calibrate, int rfd, int wfd)
{
	struct tb_sample_run *run = NULL;
	struct tb_sample_req req;
	struct child_msg m;
	char go;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGINT, SIG_IGN); /* the parent decides; it kills us when it stops */
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_IGN);
	memset(&m, 0, sizeof(m));
	fill_req(rn, wi, &req);
	if (calibrate) {
		m.err = tb_sample_calibrate(&req, rn->s->workloads[wi].duration_ns, &m.ops);
		write_full(wfd, &m, sizeof(m));
		_exit(m.err ? 1 : 0);
	}
	m.err = tb_sample_prepare(&req, &run);
	if (write_full(wfd, &m, sizeof(m)) || m.err) {
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
	write_full(wfd, &m, sizeof(m));
	tb_sample_finish(run);
	_exit(m.err ? 1 : 0);
}

struct child {
	pid_t pid;
	int to, from;
};

static int child_start(struct runner *rn, size_t wi, bool calibrate, struct child *c)
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
		child_main(rn, wi, calibrate, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	c->to = down[1];
	c->from = up[0];
	rn->child = c->pid;
	return 0;
}

/* Kill (if still running) and reap; returns the wait status. */
static int child_end(struct runner *rn, struct child *c, bool kill_it)
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
	rn->child = 0;
	return status;
}

static uint64_t sample_timeout(struct runner *rn, size_t wi)
{
	if (rn->s->sample_timeout_ns)
		return rn->s->sample_timeout_ns;
	return 20 * rn->s->workloads[wi].duration_ns + 60000000000ull;
}

static int calibrate(struct runner *rn, size_t wi)
{
	struct tb_scn_workload *w = &rn->s->workloads[wi];
	struct child c = {.to = -1, .from = -1};
	struct child_msg m;
	int ret;

	if (w->ops->flags & TB_WL_ONESHOT) {
		rn->wls[wi].ops = 1;
		return 0;
	}
	ret = child_start(rn, wi, true, &c);
	if (ret)
		return ret;
	ret = read_full(c.from, &m, sizeof(m), sample_timeout(rn, wi));
	child_end(rn, &c, ret != 0);
	if (ret == -EINTR)
		return ret;
	if (ret) {
		tb_err("[workload %s]: calibration failed: %s", w->name,
		       ret == -EPIPE ? "the workload process died" : strerror(-ret));
		return ret;
	}
	if (m.err) {
		tb_err("[workload %s]: calibration failed: %s", w->name, strerror(-m.err));
		return m.err;
	}
	rn->wls[wi].ops = m.ops;
	tb_debug("[workload %s]: %llu ops per sample", w->name, (unsigned long long)m.ops);
	return 0;
}

/* ---- one sample ------------------------------------------------------------------------- */

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

/* Runs one sample of a cell; returns 0, or -EINTR when a stop was requested. */
static int run_sample(struct runner *rn, struct tb_plan_cell *cr, int round, bool warmup)
{
	struct tb_scn_workload *w = &rn->s->workloads[cr->wl];
	struct tb_scn_tracer *tsec = &rn->s->tracers[cr->tr];
	struct tb_cell *cell = &rn->r->cells[cr->cell];
	struct tb_tracer_stats st = {0};
	struct child c = {.to = -1, .from = -1};
	struct tb_sample *smp;
	struct child_msg m;
	char outdir[4200];
	struct tb_tracer t;
	bool tr_setup = false, tr_started = false;
	uint64_t t0, t1;
	int ret;
	char go = 'g';

	smp = tb_cell_add_sample(cell);
	if (!smp)
		return -ENOMEM;
	smp->round = warmup ? -1 : round;
	smp->warmup = warmup;
	smp->order = rn->order++;
	smp->failed = true; /* until it completes */

	snprintf(outdir, sizeof(outdir), "%s/tracers/%s", rn->dir, tsec->name);
	memset(&t, 0, sizeof(t));
	t.ops = tsec->ops;
	t.name = tsec->name;
	t.cfg = tsec->cfg;
	t.outdir = outdir;
	t.consumer_cpu = rn->consumer_cpu;
	t.settle_ns = tsec->settle_ns;

	ret = child_start(rn, cr->wl, false, &c);
	if (ret) {
		set_cell_error(cell, "cannot start the workload process: %s", strerror(-ret));
		goto out;
	}
	ret = read_full(c.from, &m, sizeof(m), sample_timeout(rn, cr->wl));
	if (ret || m.err) {
		if (ret != -EINTR)
			set_cell_error(cell, "[workload %s]: setup failed: %s", w->name,
				       strerror(ret ? -ret : -m.err));
		cr->dead = ret != -EINTR;
		goto out;
	}

	/* Untimed: tracer setup and start, then let it settle. */
	t0 = tb_now_ns();
	t.target = c.pid;
	if (tb_mkdir_p(outdir, 0755) == 0 && t.ops->setup) {
		ret = t.ops->setup(&t);
		tr_setup = true;
		if (!ret && t.ops->start) {
			ret = t.ops->start(&t);
			tr_started = !ret;
		}
	}
	if (ret) {
		set_cell_error(cell, "[tracer %s]: %s failed: %s", tsec->name,
			       tr_setup && !tr_started ? "start" : "setup", strerror(-ret));
		cr->dead = true;
		goto out;
	}
	if (tsec->settle_ns)
		tb_sleep_ns(tsec->settle_ns);
	smp->setup_s = to_s(tb_now_ns() - t0);
	if (tb_stop_requested()) {
		ret = -EINTR;
		goto out;
	}

	/* Timed inside the child. */
	if (write_full(c.to, &go, 1)) {
		ret = -EPIPE;
		set_cell_error(cell, "[workload %s]: the workload process died before its batch",
			       w->name);
		goto out;
	}
	ret = read_full(c.from, &m, sizeof(m), sample_timeout(rn, cr->wl));
	if (ret == -ETIMEDOUT)
		tb_warn("%s: sample timed out after %.0f s; killed", cell->id,
			to_s(sample_timeout(rn, cr->wl)));
	if (!ret && m.err) {
		ret = m.err;
		tb_warn("%s: sample failed: %s", cell->id,
			m.res.errmsg[0] ? m.res.errmsg : strerror(-m.err));
	}

	/* Untimed: stop, collect, tear down. */
	t1 = tb_now_ns();
	if (tsec->settle_ns && !tb_stop_requested())
		tb_sleep_ns(tsec->settle_ns);
	if (t.ops->stop) {
		int sret = t.ops->stop(&t);

		if (sret && !ret) {
			ret = sret;
			set_cell_error(cell, "[tracer %s]: stop failed: %s", tsec->name,
				       strerror(-sret));
		}
	}
	tr_started = false;
	memset(&st, 0, sizeof(st));
	st.events = st.lost = st.mem_bytes = st.bpf_run_cnt = st.bpf_run_time_ns = -1;
	st.cpu_s = -1;
	if (t.ops->collect) {
		int cret = t.ops->collect(&t, &st);

		if (cret && !ret) {
			ret = cret;
			set_cell_error(cell, "[tracer %s]: the tracer failed during the sample: %s",
				       tsec->name, strerror(-cret));
		}
	}
	if (t.ops->teardown)
		t.ops->teardown(&t);
	tr_setup = false;
	smp->teardown_s = to_s(tb_now_ns() - t1);

	if (ret)
		goto out;
	smp->failed = false;
	smp->ops = m.res.ops;
	smp->elapsed_ns = (double)m.res.elapsed_ns;
	smp->ns_per_op = m.res.ns_per_op;
	smp->wl_cpu_s = m.res.cpu_user_s + m.res.cpu_sys_s;
	smp->nvcsw = m.res.nvcsw;
	smp->nivcsw = m.res.nivcsw;
	smp->minflt = m.res.minflt;
	smp->metric = m.res.has_metric ? m.res.metric : NAN;
	smp->events = st.events;
	smp->lost = st.lost;
	smp->tracer_cpu_s = st.cpu_s >= 0 ? st.cpu_s : NAN;
	smp->bpf_run_cnt = st.bpf_run_cnt;
	smp->bpf_run_time_ns = st.bpf_run_time_ns;
	if (st.mem_bytes > cell->tracer_mem_bytes)
		cell->tracer_mem_bytes = st.mem_bytes;
	if (st.extra) {
		json_decref(cell->tracer_extra);
		cell->tracer_extra = st.extra;
		st.extra = NULL;
	}
	if (w->latency && !warmup) {
		if (!cr->hist) {
			cr->hist = malloc(sizeof(*cr->hist));
			if (cr->hist)
				tb_hist_init(cr->hist);
		}
		if (cr->hist)
			tb_hist_merge(cr->hist, &m.res.hist);
		cell->latency.clock_cost_ns = m.res.clock_cost_ns;
	}
out:
	json_decref(st.extra); /* NULL once the cell took it */
	if (tr_started && t.ops->stop)
		t.ops->stop(&t);
	if (tr_setup && t.ops->teardown)
		t.ops->teardown(&t);
	child_end(rn, &c, true);
	if (smp->failed)
		cr->failures++;
	if (tb_stop_requested())
		return -EINTR;
	return ret == -ENOMEM ? ret : 0;
}

/* ---- progress, summary ---------------------------------------------------------------- */

static void progress(struct runner *rn, const char *what, unsigned int round, unsigned int rounds,
		     const struct tb_cell *cell, size_t remaining)
{
	double eta = rn->sample_cost_s * (double)remaining;
	const struct tb_sample *last =
		cell && cell->nsamples ? &cell->samples[cell->nsamples - 1] : NULL;
	char ns[32] = "-", left[32] = "--";

	if (!rn->progress)
		return;
	if (last && !last->failed && isfinite(last->ns_per_op))
		snprintf(ns, sizeof(ns), "%.1f", last->ns_per_op);
	if (rn->samples_done) /* no estimate of a sample's cost before the first */
		snprintf(left, sizeof(left), "%um%02us", (unsigned int)(eta / 60),
			 (unsigned int)fmod(eta, 60));
	fprintf(stderr, "\r\033[K%s %u/%u  %-36.36s  %9s ns/op  ETA %s", what, round, rounds,
		cell ? cell->id : "", ns, left);
}

static void progress_done(struct runner *rn)
{
	if (rn->progress)
		fprintf(stderr, "\r\033[K");
}

static void fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
}

static void fmt_count(char *buf, size_t len, int64_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%lld", (long long)v);
}

static void print_models(FILE *f, const struct tb_result *r)
{
	size_t i;

	if (r->aa && r->aa_summary.present)
		fprintf(f,
			"\nA/A calibration: %zu of %zu baseline-vs-baseline cells called "
			"\"overhead\" (false-positive rate %.0f%%); noise floor +-%.2f%% (largest "
			"CI half-width), largest |difference| %.2f%%\n",
			r->aa_summary.false_positives, r->aa_summary.ncells,
			100 * r->aa_summary.fp_rate, r->aa_summary.noise_floor_pct,
			r->aa_summary.max_abs_pct);
	for (i = 0; i < r->nrate_models; i++) {
		const struct tb_rate_model *m = &r->rate_models[i];

		fprintf(f,
			"\nrate model %s on %s (%zu points): overhead ns/op = %.1f [%.1f, %.1f] + %.1f [%.1f, %.1f] ns x events/op, R^2 %.3f%s\n",
			m->tracer, m->workload_type, m->npoints, m->fixed_ns, m->fixed_ci_lo,
			m->fixed_ci_hi, m->cost_ns, m->cost_ci_lo, m->cost_ci_hi, m->r2,
			m->nonlinear ? "; NOT linear (buffer saturation?)" : "");
	}
}

void tb_runner_print_summary(FILE *f, const struct tb_result *r)
{
	size_t i;

	fprintf(f, "\n%-16s %-18s %11s %11s %24s %9s %11s %8s  %s\n", "workload", "tracer",
		"base ns/op", "ns/op", "overhead % [CI]", "ns/event", "events", "lost", "verdict");
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];
		const struct tb_cell *b = tb_result_baseline(r, c);
		char base[32], med[32], ovh[64], nse[32], ev[32], lost[32];

		fmt_num(base, sizeof(base), b ? b->summary.median : NAN, "%.1f");
		fmt_num(med, sizeof(med), c->summary.n ? c->summary.median : NAN, "%.1f");
		snprintf(ovh, sizeof(ovh), "-");
		snprintf(nse, sizeof(nse), "-");
		if (c->has_overhead && isfinite(c->overhead.pct)) {
			snprintf(ovh, sizeof(ovh), "%+.1f [%+.1f, %+.1f]", c->overhead.pct,
				 c->overhead.ci_lo, c->overhead.ci_hi);
			/* ns/event of an effect the data cannot tell from zero is noise / events.
			 */
			if (c->overhead.verdict == TB_VERDICT_OVERHEAD)
				fmt_num(nse, sizeof(nse), c->overhead.ns_per_event, "%.1f");
		}
		fmt_count(ev, sizeof(ev), c->baseline ? -1 : c->events_recorded);
		fmt_count(lost, sizeof(lost), c->baseline ? -1 : c->events_lost);
		fprintf(f, "%-16.16s %-18.18s %11s %11s %24s %9s %11s %8s  %s\n", c->workload,
			c->tracer, base, med, ovh, nse, ev, lost,
			c->baseline	  ? "(baseline)"
			: c->error	  ? "failed"
			: c->has_overhead ? tb_verdict_name(c->overhead.verdict)
					  : "-");
		if (c->error)
			fprintf(f, "%-16s   error: %s\n", "", c->error);
		else if (c->has_overhead && c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY)
			fprintf(f, "%-16s   why: %s\n", "", c->overhead.reason);
	}
	print_models(f, r);
}

/* ---- result bookkeeping ------------------------------------------------------------------ */

static int write_csv(struct runner *rn)
{
	const struct tb_result *r = rn->r;
	char path[4200], *buf = NULL;
	size_t len = 0, i, j;
	FILE *f;
	int ret;

	f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, "order,round,warmup,cell,workload,tracer,ns_per_op,ops,elapsed_ns,events,lost,"
		   "voluntary_ctxsw,involuntary_ctxsw,minor_faults,tracer_cpu_s,failed\n");
	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		for (j = 0; j < c->nsamples; j++) {
			const struct tb_sample *s = &c->samples[j];

			/* Section names are restricted to [A-Za-z0-9._+-]: no CSV quoting needed.
			 */
			fprintf(f,
				"%u,%d,%d,%s,%s,%s,%.3f,%llu,%.0f,%lld,%lld,%lld,%lld,%lld,%.6f,%d\n",
				s->order, s->round, s->warmup, c->id, c->workload, c->tracer,
				s->ns_per_op, (unsigned long long)s->ops, s->elapsed_ns,
				(long long)s->events, (long long)s->lost, (long long)s->nvcsw,
				(long long)s->nivcsw, (long long)s->minflt,
				isfinite(s->tracer_cpu_s) ? s->tracer_cpu_s : -1.0, s->failed);
		}
	}
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "%s/samples.csv", rn->dir);
	ret = tb_write_atomic(path, buf, len, 0644);
	free(buf);
	return ret;
}

/* Totals over measured samples, then statistics. */
static void aggregate(struct tb_result *r)
{
	size_t i, j;

	for (i = 0; i < r->ncells; i++) {
		struct tb_cell *c = &r->cells[i];
		bool ev_known = false, lost_known = false, cpu_known = false;
		int64_t ev = 0, lost = 0;
		double cpu = 0;

		for (j = 0; j < c->nsamples; j++) {
			const struct tb_sample *s = &c->samples[j];

			if (s->warmup || s->failed)
				continue;
			if (s->events >= 0) {
				ev += s->events;
				ev_known = true;
			}
			if (s->lost >= 0) {
				lost += s->lost;
				lost_known = true;
			}
			if (isfinite(s->tracer_cpu_s)) {
				cpu += s->tracer_cpu_s;
				cpu_known = true;
			}
		}
		c->events_recorded = ev_known ? ev : -1;
		c->events_lost = lost_known ? lost : -1;
		c->tracer_cpu_s = cpu_known ? cpu : NAN;
		/* Rate sweeps: the event rate the traced workload achieved feeds the rate model. */
		if (!c->baseline && ev_known &&
		    json_is_true(json_object_get(c->workload_config, "rate-sweep"))) {
			double secs = 0;

			for (j = 0; j < c->nsamples; j++)
				if (!c->samples[j].warmup && !c->samples[j].failed)
					secs += c->samples[j].elapsed_ns / 1e9;
			c->rate = secs > 0 ? (double)ev / secs : NAN;
		}
	}
	tb_stats_analyze(r);
}

static int save(struct runner *rn, bool final)
{
	char path[4200], ts[32];
	int ret;

	aggregate(rn->r);
	tb_utc_iso(ts, sizeof(ts), time(NULL));
	free(rn->r->finished);
	rn->r->finished = strdup(ts);
	rn->r->partial = !final;
	snprintf(path, sizeof(path), "%s/result.json", rn->dir);
	ret = tb_result_save(rn->r, path);
	if (ret) {
		tb_err("%s: cannot write the result: %s", path, strerror(-ret));
		return ret;
	}
	ret = write_csv(rn);
	if (ret)
		tb_err("%s/samples.csv: cannot write: %s", rn->dir, strerror(-ret));
	return ret;
}

/* ---- plan -------------------------------------------------------------------------------- */

static int check_supported(struct runner *rn, bool skip)
{
	struct tb_scenario *s = rn->s;
	char why[512];
	size_t i;
	int bad = 0;

	for (i = 0; i < s->nworkloads; i++) {
		struct tb_scn_workload *w = &s->workloads[i];

		if (!w->used || !w->ops->supported || !w->ops->supported(why, sizeof(why)))
			continue;
		tb_log(skip ? TB_LOG_WARN : TB_LOG_ERROR,
		       "%s:%d: [workload %s]: %s is unsupported here: %s",
		       s->path, w->line, w->name, w->ops->name, why);
		w->used = false;
		bad++;
	}
	for (i = 1; i < s->ntracers; i++) {
		struct tb_scn_tracer *t = &s->tracers[i];

		if (!t->used || !t->ops->supported || !t->ops->supported(why, sizeof(why)))
			continue;
		tb_log(skip ? TB_LOG_WARN : TB_LOG_ERROR,
		       "%s:%d: [tracer %s]: %s is unsupported here: %s",
		       s->path, t->line, t->name, t->ops->name, why);
		t->used = false;
		bad++;
	}
	return bad && !skip ? -EOPNOTSUPP : 0;
}

int tb_runner_plan(struct tb_scenario *s, struct tb_result *r, struct tb_plan_cell **cellsp,
		   size_t *ncellsp)
{
	size_t i, j, ntr = s->aa ? 2 : s->nmx_tracers;
	struct tb_plan_cell *cr, *cells;
	size_t ncells = 0;

	cells = calloc(s->nmx_workloads * ntr, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	*cellsp = cells;
	*ncellsp = 0;
	for (i = 0; i < s->nmx_workloads; i++) {
		size_t wi = s->mx_workloads[i];
		struct tb_scn_workload *w = &s->workloads[wi];

		if (!w->used)
			continue;
		for (j = 0; j < ntr; j++) {
			size_t ti = s->aa ? 0 : s->mx_tracers[j];
			struct tb_scn_tracer *t = &s->tracers[ti];
			struct tb_cell *c;
			char id[160];

			if (!t->used)
				continue;
			c = tb_result_add_cell(r);
			if (!c)
				return -ENOMEM;
			snprintf(id, sizeof(id), "%s/%s", w->name,
				 s->aa && j ? "none-aa" : t->name);
			c->id = strdup(id);
			c->workload = strdup(w->name);
			c->workload_type = strdup(w->ops->name);
			c->workload_config = tb_opts_to_json(w->ops->opts, w->cfg);
			c->tracer = strdup(s->aa && j ? "none-aa" : t->name);
			c->tracer_type = strdup(t->ops->name);
			c->tracer_config = tb_opts_to_json(t->ops->opts, t->cfg);
			c->baseline = j == 0;
			c->threads = w->threads;
			c->latency_mode = w->latency;
			c->rate = NAN;
			if (!c->id || !c->workload || !c->workload_type || !c->tracer ||
			    !c->tracer_type || !c->workload_config || !c->tracer_config)
				return -ENOMEM;
			if (w->rate_sweep) {
				json_object_set_new(c->workload_config, "rate-sweep", json_true());
			}
			cr = &cells[ncells++];
			*ncellsp = ncells;
			cr->wl = wi;
			cr->tr = ti;
			cr->cell = r->ncells - 1;
		}
	}
	if (!ncells) {
		tb_err("%s: nothing to run (every cell was dropped)", s->path);
		return -EINVAL;
	}
	return 0;
}

static double estimate_s(struct runner *rn)
{
	double per_round = 0;
	size_t i;

	for (i = 0; i < rn->ncells; i++) {
		struct tb_scn_workload *w = &rn->s->workloads[rn->cells[i].wl];
		struct tb_scn_tracer *t = &rn->s->tracers[rn->cells[i].tr];

		/* The batch, two settle delays, and about 50 ms of process and tracer setup. */
		per_round += to_s(w->duration_ns) + 2 * to_s(t->settle_ns) + 0.05;
	}
	return per_round * (rn->s->warmup + rn->s->rounds) +
	       (double)rn->s->nmx_workloads * 0.3; /* calibration */
}

static void print_plan(struct runner *rn, FILE *f)
{
	struct tb_scenario *s = rn->s;
	double est = estimate_s(rn);
	size_t i;

	fprintf(f, "scenario %s (%s): %zu cells, %u warmup + %u rounds%s, %.3g s per sample\n",
		s->name, s->path, rn->ncells, s->warmup, s->rounds,
		s->precision > 0 ? " (adaptive)" : "", to_s(s->duration_ns));
	for (i = 0; i < rn->ncells; i++) {
		const struct tb_cell *c = &rn->r->cells[rn->cells[i].cell];

		fprintf(f, "  %-40s %s x %s%s\n", c->id, c->workload_type, c->tracer_type,
			c->baseline ? "  (baseline)" : "");
	}
	fprintf(f, "estimated time: %um%02us%s\n", (unsigned int)(est / 60),
		(unsigned int)fmod(est, 60),
		s->precision > 0 ? " for the minimum rounds; adaptive stopping may add more" : "");
}

/* ---- the run directory ------------------------------------------------------------------- */

/* 0 when outdir may become the run directory: absent, or an empty directory. */
static int check_outdir(const char *outdir)
{
	struct dirent *de;
	struct stat st;
	bool empty = true;
	DIR *d;

	if (stat(outdir, &st))
		return 0;
	d = opendir(outdir);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	if (d)
		closedir(d);
	if (!S_ISDIR(st.st_mode) || !empty) {
		tb_err("%s: exists and is not an empty directory; a run directory is never overwritten",
		       outdir);
		return -EEXIST;
	}
	return 0;
}

static int make_run_dir(struct runner *rn, const char *outdir)
{
	char host[256] = "unknown", ts[32];
	time_t now = time(NULL);
	struct tm tm;
	int i, ret;

	if (outdir) {
		if (check_outdir(outdir))
			return -EEXIST;
		snprintf(rn->dir, sizeof(rn->dir), "%s", outdir);
		ret = tb_mkdir_p(rn->dir, 0755);
		if (ret)
			tb_err("%s: cannot create the run directory: %s", outdir, strerror(-ret));
		return ret;
	}
	if (rn->anonymize)
		snprintf(host, sizeof(host), "anon");
	else
		gethostname(host, sizeof(host) - 1);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	for (i = 0; i < 100; i++) {

		snprintf(rn->dir, sizeof(rn->dir), "results/%s-%s-%s%s%.0d", ts, host, rn->s->name,
			 i ? "-" : "", i);
		ret = tb_mkdir_p("results", 0755);
		if (!ret && mkdir(rn->dir, 0755) == 0)
			return 0;
		if (!ret && errno != EEXIST)
			ret = -errno;
		if (ret) {
			tb_err("%s: cannot create the run directory: %s", rn->dir, strerror(-ret));
			return ret;
		}
	}
	return -EEXIST;
}

/* ---- latency ---------------------------------------------------------------------------- */

/* Copy a cell's merged histogram into its result fields (quantiles and non-empty buckets). */
static int fill_latency(struct tb_cell *c, const struct tb_hist *h)
{
	struct tb_latency *l = &c->latency;
	uint64_t upper, count;
	unsigned int pos = 0;
	size_t n = 0;

	l->present = true;
	l->count = h->count;
	l->p50 = tb_hist_quantile(h, 0.50);
	l->p90 = tb_hist_quantile(h, 0.90);
	l->p99 = tb_hist_quantile(h, 0.99);
	l->p999 = tb_hist_quantile(h, 0.999);
	l->max = (double)tb_hist_max(h);
	free(l->bucket_ns);
	free(l->bucket_count);
	l->bucket_ns = calloc(TB_RESULT_MAX_BUCKETS, sizeof(*l->bucket_ns));
	l->bucket_count = calloc(TB_RESULT_MAX_BUCKETS, sizeof(*l->bucket_count));
	if (!l->bucket_ns || !l->bucket_count)
		return -ENOMEM;
	while (n < TB_RESULT_MAX_BUCKETS && tb_hist_next(h, &pos, &upper, &count)) {
		l->bucket_ns[n] = (double)upper;
		l->bucket_count[n] = count;
		n++;
	}
	l->nbuckets = n;
	return 0;
}

/* ---- the rounds --------------------------------------------------------------------------- */

void tb_runner_round_order(gsl_rng *rng, size_t n, size_t *order)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	/* A fresh order every round, so drift hits baseline and traced cells alike. */
	gsl_ran_shuffle(rng, order, n, sizeof(order[0]));
}

static bool precise_enough(const struct tb_result *r, double precision)
{
	size_t i;

	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->baseline || c->error)
			continue;
		if (!c->has_overhead || !isfinite(c->overhead.ci_lo) ||
		    !isfinite(c->overhead.ci_hi))
			return false;
		if ((c->overhead.ci_hi - c->overhead.ci_lo) / 2 > precision * 100)
			return false;
	}
	return true;
}

const char *tb_runner_stop_reason(const struct tb_result *r, unsigned int done,
				  const struct tb_stop_rule *rule, uint64_t elapsed_ns)
{
	if (rule->precision <= 0) {
		if (done >= rule->rounds)
			return "rounds";
	} else {
		if (done >= rule->min_rounds && precise_enough(r, rule->precision))
			return "precision";
		if (done >= rule->max_rounds)
			return "max-rounds";
	}
	if (rule->max_time_ns && elapsed_ns >= rule->max_time_ns)
		return "max-time";
	return NULL;
}

static int run_round(struct runner *rn, int round, bool warmup, unsigned int nrounds,
		     unsigned int total_rounds)
{
	size_t order[rn->ncells], i;
	int ret;

	tb_runner_round_order(rn->rng, rn->ncells, order);
	for (i = 0; i < rn->ncells; i++) {
		struct tb_plan_cell *cr = &rn->cells[order[i]];
		uint64_t t0 = tb_now_ns();
		size_t remaining =
			rn->planned > rn->samples_done ? rn->planned - rn->samples_done : 0;

		if (cr->dead)
			continue;
		progress(rn, warmup ? "warmup" : "round", nrounds, total_rounds,
			 &rn->r->cells[cr->cell], remaining);
		ret = run_sample(rn, cr, round, warmup);
		if (ret)
			return ret;
		rn->samples_done++;
		rn->sample_cost_s +=
			(to_s(tb_now_ns() - t0) - rn->sample_cost_s) / rn->samples_done;
		if (cr->dead)
			tb_err("%s: %s; the cell is skipped from now on", rn->r->cells[cr->cell].id,
			       rn->r->cells[cr->cell].error);
	}
	return 0;
}

static int run_all(struct runner *rn)
{
	struct tb_scenario *s = rn->s;
	unsigned int done = 0, target = s->precision > 0 ? s->min_rounds : s->rounds;
	struct tb_stop_rule rule = {
		.rounds = s->rounds,
		.min_rounds = s->min_rounds,
		.max_rounds = s->max_rounds,
		.precision = s->precision,
		.max_time_ns = s->max_time_ns,
	};
	unsigned int w;
	size_t i;
	int ret = 0;

	for (i = 0; i < s->nworkloads; i++) {
		if (!s->workloads[i].used)
			continue;
		ret = calibrate(rn, i);
		if (ret)
			return ret;
	}
	for (i = 0; i < rn->ncells; i++)
		rn->r->cells[rn->cells[i].cell].ops_per_sample = rn->wls[rn->cells[i].wl].ops;
	rn->planned = (size_t)(s->warmup + target) * rn->ncells;
	for (w = 0; w < s->warmup; w++) {
		ret = run_round(rn, -1, true, w + 1, s->warmup);
		if (ret)
			return ret;
	}
	for (;;) {
		const char *why;

		if (done >= target) /* adaptive stopping asked for another round */
			rn->planned += rn->ncells;
		ret = run_round(rn, (int)done, false, done + 1, target > done ? target : done + 1);
		if (ret)
			return ret;
		done++;
		rn->r->rounds = done;
		save(rn, false);
		why = tb_runner_stop_reason(rn->r, done, &rule, tb_now_ns() - rn->t_start);
		if (why) {
			free(rn->r->stop_reason);
			rn->r->stop_reason = strdup(why);
			break;
		}
	}
	return 0;
}

/* ---- the command -------------------------------------------------------------------------- */

static char *command_line(int argc, char **argv)
{
	struct tb_strlist l = {.v = argv, .n = (size_t)argc};

	return tb_strlist_join(&l, " ");
}

static void apply_overrides(struct tb_scenario *s, bool quick, int64_t rounds, uint64_t dur,
			    double prec, int64_t seed, uint64_t maxt, bool aa)
{
	size_t i;

	if (quick) {
		s->rounds = 5;
		s->min_rounds = 5;
		s->warmup = s->warmup > 1 ? 1 : s->warmup;
		if (s->duration_ns > 200000000)
			s->duration_ns = 200000000;
		for (i = 0; i < s->nworkloads; i++)
			if (s->workloads[i].duration_ns > 200000000)
				s->workloads[i].duration_ns = 200000000;
	}
	if (rounds > 0)
		s->rounds = (unsigned int)rounds;
	if (dur) {
		s->duration_ns = dur;
		for (i = 0; i < s->nworkloads; i++)
			s->workloads[i].duration_ns = dur;
	}
	if (prec >= 0)
		s->precision = prec;
	if (seed >= 0) {
		s->seed = (uint64_t)seed;
		s->seed_set = true;
	}
	if (maxt)
		s->max_time_ns = maxt;
	if (aa)
		s->aa = true;
	if (!s->seed_set)
		s->seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
}

static int init_result(struct runner *rn, int argc, char **argv)
{
	struct tb_scenario *s = rn->s;
	struct tb_result *r = rn->r;
	char ts[32];
	size_t i;

	tb_utc_iso(ts, sizeof(ts), time(NULL));
	r->scenario_name = strdup(s->name);
	r->scenario_path = strdup(s->path);
	r->scenario_text = strdup(s->text);
	r->command_line = command_line(argc, argv);
	r->started = strdup(ts);
	r->seed = s->seed;
	r->warmup = s->warmup;
	r->duration_ns = s->duration_ns;
	r->noise_threshold = s->noise_threshold;
	r->max_cv = s->max_cv;
	r->alpha = s->alpha;
	r->power = s->power;
	r->confidence = s->confidence;
	r->resamples = s->resamples;
	r->precision = s->precision;
	r->aa = s->aa;
	if (s->ngate) {
		r->gate = json_object();
		for (i = 0; r->gate && i < s->ngate; i++)
			json_object_set_new(r->gate, s->gate_keys[i], json_string(s->gate_vals[i]));
	}
	if (!r->tool_version || !r->scenario_name || !r->scenario_path || !r->scenario_text ||
	    !r->command_line || !r->started || !r->warnings)
		return -ENOMEM;
	return 0;
}

static void record_environment(struct runner *rn)
{
	struct tb_result *r = rn->r;
	size_t i;

	r->system = tb_sysinfo_collect("/", 0);
	if (!r->system)
		tb_warn("cannot capture the system fingerprint");
	json_decref(r->foreign);
	r->foreign = tb_foreign_instrumentation();
	for (i = 0; r->foreign && i < json_array_size(r->foreign); i++)
		tb_warn("foreign instrumentation is active and biases the baseline: %s",
			json_string_value(json_array_get(r->foreign, i)));
}

static void cleanup_tmp(struct runner *rn)
{
	if (rn->tmproot[0])
		tb_rm_rf(rn->tmproot);
	rn->tmproot[0] = '\0';
}

static int make_tmp(struct runner *rn)
{
	size_t i;

	snprintf(rn->tmproot, sizeof(rn->tmproot), "/tmp/tracebench-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(rn->tmproot)) {
		int e = -errno;

		tb_err("%s: cannot create a scratch directory: %s", rn->tmproot, strerror(errno));
		rn->tmproot[0] = '\0';
		return e;
	}
	chmod(rn->tmproot, 0755);
	for (i = 0; i < rn->s->nworkloads; i++) {
		snprintf(rn->wls[i].tmpdir, sizeof(rn->wls[i].tmpdir), "%s/%zu", rn->tmproot, i);
		if (tb_mkdir_p(rn->wls[i].tmpdir, 0755))
			return -EIO;
	}
	return 0;
}

static void after_run(struct runner *rn)
{
	int ret;

	if (rn->no_plots)
		return;
	ret = tb_plot_result(rn->r, rn->dir, 0);
	if (ret == -ENOENT)
		tb_warn("no plots: gnuplot or the plot scripts were not found (install gnuplot-nox)");
	else if (ret < 0)
		tb_warn("plots failed: %s", strerror(-ret));
	else
		printf("plots:   %s/plots/ (%d plots, PNG and SVG)\n", rn->dir, ret);
	{
		char path[4200], plotdir[4200];

		snprintf(path, sizeof(path), "%s/report.html", rn->dir);
		snprintf(plotdir, sizeof(plotdir), "%s/plots", rn->dir);
		ret = tb_report_write(rn->r, ret < 0 ? NULL : plotdir, path);
		if (ret)
			tb_warn("%s: cannot write the report: %s", path, strerror(-ret));
		else
			printf("report:  %s\n", path);
	}
}

int tb_cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"quick", no_argument, NULL, 'Q'},
		{"rounds", required_argument, NULL, 'r'},
		{"duration", required_argument, NULL, 'd'},
		{"precision", required_argument, NULL, 'p'},
		{"max-time", required_argument, NULL, 'm'},
		{"seed", required_argument, NULL, 's'},
		{"aa", no_argument, NULL, 'A'},
		{"dry-run", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},
		{"no-plots", no_argument, NULL, 'P'},
		{"gate", no_argument, NULL, 'g'},
		{"skip-unsupported", no_argument, NULL, 'S'},
		{"wait", no_argument, NULL, 'W'},
		{"anonymize", no_argument, NULL, 'Z'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct runner rn = {0};
	const char *outdir = NULL;
	bool quick = false, aa = false, skip = false, interrupted = false, wait_lock = false;
	int64_t rounds = -1, seed = -1;
	uint64_t dur = 0, maxt = 0;
	double prec = -1;
	int c, ret, rc = TB_EXIT_OK;
	bool locked = false;
	pid_t holder = 0;
	json_t *report = NULL;
	size_t i;

	while ((c = tb_cli_getopt(argc, argv, "o:qh", longopts, run_usage)) != -1) {
		switch (c) {
		case 'o':
			outdir = optarg;
			break;
		case 'Q':
			quick = true;
			break;
		case 'r':
			if (tb_parse_int(optarg, &rounds) || rounds < 1 || rounds > 100000)
				return tb_cli_bad_value("run", "--rounds", optarg, "1 to 100000");
			break;
		case 'd':
			if (tb_parse_duration(optarg, &dur) || dur < 1000000)
				return tb_cli_bad_value("run", "--duration", optarg,
							"at least 1ms");
			break;
		case 'p':
			if (tb_parse_percent(optarg, &prec) || prec <= 0 || prec >= 1)
				return tb_cli_bad_value("run", "--precision", optarg, "e.g. 1%");
			break;
		case 'm':
			if (tb_parse_duration(optarg, &maxt) || !maxt)
				return tb_cli_bad_value("run", "--max-time", optarg, "e.g. 10m");
			break;
		case 's':
			if (tb_parse_int(optarg, &seed) || seed < 0)
				return tb_cli_bad_value("run", "--seed", optarg, "a number >= 0");
			break;
		case 'A':
			aa = true;
			break;
		case 'n':
			rn.dry_run = true;
			break;
		case 'j':
			rn.json_out = true;
			break;
		case 'P':
			rn.no_plots = true;
			break;
		case 'g':
			rn.gate = true;
			break;
		case 'S':
			skip = true;
			break;
		case 'W':
			wait_lock = true;
			break;
		case 'Z':
			rn.anonymize = true;
			break;
		case 'q':
			rn.quiet = true;
			break;
		case 'h':
			printf("%s", run_usage);
			return TB_EXIT_OK;
		default:
			return TB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		tb_err("run: %s",
		       optind >= argc ? "no scenario file given" : "one scenario file only");
		fprintf(stderr, "%s", run_usage);
		return TB_EXIT_USAGE;
	}
	ret = tb_scenario_load(argv[optind], &rn.s);
	if (ret)
		return ret == -ENOMEM ? TB_EXIT_FAIL : TB_EXIT_USAGE;
	apply_overrides(rn.s, quick, rounds, dur, prec, seed, maxt, aa);
	rn.r = tb_result_new();
	rn.wls = calloc(rn.s->nworkloads, sizeof(*rn.wls));
	if (!rn.r || !rn.wls) {
		rc = TB_EXIT_FAIL;
		goto out;
	}
	rn.r->rounds = 0;
	if (check_supported(&rn, skip)) {
		tb_err("run: unsupported plugins here (--skip-unsupported drops their cells)");
		rc = TB_EXIT_UNAVAILABLE;
		goto out;
	}
	if (tb_runner_plan(rn.s, rn.r, &rn.cells, &rn.ncells) || resolve_cpus(&rn)) {
		rc = TB_EXIT_USAGE;
		goto out;
	}
	if (rn.dry_run) {
		print_plan(&rn, stdout);
		goto out;
	}
	if (geteuid() != 0) {
		for (i = 0; i < rn.ncells; i++)
			if (!rn.r->cells[rn.cells[i].cell].baseline &&
			    rn.s->tracers[rn.cells[i].tr].ops != tb_tracer_find("none"))
				break;
		if (i < rn.ncells) {
			tb_err("run: tracers need root (CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON)");
			rc = TB_EXIT_UNAVAILABLE;
			goto out;
		}
	}
	/* Bad input before waiting for anything. */
	if (outdir && check_outdir(outdir)) {
		rc = TB_EXIT_USAGE;
		goto out;
	}
	if (wait_lock && tb_lock_holder() > 0 && tb_lock_holder() != getpid())
		tb_info("run: waiting for the run of pid %d to finish", (int)tb_lock_holder());
	ret = tb_lock_acquire(wait_lock, &holder);
	if (ret == -EBUSY) {
		tb_err("run: another tracebench run (pid %d) is measuring on this machine; wait for it or stop it",
		       (int)holder);
		rc = TB_EXIT_UNAVAILABLE;
		goto out;
	} else if (ret) {
		tb_err("run: cannot take the run lock: %s", strerror(-ret));
		rc = TB_EXIT_UNAVAILABLE;
		goto out;
	}
	locked = true;
	/* Undo what a killed run left, before measuring anything. */
	if (tb_cleanup_stale(0, &report) > 0) {
		for (i = 0; i < json_array_size(report); i++)
			tb_warn("cleaned up after a dead run: %s",
				json_string_value(json_array_get(report, i)));
	}
	json_decref(report);
	ret = tb_inject_init();
	if (ret) {
		tb_err("run: cannot map the shared control page: %s", strerror(-ret));
		rc = TB_EXIT_FAIL;
		goto out;
	}
	rn.progress = !rn.quiet && isatty(STDERR_FILENO) && tb_log_get_level() >= TB_LOG_INFO;
	if (init_result(&rn, argc, argv) || make_run_dir(&rn, outdir) || make_tmp(&rn)) {
		rc = outdir && errno == EEXIST ? TB_EXIT_USAGE : TB_EXIT_FAIL;
		goto out;
	}
	rn.rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rn.rng) {
		rc = TB_EXIT_FAIL;
		goto out;
	}
	gsl_rng_set(rn.rng, rn.s->seed);
	install_signals();
	if (!rn.quiet)
		print_plan(&rn, stderr);
	record_environment(&rn);
	if (rn.anonymize && tb_result_anonymize(rn.r, 0)) {
		rc = TB_EXIT_FAIL;
		goto out;
	}
	rn.t_start = tb_now_ns();
	ret = run_all(&rn);
	progress_done(&rn);
	if (ret == -EINTR || tb_stop_requested()) {
		interrupted = true;
		free(rn.r->stop_reason);
		rn.r->stop_reason = strdup("interrupted");
		tb_warn("interrupted: tracers torn down, writing the %u completed rounds as a partial result",
			rn.r->rounds);
	} else if (ret) {
		tb_err("run: %s", strerror(-ret));
		rc = TB_EXIT_FAIL;
	}
	for (i = 0; i < rn.ncells; i++)
		if (rn.cells[i].hist)
			fill_latency(&rn.r->cells[rn.cells[i].cell], rn.cells[i].hist);
	if (save(&rn, !interrupted && !ret)) {
		rc = TB_EXIT_FAIL;
		goto out;
	}
	if (rn.json_out) {
		json_t *doc = tb_result_to_json(rn.r);

		if (doc)
			json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		printf("\n");
		json_decref(doc);
	} else {
		tb_runner_print_summary(stdout, rn.r);
		printf("\nresult:  %s/result.json\n", rn.dir);
	}
	if (!interrupted && sigcount == 0)
		after_run(&rn);
	for (i = 0; i < rn.ncells; i++)
		if (rn.r->cells[rn.cells[i].cell].error)
			rc = TB_EXIT_FAIL;
	if (interrupted)
		rc = TB_EXIT_FAIL;
	if (rn.gate && !interrupted && rc == TB_EXIT_OK) {
		struct tb_gate_opts go;

		tb_gate_opts_init(&go);
		go.name = rn.dir;
		rc = tb_gate_result(rn.r, NULL, &go, stdout);
	}
out:
	cleanup_tmp(&rn);
	if (locked)
		tb_lock_release();
	for (i = 0; i < rn.ncells; i++)
		free(rn.cells[i].hist);
	free(rn.cells);
	free(rn.wls);
	if (rn.rng)
		gsl_rng_free(rn.rng);
	tb_result_free(rn.r);
	tb_scenario_free(rn.s);
	return rc;
}
