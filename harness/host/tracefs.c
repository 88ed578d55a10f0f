// SPDX-License-Identifier: GPL-2.0
/* tracefs for tracebench: mount, private instances, event expansion, pid files. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "core/proctree.h"
#include "core/tb.h"
#include "host/armed.h"
#include "host/tracefs.h"

static pthread_mutex_t mount_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * libtracefs reports through this weak symbol; ours routes it into our log, at debug level
 * since every failure that matters is reported by the caller with more context.
 */
void tracefs_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tracefs_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tb_vlog(TB_LOG_DEBUG, fmt, ap);
	va_end(ap);
}

static bool tracefs_mounted(void)
{
	FILE *f = tb_fopen_input("/proc/mounts", TB_INPUT_FOLLOW);
	char dev[256], dir[4096], type[64];
	bool found = false;

	if (!f)
		return false;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "tracefs"))
			found = true;
	fclose(f);
	return found;
}

int tb_tracefs_ensure(void)
{
	static bool ok;
	int ret = 0;

	pthread_mutex_lock(&mount_lock);
	if (ok || tracefs_mounted())
		goto done;
	if (mount("nodev", TB_TRACEFS_MOUNT, "tracefs", 0, NULL) && !tracefs_mounted()) {
		ret = -errno;
		tb_err("tracefs is not mounted and mounting it at %s failed: %s", TB_TRACEFS_MOUNT,
		       strerror(errno));
		goto out;
	}
	tb_info("tracefs was not mounted: mounted it at %s", TB_TRACEFS_MOUNT);
done:
	if (!tracefs_tracing_dir()) {
		ret = -ENODEV;
		tb_err("tracefs: libtracefs cannot find the tracing directory");
		goto out;
	}
	ok = true;
out:
	pthread_mutex_unlock(&mount_lock);
	return ret;
}

void tb_tracefs_instance_name(char *buf, size_t len, pid_t owner, const char *section)
{
	size_t n, i;

	n = (size_t)snprintf(buf, len, TB_INSTANCE_PREFIX "%d-", (int)owner);
	for (i = 0; section && section[i] && n + 1 < len && n < 200; i++, n++) {
		unsigned char ch = (unsigned char)section[i];

		buf[n] = (isalnum(ch) || ch == '-' || ch == '_' || ch == '.') ? (char)ch : '_';
	}
	if (n < len)
		buf[n] = '\0';
}

pid_t tb_tracefs_instance_owner(const char *name)
{
	const char *p;
	char *end;
	long v;

	if (strncmp(name, TB_INSTANCE_PREFIX, strlen(TB_INSTANCE_PREFIX)))
		return 0;
	p = name + strlen(TB_INSTANCE_PREFIX);
	if (!isdigit((unsigned char)*p))
		return 0;
	v = strtol(p, &end, 10);
	if (*end != '-' || v <= 0 || v > 0x7fffffff)
		return 0;
	return (pid_t)v;
}

int tb_tracefs_instance_new(const char *section, struct tracefs_instance **out)
{
	struct tracefs_instance *inst;
	char name[256];
	int ret;

	*out = NULL;
	ret = tb_tracefs_ensure();
	if (ret)
		return ret;
	tb_tracefs_instance_name(name, sizeof(name), getpid(), section);
	if (tracefs_instance_exists(name)) {
		tb_err("tracefs instance %s exists already", name);
		return -EEXIST;
	}
	ret = tb_armed_add(TB_ARMED_INSTANCE, name);
	if (ret)
		return ret;
	inst = tracefs_instance_create(name);
	if (!inst) {
		ret = errno ? -errno : -ENOMEM;
		tb_err("cannot create tracefs instance %s: %s", name, strerror(-ret));
		tb_armed_remove(TB_ARMED_INSTANCE, name);
		return ret;
	}
	*out = inst;
	return 0;
}

/* Switch everything in the instance off, then rmdir it (retried: readers may be closing). */
static int instance_destroy(struct tracefs_instance *inst)
{
	int tries, ret = 0;

	tracefs_trace_off(inst);
	tracefs_instance_file_write(inst, "events/enable", "0");
	tracefs_instance_file_write(inst, "current_tracer", "nop");
	for (tries = 0; tries < 5; tries++) {
		if (!tracefs_instance_destroy(inst) || errno == ENOENT)
			return 0;
		ret = -errno;
		usleep(20000);
	}
	return ret;
}

int tb_tracefs_instance_remove(struct tracefs_instance **inst)
{
	char name[256];
	int ret;

	if (!inst || !*inst)
		return 0;
	snprintf(name, sizeof(name), "%s", tracefs_instance_get_name(*inst));
	ret = instance_destroy(*inst);
	tracefs_instance_free(*inst);
	*inst = NULL;
	if (ret) {
		/* Stays in the armed record so that cleanup retries once we are gone. */
		tb_err("cannot remove tracefs instance %s: %s", name, strerror(-ret));
		return ret;
	}
	tb_armed_remove(TB_ARMED_INSTANCE, name);
	return 0;
}

int tb_tracefs_instance_destroy_name(const char *name)
{
	struct tracefs_instance *inst;
	int ret;

	if (!tracefs_instance_exists(name))
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return errno ? -errno : -ENOMEM;
	ret = instance_destroy(inst);
	tracefs_instance_free(inst);
	return ret;
}

/* ---- dynamic events --------------------------------------------------------------------- */

void tb_tracefs_dynevent_name(char *buf, size_t len, pid_t owner, const char *section)
{
	size_t n, i;

	n = (size_t)snprintf(buf, len, TB_DYNEVENT_PREFIX "%d_", (int)owner);
	for (i = 0; section && section[i] && n + 1 < len && n < 60; i++, n++) {
		unsigned char ch = (unsigned char)section[i];

		buf[n] = isalnum(ch) ? (char)ch : '_';
	}
	if (n < len)
		buf[n] = '\0';
}

pid_t tb_tracefs_dynevent_owner(const char *event)
{
	const char *p;
	char *end;
	long v;

	if (strncmp(event, TB_DYNEVENT_PREFIX, strlen(TB_DYNEVENT_PREFIX)))
		return 0;
	p = event + strlen(TB_DYNEVENT_PREFIX);
	if (!isdigit((unsigned char)*p))
		return 0;
	v = strtol(p, &end, 10);
	if (*end != '_' || v <= 0 || v > 0x7fffffff)
		return 0;
	return (pid_t)v;
}

#define TB_UPROBE_TYPES (TRACEFS_DYNEVENT_UPROBE | TRACEFS_DYNEVENT_URETPROBE)

char **tb_tracefs_dynevents(void)
{
	struct tracefs_dynevent **all =
		tracefs_dynevent_get_all(TB_UPROBE_TYPES, TB_DYNEVENT_SYSTEM);
	char **names = NULL, *ev;
	size_t i;

	for (i = 0; all && all[i]; i++) {
		ev = NULL;
		tracefs_dynevent_info(all[i], NULL, &ev, NULL, NULL, NULL);
		if (ev)
			names = tracefs_list_add(names, ev);
		free(ev);
	}
	tracefs_dynevent_list_free(all);
	return names;
}

int tb_tracefs_dynevent_destroy_name(const char *event)
{
	struct tracefs_dynevent **all =
		tracefs_dynevent_get_all(TB_UPROBE_TYPES, TB_DYNEVENT_SYSTEM);
	int ret = 0;
	size_t i;
	char *ev;

	for (i = 0; all && all[i]; i++) {
		ev = NULL;
		tracefs_dynevent_info(all[i], NULL, &ev, NULL, NULL, NULL);
		if (ev && !strcmp(ev, event) && tracefs_dynevent_destroy(all[i], true))
			ret = errno ? -errno : -EBUSY;
		free(ev);
	}
	tracefs_dynevent_list_free(all);
	return ret;
}

/* ---- events ----------------------------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int strlist_push(struct tb_strlist *l, char *s)
{
	char **v;

	if (!s)
		return -ENOMEM;
	v = realloc(l->v, (l->n + 2) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	l->v = v;
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
	return 0;
}

int tb_tracefs_events_expand(const struct tb_strlist *specs, struct tb_strlist *out, char *err,
			     size_t errlen)
{
	char **systems = NULL, *sys = NULL, *ev;
	size_t i, j, k, w;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = tb_tracefs_ensure();
	if (ret) {
		snprintf(err, errlen, "tracefs unavailable: %s", strerror(-ret));
		return ret;
	}
	systems = tracefs_event_systems(NULL);
	if (!systems) {
		snprintf(err, errlen, "cannot list event systems in tracefs");
		return -ENOENT;
	}
	for (i = 0; i < specs->n; i++) {
		size_t before = out->n;

		free(sys);
		sys = strdup(specs->v[i]);
		if (!sys) {
			ret = -ENOMEM;
			goto out;
		}
		ev = strchr(sys, ':');
		if (!ev || !ev[1] || ev == sys) {
			snprintf(err, errlen, "bad event '%s': expected system:event", specs->v[i]);
			ret = -EINVAL;
			goto out;
		}
		*ev++ = '\0';
		for (j = 0; systems[j]; j++) {
			char **events;

			if (fnmatch(sys, systems[j], 0))
				continue;
			events = tracefs_system_events(NULL, systems[j]);
			for (k = 0; events && events[k]; k++) {
				char *full;

				if (fnmatch(ev, events[k], 0))
					continue;
				if (asprintf(&full, "%s:%s", systems[j], events[k]) < 0)
					full = NULL;
				ret = strlist_push(out, full);
				if (ret) {
					tracefs_list_free(events);
					goto out;
				}
			}
			tracefs_list_free(events);
		}
		if (out->n == before) {
			snprintf(err, errlen, "unknown event '%s'", specs->v[i]);
			ret = -ENOENT;
			goto out;
		}
	}
	if (out->n) {
		qsort(out->v, out->n, sizeof(*out->v), cmp_str);
		for (i = 1, w = 1; i < out->n; i++) {
			if (strcmp(out->v[i], out->v[w - 1]))
				out->v[w++] = out->v[i];
			else
				free(out->v[i]);
		}
		out->n = w;
		out->v[w] = NULL;
	}
	ret = 0;
out:
	free(sys);
	tracefs_list_free(systems);
	if (ret)
		tb_strlist_free(out);
	return ret;
}

/* The thread ids of process pid, each followed by a space, onto m. 0, or -errno (said); a
 * process that is gone (ENOENT) is no error unless must: a server's worker may exit between
 * the tree's listing and this. */
static int put_threads(FILE *m, const char *file, pid_t pid, bool must)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) {
		int ret = -errno;

		if (ret == -ENOENT && !must)
			return 0;
		tb_err("%s: cannot list the threads of pid %d: %s", file, (int)pid, strerror(-ret));
		return ret;
	}
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			fprintf(m, "%s ", de->d_name);
	closedir(d);
	return 0;
}

int tb_tracefs_set_pids(struct tracefs_instance *inst, const char *file, pid_t pid, bool tree)
{
	pid_t *kin = NULL;
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *m;
	int ret;

	/* A server forked its workers before the tracer: they are followed too. */
	ret = tree ? tb_proc_tree(pid, &kin, &n) : 0;
	if (ret) {
		tb_err("%s: cannot list the descendants of pid %d: %s", file, (int)pid,
		       strerror(-ret));
		return ret;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		free(kin);
		return -ENOMEM;
	}
	ret = put_threads(m, file, pid, true);
	for (size_t i = 0; !ret && i < n; i++)
		if (kin[i] != pid)
			ret = put_threads(m, file, kin[i], false);
	free(kin);
	fputc('\n', m);
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	if (!ret && tracefs_instance_file_write(inst, file, buf) < 0) {
		ret = errno ? -errno : -EIO;
		tb_err("writing '%s' to %s of instance %s: %s", buf, file,
		       tracefs_instance_get_name(inst), strerror(-ret));
	}
	free(buf);
	return ret;
}

int tb_tracefs_event_id(const char *name, uint64_t *id, char *err, size_t len)
{
	static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[512], line[32], sys[256];
	const char *colon = strchr(name, ':');
	size_t i, n = colon ? (size_t)(colon - name) : 0;
	int ret = -ENOENT;

	/* a name is outside input: no path walks out of events/ */
	if (!n || n >= sizeof(sys) || !colon[1] || strchr(colon + 1, '/') || strchr(name, '/') ||
	    strstr(name, "..")) {
		snprintf(err, len, "unknown tracepoint '%s' (a tracepoint is system:event)", name);
		return -ENOENT;
	}
	memcpy(sys, name, n);
	sys[n] = '\0';
	for (i = 0; i < TB_ARRAY_SIZE(roots); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i], sys, colon + 1);
		ret = tb_read_line(path, line, sizeof(line));
		if (!ret)
			break;
	}
	if (ret) {
		if (access("/sys/kernel/tracing/events", F_OK))
			snprintf(err, len, "tracepoint '%s': tracefs is not mounted", name);
		else
			snprintf(err, len, "unknown tracepoint '%s' (no %s)", name, path);
		return -ENOENT;
	}
	*id = strtoull(line, NULL, 10);
	return 0;
}
