// SPDX-License-Identifier: GPL-2.0
/* One place where every message (ours, libbpf's, libtracefs's) goes to stderr. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base.h"
#include "core/log.h"
#include "core/utf8.h"

static enum tb_log_level log_level = TB_LOG_INFO;
static _Thread_local unsigned long nerrors;
static _Thread_local char last_error[512];

unsigned long tb_log_error_count(void)
{
	return nerrors;
}

const char *tb_log_last_error(void)
{
	return last_error;
}

void tb_log_set_level(enum tb_log_level level)
{
	log_level = level;
}

enum tb_log_level tb_log_get_level(void)
{
	return log_level;
}

void tb_vlog(enum tb_log_level level, const char *fmt, va_list ap)
{
	static const char *const prefix[] = {
		[TB_LOG_ERROR] = "",
		[TB_LOG_WARN] = "warning: ",
		[TB_LOG_INFO] = "",
		[TB_LOG_DEBUG] = "debug: ",
	};
	char raw[2048], buf[4096];
	size_t n;

	if (level == TB_LOG_ERROR) {
		va_list aq;

		va_copy(aq, ap);
		vsnprintf(last_error, sizeof(last_error), fmt, aq);
		va_end(aq);
		last_error[strcspn(last_error, "\n")] = '\0';
		nerrors++;
	}
	if (level > log_level || level < TB_LOG_ERROR) /* SILENT is a threshold, not a level */
		return;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* Messages quote files, outputs and results: no ESC sequence reaches the terminal. */
	tb_escape_controls_buf(raw, true, buf, sizeof(buf));
	n = 0;
	while (buf[n])
		n++;
	/* One write per message so lines of concurrent threads do not interleave. */
	fprintf(stderr, "%s: %s%s%s", TB_NAME, prefix[level], buf,
		n && buf[n - 1] == '\n' ? "" : "\n");
}

void tb_log(enum tb_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tb_vlog(level, fmt, ap);
	va_end(ap);
}
