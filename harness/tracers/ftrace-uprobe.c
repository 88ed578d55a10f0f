// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace-uprobe: a uprobe or uretprobe trace event on a function of a user-space ELF file
 * (uprobe_events, through libtracefs's dynamic events), enabled in a private instance, like
 * ftrace-events: pid filter, buffer, overwrite and consumer are the same, and so is the rearm
 * (reuse-tracers): the instance and the event stay defined across a cell's samples, only the
 * buffer is reset and the pid filter moves. The event is enabled only from start to stop, so a
 * parked tracer inserts no breakpoint anywhere.
 *
 * probe = uprobe fires at the function's entry and records its first two arguments; uretprobe
 * at its return and records the return value (fetch changes what is recorded). The default
 * target is the usercall workload's function in the workload's own executable.
 *
 * Dynamic events are global: the event TB_DYNEVENT_SYSTEM:tb_<pid>_<section> is recorded in the
 * armed record before it is created and removed at teardown on every path (after the instance
 * that enabled it: the kernel refuses to remove an event in use), and `tracebench cleanup`
 * removes what a killed run left. The kernel inserts the breakpoint into every process that maps
 * the file while the event is enabled anywhere; set_event_pid keeps the others' hits out of the
 * buffer, not out of their time.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/armed.h"
#include "host/elf-sites.h"
#include "host/tracefs.h"
#include "tracers/ftrace-common.h"
#include "tracers/tracer.h"
#include "workloads/usercall.h"

enum { PROBE_UPROBE, PROBE_URETPROBE };
static const char *const probe_choices[] = {"uprobe", "uretprobe", NULL};

/* What is recorded by default: the arguments at entry, the return value at return. */
#if defined(__x86_64__)
#define FETCH_ENTRY "a=%di:s64 b=%si:s64"
#elif defined(__aarch64__)
#define FETCH_ENTRY "a=%x0:s64 b=%x1:s64"
#else
#define FETCH_ENTRY ""
#endif
#define FETCH_RETURN "ret=$retval:s64"

struct cfg {
	int probe;
	char *binary;
	char *symbol;
	char *fetch;
	struct tb_ftrace_cfg ft;
};

struct priv {
	struct tb_ftrace ft;
	struct tracefs_dynevent *dev;
	char event[96];
	char path[PATH_MAX];
	uint64_t offset;
	bool recorded, created, enabled;
};

static const struct tb_option up_opts[] = {
	{"probe", TB_OPT_CHOICE, offsetof(struct cfg, probe), "uprobe",
	 "uprobe (function entry) or uretprobe (function return)", 0, 0, probe_choices},
	{"binary", TB_OPT_STRING, offsetof(struct cfg, binary), "",
	 "ELF file of the function (empty: the workload's executable)"},
	{"symbol", TB_OPT_STRING, offsetof(struct cfg, symbol), TB_USERCALL_SYMBOL,
	 "function to probe (default: the usercall workload's)"},
	{"fetch", TB_OPT_STRING, offsetof(struct cfg, fetch), "",
	 "fetch arguments recorded per hit (empty: the first two arguments for uprobe, $retval for "
	 "uretprobe)"},
	TB_FTRACE_EVENT_PID_OPT(struct cfg, ft),
	TB_FTRACE_BUFFER_OPTS(struct cfg, ft),
	TB_OPT_END,
};

static int up_supported(char *why, size_t len)
{
	int ret = tb_tracefs_ensure();

	if (ret) {
		snprintf(why, len, "tracefs unavailable: %s", strerror(-ret));
		return ret;
	}
	if (access(TB_TRACEFS_MOUNT "/uprobe_events", W_OK)) {
		ret = -errno;
		snprintf(why, len, "no uprobe_events in tracefs (CONFIG_UPROBE_EVENTS unset?): %s",
			 strerror(-ret));
	}
	return ret;
}

static bool name_ok(const char *s)
{
	return s && *s && strlen(s) < 200 && !strpbrk(s, " \t\n:/");
}

static int up_validate(const void *vcfg, char *err, size_t len)
{
	const struct cfg *c = vcfg;

	if (!name_ok(c->symbol)) {
		snprintf(err, len, "symbol: '%s' is not a function name",
			 c->symbol ? c->symbol : "");
		return -EINVAL;
	}
	if (c->fetch && strpbrk(c->fetch, "\n;")) {
		snprintf(err, len, "fetch: one line of fetch arguments, without ';'");
		return -EINVAL;
	}
	if (c->binary && *c->binary && access(c->binary, R_OK)) {
		snprintf(err, len, "binary: cannot read '%s': %s", c->binary, strerror(errno));
		return -EINVAL;
	}
	return 0;
}

/* The file to probe, as a real path (uprobe_events names files, not /proc links). */
static int resolve_binary(const struct tb_tracer *t, const struct cfg *c, char *out)
{
	char link[64];
	const char *p = link;

	if (c->binary && *c->binary)
		p = c->binary;
	else
		snprintf(link, sizeof(link), "/proc/%d/exe",
			 t->target > 0 ? (int)t->target : (int)getpid());
	if (!realpath(p, out)) {
		int err = -errno;
		char target[PATH_MAX];
		ssize_t n = p == link ? readlink(link, target, sizeof(target) - 1) : -1;
		const char *gone = " (deleted)";

		/* A rebuild or an upgrade mid-run: the running binary has no name left to probe. */
		if (n > (ssize_t)strlen(gone) &&
		    !memcmp(target + n - strlen(gone), gone, strlen(gone))) {
			target[n - strlen(gone)] = '\0';
			tb_err("[tracer %s] binary: %s was replaced or removed while this run went on "
			       "(rebuilt or upgraded?); a uprobe event names a file: rerun",
			       t->name, target);
		} else {
			tb_err("[tracer %s] binary: cannot resolve '%s': %s", t->name, p,
			       strerror(-err));
		}
		return err;
	}
	return 0;
}

static void up_teardown(struct tb_tracer *t);

/* Record, then create the dynamic event of p (the instance exists already). */
static int create_event(struct tb_tracer *t, const struct cfg *c, struct priv *p)
{
	const char *fetch = c->fetch && *c->fetch	  ? c->fetch
			    : c->probe == PROBE_URETPROBE ? FETCH_RETURN
							  : FETCH_ENTRY;
	int ret;

	/* t->instance: several cells of one section are kept set up at once (reuse-tracers) */
	tb_tracefs_dynevent_name(p->event, sizeof(p->event), getpid(),
				 t->instance ? t->instance : t->name);
	ret = tb_armed_add(TB_ARMED_DYNEVENT, p->event);
	if (ret) {
		tb_err("[tracer %s] cannot record dynamic event %s for crash safety: %s", t->name,
		       p->event, strerror(-ret));
		return ret;
	}
	p->recorded = true;
	p->dev = c->probe == PROBE_URETPROBE ? tracefs_uretprobe_alloc(TB_DYNEVENT_SYSTEM, p->event,
								       p->path, p->offset, fetch)
					     : tracefs_uprobe_alloc(TB_DYNEVENT_SYSTEM, p->event,
								    p->path, p->offset, fetch);
	if (!p->dev)
		return errno ? -errno : -ENOMEM;
	if (tracefs_dynevent_create(p->dev)) {
		ret = errno ? -errno : -EINVAL;
		tb_err("[tracer %s] cannot create %s %s:%s at %s:0x%llx (fetch '%s'): %s", t->name,
		       probe_choices[c->probe], TB_DYNEVENT_SYSTEM, p->event, p->path,
		       (unsigned long long)p->offset, fetch, strerror(-ret));
		return ret;
	}
	p->created = true;
	return 0;
}

static int up_setup(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	char err[PATH_MAX + 512];
	struct priv *p;
	int ret;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->priv = p;
	ret = resolve_binary(t, c, p->path);
	if (ret)
		goto err;
	ret = tb_elf_symbol_offset(p->path, c->symbol, &p->offset, err, sizeof(err));
	if (ret) {
		tb_err("[tracer %s] symbol: %s", t->name, err);
		goto err;
	}
	ret = tb_ftrace_open(&p->ft, t, &c->ft, TRACEFS_OPTION_EVENT_FORK, "set_event_pid");
	if (!ret)
		ret = create_event(t, c, p);
	if (ret)
		goto err;
	return 0;
err:
	up_teardown(t);
	return ret;
}

static int up_start(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret;

	if (!p || !p->created)
		return -EINVAL;
	ret = tb_ftrace_on(&p->ft, t);
	if (ret)
		return ret;
	if (tracefs_event_enable(p->ft.inst, TB_DYNEVENT_SYSTEM, p->event)) {
		ret = errno ? -errno : -EIO;
		tb_err("[tracer %s] cannot enable %s:%s: %s", t->name, TB_DYNEVENT_SYSTEM, p->event,
		       strerror(-ret));
		return ret;
	}
	p->enabled = true;
	return 0;
}

static int up_stop(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	char file[160];

	if (!p)
		return 0;
	/* Freeze first so the counts stop moving, then remove the breakpoints. */
	snprintf(file, sizeof(file), "events/%s/%s/enable", TB_DYNEVENT_SYSTEM, p->event);
	if (!p->enabled)
		file[0] = 0;
	p->enabled = false;
	return tb_ftrace_off(&p->ft, t, file[0] ? file : NULL, "0");
}

static int up_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;
	json_t *extra;
	int ret;

	if (!p)
		return -EINVAL;
	ret = tb_ftrace_collect(&p->ft, st, "uprobe_events", 1);
	extra = st->extra;
	if (!ret && extra) {
		json_object_set_new(extra, "probe", json_string(probe_choices[c->probe]));
		json_object_set_new(extra, "event",
				    json_sprintf("%s:%s", TB_DYNEVENT_SYSTEM, p->event));
		json_object_set_new(extra, "binary", json_string(p->path));
		json_object_set_new(extra, "offset", json_integer((json_int_t)p->offset));
	}
	return ret;
}

static void up_teardown(struct tb_tracer *t)
{
	struct priv *p = t->priv;
	int ret = 0;

	if (!p)
		return;
	/* The instance first: an event enabled anywhere cannot be removed. */
	tb_ftrace_close(&p->ft);
	if (p->created && tracefs_dynevent_destroy(p->dev, true))
		ret = errno ? -errno : -EBUSY;
	if (ret)
		tb_err("[tracer %s] cannot remove dynamic event %s:%s: %s (tracebench cleanup "
		       "retries)",
		       t->name, TB_DYNEVENT_SYSTEM, p->event, strerror(-ret));
	else if (p->recorded)
		tb_armed_remove(TB_ARMED_DYNEVENT, p->event);
	tracefs_dynevent_free(p->dev);
	free(p);
	t->priv = NULL;
}

/* tb_ftrace_rearm: the buffer reset and the pid list moved; the event and its file stay. */
static int up_rearm(struct tb_tracer *t)
{
	const struct cfg *c = t->cfg;
	struct priv *p = t->priv;

	if (!p || !p->created || p->enabled)
		return -EINVAL;
	return tb_ftrace_rearm(&p->ft, t, &c->ft, TRACEFS_OPTION_EVENT_FORK, "set_event_pid");
}

/* One event per entry (uprobe:SYMBOL) or return (uretprobe:SYMBOL), for the workload's tree. */
static int up_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct cfg *c = vcfg;
	char name[TB_EV_NAME_MAX];

	h->kind = TB_HOOK_EVENTS;
	h->scope = tb_ftrace_scope(&c->ft);
	snprintf(name, sizeof(name), "%s%s",
		 c->probe == PROBE_URETPROBE ? TB_EV_URETPROBE : TB_EV_UPROBE,
		 c->symbol ? c->symbol : "");
	return tb_hooks_add(h, name, -1, true);
}

/* "ftrace uprobe" or "ftrace uretprobe", as its probe key says. */
static void up_label(const struct tb_tracer_record *rec, char *buf, size_t len)
{
	snprintf(buf, len, "ftrace %s", tb_tracer_rec_str(rec->config, "probe") ?: "uprobe");
}

/*
 * Declared as ftrace-events declares its instance (ftrace-common.h): the instance's mechanics are
 * the same, and the uprobe event's creation, enabling and removal add less than the spread of
 * those figures. `make bench-rearm`'s ftrace-uprobe rows (METHODOLOGY.md section 9, on
 * de74f897634bca3b, 1-s samples): setup + teardown less the two 20-ms settles, 84.8 ms a sample
 * set up afresh and 58.7 ms a rearmed one, against the declared 100 and 55.
 */
static uint64_t up_est_cost_ns(const void *cfg)
{
	return tb_ftrace_est_cost_ns(&((const struct cfg *)cfg)->ft);
}

static uint64_t up_est_rearm_ns(const void *cfg)
{
	return tb_ftrace_est_rearm_ns(&((const struct cfg *)cfg)->ft);
}

static uint64_t up_est_write_bytes(const struct tb_tracer *t, bool *kept)
{
	return tb_ftrace_est_write_bytes(t, &((const struct cfg *)t->cfg)->ft, kept);
}

const struct tb_tracer_ops tb_tracer_ftrace_uprobe = {
	.name = "ftrace-uprobe",
	.help = "an ftrace uprobe or uretprobe event (uprobe_events via libtracefs) on a user-space "
		"function, default the usercall workload's, in a private tracefs instance",
	.opts = up_opts,
	.cfg_size = sizeof(struct cfg),
	.flags = TB_TR_NOSETTLE,
	.supported = up_supported,
	.validate = up_validate,
	.setup = up_setup,
	.start = up_start,
	.stop = up_stop,
	.collect = up_collect,
	.teardown = up_teardown,
	.rearm = up_rearm,
	.hooks = up_hooks,
	.label = up_label,
	.est_cost_ns = up_est_cost_ns,
	.est_write_bytes = up_est_write_bytes,
	.est_rearm_ns = up_est_rearm_ns,
};
