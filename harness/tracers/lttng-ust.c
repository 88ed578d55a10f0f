// SPDX-License-Identifier: GPL-2.0
/*
 * lttng-ust: an LTTng recording session (liblttng-ctl) with the usercall workload's UST event
 * enabled, for the workload's process only. Lifecycle, per sample:
 *   setup    find a session daemon, or start one (lttng-sessiond, our child in its own process
 *            group, recorded in the armed record); wait for the workload process to register;
 *            create the session (trace files in <outdir>/<name>.lttng), its channel (sub-buffer
 *            size and count, discard or overwrite), the event, and a process tracker holding
 *            the workload's pid
 *   start    lttng_start_tracing
 *   stop     lttng_stop_tracing_no_wait, then the consumer daemon's last writes waited for
 *            (lttng_data_pending, polled every millisecond)
 *   collect  events: counted from the trace, as LTTng counts only what it lost: from its
 *            packets' sizes (ctf-index.h) or, where those do not settle it, by libbabeltrace2;
 *            lost: the window's discarded events plus lost packets; the session daemon's and
 *            consumer's CPU time when the daemon is ours
 *   teardown destroy the session, remove the trace files (unless keep-trace), stop a daemon we
 *            started
 * or, kept across a cell's samples ([global] reuse-tracers, not with keep-trace), the daemon
 * and the session stay: the tracker is emptied and the session cleared after a sample (park)
 * and pointed at the next sample's process before it (rearm).
 * Only the workload process links liblttng-ust (workloads/usercall.c, lttng = true); this
 * tracer links liblttng-ctl, which starts no threads. It needs no settle (TB_TR_NOSETTLE): the
 * session daemon answers the start once the application's session is started, and the stop
 * once the application stopped and is quiescent; the consumer daemon's writes after that are
 * waited for by the stop.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/proc.h"
#include "core/tb.h"
#include "host/armed.h"
#include "tracers/ctf-count.h"
#include "tracers/ctf-index.h"
#include "tracers/tracer.h"
#include "workloads/usercall.h"

#define SESSIOND	  "lttng-sessiond"
#define SESSIOND_START_NS (10ull * 1000 * 1000 * 1000)
#define CLEAR_TIMEOUT_MS  10000
/* The stop's wait for the consumer daemon, polled: liblttng-ctl's own wait sleeps 200 ms. */
#define FLUSH_POLL_NS	 1000000ull
#define FLUSH_TIMEOUT_NS (60ull * 1000 * 1000 * 1000)

struct cfg {
	char *event;
	uint64_t subbuf_size;
	int64_t subbuf_count;
	bool overwrite;
	uint64_t register_timeout;
	bool keep_trace;
};

/* One recording session (a kept tracer has two, used in turn: lt_rearm). */
struct sess {
	char name[128];
	char trace_dir[PATH_MAX];
	bool made;
	pid_t tracked; /* the pid its tracker holds (0: none) */
	/* The channel's counts when the window started: LTTng's add up over the session's life,
	 * clears included, so a kept session's window is the difference. */
	int64_t discarded0, lost_packets0;
	/* A clear park issued whose completion the session daemon has not confirmed yet (it does
	 * so at its next 500 ms check): waited for before the session starts again. */
	struct lttng_clear_handle *clearing;
};

struct priv {
	struct sess s[2];
	int cur;   /* the session of the current (or last) window: s[cur] */
	bool ours; /* it uses the session daemon we started (false: found one running) */
	bool registered, traced;
	double cpu0, cpu1;		 /* the daemon group's CPU seconds at start and stop */
	int64_t discarded, lost_packets; /* in the last window */
};

#define CUR(p) (&(p)->s[(p)->cur])

static const struct tb_option lt_opts[] = {
	{"event", TB_OPT_STRING, offsetof(struct cfg, event), TB_USERCALL_UST_EVENT,
	 "UST event to enable (default: the usercall workload's, with lttng = true)"},
	{"subbuf-size", TB_OPT_SIZE, offsetof(struct cfg, subbuf_size), "512K",
	 "channel sub-buffer size (a power of two, at least a page)", 4096, 1ull << 32},
	{"subbuf-count", TB_OPT_INT, offsetof(struct cfg, subbuf_count), "4",
	 "channel sub-buffers per CPU (a power of two)", 2, 1024},
	{"overwrite", TB_OPT_BOOL, offsetof(struct cfg, overwrite), "false",
	 "overwrite the oldest sub-buffer when full (flight recorder) instead of discarding"},
	{"register-timeout", TB_OPT_DURATION, offsetof(struct cfg, register_timeout), "5s",
	 "wait this long for the workload process to register with the session daemon (0: no "
	 "wait)",
	 0, 60e9},
	{"keep-trace", TB_OPT_BOOL, offsetof(struct cfg, keep_trace), "false",
	 "keep each sample's trace files in the tracer's output directory"},
	TB_OPT_END,
};

static int lt_supported(char *why, size_t len)
{
	char path[PATH_MAX];

	if (lttng_session_daemon_alive() == 1)
		return 0;
	if (tb_proc_which(SESSIOND, path, sizeof(path))) {
		snprintf(why, len,
			 "no session daemon running and no %s to start (Debian: lttng-tools)",
			 SESSIOND);
		return -ENOENT;
	}
	if (geteuid()) {
		snprintf(why, len, "no session daemon running, and starting one needs root here");
		return -EPERM;
	}
	return 0;
}

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static int lt_validate(const void *vcfg, char *err, size_t len)
{
	const struct cfg *c = vcfg;
	const char *colon = c->event ? strchr(c->event, ':') : NULL;

	if (!colon || colon == c->event || !colon[1] || strlen(c->event) >= LTTNG_SYMBOL_NAME_LEN ||
	    strpbrk(c->event, " \t\n")) {
		snprintf(err, len, "event: '%s' is not provider:name", c->event ? c->event : "");
		return -EINVAL;
	}
	if (!pow2(c->subbuf_size) || !pow2((uint64_t)c->subbuf_count)) {
		snprintf(err, len, "%s: must be a power of two",
			 pow2(c->subbuf_size) ? "subbuf-count" : "subbuf-size");
		return -EINVAL;
	}
	return 0;
}

/* ---- the session daemon ----------------------------------------------------------------- */

/* CPU seconds (user + system) of every process in process group pgid. */
static double group_cpu_s(pid_t pgid)
{
	long tick = sysconf(_SC_CLK_TCK);
	unsigned long long ut, st;
	char path[64], buf[1024], *p;
	struct dirent *de;
	double sum = 0;
	int grp;
	DIR *d;

	if (pgid <= 0 || tick <= 0 || !(d = opendir("/proc")))
		return -1;
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%.16s/stat", de->d_name);
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    tb_read_line(path, buf, sizeof(buf)))
			continue;
		p = strrchr(buf, ')');
		/* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime" */
		if (p &&
		    sscanf(p + 1, " %*c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &grp,
			   &ut, &st) == 3 &&
		    grp == pgid)
			sum += (double)(ut + st) / (double)tick;
	}
	closedir(d);
	return sum;
}

static void daemon_stop(struct priv *p);

/*
 * The session daemon we started, shared by every session of ours (tracers kept across their
 * cells' samples live together), and how many use it: the last to stop stops it.
 */
static struct {
	struct tb_proc proc;
	int users;
} sessiond;

/* A running session daemon, or one started as our child (p->ours); 0 or -errno, said. */
static int daemon_ensure(struct tb_tracer *t, struct priv *p)
{
	char *argv[] = {SESSIOND, "--no-kernel", NULL};
	struct tb_proc_opts o = TB_PROC_OPTS_INIT;
	char log[PATH_MAX];
	uint64_t t0;
	int ret;

	if (lttng_session_daemon_alive() == 1) {
		if (sessiond.users) {
			sessiond.users++;
			p->ours = true;
		}
		return 0;
	}
	if (sessiond.users) {
		tb_err("[tracer %s] the %s we started (pid %d) no longer answers", t->name,
		       SESSIOND, (int)sessiond.proc.pid);
		return -ESRCH;
	}
	/* Its log through the tracer's directory's handle (no link followed); else in /tmp. */
	if (t->dir)
		snprintf(log, sizeof(log), "%.*s.sessiond.log", NAME_MAX - 14, t->name);
	else
		snprintf(log, sizeof(log), "/tmp/%s.sessiond.log", t->name);
	o.out_path = log;
	o.out_dir = t->dir;
	o.flags = TB_PROC_NULLIN;
	ret = tb_proc_spawn_opts(&sessiond.proc, argv, &o);
	if (ret) {
		tb_err("[tracer %s] cannot start %s: %s", t->name, SESSIOND, strerror(-ret));
		return ret;
	}
	sessiond.users = 1;
	p->ours = true;
	ret = tb_armed_add_pgid(sessiond.proc.pid);
	if (ret) {
		tb_err("[tracer %s] cannot record %s for crash safety: %s", t->name, SESSIOND,
		       strerror(-ret));
		return ret;
	}
	for (t0 = tb_now_ns(); tb_now_ns() - t0 < SESSIOND_START_NS; tb_sleep_ns(10000000)) {
		if (lttng_session_daemon_alive() == 1)
			return 0;
		if (tb_proc_poll(&sessiond.proc) == 1)
			break;
	}
	/* Ours exited: another process may have started one meanwhile, which then serves. */
	if (lttng_session_daemon_alive() == 1) {
		daemon_stop(p);
		return 0;
	}
	tb_err("[tracer %s] %s did not come up (its log: %s)", t->name, SESSIOND, log);
	return -ETIMEDOUT;
}

/* p no longer uses our daemon; the last user stops it. */
static void daemon_stop(struct priv *p)
{
	pid_t pgid = sessiond.proc.pid;

	if (!p->ours)
		return;
	p->ours = false;
	if (--sessiond.users > 0 || !pgid)
		return;
	tb_proc_stop(&sessiond.proc, SIGTERM, 2000000000ull);
	tb_proc_release(&sessiond.proc);
	tb_armed_remove_pgid(pgid);
	memset(&sessiond.proc, 0, sizeof(sessiond.proc));
}

/* The process group of our daemon when p uses it, else 0 (its CPU time is not ours to read). */
static pid_t daemon_pgid(const struct priv *p)
{
	return p->ours ? sessiond.proc.pid : 0;
}

/* ---- the session ------------------------------------------------------------------------ */

static int lt_error(const struct tb_tracer *t, const char *what, int code)
{
	tb_err("[tracer %s] %s: %s", t->name, what, lttng_strerror(code < 0 ? code : -code));
	return -EIO;
}

/*
 * Wait until the workload process has registered with the daemon and offers the event: it
 * registers from its liblttng-ust constructor, or once a daemon it waited for appears.
 */
static bool wait_registered(const struct tb_tracer *t, const struct cfg *c)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST};
	struct lttng_event *ev = NULL;
	struct lttng_handle *h;
	uint64_t t0 = tb_now_ns();
	bool found = false;
	int n, i;

	h = lttng_create_handle(NULL, &dom);
	while (h && !found) {
		n = lttng_list_tracepoints(h, &ev);
		for (i = 0; i < n && !found; i++)
			found = ev[i].pid == t->target && !strcmp(ev[i].name, c->event);
		free(ev);
		ev = NULL;
		if (found || tb_now_ns() - t0 >= c->register_timeout)
			break;
		tb_sleep_ns(5000000);
	}
	lttng_destroy_handle(h);
	return found;
}

/*
 * Session s's vpid tracker holds only pid (0: nobody, a parked session records nothing from
 * any process and creates no buffers in any); the pid it held before is dropped. 0 or -EIO,
 * said.
 */
static int track(const struct tb_tracer *t, struct sess *s, pid_t pid)
{
	struct lttng_process_attr_tracker_handle *th = NULL;
	int ret = -EIO;

	if (lttng_session_get_tracker_handle(s->name, LTTNG_DOMAIN_UST,
					     LTTNG_PROCESS_ATTR_VIRTUAL_PROCESS_ID,
					     &th) != LTTNG_OK ||
	    lttng_process_attr_tracker_handle_set_tracking_policy(
		    th, LTTNG_TRACKING_POLICY_INCLUDE_SET) !=
		    LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
		goto out;
	if (s->tracked > 0 &&
	    lttng_process_attr_virtual_process_id_tracker_handle_remove_pid(th, s->tracked) !=
		    LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
		goto out;
	s->tracked = 0;
	if (pid > 0 && lttng_process_attr_virtual_process_id_tracker_handle_add_pid(th, pid) !=
			       LTTNG_PROCESS_ATTR_TRACKER_HANDLE_STATUS_OK)
		goto out;
	s->tracked = pid;
	ret = 0;
out:
	if (ret)
		tb_err("[tracer %s] cannot track only pid %d", t->name, (int)pid);
	lttng_process_attr_tracker_handle_destroy(th);
	return ret;
}

/*
 * The tracker of nobody first (a new session tracks every process, and would make its buffers
 * in every registered application as soon as its event is enabled), then the channel (default
 * name) and the event.
 */
static int session_configure(const struct tb_tracer *t, const struct cfg *c, struct sess *s,
			     struct lttng_handle *h)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST};
	struct lttng_channel *ch = lttng_channel_create(&dom);
	struct lttng_event *ev = lttng_event_create();
	int ret = -ENOMEM;

	if (!ch || !ev)
		goto out;
	ret = track(t, s, 0);
	if (ret)
		goto out;
	snprintf(ch->name, sizeof(ch->name), "tracebench");
	ch->attr.subbuf_size = c->subbuf_size;
	ch->attr.num_subbuf = (uint64_t)c->subbuf_count;
	ch->attr.overwrite = c->overwrite;
	ret = lttng_enable_channel(h, ch);
	if (ret < 0) {
		ret = lt_error(t, "enabling the channel", ret);
		goto out;
	}
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	snprintf(ev->name, sizeof(ev->name), "%s", c->event);
	ret = lttng_enable_event_with_exclusions(h, ev, ch->name, NULL, 0, NULL);
	if (ret < 0)
		ret = lt_error(t, "enabling the event", ret);
out:
	lttng_event_destroy(ev);
	lttng_channel_destroy(ch);
	return ret;
}

/* The workload process registered (p->registered), waited for as the config says; a warning
 * when it did not (its sample then records nothing, and the proof says so). */
static void await_registered(const struct tb_tracer *t, struct priv *p)
{
	const struct cfg *c = t->cfg;

	p->registered = t->target <= 0 || !c->register_timeout || wait_registered(t, c);
	if (!p->registered)
		tb_warn("[tracer %s] pid %d offers no %s after %.1f s: nothing will be recorded "
			"(is it the usercall workload with lttng = true?)",
			t->name, (int)t->target, c->event, (double)c->register_timeout / 1e9);
}

static void lt_teardown(struct tb_tracer *t);

/*
 * Session i of p, made and configured, tracking nobody. Its name is unique among the sessions
 * live at once (a kept tracer's cells each hold theirs): the cell id, its '/' (not allowed in
 * a session name nor its directory's) made '_', and "~2" for the second, a character no
 * section name has.
 */
static int session_make(const struct tb_tracer *t, struct priv *p, int i)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST};
	struct sess *s = &p->s[i];
	char url[PATH_MAX + 16], name[sizeof(s->name)];
	struct lttng_handle *h;
	int ret;

	snprintf(name, sizeof(name), "tracebench-%d-%.80s%s", (int)getpid(),
		 t->instance ? t->instance : t->name, i ? "~2" : "");
	for (char *ch = name; *ch; ch++)
		if (*ch == '/')
			*ch = '_';
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->trace_dir, sizeof(s->trace_dir), "%s/%s.lttng", t->outdir ? t->outdir : "/tmp",
		 name);
	snprintf(url, sizeof(url), "file://%s", s->trace_dir);
	ret = lttng_create_session(s->name, url);
	if (ret < 0)
		return lt_error(t, "creating the session", ret);
	s->made = true;
	h = lttng_create_handle(s->name, &dom);
	ret = h ? session_configure(t, t->cfg, s, h) : -ENOMEM;
	lttng_destroy_handle(h);
	return ret;
}

static int lt_setup(struct tb_tracer *t)
{
	struct priv *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->priv = p;
	ret = daemon_ensure(t, p);
	if (ret) {
		lt_teardown(t);
		return ret;
	}
	await_registered(t, p);
	ret = session_make(t, p, 0);
	if (!ret && t->target > 0)
		ret = track(t, CUR(p), t->target);
	if (ret)
		lt_teardown(t);
	return ret;
}

static int lt_start(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret;

	if (!p || !CUR(p)->made)
		return -EINVAL;
	p->cpu0 = group_cpu_s(daemon_pgid(p));
	ret = lttng_start_tracing(CUR(p)->name);
	if (ret < 0)
		return lt_error(t, "starting the session", ret);
	p->traced = true;
	return 0;
}

/*
 * The window's discarded events and lost packets, read once the session is stopped: the
 * channel's counts less those at the window's start, which become the next window's start.
 */
static int read_losses(struct tb_tracer *t, struct priv *p)
{
	struct lttng_domain dom = {.type = LTTNG_DOMAIN_UST};
	struct sess *s = CUR(p);
	struct lttng_handle *h = lttng_create_handle(s->name, &dom);
	struct lttng_channel *chs = NULL;
	int64_t discarded = 0, lost = 0;
	uint64_t d, l;
	int n, i, ret = 0;

	p->discarded = p->lost_packets = 0;
	n = h ? lttng_list_channels(h, &chs) : -LTTNG_ERR_NOMEM;
	if (n < 0)
		ret = lt_error(t, "listing the channels", n);
	for (i = 0; i < n; i++) {
		if (lttng_channel_get_discarded_event_count(&chs[i], &d) ||
		    lttng_channel_get_lost_packet_count(&chs[i], &l)) {
			ret = lt_error(t, "reading the channel's statistics", LTTNG_ERR_UNK);
			break;
		}
		discarded += (int64_t)d;
		lost += (int64_t)l;
	}
	if (!ret && n >= 0) {
		p->discarded = discarded - s->discarded0;
		p->lost_packets = lost - s->lost_packets0;
		s->discarded0 = discarded;
		s->lost_packets0 = lost;
	}
	free(chs);
	lttng_destroy_handle(h);
	return ret;
}

/*
 * Wait until the consumer daemon wrote everything the stopped session holds, polling every
 * millisecond (lttng_stop_tracing polls every 200 ms: 0.2-0.4 s a sample for a flush of a few
 * ms). 0, -ETIMEDOUT (said) or a negative lttng error code.
 */
static int wait_flushed(const struct tb_tracer *t, const struct sess *s)
{
	uint64_t t0 = tb_now_ns();
	int ret;

	while ((ret = lttng_data_pending(s->name)) == 1) {
		if (tb_now_ns() - t0 > FLUSH_TIMEOUT_NS) {
			tb_err("[tracer %s] the consumer daemon still writes the trace after %.0f s",
			       t->name, (double)FLUSH_TIMEOUT_NS / 1e9);
			return -ETIMEDOUT;
		}
		tb_sleep_ns(FLUSH_POLL_NS);
	}
	return ret;
}

static int lt_stop(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret;

	if (!p || !p->traced)
		return 0;
	ret = lttng_stop_tracing_no_wait(CUR(p)->name);
	p->traced = false;
	if (ret >= 0)
		ret = wait_flushed(t, CUR(p));
	p->cpu1 = group_cpu_s(daemon_pgid(p));
	if (ret < 0)
		return ret == -ETIMEDOUT ? ret : lt_error(t, "stopping the session", ret);
	return read_losses(t, p);
}

/*
 * The events the window's trace holds: from its packets' sizes in LTTng's index (ctf-index.h:
 * the usercall event's own layout, one writer thread; about a millisecond, the trace unread),
 * else decoded by libbabeltrace2 (ctf-count.h: 0.2 us an event, and the whole trace read back
 * from disk); *by names which counted. No trace: no application wrote to the session, 0
 * events. 0 or -errno, said.
 */
static int count_events(struct tb_tracer *t, const struct priv *p, int64_t *events, const char **by)
{
	const struct cfg *c = t->cfg;
	char err[PATH_MAX + 256];
	struct tb_ctf_indexed x;
	struct tb_ctf_counts n;
	int ret;

	*by = "packet sizes";
	ret = tb_ctf_index_count(CUR(p)->trace_dir, c->event, t->threads <= 1, &x, err,
				 sizeof(err));
	*events = x.events;
	if (ret == -EPROTO) {
		tb_debug("[tracer %s] %s; counted by libbabeltrace2", t->name, err);
		*by = "babeltrace2";
		ret = tb_ctf_count(CUR(p)->trace_dir, &n, err, sizeof(err));
		*events = n.events;
	}
	if (ret == -ENOENT) {
		*events = 0;
		ret = 0;
	} else if (ret) {
		tb_err("[tracer %s] counting the recorded events: %s", t->name, err);
	}
	return ret;
}

static int lt_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;
	const char *by;
	int64_t events;
	json_t *extra;
	int ret;

	if (!p || !CUR(p)->made)
		return -EINVAL;
	ret = count_events(t, p, &events, &by);
	if (ret)
		return ret;
	st->events = events;
	st->lost = p->discarded + p->lost_packets;
	st->cpu_s = p->ours && p->cpu0 >= 0 && p->cpu1 >= p->cpu0 ? p->cpu1 - p->cpu0 : -1;
	st->mem_bytes = (int64_t)(c->subbuf_size * (uint64_t)c->subbuf_count);
	extra = json_object();
	if (extra) {
		json_object_set_new(extra, "event", json_string(c->event));
		json_object_set_new(extra, "counted_by", json_string(by));
		json_object_set_new(extra, "discarded_events", json_integer(p->discarded));
		json_object_set_new(extra, "lost_packets", json_integer(p->lost_packets));
		json_object_set_new(extra, "registered", json_boolean(p->registered));
		json_object_set_new(extra, "own_sessiond", json_boolean(p->ours));
	}
	st->extra = extra;
	return 0;
}

/* Wait for the session daemon to confirm the clear park issued on s, if any. */
static int clear_done(const struct tb_tracer *t, struct sess *s)
{
	enum lttng_error_code res = LTTNG_OK;
	enum lttng_clear_handle_status st;
	int ret = 0;

	if (!s->clearing)
		return 0;
	st = lttng_clear_handle_wait_for_completion(s->clearing, CLEAR_TIMEOUT_MS);
	if (st == LTTNG_CLEAR_HANDLE_STATUS_TIMEOUT) {
		tb_err("[tracer %s] clearing the session: not done after %d ms", t->name,
		       CLEAR_TIMEOUT_MS);
		ret = -ETIMEDOUT;
	} else if (st != LTTNG_CLEAR_HANDLE_STATUS_COMPLETED ||
		   lttng_clear_handle_get_result(s->clearing, &res) !=
			   LTTNG_CLEAR_HANDLE_STATUS_OK ||
		   res != LTTNG_OK) {
		ret = lt_error(t, "clearing the session",
			       res != LTTNG_OK ? (int)res : LTTNG_ERR_UNK);
	}
	lttng_clear_handle_destroy(s->clearing);
	s->clearing = NULL;
	return ret;
}

static int any_file(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)path, (void)st, (void)f;
	return type == FTW_F;
}

/* Does session s's trace directory still hold a file (a directory that is gone: no)? */
static bool trace_left(const struct sess *s)
{
	int r = nftw(s->trace_dir, any_file, 8, FTW_PHYS);

	return r > 0 || (r < 0 && errno != ENOENT);
}

/*
 * Drop stopped session s's buffers and trace files. The consumer daemon deletes the files at
 * once (a millisecond or two, tens for hundreds of MB), and park waits for that, so that no
 * deletion runs under another cell's sample; the session daemon confirms the clear only at its
 * next rotation check, 500 ms later, and refuses to start s before: the next time s is used
 * waits for it (clear_done), two windows on. Files still there after CLEAR_TIMEOUT_MS: the
 * whole clear is waited for here.
 */
static int clear(const struct tb_tracer *t, struct sess *s)
{
	enum lttng_error_code code;
	uint64_t t0 = tb_now_ns();

	code = lttng_clear_session(s->name, &s->clearing);
	if (code != LTTNG_OK) {
		lttng_clear_handle_destroy(s->clearing);
		s->clearing = NULL;
		return lt_error(t, "clearing the session", (int)code);
	}
	while (trace_left(s)) {
		if (tb_now_ns() - t0 > CLEAR_TIMEOUT_MS * 1000000ull)
			return clear_done(t, s);
		tb_sleep_ns(FLUSH_POLL_NS);
	}
	return 0;
}

static void lt_teardown(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;
	int ret;

	if (!p)
		return;
	if (p->traced)
		lttng_stop_tracing_no_wait(CUR(p)->name);
	for (int i = 0; i < 2; i++) {
		struct sess *s = &p->s[i];

		clear_done(t, s);
		if (s->made) {
			ret = lttng_destroy_session(s->name);
			if (ret < 0)
				lt_error(t, "destroying the session", ret);
		}
		/* The session daemon wrote it by its path; it is removed through the tracer's
		 * directory's handle (no link followed), so a run directory swapped for a link
		 * loses nothing else. */
		if (s->trace_dir[0] && !c->keep_trace && t->dir)
			tb_dir_remove(t->dir, strrchr(s->trace_dir, '/') + 1);
		else if (s->trace_dir[0] && !c->keep_trace)
			tb_rm_rf(s->trace_dir);
	}
	daemon_stop(p);
	free(p);
	t->priv = NULL;
}

/*
 * Kept across a cell's samples ([global] reuse-tracers): the daemon and two sessions of the
 * same channel and event stay, used in turn. Park (t->target 0): the window's session's tracker
 * emptied, so no process records into it or gets its buffers, and the session cleared, so its
 * next window's trace holds only its own events (park waits for the files to go); then the
 * other session is the next window's (made at the first park, tracking nobody). Rearm: that
 * session's clear confirmed (issued a window earlier: the daemon's 500 ms check has passed
 * unless both windows and what ran between were shorter), and its tracker pointed at the new
 * workload process once it registered, as setup waits for it. A window's process is tracked by
 * one session only, so it records exactly as with one. The per-sample costs left are start
 * (the process's buffers made), stop (the consumer's flush), the count and the deletion of the
 * files; the daemon's start and stop and the sessions' creation and destruction go.
 */
static int lt_rearm(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret;

	if (!p || !CUR(p)->made || p->traced)
		return -EINVAL;
	if (t->target > 0) {
		ret = clear_done(t, CUR(p));
		if (ret)
			return ret;
		await_registered(t, p);
		return track(t, CUR(p), t->target);
	}
	ret = track(t, CUR(p), 0);
	if (!ret)
		ret = clear(t, CUR(p));
	if (ret)
		return ret;
	p->cur = !p->cur;
	return CUR(p)->made ? 0 : session_make(t, p, p->cur);
}

/* keep-trace keeps each sample's trace files, which a clear between samples would delete. */
static bool lt_can_rearm(const void *vcfg)
{
	return !((const struct cfg *)vcfg)->keep_trace;
}

/*
 * Declared (tracer.h) from `make bench-rearm` (tools/bench-rearm.py: 3 rounds of the usercall
 * workload with lttng = true, 200 ms and 1 s samples, about 1.2M and 12.5M events; 2026-12-05,
 * a busy machine), medians of tracer_setup_s + tracer_teardown_s less the 2 x 20 ms settle:
 * fresh, 0.88 s (200 ms) and 1.17 s (1 s): the session's creation and the wait for the process
 * to register (0.3 s), its start (the process's buffers made, 30-110 ms), the stop (a few ms,
 * or 200 ms when the daemons wait for the metadata), the count (1-2 ms from the packet index,
 * ctf-index.h; 2-2.7 s with libbabeltrace2 before), the session's destruction (the session
 * daemon answers it at its next 500 ms pending check) and the daemon's stop.
 */
static uint64_t lt_est_cost_ns(const void *cfg)
{
	(void)cfg;
	return 1000000000ull;
}

/*
 * Declared as lt_est_cost_ns is, kept (rearm): 0.26 s (200 ms samples) and 0.21 s (1 s): the
 * registration wait, the start, the stop, the count and park's wait for the clear's files to go
 * (30-55 ms for a 1-s sample's 270 MB: the one part that grows with the sample, about 40 ms a
 * second, within the stop's 200 ms spread, so one figure for every length). It was 1.3 s, the
 * count with libbabeltrace2 (in proportion to the events) and the clear's 0.5 s.
 */
static uint64_t lt_est_rearm_ns(const void *cfg)
{
	(void)cfg;
	return 250000000ull;
}

/* The UST event (lttng:PROVIDER:NAME), for the workload process (a vpid tracker). */
static int lt_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct cfg *c = vcfg;
	char name[TB_EV_NAME_MAX];

	h->kind = TB_HOOK_EVENTS;
	h->scope = TB_SCOPE_PROCESS;
	snprintf(name, sizeof(name), "%s%s", TB_EV_LTTNG, c->event ? c->event : "");
	return tb_hooks_add(h, name, -1, true);
}

const struct tb_tracer_ops tb_tracer_lttng_ust = {
	.name = "lttng-ust",
	.help = "an LTTng-UST recording session (liblttng-ctl) on the usercall workload's "
		"tracepoint, for the workload's pid only; events counted from the trace's packet "
		"index (libbabeltrace2 where that does not settle them)",
	.opts = lt_opts,
	.cfg_size = sizeof(struct cfg),
	.flags = TB_TR_NOSETTLE,
	.supported = lt_supported,
	.validate = lt_validate,
	.setup = lt_setup,
	.start = lt_start,
	.stop = lt_stop,
	.collect = lt_collect,
	.teardown = lt_teardown,
	.rearm = lt_rearm,
	.can_rearm = lt_can_rearm,
	.est_cost_ns = lt_est_cost_ns,
	.est_rearm_ns = lt_est_rearm_ns,
	.hooks = lt_hooks,
};
