// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for a command's argv placeholders (drive-placeholders.h). */
#include "core/tb.h"
#include "drive-placeholders.h"
#include "target.h"

TB_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return tb_drive_placeholders(data, size);
}
