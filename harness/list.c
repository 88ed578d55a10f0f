// SPDX-License-Identifier: GPL-2.0
#include "tb.h"

int tb_cmd_list(int argc, char **argv)
{
	tb_err("list: not implemented yet");
	return TB_EXIT_UNAVAILABLE;
}
