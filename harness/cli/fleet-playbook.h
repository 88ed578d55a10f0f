/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Ansible side of `tracebench fleet`: run fleet/tracebench.yml with ansible-playbook (execvp,
 * an argv, never a shell), read its event stream (the ansible.posix.jsonl stdout callback: one
 * JSON object per line) into per-host states and reasons, and read the record each host's run
 * wrote on the controller (<fleet dir>/<host>/fleet-host.json, the role's
 * templates/fleet-host.json.j2).
 */
#ifndef TB_FLEET_PLAYBOOK_H
#define TB_FLEET_PLAYBOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tb_fleet;
struct tb_fleet_host;

struct tb_cli_playbook {
	const char *playbook;  /* fleet/tracebench.yml */
	const char *inventory; /* -i */
	const char *limit;     /* --limit, NULL for every host */
	const char *vars;      /* the extra-variables file (-e @FILE) */
	const char *action;    /* NULL: the role's default (run); "abort", "cleanup" */
	int logfd;    /* everything ansible-playbook printed is appended here; -1: nowhere */
	bool quiet;   /* no progress on stderr */
	bool no_stop; /* ignore a first stop request (the abort that follows one) */
	/* > 0: stop ansible-playbook after this long (the abort play: a hanging host or
	 * inventory must not hold fleet forever); a second Ctrl-C (tb_stop_hurried) cuts it to
	 * TB_FLEET_HURRY_NS, and stops the main play at once. */
	uint64_t limit_ns;
};

/* What the abort play gets after a second Ctrl-C (fleet ends within 10 s of it). */
#define TB_FLEET_HURRY_NS (5ull * 1000000000)

struct tb_cli_fleet_outcome {
	int status;	  /* ansible-playbook's exit status; -1 when it was killed */
	bool recap;	  /* it reached its recap (the stats event) */
	bool interrupted; /* a stop was requested (Ctrl-C): SIGINT was passed on */
	char said[512];	  /* the last line it printed that was not an event (an error, say) */
};

/*
 * Run the playbook and follow it: every host it names is added to f (tb_fleet_host_get) with its
 * state, and for a failed or unreachable host the task (stage) and reason. A stop request
 * (tb_request_stop) is passed on as SIGINT and the playbook is given 60 s to end. Returns 0 when
 * the playbook ran (whatever its hosts did; see *out), -ENOENT when ansible-playbook cannot be
 * started, -ENOMEM, or -errno of the pipe (said).
 */
int tb_cli_playbook_run(const struct tb_cli_playbook *pb, struct tb_fleet *f,
			struct tb_cli_fleet_outcome *out);

/* One line ansible-playbook printed (an event, or ansible talking), as the run reads it: its
 * hosts into f, what it said into out. Returns 0 or -ENOMEM. (Exported for fuzz_fleet.) */
int tb_cli_playbook_line(char *line, struct tb_fleet *f, const struct tb_cli_playbook *pb,
			 struct tb_cli_fleet_outcome *out);
/* The text of h's record (path names it in messages) checked and taken, as below. 0/-ENOMEM. */
int tb_cli_fleet_record(struct tb_fleet_host *h, const char *text, size_t len, const char *path);

/*
 * For every host of f: read and check dir/<host>/fleet-host.json (the host's install mode and,
 * when it failed, the step and reason, which replace what the events said; a malformed record
 * fails the host with the file and key), and note dir/<host>/result.json when it is a regular
 * file (h->result_path). Hosts whose names are not usable as directory names are skipped.
 * Returns 0 or -ENOMEM.
 */
int tb_cli_fleet_records(struct tb_fleet *f, const char *dir);

#endif /* TB_FLEET_PLAYBOOK_H */
