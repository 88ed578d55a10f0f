/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The environment variables tracebench reads: one name each, used by the code that reads it,
 * and the table the man page's ENVIRONMENT section is generated from (env.c).
 */
#ifndef TB_ENV_H
#define TB_ENV_H

#define TB_ENV_STATE_DIR       "TB_STATE_DIR"
#define TB_ENV_RUN_DIR_OLD     "TB_RUN_DIR" /* TB_STATE_DIR's name before 0.2, still read */
#define TB_ENV_GNUPLOT	       "TB_GNUPLOT"
#define TB_ENV_PLOTS_DIR       "TB_PLOTS_DIR"
#define TB_ENV_HELPERS	       "TB_HELPERS"
#define TB_ENV_GNUPLOT_ARG_MAX "TB_GNUPLOT_ARG_MAX"
#define TB_ENV_DB	       "TRACEBENCH_DB"
#define TB_ENV_DB_TIMEOUT      "TRACEBENCH_DB_TIMEOUT"
#define TB_ENV_PROGRESS	       "TB_PROGRESS_INTERVAL"
#define TB_ENV_REPEAT	       "TRACEBENCH_REPEAT_OUTPUT" /* run --repeat's, to its repeats */

struct tb_env_var {
	const char *name;
	const char *help; /* one or two sentences */
};

/* Every variable above with what it does; ends with a NULL name. */
extern const struct tb_env_var tb_env_vars[];

#endif /* TB_ENV_H */
