// SPDX-License-Identifier: GPL-2.0
/*
 * The sample core: calibration sanity, repeated batches on one run, latency mode with its
 * clock cost, pinning, bad requests, and a failing workload. No tight timing assertions.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner/measure.h"
#include "core/tb.h"
#include "tb_test.h"
#include "workloads/workload.h"

static const struct tb_workload_ops *find(const char *name)
{
	const struct tb_workload_ops *wl = tb_workload_find(name);

	CU_ASSERT_PTR_NOT_NULL(wl);
	return wl;
}

static void *defaults(const struct tb_workload_ops *wl)
{
	void *cfg = calloc(1, wl->cfg_size ? wl->cfg_size : 1);

	if (cfg && wl->opts)
		CU_ASSERT_EQUAL(tb_opts_defaults(wl->opts, cfg), 0);
	return cfg;
}

/*
 * Calibrate for a 20 ms target and run that batch. Loose sanity only (within 5x), and up to
 * three attempts: the machine is shared and noisy, a broken calibration fails every time.
 */
static void calibrate_one(const char *name)
{
	const struct tb_workload_ops *wl = find(name);
	struct tb_measure_req req = {0};
	struct tb_measure_run *run = NULL;
	struct tb_measure_res *res = malloc(sizeof(*res));
	uint64_t ops = 0, target = 20000000; /* 20 ms */
	bool ok = false;
	int cpu0 = 0, attempt;

	if (!wl || !res)
		goto out;
	req.wl = wl;
	req.cfg = defaults(wl);
	req.tmpdir = tb_test_tmpdir();
	req.cpus = &cpu0;
	req.ncpus = 1;
	for (attempt = 0; attempt < 3 && !ok; attempt++) {
		CU_ASSERT_EQUAL(tb_measure_calibrate(&req, target, &ops), 0);
		CU_ASSERT(ops > 1);
		req.ops = ops;
		CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
		CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
		printf("\n    %s: %llu ops, batch %.1f ms for a 20 ms target, %.2f ns/op", name,
		       (unsigned long long)ops, (double)res->elapsed_ns / 1e6, res->ns_per_op);
		ok = res->elapsed_ns > target / 5 && res->elapsed_ns < target * 5;
		CU_ASSERT_DOUBLE_EQUAL(res->ns_per_op, (double)res->elapsed_ns / (double)ops, 1e-6);
		tb_measure_finish(run);
	}
	CU_ASSERT_TRUE(ok);
	free(req.cfg);
out:
	free(res);
}

static void test_calibrate(void)
{
	calibrate_one("null");
	calibrate_one("getpid");
}

static void test_repeat_and_counts(void)
{
	const struct tb_workload_ops *wl = find("getpid");
	struct tb_measure_req req = {0};
	struct tb_measure_run *run = NULL;
	struct tb_measure_res *res = malloc(sizeof(*res));
	pid_t tids[4];
	int i;

	if (!wl || !res)
		goto out;
	req = (struct tb_measure_req){.wl = wl,
				      .cfg = defaults(wl),
				      .tmpdir = tb_test_tmpdir(),
				      .threads = 3,
				      .ops = 20000,
				      .perf_counts = true};
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_tids(run, tids, 4), 3);
	CU_ASSERT_EQUAL(tids[0], gettid());
	CU_ASSERT(tids[1] != tids[0] && tids[2] != tids[1] && tids[1] > 0);
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
		CU_ASSERT_EQUAL(res->ops, 20000);
		CU_ASSERT_EQUAL(res->threads, 3);
		CU_ASSERT(res->elapsed_ns > 0);
		CU_ASSERT(res->cpu_user_s + res->cpu_sys_s > 0);
		CU_ASSERT(res->perf_task_clock_ns > 0);
		CU_ASSERT(res->perf_ctxsw >= 0);
		CU_ASSERT(res->perf_faults >= 0);
		CU_ASSERT_FALSE(res->latency);
		CU_ASSERT_EQUAL(res->hist.count, 0);
	}
	CU_ASSERT_EQUAL(tb_measure_go_ops(run, 7, res), 0);
	CU_ASSERT_EQUAL(res->ops, 7);
	CU_ASSERT_EQUAL(tb_measure_go_ops(run, 0, res), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(res->errmsg, "0 ops"));
	tb_measure_finish(run);
	free(req.cfg);

	/* without perf_counts the counts say unknown */
	req.perf_counts = false;
	req.threads = 1;
	req.cfg = defaults(wl);
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT_EQUAL(res->perf_task_clock_ns, -1);
	CU_ASSERT_EQUAL(res->perf_ctxsw, -1);
	tb_measure_finish(run);
	free(req.cfg);
out:
	free(res);
}

static void test_latency(void)
{
	const struct tb_workload_ops *wl = find("getpid");
	struct tb_measure_req req = {0};
	struct tb_measure_run *run = NULL;
	struct tb_measure_res *res = malloc(sizeof(*res));

	if (!wl || !res)
		goto out;
	req = (struct tb_measure_req){.wl = wl,
				      .cfg = defaults(wl),
				      .tmpdir = tb_test_tmpdir(),
				      .ops = 10000,
				      .latency = true,
				      .latency_every = 10};
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT_TRUE(res->latency);
	CU_ASSERT_EQUAL(res->latency_every, 10);
	CU_ASSERT_EQUAL(res->hist.count, 1000);
	CU_ASSERT(res->clock_cost_ns > 0 && res->clock_cost_ns < 100000);
	CU_ASSERT(tb_hist_quantile(&res->hist, 0.5) <= tb_hist_quantile(&res->hist, 0.99));
	CU_ASSERT(tb_hist_max(&res->hist) > 0);
	printf("\n    getpid latency: p50 %.0f ns, p99 %.0f ns, clock pair %.1f ns",
	       tb_hist_quantile(&res->hist, 0.5), tb_hist_quantile(&res->hist, 0.99),
	       res->clock_cost_ns);
	tb_measure_finish(run);

	/* every op timed */
	req.latency_every = 1;
	req.ops = 500;
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT_EQUAL(res->hist.count, 500);
	tb_measure_finish(run);

	/* fewer ops than latency_every: the first op is still timed */
	req.latency_every = 1000;
	req.ops = 10;
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT_EQUAL(res->hist.count, 1);
	CU_ASSERT_EQUAL(res->ops, 10);
	tb_measure_finish(run);
	free(req.cfg);
out:
	free(res);
}

/* A workload that records its CPU and fails on demand. */
static int probe_cpu = -2, probe_fail;

static int probe_setup(struct tb_workload *w)
{
	if (probe_fail == 1 && w->thread == 1)
		return -EIO;
	return 0;
}

static int probe_run(struct tb_workload *w, uint64_t n)
{
	probe_cpu = sched_getcpu();
	return probe_fail == 2 ? -EPIPE : 0;
}

static const struct tb_workload_ops probe = {
	.name = "probe",
	.help = "test workload",
	.setup = probe_setup,
	.run_batch = probe_run,
};

static void test_pin_and_failures(void)
{
	struct tb_measure_req req = {.wl = &probe, .name = "sec", .tmpdir = "/tmp", .ops = 1};
	struct tb_measure_res *res = malloc(sizeof(*res));
	struct tb_measure_run *run = NULL;
	int cpus[] = {1, 0}, bad = -3;
	cpu_set_t before, after;

	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof(before), &before), 0);
	req.cpus = cpus;
	req.ncpus = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
	if (req.ncpus)
		CU_ASSERT_EQUAL(probe_cpu, 1);
	tb_measure_finish(run);
	/* the caller's affinity is restored */
	CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof(after), &after), 0);
	CU_ASSERT(CPU_EQUAL(&before, &after));

	/* a failed setup in thread 1 fails prepare and leaves no thread behind */
	probe_fail = 1;
	req.threads = 3;
	req.ncpus = 0;
	CU_ASSERT_EQUAL(tb_measure_prepare(&req, &run), -EIO);
	CU_ASSERT_PTR_NULL(run);

	/* a failing run_batch fails the sample with a message naming the section */
	probe_fail = 2;
	req.threads = 1;
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), -EPIPE);
	CU_ASSERT_EQUAL(res->error, -EPIPE);
	CU_ASSERT_PTR_NOT_NULL(strstr(res->errmsg, "sec"));
	tb_measure_finish(run);
	probe_fail = 0;

	/* bad requests */
	req.cpus = &bad;
	req.ncpus = 1;
	CU_ASSERT_EQUAL(tb_measure_prepare(&req, &run), -EINVAL);
	req.ncpus = 0;
	req.threads = 100000;
	CU_ASSERT_EQUAL(tb_measure_prepare(&req, &run), -EINVAL);
	req.threads = 1;
	req.tmpdir = NULL;
	CU_ASSERT_EQUAL(tb_measure_prepare(&req, &run), -EINVAL);
	req.tmpdir = "/tmp";
	req.wl = NULL;
	CU_ASSERT_EQUAL(tb_measure_prepare(&req, &run), -EINVAL);
	free(res);
}

/* A one-shot workload whose untimed finish sleeps, counts its ops and records when it ran. */
static uint64_t fin_b0, fin_b1, fin_f0, fin_f1;
static int fin_ret, fin_calls;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fin_run(struct tb_workload *w, uint64_t n)
{
	(void)w;
	(void)n;
	fin_b0 = mono_ns();
	fin_b1 = mono_ns();
	return 0;
}

static int fin_finish(struct tb_workload *w)
{
	fin_calls++;
	fin_f0 = mono_ns();
	usleep(50000);
	w->ops_done = 1234;
	fin_f1 = mono_ns();
	return fin_ret;
}

static const struct tb_workload_ops fin = {
	.name = "fin",
	.help = "test workload with a finish_batch",
	.flags = TB_WL_ONESHOT | TB_WL_NOLATENCY,
	.run_batch = fin_run,
	.finish_batch = fin_finish,
};

static void test_finish_batch(void)
{
	struct tb_measure_req req = {.wl = &fin, .name = "sec", .tmpdir = "/tmp", .ops = 1};
	struct tb_measure_res *res = malloc(sizeof(*res));
	struct tb_measure_run *run = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(res);
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	fin_ret = 0;
	fin_calls = 0;
	CU_ASSERT_EQUAL(tb_measure_go(run, res), 0);
	CU_ASSERT_EQUAL(fin_calls, 1);
	/* it ran after the batch, and before the figures: its ops are the sample's */
	CU_ASSERT(fin_f0 >= fin_b1);
	CU_ASSERT_EQUAL(res->ops, 1234);
	/* Outside the timed interval: had the batch's end been read after the finish, the
	 * interval would span from before b0 to after f1. */
	CU_ASSERT(res->elapsed_ns < fin_f1 - fin_b0);
	CU_ASSERT(res->elapsed_ns > 0);

	/* a failing finish fails the sample, naming the section and the step */
	fin_ret = -EIO;
	CU_ASSERT_EQUAL(tb_measure_go(run, res), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(res->errmsg, "sec"));
	CU_ASSERT_PTR_NOT_NULL(strstr(res->errmsg, "finishing the batch"));
	tb_measure_finish(run);

	/* a failed batch is not finished */
	fin_ret = 0;
	fin_calls = 0;
	probe_fail = 2;
	req.wl = &probe;
	CU_ASSERT_EQUAL_FATAL(tb_measure_prepare(&req, &run), 0);
	CU_ASSERT_EQUAL(tb_measure_go(run, res), -EPIPE);
	CU_ASSERT_EQUAL(fin_calls, 0);
	tb_measure_finish(run);
	probe_fail = 0;
	free(res);
}

static void test_flat_result(void)
{
	struct tb_measure_res *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	int fd[2];
	pid_t pid;

	/* The result crosses a pipe as bytes: it must hold its histogram inline. */
	CU_ASSERT(sizeof(struct tb_measure_res) >= sizeof(struct tb_hist));
	CU_ASSERT(sizeof(struct tb_measure_res) < 64 * 1024);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(pipe(fd), 0);
	pid = fork();
	if (pid == 0) {
		/* larger than a pipe's atomic write: the reader must assemble it */
		tb_hist_init(&a->hist);
		tb_hist_add(&a->hist, 12345);
		a->ops = 42;
		a->ns_per_op = 1.5;
		snprintf(a->errmsg, sizeof(a->errmsg), "hello");
		_exit(tb_measure_res_write(fd[1], a) ? 1 : 0);
	}
	close(fd[1]);
	CU_ASSERT_EQUAL(tb_measure_res_read(fd[0], b), 0);
	CU_ASSERT_EQUAL(b->ops, 42);
	CU_ASSERT_DOUBLE_EQUAL(b->ns_per_op, 1.5, 0);
	CU_ASSERT_STRING_EQUAL(b->errmsg, "hello");
	CU_ASSERT_EQUAL(tb_hist_max(&b->hist), 12345);
	/* the writer is gone: a second read finds EOF, not a zeroed result */
	CU_ASSERT_EQUAL(tb_measure_res_read(fd[0], b), -EPIPE);
	close(fd[0]);
	waitpid(pid, NULL, 0);
	free(a);
	free(b);
}

static CU_TestInfo tests[] = {
	{"calibration gives about the target", test_calibrate},
	{"repeated batches, threads, counts", test_repeat_and_counts},
	{"latency mode", test_latency},
	{"pinning and failures", test_pin_and_failures},
	{"finish_batch runs untimed", test_finish_batch},
	{"flat result", test_flat_result},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("runner-measure", NULL, NULL, tests);
