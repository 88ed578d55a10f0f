// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the workload plugins. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#ifndef TB_LIBEXECDIR
#define TB_LIBEXECDIR "/usr/local/libexec/tracebench"
#endif

int tb_wl_path(const struct tb_wl *w, const char *tag, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s-%u", w->tmpdir, tag, w->thread);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tb_wl_fill(int fd, uint64_t size)
{
	char buf[65536];
	uint64_t off = 0;
	ssize_t n;

	memset(buf, 'x', sizeof(buf));
	while (off < size) {
		size_t chunk = size - off < sizeof(buf) ? (size_t)(size - off) : sizeof(buf);

		n = pwrite(fd, buf, chunk, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += (uint64_t)n;
	}
	return 0;
}

static int try_helper(const char *dir, const char *name, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return access(path, X_OK) ? -ENOENT : 0;
}

int tb_wl_find_helper(const char *name, char *path, size_t len, char *why, size_t whylen)
{
	char exe[PATH_MAX], dir[PATH_MAX + 32];
	const char *env = getenv("TB_HELPERS");
	ssize_t n;

	if (env && *env && !try_helper(env, name, path, len))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(dir, sizeof(dir), "%s/build/helpers", dirname(exe));
		if (!try_helper(dir, name, path, len))
			return 0;
		/* the binary may itself live in build/ (run-tests) */
		exe[n] = '\0';
		snprintf(dir, sizeof(dir), "%s/helpers", dirname(exe));
		if (!try_helper(dir, name, path, len))
			return 0;
	}
	if (!try_helper(TB_LIBEXECDIR, name, path, len))
		return 0;
	if (why)
		snprintf(why, whylen,
			 "helper %s not found in $TB_HELPERS, build/helpers next to the binary or "
			 "%s "
			 "(run make)",
			 name, TB_LIBEXECDIR);
	return -ENOENT;
}

int tb_wl_check_path(const char *key, const char *path, unsigned int kind, int amode, char *err,
		     size_t len)
{
	struct stat st;

	if (!path || !*path) {
		snprintf(err, len, "%s: empty path", key);
		return -EINVAL;
	}
	if (stat(path, &st)) {
		snprintf(err, len, "%s: %s: %s", key, path, strerror(errno));
		return -EINVAL;
	}
	if (kind == S_IFDIR && !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "%s: %s: not a directory", key, path);
		return -EINVAL;
	}
	if (kind == S_IFREG && !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s: %s: not a regular file", key, path);
		return -EINVAL;
	}
	if (amode && access(path, amode)) {
		snprintf(err, len, "%s: %s: %s", key, path, strerror(errno));
		return -EINVAL;
	}
	return 0;
}
