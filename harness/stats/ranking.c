// SPDX-License-Identifier: GPL-2.0
/* The cross-cell ranking of costs per event (ranking.h). */
#include <math.h>
#include <stdlib.h>

#include "core/tb.h"
#include "model/measured.h"
#include "model/proof.h"
#include "stats/ranking.h"

static int cost_cmp(const void *a, const void *b)
{
	const struct tb_event_cost *x = a, *y = b;

	/* those left out in the cells' order: qsort is not stable */
	if (isnan(x->ns) && isnan(y->ns))
		return (x->cell > y->cell) - (x->cell < y->cell);
	if (isnan(x->ns) || isnan(y->ns))
		return isnan(x->ns) - isnan(y->ns);
	return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* The entry of c's (tracer, workload type) among out[0..n), or NULL. */
static struct tb_event_cost *cost_find(struct tb_event_cost *out, size_t n, const struct tb_cell *c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tb_streq(out[i].cell->tracer, c->tracer) &&
		    tb_streq(out[i].cell->workload_type, c->workload_type))
			return &out[i];
	return NULL;
}

size_t tb_stats_event_costs(const struct tb_result *r, struct tb_event_cost *out, size_t max,
			    size_t *nleft)
{
	const struct tb_rate_model *m;
	struct tb_event_cost *e;
	size_t i, n = 0, ranked = 0;
	const char *why;

	for (i = 0; i < r->ncells; i++) {
		const struct tb_cell *c = &r->cells[i];

		if (c->baseline || !c->has_overhead)
			continue;
		e = cost_find(out, n, c);
		if (!e) {
			if (n >= max)
				continue;
			e = &out[n++];
			e->cell = c;
			tb_cell_probe_label(c, e->probe, sizeof(e->probe));
			e->ns = e->lo = e->hi = NAN;
			e->npoints = 0;
			e->why = NULL;
			m = tb_result_rate_model(r, c);
			if (m && m->accepted && isfinite(m->cost_ns)) {
				e->ns = m->cost_ns;
				e->lo = m->cost_ci_lo;
				e->hi = m->cost_ci_hi;
				e->npoints = m->npoints;
			}
		}
		if (e->npoints || isfinite(e->ns))
			continue;
		if (tb_proof_ns_per_event_shown(c, &why)) {
			e->ns = c->overhead.ns_per_event;
			e->lo = c->overhead.nse_ci_lo;
			e->hi = c->overhead.nse_ci_hi;
			e->why = NULL;
		} else if (!e->why) {
			e->why = why;
		}
	}
	qsort(out, n, sizeof(*out), cost_cmp);
	while (ranked < n && isfinite(out[ranked].ns))
		ranked++;
	*nleft = n - ranked;
	return ranked;
}
