/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cross-cell ranking of costs per event (ranking.c): one figure per tracer section and
 * workload type, cheapest first, from the rate models and the cells' own ns/event where the
 * proof says it means something (model/proof.h). The summary's ranking, the probe-types plot
 * and the HTML report's line under it all come from here.
 */
#ifndef TB_RANKING_H
#define TB_RANKING_H

#include <stddef.h>

#include "model/result.h"

/*
 * The cost per event of one tracer section on one workload type: the rate model's cost per
 * event where a sweep fitted an accepted one (npoints > 0), else the first of its cells whose
 * ns/event the outputs quote (model/proof.h tb_proof_ns_per_event_shown: none where the cost
 * is not per event or the overhead is not detectable).
 */
struct tb_event_cost {
	const struct tb_cell *cell; /* the tracer's first traced cell of that workload type */
	char probe[96];		    /* tb_cell_probe_label of it */
	double ns, lo, hi;	    /* ns/event and its CI; NAN when unknown */
	size_t npoints;		    /* points of the rate model, 0: a cell's own figure */
	const char *why;	    /* why there is no figure (NULL when ns is known) */
};

/*
 * Every (tracer section, workload type) of r's traced cells, up to max entries into out: the
 * ones with a figure cheapest first, then those left out of the ranking (*nleft of them, each
 * with its why). Returns how many are ranked. out's cells and reasons are borrowed from r.
 */
size_t tb_stats_event_costs(const struct tb_result *r, struct tb_event_cost *out, size_t max,
			    size_t *nleft);

#endif /* TB_RANKING_H */
