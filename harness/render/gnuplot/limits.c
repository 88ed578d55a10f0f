// SPDX-License-Identifier: GPL-2.0
/*
 * The limits plot (r->limits, run --find-limit): limits.{png,svg}, the share of events lost
 * against the rate offered at each probe, a series per search (a tracer at one buffer size,
 * or a buffer search's probes, titled with the knob's value where it held and lost), drawn by
 * plots/rate.gp as the saturation plot is (sweep.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "model/result.h"
#include "render/gnuplot/gnuplot.h"
#include "render/gnuplot/plot.h"

/* A probe with a rate and a lost share (events_per_s > 0). */
static bool drawable(const struct tb_limit_probe *p)
{
	return isfinite(p->events_per_s) && p->events_per_s > 0 && isfinite(p->lost_share);
}

static bool has_probes(const struct tb_limit *l)
{
	for (size_t i = 0; i < l->nprobes; i++)
		if (drawable(&l->probes[i]))
			return true;
	return false;
}

/* One series: the probes by the order run (rate.gp draws points, not a line through them). */
static void series(FILE *fd, const struct tb_limit *l, double *lo, double *hi)
{
	for (size_t k = 0; k < l->nprobes; k++) {
		const struct tb_limit_probe *p = &l->probes[k];
		double y = 100 * p->lost_share;

		if (!drawable(p))
			continue;
		tb_gp_row(fd, "dddd", p->events_per_s, y, y, y);
		*lo = fmin(*lo, p->events_per_s);
		*hi = fmax(*hi, p->events_per_s);
	}
	fprintf(fd, "\n\n");
}

/* A search's key title: its cell, and the knobs where it held and lost ("w/t: held at work = 0,
 * calls = 22; lost at work = 0, calls = 32"), or the rate its buffers were for. */
static void title(char *t, size_t len, const struct tb_limit *l)
{
	size_t n;

	if (!isnan(l->target))
		n = (size_t)snprintf(t, len, "%s (buffers for %.3g events/s)", l->cell, l->target);
	else
		n = (size_t)snprintf(t, len, "%s", l->cell);
	if (l->held_at[0] && n < len)
		n += (size_t)snprintf(t + n, len - n, ": held at %s", l->held_at);
	if (l->lost_at[0] && n < len)
		snprintf(t + n, len - n, "%slost at %s", l->held_at[0] ? "; " : ": ", l->lost_at);
}

int tb_plot_limits(struct tb_gp *g, const struct tb_result *r)
{
	double lo = INFINITY, hi = -INFINITY;
	struct tb_gp_vars v = {0};
	int ng = 0, ret;
	FILE *fd;

	for (size_t i = 0; i < r->nlimits; i++)
		ng += has_probes(&r->limits[i]);
	if (!ng)
		return tb_gp_remove_images(g, "limits");
	if (tb_gp_vars_open(&v))
		return -ENOMEM;
	fd = tb_plot_lost_rate_open(g, "limits", "by search");
	ng = 0;
	for (size_t i = 0; fd && i < r->nlimits; i++) {
		const struct tb_limit *l = &r->limits[i];
		char t[480];

		if (!has_probes(l))
			continue;
		series(fd, l, &lo, &hi);
		title(t, sizeof(t), l);
		tb_gp_var_si(&v, "g%d", ng++, t);
	}
	ret = tb_plot_lost_rate_draw(
		g, fd, &v, "limits", ng, lo, hi,
		"Events lost against the event rate (run --find-limit's probes)");
	tb_gp_vars_free(&v);
	return ret;
}
