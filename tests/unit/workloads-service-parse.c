// SPDX-License-Identifier: GPL-2.0
/*
 * workloads/service-parse.h: each client's real output (h2load 1.52, wrk 4.1, redis-benchmark
 * 7.0, pgbench 15 as Debian 12 ships them, captured on the development VM) gives its figures;
 * truncated or garbled output is a clear error naming what is missing or the bad line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tb_test.h"
#include "workloads/service-parse.h"

static const char h2load_out[] =
	"starting benchmark...\n"
	"spawning thread #0: 8 total client(s). 20000 total requests\n"
	"Application protocol: http/1.1\n"
	"progress: 10% done\n"
	"progress: 100% done\n"
	"\n"
	"finished in 915.48ms, 21846.49 req/s, 3.19MB/s\n"
	"requests: 20000 total, 20000 started, 20000 done, 19997 succeeded, 3 failed, 1 errored, "
	"0 timeout\n"
	"status codes: 19997 2xx, 0 3xx, 2 4xx, 0 5xx\n"
	"traffic: 2.92MB (3057552) total, 2.06MB (2159920) headers (space savings 0.00%), "
	"117.19KB (120000) data\n"
	"                     min         max         mean         sd        +/- sd\n"
	"time for request:       60us     20.33ms       360us      1.07ms    95.02%\n"
	"time for connect:       29us       125us        65us        30us    75.00%\n"
	"time to 1st byte:      158us      3.33ms       816us      1.18ms    87.50%\n"
	"req/s           :    2731.78     2768.94     2741.59       16.83    75.00%\n";

static const char wrk_out[] = "Running 2s test @ http://127.0.0.1:18080/\n"
			      "  1 threads and 8 connections\n"
			      "  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"
			      "    Latency     1.51ms    2.46ms  21.99ms   86.35%\n"
			      "    Req/Sec    28.13k     4.62k   37.97k    70.00%\n"
			      "  Latency Distribution\n"
			      "     50%   80.00us\n"
			      "     75%    2.28ms\n"
			      "     90%    4.85ms\n"
			      "     99%   10.11ms\n"
			      "  56667 requests in 2.03s, 8.27MB read\n"
			      "  Socket errors: connect 0, read 2, write 0, timeout 1\n"
			      "  Non-2xx or 3xx responses: 4\n"
			      "Requests/sec:  27909.98\n"
			      "Transfer/sec:      4.07MB\n";

static const char redis_out[] =
	" GET: rps=0.0 (overall: -nan) avg_msec=-nan (overall: -nan)\r"
	" GET: rps=63752.0 (overall: 63752.0) avg_msec=0.090 (overall: 0.090)\r"
	"====== GET ======\n"
	"  20000 requests completed in 0.30 seconds\n"
	"  8 parallel clients\n"
	"  3 bytes payload\n"
	"  keep alive: 1\n"
	"\n"
	"Latency by percentile distribution:\n"
	"0.000% <= 0.023 milliseconds (cumulative count 4)\n"
	"50.000% <= 0.063 milliseconds (cumulative count 13137)\n"
	"98.438% <= 0.295 milliseconds (cumulative count 19691)\n"
	"99.219% <= 1.647 milliseconds (cumulative count 19844)\n"
	"99.902% <= 3.199 milliseconds (cumulative count 19981)\n"
	"100.000% <= 3.855 milliseconds (cumulative count 20000)\n"
	"\n"
	"Cumulative distribution of latencies:\n"
	"93.910% <= 0.103 milliseconds (cumulative count 18782)\n"
	"98.985% <= 0.703 milliseconds (cumulative count 19797)\n"
	"99.000% <= 0.807 milliseconds (cumulative count 19800)\n"
	"99.880% <= 3.103 milliseconds (cumulative count 19976)\n"
	"100.000% <= 4.103 milliseconds (cumulative count 20000)\n"
	"\n"
	"Summary:\n"
	"  throughput summary: 66006.60 requests per second\n"
	"  latency summary (msec):\n"
	"          avg       min       p50       p95       p99       max\n"
	"        0.085     0.016     0.063     0.119     0.743     3.855\n";

static const char pgbench_out[] = "pgbench (15.18 (Debian 15.18-0+deb12u1))\n"
				  "transaction type: <builtin: select only>\n"
				  "scaling factor: 1\n"
				  "number of clients: 4\n"
				  "duration: 2 s\n"
				  "number of transactions actually processed: 9733\n"
				  "number of failed transactions: 1 (0.010%)\n"
				  "number of transactions skipped: 2 (0.020%)\n"
				  "latency average = 1.230 ms\n"
				  "rate limit schedule lag: avg 0.815 (max 7.707) ms\n"
				  "initial connection time = 15.035 ms\n"
				  "tps = 4902.570664 (without initial connection time)\n";

/* The first n bytes of text as a string of its own. */
static char *cut(const char *text, size_t n)
{
	char *s = malloc(n + 1);

	memcpy(s, text, n);
	s[n] = '\0';
	return s;
}

static void test_h2load(void)
{
	/* 4 rows, one a failed stream (status -1, no latency): 663, 475, 1000 us */
	static const char log[] = "1796482416227662\t200\t663\n"
				  "1796482416227906\t404\t475\n"
				  "1796482416227883\t-1\t505\n"
				  "1796482416227859\t200\t1000\n";
	struct tb_wl_svc_figs f;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(tb_wl_svc_parse_h2load(h2load_out, &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f.requests, 20000);
	CU_ASSERT_DOUBLE_EQUAL(f.duration_s, 0.91548, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.rps, 21846.49, 1e-6);
	CU_ASSERT_EQUAL(f.errors, 3); /* failed holds the errored and the non-2xx/3xx */
	CU_ASSERT(isnan(f.p50_ns));   /* from the log, never the summary's mean */
	/* the summary said 20000 done: a log of 4 rows is cut short */
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load_log(log, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "4 rows"));
	f.requests = 4;
	CU_ASSERT_EQUAL_FATAL(tb_wl_svc_parse_h2load_log(log, &f, err, sizeof(err)), 0);
	CU_ASSERT_DOUBLE_EQUAL(f.p50_ns, 663e3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.p99_ns, 1000e3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.p999_ns, 1000e3, 1e-6);
	/* a log of failed streams only has no latency */
	f.requests = 0;
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load_log("1\t-1\t5\n", &f, err, sizeof(err)), -ENODATA);
}

static void test_wrk(void)
{
	struct tb_wl_svc_figs f;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(tb_wl_svc_parse_wrk(wrk_out, &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f.requests, 56667);
	CU_ASSERT_DOUBLE_EQUAL(f.duration_s, 2.03, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.rps, 27909.98, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.p50_ns, 80e3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.p99_ns, 10.11e6, 1e-3);
	CU_ASSERT(isnan(f.p999_ns)); /* wrk gives none: never made up */
	CU_ASSERT_EQUAL(f.errors, 7);
}

static void test_redis(void)
{
	struct tb_wl_svc_figs f;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(tb_wl_svc_parse_redis(redis_out, &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f.requests, 20000);
	CU_ASSERT_DOUBLE_EQUAL(f.rps, 66006.60, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.p50_ns, 0.063e6, 1e-3);
	/* 99% is first reached by the cumulative table's 0.807 ms, 99.9% by 3.199 ms */
	CU_ASSERT_DOUBLE_EQUAL(f.p99_ns, 0.807e6, 1e-3);
	CU_ASSERT_DOUBLE_EQUAL(f.p999_ns, 3.199e6, 1e-3);
	CU_ASSERT_EQUAL(f.errors, 0);
}

static void test_pgbench(void)
{
	static const char log[] = "2 1 2547 0 1796226686 761805 87\n"
				  "0 1 3346 0 1796226686 762319 4\n"
				  "1 1 skipped 0 1796226686 762796 21\n"
				  "1 2 1000 0 1796226686 762796 0\n";
	struct tb_wl_svc_figs f;
	char err[256] = "";

	CU_ASSERT_EQUAL_FATAL(tb_wl_svc_parse_pgbench(pgbench_out, &f, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(f.requests, 9733);
	CU_ASSERT_DOUBLE_EQUAL(f.rps, 4902.570664, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(f.duration_s, 2, 1e-9);
	CU_ASSERT_EQUAL(f.errors, 3);
	CU_ASSERT_EQUAL_FATAL(tb_wl_svc_parse_pgbench_log(log, &f, err, sizeof(err)), 0);
	/* latency = time + schedule lag: 1000, 2634, 3350 us; the skipped one has none */
	CU_ASSERT_DOUBLE_EQUAL(f.p50_ns, 2634e3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.p99_ns, 3350e3, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(f.p999_ns, 3350e3, 1e-6);
}

/* Every prefix of each output fails with a message, or parses to finite figures. */
static void test_truncated(void)
{
	static const struct {
		const char *text;
		int (*parse)(const char *, struct tb_wl_svc_figs *, char *, size_t);
	} cases[] = {{h2load_out, tb_wl_svc_parse_h2load},
		     {wrk_out, tb_wl_svc_parse_wrk},
		     {redis_out, tb_wl_svc_parse_redis},
		     {pgbench_out, tb_wl_svc_parse_pgbench}};
	struct tb_wl_svc_figs f;
	char err[256], *s;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = strlen(cases[c].text);

		for (size_t i = 0; i < n; i++) {
			int ret;

			s = cut(cases[c].text, i);

			err[0] = '\0';
			ret = cases[c].parse(s, &f, err, sizeof(err));
			CU_ASSERT(ret ? ret == -EINVAL && err[0] : isfinite(f.rps));
			free(s);
		}
	}
	/* the empty and the cut-off ends name what is missing */
	CU_ASSERT_EQUAL(tb_wl_svc_parse_wrk("", &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "requests in"));
	s = cut(redis_out, 200);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_redis(s, &f, err, sizeof(err)), -EINVAL);
	free(s);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_pgbench_log("", &f, err, sizeof(err)), -ENODATA);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load("", &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "finished in"));
	s = cut(h2load_out, (size_t)(strstr(h2load_out, "requests: ") - h2load_out));
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load(s, &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "requests: N total"));
	free(s);
	/* a log cut mid-row: its last row has no latency column */
	f.requests = 0;
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load_log("1\t200\t5\n2\t20", &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 2"));
}

static void test_garbled(void)
{
	struct tb_wl_svc_figs f;
	char err[256];

	CU_ASSERT_EQUAL(tb_wl_svc_parse_wrk("  10 requests in 2.0parsecs, 1MB read\n", &f, err,
					    sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "2.0parsecs"));
	CU_ASSERT_EQUAL(tb_wl_svc_parse_wrk("  10 requests in 2.00s, 1MB read\n"
					    "Requests/sec: nan\n",
					    &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_wrk("  10 requests in 2.00s\nRequests/sec: 5\n"
					    "     50%   1e999us\n",
					    &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_redis("  5 requests completed in 1.0 seconds\n"
					      "throughput summary: 5 requests per second\n"
					      "150.000% <= 1.0 milliseconds\n",
					      &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_pgbench("number of transactions actually processed: x\n",
						&f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_pgbench_log("0 1 12 0 1796226686\n", &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 1"));
	CU_ASSERT_EQUAL(
		tb_wl_svc_parse_pgbench_log("0 1 12 0 1 2\n0 2 -5 0 1 2\n", &f, err, sizeof(err)),
		-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 2"));
	/* h2load: a rate that is not one, counts that contradict each other, a status or a
	 * latency that is not one */
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load("finished in 1.00s, fast req/s, 1MB/s\n", &f, err,
					       sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "fast"));
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load("finished in 1.00s, 10.0 req/s, 1MB/s\n"
					       "requests: 10 total, 10 started, 12 done, 10 "
					       "succeeded, 0 failed, 0 errored, 0 timeout\n",
					       &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load("finished in 1.00s, 10.0 req/s, 1MB/s\n"
					       "requests: 10 total, 10 started\n",
					       &f, err, sizeof(err)),
			-EINVAL);
	f.requests = 0;
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load_log("1\t200\t5\n2\t2000\t5\n", &f, err, sizeof(err)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "line 2"));
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load_log("1\t200\t-5\n", &f, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(tb_wl_svc_parse_h2load_log("1\t200\t5us\n", &f, err, sizeof(err)), -EINVAL);
}

static CU_TestInfo service_parse_tests[] = {
	{"h2load's summary and log give requests, rate, errors and percentiles", test_h2load},
	{"wrk's report gives requests, rate, p50, p99 and errors", test_wrk},
	{"redis-benchmark's tables give the percentiles' upper bounds", test_redis},
	{"pgbench's summary and log give the latency from the schedule", test_pgbench},
	{"truncated output is an error or finite figures, never a crash", test_truncated},
	{"garbled output is an error naming the line", test_garbled},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("workloads-service-parse", NULL, NULL, service_parse_tests);
