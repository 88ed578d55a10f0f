// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram: bucket layout, quantiles against known data, merge, iteration. */
#include <math.h>
#include <stdlib.h>

#include "core/hist.h"
#include "tb_test.h"

static void test_layout(void)
{
	uint64_t v[] = {0,
			1,
			31,
			32,
			63,
			64,
			65,
			100,
			1000,
			4095,
			4096,
			123456789,
			60000000000ull,
			(1ull << 37) - 1};
	unsigned int i, idx, prev = 0;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		idx = tb_hist_index(v[i]);
		CU_ASSERT(idx < TB_HIST_BUCKETS);
		CU_ASSERT(tb_hist_bucket_lo(idx) <= v[i]);
		CU_ASSERT(tb_hist_bucket_hi(idx) >= v[i]);
		/* a bucket is at most 1/32 of its lower bound wide (1 ns below 64) */
		CU_ASSERT(tb_hist_bucket_hi(idx) - tb_hist_bucket_lo(idx) + 1 <=
			  (v[i] < 64 ? 1 : tb_hist_bucket_lo(idx) / 32));
		CU_ASSERT(idx >= prev);
		prev = idx;
	}
	CU_ASSERT_EQUAL(tb_hist_index(1ull << 37), TB_HIST_BUCKETS);
	/* buckets tile the range without gaps */
	for (i = 1; i < TB_HIST_BUCKETS; i++)
		CU_ASSERT_EQUAL_FATAL(tb_hist_bucket_lo(i), tb_hist_bucket_hi(i - 1) + 1);
}

static void test_quantiles(void)
{
	struct tb_hist h;
	uint64_t i;
	double q;

	tb_hist_init(&h);
	CU_ASSERT_EQUAL(tb_hist_quantile(&h, 0.5), 0);
	CU_ASSERT_EQUAL(tb_hist_max(&h), 0);
	/* 1..100000 ns uniformly: quantile q is about q * 100000 */
	for (i = 1; i <= 100000; i++)
		tb_hist_add(&h, i);
	CU_ASSERT_EQUAL(h.count, 100000);
	CU_ASSERT_EQUAL(tb_hist_max(&h), 100000);
	q = tb_hist_quantile(&h, 0.5);
	CU_ASSERT(fabs(q - 50000) <= 50000 / 32.0);
	q = tb_hist_quantile(&h, 0.99);
	CU_ASSERT(fabs(q - 99000) <= 99000 / 32.0);
	q = tb_hist_quantile(&h, 0.001);
	CU_ASSERT(fabs(q - 100) <= 4);
	CU_ASSERT_DOUBLE_EQUAL(tb_hist_quantile(&h, 1.0), 100000, 0);
	CU_ASSERT_DOUBLE_EQUAL(tb_hist_mean(&h), 50000.5, 1e-6);

	/* a bimodal set: 990 at 200 ns, 10 at 1 ms: p50 200, p99 at the edge, p999 1 ms */
	tb_hist_init(&h);
	for (i = 0; i < 990; i++)
		tb_hist_add(&h, 200);
	for (i = 0; i < 10; i++)
		tb_hist_add(&h, 1000000);
	CU_ASSERT(fabs(tb_hist_quantile(&h, 0.5) - 200) <= 200 / 32.0);
	CU_ASSERT(fabs(tb_hist_quantile(&h, 0.999) - 1000000) <= 1000000 / 32.0);
	CU_ASSERT_EQUAL(tb_hist_max(&h), 1000000);
}

static void test_overflow_merge_iterate(void)
{
	struct tb_hist a, b;
	uint64_t upper, count, total = 0, last = 0;
	unsigned int pos = 0, n = 0;

	tb_hist_init(&a);
	tb_hist_init(&b);
	tb_hist_add(&a, 5);
	tb_hist_add(&a, 5);
	tb_hist_add(&b, 1000);
	tb_hist_add(&b, 200000000000ull); /* 200 s: overflow */
	tb_hist_merge(&a, &b);
	CU_ASSERT_EQUAL(a.count, 4);
	CU_ASSERT_EQUAL(a.overflow, 1);
	CU_ASSERT_EQUAL(a.min, 5);
	CU_ASSERT_EQUAL(tb_hist_max(&a), 200000000000ull);
	CU_ASSERT_DOUBLE_EQUAL(tb_hist_quantile(&a, 0.99), 200000000000.0, 0);
	while (tb_hist_next(&a, &pos, &upper, &count)) {
		CU_ASSERT(upper > last || n == 0);
		last = upper;
		total += count;
		n++;
	}
	CU_ASSERT_EQUAL(n, 3);
	CU_ASSERT_EQUAL(total, 4);
	CU_ASSERT_EQUAL(last, 200000000000ull);
	CU_ASSERT_FALSE(tb_hist_next(&a, &pos, &upper, &count));
}

static CU_TestInfo tests[] = {
	{"bucket layout", test_layout},
	{"quantiles of known data", test_quantiles},
	{"overflow, merge, iteration", test_overflow_merge_iterate},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-histogram", NULL, NULL, tests);
