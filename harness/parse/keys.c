// SPDX-License-Identifier: GPL-2.0
/*
 * The keys the harness owns (parse.h): the tables of [global] and of the harness's keys in
 * [workload] and [tracer] sections, each declared against the field it fills, and the readers
 * of [global], [matrix] and [gate].
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "core/tb.h"
#include "parse/parse.h"

/* [global]: straight into the scenario. */
#define G(f) offsetof(struct tb_scenario, f)
static const struct tb_option global_opts[] = {
	{"name", TB_OPT_STRING, G(name), NULL, "scenario name (default: the file name)"},
	{"description", TB_OPT_STRING, G(description), NULL, "one line on what it measures"},
	{"repetitions", TB_OPT_UINT, G(rounds), "10", "rounds; each runs every cell once", 1,
	 100000},
	{"min-rounds", TB_OPT_UINT, G(min_rounds), "5",
	 "adaptive stopping: rounds before checking (unset, with precision and max-time: 30)", 1,
	 100000},
	{"max-rounds", TB_OPT_UINT, G(max_rounds), "100",
	 "adaptive stopping: at most this many (unset, with precision and max-time: 100000, so "
	 "that the precision or the max-time ends the run)",
	 1, 100000},
	{"accounting-every", TB_OPT_UINT, G(accounting_every), "1",
	 "the accounting samples (a tracer's BPF run-time stats, apart from the timed ones) in "
	 "every Nth measured round, from the first (unset, with precision and max-time: 5)",
	 1, 100000},
	{"warmup", TB_OPT_UINT, G(warmup), "1", "warmup rounds (run, recorded, not analysed)", 0,
	 1000},
	{"duration", TB_OPT_DURATION, G(duration_ns), "1s",
	 "per sample; batch size calibrated to it (unset, with precision and max-time: chosen "
	 "from the tracers' fixed costs, as the run says)",
	 1e6, 3600e9},
	{"max-time", TB_OPT_DURATION, G(max_time_ns), "0",
	 "the run's time budget: no round starts that would not end within it, traced cells' "
	 "samples sized to their measured slowdown (0: none)"},
	{"settle", TB_OPT_DURATION, G(settle_ns), "20ms",
	 "delay after tracer start and before stop (unset, with precision and max-time: 0 for "
	 "the tracers that are live when started)",
	 0, 60e9},
	{"sample-timeout", TB_OPT_DURATION, G(sample_timeout_ns), "0",
	 "kill a sample after this (0: 20 x duration + 60s)"},
	{"cpus", TB_OPT_LIST, G(cpus), "auto",
	 "CPUs for workload threads: ids, 'auto' (the last online CPU) or 'none'"},
	{"consumer-cpu", TB_OPT_SINT, G(consumer_cpu), "-1",
	 "CPU for tracer consumer threads (-1: auto)", -1, 4095},
	{"threads", TB_OPT_UINT, G(threads), "1", "workload threads (each runs the batch)", 1, 256},
	{"latency", TB_OPT_BOOL, G(latency), "false", "time individual ops into a histogram"},
	{"latency-every", TB_OPT_UINT, G(latency_every), "1", "latency mode: time one op in N", 1,
	 1000000},
	{"mlock", TB_OPT_BOOL, G(mlock), "false", "mlockall the workload process"},
	{"perf-counts", TB_OPT_BOOL, G(perf_counts), "false",
	 "software perf counts per sample (inherited counters slow context switches: off by "
	 "default)"},
	{"aa", TB_OPT_BOOL, G(aa), "false", "A/A calibration: the baseline against itself"},
	{"reuse-tracers", TB_OPT_BOOL, G(reuse_tracers), "true",
	 "keep a cell's tracer set up across its samples where the tracer can reset itself "
	 "exactly (rearm); false: set up and tear down around every sample"},
	{"skip-unsupported", TB_OPT_BOOL, G(skip_unsupported), "false",
	 "leave out the sections unsupported here, each said with its reason (as run "
	 "--skip-unsupported), instead of refusing the run"},
	{"seed", TB_OPT_INT, G(seed), "-1", "shuffle and bootstrap seed (-1: from the clock)", -1,
	 9.0e18},
	{"precision", TB_OPT_PERCENT, G(precision), "0",
	 "adaptive: add rounds until every CI half-width is below this (0: fixed rounds)", 0, 1},
	{"noise-threshold", TB_OPT_PERCENT, G(noise_threshold), "1%",
	 "smallest overhead called an effect", 0, 10},
	{"max-cv", TB_OPT_PERCENT, G(max_cv), "10%",
	 "a cell whose samples vary more (CV) is untrustworthy", 0.001, 10},
	{"contended-share", TB_OPT_PERCENT, G(contended_share), "5%",
	 "a measured round in which a sample lost more than this share of its time to other "
	 "tasks on its CPU or to the hypervisor is run again (once; at most a quarter of the "
	 "rounds); 0%: never",
	 0, 1},
	{"alpha", TB_OPT_DOUBLE, G(alpha), "0.05", "significance level", 1e-6, 0.5},
	{"power", TB_OPT_DOUBLE, G(power), "0.8", "power for the minimal detectable effect", 0.5,
	 0.999},
	{"confidence", TB_OPT_DOUBLE, G(confidence), "0.95", "confidence level of intervals", 0.5,
	 0.9999},
	{"resamples", TB_OPT_UINT, G(resamples), "10000", "bootstrap resamples", 1000, 1000000},
	{"max-cells", TB_OPT_UINT, G(max_cells), "64",
	 "the most cells a scenario with sweeps may make (a sweep's values times the matrix)", 1,
	 4096},
	{"explain", TB_OPT_BOOL, G(explain), "false",
	 "after the rounds, profile every traced cell and its baseline: where the overhead lands"},
	{"explain-samples", TB_OPT_UINT, G(explain_samples), "3",
	 "explain: profiled samples per cell (baseline and traced interleaved)", 1, 1000},
	{"explain-frequency", TB_OPT_UINT, G(explain_hz), "4000",
	 "explain: cpu-clock samples per second of the workload's CPU time (Hz)", 100, 100000},
	{"explain-tolerance", TB_OPT_PERCENT, G(explain_tolerance), "25%",
	 "explain: the profiles account for the measured overhead within this share", 0.01, 1},
	TB_OPT_END,
};
#undef G

/* The harness's keys in [workload] sections, into the section; the rest are the plugin's. */
#define W(f) offsetof(struct tb_scn_workload, f)
static const struct tb_option wl_harness_opts[] = {
	{"threads", TB_OPT_UINT, W(threads), NULL, "threads for this workload", 1, 256},
	{"latency", TB_OPT_BOOL, W(latency), NULL, "latency mode for this workload"},
	{"latency-every", TB_OPT_UINT, W(latency_every), NULL, "time one op in N", 1, 1000000},
	{"duration", TB_OPT_DURATION, W(duration_ns), NULL, "per-sample duration", 1e6, 3600e9},
	{"rate-sweep", TB_OPT_BOOL, W(rate_sweep), NULL, "feed the cost-per-event rate model"},
	{"sweep", TB_OPT_STRING, W(sweep), NULL,
	 "vary one of the plugin's options, a cell per value: 'KEY: V1, V2, ...', "
	 "'KEY: FROM..TO xFACTOR' or 'KEY: FROM..TO +STEP'"},
	TB_OPT_END,
};
#undef W

#define T(f) offsetof(struct tb_scn_tracer, f)
static const struct tb_option tr_harness_opts[] = {
	{"settle", TB_OPT_DURATION, T(settle_ns), NULL, "delay after start and before stop", 0,
	 60e9},
	{"workloads", TB_OPT_LIST, T(only), NULL,
	 "the matrix's workloads it runs on (default: every one): a tool against the workload it "
	 "targets"},
	{"explain", TB_OPT_BOOL, T(explain), NULL,
	 "profile where this tracer's cost lands ([global] explain when unset)"},
	{"sweep", TB_OPT_STRING, T(sweep), NULL,
	 "vary one of the plugin's options, a cell per value: 'KEY: V1, V2, ...', "
	 "'KEY: FROM..TO xFACTOR' or 'KEY: FROM..TO +STEP'"},
	TB_OPT_END,
};
#undef T

const struct tb_option *tb_scenario_keys(enum tb_scn_section section)
{
	return section == TB_SCN_GLOBAL	    ? global_opts
	       : section == TB_SCN_WORKLOAD ? wl_harness_opts
					    : tr_harness_opts;
}

/*
 * cpus: 'auto', 'none', or CPU ids (0..4095), checked here so that junk is reported at its
 * line; whether the ids are online is the plan's business. Empty means 'auto' (plan.c).
 */
static void check_cpus(struct tb_scn_parse *p, const struct tb_strlist *l)
{
	int64_t id;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if ((!strcmp(l->v[i], "auto") || !strcmp(l->v[i], "none")) && l->n == 1)
			continue;
		if (tb_parse_int(l->v[i], &id) || id < 0 || id > 4095) {
			tb_scn_perr(
				p, p->line,
				"[global]: key 'cpus': bad CPU '%s' (CPU ids 0-4095, or 'auto' or 'none' alone)",
				l->v[i]);
			return;
		}
	}
}

void tb_scn_global_key(struct tb_scn_parse *p, const char *name, const char *value)
{
	char err[512];
	int ret;

	/* The name becomes part of the run directory's name. */
	if (!strcmp(name, "name") && !tb_scn_valid_name(value)) {
		tb_scn_perr(
			p, p->line,
			"[global]: name: '%.40s%s' is not a valid name (letters, digits, - _ . + only, at most 64)",
			value, strlen(value) > 40 ? "..." : "");
		return;
	}
	ret = tb_opts_set(global_opts, p->s, name, value, err, sizeof(err));
	if (ret == -ENOENT) {
		struct tb_suggest sg;

		tb_suggest_init(&sg, name);
		tb_opts_suggest(global_opts, &sg);
		tb_scn_perr(p, p->line, "[global]: unknown key '%s'%s", name,
			    tb_suggest_text(&sg, err, sizeof(err)));
	} else if (ret)
		tb_scn_perr(p, p->line, "[global]: %s", err);
	else if (!strcmp(name, "cpus"))
		check_cpus(p, &p->s->cpus);
}

void tb_scn_matrix_key(struct tb_scn_parse *p, const char *name, const char *value)
{
	struct tb_strlist *l;
	struct tb_suggest sg;
	char hint[96];

	if (strcmp(name, "workloads") && strcmp(name, "tracers") && strcmp(name, "exclude")) {
		tb_suggest_init(&sg, name);
		tb_suggest_offer(&sg, "workloads");
		tb_suggest_offer(&sg, "tracers");
		tb_suggest_offer(&sg, "exclude");
		tb_scn_perr(p, p->line,
			    "[matrix]: unknown key '%s'%s (expected workloads, tracers, exclude)",
			    name, tb_suggest_text(&sg, hint, sizeof(hint)));
		return;
	}
	l = name[0] == 'w' ? &p->mx_w : name[0] == 't' ? &p->mx_t : &p->mx_x;
	/* A second [matrix] (already an error) may set the key again: no leak. */
	tb_strlist_free(l);
	if (tb_split_list(value, l))
		tb_scn_perr(p, p->line, "[matrix]: bad list '%s' for key '%s'", value, name);
	else if (!l->n)
		tb_scn_perr(p, p->line, "[matrix]: '%s' is empty", name);
	if (name[0] == 'w')
		p->mx_workloads_line = p->line;
	else if (name[0] == 't')
		p->mx_tracers_line = p->line;
	else
		p->mx_exclude_line = p->line;
}

/* In this order: tb_scn_gate_key() checks the values by position (percent, percent, alpha,
 * bools, from GATE_SVC_KEYS percentages). */
#define GATE_SVC_KEYS 8
const struct tb_scn_gate_key tb_scenario_gate_keys[] = {
	{"max-overhead", "fail a traced cell whose overhead is significantly above this (5%)"},
	{"max-regression", "against --baseline: fail a cell whose ns/op or overhead grew "
			   "significantly by more than this (3%, percentage points for overheads)"},
	{"alpha", "the gate's significance level (0.01)"},
	{"allow-untrustworthy", "report untrustworthy cells as skipped instead of failing (false)"},
	{"require-power", "fail a cell whose minimal detectable effect exceeds a limit it is "
			  "gated against (false: a warning)"},
	{"allow-faster", "report cells faster than their baseline as skipped instead of failing "
			 "(false)"},
	{"allow-partial", "let a partial (interrupted) result pass on the cells it measured "
			  "(false)"},
	{"allow-foreign", "let a result measured beside foreign instrumentation pass (false)"},
	/* percentages again: GATE_SVC_KEYS is the first of them */
	{"max-throughput-loss", "fail a traced service cell whose throughput loss is "
				"significantly above this (none)"},
	{"max-p99-increase", "fail a traced service cell whose p99 rose significantly by more "
			     "than this, of its baseline's p99 (none)"},
	{"max-slope-increase", "against --baseline: fail a sweep whose slope rose significantly "
			       "by more than this, of the baseline's slope (none)"},
	{NULL, NULL},
};

/* [gate] keys are checked here and kept as text; the gate interprets them. */
void tb_scn_gate_key(struct tb_scn_parse *p, const char *name, const char *value)
{
	const struct tb_scn_gate_key *gate_keys = tb_scenario_gate_keys;
	struct tb_scenario *s = p->s;
	char **nk, **nv, why[200];
	size_t k;
	double d;
	bool b;
	int ret;

	for (k = 0; gate_keys[k].name && strcmp(gate_keys[k].name, name); k++)
		;
	if (!gate_keys[k].name) {
		struct tb_suggest sg;
		char hint[96];

		tb_suggest_init(&sg, name);
		for (k = 0; gate_keys[k].name; k++)
			tb_suggest_offer(&sg, gate_keys[k].name);
		tb_scn_perr(
			p, p->line,
			"[gate]: unknown key '%s'%s (expected max-overhead, max-regression, alpha, allow-untrustworthy, require-power, allow-faster, allow-partial, allow-foreign, max-throughput-loss, max-p99-increase, max-slope-increase)",
			name, tb_suggest_text(&sg, hint, sizeof(hint)));
		return;
	}
	if ((k <= 1 || k >= GATE_SVC_KEYS) && (ret = tb_parse_threshold(value, &d))) {
		tb_scn_perr(p, p->line, "[gate]: %s",
			    tb_percent_why(ret, name, value, true, why, sizeof(why)));
		return;
	}
	if ((k == 2 && (tb_parse_double(value, &d) || d <= 0 || d >= 1)) ||
	    (k >= 3 && k < GATE_SVC_KEYS && tb_parse_bool(value, &b))) {
		tb_scn_perr(p, p->line, "[gate]: bad value '%s' for '%s'", value, name);
		return;
	}
	nk = realloc(s->gate_keys, (s->ngate + 1) * sizeof(*nk));
	nv = nk ? realloc(s->gate_vals, (s->ngate + 1) * sizeof(*nv)) : NULL;
	if (nk)
		s->gate_keys = nk;
	if (!nv) {
		tb_scn_perr(p, p->line, "out of memory");
		return;
	}
	s->gate_vals = nv;
	s->gate_keys[s->ngate] = strdup(name);
	s->gate_vals[s->ngate] = strdup(value);
	s->ngate++;
}

/* [limit]: `run --find-limit [RATE]` asked for by the file; its one key is the RATE. */
void tb_scn_limit_key(struct tb_scn_parse *p, const char *name, const char *value)
{
	if (strcmp(name, "rate"))
		tb_scn_perr(p, p->line, "[limit]: unknown key '%s' (expected rate)", name);
	else if (tb_parse_rate(value, &p->s->limit_rate))
		tb_scn_perr(
			p, p->line,
			"[limit]: rate: bad value '%s' (an event rate in events/s, e.g. 200000, "
			"200k or 1M/s)",
			value);
}
