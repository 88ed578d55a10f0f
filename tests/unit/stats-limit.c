// SPDX-License-Identifier: GPL-2.0
/*
 * `run --find-limit`'s conclusions (stats/limit.c) from synthetic probes: the fastest probe
 * that held below the lowest that lost is the limit, with its bracket; a probe that held above
 * a loss is said as not monotone and never taken; no loss, or only losses, say so; probes whose
 * proof failed are left out; a buffer search's smallest buffer that held the rate; the
 * lost-events verdict names the found buffer first; and result.json's limits read back, with
 * the knob chain's fields (each end's knob value and setting) and from a file written before it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/result.h"
#include "stats/limit.h"
#include "tb_test.h"

static struct tb_limit *new_limit(struct tb_result *r, const char *kind)
{
	struct tb_limit *l = tb_result_add_limit(r);

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	l->kind = strdup(kind);
	l->cell = strdup("w/t");
	l->workload = strdup("w");
	l->tracer = strdup("t");
	l->knob = strdup("work");
	l->buffer_key = strdup("buffer-size");
	l->buffer = strdup("8K");
	l->resolution = 0.10;
	return l;
}

static void add(struct tb_limit *l, const char *knob, double buffer, double rate, int64_t lost,
		const char *proof)
{
	struct tb_limit_probe *p = tb_limit_add_probe(l);
	char b[32];

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	snprintf(b, sizeof(b), "%.0fK", buffer / 1024);
	p->knob_value = strdup(knob);
	p->buffer = strdup(b);
	p->buffer_x = buffer;
	p->events_per_s = rate;
	p->events = (int64_t)rate;
	p->lost = lost;
	p->tracer_cpu = rate / 1e6;
	snprintf(p->proof, sizeof(p->proof), "%s", proof);
}

static void test_rate(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_limit *l = new_limit(r, "rate");

	add(l, "65536", 8192, 1e5, 0, "match");
	add(l, "32768", 8192, 2e5, 0, "match");
	add(l, "16384", 8192, 4e5, 900, "below");
	add(l, "23170", 8192, 2.8e5, 10, "below");
	add(l, "27554", 8192, 2.4e5, 0, "match");
	add(l, "25000", 8192, 9e5, 0, "missed"); /* not the workload traced: left out */
	tb_stats_limits(r);
	CU_ASSERT_TRUE(l->found);
	CU_ASSERT_TRUE(l->monotone);
	CU_ASSERT_DOUBLE_EQUAL(l->held_rate, 2.4e5, 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(l->held_cpu, 0.24, 1e-9);
	CU_ASSERT_STRING_EQUAL(l->held_knob, "27554");
	CU_ASSERT_DOUBLE_EQUAL(l->lost_rate, 2.8e5, 1e-6);
	/* 2.4e5..2.8e5 is wider than 10%: said */
	CU_ASSERT_PTR_NOT_NULL(strstr(l->note, "wider than the resolution"));
	CU_ASSERT_PTR_NOT_NULL(strstr(l->note, "; 1 of 6 probes left out"));
	/* idempotent: the analysis runs after every round */
	tb_stats_limits(r);
	CU_ASSERT_DOUBLE_EQUAL(l->held_rate, 2.4e5, 1e-6);
	tb_result_free(r);
}

static void test_not_monotone(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_limit *l = new_limit(r, "rate");

	add(l, "4096", 8192, 1e5, 0, "match");
	add(l, "2048", 8192, 2e5, 50, "below");
	add(l, "1024", 8192, 3e5, 0, "match"); /* held above a loss */
	tb_stats_limits(r);
	CU_ASSERT_FALSE(l->monotone);
	CU_ASSERT_TRUE(l->found);
	CU_ASSERT_DOUBLE_EQUAL(l->held_rate, 1e5, 1e-6);
	CU_ASSERT_PTR_NOT_NULL(strstr(l->note, "not monotone"));
	tb_result_free(r);

	/* the only held probe is above the only loss (two settings a noisy machine swapped): no
	 * limit, said as not monotone, never as every probe losing */
	r = tb_result_new();
	l = new_limit(r, "rate");
	add(l, "1", 65536, 1.9e5, 0, "match");
	add(l, "0", 65536, 1.77e5, 12, "below");
	tb_stats_limits(r);
	CU_ASSERT_FALSE(l->monotone);
	CU_ASSERT_FALSE(l->found);
	CU_ASSERT_FALSE(isfinite(l->held_rate));
	CU_ASSERT_DOUBLE_EQUAL(l->lost_rate, 1.77e5, 1e-6);
	CU_ASSERT_PTR_NOT_NULL(strstr(l->note, "not monotone"));
	CU_ASSERT_PTR_NULL(strstr(l->note, "every probe lost"));
	tb_result_free(r);
}

static void test_none(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_limit *a = new_limit(r, "rate"), *b;

	add(a, "1024", 8192, 1e5, 0, "match");
	add(a, "0", 8192, 2e6, 0, "match");
	b = new_limit(r, "rate");
	add(b, "65536", 8192, 1e5, 5, "below");
	add(b, "131072", 8192, 5e4, 5, "below");
	tb_stats_limits(r);
	a = &r->limits[0];
	CU_ASSERT_FALSE(a->found);
	CU_ASSERT_DOUBLE_EQUAL(a->held_rate, 2e6, 1e-6);
	CU_ASSERT_PTR_NOT_NULL(strstr(a->note, "no probe lost events"));
	CU_ASSERT_FALSE(b->found);
	CU_ASSERT_FALSE(isfinite(b->held_rate));
	CU_ASSERT_PTR_NOT_NULL(strstr(b->note, "every probe lost events"));
	tb_result_free(r);
}

static void test_buffer(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_limit *l = new_limit(r, "buffer");

	l->target = 2e5;
	add(l, "65536", 8192, 1e5, 40, "below"); /* lost below the rate: 8K cannot */
	add(l, "30000", 8192, 2.1e5, 300, "below");
	add(l, "30000", 16384, 2.05e5, 20, "below");
	add(l, "30000", 32768, 2.1e5, 0, "match");
	add(l, "30000", 65536, 1.9e5, 0, "match"); /* below the rate: no evidence */
	tb_stats_limits(r);
	CU_ASSERT_TRUE(l->found);
	CU_ASSERT_TRUE(l->monotone);
	CU_ASSERT_STRING_EQUAL(l->held_buffer, "32K");
	CU_ASSERT_STRING_EQUAL(l->lost_buffer, "16K");
	CU_ASSERT_EQUAL(l->note[0], '\0');
	tb_result_free(r);
}

/* A cell that lost events at 1.5e5 events/s: the verdict names the buffer found first. */
static void test_verdict(void)
{
	struct tb_result *r = tb_result_new();
	struct tb_limit *l = new_limit(r, "rate");
	struct tb_cell *c = tb_result_add_cell(r);
	struct tb_sample *s;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	add(l, "4096", 65536, 1e5, 0, "match");
	add(l, "1024", 65536, 2.0e5, 0, "match");
	add(l, "512", 65536, 2.1e5, 9, "below");
	c->id = strdup("w/t8");
	c->workload = strdup("w");
	c->tracer = strdup("t8");
	c->has_overhead = true;
	tb_overhead_init(&c->overhead);
	snprintf(c->overhead.reason, sizeof(c->overhead.reason),
		 "90 events lost (1000 recorded): a ring buffer filled: buffer-size >= 4M");
	s = tb_cell_add_sample(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	s->round = 0;
	s->ns_per_op = 100;
	s->events = 150000 - 90;
	s->lost = 90;
	s->elapsed_ns = 1e9;
	s->tracer_cpu_s = 0.1;
	tb_stats_limits(r);
	CU_ASSERT_PTR_NOT_NULL(strstr(
		c->overhead.reason,
		"recorded): --find-limit found buffer-size = 64K to hold 2e+05 events/s (this cell offered 1.5e+05); a ring buffer filled"));
	tb_result_free(r);
}

static void test_json(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	struct tb_limit *l = new_limit(r, "rate");
	json_t *doc;

	add(l, "4096", 8192, 1e5, 0, "match");
	add(l, "2048", 8192, 1.05e5, 3, "below");
	tb_stats_limits(r);
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	CU_ASSERT_EQUAL_FATAL(back->nlimits, 1);
	CU_ASSERT_STRING_EQUAL(back->limits[0].kind, "rate");
	CU_ASSERT_TRUE(back->limits[0].found);
	CU_ASSERT_DOUBLE_EQUAL(back->limits[0].held_rate, 1e5, 1e-6);
	CU_ASSERT_EQUAL_FATAL(back->limits[0].nprobes, 2);
	CU_ASSERT_EQUAL(back->limits[0].probes[1].lost, 3);
	CU_ASSERT_STRING_EQUAL(back->limits[0].probes[1].buffer, "8K");
	tb_result_free(back);
	back = NULL;
	json_object_set_new(json_array_get(json_object_get(doc, "limits"), 0), "kind",
			    json_string("speed"));
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "r.json", &back), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), "limits[0].kind"));
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
}

/* A probe of the chain: the knob its step moved, at a setting of every knob. */
static void add_at(struct tb_limit *l, const char *knob, const char *value, const char *setting,
		   double rate, int64_t lost)
{
	add(l, value, 8192, rate, lost, lost ? "below" : "match");
	free(l->probes[l->nprobes - 1].knob);
	l->probes[l->nprobes - 1].knob = strdup(knob);
	l->probes[l->nprobes - 1].setting = strdup(setting);
}

/*
 * A search that held at work = 0 and found its limit on calls: the ends name the knob the
 * bracket lies on and its value there, also at the held end the work stage ended on (calls = 1
 * in its setting, though the probe moved work), and their whole settings.
 */
static void test_chain(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	struct tb_limit *l = new_limit(r, "rate");
	json_t *doc, *o;

	free(l->knob);
	l->knob = strdup("calls");
	l->knobs = json_pack("[ss]", "work", "calls");
	snprintf(l->knob_note, sizeof(l->knob_note), "work = 0 held, the end of its range");
	add_at(l, "work", "1", "work = 1, calls = 1", 1.7e5, 0);
	add_at(l, "work", "0", "work = 0, calls = 1", 1.8e5, 0);
	add_at(l, "calls", "2", "work = 0, calls = 2", 2.4e5, 10);
	tb_stats_limits(r);
	CU_ASSERT_TRUE(l->found);
	CU_ASSERT_STRING_EQUAL(l->held_knob, "1");
	CU_ASSERT_STRING_EQUAL(l->held_at, "work = 0, calls = 1");
	CU_ASSERT_STRING_EQUAL(l->lost_knob, "2");
	CU_ASSERT_STRING_EQUAL(l->lost_at, "work = 0, calls = 2");
	/* the round trip keeps every new field */
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	o = json_array_get(json_object_get(doc, "limits"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(o, "knobs"), 1)),
			       "calls");
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	l = &back->limits[0];
	CU_ASSERT_STRING_EQUAL(l->knob, "calls");
	CU_ASSERT_EQUAL(json_array_size(l->knobs), 2);
	CU_ASSERT_STRING_EQUAL(l->knob_note, "work = 0 held, the end of its range");
	CU_ASSERT_STRING_EQUAL(l->held_at, "work = 0, calls = 1");
	CU_ASSERT_STRING_EQUAL(l->lost_knob, "2");
	CU_ASSERT_STRING_EQUAL(l->lost_at, "work = 0, calls = 2");
	CU_ASSERT_STRING_EQUAL(l->probes[1].knob, "work");
	CU_ASSERT_STRING_EQUAL(l->probes[2].knob, "calls");
	CU_ASSERT_STRING_EQUAL(l->probes[2].setting, "work = 0, calls = 2");
	tb_result_free(back);
	back = NULL;
	/* a probe's knob outside the chain is refused, with its path */
	json_object_set_new(json_array_get(json_object_get(o, "probes"), 2), "knob",
			    json_string("threads"));
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "r.json", &back), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(),
				      "limits[0].probes[2].knob: \"threads\" is not one of knobs"));
	tb_result_free(back);
	back = NULL;
	/* and so is the search's */
	json_object_set_new(json_array_get(json_object_get(o, "probes"), 2), "knob",
			    json_string("calls"));
	json_object_set_new(o, "knob", json_string("threads"));
	CU_ASSERT_EQUAL(tb_result_from_json(doc, "r.json", &back), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_result_last_error(), "limits[0].knob"));
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
}

/* A result written before the chain: no knobs, no probe knob or setting; read with defaults. */
static void test_old_file(void)
{
	struct tb_result *r = tb_result_new(), *back = NULL;
	struct tb_limit *l = new_limit(r, "rate");
	json_t *doc, *o, *p;
	size_t i;

	add(l, "4096", 8192, 1e5, 0, "match");
	add(l, "2048", 8192, 2e5, 3, "below");
	tb_stats_limits(r);
	doc = tb_result_to_json(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	o = json_array_get(json_object_get(doc, "limits"), 0);
	json_object_del(o, "knobs");
	json_object_del(o, "knob_note");
	json_object_del(o, "held_at");
	json_object_del(o, "lost_at");
	json_object_del(o, "lost_knob");
	json_array_foreach(json_object_get(o, "probes"), i, p)
	{
		CU_ASSERT_PTR_NULL(json_object_get(p, "knob")); /* add() set none */
		json_object_del(p, "setting");
	}
	CU_ASSERT_EQUAL_FATAL(tb_result_from_json(doc, "r.json", &back), 0);
	l = &back->limits[0];
	CU_ASSERT_EQUAL(json_array_size(l->knobs), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(l->knobs, 0)), "work");
	CU_ASSERT_STRING_EQUAL(l->probes[1].knob, "work");
	CU_ASSERT_STRING_EQUAL(l->probes[1].setting, "work = 2048");
	CU_ASSERT_STRING_EQUAL(l->held_knob, "4096");
	/* the conclusion again, from the defaults: the ends as before the chain */
	tb_stats_limits(back);
	CU_ASSERT_STRING_EQUAL(l->held_at, "work = 4096");
	CU_ASSERT_STRING_EQUAL(l->lost_knob, "2048");
	tb_result_free(back);
	json_decref(doc);
	tb_result_free(r);
}

static CU_TestInfo tests[] = {
	{"the fastest probe that held below a loss", test_rate},
	{"a probe that held above a loss: not monotone", test_not_monotone},
	{"no loss, or only losses, said", test_none},
	{"the smallest buffer that held a rate", test_buffer},
	{"the lost-events verdict names the buffer found", test_verdict},
	{"result.json's limits", test_json},
	{"the chain's ends: knob and setting, round trip", test_chain},
	{"a result from before the chain reads", test_old_file},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("stats-limit", NULL, NULL, tests);
