/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Change-point detection over one series (METHODOLOGY.md, section 8), after Apache Otava
 * (formerly Hunter, MongoDB; Daly et al., ICPE 2020), deterministic:
 *
 *  1. split: in windows of `window` points (sliding by half a window), binary segmentation:
 *     the split of a segment whose two sides differ most by Welch's two-sided t-test on the
 *     points' values is a candidate when its p is below 10 x p_value, and both sides are split
 *     again;
 *  2. merge: each candidate is tested between the whole segments around it (from the previous
 *     candidate to the next): by Welch's t-test on the points' values AND, where the points carry
 *     per-sample values, on the two segments' pooled samples. The candidate with the largest of
 *     its two p-values goes while that p is >= p_value, then the one with the smallest magnitude
 *     while it is below min_magnitude; its neighbours are tested again each time.
 *
 * Ties go to the lower index, nothing is random (the CIs' bootstrap has a fixed seed), so the
 * same series gives the same change points.
 */
#ifndef TB_HISTORY_DETECT_H
#define TB_HISTORY_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "history/series.h"

/* Defaults, justified in METHODOLOGY.md section 8 against Otava's window 50 and p 0.001. */
#define TB_DETECT_WINDOW	50
#define TB_DETECT_P_VALUE	0.001
#define TB_DETECT_MIN_MAGNITUDE 0.03
#define TB_DETECT_MIN_SEGMENT	2 /* points on each side of a change (Welch needs two) */

struct tb_detect_opts {
	size_t window;	      /* points per split window (>= 2 * TB_DETECT_MIN_SEGMENT) */
	double p_value;	      /* a change must have p below this (points and samples) */
	double min_magnitude; /* and a magnitude at least this (a fraction, tb_hmag's rules) */
	double confidence;    /* of the change's CI */
	unsigned int resamples;
	uint64_t seed;
};

void tb_detect_opts_init(struct tb_detect_opts *o);

/* A series as the detector sees it: values in run order, optional scales and samples. */
struct tb_detect_input {
	size_t n;
	const double *value;	  /* n point values, finite */
	const double *scale;	  /* n scales for TB_HMAG_SCALED (NAN: unknown), or NULL */
	const double *samples;	  /* every point's per-sample values, point after point, or NULL */
	const size_t *sample_off; /* n + 1 offsets: point i's samples are [off[i], off[i+1]) */
	enum tb_hmag mag;
};

/* One change point: the segments before [start, index) and after [index, end). */
struct tb_change {
	size_t index; /* the first point after the change */
	size_t start, end;
	double before, after;		   /* medians of the points' values */
	double change, ci_lo, ci_hi;	   /* after - before in the metric's unit, bootstrap CI */
	double change_pct, pct_lo, pct_hi; /* 100 * (after / before - 1), CI; NAN if before 0 */
	double p;			   /* Welch on the points' values */
	double p_samples;		   /* Welch on the pooled samples; NAN without samples */
	double magnitude;		   /* the size judged against min_magnitude */
};

/*
 * The change points of in, in index order, into *out (the caller frees it) and their count
 * into *n. Returns 0, -EINVAL (bad options) or -ENOMEM.
 */
int tb_detect(const struct tb_detect_input *in, const struct tb_detect_opts *o,
	      struct tb_change **out, size_t *n);

/* A new point judged against a stable segment [start, end) of in (the gate). */
struct tb_detect_vs {
	size_t npoints;			   /* in the segment */
	double median, mean, sd;	   /* of the segment's point values */
	double change, ci_lo, ci_hi;	   /* new - mean, with the prediction interval's CI */
	double change_pct, pct_lo, pct_hi; /* the same in % of the mean; NAN unless it is > 0 */
	double p;	  /* prediction t-test: is the new point from the segment? */
	double p_samples; /* Welch: new samples vs the segment's pooled samples */
	double magnitude;
	double mde, mde_pct; /* the smallest change the test sees at the power asked for (pct:
				in % of the mean) */
};

/*
 * Judge value (with its samples, may be NULL) against in's points [start, end) at confidence
 * 1 - alpha: t = (value - mean) / (sd * sqrt(1 + 1/n)) with n - 1 degrees of freedom, the
 * CI of the change the prediction interval around it; its MDE at power (t[1 - alpha/2] +
 * t[power]) times the same standard error. Needs 2 points (else p is NAN).
 * scale is the new point's TB_HMAG_SCALED scale (NAN: unknown).
 */
void tb_detect_vs_segment(const struct tb_detect_input *in, size_t start, size_t end, double value,
			  double scale, const double *samples, size_t nsamples, double alpha,
			  double power, struct tb_detect_vs *vs);

#endif /* TB_HISTORY_DETECT_H */
