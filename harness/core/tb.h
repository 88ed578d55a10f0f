/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebench: the name, the exit codes, and the core helpers every file uses (log, options, util).
 *
 * Conventions: exported names carry the tb_ prefix; functions return 0 or a negative errno;
 * a function that fails says what failed and why through tb_err() before returning.
 */
#ifndef TB_H
#define TB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define TB_NAME	   "tracebench"
#define TB_VERSION "0.1.0"

/* Exit codes (the CLI contract in doc/architecture.md). */
enum {
	TB_EXIT_OK = 0,		 /* success, gate passed */
	TB_EXIT_FAIL = 1,	 /* gate failed, measurement failed */
	TB_EXIT_USAGE = 2,	 /* bad usage or bad input (scenario, result file, option) */
	TB_EXIT_UNAVAILABLE = 3, /* not possible here: privileges, tracefs, BPF, lock held */
};

#define TB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include "core/log.h"
#include "core/options.h"
#include "core/util.h"

#endif /* TB_H */
