// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target for a fleet run's Ansible events and host records (drive-fleet.h). */
#include "core/tb.h"
#include "drive-fleet.h"
#include "target.h"

TB_FUZZ_QUIET_INIT

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return tb_drive_fleet(data, size);
}
