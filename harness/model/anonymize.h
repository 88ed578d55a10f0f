/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --anonymize: strip what identifies a machine or a person from a result before it is shared,
 * keeping everything that makes it comparable (CPU, kernel release, settings, samples, verdicts).
 */
#ifndef TB_ANONYMIZE_H
#define TB_ANONYMIZE_H

#include "model/result.h"

#define TB_ANON_REDACTED      "<redacted>"
#define TB_ANON_SCENARIO_NOTE "(scenario text removed by --anonymize)"

enum {
	/* Keep the scenario text (home paths and host names in it are still replaced). */
	TB_ANON_KEEP_SCENARIO = 1 << 0,
};

/*
 * Anonymize r in place. Removes:
 *  - every JSON field named hostname, nodename, fqdn, domainname, user, username, login,
 *    logname, machine_id, or containing "uuid" or "serial", at any depth of system,
 *    workload_config, tracer_config, tracer_extra and gate;
 *  - the scenario path (set to NULL) and the scenario text (replaced by TB_ANON_SCENARIO_NOTE
 *    unless flags has TB_ANON_KEEP_SCENARIO);
 *  - command lines: command_line, and every command/argv/args/cmd/cmdline option of a workload
 *    or tracer config (and every TB_OPT_ARGV option of a registered plugin) -> "<redacted>";
 *  - kernel command-line parameters that identify a machine (root=, resume=, ip=, nfsroot=,
 *    hostname=, cryptdevice=, any with "uuid" or "label=" in it) -> "key=<redacted>";
 *  - absolute paths in tracer_extra (a tracer's log): "tracers/..." when inside the run
 *    directory, else "<path>/NAME";
 *  - in every remaining string: /home/NAME and /root home paths become "~" (or
 *    /x/home/<user> when not at the start of a path), and each removed host or user name
 *    becomes "<host>" / "<user>" where it appears as a whole word.
 * Cell ids, workload and tracer names are left alone (they key comparisons).
 * Returns 0, or -ENOMEM (r is then partly anonymized and must not be shared).
 */
int tb_result_anonymize(struct tb_result *r, unsigned int flags);

#endif
