/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one owner of "create a file tracebench writes" (outdir.c). tracebench runs as root and
 * writes into directories whose contents may come from elsewhere (a result directory from a CI
 * artifact, -o DIR), so:
 *
 *  - a directory is a handle, opened O_DIRECTORY|O_NOFOLLOW and used through *at() calls; a
 *    subdirectory is created with mkdirat and opened the same way;
 *  - a file is written under a private temporary name (O_CREAT|O_EXCL|O_NOFOLLOW), fsynced and
 *    renamed into place (renameat replaces a name, it never writes through what the name
 *    pointed at), then the directory is fsynced;
 *  - a name that exists as anything but a regular file (a symbolic link, dangling or not, a
 *    directory, a FIFO) is refused: tracebench never writes through, or replaces, what it did
 *    not create as a file. A file opened to be written in place (logs, streams) must be absent
 *    or a regular file with no other hard link.
 *
 * Only the path a user typed (-o DIR, the directory of RESULT.json) is resolved as given, links
 * included (TB_DIR_PATH): those are the user's. Everything beneath it is tracebench's.
 *
 * Every function says what failed, naming the path and why, once (tb_err), and returns 0 or a
 * negative errno; tb_dir_exit_code() maps that errno to the command's exit code.
 */
#ifndef TB_OUTDIR_H
#define TB_OUTDIR_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* An open directory. fd is -1 when closed; path names it in messages. */
struct tb_dir {
	int fd;
	char path[PATH_MAX];
};

#define TB_DIR_INIT      \
	{                \
		.fd = -1 \
	}

enum {
	TB_DIR_CREATE = 1 << 0,	 /* create it when absent (mode), else open what is there */
	TB_DIR_NEW = 1 << 1,	 /* it must be created now: -EEXIST when the name exists */
	TB_DIR_PATH = 1 << 2,	 /* tb_dir_open: the user's path, links in it followed */
	TB_DIR_PARENTS = 1 << 3, /* tb_dir_open with CREATE: create missing parents too */
	TB_DIR_QUIET = 1 << 4,	 /* say nothing when it fails (the caller has a better message) */
};

/*
 * Open (and with TB_DIR_CREATE create) the directory at path into d. Without TB_DIR_PATH the
 * last component must not be a symbolic link (-ELOOP). Returns 0 or -errno.
 */
int tb_dir_open(struct tb_dir *d, const char *path, unsigned int flags, mode_t mode);
/* The same for name (one component, no '/') inside parent; never follows a link. */
int tb_dir_sub(const struct tb_dir *parent, const char *name, unsigned int flags, mode_t mode,
	       struct tb_dir *out);
/*
 * A fresh private directory (mode 0700) named <prefix>XXXXXX inside parent, for files that
 * must not be seen until complete. Remove it with tb_dir_remove(parent, out->path's name).
 */
int tb_dir_mktemp(const struct tb_dir *parent, const char *prefix, struct tb_dir *out);
void tb_dir_close(struct tb_dir *d);
/* The last component of d's path (what tb_dir_sub or tb_dir_mktemp named it). */
const char *tb_dir_name(const struct tb_dir *d);

/*
 * 0 when name in d may be (re)written: absent, or a regular file. -ELOOP for a symbolic link,
 * -EISDIR for a directory, -EEXIST for anything else; each said, naming it.
 */
int tb_dir_check_name(const struct tb_dir *d, const char *name);
/* Write len bytes of buf as name in d (mode), atomically, as described above. */
int tb_dir_write(const struct tb_dir *d, const char *name, const void *buf, size_t len,
		 mode_t mode);
/* Move name from one directory to to_name in another (same file system), checked as above. */
int tb_dir_rename(const struct tb_dir *from, const char *name, const struct tb_dir *to,
		  const char *to_name);
/* Remove name in d: a file, or a tree of directories and files without following links.
 * Absent is not an error. */
int tb_dir_remove(const struct tb_dir *d, const char *name);
/*
 * Read name in d (a regular file, no link followed, at most max bytes) into a new
 * NUL-terminated buffer (*out, the caller frees). Returns 0, -EFBIG when larger, or -errno;
 * silent unless the file exists and cannot be read.
 */
int tb_dir_read(const struct tb_dir *d, const char *name, size_t max, char **out, size_t *len);

/*
 * Open the file at path to write it in place (a log, a stream), with oflags (O_WRONLY,
 * O_CREAT, O_APPEND, O_TRUNC, ...; O_NOFOLLOW and O_CLOEXEC are added): the last component is
 * never followed, and an existing file must be a regular file with a single link. For a path
 * in a directory tracebench made itself and holds no handle of (a scratch directory); in one
 * it opened (tracers/<name>/ of a run) use tb_dir_open_output. Returns an fd or -errno.
 */
int tb_open_output(const char *path, int oflags, mode_t mode);
/* The same for name in d: the open is relative to the handle, so it lands in the directory d
 * opened even if d's path has become a link since. Returns an fd or -errno. */
int tb_dir_open_output(const struct tb_dir *d, const char *name, int oflags, mode_t mode);
/* path written atomically: its directory opened as the user's path, the file by tb_dir_write
 * (for a path the user gave, -o FILE; a directory tracebench made is written through its
 * handle). */
int tb_write_atomic(const char *path, const void *data, size_t len, mode_t mode);

/*
 * The exit code for a failed write: tb_exit_code()'s class (core/util.h), so TB_EXIT_USAGE for
 * a path that cannot be one (a link, a directory or a non-file where a file goes, a missing
 * parent), TB_EXIT_UNAVAILABLE for what this machine does not allow (a full or read-only file
 * system, no permission), else TB_EXIT_FAIL.
 */
int tb_dir_exit_code(int err);
/* The reason for err as said in messages ("is a symbolic link", strerror otherwise). */
const char *tb_dir_strerror(int err);

#endif /* TB_OUTDIR_H */
