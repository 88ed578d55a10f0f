// SPDX-License-Identifier: GPL-2.0
/*
 * Sweeps' models (sweep.h). The cells of one swept section (parse/sweep.c)
 * under one tracer (a workload sweep) or on one workload (a tracer sweep) are a sweep's points:
 * each point's y is its cell's overhead ns/op, the traced samples against its own baseline's,
 * paired by round (analyze_cell), and its x the swept value. The line y = fixed + slope * x is
 * the rate model's fit (tb_stats_line_fit) with its acceptance rule, so that a slope is said
 * only when its CI excludes 0 and r2 >= TB_RATE_MIN_R2. Where the line is refused or bent, two
 * lines meeting at a knee are tried (tb_stats_knee_fit), under a rule of their own. A filter's
 * selectivity sweep (unit TB_UNIT_FILTERED) also says what a kept and a rejected event cost,
 * and a workload sweep the event rate its tracer held without a loss and the one it lost at.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tb.h"
#include "model/measured.h"
#include "model/result.h"
#include "stats/fit.h"
#include "stats/stats.h"
#include "stats/sweep.h"

/* The sweep of (kind, section, key, against), made when it is new; NULL on ENOMEM. */
static struct tb_sweep *sweep_of(struct tb_result *r, const char *kind,
				 const struct tb_cell_sweep *cs, const char *against)
{
	struct tb_sweep *sw;

	for (size_t i = 0; i < r->nsweeps; i++) {
		sw = &r->sweeps[i];
		if (!strcmp(sw->kind, kind) && !strcmp(sw->section, cs->section) &&
		    !strcmp(sw->key, cs->key) && !strcmp(sw->against, against))
			return sw;
	}
	sw = tb_result_add_sweep(r);
	if (!sw)
		return NULL;
	sw->kind = strdup(kind);
	sw->section = strdup(cs->section);
	sw->key = strdup(cs->key);
	sw->against = strdup(against);
	sw->unit = strdup(cs->unit ? cs->unit : cs->key);
	return sw->kind && sw->section && sw->key && sw->against && sw->unit ? sw : NULL;
}

void tb_stats_offered(const struct tb_cell *c, struct tb_sweep_point *pt)
{
	double ns = 0, cpu = 0, events = 0;
	int64_t lost = 0;
	bool known = false;

	for (size_t i = 0; i < c->nsamples; i++) {
		const struct tb_sample *s = &c->samples[i];

		if (!tb_sample_measured(s) || s->accounting || s->events < 0 || s->lost < 0 ||
		    !(s->elapsed_ns > 0))
			continue;
		known = true;
		ns += s->elapsed_ns;
		events += (double)(s->events + s->lost);
		lost += s->lost;
		cpu += isfinite(s->tracer_cpu_s) ? s->tracer_cpu_s : 0;
	}
	if (!known)
		return;
	pt->events_per_s = events / ns * 1e9;
	pt->lost = lost;
	pt->lost_share = events > 0 ? (double)lost / events : NAN;
	pt->tracer_cpu = cpu / ns * 1e9;
}

/* Point p as the one sw held (saturation). */
static void held(struct tb_sweep *sw, const struct tb_sweep_point *p)
{
	sw->held_rate = p->events_per_s;
	sw->held_cpu = p->tracer_cpu;
	snprintf(sw->held_value, sizeof(sw->held_value), "%s", p->value);
}

/*
 * A sweep's saturation. A workload sweep (rates against one tracer): the fastest point that
 * lost nothing, the slowest that did. A tracer sweep (buffer sizes at one rate): its smallest
 * value that lost nothing, where another value lost (the points are by rising x).
 */
static void saturation(struct tb_sweep *sw)
{
	bool lost = false;

	for (size_t i = 0; i < sw->npoints; i++) {
		const struct tb_sweep_point *p = &sw->points[i];

		if (!isfinite(p->events_per_s) || p->lost < 0)
			continue;
		lost |= p->lost > 0;
		if (sw->kind[0] == 't') {
			if (!p->lost && !sw->held_value[0])
				held(sw, p);
			continue;
		}
		if (!p->lost && !(p->events_per_s <= sw->held_rate))
			held(sw, p);
		if (p->lost && !(p->events_per_s >= sw->lost_rate))
			sw->lost_rate = p->events_per_s;
	}
	if (sw->kind[0] == 't' && !lost) {
		sw->held_rate = sw->held_cpu = NAN;
		sw->held_value[0] = '\0';
	}
}

/* A workload sweep's held rate says something only beside a loss: of one of its section's
 * sweeps (the same rates against another buffer size). Where none lost, it is no limit. */
static void no_limit(const struct tb_result *r, struct tb_sweep *sw)
{
	if (sw->kind[0] != 'w')
		return;
	for (size_t i = 0; i < r->nsweeps; i++)
		if (isfinite(r->sweeps[i].lost_rate) && !strcmp(r->sweeps[i].kind, sw->kind) &&
		    !strcmp(r->sweeps[i].section, sw->section))
			return;
	sw->held_rate = sw->held_cpu = NAN;
	sw->held_value[0] = '\0';
}

/* The lost-events verdicts of a buffer-size sweep's lossy points name the size that held the
 * same rate in this run, beside the estimate from their own counts. */
static void lost_remedy(struct tb_result *r, const struct tb_sweep *sw)
{
	if (sw->kind[0] != 't' || !sw->held_value[0] || strcmp(sw->unit, "byte"))
		return;
	for (size_t i = 0; i < sw->npoints; i++) {
		const struct tb_sweep_point *p = &sw->points[i];

		for (size_t k = 0; p->lost > 0 && k < r->ncells; k++) {
			struct tb_overhead *o = &r->cells[k].overhead;
			size_t n = strlen(o->reason);

			if (strcmp(r->cells[k].id, p->cell) || !r->cells[k].has_overhead ||
			    !strstr(o->reason, "events lost"))
				continue;
			snprintf(o->reason + n, sizeof(o->reason) - n,
				 "; in this run %s = %s held it (%.3g events/s)", sw->key,
				 sw->held_value, sw->held_rate);
		}
	}
}

/* Cell c as a point of its sweep cs (kind "workload" or "tracer"). 0 or -ENOMEM. */
static int add_point(struct tb_result *r, const struct tb_cell *c, const char *kind,
		     const struct tb_cell_sweep *cs)
{
	struct tb_sweep *sw = sweep_of(r, kind, cs, kind[0] == 'w' ? c->tracer : c->workload);
	struct tb_sweep_point *pt = sw ? tb_sweep_add_point(sw) : NULL;

	if (!pt || !(pt->cell = strdup(c->id)) || !(pt->value = strdup(cs->value)))
		return -ENOMEM;
	pt->x = cs->x;
	tb_stats_offered(c, pt);
	if (c->has_overhead) {
		pt->ns_per_op = c->overhead.ns_per_op;
		pt->ns_lo = c->overhead.ns_ci_lo;
		pt->ns_hi = c->overhead.ns_ci_hi;
	}
	if (!strcmp(sw->unit, TB_UNIT_FILTERED) && cs->x == 0 && c->has_overhead) {
		sw->accepted_ns = c->overhead.ns_per_event; /* every event kept */
		if (sw->accepted_ns > 0)
			sw->kept_per_op = c->overhead.ns_per_op / sw->accepted_ns;
	}
	pt->used = tb_stats_fit_point(c, pt->why_not, sizeof(pt->why_not));
	if (pt->used && !isfinite(pt->x)) {
		pt->used = false;
		snprintf(pt->why_not, sizeof(pt->why_not), "the value is not a number");
	}
	return 0;
}

static int by_x(const void *a, const void *b)
{
	double x = ((const struct tb_sweep_point *)a)->x, y = ((const struct tb_sweep_point *)b)->x;

	return isnan(x) || isnan(y) ? isnan(x) - isnan(y) : (x > y) - (x < y);
}

/*
 * A filter's rejected event where its line gives none: the point that rejects every event
 * measures one directly, its overhead and CI per event, as the kept point measures a kept one.
 * That point is the largest used x (none can reject more), if it is the kept point's events per
 * op (its expected events, which gave the kept event's ns) within 0.5%. Nothing otherwise.
 */
static void rejected_from_point(struct tb_sweep *sw)
{
	const struct tb_sweep_point *p = NULL;
	double k = sw->kept_per_op;

	for (size_t i = 0; i < sw->npoints; i++)
		if (sw->points[i].used && (!p || sw->points[i].x > p->x))
			p = &sw->points[i];
	if (!(k > 0) || !p || fabs(p->x - k) > 0.005 * k || !isfinite(p->ns_lo) ||
	    !isfinite(p->ns_hi))
		return;
	sw->rejected_ns = p->ns_per_op / k;
	sw->rej_lo = p->ns_lo / k;
	sw->rej_hi = p->ns_hi / k;
	sw->rejected_within_noise = sw->rej_lo <= sw->accepted_ns && sw->accepted_ns <= sw->rej_hi;
	sw->rejected_from_point = true;
}

/* The cell of r named id; NULL when none is. */
static const struct tb_cell *cell_by_id(const struct tb_result *r, const char *id)
{
	for (size_t i = 0; i < r->ncells; i++)
		if (!strcmp(r->cells[i].id, id))
			return &r->cells[i];
	return NULL;
}

/* The slope's CI from the rounds (tb_stats_rounds_slope_ci) through the n used points of sw, x
 * by rising x as fit orders them. 0 (ci NAN where it cannot be had), -ENOMEM. */
static int rounds_ci(const struct tb_result *r, const struct tb_sweep *sw, const double *x,
		     size_t n, uint64_t stream, double ci[2])
{
	const struct tb_cell **cells = calloc(n + 1, sizeof(*cells));
	size_t p = 0;
	int ret;

	ci[0] = ci[1] = NAN;
	if (!cells)
		return -ENOMEM;
	for (size_t i = 0; i < sw->npoints && p < n; i++)
		if (sw->points[i].used && !(cells[p++] = cell_by_id(r, sw->points[i].cell)))
			break;
	ret = p == n && cells[n - 1] ? tb_stats_rounds_slope_ci(r, cells, x, n, stream, ci) : 0;
	free(cells);
	return ret;
}

/* The line through a sweep's used points. 0 or -ENOMEM. */
static int fit(const struct tb_result *r, struct tb_sweep *sw, uint64_t stream)
{
	double alpha = r->alpha;
	double *x = malloc((sw->npoints + 1) * 2 * sizeof(double)), *y;
	char per[64], range[80], flat[160];
	size_t n = 0;
	bool within;

	if (!x)
		return -ENOMEM;
	y = x + sw->npoints + 1;
	qsort(sw->points, sw->npoints, sizeof(*sw->points), by_x);
	for (size_t i = 0; i < sw->npoints; i++)
		if (sw->points[i].used) {
			x[n] = sw->points[i].x;
			y[n++] = sw->points[i].ns_per_op;
		}
	snprintf(per, sizeof(per), "%s", sw->unit);
	snprintf(range, sizeof(range), "%s values", sw->key);
	snprintf(flat, sizeof(flat), "the usable points have one %s: nothing to fit a line to",
		 sw->key);
	tb_stats_line_fit(x, y, n, alpha, per, range, flat, &sw->fit); /* why_not says why not */
	if (n >= 3 && isfinite(sw->fit.cost_ci_lo)) {
		double ci[2];

		if (rounds_ci(r, sw, x, n, stream, ci) == -ENOMEM) {
			free(x);
			return -ENOMEM;
		}
		sw->rounds_lo = ci[0];
		sw->rounds_hi = ci[1];
		tb_stats_line_widen(&sw->fit, ci, per, range);
	}
	if (n < 3 && n < sw->npoints)
		snprintf(sw->fit.why_not, sizeof(sw->fit.why_not),
			 "%zu of %zu points usable: at least 3 are needed (each point says why)", n,
			 sw->npoints);
	sw->has_knee = n >= 5 && (!sw->fit.accepted || sw->fit.nonlinear);
	if (sw->has_knee && tb_stats_knee_fit(x, y, n, alpha, &sw->knee) == -ENOMEM) {
		free(x);
		return -ENOMEM;
	}
	/* A selectivity line is a line by construction (each event is kept or rejected), so its
	 * slope's CI, from the points' own scatter, says what a rejected event costs even where
	 * r2 is low: a small saving against the noise lowers r2 without bending the line. A slope
	 * whose CI includes 0 says the same as a kept one within that CI. A bent line (its
	 * quadratic term significant), one refused for its r2 with too few points to test for a
	 * bend (3) or no fit at all (a NAN CI) says nothing of a rejected event: the point that
	 * rejects every event still does. */
	within = sw->fit.cost_ci_lo <= 0 && sw->fit.cost_ci_hi >= 0;
	if (isfinite(sw->accepted_ns) && isfinite(sw->fit.cost_ci_lo) &&
	    isfinite(sw->fit.cost_ci_hi) && !sw->fit.nonlinear &&
	    (sw->fit.accepted || within || n >= 4)) {
		sw->rejected_ns = sw->accepted_ns + sw->fit.cost_ns;
		sw->rej_lo = sw->accepted_ns + sw->fit.cost_ci_lo;
		sw->rej_hi = sw->accepted_ns + sw->fit.cost_ci_hi;
		sw->rejected_within_noise = within;
	} else if (isfinite(sw->accepted_ns)) {
		rejected_from_point(sw);
	}
	free(x);
	return 0;
}

int tb_stats_sweeps(struct tb_result *r)
{
	int ret = 0;

	tb_result_sweeps_free(r);
	for (size_t i = 0; i < r->ncells && !ret; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->baseline)
			continue;
		if (c->wsweep.present)
			ret = add_point(r, c, "workload", &c->wsweep);
		if (!ret && c->tsweep.present)
			ret = add_point(r, c, "tracer", &c->tsweep);
	}
	for (size_t i = 0; i < r->nsweeps && !ret; i++) {
		ret = fit(r, &r->sweeps[i], 0x5e0000 + i);
		if (!ret && r->sweeps[i].kind[0] == 'w')
			saturation(&r->sweeps[i]);
	}
	for (size_t i = 0; i < r->nsweeps; i++) {
		if (r->sweeps[i].kind[0] == 't')
			saturation(&r->sweeps[i]);
		no_limit(r, &r->sweeps[i]);
		lost_remedy(r, &r->sweeps[i]);
	}
	return ret;
}

/* A's sweep matching b's, or NULL. */
static const struct tb_sweep *same_sweep(const struct tb_result *a, const struct tb_sweep *b)
{
	for (size_t i = 0; i < a->nsweeps; i++) {
		const struct tb_sweep *s = &a->sweeps[i];

		if (!strcmp(s->kind, b->kind) && !strcmp(s->section, b->section) &&
		    !strcmp(s->key, b->key) && !strcmp(s->against, b->against))
			return s;
	}
	return NULL;
}

const char *tb_cmp_sweep_dir_name(enum tb_cmp_sweep_dir d)
{
	static const char *const names[] = {"same",	    "worse",	 "better",   "refused",
					    "not compared", "only in A", "only in B"};

	return (unsigned int)d < sizeof(names) / sizeof(names[0]) ? names[d] : "?";
}

/* B's slope minus A's with its CI, and the verdict; noise is a fraction of A's slope. */
static void slope_change(struct tb_cmp_sweep *d, double noise)
{
	const struct tb_rate_model *x = &d->a->fit, *y = &d->b->fit;
	double ha = (x->cost_ci_hi - x->cost_ci_lo) / 2, hb = (y->cost_ci_hi - y->cost_ci_lo) / 2;
	double h = sqrt(ha * ha + hb * hb);

	d->change = d->ci_lo = d->ci_hi = NAN;
	if (!x->accepted || !y->accepted) {
		d->dir = TB_CMP_SWEEP_REFUSED;
		snprintf(d->why, sizeof(d->why), "no accepted line in %s",
			 !x->accepted && !y->accepted ? "either"
			 : !x->accepted		      ? "A"
						      : "B");
		return;
	}
	if (strcmp(d->a->unit, d->b->unit)) {
		d->dir = TB_CMP_SWEEP_UNCOMPARED;
		snprintf(d->why, sizeof(d->why), "per %.30s in A, per %.30s in B", d->a->unit,
			 d->b->unit);
		return;
	}
	d->change = y->cost_ns - x->cost_ns;
	d->ci_lo = d->change - h;
	d->ci_hi = d->change + h;
	d->significant = d->ci_lo > 0 || d->ci_hi < 0;
	d->dir = TB_CMP_SWEEP_SAME;
	/* A change inside the noise threshold is not a change even when its CI is tight. */
	if (d->significant && fabs(d->change) > noise * fabs(x->cost_ns))
		d->dir = d->change > 0 ? TB_CMP_SWEEP_WORSE : TB_CMP_SWEEP_BETTER;
}

int tb_stats_sweep_changes(const struct tb_result *a, const struct tb_result *b,
			   struct tb_cmp_sweep **out, size_t *n, size_t *nboth)
{
	struct tb_cmp_sweep *d = calloc(a->nsweeps + b->nsweeps + 1, sizeof(*d));
	double noise = isfinite(a->noise_threshold) ? a->noise_threshold : 0;

	*out = d;
	*n = *nboth = 0;
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < a->nsweeps; i++) {
		const struct tb_sweep *sb = same_sweep(b, &a->sweeps[i]);

		if (!sb)
			continue;
		d[*n].a = &a->sweeps[i];
		d[*n].b = sb;
		slope_change(&d[(*n)++], noise);
	}
	*nboth = *n;
	for (size_t i = 0; i < a->nsweeps; i++)
		if (!same_sweep(b, &a->sweeps[i]))
			d[(*n)++] = (struct tb_cmp_sweep){.a = &a->sweeps[i],
							  .dir = TB_CMP_SWEEP_ONLY_A};
	for (size_t i = 0; i < b->nsweeps; i++)
		if (!same_sweep(a, &b->sweeps[i]))
			d[(*n)++] = (struct tb_cmp_sweep){.b = &b->sweeps[i],
							  .dir = TB_CMP_SWEEP_ONLY_B};
	for (size_t i = *nboth; i < *n; i++)
		d[i].change = d[i].ci_lo = d[i].ci_hi = NAN;
	return 0;
}
