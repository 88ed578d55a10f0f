// SPDX-License-Identifier: GPL-2.0
/* The command table (commands.h): main.c dispatches through it, `list --man` documents it. */
#include <stddef.h>

#include "cli/commands.h"

const struct tb_command tb_commands[] = {
	{"run", tb_cli_run, "run a scenario, write DIR/result.json (+ csv, plots, report)",
	 tb_usage_run},
	{"list", tb_cli_list, "workloads and tracers, each with supported/why-not here",
	 tb_usage_list},
	{"sysinfo", tb_cli_sysinfo, "the environment fingerprint", tb_usage_sysinfo},
	{"compare", tb_cli_compare, "deltas between result sets (e.g. two kernels)",
	 tb_usage_compare},
	{"combine", tb_cli_combine, "repeated runs as one figure whose CI holds their spread",
	 tb_usage_combine},
	{"gate", tb_cli_gate, "CI verdict on a result; exit 0 pass, 1 fail", tb_usage_gate},
	{"plot", tb_cli_plot, "gnuplot PNG + SVG plots of a result", tb_usage_plot},
	{"report", tb_cli_report, "self-contained HTML report of a result", tb_usage_report},
	{"history", tb_cli_history, "runs over time: add, list, show, detect change points, report",
	 tb_usage_history},
	{"explain", tb_cli_explain, "where a result's overheads land, from its stored profiles",
	 tb_usage_explain},
	{"anonymize", tb_cli_anonymize, "a result without host, user, path or command line",
	 tb_usage_anonymize},
	{"cleanup", tb_cli_cleanup, "remove any tracing state tracebench left behind",
	 tb_usage_cleanup},
	{"fleet", tb_cli_fleet, "one scenario on many hosts (Ansible), one merged answer",
	 tb_usage_fleet},
	{NULL, NULL, NULL, NULL},
};
