// SPDX-License-Identifier: GPL-2.0
/*
 * The explain phase (runner/explain.h): extra samples of the explained cells and their baselines with
 * the explain profiler on. The profiler rides on the sample protocol of runner/child.c as a
 * wrapper around the cell's own tracer: setup opens the tracer then the profiler, start starts
 * the tracer then the profiler, stop stops the profiler first, names what it saw while the
 * tracer's BPF programs are still loaded (their [bpf] symbols go with them), then stops the
 * tracer. Baseline and traced samples go through the same wrapper, so the difference between
 * their profiles is the tracer's. The samples go into a scratch result, never the measured one.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "explain/explain.h"
#include "explain/profile.h"
#include "explain/symbols.h"
#include "runner/explain.h"
#include "runner/sample.h"

/* What every explain sample shares: the symbol tables. */
struct phase {
	struct tb_ksyms ksyms;
	struct tb_usyms *usyms;
	struct tb_explain_settings set;
};

/* The wrapper's config: one sample of one side. */
struct wrap {
	const struct tb_scn_tracer *inner;
	struct phase *ph;
	const struct tb_plan_workload *pw;
	struct tb_explain_run *out;
	struct tb_tracer it; /* the inner tracer's instance */
	struct tb_profile *prof;
	bool it_setup;
};

static void fill_inner(struct wrap *w, const struct tb_tracer *t)
{
	w->it = *t;
	w->it.ops = w->inner->ops;
	w->it.cfg = w->inner->cfg;
	w->it.name = w->inner->name;
	w->it.priv = NULL;
}

static void x_teardown(struct tb_tracer *t)
{
	struct wrap *w = t->cfg;

	tb_profile_close(w->prof);
	w->prof = NULL;
	if (w->it_setup && w->it.ops->teardown)
		w->it.ops->teardown(&w->it);
	w->it_setup = false;
}

static int x_setup(struct tb_tracer *t)
{
	struct wrap *w = t->cfg;
	struct tb_profile_opts o = {
		.pid = t->target,
		.cpus = w->pw->cpus,
		.ncpus = w->pw->ncpus,
		.period_ns = w->ph->set.period_ns,
		.reader_cpu = t->consumer_cpu,
	};
	char why[200] = ""; /* with the message around it, within out->error */
	int ret = 0;

	fill_inner(w, t);
	if (w->it.ops->setup) {
		ret = w->it.ops->setup(&w->it);
		w->it_setup = true;
	}
	if (!ret) {
		ret = tb_profile_open(&o, &w->prof, why, sizeof(why));
		if (ret)
			snprintf(w->out->error, sizeof(w->out->error),
				 "the explain profiler could not open: %s", why);
	}
	if (ret)
		x_teardown(t);
	return ret;
}

static int x_start(struct tb_tracer *t)
{
	struct wrap *w = t->cfg;
	int ret = w->it.ops->start ? w->it.ops->start(&w->it) : 0;

	return ret ? ret : tb_profile_start(w->prof);
}

/* The [bpf] symbols of now: the programs the tracer loaded are gone after its teardown. */
static void refresh_bpf(struct phase *ph)
{
	if (!ph->set.bpf_from_info) {
		tb_ksyms_load(&ph->ksyms, NULL, true);
		return;
	}
	tb_ksyms_parse(&ph->ksyms, "", 0, "(none)", true); /* drops the old [bpf] entries */
	tb_ksyms_add_bpf_info(&ph->ksyms);
}

static int x_stop(struct tb_tracer *t)
{
	struct wrap *w = t->cfg;
	int ret;

	tb_profile_stop(w->prof);
	refresh_bpf(w->ph);
	ret = tb_profile_fold(w->prof, &w->ph->ksyms, w->ph->usyms, &w->out->fold, &w->out->st);
	if (w->it.ops->stop) {
		int sret = w->it.ops->stop(&w->it);

		ret = ret ? ret : sret;
	}
	return ret;
}

static int x_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	struct wrap *w = t->cfg;

	return w->it.ops->collect ? w->it.ops->collect(&w->it, st) : 0;
}

static const struct tb_tracer_ops wrap_ops = {
	.name = "explain",
	.help = "the explain profiler around a tracer (not a scenario type)",
	.setup = x_setup,
	.start = x_start,
	.stop = x_stop,
	.collect = x_collect,
	.teardown = x_teardown,
};

/* The cells the phase samples: the explained ones and their workloads' baselines. */
static bool sampled(const struct tb_plan *p, size_t i)
{
	if (p->cells[i].explain)
		return true;
	for (size_t j = 0; j < p->ncells; j++)
		if (p->cells[j].explain && j != i && p->cells[j].wl == p->cells[i].wl &&
		    !p->cells[i].explain && p->cells[i].tr == 0)
			return true;
	return false;
}

/* One explain sample of plan cell i into run x, through scratch cell sc. */
static int explain_sample(struct tb_runner *rn, struct phase *ph, size_t i, struct tb_cell *sc,
			  struct tb_explain_run *x)
{
	const struct tb_plan *p = rn->plan;
	struct tb_plan_cell cr = p->cells[i]; /* a copy: the measured cell's state stays */
	const struct tb_scn_workload *wl = &p->s->workloads[cr.wl];
	struct wrap w = {.inner = &p->s->tracers[cr.tr], .ph = ph, .pw = &p->wls[cr.wl], .out = x};
	struct tb_scn_tracer t = *w.inner;
	const struct tb_sample *smp;
	int ret;

	t.ops = &wrap_ops;
	t.cfg = &w;
	cr.hist = NULL;
	cr.dead = false;
	cr.held = NULL; /* its own tracer, set up and torn down in the sample */
	ret = tb_runner_sample(rn, &cr, -1, true, false, &t, sc);
	free(cr.hist);
	smp = sc->nsamples ? &sc->samples[sc->nsamples - 1] : NULL;
	if (ret || !smp)
		return ret;
	if (smp->failed || !isfinite(smp->ns_per_op)) {
		if (!x->error[0])
			snprintf(x->error, sizeof(x->error), "an explain sample failed: %s",
				 sc->error ? sc->error : "see the log");
		return 0;
	}
	if (x->runs < TB_EXPLAIN_MAX_RUNS)
		x->ns[x->runs++] = smp->ns_per_op;
	x->ops += smp->ops * (wl->threads ? wl->threads : 1);
	return 0;
}

static int rounds(struct tb_runner *rn, struct phase *ph, struct tb_result *scratch,
		  struct tb_explain_run *runs)
{
	const struct tb_plan *p = rn->plan;
	size_t order[p->ncells];
	int ret = 0;

	for (unsigned int k = 0; !ret && k < p->s->explain_samples; k++) {
		tb_runner_round_order(rn->rng, p->ncells, order);
		for (size_t j = 0; !ret && j < p->ncells; j++) {
			size_t i = order[j];
			if (!sampled(p, i) || runs[i].error[0])
				continue;
			tb_runner_progress_say(rn, "explain", k + 1, p->s->explain_samples,
					       &rn->r->cells[p->cells[i].cell]);
			ret = explain_sample(rn, ph, i, &scratch->cells[i], &runs[i]);
			if (!ret && tb_stop_requested())
				ret = -EINTR;
		}
	}
	return ret;
}

/* The baseline plan cell of plan cell i's workload, or -1. */
static ssize_t baseline_of(const struct tb_plan *p, const struct tb_result *r, size_t i)
{
	for (size_t j = 0; j < p->ncells; j++)
		if (p->cells[j].wl == p->cells[i].wl && r->cells[p->cells[j].cell].baseline)
			return (ssize_t)j;
	return -1;
}

static int hand_over(struct tb_runner *rn, struct phase *ph, struct tb_explain_run *runs)
{
	const struct tb_plan *p = rn->plan;
	int ret = 0;

	for (size_t i = 0; !ret && i < p->ncells; i++) {
		ssize_t b = baseline_of(p, rn->r, i);

		if (!p->cells[i].explain || !rn->on_explained)
			continue;
		if (b < 0) {
			snprintf(runs[i].error, sizeof(runs[i].error),
				 "no baseline cell to compare with");
			b = (ssize_t)i;
		}
		ret = rn->on_explained(rn->ctx, rn->r, p->cells[i].cell, &runs[b], &runs[i],
				       &ph->set);
	}
	return ret;
}

/* The symbol tables, and what limits them here. */
static int phase_init(struct phase *ph, const struct tb_scenario *s)
{
	char jit[16] = "1";
	int ret;

	memset(ph, 0, sizeof(*ph));
	tb_ksyms_init(&ph->ksyms);
	ph->set.period_ns = 1000000000ull / (s->explain_hz ? s->explain_hz : TB_PROFILE_DEFAULT_HZ);
	ph->set.tolerance = s->explain_tolerance;
	ph->usyms = tb_usyms_new();
	if (!ph->usyms)
		return -ENOMEM;
	ret = tb_ksyms_load(&ph->ksyms, NULL, false);
	if (ret == -ENOMEM)
		return ret;
	ph->set.kallsyms_hidden = ret || ph->ksyms.hidden; /* unreadable: as good as hidden */
	tb_read_line("/proc/sys/net/core/bpf_jit_kallsyms", jit, sizeof(jit));
	ph->set.bpf_from_info = !strcmp(jit, "0");
	return 0;
}

int tb_runner_explain(struct tb_runner *rn)
{
	const struct tb_plan *p = rn->plan;
	struct tb_explain_run *runs = NULL;
	struct tb_result *scratch = NULL;
	struct phase ph;
	int ret;

	if (!tb_plan_explain_cells(p, NULL))
		return 0;
	ret = phase_init(&ph, p->s);
	runs = calloc(p->ncells, sizeof(*runs));
	scratch = tb_result_new();
	for (size_t i = 0; !ret && runs && scratch && i < p->ncells; i++) {
		const struct tb_cell *c = &rn->r->cells[p->cells[i].cell];
		struct tb_cell *sc = tb_result_add_cell(scratch);

		tb_explain_run_init(&runs[i]);
		/* named as the cell, for the messages of a sample that fails */
		if (!sc || !(sc->id = strdup(c->id)) || !(sc->workload = strdup(c->workload)) ||
		    !(sc->tracer = strdup(c->tracer)))
			ret = -ENOMEM;
	}
	if (!runs || !scratch)
		ret = -ENOMEM;
	if (!ret)
		ret = rounds(rn, &ph, scratch, runs);
	if (!ret)
		ret = hand_over(rn, &ph, runs);
	for (size_t i = 0; runs && i < p->ncells; i++)
		tb_explain_run_free(&runs[i]);
	free(runs);
	tb_result_free(scratch);
	tb_ksyms_free(&ph.ksyms);
	tb_usyms_free(ph.usyms);
	return ret;
}
