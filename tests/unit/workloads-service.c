// SPDX-License-Identifier: GPL-2.0
/*
 * workloads/service.h's sizing of a sample from the warm-up's rate: the requests of a duration
 * at a rate, never below the minimum that the percentiles need; the warm-up's two runs; a rate
 * that is none (a garbled or empty client output) is an error, never a made-up sample.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "tb_test.h"
#include "workloads/service.h"

static void test_requests(void)
{
	/* 50,000 requests/s for 200 ms; 10/s would be 2: the minimum instead */
	CU_ASSERT_EQUAL(tb_wl_svc_requests(50000, 200000000ull), 10000);
	CU_ASSERT_EQUAL(tb_wl_svc_requests(12345.5, 1000000000ull), 12346);
	CU_ASSERT_EQUAL(tb_wl_svc_requests(10, 200000000ull), TB_WL_SVC_MIN_REQUESTS);
	CU_ASSERT_EQUAL(tb_wl_svc_requests(1e6, 0), TB_WL_SVC_MIN_REQUESTS);
	/* no rate: not a number, none, negative, infinite, beyond what loopback reaches */
	CU_ASSERT_EQUAL(tb_wl_svc_requests(NAN, 200000000ull), 0);
	CU_ASSERT_EQUAL(tb_wl_svc_requests(0, 200000000ull), 0);
	CU_ASSERT_EQUAL(tb_wl_svc_requests(-5, 200000000ull), 0);
	CU_ASSERT_EQUAL(tb_wl_svc_requests(INFINITY, 200000000ull), 0);
	CU_ASSERT_EQUAL(tb_wl_svc_requests(1e300, 200000000ull), 0);
	/* wrk's whole seconds: rounded, never below one */
	CU_ASSERT_EQUAL(tb_wl_svc_whole_seconds_ns(200000000ull), 1000000000ull);
	CU_ASSERT_EQUAL(tb_wl_svc_whole_seconds_ns(2600000000ull), 3000000000ull);
}

/* A stand-in client: its runs' sizes recorded, the rate it reports set by the test. */
static uint64_t runs[4];
static size_t nruns;
static double rate;

static int fake_run(struct tb_workload *w, uint64_t n, struct tb_wl_svc_figs *f)
{
	(void)w;
	if (nruns < 4)
		runs[nruns] = n;
	nruns++;
	tb_wl_svc_figs_init(f);
	f->requests = n;
	f->rps = rate;
	return 0;
}

static int warm(uint64_t warmup_ns, uint64_t duration_ns, double r, uint64_t *n)
{
	struct tb_wl_svc_cfg c = {.connections = 8, .client_warmup = warmup_ns};
	struct tb_workload w = {.name = "svc", .cfg = &c, .duration_ns = duration_ns};

	nruns = 0;
	rate = r;
	*n = 0;
	return tb_wl_svc_warm_up(&w, fake_run, n);
}

#define MS 1000000ull

static void test_warm_up(void)
{
	uint64_t n;

	/* no warm-up asked: the minimum alone, whose rate sizes the sample (50,000/s x 200 ms) */
	CU_ASSERT_EQUAL(warm(0, 200 * MS, 50000, &n), 0);
	CU_ASSERT_EQUAL(nruns, 1);
	CU_ASSERT_EQUAL(runs[0], TB_WL_SVC_MIN_REQUESTS);
	CU_ASSERT_EQUAL(n, 10000);
	/* a long warm-up: then the rest of it at the first run's rate (10/s for about 600 s) */
	CU_ASSERT_EQUAL(warm(600000 * MS, 600000 * MS, 10, &n), 0);
	CU_ASSERT_EQUAL(nruns, 2);
	CU_ASSERT(runs[1] >= 5990 && runs[1] <= 6000);
	CU_ASSERT_EQUAL(n, 6000);
	/* ... but never longer than the sample: 200 ms at 10/s is 2 requests more, not worth a run */
	CU_ASSERT_EQUAL(warm(600000 * MS, 200 * MS, 10, &n), 0);
	CU_ASSERT_EQUAL(nruns, 1);
	CU_ASSERT_EQUAL(n, TB_WL_SVC_MIN_REQUESTS);
	/* a client whose output gave no rate (garbled, empty, absurd): an error, no sample */
	CU_ASSERT_EQUAL(warm(600000 * MS, 600000 * MS, NAN, &n), -EINVAL);
	CU_ASSERT_EQUAL(nruns, 1);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_EQUAL(warm(0, 200 * MS, 1e12, &n), -EINVAL);
	CU_ASSERT_EQUAL(warm(0, 200 * MS, 0, &n), -EINVAL);
}

static CU_TestInfo service_tests[] = {
	{"a sample's requests: the duration at the rate, at least the minimum", test_requests},
	{"the warm-up measures the rate; a rate that is none is an error", test_warm_up},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("workloads-service", NULL, NULL, service_tests);
