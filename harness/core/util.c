// SPDX-License-Identifier: GPL-2.0
/* Small file, time and directory helpers shared by the harness and the plugins. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "core/base.h"
#include "core/log.h"
#include "core/util.h"

static volatile sig_atomic_t stop_flag;

bool tb_stop_requested(void)
{
	return stop_flag != 0;
}

void tb_request_stop(void)
{
	if (!stop_flag)
		stop_flag = 1;
}

int tb_exit_code(int err)
{
	switch (err) {
	case 0:
		return TB_EXIT_OK;
	case -EINVAL:
	case -ENOENT:
	case -ELOOP:
	case -EISDIR:
	case -ENOTDIR:
	case -EEXIST:
	case -EMLINK:
	case -ENAMETOOLONG:
		return TB_EXIT_USAGE;
	case -ENOSPC:
	case -EDQUOT:
	case -EROFS:
	case -EACCES:
	case -EPERM:
	case -EBUSY:
	case -EHOSTUNREACH:
		return TB_EXIT_UNAVAILABLE;
	default:
		return TB_EXIT_FAIL;
	}
}

bool tb_stop_hurried(void)
{
	return stop_flag > 1;
}

void tb_request_hurry(void)
{
	stop_flag = 2;
}

uint64_t tb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tb_sleep_ns(uint64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull};

	while (nanosleep(&ts, &ts) && errno == EINTR && !tb_stop_requested())
		;
}

void tb_stop_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

bool tb_sleep_until_stop_ns(uint64_t ns)
{
	uint64_t end = tb_now_ns() + ns, now;
	sigset_t stop, old;
	struct timespec ts;

	tb_stop_sigset(&stop);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	while (!tb_stop_requested() && (now = tb_now_ns()) < end) {
		ts.tv_sec = (end - now) / 1000000000ull;
		ts.tv_nsec = (end - now) % 1000000000ull;
		ppoll(NULL, 0, &ts, &old);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return tb_stop_requested();
}

/* tb_read_part of name at dirfd (AT_FDCWD: a path), with nofollow flags added to the open. */
static int read_part_at(int dirfd, const char *name, int nofollow, off_t from, size_t max,
			bool tail, char **out)
{
	struct stat st;
	off_t size;
	ssize_t n;
	int fd, ret;

	*out = NULL;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | nofollow);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= from) {
		close(fd);
		return 0;
	}
	size = st.st_size - from;
	if ((size_t)size > max) {
		from += tail ? size - (off_t)max : 0;
		size = (off_t)max;
	}
	*out = malloc((size_t)size + 1);
	n = *out ? pread(fd, *out, (size_t)size, from) : -1;
	ret = n < 0 ? (*out ? -errno : -ENOMEM) : 0;
	close(fd);
	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	(*out)[n] = '\0';
	return 0;
}

int tb_read_part(const char *path, off_t from, size_t max, bool tail, char **out)
{
	return read_part_at(AT_FDCWD, path, 0, from, max, tail, out);
}

int tb_read_part_at(int dirfd, const char *name, off_t from, size_t max, bool tail, char **out)
{
	return read_part_at(dirfd, name, O_NOFOLLOW, from, max, tail, out);
}

int tb_read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf, *nb;
	ssize_t r;
	int ret = 0;

	*out = NULL;
	buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				ret = -EFBIG;
				goto out;
			}
			nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		ret = -EFBIG;
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = n;
out:
	free(buf);
	return ret;
}

/* openat2 beneath dirfd with no link in any component; ENOSYS on kernels before 5.6. */
static int open_beneath(int dirfd, const char *path, int oflags)
{
	struct open_how how = {
		.flags = (uint64_t)oflags,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

int tb_open_input(int dirfd, const char *path, size_t max, unsigned flags)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below. */
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, fd, ret;
	struct stat st;

	if (!(flags & TB_INPUT_FOLLOW))
		oflags |= O_NOFOLLOW;
	fd = -1;
	if (dirfd != AT_FDCWD && !(flags & TB_INPUT_FOLLOW)) {
		fd = open_beneath(dirfd, path, oflags);
		if (fd < 0 && errno == EXDEV)
			errno = ELOOP; /* a link (or ..) on the way: said as a link */
		if (fd < 0 && errno != ENOSYS)
			return -errno;
	}
	if (fd < 0)
		fd = openat(dirfd, path, oflags);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		ret = -ENOTTY; /* said by callers as "not a regular file" */
	else if ((uint64_t)st.st_size > max)
		ret = -EFBIG;
	else
		ret = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ? -errno : 0;
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

const char *tb_input_strerror(int err)
{
	switch (err) {
	case -ENOTTY:
		return "not a regular file";
	case -EISDIR:
		return "not a regular file (a directory)";
	case -ELOOP:
		return "is a symbolic link (or one is on its way); not followed";
	default:
		return strerror(-err);
	}
}

/* Read what tb_open_input opens. */
static int read_input(int dirfd, const char *path, size_t max, unsigned flags, char **out,
		      size_t *len)
{
	int fd = tb_open_input(dirfd, path, max, flags), ret;

	*out = NULL;
	if (fd < 0)
		return fd;
	ret = tb_read_fd(fd, max, out, len);
	close(fd);
	return ret;
}

FILE *tb_fopen_input(const char *path, unsigned flags)
{
	int fd = tb_open_input(AT_FDCWD, path, SIZE_MAX, flags);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

int tb_read_file(const char *path, char **out, size_t *len)
{
	return read_input(AT_FDCWD, path, 64u << 20, TB_INPUT_FOLLOW, out, len);
}

int tb_read_regular(const char *path, size_t max, char **out, size_t *len)
{
	return read_input(AT_FDCWD, path, max, 0, out, len);
}

int tb_read_regular_at(int dirfd, const char *path, size_t max, char **out, size_t *len)
{
	return read_input(dirfd, path, max, 0, out, len);
}

int tb_read_line(const char *path, char *buf, size_t len)
{
	FILE *f;
	int ret = 0;

	f = tb_fopen_input(path, TB_INPUT_FOLLOW);
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		ret = ferror(f) ? -EIO : -ENODATA;
		buf[0] = '\0';
	} else {
		buf[strcspn(buf, "\n")] = '\0';
	}
	fclose(f);
	return ret;
}

int tb_write_file(const char *path, const char *s)
{
	size_t n = strlen(s);
	ssize_t w;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, s, n);
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != n)
		ret = -EIO;
	close(fd);
	return ret;
}

int tb_mkdir_p(const char *path, mode_t mode)
{
	char tmp[4096];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof(tmp))
		return -ENAMETOOLONG;
	memcpy(tmp, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (tmp[i] != '/' && tmp[i] != '\0')
			continue;
		tmp[i] = '\0';
		if (mkdir(tmp, mode) && errno != EEXIST)
			return -errno;
		tmp[i] = path[i];
	}
	return 0;
}

int tb_rm_rf_at(int parent, const char *name)
{
	struct dirent *de;
	DIR *d;
	int fd, ret = 0;

	if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -errno;
	fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = tb_rm_rf_at(dirfd(d), de->d_name);
		if (ret)
			break;
	}
	closedir(d);
	if (!ret && unlinkat(parent, name, AT_REMOVEDIR))
		ret = -errno;
	return ret;
}

int tb_rm_rf(const char *path)
{
	return tb_rm_rf_at(AT_FDCWD, path);
}

int tb_exe_dir(char *dir, size_t len)
{
	char exe[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -ENOENT;
	*slash = '\0';
	if ((size_t)snprintf(dir, len, "%s", exe) >= len)
		return -ENAMETOOLONG;
	return 0;
}

static _Thread_local int64_t du_sum;

static int du_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode))
		du_sum += st->st_size;
	return 0;
}

int64_t tb_dir_bytes(const char *path)
{
	du_sum = 0;
	if (nftw(path, du_one, 16, FTW_PHYS))
		return -errno;
	return du_sum;
}

bool tb_streq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int tb_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	out[0] = '\0';
	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -ENOMEM;
	for (i = 0; i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int tb_sha256_json(const struct json_t *v, char out[65])
{
	char *dump = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY |
					   JSON_REAL_PRECISION(17));
	int ret;

	out[0] = '\0';
	if (!dump)
		return -ENOMEM;
	ret = tb_sha256_hex(dump, strlen(dump), out);
	free(dump);
	return ret;
}

void tb_utc_iso(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
