// SPDX-License-Identifier: GPL-2.0
#include "tb.h"

int tb_cmd_report(int argc, char **argv)
{
	tb_err("report: not implemented yet");
	return TB_EXIT_UNAVAILABLE;
}
