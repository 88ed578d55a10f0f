// SPDX-License-Identifier: GPL-2.0
/*
 * The traced window, end to end through the runner's own sample protocol (runner/child.h) and
 * real ftrace tracers: the harness makes no syscall while a tracer is live (a read tracepoint
 * over getpid, a write tracepoint, raw_syscalls over the null workload: exactly 0 events, one
 * thread or two on CPUs of their own), counts are exact, and every registered workload's table
 * (workloads/<x>.c `events`) is what the kernel records: its syscalls by name, their total, and
 * its scheduler events, judged by the proof of tracing (model/proof.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/measured.h"
#include "model/proof.h"
#include "runner/child.h"
#include "tb_test.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

/* Options a workload needs to run at all (no usable default). */
static const char *const overrides[][3] = {
	{"command", "command", "true"},
};

static void *config(const struct tb_option *opts, size_t size, const char *name, const char *k,
		    const char *v)
{
	void *cfg = calloc(1, size ? size : 1);
	char err[256];
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	if (opts)
		CU_ASSERT_EQUAL(tb_opts_defaults(opts, cfg), 0);
	for (i = 0; i < TB_ARRAY_SIZE(overrides); i++)
		if (!strcmp(overrides[i][0], name))
			CU_ASSERT_EQUAL(
				tb_opts_set(opts, cfg, overrides[i][1], overrides[i][2], err, 256),
				0);
	if (k && tb_opts_set(opts, cfg, k, v, err, sizeof(err)))
		printf("\n    %s: %s", name, err);
	return cfg;
}

/* One live cell: a workload, an ftrace-events tracer on events, threads on cpus. */
struct live {
	struct tb_scn_workload w;
	struct tb_scn_tracer t;
	struct tb_result *r;
	struct tb_cell *c;
	int cpus[2];
	size_t ncpus;
};

static void live_free(struct live *l)
{
	if (l->w.ops && l->w.ops->opts)
		tb_opts_free(l->w.ops->opts, l->w.cfg);
	if (l->t.ops && l->t.ops->opts)
		tb_opts_free(l->t.ops->opts, l->t.cfg);
	free(l->w.cfg);
	free(l->t.cfg);
	tb_result_free(l->r);
	memset(l, 0, sizeof(*l));
}

/* The expectation, as the runner works it out (runner/runner.c). */
static void expect(struct live *l, const struct tb_measure_req *req)
{
	struct tb_op_context ctx = {.threads = req->threads, .one_cpu = req->ncpus == 1};
	struct tb_op_events ops, harness;
	struct tb_hooks h;

	tb_op_events_init(&ops);
	CU_ASSERT_EQUAL(l->w.ops->events(l->w.cfg, &ctx, &ops), 0);
	tb_hooks_init(&h);
	CU_ASSERT_EQUAL(l->t.ops->hooks(l->t.cfg, &h), 0);
	tb_measure_window_events(req, &harness);
	tb_proof_expect(&ops, &h, &harness, &l->c->expected);
	tb_hooks_free(&h);
}

static int run(struct live *l, const char *wl, const char *k, const char *v, const char *tk,
	       const char *tv, uint64_t target_ns, const char *events, unsigned int threads,
	       size_t ncpus);

/*
 * Run one measured sample of workload wl (with option k=v) under ftrace events, threads on
 * ncpus CPUs (the last ones), into l. Returns 0 or what failed.
 */
static int run_live(struct live *l, const char *wl, const char *k, const char *v,
		    const char *events, unsigned int threads, size_t ncpus)
{
	return run(l, wl, k, v, NULL, NULL, 20000000, events, threads, ncpus);
}

/* The same with the tracer's option tk = tv, one thread, samples of target_ns. */
static int run_live_opts(struct live *l, const char *wl, const char *tk, const char *tv,
			 uint64_t target_ns, const char *events)
{
	return run(l, wl, NULL, NULL, tk, tv, target_ns, events, 1, 1);
}

static int run(struct live *l, const char *wl, const char *k, const char *v, const char *tk,
	       const char *tv, uint64_t target_ns, const char *events, unsigned int threads,
	       size_t ncpus)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct tb_measure_job job = {.consumer_cpu = -1, .round = 0, .timeout_ns = 60000000000ull};
	struct tb_hist *hist = NULL;
	char err[256];
	bool dead = false;
	size_t i;
	int ret;

	memset(l, 0, sizeof(*l));
	l->w.name = (char *)wl;
	l->w.ops = tb_workload_find(wl);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l->w.ops);
	l->w.cfg = config(l->w.ops->opts, l->w.ops->cfg_size, wl, k, v);
	l->t.name = "window";
	l->t.ops = tb_tracer_find("ftrace-events");
	l->t.cfg = config(l->t.ops->opts, l->t.ops->cfg_size, "ftrace-events", "events", events);
	if (tk)
		CU_ASSERT_EQUAL(tb_opts_set(l->t.ops->opts, l->t.cfg, tk, tv, err, sizeof(err)), 0);
	l->t.settle_ns = 10000000;
	CU_ASSERT_EQUAL(l->t.ops->validate(l->t.cfg, err, sizeof(err)), 0);
	l->ncpus = ncpus < (size_t)online ? ncpus : (size_t)online;
	for (i = 0; i < l->ncpus; i++)
		l->cpus[i] = (int)(online - (long)l->ncpus + (long)i);
	l->r = tb_result_new();
	l->c = tb_result_add_cell(l->r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l->c);
	l->c->id = strdup(wl);
	l->c->workload = strdup(wl);
	l->c->workload_type = strdup(wl);
	l->c->tracer = strdup("window");
	l->c->tracer_type = strdup("ftrace-events");
	l->c->threads = threads;
	job.w = &l->w;
	job.t = &l->t;
	job.tracer_dir = tb_test_tmpdir_open();
	job.req = (struct tb_measure_req){.wl = l->w.ops,
					 .name = wl,
					 .cfg = l->w.cfg,
					 .tmpdir = tb_test_tmpdir(),
					 .threads = threads,
					 .cpus = l->cpus,
					 .ncpus = l->ncpus};
	ret = tb_child_calibrate(&job.req, target_ns, job.timeout_ns, &job.req.ops);
	if (ret)
		return ret;
	l->c->ops_per_sample = job.req.ops;
	expect(l, &job.req);
	job.expect = l->c->expected.items;
	job.nexpect = l->c->expected.nitems;
	ret = tb_child_sample(&job, l->c, &hist, &dead);
	free(hist);
	if (ret || l->c->error || !l->c->nsamples || l->c->samples[0].failed) {
		printf("\n    %s under %s: %s", wl, events, l->c->error ? l->c->error : "failed");
		return ret ? ret : -EIO;
	}
	tb_result_update_totals(l->r);
	tb_proof_judge(l->c, l->c->samples[0].ns_per_op, false, &l->c->proof);
	return 0;
}

/* Exactly 0: the workload makes none of these, and the harness none at all. */
static void none_recorded(const char *wl, const char *events, unsigned int threads, size_t ncpus)
{
	struct live l;

	CU_ASSERT_EQUAL_FATAL(run_live(&l, wl, NULL, NULL, events, threads, ncpus), 0);
	if (l.c->events_recorded != 0)
		printf("\n    %s (%u threads) under %s: %lld events", wl, threads, events,
		       (long long)l.c->events_recorded);
	CU_ASSERT_EQUAL(l.c->events_recorded, 0);
	CU_ASSERT_EQUAL(l.c->events_lost, 0);
	CU_ASSERT_EQUAL(l.c->proof.outcome, TB_PROOF_CONTROL);
	live_free(&l);
}

static void test_no_harness_syscalls(void)
{
	TB_NEED_TRACING();
	/* the old protocol read a "go" byte and wrote its figures inside the window */
	none_recorded("getpid", "syscalls:sys_enter_read", 1, 1);
	none_recorded("getpid", "syscalls:sys_enter_write", 1, 1);
	none_recorded("null", "raw_syscalls:sys_enter, raw_syscalls:sys_exit", 1, 1);
	/* threads on CPUs of their own spin at the gate and after the batch */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		none_recorded("null", "raw_syscalls:sys_enter, raw_syscalls:sys_exit", 2, 2);
	else
		printf("\n    (one CPU: the two-thread case is not checked)");
}

static void test_exact(void)
{
	struct live l;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(run_live(&l, "getpid", "calls", "3",
				       "raw_syscalls:sys_enter, raw_syscalls:sys_exit", 1, 1),
			      0);
	CU_ASSERT_EQUAL(l.c->events_recorded, (int64_t)(6 * l.c->ops_per_sample));
	CU_ASSERT_EQUAL(l.c->proof.outcome, TB_PROOF_MATCH);
	live_free(&l);
}

/*
 * buffer-size = auto at the demo's rate (scenarios/quick.ini: raw_syscalls and scheduler
 * tracepoints over getpid, streamed): a whole sample fits, nothing is lost, on a machine of any
 * speed, since the size follows the calibrated ops.
 */
static void test_auto_buffer(void)
{
	struct live l;
	json_t *auto_size;

	TB_NEED_TRACING();
	CU_ASSERT_EQUAL_FATAL(
		run_live(
			&l, "getpid", NULL, NULL,
			"raw_syscalls:sys_enter, raw_syscalls:sys_exit, sched:sched_switch, sched:sched_wakeup",
			1, 1),
		0);
	/* run_live calibrated to 20 ms; the same again with a stream consumer at 10 x that */
	live_free(&l);
	CU_ASSERT_EQUAL_FATAL(run_live_opts(&l, "getpid", "consumer", "stream", 200000000,
					    "raw_syscalls:sys_enter, raw_syscalls:sys_exit, "
					    "sched:sched_switch, sched:sched_wakeup"),
			      0);
	auto_size = json_object_get(l.c->tracer_extra, "buffer_size_auto");
	printf("\n    %llu ops: %lld events, %lld lost, auto %lld bytes per CPU",
	       (unsigned long long)l.c->ops_per_sample, (long long)l.c->events_recorded,
	       (long long)l.c->events_lost, (long long)json_integer_value(auto_size));
	CU_ASSERT_EQUAL(l.c->events_lost, 0);
	CU_ASSERT(l.c->events_recorded >= (int64_t)(2 * l.c->ops_per_sample));
	/* sized for the sample: ops x (a 68-byte sys_enter + a 28-byte sys_exit) and a margin */
	CU_ASSERT((double)json_integer_value(auto_size) >= 96.0 * (double)l.c->ops_per_sample);
	CU_ASSERT_EQUAL(l.c->proof.outcome, TB_PROOF_MATCH);
	live_free(&l);
}

/* The tracepoints of every syscall a table lists, entries and returns. */
static void table_events(const struct tb_op_events *ev, char *buf, size_t len)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < ev->n; i++) {
		const char *name = ev->ev[i].name;

		if (strncmp(name, "syscall:", 8) || strstr(buf, name + 8))
			continue;
		n += (size_t)snprintf(buf + n, len - n,
				      "%ssyscalls:sys_enter_%s, syscalls:sys_exit_%s",
				      n ? ", " : "", name + 8, name + 8);
	}
}

/* Whether another task took the workload's CPU during a sample (it waited, or was preempted). */
static bool contended(const struct tb_cell *c)
{
	size_t i;

	for (i = 0; i < c->nsamples; i++)
		if (c->samples[i].wait_ns > 0 || c->samples[i].nivcsw > 0)
			return true;
	return false;
}

/*
 * The proof of one sample of wl with events. approx: the counts are the table's approximate
 * ones (scheduler events): on a machine where other tasks took the workload's CPU every
 * preemption adds a switch, so "above" is then what the proof must say, not a wrong table.
 */
static void judged(const char *wl, const char *what, const char *events, int want, int or,
		   bool approx)
{
	struct live l;
	int o;

	if (run_live(&l, wl, NULL, NULL, events, 1, 1)) {
		CU_FAIL("the sample failed");
		live_free(&l);
		return;
	}
	o = (int)l.c->proof.outcome;
	if (approx && o == TB_PROOF_ABOVE && contended(l.c)) {
		printf("\n    %s, %s: above on a contended CPU (another task preempted it): %s", wl,
		       what, l.c->proof.message);
		o = want;
	}
	if (getenv("TB_TEST_VERBOSE") || (o != want && o != or))
		printf("\n    %s, %s: %s: %s", wl, what, tb_proof_outcome_name(l.c->proof.outcome),
		       l.c->proof.message);
	CU_ASSERT(o == want || o == or);
	live_free(&l);
}

/* Every registered workload's table against the kernel's own records. */
static void test_registry_tables(void)
{
	struct tb_op_context ctx = {.threads = 1, .one_cpu = true};
	char why[256], events[2048];
	size_t i;

	TB_NEED_TRACING();
	for (i = 0; tb_workloads[i]; i++) {
		const struct tb_workload_ops *wl = tb_workloads[i];
		struct tb_op_events ev;
		bool syscalls = false;
		void *cfg;

		if (wl->supported && wl->supported(why, sizeof(why))) {
			printf("\n    SKIPPED %s: not supported here: %s", wl->name, why);
			continue;
		}
#ifdef __SANITIZE_ADDRESS__
		/* ASan's fork interceptor adds syscalls and context switches to every fork: the
		 * table describes the workload, not the sanitizer's runtime. */
		if (!strcmp(wl->name, "fork-exit")) {
			printf("\n    SKIPPED %s: under ASan, fork does the sanitizer's work too",
			       wl->name);
			continue;
		}
#endif
		cfg = config(wl->opts, wl->cfg_size, wl->name, NULL, NULL);
		tb_op_events_init(&ev);
		CU_ASSERT_EQUAL(wl->events(cfg, &ctx, &ev), 0);
		if (wl->opts)
			tb_opts_free(wl->opts, cfg);
		free(cfg);
		table_events(&ev, events, sizeof(events));
		syscalls = events[0] != '\0';
		/* the total: every syscall of the op is listed (the command's are not known) */
		judged(wl->name, "all syscalls", "raw_syscalls:sys_enter, raw_syscalls:sys_exit",
		       syscalls ? TB_PROOF_MATCH : TB_PROOF_CONTROL,
		       ev.syscalls_known ? TB_PROOF_MATCH : TB_PROOF_UNVERIFIED, false);
		/* each by its name */
		if (syscalls)
			judged(wl->name, "its syscalls", events, TB_PROOF_MATCH, TB_PROOF_MATCH,
			       false);
		/* the scheduler */
		if (ev.sched_known)
			judged(wl->name, "scheduler", "sched:sched_switch, sched:sched_wakeup",
			       TB_PROOF_MATCH, TB_PROOF_CONTROL, true);
	}
}

static CU_TestInfo tests[] = {
	{"no harness syscall in the traced window (0 events)", test_no_harness_syscalls},
	{"exact counts through the sample protocol", test_exact},
	{"buffer-size = auto: no loss at the demo's rate", test_auto_buffer},
	{"every workload's events per op are the kernel's", test_registry_tables},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("runner-window", tb_test_tracing_init, tb_test_tracing_clean, tests);
