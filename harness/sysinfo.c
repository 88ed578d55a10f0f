// SPDX-License-Identifier: GPL-2.0
#include "tb.h"

int tb_cmd_sysinfo(int argc, char **argv)
{
	tb_err("sysinfo: not implemented yet");
	return TB_EXIT_UNAVAILABLE;
}
