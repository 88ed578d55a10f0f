// SPDX-License-Identifier: GPL-2.0
/* Verdicts and reasons that say what to change (verdict.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "stats/verdict.h"
#include "tracers/tracer.h"

/* A CV target below max-cv, so that the suggested duration is not borderline again. */
#define CV_MARGIN 0.8
/* Beyond this a longer sample is no longer a practical remedy for noise. */
#define MAX_SUGGESTED_S 30.0
/* A workload that waited this share of its time for its CPU: the noise is said to be that. */
#define TB_CPU_WAIT_SHARE_SAY 0.01

char *tb_stats_fmt_above(char *buf, size_t len, double v, double t, const char *unit)
{
	int d;

	for (d = 1; d < 4; d++) {
		double p = pow(10, d);

		if (round(v * p) / p > t)
			break;
	}
	snprintf(buf, len, "%.*f%s > %g%s", d, v, unit, t, unit);
	return buf;
}

static void set_reason(struct tb_overhead *o, enum tb_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_reason(struct tb_overhead *o, enum tb_verdict v, const char *fmt, ...)
{
	va_list ap;

	o->verdict = v;
	va_start(ap, fmt);
	vsnprintf(o->reason, sizeof(o->reason), fmt, ap);
	va_end(ap);
}

/* The most events (recorded + lost) one measured sample produced. */
static int64_t max_per_sample(const struct tb_cell *c)
{
	int64_t m = 0;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		int64_t n = s->events + (s->lost > 0 ? s->lost : 0);

		if (tb_sample_counts_events(c, s) && s->events >= 0 && n > m)
			m = n;
	}
	return m;
}

/*
 * Where the losses come from, and the setting (with a value from this run) that stops them:
 * the tracer's own remedy (tracers/tracer.h lost_remedy), else a generic one.
 */
static void lost_remedy(const struct tb_cell *c, char *buf, size_t len)
{
	const struct tb_tracer_record rec = {c->tracer_config, c->tracer_extra};

	if (!tb_tracer_lost_remedy(c->tracer_type, &rec, max_per_sample(c), buf, len))
		snprintf(buf, len, "the tracer dropped them: give it larger buffers");
}

/*
 * The traced or baseline cell is too noisy: what would bring its CV under max_cv. `duration`
 * is the baseline's sample length (the traced one lasts longer by the overhead), so the
 * suggestion scales the baseline's: a CV from per-sample noise falls with its square root.
 */
static void noise_reason(const struct tb_result *r, const struct tb_cell *noisy,
			 const struct tb_cell *base, bool traced, double max_cv,
			 struct tb_overhead *o)
{
	double cv = noisy->summary.cv, target = max_cv * CV_MARGIN;
	double sample_s = (double)base->ops_per_sample * base->summary.median / 1e9;
	double want_s = sample_s * (cv / target) * (cv / target);
	json_t *la =
		r->system ? json_object_get(json_object_get(r->system, "load"), "loadavg") : NULL;
	double wait = tb_cell_cpu_wait_share(noisy);
	char above[64], dur[96] = "", load[192] = "", waited[96] = "", avg[48] = "";

	tb_stats_fmt_above(above, sizeof(above), 100 * cv, 100 * max_cv, "%");
	/* Evidence that the noise is the machine's: the workload waited for its own CPU. */
	if (wait >= TB_CPU_WAIT_SHARE_SAY)
		snprintf(
			waited, sizeof(waited),
			"its workload waited %.1f%% of its time for its CPU: another task ran there",
			100 * wait);
	if (json_is_number(json_array_get(la, 0)))
		snprintf(avg, sizeof(avg), "load average %.1f at the start",
			 json_number_value(json_array_get(la, 0)));
	if (waited[0] || avg[0])
		snprintf(load, sizeof(load), " (%s%s%s)", waited, waited[0] && avg[0] ? "; " : "",
			 avg);
	if (isfinite(want_s) && want_s > sample_s && want_s <= MAX_SUGGESTED_S)
		snprintf(dur, sizeof(dur), ", or duration >= %.2gs (samples of %.2gs now)", want_s,
			 sample_s);
	set_reason(
		o, TB_VERDICT_UNTRUSTWORTHY,
		"too noisy: CV of the %s cell %s: quiet the machine%s%s, or max-cv = %.0f%% to accept it (the CI carries the noise)",
		traced ? "traced" : "baseline", above, load, dur, ceil(100 * cv + 0.5));
}

/* The untrustworthy rules before the proof; true when one matched. */
static bool broken(const struct tb_result *r, const struct tb_cell *base, const struct tb_cell *c,
		   struct tb_overhead *o)
{
	int64_t events = tb_cell_events(c), lost = tb_cell_lost(c);
	char remedy[256];

	if (!base) {
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY,
			   "no baseline cell for workload %s: add none to [matrix] tracers",
			   c->workload);
	} else if (c->error) {
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY, "cell failed: %s", c->error);
	} else if (base->error) {
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY, "baseline cell failed: %s", base->error);
	} else if (lost > 0) {
		lost_remedy(c, remedy, sizeof(remedy));
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY, "%lld events lost (%lld recorded): %s",
			   (long long)lost, (long long)events, remedy);
	} else if (c->proof.blocks) {
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY, "%s", c->proof.message);
	} else {
		return false;
	}
	return true;
}

/* The rules about the data itself: rounds, noise, foreign tracing, a CI at all. */
static bool unsound(const struct tb_result *r, const struct tb_cell *base, const struct tb_cell *c,
		    struct tb_overhead *o)
{
	const double max_cv = r->max_cv > 0 ? r->max_cv : TB_MAX_CV;

	if (c->summary.n < TB_MIN_ROUNDS || base->summary.n < TB_MIN_ROUNDS) {
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY,
			   "only %zu traced and %zu baseline measured rounds: repetitions >= %d",
			   c->summary.n, base->summary.n, TB_MIN_ROUNDS);
	} else if (c->summary.cv > max_cv || base->summary.cv > max_cv) {
		bool t = c->summary.cv > max_cv;

		noise_reason(r, t ? c : base, base, t, max_cv, o);
	} else if (r->foreign && json_array_size(r->foreign) && !r->allow_foreign) {
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY,
			   "foreign instrumentation active: %s%s: stop it and run again",
			   json_string_value(json_array_get(r->foreign, 0)),
			   json_array_size(r->foreign) > 1 ? " (and more)" : "");
	} else if (!isfinite(o->ci_lo) || !isfinite(o->ci_hi) || !isfinite(o->pct)) {
		set_reason(o, TB_VERDICT_UNTRUSTWORTHY,
			   "no confidence interval could be computed: repetitions >= %d",
			   TB_MIN_ROUNDS);
	} else {
		return false;
	}
	return true;
}

/* What the proof adds in front of an overhead or no-overhead reason. */
static const char *proof_prefix(const struct tb_result *r, const struct tb_cell *c, char *buf,
				size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	/* allowed foreign instrumentation: every verdict carries it */
	if (r->foreign && json_array_size(r->foreign))
		n = (size_t)snprintf(buf, len, "foreign instrumentation active (allowed): %s; ",
				     json_string_value(json_array_get(r->foreign, 0)));
	if (n < len &&
	    (c->proof.outcome == TB_PROOF_CONTROL || c->proof.outcome == TB_PROOF_UNCOUNTED ||
	     c->proof.outcome == TB_PROOF_UNVERIFIED))
		snprintf(buf + n, len - n, "%s; ", c->proof.message);
	return buf;
}

void tb_stats_verdict(const struct tb_result *r, const struct tb_cell *base, struct tb_cell *c)
{
	struct tb_overhead *o = &c->overhead;
	double thr = 100 * r->noise_threshold;
	bool control = c->proof.outcome == TB_PROOF_CONTROL;
	char pre[sizeof(c->proof.message) + 128];

	if (broken(r, base, c, o) || unsound(r, base, c, o))
		return;
	proof_prefix(r, c, pre, sizeof(pre));
	if (o->ci_hi < 0 && o->pct < -thr) {
		/* No tracer makes its workload faster: the baseline was slowed, or the cells differ */
		set_reason(
			o, TB_VERDICT_FASTER,
			"%s%+.2f%% [%+.2f%%, %+.2f%%] at %.0f%% confidence (%+.1f ns/op): traced is faster than the baseline beyond its CI: suspect the setup (a baseline slowed by other load or tracing, CPUs or frequencies that differ between the cells)",
			pre, o->pct, o->ci_lo, o->ci_hi, 100 * r->confidence, o->ns_per_op);
	} else if (o->ci_lo > 0 && o->pct > thr) {
		set_reason(
			o, TB_VERDICT_OVERHEAD,
			"%s%+.2f%% [%+.2f%%, %+.2f%%] at %.0f%% confidence (%+.1f ns/op)%s", pre,
			o->pct, o->ci_lo, o->ci_hi, 100 * r->confidence, o->ns_per_op,
			control ? "; a cost without the workload's events: the tracer's presence (a global flag, a filter run on every event)"
				: "");
	} else if (o->ci_lo > 0 || o->ci_hi < 0) {
		set_reason(
			o, TB_VERDICT_NO_OVERHEAD,
			"%s%+.2f%% is within the %.2g%% noise threshold; CI [%+.2f%%, %+.2f%%]; MDE %.2f%%%s",
			pre, o->pct, thr, o->ci_lo, o->ci_hi, o->mde_pct,
			control ? "; none expected" : "");
	} else {
		set_reason(
			o, TB_VERDICT_NO_OVERHEAD,
			"%sCI [%+.2f%%, %+.2f%%] includes 0; could have detected %.2f%% (MDE at alpha %.2g, power %.2g)%s",
			pre, o->ci_lo, o->ci_hi, o->mde_pct, r->alpha, r->power,
			control ? "; none expected" : "");
	}
}
