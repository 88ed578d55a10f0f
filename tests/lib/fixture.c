// SPDX-License-Identifier: GPL-2.0
/* The in-memory result the plot and report tests draw and render. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "fixture.h"

struct spec {
	const char *wl, *wl_type, *tr, *tr_type;
	double ns, events_per_op, bpf_ns;
	enum tb_verdict verdict;
	const char *reason;
	double rate;
	bool latency;
};

static const struct spec specs[] = {
	{"getpid", "getpid", "none", "none", 201, NAN, NAN, 0, NULL, NAN, false},
	{"getpid", "getpid", "tp-getpid", "ftrace-events", 580, 1, NAN, TB_VERDICT_OVERHEAD,
	 "+188.6% [186.9, 190.1], p < 0.001", NAN, false},
	{"getpid", "getpid", "bpf-raw-syscalls", "bpf", 501, 2, 61.5, TB_VERDICT_OVERHEAD,
	 "+149.3% [147.0, 151.2], p < 0.001", NAN, false},
	{"getpid", "getpid", "perf-99hz", "perf-sample", 203, 0.0004, NAN, TB_VERDICT_NO_OVERHEAD,
	 "CI includes the noise threshold", NAN, false},
	{"pipe-pingpong", "pipe-pingpong", "none", "none", 5200, NAN, NAN, 0, NULL, NAN, false},
	{"pipe-pingpong", "pipe-pingpong", "tp-getpid", "ftrace-events", 5215, 0, NAN,
	 TB_VERDICT_UNTRUSTWORTHY, "tracer saw nothing (0 events)", NAN, false},
	{"pipe-pingpong", "pipe-pingpong", "bpf-raw-syscalls", "bpf", 6100, 8, 58.2,
	 TB_VERDICT_OVERHEAD, "+17.3% [15.9, 18.6], p < 0.001", NAN, false},
	{"pipe-pingpong", "pipe-pingpong", "perf-99hz", "perf-sample", 5260, 0.001, NAN,
	 TB_VERDICT_NO_OVERHEAD, "CI includes the noise threshold", NAN, false},
	{"getpid-latency", "getpid", "none", "none", 260, NAN, NAN, 0, NULL, NAN, true},
	{"getpid-latency", "getpid", "bpf-raw-syscalls", "bpf", 560, 2, 60.1, TB_VERDICT_OVERHEAD,
	 "+115.4% [112.0, 118.3]", NAN, true},
	{"timer-1k", "timer", "none", "none", 100000, NAN, NAN, 0, NULL, NAN, false},
	{"timer-1k", "timer", "tp-timer", "ftrace-events", 100400, 0.1, NAN, TB_VERDICT_NO_OVERHEAD,
	 "below the noise threshold", 1000, false},
	{"timer-10k", "timer", "none", "none", 100000, NAN, NAN, 0, NULL, NAN, false},
	{"timer-10k", "timer", "tp-timer", "ftrace-events", 103900, 1, NAN, TB_VERDICT_OVERHEAD,
	 "+3.9%", 10000, false},
	{"timer-100k", "timer", "none", "none", 100000, NAN, NAN, 0, NULL, NAN, false},
	{"timer-100k", "timer", "tp-timer", "ftrace-events", 140500, 10, NAN, TB_VERDICT_OVERHEAD,
	 "+40.5%", 100000, false},
};

static uint64_t lcg = 42;

/* Deterministic noise in [-1, 1). */
static double noise(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(lcg >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

size_t tb_fixture_measured(const struct tb_cell *c, double *median)
{
	double *x = calloc(c->nsamples + 1, sizeof(*x));
	size_t n = 0, i;

	for (i = 0; x && i < c->nsamples; i++)
		if (!c->samples[i].warmup && !c->samples[i].failed)
			x[n++] = c->samples[i].ns_per_op;
	if (x && n) {
		qsort(x, n, sizeof(*x), cmp_d);
		*median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
	} else {
		*median = NAN;
	}
	free(x);
	return n;
}

static char *dup_hostile(const char *s, unsigned flags, const char *evil)
{
	char buf[256];

	if (!(flags & TB_FIX_HOSTILE) || !evil)
		return strdup(s);
	snprintf(buf, sizeof(buf), "%s%s", s, evil);
	return strdup(buf);
}

/* The upper bound of the bucket holding quantile q, as the harness reports it. */
static double quantile(const struct tb_latency *l, double q)
{
	uint64_t cum = 0;
	size_t k;

	for (k = 0; k < l->nbuckets; k++) {
		cum += l->bucket_count[k];
		if ((double)cum >= q * (double)l->count)
			return l->bucket_ns[k];
	}
	return l->max;
}

static void add_latency(struct tb_cell *c, double base)
{
	struct tb_latency *l = &c->latency;
	size_t k;

	l->present = true;
	l->clock_cost_ns = 29;
	l->nbuckets = 40;
	l->bucket_ns = calloc(l->nbuckets, sizeof(double));
	l->bucket_count = calloc(l->nbuckets, sizeof(uint64_t));
	if (!l->bucket_ns || !l->bucket_count) {
		l->nbuckets = 0;
		return;
	}
	/* Log-spaced buckets from base/2; a body around base and a long tail. */
	for (k = 0; k < l->nbuckets; k++) {
		double up = base * 0.5 * pow(1.25, (double)k);
		double z = log(up / base) / 0.08;

		l->bucket_ns[k] = up;
		l->bucket_count[k] = (uint64_t)(200000.0 * exp(-0.5 * z * z)) +
				     (up > base ? (uint64_t)(2000.0 * base / up) : 0);
		l->count += l->bucket_count[k];
	}
	l->p50 = quantile(l, 0.5);
	l->p90 = quantile(l, 0.9);
	l->p99 = quantile(l, 0.99);
	l->p999 = quantile(l, 0.999);
	l->max = l->bucket_ns[l->nbuckets - 1];
}

struct tb_result *tb_fixture_result(unsigned flags)
{
	const unsigned int rounds = 10, warmup = 1;
	struct tb_result *r = tb_result_new();
	size_t i, nspec = TB_ARRAY_SIZE(specs);
	const struct spec *cspec[TB_ARRAY_SIZE(specs)];
	unsigned int round, order = 0;
	char buf[256];

	if (!r)
		return NULL;
	lcg = 42;
	/* tb_result_new filled schema, tool version, foreign and warnings already. */
	r->scenario_name = dup_hostile("quick", flags, "<script>alert(1)</script>");
	r->scenario_path = strdup("scenarios/quick.ini");
	r->scenario_text =
		strdup(flags & TB_FIX_HOSTILE
			       ? "[global]\nrepetitions = 10 ; <b>bold</b> & \"q\"\n"
				 "</pre><script>alert(1)</script>\n"
			       : "[global]\nrepetitions = 10\nwarmup = 1\nduration = 2s\n\n"
				 "[workload getpid]\ntype = getpid\n\n[matrix]\n"
				 "workloads = getpid, pipe-pingpong\ntracers = none, tp-getpid\n");
	r->command_line = strdup(flags & TB_FIX_HOSTILE
					 ? "tracebench run 'a\"b' <x> & y"
					 : "tracebench run scenarios/quick.ini -o results/quick");
	r->started = strdup("2026-11-29T10:44:16Z");
	r->finished = strdup("2026-11-29T10:51:02Z");
	r->stop_reason = strdup("rounds");
	r->rounds = rounds;
	r->warmup = warmup;
	r->duration_ns = 200000000;
	r->seed = 1234;
	r->system = json_pack(
		"{s:s, s:{s:s, s:s, s:s}, s:{s:s, s:i, s:i, s:b}, s:s, s:s, s:{s:s, s:s}}",
		"hostname", flags & TB_FIX_HOSTILE ? "host<script>\"'&" : "bench-01", "kernel",
		"release", "6.18.0-tb", "version", "#1 SMP PREEMPT_DYNAMIC", "cmdline",
		"console=ttyS0 mitigations=auto", "cpu", "model", "Intel(R) Xeon(R) CPU @ 2.20GHz",
		"cores", 2, "threads", 2, "smt", 0, "clocksource", "kvm-clock", "fingerprint",
		"3f2a9c1d0b7e", "versions", "libbpf", "1.1.2", "gnuplot", "5.4.4");
	json_decref(r->foreign);
	json_decref(r->warnings);
	r->foreign = json_pack("[s]", "bpf program 'sd_fw_ingress' attached to cgroup");
	r->warnings =
		json_pack("[s]", flags & TB_FIX_HOSTILE ? "warn <script>alert(1)</script> & \"'"
							: "cpu frequency governor is 'powersave'");
	for (i = 0; i < nspec; i++) {
		const struct spec *sp = &specs[i];
		struct tb_cell *c;

		if ((flags & TB_FIX_NO_LATENCY) && sp->latency)
			continue;
		if ((flags & TB_FIX_NO_RATE) && !strncmp(sp->wl, "timer-", 6))
			continue;
		if ((flags & TB_FIX_README) && i > 1)
			continue;
		c = tb_result_add_cell(r);
		if (!c)
			goto fail;
		cspec[r->ncells - 1] = sp;
		c->workload =
			dup_hostile(sp->wl, flags, i < 4 ? "<script>alert(1)</script>" : NULL);
		c->workload_type = strdup(sp->wl_type);
		c->tracer = dup_hostile(sp->tr, flags, i == 1 ? "_\"'&amp;<b>" : NULL);
		c->tracer_type = strdup(sp->tr_type);
		snprintf(buf, sizeof(buf), "%s/%s", c->workload, c->tracer);
		c->id = strdup(buf);
		c->baseline = !strcmp(sp->tr, "none");
		c->threads = 1;
		c->latency_mode = sp->latency;
		c->ops_per_sample = (uint64_t)(2e8 / sp->ns);
		c->rate = sp->rate;
		c->workload_config = json_object();
		c->tracer_config = json_pack("{s:s}", "type", sp->tr_type);
		if (!c->workload || !c->tracer || !c->id || !c->workload_type || !c->tracer_type)
			goto fail;
		if (sp->latency)
			add_latency(c, sp->ns);
	}
	/* Interleaved rounds: each round runs every cell once, in a shuffled order. */
	for (round = 0; round < rounds + warmup; round++) {
		size_t n = r->ncells, perm[TB_ARRAY_SIZE(specs)], j;

		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0; i--) {
			size_t k = (size_t)((noise() + 1.0) / 2.0 * (double)(i + 1)) % (i + 1), t;

			t = perm[i], perm[i] = perm[k], perm[k] = t;
		}
		for (j = 0; j < n; j++) {
			struct tb_cell *c = &r->cells[perm[j]];
			const struct spec *sp = cspec[perm[j]];
			struct tb_sample *s;

			s = tb_cell_add_sample(c);
			if (!s || !sp)
				goto fail;
			s->warmup = round < warmup;
			s->round = s->warmup ? -1 : (int)(round - warmup);
			s->order = order++;
			/* ~1% noise, a slow drift, and a warm-up that runs 8% slow. */
			s->ns_per_op = sp->ns * (1.0 + 0.01 * noise() + 0.0015 * round +
						 (s->warmup ? 0.08 : 0));
			s->ops = c->ops_per_sample;
			s->elapsed_ns = s->ns_per_op * (double)s->ops;
			if (isfinite(sp->events_per_op)) {
				s->events = (int64_t)(sp->events_per_op * (double)s->ops);
				s->lost = perm[j] == 6 && round == 3 ? 12 : 0;
			}
			if (isfinite(sp->bpf_ns)) {
				s->bpf_run_cnt = s->events;
				s->bpf_run_time_ns = (int64_t)(sp->bpf_ns * (double)s->events);
			}
		}
	}
	/* Summaries and overheads, as stats.c would fill them. */
	for (i = 0; i < r->ncells; i++) {
		struct tb_cell *c = &r->cells[i], *b;
		const struct spec *sp = cspec[i];
		double med, bmed, sum = 0;
		size_t k;

		c->summary.n = tb_fixture_measured(c, &med);
		c->summary.median = med;
		for (k = 0; k < c->nsamples; k++)
			if (!c->samples[k].warmup)
				sum += c->samples[k].ns_per_op;
		c->summary.mean = sum / (double)c->summary.n;
		c->summary.sd = 0.01 * med;
		c->summary.cv = c->summary.sd / c->summary.mean;
		c->summary.min = med * 0.98;
		c->summary.max = med * 1.02;
		c->events_recorded = -1;
		if (c->baseline)
			continue;
		if (isfinite(sp->events_per_op)) {
			c->events_recorded = c->events_lost = 0;
			for (k = 0; k < c->nsamples; k++)
				if (!c->samples[k].warmup) {
					c->events_recorded += c->samples[k].events;
					c->events_lost += c->samples[k].lost;
				}
		}
		c->tracer_cpu_s = 0.012;
		b = tb_result_baseline(r, c);
		if (!b)
			continue;
		tb_fixture_measured(b, &bmed);
		c->has_overhead = true;
		c->overhead.pct = 100.0 * (med / bmed - 1.0);
		c->overhead.ci_lo = c->overhead.pct - 1.2 - 0.01 * fabs(c->overhead.pct);
		c->overhead.ci_hi = c->overhead.pct + 1.1 + 0.01 * fabs(c->overhead.pct);
		c->overhead.mean_pct = c->overhead.pct;
		c->overhead.ns_per_op = med - bmed;
		c->overhead.ns_ci_lo = c->overhead.ns_per_op * 0.97;
		c->overhead.ns_ci_hi = c->overhead.ns_per_op * 1.03;
		c->overhead.events_per_op = sp->events_per_op;
		if (isfinite(sp->events_per_op) && sp->events_per_op > 0) {
			c->overhead.ns_per_event = c->overhead.ns_per_op / sp->events_per_op;
			c->overhead.nse_ci_lo = c->overhead.ns_per_event * 0.95;
			c->overhead.nse_ci_hi = c->overhead.ns_per_event * 1.05;
		} else {
			c->overhead.ns_per_event = c->overhead.nse_ci_lo = c->overhead.nse_ci_hi =
				NAN;
		}
		c->overhead.bpf_ns_per_run = sp->bpf_ns;
		c->overhead.p_mannwhitney = sp->verdict == TB_VERDICT_OVERHEAD ? 1e-5 : 0.3;
		c->overhead.p_welch = c->overhead.p_mannwhitney;
		c->overhead.hl_shift_ns = c->overhead.ns_per_op;
		c->overhead.mde_pct = 1.5;
		c->overhead.verdict = sp->verdict;
		snprintf(c->overhead.reason, sizeof(c->overhead.reason), "%s",
			 (flags & TB_FIX_HOSTILE) ? "reason <i>&\"'</i>" : sp->reason);
	}
	/* The rate model stats.c fits to the sweep (as in tests/data/results/plot-fixture.json). */
	if (!(flags & TB_FIX_NO_RATE)) {
		struct tb_rate_model *m = tb_result_add_rate_model(r);

		if (!m || !(m->workload_type = strdup("timer")) ||
		    !(m->tracer = strdup("tp-timer")))
			goto fail;
		m->npoints = 3;
		m->fixed_ns = 114.06;
		m->fixed_ci_lo = -1380.56;
		m->fixed_ci_hi = 1608.69;
		m->cost_ns = 4080.33;
		m->cost_ci_lo = 3822.76;
		m->cost_ci_hi = 4337.91;
		m->r2 = 0.99998;
		m->pct_fixed = -0.69654;
		m->pct_per_mevent_s = 584.654;
		m->accepted = true; /* its slope's CI excludes 0, r2 >= 0.9 */
	}
	return r;
fail:
	tb_result_free(r);
	return NULL;
}
