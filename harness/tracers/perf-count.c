// SPDX-License-Identifier: GPL-2.0
/*
 * perf-count: in-kernel counting of perf events (libperf), for the workload or all CPUs.
 *
 * Each event is opened on its own (libperf's perf_evlist__open is all-or-nothing) and kept when
 * it opens; the others are reported with their errno. Counting needs no consumer: the cost is
 * paid in the kernel where the events happen, so cpu_s is 0 and nothing can be lost.
 *
 * Set up afresh for every sample, never kept (no rearm): a per-task counter is bound to its task
 * at perf_event_open and cannot be re-pointed at the next sample's process, and an open counter
 * acts on the system even while disabled (a tracepoint event registers its probe at the open,
 * and a syscall tracepoint then sends every task of the host through the syscall slow path; a
 * software event turns its static key on), so one kept between samples would tax the other
 * cells' samples, the baseline's too. A cgroup counter the workloads join would stay open too.
 * Per sample (issue 32, timed around each call on the reference VM, busy): opening a tracepoint
 * counter 0.5-0.7 ms, the maps under 0.1 ms; closing it 7-15 ms, the kernel's wait for an RCU
 * grace period when the tracepoint's last perf event goes (perf_trace_event_unreg); a software
 * counter closes in microseconds. METHODOLOGY.md section 9 has the figures.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "tracers/perf-common.h"
#include "core/tb.h"
#include "tracers/tracer.h"

enum { SCOPE_WORKLOAD, SCOPE_SYSTEM };

static const char *const scope_choices[] = {"workload", "system", NULL};

struct pc_cfg {
	struct tb_strlist events;
	int scope;
	bool inherit;
};

static const struct tb_option pc_opts[] = {
	{"events", TB_OPT_LIST, offsetof(struct pc_cfg, events),
	 "task-clock,context-switches,page-faults,cpu-migrations",
	 "events to count: task-clock, context-switches, page-faults, cycles, ..., or "
	 "sys:tracepoint"},
	{"scope", TB_OPT_CHOICE, offsetof(struct pc_cfg, scope), "workload",
	 "workload: the workload's threads (and children); system: every online CPU", 0, 0,
	 scope_choices},
	{"inherit", TB_OPT_BOOL, offsetof(struct pc_cfg, inherit), "true",
	 "workload scope: also count threads and children created after setup"},
	TB_OPT_END,
};

/* Raw counts of one fd, as read(2) returns them with TOTAL_TIME_ENABLED|RUNNING. */
struct pc_val {
	uint64_t val, ena, run;
};

struct pc_event {
	char *name;
	struct perf_event_attr attr;
	struct perf_evsel *evsel; /* NULL when it did not open */
	int err;		  /* -errno of the failed open */
	struct pc_val *base;	  /* per fd, read when the window started */
	struct pc_val *end;	  /* per fd, read when the window stopped */
	bool counted;		  /* a whole window was read */
};

struct pc_priv {
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	int ncpus, nthreads;
	struct pc_event *ev;
	size_t nev, nopen;
	bool enabled;
};

static int pc_supported(char *why, size_t len)
{
	return tb_perf_probe(why, len);
}

static int pc_validate(const void *cfgp, char *err, size_t len)
{
	const struct pc_cfg *cfg = cfgp;
	struct perf_event_attr attr;
	char why[256];
	size_t i;

	if (!cfg->events.n) {
		snprintf(err, len, "events: no event given");
		return -EINVAL;
	}
	for (i = 0; i < cfg->events.n; i++) {
		memset(&attr, 0, sizeof(attr));
		if (tb_perfev_parse(cfg->events.v[i], &attr, why, sizeof(why))) {
			snprintf(err, len, "events: %s", why);
			return -EINVAL;
		}
	}
	return 0;
}

/* Read every fd of e into vals (ncpus * nthreads entries). */
static int pc_read(struct pc_priv *p, struct pc_event *e, struct pc_val *vals)
{
	struct perf_counts_values c;
	int cpu, thr, ret;

	for (cpu = 0; cpu < p->ncpus; cpu++) {
		for (thr = 0; thr < p->nthreads; thr++) {
			ret = perf_evsel__read(e->evsel, cpu, thr, &c);
			if (ret) {
				tb_err("perf-count: reading %s (cpu index %d, thread index %d): %s",
				       e->name, cpu, thr, strerror(-ret));
				return ret;
			}
			vals[cpu * p->nthreads + thr] = (struct pc_val){c.val, c.ena, c.run};
		}
	}
	return 0;
}

static void pc_teardown(struct tb_tracer *t)
{
	struct pc_priv *p = t->priv;
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nev; i++) {
		if (p->ev[i].evsel) {
			perf_evsel__close(p->ev[i].evsel);
			perf_evsel__delete(p->ev[i].evsel);
		}
		free(p->ev[i].name);
		free(p->ev[i].base);
		free(p->ev[i].end);
	}
	free(p->ev);
	perf_cpu_map__put(p->cpus);
	perf_thread_map__put(p->threads);
	free(p);
	t->priv = NULL;
}

static int pc_open_maps(struct tb_tracer *t, const struct pc_cfg *cfg, struct pc_priv *p)
{
	pid_t pid = t->target > 0 ? t->target : getpid();

	if (cfg->scope == SCOPE_SYSTEM) {
		p->cpus = perf_cpu_map__new(NULL);
		p->threads = perf_thread_map__new_dummy();
	} else {
		/* No workload process: the workload runs in this process, count its threads. */
		if (t->target <= 0)
			tb_debug("perf-count '%s': no target process, counting tracebench itself",
				 t->name);
		p->cpus = perf_cpu_map__dummy_new();
		p->threads = tb_perfev_threads_of(pid, t->target_tree);
		if (!p->threads) {
			int err = errno == ENOENT ? ESRCH : errno;

			tb_err("perf-count '%s': threads of process %d: %s", t->name, (int)pid,
			       strerror(err));
			return -err;
		}
	}
	if (!p->cpus || !p->threads) {
		tb_err("perf-count '%s': cannot build the CPU/thread maps", t->name);
		return -ENOMEM;
	}
	p->ncpus = perf_cpu_map__nr(p->cpus);
	p->nthreads = perf_thread_map__nr(p->threads);
	return 0;
}

/*
 * Parse and open event e (name) on p's CPUs and threads, alone, so that one unsupported event
 * does not take the others down: a failed open is e->err (e->evsel NULL). Returns 0, or
 * -EINVAL (a bad name, said) or -ENOMEM, which fail the setup.
 */
static int open_event(struct tb_tracer *t, const struct pc_cfg *cfg, struct pc_priv *p,
		      struct pc_event *e, const char *name, size_t nfd)
{
	char why[256];
	int ret;

	e->name = strdup(name);
	if (!e->name)
		return -ENOMEM;
	e->attr.size = sizeof(e->attr);
	if (tb_perfev_parse(e->name, &e->attr, why, sizeof(why))) {
		tb_err("perf-count '%s': events: %s", t->name, why);
		return -EINVAL;
	}
	e->attr.disabled = 1;
	e->attr.inherit = cfg->scope == SCOPE_WORKLOAD && cfg->inherit;
	e->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	e->base = calloc(nfd, sizeof(*e->base));
	e->end = calloc(nfd, sizeof(*e->end));
	e->evsel = perf_evsel__new(&e->attr);
	if (!e->base || !e->end || !e->evsel)
		return -ENOMEM;
	ret = perf_evsel__open(e->evsel, p->cpus, p->threads);
	if (ret < 0) {
		e->err = ret;
		perf_evsel__delete(e->evsel);
		e->evsel = NULL;
	}
	return 0;
}

static int pc_setup(struct tb_tracer *t)
{
	const struct pc_cfg *cfg = t->cfg;
	char *failed = NULL, *tmp;
	struct pc_priv *p;
	struct pc_event *e;
	size_t i, nfd;
	int ret, first_err = 0;

	tb_perf_init();
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->priv = p;
	ret = pc_open_maps(t, cfg, p);
	if (ret)
		goto out;
	nfd = (size_t)p->ncpus * (size_t)p->nthreads;
	p->ev = calloc(cfg->events.n, sizeof(*p->ev));
	if (!p->ev) {
		ret = -ENOMEM;
		goto out;
	}
	p->nev = cfg->events.n;
	for (i = 0; i < p->nev; i++) {
		e = &p->ev[i];
		ret = open_event(t, cfg, p, e, cfg->events.v[i], nfd);
		if (ret)
			goto out;
		if (!e->err) {
			p->nopen++;
			continue;
		}
		if (!first_err)
			first_err = e->err;
		if (asprintf(&tmp, "%s%s%s (%s)", failed ? failed : "", failed ? ", " : "", e->name,
			     strerror(-e->err)) < 0) {
			ret = -ENOMEM;
			goto out;
		}
		free(failed);
		failed = tmp;
	}
	tb_perf_cloexec_all();
	ret = 0;
	if (!p->nopen) {
		tb_err("perf-count '%s': no event could be opened: %s", t->name, failed);
		ret = first_err;
	} else if (failed) {
		tb_warn("perf-count '%s': not counted here: %s", t->name, failed);
	}
out:
	free(failed);
	if (ret)
		pc_teardown(t);
	return ret;
}

static int pc_start(struct tb_tracer *t)
{
	struct pc_priv *p = t->priv;
	size_t i;
	int ret;

	if (!p) {
		tb_err("perf-count '%s': start without a successful setup", t->name);
		return -EINVAL;
	}
	if (p->enabled) {
		tb_err("perf-count '%s': started twice", t->name);
		return -EBUSY;
	}
	for (i = 0; i < p->nev; i++) {
		p->ev[i].counted = false;
		/* Counts are cumulative: the window is end minus what is there now. */
		if (p->ev[i].evsel) {
			ret = pc_read(p, &p->ev[i], p->ev[i].base);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < p->nev; i++) {
		if (!p->ev[i].evsel)
			continue;
		ret = perf_evsel__enable(p->ev[i].evsel);
		if (ret) {
			tb_err("perf-count '%s': enabling %s: %s", t->name, p->ev[i].name,
			       strerror(-ret));
			return ret;
		}
	}
	p->enabled = true;
	return 0;
}

static int pc_stop(struct tb_tracer *t)
{
	struct pc_priv *p = t->priv;
	int ret, first = 0;
	size_t i;

	if (!p || !p->enabled)
		return 0;
	for (i = 0; i < p->nev; i++) {
		if (p->ev[i].evsel) {
			ret = perf_evsel__disable(p->ev[i].evsel);
			if (ret && !first) {
				tb_err("perf-count '%s': disabling %s: %s", t->name, p->ev[i].name,
				       strerror(-ret));
				first = ret;
			}
		}
	}
	p->enabled = false;
	for (i = 0; i < p->nev; i++) {
		if (!p->ev[i].evsel)
			continue;
		ret = pc_read(p, &p->ev[i], p->ev[i].end);
		if (ret) {
			first = first ? first : ret;
			continue;
		}
		p->ev[i].counted = true;
	}
	return first;
}

/* One event's window: sums over fds, each fd scaled by enabled/running (multiplexing). */
static json_t *pc_event_json(struct pc_priv *p, struct pc_event *e, double *scaled_out)
{
	uint64_t raw = 0, ena = 0, run = 0, dv, de, dr;
	double scaled = 0;
	size_t i, nfd = (size_t)p->ncpus * (size_t)p->nthreads;

	for (i = 0; i < nfd; i++) {
		dv = e->end[i].val - e->base[i].val;
		de = e->end[i].ena - e->base[i].ena;
		dr = e->end[i].run - e->base[i].run;
		raw += dv;
		ena += de;
		run += dr;
		if (dr && dr < de)
			scaled += (double)dv * (double)de / (double)dr;
		else
			scaled += (double)dv;
	}
	*scaled_out = scaled;
	return json_pack("{s:f, s:I, s:I, s:I, s:f, s:s}", "value", scaled, "raw", (json_int_t)raw,
			 "enabled_ns", (json_int_t)ena, "running_ns", (json_int_t)run,
			 "running_ratio", ena ? (double)run / (double)ena : 0.0, "unit",
			 tb_perfev_is_time(&e->attr) ? "ns" : "count");
}

/*
 * Software events and tracepoints cost the kernel something each time they happen, so their
 * counts are what "events" means; clocks count nanoseconds and hardware counters are free.
 */
static bool pc_costs_per_occurrence(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_TRACEPOINT ||
	       (a->type == PERF_TYPE_SOFTWARE && !tb_perfev_is_time(a));
}

/*
 * Counting costs where a counted event happens (software events, tracepoints) and, for a
 * per-task counter, on every context switch of the workload (the counter is switched in and
 * out with the task). The events figure is the sum of the occurrence counts.
 */
static int pc_hooks(const void *vcfg, struct tb_hooks *h)
{
	const struct pc_cfg *cfg = vcfg;
	struct perf_event_attr attr;
	char why[128], name[TB_EV_NAME_MAX];
	const char *task;
	size_t i;
	int ret = 0;

	h->kind = TB_HOOK_COUNTER;
	h->scope = cfg->scope == SCOPE_SYSTEM ? TB_SCOPE_SYSTEM
		   : cfg->inherit	      ? TB_SCOPE_TREE
					      : TB_SCOPE_PROCESS;
	for (i = 0; !ret && i < cfg->events.n; i++) {
		memset(&attr, 0, sizeof(attr));
		if (tb_perfev_parse(cfg->events.v[i], &attr, why, sizeof(why)))
			continue;
		task = tb_perfev_task_name(&attr);
		snprintf(name, sizeof(name), "%s%s",
			 attr.type == PERF_TYPE_TRACEPOINT ? "" : "perf:", cfg->events.v[i]);
		ret = tb_hooks_add(h, task ? task : name, -1, pc_costs_per_occurrence(&attr));
	}
	return ret;
}

static int pc_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct pc_cfg *cfg = t->cfg;
	struct pc_priv *p = t->priv;
	json_t *extra, *counted, *unsupported, *ej;
	double v, occurrences = 0, first = -1;
	const char *first_name = NULL;
	char rule[160];
	bool any_occ = false;
	size_t i;

	if (!p) {
		tb_err("perf-count '%s': collect without a successful setup", t->name);
		return -EINVAL;
	}
	extra = json_object();
	counted = json_object();
	unsupported = json_object();
	/* extra owns the other two from here (set_new releases them on failure). */
	if (json_object_set_new(extra, "counts", counted) ||
	    json_object_set_new(extra, "unsupported", unsupported))
		goto nomem;
	for (i = 0; i < p->nev; i++) {
		struct pc_event *e = &p->ev[i];

		if (!e->evsel) {
			ej = json_pack("{s:i, s:s}", "errno", -e->err, "error", strerror(-e->err));
			if (!ej || json_object_set_new(unsupported, e->name, ej))
				goto nomem;
			continue;
		}
		if (!e->counted)
			continue;
		ej = pc_event_json(p, e, &v);
		if (!ej || json_object_set_new(counted, e->name, ej))
			goto nomem;
		if (pc_costs_per_occurrence(&e->attr)) {
			any_occ = true;
			occurrences += v;
		} else if (!first_name) {
			first_name = e->name;
			first = v;
		}
	}
	json_object_set_new(extra, "scope", json_string(scope_choices[cfg->scope]));
	json_object_set_new(extra, "cpus", json_integer(p->ncpus));
	json_object_set_new(extra, "threads", json_integer(p->nthreads));
	if (any_occ)
		snprintf(rule, sizeof(rule), "sum of the software and tracepoint counts");
	else if (first_name)
		snprintf(rule, sizeof(rule), "value of %s (no software or tracepoint count)",
			 first_name);
	else
		snprintf(rule, sizeof(rule), "nothing counted");
	json_object_set_new(extra, "events_rule", json_string(rule));
	st->events = (int64_t)((any_occ ? occurrences : first_name ? first : 0) + 0.5);
	st->lost = 0;
	st->cpu_s = 0;
	st->mem_bytes = 0;
	st->extra = extra;
	return 0;
nomem:
	json_decref(extra);
	return -ENOMEM;
}

/* Declared: opening and closing the events, 10 ms (quick.ini on the reference VM, median; a
 * tracepoint's close alone 7-15 ms on a busy machine, issue 32). */
static uint64_t pc_est_cost_ns(const void *cfg)
{
	(void)cfg;
	return 10000000ull;
}

const struct tb_tracer_ops tb_tracer_perf_count = {
	.name = "perf-count",
	.help = "perf counters (libperf) for the workload or all CPUs; unsupported ones reported",
	.opts = pc_opts,
	.cfg_size = sizeof(struct pc_cfg),
	.flags = TB_TR_NOSETTLE,
	.supported = pc_supported,
	.validate = pc_validate,
	.setup = pc_setup,
	.start = pc_start,
	.stop = pc_stop,
	.collect = pc_collect,
	.teardown = pc_teardown,
	.est_cost_ns = pc_est_cost_ns,
	.hooks = pc_hooks,
};
