// SPDX-License-Identifier: GPL-2.0
/* Child processes in their own process groups: spawn, poll, wait with a timeout, stop. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/proc.h"
#include "core/tb.h"

int tb_proc_which(const char *argv0, char *path, size_t len)
{
	const char *env = getenv("PATH");
	char *dirs, *dir, *save = NULL;
	int ret = -ENOENT;

	if (!argv0 || !*argv0)
		return -ENOENT;
	if (strchr(argv0, '/')) {
		char abs[PATH_MAX];

		if (access(argv0, X_OK))
			return -errno;
		/* Absolute, so that a TB_PROC_CHDIR child still finds it. */
		snprintf(path, len, "%s", realpath(argv0, abs) ? abs : argv0);
		return 0;
	}
	dirs = strdup(env && *env ? env
				  : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	if (!dirs)
		return -ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		struct stat st;

		snprintf(path, len, "%s/%s", dir, argv0);
		if (!stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK)) {
			ret = 0;
			break;
		}
	}
	free(dirs);
	return ret;
}

/* In the child: report errno through errfd and exit (the parent's tb_proc_spawn reads it). */
static void __attribute__((noreturn)) child_fail(int errfd, int err)
{
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/*
 * In the forked child: the cgroups first (so that everything it starts is found there), own
 * process group, die with the parent, default signals, stdin from /dev/null, stdout and stderr
 * to out, optionally another directory, then exec. A failure sends its errno through errfd.
 * Never returns.
 */
static void __attribute__((noreturn))
child_exec(const char *exe, char *const argv[], int out, const struct tb_proc_opts *o, int devnull,
	   int errfd, pid_t parent)
{
	unsigned int flags = o->flags;
	const char *out_path = o->out_path;
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(o->cgroup_fds); i++)
		if (o->cgroup_fds[i] >= 0 && write(o->cgroup_fds[i], "0", 1) != 1)
			child_fail(errfd, errno);
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, o->death_sig ? o->death_sig : SIGKILL);
	if (getppid() != parent) /* it died before the line above: a subreaper may have us */
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	dup2(devnull, 0);
	if (flags & TB_PROC_INHERIT) {
		signal(SIGTTOU, SIG_IGN);
	} else {
		dup2(out, 1);
		dup2(out, 2);
	}
	if (o->cwd_fd >= 0 && fchdir(o->cwd_fd))
		child_fail(errfd, errno);
	/* The directory the log was opened in, even if its path has become a link since. */
	if ((flags & TB_PROC_CHDIR) && o->out_dir && fchdir(o->out_dir->fd))
		child_fail(errfd, errno);
	if ((flags & TB_PROC_CHDIR) && out_path && !o->out_dir) {
		char dir[4096], *slash;

		snprintf(dir, sizeof(dir), "%s", out_path);
		slash = strrchr(dir, '/');
		if (slash) {
			*slash = '\0';
			if (chdir(dir[0] ? dir : "/"))
				child_fail(errfd, errno);
		}
	}
	execv(exe, argv);
	child_fail(errfd, errno);
}

/* The output goes through the bounded writer (core/bounded.h). */
static bool bounded(const struct tb_proc_opts *o)
{
	return o->out_path && !(o->flags & TB_PROC_CAPTURE) && (o->out_max || o->out_hook);
}

/*
 * Where the child's stdout and stderr go: a pipe (TB_PROC_CAPTURE) or out_path (appended), a
 * name in o->out_dir when set (opened through its handle) or a path.
 */
static int open_output(struct tb_proc *p, const struct tb_proc_opts *o, int pipefd[2], int *outfd)
{
	const int oflags = O_WRONLY | O_CREAT | O_APPEND;

	if (o->flags & TB_PROC_CAPTURE)
		return pipe2(pipefd, O_CLOEXEC) ? -errno : 0;
	if (!o->out_path)
		return 0;
	*outfd = o->out_dir ? tb_dir_open_output(o->out_dir, o->out_path, oflags, 0644)
			    : tb_open_output(o->out_path, oflags, 0644);
	if (*outfd < 0)
		return *outfd;
	if (bounded(o) && pipe2(pipefd, O_CLOEXEC))
		return -errno;
	if (o->out_dir && asprintf(&p->out_path, "%s/%s", o->out_dir->path, o->out_path) < 0)
		p->out_path = NULL;
	else if (!o->out_dir)
		p->out_path = strdup(o->out_path);
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int tb_proc_spawn(struct tb_proc *p, char *const argv[], const char *out_path, unsigned flags)
{
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;

	o.out_path = out_path;
	o.flags = flags;
	return tb_proc_spawn_opts(p, argv, &o);
}

int tb_proc_spawn_opts(struct tb_proc *p, char *const argv[], const struct tb_proc_opts *o)
{
	unsigned int flags = o->flags;
	int pipefd[2] = {-1, -1}, errpipe[2] = {-1, -1}, outfd = -1, ret = 0, child_errno;
	char exe[4096];
	ssize_t n;
	pid_t pid, parent;

	memset(p, 0, sizeof(*p));
	p->out_fd = -1;
	if (!argv || !argv[0])
		return -EINVAL;
	ret = tb_proc_which(argv[0], exe, sizeof(exe));
	if (ret)
		return ret;
	ret = open_output(p, o, pipefd, &outfd);
	if (ret)
		goto out;
	/* The child reports a failed exec through this pipe; a successful exec closes it. */
	if (pipe2(errpipe, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		goto out;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);

		child_exec(exe, argv,
			   (flags & TB_PROC_CAPTURE) || bounded(o) ? pipefd[1]
			   : outfd >= 0				   ? outfd
								   : devnull,
			   o, devnull, errpipe[1], parent);
	}
	setpgid(pid, pid); /* also in the parent, so signals right after return reach the group */
	close_fd(&errpipe[1]);
	n = read(errpipe[0], &child_errno, sizeof(child_errno));
	p->pid = pid;
	p->start_ns = tb_now_ns();
	if (n == (ssize_t)sizeof(child_errno)) {
		tb_proc_wait(p, 0);
		p->pid = 0;
		ret = -child_errno;
		goto out;
	}
	if (flags & TB_PROC_CAPTURE) {
		p->out_fd = pipefd[0];
		pipefd[0] = -1;
	}
	if (bounded(o)) {
		ret = tb_drain_start(&p->drain, pipefd[0], outfd, o->out_max, o->out_hook,
				     o->out_hook_ctx);
		pipefd[0] = outfd = -1; /* the drain's now */
		if (ret) {
			tb_proc_release(p);
			goto out;
		}
	}
out:
	close_fd(&pipefd[0]);
	close_fd(&pipefd[1]);
	close_fd(&errpipe[0]);
	close_fd(&errpipe[1]);
	close_fd(&outfd);
	if (ret) {
		free(p->out_path);
		p->out_path = NULL;
	}
	return ret;
}

int tb_proc_poll(struct tb_proc *p)
{
	pid_t r;

	if (p->reaped || !p->pid)
		return 1;
	r = wait4(p->pid, &p->status, WNOHANG, &p->ru);
	if (r == p->pid || (r < 0 && errno == ECHILD)) {
		p->reaped = true;
		p->end_ns = tb_now_ns();
		return 1;
	}
	return 0;
}

int tb_proc_wait(struct tb_proc *p, uint64_t timeout_ns)
{
	uint64_t deadline = tb_now_ns() + timeout_ns, delay = 100000;

	if (!timeout_ns) {
		while (!p->reaped && p->pid) {
			pid_t r = wait4(p->pid, &p->status, 0, &p->ru);

			if (r == p->pid || (r < 0 && errno != EINTR)) {
				p->reaped = true;
				p->end_ns = tb_now_ns();
			}
		}
		return 0;
	}
	while (!tb_proc_poll(p)) {
		if (tb_now_ns() >= deadline)
			return -ETIMEDOUT;
		tb_sleep_ns(delay);
		if (delay < 20000000)
			delay *= 2;
	}
	return 0;
}

int tb_proc_stop(struct tb_proc *p, int sig, uint64_t grace_ns)
{
	p->stop_sig = 0;
	if (!p->pid || tb_proc_poll(p))
		return 0;
	if (tb_stop_hurried() && grace_ns > TB_HURRY_GRACE_NS)
		grace_ns = TB_HURRY_GRACE_NS; /* the user insists: no 10 s waits per tracer */
	kill(-p->pid, sig);
	p->stop_sig = sig;
	if (!tb_proc_wait(p, grace_ns))
		goto reap_group;
	if (sig != SIGTERM) {
		kill(-p->pid, SIGTERM);
		p->stop_sig = SIGTERM;
		if (!tb_proc_wait(p, grace_ns))
			goto reap_group;
	}
	kill(-p->pid, SIGKILL);
	p->stop_sig = SIGKILL;
	tb_proc_wait(p, 0);
	return -ETIMEDOUT;
reap_group:
	/* The leader is gone; anything it left in its group goes too. */
	kill(-p->pid, SIGKILL);
	return 0;
}

uint64_t tb_proc_output_done(struct tb_proc *p)
{
	uint64_t n = tb_drain_finish(p->drain, !p->pid || tb_proc_poll(p));

	p->drain = NULL;
	return n;
}

void tb_proc_release(struct tb_proc *p)
{
	if (p->pid && !tb_proc_poll(p)) {
		kill(-p->pid, SIGKILL);
		tb_proc_wait(p, 0);
	}
	tb_proc_output_done(p);
	if (p->out_fd >= 0)
		close(p->out_fd);
	p->out_fd = -1;
	free(p->out_path);
	p->out_path = NULL;
}

const char *tb_proc_status_str(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "wait status 0x%x", status);
	return buf;
}

bool tb_proc_zombie(pid_t pid)
{
	char path[64], buf[512], *p, st = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (tb_read_line(path, buf, sizeof(buf)))
		return false;
	p = strrchr(buf, ')');
	return p && sscanf(p + 1, " %c", &st) == 1 && (st == 'Z' || st == 'X');
}
