// SPDX-License-Identifier: GPL-2.0
/*
 * Any external tracer as a command: bpftrace scripts, perf record, an agent binary. Started
 * with execvp and an argv (never a shell) in its own process group for every sample, in the
 * tracer's directory (t->dir); output appended to <name>.log there. tracebench opens, reads,
 * cuts, sizes and deletes the files there through the directory's handle only.
 *
 * Readiness (any combination; all configured conditions must hold): a regex on its output,
 * the number of loaded BPF programs rising by ready-bpf-progs; then its ready-settle delay. Note that
 * bpftrace prints "Attaching N probes..." BEFORE it attaches (a getpid test lost 10% of the
 * events that way): give it a ready-settle delay, or make the script say when it is attached with
 * `BEGIN { printf("ready\n"); }` (BEGIN runs after every probe is attached) and `-B line`. Stop:
 * stop-signal to the group, then SIGTERM, then SIGKILL, stop-timeout apart.
 *
 * Each start runs the command in a cgroup of its own (host/cgroup.h), so that what it starts
 * outside its process group (a daemon: setsid and fork) is found, counted and killed after
 * stop; its CPU time is the cgroup's (cpu.stat) and its memory the cgroup's peak. Where no
 * cgroup can be made it falls back, said once, to the process group and wait4's rusage (the
 * leader and its reaped descendants). A command that exits before stop makes collect() fail
 * with its status.
 *
 * What it hooks cannot be read from its command line: `hooks` (the events its probes attach
 * to), `hook-kind` and `scope` say it, so that the proof of tracing can expect a count.
 *
 * Per sample (tracers/command-sample.h): the argv's placeholders {pid} {cpus} {outdir}
 * {sample} are filled once the workload is parked; the BPF programs its processes own are
 * found and their run_cnt/run_time_ns read at start and stop (host/bpf-account.h, on by
 * default); well-known tools' own lines give their events and losses
 * (tracers/command-tools.h). Its events: events-regex, else the tool's own count, else its
 * BPF programs' runs. doc/command-tracer.md describes all of it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host/armed.h"
#include "host/bpf-freeing.h"
#include "core/outdir.h"
#include "core/placeholders.h"
#include "host/cgroup.h"
#include "core/proc.h"
#include "core/tb.h"
#include "core/utf8.h"
#include "host/tracing-state.h"
#include "tracers/command-sample.h"
#include "tracers/command-tools.h"
#include "tracers/tracer.h"

struct cfg {
	struct tb_strlist command;
	char *ready;
	uint64_t ready_timeout;
	uint64_t settle;
	int64_t ready_bpf_progs;
	int stop_signal;
	uint64_t stop_timeout;
	char *events_regex;
	bool keep_raw;
	struct tb_strlist hooks;
	int kind;
	int scope;
	bool bpf_account;
	bool bpf_stats;
	bool events_sum;
	uint64_t log_max;
};

struct priv {
	struct tb_proc proc;
	struct tb_cgroup cg; /* path "" without cgroups here */
	bool spawned, stopped, died;
	int leftover;	 /* processes left in the cgroup after the leader exited (killed) */
	double cg_start; /* the cgroup's CPU seconds when it was ready (start-up) */
	regex_t ready_re, events_re;
	bool have_ready_re, have_events_re;
	const struct tb_dir *dir;	   /* t->dir: where it runs and its log is */
	char logname[NAME_MAX + 1];	   /* <name>.log in dir */
	char log[PATH_MAX + NAME_MAX + 2]; /* dir's path and logname, for messages and the result */
	off_t log_start;		   /* where this sample's output begins in the log */
	double ready_s;
	double startup_cpu_s;	  /* the leader's CPU time until ready (start-up, attaching) */
	int64_t wall_start_ns;	  /* CLOCK_REALTIME at spawn, for keep-raw's file times */
	struct tb_cmd_sample smp; /* this sample's argv, BPF account and figures */
	bool smp_begun;
	_Atomic bool ready_line; /* a line of its output matched ready (set by the drain) */
};

enum { KIND_AUTO, KIND_EVENTS, KIND_SAMPLING, KIND_UNKNOWN };
static const char *const kind_choices[] = {"auto", "events", "sampling", "unknown", NULL};
enum { SCOPE_SYSTEM, SCOPE_WORKLOAD };
static const char *const scope_choices[] = {"system", "workload", NULL};

static const char *const sig_choices[] = {"INT", "TERM", "HUP", "USR1", "USR2", "KILL", NULL};
static const int sig_values[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGKILL};

static const struct tb_option cmd_opts[] = {
	{"command", TB_OPT_ARGV, offsetof(struct cfg, command), NULL,
	 "the tracer's command line (shell-like words; no shell, no expansion; a relative bpftrace program file is found next to the scenario)",
	 0, 0, NULL, TB_OPTF_PLACEHOLDERS},
	{"ready", TB_OPT_STRING, offsetof(struct cfg, ready), NULL,
	 "extended regex on its output that says it is attached (e.g. 'Attaching')"},
	{"ready-timeout", TB_OPT_DURATION, offsetof(struct cfg, ready_timeout), "30s",
	 "give up when not ready after this long", 1e6, 3600e9},
	{"ready-settle", TB_OPT_DURATION, offsetof(struct cfg, settle), "0",
	 "delay after readiness before measuring (the harness's settle comes after it)", 0, 3600e9},
	{"ready-bpf-progs", TB_OPT_INT, offsetof(struct cfg, ready_bpf_progs), "0",
	 "ready once the number of loaded BPF programs rose by this many", 0, 100000},
	{"stop-signal", TB_OPT_CHOICE, offsetof(struct cfg, stop_signal), "INT",
	 "first signal sent to its process group to stop it", 0, 0, sig_choices},
	{"stop-timeout", TB_OPT_DURATION, offsetof(struct cfg, stop_timeout), "10s",
	 "wait this long after each stop signal before escalating (TERM, then KILL)", 1e6, 3600e9},
	{"events-regex", TB_OPT_STRING, offsetof(struct cfg, events_regex), NULL,
	 "extended regex whose first group, in its output after stop, is the event count "
	 "(e.g. '@c: ([0-9]+)'; the last match counts); default: the tool's own count, else its "
	 "BPF programs' runs"},
	{"events-sum", TB_OPT_BOOL, offsetof(struct cfg, events_sum), "false",
	 "add up the first group of every events-regex match (a histogram's buckets) instead of "
	 "taking the last"},
	{"bpf-account", TB_OPT_BOOL, offsetof(struct cfg, bpf_account), "true",
	 "find the BPF programs and maps its processes own (their fds), per program: runs and "
	 "in-kernel ns per run"},
	{"bpf-stats", TB_OPT_BOOL, offsetof(struct cfg, bpf_stats), "true",
	 "runs and run time of its BPF programs from one accounting sample per round with "
	 "bpf_enable_stats held over the window (two clock reads more in every BPF program run "
	 "on the host); the timed samples always run with the stats off (METHODOLOGY.md, "
	 "\"The measurer never inflates the measured\")"},
	{"log-max", TB_OPT_SIZE, offsetof(struct cfg, log_max), "16M",
	 "bytes of each sample's output kept in its log, on every path (the first and last halves "
	 "and a line saying how much was cut between them; its figures are read from what is "
	 "kept); 0: keep everything"},
	{"keep-raw", TB_OPT_BOOL, offsetof(struct cfg, keep_raw), "false",
	 "keep the files it writes in its directory (perf.data, perf.data.old, ...); else their "
	 "size is counted and they are deleted after each sample"},
	{"hooks", TB_OPT_LIST, offsetof(struct cfg, hooks), NULL,
	 "the tracepoints its probes attach to (raw_syscalls:sys_enter, syscalls:sys_enter_read), "
	 "for the proof of tracing; unset, where its BPF programs are found attached says it "
	 "when its events are their runs"},
	{"hook-kind", TB_OPT_CHOICE, offsetof(struct cfg, kind), "auto",
	 "what its events-regex counts: events (one per hooked event), sampling (samples), "
	 "unknown; auto: events when hooks is set",
	 0, 0, kind_choices},
	{"scope", TB_OPT_CHOICE, offsetof(struct cfg, scope), "system",
	 "whose events its events-regex counts: system, or workload (it filters on {pid}); "
	 "BPF runs are always system-wide",
	 0, 0, scope_choices},
	TB_OPT_END,
};

static int compile(regex_t *re, const char *key, const char *pat, bool need_group, char *err,
		   size_t len)
{
	char msg[128];
	int r;

	r = regcomp(re, pat, REG_EXTENDED | REG_NEWLINE | (need_group ? 0 : REG_NOSUB));
	if (r) {
		regerror(r, re, msg, sizeof(msg));
		snprintf(err, len, "%s: bad regex '%s': %s", key, pat, msg);
		return -EINVAL;
	}
	if (need_group && re->re_nsub < 1) {
		regfree(re);
		snprintf(err, len, "%s: regex '%s' needs a group, e.g. '([0-9]+)'", key, pat);
		return -EINVAL;
	}
	return 0;
}

/* A program that is not installed is unsupported here (skippable), not a bad scenario. */
static int installed(const struct cfg *c, char *why, size_t len)
{
	char path[4096];

	if (c->command.n && !tb_placeholders_used(c->command.v[0]) &&
	    tb_proc_which(c->command.v[0], path, sizeof(path))) {
		snprintf(why, len,
			 "program '%s' is not installed (not found in PATH, or not executable)",
			 c->command.v[0]);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int cmd_validate(const void *vcfg, char *err, size_t len)
{
	const struct cfg *c = vcfg;
	regex_t re;

	if (!c->command.n) {
		snprintf(err, len, "command: a command line is needed");
		return -EINVAL;
	}
	if (tb_placeholders_check(&c->command, err, len))
		return -EINVAL;
	if (c->events_sum && !c->events_regex) {
		snprintf(err, len, "events-sum: needs an events-regex");
		return -EINVAL;
	}
	if (c->ready) {
		if (compile(&re, "ready", c->ready, false, err, len))
			return -EINVAL;
		regfree(&re);
	}
	if (c->events_regex) {
		if (compile(&re, "events-regex", c->events_regex, true, err, len))
			return -EINVAL;
		regfree(&re);
	}
	for (size_t k = 0; k < c->hooks.n; k++) {
		const char *h = c->hooks.v[k], *colon = strchr(h, ':');

		if (!colon || colon == h || !colon[1] || strlen(h) >= TB_EV_NAME_MAX) {
			snprintf(err, len, "hooks: '%s' is not system:event", h);
			return -EINVAL;
		}
	}
	if (c->kind == KIND_EVENTS && !c->hooks.n) {
		snprintf(err, len,
			 "hook-kind: events needs hooks (the events its probes attach to)");
		return -EINVAL;
	}
	return 0;
}

/* A relative bpftrace program file is the one next to the scenario (command-tools.h). */
static int cmd_resolve(void *vcfg, const char *dir, char *err, size_t len)
{
	struct cfg *c = vcfg;

	return c->command.n ? tb_tool_resolve(&c->command, dir, err, len) : 0;
}

static void cmd_teardown(struct tb_tracer *t);

/*
 * Can this command work here: a bcc tool without the kernel's headers, bpftrace kprobes on a
 * kernel without kprobes, or a bpftrace program that does not compile here cannot
 * (command-tools.h). The plan asks once (compile: bpftrace --emit-elf); setup asks again for
 * each sample without compiling. 0 or -EOPNOTSUPP with the reason in why.
 */
static int usable(const struct cfg *c, bool compile, char *why, size_t len)
{
	struct tb_tool_info ti;

	if (installed(c, why, len))
		return -EOPNOTSUPP;
	tb_tool_identify(&c->command, &ti);
	return compile ? tb_tool_usable(&c->command, &ti, why, len)
		       : tb_tool_supported(&c->command, &ti, why, len);
}

static int cmd_usable(const void *vcfg, char *why, size_t len)
{
	return usable(vcfg, true, why, len);
}

static int cmd_setup(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	char err[256];
	struct priv *p;
	int ret;

	ret = cmd_validate(c, err, sizeof(err));
	if (ret) {
		tb_err("[tracer %s] %s", t->name, err);
		return ret;
	}
	ret = usable(c, false, err, sizeof(err));
	if (ret) {
		tb_err("[tracer %s] command is unsupported here: %s", t->name, err);
		return ret;
	}
	if (!t->dir) {
		tb_err("[tracer %s] no directory for its log and files", t->name);
		return -EINVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->proc.out_fd = -1;
	p->cg = (struct tb_cgroup)TB_CGROUP_INIT;
	t->priv = p;
	if (c->ready) {
		compile(&p->ready_re, "ready", c->ready, false, err, sizeof(err));
		p->have_ready_re = true;
	}
	if (c->events_regex) {
		compile(&p->events_re, "events-regex", c->events_regex, true, err, sizeof(err));
		p->have_events_re = true;
	}
	p->dir = t->dir;
	snprintf(p->logname, sizeof(p->logname), "%.*s.log", NAME_MAX - 4, t->name);
	snprintf(p->log, sizeof(p->log), "%s/%s", t->dir->path, p->logname);
	return 0;
}

/* This sample's output so far (at most the last 1 MiB), NUL-terminated; NULL when none. */
static char *read_output(struct priv *p)
{
	char *out = NULL;

	tb_read_part_at(p->dir->fd, p->logname, p->log_start, 1 << 20, true, &out);
	return out;
}

/*
 * Kill what the command left in its cgroup (a daemon); how many there were. Members of its
 * process group, signalled already, get 200 ms to exit first: they are not leftovers.
 */
static int kill_leftovers(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int n = tb_cgroup_wait_empty(&p->cg, 200000000) ? tb_cgroup_kill(&p->cg) : 0;

	if (n > 0) {
		p->leftover += n;
		tb_warn("[tracer %s] '%s' left %d process%s running when it stopped (a daemon?): killed",
			t->name, ((const struct cfg *)t->cfg)->command.v[0], n, n > 1 ? "es" : "");
	} else if (n < 0) {
		tb_warn("[tracer %s] cgroup %s: cannot kill what is left in it: %s", t->name,
			p->cg.path, strerror(-n));
	}
	return n;
}

/* The leader exited on its own: whatever it left in its group and cgroup goes too. */
static void reap_group(struct tb_tracer *t)
{
	struct priv *p = t->priv;

	if (p->proc.pid)
		kill(-p->proc.pid, SIGKILL);
	kill_leftovers(t);
	tb_armed_remove_pgid(p->proc.pid);
	p->stopped = true;
}

/* Kill the group and the cgroup; the caller says why and returns the error. */
static void give_up(struct tb_tracer *t)
{
	struct priv *p = t->priv;

	tb_proc_stop(&p->proc, SIGKILL, 100000000);
	tb_cgroup_kill(&p->cg);
	tb_armed_remove_pgid(p->proc.pid);
	p->stopped = true;
}

/* This sample's last output, its last two lines on one line and escaped, for messages. */
static void last_output(struct priv *p, char *buf, size_t len)
{
	char *out = read_output(p), *end, *from;
	int lines = 0;

	if (!out) {
		snprintf(buf, len, "(no output)");
		return;
	}
	end = out + strlen(out);
	while (end > out && strchr(" \t\r\n", end[-1]))
		*--end = '\0';
	for (from = end; from > out && lines < 2; from--)
		if (from[-1] == '\n' && ++lines == 2)
			break;
	if (end - from > 300)
		from = end - 300;
	{
		char joined[700];
		size_t k = 0;

		for (char *q = from; *q && k + 4 < sizeof(joined); q++) {
			if (*q == '\n') {
				memcpy(joined + k, " | ", 3);
				k += 3;
			} else {
				joined[k++] = *q == '\r' ? ' ' : *q;
			}
		}
		joined[k] = '\0';
		tb_escape_controls_buf(k ? joined : "(no output)", false, buf, len);
	}
	free(out);
}

/* utime + stime (+ reaped children's) of pid from /proc, in seconds; 0 when unreadable. */
static double leader_cpu_s(pid_t pid)
{
	unsigned long long ut, st, cut, cst;
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (tb_read_line(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	/* fields 14-17 are utime stime cutime cstime; p + 2 starts at field 3 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
			 &ut, &st, &cut, &cst) != 4)
		return 0;
	return (double)(ut + st + cut + cst) / (double)sysconf(_SC_CLK_TCK);
}

/*
 * Each line of the output as it passes (core/bounded.h, in the drain's thread), until one
 * matches ready: the first line is seen however much follows it.
 */
static bool ready_hook(void *ctx, const char *line, size_t len)
{
	struct priv *p = ctx;
	char buf[4097];

	memcpy(buf, line, len < sizeof(buf) - 1 ? len : sizeof(buf) - 1);
	buf[len < sizeof(buf) - 1 ? len : sizeof(buf) - 1] = '\0';
	if (regexec(&p->ready_re, buf, 0, NULL, 0))
		return false;
	atomic_store(&p->ready_line, true);
	return true;
}

/* Every configured readiness condition holds: the ready regex, the BPF programs' rise. */
static bool is_ready(struct priv *p, const struct cfg *c, int base)
{
	bool ready = true;

	if (p->have_ready_re)
		ready = atomic_load(&p->ready_line);
	if (ready && c->ready_bpf_progs > 0) {
		int n = tb_bpf_prog_count();

		ready = n >= 0 && n - base >= c->ready_bpf_progs;
	}
	return ready;
}

/* Start the command, in a cgroup of its own where one can be made. Returns 0 or -errno. */
static int spawn(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	static bool warned;
	struct timespec now;
	char why[256];
	int ret;

	if (tb_cgroup_supported(why, sizeof(why))) {
		if (!warned)
			tb_warn("no cgroup for tracer commands (%s): what they start outside their process group is not tracked",
				why);
		warned = true;
	} else if (!tb_cgroup_create(&p->cg, t->name)) {
		tb_cgroup_spawn_opts(&p->cg, &o);
	}
	o.out_dir = p->dir;
	o.out_path = p->logname;
	o.flags = TB_PROC_NULLIN | TB_PROC_CHDIR;
	/* Bounded on every path (it floods, fails, is given up), the ready lines seen. */
	o.out_max = c->log_max;
	if (p->have_ready_re) {
		o.out_hook = ready_hook;
		o.out_hook_ctx = p;
	}
	ret = tb_proc_spawn_opts(&p->proc, p->smp.argv.v, &o);
	if (ret) {
		tb_tracer_fail(t, "cannot start the tracer command '%s': %s", c->command.v[0],
			       strerror(-ret));
		return ret;
	}
	p->spawned = true;
	clock_gettime(CLOCK_REALTIME, &now);
	/* File times come from the kernel's coarse clock, up to a tick (<= 10 ms) behind. */
	p->wall_start_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec - 20000000;
	ret = tb_armed_add_pgid(p->proc.pid);
	if (ret)
		give_up(t);
	return ret;
}

/* Until every readiness condition holds, the command dies, or the timeout. Returns 0 or -errno
 * (said, tb_tracer_fail). */
static int wait_ready(struct tb_tracer *t, int base)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;
	uint64_t deadline = p->proc.start_ns + c->ready_timeout;
	char buf[128], out[512];

	for (;;) {
		tb_cgroup_sample(&p->cg);
		if (tb_proc_poll(&p->proc)) {
			p->died = true;
			tb_proc_output_done(&p->proc);
			last_output(p, out, sizeof(out));
			tb_tracer_fail(
				t,
				"the tracer command '%s' %s before it was ready: %s (output in %s)",
				c->command.v[0],
				tb_proc_status_str(p->proc.status, buf, sizeof(buf)), out, p->log);
			reap_group(t);
			return -ECHILD;
		}
		if (is_ready(p, c, base))
			return 0;
		if (tb_now_ns() >= deadline || tb_stop_requested()) {
			give_up(t);
			tb_proc_output_done(&p->proc);
			last_output(p, out, sizeof(out));
			tb_tracer_fail(
				t,
				"the tracer command '%s' was %s after %.1f s (%s%s%s); killed it; its last output: %s",
				c->command.v[0],
				tb_stop_requested() ? "stopped, not yet ready," : "not ready",
				(double)(tb_now_ns() - p->proc.start_ns) / 1e9,
				p->have_ready_re ? "no output matching ready = " : "",
				p->have_ready_re ? c->ready : "",
				p->have_ready_re ? "" : "BPF programs did not appear", out);
			return tb_stop_requested() ? -EINTR : -ETIMEDOUT;
		}
		tb_sleep_ns(10000000);
	}
}

static int cmd_start(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;
	int64_t mem;
	int base = 0, ret;
	struct stat st;
	char buf[128], out[512];

	p->log_start = fstatat(p->dir->fd, p->logname, &st, AT_SYMLINK_NOFOLLOW) ? 0 : st.st_size;
	/* The stats cost every BPF program run: only an accounting sample holds them. */
	ret = tb_cmd_sample_begin(&p->smp, t, &c->command, c->bpf_account,
				  c->bpf_stats && t->accounting);
	p->smp_begun = true;
	if (ret)
		return ret;
	if (c->ready_bpf_progs > 0) {
		base = tb_bpf_prog_count();
		if (base < 0) {
			tb_tracer_fail(t, "ready-bpf-progs: cannot count BPF programs: %s",
				       strerror(-base));
			return base;
		}
	}
	ret = spawn(t);
	if (!ret)
		ret = wait_ready(t, base);
	if (ret) {
		tb_cgroup_destroy(&p->cg); /* the command is gone: nothing left to account */
		return ret;
	}
	p->ready_s = (double)(tb_now_ns() - p->proc.start_ns) / 1e9;
	p->startup_cpu_s = leader_cpu_s(p->proc.pid);
	tb_cgroup_usage(&p->cg, &p->cg_start, &mem);
	if (c->settle)
		tb_sleep_ns(c->settle);
	if (tb_proc_poll(&p->proc)) {
		p->died = true;
		last_output(p, out, sizeof(out));
		tb_tracer_fail(
			t, "the tracer command '%s' %s while settling after it was ready: %s",
			c->command.v[0], tb_proc_status_str(p->proc.status, buf, sizeof(buf)), out);
		reap_group(t);
		tb_cgroup_destroy(&p->cg);
		return -ECHILD;
	}
	ret = tb_cmd_sample_started(&p->smp, t, p->proc.pid);
	if (ret)
		give_up(t);
	return ret;
}

/* Stop signal, then escalation (tb_bpf_release_and_wait's release). */
static void stop_group(void *arg)
{
	struct tb_tracer *t = arg;
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;

	if (tb_proc_poll(&p->proc)) {
		p->died = true; /* reported by collect, which names the status */
		reap_group(t);
	} else if (tb_proc_stop(&p->proc, sig_values[c->stop_signal], c->stop_timeout)) {
		tb_warn("[tracer %s] '%s' ignored SIG%s and SIGTERM: killed it", t->name,
			c->command.v[0], sig_choices[c->stop_signal]);
	} else if (p->proc.stop_sig == SIGTERM && sig_values[c->stop_signal] != SIGTERM) {
		/* the sample's teardown (and the run) took stop-timeout longer: say why */
		tb_warn("[tracer %s] '%s' did not exit within stop-timeout (%.3g s) of SIG%s; "
			"SIGTERM stopped it",
			t->name, c->command.v[0], (double)c->stop_timeout / 1e9,
			sig_choices[c->stop_signal]);
	}
	kill_leftovers(t);
}

/*
 * The BPF programs and links the command holds (its fdinfo) are freed by the kernel after it
 * exits, asynchronously: wait for them, bounded, so the next run does not count them as
 * foreign instrumentation (host/bpf-freeing.h).
 */
static int cmd_stop(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	struct tb_bpf_obj *objs = NULL;
	size_t n = 0;

	if (!p || !p->spawned || p->stopped)
		return 0;
	p->stopped = true;
	/* The window ends before the stop signal: its teardown is not part of what it cost. */
	tb_cmd_sample_stopping(&p->smp, t, p->proc.pid);
	tb_cgroup_sample(&p->cg);
	if (tb_bpf_objs_of_pgrp(p->proc.pid, &objs, &n))
		n = 0;
	tb_bpf_release_and_wait(t->name, objs, n, stop_group, t);
	free(objs);
	tb_armed_remove_pgid(p->proc.pid);
	return 0;
}

/* The count events-regex takes from out: the last match's group, or (sum) all of them; -1. */
static int64_t events_from_output(struct priv *p, const char *out, bool sum)
{
	int64_t events = -1;
	const char *s;
	regmatch_t m[2];

	for (s = out; s && !regexec(&p->events_re, s, 2, m, s == out ? 0 : REG_NOTBOL);) {
		if (m[1].rm_so >= 0) {
			int64_t v = strtoll(s + m[1].rm_so, NULL, 10);

			events = sum ? (events < 0 ? 0 : events) + v : v;
		}
		if (m[0].rm_eo == 0)
			break;
		s += m[0].rm_eo;
	}
	return events;
}

/*
 * The log as the result names it: relative to the run directory (tracers/<name>/<name>.log,
 * the runner's layout), so that a result does not carry where it was written on this machine.
 */
static const char *log_in_result(const struct priv *p)
{
	const char *t = strstr(p->log, "/tracers/");

	return t ? t + 1 : p->log;
}

/* CPU seconds and memory of the command while measuring: its cgroup's, else wait4's. */
static void usage(const struct priv *p, struct tb_tracer_stats *st, double *total)
{
	struct tb_cgroup *cg = (struct tb_cgroup *)&p->cg;
	double cpu;
	int64_t mem;

	*total = (double)p->proc.ru.ru_utime.tv_sec + (double)p->proc.ru.ru_utime.tv_usec / 1e6 +
		 (double)p->proc.ru.ru_stime.tv_sec + (double)p->proc.ru.ru_stime.tv_usec / 1e6;
	/* What it cost while measuring: its start-up (loading, attaching) is reported apart. */
	st->cpu_s = *total > p->startup_cpu_s ? *total - p->startup_cpu_s : 0;
	st->mem_bytes = (int64_t)p->proc.ru.ru_maxrss * 1024;
	tb_cgroup_usage(cg, &cpu, &mem);
	if (isfinite(cpu)) { /* every process it started, reaped or not */
		*total = cpu;
		st->cpu_s = cpu > p->cg_start ? cpu - p->cg_start : 0;
	}
	if (mem >= 0)
		st->mem_bytes = mem;
}

/*
 * What the command wrote in its own directory (it runs there, TB_PROC_CHDIR) besides its log:
 * the regular files' bytes, deleted unless keep-raw (perf record leaves a perf.data and a
 * perf.data.old of hundreds of MB). With keep-raw only the files written since start count.
 */
static int64_t own_files(const struct tb_tracer *t, const struct priv *p, bool keep)
{
	struct dirent *e;
	int64_t bytes = 0;
	struct stat st;
	DIR *d;
	int fd;

	/* The directory it runs in, through the handle: not what its path names now. */
	fd = openat(p->dir->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, p->logname) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (keep &&
		    (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec <
			    (uint64_t)p->wall_start_ns)
			continue;
		bytes += st.st_size;
		if (!keep && unlinkat(dirfd(d), e->d_name, 0))
			tb_warn("[tracer %s] cannot delete %s/%s: %s", t->name, p->dir->path,
				e->d_name, strerror(errno));
	}
	closedir(d);
	return bytes;
}

static int cmd_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;
	char status[128], tail[512], *out;
	int64_t events = -1;
	bool in_cgroup;
	json_t *extra;
	double total;
	int ret;

	if (!p || !p->spawned || !p->proc.reaped)
		return -EINVAL;
	tb_proc_output_done(&p->proc); /* the log complete, and within log-max */
	tb_proc_status_str(p->proc.status, status, sizeof(status));
	if (p->died) {
		own_files(t, p, c->keep_raw); /* keep-raw = false holds on this path too */
		last_output(p, tail, sizeof(tail));
		tb_tracer_fail(
			t, "the tracer command '%s' %s during the measurement: %s (output in %s)",
			c->command.v[0], status, tail, p->log);
		tb_cgroup_destroy(&p->cg);
		return -ECHILD;
	}
	usage(p, st, &total);
	st->disk_bytes = own_files(t, p, c->keep_raw);
	in_cgroup = p->cg.path[0] != '\0';
	tb_cgroup_destroy(&p->cg); /* stopped and accounted: nothing is left in it */
	if (p->have_events_re) {
		out = read_output(p);
		events = events_from_output(p, out, c->events_sum);
		free(out);
		if (events < 0)
			tb_warn("[tracer %s] events-regex '%s' matched nothing in its output (%s)",
				t->name, c->events_regex, p->log);
	}
	extra = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:b, s:i}", "exit", status, "log",
			  log_in_result(p), "ready_s", p->ready_s, "run_s",
			  (double)(p->proc.end_ns - p->proc.start_ns) / 1e9, "cpu_s_total", total,
			  "cpu_s_startup", p->startup_cpu_s, "cgroup", in_cgroup,
			  "leftover_processes", p->leftover);
	ret = extra ? tb_cmd_sample_figures(&p->smp, p->dir, p->logname, p->log_start,
					    p->have_events_re, events, st, extra)
		    : -ENOMEM;
	if (ret) {
		json_decref(extra);
		return ret;
	}
	if (st->lost > 0)
		tb_warn("[tracer %s] '%s' says it lost %s%lld events (%s)", t->name,
			c->command.v[0],
			json_is_true(
				json_object_get(json_object_get(extra, "tool"), "lost_at_least"))
				? "at least "
				: "",
			(long long)st->lost, p->log);
	st->extra = extra;
	return 0;
}

static void cmd_teardown(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;

	if (!p)
		return;
	if (p->spawned) {
		pid_t pid = p->proc.pid;

		tb_proc_release(&p->proc); /* kills and reaps the group if still running */
		if (pid)
			tb_armed_remove_pgid(pid);
		/* A sample that was given up or failed before collect: its files go too. */
		if (!c->keep_raw)
			own_files(t, p, false);
	}
	if (p->smp_begun)
		tb_cmd_sample_end(&p->smp);
	tb_cgroup_destroy(&p->cg); /* and whatever is still in it */
	if (p->have_ready_re)
		regfree(&p->ready_re);
	if (p->have_events_re)
		regfree(&p->events_re);
	free(p);
	t->priv = NULL;
}

/*
 * Declared: the command's start-up to readiness and its stop, plus its own ready-settle delay.
 * bpftrace 0.17 with one tracepoint 500 ms (about 0.26 s to ready, 0.26 s to stop: syscount.bt
 * in scenarios/services.ini on the development VM), perf record 600 ms (its stop writes the
 * build ids: 0.55 s there, beside a 50 ms start), another command 250 ms.
 */
static uint64_t cmd_est_cost_ns(const void *vcfg)
{
	const struct cfg *c = vcfg;
	struct tb_tool_info ti;

	tb_tool_identify(&c->command, &ti);
	if (ti.tool == TB_TOOL_BPFTRACE)
		return 500000000ull + c->settle;
	if (ti.tool == TB_TOOL_PERF_RECORD)
		return 600000000ull + c->settle;
	return 250000000ull + c->settle;
}

/* A tool whose own output counts its events (perf record, perf trace -s). */
static bool counts_itself(const struct cfg *c)
{
	struct tb_tool_info ti;

	tb_tool_identify(&c->command, &ti);
	return ti.tool == TB_TOOL_PERF_RECORD || ti.tool == TB_TOOL_PERF_TRACE;
}

/* Its BPF programs' run figures need the stats, which inflate the measured: apart. */
static bool cmd_accounts(const void *vcfg)
{
	const struct cfg *c = vcfg;

	return c->bpf_account && c->bpf_stats && !counts_itself(c);
}

/* What the section says it hooks (hooks, hook-kind, scope). */
static int cmd_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct cfg *c = vcfg;
	size_t i;
	int ret = 0;

	h->kind = c->kind == KIND_EVENTS     ? TB_HOOK_EVENTS
		  : c->kind == KIND_SAMPLING ? TB_HOOK_SAMPLING
		  : c->kind == KIND_UNKNOWN  ? TB_HOOK_UNKNOWN
		  : c->hooks.n		     ? TB_HOOK_EVENTS
					     : TB_HOOK_UNKNOWN;
	h->scope = c->scope == SCOPE_WORKLOAD ? TB_SCOPE_TREE : TB_SCOPE_SYSTEM;
	if (!c->events_regex && c->bpf_account && c->bpf_stats && !counts_itself(c))
		h->scope = TB_SCOPE_SYSTEM; /* its events are BPF runs: every task's */
	for (i = 0; !ret && i < c->hooks.n; i++)
		ret = tb_hooks_add(h, c->hooks.v[i], -1, h->kind == TB_HOOK_EVENTS);
	return ret;
}

const struct tb_tracer_ops tb_tracer_command = {
	.name = "command",
	.help = "an external tracer command (bpftrace, perf record, an agent), ready by regex "
		"or BPF programs appearing",
	.opts = cmd_opts,
	.cfg_size = sizeof(struct cfg),
	.validate = cmd_validate,
	.resolve = cmd_resolve,
	.supported_cfg = cmd_usable,
	.setup = cmd_setup,
	.start = cmd_start,
	.stop = cmd_stop,
	.collect = cmd_collect,
	.teardown = cmd_teardown,
	.est_cost_ns = cmd_est_cost_ns,
	.hooks = cmd_hooks,
	.accounts = cmd_accounts,
};
