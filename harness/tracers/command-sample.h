/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample of the command tracer beyond starting and stopping the command (tracers/command.c
 * does that): its argv with the placeholders filled for this sample (core/placeholders.h), the
 * kernel's account of the BPF programs it loads (host/bpf-account.h) and what its own output
 * says about its events and losses (tracers/command-tools.h).
 */
#ifndef TB_COMMAND_SAMPLE_H
#define TB_COMMAND_SAMPLE_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/options.h"
#include "host/bpf-account.h"
#include "tracers/command-tools.h"
#include "tracers/tracer.h"

struct json_t;

struct tb_cmd_sample {
	struct tb_strlist argv; /* the command of this sample, placeholders filled */
	struct tb_tool_info tool;
	struct tb_bpf_account acct;
	bool accounting; /* the account was begun (bpf-account = true) */
};

/*
 * Before the command starts: fill the placeholders of cmd for t's sample ({pid} = t->target,
 * {cpus} its CPUs, {outdir} t->outdir made absolute, {sample} t->sample), and begin the BPF
 * account when account is set (with bpf_enable_stats when stats). Returns 0 or -errno (said,
 * naming t).
 */
int tb_cmd_sample_begin(struct tb_cmd_sample *s, const struct tb_tracer *t,
			const struct tb_strlist *cmd, bool account, bool stats);
/* The command (process group pgid) is ready: its programs' figures at the window's start. */
int tb_cmd_sample_started(struct tb_cmd_sample *s, const struct tb_tracer *t, pid_t pgid);
/* Before it is stopped: the figures at the window's end, its maps. */
int tb_cmd_sample_stopping(struct tb_cmd_sample *s, const struct tb_tracer *t, pid_t pgid);
/*
 * Its figures for the window into st and extra: with regex, events is the count events-regex
 * took from its output (-1: no match); else the tool's own count, else its programs' runs.
 * Losses from the lines the tool prints (tracers/command-tools.h); the BPF account
 * (bpf_programs, bpf_maps, ...) and where the events came from (events_from) into extra.
 * The window's output is the file log in dir from offset from (read line by line, through the
 * handle, no link followed). Returns 0 or -ENOMEM.
 */
int tb_cmd_sample_figures(struct tb_cmd_sample *s, const struct tb_dir *dir, const char *log,
			  off_t from, bool regex, int64_t events, struct tb_tracer_stats *st,
			  struct json_t *extra);
/* Free everything; idempotent. */
void tb_cmd_sample_end(struct tb_cmd_sample *s);
/* The {cpus} text of t: its pinned CPUs, else the target's affinity, as "0-2,5". */
int tb_cmd_cpus_text(const struct tb_tracer *t, char *buf, size_t len);

#endif /* TB_COMMAND_SAMPLE_H */
