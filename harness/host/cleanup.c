// SPDX-License-Identifier: GPL-2.0
/* Undo what dead tracebench processes left: their armed records, then stray instances. */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs/tracefs.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tb.h"
#include "host/armed.h"
#include "host/cgroup.h"
#include "host/bpf-freeing.h"
#include "host/cleanup.h"
#include "host/tracefs.h"

#define RECORD_MAX_BYTES (16u << 20) /* an armed record is a few KiB */

struct cleanup_ctx {
	unsigned int flags;
	json_t *report;
	json_t *seen; /* "<kind> <value>" of what was acted on: each item is listed once */
	int actions, failures;
	int tracefs; /* tracefs usable: -1 not probed yet (probed when an item needs it) */
};

/* tracefs mounted (mounted now if it can be): probed once, and only when an item needs it. */
static bool tracefs_ready(struct cleanup_ctx *c)
{
	if (c->tracefs < 0)
		c->tracefs = !tb_tracefs_ensure();
	return c->tracefs;
}

/* First time this item is seen in this cleanup (a record's item is also found by the sweeps). */
static bool first_time(struct cleanup_ctx *c, const char *kind, const char *value)
{
	char key[PATH_MAX + 32];

	snprintf(key, sizeof(key), "%s %s", kind, value);
	if (!c->seen)
		c->seen = json_object();
	if (!c->seen || json_object_get(c->seen, key))
		return !c->seen;
	json_object_set_new(c->seen, key, json_true());
	return true;
}

static void note(struct cleanup_ctx *c, bool action, bool failed, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void note(struct cleanup_ctx *c, bool action, bool failed, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(c->report, json_string(buf));
	if (action)
		c->actions++;
	if (failed)
		c->failures++;
}

/*
 * One action on what (a kind, then its name): fn(what) returns 0 or -errno. Said as "would
 * <verb> <kind> <name> (why)" in a dry run, else "<done> ..." or "failed to <verb> ...: error".
 */
static void act(struct cleanup_ctx *c, int (*fn)(const char *), const char *verb, const char *done,
		const char *kind, const char *what, const char *why)
{
	int ret;

	if (!first_time(c, kind, what))
		return;
	if (c->flags & TB_CLEANUP_DRY_RUN) {
		note(c, true, false, "would %s %s %s (%s)", verb, kind, what, why);
		return;
	}
	ret = fn(what);
	if (ret)
		note(c, true, true, "failed to %s %s %s (%s): %s", verb, kind, what, why,
		     strerror(-ret));
	else
		note(c, true, false, "%s %s %s (%s)", done, kind, what, why);
}

static void clean_instance(struct cleanup_ctx *c, const char *name, const char *why)
{
	if (tracefs_instance_exists(name))
		act(c, tb_tracefs_instance_destroy_name, "destroy", "destroyed", "tracefs instance",
		    name, why);
}

static int unlink_path(const char *path)
{
	return unlink(path) ? -errno : 0;
}

/* A uprobe event of ours (after the instances that enabled it: it is busy until then). */
static void clean_dynevent(struct cleanup_ctx *c, const char *event, const char *why)
{
	bool dry = c->flags & TB_CLEANUP_DRY_RUN;
	char **names = tb_tracefs_dynevents();
	bool there = false;
	int i, ret;

	for (i = 0; names && names[i]; i++)
		there = there || !strcmp(names[i], event);
	tracefs_list_free(names);
	if (!there || !first_time(c, "dynamic event", event))
		return;
	if (dry) {
		note(c, true, false, "would remove dynamic event %s:%s (%s)", TB_DYNEVENT_SYSTEM,
		     event, why);
		return;
	}
	ret = tb_tracefs_dynevent_destroy_name(event);
	if (ret)
		note(c, true, true, "failed to remove dynamic event %s:%s (%s): %s",
		     TB_DYNEVENT_SYSTEM, event, why, strerror(-ret));
	else
		note(c, true, false, "removed dynamic event %s:%s (%s)", TB_DYNEVENT_SYSTEM, event,
		     why);
}

static pid_t proc_pgrp(pid_t pid)
{
	char path[64], buf[1024], *p;
	int pgrp = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (tb_read_line(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp" */
	if (!p || sscanf(p + 1, " %*c %*d %d", &pgrp) != 1)
		return 0;
	return pgrp;
}

static void clean_pgid(struct cleanup_ctx *c, const char *value, const char *why)
{
	bool dry = c->flags & TB_CLEANUP_DRY_RUN;
	unsigned long long st = 0;
	struct dirent *de;
	int pgid = 0, n = 0;
	DIR *d;

	if (sscanf(value, "%d:%llu", &pgid, &st) < 1 || pgid <= 1) {
		note(c, false, false, "ignored malformed process group entry '%s'", value);
		return;
	}
	/* Every process still in the group that is not younger than the recorded leader. */
	d = opendir("/proc");
	if (!d)
		return;
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		uint64_t pst;

		if (pid <= 0 || proc_pgrp(pid) != pgid)
			continue;
		pst = tb_armed_start_time(pid);
		if (pid == pgid ? pst != st : pst < st)
			continue;
		n++;
		if (!dry)
			kill(pid, SIGKILL);
	}
	closedir(d);
	if (n)
		note(c, true, false, "%s process group %d (%d process%s) (%s)",
		     dry ? "would kill" : "killed", pgid, n, n > 1 ? "es" : "", why);
}

/*
 * The kernel frees a closed BPF program asynchronously (it can stay listed for ~0.5 s after
 * its last fd closed): a program of a just-killed owner is given up to 2 s to go before it is
 * called held by someone else.
 */
static bool bpf_prog_lingers(__u32 id)
{
	uint64_t deadline = tb_now_ns() + 2000000000ull;
	int fd;

	for (;;) {
		fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			return false;
		close(fd);
		if (tb_now_ns() >= deadline)
			return true;
		tb_sleep_ns(50000000);
	}
}

/* A scratch directory /tmp/tracebench-<pid>-*: nothing else is ever removed. */
static void clean_scratch(struct cleanup_ctx *c, const char *value, const char *why)
{
	struct stat st;
	int pid;

	if (strncmp(value, "/tmp/tracebench-", 16) || strchr(value + 5, '/') ||
	    sscanf(value, "/tmp/tracebench-%d-", &pid) != 1) {
		note(c, false, false, "ignored scratch directory entry '%s': not one of ours",
		     value);
		return;
	}
	if (lstat(value, &st) || !S_ISDIR(st.st_mode))
		return;
	act(c, tb_rm_rf, "remove", "removed", "scratch directory", value, why);
}

/* A plot session's private directory <dir>/plots/.tracebench-<pid>-*: nothing else is removed. */
static void clean_plot_tmp(struct cleanup_ctx *c, const char *value, const char *why)
{
	const char *base = strrchr(value, '/');
	struct stat st;
	int pid;

	if (value[0] != '/' || !base || base - value < 6 || strncmp(base - 6, "/plots", 6) ||
	    sscanf(base + 1, ".tracebench-%d-", &pid) != 1 || strstr(value, "/../")) {
		note(c, false, false, "ignored plot directory entry '%s': not one of ours", value);
		return;
	}
	if (lstat(value, &st) || !S_ISDIR(st.st_mode))
		return;
	act(c, tb_rm_rf, "remove", "removed", "plot directory", value, why);
}

static void clean_cgroup(struct cleanup_ctx *c, const char *value, const char *why)
{
	int n;

	if (!first_time(c, "cgroup", value))
		return;
	if (c->flags & TB_CLEANUP_DRY_RUN) {
		if (!access(value, F_OK))
			note(c, true, false, "would kill what is in cgroup %s and remove it (%s)",
			     value, why);
		return;
	}
	n = tb_cgroup_remove_path(value);
	if (n == -ENOENT)
		return;
	if (n == -EINVAL)
		note(c, false, false, "ignored cgroup entry '%s': not one of ours", value);
	else if (n < 0)
		note(c, true, true, "failed to remove cgroup %s: %s", value, strerror(-n));
	else
		note(c, true, false, "removed cgroup %s (%d process%s killed) (%s)", value, n,
		     n == 1 ? "" : "es", why);
}

static void clean_bpf(struct cleanup_ctx *c, enum tb_armed_kind kind, const char *value,
		      const char *why)
{
	bool dry = c->flags & TB_CLEANUP_DRY_RUN;
	unsigned long id = strtoul(value, NULL, 10);
	int fd;

	if (kind == TB_ARMED_BPF_PIN) {
		if (!access(value, F_OK))
			act(c, unlink_path, "unlink", "unlinked", "pinned BPF object", value, why);
		return;
	}
	if (kind == TB_ARMED_BPF_PROG) {
		fd = bpf_prog_get_fd_by_id((__u32)id);
		if (fd >= 0 && !dry) {
			struct tb_bpf_obj o;

			/* Its owner died: the kernel may be freeing it right now. The next run
			 * waits for it and does not count it as foreign meanwhile. */
			if (!tb_bpf_obj_of_prog_fd(fd, &o))
				tb_bpf_freeing_note(&o, 1);
		}
		if (fd >= 0)
			close(fd);
		/* Only its holders can unload it; say so rather than pretend, once the kernel
		 * had the time to free it. */
		if (fd >= 0 && bpf_prog_lingers((__u32)id))
			note(c, false, false,
			     "BPF program %lu is still loaded after 2 s, held by another process or a pin (%s)",
			     id, why);
		return;
	}
	fd = bpf_link_get_fd_by_id((__u32)id);
	if (fd < 0)
		return;
	if (dry)
		note(c, true, false, "would detach BPF link %lu (%s)", id, why);
	else if (bpf_link_detach(fd))
		note(c, true, true, "failed to detach BPF link %lu: %s", id, strerror(errno));
	else
		note(c, true, false, "detached BPF link %lu (%s)", id, why);
	close(fd);
}

/*
 * The owner pid in an armed record's name: armed-<pid>.json, or .armed-<pid>.json.tmp-<x>, the
 * private file outdir.c writes before it renames it into place (a process killed between the
 * two leaves it). 0 for another name.
 */
static pid_t record_name_pid(const char *name, bool *tmp)
{
	int pid = 0, n = 0;

	*tmp = name[0] == '.';
	if (sscanf(name + *tmp, "armed-%d.json%n", &pid, &n) != 1 || pid <= 0)
		return 0;
	if (*tmp ? strncmp(name + 1 + n, ".tmp-", 5) != 0 : name[n] != '\0')
		return 0;
	return (pid_t)pid;
}

/* A torn or foreign armed record: dropped once the pid in its name is gone, else left. */
static void clean_torn_record(struct cleanup_ctx *c, const char *path, const char *why)
{
	const char *base = strrchr(path, '/');
	bool tmp;
	pid_t fpid = record_name_pid(base ? base + 1 : path, &tmp);

	if (fpid > 0 && tb_armed_owner_alive(fpid, 0))
		note(c, false, false, "ignored unreadable armed record %s", path);
	else if (c->flags & TB_CLEANUP_DRY_RUN)
		note(c, true, false, "would remove unreadable armed record %s", path);
	else if (unlink(path) && errno != ENOENT)
		note(c, true, true, "failed to remove unreadable armed record %s: %s", path,
		     strerror(errno));
	else
		note(c, true, false, "removed unreadable armed record %s (%s)", path, why);
}

static void clean_record(struct cleanup_ctx *c, const char *path)
{
	json_error_t jerr = {0};
	json_t *root, *items, *it;
	json_int_t pid, st;
	char why[96], *text = NULL;
	size_t len = 0;
	bool alive;
	size_t i;

	/* Through the one opener: a FIFO or a link planted in the state directory is not read. */
	root = tb_read_regular(path, RECORD_MAX_BYTES, &text, &len)
		       ? NULL
		       : json_loadb(text, len, 0, &jerr);
	free(text);
	if (!root ||
	    json_unpack(root, "{s:I, s:I, s:o}", "pid", &pid, "start_time", &st, "items", &items) ||
	    !json_is_array(items)) {
		json_decref(root);
		clean_torn_record(c, path, jerr.text[0] ? jerr.text : "wrong fields");
		return;
	}
	if ((pid_t)pid == getpid())
		goto out;
	alive = tb_armed_owner_alive((pid_t)pid, (uint64_t)st);
	if (alive && !(c->flags & TB_CLEANUP_ALL))
		goto out;
	snprintf(why, sizeof(why), "owner pid %lld %s", (long long)pid, alive ? "alive" : "dead");
	json_array_foreach(items, i, it)
	{
		const char *k = json_string_value(json_object_get(it, "kind"));
		const char *v = json_string_value(json_object_get(it, "value"));
		int kind = k ? tb_armed_kind_from_name(k) : -1;

		if (kind < 0 || !v)
			continue;
		switch (kind) {
		case TB_ARMED_INSTANCE:
			if (tracefs_ready(c))
				clean_instance(c, v, why);
			break;
		case TB_ARMED_PGID:
			clean_pgid(c, v, why);
			break;
		case TB_ARMED_SCRATCH:
			clean_scratch(c, v, why);
			break;
		case TB_ARMED_CGROUP:
			clean_cgroup(c, v, why);
			break;
		case TB_ARMED_PLOT_TMP:
			clean_plot_tmp(c, v, why);
			break;
		case TB_ARMED_DYNEVENT:
			if (tracefs_ready(c))
				clean_dynevent(c, v, why);
			break;
		default:
			clean_bpf(c, (enum tb_armed_kind)kind, v, why);
			break;
		}
	}
	if (!alive && !(c->flags & TB_CLEANUP_DRY_RUN)) {
		if (unlink(path) && errno != ENOENT)
			note(c, false, true, "failed to remove armed record %s: %s", path,
			     strerror(errno));
		else
			note(c, false, false, "removed armed record %s", path);
	}
out:
	json_decref(root);
}

/*
 * Of names (a tracefs list, freed here), those whose owner (owner_of) is dead, or alive with
 * TB_CLEANUP_ALL, and not us: clean each.
 */
static void sweep(struct cleanup_ctx *c, char **names, pid_t (*owner_of)(const char *),
		  void (*clean)(struct cleanup_ctx *, const char *, const char *))
{
	char why[96];
	pid_t owner;
	bool alive;
	int i;

	for (i = 0; names && names[i]; i++) {
		owner = owner_of(names[i]);
		if (!owner || owner == getpid())
			continue;
		alive = tb_armed_owner_alive(owner, 0);
		if (alive && !(c->flags & TB_CLEANUP_ALL))
			continue;
		snprintf(why, sizeof(why), "owner pid %d %s", (int)owner, alive ? "alive" : "dead");
		clean(c, names[i], why);
	}
	tracefs_list_free(names);
}

static void stale_cgroup(void *ctx, const char *path, int pid)
{
	char why[96];

	snprintf(why, sizeof(why), "owner pid %d dead", pid);
	clean_cgroup(ctx, path, why);
}

/*
 * What dead owners made but no record names (killed between making it and recording it, or
 * records of a state directory that is gone): /tmp/tracebench-<pid>-* scratch and report
 * directories of dead pids, and cgroups tracebench-<pid>-* of dead pids.
 */
static void clean_unrecorded(struct cleanup_ctx *c)
{
	struct dirent *de;
	char path[PATH_MAX], why[96];
	DIR *d = opendir("/tmp");
	int pid;

	while (d && (de = readdir(d))) {
		if (de->d_type != DT_DIR || sscanf(de->d_name, "tracebench-%d-", &pid) != 1 ||
		    pid <= 0 || pid == getpid() || tb_armed_owner_alive(pid, 0))
			continue;
		snprintf(path, sizeof(path), "/tmp/%s", de->d_name);
		snprintf(why, sizeof(why), "owner pid %d dead", pid);
		clean_scratch(c, path, why);
	}
	if (d)
		closedir(d);
	tb_cgroup_foreach_stale(stale_cgroup, c);
}

/* The report handed out (or dropped), the result as tb_cleanup_stale() returns it. */
static int finish(struct cleanup_ctx *c, json_t **report)
{
	json_decref(c->seen);
	if (report)
		*report = c->report;
	else
		json_decref(c->report);
	return c->failures ? -EIO : c->actions;
}

int tb_cleanup_stale(unsigned int flags, json_t **report)
{
	struct cleanup_ctx c = {.flags = flags, .tracefs = -1};
	struct dirent *de;
	char path[4096];
	DIR *d;

	c.report = report && *report ? *report : json_array();
	if (!c.report)
		return -ENOMEM;
	d = opendir(tb_state_dir());
	if (d) {
		/*
		 * A half-written record (.armed-<pid>.json.tmp-<x>) is read like a whole one: when
		 * its owner died after writing it, it names what was armed; when torn, it goes.
		 */
		while ((de = readdir(d))) {
			bool tmp;
			pid_t owner = record_name_pid(de->d_name, &tmp);

			if (!owner || (tmp && owner == getpid()))
				continue;
			snprintf(path, sizeof(path), "%s/%s", tb_state_dir(), de->d_name);
			clean_record(&c, path);
		}
		closedir(d);
	}
	/* Instances of dead owners that no record names (killed between mkdir and record). */
	if (tracefs_ready(&c))
		sweep(&c, tracefs_instances(NULL), tb_tracefs_instance_owner, clean_instance);
	/* Dynamic events of dead owners that no record names, once their instances are gone. */
	if (tracefs_ready(&c))
		sweep(&c, tb_tracefs_dynevents(), tb_tracefs_dynevent_owner, clean_dynevent);
	clean_unrecorded(&c);
	return finish(&c, report);
}

int tb_cleanup_reaped(pid_t pid)
{
	struct cleanup_ctx c = {.tracefs = -1};
	struct dirent *de;
	char path[4096];
	json_t *it;
	bool tmp;
	size_t i;
	DIR *d;
	int ret;

	if (pid <= 0 || pid == getpid())
		return 0;
	c.report = json_array();
	if (!c.report)
		return -ENOMEM;
	/* Its record, and what it was writing when it was killed (.armed-<pid>.json.tmp-<x>). */
	d = opendir(tb_state_dir());
	while (d && (de = readdir(d))) {
		if (record_name_pid(de->d_name, &tmp) != pid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tb_state_dir(), de->d_name);
		clean_record(&c, path);
	}
	if (d)
		closedir(d);
	json_array_foreach(c.report, i, it)
		tb_debug("cleanup of reaped pid %d: %s", (int)pid, json_string_value(it));
	ret = finish(&c, NULL);
	if (ret < 0)
		tb_warn("cannot undo all that process %d left (tracebench cleanup retries): %s",
			(int)pid, strerror(-ret));
	return ret;
}
