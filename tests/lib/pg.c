// SPDX-License-Identifier: GPL-2.0
/*
 * A PostgreSQL server of the tests' own (tb_test.h): Debian's initdb and postgres from
 * /usr/lib/postgresql/<version>/bin, run as the unprivileged `postgres` system user in a
 * temporary directory, listening on a unix socket there only (no TCP). The postmaster is our
 * child with PR_SET_PDEATHSIG, so a crashed test run does not leave it behind; it is stopped
 * and its directory removed by tb_test_pg_stop and at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "core/tb.h"
#include "tb_test.h"

#define PG_PORT 55432 /* only names the socket file: nothing listens on TCP */

static struct {
	char dir[64];
	char url[256];
	pid_t pid;
	bool exit_hook;
} pg;

/* The newest /usr/lib/postgresql/<version>/bin holding initdb and postgres. */
static int find_bindir(char *out, size_t len)
{
	glob_t g;
	int ret = -ENOENT;

	if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g))
		return -ENOENT;
	for (size_t i = g.gl_pathc; i-- > 0;) {
		char *slash = strrchr(g.gl_pathv[i], '/');
		char p[PATH_MAX];

		*slash = '\0';
		snprintf(p, sizeof(p), "%s/postgres", g.gl_pathv[i]);
		if (!access(p, X_OK)) {
			snprintf(out, len, "%s", g.gl_pathv[i]);
			ret = 0;
			break;
		}
	}
	globfree(&g);
	return ret;
}

/* In a forked child: become the postgres user, die with the parent, quiet, exec argv. */
static void become_postgres_and_exec(const struct passwd *pw, char **argv, const char *log)
{
	int fd;

	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid))
		_exit(126);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* after setuid, which clears it */
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		close(fd);
	}
	execv(argv[0], argv);
	_exit(127);
}

static void stop_at_exit(void)
{
	tb_test_pg_stop();
}

void tb_test_pg_stop(void)
{
	if (pg.pid > 0) {
		/* SIGQUIT: immediate shutdown; the backends follow their postmaster. */
		kill(pg.pid, SIGQUIT);
		for (int i = 0; i < 100 && waitpid(pg.pid, NULL, WNOHANG) == 0; i++)
			usleep(50000);
		kill(pg.pid, SIGKILL);
		waitpid(pg.pid, NULL, 0);
		pg.pid = 0;
	}
	if (pg.dir[0]) {
		tb_rm_rf(pg.dir);
		pg.dir[0] = '\0';
	}
	pg.url[0] = '\0';
}

/* Wait until the socket file appears (the server accepts connections soon after). */
static bool wait_socket(void)
{
	char sock[128];

	snprintf(sock, sizeof(sock), "%s/.s.PGSQL.%d", pg.dir, PG_PORT);
	for (int i = 0; i < 200; i++) {
		if (!access(sock, F_OK))
			return true;
		if (waitpid(pg.pid, NULL, WNOHANG) == pg.pid) {
			pg.pid = 0;
			return false;
		}
		usleep(50000);
	}
	return false;
}

static int initdb(const struct passwd *pw, const char *bindir, const char *data)
{
	char prog[PATH_MAX + 16], log[128];
	char *argv[] = {prog,	    "-D", (char *)data, "-A",	      "trust",	   "-U",
			"postgres", "-E", "UTF8",	"--locale=C", "--no-sync", NULL};
	int st = -1;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s/initdb", bindir);
	snprintf(log, sizeof(log), "%s/initdb.log", pg.dir);
	pid = fork();
	if (pid == 0)
		become_postgres_and_exec(pw, argv, log);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static int start_postmaster(const struct passwd *pw, const char *bindir, const char *data)
{
	char prog[PATH_MAX + 16], log[128], port[16];
	char *argv[] = {prog,
			"-D",
			(char *)data,
			"-k",
			pg.dir,
			"-p",
			port,
			"-c",
			"listen_addresses=",
			"-c",
			"fsync=off",
			"-c",
			"max_connections=40",
			NULL};

	snprintf(prog, sizeof(prog), "%s/postgres", bindir);
	snprintf(log, sizeof(log), "%s/server.log", pg.dir);
	snprintf(port, sizeof(port), "%d", PG_PORT);
	pg.pid = fork();
	if (pg.pid == 0)
		become_postgres_and_exec(pw, argv, log);
	return pg.pid > 0 && wait_socket() ? 0 : -1;
}

const char *tb_test_pg_start(char *reason, size_t len)
{
	char bindir[PATH_MAX], data[128];
	struct passwd *pw;

	if (pg.url[0])
		return pg.url;
	if (!tb_test_is_root()) {
		snprintf(reason, len, "needs root to run a server as the postgres user");
		return NULL;
	}
	if (find_bindir(bindir, sizeof(bindir))) {
		snprintf(reason, len, "no /usr/lib/postgresql/*/bin/initdb (Debian's postgresql)");
		return NULL;
	}
	pw = getpwnam("postgres");
	if (!pw) {
		snprintf(reason, len, "no postgres system user (Debian's postgresql creates it)");
		return NULL;
	}
	snprintf(pg.dir, sizeof(pg.dir), "/tmp/tb-pg-XXXXXX");
	if (!mkdtemp(pg.dir) || chown(pg.dir, pw->pw_uid, pw->pw_gid) || chmod(pg.dir, 0700)) {
		snprintf(reason, len, "cannot create a directory for the server: %s",
			 strerror(errno));
		tb_test_pg_stop();
		return NULL;
	}
	if (!pg.exit_hook && !atexit(stop_at_exit))
		pg.exit_hook = true;
	snprintf(data, sizeof(data), "%s/data", pg.dir);
	if (initdb(pw, bindir, data) || start_postmaster(pw, bindir, data)) {
		snprintf(reason, len, "the server did not start (see %s/*.log)", pg.dir);
		printf("\n    postgresql did not start; its logs were in %s\n", pg.dir);
		tb_test_pg_stop();
		return NULL;
	}
	snprintf(pg.url, sizeof(pg.url), "postgresql://postgres@/postgres?host=%s&port=%d", pg.dir,
		 PG_PORT);
	/* The socket appears before the server accepts connections ("starting up"): a first
	 * query right then failed under ASan, and every test skipped. Wait for it, 10 s at most. */
	for (int i = 0; i < 200 && PQping(pg.url) != PQPING_OK; i++)
		usleep(50000);
	if (PQping(pg.url) != PQPING_OK) {
		snprintf(reason, len, "the server does not accept connections (see %s/*.log)",
			 pg.dir);
		pg.url[0] = '\0';
		tb_test_pg_stop();
		return NULL;
	}
	return pg.url;
}

const char *tb_test_pg_url(const char *dbname, char *buf, size_t len)
{
	if (!pg.url[0])
		return NULL;
	snprintf(buf, len, "postgresql://postgres@/%s?host=%s&port=%d", dbname, pg.dir, PG_PORT);
	return buf;
}
