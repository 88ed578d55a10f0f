/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `tracebench run --repeat N [--spacing D]`: the same run N times, D apart, into one directory
 * (repeat-1/ ... repeat-N/, each a whole run directory), then the repeats combined into one
 * figure per traced cell whose interval holds their spread (stats/combine.h; combined.txt and
 * combined.json beside them). One run's interval is right for the machine as it was during
 * that run; on a machine whose state moves between runs a figure meant to hold across runs
 * takes repeats spaced further apart than its states last (METHODOLOGY.md 9).
 *
 * Each repeat is this program run again (/proc/self/exe) with the same command line and
 * TB_ENV_REPEAT (core/env.h) saying "PID:DIR": the driver's pid and the repeat's directory,
 * which the driver made; a run whose parent is PID runs as a plain run into DIR (its lock,
 * cleanup, signals and files). The driver holds no lock between repeats, so other work may
 * run in the spacing; the repeats after the first wait for the lock (--wait) rather than
 * give up on a run that took it meanwhile.
 */
#ifndef TB_RUN_REPEAT_H
#define TB_RUN_REPEAT_H

#include <stdbool.h>
#include <stdint.h>

struct tb_repeat {
	const char *outdir;   /* -o DIR, or NULL: results/<UTC time>-<host>-<scenario>/ */
	const char *scenario; /* the scenario's name, for that default */
	bool anonymize;	      /* the default directory's host is "anon" */
	bool quiet;	      /* no word of the driver's own between repeats */
	unsigned int n;	      /* repeats, at least 2 */
	uint64_t spacing_ns;  /* from one repeat's end to the next one's start */
	int argc;	      /* the command's words as given: "run" and its options */
	char **argv;
};

/*
 * Run the repeats one after another, stop early on an interruption (130, what completed kept)
 * or a repeat that exits 2 or 3 (its code: bad input or not possible here, which the next
 * repeat would meet too), then combine the repeats that wrote a result, print the combination
 * and write it beside them. A repeat that exits 1 or is killed by a signal the driver did not
 * pass on counts as failed. Returns the command's exit code: 0, 1 when a repeat failed or
 * fewer than two gave a result, 2, 3 or 130.
 */
int tb_run_repeat(const struct tb_repeat *r);

/*
 * Whether this process is a repeat (TB_ENV_REPEAT set by its parent): 1 and *dir (a new
 * string, free()) the directory it writes; 0 and *dir NULL when not (a variable set by anyone
 * else is ignored, said); -ENOMEM. The variable is removed from the environment either way,
 * so that nothing the run starts inherits it.
 */
int tb_repeat_child_dir(char **dir);

#endif /* TB_RUN_REPEAT_H */
