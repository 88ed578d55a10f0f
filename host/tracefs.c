// SPDX-License-Identifier: GPL-2.0
/* Shared tracefs helpers: mount, private instances, events, buffer stats, streaming, state. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <time.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "host/armed.h"
#include "core/tb.h"
#include "host/tracefs.h"
#include "tracers/tracer.h"

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
	FILE *f = fopen("/proc/mounts", "re");
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

int tb_tracefs_set_pids(struct tracefs_instance *inst, const char *file, pid_t pid)
{
	char path[64], *buf = NULL;
	size_t len = 0;
	struct dirent *de;
	FILE *m;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d) {
		ret = -errno;
		tb_err("%s: cannot list the threads of pid %d: %s", file, (int)pid,
		       strerror(errno));
		return ret;
	}
	m = open_memstream(&buf, &len);
	if (!m) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]))
			fprintf(m, "%s ", de->d_name);
	closedir(d);
	fputc('\n', m);
	if (fclose(m)) {
		free(buf);
		return -ENOMEM;
	}
	if (tracefs_instance_file_write(inst, file, buf) < 0) {
		ret = errno ? -errno : -EIO;
		tb_err("writing '%s' to %s of instance %s: %s", buf, file,
		       tracefs_instance_get_name(inst), strerror(-ret));
	}
	free(buf);
	return ret;
}

/* ---- buffer statistics ------------------------------------------------------------------ */

static int64_t stat_field(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoll(p + klen + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

int tb_ftrace_bufstats_read(struct tracefs_instance *inst, struct tb_ftrace_bufstats *st,
			    json_t **percpu)
{
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	json_t *arr = percpu ? json_array() : NULL;

	memset(st, 0, sizeof(*st));
	for (cpu = 0; cpu < ncpus; cpu++) {
		char file[64], *text;
		struct tb_ftrace_bufstats c;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/stats", cpu);
		text = tracefs_instance_file_read(inst, file, NULL);
		if (!text)
			continue;
		c.entries = stat_field(text, "entries");
		c.overrun = stat_field(text, "overrun");
		c.commit_overrun = stat_field(text, "commit overrun");
		c.dropped = stat_field(text, "dropped events");
		c.read = stat_field(text, "read events");
		c.bytes = stat_field(text, "bytes");
		free(text);
		st->entries += c.entries;
		st->overrun += c.overrun;
		st->commit_overrun += c.commit_overrun;
		st->dropped += c.dropped;
		st->read += c.read;
		st->bytes += c.bytes;
		st->ncpus++;
		if (arr)
			json_array_append_new(
				arr, json_pack("{s:i, s:I, s:I, s:I, s:I, s:I}", "cpu", (int)cpu,
					       "entries", (json_int_t)c.entries, "overrun",
					       (json_int_t)c.overrun, "dropped",
					       (json_int_t)c.dropped, "read", (json_int_t)c.read,
					       "commit_overrun", (json_int_t)c.commit_overrun));
	}
	if (percpu)
		*percpu = arr;
	if (!st->ncpus) {
		tb_err("instance %s: no per_cpu/cpuN/stats readable",
		       tracefs_instance_get_name(inst));
		return -ENOENT;
	}
	return 0;
}

int tb_ftrace_instance_config(struct tracefs_instance *inst, uint64_t buffer_size, bool overwrite)
{
	const char *name = tracefs_instance_get_name(inst);
	char kb[32];

	if (tracefs_trace_off(inst)) {
		tb_err("instance %s: cannot write tracing_on: %s", name, strerror(errno));
		return errno ? -errno : -EIO;
	}
	if (buffer_size) {
		snprintf(kb, sizeof(kb), "%llu", (unsigned long long)((buffer_size + 1023) / 1024));
		if (tracefs_instance_file_write(inst, "buffer_size_kb", kb) < 0) {
			tb_err("buffer-size: cannot set %s KiB per CPU in instance %s: %s", kb,
			       name, strerror(errno));
			return errno ? -errno : -EIO;
		}
	}
	if ((overwrite ? tracefs_option_enable
		       : tracefs_option_disable)(inst, TRACEFS_OPTION_OVERWRITE)) {
		tb_err("overwrite: cannot set the option in instance %s: %s", name,
		       strerror(errno));
		return errno ? -errno : -EIO;
	}
	return 0;
}

int tb_ftrace_collect(struct tracefs_instance *inst, struct tb_tracer_stats *st, json_t *extra,
		      const struct tb_ftrace_consumer *cons)
{
	struct tb_ftrace_bufstats bs;
	json_t *percpu = NULL;
	long long kb = 0;
	int ret;

	ret = tb_ftrace_bufstats_read(inst, &bs, extra ? &percpu : NULL);
	if (ret)
		return ret;
	st->events = bs.entries + bs.read;
	st->lost = bs.overrun + bs.dropped + bs.commit_overrun;
	st->cpu_s = cons->stream ? cons->cpu_s : 0;
	if (!cons->stream && cons->overwrite) {
		st->events += bs.overrun;
		st->lost -= bs.overrun;
	}
	if (!tracefs_instance_file_read_number(inst, "buffer_total_size_kb", &kb))
		st->mem_bytes = (int64_t)kb * 1024;
	if (extra) {
		json_object_set_new(extra, "instance",
				    json_string(tracefs_instance_get_name(inst)));
		json_object_set_new(extra, "entries", json_integer(bs.entries));
		json_object_set_new(extra, "read", json_integer(bs.read));
		json_object_set_new(extra, "overrun", json_integer(bs.overrun));
		json_object_set_new(extra, "dropped", json_integer(bs.dropped));
		json_object_set_new(extra, "commit_overrun", json_integer(bs.commit_overrun));
		json_object_set_new(extra, "per_cpu", percpu ? percpu : json_null());
		json_object_set_new(extra, "consumer",
				    json_string(cons->stream ? "stream" : "discard"));
		if (!cons->stream && cons->overwrite)
			json_object_set_new(extra, "overwritten", json_integer(bs.overrun));
		if (cons->stream) {
			json_object_set_new(extra, "stream_file", json_string(cons->path));
			json_object_set_new(extra, "stream_bytes",
					    json_integer((json_int_t)cons->bytes));
		}
	}
	return 0;
}

int tb_ftrace_consumer_start(struct tb_ftrace_consumer *c, struct tracefs_instance *inst,
			     const struct tb_tracer *t)
{
	if (!c->stream)
		return 0;
	snprintf(c->path, sizeof(c->path), "%s/%s.raw", t->outdir ? t->outdir : ".", t->name);
	return tb_ftrace_stream_start(inst, c->path, t->consumer_cpu, &c->reader);
}

int tb_ftrace_consumer_stop(struct tb_ftrace_consumer *c)
{
	if (!c->reader)
		return 0;
	return tb_ftrace_stream_stop(&c->reader, &c->bytes, &c->cpu_s);
}

/* ---- stream consumer -------------------------------------------------------------------- */

struct tb_ftrace_stream {
	pthread_t thread;
	bool started;
	atomic_bool stop;
	int *fds;
	int nfds;
	int *cpus;
	int out;
	int pin_cpu;
	uint64_t bytes;
	double cpu_s;
	int err;
};

/* Read every CPU until empty. Returns bytes moved, or -errno on a write error. */
static int64_t stream_round(struct tb_ftrace_stream *s, char *page, size_t psize)
{
	int64_t moved = 0;
	int i;

	for (i = 0; i < s->nfds; i++) {
		for (;;) {
			ssize_t n = read(s->fds[i], page, psize);
			uint32_t hdr[2];

			if (n <= 0)
				break;
			hdr[0] = (uint32_t)s->cpus[i];
			hdr[1] = (uint32_t)n;
			if (write(s->out, hdr, sizeof(hdr)) != sizeof(hdr) ||
			    write(s->out, page, (size_t)n) != n)
				return errno ? -errno : -EIO;
			moved += n;
		}
	}
	return moved;
}

static void *stream_thread(void *arg)
{
	struct tb_ftrace_stream *s = arg;
	size_t psize = (size_t)sysconf(_SC_PAGESIZE);
	struct pollfd *pfd = calloc((size_t)s->nfds, sizeof(*pfd));
	char *page = malloc(psize);
	struct timespec ts;
	int i;

	if (!pfd || !page) {
		s->err = -ENOMEM;
		goto out;
	}
	if (s->pin_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(s->pin_cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (i = 0; i < s->nfds; i++)
		pfd[i] = (struct pollfd){.fd = s->fds[i], .events = POLLIN};
	while (!atomic_load(&s->stop)) {
		int64_t n = stream_round(s, page, psize);

		if (n < 0) {
			s->err = (int)n;
			goto out;
		}
		s->bytes += (uint64_t)n;
		/* Poll wakes at buffer_percent full; the timeout bounds how stale data gets. */
		if (!n)
			poll(pfd, (nfds_t)s->nfds, 50);
	}
	/* Tracing is off by now: take what is left. */
	for (;;) {
		int64_t n = stream_round(s, page, psize);

		if (n < 0)
			s->err = (int)n;
		if (n <= 0)
			break;
		s->bytes += (uint64_t)n;
	}
out:
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		s->cpu_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	free(pfd);
	free(page);
	return NULL;
}

static void stream_free(struct tb_ftrace_stream *s)
{
	int i;

	for (i = 0; i < s->nfds; i++)
		if (s->fds[i] >= 0)
			close(s->fds[i]);
	if (s->out >= 0)
		close(s->out);
	free(s->fds);
	free(s->cpus);
	free(s);
}

int tb_ftrace_stream_start(struct tracefs_instance *inst, const char *path, int cpu,
			   struct tb_ftrace_stream **out)
{
	long c, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	struct tb_ftrace_stream *s;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->out = -1;
	s->pin_cpu = cpu;
	s->fds = calloc((size_t)ncpus, sizeof(int));
	s->cpus = calloc((size_t)ncpus, sizeof(int));
	if (!s->fds || !s->cpus) {
		ret = -ENOMEM;
		goto err;
	}
	for (c = 0; c < ncpus; c++) {
		char file[64];
		int fd;

		snprintf(file, sizeof(file), "per_cpu/cpu%ld/trace_pipe_raw", c);
		fd = tracefs_instance_file_open(inst, file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		s->fds[s->nfds] = fd;
		s->cpus[s->nfds++] = (int)c;
	}
	if (!s->nfds) {
		ret = -ENOENT;
		tb_err("instance %s: cannot open any per_cpu/cpuN/trace_pipe_raw",
		       tracefs_instance_get_name(inst));
		goto err;
	}
	s->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->out < 0) {
		ret = -errno;
		tb_err("stream: cannot create %s: %s", path, strerror(errno));
		goto err;
	}
	ret = -pthread_create(&s->thread, NULL, stream_thread, s);
	if (ret) {
		tb_err("stream: cannot start the reader thread: %s", strerror(-ret));
		goto err;
	}
	s->started = true;
	*out = s;
	return 0;
err:
	stream_free(s);
	return ret;
}

int tb_ftrace_stream_stop(struct tb_ftrace_stream **sp, uint64_t *bytes, double *cpu_s)
{
	struct tb_ftrace_stream *s = sp ? *sp : NULL;
	int ret;

	if (!s)
		return 0;
	atomic_store(&s->stop, true);
	if (s->started)
		pthread_join(s->thread, NULL);
	if (bytes)
		*bytes = s->bytes;
	if (cpu_s)
		*cpu_s = s->cpu_s;
	ret = s->err;
	if (ret)
		tb_err("stream: writing the trace failed: %s", strerror(-ret));
	stream_free(s);
	*sp = NULL;
	return ret;
}

/* ---- function tracer -------------------------------------------------------------------- */

char *tb_ftrace_filter_compose(const struct tb_strlist *funcs, char *err, size_t errlen)
{
	size_t i, len = 1;
	char *text, *p;

	for (i = 0; i < funcs->n; i++) {
		const char *f = funcs->v[i], *c;

		if (!*f || strlen(f) > 255) {
			snprintf(err, errlen, "bad function '%s': empty or longer than 255", f);
			return NULL;
		}
		if (*f == '!') {
			snprintf(err, errlen, "bad function '%s': negation is not supported", f);
			return NULL;
		}
		for (c = f; *c; c++) {
			if (isspace((unsigned char)*c) || !isprint((unsigned char)*c)) {
				snprintf(err, errlen,
					 "bad function '%s': whitespace or control character",
					 f);
				return NULL;
			}
		}
		len += strlen(f) + 1;
	}
	text = malloc(len);
	if (!text) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p = text;
	for (i = 0; i < funcs->n; i++)
		p += sprintf(p, "%s\n", funcs->v[i]);
	*p = '\0';
	return text;
}

int tb_ftrace_function_probe(char *why, size_t len)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char reason[256];
	static int result = 1; /* 1: not probed yet */
	struct tracefs_instance *inst = NULL;
	int ret;

	pthread_mutex_lock(&lock);
	if (result != 1)
		goto out;
	ret = tb_tracefs_ensure();
	if (ret) {
		snprintf(reason, sizeof(reason), "tracefs unavailable: %s", strerror(-ret));
		result = ret;
		goto out;
	}
	if (!tracefs_tracer_available(NULL, "function")) {
		snprintf(reason, sizeof(reason), "'function' is not in available_tracers");
		result = -EOPNOTSUPP;
		goto out;
	}
	ret = tb_tracefs_instance_new("probe-function", &inst);
	if (ret) {
		snprintf(reason, sizeof(reason), "cannot create a scratch instance: %s",
			 strerror(-ret));
		result = ret;
		goto out;
	}
	if (tracefs_instance_file_write(inst, "current_tracer", "function") < 0) {
		result = errno ? -errno : -EIO;
		snprintf(reason, sizeof(reason), "writing 'function' to current_tracer: %s",
			 strerror(-result));
	} else {
		result = 0;
	}
	tb_tracefs_instance_remove(&inst);
out:
	if (result && why)
		snprintf(why, len, "%s", reason);
	ret = result;
	pthread_mutex_unlock(&lock);
	return ret;
}

/* ---- BPF programs ----------------------------------------------------------------------- */

int tb_bpf_prog_count(void)
{
	__u32 id = 0;
	int n = 0;

	while (!bpf_prog_get_next_id(id, &id))
		n++;
	if (errno != ENOENT)
		return -errno;
	return n;
}

/* Array of {id, type, name} of every loaded program; NULL on ENOMEM. */
static json_t *bpf_progs_json(void)
{
	json_t *arr = json_array();
	__u32 id = 0;

	while (arr && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info = {0};
		__u32 ilen = sizeof(info);
		const char *type = "unknown";
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue; /* unloaded meanwhile */
		if (!bpf_obj_get_info_by_fd(fd, &info, &ilen)) {
			const char *t = libbpf_bpf_prog_type_str(info.type);

			if (t)
				type = t;
		}
		close(fd);
		json_array_append_new(arr, json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id,
						     "type", type, "name", info.name));
	}
	return arr;
}

/* ---- tracing state ---------------------------------------------------------------------- */

/* The top-level file's content, trimmed; "error: <reason>" when unreadable. */
static json_t *top_file(const char *file)
{
	char *path = tracefs_get_tracing_file(file), *text = NULL;
	size_t n = 0;
	json_t *v;
	int ret;

	ret = path ? tb_read_file(path, &text, &n) : -ENOMEM;
	tracefs_put_tracing_file(path);
	if (ret) {
		char buf[128];

		snprintf(buf, sizeof(buf), "error: %s", strerror(-ret));
		return json_string(buf);
	}
	while (n && isspace((unsigned char)text[n - 1]))
		text[--n] = '\0';
	v = json_string(text);
	free(text);
	return v;
}

static json_t *lines_json(const char *file)
{
	char *text = tracefs_instance_file_read(NULL, file, NULL), *line, *save = NULL;
	json_t *arr = json_array();

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line && arr;
	     line = strtok_r(NULL, "\n", &save))
		if (*line && *line != '#')
			json_array_append_new(arr, json_string(line));
	free(text);
	return arr;
}

static json_t *instances_json(void)
{
	char **names = tracefs_instances(NULL);
	json_t *arr = json_array();
	int i, n = names ? tracefs_list_size(names) : 0;

	if (n > 0)
		qsort(names, (size_t)n, sizeof(*names), cmp_str);
	for (i = 0; i < n && arr; i++)
		json_array_append_new(arr, json_string(names[i]));
	tracefs_list_free(names);
	return arr;
}

json_t *tb_tracing_state_capture(void)
{
	json_t *st;

	if (tb_tracefs_ensure())
		return NULL;
	st = json_object();
	if (!st)
		return NULL;
	if (json_object_set_new(st, "current_tracer", top_file("current_tracer")) ||
	    json_object_set_new(st, "tracing_on", top_file("tracing_on")) ||
	    json_object_set_new(st, "set_event", lines_json("set_event")) ||
	    json_object_set_new(st, "set_event_pid", top_file("set_event_pid")) ||
	    json_object_set_new(st, "set_ftrace_pid", top_file("set_ftrace_pid")) ||
	    json_object_set_new(st, "instances", instances_json()) ||
	    json_object_set_new(st, "bpf_progs", bpf_progs_json())) {
		json_decref(st);
		tb_err("tracing state: out of memory");
		return NULL;
	}
	return st;
}

static bool array_has_string(const json_t *arr, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) if (json_is_string(v) &&
					  !strcmp(json_string_value(v), s)) return true;
	return false;
}

static const json_t *prog_by_id(const json_t *arr, json_int_t id)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i,
			   v) if (json_integer_value(json_object_get(v, "id")) == id) return v;
	return NULL;
}

static void diff_set(FILE *m, const char *key, const json_t *a, const json_t *b, const char *prefix)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
	{
		const char *s = json_string_value(v);

		if (s && (!prefix || !strncmp(s, prefix, strlen(prefix))) &&
		    !array_has_string(b, s))
			fprintf(m, "%s: -%s\n", key, s);
	}
	json_array_foreach(b, i, v)
	{
		const char *s = json_string_value(v);

		if (s && (!prefix || !strncmp(s, prefix, strlen(prefix))) &&
		    !array_has_string(a, s))
			fprintf(m, "%s: +%s\n", key, s);
	}
}

static void diff_progs(FILE *m, const json_t *a, const json_t *b)
{
	const json_t *pairs[2][2] = {{a, b}, {b, a}};
	int k;

	for (k = 0; k < 2; k++) {
		size_t i;
		json_t *v;

		json_array_foreach(pairs[k][0], i, v)
		{
			json_int_t id = json_integer_value(json_object_get(v, "id"));

			if (!prog_by_id(pairs[k][1], id))
				fprintf(m, "bpf_progs: %c%lld (%s %s)\n", k ? '+' : '-',
					(long long)id,
					json_string_value(json_object_get(v, "type")),
					json_string_value(json_object_get(v, "name")));
		}
	}
}

char *tb_tracing_state_diff_filtered(const json_t *a, const json_t *b, const char *instance_prefix,
				     bool with_bpf)
{
	static const char *const scalars[] = {"current_tracer", "tracing_on", "set_event_pid",
					      "set_ftrace_pid"};
	char *buf = NULL;
	size_t len = 0, i;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	for (i = 0; i < TB_ARRAY_SIZE(scalars); i++) {
		const char *x = json_string_value(json_object_get(a, scalars[i]));
		const char *y = json_string_value(json_object_get(b, scalars[i]));

		if (!x || !y || strcmp(x, y))
			fprintf(m, "%s: '%s' -> '%s'\n", scalars[i], x ? x : "?", y ? y : "?");
	}
	diff_set(m, "set_event", json_object_get(a, "set_event"), json_object_get(b, "set_event"),
		 NULL);
	diff_set(m, "instances", json_object_get(a, "instances"), json_object_get(b, "instances"),
		 instance_prefix);
	if (with_bpf)
		diff_progs(m, json_object_get(a, "bpf_progs"), json_object_get(b, "bpf_progs"));
	if (fclose(m))
		return NULL;
	if (!len) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *tb_tracing_state_diff(const json_t *a, const json_t *b)
{
	return tb_tracing_state_diff_filtered(a, b, NULL, true);
}

/* ---- foreign instrumentation ------------------------------------------------------------ */

static bool tracing_prog_type(const char *t)
{
	static const char *const types[] = {"tracepoint", "raw_tracepoint",
					    "kprobe",	  "perf_event",
					    "tracing",	  "raw_tracepoint_writable"};
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(types); i++)
		if (!strcmp(t, types[i]))
			return true;
	return false;
}

static void foreign_add(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void foreign_add(json_t *arr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(arr, json_string(buf));
}

json_t *tb_foreign_instrumentation(void)
{
	json_t *arr = json_array(), *st, *v;
	char own[64];
	size_t i;

	if (!arr)
		return NULL;
	st = tb_tracing_state_capture();
	if (!st)
		return arr;
	v = json_object_get(st, "set_event");
	if (json_array_size(v))
		foreign_add(arr, "%zu top-level events enabled (first: %s)", json_array_size(v),
			    json_string_value(json_array_get(v, 0)));
	if (strcmp(json_string_value(json_object_get(st, "current_tracer")), "nop"))
		foreign_add(arr, "top-level current_tracer is '%s'",
			    json_string_value(json_object_get(st, "current_tracer")));
	snprintf(own, sizeof(own), TB_INSTANCE_PREFIX "%d-", (int)getpid());
	json_array_foreach(json_object_get(st, "instances"), i, v)
	{
		const char *name = json_string_value(v);
		char file[512], *text;
		int nev = 0;

		if (!strncmp(name, own, strlen(own)))
			continue;
		snprintf(file, sizeof(file), "instances/%s/set_event", name);
		text = tracefs_instance_file_read(NULL, file, NULL);
		for (char *p = text; p && *p; p++)
			nev += *p == '\n';
		free(text);
		foreign_add(arr, "tracefs instance '%s' (%d events enabled)", name, nev);
	}
	json_array_foreach(json_object_get(st, "bpf_progs"), i, v)
	{
		const char *type = json_string_value(json_object_get(v, "type"));
		json_int_t id = json_integer_value(json_object_get(v, "id"));
		char ids[32];

		snprintf(ids, sizeof(ids), "%lld", (long long)id);
		if (!tracing_prog_type(type) || tb_armed_has(TB_ARMED_BPF_PROG, ids))
			continue;
		foreign_add(arr, "BPF program %lld '%s' (%s)", (long long)id,
			    json_string_value(json_object_get(v, "name")), type);
	}
	json_decref(st);
	return arr;
}
