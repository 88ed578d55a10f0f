// SPDX-License-Identifier: GPL-2.0
/* What the ftrace tracers share: buffer stats, instance config, the consumer, the probe. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracefs/tracefs.h>
#include <unistd.h>

#include "core/outdir.h"
#include "core/tb.h"
#include "core/thread.h"
#include "host/tracefs.h"
#include "tracers/ftrace-common.h"
#include "tracers/tracer.h"

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

/* tb_ftrace_collect's figures (its comment says which); extra may be NULL (out of memory). */
static int collect_figures(struct tracefs_instance *inst, struct tb_tracer_stats *st, json_t *extra,
			   const struct tb_ftrace_consumer *cons,
			   const struct tb_ftrace_bufstats *base)
{
	struct tb_ftrace_bufstats bs;
	json_t *percpu = NULL;
	long long kb = 0;
	int ret;

	ret = tb_ftrace_bufstats_read(inst, &bs, extra ? &percpu : NULL);
	if (ret)
		return ret;
	/* the window's counts (entries and bytes are what the buffer holds now) */
	bs.read -= base->read;
	bs.overrun -= base->overrun;
	bs.dropped -= base->dropped;
	bs.commit_overrun -= base->commit_overrun;
	st->events = bs.entries + bs.read;
	st->lost = bs.overrun + bs.dropped + bs.commit_overrun;
	st->cpu_s = cons->stream ? cons->cpu_s : 0;
	st->disk_bytes = cons->stream ? (int64_t)cons->bytes : 0;
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
		/* what an event took on the ring buffer, for the lost-events remedy */
		if (bs.entries > 0 && bs.bytes > 0)
			json_object_set_new(extra, "bytes_per_event",
					    json_real((double)bs.bytes / (double)bs.entries));
		else if (cons->stream && bs.read > 0 && cons->bytes)
			json_object_set_new(extra, "bytes_per_event",
					    json_real((double)cons->bytes / (double)bs.read));
		if (!cons->stream && cons->overwrite)
			json_object_set_new(extra, "overwritten", json_integer(bs.overrun));
		if (cons->stream) {
			json_object_set_new(extra, "stream_file", json_string(cons->path));
			json_object_set_new(extra, "stream_kept", json_boolean(cons->keep));
			json_object_set_new(extra, "stream_bytes",
					    json_integer((json_int_t)cons->bytes));
			/* the rate the reader kept up with, and the rate events came at */
			if (cons->wall_s > 0) {
				json_object_set_new(extra, "stream_events_per_s",
						    json_real((double)bs.read / cons->wall_s));
				json_object_set_new(extra, "produced_events_per_s",
						    json_real((double)(bs.read + bs.entries +
								       bs.dropped + bs.overrun) /
							      cons->wall_s));
			}
		}
	}
	return 0;
}

int tb_ftrace_consumer_start(struct tb_ftrace_consumer *c, struct tracefs_instance *inst,
			     const struct tb_tracer *t)
{
	if (!c->stream)
		return 0;
	if (!t->dir) {
		tb_err("[tracer %s] consumer = stream: no directory for its stream file", t->name);
		return -EINVAL;
	}
	c->t0_ns = tb_now_ns();
	c->dir = t->dir;
	snprintf(c->name, sizeof(c->name), "%.*s.raw", NAME_MAX - 4, t->name);
	snprintf(c->path, sizeof(c->path), "%s/%s", t->dir->path, c->name);
	return tb_ftrace_stream_start(inst, c->dir, c->name, t->consumer_cpu, &c->reader);
}

int tb_ftrace_consumer_stop(struct tb_ftrace_consumer *c)
{
	int ret;

	if (!c->reader)
		return 0;
	c->wall_s = (double)(tb_now_ns() - c->t0_ns) / 1e9;
	ret = tb_ftrace_stream_stop(&c->reader, &c->bytes, &c->cpu_s);
	/* Raw streams grow to hundreds of MB a run: written (that is the tracer's cost), counted,
	 * and kept only when asked. */
	if (!c->keep && c->dir)
		tb_dir_remove(c->dir, c->name); /* says why it failed, naming the file */
	return ret;
}

/* ---- the ftrace tracers' shared setup, collect and teardown ----------------------------- */

const char *const tb_ftrace_pid_choices[] = {"workload", "none", NULL};
const char *const tb_ftrace_size_words[] = {"auto", NULL};
const char *const tb_ftrace_consumer_choices[] = {"discard", "stream", NULL};

/* ---- buffer-size = auto ----------------------------------------------------------------- */

#define AUTO_MARGIN  1.25   /* page headers, events that do not fill a page, time extends */
#define RB_PAGE_DATA 4080.0 /* a 4096-byte ring-buffer page less its header */

/*
 * Bytes one event of name (system:event) takes on the ring buffer: its record (the format's
 * last field end, rounded to 4) and the 4-byte header (8 beyond 112 bytes). 0: unknown.
 */
static double event_bytes(const char *name)
{
	static struct {
		char name[TB_EV_NAME_MAX];
		double bytes;
	} cache[64];
	static size_t ncache;
	char sys[TB_EV_NAME_MAX], *ev, *text, *p;
	long end = 0, off, size;
	size_t i;

	for (i = 0; i < ncache; i++)
		if (!strcmp(cache[i].name, name))
			return cache[i].bytes;
	snprintf(sys, sizeof(sys), "%s", name);
	ev = strchr(sys, ':');
	if (!ev)
		return 0;
	*ev++ = '\0';
	text = tracefs_event_file_read(NULL, sys, ev, "format", NULL);
	for (p = text; p && (p = strstr(p, "offset:")); p++)
		if (sscanf(p, "offset:%ld;%*[ \t]size:%ld;", &off, &size) == 2 && off + size > end)
			end = off + size;
	free(text);
	end = (end + 3) / 4 * 4;
	if (ncache < TB_ARRAY_SIZE(cache)) {
		snprintf(cache[ncache].name, sizeof(cache[ncache].name), "%s", name);
		cache[ncache++].bytes = end ? (double)end + (end > 112 ? 8 : 4) : 0;
	}
	return end ? (double)end + (end > 112 ? 8 : 4) : 0;
}

static uint64_t mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = tb_fopen_input("/proc/meminfo", TB_INPUT_FOLLOW);

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/* CPUs that get the big buffer; the others keep TB_FTRACE_AUTO_MIN. */
static long big_cpus(const struct tb_tracer *t, const struct tb_ftrace_cfg *c)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return c->pid_filter == TB_FTRACE_PID_WORKLOAD && t->ncpus ? (long)t->ncpus : n;
}

uint64_t tb_ftrace_auto_size(const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
			     uint64_t *need, bool *capped)
{
	long ncpus = sysconf(_SC_NPROCESSORS_CONF), big = big_cpus(t, c);
	double per_op = 0, bytes, threads_per_cpu, cap, want;
	size_t i;

	*need = 0;
	*capped = false;
	if ((c->overwrite && c->consumer != TB_FTRACE_CONSUMER_STREAM) || !t->sample_ops)
		return TB_FTRACE_AUTO_MIN;
	for (i = 0; i < t->nexpect; i++) {
		bytes = event_bytes(t->expect[i].name);
		if (!isfinite(t->expect[i].per_op) || !bytes) {
			tb_debug("[tracer %s] buffer-size = auto: no size for %s: %llu bytes",
				 t->name, t->expect[i].name,
				 (unsigned long long)TB_FTRACE_AUTO_MIN);
			return TB_FTRACE_AUTO_MIN;
		}
		/* An approximate count may be twice the expected (model/proof.h). */
		per_op += t->expect[i].per_op * bytes * (t->expect[i].approx ? 2 : 1);
	}
	threads_per_cpu = t->ncpus ? ceil((double)t->threads / (double)t->ncpus) : t->threads;
	want = (double)t->sample_ops * (threads_per_cpu ? threads_per_cpu : 1) * per_op *
		       AUTO_MARGIN * 4096 / RB_PAGE_DATA +
	       (double)TB_FTRACE_AUTO_MIN;
	*need = (uint64_t)want;
	cap = ((double)mem_available() / 4 - (double)(ncpus - big) * TB_FTRACE_AUTO_MIN) /
	      (double)(big ? big : 1);
	if (cap > (double)(1ull << 32))
		cap = (double)(1ull << 32);
	if (want > cap) {
		*capped = true;
		want = cap > (double)TB_FTRACE_AUTO_MIN ? cap : (double)TB_FTRACE_AUTO_MIN;
	}
	return (uint64_t)want;
}

uint64_t tb_ftrace_est_write_bytes(const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
				   bool *kept)
{
	uint64_t need;
	bool capped;

	*kept = c->keep_raw;
	if (c->consumer != TB_FTRACE_CONSUMER_STREAM)
		return 0;
	tb_ftrace_auto_size(t, c, &need, &capped);
	return need * (uint64_t)big_cpus(t, c);
}

/* Said once per tracer section: every sample of it would say the same. */
static void warn_capped(const struct tb_tracer *t, uint64_t need, uint64_t size)
{
	static char warned[32][64];
	static size_t nwarned;
	size_t i;

	for (i = 0; i < nwarned; i++)
		if (!strcmp(warned[i], t->name))
			return;
	if (nwarned < TB_ARRAY_SIZE(warned))
		snprintf(warned[nwarned++], sizeof(warned[0]), "%s", t->name);
	tb_warn("[tracer %s] buffer-size = auto: a sample needs %.0f MiB per CPU, more than the %.0f MiB that a quarter of the available memory allows: expect lost events (a shorter duration, or overwrite = true, needs less)",
		t->name, (double)need / (1 << 20), (double)size / (1 << 20));
}

static bool is_big(const struct tb_tracer *t, const struct tb_ftrace_cfg *c, long cpu)
{
	size_t i;

	if (c->pid_filter != TB_FTRACE_PID_WORKLOAD || !t->ncpus)
		return true;
	for (i = 0; i < t->ncpus; i++)
		if (t->cpus[i] == cpu)
			return true;
	return false;
}

/* buffer-size = auto into the instance: the workload's CPUs sized for a sample, the others
 * at the minimum. Returns 0 or -errno (logged). */
static int auto_config(struct tb_ftrace *f, const struct tb_tracer *t,
		       const struct tb_ftrace_cfg *c)
{
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t need, size;
	char file[64], kb[32];
	bool capped;

	size = tb_ftrace_auto_size(t, c, &need, &capped);
	if (capped)
		warn_capped(t, need, size);
	f->auto_size = size;
	for (cpu = 0; cpu < ncpus; cpu++) {
		snprintf(file, sizeof(file), "per_cpu/cpu%ld/buffer_size_kb", cpu);
		snprintf(kb, sizeof(kb), "%llu",
			 (unsigned long long)((is_big(t, c, cpu) ? size : TB_FTRACE_AUTO_MIN) +
					      1023) /
				 1024);
		if (tracefs_instance_file_write(f->inst, file, kb) < 0 && errno != ENOENT) {
			tb_err("[tracer %s] buffer-size = auto: cannot set %s KiB for CPU %ld: %s",
			       t->name, kb, cpu, strerror(errno));
			return errno ? -errno : -EIO;
		}
	}
	tb_debug("[tracer %s] buffer-size = auto: %llu KiB on the workload's CPUs", t->name,
		 (unsigned long long)(size + 1023) / 1024);
	return 0;
}

uint64_t tb_ftrace_est_cost_ns(const struct tb_ftrace_cfg *c)
{
	return c->consumer == TB_FTRACE_CONSUMER_STREAM ? TB_FTRACE_STREAM_COST_NS
							: TB_FTRACE_COST_NS;
}

uint64_t tb_ftrace_est_rearm_ns(const struct tb_ftrace_cfg *c)
{
	return TB_FTRACE_REARM_COST_NS + (c->consumer == TB_FTRACE_CONSUMER_STREAM
						  ? TB_FTRACE_STREAM_COST_NS - TB_FTRACE_COST_NS
						  : 0);
}

int tb_ftrace_scope(const struct tb_ftrace_cfg *c)
{
	return c->pid_filter == TB_FTRACE_PID_WORKLOAD ? TB_SCOPE_TREE : TB_SCOPE_SYSTEM;
}

/* pid-filter = workload: fork following on, the target's threads in pid_file. */
static int follow_target(struct tb_ftrace *f, const struct tb_tracer *t,
			 enum tracefs_option_id fork_option, const char *pid_file)
{
	int ret;

	if (tracefs_option_enable(f->inst, fork_option)) {
		ret = errno ? -errno : -EIO;
		tb_err("[tracer %s] cannot enable the %s option: %s", t->name,
		       tracefs_option_name(fork_option), strerror(-ret));
		return ret;
	}
	ret = tb_tracefs_set_pids(f->inst, pid_file, t->target, t->target_tree);
	f->pids = !ret;
	return ret;
}

int tb_ftrace_open(struct tb_ftrace *f, const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
		   enum tracefs_option_id fork_option, const char *pid_file)
{
	int ret;

	if (c->pid_filter == TB_FTRACE_PID_WORKLOAD && t->target <= 0) {
		tb_err("[tracer %s] pid-filter = workload, but there is no workload process",
		       t->name);
		return -EINVAL;
	}
	f->cons.stream = c->consumer == TB_FTRACE_CONSUMER_STREAM;
	f->cons.overwrite = c->overwrite;
	f->cons.keep = c->keep_raw;
	ret = tb_tracefs_instance_new(t->instance ? t->instance : t->name, &f->inst);
	if (ret)
		return ret;
	ret = tb_ftrace_instance_config(f->inst, c->buffer_size, c->overwrite);
	if (!ret && !c->buffer_size)
		ret = auto_config(f, t, c);
	if (ret || c->pid_filter != TB_FTRACE_PID_WORKLOAD)
		return ret;
	return follow_target(f, t, fork_option, pid_file);
}

int tb_ftrace_collect(struct tb_ftrace *f, struct tb_tracer_stats *st, const char *count_key,
		      int64_t count)
{
	json_t *extra;
	int ret;

	if (!f->inst)
		return -EINVAL;
	extra = json_object();
	ret = collect_figures(f->inst, st, extra, &f->cons, &f->base);
	if (ret) {
		json_decref(extra);
		return ret;
	}
	if (extra)
		json_object_set_new(extra, count_key, json_integer((json_int_t)count));
	if (extra && f->auto_size)
		json_object_set_new(extra, "buffer_size_auto",
				    json_integer((json_int_t)f->auto_size));
	st->extra = extra;
	return 0;
}

/* Opening "trace" for writing with O_TRUNC resets every CPU's buffer and its counters. */
static int buffer_reset(struct tb_ftrace *f, const struct tb_tracer *t)
{
	char *path = tracefs_instance_get_file(f->inst, "trace");
	int fd, ret;

	if (!path)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ret = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (ret)
		tb_err("[tracer %s] cannot clear %s: %s", t->name, path, strerror(-ret));
	tracefs_put_tracing_file(path);
	return ret;
}

/* Read one CPU's trace_pipe_raw until it is empty (tracing is off). 0 or -errno. */
static int drain_cpu(struct tb_ftrace *f, long cpu)
{
	char file[64], *path, buf[65536];
	ssize_t n;
	int fd, ret = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%ld/trace_pipe_raw", cpu);
	path = tracefs_instance_get_file(f->inst, file);
	if (!path)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	tracefs_put_tracing_file(path);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* a CPU that is not there */
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * Empty the buffer for the next window by reading it out (about a millisecond for the default
 * 2 MB per CPU) rather than resetting it (20-40 ms: the reset waits for an RCU grace period,
 * METHODOLOGY.md section 9); the counters it keeps become the next window's base. A reset if
 * reading fails.
 */
static int buffer_empty(struct tb_ftrace *f, const struct tb_tracer *t)
{
	long cpu, ncpus = sysconf(_SC_NPROCESSORS_CONF);
	int ret = 0;

	for (cpu = 0; !ret && cpu < ncpus; cpu++)
		ret = drain_cpu(f, cpu);
	if (!ret)
		ret = tb_ftrace_bufstats_read(f->inst, &f->base, NULL);
	if (!ret && !f->base.entries)
		return 0;
	tb_debug("[tracer %s] draining the buffer: %s; resetting it", t->name,
		 ret ? strerror(-ret) : "events left");
	memset(&f->base, 0, sizeof(f->base));
	return buffer_reset(f, t);
}

/* Parked: the buffer emptied, no pid list, no fork following (see the header). */
static int park(struct tb_ftrace *f, const struct tb_tracer *t, enum tracefs_option_id fork_option,
		const char *pid_file)
{
	int ret = buffer_empty(f, t);

	if (ret || !f->pids)
		return ret;
	/* O_TRUNC with nothing written empties the list and unregisters its sched probes. */
	if (tracefs_instance_file_write(f->inst, pid_file, "") < 0 ||
	    tracefs_option_disable(f->inst, fork_option)) {
		ret = errno ? -errno : -EIO;
		tb_err("[tracer %s] cannot clear %s or %s: %s", t->name, pid_file,
		       tracefs_option_name(fork_option), strerror(-ret));
		return ret;
	}
	f->pids = false;
	return 0;
}

int tb_ftrace_rearm(struct tb_ftrace *f, const struct tb_tracer *t, const struct tb_ftrace_cfg *c,
		    enum tracefs_option_id fork_option, const char *pid_file)
{
	struct tb_ftrace_bufstats bs;
	int ret;

	if (!f->inst)
		return -EINVAL;
	if (t->target <= 0)
		return park(f, t, fork_option, pid_file);
	ret = tb_ftrace_bufstats_read(f->inst, &bs, NULL);
	if (ret)
		return ret;
	if (bs.entries || bs.read != f->base.read || bs.overrun != f->base.overrun ||
	    bs.dropped != f->base.dropped || bs.commit_overrun != f->base.commit_overrun) {
		tb_err("[tracer %s] the instance's buffer is not as parked (%lld entries): events "
		       "were written while parked",
		       t->name, (long long)bs.entries);
		return -EBUSY;
	}
	if (c->pid_filter != TB_FTRACE_PID_WORKLOAD)
		return 0;
	return follow_target(f, t, fork_option, pid_file);
}

int tb_ftrace_on(struct tb_ftrace *f, const struct tb_tracer *t)
{
	int ret;

	ret = tb_ftrace_consumer_start(&f->cons, f->inst, t);
	if (ret)
		return ret;
	if (tracefs_trace_on(f->inst)) {
		ret = errno ? -errno : -EIO;
		tb_err("[tracer %s] cannot write tracing_on: %s", t->name, strerror(-ret));
	}
	return ret;
}

int tb_ftrace_off(struct tb_ftrace *f, const struct tb_tracer *t, const char *file,
		  const char *value)
{
	int ret = 0, r;

	if (!f->inst)
		return 0;
	if (tracefs_trace_off(f->inst))
		ret = errno ? -errno : -EIO;
	if (file && tracefs_instance_file_write(f->inst, file, value) < 0 && !ret)
		ret = errno ? -errno : -EIO;
	if (ret)
		tb_err("[tracer %s] cannot switch the instance off: %s", t->name, strerror(-ret));
	r = tb_ftrace_consumer_stop(&f->cons);
	return ret ? ret : r;
}

void tb_ftrace_close(struct tb_ftrace *f)
{
	tb_ftrace_consumer_stop(&f->cons);
	tb_tracefs_instance_remove(&f->inst);
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

int tb_ftrace_stream_start(struct tracefs_instance *inst, const struct tb_dir *dir,
			   const char *name, int cpu, struct tb_ftrace_stream **out)
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
	/* Through the tracer's directory, never a link (core/outdir.h); says why it failed. */
	s->out = tb_dir_open_output(dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (s->out < 0) {
		ret = s->out;
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
	if (s->started)
		tb_thread_stop(s->thread, &s->stop);
	else
		atomic_store(&s->stop, true);
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
					 "bad function '%s': whitespace or control character", f);
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

/* ---- what a result says about a cell ----------------------------------------------------- */

const char *tb_ftrace_buffer_key(const void *cfg)
{
	(void)cfg;
	return "buffer-size";
}

void tb_ftrace_lost_remedy(const struct tb_tracer_record *rec, int64_t per_sample, char *buf,
			   size_t len)
{
	const double mib = 1024.0 * 1024.0, per = (double)per_sample;
	double bpe = tb_tracer_rec_num(rec->extra, "bytes_per_event");
	double rate = tb_tracer_rec_num(rec->extra, "stream_events_per_s");
	double autos = tb_tracer_rec_num(rec->extra, "buffer_size_auto");
	double made = tb_tracer_rec_num(rec->extra, "produced_events_per_s");
	char size[32];
	size_t n;

	if (!(bpe > 0))
		bpe = 64; /* a raw_syscalls entry with its header */
	snprintf(
		buf, len,
		"a ring buffer filled: buffer-size >= %s (a sample makes up to %.0f events of ~%.0f bytes on the workload's CPU)",
		tb_tracer_size_text(size, sizeof(size), fmax(per * bpe * 1.25, mib)), per, bpe);
	n = strlen(buf);
	if (autos > 0)
		snprintf(buf + n, len - n, "; auto gave %s, capped by the memory",
			 tb_tracer_size_text(size, sizeof(size), autos));
	n = strlen(buf);
	if (rate > 0)
		snprintf(buf + n, len - n, "; the stream reader kept up with %.3g of %.3g events/s",
			 rate, made);
	n = strlen(buf);
	snprintf(buf + n, len - n, ", or overwrite = true (a flight recorder keeps the newest)");
}
