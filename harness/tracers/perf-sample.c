// SPDX-License-Identifier: GPL-2.0
/*
 * perf-sample: sampling at a frequency or period (libperf), optionally with call graphs, for the
 * workload or all CPUs, as `perf record` does: per-CPU ring buffers drained by a reader thread.
 *
 * events = PERF_RECORD_SAMPLE records read, lost = sum of PERF_RECORD_LOST's counts, cpu_s = the
 * reader thread's own CPU time (its thread CPU clock). The in-kernel cost of taking a sample is
 * paid by the workload and shows in the measured overhead, not here. workload_events = the
 * samples whose pid is the workload's (the cost driver of system-wide sampling).
 *
 * Set up afresh for every sample, never kept (no rearm): a per-task event is bound to its task
 * at perf_event_open and cannot be re-pointed at the next sample's process, and its ring
 * buffers are its own. What setup builds besides those fds costs little: per sample (issue 32,
 * timed around each call on the reference VM, busy) the CPU map 0.1-0.6 ms, the thread map
 * (/proc) under 0.1 ms, the open 0.03 ms, the mmap of 2 x 129 pages 0.2-1.2 ms (a carrier event
 * kept with its rings and each sample's events redirected into it with PERF_EVENT_IOC_SET_OUTPUT
 * would save that, and leave an fd open between samples), the reader thread's start 0.7-0.9 ms
 * and its stop and last drain 0.3-0.5 ms, the munmap and close 0.2-0.4 ms: 2-4 ms in all. The
 * rest of a sample's setup and teardown is the harness's (the workload process's release, the
 * same in the baseline) and, before this tracer was TB_TR_NOSETTLE, 2 x 20 ms of settle.
 * It needs none: the enable and disable are ioctls that act before they return, and the reader
 * runs on the consumer CPU, not the workload's. METHODOLOGY.md section 9 has the figures.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <perf/cpumap.h>
#include <perf/event.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "core/outdir.h"
#include "tracers/perf-common.h"
#include "core/tb.h"
#include "core/thread.h"
#include "tracers/tracer.h"

enum { SCOPE_WORKLOAD, SCOPE_SYSTEM };

static const char *const scope_choices[] = {"workload", "system", NULL};

#define DEFAULT_FREQ	99
#define POLL_MS		50 /* the reader's poll timeout (its stop wakes it: core/thread.h) */
#define HUNGUP_SLEEP_NS 10000000ull /* drain period once a traced task has hung up */

struct ps_cfg {
	char *event;
	int64_t frequency;
	int64_t period;
	bool callgraph;
	int64_t max_stack;
	int scope;
	int64_t mmap_pages;
	bool consumer;
	bool output;
};

static const struct tb_option ps_opts[] = {
	{"event", TB_OPT_STRING, offsetof(struct ps_cfg, event), "cpu-clock",
	 "event to sample: cpu-clock, task-clock, page-faults, cycles, ..., or sys:tracepoint"},
	{"frequency", TB_OPT_INT, offsetof(struct ps_cfg, frequency), "0",
	 "samples per second (Hz) while the event runs; 0: 99 Hz unless period is set", 0,
	 10000000},
	{"period", TB_OPT_INT, offsetof(struct ps_cfg, period), "0",
	 "a sample every N events, ns for clocks (instead of a frequency); 0: frequency", 0, 1e15},
	{"callgraph", TB_OPT_BOOL, offsetof(struct ps_cfg, callgraph), "false",
	 "record kernel and user call chains (PERF_SAMPLE_CALLCHAIN, frame pointers)"},
	{"max-stack", TB_OPT_INT, offsetof(struct ps_cfg, max_stack), "0",
	 "deepest call chain kept; 0: kernel.perf_event_max_stack", 0, 65535},
	{"scope", TB_OPT_CHOICE, offsetof(struct ps_cfg, scope), "workload",
	 "workload: the workload's threads and children; system: every online CPU", 0, 0,
	 scope_choices},
	{"mmap-pages", TB_OPT_INT, offsetof(struct ps_cfg, mmap_pages), "128",
	 "ring-buffer data pages per CPU, a power of two", 1, 1 << 20},
	{"consumer", TB_OPT_BOOL, offsetof(struct ps_cfg, consumer), "true",
	 "drain the ring buffers with a reader thread while tracing (else once at stop)"},
	{"output", TB_OPT_BOOL, offsetof(struct ps_cfg, output), "false",
	 "write the raw records read to <outdir>/<tracer>.perf-records"},
	TB_OPT_END,
};

struct ps_priv {
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct perf_evlist *evlist; /* owns the evsel */
	struct perf_event_attr attr;
	int ncpus, nthreads;
	int nfds;		 /* fds in libperf's poll array */
	bool hungup;		 /* some of them hung up (their task exited): poll no more */
	uint64_t freq_requested; /* Hz, 0 with a period */
	int64_t mmap_bytes;
	char *out_path;
	FILE *out;
	int out_err; /* first write error (-errno) */
	/* One window: */
	pthread_t thread;
	bool thread_running, enabled;
	atomic_bool stop;
	struct tb_perf_rec_stats rs;
	pid_t target;		 /* the workload process */
	uint64_t target_samples; /* samples of it */
	uint64_t cpu_ns;	 /* the reader's CPU time in the window */
	int64_t rate_start, rate_end;
	bool windowed;
};

static int ps_supported(char *why, size_t len)
{
	return tb_perf_probe(why, len);
}

static uint64_t ps_freq(const struct ps_cfg *cfg)
{
	if (cfg->frequency)
		return (uint64_t)cfg->frequency;
	return cfg->period ? 0 : DEFAULT_FREQ;
}

static int ps_validate(const void *cfgp, char *err, size_t len)
{
	const struct ps_cfg *cfg = cfgp;
	struct perf_event_attr attr = {0};
	int64_t rate = tb_perf_max_sample_rate(), stack;
	char why[256];

	if (!cfg->event || tb_perfev_parse(cfg->event, &attr, why, sizeof(why))) {
		snprintf(err, len, "event: %s", cfg->event ? why : "no event given");
		return -EINVAL;
	}
	if (cfg->frequency && cfg->period) {
		snprintf(err, len, "frequency: frequency and period exclude each other");
		return -EINVAL;
	}
	if (rate > 0 && ps_freq(cfg) > (uint64_t)rate) {
		snprintf(err, len,
			 "frequency: %llu Hz is above kernel.perf_event_max_sample_rate (%lld)",
			 (unsigned long long)ps_freq(cfg), (long long)rate);
		return -EINVAL;
	}
	stack = tb_perf_max_stack();
	if (cfg->callgraph && stack > 0 && cfg->max_stack > stack) {
		snprintf(err, len, "max-stack: %lld is above kernel.perf_event_max_stack (%lld)",
			 (long long)cfg->max_stack, (long long)stack);
		return -EINVAL;
	}
	if (cfg->mmap_pages < 1 || (cfg->mmap_pages & (cfg->mmap_pages - 1))) {
		snprintf(err, len, "mmap-pages: %lld is not a power of two",
			 (long long)cfg->mmap_pages);
		return -EINVAL;
	}
	return 0;
}

static void ps_stop_thread(struct ps_priv *p)
{
	if (!p->thread_running)
		return;
	tb_thread_stop(p->thread, &p->stop);
	p->thread_running = false;
}

static void ps_teardown(struct tb_tracer *t)
{
	struct ps_priv *p = t->priv;

	if (!p)
		return;
	if (p->evlist && p->enabled)
		perf_evlist__disable(p->evlist);
	ps_stop_thread(p);
	/* Unmaps, closes and deletes the evsel too. */
	tb_perf_evlist_delete(p->evlist);
	perf_cpu_map__put(p->cpus);
	perf_thread_map__put(p->threads);
	if (p->out)
		fclose(p->out);
	free(p->out_path);
	free(p);
	t->priv = NULL;
}

static int ps_maps(struct tb_tracer *t, const struct ps_cfg *cfg, struct ps_priv *p)
{
	pid_t pid = t->target > 0 ? t->target : getpid();
	int err;

	/* Per CPU in both scopes: the kernel refuses to mmap inherited per-task (cpu -1) events. */
	p->cpus = perf_cpu_map__new(NULL);
	if (cfg->scope == SCOPE_SYSTEM) {
		p->threads = perf_thread_map__new_dummy();
	} else {
		if (t->target <= 0)
			tb_debug("perf-sample '%s': no target process, sampling tracebench itself",
				 t->name);
		p->threads = tb_perfev_threads_of(pid, t->target_tree);
		if (!p->threads) {
			err = errno == ENOENT ? ESRCH : errno;
			tb_err("perf-sample '%s': threads of process %d: %s", t->name, (int)pid,
			       strerror(err));
			return -err;
		}
	}
	if (!p->cpus || !p->threads) {
		tb_err("perf-sample '%s': cannot build the CPU/thread maps", t->name);
		return -ENOMEM;
	}
	p->ncpus = perf_cpu_map__nr(p->cpus);
	p->nthreads = perf_thread_map__nr(p->threads);
	p->nfds = p->ncpus * p->nthreads;
	return 0;
}

/* The attr of a sampling event, frequency clamped to the kernel's current limit. */
static int ps_attr(struct tb_tracer *t, const struct ps_cfg *cfg, struct ps_priv *p)
{
	struct perf_event_attr *a = &p->attr;
	int64_t rate = tb_perf_max_sample_rate();
	char why[256];
	uint64_t freq = ps_freq(cfg);

	a->size = sizeof(*a);
	if (tb_perfev_parse(cfg->event, a, why, sizeof(why))) {
		tb_err("perf-sample '%s': event: %s", t->name, why);
		return -EINVAL;
	}
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD;
	if (cfg->callgraph) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->sample_max_stack = (uint16_t)cfg->max_stack;
	}
	p->freq_requested = freq;
	if (freq) {
		/* The kernel may have lowered the limit since validation (throttling). */
		if (rate > 0 && freq > (uint64_t)rate) {
			tb_warn("perf-sample '%s': frequency %llu Hz lowered to the kernel's perf_event_max_sample_rate %lld",
				t->name, (unsigned long long)freq, (long long)rate);
			freq = (uint64_t)rate;
		}
		a->freq = 1;
		a->sample_freq = freq;
	} else {
		a->sample_period = (uint64_t)cfg->period;
	}
	a->disabled = 1;
	a->inherit = cfg->scope == SCOPE_WORKLOAD;
	a->sample_id_all = 1;
	/* Side-band records make the raw output usable for symbolization, as perf record does. */
	a->mmap = a->comm = a->task = cfg->output;
	return 0;
}

static int ps_open_output(struct tb_tracer *t, struct ps_priv *p)
{
	char *name, *s;
	int ret;

	if (!t->dir) {
		tb_err("perf-sample '%s': output: no directory for its records file", t->name);
		return -EINVAL;
	}
	/* The section name becomes a file name: keep it inside the tracer's directory. */
	ret = asprintf(&name, "%s.perf-records", t->name);
	if (ret < 0)
		return -ENOMEM;
	for (s = name; *s; s++)
		if (*s == '/')
			*s = '_';
	ret = asprintf(&p->out_path, "%s/%s", t->dir->path, name);
	if (ret < 0) {
		free(name);
		p->out_path = NULL;
		return -ENOMEM;
	}
	/* Through the tracer's directory, never a link (core/outdir.h); says why it failed. */
	ret = tb_dir_open_output(t->dir, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	free(name);
	p->out = ret >= 0 ? fdopen(ret, "w") : NULL;
	if (!p->out) {
		if (ret >= 0) {
			close(ret);
			ret = -ENOMEM;
		}
		tb_err("perf-sample '%s': creating %s: %s", t->name, p->out_path, strerror(-ret));
		return ret;
	}
	return 0;
}

static int ps_setup(struct tb_tracer *t)
{
	const struct ps_cfg *cfg = t->cfg;
	struct perf_evsel *evsel;
	struct ps_priv *p;
	int ret;

	tb_perf_init();
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->priv = p;
	ret = ps_maps(t, cfg, p);
	if (ret)
		goto out;
	ret = ps_attr(t, cfg, p);
	if (ret)
		goto out;
	p->evlist = perf_evlist__new();
	evsel = perf_evsel__new(&p->attr);
	if (!p->evlist || !evsel) {
		perf_evsel__delete(evsel);
		ret = -ENOMEM;
		goto out;
	}
	perf_evlist__add(p->evlist, evsel);
	perf_evlist__set_maps(p->evlist, p->cpus, p->threads);
	ret = perf_evlist__open(p->evlist);
	if (ret < 0) {
		tb_err("perf-sample '%s': opening %s on %d CPUs x %d threads: %s%s", t->name,
		       cfg->event, p->ncpus, p->nthreads, strerror(-ret),
		       ret == -ENOENT	? " (event not supported here)"
		       : ret == -EINVAL ? " (frequency above kernel.perf_event_max_sample_rate?)"
					: "");
		goto out;
	}
	tb_perf_cloexec_all();
	errno = 0;
	ret = perf_evlist__mmap(p->evlist, (int)cfg->mmap_pages);
	if (ret < 0) {
		ret = errno ? -errno : -ENOMEM;
		tb_err("perf-sample '%s': mapping %lld pages per CPU: %s (see kernel.perf_event_mlock_kb)",
		       t->name, (long long)cfg->mmap_pages, strerror(-ret));
		goto out;
	}
	p->mmap_bytes = (int64_t)p->ncpus * (cfg->mmap_pages + 1) * sysconf(_SC_PAGESIZE);
	if (cfg->output) {
		ret = ps_open_output(t, p);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	if (ret)
		ps_teardown(t);
	return ret;
}

/*
 * A sample of the workload? ps_attr's sample_type puts PERF_SAMPLE_IP first, then
 * PERF_SAMPLE_TID (u32 pid, u32 tid) right after the header.
 */
static bool of_target(const struct ps_priv *p, const union perf_event *ev)
{
	const struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
	} *s = (const void *)ev;

	return p->target > 0 && ev->header.type == PERF_RECORD_SAMPLE &&
	       ev->header.size >= sizeof(*s) && s->pid == (uint32_t)p->target;
}

static void ps_record(void *ctx, const void *rec)
{
	struct ps_priv *p = ctx;
	const struct perf_event_header *h = rec;

	tb_perf_rec_account(&p->rs, rec);
	p->target_samples += of_target(p, rec);
	if (p->out && !p->out_err && fwrite(rec, h->size, 1, p->out) != 1)
		p->out_err = errno ? -errno : -EIO;
}

/* Read every record available in every ring buffer. */
static void ps_drain(struct ps_priv *p)
{
	tb_perf_evlist_drain(p->evlist, ps_record, p);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *ps_reader(void *arg)
{
	struct ps_priv *p = arg;
	uint64_t c0 = thread_cpu_ns();
	int n;

	for (;;) {
		bool last = atomic_load(&p->stop);

		/*
		 * poll(2) reports POLLHUP even for entries libperf's filter disabled, so once a
		 * traced task has exited, polling would spin: fall back to draining on a timer
		 * (inherited events of its children may still write).
		 */
		n = 0;
		if (p->hungup && !last)
			tb_sleep_ns(HUNGUP_SLEEP_NS);
		else if (!last)
			n = perf_evlist__poll(p->evlist, POLL_MS);
		ps_drain(p);
		if (!p->hungup && n > 0 &&
		    perf_evlist__filter_pollfd(p->evlist, POLLERR | POLLHUP) < p->nfds)
			p->hungup = true;
		if (last)
			break;
	}
	p->cpu_ns = thread_cpu_ns() - c0;
	return NULL;
}

static int ps_start(struct tb_tracer *t)
{
	const struct ps_cfg *cfg = t->cfg;
	struct ps_priv *p = t->priv;
	pthread_attr_t pa;
	cpu_set_t set;
	int ret;

	if (!p) {
		tb_err("perf-sample '%s': start without a successful setup", t->name);
		return -EINVAL;
	}
	if (p->enabled) {
		tb_err("perf-sample '%s': started twice", t->name);
		return -EBUSY;
	}
	memset(&p->rs, 0, sizeof(p->rs));
	p->target_samples = 0;
	p->target = t->target;
	p->cpu_ns = 0;
	p->windowed = false;
	p->rate_start = tb_perf_max_sample_rate();
	atomic_store(&p->stop, false);
	if (cfg->consumer) {
		ret = pthread_attr_init(&pa);
		if (ret)
			return -ret;
		if (t->consumer_cpu >= 0) {
			CPU_ZERO(&set);
			CPU_SET(t->consumer_cpu, &set);
			pthread_attr_setaffinity_np(&pa, sizeof(set), &set);
		}
		ret = pthread_create(&p->thread, &pa, ps_reader, p);
		pthread_attr_destroy(&pa);
		if (ret) {
			tb_err("perf-sample '%s': starting the reader thread%s: %s", t->name,
			       t->consumer_cpu >= 0 ? " (pinned)" : "", strerror(ret));
			return -ret;
		}
		p->thread_running = true;
	}
	perf_evlist__enable(p->evlist);
	p->enabled = true;
	return 0;
}

static int ps_stop(struct tb_tracer *t)
{
	struct ps_priv *p = t->priv;
	uint64_t c0;

	if (!p || !p->enabled)
		return 0;
	perf_evlist__disable(p->evlist);
	p->enabled = false;
	if (p->thread_running) {
		/* The reader drains what is left once more before it exits. */
		ps_stop_thread(p);
	} else {
		c0 = thread_cpu_ns();
		ps_drain(p);
		p->cpu_ns = thread_cpu_ns() - c0;
	}
	if (p->out)
		fflush(p->out);
	p->rate_end = tb_perf_max_sample_rate();
	p->windowed = true;
	if (p->out_err)
		tb_warn("perf-sample '%s': writing %s: %s", t->name, p->out_path,
			strerror(-p->out_err));
	/* Kernel limits at work: say so, the figures of this window are affected. */
	if (p->rs.throttle)
		tb_warn("perf-sample '%s': the kernel throttled sampling %llu times (too many samples per tick)",
			t->name, (unsigned long long)p->rs.throttle);
	if (p->rate_start > 0 && p->rate_end > 0 && p->rate_end < p->rate_start)
		tb_warn("perf-sample '%s': the kernel lowered perf_event_max_sample_rate from %lld to %lld (sampling took more than perf_cpu_time_max_percent)",
			t->name, (long long)p->rate_start, (long long)p->rate_end);
	if (p->rs.lost)
		tb_info("perf-sample '%s': %llu records lost (ring buffer full)", t->name,
			(unsigned long long)p->rs.lost);
	return 0;
}

static int ps_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct ps_cfg *cfg = t->cfg;
	struct ps_priv *p = t->priv;
	json_t *extra;

	if (!p) {
		tb_err("perf-sample '%s': collect without a successful setup", t->name);
		return -EINVAL;
	}
	extra = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "samples",
			  (json_int_t)p->rs.samples, "lost", (json_int_t)p->rs.lost, "lost_records",
			  (json_int_t)p->rs.lost_records, "lost_samples",
			  (json_int_t)p->rs.lost_samples, "throttle", (json_int_t)p->rs.throttle,
			  "unthrottle", (json_int_t)p->rs.unthrottle, "other_records",
			  (json_int_t)p->rs.other, "bytes", (json_int_t)p->rs.bytes);
	if (!extra)
		return -ENOMEM;
	if (json_object_update_new(
		    extra,
		    json_pack(
			    "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:I, s:i, s:b}", "event",
			    cfg->event, "frequency_requested", (json_int_t)p->freq_requested,
			    "frequency_hz", (json_int_t)(p->attr.freq ? p->attr.sample_freq : 0),
			    "period", (json_int_t)(p->attr.freq ? 0 : p->attr.sample_period),
			    "max_sample_rate_start", (json_int_t)p->rate_start,
			    "max_sample_rate_end", (json_int_t)p->rate_end, "cpu_time_max_percent",
			    (json_int_t)tb_perf_cpu_time_max_percent(), "cpus", p->ncpus, "threads",
			    p->nthreads, "mmap_pages", (json_int_t)cfg->mmap_pages, "consumer_cpu",
			    t->consumer_cpu, "callgraph", cfg->callgraph))) {
		json_decref(extra);
		return -ENOMEM;
	}
	json_object_set_new(extra, "scope", json_string(scope_choices[cfg->scope]));
	if (p->out_path)
		json_object_set_new(extra, "output", json_string(p->out_path));
	st->events = p->windowed ? (int64_t)p->rs.samples : 0;
	if (p->windowed && p->target > 0)
		st->workload_events = (int64_t)p->target_samples;
	json_object_set_new(extra, "workload_samples", json_integer((json_int_t)p->target_samples));
	st->lost = p->windowed ? (int64_t)p->rs.lost : 0;
	st->cpu_s = (double)p->cpu_ns / 1e9;
	st->mem_bytes = p->mmap_bytes;
	st->extra = extra;
	return 0;
}

/* Declared: opening and mapping the events, 10 ms (quick.ini on the reference VM, median; 2-4
 * ms timed around each call on a busy machine, issue 32). */
static uint64_t ps_est_cost_ns(const void *cfg)
{
	(void)cfg;
	return 10000000ull;
}

/*
 * A sample costs the task it interrupts; per task (scope workload) the event is also switched
 * in and out with every context switch. The events figure is the samples read.
 */
static int ps_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct ps_cfg *cfg = vcfg;
	char name[TB_EV_NAME_MAX];

	h->kind = TB_HOOK_SAMPLING;
	h->scope = cfg->scope == SCOPE_SYSTEM ? TB_SCOPE_SYSTEM : TB_SCOPE_TREE;
	h->attributes = true; /* samples carry the pid: collect counts the workload's */
	snprintf(name, sizeof(name), "perf:%s", cfg->event ? cfg->event : "cpu-clock");
	return tb_hooks_add(h, name, -1, false);
}

/* The perf ring buffer filled: four times its mmap-pages, or a reader thread. */
static void ps_lost_remedy(const struct tb_tracer_record *rec, int64_t per_sample, char *buf,
			   size_t len)
{
	double pages = tb_tracer_rec_num(rec->config, "mmap-pages");
	json_t *consumer = rec->config ? json_object_get(rec->config, "consumer") : NULL;

	snprintf(buf, len, "the perf ring buffer filled: mmap-pages >= %.0f (a power of two)%s",
		 isfinite(pages) ? 4 * pages : 512.0,
		 json_is_false(consumer) ? ", or consumer = true" : "");
}

/* The perf ring buffer's size is its data pages per CPU. */
static const char *ps_buffer_key(const void *cfg)
{
	(void)cfg;
	return "mmap-pages";
}

const struct tb_tracer_ops tb_tracer_perf_sample = {
	.name = "perf-sample",
	.help = "perf sampling (libperf) at a frequency, optional call graphs, ring buffers "
		"drained "
		"by a reader thread",
	.opts = ps_opts,
	.cfg_size = sizeof(struct ps_cfg),
	.flags = TB_TR_NOSETTLE,
	.supported = ps_supported,
	.validate = ps_validate,
	.setup = ps_setup,
	.start = ps_start,
	.stop = ps_stop,
	.collect = ps_collect,
	.teardown = ps_teardown,
	.est_cost_ns = ps_est_cost_ns,
	.hooks = ps_hooks,
	.lost_remedy = ps_lost_remedy,
	.buffer_key = ps_buffer_key,
};
