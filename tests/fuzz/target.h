/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every libFuzzer target declares (included by one file of each program): libFuzzer's two
 * entry points, and TB_FUZZ_QUIET_INIT, the initializer of a target that needs nothing but
 * silence (every rejected input would print its error: thousands of lines a second).
 */
#ifndef TB_FUZZ_TARGET_H
#define TB_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "core/log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TB_FUZZ_QUIET_INIT                                \
	int LLVMFuzzerInitialize(int *argc, char ***argv) \
	{                                                 \
		(void)argc;                               \
		(void)argv;                               \
		tb_log_set_level(TB_LOG_SILENT);          \
		return 0;                                 \
	}

#endif /* TB_FUZZ_TARGET_H */
