/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of the man page made from the code's own tables, so that the page cannot drift
 * from the code: each command's --help text, the scenario keys the harness owns
 * (parse/scenario.h), every workload's and tracer's options (their registries) and the
 * environment variables (core/env.h). doc/tracebench.1 is doc/tracebench.1.in with each
 * marker line `.\" @generated PART@` replaced by PART (`make man`, `tracebench list --man`).
 */
#ifndef TB_MAN_H
#define TB_MAN_H

#include <stdio.h>

/* A command as the man page shows it. */
struct tb_man_cmd {
	const char *name, *help, *usage;
};

/*
 * Copy the template at path to f, each marker line replaced by its part: "usage CMD" (CMD's
 * --help text, verbatim), "scenario-keys", "workloads", "tracers", "environment". cmds ends
 * with a NULL name. Returns 0, -EINVAL for an unknown part (said with path:line) or the
 * template's read error (said).
 */
int tb_man_fill(FILE *f, const char *path, const struct tb_man_cmd *cmds);

#endif /* TB_MAN_H */
