// SPDX-License-Identifier: GPL-2.0
#include "tb.h"

int tb_cmd_run(int argc, char **argv)
{
	tb_err("run: not implemented yet");
	return TB_EXIT_UNAVAILABLE;
}
