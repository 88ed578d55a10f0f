// SPDX-License-Identifier: GPL-2.0
/*
 * core/outdir.h: files are created privately and renamed into place, directories are handles,
 * and nothing is written through (or replaces) a link, a directory or a FIFO planted where a
 * file goes; the plot session, the report and the result writer use it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/proc.h"
#include "core/tb.h"
#include "render/gnuplot/plot.h"
#include "render/html/report.h"
#include "model/result.h"
#include "fixture.h"
#include "tb_test.h"

static char victim[PATH_MAX], work[PATH_MAX];

/* A fresh directory with a victim file "precious" somewhere else (tb_test_tmpdir's result is
 * overwritten by its next call: both are copied). */
static const char *setup(void)
{
	snprintf(work, sizeof(work), "%s", tb_test_tmpdir());
	snprintf(victim, sizeof(victim), "%s/victim", tb_test_tmpdir());
	tb_write_atomic(victim, "precious", 8, 0644);
	return work;
}

static bool victim_unchanged(void)
{
	char *text = NULL;
	bool ok;

	ok = !tb_read_file(victim, &text, NULL) && !strcmp(text, "precious");
	free(text);
	return ok;
}

static void path_in(char *buf, const char *dir, const char *name)
{
	snprintf(buf, PATH_MAX, "%s/%s", dir, name);
}

static void test_write_replaces_files_only(void)
{
	const char *dir = setup();
	char p[PATH_MAX], *text = NULL;
	struct tb_dir d;
	struct stat st;

	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL_FATAL(tb_dir_open(&d, dir, TB_DIR_PATH, 0), 0);
	CU_ASSERT_EQUAL(tb_dir_write(&d, "a", "one", 3, 0640), 0);
	CU_ASSERT_EQUAL(tb_dir_write(&d, "a", "two", 3, 0640), 0); /* a regular file: replaced */
	path_in(p, dir, "a");
	CU_ASSERT(!tb_read_file(p, &text, NULL) && !strcmp(text, "two"));
	free(text);
	CU_ASSERT(!stat(p, &st) && (st.st_mode & 07777) == 0640);
	/* A link to a victim, a dangling link, a directory, a FIFO: refused, left as they are. */
	path_in(p, dir, "link");
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	CU_ASSERT_EQUAL(tb_dir_write(&d, "link", "evil", 4, 0644), -ELOOP);
	CU_ASSERT(victim_unchanged());
	CU_ASSERT(!lstat(p, &st) && S_ISLNK(st.st_mode));
	path_in(p, dir, "dangling");
	CU_ASSERT_EQUAL(symlink("/nonexistent/tb-should-not-appear", p), 0);
	CU_ASSERT_EQUAL(tb_dir_write(&d, "dangling", "evil", 4, 0644), -ELOOP);
	CU_ASSERT_NOT_EQUAL(access("/nonexistent/tb-should-not-appear", F_OK), 0);
	path_in(p, dir, "sub");
	CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
	CU_ASSERT_EQUAL(tb_dir_write(&d, "sub", "x", 1, 0644), -EISDIR);
	path_in(p, dir, "fifo");
	CU_ASSERT_EQUAL(mkfifo(p, 0644), 0);
	CU_ASSERT_EQUAL(tb_dir_write(&d, "fifo", "x", 1, 0644), -EEXIST);
	/* A hard link to the victim is a name like any: replaced, the victim keeps its bytes. */
	path_in(p, dir, "hard");
	if (!link(victim, p)) {
		CU_ASSERT_EQUAL(tb_dir_write(&d, "hard", "evil", 4, 0644), 0);
		CU_ASSERT(victim_unchanged());
	}
	CU_ASSERT_EQUAL(tb_dir_write(&d, "../escape", "x", 1, 0644), -EINVAL);
	tb_dir_close(&d);
	tb_log_set_level(TB_LOG_INFO);
}

static void test_subdirectories(void)
{
	const char *dir = setup();
	struct tb_dir d, s, t;
	char p[PATH_MAX];
	struct stat st;

	tb_log_set_level(TB_LOG_SILENT);
	CU_ASSERT_EQUAL_FATAL(tb_dir_open(&d, dir, TB_DIR_PATH, 0), 0);
	CU_ASSERT_EQUAL(tb_dir_sub(&d, "x", TB_DIR_CREATE, 0755, &s), 0);
	tb_dir_close(&s);
	CU_ASSERT_EQUAL(tb_dir_sub(&d, "x", TB_DIR_CREATE, 0755, &s), 0); /* exists: opened */
	tb_dir_close(&s);
	CU_ASSERT_EQUAL(tb_dir_sub(&d, "x", TB_DIR_NEW, 0755, &s), -EEXIST);
	/* A directory link is refused, whether the directory is wanted new or existing. */
	path_in(p, dir, "dirlink");
	CU_ASSERT_EQUAL(symlink(tb_test_tmpdir(), p), 0);
	CU_ASSERT_EQUAL(tb_dir_sub(&d, "dirlink", TB_DIR_CREATE, 0755, &s), -ELOOP);
	CU_ASSERT_EQUAL(tb_dir_sub(&d, "dirlink", 0, 0, &s), -ELOOP);
	CU_ASSERT_EQUAL(tb_dir_open(&t, p, 0, 0), -ELOOP); /* not the user's path: not followed */
	CU_ASSERT_EQUAL(tb_dir_open(&t, p, TB_DIR_PATH, 0), 0); /* the user's path: followed */
	tb_dir_close(&t);
	path_in(p, dir, "dangling");
	CU_ASSERT_EQUAL(symlink("/nonexistent/tb-dir", p), 0);
	CU_ASSERT_EQUAL(tb_dir_sub(&d, "dangling", TB_DIR_CREATE, 0755, &s), -ELOOP);
	/* A private directory: 0700, a fresh name each time. */
	CU_ASSERT_EQUAL_FATAL(tb_dir_mktemp(&d, ".t-", &s), 0);
	CU_ASSERT_EQUAL_FATAL(tb_dir_mktemp(&d, ".t-", &t), 0);
	CU_ASSERT_STRING_NOT_EQUAL(s.path, t.path);
	CU_ASSERT(!fstat(s.fd, &st) && (st.st_mode & 0777) == 0700);
	CU_ASSERT_EQUAL(tb_dir_write(&s, "f", "x", 1, 0644), 0);
	CU_ASSERT_EQUAL(tb_dir_rename(&s, "f", &d, "moved"), 0);
	CU_ASSERT_EQUAL(tb_dir_remove(&d, tb_dir_name(&s)), 0);
	CU_ASSERT_NOT_EQUAL(access(s.path, F_OK), 0);
	tb_dir_close(&s);
	tb_dir_close(&t);
	tb_dir_close(&d);
	tb_log_set_level(TB_LOG_INFO);
}

static void test_open_output(void)
{
	const char *dir = setup();
	char p[PATH_MAX];
	int fd;

	tb_log_set_level(TB_LOG_SILENT);
	path_in(p, dir, "log");
	fd = tb_open_output(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
	CU_ASSERT(fd >= 0);
	if (fd >= 0)
		close(fd);
	path_in(p, dir, "link");
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	CU_ASSERT_EQUAL(tb_open_output(p, O_WRONLY | O_CREAT | O_TRUNC, 0644), -ELOOP);
	CU_ASSERT(victim_unchanged());
	/* A FIFO must be refused at once, not block the open for a reader. */
	path_in(p, dir, "fifo");
	CU_ASSERT_EQUAL(mkfifo(p, 0644), 0);
	fd = tb_open_output(p, O_WRONLY | O_CREAT | O_APPEND, 0644);
	CU_ASSERT(fd < 0);
	path_in(p, dir, "hard");
	if (!link(victim, p)) {
		CU_ASSERT_EQUAL(tb_open_output(p, O_WRONLY | O_APPEND, 0644), -EMLINK);
		CU_ASSERT(victim_unchanged());
	}
	tb_log_set_level(TB_LOG_INFO);
}

/*
 * <dir>/<name> made and opened as d, then moved to <name>.moved (its path in moved) and its
 * name made a link to <dir>/elsewhere (in target): what a hostile swap after the open does.
 */
static void open_then_swap(const char *dir, const char *name, struct tb_dir *d, char *moved,
			   char *target, size_t len)
{
	char p[2 * PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	snprintf(moved, len, "%s/%s.moved", dir, name);
	snprintf(target, len, "%s/elsewhere", dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(target, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(tb_dir_open(d, p, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(rename(p, moved), 0);
	CU_ASSERT_EQUAL_FATAL(symlink(target, p), 0);
}

/*
 * Through a handle: a directory swapped for a link after it was opened still gets the report,
 * the plots' data and a log opened in place (tb_dir_open_output), and the link's target none;
 * a link planted where the log goes is refused, and O_EXCL refuses a file that is there.
 */
static void test_handle_outlives_a_swap(void)
{
	struct tb_result *r = tb_fixture_result(0);
	const char *dir = setup();
	char p[2 * PATH_MAX], moved[PATH_MAX], target[PATH_MAX];
	struct tb_dir d = TB_DIR_INIT;
	struct stat st;
	int fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tb_log_set_level(TB_LOG_SILENT);
	open_then_swap(dir, "run", &d, moved, target, sizeof(moved));
	CU_ASSERT_EQUAL(tb_report_write(r, NULL, &d, "report.html"), 0);
	CU_ASSERT_EQUAL(tb_plot_result_at(r, &d, TB_PLOT_DATA_ONLY), 0);
	fd = tb_dir_open_output(&d, "ansible.log", O_WRONLY | O_CREAT | O_EXCL, 0644);
	CU_ASSERT(fd >= 0);
	if (fd >= 0)
		close(fd);
	CU_ASSERT_EQUAL(tb_dir_open_output(&d, "ansible.log", O_WRONLY | O_CREAT | O_EXCL, 0644),
			-EEXIST);
	snprintf(p, sizeof(p), "%s/%s", moved, "report.html");
	CU_ASSERT(!lstat(p, &st) && S_ISREG(st.st_mode) && st.st_size > 0);
	snprintf(p, sizeof(p), "%s/%s", moved, "plots/data/timeline.dat");
	CU_ASSERT_EQUAL(access(p, R_OK), 0);
	snprintf(p, sizeof(p), "%s/%s", moved, "ansible.log");
	CU_ASSERT(!lstat(p, &st) && S_ISREG(st.st_mode));
	snprintf(p, sizeof(p), "%s/%s", target, "report.html");
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/%s", target, "plots");
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/%s", moved, "link.log");
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	CU_ASSERT_EQUAL(tb_dir_open_output(&d, "link.log", O_WRONLY | O_CREAT, 0644), -ELOOP);
	CU_ASSERT(victim_unchanged());
	tb_dir_close(&d);
	tb_log_set_level(TB_LOG_INFO);
	tb_result_free(r);
}

/*
 * A child's log and working directory through a handle (a command tracer's, core/proc.h): the
 * directory swapped for a link after it was opened still gets the log and what the child
 * writes by a relative name; the link's target neither. Reading a log back never follows a
 * link (tb_read_part_at).
 */
static void test_child_outlives_a_swap(void)
{
	char *argv[] = {"sh", "-c", "echo child-output; echo data >own.file", NULL};
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	const char *dir = setup();
	char p[2 * PATH_MAX], moved[PATH_MAX], target[PATH_MAX], *out = NULL;
	struct tb_dir d = TB_DIR_INIT;
	struct tb_proc proc;

	tb_log_set_level(TB_LOG_SILENT);
	open_then_swap(dir, "tr", &d, moved, target, sizeof(moved));
	o.out_dir = &d;
	o.out_path = "cmd.log";
	o.flags = TB_PROC_NULLIN | TB_PROC_CHDIR;
	CU_ASSERT_EQUAL_FATAL(tb_proc_spawn_opts(&proc, argv, &o), 0);
	CU_ASSERT_EQUAL(tb_proc_wait(&proc, 10000000000ull), 0);
	tb_proc_release(&proc);
	CU_ASSERT_EQUAL(tb_read_part_at(d.fd, "cmd.log", 0, 4096, false, &out), 0);
	CU_ASSERT(out && !strcmp(out, "child-output\n"));
	free(out);
	snprintf(p, sizeof(p), "%s/own.file", moved);
	CU_ASSERT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/cmd.log", target);
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/own.file", target);
	CU_ASSERT_NOT_EQUAL(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/link.log", moved);
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	o.out_path = "link.log";
	CU_ASSERT_EQUAL(tb_proc_spawn_opts(&proc, argv, &o), -ELOOP);
	CU_ASSERT_EQUAL(tb_read_part_at(d.fd, "link.log", 0, 4096, false, &out), -ELOOP);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT(victim_unchanged());
	tb_dir_close(&d);
	tb_log_set_level(TB_LOG_INFO);
}

static void test_exit_codes(void)
{
	CU_ASSERT_EQUAL(tb_dir_exit_code(-ELOOP), TB_EXIT_USAGE);
	CU_ASSERT_EQUAL(tb_dir_exit_code(-EISDIR), TB_EXIT_USAGE);
	CU_ASSERT_EQUAL(tb_dir_exit_code(-ENOSPC), TB_EXIT_UNAVAILABLE);
	CU_ASSERT_EQUAL(tb_dir_exit_code(-EROFS), TB_EXIT_UNAVAILABLE);
	CU_ASSERT_EQUAL(tb_dir_exit_code(-EIO), TB_EXIT_FAIL);
	CU_ASSERT_PTR_NOT_NULL(strstr(tb_dir_strerror(-ELOOP), "symbolic link"));
	CU_ASSERT_STRING_EQUAL(tb_dir_strerror(-ENOSPC), strerror(ENOSPC));
}

/* The writers of plots, the report and the result on a directory with planted links. */
static void test_writers_refuse_links(void)
{
	struct tb_result *r = tb_fixture_result(0);
	const char *dir = setup();
	char p[PATH_MAX], q[PATH_MAX];
	struct tb_dir d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	tb_log_set_level(TB_LOG_SILENT);
	snprintf(p, sizeof(p), "%s/plots/data", dir);
	CU_ASSERT_EQUAL(tb_mkdir_p(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/plots/data/timeline.dat", dir);
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_DATA_ONLY), -ELOOP);
	CU_ASSERT(victim_unchanged());
	unlink(p);
	CU_ASSERT_EQUAL(tb_plot_result(r, dir, TB_PLOT_DATA_ONLY), 0);
	CU_ASSERT_EQUAL(access(p, R_OK), 0); /* written once the link is gone */
	/* The session leaves no private directory behind. */
	snprintf(q, sizeof(q), "%s/plots", dir);
	CU_ASSERT_EQUAL(tb_dir_open(&d, q, TB_DIR_PATH, 0), 0);
	tb_dir_close(&d);
	path_in(p, dir, "report.html");
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	CU_ASSERT_EQUAL(tb_report_write(r, NULL, NULL, p), -ELOOP);
	CU_ASSERT(victim_unchanged());
	path_in(p, dir, "result.json");
	CU_ASSERT_EQUAL(symlink(victim, p), 0);
	CU_ASSERT_EQUAL(tb_result_save(r, p), -ELOOP);
	CU_ASSERT(victim_unchanged());
	tb_log_set_level(TB_LOG_INFO);
	tb_result_free(r);
}

/* The one opener of inputs: regular files only, no link, bounded, never blocking on a FIFO. */
static void test_open_input(void)
{
	const char *d = tb_test_tmpdir();
	char p[512], *text = NULL;
	size_t len = 0;
	int dfd, fd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	snprintf(p, sizeof(p), "%s/sub", d);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/sub/f", d);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	CU_ASSERT_EQUAL(write(fd, "hello\n", 6), 6);
	close(fd);
	snprintf(p, sizeof(p), "%s/fifo", d);
	CU_ASSERT_EQUAL(mkfifo(p, 0600), 0);
	snprintf(p, sizeof(p), "%s/link", d);
	CU_ASSERT_EQUAL(symlink("sub/f", p), 0);
	snprintf(p, sizeof(p), "%s/dirlink", d);
	CU_ASSERT_EQUAL(symlink("sub", p), 0);
	dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(dfd >= 0);
	CU_ASSERT_EQUAL(tb_read_regular_at(dfd, "sub/f", 64, &text, &len), 0);
	CU_ASSERT_EQUAL(len, 6);
	free(text);
	CU_ASSERT_EQUAL(tb_read_regular_at(dfd, "sub/f", 5, &text, &len), -EFBIG);
	CU_ASSERT_EQUAL(tb_read_regular_at(dfd, "fifo", 64, &text, &len), -ENOTTY);
	CU_ASSERT_EQUAL(tb_read_regular_at(dfd, "link", 64, &text, &len), -ELOOP);
	CU_ASSERT_EQUAL(tb_read_regular_at(dfd, "dirlink/f", 64, &text, &len), -ELOOP);
	CU_ASSERT_EQUAL(tb_read_regular_at(dfd, "../x", 64, &text, &len), -ELOOP);
	CU_ASSERT_EQUAL(tb_read_regular_at(dfd, "sub", 64, &text, &len), -EISDIR);
	close(dfd);
	snprintf(p, sizeof(p), "%s/link", d);
	CU_ASSERT_EQUAL(tb_read_regular(p, 64, &text, &len), -ELOOP);
	snprintf(p, sizeof(p), "%s/fifo", d);
	CU_ASSERT_EQUAL(tb_read_regular(p, 64, &text, &len), -ENOTTY);
	CU_ASSERT_EQUAL(tb_read_file(p, &text, &len), -ENOTTY); /* system files: no FIFO either */
	snprintf(p, sizeof(p), "%s/dirlink/f", d); /* as named by a user: links before the file */
	CU_ASSERT_EQUAL(tb_read_regular(p, 64, &text, &len), 0);
	free(text);
}

static CU_TestInfo outdir_tests[] = {
	{"files replace files, never links", test_write_replaces_files_only},
	{"subdirectories are handles", test_subdirectories},
	{"outputs written in place", test_open_output},
	{"exit codes of failed writes", test_exit_codes},
	{"plot, report and result refuse links", test_writers_refuse_links},
	{"a handle outlives its directory swapped for a link", test_handle_outlives_a_swap},
	{"a child's log and directory outlive a swap", test_child_outlives_a_swap},
	{"inputs: regular files, no links, bounded, no FIFO wait", test_open_input},
	CU_TEST_INFO_NULL,
};

TB_TEST_SUITE("core-outdir", NULL, NULL, outdir_tests);
