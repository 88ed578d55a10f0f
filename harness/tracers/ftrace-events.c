// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace trace events (libtracefs), in a private instance: made for the cell's first sample and
 * reset exactly between its samples (rearm), or made fresh for every sample (reuse-tracers = false).
 *
 * events:  system:event items, globs allowed in both parts (syscalls:sys_enter_*, sched:*).
 * filter:  one filter expression applied to every listed event (e.g. "id == 39" for
 *          raw_syscalls:sys_enter); an event lacking a field the expression names fails setup
 *          with a message naming the event. For different filters per event, use several
 *          tracer sections.
 * pid-filter = workload: set_event_pid holds the workload's threads, and event-fork makes
 *          the kernel follow threads and children created later.
 * consumer = discard: the ring buffer only fills (what a triggered snapshot costs);
 *          stream: a reader thread drains every CPU's trace_pipe_raw into <outdir>/<name>.raw,
 *          as a recording session does; its CPU time is the tracer's cpu_s.
 */
#include <errno.h>
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>

#include "core/tb.h"
#include "host/tracefs.h"
#include "tracers/ftrace-common.h"
#include "tracers/tracer.h"

struct cfg {
	struct tb_strlist events;
	unsigned int probes; /* the first N of the expanded events, 0: all */
	char *filter;
	struct tb_ftrace_cfg ft;
};

struct priv {
	struct tb_ftrace ft;
	struct tb_strlist events; /* expanded */
	bool enabled;
};

static const struct tb_option ev_opts[] = {
	{"events", TB_OPT_LIST, offsetof(struct cfg, events), NULL,
	 "events to enable: system:event, globs allowed (syscalls:sys_enter_*)"},
	{"probes", TB_OPT_UINT, offsetof(struct cfg, probes), "0",
	 "enable only the first N of the events (after globs are expanded, sorted by name; "
	 "0: all): a sweep over it prices each added tracepoint",
	 0, 4096},
	{"filter", TB_OPT_STRING, offsetof(struct cfg, filter), NULL,
	 "filter expression applied to every listed event (e.g. 'id == 39')"},
	TB_FTRACE_EVENT_PID_OPT(struct cfg, ft),
	TB_FTRACE_BUFFER_OPTS(struct cfg, ft),
	TB_OPT_END,
};

static int ev_supported(char *why, size_t len)
{
	int ret = tb_tracefs_ensure();

	if (ret)
		snprintf(why, len, "tracefs unavailable: %s", strerror(-ret));
	return ret;
}

/* The events c enables: its list with globs expanded, cut to the first `probes` of them.
 * Returns 0 or -errno with msg saying why (for `probes`: more than the list gives). */
static int expand(const struct cfg *c, struct tb_strlist *out, char *msg, size_t len)
{
	int ret = tb_tracefs_events_expand(&c->events, out, msg, len);

	if (ret || !c->probes)
		return ret;
	if (c->probes > out->n) {
		snprintf(msg, len, "probes: %u is more than the %zu events 'events' gives",
			 c->probes, out->n);
		tb_strlist_free(out);
		return -EINVAL;
	}
	for (size_t i = c->probes; i < out->n; i++)
		free(out->v[i]);
	out->n = c->probes;
	return 0;
}

static int ev_validate(const void *vcfg, char *err, size_t len)
{
	const struct cfg *c = vcfg;
	struct tb_strlist ex;
	char msg[256];
	int ret;

	if (!c->events.n) {
		snprintf(err, len, "events: at least one event is needed");
		return -EINVAL;
	}
	if (c->filter && !*c->filter) {
		snprintf(err, len, "filter: empty expression");
		return -EINVAL;
	}
	ret = expand(c, &ex, msg, sizeof(msg));
	if (ret) {
		snprintf(err, len, "%s%s", strncmp(msg, "probes:", 7) ? "events: " : "", msg);
		return -EINVAL;
	}
	tb_strlist_free(&ex);
	return 0;
}

/* The kernel leaves the parser's complaint in the filter file; its last line is the reason. */
static void filter_reason(struct tracefs_instance *inst, const char *sys, const char *ev, char *buf,
			  size_t len)
{
	char *text = tracefs_event_file_read(inst, sys, ev, "filter", NULL), *p, *last = NULL;

	snprintf(buf, len, "invalid expression");
	for (p = text ? strtok(text, "\n") : NULL; p; p = strtok(NULL, "\n"))
		if (strstr(p, "error") || strstr(p, "Error"))
			last = p;
	if (last)
		snprintf(buf, len, "%s", last);
	free(text);
}

static void ev_teardown(struct tb_tracer *t);

static int ev_setup(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	struct priv *p;
	char msg[256];
	size_t i;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->priv = p;
	ret = expand(c, &p->events, msg, sizeof(msg));
	if (ret) {
		tb_err("[tracer %s] %s", t->name, msg);
		goto err;
	}
	ret = tb_ftrace_open(&p->ft, t, &c->ft, TRACEFS_OPTION_EVENT_FORK, "set_event_pid");
	if (ret)
		goto err;
	for (i = 0; c->filter && i < p->events.n; i++) {
		char sys[256], *ev;

		snprintf(sys, sizeof(sys), "%s", p->events.v[i]);
		ev = strchr(sys, ':');
		*ev++ = '\0';
		if (tracefs_event_file_write(p->ft.inst, sys, ev, "filter", c->filter) < 0) {
			ret = errno ? -errno : -EINVAL;
			filter_reason(p->ft.inst, sys, ev, msg, sizeof(msg));
			tb_err("[tracer %s] filter: bad expression '%s' for event %s: %s", t->name,
			       c->filter, p->events.v[i], msg);
			goto err;
		}
	}
	return 0;
err:
	ev_teardown(t);
	return ret;
}

static int set_events(struct tb_tracer *t, const char *val)
{
	struct priv *p = t->priv;
	size_t i;

	for (i = 0; i < p->events.n; i++) {
		char sys[256], *ev;

		snprintf(sys, sizeof(sys), "%s", p->events.v[i]);
		ev = strchr(sys, ':');
		*ev++ = '\0';
		if (tracefs_event_file_write(p->ft.inst, sys, ev, "enable", val) < 0) {
			int ret = errno ? -errno : -EIO;

			tb_err("[tracer %s] cannot write %s to the enable file of %s: %s", t->name,
			       val, p->events.v[i], strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static int ev_start(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret;

	ret = tb_ftrace_on(&p->ft, t);
	if (ret)
		return ret;
	p->enabled = true;
	return set_events(t, "1");
}

static int ev_stop(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	bool enabled;

	if (!p)
		return 0;
	/* Freeze first so the counts stop moving, then detach the probes. */
	enabled = p->enabled;
	p->enabled = false;
	return tb_ftrace_off(&p->ft, t, enabled ? "events/enable" : NULL, "0");
}

static int ev_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	struct priv *p = t->priv;

	if (!p)
		return -EINVAL;
	return tb_ftrace_collect(&p->ft, st, "events_enabled", (int64_t)p->events.n);
}

static void ev_teardown(struct tb_tracer *t)
{
	struct priv *p = t->priv;

	if (!p)
		return;
	tb_ftrace_close(&p->ft);
	tb_strlist_free(&p->events);
	free(p);
	t->priv = NULL;
}

static int ev_rearm(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;

	if (!p)
		return -EINVAL;
	return tb_ftrace_rearm(&p->ft, t, &c->ft, TRACEFS_OPTION_EVENT_FORK, "set_event_pid");
}

static uint64_t ev_est_write_bytes(const struct tb_tracer *t, bool *kept)
{
	return tb_ftrace_est_write_bytes(t, &((const struct cfg *)t->cfg)->ft, kept);
}

static uint64_t ev_est_cost_ns(const void *cfg)
{
	return tb_ftrace_est_cost_ns(&((const struct cfg *)cfg)->ft);
}

static uint64_t ev_est_rearm_ns(const void *cfg)
{
	return tb_ftrace_est_rearm_ns(&((const struct cfg *)cfg)->ft);
}

/*
 * The syscall numbers a raw_syscalls filter keeps, when it is "id == N" alternatives joined by
 * "||" (what a user writes to trace one syscall system-wide); -EINVAL for anything else.
 */
static int filter_ids(const char *filter, long *ids, size_t max, size_t *n)
{
	char *copy = strdup(filter), *part, *save = NULL, *end;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	*n = 0;
	for (part = strtok_r(copy, "|", &save); part && !ret; part = strtok_r(NULL, "|", &save)) {
		while (*part == ' ' || *part == '(')
			part++;
		if (strncmp(part, "id", 2) || *n >= max) {
			ret = -EINVAL;
			break;
		}
		part += 2;
		while (*part == ' ')
			part++;
		if (strncmp(part, "==", 2)) {
			ret = -EINVAL;
			break;
		}
		ids[*n] = strtol(part + 2, &end, 10);
		while (*end == ' ' || *end == ')')
			end++;
		if (end == part + 2 || *end)
			ret = -EINVAL;
		(*n)++;
	}
	free(copy);
	return ret || !*n ? -EINVAL : 0;
}

/*
 * Every enabled event runs the tracer; the pid filter decides whose. A raw_syscalls filter of
 * "id == N" keeps syscall N; any other filter makes the expectation an upper bound.
 */
static int ev_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct cfg *c = vcfg;
	struct tb_strlist ex = {0};
	const struct tb_strlist *evs = &c->events;
	long ids[16];
	size_t i, j, nids = 0;
	bool by_id = false;
	char msg[256];
	int ret = 0;

	h->kind = TB_HOOK_EVENTS;
	h->scope = tb_ftrace_scope(&c->ft);
	if (!expand(c, &ex, msg, sizeof(msg)))
		evs = &ex;
	if (c->filter)
		by_id = !filter_ids(c->filter, ids, TB_ARRAY_SIZE(ids), &nids);
	for (i = 0; !ret && i < evs->n; i++) {
		bool raw = !strncmp(evs->v[i], "raw_syscalls:", 13);

		if (c->filter && !(raw && by_id))
			h->filtered = true;
		if (!(raw && by_id))
			ret = tb_hooks_add(h, evs->v[i], -1, true);
		for (j = 0; !ret && raw && by_id && j < nids; j++)
			ret = tb_hooks_add(h, evs->v[i], (int)ids[j], true);
	}
	tb_strlist_free(&ex);
	return ret;
}

/* "ftrace <first event>", with " +" when there are more; the type name without events. */
static void ev_label(const struct tb_tracer_record *rec, char *buf, size_t len)
{
	json_t *ev = rec->config ? json_object_get(rec->config, "events") : NULL;

	if (json_is_array(ev) && json_array_size(ev))
		snprintf(buf, len, "ftrace %s%s", json_string_value(json_array_get(ev, 0)) ?: "?",
			 json_array_size(ev) > 1 ? " +" : "");
}

const struct tb_tracer_ops tb_tracer_ftrace_events = {
	.name = "ftrace-events",
	.help = "ftrace trace events in a private tracefs instance (libtracefs)",
	.opts = ev_opts,
	.cfg_size = sizeof(struct cfg),
	.flags = TB_TR_NOSETTLE,
	.supported = ev_supported,
	.validate = ev_validate,
	.setup = ev_setup,
	.start = ev_start,
	.stop = ev_stop,
	.collect = ev_collect,
	.teardown = ev_teardown,
	.rearm = ev_rearm,
	.est_cost_ns = ev_est_cost_ns,
	.est_write_bytes = ev_est_write_bytes,
	.est_rearm_ns = ev_est_rearm_ns,
	.hooks = ev_hooks,
	.label = ev_label,
	.lost_remedy = tb_ftrace_lost_remedy,
	.buffer_key = tb_ftrace_buffer_key,
};
