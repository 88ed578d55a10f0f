// SPDX-License-Identifier: GPL-2.0
/* What each environment variable tracebench reads does (env.h). */
#include <stddef.h>

#include "core/env.h"

const struct tb_env_var tb_env_vars[] = {
	{TB_ENV_STATE_DIR, "Where the run lock, the records of what live runs armed (for "
			   "cleanup) and the record of BPF programs being freed are kept. "
			   "Default: /run/tracebench. A run with a state directory of its own "
			   "still takes the machine's lock (/run/tracebench/lock) first: runs "
			   "measure one at a time whatever their state directories."},
	{TB_ENV_RUN_DIR_OLD, "The former name of " TB_ENV_STATE_DIR ", read when that is not set."},
	{TB_ENV_GNUPLOT, "The gnuplot program to draw plots with. Default: gnuplot in PATH."},
	{TB_ENV_PLOTS_DIR, "The directory of the gnuplot scripts (*.gp). Default: plots/ next to "
			   "the binary, ../share/tracebench/plots relative to it (an installed "
			   "tree), then the build's data directory."},
	{TB_ENV_HELPERS, "The directory of the helper programs (tb-exit, the exec workload's "
			 "target). Default: build/helpers or helpers/ next to the binary, "
			 "../libexec/tracebench relative to it, then the build's libexec "
			 "directory."},
	{TB_ENV_GNUPLOT_ARG_MAX, "Longest gnuplot -e argument before the variables go through "
				 "a file (bytes; default 65536). For tests."},
	{TB_ENV_DB, "The history database when no --db (or --history=DB) is given: a file or a "
		    "postgresql:// URL. Default: results/history.db."},
	{TB_ENV_DB_TIMEOUT, "How long to wait for another process's lock on the history (a "
			    "duration, default 30s, at most 1h)."},
	{TB_ENV_PROGRESS, "When run's stderr is not a terminal (a CI log): seconds "
			  "between its progress lines (round, sample, ETA; default 15, "
			  "0: none)."},
	{TB_ENV_REPEAT, "Internal: what `run --repeat` sets for each repeat it starts "
			"(its pid and the repeat's directory); ignored unless set by "
			"the process's parent."},
	{NULL, NULL},
};
