// SPDX-License-Identifier: GPL-2.0
/* One sample of a command tracer: placeholders, BPF account, figures (command-sample.h). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/placeholders.h"
#include "core/tb.h"
#include "tracers/command-sample.h"

int tb_cmd_cpus_text(const struct tb_tracer *t, char *buf, size_t len)
{
	size_t used = 0;
	cpu_set_t set;
	int c, first;

	CPU_ZERO(&set);
	for (size_t i = 0; i < t->ncpus; i++)
		if (t->cpus[i] >= 0 && t->cpus[i] < CPU_SETSIZE)
			CPU_SET(t->cpus[i], &set);
	if (!t->ncpus && (t->target <= 0 || sched_getaffinity(t->target, sizeof(set), &set)))
		return -errno ? -errno : -EINVAL;
	buf[0] = '\0';
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		for (first = c; c + 1 < CPU_SETSIZE && CPU_ISSET(c + 1, &set); c++)
			;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 first == c ? "%s%d" : "%s%d-%d", used ? "," : "", first,
					 c);
	}
	return used && used < len ? 0 : -EINVAL;
}

int tb_cmd_sample_begin(struct tb_cmd_sample *s, const struct tb_tracer *t,
			const struct tb_strlist *cmd, bool account, bool stats)
{
	char pid[24], cpus[512], sample[24], outdir[PATH_MAX], err[512];
	struct tb_placeholder_values vals = {{NULL}};
	int ret;

	memset(s, 0, sizeof(*s));
	tb_bpf_account_init(&s->acct);
	snprintf(pid, sizeof(pid), "%d", (int)t->target);
	snprintf(sample, sizeof(sample), "%u", t->sample);
	if (t->target > 0)
		vals.v[TB_PH_PID] = pid;
	if (!tb_cmd_cpus_text(t, cpus, sizeof(cpus)))
		vals.v[TB_PH_CPUS] = cpus;
	if (t->outdir && realpath(t->outdir, outdir))
		vals.v[TB_PH_OUTDIR] = outdir;
	vals.v[TB_PH_SAMPLE] = sample;
	ret = tb_placeholders_expand(cmd, &vals, &s->argv, err, sizeof(err));
	if (ret) {
		if (ret == -EINVAL)
			tb_err("[tracer %s] command: %s", t->name, err);
		return ret;
	}
	tb_tool_identify(&s->argv, &s->tool);
	if (!account)
		return 0;
	ret = tb_bpf_account_begin(&s->acct, stats);
	if (ret) {
		tb_err("[tracer %s] BPF account: %s", t->name, strerror(-ret));
		return ret;
	}
	s->accounting = true;
	if (stats && !s->acct.stats)
		tb_warn("[tracer %s] bpf_enable_stats: %s: its BPF programs are listed without run figures",
			t->name, strerror(-s->acct.stats_err));
	return 0;
}

/* The account at the window's start or end. */
static int account(struct tb_cmd_sample *s, const struct tb_tracer *t, pid_t pgid, bool end)
{
	int ret;

	if (!s->accounting)
		return 0;
	ret = end ? tb_bpf_account_stop(&s->acct, pgid) : tb_bpf_account_start(&s->acct, pgid);
	if (ret)
		tb_err("[tracer %s] %s its BPF programs: %s", t->name, end ? "reading" : "finding",
		       strerror(-ret));
	return ret;
}

int tb_cmd_sample_started(struct tb_cmd_sample *s, const struct tb_tracer *t, pid_t pgid)
{
	return account(s, t, pgid, false);
}

int tb_cmd_sample_stopping(struct tb_cmd_sample *s, const struct tb_tracer *t, pid_t pgid)
{
	return account(s, t, pgid, true);
}

/* What the tool's own lines say, into extra (tool, its loss and event lines). */
static void tool_json(const struct tb_cmd_sample *s, const struct tb_tool_figures *f, json_t *extra)
{
	json_t *o = json_object();

	if (!o)
		return;
	json_object_set_new(o, "name", json_string(tb_tool_name(s->tool.tool)));
	json_object_set_new(o, "events", f->events >= 0 ? json_integer(f->events) : json_null());
	json_object_set_new(o, "events_from", json_string(f->events_from));
	json_object_set_new(o, "lost", f->lost >= 0 ? json_integer(f->lost) : json_null());
	json_object_set_new(o, "lost_at_least", json_boolean(f->lost_at_least));
	json_object_set_new(o, "lost_from", json_string(f->lost_from));
	if (f->not_attached[0])
		json_object_set_new(o, "not_attached", json_string(f->not_attached));
	json_object_set_new(extra, "tool", o);
}

static json_t *argv_json(const struct tb_strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

/*
 * The tool's lines in the window's output: log in dir from offset from, streamed (it can be
 * large).
 */
static void scan_log(const struct tb_cmd_sample *s, const struct tb_dir *dir, const char *log,
		     off_t from, struct tb_tool_figures *f)
{
	struct tb_tool_scan sc;
	size_t cap = 0;
	char *line = NULL;
	FILE *in = NULL;
	int fd = -1;

	tb_tool_scan_init(&sc, s->tool.tool);
	if (s->tool.tool != TB_TOOL_OTHER && dir && log)
		fd = openat(dir->fd, log, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && !(in = fdopen(fd, "r")))
		close(fd);
	if (in && !fseeko(in, from, SEEK_SET))
		while (getline(&line, &cap, in) > 0)
			tb_tool_scan_line(&sc, line);
	if (in)
		fclose(in);
	free(line);
	tb_tool_scan_end(&sc, f);
}

int tb_cmd_sample_figures(struct tb_cmd_sample *s, const struct tb_dir *dir, const char *log,
			  off_t from, bool regex, int64_t events, struct tb_tracer_stats *st,
			  json_t *extra)
{
	const char *source = "events-regex";
	struct tb_tool_figures f;
	int64_t runs = -1, ns = -1;
	int ret;

	scan_log(s, dir, log, from, &f);
	if (s->tool.tool != TB_TOOL_OTHER)
		tool_json(s, &f, extra);
	if (s->accounting) {
		ret = tb_bpf_account_to_json(&s->acct, extra);
		if (ret)
			return ret;
		tb_bpf_account_totals(&s->acct, &runs, &ns);
		st->bpf_stats = s->acct.stats;
		if (s->acct.nprogs) {
			st->bpf_run_cnt = runs;
			st->bpf_run_time_ns = ns;
		}
	}
	if (regex) {
		/* the user's count, even when it matched nothing (said by the caller) */
	} else if (f.events >= 0) {
		events = f.events;
		source = f.events_from;
	} else if (s->accounting && s->acct.nprogs && runs >= 0) {
		events = runs;
		source = "bpf runs";
	} else {
		events = -1;
		source = "none";
	}
	st->events = events;
	st->lost = f.lost;
	json_object_set_new(extra, "events_from", json_string(source));
	json_object_set_new(extra, "command", argv_json(&s->argv));
	return 0;
}

void tb_cmd_sample_end(struct tb_cmd_sample *s)
{
	tb_bpf_account_end(&s->acct);
	tb_strlist_free(&s->argv);
	s->accounting = false;
}
