// SPDX-License-Identifier: GPL-2.0
/*
 * delay: not a tracer but the validation suite's ground truth. While started, every workload
 * operation that calls tb_inject_point() spins for a calibrated number of iterations (or, with
 * spin = clock, until the clock has advanced by ns), so the true overhead is known: tracebench
 * must report it (METHODOLOGY.md, "Known delta").
 */
#include <errno.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "core/inject.h"
#include "core/tb.h"
#include "tracers/tracer.h"

struct delay_cfg {
	uint64_t ns;
	int spin; /* SPIN_* */
};

enum { SPIN_LOOP, SPIN_CLOCK };
static const char *const spin_kinds[] = {"loop", "clock", NULL};

struct delay_priv {
	uint64_t iters;
	double measured_ns; /* before the batch */
	cpu_set_t cpus;	    /* the workload's, where the spin is timed */
	bool have_cpus, counted;
};

/*
 * The loop's cost drifts on a VM (the host's frequency and its other tenants), so the truth of
 * one sample is noisy too: every sample's truth (the spin timed before and after its batch) is
 * kept for the run, and their mean and median are reported. The median is what a cell's
 * overhead (its traced samples' median minus its baseline's) estimates when the machine's
 * speed changes between samples; the mean is kept for the figures that were judged against it.
 */
#define TRUTH_MAX 1024

static struct truth {
	uint64_t target_ns; /* with TB_SPIN_CLOCK for a clock spin: its own truths */
	double sum, sumsq;
	unsigned long n;
	double v[TRUTH_MAX]; /* the first TRUTH_MAX measurements, for the median */
} truths[16];

static struct truth *truth_of(uint64_t target_ns)
{
	size_t i;

	for (i = 0; i < TB_ARRAY_SIZE(truths); i++) {
		if (truths[i].n && truths[i].target_ns == target_ns)
			return &truths[i];
		if (!truths[i].n) {
			truths[i].target_ns = target_ns;
			return &truths[i];
		}
	}
	return NULL;
}

/* The median of tr's kept truths (tr->n >= 1); sorts them in place: nothing reads their order. */
static double truth_median(struct truth *tr)
{
	size_t n = tr->n < TRUTH_MAX ? tr->n : TRUTH_MAX;

	gsl_sort(tr->v, 1, n);
	return gsl_stats_median_from_sorted_data(tr->v, 1, n);
}

/* What a target's truths are kept under: its ns, with TB_SPIN_CLOCK for a clock spin. */
static uint64_t spin_key(const struct delay_cfg *cfg)
{
	return cfg->spin == SPIN_CLOCK ? cfg->ns | TB_SPIN_CLOCK : cfg->ns;
}

static const struct tb_option delay_opts[] = {
	{"ns", TB_OPT_DURATION, offsetof(struct delay_cfg, ns), "20ns",
	 "cost added to every operation (a spin: see spin)", 0, 1e6},
	/* A loop's cost moves with the machine's speed (on a PVM guest 0.6-1.4 ns per ns of target
	 * between runs): a clock's does not, for a check that needs one truth across runs. */
	{"spin", TB_OPT_CHOICE, offsetof(struct delay_cfg, spin), "loop",
	 "loop: calibrated iterations (a cost that scales with the CPU, like a tracer's); clock: "
	 "until the clock has advanced by ns",
	 0, 0, spin_kinds},
	TB_OPT_END,
};

/* The spin's cost per call of p's iterations (tb_spin_measure_after_syscall_ns), timed on the
 * workload's CPUs when they are known; half of a sample's truth (before and after its batch),
 * so half the calls that one measurement per sample took. */
static double measure_on(const struct delay_priv *p)
{
	bool pinned = false;
	cpu_set_t old;
	double ns;

	if (p->have_cpus && !sched_getaffinity(0, sizeof(old), &old))
		pinned = !sched_setaffinity(0, sizeof(p->cpus), &p->cpus);
	ns = tb_spin_measure_after_syscall_ns(p->iters, 5000);
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	return ns;
}

static int delay_setup(struct tb_tracer *t)
{
	const struct delay_cfg *cfg = t->cfg;
	struct delay_priv *p;
	int ret;

	ret = tb_inject_init();
	if (ret) {
		tb_err("[tracer %s]: cannot map the injection page: %d", t->name, ret);
		return ret;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (cfg->spin == SPIN_CLOCK)
		p->iters = cfg->ns ? spin_key(cfg) : 0;
	else
		p->iters = tb_spin_iters_for((double)cfg->ns);
	/*
	 * Measured here, apart from the harness's own comparison: the independent figure. On the
	 * workload's CPUs, just before its batch and again just after it (delay_collect): on a VM
	 * the cost of the same loop differs between vCPUs and over time (up to 2x seen under
	 * load), so a figure taken elsewhere is no truth, and one taken on one side of the batch
	 * misses a change of speed during it.
	 */
	p->have_cpus = t->target > 0 && !sched_getaffinity(t->target, sizeof(p->cpus), &p->cpus);
	p->measured_ns = measure_on(p);
	t->priv = p;
	return 0;
}

static int delay_start(struct tb_tracer *t)
{
	const struct delay_priv *p = t->priv;

	tb_inject->iters = p->iters;
	return 0;
}

static int delay_stop(struct tb_tracer *t)
{
	if (tb_inject)
		tb_inject->iters = 0;
	return 0;
}

static int delay_collect(struct tb_tracer *t, struct tb_tracer_stats *st)
{
	const struct delay_cfg *cfg = t->cfg;
	struct delay_priv *p = t->priv;
	struct truth *tr = truth_of(spin_key(cfg));
	double mean = p->measured_ns, median = p->measured_ns, sd = 0, after, one;

	/* This sample's truth: the spin timed before and after its batch, averaged; kept once. */
	if (tr && !p->counted) {
		after = measure_on(p);
		one = (p->measured_ns + after) / 2;
		if (tr->n < TRUTH_MAX)
			tr->v[tr->n] = one;
		tr->sum += one;
		tr->sumsq += one * one;
		tr->n++;
		p->counted = true;
	}
	if (tr && tr->n) {
		mean = tr->sum / (double)tr->n;
		median = truth_median(tr);
		if (tr->n > 1)
			sd = sqrt(fmax(0, (tr->sumsq - tr->sum * mean) / (double)(tr->n - 1)));
	}
	st->lost = 0;
	st->cpu_s = 0;
	st->mem_bytes = 0;
	st->extra =
		json_pack("{s:I, s:s, s:I, s:f, s:f, s:f, s:f, s:I}", "target_ns",
			  (json_int_t)cfg->ns, "spin", spin_kinds[cfg->spin], "iters",
			  (json_int_t)(cfg->spin == SPIN_CLOCK ? 0 : p->iters), "spin_ns_measured",
			  p->measured_ns, "spin_ns_mean", mean, "spin_ns_median", median,
			  "spin_ns_sd", sd, "spin_measurements", (json_int_t)(tr ? tr->n : 1));
	return 0;
}

static void delay_teardown(struct tb_tracer *t)
{
	if (tb_inject)
		tb_inject->iters = 0;
	free(t->priv);
	t->priv = NULL;
}

/* It hooks nothing in the kernel: its cost is a spin the workload calls itself. */
static int delay_hooks(const void *cfg, struct tb_hooks *h)
{
	h->kind = TB_HOOK_NONE;
	return 0;
}

const struct tb_tracer_ops tb_tracer_delay = {
	.name = "delay",
	.help = "validation: add a calibrated spin of known cost to every workload operation",
	.opts = delay_opts,
	.cfg_size = sizeof(struct delay_cfg),
	.flags = TB_TR_NOEVENTS | TB_TR_NOSETTLE,
	.setup = delay_setup,
	.start = delay_start,
	.stop = delay_stop,
	.collect = delay_collect,
	.teardown = delay_teardown,
	.hooks = delay_hooks,
};
