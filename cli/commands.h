/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command entry points, one per `tracebench <command>` (cli/cmd-<command>.c). Each parses
 * its own options and returns an exit code (core/tb.h).
 */
#ifndef TB_COMMANDS_H
#define TB_COMMANDS_H

int tb_cmd_run(int argc, char **argv);
int tb_cmd_list(int argc, char **argv);
int tb_cmd_sysinfo(int argc, char **argv);
int tb_cmd_compare(int argc, char **argv);
int tb_cmd_gate(int argc, char **argv);
int tb_cmd_plot(int argc, char **argv);
int tb_cmd_report(int argc, char **argv);
int tb_cmd_cleanup(int argc, char **argv);
int tb_cmd_explain(int argc, char **argv);

#endif /* TB_COMMANDS_H */
