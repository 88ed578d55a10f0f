/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small time, file and directory helpers shared by the harness and the plugins (util.c).
 */
#ifndef TB_UTIL_H
#define TB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tb_now_ns(void);
/* Sleep ns nanoseconds (restarts after signals unless tb_stop_requested()). */
void tb_sleep_ns(uint64_t ns);
/*
 * Sleep ns nanoseconds or until a stop is requested, without the window that checking the stop
 * and then sleeping leaves: the stop signals (tb_stop_sigset) stay blocked from the
 * check into the sleep, which alone lets them in (ppoll), so one arriving in between still ends
 * it. For long waits that a stop must cut short (run --repeat's spacing); short polls keep
 * tb_sleep_ns. Returns true when a stop was requested.
 */
bool tb_sleep_until_stop_ns(uint64_t ns);
/* The signals that ask for a stop (SIGINT, SIGTERM, SIGHUP) into set: those the CLI's handler
 * takes (tb_cli_stop_on_signals) and those that end tb_sleep_until_stop_ns. */
void tb_stop_sigset(sigset_t *set);
/*
 * The one opener of every file tracebench reads (also tb_dir_read's): a regular file of at most
 * max bytes, opened O_NONBLOCK so that a FIFO never blocks the open, checked with fstat (a FIFO
 * or a device: -ENOTTY, said as "not a regular file"; a directory -EISDIR; larger -EFBIG), then
 * made blocking. A link is refused (-ELOOP): at path's last component for dirfd AT_FDCWD (a
 * path as a user named it), at every component of path beneath dirfd otherwise (openat2's
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: a result directory's own files). TB_INPUT_FOLLOW is
 * for the system's files only (/etc/os-release is a link), never for input from outside.
 * Returns the descriptor (O_CLOEXEC) or -errno.
 */
enum { TB_INPUT_FOLLOW = 1 << 0 };
int tb_open_input(int dirfd, const char *path, size_t max, unsigned flags);
/* path through tb_open_input (no size limit: a kernel file says 0) as a stdio stream to read;
 * NULL with errno on failure. For the line-by-line readers of the system's files. */
FILE *tb_fopen_input(const char *path, unsigned flags);
/* What a tb_open_input error means for its user ("not a regular file", "is a symbolic link; not
 * followed", else strerror); -EFBIG's limit is the caller's to say. Static text. */
const char *tb_input_strerror(int err);
/* A whole system file (a kernel file, one of ours; up to 64 MiB) through tb_open_input with
 * TB_INPUT_FOLLOW into a new NUL-terminated buffer (trailing newline kept). */
int tb_read_file(const char *path, char **out, size_t *len);
/*
 * At most max bytes of path from offset from to its end: the first max (tail false) or the last
 * max (tail true), into a new NUL-terminated buffer *out (*out NULL: nothing there). A file
 * that may be large or growing (a tracer's log, a script) without reading it all. Returns 0 or
 * -errno.
 */
int tb_read_part(const char *path, off_t from, size_t max, bool tail, char **out);
/* The same for name in the directory dirfd, never following a link at name (-ELOOP). */
int tb_read_part_at(int dirfd, const char *name, off_t from, size_t max, bool tail, char **out);
/*
 * Read an input file a user names (a scenario, a result, a record) through tb_open_input:
 * *out is new and NUL-terminated. The _at form reads path beneath dirfd, no link on the way.
 */
int tb_read_regular(const char *path, size_t max, char **out, size_t *len);
int tb_read_regular_at(int dirfd, const char *path, size_t max, char **out, size_t *len);
/* Read fd to its end, at most max bytes (-EFBIG beyond), into a new NUL-terminated buffer. */
int tb_read_fd(int fd, size_t max, char **out, size_t *len);
/* Read the first line of a system file (tb_fopen_input), without newline, into buf. */
int tb_read_line(const char *path, char *buf, size_t len);
/* Write s to path (no O_CREAT/O_TRUNC games: for sysfs/procfs/tracefs files). */
int tb_write_file(const char *path, const char *s);
/* mkdir -p with mode; returns 0 when it exists already. */
int tb_mkdir_p(const char *path, mode_t mode);
/* rm -rf of a directory tree we created (does not follow symlinks). */
int tb_rm_rf(const char *path);
/* The same for name inside the directory dirfd (absent: 0). */
int tb_rm_rf_at(int dirfd, const char *name);
/* a + b for counts >= 0, saturating at INT64_MAX instead of wrapping. */
static inline int64_t tb_add_sat(int64_t a, int64_t b)
{
	int64_t s;

	return __builtin_add_overflow(a, b, &s) ? INT64_MAX : s;
}
/*
 * The directory of the running binary (/proc/self/exe) into dir. Data files are looked up
 * relative to it first, so an installed tree works wherever it was installed (make install
 * PREFIX=/opt/tb after a default build). Returns 0, -ENAMETOOLONG or -errno of readlink.
 */
int tb_exe_dir(char *dir, size_t len);
/* Where data and helpers are relative to the binary in an installed tree (bin/): the
 * Makefile's DATADIR and LIBEXECDIR seen from BINDIR. */
#ifndef TB_DATADIR_REL
#define TB_DATADIR_REL "../share/tracebench"
#endif
#ifndef TB_LIBEXECDIR_REL
#define TB_LIBEXECDIR_REL "../libexec/tracebench"
#endif
/* Bytes of the regular files under path (not following links), or -errno. */
int64_t tb_dir_bytes(const char *path);
/* Equal strings, NULL equal only to NULL. */
bool tb_streq(const char *a, const char *b);
/* SHA-256 of data as 64 lowercase hex digits (OpenSSL's libcrypto). Returns 0, or -ENOMEM
 * when libcrypto fails (out is then ""). */
int tb_sha256_hex(const void *data, size_t len, char out[65]);
/*
 * The digest of a JSON value (jansson's json_t, any value): tb_sha256_hex of its canonical
 * text, compact, keys sorted, reals in 17 significant digits. The one way tracebench digests
 * JSON: the environment fingerprint (host/sysinfo.h), the hardware class (model/system.h), a
 * history run's hash (history/series.h). Returns 0, or -ENOMEM (out is then "").
 */
struct json_t;
int tb_sha256_json(const struct json_t *v, char out[65]);
/* How tb_sha256_json digests, for a record that names its method (sysinfo's fingerprint). */
#define TB_SHA256_JSON_HOW "sha256 of the compact sorted JSON"
/* UTC time as 2026-11-29T10:44:16Z into buf. */
void tb_utc_iso(char *buf, size_t len, time_t t);
/* Set by the signal handler of `run`; long loops poll it. Async-signal-safe. */
bool tb_stop_requested(void);
void tb_request_stop(void);
/*
 * A second stop request: the user insists. Teardown still runs to its end (tracers stopped,
 * the armed record emptied, the result written), but without waiting: no settle delays, and a
 * tracer command gets its stop signal and SIGKILL with short grace periods
 * (TB_HURRY_GRACE_NS). Async-signal-safe.
 */
bool tb_stop_hurried(void);
void tb_request_hurry(void);

/*
 * The exit code of the class of a failure -errno, the same for every command (core/base.h):
 * TB_EXIT_USAGE for bad input or a path that cannot be one (-EINVAL, -ENOENT, -ELOOP, -EISDIR,
 * -ENOTDIR, -EEXIST, -EMLINK, -ENAMETOOLONG), TB_EXIT_UNAVAILABLE for what this machine does not
 * allow now (-ENOSPC, -EDQUOT, -EROFS, -EACCES, -EPERM, -EBUSY, -EHOSTUNREACH), TB_EXIT_OK for
 * 0, else TB_EXIT_FAIL.
 */
int tb_exit_code(int err);
#define TB_HURRY_GRACE_NS 200000000ull

#endif /* TB_UTIL_H */
