// SPDX-License-Identifier: GPL-2.0
/* The command table (commands.h): main.c dispatches through it, `list --man` documents it. */
#include <stddef.h>

#include "cli/commands.h"

const struct tb_command tb_commands[] = {
	{"run", tb_cmd_run, "run a scenario, write DIR/result.json (+ csv, plots, report)",
	 tb_usage_run},
	{"list", tb_cmd_list, "workloads and tracers, each with supported/why-not here",
	 tb_usage_list},
	{"sysinfo", tb_cmd_sysinfo, "the environment fingerprint", tb_usage_sysinfo},
	{"compare", tb_cmd_compare, "deltas between result sets (e.g. two kernels)",
	 tb_usage_compare},
	{"gate", tb_cmd_gate, "CI verdict on a result; exit 0 pass, 1 fail", tb_usage_gate},
	{"plot", tb_cmd_plot, "gnuplot PNG + SVG plots of a result", tb_usage_plot},
	{"report", tb_cmd_report, "self-contained HTML report of a result", tb_usage_report},
	{"history", tb_cmd_history, "runs over time: add, list, show, detect change points, report",
	 tb_usage_history},
	{"explain", tb_cmd_explain, "where a result's overheads land, from its stored profiles",
	 tb_usage_explain},
	{"anonymize", tb_cmd_anonymize, "a result without host, user, path or command line",
	 tb_usage_anonymize},
	{"cleanup", tb_cmd_cleanup, "remove any tracing state tracebench left behind",
	 tb_usage_cleanup},
	{"fleet", tb_cmd_fleet, "one scenario on many hosts (Ansible), one merged answer",
	 tb_usage_fleet},
	{NULL, NULL, NULL, NULL},
};
