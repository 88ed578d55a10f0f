/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small time, file and directory helpers shared by the harness and the plugins (util.c).
 */
#ifndef TB_UTIL_H
#define TB_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t tb_now_ns(void);
/* Sleep ns nanoseconds (restarts after signals unless tb_stop_requested()). */
void tb_sleep_ns(uint64_t ns);
/* Read a whole small file into a new NUL-terminated buffer (trailing newline kept). */
int tb_read_file(const char *path, char **out, size_t *len);
/* Read the first line of a file, without newline, into buf. */
int tb_read_line(const char *path, char *buf, size_t len);
/* Write s to path (no O_CREAT/O_TRUNC games: for sysfs/procfs/tracefs files). */
int tb_write_file(const char *path, const char *s);
/* mkdir -p with mode; returns 0 when it exists already. */
int tb_mkdir_p(const char *path, mode_t mode);
/* rm -rf of a directory tree we created (does not follow symlinks). */
int tb_rm_rf(const char *path);
/* Write data to path atomically: path.tmp, fsync, rename, fsync of the directory. */
int tb_write_atomic(const char *path, const void *data, size_t len, mode_t mode);
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
/* UTC time as 2026-11-29T10:44:16Z into buf. */
void tb_utc_iso(char *buf, size_t len, time_t t);
/* Set by the signal handler of `run`; long loops poll it. */
bool tb_stop_requested(void);
void tb_request_stop(void);

#endif /* TB_UTIL_H */
