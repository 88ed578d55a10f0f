// SPDX-License-Identifier: GPL-2.0
/*
 * `run --find-limit`'s conclusions (limit.h). A rate search held below the lowest rate any
 * probe lost at: its limit is the fastest probe that lost nothing below that rate. Loss is
 * expected to be monotone in the rate for a fixed buffer and consumer; a probe that held
 * above a rate that lost says it was not (a consumer that fell behind once, a noisy machine),
 * and the conclusion says so rather than picking the higher figure. A buffer search: a buffer
 * held the named rate where a probe lost nothing at the rate or above, and it did not where a
 * probe lost events at the rate or below (within the resolution): the answer is the smallest
 * buffer that held, beside the largest below it that did not.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tb.h"
#include "stats/limit.h"
#include "stats/sweep.h"

/* A probe that says something: counts known, and its proof saw the workload's events (a loss
 * may leave fewer than expected: "below" is still the workload traced). */
static bool usable(const struct tb_limit_probe *p)
{
	static const char *const failed[] = {"missed", "unexpected", "nothing", "control"};

	if (!isfinite(p->events_per_s) || p->lost < 0)
		return false;
	for (size_t i = 0; i < sizeof(failed) / sizeof(failed[0]); i++)
		if (!strcmp(p->proof, failed[i]))
			return false;
	return true;
}

/*
 * The value of the search's knob at probe p into out: from its setting ("work = 0, calls = 40"),
 * or its own value when it moved that knob or says no more.
 */
static void knob_at(const struct tb_limit *l, const struct tb_limit_probe *p, char *out, size_t len)
{
	size_t n = strlen(l->knob);
	const char *at = p->setting;

	for (; at && *at; at = strstr(at, ", ") ? strstr(at, ", ") + 2 : NULL) {
		if (!strncmp(at, l->knob, n) && !strncmp(at + n, " = ", 3)) {
			at += n + 3;
			snprintf(out, len, "%.*s", (int)strcspn(at, ","), at);
			return;
		}
	}
	snprintf(out, len, "%s", p->knob_value ? p->knob_value : "");
}

/* Probe p as the held end, or the lost end. */
static void held(struct tb_limit *l, const struct tb_limit_probe *p)
{
	l->held_rate = p->events_per_s;
	l->held_cpu = p->tracer_cpu;
	knob_at(l, p, l->held_knob, sizeof(l->held_knob));
	snprintf(l->held_at, sizeof(l->held_at), "%s", p->setting ? p->setting : "");
	snprintf(l->held_buffer, sizeof(l->held_buffer), "%s", p->buffer);
}

static void lost(struct tb_limit *l, const struct tb_limit_probe *p)
{
	l->lost_rate = p->events_per_s;
	knob_at(l, p, l->lost_knob, sizeof(l->lost_knob));
	snprintf(l->lost_at, sizeof(l->lost_at), "%s", p->setting ? p->setting : "");
}

static void conclude_rate(struct tb_limit *l)
{
	const struct tb_limit_probe *best = NULL;
	double above = NAN;

	for (size_t i = 0; i < l->nprobes; i++) {
		const struct tb_limit_probe *p = &l->probes[i];

		if (usable(p) && p->lost > 0 && !(p->events_per_s >= l->lost_rate))
			lost(l, p);
	}
	for (size_t i = 0; i < l->nprobes; i++) {
		const struct tb_limit_probe *p = &l->probes[i];

		if (!usable(p) || p->lost > 0)
			continue;
		if (p->events_per_s >= l->lost_rate) {
			l->monotone = false;
			above = fmax(isnan(above) ? 0 : above, p->events_per_s);
		} else if (!best || p->events_per_s > best->events_per_s) {
			best = p;
		}
	}
	if (best)
		held(l, best);
	l->found = best && isfinite(l->lost_rate);
	if (!isfinite(l->lost_rate) && best)
		snprintf(
			l->note, sizeof(l->note),
			"no probe lost events: the buffer held the highest rate offered, %.3g events/s (%s)",
			best->events_per_s, best->setting ? best->setting : best->knob_value);
	else if (!best && !l->monotone)
		snprintf(
			l->note, sizeof(l->note),
			"not monotone: a probe held %.3g events/s, above the lowest rate that lost (%.3g), and none held below it: no limit",
			above, l->lost_rate);
	else if (!best && isfinite(l->lost_rate))
		snprintf(
			l->note, sizeof(l->note),
			"every probe lost events, even at %.3g events/s: the buffer holds less than the slowest rate probed",
			l->lost_rate);
	else if (!l->monotone)
		snprintf(
			l->note, sizeof(l->note),
			"not monotone: a probe held %.3g events/s, above the lowest rate that lost (%.3g); the limit is the fastest probe that held below it",
			above, l->lost_rate);
	else if (l->found && l->lost_rate > l->held_rate * (1 + l->resolution))
		snprintf(
			l->note, sizeof(l->note),
			"the bracket %.3g..%.3g events/s is wider than the resolution (%.0f%%): the probes ran out or the knob's steps are coarser",
			l->held_rate, l->lost_rate, l->resolution * 100);
}

static void conclude_buffer(struct tb_limit *l)
{
	const struct tb_limit_probe *best = NULL, *below = NULL;
	double at = l->target * (1 + l->resolution);

	for (size_t i = 0; i < l->nprobes; i++) {
		const struct tb_limit_probe *p = &l->probes[i];

		if (usable(p) && p->events_per_s >= l->target && !p->lost &&
		    (!best || p->buffer_x < best->buffer_x))
			best = p;
	}
	for (size_t i = 0; i < l->nprobes; i++) {
		const struct tb_limit_probe *p = &l->probes[i];

		if (!usable(p) || p->events_per_s > at || !p->lost)
			continue;
		if (best && p->buffer_x >= best->buffer_x)
			l->monotone = false;
		else if (!below || p->buffer_x > below->buffer_x)
			below = p;
	}
	if (best) {
		held(l, best);
		l->found = true;
	}
	if (below) {
		snprintf(l->lost_buffer, sizeof(l->lost_buffer), "%s", below->buffer);
		lost(l, below);
	}
	if (!best)
		snprintf(
			l->note, sizeof(l->note),
			"no buffer probed held %.3g events/s (the largest tried lost events, or the workload did not reach the rate)",
			l->target);
	else if (!l->monotone)
		snprintf(
			l->note, sizeof(l->note),
			"not monotone: a buffer of %s or more lost events at or below the rate; the answer is the smallest that held",
			best->buffer);
	else if (!below)
		snprintf(l->note, sizeof(l->note),
			 "the smallest buffer probed held the rate: a smaller one may too");
}

/* The probes the conclusion could not use, said after the note. */
static void left_out(struct tb_limit *l)
{
	size_t n = 0, len = strlen(l->note);

	for (size_t i = 0; i < l->nprobes; i++)
		n += !usable(&l->probes[i]);
	if (n)
		snprintf(
			l->note + len, sizeof(l->note) - len,
			"%s%zu of %zu probes left out (no counts, or the proof found the workload not traced)",
			len ? "; " : "", n, l->nprobes);
}

void tb_stats_limit_conclude(struct tb_limit *l)
{
	l->found = false;
	l->monotone = true;
	l->held_rate = l->held_cpu = l->lost_rate = NAN;
	l->held_knob[0] = l->held_buffer[0] = l->lost_buffer[0] = l->note[0] = '\0';
	l->lost_knob[0] = l->held_at[0] = l->lost_at[0] = '\0';
	if (!isfinite(l->resolution))
		l->resolution = 0.10;
	if (!strcmp(l->kind, "buffer"))
		conclude_buffer(l);
	else
		conclude_rate(l);
	left_out(l);
}

/* The smallest buffer a search of c's workload found to hold rate (its key = value and the
 * rate it held), or NULL. */
static const struct tb_limit *holding(const struct tb_result *r, const struct tb_cell *c,
				      double rate)
{
	const struct tb_limit *best = NULL;
	double bx = NAN;

	for (size_t i = 0; i < r->nlimits; i++) {
		const struct tb_limit *l = &r->limits[i];
		double x = NAN;

		if (strcmp(l->workload, c->workload) || !l->held_buffer[0] ||
		    !(l->held_rate >= rate))
			continue;
		for (size_t k = 0; k < l->nprobes; k++)
			if (!strcmp(l->probes[k].buffer, l->held_buffer))
				x = l->probes[k].buffer_x;
		if (!best || x < bx) {
			best = l;
			bx = x;
		}
	}
	return best;
}

/*
 * The answer first in a lost-events reason "N events lost (M recorded): remedy": the buffer a
 * search found to hold the cell's rate, before the tracer's estimate from the counts (which a
 * full reason cuts short, not this).
 */
static void remedy(struct tb_overhead *o, const struct tb_limit *l, double offered)
{
	char *at = strstr(o->reason, "recorded): "), rest[sizeof(o->reason)];
	size_t head;

	if (!at)
		return;
	head = (size_t)(at - o->reason) + strlen("recorded): ");
	snprintf(rest, sizeof(rest), "%s", o->reason + head);
	snprintf(o->reason + head, sizeof(o->reason) - head,
		 "--find-limit found %s = %s to hold %.3g events/s (this cell offered %.3g); %s",
		 l->buffer_key, l->held_buffer, l->held_rate, offered, rest);
}

void tb_stats_limits(struct tb_result *r)
{
	for (size_t i = 0; i < r->nlimits; i++)
		tb_stats_limit_conclude(&r->limits[i]);
	for (size_t i = 0; i < r->ncells && r->nlimits; i++) {
		struct tb_cell *c = &r->cells[i];
		struct tb_sweep_point pt = {.events_per_s = NAN, .lost = -1};
		const struct tb_limit *l;

		if (!c->has_overhead || !strstr(c->overhead.reason, "events lost"))
			continue;
		tb_stats_offered(c, &pt);
		l = isfinite(pt.events_per_s) ? holding(r, c, pt.events_per_s) : NULL;
		if (l)
			remedy(&c->overhead, l, pt.events_per_s);
	}
}
