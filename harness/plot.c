// SPDX-License-Identifier: GPL-2.0
#include "tb.h"

int tb_cmd_plot(int argc, char **argv)
{
	tb_err("plot: not implemented yet");
	return TB_EXIT_UNAVAILABLE;
}
