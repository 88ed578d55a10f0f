// SPDX-License-Identifier: GPL-2.0
/* The run directory and the scratch directory (rundir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/armed.h"
#include "runner/rundir.h"

/* A directory tracebench may write a run into: ours or root's, not writable by everyone. */
static int check_owner(const char *path, const struct stat *st)
{
	if (st->st_uid != geteuid() && st->st_uid != 0) {
		tb_err("%s: owned by uid %u: a run is written only into a directory of this user or root",
		       path, (unsigned int)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX)) {
		tb_err("%s: writable by everyone: anyone could replace the run's files while it writes them",
		       path);
		return -EPERM;
	}
	/* A group other than ours (or root's) is other users: as good as everyone. */
	if ((st->st_mode & S_IWGRP) && !(st->st_mode & S_ISVTX) && st->st_gid != getegid() &&
	    st->st_gid != 0) {
		tb_err("%s: writable by group %u, not this user's: its members could replace the run's files while it writes them",
		       path, (unsigned int)st->st_gid);
		return -EPERM;
	}
	return 0;
}

/*
 * Whether path (or, while it is absent, the nearest directory above it that exists) can be
 * written: a read-only file system is found here, before the run waits for the lock or
 * measures anything, not at its first write. access(2) answers EROFS for root too. Returns 0
 * or -errno (said).
 */
static int check_writable(const char *path)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	while (lstat(dir, &st)) {
		slash = strrchr(dir, '/');
		if (!slash) {
			snprintf(dir, sizeof(dir), ".");
			break;
		}
		if (slash == dir) {
			dir[1] = '\0';
			break;
		}
		*slash = '\0';
	}
	if (lstat(dir, &st))
		return 0; /* gone meanwhile: said when it is created */
	if (S_ISREG(st.st_mode)) {
		tb_err("%s: cannot be created: %s is a file, not a directory", path, dir);
		return -ENOTDIR;
	}
	if (!S_ISDIR(st.st_mode))
		return 0; /* a link on the way: said (and refused) when it is created */
	if (access(dir, W_OK | X_OK)) {
		int ret = -errno;

		tb_err("%s: the run directory cannot be written%s%s: %s", path,
		       strcmp(dir, path) ? " in " : "", strcmp(dir, path) ? dir : "",
		       strerror(errno));
		return ret;
	}
	return 0;
}

int tb_rundir_check(const char *outdir)
{
	struct dirent *de;
	struct stat st;
	bool empty = true;
	DIR *d;
	int fd, ret;

	if (!outdir)
		return check_writable("results");
	if (lstat(outdir, &st))
		return check_writable(outdir); /* absent: created (a bad parent is said then) */
	if (S_ISLNK(st.st_mode)) {
		tb_err("%s: %s", outdir, tb_dir_strerror(-ELOOP));
		return -ELOOP;
	}
	if (!S_ISDIR(st.st_mode)) {
		tb_err("%s: exists and is not a directory; a run directory is never overwritten",
		       outdir);
		return -EEXIST;
	}
	ret = check_owner(outdir, &st);
	if (!ret)
		ret = check_writable(outdir);
	if (ret)
		return ret;
	fd = open(outdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		ret = -errno;
		tb_err("%s: cannot read: %s", outdir, strerror(errno));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = false;
	closedir(d);
	if (!empty) {
		tb_err("%s: exists and is not empty; a run directory is never overwritten", outdir);
		return -EEXIST;
	}
	return 0;
}

/* results/, created when absent, checked like -o (it need not be empty). */
static int open_results(struct tb_dir *res)
{
	struct stat st;
	int ret;

	ret = tb_dir_open(res, "results", TB_DIR_CREATE, 0755);
	if (ret)
		return ret;
	if (fstat(res->fd, &st)) {
		ret = -errno;
		tb_err("results: %s", strerror(errno));
	} else {
		ret = check_owner("results", &st);
	}
	if (ret)
		tb_dir_close(res);
	return ret;
}

int tb_rundir_create(const char *outdir, const char *scenario, bool anonymize, struct tb_dir *d)
{
	char host[256] = "unknown", ts[32], name[NAME_MAX + 1];
	time_t now = time(NULL);
	struct tb_dir res;
	struct tm tm;
	int i, ret;

	d->fd = -1;
	if (outdir) {
		ret = tb_rundir_check(outdir);
		if (ret)
			return ret;
		/* The user's path, made when absent; the directory itself is not a link. */
		ret = tb_dir_open(d, outdir, TB_DIR_CREATE | TB_DIR_PARENTS | TB_DIR_QUIET, 0755);
		if (ret)
			tb_err("%s: cannot create the run directory: %s", outdir,
			       tb_dir_strerror(ret));
		return ret;
	}
	if (anonymize)
		snprintf(host, sizeof(host), "anon");
	else
		gethostname(host, sizeof(host) - 1);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	ret = open_results(&res);
	if (ret)
		return ret;
	ret = -EEXIST;
	for (i = 0; i < 100 && ret == -EEXIST; i++) {
		snprintf(name, sizeof(name), "%.32s-%.64s-%.64s%s%.0d", ts, host, scenario,
			 i ? "-" : "", i);
		ret = tb_dir_sub(&res, name, TB_DIR_NEW | TB_DIR_QUIET, 0755, d);
	}
	if (ret)
		tb_err("results/%s: cannot create the run directory: %s", name,
		       tb_dir_strerror(ret));
	tb_dir_close(&res);
	return ret;
}

/* Bytes a sample adds to result.json (17-digit numbers, indent 1) and to samples.csv; measured
 * on results of the shipped scenarios with room to spare. */
#define SAMPLE_JSON_BYTES 700
#define SAMPLE_CSV_BYTES  160

int tb_rundir_check_room(const struct tb_dir *d, size_t nsamples, size_t now_bytes)
{
	double need, avail, json;
	struct statvfs vfs;

	if (fstatvfs(d->fd, &vfs))
		return 0; /* unknown: the writes will say */
	avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
	json = (double)now_bytes + (double)nsamples * SAMPLE_JSON_BYTES;
	need = 2 * json + (double)nsamples * SAMPLE_CSV_BYTES;
	if (avail >= need)
		return 0;
	tb_err("%s: %s: %.0f KiB free, but the result of %zu samples needs about %.0f KiB (result.json is replaced after every round); free space or write elsewhere (-o)",
	       d->path, strerror(ENOSPC), avail / 1024, nsamples, need / 1024);
	return -ENOSPC;
}

int tb_scratch_create(struct tb_plan *p, char *root, size_t len)
{
	size_t i;
	int ret;

	snprintf(root, len, "/tmp/" TB_SCRATCH_PREFIX "%d-XXXXXX", (int)getpid());
	if (!mkdtemp(root)) {
		ret = -errno;
		tb_err("%s: cannot create a scratch directory: %s", root, strerror(errno));
		root[0] = '\0';
		return ret;
	}
	/* Recorded, so that cleanup removes it when this process is killed. */
	ret = tb_armed_add(TB_ARMED_SCRATCH, root);
	if (ret) {
		tb_scratch_remove(root);
		return ret;
	}
	chmod(root, 0755);
	for (i = 0; i < p->s->nworkloads; i++) {
		snprintf(p->wls[i].tmpdir, sizeof(p->wls[i].tmpdir), "%s/%zu", root, i);
		if (mkdir(p->wls[i].tmpdir, 0755)) {
			ret = -errno;
			tb_err("%s: cannot create a scratch directory: %s", p->wls[i].tmpdir,
			       strerror(errno));
			return ret;
		}
	}
	return 0;
}

void tb_scratch_remove(char *root)
{
	if (root[0]) {
		tb_rm_rf(root);
		tb_armed_remove(TB_ARMED_SCRATCH, root);
	}
	root[0] = '\0';
}
