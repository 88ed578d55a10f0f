/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the scenario parser's files share, internal to parse/: the state of one parse and the
 * steps between them. ini.c reads the text line by line through libinih and dispatches each
 * key by its section; keys.c holds the harness's key tables and reads [global], [matrix] and
 * [gate]; plugin.c reads [workload NAME] and [tracer NAME]; matrix.c resolves the matrix;
 * parse.c starts and finishes a parse. Every problem goes through tb_scn_perr as
 * "file:line: message", and parsing goes on to find the next one.
 */
#ifndef TB_PARSE_H
#define TB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "parse/scenario.h"

#define TB_SCN_MAX_SECTIONS 512
#define TB_SCN_MAX_TEXT	    (1u << 20)
#define TB_SCN_MAX_SHOWN    10 /* errors printed; the rest are counted */

enum tb_scn_kind {
	TB_SCN_SEC_NONE,
	TB_SCN_SEC_GLOBAL,
	TB_SCN_SEC_WORKLOAD,
	TB_SCN_SEC_TRACER,
	TB_SCN_SEC_MATRIX,
	TB_SCN_SEC_GATE,
	TB_SCN_SEC_LIMIT,
	TB_SCN_SEC_BAD, /* said at its header: its keys are skipped */
};

/* A key as read: the line of its section's header and its own line. */
struct tb_scn_key {
	char *name;
	char *value; /* as its reader was given it (a sweep replays the section's keys) */
	int section, line;
};

/* One parse, from the text to s. Nothing in it outlives tb_scenario_parse. */
struct tb_scn_parse {
	struct tb_scenario *s;
	const char *what; /* the file's name in messages */
	const char *text, *pos;
	int line;	   /* line number of the line inih is handling */
	bool continuation; /* that line continues the previous value */
	char raw[512];	   /* that line as written ("" for a long one), for inline comments */
	const char *cut;   /* the inline comment inih cut from the value being handled, or NULL */
	int errors;
	/* current section */
	char cur[256];
	int cur_line;
	enum tb_scn_kind kind;
	ssize_t cur_idx; /* its index in s->workloads or s->tracers */
	char *last_key;
	/* Every key of every section read so far, in file order (so their section lines never
	 * go down): duplicates, and the line of a key a later message is about. */
	struct tb_scn_key *keys;
	size_t nkeys;
	int global_line, matrix_line; /* of the (last) [global] and [matrix] headers */
	int mx_workloads_line, mx_tracers_line, mx_exclude_line;
	/* libinih reads lines of at most INI_MAX_LINE (200) bytes: longer values (bpftrace
	 * programs, commands) are kept here and handed to inih as a "\001<index>" token. */
	char **long_vals;
	size_t nlong;
	struct tb_strlist mx_w, mx_t, mx_x;
	bool have_matrix, have_global, have_limit;
	int limit_line; /* of the [limit] header */
	char dir[4096]; /* the scenario file's directory, absolute: relative inputs are there */
};

/* "what:line: message", or only counted after TB_SCN_MAX_SHOWN of them. */
void tb_scn_perr(struct tb_scn_parse *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A section or scenario name: letters, digits, - _ . + only, 1 to 64 of them. */
bool tb_scn_valid_name(const char *n);
/* The line of key name in the section whose header is at line section, or 0: not set there. */
int tb_scn_key_line(const struct tb_scn_parse *p, int section, const char *name);
/* The line a plugin's "key: reason" message (validate, resolve) is about: its key's line when
 * the section at line section sets that key, else the section's. */
int tb_scn_msg_line(const struct tb_scn_parse *p, int section, const char *msg);

/* ini.c: the whole text through libinih. Returns 0; problems are counted in p->errors. */
void tb_scn_read_ini(struct tb_scn_parse *p);
void tb_scn_parse_free(struct tb_scn_parse *p);

/* keys.c and plugin.c: one key of the current section, said when it is bad. */
void tb_scn_global_key(struct tb_scn_parse *p, const char *name, const char *value);
void tb_scn_matrix_key(struct tb_scn_parse *p, const char *name, const char *value);
void tb_scn_gate_key(struct tb_scn_parse *p, const char *name, const char *value);
void tb_scn_limit_key(struct tb_scn_parse *p, const char *name, const char *value);
void tb_scn_workload_key(struct tb_scn_parse *p, const char *name, const char *value);
void tb_scn_tracer_key(struct tb_scn_parse *p, const char *name, const char *value);

/* sweep.c: every section with a 'sweep' key into one section per value (before the matrix is
 * resolved), and after it the cells they make held to max-cells. Problems are counted. */
void tb_scn_expand_sweeps(struct tb_scn_parse *p);
void tb_scn_check_sweep_cells(struct tb_scn_parse *p);
void tb_scn_point_free(struct tb_scn_point *pt);

/* matrix.c: [matrix] into s's indices, checked with exclude and the tracers' workloads.
 * Returns 0, -ENOMEM or -EINVAL (said). */
int tb_scn_resolve_matrix(struct tb_scn_parse *p);

#endif /* TB_PARSE_H */
