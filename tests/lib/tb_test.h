/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUnit suites register themselves: a test file ends with
 *
 *	static CU_TestInfo my_tests[] = { { "does x", test_x }, CU_TEST_INFO_NULL };
 *	TB_TEST_SUITE("area", my_init, my_clean, my_tests);
 *
 * so adding a test file needs no edit elsewhere. TB_SKIP("reason") marks the current test as
 * skipped with a printed reason (root, tracefs or BPF missing) and returns from it.
 *
 * TB_TEST_SUITE_BESIDE declares a suite that touches nothing of the machine's (no tracefs, BPF,
 * perf event, cgroup, workload or server; only its own temporary files): `run-tests --beside`
 * runs those suites without the machine's run lock, beside the measuring tests (make test runs
 * them next to the end-to-end scripts), and `run-tests --machine` runs every other suite.
 */
#ifndef TB_TEST_H
#define TB_TEST_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct tb_dir;

void tb_test_register(const char *name, CU_InitializeFunc init, CU_CleanupFunc clean,
		      CU_TestInfo *tests, bool beside);
void tb_test_skip(const char *file, int line, const char *reason);

#define TB_TEST_SUITE(name, init, clean, tests)                                 \
	__attribute__((constructor)) static void tb_test_register_##tests(void) \
	{                                                                       \
		tb_test_register(name, init, clean, tests, false);              \
	}
#define TB_TEST_SUITE_BESIDE(name, init, clean, tests)                          \
	__attribute__((constructor)) static void tb_test_register_##tests(void) \
	{                                                                       \
		tb_test_register(name, init, clean, tests, true);               \
	}

#define TB_SKIP(reason)                                   \
	do {                                              \
		tb_test_skip(__FILE__, __LINE__, reason); \
		return;                                   \
	} while (0)

/* Directory of the fixtures (tests/data), from TB_TEST_DATA or the build's default. */
const char *tb_test_data_dir(void);
/* A fresh temporary directory for this test (removed at exit); NULL on failure. */
const char *tb_test_tmpdir(void);
/* The same, opened (core/outdir.h): a tracer's t->dir (t->outdir is its path). NULL on failure. */
const struct tb_dir *tb_test_tmpdir_open(void);
/*
 * Fork a child that waits for a byte on *go_fd (the write end, the caller's to close), then
 * does n getpid syscalls and exits 0 (2 when the pipe closed first). Returns its pid or -1.
 * The tracer tests attach to it between the fork and the go.
 */
pid_t tb_test_spawn_getpid_loop(uint64_t n, int *go_fd);
/* Everything written to stderr between the two calls, as a new string (never NULL unless
 * out of memory). Not nested. */
void tb_test_stderr_begin(void);
char *tb_test_stderr_end(void);
/* Root available? */
int tb_test_is_root(void);
/*
 * Running under valgrind (make valgrind)? Its own syscalls in forked children add to exact
 * per-process syscall counts, so such upper bounds do not hold there.
 */
int tb_test_under_valgrind(void);

/*
 * Suites that trace (tests/lib/tracing.c). tb_test_tracing_init, as a suite's init: point
 * TB_STATE_DIR at a fresh scratch directory (the suite's armed records are not the machine's)
 * and, as root with tracefs, capture the machine's tracing state; 0, or 1 without a scratch
 * directory. tb_test_tracing_clean, as its clean, drops the capture.
 */
int tb_test_tracing_init(void);
int tb_test_tracing_clean(void);
/* True when init captured the tracing state (root, tracefs mounted). */
bool tb_test_tracing_captured(void);
/*
 * Assert that the tracing state is as init found it. Others may trace on this machine
 * meanwhile, so only the top level and this process's instances count (BPF programs are each
 * test's to check). who names the test in the printed difference. Nothing when not captured.
 */
void tb_test_assert_tracing_unchanged(const char *who);
/* In a suite that traces: skip the test unless root with the tracing state captured. */
#define TB_NEED_TRACING()                               \
	do {                                            \
		if (!tb_test_is_root())                 \
			TB_SKIP("needs root");          \
		if (!tb_test_tracing_captured())        \
			TB_SKIP("tracefs unavailable"); \
	} while (0)
/* The ids of loaded BPF programs named tb_* (ours: bundled and test objects) that no other
 * process holds (another run's on a shared machine is not the test's to count), up to max
 * into ids; returns how many. */
size_t tb_test_bpf_progs(uint32_t *ids, size_t max);
/* True when this process has no armed record in the scratch state directory. */
bool tb_test_armed_record_empty(void);

/*
 * A PostgreSQL server of the tests' own (tests/lib/pg.c), started on first use: as the postgres
 * system user, in a temporary directory, on a unix socket there. Returns its URL (the postgres
 * database), or NULL with the reason it cannot run here (not root, the package missing).
 * tb_test_pg_url gives the URL of another database on it (into buf). tb_test_pg_stop stops
 * it and removes its directory (also done at exit).
 */
const char *tb_test_pg_start(char *reason, size_t len);
const char *tb_test_pg_url(const char *dbname, char *buf, size_t len);
void tb_test_pg_stop(void);

#endif
