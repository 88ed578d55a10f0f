// SPDX-License-Identifier: GPL-2.0
#include "tb.h"

int tb_cmd_gate(int argc, char **argv)
{
	tb_err("gate: not implemented yet");
	return TB_EXIT_UNAVAILABLE;
}
