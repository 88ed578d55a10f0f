// SPDX-License-Identifier: GPL-2.0
/* Verdicts and reasons that say what to change (verdict.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "stats/verdict.h"

#define MIB (1024.0 * 1024.0)
/* A CV target below max-cv, so that the suggested duration is not borderline again. */
#define CV_MARGIN 0.8
/* Beyond this a longer sample is no longer a practical remedy for noise. */
#define MAX_SUGGESTED_S 30.0

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

static bool type_is(const struct tb_cell *c, const char *type)
{
	return c->tracer_type && !strcmp(c->tracer_type, type);
}

static double extra_num(const struct tb_cell *c, const char *key)
{
	json_t *v = c->tracer_extra ? json_object_get(c->tracer_extra, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static double config_num(const struct tb_cell *c, const char *key)
{
	json_t *v = c->tracer_config ? json_object_get(c->tracer_config, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *config_str(const struct tb_cell *c, const char *key)
{
	json_t *v = c->tracer_config ? json_object_get(c->tracer_config, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : "";
}

/* The most events (recorded + lost) one measured sample produced. */
static int64_t max_per_sample(const struct tb_cell *c)
{
	int64_t m = 0;
	size_t i;

	for (i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		int64_t n = s->events + (s->lost > 0 ? s->lost : 0);

		if (tb_sample_measured(s) && s->events >= 0 && n > m)
			m = n;
	}
	return m;
}

/* A size as a scenario writes it: 512K, 3M, 2G. */
static const char *fmt_size(char *buf, size_t len, double bytes)
{
	if (bytes >= 1024 * MIB)
		snprintf(buf, len, "%.0fG", ceil(bytes / (1024 * MIB)));
	else if (bytes >= MIB)
		snprintf(buf, len, "%.0fM", ceil(bytes / MIB));
	else
		snprintf(buf, len, "%.0fK", ceil(bytes / 1024));
	return buf;
}

static double pow2_at_least(double v)
{
	double p = 4096;

	while (p < v && p < 1e15)
		p *= 2;
	return p;
}

/* An ftrace ring buffer filled: the size a sample needs, what auto gave, the reader's pace. */
static void ftrace_remedy(const struct tb_cell *c, double per, double bpe, double rate, char *buf,
			  size_t len)
{
	double autos = extra_num(c, "buffer_size_auto");
	double made = extra_num(c, "produced_events_per_s");
	char size[32];
	size_t n;

	if (!(bpe > 0))
		bpe = 64; /* a raw_syscalls entry with its header */
	snprintf(
		buf, len,
		"a ring buffer filled: buffer-size >= %s (a sample makes up to %.0f events of ~%.0f bytes on the workload's CPU)",
		fmt_size(size, sizeof(size), fmax(per * bpe * 1.25, MIB)), per, bpe);
	n = strlen(buf);
	if (autos > 0)
		snprintf(buf + n, len - n, "; auto gave %s, capped by the memory",
			 fmt_size(size, sizeof(size), autos));
	n = strlen(buf);
	if (rate > 0)
		snprintf(buf + n, len - n, "; the stream reader kept up with %.3g of %.3g events/s",
			 rate, made);
	n = strlen(buf);
	snprintf(buf + n, len - n, ", or overwrite = true (a flight recorder keeps the newest)");
}

/* Where the losses come from, and the setting (with a value from this run) that stops them. */
static void lost_remedy(const struct tb_cell *c, char *buf, size_t len)
{
	double per = (double)max_per_sample(c), bpe = extra_num(c, "bytes_per_event");
	double rate = extra_num(c, "stream_events_per_s");
	char size[32];

	if (type_is(c, "ftrace-events") || type_is(c, "ftrace-function")) {
		ftrace_remedy(c, per, bpe, rate, buf, len);
	} else if (type_is(c, "bpf") && !strcmp(config_str(c, "program"), "ringbuf-events")) {
		snprintf(
			buf, len,
			"the BPF ring buffer filled: ringbuf-size >= %s (a power of two; a sample makes up to %.0f records of 32 bytes), or a faster reader (ringbuf-wakeup)",
			fmt_size(size, sizeof(size), pow2_at_least(per * 32 * 1.25)), per);
	} else if (type_is(c, "bpf")) {
		snprintf(
			buf, len,
			"a BPF map is full (the bundled maps hold 10240 entries): trace fewer processes (pid-filter = workload)");
	} else if (type_is(c, "perf-sample")) {
		double pages = config_num(c, "mmap-pages");

		snprintf(buf, len,
			 "the perf ring buffer filled: mmap-pages >= %.0f (a power of two)%s",
			 isfinite(pages) ? 4 * pages : 512.0,
			 json_is_false(json_object_get(c->tracer_config, "consumer"))
				 ? ", or consumer = true"
				 : "");
	} else {
		snprintf(buf, len, "the tracer dropped them: give it larger buffers");
	}
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
	char above[64], dur[96] = "", load[64] = "";

	tb_stats_fmt_above(above, sizeof(above), 100 * cv, 100 * max_cv, "%");
	if (json_is_number(json_array_get(la, 0)))
		snprintf(load, sizeof(load), " (load average %.1f at the start)",
			 json_number_value(json_array_get(la, 0)));
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
	} else if (r->foreign && json_array_size(r->foreign)) {
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
static const char *proof_prefix(const struct tb_cell *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (c->proof.outcome == TB_PROOF_CONTROL || c->proof.outcome == TB_PROOF_UNCOUNTED ||
	    c->proof.outcome == TB_PROOF_UNVERIFIED)
		snprintf(buf, len, "%s; ", c->proof.message);
	return buf;
}

void tb_stats_verdict(const struct tb_result *r, const struct tb_cell *base, struct tb_cell *c)
{
	struct tb_overhead *o = &c->overhead;
	double thr = 100 * r->noise_threshold;
	bool control = c->proof.outcome == TB_PROOF_CONTROL;
	char pre[sizeof(c->proof.message) + 4];

	if (broken(r, base, c, o) || unsound(r, base, c, o))
		return;
	proof_prefix(c, pre, sizeof(pre));
	if ((o->ci_lo > 0 || o->ci_hi < 0) && fabs(o->pct) > thr) {
		set_reason(
			o, TB_VERDICT_OVERHEAD,
			"%s%+.2f%% [%+.2f%%, %+.2f%%] at %.0f%% confidence (%+.1f ns/op)%s", pre,
			o->pct, o->ci_lo, o->ci_hi, 100 * r->confidence, o->ns_per_op,
			o->pct < 0 ? "; traced is faster than the baseline: suspect the setup"
			: control
				? "; a cost without the workload's events: the tracer's presence (a global flag, a filter run on every event)"
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
