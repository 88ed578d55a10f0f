/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fleet run (`tracebench fleet`): one scenario on many hosts, one result per host, merged.
 * What may be merged and compared (METHODOLOGY.md, "Fleet runs"): a host's result joins the merge
 * only when it ran the fleet's scenario text and carries the fleet's labels; overhead % (a ratio)
 * is shown side by side across hosts; absolute figures (ns/op, ns/event) are compared only
 * between hosts of one hardware class (tb_system_hardware_class): within each class its first
 * host (by name) is compared with each other one (stats/compare.h). The outputs are
 * render/fleet-table.h and render/html/fleet-report.c.
 */
#ifndef TB_FLEET_H
#define TB_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "model/result.h"

enum tb_fleet_state {
	TB_FLEET_OK = 0,      /* ran, fetched, cleaned up */
	TB_FLEET_FAILED,      /* a step failed: stage and reason say which and why */
	TB_FLEET_UNREACHABLE, /* Ansible could not connect */
	TB_FLEET_EXCLUDED,    /* ran, but its result cannot join the merge (reason) */
};
const char *tb_fleet_state_name(enum tb_fleet_state s);

/*
 * Every text a host's events and record give (its name, stage, reason, install) is kept cut at
 * this many bytes and with its controls escaped (tb_escape_cut): what Ansible or a host says
 * reaches fleet.txt, fleet.json, the report and the terminal bounded and without ESC.
 */
#define TB_FLEET_TEXT_MAX 1000
/* A host's record (fleet-host.json) larger than this is refused unread. */
#define TB_FLEET_RECORD_MAX (1u << 20)

struct tb_fleet_host {
	char *name; /* inventory_hostname */
	enum tb_fleet_state state;
	char *stage;	     /* the step that failed, NULL when none */
	char *reason;	     /* why it failed or was excluded, NULL when none */
	char *install;	     /* "binary: why" from the host's record, NULL when unknown */
	char *result_path;   /* the fetched result.json, NULL when there is none */
	struct tb_result *r; /* loaded result (owned), NULL when none */
	bool merged;	     /* part of the merged table and report */
	size_t cls;	     /* merged hosts: index into tb_fleet.classes */
};

/* A hardware class: the merged hosts whose hardware leaves are equal. */
struct tb_fleet_class {
	char *key;     /* tb_system_hardware_class's hash */
	char *name;    /* "Intel(R) Xeon(R) Processor, 2 PUs, kvm" (tb_system_hardware_class) */
	char letter;   /* 'A', 'B', ... in order of first appearance; '?' past 'Z' */
	size_t nhosts; /* merged hosts of this class */
	size_t ref;    /* index of its first host (the reference of its comparisons) */
};

struct tb_comparison;

struct tb_fleet {
	const char *id;		     /* "fleet-20261201T101500Z" (borrowed) */
	const char *scenario_text;   /* the text every host must have run (borrowed), NULL: any */
	struct tb_fleet_host *hosts; /* sorted by name by tb_fleet_merge */
	size_t nhosts, nmerged;
	struct tb_fleet_class *classes;
	size_t nclasses;
	struct tb_comparison **cmps; /* within each class: its reference against each other host */
	size_t ncmps;
	const char **ids; /* cell ids of the merged hosts in order of first appearance (borrowed) */
	size_t nids;
};

/*
 * The host named name, added (state OK, nothing else known) when it is not there yet. Returns it,
 * or NULL on ENOMEM. Pointers into f->hosts move when a host is added.
 */
struct tb_fleet_host *tb_fleet_host_get(struct tb_fleet *f, const char *name);
/* Set h's state, stage (NULL keeps it) and reason (NULL keeps it), kept as TB_FLEET_TEXT_MAX
 * says. Returns 0 or -ENOMEM. */
int tb_fleet_host_set(struct tb_fleet_host *h, enum tb_fleet_state state, const char *stage,
		      const char *reason);
/* Set h's install as "mode: why" (why may be NULL or empty), kept the same way. 0/-ENOMEM. */
int tb_fleet_host_install(struct tb_fleet_host *h, const char *mode, const char *why);
/*
 * Decide the merge: sort the hosts by name; every host with a result joins it unless the result
 * ran another scenario text, is labelled for another host or another fleet run (then it is
 * EXCLUDED with the reason); analyse the merged results (tb_stats_analyze), group them into
 * hardware classes and build the comparisons within each class (alpha: their significance
 * level, <= 0 for the results' own). Returns 0 or -ENOMEM.
 */
int tb_fleet_merge(struct tb_fleet *f, double alpha);
/* The merged host's cell with id id, or NULL. */
const struct tb_cell *tb_fleet_cell(const struct tb_fleet_host *h, const char *id);
/* Hosts that did not end OK (failed, unreachable, excluded). */
size_t tb_fleet_nbad(const struct tb_fleet *f);
/* Free what f owns (hosts, their results, classes, comparisons); f itself is the caller's. */
void tb_fleet_free(struct tb_fleet *f);

#endif /* TB_FLEET_H */
