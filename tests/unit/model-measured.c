// SPDX-License-Identifier: GPL-2.0
/* Measured figures: the consumer's CPU per event, per sample and per cell, on synthetic data. */
#include <math.h>

#include "core/tb.h"
#include "model/measured.h"
#include "model/result.h"
#include "tb_test.h"

static struct tb_sample *sample(struct tb_cell *c, bool warmup, double cpu_s, int64_t events)
{
	struct tb_sample *s = tb_cell_add_sample(c);

	s->warmup = warmup;
	s->round = warmup ? -1 : 0;
	s->ns_per_op = 100;
	s->ops = 1000;
	s->elapsed_ns = 1e8;
	s->tracer_cpu_s = cpu_s;
	s->events = events;
	return s;
}

static void test_consumer_per_event(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_cell *c;
	json_t *doc, *cell;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	c = tb_result_add_cell(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sample(c, true, 9.0, 1000);    /* a warmup: not in the cell's figure */
	sample(c, false, 0.002, 1000); /* 2 ms over 1000 events: 2000 ns each */
	sample(c, false, 0.004, 1000); /* 4000 ns each */
	sample(c, false, NAN, 5000);   /* no CPU figure: left out of both sums */
	sample(c, false, 0.5, 0);      /* no events: no per-event figure */
	CU_ASSERT_DOUBLE_EQUAL(tb_sample_consumer_ns_per_event(&c->samples[1]), 2000, 1e-6);
	CU_ASSERT(isnan(tb_sample_consumer_ns_per_event(&c->samples[3])));
	CU_ASSERT(isnan(tb_sample_consumer_ns_per_event(&c->samples[4])));
	/* the cell's is the sums' ratio, not a mean of ratios: (2 + 4) ms / 2000 events */
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_consumer_ns_per_event(c), 3000, 1e-6);
	tb_result_update_totals(r);
	CU_ASSERT_DOUBLE_EQUAL(c->consumer_ns_per_event, 3000, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(c->samples[2].consumer_ns_per_event, 4000, 1e-6);
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	cell = json_array_get(json_object_get(doc, "cells"), 0);
	CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(cell, "consumer_ns_per_event")),
			       3000, 1e-6);
	/* NAN is left out of the sample, not written as null */
	CU_ASSERT_PTR_NULL(json_object_get(json_array_get(json_object_get(cell, "samples"), 4),
					   "consumer_ns_per_event"));
	json_decref(doc);
	tb_result_free(r);
}

static void test_no_consumer(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_cell *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	c = tb_result_add_cell(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	sample(c, false, 0, 1000); /* a tracer without a consumer reports 0 s */
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_consumer_ns_per_event(c), 0, 1e-12);
	c->samples[0].events = -1; /* events unknown */
	CU_ASSERT(isnan(tb_cell_consumer_ns_per_event(c)));
	tb_result_free(r);
}

static void test_disk_bytes_per_event(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_cell *c;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	c = tb_result_add_cell(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT(isnan(tb_cell_disk_bytes_per_event(c)));
	sample(c, false, 0, 1000)->disk_bytes = 40000;
	sample(c, false, 0, 3000)->disk_bytes = 80000;
	sample(c, false, 0, 5000); /* bytes unknown: left out */
	sample(c, true, 0, 10)->disk_bytes = 1 << 20;
	CU_ASSERT_DOUBLE_EQUAL(tb_cell_disk_bytes_per_event(c), 30, 1e-9);
	tb_result_update_totals(r);
	CU_ASSERT_DOUBLE_EQUAL(c->disk_bytes_per_event, 30, 1e-9);
	tb_result_free(r);
}

static CU_TestInfo measured_tests[] = {
	{"consumer CPU per event", test_consumer_per_event},
	{"consumer CPU without a consumer", test_no_consumer},
	{"disk bytes per event", test_disk_bytes_per_event},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("model-measured", NULL, NULL, measured_tests);
