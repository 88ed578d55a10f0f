/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Messages: one place where ours, libbpf's and libtracefs's go (stderr, "tracebench: ...").
 */
#ifndef TB_LOG_H
#define TB_LOG_H

#include <stdarg.h>

enum tb_log_level {
	TB_LOG_SILENT = -1, /* nothing at all (fuzz targets, tests of error paths) */
	TB_LOG_ERROR,
	TB_LOG_WARN,
	TB_LOG_INFO,
	TB_LOG_DEBUG,
};

/* Messages go to stderr as "tracebench: <text>" (warnings "tracebench: warning: <text>"). */
void tb_log_set_level(enum tb_log_level level);
enum tb_log_level tb_log_get_level(void);
void tb_log(enum tb_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tb_vlog(enum tb_log_level level, const char *fmt, va_list ap);
/*
 * Errors logged so far by this thread (printed or not), and the text of the last one (without
 * the "tracebench: " prefix; "" before the first). A caller that already printed why something
 * failed is told apart from one that did not: the runner records a tracer's own message as the
 * cell's error instead of adding a second one made of errno alone.
 */
unsigned long tb_log_error_count(void);
const char *tb_log_last_error(void);
#define tb_err(...)   tb_log(TB_LOG_ERROR, __VA_ARGS__)
#define tb_warn(...)  tb_log(TB_LOG_WARN, __VA_ARGS__)
#define tb_info(...)  tb_log(TB_LOG_INFO, __VA_ARGS__)
#define tb_debug(...) tb_log(TB_LOG_DEBUG, __VA_ARGS__)

#endif /* TB_LOG_H */
