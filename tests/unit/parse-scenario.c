// SPDX-License-Identifier: GPL-2.0
/* Scenario parsing: a valid file, and every kind of error with its line number. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/plan.h"
#include "parse/scenario.h"
#include "tb_test.h"

static void test_good(void)
{
	struct tb_scenario *s = NULL;
	char path[512];
	int wi, ti;

	snprintf(path, sizeof(path), "%s/scenarios/good.ini", tb_test_data_dir());
	CU_ASSERT_EQUAL_FATAL(tb_scenario_load(path, &s), 0);
	CU_ASSERT_STRING_EQUAL(s->name, "parser-good");
	/* A line longer than libinih's 200 bytes keeps its whole value. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->description);
	CU_ASSERT_EQUAL(strlen(s->description), 12 * strlen("a long description; ") + 3);
	CU_ASSERT_PTR_NOT_NULL(strstr(s->description, "; end"));
	CU_ASSERT_EQUAL(s->rounds, 7);
	CU_ASSERT_EQUAL(s->warmup, 2);
	CU_ASSERT_EQUAL(s->duration_ns, 250000000ull);
	CU_ASSERT_DOUBLE_EQUAL(s->precision, 0.02, 1e-12);
	CU_ASSERT_EQUAL(s->seed, 42);
	CU_ASSERT_EQUAL(s->nworkloads, 2);
	CU_ASSERT_EQUAL(s->ntracers, 2);
	wi = tb_scenario_workload(s, "gp");
	CU_ASSERT_EQUAL(wi, 0);
	CU_ASSERT_EQUAL(s->workloads[wi].threads, 2);
	CU_ASSERT_EQUAL(s->workloads[wi].duration_ns, 250000000ull);
	CU_ASSERT_STRING_EQUAL(s->workloads[wi].ops->name, "getpid");
	wi = tb_scenario_workload(s, "nullw");
	CU_ASSERT_EQUAL(s->workloads[wi].duration_ns, 100000000ull);
	CU_ASSERT_EQUAL(s->workloads[wi].threads, 1);
	ti = tb_scenario_tracer(s, "nothing-here");
	CU_ASSERT_EQUAL(ti, 1);
	CU_ASSERT_EQUAL(s->tracers[ti].settle_ns, 5000000ull);
	CU_ASSERT_EQUAL(s->tracers[0].settle_ns, 20000000ull); /* the [global] default */
	/* The matrix: both workloads, the baseline first and only once. */
	CU_ASSERT_EQUAL(s->nmx_workloads, 2);
	CU_ASSERT_EQUAL(s->nmx_tracers, 2);
	CU_ASSERT_EQUAL(s->mx_tracers[0], 0);
	CU_ASSERT_EQUAL(s->mx_tracers[1], 1);
	CU_ASSERT_EQUAL(s->ngate, 2);
	CU_ASSERT_STRING_EQUAL(s->gate_keys[0], "max-overhead");
	CU_ASSERT_PTR_NOT_NULL(strstr(s->text, "parser-good"));
	tb_scenario_free(s);
}

/* Every bad fixture fails with "file:LINE:" and a message naming the problem. */
static void test_bad(void)
{
	static const struct {
		const char *file;
		int line;
		const char *needle;
	} cases[] = {
		{"unknown-section.ini", 8, "unknown section [bogus]"},
		{"unknown-key.ini", 3, "unknown key 'frobnicate'"},
		{"bad-value.ini", 2, "repetitions"},
		{"duplicate-name.ini", 3, "duplicate section [workload a]"},
		{"undefined-workload.ini", 4, "workload 'b' is not defined"},
		{"undefined-tracer.ini", 5, "tracer 'ghost' is not defined"},
		{"unknown-type.ini", 2, "unknown workload type 'warp-drive'"},
		{"type-not-first.ini", 2, "'type' must be the first key"},
		{"no-matrix.ini", 2, "no [matrix]"},
		{"huge-duration.ini", 2, "out of range"},
		{"duplicate-key.ini", 3, "duplicate key 'repetitions'"},
		{"binary-junk.ini", 5, "binary data"},
		{"syntax.ini", 1, "syntax error"},
		{"negative-threads.ini", 3, "threads"},
		{"bad-gate.ini", 6, "max-overhead"},
		/* a bare fraction: refused with the spelling to use, in [gate] as in [global] */
		{"bare-gate-max-overhead.ini", 8,
		 "max-overhead = 5: a bare number is ambiguous; write 5% (or 500% if 5 was"},
		{"bare-gate-max-regression.ini", 8,
		 "max-regression = 5: a bare number is ambiguous"},
		{"bare-gate-max-throughput-loss.ini", 8,
		 "max-throughput-loss = 5: a bare number is ambiguous"},
		{"bare-max-cv.ini", 3,
		 "max-cv = 0.5: a bare number is ambiguous; write 0.5% (or 50% if 0.5 was"},
		{"bare-noise-threshold.ini", 3,
		 "noise-threshold = 0.5: a bare number is ambiguous"},
		{"bare-precision.ini", 3, "precision = 0.5: a bare number is ambiguous"},
		{"bare-explain-tolerance.ini", 3,
		 "explain-tolerance = 0.5: a bare number is ambiguous"},
		{"redefine-none.ini", 6, "built in"},
		{"bad-section-name.ini", 1, "one name"},
		{"long-line.ini", 6, "line longer than"},
		{"exclude-nothing.ini", 8, "matches no traced cell"},
		{"exclude-shape.ini", 8, "is not WORKLOAD/TRACER"},
		{"duration-no-unit.ini", 2, "duration '500' has no unit"},
		{"tracer-workloads.ini", 7, "workloads: 'c' is not a workload of the [matrix]"},
	};
	char path[512], expect[600], *out = NULL;
	size_t i, len;

	for (i = 0; i < TB_ARRAY_SIZE(cases); i++) {
		struct tb_scenario *s = NULL;
		FILE *mem;
		int saved, ret;

		snprintf(path, sizeof(path), "%s/bad/%s", tb_test_data_dir(), cases[i].file);
		/* Capture stderr to check the message. */
		fflush(stderr);
		saved = dup(2);
		mem = tmpfile();
		CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
		dup2(fileno(mem), 2);
		ret = tb_scenario_load(path, &s);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		len = (size_t)ftell(mem);
		rewind(mem);
		out = calloc(1, len + 1);
		if (fread(out, 1, len, mem) != len)
			out[0] = '\0';
		fclose(mem);
		snprintf(expect, sizeof(expect), "%s:%d: ", path, cases[i].line);
		if (ret != -EINVAL || !strstr(out, expect) || !strstr(out, cases[i].needle))
			printf("\n    %s: ret %d, wanted line %d and '%s', got: %s", cases[i].file,
			       ret, cases[i].line, cases[i].needle, out);
		CU_ASSERT_EQUAL(ret, -EINVAL);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_PTR_NOT_NULL(strstr(out, expect));
		CU_ASSERT_PTR_NOT_NULL(strstr(out, cases[i].needle));
		free(out);
	}
}

static void test_missing_file(void)
{
	struct tb_scenario *s = NULL;

	CU_ASSERT_EQUAL(tb_scenario_load("/nonexistent/x.ini", &s), -ENOENT);
	CU_ASSERT_PTR_NULL(s);
}

/* Every shipped scenario parses. */
static void test_shipped(void)
{
	static const char *const files[] = {
		"quick",      "syscalls",    "sched", "io", "production-agents",
		"rate-sweep", "probe-types", "sweeps"};
	char path[512];
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(files); i++) {
		struct tb_scenario *s = NULL;

		snprintf(path, sizeof(path), "%s/../../scenarios/%s.ini", tb_test_data_dir(),
			 files[i]);
		CU_ASSERT_EQUAL(tb_scenario_load(path, &s), 0);
		if (s)
			CU_ASSERT_TRUE(s->nmx_workloads > 0);
		tb_scenario_free(s);
	}
}

/*
 * [matrix] exclude leaves out exactly the traced cells its WORKLOAD/TRACER globs match, never a
 * baseline; [global] skip-unsupported is read.
 */
static void test_exclude(void)
{
	static const char text[] = "[global]\nskip-unsupported = true\n"
				   "[workload k-a]\ntype = getpid\n[workload u-a]\ntype = null\n"
				   "[tracer k-t]\ntype = delay\n[tracer u-t]\ntype = delay\n"
				   "[matrix]\nworkloads = k-a, u-a\ntracers = k-t, u-t\n"
				   "exclude = k-*/[!k]*, u-a/k-t\n";
	static const char *const want[] = {"k-a/none", "k-a/k-t", "u-a/none", "u-a/u-t"};
	struct tb_plan_cell *cells = NULL;
	struct tb_scenario *s = NULL;
	struct tb_result *r = tb_result_new();
	char path[512];
	size_t n = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/exclude.ini", tb_test_tmpdir());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	CU_ASSERT_EQUAL_FATAL(tb_scenario_load(path, &s), 0);
	CU_ASSERT_TRUE(s->skip_unsupported);
	CU_ASSERT_EQUAL(s->mx_exclude.n, 2);
	CU_ASSERT_EQUAL_FATAL(tb_plan_expand(s, r, &cells, &n), 0);
	CU_ASSERT_EQUAL(n, TB_ARRAY_SIZE(want));
	for (i = 0; i < n && i < TB_ARRAY_SIZE(want); i++)
		CU_ASSERT_STRING_EQUAL(r->cells[cells[i].cell].id, want[i]);
	free(cells);
	tb_result_free(r);
	tb_scenario_free(s);
}

/* Parse text (named "edge.ini") with stderr captured into *msgs (the caller frees). */
static int parse_captured(const char *text, struct tb_scenario **s, char **msgs)
{
	FILE *mem = tmpfile();
	int saved, ret;
	size_t len;

	*msgs = NULL;
	if (!mem)
		return -errno;
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(mem), 2);
	ret = tb_scenario_parse(text, "edge.ini", s);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	len = (size_t)ftell(mem);
	rewind(mem);
	*msgs = calloc(1, len + 1);
	if (*msgs && fread(*msgs, 1, len, mem) != len)
		(*msgs)[0] = '\0';
	fclose(mem);
	return ret;
}

/* A text that must fail with "edge.ini:LINE:" and a message holding needle. */
struct line_case {
	const char *text;
	int line;
	const char *needle;
};

static void check_line_cases(const struct line_case *cases, size_t n)
{
	struct tb_scenario *s = NULL;
	char *msgs = NULL, want[64];

	for (size_t i = 0; i < n; i++) {
		int ret = parse_captured(cases[i].text, &s, &msgs);

		snprintf(want, sizeof(want), "edge.ini:%d: ", cases[i].line);
		if (ret != -EINVAL || !strstr(msgs, want) || !strstr(msgs, cases[i].needle))
			printf("\n    case %zu: ret %d, wanted line %d '%s', got: %s", i, ret,
			       cases[i].line, cases[i].needle, msgs);
		CU_ASSERT_EQUAL(ret, -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(msgs, want));
		CU_ASSERT_PTR_NOT_NULL(strstr(msgs, cases[i].needle));
		tb_scenario_free(s);
		s = NULL;
		free(msgs);
	}
}

#define EDGE_HEAD "[global]\nrepetitions = 2\n"
#define EDGE_TAIL "[workload a]\ntype = getpid\n[matrix]\nworkloads = a\ntracers = none\n"

/*
 * Input edge cases (issue 14, item 6): what must be refused with file:line, and what must be
 * read as written.
 */
static void test_edge_inputs(void)
{
	static const struct {
		const char *text;
		int line; /* 0: accepted */
		const char *needle;
	} cases[] = {
		/* An inline comment would cut the command to /bin/echo a. */
		{EDGE_HEAD
		 "[workload c]\ntype = command\ncommand = /bin/echo a ; rm -rf /\n" EDGE_TAIL,
		 5, "inline comment"},
		{EDGE_HEAD "[tracer t]\ntype = command\ncommand = sleep 9 ; true\n" EDGE_TAIL, 5,
		 "inline comment"},
		/* Not a command: an inline comment is a comment. */
		{EDGE_HEAD "warmup = 1 ; one round\n" EDGE_TAIL, 0, NULL},
		/* A semicolon inside a word does not start a comment. */
		{EDGE_HEAD "[workload c]\ntype = command\ncommand = /bin/echo a;b\n" EDGE_TAIL, 0,
		 NULL},
		/* Invalid UTF-8 in a command or a description. */
		{EDGE_HEAD "[workload c]\ntype = command\ncommand = /bin/echo \xff\xfe\n" EDGE_TAIL,
		 5, "invalid UTF-8"},
		{"[global]\ndescription = caf\xc3 x\n" EDGE_TAIL, 2, "invalid UTF-8"},
		/* Valid UTF-8 is kept. */
		{"[global]\ndescription = caf\xc3\xa9\n" EDGE_TAIL, 0, NULL},
		/* A UTF-8 byte order mark. */
		{"\xef\xbb\xbf" EDGE_HEAD EDGE_TAIL, 0, NULL},
		/* Decimal only: no hex, and a leading zero is not octal. */
		{"[global]\nrepetitions = 0x10\n" EDGE_TAIL, 2, "repetitions"},
		{"[global]\nrepetitions = 1e1\n" EDGE_TAIL, 2, "repetitions"},
	};
	struct tb_scenario *s = NULL;
	char *msgs = NULL, want[64];
	size_t i;
	int ret;

	for (i = 0; i < TB_ARRAY_SIZE(cases); i++) {
		ret = parse_captured(cases[i].text, &s, &msgs);
		snprintf(want, sizeof(want), "edge.ini:%d: ", cases[i].line);
		if (cases[i].line ? ret != -EINVAL || !strstr(msgs, want) ||
					    !strstr(msgs, cases[i].needle)
				  : ret != 0)
			printf("\n    case %zu: ret %d, wanted line %d '%s', got: %s", i, ret,
			       cases[i].line, cases[i].needle ? cases[i].needle : "", msgs);
		if (cases[i].line) {
			CU_ASSERT_EQUAL(ret, -EINVAL);
			CU_ASSERT_PTR_NOT_NULL(strstr(msgs, want));
			CU_ASSERT_PTR_NOT_NULL(strstr(msgs, cases[i].needle));
		} else {
			CU_ASSERT_EQUAL(ret, 0);
		}
		tb_scenario_free(s);
		s = NULL;
		free(msgs);
	}
	/* The accepted cases read what was written. */
	CU_ASSERT_EQUAL_FATAL(parse_captured("\xef\xbb\xbf" EDGE_HEAD EDGE_TAIL, &s, &msgs), 0);
	CU_ASSERT_EQUAL(s->rounds, 2);
	tb_scenario_free(s);
	free(msgs);
	CU_ASSERT_EQUAL_FATAL(
		parse_captured("[global]\ndescription = caf\xc3\xa9\n" EDGE_TAIL, &s, &msgs), 0);
	CU_ASSERT_STRING_EQUAL(s->description, "caf\xc3\xa9");
	tb_scenario_free(s);
	free(msgs);
	CU_ASSERT_EQUAL_FATAL(parse_captured("[global]\ncpus = 010, 1\n" EDGE_TAIL, &s, &msgs), 0);
	CU_ASSERT_EQUAL_FATAL(s->cpus.n, 2);
	CU_ASSERT_STRING_EQUAL(s->cpus.v[0], "010");
	tb_scenario_free(s);
	free(msgs);
}

/* Every [global] key lands in its field of the scenario, with the value as written. */
static void test_global_fields(void)
{
	static const char text[] =
		"[global]\nname = all\ndescription = d\nrepetitions = 100000\nmin-rounds = 2\n"
		"max-rounds = 9\nwarmup = 1000\nduration = 10ms\nmax-time = 1m\nsettle = 500us\n"
		"sample-timeout = 30s\ncpus = 0, 1\nconsumer-cpu = 4095\nthreads = 256\n"
		"latency = yes\nlatency-every = 1000000\nmlock = on\nperf-counts = 1\naa = true\n"
		"reuse-tracers = false\nskip-unsupported = true\nseed = 9000000000000000000\n"
		"precision = 0.5%\nnoise-threshold = 2%\nmax-cv = 20%\nalpha = 0.01\npower = 0.9\n"
		"confidence = 0.99\nresamples = 1000000\nexplain = true\nexplain-samples = 1000\n"
		"explain-frequency = 100000\nexplain-tolerance = 10%\naccounting-every = 7\n" EDGE_TAIL;
	struct tb_scenario *s = NULL;
	char *msgs = NULL;

	CU_ASSERT_EQUAL_FATAL(parse_captured(text, &s, &msgs), 0);
	CU_ASSERT_STRING_EQUAL(s->name, "all");
	CU_ASSERT_STRING_EQUAL(s->description, "d");
	CU_ASSERT_EQUAL(s->rounds, 100000);
	CU_ASSERT_EQUAL(s->min_rounds, 2);
	CU_ASSERT_EQUAL(s->max_rounds, 9);
	CU_ASSERT_EQUAL(s->accounting_every, 7);
	CU_ASSERT_TRUE(s->accounting_every_set);
	CU_ASSERT_EQUAL(s->warmup, 1000);
	CU_ASSERT_EQUAL(s->duration_ns, 10000000ull);
	CU_ASSERT_EQUAL(s->max_time_ns, 60000000000ull);
	CU_ASSERT_EQUAL(s->settle_ns, 500000ull);
	CU_ASSERT_EQUAL(s->sample_timeout_ns, 30000000000ull);
	CU_ASSERT_EQUAL(s->cpus.n, 2);
	CU_ASSERT_EQUAL(s->consumer_cpu, 4095);
	CU_ASSERT_EQUAL(s->threads, 256);
	CU_ASSERT_TRUE(s->latency);
	CU_ASSERT_EQUAL(s->latency_every, 1000000);
	CU_ASSERT_TRUE(s->mlock && s->perf_counts && s->aa && s->skip_unsupported && s->explain);
	CU_ASSERT_FALSE(s->reuse_tracers);
	CU_ASSERT_EQUAL(s->seed, 9000000000000000000ll);
	CU_ASSERT_DOUBLE_EQUAL(s->precision, 0.005, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(s->noise_threshold, 0.02, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(s->max_cv, 0.2, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(s->alpha, 0.01, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(s->power, 0.9, 1e-15);
	CU_ASSERT_DOUBLE_EQUAL(s->confidence, 0.99, 1e-15);
	CU_ASSERT_EQUAL(s->resamples, 1000000);
	CU_ASSERT_EQUAL(s->explain_samples, 1000);
	CU_ASSERT_EQUAL(s->explain_hz, 100000);
	CU_ASSERT_DOUBLE_EQUAL(s->explain_tolerance, 0.1, 1e-15);
	/* the workload and the tracer take [global]'s values of the keys they do not set */
	CU_ASSERT_EQUAL(s->workloads[0].threads, 256);
	CU_ASSERT_EQUAL(s->workloads[0].latency_every, 1000000);
	CU_ASSERT_EQUAL(s->workloads[0].duration_ns, 10000000ull);
	CU_ASSERT_TRUE(s->workloads[0].latency);
	CU_ASSERT_EQUAL(s->tracers[0].settle_ns, 500000ull);
	tb_scenario_free(s);
	free(msgs);
	/* the defaults: seed -1 is "none given" */
	CU_ASSERT_EQUAL_FATAL(parse_captured(EDGE_TAIL, &s, &msgs), 0);
	CU_ASSERT_EQUAL(s->seed, -1);
	CU_ASSERT_EQUAL(s->consumer_cpu, -1);
	CU_ASSERT_EQUAL(s->rounds, 10);
	CU_ASSERT_STRING_EQUAL(s->name, "edge");
	tb_scenario_free(s);
	free(msgs);
}

/* The harness's key tables are well formed for the structs they fill (as a plugin's are). */
static void test_key_tables(void)
{
	static const size_t sizes[] = {sizeof(struct tb_scenario), sizeof(struct tb_scn_workload),
				       sizeof(struct tb_scn_tracer)};
	char err[256] = "";

	for (int k = TB_SCN_GLOBAL; k <= TB_SCN_TRACER; k++) {
		CU_ASSERT_EQUAL(tb_opts_check(tb_scenario_keys((enum tb_scn_section)k), sizes[k],
					      err, sizeof(err)),
				0);
		if (err[0])
			printf("\n    section %d: %s", k, err);
	}
}

/*
 * A section takes the harness's value of a key from [global] unless it sets it itself; the
 * command tracer's own delay after readiness is `ready-settle`, so its `settle` is the
 * harness's, as in every tracer section.
 */
static void test_inherit(void)
{
	static const char text[] =
		"[global]\nsettle = 7ms\nexplain = true\nthreads = 3\n"
		"[workload a]\ntype = getpid\nthreads = 2\n"
		"[tracer c]\ntype = command\ncommand = /bin/true\nready-settle = 1s\n"
		"[tracer e]\ntype = command\ncommand = /bin/true\nsettle = 3ms\n"
		"[tracer d]\ntype = delay\nsettle = 1ms\nexplain = false\n"
		"[matrix]\nworkloads = a\ntracers = c, d, e\n";
	struct tb_scenario *s = NULL;
	char *msgs = NULL;
	json_t *cfg;
	int c, d, e;

	CU_ASSERT_EQUAL_FATAL(parse_captured(text, &s, &msgs), 0);
	c = tb_scenario_tracer(s, "c");
	d = tb_scenario_tracer(s, "d");
	e = tb_scenario_tracer(s, "e");
	CU_ASSERT_EQUAL(s->workloads[0].threads, 2);
	CU_ASSERT_EQUAL(s->tracers[c].settle_ns, 7000000ull);
	CU_ASSERT_TRUE(s->tracers[c].explain);
	cfg = tb_opts_to_json(s->tracers[c].ops->opts, s->tracers[c].cfg);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(cfg, "ready-settle")), 1000000000);
	CU_ASSERT_PTR_NULL(json_object_get(cfg, "settle"));
	json_decref(cfg);
	CU_ASSERT_EQUAL(s->tracers[e].settle_ns, 3000000ull);
	CU_ASSERT_EQUAL(s->tracers[d].settle_ns, 1000000ull);
	CU_ASSERT_FALSE(s->tracers[d].explain);
	tb_scenario_free(s);
	free(msgs);
}

/*
 * Issue 27: errors about a key name the key's line, not its section's (nor line 1): a plugin's
 * "key: reason", latency mode where the workload asks for it, min-rounds above max-rounds; and
 * a [matrix] without workloads is its own header's line, not the section after it.
 */
static void test_key_lines(void)
{
	static const struct line_case cases[] = {
		{"[workload c]\ntype = command\ntimeout = 1s\ncommand = /nonexistent/x\n"
		 "[matrix]\nworkloads = c\ntracers = none\n",
		 4, "command: '/nonexistent/x' not found"},
		{"[workload c]\ntype = command\ncommand = /bin/true\nlatency = true\n"
		 "[matrix]\nworkloads = c\ntracers = none\n",
		 4, "latency mode is not available"},
		/* from [global]: the key that asked for it, naming the workload that cannot */
		{"[global]\nlatency = true\n[workload c]\ntype = command\ncommand = /bin/true\n"
		 "[matrix]\nworkloads = c\ntracers = none\n",
		 2, "[workload c]: latency mode is not available for command (latency = true in"},
		{"[global]\nmax-rounds = 10\nrepetitions = 3\nmin-rounds = 50\n" EDGE_TAIL, 4,
		 "min-rounds (50) is above max-rounds (10)"},
		{"[global]\nmax-rounds = 3\n" EDGE_TAIL, 2,
		 "min-rounds (5) is above max-rounds (3)"},
		{"[workload a]\ntype = getpid\n[matrix]\ntracers = none\n[gate]\nalpha = 0.1\n", 3,
		 "no [matrix] with 'workloads"},
		{EDGE_TAIL "[limit]\nrate = fast\n", 7, "[limit]: rate: bad value 'fast'"},
		{"[global]\nrepetitions = 3\naccounting-every = 0\n" EDGE_TAIL, 3,
		 "key 'accounting-every': value '0' is out of range [1, 100000]"},
		{EDGE_TAIL "[limit]\nbuffers = 8K\n", 7, "[limit]: unknown key 'buffers'"},
		{EDGE_TAIL "[limit]\n[limit]\n", 7, "duplicate section [limit]"},
		{"[workload a]\ntype = getpid\n[tracer t]\ntype = ftrace-events\nfilter = \n"
		 "events = sched:sched_switch\n[matrix]\nworkloads = a\ntracers = t\n",
		 5, "filter: empty expression"},
	};
	check_line_cases(cases, TB_ARRAY_SIZE(cases));
}

/*
 * Issue 26: a key in a workload section has one meaning. nanosleep's sleep time is `sleep`;
 * `duration` there is the harness's sample length, as in every workload section (it used to
 * be the sleep and hid the harness's key). No registered workload or tracer has a key named
 * like one of the harness's (the command tracer's `settle` is `ready-settle`).
 */
static void test_one_meaning(void)
{
	static const char text[] =
		"[workload n]\ntype = nanosleep\nsleep = 20us\nduration = 200ms\n"
		"[matrix]\nworkloads = n\ntracers = none\n";
	static const char old[] = "[workload n]\ntype = nanosleep\nduration = 50us\n"
				  "[matrix]\nworkloads = n\ntracers = none\n";
	const struct tb_option *harness = tb_scenario_keys(TB_SCN_WORKLOAD), *o;
	struct tb_scenario *s = NULL;
	char *msgs = NULL;
	json_t *cfg;

	CU_ASSERT_EQUAL_FATAL(parse_captured(text, &s, &msgs), 0);
	CU_ASSERT_EQUAL(s->workloads[0].duration_ns, 200000000ull);
	cfg = tb_opts_to_json(s->workloads[0].ops->opts, s->workloads[0].cfg);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(cfg, "sleep")), 20000);
	CU_ASSERT_PTR_NULL(json_object_get(cfg, "duration"));
	json_decref(cfg);
	tb_scenario_free(s);
	free(msgs);
	/* the old spelling of a 50 us sleep is a sample length below the harness's 1 ms */
	CU_ASSERT_EQUAL(parse_captured(old, &s, &msgs), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msgs, "edge.ini:3: [workload n]: key 'duration'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(msgs, "out of range"));
	free(msgs);
	for (size_t i = 0; tb_workloads[i]; i++)
		for (o = harness; o->name; o++) {
			if (tb_opts_find(tb_workloads[i]->opts, o->name))
				printf("\n    workload %s has the harness's key '%s'",
				       tb_workloads[i]->name, o->name);
			CU_ASSERT_PTR_NULL(tb_opts_find(tb_workloads[i]->opts, o->name));
		}
	for (size_t i = 0; tb_tracers[i]; i++)
		for (o = tb_scenario_keys(TB_SCN_TRACER); o->name; o++) {
			if (tb_opts_find(tb_tracers[i]->opts, o->name))
				printf("\n    tracer %s has the harness's key '%s'",
				       tb_tracers[i]->name, o->name);
			CU_ASSERT_PTR_NULL(tb_opts_find(tb_tracers[i]->opts, o->name));
		}
}

/* 2,000 bad sections: a few errors, then how many more there were. */
static void test_many_errors(void)
{
	struct tb_scenario *s = NULL;
	char *text, *msgs = NULL, *p;
	size_t i, cap = 2000 * 32 + 256, lines = 0;
	int len = 0;

	text = malloc(cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (i = 0; i < 2000; i++)
		len += snprintf(text + len, cap - (size_t)len, "[bogus%zu]\nkey = v\n", i);
	CU_ASSERT_EQUAL(parse_captured(text, &s, &msgs), -EINVAL);
	for (p = msgs; p && *p; p++)
		lines += *p == '\n';
	CU_ASSERT(lines >= 2 && lines <= 25);
	CU_ASSERT_PTR_NOT_NULL(strstr(msgs, "edge.ini:1: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(msgs, "more errors"));
	if (lines > 25)
		printf("\n    %zu lines of errors", lines);
	free(msgs);
	free(text);
}

/* A FIFO as the scenario is refused at once, not waited on for a writer. */
static void test_fifo(void)
{
	struct tb_scenario *s = NULL;
	char path[512];

	snprintf(path, sizeof(path), "%s/fifo.ini", tb_test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
	alarm(10); /* a blocking open is a failure, not a hang */
	CU_ASSERT_EQUAL(tb_scenario_load(path, &s), -EINVAL);
	alarm(0);
	CU_ASSERT_PTR_NULL(s);
	unlink(path);
}

#define SW_TAIL	    "[matrix]\nworkloads = a\ntracers = none\n"
#define SW_WL(spec) "[workload a]\ntype = getpid\nsweep = " spec "\n"

/* Every bad sweep at --dry-run (parse) time: file:line of the sweep key and what is wrong. */
static void test_sweep_bad(void)
{
	static const struct line_case cases[] = {
		{SW_WL("cals: 1, 2") SW_TAIL, 3,
		 "sweep: unknown key 'cals' for getpid; did you mean"},
		{SW_WL("calls:") SW_TAIL, 3, "sweep: calls: an empty list of values"},
		{SW_WL("calls: , ,") SW_TAIL, 3, "sweep: calls: an empty list of values"},
		{SW_WL("calls: 1,,2") SW_TAIL, 3, "sweep: calls: an empty value"},
		{SW_WL("1, 2") SW_TAIL, 3, "is not 'KEY: V1, V2, ...'"},
		{SW_WL("calls: 16..1 x2") SW_TAIL, 3, "the range 16..1 x2 does not rise"},
		{SW_WL("calls: 1..16 x1") SW_TAIL, 3, "does not rise"},
		{SW_WL("calls: 1..16 +0") SW_TAIL, 3, "does not rise"},
		{SW_WL("calls: 1..16") SW_TAIL, 3, "is not FROM..TO xFACTOR or FROM..TO +STEP"},
		{SW_WL("calls: 1, x, 3") SW_TAIL, 3, "bad int value 'x'"},
		{SW_WL("calls: 1, 2, 1") SW_TAIL, 3, "sweep: calls: '1' listed twice"},
		{SW_WL("calls: 1/2") SW_TAIL, 3, "cannot name a cell"},
		{SW_WL("calls: 1..100 +1") SW_TAIL, 3, "more cells than max-cells = 64"},
		{"[global]\nmax-cells = 3\n" SW_WL("calls: 1, 2, 3, 4") SW_TAIL, 5,
		 "more cells than max-cells = 3"},
		/* 3 values x (baseline + a tracer) = 6 cells */
		{"[global]\nmax-cells = 5\n" SW_WL(
			 "calls: 1, 2, 3") "[tracer t]\ntype = delay\n[matrix]\nworkloads = a\ntracers = none, t\n",
		 5, "makes 6 cells, more than max-cells = 5"},
		{"[workload a]\ntype = getpid\n[tracer t]\ntype = delay\nsweep = nss: 1ns, 2ns\n"
		 "[matrix]\nworkloads = a\ntracers = none, t\n",
		 5, "[tracer t]: sweep: unknown key 'nss' for delay; did you mean 'ns'?"},
		{"[workload a]\ntype = getpid\n[tracer t]\ntype = delay\nsweep = ns: 1ns, 5\n"
		 "[matrix]\nworkloads = a\ntracers = none, t\n",
		 5, "has no unit"},
		{"[workload a]\ntype = getpid\n[tracer t]\ntype = ftrace-events\nevents = x:y\n"
		 "sweep = pid-filter: 1..3 +1\n[matrix]\nworkloads = a\ntracers = none, t\n",
		 6, "a range needs a number"},
	};
	check_line_cases(cases, TB_ARRAY_SIZE(cases));
}

/* The integer value of option key in section cfg (through the option table's JSON). */
static long long opt_int(const struct tb_option *opts, const void *cfg, const char *key)
{
	json_t *j = tb_opts_to_json(opts, cfg);
	long long v = json_integer_value(json_object_get(j, key));

	json_decref(j);
	return v;
}

/* A workload sweep and a tracer sweep: one section per value, the section's keys replayed,
 * the matrix's name standing for all of them, and one cell per pair with its points. */
static void test_sweep_expand(void)
{
	static const char text[] =
		"[workload a]\ntype = getpid\nwork = 7\nsweep = calls: 1..16 x2\n"
		"threads = 2\n"
		"[workload b]\ntype = getpid\nsweep = calls: 1..10 +3\n"
		"[tracer t]\ntype = delay\nsweep = ns: 10ns, 20ns\nworkloads = a\n"
		"[matrix]\nworkloads = a, b\ntracers = none, t\n"
		"exclude = a[calls=2]/t\n";
	static const char *const names[] = {"a[calls=1]", "a[calls=2]", "a[calls=4]", "a[calls=8]",
					    "a[calls=16]"};
	struct tb_scenario *s = NULL;
	struct tb_result *r = tb_result_new();
	struct tb_plan_cell *cells = NULL;
	const struct tb_cell *c = NULL;
	size_t ncells = 0;
	char *msgs = NULL;
	int wi, ti;

	CU_ASSERT_EQUAL_FATAL(parse_captured(text, &s, &msgs), 0);
	free(msgs);
	CU_ASSERT_EQUAL(s->nworkloads, 2 + 5 + 4);
	CU_ASSERT_TRUE(s->workloads[0].swept);
	CU_ASSERT_FALSE(s->workloads[0].used);
	for (size_t i = 0; i < TB_ARRAY_SIZE(names); i++) {
		wi = tb_scenario_workload(s, names[i]);
		CU_ASSERT_FATAL(wi >= 0);
		CU_ASSERT_TRUE(s->workloads[wi].used);
		CU_ASSERT_STRING_EQUAL(s->workloads[wi].pt.of, "a");
		CU_ASSERT_STRING_EQUAL(s->workloads[wi].pt.key, "calls");
		CU_ASSERT_STRING_EQUAL(s->workloads[wi].pt.unit, "call");
		CU_ASSERT_DOUBLE_EQUAL(s->workloads[wi].pt.x, (double)(1 << i), 0);
		CU_ASSERT_EQUAL(opt_int(s->workloads[wi].ops->opts, s->workloads[wi].cfg, "calls"),
				1 << i);
		/* the section's own keys, the plugin's and the harness's, also after the sweep */
		CU_ASSERT_EQUAL(opt_int(s->workloads[wi].ops->opts, s->workloads[wi].cfg, "work"),
				7);
		CU_ASSERT_EQUAL(s->workloads[wi].threads, 2);
	}
	/* an arithmetic range stops at or below its end */
	CU_ASSERT(tb_scenario_workload(s, "b[calls=10]") >= 0);
	CU_ASSERT(tb_scenario_workload(s, "b[calls=7]") >= 0);
	CU_ASSERT(tb_scenario_workload(s, "b[calls=13]") < 0);
	ti = tb_scenario_tracer(s, "t[ns=20ns]");
	CU_ASSERT_FATAL(ti > 0);
	CU_ASSERT_DOUBLE_EQUAL(s->tracers[ti].pt.x, 20, 0);
	CU_ASSERT_STRING_EQUAL(s->tracers[ti].pt.unit, "ns"); /* a duration's */
	CU_ASSERT_EQUAL(s->nmx_workloads, 9);
	CU_ASSERT_EQUAL(s->nmx_tracers, 3);
	/* cells: a's 5 points x (none + 2 tracer points) less the excluded pair (2 cells), b's 4
	 * points with their baselines only (t runs on a) */
	CU_ASSERT_EQUAL_FATAL(tb_plan_expand(s, r, &cells, &ncells), 0);
	CU_ASSERT_EQUAL(ncells, 5 * 3 - 2 + 4);
	for (size_t i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].id, "a[calls=4]/t[ns=20ns]"))
			c = &r->cells[i];
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_TRUE(c->wsweep.present);
	CU_ASSERT_STRING_EQUAL(c->wsweep.section, "a");
	CU_ASSERT_STRING_EQUAL(c->wsweep.value, "4");
	CU_ASSERT_TRUE(c->tsweep.present);
	CU_ASSERT_STRING_EQUAL(c->tsweep.key, "ns");
	CU_ASSERT_DOUBLE_EQUAL(c->tsweep.x, 20, 0);
	free(cells);
	tb_result_free(r);
	tb_scenario_free(s);
}

/* [limit] asks for the saturation search, with or without a rate; no section, no search. */
static void test_limit_section(void)
{
	struct tb_scenario *s = NULL;
	char *msgs = NULL;

	CU_ASSERT_EQUAL_FATAL(parse_captured(EDGE_TAIL "[limit]\nrate = 1M/s\n", &s, &msgs), 0);
	CU_ASSERT_TRUE(s->limit);
	CU_ASSERT_DOUBLE_EQUAL(s->limit_rate, 1e6, 1e-6);
	tb_scenario_free(s);
	free(msgs);
	CU_ASSERT_EQUAL_FATAL(parse_captured(EDGE_TAIL "[limit]\n", &s, &msgs), 0);
	CU_ASSERT_TRUE(s->limit);
	CU_ASSERT_TRUE(isnan(s->limit_rate));
	tb_scenario_free(s);
	free(msgs);
	CU_ASSERT_EQUAL_FATAL(parse_captured(EDGE_TAIL, &s, &msgs), 0);
	CU_ASSERT_FALSE(s->limit);
	tb_scenario_free(s);
	free(msgs);
}

static CU_TestInfo tests[] = {
	{"valid file", test_good},
	{"errors with line numbers", test_bad},
	{"matrix exclude and skip-unsupported", test_exclude},
	{"missing file", test_missing_file},
	{"shipped scenarios parse", test_shipped},
	{"input edge cases", test_edge_inputs},
	{"every [global] key into its field", test_global_fields},
	{"the harness's key tables", test_key_tables},
	{"what a section takes from [global]", test_inherit},
	{"errors at the key's line (issue 27)", test_key_lines},
	{"a workload key has one meaning", test_one_meaning},
	{"many errors: a few, then a count", test_many_errors},
	{"a FIFO is refused", test_fifo},
	{"sweeps: every bad input at its line", test_sweep_bad},
	{"sweeps: sections, matrix and cells", test_sweep_expand},
	{"[limit] asks for the saturation search", test_limit_section},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("parse-scenario", NULL, NULL, tests);
