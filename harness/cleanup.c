// SPDX-License-Identifier: GPL-2.0
#include "tb.h"

int tb_cmd_cleanup(int argc, char **argv)
{
	tb_err("cleanup: not implemented yet");
	return TB_EXIT_UNAVAILABLE;
}
