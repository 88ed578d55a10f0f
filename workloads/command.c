// SPDX-License-Identifier: GPL-2.0
/*
 * command: a user's own program (stress-ng, fio, a service benchmark) run to completion per op
 * and per sample (TB_WL_ONESHOT: never calibrated, ops = 1). argv is split like a shell would
 * but no shell runs it. Its stdout+stderr go to a file in the scratch directory, bounded by
 * output-max through core/bounded.h's drain (a thread of the workload process, the same in the
 * baseline and the traced cells); `metric`, a POSIX extended regex with one capture group,
 * takes a number from what is kept (first match).
 * Wall time is the sample's elapsed time; its CPU time comes from RUSAGE_CHILDREN.
 * A non-zero exit, a timeout or a metric that matches nothing fails the sample.
 *
 * The program runs in a cgroup of its own (host/cgroup.h, made in setup, untimed), so that
 * what it leaves running when it exits (a daemon that escaped its process group) is found and
 * killed before the next op instead of running on into later samples; joining the cgroup is
 * one write(2) in the child before exec. Without cgroups here it runs as before (said with -v).
 */
#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workloads/common.h"
#include "core/proc.h"
#include "host/cgroup.h"
#include "workloads/workload.h"

struct cmd_cfg {
	struct tb_strlist argv;
	char *metric;
	uint64_t timeout;
	uint64_t output_max;
};

struct cmd_priv {
	regex_t re;
	bool has_re;
	char out[4096];
	struct tb_cgroup cg; /* path "" without cgroups here */
};

static const struct tb_option cmd_opts[] = {
	{"command", TB_OPT_ARGV, offsetof(struct cmd_cfg, argv), NULL,
	 "program and arguments, split like a shell would (quotes, backslash) but never run by "
	 "one (required)"},
	{"metric", TB_OPT_STRING, offsetof(struct cmd_cfg, metric), "",
	 "POSIX extended regex with one capture group: the number it captures in the output "
	 "becomes the sample's metric (e.g. 'bogo ops/s: ([0-9.]+)')"},
	{"timeout", TB_OPT_DURATION, offsetof(struct cmd_cfg, timeout), "10m",
	 "stop the program (SIGTERM, then SIGKILL) and fail the sample after this long; 0: never",
	 0, 86400e9},
	{"output-max", TB_OPT_SIZE, offsetof(struct cmd_cfg, output_max), "16M",
	 "bytes of each run's stdout+stderr kept, however much it writes (the first and last halves "
	 "and a line saying how much was cut; the metric is read from what is kept)",
	 4096, 1073741824.0},
	TB_OPT_END,
};

static int cmd_validate(const void *cfg, char *err, size_t len)
{
	const struct cmd_cfg *c = cfg;
	char path[4096];
	regex_t re;
	int ret;

	if (!c->argv.n) {
		snprintf(err, len, "command: required (the program to run and its arguments)");
		return -EINVAL;
	}
	if (tb_proc_which(c->argv.v[0], path, sizeof(path))) {
		snprintf(err, len, "command: '%s' not found or not executable", c->argv.v[0]);
		return -EINVAL;
	}
	if (c->metric && *c->metric) {
		ret = regcomp(&re, c->metric, REG_EXTENDED);
		if (ret) {
			char msg[128];

			regerror(ret, &re, msg, sizeof(msg));
			snprintf(err, len, "metric: bad regex '%s': %s", c->metric, msg);
			return -EINVAL;
		}
		ret = re.re_nsub;
		regfree(&re);
		if (ret != 1) {
			snprintf(err, len,
				 "metric: regex '%s' needs exactly one capture group (it has %d)",
				 c->metric, ret);
			return -EINVAL;
		}
	}
	return 0;
}

static int cmd_setup(struct tb_workload *w)
{
	const struct cmd_cfg *c = w->cfg;
	struct cmd_priv *p;
	char why[256];
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cg = (struct tb_cgroup)TB_CGROUP_INIT;
	w->priv = p;
	ret = tb_wl_path(w, "command-output", p->out, sizeof(p->out));
	if (ret)
		return ret;
	if (tb_cgroup_supported(why, sizeof(why))) /* debug: each sample is a new process */
		tb_debug("%s: no cgroup for the command (%s): what it leaves running is not killed",
			 w->name, why);
	else if ((ret = tb_cgroup_create(&p->cg, w->name)))
		return ret;
	if (c->metric && *c->metric) {
		if (regcomp(&p->re, c->metric, REG_EXTENDED)) {
			tb_err("%s: metric: bad regex '%s'", w->name, c->metric);
			return -EINVAL;
		}
		p->has_re = true;
	}
	return 0;
}

/* The last bytes of the output, for the error message. */
static void show_tail(const struct tb_workload *w, const char *out)
{
	char *text = NULL;
	size_t len = 0;
	const char *tail;

	if (tb_read_file(out, &text, &len) || !len)
		goto out;
	tail = len > 400 ? text + len - 400 : text;
	tb_err("%s: last output of the command:\n%s", w->name, tail);
out:
	free(text);
}

static int take_metric(struct tb_workload *w, struct cmd_priv *p)
{
	const struct cmd_cfg *c = w->cfg;
	regmatch_t m[2];
	char *text = NULL, *end;
	double v;
	int ret;

	ret = tb_read_file(p->out, &text, NULL);
	if (ret) {
		tb_err("%s: reading the command's output %s: %s", w->name, p->out, strerror(-ret));
		return ret;
	}
	ret = -ENODATA;
	if (regexec(&p->re, text, 2, m, 0) || m[1].rm_so < 0) {
		tb_err("%s: metric: /%s/ matched nothing in the output of %s", w->name, c->metric,
		       c->argv.v[0]);
		goto out;
	}
	text[m[1].rm_eo] = '\0';
	errno = 0;
	v = strtod(text + m[1].rm_so, &end);
	if (errno || end == text + m[1].rm_so) {
		tb_err("%s: metric: captured '%s', not a number", w->name, text + m[1].rm_so);
		ret = -EINVAL;
		goto out;
	}
	w->has_metric = true;
	w->metric = v;
	ret = 0;
out:
	free(text);
	return ret;
}

static int cmd_run_batch(struct tb_workload *w, uint64_t n)
{
	const struct cmd_cfg *c = w->cfg;
	struct cmd_priv *p = w->priv;
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	struct tb_proc proc;
	char st[64];
	uint64_t i;
	int ret = 0, left;

	o.out_path = p->out;
	o.out_max = c->output_max; /* core/bounded.h: a flooding program never fills the disk */
	o.flags = TB_PROC_NULLIN;
	tb_cgroup_spawn_opts(&p->cg, &o);
	for (i = 0; i < n; i++) {
		unlink(p->out); /* tb_proc_spawn appends */
		ret = tb_proc_spawn_opts(&proc, c->argv.v, &o);
		if (ret) {
			tb_err("%s: command: cannot run %s: %s", w->name, c->argv.v[0],
			       strerror(-ret));
			return ret;
		}
		if (tb_proc_wait(&proc, c->timeout)) {
			tb_proc_stop(&proc, SIGTERM, 1000000000ull);
			tb_err("%s: command %s timed out after %.1f s and was stopped", w->name,
			       c->argv.v[0], (double)c->timeout / 1e9);
			w->exit_status = proc.status;
			tb_proc_release(&proc);
			return -ETIMEDOUT;
		}
		w->exit_status = proc.status;
		tb_proc_release(&proc);
		left = tb_cgroup_kill(
			&p->cg); /* 0 (nothing left, no syscall but a read) normally */
		if (left > 0)
			tb_warn("%s: command %s left %d process%s running when it exited: killed",
				w->name, c->argv.v[0], left, left > 1 ? "es" : "");
		if (!WIFEXITED(proc.status) || WEXITSTATUS(proc.status)) {
			tb_err("%s: command %s %s", w->name, c->argv.v[0],
			       tb_proc_status_str(proc.status, st, sizeof(st)));
			show_tail(w, p->out);
			return -ECHILD;
		}
		if (p->has_re) {
			ret = take_metric(w, p);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static void cmd_teardown(struct tb_workload *w)
{
	struct cmd_priv *p = w->priv;

	if (!p)
		return;
	if (p->out[0])
		unlink(p->out);
	tb_cgroup_destroy(&p->cg);
	if (p->has_re)
		regfree(&p->re);
	free(p);
	w->priv = NULL;
}

/*
 * A user's program: what it does is unknown, but the harness runs it with fork and execve
 * (core/proc.c), so one program execution per op is certain.
 */
static int cmd_events(const void *cfg, const struct tb_op_context *ctx, struct tb_op_events *ev)
{
	ev->syscalls_known = ev->sched_known = 0;
	return tb_op_events_add(ev, "sched:sched_process_exec", 1, TB_EV_SELF, 0);
}

const struct tb_workload_ops tb_workload_command = {
	.name = "command",
	.help = "a user's program run to completion per sample (argv, no shell; optional metric "
		"regex on its output)",
	.opts = cmd_opts,
	.cfg_size = sizeof(struct cmd_cfg),
	.flags = TB_WL_ONESHOT | TB_WL_NOLATENCY,
	.validate = cmd_validate,
	.setup = cmd_setup,
	.run_batch = cmd_run_batch,
	.teardown = cmd_teardown,
	.events = cmd_events,
};
