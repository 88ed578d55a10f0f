/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command entry points, one per `tracebench <command>` (cli/cmd-<command>.c). Each parses
 * its own options and returns an exit code (core/tb.h).
 */
#ifndef TB_COMMANDS_H
#define TB_COMMANDS_H

int tb_cli_run(int argc, char **argv);
int tb_cli_list(int argc, char **argv);
int tb_cli_sysinfo(int argc, char **argv);
int tb_cli_compare(int argc, char **argv);
int tb_cli_combine(int argc, char **argv);
int tb_cli_gate(int argc, char **argv);
int tb_cli_plot(int argc, char **argv);
int tb_cli_report(int argc, char **argv);
int tb_cli_cleanup(int argc, char **argv);
int tb_cli_history(int argc, char **argv);
int tb_cli_fleet(int argc, char **argv);
int tb_cli_explain(int argc, char **argv);
int tb_cli_anonymize(int argc, char **argv);
/* Hidden `__complete WORD... CUR`: the shell completion's candidates (cmd-complete.c). */
int tb_cli_complete(int argc, char **argv);

/* Each command's --help text (what `tracebench list --man` puts in the man page). */
extern const char tb_usage_run[], tb_usage_list[], tb_usage_sysinfo[], tb_usage_compare[],
	tb_usage_combine[], tb_usage_gate[], tb_usage_plot[], tb_usage_report[], tb_usage_history[],
	tb_usage_explain[], tb_usage_cleanup[], tb_usage_fleet[], tb_usage_anonymize[];

/* The command table: name, entry point, one line of help, --help text; ends with NULL name. */
struct tb_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	const char *usage;
};
extern const struct tb_command tb_commands[];

/* history's subcommands ("history add", ...) with their --help, for the man page; no fn. */
extern const struct tb_command tb_history_commands[];

#endif /* TB_COMMANDS_H */
