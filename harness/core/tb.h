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

#include "core/base.h"
#include "core/log.h"
#include "core/options.h"
#include "core/util.h"

#endif /* TB_H */
