// SPDX-License-Identifier: GPL-2.0
/* The plan (plan.h): matrix -> cells, support check, CPU choice, estimate. */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "plan/plan.h"
#include "tracers/tracer.h"
#include "workloads/workload.h"

static double to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

/* What is unsupported here, said and recorded (the result keeps it without the path). */
static void refuse(struct tb_scenario *s, bool skip, json_t *unsupported, int line,
		   const char *kind, const char *name, const char *type, const char *why)
{
	tb_log(skip ? TB_LOG_WARN : TB_LOG_ERROR, "%s:%d: [%s %s]: %s is unsupported here: %s",
	       s->path, line, kind, name, type, why);
	if (unsupported)
		json_array_append_new(unsupported,
				      json_sprintf("line %d: [%s %s]: %s is unsupported here: %s",
						   line, kind, name, type, why));
}

int tb_plan_check_supported(struct tb_scenario *s, bool skip, json_t *unsupported)
{
	char why[512];
	size_t i;
	int bad = 0, ret;

	skip = skip || s->skip_unsupported;

	for (i = 0; i < s->nworkloads; i++) {
		struct tb_scn_workload *w = &s->workloads[i];

		if (!w->used || !w->ops->supported || !w->ops->supported(why, sizeof(why)))
			continue;
		refuse(s, skip, unsupported, w->line, "workload", w->name, w->ops->name, why);
		w->used = false;
		bad++;
	}
	for (i = 1; i < s->ntracers; i++) {
		struct tb_scn_tracer *t = &s->tracers[i];

		if (!t->used)
			continue;
		why[0] = '\0';
		ret = t->ops->supported ? t->ops->supported(why, sizeof(why)) : 0;
		if (!ret && t->ops->supported_cfg)
			ret = t->ops->supported_cfg(t->cfg, why, sizeof(why));
		if (!ret)
			continue;
		refuse(s, skip, unsupported, t->line, "tracer", t->name, t->ops->name, why);
		t->used = false;
		bad++;
	}
	return bad && !skip ? -EOPNOTSUPP : 0;
}

/* A cell's sweep point from its section's (nothing when the section is not a sweep's). */
static int cell_sweep(struct tb_cell_sweep *cs, const struct tb_scn_point *pt)
{
	if (!pt->of)
		return 0;
	cs->present = true;
	cs->section = strdup(pt->of);
	cs->key = strdup(pt->key);
	cs->value = strdup(pt->value);
	cs->unit = strdup(pt->unit);
	cs->x = pt->x;
	return cs->section && cs->key && cs->value && cs->unit ? 0 : -ENOMEM;
}

/* A result cell for workload w under tracer t (aa: the second baseline "none-aa"). */
static struct tb_cell *add_cell(struct tb_result *r, struct tb_scn_workload *w,
				struct tb_scn_tracer *t, bool baseline, bool aa)
{
	struct tb_cell *c = tb_result_add_cell(r);
	char id[160];

	if (!c)
		return NULL;
	snprintf(id, sizeof(id), "%s/%s", w->name, aa ? "none-aa" : t->name);
	c->id = strdup(id);
	c->workload = strdup(w->name);
	c->workload_type = strdup(w->ops->name);
	c->workload_config = tb_opts_to_json(w->ops->opts, w->cfg);
	c->tracer = strdup(aa ? "none-aa" : t->name);
	c->tracer_type = strdup(t->ops->name);
	c->tracer_config = tb_opts_to_json(t->ops->opts, t->cfg);
	c->baseline = baseline;
	c->threads = w->threads;
	c->latency_mode = w->latency;
	c->partner_cpu = w->ops->flags & TB_WL_PARTNER_CPU;
	c->duration_ns = w->duration_ns;
	c->rate = NAN;
	if (!c->id || !c->workload || !c->workload_type || !c->tracer || !c->tracer_type ||
	    !c->workload_config || !c->tracer_config)
		return NULL;
	if (w->rate_sweep)
		json_object_set_new(c->workload_config, "rate-sweep", json_true());
	if (cell_sweep(&c->wsweep, &w->pt) || (!aa && cell_sweep(&c->tsweep, &t->pt)))
		return NULL;
	return c;
}

int tb_plan_expand(struct tb_scenario *s, struct tb_result *r, struct tb_plan_cell **cellsp,
		   size_t *ncellsp)
{
	size_t i, j, ntr = s->aa ? 2 : s->nmx_tracers;
	struct tb_plan_cell *cr, *cells;
	size_t ncells = 0;

	cells = calloc(s->nmx_workloads * ntr + 1, sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	*cellsp = cells;
	*ncellsp = 0;
	for (i = 0; i < s->nmx_workloads; i++) {
		size_t wi = s->mx_workloads[i];
		struct tb_scn_workload *w = &s->workloads[wi];

		if (!w->used)
			continue;
		for (j = 0; j < ntr; j++) {
			size_t ti = s->aa ? 0 : s->mx_tracers[j];
			struct tb_scn_tracer *t = &s->tracers[ti];

			if (!t->used || (!s->aa && tb_scenario_excluded(s, wi, ti)) ||
			    !tb_scenario_runs_on(t, w->name))
				continue;
			if (!add_cell(r, w, t, j == 0, s->aa && j))
				return -ENOMEM;
			cr = &cells[ncells++];
			*ncellsp = ncells;
			cr->wl = wi;
			cr->tr = ti;
			cr->cell = r->ncells - 1;
			cr->explain = j > 0 && (s->aa ? s->explain : t->explain);
			cr->slowdown = NAN;
		}
	}
	if (!ncells) {
		tb_err("%s: nothing to run (every cell was dropped)", s->path);
		return -EINVAL;
	}
	return 0;
}

/* [global] cpus as CPU ids into ids (at most max); the CPUs we may use are in set. */
static int parse_cpus(const struct tb_scenario *s, const cpu_set_t *set, int last, int *ids,
		      size_t max, size_t *n)
{
	size_t i;

	*n = 0;
	if (s->cpus.n == 1 && !strcmp(s->cpus.v[0], "none"))
		return 0;
	if (s->cpus.n == 0 || (s->cpus.n == 1 && !strcmp(s->cpus.v[0], "auto"))) {
		ids[(*n)++] = last;
		return 0;
	}
	for (i = 0; i < s->cpus.n && *n < max; i++) {
		int64_t v;

		if (tb_parse_int(s->cpus.v[i], &v) || v < 0 || v >= CPU_SETSIZE ||
		    !CPU_ISSET((int)v, set)) {
			tb_err("%s: [global] cpus: '%s' is not an online CPU we may use", s->path,
			       s->cpus.v[i]);
			return -EINVAL;
		}
		ids[(*n)++] = (int)v;
	}
	return 0;
}

static int choose_cpus(struct tb_plan *p)
{
	struct tb_scenario *s = p->s;
	int last = -1, first = -1, cpu, ids[TB_PLAN_MAX_CPUS];
	cpu_set_t set;
	size_t n = 0, i;
	int ret;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &set))
			continue;
		if (first < 0)
			first = cpu;
		last = cpu;
	}
	ret = parse_cpus(s, &set, last, ids, TB_ARRAY_SIZE(ids), &n);
	if (ret)
		return ret;
	for (i = 0; i < s->nworkloads; i++) {
		memcpy(p->wls[i].cpus, ids, n * sizeof(int));
		p->wls[i].ncpus = n;
	}
	p->consumer_cpu = s->consumer_cpu;
	if (p->consumer_cpu >= 0 || !n)
		return 0;
	/* A CPU the workload does not use, so consumers do not steal its time. */
	for (cpu = first; cpu <= last; cpu++) {
		bool used = false;

		if (!CPU_ISSET(cpu, &set))
			continue;
		for (i = 0; i < n; i++)
			used |= ids[i] == cpu;
		if (!used) {
			p->consumer_cpu = cpu;
			break;
		}
	}
	return 0;
}

int tb_plan_build(struct tb_scenario *s, struct tb_result *r, struct tb_plan *p)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->s = s;
	p->consumer_cpu = -1;
	p->wls = calloc(s->nworkloads + 1, sizeof(*p->wls));
	if (!p->wls)
		return -ENOMEM;
	ret = tb_plan_expand(s, r, &p->cells, &p->ncells);
	if (!ret)
		ret = choose_cpus(p);
	if (!ret)
		ret = tb_plan_auto_length(p, r);
	return ret;
}

void tb_plan_free(struct tb_plan *p)
{
	size_t i;

	for (i = 0; p->cells && i < p->ncells; i++) {
		free(p->cells[i].hist);
		free(p->cells[i].hist_done);
	}
	free(p->cells);
	free(p->wls);
	memset(p, 0, sizeof(*p));
}

bool tb_plan_needs_root(const struct tb_plan *p, const struct tb_result *r)
{
	const struct tb_tracer_ops *none = tb_tracer_find("none");
	size_t i;

	for (i = 0; i < p->ncells; i++)
		if (!r->cells[p->cells[i].cell].baseline &&
		    p->s->tracers[p->cells[i].tr].ops != none)
			return true;
	return false;
}

/* Is plan cell i the baseline of a workload with an explained cell? */
static bool explained_baseline(const struct tb_plan *p, size_t i)
{
	for (size_t j = 0; j < p->ncells; j++)
		if (p->cells[j].explain && p->cells[j].wl == p->cells[i].wl &&
		    p->cells[i].tr == 0 && j != i)
			return true;
	return false;
}

size_t tb_plan_explain_cells(const struct tb_plan *p, size_t *explained)
{
	size_t n = 0, x = 0;

	for (size_t i = 0; i < p->ncells; i++) {
		x += p->cells[i].explain;
		n += p->cells[i].explain || explained_baseline(p, i);
	}
	if (explained)
		*explained = x;
	return n;
}

/* A cell's declared tracer cost: per sample, or once and then a rearm when the tracer is kept. */
static double tracer_cost_s(const struct tb_plan *p, const struct tb_scn_tracer *t, double samples)
{
	double once, again;

	if (!t->ops->est_cost_ns || samples < 1)
		return 0;
	once = to_s(t->ops->est_cost_ns(t->cfg));
	if (!p->s->reuse_tracers || !tb_tracer_rearms(t->ops, t->cfg))
		return samples * once;
	again = t->ops->est_rearm_ns ? to_s(t->ops->est_rearm_ns(t->cfg)) : once;
	return once + (samples - 1) * again;
}

/*
 * Under a max-time, the probes (runner/budget.h): a sample of TB_PLAN_PROBE_NS of baseline ops
 * for each traced cell whose ops the duration sizes, its tracer set up, and a second one that
 * rearms a tracer the run keeps; with a duration the run chooses, one more for each other such
 * cell (its fixed cost). The probes' own slowdown is not known here. *n counts the traced
 * cells probed.
 */
static double probes_s(const struct tb_plan *p, size_t *n)
{
	bool chosen = p->s->precision > 0 && !p->s->duration_set;
	double s = 0;

	*n = 0;
	for (size_t i = 0; p->s->max_time_ns && i < p->ncells; i++) {
		const struct tb_scn_workload *w = &p->s->workloads[p->cells[i].wl];
		const struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];
		double one = to_s(TB_PLAN_PROBE_NS + 2 * t->settle_ns) + tb_plan_process_s(w);

		if ((w->ops->flags & TB_WL_ONESHOT) || w->ops->batch_ns)
			continue;
		if (t->ops->flags & TB_TR_BASELINE) {
			s += chosen ? one : 0;
			continue;
		}
		s += one + (t->ops->est_cost_ns ? to_s(t->ops->est_cost_ns(t->cfg)) : 0);
		if (p->s->reuse_tracers && tb_tracer_rearms(t->ops, t->cfg))
			s += one + (t->ops->est_rearm_ns ? to_s(t->ops->est_rearm_ns(t->cfg)) : 0);
		(*n)++;
	}
	return s;
}

/* The estimate with the batches of the workloads whose duration is free (tb_plan_duration_free)
 * at free_d instead of their duration (0: as they are). */
static void estimate_at(const struct tb_plan *p, struct tb_plan_estimate *e, uint64_t free_d)
{
	double rounds = (double)(p->s->warmup + tb_scenario_first_rounds(p->s));
	size_t i, nacct = 0;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < p->ncells; i++) {
		struct tb_scn_workload *w = &p->s->workloads[p->cells[i].wl];
		struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];
		double b = free_d && tb_plan_duration_free(p, p->cells[i].wl) ? to_s(free_d)
									      : tb_plan_batch_s(w);

		double acct = 0;

		/* one accounting sample per accounting-every measured rounds, on the cell's kept
		 * tracer as the timed ones (set up afresh where none is kept) */
		if (!(t->ops->flags & TB_TR_BASELINE) && t->ops->accounts &&
		    t->ops->accounts(t->cfg))
			acct = (double)tb_scenario_accounting_rounds(
				p->s, tb_scenario_first_rounds(p->s));
		e->batch_s += (rounds + acct) * b;
		e->settle_s += (rounds + acct) * 2 * to_s(t->settle_ns);
		e->process_s += (rounds + acct) * tb_plan_process_s(w);
		e->tracer_s += tracer_cost_s(p, t, rounds + acct);
		nacct += (size_t)acct;
		/* explain samples also read the kernel's symbols (about 100 ms) */
		if (p->cells[i].explain || explained_baseline(p, i))
			e->explain_s += (double)p->s->explain_samples *
					(b + 2 * to_s(t->settle_ns) + tb_plan_process_s(w) + 0.1);
	}
	e->nsamples = (size_t)rounds * p->ncells + nacct;
	e->calib_s = (double)p->s->nmx_workloads * TB_PLAN_CALIB_S + probes_s(p, &e->nprobes);
	for (i = 0; i < p->s->nworkloads; i++) /* a counted workload's pass is one sample more */
		if (p->s->workloads[i].used && (p->s->workloads[i].ops->flags & TB_WL_COUNTED))
			e->calib_s += tb_plan_batch_s(&p->s->workloads[i]) +
				      tb_plan_process_s(&p->s->workloads[i]);
	e->total_s =
		e->batch_s + e->settle_s + e->process_s + e->tracer_s + e->calib_s + e->explain_s;
}

void tb_plan_estimate(const struct tb_plan *p, struct tb_plan_estimate *e)
{
	estimate_at(p, e, 0);
}

double tb_plan_estimate_s(const struct tb_plan *p)
{
	struct tb_plan_estimate e;

	tb_plan_estimate(p, &e);
	return e.total_s;
}

/*
 * What a max-time does to the run (runner/budget.h), and when the plan alone shows that the
 * rounds asked cannot fit it: the estimate counts each traced batch as long as its baseline's,
 * and a tracer's slowdown only lengthens a round, so a shortfall seen here is certain. A
 * minimum the plan chose (chosen) is lowered to fit instead (tb_plan_fit_min_rounds).
 */
static void print_budget(FILE *f, const struct tb_plan *p, const struct tb_plan_estimate *e,
			 bool chosen)
{
	const struct tb_scenario *s = p->s;
	double budget = to_s(s->max_time_ns);
	bool shortens = s->precision > 0 && !s->duration_set;
	struct tb_plan_estimate least;

	/* the least the run can need: its free durations at the shortest the run may choose */
	estimate_at(p, &least,
		    shortens && s->duration_ns > TB_PLAN_AUTO_MIN_NS ? TB_PLAN_AUTO_MIN_NS : 0);

	fprintf(f,
		"max-time %.3g s: after calibration each traced cell's slowdown is measured (%zu "
		"short sample%s under its tracer, a kept tracer's rearm too), a cell at least %.0fx "
		"slower than its baseline gets samples of its own op count that last about the "
		"duration, %sand no round starts that would not end within max-time\n",
		budget, e->nprobes, e->nprobes == 1 ? "" : "s", TB_PLAN_SIZE_SLOWDOWN,
		shortens ? "the duration is lengthened where the fixed costs the probes measure "
			   "exceed the declared ones, then shortened (not below 0.2 s) until the "
			   "warmup and the minimum rounds fit, "
			 : "");
	if (least.total_s > budget && chosen)
		fprintf(f,
			"max-time %.3g s holds fewer than the %u minimum rounds the run chose (about "
			"%.0f s): it lowers them to the rounds that fit, not below %u, once the "
			"tracers' slowdown is measured\n",
			budget, tb_scenario_first_rounds(s), ceil(least.total_s),
			TB_PLAN_AUTO_MIN_ROUNDS_FLOOR);
	else if (least.total_s > budget)
		fprintf(f,
			"max-time %.3g s is too short: the warmup and the %u rounds asked need about "
			"%.0f s%s before the tracers' slowdown is counted (it only adds): set max-time "
			">= %.0f s, or fewer rounds, or shorter samples\n",
			budget, tb_scenario_first_rounds(s), ceil(least.total_s),
			least.batch_s < e->batch_s ? " at the shortest samples the run may choose"
						   : "",
			ceil(least.total_s));
}

void tb_plan_print(FILE *f, const struct tb_plan *p, const struct tb_result *r)
{
	struct tb_scenario *s = p->s;
	struct tb_plan_estimate e;
	char explain[64] = "", adaptive[48] = "";
	double est;
	size_t i;

	tb_plan_estimate(p, &e);
	est = e.total_s;
	if (e.explain_s > 0)
		snprintf(explain, sizeof(explain), "; the explain phase %.1f s", e.explain_s);
	if (s->precision > 0)
		snprintf(adaptive, sizeof(adaptive), " (adaptive: then up to %u)", s->max_rounds);
	fprintf(f, "scenario %s (%s): %zu cells, %u warmup + %u rounds%s, %.3g s per sample\n",
		s->name, s->path, p->ncells, s->warmup, tb_scenario_first_rounds(s), adaptive,
		to_s(s->duration_ns));
	if (r->sample_length)
		fprintf(f, "  sample length and settle %s\n", r->sample_length);
	if (r->rounds_chosen)
		fprintf(f, "  rounds %s\n", r->rounds_chosen);
	for (i = 0; i < p->ncells; i++) {
		const struct tb_cell *c = &r->cells[p->cells[i].cell];

		fprintf(f, "  %-40s %s x %s%s%s\n", c->id, c->workload_type, c->tracer_type,
			c->baseline ? "  (baseline)" : "",
			p->cells[i].explain ? "  (explained)" : "");
	}
	for (i = 0; i < s->nworkloads; i++) {
		const struct tb_scn_workload *w = &s->workloads[i];

		if (w->used && tb_plan_batch_s(w) != to_s(w->duration_ns))
			fprintf(f,
				"  [workload %s]: a sample takes %.3g s, not %.3g s: its client "
				"runs that long (wrk takes whole seconds; an open loop, its fewest "
				"requests at its rate)\n",
				w->name, tb_plan_batch_s(w), to_s(w->duration_ns));
	}
	if (tb_plan_explain_cells(p, NULL))
		fprintf(f,
			"explain: %u profiled samples of each explained cell and its baseline after "
			"the rounds, cpu-clock at %llu Hz\n",
			s->explain_samples, (unsigned long long)s->explain_hz);
	fprintf(f, "estimated time: %um%02us%s\n", (unsigned int)(est / 60),
		(unsigned int)fmod(est, 60),
		s->precision > 0 ? " for the minimum rounds; adaptive stopping may add more" : "");
	fprintf(f,
		"  = %zu samples: batches %.1f s + settle %.1f s + processes %.1f s + tracer setup "
		"and teardown %.1f s; calibration and counting %.1f s%s%s (traced batches also "
		"take longer by the tracer's overhead%s)\n",
		e.nsamples, e.batch_s, e.settle_s, e.process_s, e.tracer_s, e.calib_s,
		e.nprobes ? ", with the slowdown probes" : "", explain,
		e.nprobes ? ", up to twice the duration under a max-time" : "");
	if (s->max_time_ns)
		print_budget(f, p, &e, r->rounds_chosen && !s->min_rounds_set);
}
