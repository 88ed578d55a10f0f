// SPDX-License-Identifier: GPL-2.0
/* What a run fell short of, one sentence each (shortfall.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "model/result.h"
#include "stats/shortfall.h"

double tb_stats_precision_reached(const struct tb_result *r)
{
	double worst = NAN;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_overhead *o = &r->cells[i].overhead;

		if (r->cells[i].baseline || r->cells[i].error || !r->cells[i].has_overhead ||
		    !isfinite(o->ci_lo) || !isfinite(o->ci_hi))
			continue;
		if (!((o->ci_hi - o->ci_lo) / 2 <= worst))
			worst = (o->ci_hi - o->ci_lo) / 2;
	}
	return worst;
}

/* A reason's kind: its text before the first ':', without numbers ("N events lost"). */
static void reason_kind(const char *reason, char *buf, size_t len)
{
	size_t n = 0;

	for (; *reason && *reason != ':' && n + 1 < len; reason++)
		if (!isdigit((unsigned char)*reason) && *reason != '.')
			buf[n++] = *reason;
	buf[n] = '\0';
}

static bool untrusted(const struct tb_cell *c)
{
	return !c->baseline && c->has_overhead && c->overhead.verdict == TB_VERDICT_UNTRUSTWORTHY;
}

const char *tb_stats_common_reason(const struct tb_result *r, size_t *n)
{
	const char *best = NULL;
	char kind[128], other[128];

	*n = 0;
	for (size_t i = 0; i < r->ncells; i++) {
		size_t k = 0;

		if (!untrusted(&r->cells[i]))
			continue;
		reason_kind(r->cells[i].overhead.reason, kind, sizeof(kind));
		for (size_t j = 0; j < r->ncells; j++) {
			if (!untrusted(&r->cells[j]))
				continue;
			reason_kind(r->cells[j].overhead.reason, other, sizeof(other));
			k += !strcmp(kind, other);
		}
		if (k > *n) { /* the first cell of the commonest kind: ties go to the earlier */
			*n = k;
			best = r->cells[i].overhead.reason;
		}
	}
	return best;
}

static int say(json_t *arr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int say(json_t *arr, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return json_array_append_new(arr, json_string(buf)) ? -ENOMEM : 0;
}

/* The precision target: said when asked for and the run stopped for another reason. */
static int precision_missed(const struct tb_result *r)
{
	double reached = tb_stats_precision_reached(r);

	if (!(r->precision > 0) || !r->stop_reason || !strcmp(r->stop_reason, "precision"))
		return 0;
	if (!isfinite(reached))
		return say(
			r->shortfalls,
			"precision target missed: asked for CI half-widths of at most %g points, no traced cell has a CI (stopped at %s)",
			100 * r->precision, r->stop_reason);
	return say(
		r->shortfalls,
		"precision target missed: the widest CI half-width is %.2f points at %.0f%% confidence, %g asked (stopped at %s: more time or a quieter machine)",
		reached, 100 * r->confidence, 100 * r->precision, r->stop_reason);
}

/* max-time ended the run before the rounds asked (min-rounds, or repetitions). */
static int max_time_cut(const struct tb_result *r)
{
	char need[96] = "";

	if (!r->stop_reason || strcmp(r->stop_reason, "max-time") || r->rounds_asked < 0 ||
	    r->rounds >= (uint64_t)r->rounds_asked)
		return 0;
	if (isfinite(r->max_time_needed_s))
		snprintf(need, sizeof(need), ": they needed max-time >= %.0f s",
			 ceil(r->max_time_needed_s));
	return say(
		r->shortfalls,
		"max-time (%.3g s) cut the run at %u of the %lld rounds asked, no round started that would not end within it%s (or fewer rounds, or shorter samples)",
		r->max_time_s, r->rounds, (long long)r->rounds_asked, need);
}

/* The cells: untrustworthy ones (with the commonest reason), faster ones, failed baselines. */
static int cells_short(const struct tb_result *r)
{
	size_t ntraced = 0, nuntr = 0, nfast = 0, nbase = 0, ncommon;
	const char *first_fast = NULL, *common = tb_stats_common_reason(r, &ncommon);
	int ret = 0;

	for (size_t i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->baseline) {
			nbase += c->error != NULL;
			continue;
		}
		ntraced++;
		nuntr += untrusted(c);
		if (c->has_overhead && c->overhead.verdict == TB_VERDICT_FASTER) {
			first_fast = first_fast ? first_fast : c->id;
			nfast++;
		}
	}
	if (nuntr)
		ret = say(
			r->shortfalls,
			"%zu of %zu traced cells untrustworthy; the commonest reason (%zu of them): %s",
			nuntr, ntraced, ncommon, common);
	if (!ret && nfast)
		ret = say(
			r->shortfalls,
			"%zu of %zu traced cells faster than their baseline beyond the CI (first: %s): no tracer speeds its workload up, suspect the setup",
			nfast, ntraced, first_fast ? first_fast : "?");
	if (!ret && nbase)
		ret = say(r->shortfalls,
			  "%zu baseline cell%s failed: their traced cells have no figure", nbase,
			  nbase == 1 ? "" : "s");
	return ret;
}

/* Contended samples kept in the statistics because the re-run bound was reached. */
static int contended_kept(const struct tb_result *r)
{
	unsigned int kept = 0;
	const char *first = NULL;

	for (size_t i = 0; i < r->ncells; i++) {
		kept += r->cells[i].contention.kept;
		if (!first && r->cells[i].contention.kept)
			first = r->cells[i].id;
	}
	if (!kept)
		return 0;
	return say(
		r->shortfalls,
		"%u contended sample%s kept in the statistics (first: %s): more than %g%% of the batch went to other tasks or the hypervisor and the rounds run again reached their bound; a quieter machine, or fewer other tasks on the workload's CPU",
		kept, kept == 1 ? "" : "s", first, 100 * r->contended_share);
}

int tb_stats_shortfalls(struct tb_result *r)
{
	size_t nforeign = json_is_array(r->foreign) ? json_array_size(r->foreign) : 0;
	int ret = 0;

	if (!r->shortfalls && !(r->shortfalls = json_array()))
		return -ENOMEM;
	json_array_clear(r->shortfalls);
	if (r->partial && r->stop_reason)
		ret = say(
			r->shortfalls,
			"partial result: the run stopped early (%s); its figures come from the rounds it finished",
			r->stop_reason);
	else if (r->partial) /* as written after each round: a run still going, or killed */
		ret = say(
			r->shortfalls,
			"partial result: the run has not finished (still running, or killed before it could say why); its figures come from the rounds written");
	if (!ret && nforeign)
		ret = say(
			r->shortfalls,
			"foreign instrumentation was active when the run started (%s): %s%s; it biases the baseline",
			r->allow_foreign ? "allowed by --allow-foreign" : "not allowed",
			json_string_value(json_array_get(r->foreign, 0)),
			nforeign > 1 ? " (and more)" : "");
	if (!ret)
		ret = max_time_cut(r);
	if (!ret)
		ret = precision_missed(r);
	if (!ret)
		ret = cells_short(r);
	if (!ret)
		ret = contended_kept(r);
	return ret;
}
