// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for a history database someone else wrote (drive-history.h). */
#include <stdlib.h>

#include "core/tb.h"
#include "drive-history.h"
#include "target.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	tb_log_set_level(TB_LOG_SILENT);
	atexit(tb_drive_history_done);
	/* tools/fuzz.sh runs the targets from the top of the tree */
	return tb_drive_history_init("tests/data") ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (tb_drive_history(data, size))
		abort();
	return 0;
}
