/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A series read from the store and analysed: its points in run order (one series in memory at
 * a time), its change points (detect.h), and for each of them what else changed at that run:
 * the environment fields (model/system.h's diff of the run before and the run at the change),
 * the scenario text, and the run's labels. Also the gate's view: the newest run against the
 * last stable segment of each of its series.
 */
#ifndef TB_HISTORY_ANALYSIS_H
#define TB_HISTORY_ANALYSIS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "history/detect.h"
#include "history/series.h"
#include "history/store.h"
#include "model/result.h"
#include "model/system.h"

/* A stored point, as the analysis keeps it. */
struct tb_hrec {
	int64_t run_id;
	char started[40];
	double value, ci_lo, ci_hi;
	char verdict[32];
};

/* The points of one series, with the arrays the detector reads. */
struct tb_hdata {
	size_t n;
	struct tb_hrec *rec;
	double *value, *scale;
	double *samples; /* pooled, point after point */
	size_t *off;	 /* n + 1 offsets into samples */
	size_t cap, scap;
};

/*
 * Read series s into d: every point, or with until (an ISO time, may be NULL) those of runs
 * started at or before it, leaving out run exclude (0: none). Returns 0 or -errno.
 */
int tb_hdata_load(struct tb_history *h, const struct tb_hseries *s, const char *until,
		  int64_t exclude, struct tb_hdata *d);
void tb_hdata_free(struct tb_hdata *d);
/* The detector's view of d (borrowing its arrays), for a metric judged by mag. */
void tb_hdata_input(const struct tb_hdata *d, enum tb_hmag mag, struct tb_detect_input *in);

/* Environment leaves that changed between two consecutive runs around a change point. */
struct tb_hdiffs {
	int offset; /* -1: between the two runs before it, 0: at it, +1: between it and the next */
	struct tb_fp_diff *d;
	size_t n; /* transient leaves left out */
};

/* One change point and what explains it. */
struct tb_hchange {
	struct tb_change c;
	int64_t run_id;				    /* the run at the change (points[c.index]) */
	char started[40];			    /* its time */
	json_t *labels;				    /* its labels (object, owned) */
	char variant_before[13], variant_after[13]; /* scenario text hashes around it */
	struct tb_hdiffs diffs[3];		    /* offsets -1, 0, +1 */
};

struct tb_hanalysis {
	const struct tb_hseries *s; /* borrowed */
	struct tb_hdata data;
	struct tb_hchange *ch;
	size_t nch;
	double *seg_median; /* nch + 1: the median of each segment's point values, oldest first */
};

/*
 * Read and analyse series s with o into a (free with tb_hanalysis_free). keep_points: keep
 * a->data for plots and listings; else it is freed once the change points are known.
 * Returns 0 or -errno.
 */
int tb_history_analyze(struct tb_history *h, const struct tb_hseries *s,
		       const struct tb_detect_opts *o, bool keep_points, struct tb_hanalysis *a);
void tb_hanalysis_free(struct tb_hanalysis *a);

struct tb_gate_ref;
/*
 * The gate's references for result r (doc: its JSON, for its content hash): for every cell's
 * gated metric (baseline ns/op, overhead %) and every sweep's slope (sweep_slope, in % of the
 * segment's mean), the run against the last stable segment of its series among the runs
 * started before it (r itself left out when it is stored already). *refs gets one entry per
 * cell of r, in its order, then one per sweep of r, in r->sweeps' order (free with free()).
 * Returns 0 or -errno.
 */
int tb_history_gate_refs(struct tb_history *h, const struct tb_result *r, const json_t *doc,
			 bool comparable, const struct tb_detect_opts *o, double alpha,
			 struct tb_gate_ref **refs);

#endif /* TB_HISTORY_ANALYSIS_H */
