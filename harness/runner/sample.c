// SPDX-License-Identifier: GPL-2.0
/*
 * One child of a workload for the runner (runner/sample.h): a calibration or one sample of a
 * cell, the tracers' directories they write into, the shuffle and the progress callback that
 * the rounds (runner.c) and the explain phase (explain.c) share.
 */
#include <errno.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tb.h"
#include "runner/child.h"
#include "runner/sample.h"
#include "tracers/tracer.h"

uint64_t tb_runner_sample_timeout(const struct tb_scenario *s, const struct tb_scn_workload *w)
{
	if (s->sample_timeout_ns)
		return s->sample_timeout_ns;
	return 20 * w->duration_ns + 60000000000ull;
}

/* What the workload process of section wi runs. */
void tb_runner_fill_req(const struct tb_plan *p, size_t wi, struct tb_measure_req *req)
{
	const struct tb_scn_workload *w = &p->s->workloads[wi];

	memset(req, 0, sizeof(*req));
	req->wl = w->ops;
	req->name = w->name;
	req->cfg = w->cfg;
	req->tmpdir = p->wls[wi].tmpdir;
	req->threads = w->threads;
	req->cpus = p->wls[wi].cpus;
	req->ncpus = p->wls[wi].ncpus;
	req->ops = p->wls[wi].ops;
	req->latency = w->latency;
	req->latency_every = w->latency_every;
	req->mlock = p->s->mlock;
	req->perf_counts = p->s->perf_counts;
	req->duration_ns = w->duration_ns;
}

int tb_runner_calibrate(struct tb_runner *rn, size_t wi)
{
	struct tb_plan *p = rn->plan;
	struct tb_scn_workload *w = &p->s->workloads[wi];
	struct tb_measure_req req;

	if (w->ops->flags & TB_WL_ONESHOT) {
		p->wls[wi].ops = 1;
		return 0;
	}
	tb_runner_fill_req(p, wi, &req);
	return tb_child_calibrate(&req, w->duration_ns, tb_runner_sample_timeout(p->s, w),
				  &p->wls[wi].ops);
}

struct tb_runner_dirs {
	struct tb_dir tracers; /* <run dir>/tracers/ */
	size_t n;	       /* the scenario's tracer sections */
	struct tb_dir sub[];   /* sub[i]: tracers/<section i>/, fd -1 until its first sample */
};

/*
 * d's path made absolute: a tracer hands it to tools that do not run in our directory or take a
 * URL (lttng's file://results/... is not one), so every tracer gets an absolute outdir.
 */
static int absolute(struct tb_dir *d)
{
	char cwd[PATH_MAX], abs[PATH_MAX];

	if (d->path[0] == '/')
		return 0;
	if (!getcwd(cwd, sizeof(cwd))) {
		tb_err("%s: cannot make the path absolute: %s", d->path, strerror(errno));
		return -errno;
	}
	if ((size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, d->path) >= sizeof(abs)) {
		tb_err("%s/%s: path too long", cwd, d->path);
		return -ENAMETOOLONG;
	}
	memcpy(d->path, abs, sizeof(d->path));
	return 0;
}

/*
 * <run dir>/tracers/<name>/ for the files of tracer section tr (name: its name), made without
 * following links (core/outdir.h) and opened once, so that every sample's tracer, held ones
 * included, writes into the directory made here even if the run directory's path is swapped
 * for a link later. Into *out; 0 or -errno (said).
 */
static int tracer_dir(struct tb_runner *rn, size_t tr, const char *name, const struct tb_dir **out)
{
	struct tb_runner_dirs *d = rn->dirs;
	size_t i, n = rn->plan->s->ntracers;
	int ret;

	if (!d) {
		d = calloc(1, sizeof(*d) + n * sizeof(d->sub[0]));
		if (!d)
			return -ENOMEM;
		d->tracers.fd = -1;
		d->n = n;
		for (i = 0; i < n; i++)
			d->sub[i].fd = -1;
		rn->dirs = d;
	}
	if (tr >= d->n)
		return -EINVAL;
	if (d->tracers.fd < 0) {
		ret = tb_dir_sub(rn->dir, "tracers", TB_DIR_CREATE, 0755, &d->tracers);
		if (ret)
			return ret;
		ret = absolute(&d->tracers);
		if (ret)
			return ret;
	}
	if (d->sub[tr].fd < 0) {
		ret = tb_dir_sub(&d->tracers, name, TB_DIR_CREATE, 0755, &d->sub[tr]);
		if (ret)
			return ret;
	}
	*out = &d->sub[tr];
	return 0;
}

bool tb_runner_accounts(const struct tb_runner *rn, const struct tb_plan_cell *cr)
{
	const struct tb_scn_tracer *t = &rn->plan->s->tracers[cr->tr];

	return !rn->r->cells[cr->cell].baseline && t->ops->accounts && t->ops->accounts(t->cfg);
}

int tb_runner_sample(struct tb_runner *rn, struct tb_plan_cell *cr, int round, bool warmup,
		     bool accounting, const struct tb_scn_tracer *tracer, struct tb_cell *into)
{
	struct tb_plan *p = rn->plan;
	struct tb_cell *cell = into ? into : &rn->r->cells[cr->cell];
	struct tb_measure_job job = {
		.w = &p->s->workloads[cr->wl],
		.t = tracer ? tracer : &p->s->tracers[cr->tr],
		.consumer_cpu = p->consumer_cpu,
		.timeout_ns = tb_runner_sample_timeout(p->s, &p->s->workloads[cr->wl]),
		.round = round,
		.warmup = warmup,
		.order = rn->order++,
		.accounting = accounting,
		.split = tb_runner_accounts(rn, cr),
	};
	int ret;

	/* The explain phase's tracer is a copy of section cr->tr (runner/explain.c): its name. */
	ret = tracer_dir(rn, cr->tr, job.t->name, &job.tracer_dir);
	if (ret)
		return ret;
	tb_runner_fill_req(p, cr->wl, &job.req);
	if (cr->ops) /* its own op count (runner/budget.h) */
		job.req.ops = cr->ops;
	job.expect = cell->expected.items;
	job.nexpect = cell->expected.nitems;
	/* accounting samples too: their rearm opens the stats, their park closes them */
	job.held = cr->held;
	ret = tb_child_sample(&job, cell, &cr->hist, &cr->dead);
	if (cell->nsamples && cell->samples[cell->nsamples - 1].failed)
		cr->failures++;
	return ret;
}

size_t tb_runner_planned(const struct tb_runner *rn, const struct tb_plan_cell *cr)
{
	size_t n = 0;

	if (cr)
		return rn->planned_rounds +
		       (tb_runner_accounts(rn, cr)
				? tb_scenario_accounting_rounds(rn->plan->s, rn->planned_measured)
				: 0);
	for (size_t i = 0; i < rn->plan->ncells; i++)
		n += tb_runner_planned(rn, &rn->plan->cells[i]);
	return n;
}

void tb_runner_disk_need(const struct tb_runner *rn, struct tb_runner_disk *d)
{
	const struct tb_plan *p = rn->plan;

	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < p->ncells; i++) {
		const struct tb_plan_cell *cr = &p->cells[i];
		const struct tb_scn_tracer *st = &p->s->tracers[cr->tr];
		const struct tb_cell *c = &rn->r->cells[cr->cell];
		struct tb_measure_req req;
		struct tb_tracer t = {0};
		bool kept = false;
		double bytes;

		if (c->baseline || !st->ops->est_write_bytes)
			continue;
		tb_runner_fill_req(p, cr->wl, &req);
		if (cr->ops)
			req.ops = cr->ops;
		t.ops = st->ops;
		t.name = st->name;
		t.cfg = st->cfg;
		t.sample_ops = req.ops;
		t.threads = req.threads ? req.threads : 1;
		t.cpus = req.cpus;
		t.ncpus = req.ncpus;
		t.expect = c->expected.items;
		t.nexpect = c->expected.nitems;
		bytes = (double)st->ops->est_write_bytes(&t, &kept);
		if (kept) /* every sample's: the timed ones and the accounting ones */
			d->kept_bytes += bytes * (double)tb_runner_planned(rn, cr);
		else if (bytes > d->largest_bytes) {
			d->largest_bytes = bytes;
			d->largest = c;
		}
	}
	d->peak_bytes = d->kept_bytes + d->largest_bytes;
}

/* What the plan expects one sample of cell i to take, the tracer's slowdown left out. */
static double planned_sample_s(const struct tb_plan *p, size_t i)
{
	const struct tb_scn_workload *w = &p->s->workloads[p->cells[i].wl];
	const struct tb_scn_tracer *t = &p->s->tracers[p->cells[i].tr];

	return tb_plan_batch_s(w) + (double)(2 * t->settle_ns) / 1e9 + tb_plan_process_s(w);
}

bool tb_runner_explain_sampled(const struct tb_plan *p, size_t i)
{
	if (p->cells[i].explain)
		return true;
	for (size_t j = 0; p->cells[i].tr == 0 && j < p->ncells; j++)
		if (p->cells[j].explain && p->cells[j].wl == p->cells[i].wl)
			return true;
	return false;
}

/* The mean wall time of a sample of plan cell i so far (the plan's figure before any). */
static double mean_sample_s(const struct tb_runner *rn, size_t i)
{
	const struct tb_plan_cell *cr = &rn->plan->cells[i];

	if (cr->nwall)
		return cr->wall_s / cr->nwall;
	return rn->samples_done ? rn->sample_cost_s : planned_sample_s(rn->plan, i);
}

/* What a sample of plan cell i that sets its tracer up afresh pays beyond a timed one: its
 * declared setup when the tracer is held (the timed samples' mean leaves it out), else 0. */
static double fresh_setup_s(const struct tb_runner *rn, size_t i)
{
	const struct tb_plan_cell *cr = &rn->plan->cells[i];
	const struct tb_scn_tracer *t = &rn->plan->s->tracers[cr->tr];

	return cr->held && t->ops->est_cost_ns ? (double)t->ops->est_cost_ns(t->cfg) / 1e9 : 0;
}

double tb_runner_explain_left_s(const struct tb_runner *rn)
{
	const struct tb_plan *p = rn->plan;
	double left = 0;

	/* an explain sample sets its tracer up and reads the kernel's symbols, about 100 ms */
	for (size_t i = 0; i < p->ncells; i++)
		if (!p->cells[i].dead && tb_runner_explain_sampled(p, i))
			left += (double)p->s->explain_samples *
				(mean_sample_s(rn, i) + 0.1 + fresh_setup_s(rn, i));
	return left;
}

/* The mean wall time of an accounting sample of plan cell i so far; before any, a timed one's
 * (it takes the held tracer too). */
static double mean_acct_s(const struct tb_runner *rn, size_t i)
{
	const struct tb_plan_cell *cr = &rn->plan->cells[i];

	return cr->nacct ? cr->acct_wall_s / cr->nacct : mean_sample_s(rn, i);
}

double tb_runner_left_s(const struct tb_runner *rn)
{
	const struct tb_plan *p = rn->plan;
	unsigned int n = tb_scenario_accounting_rounds(p->s, rn->planned_measured);
	double left = tb_runner_explain_left_s(rn);

	for (size_t i = 0; i < p->ncells; i++) {
		const struct tb_plan_cell *cr = &p->cells[i];

		if (cr->dead)
			continue;
		if (rn->planned_rounds > cr->nwall)
			left += mean_sample_s(rn, i) * (double)(rn->planned_rounds - cr->nwall);
		if (tb_runner_accounts(rn, cr) && n > cr->nacct)
			left += mean_acct_s(rn, i) * (double)(n - cr->nacct);
	}
	return left;
}

void tb_runner_progress_say(struct tb_runner *rn, const char *phase, unsigned int round,
			    unsigned int rounds, const struct tb_cell *cell)
{
	struct tb_runner_progress pr = {
		.phase = phase,
		.round = round,
		.rounds = rounds,
		.cell = cell,
		/* no estimate of a sample's cost before the first */
		.eta_s = rn->samples_done ? tb_runner_left_s(rn) : NAN,
		.done = rn->samples_done,
		.planned = tb_runner_planned(rn, NULL),
		.elapsed_s = (double)(tb_now_ns() - rn->t_start) / 1e9,
	};

	if (rn->on_progress)
		rn->on_progress(rn->ctx, &pr);
}

void tb_runner_round_order(gsl_rng *rng, size_t n, size_t *order)
{
	size_t i;

	for (i = 0; i < n; i++)
		order[i] = i;
	/* A fresh order every round, so drift hits baseline and traced cells alike. */
	gsl_ran_shuffle(rng, order, n, sizeof(order[0]));
}

void tb_runner_dirs_free(struct tb_runner *rn)
{
	if (!rn->dirs)
		return;
	for (size_t i = 0; i < rn->dirs->n; i++)
		tb_dir_close(&rn->dirs->sub[i]);
	tb_dir_close(&rn->dirs->tracers);
	free(rn->dirs);
	rn->dirs = NULL;
}
