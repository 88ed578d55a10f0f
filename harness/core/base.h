/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The name, the version and the exit codes: what every file may need, including the core
 * files that core/tb.h gathers (log, options, util), which therefore include this one instead.
 */
#ifndef TB_CORE_BASE_H
#define TB_CORE_BASE_H

#define TB_NAME	   "tracebench"
#define TB_VERSION "0.1.0"

/*
 * Exit codes (the CLI contract in doc/architecture.md; doc/security.md lists the classes), the
 * same in every command: an error's class is tb_exit_code()'s (core/util.h).
 */
enum {
	TB_EXIT_OK = 0,	  /* success, gate passed */
	TB_EXIT_FAIL = 1, /* gate failed, measurement failed, any other error (I/O, a tool) */
	/* bad usage or bad input: scenario, result file, database, option; a path that cannot be
	 * one (a link we did not make, a directory or FIFO where a file goes, missing, existing) */
	TB_EXIT_USAGE = 2,
	/* not possible here: privileges, tracefs, BPF, a lock held, a full or read-only file
	 * system, a server that cannot be reached, foreign instrumentation active (run without
	 * --allow-foreign) */
	TB_EXIT_UNAVAILABLE = 3,
	/* stopped by SIGINT/SIGTERM/SIGHUP (128 + SIGINT, as a shell says it): the partial
	 * result is written */
	TB_EXIT_INTERRUPTED = 130,
};

#define TB_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
