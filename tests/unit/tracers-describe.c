// SPDX-License-Identifier: GPL-2.0
/*
 * What a tracer says about a cell from its record alone (tracers/tracer.h label and
 * lost_remedy): the probe labels the rankings print and the remedies the verdicts quote, the
 * same words as when the model and the statistics knew the tracer types themselves; every
 * registered callback copes with an empty record; a type without a callback (or no longer
 * registered) falls back to its name or to the generic remedy.
 */
#include <jansson.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "tb_test.h"
#include "tracers/tracer.h"

/* tb_cell_probe_label of a cell of type with config and extra given as JSON text (or NULL). */
static const char *label_of(const char *type, const char *config, const char *extra, char *buf,
			    size_t len)
{
	struct tb_cell c = {.tracer_type = (char *)type};

	c.tracer_config = config ? json_loads(config, 0, NULL) : NULL;
	c.tracer_extra = extra ? json_loads(extra, 0, NULL) : NULL;
	CU_ASSERT(!config || c.tracer_config);
	CU_ASSERT(!extra || c.tracer_extra);
	tb_cell_probe_label(&c, buf, len);
	json_decref(c.tracer_config);
	json_decref(c.tracer_extra);
	return buf;
}

static void test_labels(void)
{
	static const char *const cases[][4] = {
		{"bpf", "{\"program\": \"syscall-count\", \"attach\": \"auto\"}",
		 "{\"attach\": \"tp_btf\"}", "bpf syscall-count (tp_btf)"},
		{"bpf", "{\"program\": \"probe\", \"attach\": \"auto\", \"body\": \"count\"}",
		 "{\"attach\": \"kprobe\"}", "bpf kprobe count"},
		{"bpf", "{\"program\": \"probe\"}", NULL, "bpf ? ?"},
		{"bpf", "{\"program\": \"object\", \"attach\": \"auto\"}", NULL, "bpf object (auto)"},
		{"bpf", "{\"program\": \"runq-latency\"}", "{}", "bpf runq-latency"},
		{"bpf", NULL, NULL, "bpf"},
		{"ftrace-uprobe", "{\"probe\": \"uretprobe\"}", NULL, "ftrace uretprobe"},
		{"ftrace-uprobe", "{}", NULL, "ftrace uprobe"},
		{"ftrace-events", "{\"events\": [\"syscalls:sys_enter_getpid\"]}", NULL,
		 "ftrace syscalls:sys_enter_getpid"},
		{"ftrace-events", "{\"events\": [\"sched:sched_switch\", \"sched:sched_wakeup\"]}",
		 NULL, "ftrace sched:sched_switch +"},
		{"ftrace-events", "{\"events\": []}", NULL, "ftrace-events"},
		{"lttng-ust", "{}", NULL, "lttng-ust"},
		{"perf-sample", "{\"frequency\": 99}", NULL, "perf-sample"},
		{"no-longer-a-tracer", "{}", NULL, "no-longer-a-tracer"},
		{NULL, NULL, NULL, "?"},
	};
	char buf[96];

	for (size_t i = 0; i < TB_ARRAY_SIZE(cases); i++) {
		label_of(cases[i][0], cases[i][1], cases[i][2], buf, sizeof(buf));
		if (strcmp(buf, cases[i][3]))
			printf("\n    case %zu: '%s', not '%s'", i, buf, cases[i][3]);
		CU_ASSERT_STRING_EQUAL(buf, cases[i][3]);
	}
	/* cut to the buffer, still terminated */
	label_of("bpf", "{\"program\": \"syscall-count\"}", "{\"attach\": \"raw_tp\"}", buf, 8);
	CU_ASSERT_STRING_EQUAL(buf, "bpf sys");
}

/* tb_tracer_lost_remedy of type with config and extra as JSON text; false: the generic one. */
static bool remedy_of(const char *type, const char *config, const char *extra, int64_t per,
		      char *buf, size_t len)
{
	json_t *c = config ? json_loads(config, 0, NULL) : NULL;
	json_t *x = extra ? json_loads(extra, 0, NULL) : NULL;
	struct tb_tracer_record rec = {c, x};
	bool said = tb_tracer_lost_remedy(type, &rec, per, buf, len);

	json_decref(c);
	json_decref(x);
	return said;
}

static void test_remedies(void)
{
	char buf[512];

	CU_ASSERT(remedy_of("perf-sample", "{\"mmap-pages\": 64, \"consumer\": false}", NULL, 10,
			    buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf, "the perf ring buffer filled: mmap-pages >= 256 (a power of "
				    "two), or consumer = true");
	CU_ASSERT(remedy_of("perf-sample", "{}", NULL, 10, buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf,
			       "the perf ring buffer filled: mmap-pages >= 512 (a power of two)");
	CU_ASSERT(remedy_of("bpf", "{\"program\": \"ringbuf-events\"}", NULL, 100000, buf,
			    sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "ringbuf-size >= 4M (a power of two; a sample makes up "
					   "to 100000 records of 32 bytes)"));
	CU_ASSERT(remedy_of("bpf", "{\"program\": \"syscall-count\"}", NULL, 5, buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "a BPF map is full"));
	/* ftrace: the size a sample needs, what auto gave and the reader's pace, from the extra */
	CU_ASSERT(remedy_of("ftrace-function", "{}",
			    "{\"bytes_per_event\": 100, \"buffer_size_auto\": 2097152, "
			    "\"stream_events_per_s\": 1000, \"produced_events_per_s\": 5000}",
			    100000, buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(
		buf, "a ring buffer filled: buffer-size >= 12M (a sample makes up to 100000 events of "
		     "~100 bytes on the workload's CPU); auto gave 2M, capped by the memory; the "
		     "stream reader kept up with 1e+03 of 5e+03 events/s, or overwrite = true (a "
		     "flight recorder keeps the newest)");
	CU_ASSERT(remedy_of("ftrace-events", NULL, NULL, 3000, buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "buffer-size >= 1M (a sample makes up to 3000 events "
					   "of ~64 bytes"));
	/* no callback, or no such tracer: the caller's generic remedy */
	CU_ASSERT(!remedy_of("ftrace-uprobe", "{}", NULL, 5, buf, sizeof(buf)));
	CU_ASSERT_STRING_EQUAL(buf, "");
	CU_ASSERT(!remedy_of("no-longer-a-tracer", "{}", NULL, 5, buf, sizeof(buf)));
	CU_ASSERT(!remedy_of(NULL, NULL, NULL, 5, buf, sizeof(buf)));
}

/* Every registered callback, on a record with nothing in it: a terminated, non-empty text. */
static void test_empty_records(void)
{
	json_t *empty = json_object();
	const struct tb_tracer_record none = {NULL, NULL}, bare = {empty, empty};
	const struct tb_tracer_record *recs[] = {&none, &bare};
	char buf[256];

	for (size_t i = 0; tb_tracers[i]; i++) {
		const struct tb_tracer_ops *ops = tb_tracers[i];

		for (size_t k = 0; k < TB_ARRAY_SIZE(recs); k++) {
			memset(buf, 'x', sizeof(buf));
			tb_tracer_label(ops->name, recs[k], buf, sizeof(buf));
			CU_ASSERT(buf[0] != '\0' && memchr(buf, '\0', sizeof(buf)));
			if (!ops->lost_remedy)
				continue;
			memset(buf, 'x', sizeof(buf));
			CU_ASSERT(tb_tracer_lost_remedy(ops->name, recs[k], 0, buf, sizeof(buf)));
			CU_ASSERT(memchr(buf, '\0', sizeof(buf)) != NULL);
		}
	}
	json_decref(empty);
}

static CU_TestInfo describe_tests[] = {
	{"probe labels from a cell's record", test_labels},
	{"lost-event remedies from a cell's record", test_remedies},
	{"every callback on an empty record", test_empty_records},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-describe", NULL, NULL, describe_tests);
