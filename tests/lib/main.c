// SPDX-License-Identifier: GPL-2.0
/*
 * The CUnit runner. CUnit's basic runner returns success even when tests fail, so the exit
 * status comes from CU_get_number_of_failures(). Usage: run-tests [--machine | --beside]
 * [SUITE[:TEST]]...: --beside only the suites declared with TB_TEST_SUITE_BESIDE, without the
 * machine's run lock; --machine only the others (tb_test.h).
 */
#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "host/armed.h"
#include "stats/stats.h"
#include "tb_test.h"

#define MAX_SUITES 128

static struct {
	const char *name;
	CU_InitializeFunc init;
	CU_CleanupFunc clean;
	CU_TestInfo *tests;
	bool beside;
} suites[MAX_SUITES];
static unsigned int nsuites, nskipped;
static char tmproot[] = "/tmp/tb-test-XXXXXX";
static int tmpcount, tmpmade;
static struct tmpdir_open {
	struct tb_dir d;
	struct tmpdir_open *next;
} * tmpdirs; /* tb_test_tmpdir_open's, closed at exit */

void tb_test_register(const char *name, CU_InitializeFunc init, CU_CleanupFunc clean,
		      CU_TestInfo *tests, bool beside)
{
	if (nsuites < MAX_SUITES)
		suites[nsuites++] = (typeof(suites[0])){name, init, clean, tests, beside};
}

void tb_test_skip(const char *file, int line, const char *reason)
{
	nskipped++;
	printf("\n    SKIPPED %s:%d: %s\n", file, line, reason);
}

const char *tb_test_data_dir(void)
{
	const char *d = getenv("TB_TEST_DATA");

	return d ? d : "tests/data";
}

const char *tb_test_tmpdir(void)
{
	static char path[64];

	if (!tmpmade) {
		/* 0711: a server a test starts as its own user (postgres) reaches its directory
		 * below; nobody else lists what is here. */
		if (!mkdtemp(tmproot) || chmod(tmproot, 0711))
			return NULL;
		tmpmade = 1;
	}
	snprintf(path, sizeof(path), "%s/%d", tmproot, tmpcount++);
	if (tb_mkdir_p(path, 0755))
		return NULL;
	return path;
}

static int saved_stderr = -1;
static char stderr_path[96];

void tb_test_stderr_begin(void)
{
	const char *dir = tb_test_tmpdir();
	int fd;

	snprintf(stderr_path, sizeof(stderr_path), "%s/stderr", dir ? dir : "/tmp");
	fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	fflush(stderr);
	saved_stderr = dup(2);
	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
}

char *tb_test_stderr_end(void)
{
	char *text = NULL;

	fflush(stderr);
	if (saved_stderr >= 0) {
		dup2(saved_stderr, 2);
		close(saved_stderr);
		saved_stderr = -1;
	}
	if (tb_read_file(stderr_path, &text, NULL))
		return strdup("");
	return text;
}

const struct tb_dir *tb_test_tmpdir_open(void)
{
	const char *path = tb_test_tmpdir();
	struct tmpdir_open *o = path ? calloc(1, sizeof(*o)) : NULL;

	if (!o || tb_dir_open(&o->d, path, 0, 0)) {
		free(o);
		return NULL;
	}
	o->next = tmpdirs;
	tmpdirs = o;
	return &o->d;
}

pid_t tb_test_spawn_getpid_loop(uint64_t n, int *go_fd)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;
		uint64_t i;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(2);
		for (i = 0; i < n; i++)
			syscall(SYS_getpid);
		_exit(0);
	}
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return -1;
	}
	*go_fd = fds[1];
	return pid;
}

int tb_test_is_root(void)
{
	return geteuid() == 0;
}

int tb_test_under_valgrind(void)
{
	const char *p = getenv("LD_PRELOAD"); /* valgrind preloads its vgpreload_*.so */

	return p && strstr(p, "vgpreload") != NULL;
}

static int wanted(const char *suite, const char *test, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++) {
		const char *colon = strchr(argv[i], ':');
		size_t n = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);

		if (strlen(suite) != n || strncmp(argv[i], suite, n))
			continue;
		if (!colon || !test || !strcmp(colon + 1, test))
			return 1;
	}
	return 0;
}

/*
 * The end of the output names what failed (CUnit's verbose log has it far above): one
 * "unit: FAILED suite:test" line per failed test, then the totals in one line that make test
 * repeats at its very end.
 */
static void print_totals(void)
{
	CU_pTest seen[64];
	CU_pFailureRecord f;
	size_t n = 0;

	for (f = CU_get_failure_list(); f; f = f->pNext) {
		size_t k;

		for (k = 0; k < n && seen[k] != f->pTest; k++)
			;
		if (k < n)
			continue;
		if (n < TB_ARRAY_SIZE(seen))
			seen[n++] = f->pTest;
		printf("unit: FAILED %s:%s\n", f->pSuite ? f->pSuite->pName : "?",
		       f->pTest ? f->pTest->pName : "(suite setup or cleanup)");
	}
	printf("unit: %u tests run, %u passed, %u failed, %u skipped (%u failed assertions, %u "
	       "suites failed)\n",
	       CU_get_number_of_tests_run(),
	       CU_get_number_of_tests_run() - CU_get_number_of_tests_failed(),
	       CU_get_number_of_tests_failed(), nskipped, CU_get_number_of_failures(),
	       CU_get_number_of_suites_failed());
}

int main(int argc, char **argv)
{
	unsigned int i, failures;
	CU_TestInfo *t;
	CU_pSuite s;
	int ret, only = 0; /* 1: --beside, -1: --machine */

	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && (!strcmp(argv[1], "--beside") || !strcmp(argv[1], "--machine"))) {
		only = argv[1][2] == 'b' ? 1 : -1;
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	/*
	 * The suites arm tracefs instances, BPF programs and perf events: a run measuring
	 * meanwhile would find them as foreign instrumentation (and be biased by them). As root,
	 * the runner queues for the machine's run lock like a run and holds it to its exit;
	 * --beside's suites touch nothing of the machine's and leave the lock to the others.
	 */
	if (only != 1 && !geteuid() && (ret = tb_lock_hold_machine()))
		printf("unit: not holding the run lock (%s): a run measuring now meets our tracing\n",
		       strerror(-ret));
	tb_stats_init(); /* as main() does: GSL errors are statuses, never an abort */
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	for (i = 0; i < nsuites; i++) {
		if (!wanted(suites[i].name, NULL, argc, argv) ||
		    (only && suites[i].beside != (only == 1)))
			continue;
		s = CU_add_suite(suites[i].name, suites[i].init, suites[i].clean);
		if (!s)
			return 1;
		for (t = suites[i].tests; t->pName; t++)
			if (wanted(suites[i].name, t->pName, argc, argv))
				CU_add_test(s, t->pName, t->pTestFunc);
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	printf("\n%u tests run, %u failed assertions, %u suites failed, %u skipped\n",
	       CU_get_number_of_tests_run(), CU_get_number_of_failures(),
	       CU_get_number_of_suites_failed(), nskipped);
	print_totals();
	CU_cleanup_registry();
	while (tmpdirs) {
		struct tmpdir_open *o = tmpdirs;

		tmpdirs = o->next;
		tb_dir_close(&o->d);
		free(o);
	}
	if (tmpmade)
		tb_rm_rf(tmproot);
	return failures ? 1 : 0;
}
