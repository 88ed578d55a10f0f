// SPDX-License-Identifier: GPL-2.0
/*
 * Every registered tracer, so that a new one is exercised without an edit here: its ops table
 * (name, help, options and their defaults, callbacks), supported() saying why when it refuses,
 * and a real setup/start/stop/collect/teardown around a getpid child that leaves the machine's
 * tracing state and our armed record as they were. The start-up check of malformed tables.
 */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "tb_test.h"
#include "tracers/tracer.h"

#define GETPIDS 100000

/*
 * Options a tracer needs to run at all (no usable default), as "key", "value"; "{target}" in a
 * value becomes the target's pid. A tracer not listed runs with its defaults.
 */
static const char *const overrides[][3] = {
	{"ftrace-events", "events", "syscalls:sys_enter_getpid"},
	/* BEGIN runs once every probe is attached: the exact readiness line (-B line flushes). */
	{"command", "command",
	 "bpftrace -B line -e 'BEGIN { printf(\"tb-ready\\n\"); } "
	 "tracepoint:syscalls:sys_enter_getpid /pid == {target}/ { @c = count(); }'"},
	{"command", "ready", "^tb-ready$"},
	{"command", "events-regex", "@c: ([0-9]+)"},
	/* The getpid child links no liblttng-ust: it never registers, waiting would only be slow. */
	{"lttng-ust", "register-timeout", "0"},
};

/*
 * Every tracer declares what it hooks and counts (model/proof.h needs it): a kind, a scope,
 * and for a per-event tracer whose defaults are a usable config at least one counted hook. The
 * baseline and the validation's delay hook nothing.
 */
static void check_hooks(const struct tb_tracer_ops *ops, const void *cfg)
{
	bool usable = !ops->validate;
	struct tb_hooks h;
	size_t i, counted = 0;
	char err[256];
	int ret;

	if (ops->validate)
		usable = ops->validate(cfg, err, sizeof(err)) == 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(ops->hooks);
	tb_hooks_init(&h);
	ret = ops->hooks(cfg, &h);
	CU_ASSERT_EQUAL(ret, 0);
	CU_ASSERT(h.kind >= TB_HOOK_NONE && h.kind <= TB_HOOK_UNKNOWN);
	CU_ASSERT(h.scope >= TB_SCOPE_PROCESS && h.scope <= TB_SCOPE_SYSTEM);
	for (i = 0; i < h.n; i++) {
		CU_ASSERT(h.h[i].name[0] != '\0');
		counted += h.h[i].counted;
	}
	if (usable && h.kind == TB_HOOK_EVENTS && !counted)
		printf("\n    %s: a per-event tracer that counts no hook", ops->name);
	CU_ASSERT(!usable || h.kind != TB_HOOK_EVENTS || counted > 0);
	CU_ASSERT((h.kind == TB_HOOK_NONE) == !!(ops->flags & TB_TR_NOEVENTS));
	tb_hooks_free(&h);
}

static void test_registry(void)
{
	size_t i, j, baselines = 0;

	CU_ASSERT_EQUAL(tb_tracer_ops_check(tb_tracers), 0);
	CU_ASSERT_PTR_NULL(tb_tracer_find("no-such-tracer"));
	for (i = 0; tb_tracers[i]; i++) {
		const struct tb_tracer_ops *ops = tb_tracers[i];
		void *cfg;

		CU_ASSERT_FATAL(ops->name && *ops->name);
		CU_ASSERT(tb_tracer_find(ops->name) == ops);
		CU_ASSERT(ops->help && strlen(ops->help) > 10);
		CU_ASSERT(ops->setup && ops->start && ops->stop && ops->collect && ops->teardown);
		for (j = 0; ops->opts && ops->opts[j].name; j++)
			CU_ASSERT(ops->opts[j].help && *ops->opts[j].help);
		cfg = calloc(1, ops->cfg_size ? ops->cfg_size : 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
		if (tb_opts_defaults(ops->opts, cfg))
			printf("\n    %s: its defaults do not parse", ops->name);
		CU_ASSERT_EQUAL(tb_opts_defaults(ops->opts, cfg), 0);
		check_hooks(ops, cfg);
		tb_opts_free(ops->opts, cfg);
		free(cfg);
		baselines += !!(ops->flags & TB_TR_BASELINE);
	}
	CU_ASSERT_EQUAL(baselines, 1); /* the runner compares every cell with the one baseline */
}

static void test_supported(void)
{
	char why[512];
	size_t i;
	int ret;

	for (i = 0; tb_tracers[i]; i++) {
		if (!tb_tracers[i]->supported)
			continue;
		why[0] = '\0';
		ret = tb_tracers[i]->supported(why, sizeof(why));
		CU_ASSERT(ret <= 0);
		if (!ret)
			continue;
		printf("\n    %s: unsupported here: %s", tb_tracers[i]->name, why);
		CU_ASSERT(why[0] != '\0');
	}
}

/* value with "{target}" replaced by pid, into buf. */
static const char *with_target(const char *value, pid_t pid, char *buf, size_t len)
{
	const char *at = strstr(value, "{target}");

	if (!at)
		return value;
	snprintf(buf, len, "%.*s%d%s", (int)(at - value), value, (int)pid, at + strlen("{target}"));
	return buf;
}

/* The defaults and the overrides of ops, for target; NULL (and a failed assertion) on error. */
static void *make_cfg(const struct tb_tracer_ops *ops, pid_t target)
{
	void *cfg = calloc(1, ops->cfg_size ? ops->cfg_size : 1);
	char err[256], buf[1024];
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cfg);
	CU_ASSERT_EQUAL_FATAL(tb_opts_defaults(ops->opts, cfg), 0);
	for (i = 0; i < TB_ARRAY_SIZE(overrides); i++) {
		if (strcmp(overrides[i][0], ops->name))
			continue;
		if (tb_opts_set(ops->opts, cfg, overrides[i][1],
				with_target(overrides[i][2], target, buf, sizeof(buf)), err,
				sizeof(err))) {
			printf("\n    %s: override %s: %s", ops->name, overrides[i][1], err);
			CU_FAIL("a bad override");
		}
	}
	return cfg;
}

/* The machine's tracing state as before, and nothing left in our armed record. */
static void assert_state_unchanged(const char *name)
{
	tb_test_assert_tracing_unchanged(name);
	if (!tb_test_armed_record_empty())
		printf("\n    %s: its armed record is not empty after teardown", name);
	CU_ASSERT(tb_test_armed_record_empty());
}

/* The harness's calls, in its order, around GETPIDS getpid calls of a child. */
static void run_lifecycle(struct tb_tracer *t, int go)
{
	const struct tb_tracer_ops *ops = t->ops;
	struct tb_tracer_stats st = {-1, -1, -1, -1, -1, -1, NULL};
	int status, ret;

	ret = ops->setup(t);
	CU_ASSERT_EQUAL(ret, 0);
	if (!ret) {
		ret = ops->start(t);
		CU_ASSERT_EQUAL(ret, 0);
	}
	CU_ASSERT_EQUAL(write(go, "g", 1), 1);
	CU_ASSERT_EQUAL(waitpid(t->target, &status, 0), t->target);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	if (!ret) {
		CU_ASSERT_EQUAL(ops->stop(t), 0);
		CU_ASSERT_EQUAL(ops->collect(t, &st), 0);
		/* A tracer counts what it recorded, or says that it cannot. */
		CU_ASSERT(st.events >= 0 || (ops->flags & TB_TR_NOEVENTS));
		printf("\n    %s: %lld events for %d getpid, %lld lost", ops->name,
		       (long long)st.events, GETPIDS, (long long)st.lost);
		json_decref(st.extra);
	}
	ops->teardown(t);
	ops->teardown(t); /* idempotent: it also runs on error and signal paths */
}

/* One tracer: 0 when it ran, 1 when it was skipped (said why). */
static int run_one(const struct tb_tracer_ops *ops)
{
	struct tb_tracer t = {.ops = ops, .name = "registry-test", .consumer_cpu = -1};
	char why[512] = "";
	int go = -1, skipped = 0;
	pid_t child;

	if (ops->supported && ops->supported(why, sizeof(why))) {
		printf("\n    %s: skipped, unsupported here: %s", ops->name, why);
		return 1;
	}
	child = tb_test_spawn_getpid_loop(GETPIDS, &go);
	CU_ASSERT_FATAL(child > 0);
	t.target = child;
	t.cfg = make_cfg(ops, child);
	t.dir = tb_test_tmpdir_open();
	t.outdir = t.dir ? t.dir->path : NULL;
	if (ops->validate && ops->validate(t.cfg, why, sizeof(why))) {
		/* Only a missing external program may keep a tracer out of this test. */
		printf("\n    %s: %s: %s", ops->name,
		       strstr(why, "not found") ? "skipped" : "FAILED", why);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "not found"));
		skipped = 1;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	} else {
		run_lifecycle(&t, go);
	}
	close(go);
	tb_opts_free(ops->opts, t.cfg);
	free(t.cfg);
	assert_state_unchanged(ops->name);
	return skipped;
}

static void test_every_tracer(void)
{
	size_t i;
	int skipped = 0;

	if (!tb_test_is_root())
		TB_SKIP("needs root");
	if (!tb_test_tracing_captured())
		TB_SKIP("tracefs unavailable");
	for (i = 0; tb_tracers[i]; i++)
		skipped += run_one(tb_tracers[i]);
	printf("\n    %zu tracers, %d skipped ", i, skipped);
}

/* ---- the start-up check --------------------------------------------------------------- */

/* The cfg of the broken option tables: one byte. */
struct cfg1 {
	bool b;
};

static void some_label(const struct tb_tracer_record *rec, char *buf, size_t len)
{
	snprintf(buf, len, "a label");
}

static void some_remedy(const struct tb_tracer_record *rec, int64_t per_sample, char *buf,
			size_t len)
{
	snprintf(buf, len, "a remedy");
}

static void test_ops_check(void)
{
	static const struct tb_option no_help[] = {
		{"b", TB_OPT_BOOL, 0, "true", NULL},
		TB_OPT_END,
	};
	static const struct tb_option outside[] = {
		{"n", TB_OPT_INT, 0, "1", "an int in a one-byte cfg"},
		TB_OPT_END,
	};
	static const struct tb_option twice[] = {
		{"b", TB_OPT_BOOL, 0, NULL, "once"},
		{"b", TB_OPT_BOOL, 0, NULL, "twice"},
		TB_OPT_END,
	};
	static struct tb_option no_end[TB_OPTS_MAX + 1];
	static char names[TB_OPTS_MAX + 1][8];
	struct tb_tracer_ops good = *tb_tracer_find("none"), bad[11];
	const struct tb_tracer_ops *list[3] = {&good, NULL, NULL};
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(no_end); i++) {
		snprintf(names[i], sizeof(names[i]), "o%zu", i);
		no_end[i] = (struct tb_option){names[i], TB_OPT_BOOL, 0, NULL, "help"};
	}
	CU_ASSERT_EQUAL(tb_tracer_ops_check(list), 0);
	/* ... and with both optional callbacks on a tracer that counts events */
	bad[0] = good;
	bad[0].name = "described";
	bad[0].flags = 0;
	bad[0].label = some_label;
	bad[0].lost_remedy = some_remedy;
	list[1] = &bad[0];
	CU_ASSERT_EQUAL(tb_tracer_ops_check(list), 0);
	list[1] = NULL;
	for (i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		bad[i] = good;
		bad[i].name = "broken"; /* a name of its own, so that only the defect counts */
	}
	bad[0].name = NULL;
	bad[1].help = "";
	bad[2].collect = NULL;
	bad[3].opts = no_end;
	bad[3].cfg_size = sizeof(struct cfg1);
	bad[4].opts = no_help;
	bad[4].cfg_size = sizeof(struct cfg1);
	bad[5].opts = outside;
	bad[5].cfg_size = sizeof(struct cfg1);
	bad[6].opts = twice;
	bad[6].cfg_size = sizeof(struct cfg1);
	bad[7].name = "none"; /* only its name is wrong: the good table's */
	/* the optional callbacks that describe a cell: not on the baseline (none is one), and no
	 * remedy for losses where no event is counted */
	bad[8].label = some_label;
	bad[9].lost_remedy = some_remedy;
	bad[10].flags = TB_TR_NOEVENTS;
	bad[10].lost_remedy = some_remedy;
	for (i = 0; i < TB_ARRAY_SIZE(bad); i++) {
		int ret;

		list[1] = &bad[i];
		printf("\n    broken table %zu: ", i);
		ret = tb_tracer_ops_check(list);
		CU_ASSERT_EQUAL(ret, -EINVAL);
	}
}

static CU_TestInfo tracer_tests[] = {
	{"registry, options, defaults, callbacks", test_registry},
	{"supported() says why", test_supported},
	{"every tracer around a getpid child", test_every_tracer},
	{"ops check refuses broken tables", test_ops_check},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("tracers-registry", tb_test_tracing_init, tb_test_tracing_clean, tracer_tests);
