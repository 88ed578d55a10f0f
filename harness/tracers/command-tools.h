/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the command tracer knows of well-known external tracers, so that it can measure them
 * with no help from them (doc/command-tracer.md has the table): which tool an argv runs and the
 * program file it reads, whether it can work on this machine, and the lines of its own output
 * that count its events and the events it lost.
 */
#ifndef TB_COMMAND_TOOLS_H
#define TB_COMMAND_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/options.h"

enum tb_tool {
	TB_TOOL_OTHER,
	TB_TOOL_BPFTRACE,    /* bpftrace, or a script whose #! line runs it (opensnoop.bt) */
	TB_TOOL_PERF_RECORD, /* perf record */
	TB_TOOL_PERF_TRACE,  /* perf trace */
	TB_TOOL_PERF,	     /* another perf command */
	TB_TOOL_BCC,	     /* a bcc tool: Python importing bcc (execsnoop-bpfcc) */
};

struct tb_tool_info {
	int tool;     /* enum tb_tool */
	int file;     /* argv word naming the program file it reads (bpftrace FILE), -1 none */
	int inline_w; /* argv word holding its program text (bpftrace -e PROG), -1 none */
	bool script;  /* argv[0] itself is the program (a #! script) */
};

/* Which tool argv runs (argv[0] looked up in PATH). Never fails: unknown is TB_TOOL_OTHER. */
void tb_tool_identify(const struct tb_strlist *argv, struct tb_tool_info *ti);
/* "bpftrace", "perf record", "perf trace", "perf", "bcc", "" for others. */
const char *tb_tool_name(int tool);
/*
 * Whether the tool can work on this machine: a bcc tool needs the running kernel's headers
 * (it compiles its programs at start-up); a bpftrace program with kprobes needs a kernel with
 * kprobes. Returns 0, or -EOPNOTSUPP with the reason in why.
 */
int tb_tool_supported(const struct tb_strlist *argv, const struct tb_tool_info *ti, char *why,
		      size_t len);
/*
 * tb_tool_supported, and for bpftrace whether it compiles the program here (it runs bpftrace
 * --emit-elf: nothing is loaded or attached; 0.1-0.2 s, so once per scenario, not per sample).
 * Returns 0, or -EOPNOTSUPP with the reason in why.
 */
int tb_tool_usable(const struct tb_strlist *argv, const struct tb_tool_info *ti, char *why,
		   size_t len);
/*
 * The tool's program file given as a relative path (bpftrace read-latency.bt), made absolute
 * against dir when it is there. Returns 0 (also when there is nothing to resolve), -ENOENT
 * with the reason in err when the file is in neither place, or -ENOMEM.
 */
int tb_tool_resolve(struct tb_strlist *argv, const char *dir, char *err, size_t len);

/* What the tool's own output says about one run. */
struct tb_tool_figures {
	int64_t events;		/* its own count of what it recorded, -1: it prints none */
	int64_t lost;		/* what it says it lost, -1: it does not say (0: it would have) */
	bool lost_at_least;	/* lost is a lower bound (perf record's "lost N chunks") */
	char events_from[64];	/* the line that counted events ("perf record: N samples") */
	char lost_from[64];	/* ... and losses */
	char not_attached[256]; /* probes it says it could not attach ("kprobe:vfs_open, ...") */
};

/* A scan of a run's output, line by line (the output may be far larger than memory). */
struct tb_tool_scan {
	int tool;
	int64_t lost_sum, events_sum;
	bool any_events;
	int64_t captured, processed, chunks; /* perf record's lines */
	bool summary;			     /* perf trace -s: inside its summary */
	struct tb_tool_figures f;
};

void tb_tool_scan_init(struct tb_tool_scan *s, int tool);
/* One line of its output (without or with its newline). */
void tb_tool_scan_line(struct tb_tool_scan *s, const char *line);
/* What the lines said, into *f. */
void tb_tool_scan_end(struct tb_tool_scan *s, struct tb_tool_figures *f);
/* The same for a whole output in memory (NUL-terminated; NULL: none). */
void tb_tool_parse_output(int tool, const char *out, struct tb_tool_figures *f);

#endif /* TB_COMMAND_TOOLS_H */
