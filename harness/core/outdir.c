// SPDX-License-Identifier: GPL-2.0
/* Directories as handles, files created privately and renamed into place (outdir.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io.h"
#include "core/outdir.h"
#include "core/tb.h"

const char *tb_dir_strerror(int err)
{
	switch (err) {
	case -ELOOP:
		return "is a symbolic link; tracebench never writes through or replaces a link "
		       "(remove it, or write elsewhere)";
	case -EISDIR:
		return "is a directory where a file goes";
	case -ENOTDIR:
		return "is not a directory";
	case -EMLINK:
		return "has other hard links; tracebench does not write into a file it did not "
		       "create";
	case -EEXIST:
		return "exists and is not a regular file";
	default:
		return strerror(-err);
	}
}

int tb_dir_exit_code(int err)
{
	return tb_exit_code(err);
}

static void say(unsigned int flags, const char *dir, const char *name, const char *what, int err)
{
	if (flags & TB_DIR_QUIET)
		return;
	tb_err("%s%s%s: %s%s", dir, name ? "/" : "", name ? name : "", what ? what : "",
	       tb_dir_strerror(err));
}

/* One path component: no '/', not empty, not "." or "..". */
static bool component(const char *name)
{
	return name && *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* The open of a directory that exists now; ELOOP, ENOTDIR as they come. */
static int open_dir_at(int at, const char *name, bool follow)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));

	if (fd >= 0)
		return fd;
	/* O_DIRECTORY on a symbolic link with O_NOFOLLOW: ELOOP (or ENOTDIR on old kernels). */
	if (!follow && errno == ENOTDIR) {
		struct stat st;

		if (!fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
			return -ELOOP;
	}
	return -errno;
}

/* mkdir[at] as flags say: 0 when made or (without NEW) there already, else -errno. */
static int make_dir_at(int at, const char *name, unsigned int flags, mode_t mode)
{
	if (!(flags & (TB_DIR_CREATE | TB_DIR_NEW)))
		return 0;
	if (!mkdirat(at, name, mode))
		return 0;
	if (errno == EEXIST && !(flags & TB_DIR_NEW))
		return 0;
	return -errno;
}

int tb_dir_open(struct tb_dir *d, const char *path, unsigned int flags, mode_t mode)
{
	int ret;

	d->fd = -1;
	if ((size_t)snprintf(d->path, sizeof(d->path), "%s", path) >= sizeof(d->path)) {
		say(flags, path, NULL, NULL, -ENAMETOOLONG);
		return -ENAMETOOLONG;
	}
	if ((flags & TB_DIR_PARENTS) && (flags & (TB_DIR_CREATE | TB_DIR_NEW))) {
		char parent[PATH_MAX], *slash;

		snprintf(parent, sizeof(parent), "%s", path);
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			ret = tb_mkdir_p(parent, 0755);
			if (ret) {
				say(flags, parent, NULL, "cannot create: ", ret);
				return ret;
			}
		}
	}
	ret = make_dir_at(AT_FDCWD, path, flags, mode);
	if (ret) {
		say(flags, path, NULL, ret == -EEXIST ? "" : "cannot create: ", ret);
		return ret == -EEXIST ? -EEXIST : ret;
	}
	ret = open_dir_at(AT_FDCWD, path, flags & TB_DIR_PATH);
	if (ret < 0) {
		say(flags, path, NULL,
		    ret == -ELOOP || ret == -ENOTDIR ? "" : "cannot open: ", ret);
		return ret;
	}
	d->fd = ret;
	return 0;
}

int tb_dir_sub(const struct tb_dir *parent, const char *name, unsigned int flags, mode_t mode,
	       struct tb_dir *out)
{
	int ret;

	out->fd = -1;
	if (!component(name)) {
		say(flags, parent->path, name, "not a plain name: ", -EINVAL);
		return -EINVAL;
	}
	if ((size_t)snprintf(out->path, sizeof(out->path), "%s/%s", parent->path, name) >=
	    sizeof(out->path)) {
		say(flags, parent->path, name, NULL, -ENAMETOOLONG);
		return -ENAMETOOLONG;
	}
	ret = make_dir_at(parent->fd, name, flags, mode);
	if (ret) {
		/* A dangling link makes mkdirat say EEXIST: name what is really there. */
		if (ret == -EEXIST) {
			struct stat st;

			if (!fstatat(parent->fd, name, &st, AT_SYMLINK_NOFOLLOW) &&
			    S_ISLNK(st.st_mode))
				ret = -ELOOP;
		}
		say(flags, out->path, NULL,
		    ret == -EEXIST || ret == -ELOOP ? "" : "cannot create: ", ret);
		return ret;
	}
	ret = open_dir_at(parent->fd, name, false);
	if (ret < 0) {
		say(flags, out->path, NULL,
		    ret == -ELOOP || ret == -ENOTDIR ? "" : "cannot open: ", ret);
		return ret;
	}
	out->fd = ret;
	return 0;
}

/* n random characters of [a-zA-Z0-9] into s (NUL-terminated). */
static void random_name(char *s, size_t n)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[32];
	size_t i;

	if (n > sizeof(r))
		n = sizeof(r);
	if (getrandom(r, n, GRND_NONBLOCK) != (ssize_t)n) {
		uint64_t x = tb_now_ns() ^ ((uint64_t)getpid() << 32);

		for (i = 0; i < n; i++, x = x * 6364136223846793005ull + 1442695040888963407ull)
			r[i] = (unsigned char)(x >> 56);
	}
	for (i = 0; i < n; i++)
		s[i] = set[r[i] % (sizeof(set) - 1)];
	s[n] = '\0';
}

int tb_dir_mktemp(const struct tb_dir *parent, const char *prefix, struct tb_dir *out)
{
	char name[NAME_MAX + 1], rnd[8];
	int i, ret = -EEXIST;

	out->fd = -1;
	for (i = 0; i < 100 && ret == -EEXIST; i++) {
		random_name(rnd, 6);
		snprintf(name, sizeof(name), "%.200s%s", prefix, rnd);
		ret = tb_dir_sub(parent, name, TB_DIR_NEW | TB_DIR_QUIET, 0700, out);
	}
	if (ret)
		say(0, parent->path, prefix, "cannot create a private directory: ", ret);
	return ret;
}

void tb_dir_close(struct tb_dir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

const char *tb_dir_name(const struct tb_dir *d)
{
	const char *slash = strrchr(d->path, '/');

	return slash ? slash + 1 : d->path;
}

int tb_dir_check_name(const struct tb_dir *d, const char *name)
{
	struct stat st;
	int ret;

	if (fstatat(d->fd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		say(0, d->path, name, "cannot check: ", ret);
		return ret;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	ret = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	say(0, d->path, name, NULL, ret);
	return ret;
}

/* Create a private temporary file in d for name; its name into tmp. Returns an fd or -errno. */
static int create_tmp(const struct tb_dir *d, const char *name, mode_t mode, char *tmp, size_t len)
{
	char rnd[8];
	int i, fd = -EEXIST;

	for (i = 0; i < 100 && fd == -EEXIST; i++) {
		random_name(rnd, 6);
		snprintf(tmp, len, ".%.200s.tmp-%s", name, rnd);
		fd = openat(d->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

int tb_dir_write(const struct tb_dir *d, const char *name, const void *buf, size_t len, mode_t mode)
{
	char tmp[NAME_MAX + 1];
	int fd, ret;

	if (!component(name)) {
		say(0, d->path, name, "not a plain name: ", -EINVAL);
		return -EINVAL;
	}
	ret = tb_dir_check_name(d, name);
	if (ret)
		return ret;
	fd = create_tmp(d, name, mode, tmp, sizeof(tmp));
	if (fd < 0) {
		say(0, d->path, name, "cannot write: ", fd);
		return fd;
	}
	ret = tb_write_full(fd, buf, len);
	if (!ret && (fchmod(fd, mode) || fsync(fd)))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(d->fd, tmp, d->fd, name))
		ret = -errno;
	if (ret) {
		unlinkat(d->fd, tmp, 0);
		say(0, d->path, name, "cannot write: ", ret);
		return ret;
	}
	fsync(d->fd); /* the rename itself, so that a crash keeps the old or the new file */
	return 0;
}

int tb_dir_rename(const struct tb_dir *from, const char *name, const struct tb_dir *to,
		  const char *to_name)
{
	int ret = tb_dir_check_name(to, to_name);

	if (ret)
		return ret;
	if (renameat(from->fd, name, to->fd, to_name)) {
		ret = -errno;
		say(0, to->path, to_name, "cannot move into place: ", ret);
		return ret;
	}
	fsync(to->fd);
	return 0;
}

int tb_dir_remove(const struct tb_dir *d, const char *name)
{
	int ret;

	if (!component(name))
		return -EINVAL;
	ret = tb_rm_rf_at(d->fd, name);
	if (ret)
		say(0, d->path, name, "cannot remove: ", ret);
	return ret;
}

int tb_dir_read(const struct tb_dir *d, const char *name, size_t max, char **out, size_t *len)
{
	int ret = tb_read_regular_at(d->fd, name, max, out, len);

	return ret == -ENOTTY || ret == -EISDIR ? -EINVAL : ret;
}

/* The open of name at at (a directory fd, or AT_FDCWD with a path) to write it in place, as
 * tb_open_output says; messages name dir/name (dir NULL: name alone). */
static int open_output_at(int at, const char *dir, const char *name, int oflags, mode_t mode)
{
	struct stat st;
	int fd, ret;

	/* O_NONBLOCK: a FIFO planted here must not block the open (it is refused below). */
	fd = openat(at, name, oflags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);
	if (fd < 0) {
		ret = -errno;
		say(0, dir ? dir : name, dir ? name : NULL,
		    ret == -ELOOP ? "" : "cannot open: ", ret);
		return ret;
	}
	if (fstat(fd, &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EEXIST;
	else if (st.st_nlink > 1)
		ret = -EMLINK;
	else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		ret = -errno;
	else
		ret = 0;
	if (ret) {
		close(fd);
		say(0, dir ? dir : name, dir ? name : NULL, NULL, ret);
		return ret;
	}
	return fd;
}

int tb_open_output(const char *path, int oflags, mode_t mode)
{
	return open_output_at(AT_FDCWD, NULL, path, oflags, mode);
}

int tb_dir_open_output(const struct tb_dir *d, const char *name, int oflags, mode_t mode)
{
	if (!component(name)) {
		say(0, d->path, name, "not a plain name: ", -EINVAL);
		return -EINVAL;
	}
	return open_output_at(d->fd, d->path, name, oflags, mode);
}

int tb_write_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	struct tb_dir d;
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	int ret;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, sizeof(dir), ".");
	ret = tb_dir_open(&d, slash == path ? "/" : dir, TB_DIR_PATH, 0);
	if (ret)
		return ret;
	ret = tb_dir_write(&d, name, data, len, mode);
	tb_dir_close(&d);
	return ret;
}
