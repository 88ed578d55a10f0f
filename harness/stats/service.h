/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service cells' figures and overheads (service.c, METHODOLOGY.md "Services"): throughput
 * loss and the p50 and p99 deltas of each traced service cell against its baseline, each with
 * a paired bootstrap CI (stats.h) and a verdict by the overhead's rules (a CI clear of 0 and a
 * change beyond the noise threshold; untrustworthy when the cell's ns/op verdict is); the metric the workload names (`decides`) gives the cell
 * its verdict.
 */
#ifndef TB_STATS_SERVICE_H
#define TB_STATS_SERVICE_H

#include "model/result.h"

/* A service sample's figures that compare, gate and history follow, in this order. */
enum tb_stats_svc { TB_STATS_SVC_RPS, TB_STATS_SVC_P50, TB_STATS_SVC_P99, TB_STATS_SVC_N };

/* "throughput", "p50", "p99": the names outputs give the metrics (decides uses them too). */
extern const char *const tb_stats_svc_names[TB_STATS_SVC_N];
/*
 * The finite values of metric m (requests/s or ns) over c's measured service samples: a new
 * array in *out (free it), its length in *n. Returns 0 or -ENOMEM.
 */
int tb_stats_service_values(const struct tb_cell *c, enum tb_stats_svc m, double **out, size_t *n);

/*
 * A service cell's ops differ by sample (its completed requests): ops_per_sample becomes their
 * mean over the measured samples, so that events/op and the proof count per request. Before
 * the overheads.
 */
void tb_stats_service_ops(struct tb_cell *c);
/*
 * c's [service] object from its samples; for a traced cell also the overheads against base
 * (NULL: none) and, when the deciding metric is a latency, the cell's verdict from it (an
 * untrustworthy verdict stays). After the cell's own overhead. Returns 0 or -ENOMEM.
 */
int tb_stats_service(const struct tb_result *r, size_t idx, const struct tb_cell *base,
		     struct tb_cell *c);

#endif /* TB_STATS_SERVICE_H */
